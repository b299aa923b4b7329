// Tables drawn from the view's table dicts (lab_core/display.table): built
// once per shape, then relabelled and refilled in place, with the note
// Python writes when rounded numbers do not add up, an export button, and a
// cue when the table scrolls inside its box.

import { el, oneTabStop, renderText, setTitle, tableHead } from "./dom.js";
import { say } from "./text.js";

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
      setTitle(pick, say("table.pick", { label: row.label }));
    } else {
      renderText(th, row.label);
    }
    if (grid) {
      table.columns.forEach((column, j) => setTitle(rows[i].cells[j + 1], say("table.cell", { row: row.label, column })));
    }
  });
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

function buildTable(node, table) {
  const element = el("table", undefined, "lab-table");
  element.id = `table-${table.id}`;
  element.append(el("caption", table.caption));
  if (node.dataset.pickCell) element.setAttribute("role", "grid"); // one tab stop; arrows move (classroom.js)
  element.append(tableHead("", table.columns.map(() => "")), el("tbody")); // words: relabel()
  // Every table can be exported (classroom.js asks Python for the texts).
  const tools = el("button", say("export.button"), "table-export");
  tools.type = "button";
  tools.dataset.classroom = "export";
  tools.setAttribute("aria-label", say("export.label", { caption: table.caption }));
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
    wrap.setAttribute("aria-label", say("table.scrolls", { caption: caption ? caption.textContent : say("table.unnamed") }));
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

// The cell a change marks (the query's row, the key's column) may lie
// beyond the right edge of a table that scrolls sideways (a long sentence,
// a phone): when the marked cell moves, its box scrolls sideways just
// enough to show it, clear of a sticky row name. Only then: reading places
// forces a layout, which a redraw otherwise never does.
function keepFocusInView(node, element, table) {
  let at = "";
  table.rows.forEach((row, i) => row.cells.forEach((cell, j) => { if (cell.focus) at = `${i},${j}`; }));
  if (node.dataset.focusAt === at) return;
  node.dataset.focusAt = at;
  const wrap = element.parentElement;
  if (wrap) requestAnimationFrame(() => showFocusCell(wrap));
}

/** Scroll a wide table's box sideways until its marked cell shows, past a
 *  sticky row name. Not under a veil: its cover would slide away with the
 *  columns (predict.js calls this again when the veil lifts). */
export function showFocusCell(wrap) {
  const cell = wrap.querySelector("td.focus");
  if (!cell || wrap.classList.contains("veiled") || wrap.scrollWidth <= wrap.clientWidth + 1) return;
  const box = wrap.getBoundingClientRect();
  const place = cell.getBoundingClientRect();
  const name = cell.parentElement.cells[0];
  const covered = getComputedStyle(name).position === "sticky" ? name.getBoundingClientRect().width : 0;
  if (place.left < box.left + covered) wrap.scrollLeft -= box.left + covered - place.left;
  else if (place.right > box.right) wrap.scrollLeft += place.right - box.right;
}

// Tables update in place when their shape is unchanged, so CSS transitions
// (the mask closing cell by cell) can play and focus is not lost.
export function renderTable(node, table) {
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
  keepFocusInView(node, element, table);
  const exporter = node.querySelector(".table-export");
  if (exporter) exporter.setAttribute("aria-label", say("export.label", { caption: table.caption }));
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
