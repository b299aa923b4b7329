// Draws a view (the JSON dict built by lab_core; keys in lab_core/views.py).
//
// Elements say what they show: data-render names a renderer in RENDERERS
// (an unknown name throws), data-source is a dotted path into the current
// scope of the view. Two renderers open a new scope for their children:
//   each  repeats its <template> once per item of a list;
//   with  renders its children against an object, and hides itself on null.
// Text always goes in through textContent: nothing from the view or the URL
// is ever parsed as HTML.

import { renderBuilder, renderVectors } from "./editors.js";
import { renderChart, renderHeadView, renderHeatmap, renderRopeDrawing } from "./pictures.js";
import { applyVeil, renderPredict } from "./predict.js";

function lookup(scope, path) {
  if (path === ".") return scope;
  let value = scope;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || !(part in value)) {
      throw new Error(`la vista no tiene «${path}»`);
    }
    value = value[part];
  }
  return value;
}

export function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

// ------------------------------------------------------------ renderers

export function renderText(node, value) {
  const text = String(value);
  if (node.textContent !== text) node.textContent = text;
}

// Sets data-flag="true|false|…" so CSS can style by a value (ok/bad, masked).
function renderFlag(node, value) {
  node.dataset.flag = String(value);
}

// A group of buttons, one of which is what the view shows: the button whose
// data-value is the value is pressed (aria-pressed), the others are not.
function renderPressed(node, value) {
  for (const button of node.querySelectorAll("button[data-value]")) {
    const pressed = String(button.dataset.value === String(value));
    if (button.getAttribute("aria-pressed") !== pressed) button.setAttribute("aria-pressed", pressed);
  }
}

function renderSelect(node, control) {
  const wanted = control.options.map((o) => `${o.value}\u0000${o.label}`).join("\u0001");
  if (node.dataset.options === wanted) return;
  node.replaceChildren(
    ...control.options.map((option) => {
      const item = el("option", option.label);
      item.value = String(option.value);
      return item;
    }),
  );
  node.dataset.options = wanted;
}

// Bounds from the control spec: a slider's own; a number field is text (a
// number input reads the Spanish «2,5» as 25), its bounds data for ↑ and ↓.
function renderNumber(node, control) {
  for (const bound of ["min", "max", "step"]) {
    if (!(bound in control)) continue;
    if (node.type === "range") node[bound] = String(control[bound]);
    else node.dataset[bound] = String(control[bound]);
  }
}

// What makes a table's DOM: its id and its columns. Its words (corner,
// column and row labels) are written in place, and rows are added or taken
// away as the view's rows change in number (a deeper stack, another step of
// the cache): another sentence, or another number of rows, rebuilds no table.
function tableShape(table) {
  return JSON.stringify([table.id, table.columns.length]);
}

function relabel(element, table) {
  const heads = element.tHead.rows[0].cells;
  renderText(heads[0], table.corner);
  table.columns.forEach((column, j) => renderText(heads[j + 1], column));
  const grid = element.getAttribute("role") === "grid";
  const rows = element.tBodies[0].rows;
  table.rows.forEach((row, i) => {
    const th = rows[i].cells[0];
    const pick = th.firstElementChild;
    if (pick) {
      renderText(pick, row.label);
      setTitle(pick, `Elegir «${row.label}»`);
    } else {
      renderText(th, row.label);
    }
    if (grid) {
      table.columns.forEach((column, j) => setTitle(rows[i].cells[j + 1], `Ver la cuenta de «${row.label}» → «${column}»`));
    }
  });
}

function setTitle(node, title) {
  if (node.title !== title) node.title = title;
}

function fillCell(td, cell, heat) {
  renderText(td, cell.text);
  td.classList.toggle("masked", Boolean(cell.masked));
  td.classList.toggle("diagonal", Boolean(cell.diagonal));
  td.classList.toggle("focus", Boolean(cell.focus));
  if (heat && cell.value !== null && !cell.masked) {
    td.style.setProperty("--w", String(Math.max(0, Math.min(1, cell.value))));
  } else {
    td.style.removeProperty("--w");
  }
}

/** Turn a control off for a reason of the view, not of the boot: the page's
 *  enableControls() leaves it off (see data-off). */
export function turnOff(control, off) {
  control.disabled = off;
  if (off) control.dataset.off = "";
  else delete control.dataset.off;
}

