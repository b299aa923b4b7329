// Exports: a table as CSV, Markdown or LaTeX (the texts come from Python,
// lab_core/export.py), and a figure as a standalone SVG or PNG file.

import { SVG_NS, svg as svgNode } from "./dom.js";
import { copy, download } from "./share.js";
import { say } from "./text.js";

let lab = null; // {live(), whenLive(), exportTable(id), announce(text), stateLine()}

export function initExports(hooks) {
  lab = hooks;
  for (const button of document.querySelectorAll(".figure-download")) {
    const figure = button.closest("figure");
    button.setAttribute("aria-label", say("figure.label", { name: figure.dataset.title }));
  }
}

export async function openExport(tableId) {
  const dialog = document.getElementById("export-dialog");
  dialog.dataset.table = tableId;
  const status = dialog.querySelector(".export-status");
  dialog.exported = null;
  dialog.querySelector(".export-caption").textContent = "";
  for (const button of dialog.querySelectorAll("[data-format]")) button.disabled = true;
  status.textContent = lab.live() ? say("export.preparing") : say("export.waiting");
  if (!dialog.open) dialog.showModal();
  try {
    if (!lab.live()) {
      await lab.whenLive();
      if (!dialog.open || dialog.dataset.table !== tableId) return; // closed, or another table since
      status.textContent = say("export.preparing");
    }
    const exported = await lab.exportTable(tableId);
    dialog.exported = exported;
    dialog.querySelector(".export-caption").textContent = exported.caption;
    status.textContent = "";
    for (const button of dialog.querySelectorAll("[data-format]")) button.disabled = false;
  } catch (error) {
    status.textContent = say("export.failed", { error: error.message });
  }
}

const FORMATS = { csv: "CSV", markdown: "Markdown", latex: "LaTeX" };

export function exportAction(button) {
  const dialog = document.getElementById("export-dialog");
  const exported = dialog.exported;
  if (!exported) return;
  const format = button.dataset.format;
  if (button.dataset.download) {
    // A BOM so spreadsheets read the accents and the minus sign as UTF-8.
    download(`${exported.filename}.csv`, new Blob(["\ufeff", exported.csv], { type: "text/csv;charset=utf-8" }));
    lab.announce(say("export.downloaded"));
  } else {
    // Seen as well as heard: «Copiado» in the dialog, for a moment.
    copy(exported[format], say("copy.table", { format: FORMATS[format] })).then((ok) => {
      if (!ok) return;
      const status = dialog.querySelector(".export-status");
      const done = say("copy.done", { format: FORMATS[format] });
      status.textContent = done;
      setTimeout(() => { if (status.textContent === done) status.textContent = ""; }, 4000);
    });
  }
}

// A figure as a standalone file: an SVG with the styles it uses written in,
// or the canvas as a PNG.
const STYLED = ["fill", "stroke", "stroke-width", "stroke-dasharray", "opacity", "font-size",
  "font-family", "font-weight"];

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

// `drawing` in a new file with `above` px over it and `below` px under it,
// at least `wide` px wide, on the paper of `node`: -> {out, height}, the
// drawing's own height.
function framed(drawing, node, { above = 0, below = 0, wide = 0 }) {
  const box = drawing.viewBox.baseVal;
  const width = box && box.width ? box.width : parseFloat(drawing.getAttribute("width"));
  const height = box && box.height ? box.height : parseFloat(drawing.getAttribute("height"));
  drawing.setAttribute("width", width);
  drawing.setAttribute("height", height);
  if (above) drawing.setAttribute("y", above);
  const [outWidth, total] = [Math.ceil(Math.max(width, wide)), above + height + below];
  const out = svgNode("svg", { width: outWidth, height: total, viewBox: `0 0 ${outWidth} ${total}` });
  out.append(paper(out, node), drawing);
  return { out, height };
}

function withKey(drawing, key) {
  const items = key ? [...key.querySelectorAll("li")] : [];
  if (!items.length) return drawing;
  const { out, height } = framed(drawing, key, { below: KEY_ROW * items.length + 8 });
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

// The file says what it shows and for which state: a title (the figure's
// data-title, in the page's markup) and the state line Python wrote for
// the view, above the drawing, the file widened to hold them.
const TITLE_ROW = 20; // px

function withTitle(drawing, figure) {
  const rows = [[figure.dataset.title, 14, 700, "figure-title"], [lab.stateLine(), 11, 400, "figure-state"]]
    .filter(([words]) => words);
  if (!rows.length) return drawing;
  const style = getComputedStyle(figure);
  const measure = document.createElement("canvas").getContext("2d");
  const wide = Math.max(...rows.map(([words, size, weight]) => {
    measure.font = `${weight} ${size}px ${style.fontFamily}`;
    return measure.measureText(words).width + 12;
  }));
  const { out } = framed(drawing, figure, { above: TITLE_ROW * rows.length + 4, wide });
  rows.forEach(([words, size, weight, name], i) => {
    const text = svgNode("text", { x: 6, y: 2 + TITLE_ROW * (i + 0.5), "dominant-baseline": "central",
      fill: style.color, "font-family": style.fontFamily, "font-size": `${size}px`, "font-weight": weight,
      class: name });
    text.textContent = words;
    out.append(text);
  });
  return out;
}

export function downloadFigure(figure) {
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
  file = withTitle(withKey(file, figure.querySelector(".hv-legend, .chart-legend")), figure);
  file.setAttribute("xmlns", SVG_NS);
  const text = new XMLSerializer().serializeToString(file);
  download(`${name}.svg`, new Blob([text], { type: "image/svg+xml" }));
  lab.announce(say("figure.downloaded"));
}

