// The classroom kit, shared by both pages: share a link, go back to the
// article's state, choose a theme, embed one panel in a course page, export
// tables and figures, print with the state written out, and move through
// the score tables and the row names with the keyboard. Numbers and export
// texts come from Python; this module only moves them to the clipboard, a
// file or the page.

import { fieldText, oneTabStop } from "./render.js";
import * as url from "./url.js";

const THEME_KEY = "attention-lab-theme";
const THEMES = ["auto", "light", "dark"];
const THEME_NAMES = { auto: "automático", light: "claro", dark: "oscuro" };

let lab = null; // {set, settled(), view(), defaults(), exportTable(id), announce(text), live(), whenLive()}

export function init(hooks) {
  lab = hooks;
  url.onWrite(refreshLinks);
  refreshLinks();
  applyTheme(storedTheme());
  for (const button of document.querySelectorAll(".figure-download")) {
    const figure = button.closest("figure");
    button.setAttribute("aria-label", `Descargar la figura «${figure.dataset.figure.replace(/-/g, " ")}»`);
  }
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onGridKey);
  document.addEventListener("keydown", onRowPickKey);
  document.addEventListener("keydown", onSliderKey);
  document.addEventListener("focusin", onGridFocus);
  for (const dialog of document.querySelectorAll("dialog")) {
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) dialog.close(); // a click on the backdrop
    });
  }
}

// ------------------------------------------------------------------ theme

function storedTheme() {
  try {
    const theme = localStorage.getItem(THEME_KEY);
    return THEMES.includes(theme) ? theme : "auto";
  } catch (error) {
    return "auto"; // storage may be off (private mode, a sandboxed iframe)
  }
}

function applyTheme(theme) {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  const button = document.getElementById("theme-toggle");
  if (button) button.textContent = `Tema: ${THEME_NAMES[theme]}`;
}

// The first press always changes what the reader sees: from automatic to
// the opposite of the system's scheme, then the other, then automatic.
function nextTheme() {
  const system = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  const order = ["auto", system === "dark" ? "light" : "dark", system];
  const theme = order[(order.indexOf(storedTheme()) + 1) % order.length];
  try {
    localStorage.setItem(THEME_KEY, theme);
  } catch (error) {
    // the choice then lasts this visit only
  }
  applyTheme(theme);
  lab.announce(`Tema ${THEME_NAMES[theme]}.`);
}

// -------------------------------------------------------------- clipboard

// Copy text; where the clipboard is not available (a plain-http address is
// not a secure context; permission refused), show it selected in a box.
async function copy(text, what) {
  try {
    if (!navigator.clipboard || !window.isSecureContext) throw new Error("sin portapapeles");
    await navigator.clipboard.writeText(text);
    lab.announce(`${what} se ha copiado al portapapeles.`);
    return true;
  } catch (error) {
    showText(text, `${what}: el navegador no deja copiar aquí; selecciónalo y cópialo tú.`);
    return false;
  }
}

function showText(text, title) {
  const dialog = document.getElementById("text-dialog");
  dialog.querySelector(".dialog-title").textContent = title;
  const box = dialog.querySelector("textarea");
  box.value = text;
  if (!dialog.open) dialog.showModal();
  box.focus();
  box.select();
}

function download(filename, blob) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ------------------------------------------------------------- share, embed

function confirmNear(button, text) {
  const note = button.parentElement.querySelector(".confirm");
  if (note) {
    note.textContent = text;
    setTimeout(() => { if (note.textContent === text) note.textContent = ""; }, 4000);
  }
}

function embedURL(panel) {
  const link = new URL(url.href());
  link.hash = "";
  link.searchParams.set("embed", "1");
  link.searchParams.set("panel", panel);
  return link.href.replace(/%3B/g, ";");
}

