// DOM and SVG helpers every drawing module shares. A leaf: it imports
// nothing, so renderers import it and nothing imports a renderer back.
// Text always goes in through textContent: nothing from the view or the URL
// is ever parsed as HTML.

const SVG = "http://www.w3.org/2000/svg";

export function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

/** An SVG element with its attributes (and text, for <text>). */
export function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

export const SVG_NS = SVG;

export function renderText(node, value) {
  const text = String(value);
  if (node.textContent !== text) node.textContent = text;
}

/** Turn a control off for a reason of the view, not of the boot: the page's
 *  enableControls() leaves it off (see data-off). Turned back on, it is
 *  usable only while the page's controls are (<body data-controls="on">,
 *  screen.js): a renderer never enables one field of a page still booting
 *  or stopped by a fault. */
export function turnOff(control, off) {
  control.disabled = off || document.body.dataset.controls !== "on";
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

/** Of `items`, only `stop` is reached by Tab (the arrow keys move among
 *  them: grid.js). */
export function oneTabStop(items, stop) {
  for (const item of items) item.tabIndex = item === stop ? 0 : -1;
}

export function setTitle(node, title) {
  if (node.title !== title) node.title = title;
}