/** A <thead> with a corner cell and one column header per name. */
export function tableHead(corner, columns) {
  const row = el("tr");
  row.append(el("th", corner, "corner"));
  for (const column of columns) {
    const th = el("th", column);
    th.scope = "col";
    row.append(th);
  }
  const head = el("thead");
  head.append(row);
  return head;
}

function buildTable(node, table) {
  const element = el("table", undefined, "lab-table");
  element.id = `table-${table.id}`;
  element.append(el("caption", table.caption));
  if (node.dataset.pickCell) element.setAttribute("role", "grid"); // one tab stop; arrows move (classroom.js)
  element.append(tableHead("", table.columns.map(() => "")), el("tbody")); // words: relabel()
  // Every table can be exported (classroom.js asks Python for the texts).
  const tools = el("button", "Exportar", "table-export");
  tools.type = "button";
  tools.dataset.classroom = "export";
  tools.setAttribute("aria-label", `Exportar la tabla «${table.caption}»`);
  node.replaceChildren(tools, element);
  return element;
}

// Row i of a table: its label cell (a button that picks the row, on a table
// that picks) and `count` cells.
function buildRow(node, grid, i, count) {
  const tr = el("tr");
  const th = el("th");
  th.scope = "row";
  const pickable = node.dataset.pick;
  if (pickable) {
    const pick = el("button", undefined, "row-pick");
    pick.type = "button";
    if (grid) pick.tabIndex = -1;
    pick.dataset.pick = pickable;
    pick.dataset.value = String(i);
    th.append(pick);
  }
  tr.append(th);
  for (let j = 0; j < count; j++) {
    const td = el("td");
    if (grid) { // a cell of the grid: Enter or a click picks (row, column) as (query, key)
      td.tabIndex = -1;
      td.dataset.row = String(i);
      td.dataset.col = String(j);
    }
    tr.append(td);
  }
  return tr;
}

// As many rows as the view has, each with its number of cells.
function fitRows(node, element, table) {
  const grid = element.getAttribute("role") === "grid";
  const body = element.tBodies[0];
  while (body.rows.length > table.rows.length) body.lastElementChild.remove();
  table.rows.forEach((row, i) => {
    const tr = body.rows[i];
    if (!tr) body.append(buildRow(node, grid, i, row.cells.length));
    else if (tr.cells.length !== row.cells.length + 1) tr.replaceWith(buildRow(node, grid, i, row.cells.length));
  });
}

// A table wider than its box scrolls inside it: the box then says so (a
// cue drawn by the CSS), and becomes a keyboard-focusable, named region so
// a keyboard can scroll it too. Re-checked when the box or the table changes
// size, by a ResizeObserver: it runs after the browser's own layout, so a
// redraw never forces a layout of its own (that cost more than the drawing).
const overflow = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    if (!target.isConnected) overflow.unobserve(target); // a table rebuilt since
    else markOverflow(target.tagName === "TABLE" ? target.parentElement : target);
  }
});

function markOverflow(wrap) {
  const scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
  if (scrolls === wrap.classList.contains("scrolls")) return;
  wrap.classList.toggle("scrolls", scrolls);
  if (scrolls) {
    const caption = wrap.querySelector("caption");
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", `${caption ? caption.textContent : "Tabla"} (desliza para ver más columnas)`);
  } else {
    wrap.removeAttribute("tabindex");
    wrap.removeAttribute("role");
    wrap.removeAttribute("aria-label");
  }
}

// Under a table, the note Python writes when its rounded numbers do not add
// up as read; the table names it as its description.
function renderNote(node, element, note) {
  let paragraph = node.querySelector(".table-note");
  if (!note) {
    if (paragraph) paragraph.remove();
    element.removeAttribute("aria-describedby");
    return;
  }
  if (!paragraph) {
    paragraph = el("p", undefined, "table-note");
    paragraph.id = `${element.id}-note`;
    node.append(paragraph);
  }
  renderText(paragraph, note);
  element.setAttribute("aria-describedby", paragraph.id);
}

/** Of `items`, only `stop` is reached by Tab (the arrow keys move among
 *  them: classroom.js). */
export function oneTabStop(items, stop) {
  for (const item of items) item.tabIndex = item === stop ? 0 : -1;
}

