// Views prepared at build time by lab_core itself (lab_core/prepared.py), so
// the page paints a state's tables before Python is live: the state a link
// names, and any change a reader makes with the selects meanwhile.
//
// A view is assembled by look-up only: each part of the view is stored under
// the URL form of the state keys it reads. A state is prepared when every
// part is found; otherwise (or when a file is missing or malformed) the
// answer is null and the page waits for Python, without a word to the reader.

import { optionalJSON } from "./download.js";

// The look-ups are spelled as lab_core spells a value in a URL
// (state.url_text). The page spells only what a select or a stepper sets: a
// choice or a position, text or a whole number. Every other key of a
// prepared state holds its default, whose spelling the index carries
// ("encoded", written by Python): the page encodes no number itself.
function selectorText(value) {
  if (typeof value === "string") return value;
  return Number.isInteger(value) ? String(value) : null;
}

function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
  }
  return value;
}

export function sameValue(a, b) {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

const strings = (value) => Array.isArray(value) && value.every((item) => typeof item === "string");

// Is this the shape of an index the build writes? Anything else (a page
// edited by hand, a proxy that mangled it) means no prepared views.
function wellFormed(index) {
  return Boolean(index) && typeof index === "object" && typeof index.path === "string" &&
    strings(index.group) && strings(index.selectors) && strings(index.files) &&
    Boolean(index.defaults) && typeof index.defaults === "object" &&
    Boolean(index.encoded) && typeof index.encoded === "object";
}

// The page's own index, written by the build into
// <script type="application/json" id="lab-prepared">, or null.
export function pageIndex() {
  const node = document.getElementById("lab-prepared");
  try {
    return node ? JSON.parse(node.textContent) : null;
  } catch (error) {
    return null;
  }
}

export class Prepared {
  // index: {path, group, selectors, defaults, choices, files} (lab_core/prepared.py)
  constructor(index) {
    this.index = wellFormed(index) ? index : null;
    this.groups = new Map(); // file name -> Promise<group or null>
  }

  get defaults() {
    return this.index ? this.index.defaults : null;
  }

  // Does a partial change only keys the page can prepare?
  covers(keys) {
    return Boolean(this.index) && keys.every((key) => this.index.selectors.includes(key));
  }

  // A key's look-up text in `state`, or null when it is not prepared.
  spell(state, key) {
    if (this.index.selectors.includes(key)) return selectorText(state[key]);
    return key in state && sameValue(state[key], this.index.defaults[key]) ? this.index.encoded[key] : null;
  }

  group(state) {
    const parts = this.index.group.map((key) => this.spell(state, key));
    if (parts.includes(null)) return Promise.resolve(null);
    const name = parts.join("-") || "default";
    if (!this.index.files.includes(name)) return Promise.resolve(null);
    if (!this.groups.has(name)) {
      this.groups.set(name, optionalJSON(new URL(`${this.index.path}${name}.json`, document.baseURI).href));
    }
    return this.groups.get(name);
  }

  // The state's prepared view, or null. `state` may hold URL text ("1") or
  // values ("1" and 1 read the same).
  async view(state) {
    if (!this.index) return null;
    const group = await this.group(state);
    if (!group || typeof group.reads !== "object" || typeof group.parts !== "object") return null;
    const view = {};
    for (const [name, keys] of Object.entries(group.reads)) {
      if (!Array.isArray(keys)) return null;
      const lookup = keys.map((key) => this.spell(state, key));
      if (lookup.includes(null)) return null;
      const parts = group.parts[name];
      const part = parts && Object.prototype.hasOwnProperty.call(parts, lookup.join("|"))
        ? parts[lookup.join("|")] : undefined;
      if (part === undefined) return null;
      view[name] = part;
    }
    return view;
  }

  // Start fetching the groups a reader is likely to need next (cheap: each
  // is a few kB compressed), once the first paint is done.
  warm(state, keys) {
    if (!this.index) return;
    for (const key of keys) {
      const names = (this.index.choices && this.index.choices[key]) || [];
      for (const value of names) this.group({ ...state, [key]: value });
    }
  }
}
