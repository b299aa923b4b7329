// The reader's own input, drawn from the view: a sentence built from the
// lab's words (chips that move and go by click or keyboard), and the heads'
// vectors as editable pairs of numbers. Python checks every value; these
// renderers only draw, and main.js turns a click or an edit into lab.set.

import { el, tableHead, turnOff } from "./render.js";

// A sentence as chips: each word with «mover a la izquierda», «a la
// derecha» and «quitar» buttons. data-list names the list in view.builder,
// data-target the state key the buttons change ("tokens" or "other").
export function renderBuilder(node, builder) {
  const words = builder[node.dataset.list];
  const target = node.dataset.target;
  const single = builder[node.dataset.list === "words" ? "single" : "other_single"];
  const list = el("ol", undefined, "chips");
  const where = target === "other" ? " de la frase para comparar" : "";
  words.forEach((item, i) => {
    const chip = el("li", undefined, "chip");
    const word = el("span", item.word, "chip-word");
    const name = `«${item.word}» (posición ${i}${where})`;
    const actions = [
      ["left", "←", `Mover ${name} a la izquierda`, i === 0],
      ["right", "→", `Mover ${name} a la derecha`, i === words.length - 1],
      ["remove", "✕", `Quitar ${name}`, single],
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
// A head's table is built once per shape (its words and labels) and kept:
// switching heads, or to «todas» and back, moves built tables in and out.
const KEPT_TABLES = 16;
const built = new WeakMap(); // node -> Map(shape -> {box, inputs, cells, reset})

export function renderVectors(node, vectors) {
  if (!built.has(node)) built.set(node, new Map());
  const kept = built.get(node);
  const shown = vectors.tables.map((table) => {
    const shape = JSON.stringify([table.head, table.caption, table.label, table.rows.map(
      (row) => [row.word, row.cells.map((cell) => [cell.name, cell.role, cell.label])])]);
    if (!kept.has(shape)) {
      kept.set(shape, buildVectorTable(table));
      if (kept.size > KEPT_TABLES) kept.delete(kept.keys().next().value);
    }
    return [table, kept.get(shape)];
  });
  const boxes = shown.map(([, parts]) => parts.box);
  if (boxes.length !== node.children.length || boxes.some((box, i) => node.children[i] !== box)) {
    node.replaceChildren(...boxes);
  }
  for (const [table, parts] of shown) {
    for (const row of table.rows) {
      for (const cell of row.cells) {
        [cell.x, cell.y].forEach((value, index) => {
          const input = parts.inputs.get(`${cell.name}|${index}`);
          if (document.activeElement !== input && input.value !== value) input.value = value;
        });
        const box = parts.cells.get(cell.name);
        box.classList.toggle("edited", cell.edited);
        const original = cell.edited ? `artículo: ${cell.original}` : "";
        if (box.lastChild.textContent !== original) box.lastChild.textContent = original;
      }
    }
    turnOff(parts.reset, table.edited === 0);
  }
}

// -> {box, inputs: Map("name|index" -> input), cells: Map(name -> td), reset}
function buildVectorTable(table) {
  const inputs = new Map();
  const cells = new Map();
  const box = el("div", undefined, "vec-table-box");
  const element = el("table", undefined, "lab-table vec-table");
  element.append(el("caption", table.caption));
  const thead = tableHead("palabra", ["q (consulta)", "k (clave)", "v (valor)"]);
  const body = el("tbody");
  for (const row of table.rows) {
    const tr = el("tr");
    const th = el("th", row.word);
    th.scope = "row";
    tr.append(th);
    for (const cell of row.cells) {
      const td = el("td");
      td.dataset.cell = cell.name;
      const pair = el("span", undefined, "vec-pair");
      pair.append(el("span", cell.role, "vec-role"), "(");
      [0, 1].forEach((index) => {
        const input = el("input");
        input.type = "text";
        input.inputMode = "decimal";
        input.size = 4;
        input.dataset.vec = cell.name;
        input.dataset.index = String(index);
        input.setAttribute("aria-label", `${cell.label}, coordenada ${index + 1}`);
        input.setAttribute("aria-describedby", "err-vec");
        inputs.set(`${cell.name}|${index}`, input);
        pair.append(input);
        if (index === 0) pair.append(";");
      });
      pair.append(")");
      td.append(pair, el("span", "", "vec-original"));
      cells.set(cell.name, td);
      tr.append(td);
    }
    body.append(tr);
  }
  element.append(thead, body);
  const reset = el("button", `Restablecer los vectores de «${table.label}»`, "vec-reset");
  reset.type = "button";
  reset.dataset.vecReset = table.head;
  box.append(element, reset);
  return { box, inputs, cells, reset };
}