// Tables update in place when their shape is unchanged, so CSS transitions
// (the mask closing cell by cell) can play and focus is not lost.
function renderTable(node, table) {
  const heat = node.dataset.numeric === "heat";
  let element = node.querySelector("table");
  const shape = tableShape(table);
  if (!element || node.dataset.shape !== shape) {
    if (element) overflow.unobserve(element);
    element = buildTable(node, table);
    node.dataset.shape = shape;
    overflow.observe(element);
  }
  fitRows(node, element, table);
  renderText(element.caption, table.caption);
  relabel(element, table);
  element.classList.toggle("heat", heat);
  const rows = element.tBodies[0].rows;
  table.rows.forEach((row, i) => {
    const tr = rows[i];
    tr.classList.toggle("selected", Boolean(row.selected));
    if (row.selected) tr.setAttribute("aria-current", "true");
    else tr.removeAttribute("aria-current");
    row.cells.forEach((cell, j) => fillCell(tr.cells[j + 1], cell, heat));
  });
  renderNote(node, element, table.note);
  const exporter = node.querySelector(".table-export");
  if (exporter) exporter.setAttribute("aria-label", `Exportar la tabla «${table.caption}»`);
  if (element.getAttribute("role") === "grid" && !element.contains(document.activeElement)) {
    // The grid's one tab stop is the cell the arithmetic explains.
    const cells = [...element.querySelectorAll("td")];
    const focus = cells.find((td) => td.classList.contains("focus")) || cells[0];
    oneTabStop(cells, focus);
  } else if (node.dataset.pick && !element.contains(document.activeElement)) {
    // Row names that pick (panel 3, the mask): one tab stop per table, the
    // selected row's; ↑ and ↓ move between them (classroom.js). With
    // «todas», five tables of four would be twenty stops on the way.
    const picks = [...element.querySelectorAll(".row-pick")];
    const stop = picks[table.rows.findIndex((row) => row.selected)] || picks[0];
    oneTabStop(picks, stop);
  }
  if (!node.dataset.observed) {
    node.dataset.observed = "true";
    overflow.observe(node);
  }
}

// A link to a panel of the page: {panel, panel_label}.
function renderPanelLink(node, item) {
  node.href = `#${item.panel}`;
  node.dataset.panel = item.panel;
  renderText(node, `Por qué: ${item.panel_label}`);
}

// ------------------------------------------------------------- scopes

// Each item is a clone of the template's single root element (or, with
// several roots, a <div> around them), drawn with the item as its scope.
// With data-keep, items beyond the list are set aside (out of the page) and
// put back when the list grows again: one head and «todas» take turns
// without building the same tables again.
const setAside = new WeakMap(); // node -> items out of the page, last out first

function renderEach(node, items) {
  const template = node.querySelector(":scope > template");
  if (!template) throw new Error("«each» necesita un <template>");
  const keep = "keep" in node.dataset;
  if (keep && !setAside.has(node)) setAside.set(node, []);
  const current = [...node.children].filter((child) => child !== template);
  while (current.length > items.length) {
    const item = current.pop();
    item.remove();
    if (keep) setAside.get(node).push(item);
  }
  while (current.length < items.length) {
    const roots = template.content.children;
    let item = keep ? setAside.get(node).pop() : undefined; // as it was when set aside
    if (!item && roots.length === 1) {
      item = roots[0].cloneNode(true);
    } else if (!item) {
      item = el("div", undefined, "each-item");
      item.append(template.content.cloneNode(true));
    }
    node.append(item);
    current.push(item);
  }
  items.forEach((item, i) => renderTree(current[i], item));
}

function renderWith(node, value) {
  node.hidden = value === null || value === false;
  if (!node.hidden) renderChildren(node, value);
}

const RENDERERS = {
  text: renderText,
  flag: renderFlag,
  pressed: renderPressed,
  select: renderSelect,
  number: renderNumber,
  table: renderTable,
  predict: renderPredict,
  "rope-drawing": renderRopeDrawing,
  heatmap: renderHeatmap,
  "head-view": renderHeadView,
  chart: renderChart,
  builder: renderBuilder,
  vectors: renderVectors,
  "panel-link": renderPanelLink,
  each: renderEach,
  with: renderWith,
};

// What each node last drew: the value, and its JSON text. A part of the
// view that did not change is not drawn again: when Python sends a change
// (main.js), an unchanged part is the very object drawn last time, and is
// skipped at once; a new object with equal text (Python's confirmation of a
// prepared view) is skipped too. A change of mask leaves the block of
// figures and the training panel alone. Renderers read only their value, so
// equal text means an equal drawing (and a focused word or cell keeps its
// focus).
const drawn = new WeakMap();

