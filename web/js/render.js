// Draws a view (the JSON dict built by lab_core; keys in lab_core/views.py):
// the registry of renderers, and the walk that calls them. The renderers
// themselves live in their own modules (table.js, pictures.js, editors.js,
// predict.js), which import only the leaves dom.js and text.js.
//
// Elements say what they show: data-render names a renderer in RENDERERS
// (an unknown name throws), data-source is a dotted path into the current
// scope of the view. Two renderers open a new scope for their children:
//   each  repeats its <template> once per item of a list;
//   with  renders its children against an object, and hides itself on null.
// Text always goes in through textContent: nothing from the view or the URL
// is ever parsed as HTML.

import { el, renderText, turnOff } from "./dom.js";
import { renderBuilder, renderVectors } from "./editors.js";
import { renderChart, renderHeadView, renderHeatmap, renderRopeDrawing } from "./pictures.js";
import { applyVeil, renderPredict } from "./predict.js";
import { renderTable } from "./table.js";

function lookup(scope, path) {
  if (path === ".") return scope;
  let value = scope;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || !(part in value)) {
      throw new Error(`the view has no "${path}"`);
    }
    value = value[part];
  }
  return value;
}

// ------------------------------------------------------------ renderers

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
// A spec with "off" turns the control off while the state makes it moot.
function renderNumber(node, control) {
  for (const bound of ["min", "max", "step"]) {
    if (!(bound in control)) continue;
    if (node.type === "range") node[bound] = String(control[bound]);
    else node.dataset[bound] = String(control[bound]);
  }
  if ("off" in control) turnOff(node, control.off);
}

// A link to a panel of the page: {panel, panel_label}.
function renderPanelLink(node, item) {
  node.href = `#${item.panel}`;
  node.dataset.panel = item.panel;
  renderText(node, item.panel_label);
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
  if (!template) throw new Error("each needs a <template>");
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
  if (!renderer) throw new Error(`no renderer "${name}"`);
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
    const index = input.dataset.index;
    let text;
    if (input.dataset.valueFrom) {
      // A control whose shown value is a view field (the «Frase» select
      // shows «Tu frase» when the sentence is the reader's).
      text = lookup(view, input.dataset.valueFrom);
    } else if (input.tagName === "SELECT") {
      text = String(view.state[input.dataset.key]); // an option's value, not a number to read
    } else {
      // A number field or slider: the text Python wrote for it.
      const field = view.fields[input.dataset.key];
      const forms = input.type === "range" ? field.raw : field.text;
      text = index === undefined ? forms : forms[Number(index)];
    }
    // The field the reader is typing in keeps what they type, unless Python
    // refused it: the view that clears its message («Se mantiene: 8») shows
    // the value kept, even if the reader's Tab has come back to the field.
    const typing = document.activeElement === input && !input.hasAttribute("aria-invalid");
    if (input.value !== text && !typing) input.value = text;
  }
}
