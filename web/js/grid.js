// The score and weight tables are grids, and row names pick the query: one
// owner for all their events. A click on a cell, or Enter on it, makes it
// the cell the arithmetic explains; the arrow keys move between cells (and
// row labels); focusing a cell says what it holds; a row name picks its row.

import { oneTabStop } from "./dom.js";
import { say } from "./text.js";

let lab = null; // {set, state() (the state the page is heading to), announce(text)}

export function initGrids(hooks) {
  lab = hooks;
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onGridKey);
  document.addEventListener("keydown", onRowPickKey);
  document.addEventListener("focusin", onGridFocus);
}

// (row, column) -> (query, key), unless it is the cell already explained.
function pickCell(cell) {
  if (!lab.state()) return;
  const partial = { query: cell.dataset.row, key: cell.dataset.col };
  if (String(lab.state().query) === partial.query && String(lab.state().key) === partial.key) return;
  lab.set(partial).catch(() => {});
}

function onClick(event) {
  const cell = event.target.closest("td[data-col]");
  if (cell) {
    pickCell(cell);
    return;
  }
  const pick = event.target.closest("button.row-pick");
  if (pick) lab.set({ [pick.dataset.pick]: pick.dataset.value }).catch(() => {});
}

// The score and weight tables are grids: one tab stop, the arrow keys move
// between cells (and row labels), focusing a cell says what it holds, and
// Enter or Space makes it the cell the arithmetic explains.
function gridOf(node) {
  return node.closest("table[role='grid']");
}

function gridCells(table) {
  return [...table.tBodies[0].rows].map((row) => [...row.querySelectorAll("th button, td")]);
}

// Elsewhere a table's row names that pick are one tab stop (table.js):
// ↑ and ↓ move between them, Home and End to the first and the last, and
// Enter or Space picks, as any button.
function onRowPickKey(event) {
  const item = event.target;
  if (!item.classList || !item.classList.contains("row-pick") || gridOf(item)) return;
  const picks = [...item.closest("tbody").querySelectorAll(".row-pick")];
  const i = picks.indexOf(item);
  const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: picks.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const target = picks[Math.max(0, Math.min(picks.length - 1, to))];
  oneTabStop(picks, target);
  target.focus();
}

function onGridKey(event) {
  const item = event.target;
  const table = gridOf(item);
  if (!table) return;
  const rows = gridCells(table);
  const r = rows.findIndex((row) => row.includes(item));
  if (r < 0) return;
  const c = rows[r].indexOf(item);
  const moves = {
    ArrowRight: [r, c + 1], ArrowLeft: [r, c - 1], ArrowDown: [r + 1, c], ArrowUp: [r - 1, c],
    Home: [r, 0], End: [r, rows[r].length - 1],
  };
  if (event.key in moves) {
    event.preventDefault();
    const [nr, nc] = moves[event.key];
    const next = rows[Math.max(0, Math.min(rows.length - 1, nr))];
    const target = next[Math.max(0, Math.min(next.length - 1, nc))];
    oneTabStop(rows.flat(), target);
    target.focus();
  } else if ((event.key === "Enter" || event.key === " ") && item.tagName === "TD") {
    event.preventDefault();
    pickCell(item);
  }
}

function onGridFocus(event) {
  const cell = event.target;
  if (cell.tagName !== "TD" || !gridOf(cell)) return;
  const table = gridOf(cell);
  const row = cell.parentElement.querySelector("th").textContent.trim();
  const column = table.tHead.rows[0].cells[cell.cellIndex].textContent.trim();
  lab.announce(say("grid.focus", { caption: table.caption.textContent, row, column, value: cell.textContent }));
}