// An attribute value for the snippet: whatever the URL holds, it cannot
// close the attribute or open a tag.
function attribute(text) {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function snippet(panel) {
  const title = document.getElementById(`${panel}-title`);
  const name = title ? title.textContent.replace(/\s+/g, " ").trim() : panel;
  // The panel's own height now, plus room for the status and its controls.
  const height = Math.max(480, Math.min(2400, Math.round(document.getElementById(panel).scrollHeight + 240)));
  return `<iframe src="${attribute(embedURL(panel))}" title="${attribute(`Laboratorio · ${name}`)}" ` +
    `width="100%" height="${height}" style="border:0" loading="lazy"></iframe>`;
}

function showSnippet(panel) {
  const dialog = document.getElementById("embed-dialog");
  dialog.querySelector("textarea").value = snippet(panel);
  dialog.dataset.panel = panel;
  dialog.showModal();
  dialog.querySelector("textarea").select();
}

// ------------------------------------------------------------------ export

async function openExport(tableId) {
  const dialog = document.getElementById("export-dialog");
  dialog.dataset.table = tableId;
  const status = dialog.querySelector(".export-status");
  dialog.exported = null;
  dialog.querySelector(".export-caption").textContent = "";
  for (const button of dialog.querySelectorAll("[data-format]")) button.disabled = true;
  status.textContent = lab.live() ? "Preparando la exportación…"
    : "La exportación estará disponible en cuanto Python esté listo.";
  if (!dialog.open) dialog.showModal();
  try {
    if (!lab.live()) {
      await lab.whenLive();
      if (!dialog.open || dialog.dataset.table !== tableId) return; // closed, or another table since
      status.textContent = "Preparando la exportación…";
    }
    const exported = await lab.exportTable(tableId);
    dialog.exported = exported;
    dialog.querySelector(".export-caption").textContent = exported.caption;
    status.textContent = "";
    for (const button of dialog.querySelectorAll("[data-format]")) button.disabled = false;
  } catch (error) {
    status.textContent = `No se pudo exportar: ${error.message}`;
  }
}

const FORMATS = { csv: "CSV", markdown: "Markdown", latex: "LaTeX" };

function exportAction(button) {
  const dialog = document.getElementById("export-dialog");
  const exported = dialog.exported;
  if (!exported) return;
  const format = button.dataset.format;
  if (button.dataset.download) {
    // A BOM so spreadsheets read the accents and the minus sign as UTF-8.
    download(`${exported.filename}.csv`, new Blob(["\ufeff", exported.csv], { type: "text/csv;charset=utf-8" }));
    lab.announce("CSV descargado.");
  } else {
    copy(exported[format], `La tabla en ${FORMATS[format]}`);
  }
}

// A figure as a standalone file: an SVG with the styles it uses written in,
// or the canvas as a PNG.
const SVG_NS = "http://www.w3.org/2000/svg";
const STYLED = ["fill", "stroke", "stroke-width", "stroke-dasharray", "opacity", "font-size",
  "font-family", "font-weight"];

function svgNode(name, attributes) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

// The paper under a figure, as a rect over `svg`'s whole drawing area (a
// drawing centred on its origin has a viewBox from below 0): the colour of
// the first ancestor of `node` with a background.
function paper(svg, node) {
  let fill = "#ffffff";
  for (let at = node; at; at = at.parentElement) {
    const color = getComputedStyle(at).backgroundColor;
    if (color && color !== "transparent" && !/^rgba\(.*,\s*0\)$/.test(color)) {
      fill = color;
      break;
    }
  }
  const box = svg.viewBox.baseVal;
  const area = box && box.width ? { x: box.x, y: box.y, width: box.width, height: box.height }
    : { width: "100%", height: "100%" };
  return svgNode("rect", { ...area, fill });
}

// A copy of `svg` with each element's computed styles as attributes (no
// style attribute: the page's policy refuses inline styles).
function styledCopy(svg) {
  const clone = svg.cloneNode(true);
  const live = svg.querySelectorAll("*");
  clone.querySelectorAll("*").forEach((node, i) => {
    const style = getComputedStyle(live[i]);
    for (const property of STYLED) node.setAttribute(property, style.getPropertyValue(property));
  });
  return clone;
}

// A head view is words (HTML buttons) on both sides of its lines (SVG): the
// file draws the words as text, so it reads without the page.
function headViewFile(view) {
  const lines = view.querySelector("svg");
  const box = lines.viewBox.baseVal;
  const side = (name) => [...view.querySelectorAll(`.hv-${name} .hv-word`)];
  const left = Math.ceil(view.querySelector(".hv-q").getBoundingClientRect().width);
  const right = Math.ceil(view.querySelector(".hv-k").getBoundingClientRect().width);
  const out = svgNode("svg", { width: left + box.width + right, height: box.height,
    viewBox: `0 0 ${left + box.width + right} ${box.height}` });
  out.append(paper(out, view));
  for (const [name, x, anchor] of [["q", left - 6, "end"], ["k", left + box.width + 6, "start"]]) {
    side(name).forEach((button, i) => {
      const style = getComputedStyle(button);
      const word = button.querySelector("span:not(.hv-w)");
      const text = svgNode("text", { x, y: 4 + button.offsetHeight * (i + 0.5), "text-anchor": anchor,
        "dominant-baseline": "central", fill: style.color, "font-family": style.fontFamily,
        "font-size": style.fontSize, "font-weight": style.fontWeight });
      text.textContent = word ? word.textContent : button.textContent;
      out.append(text);
    });
  }
  const group = svgNode("g", { transform: `translate(${left} 0)` });
  group.append(...styledCopy(lines).childNodes);
  out.append(group);
  return out;
}

// The key under a drawing (HTML on the page: a swatch and a name per line)
// drawn into the file below it, so the file says which line is which.
const KEY_ROW = 18; // px

function withKey(drawing, key) {
  const items = key ? [...key.querySelectorAll("li")] : [];
  if (!items.length) return drawing;
  const box = drawing.viewBox.baseVal;
  const [width, height] = [box.width, box.height];
  drawing.setAttribute("width", width);
  drawing.setAttribute("height", height);
  const total = height + KEY_ROW * items.length + 8;
  const out = svgNode("svg", { width, height: total, viewBox: `0 0 ${width} ${total}` });
  out.append(paper(out, key), drawing);
  items.forEach((item, i) => {
    const y = height + 4 + KEY_ROW * (i + 0.5);
    const swatch = item.querySelector("svg");
    const line = swatch && styledCopy(swatch).querySelector("line");
    if (line) {
      for (const [name, value] of [["x1", 8], ["x2", 36], ["y1", y], ["y2", y]]) line.setAttribute(name, value);
      out.append(line);
    }
    const style = getComputedStyle(item);
    const text = svgNode("text", { x: 44, y, "dominant-baseline": "central", fill: style.color,
      "font-family": style.fontFamily, "font-size": style.fontSize });
    text.textContent = item.textContent.trim();
    out.append(text);
  });
  return out;
}

function downloadFigure(figure) {
  const name = figure.dataset.figure || "figura";
  const canvas = figure.querySelector("canvas");
  if (canvas) {
    canvas.toBlob((blob) => download(`${name}.png`, blob), "image/png");
    return;
  }
  const view = figure.querySelector(".headview");
  let file;
  if (view) {
    file = headViewFile(view);
  } else {
    const svg = figure.querySelector("svg");
    if (!svg) return;
    file = styledCopy(svg);
    file.insertBefore(paper(svg, svg), file.firstChild);
  }
  file = withKey(file, figure.querySelector(".hv-legend, .chart-legend"));
  file.setAttribute("xmlns", SVG_NS);
  const text = new XMLSerializer().serializeToString(file);
  download(`${name}.svg`, new Blob([text], { type: "image/svg+xml" }));
  lab.announce("Figura descargada.");
}

// ------------------------------------------------------------------- clicks

function onClick(event) {
  const target = event.target.closest("button, a");
  if (!target) return;
  const act = target.dataset.classroom;
  if (!act) return;
  // What reads the state waits for a change still on its way (a field's
  // value is sent when pressing the button takes the focus away).
  if (act === "copy-link") {
    lab.settled().then(() => copy(url.href(), "El enlace"))
      .then((ok) => ok && confirmNear(target, "Enlace copiado"));
  } else if (act === "reset") {
    const { panel, ...article } = lab.defaults(); // the article's state, where the reader is
    lab.set(article).then(() => {
      confirmNear(target, "Vuelta al ejercicio del artículo");
      lab.announce("Vuelta al estado del artículo.");
    }).catch(() => {});
  } else if (act === "theme") {
    nextTheme();
  } else if (act === "print") {
    lab.settled().then(() => window.print());
  } else if (act === "embed") {
    const panel = target.closest("section").id;
    lab.settled().then(() => showSnippet(panel));
  } else if (act === "embed-copy") {
    copy(document.querySelector("#embed-dialog textarea").value, "El código para insertar");
  } else if (act === "export") {
    const table = target.closest(".table-wrap").querySelector("table").id.replace(/^table-/, "");
    lab.settled().then(() => openExport(table));
  } else if (act === "export-format") {
    exportAction(target);
  } else if (act === "figure") {
    // A change on its way (a head chosen just before) is in the file too.
    lab.settled().then(() => downloadFigure(target.closest("figure")));
  } else if (act === "close") {
    target.closest("dialog").close();
  }
}

// ---------------------------------------------------------------- keyboard

// The score and weight tables are grids: one tab stop, the arrow keys move
// between cells (and row labels), focusing a cell says what it holds, and
// Enter or Space makes it the cell the arithmetic explains.
function gridOf(node) {
  return node.closest("table[role='grid']");
}

function gridCells(table) {
  return [...table.tBodies[0].rows].map((row) => [...row.querySelectorAll("th button, td")]);
}

// Elsewhere a table's row names that pick are one tab stop (render.js):
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
    lab.set({ query: item.dataset.row, key: item.dataset.col }).catch(() => {});
  }
}

