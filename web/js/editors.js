// The reader's own input, drawn from the view: a sentence built from the
// lab's words (chips that move and go by click or keyboard), and the heads'
// vectors as editable pairs of numbers. Python checks every value; these
// renderers only draw, and main.js turns a click or an edit into lab.set.

import { el, tableHead, turnOff } from "./dom.js";
import { say } from "./text.js";

// A sentence as chips: each word with «mover a la izquierda», «a la
// derecha» and «quitar» buttons. data-list names the list in view.builder,
// data-target the state key the buttons change ("tokens" or "other").
export function renderBuilder(node, builder) {
  const words = builder[node.dataset.list];
  const target = node.dataset.target;
  const single = builder[node.dataset.list === "words" ? "single" : "other_single"];
  const list = el("ol", undefined, "chips");
  const where = target === "other" ? ".other" : "";
  words.forEach((item, i) => {
    const chip = el("li", undefined, item.known ? "chip" : "chip chip-unknown");
    const word = el("span", item.word, "chip-word");
    if (!item.known) word.append(el("span", say("chip.unknown"), "visually-hidden"));
    const name = { word: item.word, i };
    const actions = [
      ["left", "←", say(`chip.left${where}`, name), i === 0],
      ["right", "→", say(`chip.right${where}`, name), i === words.length - 1],
      ["remove", "✕", say(`chip.remove${where}`, name), single],
    ].map(([action, mark, label, disabled]) => {
      const button = el("button", mark, `chip-${action}`);
      button.type = "button";
      button.dataset.builder = action;
      button.dataset.target = target;
      button.dataset.index = String(i);
      button.setAttribute("aria-label", label);
      turnOff(button, disabled);
      return button;
    });
    chip.append(actions[0], word, actions[1], actions[2]);
    list.append(chip);
  });
  node.replaceChildren(list);
}

// For each shown head, every word's q, k and v as two text fields (a
// decimal comma is fine). Fields update in place, never under the cursor.
// A table's rows are the vocabulary's words, so a table is built once per
// place (first, second, third head shown) and kept: another head rewrites
// its values and names in place, and switching heads builds no fields
// (fields are costly for the browser to lay out). With «todas», one head's
// table shows at a time, picked with the buttons above it (a page choice,
// not lab state): three tables of 36 fields each were a wall on a phone,
// and laying them out made «todas» the slowest change.
const built = new WeakMap(); // node -> {tables: Map(shape -> parts), picker, picked}

export function renderVectors(node, vectors) {
  if (!built.has(node)) built.set(node, { tables: new Map(), picker: buildPicker(node), picked: null });
  const editor = built.get(node);
  const shown = vectors.tables.map((table, place) => {
    const shape = JSON.stringify([place, table.rows.map((row) => [row.word, row.cells.map((cell) => cell.role)])]);
    if (!editor.tables.has(shape)) editor.tables.set(shape, buildVectorTable(table));
    return [table, editor.tables.get(shape)];
  });
  const several = shown.length > 1;
  const children = [...(several ? [editor.picker] : []), ...shown.map(([, parts]) => parts.box)];
  if (children.length !== node.children.length || children.some((child, i) => node.children[i] !== child)) {
    node.replaceChildren(...children);
  }
  for (const [table, parts] of shown) fillVectorTable(table, parts);
  if (several) {
    const heads = shown.map(([table]) => table.head);
    if (!heads.includes(editor.picked)) editor.picked = heads[0];
    const buttons = editor.picker.querySelector(".picker-buttons");
    if (buttons.dataset.heads !== heads.join(";")) { // built again only for other heads
      buttons.dataset.heads = heads.join(";");
      buttons.replaceChildren(...heads.map((head) => {
        const button = el("button");
        button.type = "button";
        button.dataset.head = head;
        return button;
      }));
    }
    shown.forEach(([table], i) => {
      const button = buttons.children[i];
      if (button.textContent !== table.picker) button.textContent = table.picker;
    });
  }
  showPicked(node, several);
}

// The picked head's table (every table when one head shows), its button pressed.
function showPicked(node, several) {
  const { picked, picker } = built.get(node);
  for (const button of picker.querySelectorAll("button[data-head]")) {
    button.setAttribute("aria-pressed", String(button.dataset.head === picked));
  }
  for (const box of node.querySelectorAll(":scope > .vec-table-box")) {
    box.hidden = several && box.dataset.head !== picked;
  }
}