// The elements under `node` that draw (data-render), found once per node:
// the page's own markup never changes around them, and what a renderer
// draws inside its element is its own (no data-render there), so a redraw
// visits only these, not every cell of every table. `flag` only sets an
// attribute: the elements inside it draw too.
const targets = new WeakMap();

function targetsOf(node) {
  let list = targets.get(node);
  if (!list) {
    list = [];
    const walk = (parent) => {
      for (const child of parent.children) {
        if (child.tagName === "TEMPLATE") continue;
        if (child.dataset.render) {
          list.push(child);
          if (child.dataset.render !== "flag") continue;
        }
        walk(child);
      }
    };
    walk(node);
    targets.set(node, list);
  }
  return list;
}

// Draw one element that has data-render, from `scope`; `each` and `with`
// draw their own children.
function renderNode(node, scope) {
  const name = node.dataset.render;
  const renderer = RENDERERS[name];
  if (!renderer) throw new Error(`no hay un dibujante llamado «${name}»`);
  const value = lookup(scope, node.dataset.source);
  if (value !== null && typeof value === "object") {
    const last = drawn.get(node);
    if (!last || last.value !== value) {
      const text = JSON.stringify(value);
      if (!last || last.text !== text) renderer(node, value);
      drawn.set(node, { value, text }); // only once it drew whole
    }
  } else {
    renderer(node, value);
    drawn.delete(node); // a `with` hidden by null draws again on its next object
  }
}

// `skip`: parts not to draw this time (see renderView).
function renderChildren(node, scope, skip = null) {
  for (const target of targetsOf(node)) {
    if (!skip || !skip.has(target)) renderNode(target, scope);
  }
}

// An element that may or may not draw itself, and what draws inside it.
function renderTree(node, scope, skip = null) {
  const name = node.dataset.render;
  if (name) renderNode(node, scope);
  if (!name || name === "flag") renderChildren(node, scope, skip);
}

// Elements of the page's HTML under `scope` (never drawn: a unit test checks
// that no template holds one), found once per scope and selector.
const found = new WeakMap();

function pageElements(scope, selector) {
  if (!found.has(scope)) found.set(scope, new Map());
  const lists = found.get(scope);
  if (!lists.has(selector)) lists.set(selector, [...scope.querySelectorAll(selector)]);
  return lists.get(selector);
}

// `skip`: parts not to draw this time (those off screen: main.js and
// offscreen.js draw them a moment later): children of root (panels), or
// drawing elements inside a panel that are marked data-later (their source
// a field of the view itself); `only`: the one part to draw (one of those).
export function renderView(root, view, { skip = null, only = null } = {}) {
  for (const child of only ? [only] : root.children) {
    if (child.tagName !== "TEMPLATE" && !(skip && skip.has(child))) renderTree(child, view, skip);
  }
  const scope = only || root;
  for (const node of pageElements(scope, ".predict[data-hides]")) {
    if (!skip || !skip.has(node.closest("section.panel"))) applyVeil(node);
  }
  for (const input of pageElements(scope, "[data-key]")) {
    // data-value-from: a control whose shown value is a view field (the
    // «Frase» select shows «Tu frase» when the sentence is the reader's).
    const value = input.dataset.valueFrom ? lookup(view, input.dataset.valueFrom)
      : view.state[input.dataset.key];
    const index = input.dataset.index;
    const text = fieldText(input, index === undefined ? value : value[Number(index)]);
    // The field the reader is typing in keeps what they type, unless Python
    // refused it: the view that clears its message («Se mantiene: 8») shows
    // the value kept, even if the reader's Tab has come back to the field.
    const typing = document.activeElement === input && !input.hasAttribute("aria-invalid");
    if (input.value !== text && !typing) input.value = text;
  }
}

// A number as its field writes it: the decimal comma, Spanish style, in a
// field that reads decimals (data-decimal).
export function fieldText(input, value) {
  return "decimal" in input.dataset ? String(value).replace(".", ",") : String(value);
}

// Notices (what the page ignored from a URL, a change it could not apply)
// sit in the sticky bar, so they are seen wherever the page scrolled to, and
// the reader dismisses them with the box's «Entendido» button.
export function renderNotices(list, messages) {
  list.replaceChildren(...messages.map((message) => el("li", message)));
  const box = list.closest(".notice-box");
  if (box) box.hidden = messages.length === 0;
}