function onGridFocus(event) {
  const cell = event.target;
  if (cell.tagName !== "TD" || !gridOf(cell)) return;
  const table = gridOf(cell);
  const row = cell.parentElement.querySelector("th").textContent.trim();
  const column = table.tHead.rows[0].cells[cell.cellIndex].textContent.trim();
  lab.announce(`${table.caption.textContent}: fila ${row}, columna ${column}, ${cell.textContent}. ` +
    "Pulsa Intro para ver su cuenta.");
}

// Sliders: the arrows take a useful step, PageUp/PageDown a big one,
// Home/End the ends (data-steps="arrow page" on the input). A number field
// (text, with data-step, data-min and data-max) steps with ↑ and ↓.
function onSliderKey(event) {
  const input = event.target;
  if (input.type === "text" && input.dataset.step) {
    stepField(event, input);
    return;
  }
  if (input.type !== "range" || !input.dataset.steps) return;
  const [small, big] = input.dataset.steps.split(" ").map(Number);
  const min = Number(input.min);
  const max = Number(input.max);
  const value = Number(input.value);
  const moves = {
    ArrowRight: value + small, ArrowUp: value + small, ArrowLeft: value - small, ArrowDown: value - small,
    PageUp: value + big, PageDown: value - big, Home: min, End: max,
  };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const next = Math.min(max, Math.max(min, moves[event.key]));
  input.value = String(Math.round(next * 1000) / 1000);
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

// ↑ and ↓ step from the number Python holds for the field. What the reader
// typed and has not sent yet is sent first, so Python reads it («1.024»,
// «2,5») and the step starts there; a value it refuses stays refused, with
// its message, and takes no step.
async function stepField(event, input) {
  const sign = { ArrowUp: 1, ArrowDown: -1 }[event.key];
  if (!sign || !lab.view()) return;
  event.preventDefault();
  if (input.value !== fieldText(input, held(input))) {
    input.dispatchEvent(new Event("change", { bubbles: true }));
    await lab.settled();
    if (input.hasAttribute("aria-invalid")) return;
  }
  // A field whose values Python spaces unevenly (d_model and the heads:
  // d_model divisible by the heads) gets its next values from Python.
  const control = lab.view().controls[input.dataset.key] || {};
  const given = sign > 0 ? control.up : control.down;
  if (given === null) return; // none left that way
  const { min, max, step } = input.dataset;
  let next = given !== undefined ? given : Math.round((held(input) + sign * Number(step)) * 1000) / 1000;
  if (min !== undefined) next = Math.max(Number(min), next);
  if (max !== undefined) next = Math.min(Number(max), next);
  input.value = fieldText(input, next);
  input.dispatchEvent(new Event("change", { bubbles: true }));
}

// The field's number in the state on screen.
function held(input) {
  const value = lab.view().state[input.dataset.key];
  return input.dataset.index === undefined ? value : value[Number(input.dataset.index)];
}

// Links that carry the current URL: the embedded page's way out, and the
// link printed on paper.
function refreshLinks() {
  const whole = document.getElementById("open-whole");
  if (whole && document.body.dataset.embed) {
    const link = new URL(url.href());
    link.searchParams.delete("embed");
    whole.href = link.href;
  }
  const printed = document.getElementById("print-url");
  if (printed) printed.textContent = url.href();
}

// ------------------------------------------------------------------- embed

// ?embed=1&panel=…: only that panel and the controls it reads, for an
// <iframe> on a course page or in slides. Returns a notice for the reader
// when the request cannot be honoured (the whole page then shows).
export function embedMode(params) {
  if (params.get("embed") !== "1") return null;
  const panel = params.get("panel");
  const section = panel && document.getElementById(panel);
  if (!section || !section.classList.contains("panel")) {
    return `Se ignoró embed=1: hace falta un panel de esta página en «panel» ` +
      `(${panel === null ? "no había ninguno" : `«${panel}» no existe`}); se muestra la página completa.`;
  }
  document.body.dataset.embed = panel;
  section.classList.add("embedded");
  const reads = (section.dataset.reads || "").split(" ");
  for (const control of document.querySelectorAll("#controls .control")) {
    const input = control.querySelector("[data-key]");
    control.hidden = !input || !reads.includes(input.dataset.key);
  }
  const controls = document.getElementById("controls");
  if (controls) controls.hidden = !controls.querySelector(".control:not([hidden])");
  refreshLinks();
  return null;
}