// «Vectores de: [pista de lugar] [pista financiera] [token anterior]».
function buildPicker(node) {
  const picker = el("div", undefined, "control buttons vec-picker");
  const label = el("span", say("vectors.of"), "vec-picker-label");
  label.id = `${node.id || "vectors"}-picker`;
  const buttons = el("div", undefined, "picker-buttons");
  buttons.setAttribute("role", "group");
  buttons.setAttribute("aria-labelledby", label.id);
  picker.append(label, buttons);
  buttons.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-head]");
    if (!button) return;
    built.get(node).picked = button.dataset.head;
    showPicked(node, true);
  });
  return picker;
}

function fillVectorTable(table, parts) {
  parts.box.dataset.head = table.head;
  if (parts.caption.textContent !== table.caption) parts.caption.textContent = table.caption;
  table.rows.forEach((row, i) => {
    row.cells.forEach((cell, j) => {
      [cell.x, cell.y].forEach((value, index) => {
        const input = parts.inputs[i][j][index];
        const printed = parts.printed[i][j][index];
        if (input.dataset.vec !== cell.name) { // another head's vector in this place
          input.dataset.vec = cell.name;
          input.setAttribute("aria-label", say("vectors.field", { label: cell.label, n: index + 1 }));
          input.removeAttribute("aria-invalid");
        }
        if (document.activeElement !== input && input.value !== value) input.value = value;
        if (printed.textContent !== value) printed.textContent = value;
      });
      const box = parts.cells[i][j];
      if (box.dataset.cell !== cell.name) box.dataset.cell = cell.name;
      box.classList.toggle("edited", cell.edited);
      const original = cell.edited ? say("vectors.original", { value: cell.original }) : "";
      if (box.lastChild.textContent !== original) box.lastChild.textContent = original;
    });
  });
  const reset = say("vectors.reset", { head: table.label });
  if (parts.reset.textContent !== reset) parts.reset.textContent = reset;
  parts.reset.dataset.vecReset = table.head;
  turnOff(parts.reset, table.edited === 0);
}

// -> {box, caption, inputs: [row][cell][coordinate] -> input, printed: the
// same places -> the value as text (paper shows no fields, lab.css), cells:
// [row][cell] -> td, reset}; renderVectors writes the names and values.
function buildVectorTable(table) {
  const box = el("div", undefined, "vec-table-box");
  const element = el("table", undefined, "lab-table vec-table");
  const caption = el("caption");
  element.append(caption);
  const thead = tableHead(say("vectors.word"), [say("vectors.q"), say("vectors.k"), say("vectors.v")]);
  const body = el("tbody");
  const inputs = [];
  const printed = [];
  const cells = [];
  for (const row of table.rows) {
    const tr = el("tr");
    const th = el("th", row.word);
    th.scope = "row";
    tr.append(th);
    const rowInputs = [];
    const rowPrinted = [];
    const rowCells = [];
    for (const cell of row.cells) {
      const td = el("td");
      const pair = el("span", undefined, "vec-pair");
      pair.append(el("span", cell.role, "vec-role"), "(");
      const pairPrinted = [];
      const pairInputs = [0, 1].map((index) => {
        const input = el("input");
        input.type = "text";
        input.dataset.decimal = ""; // a full keyboard: a phone's decimal pad may have no minus
        input.autocomplete = "off";
        input.spellcheck = false;
        input.size = 4;
        input.dataset.index = String(index);
        input.setAttribute("aria-describedby", "err-vec");
        const text = el("span", "", "print-value");
        text.setAttribute("aria-hidden", "true");
        pairPrinted.push(text);
        pair.append(input, text);
        if (index === 0) pair.append(";");
        return input;
      });
      pair.append(")");
      td.append(pair, el("span", "", "vec-original"));
      tr.append(td);
      rowInputs.push(pairInputs);
      rowPrinted.push(pairPrinted);
      rowCells.push(td);
    }
    body.append(tr);
    inputs.push(rowInputs);
    printed.push(rowPrinted);
    cells.push(rowCells);
  }
  element.append(thead, body);
  const reset = el("button", undefined, "vec-reset");
  reset.type = "button";
  box.append(element, reset);
  return { box, caption, inputs, printed, cells, reset };
}
