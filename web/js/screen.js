// What the page shows: the view on screen, where it came from (a prepared
// view, or Python's own), whether it is only the nearest prepared view of a
// link (approximate), and drawing a new one: the panels on screen with the
// frame, the rest a moment later (offscreen.js), the address it belongs to,
// the panel it is on, and the parts a pending change will redraw.

import * as chrome from "./chrome.js";
import { Later, afterFrame, skipOffScreen } from "./offscreen.js";
import { refreshQuestions } from "./predict.js";
import { renderView } from "./render.js";
import { say } from "./text.js";
import * as url from "./url.js";

// Marks read by scripts/bench.py, each made once. (Looked up by name, they
// would scan a timeline that grows by a few entries with every change.)
const marked = new Set();

function once(name) {
  if (marked.has(name)) return false;
  marked.add(name);
  return true;
}

export class Screen {
  // hooks: {settling (settle.js), running() (Python is live, its first view
  // perhaps still to come), onDropped() (a prepared view would not draw: the
  // page stops using them), onConfirmed() (Python's first view is drawn),
  // pageNotices: notices about page keys, said once}
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.view = null;
    this.state = null;
    this.source = null; // "prepared" | "python": who drew the view on screen
    this.approximate = false; // the nearest prepared view of a link, not the link's own
    this.later = null; // the parts a change left for a moment later (offscreen.js)
    this.rest = Promise.resolve(); // the first paint's panels still to draw
    this.firstFrame = new Promise((resolve) => { this.framed = resolve; });
  }

  // Draw a view; `from` is "python" or "prepared". A prepared view that does
  // not draw (a malformed file) is dropped without a word: Python will draw.
  // `change`: the view answers the reader's change (its URL is written when
  // the changes pause, url.js); otherwise the page's first views, written at
  // once, before drawing (replaceState brings the page's style up to date
  // for :target: before a view is drawn that costs nothing, after it a
  // restyle).
  show(next, from, { scrollToPanel = false, change = false } = {}) {
    const previousPanel = this.state ? this.state.panel : undefined;
    const start = performance.now();
    if (from === "python" && !change) url.mirror(this.addressOf(next)); // Python's view always draws
    const firstLater = from === "prepared" && !this.state && "panel" in next.state
      ? this.offScreenPanels(next.state.panel, scrollToPanel) : null;
    const goesTo = this.state && next.state.panel !== this.state.panel ? next.state.panel : null;
    const far = change && this.later ? this.later.far(goesTo) : null;
    // A teacher's view (respuestas): every question shows its answer.
    const answers = next.state.respuestas ? "shown" : "";
    const teacherChanged = (document.documentElement.dataset.answers || "") !== answers;
    if (teacherChanged) document.documentElement.dataset.answers = answers;
    try {
      renderView(this.root, next, { skip: firstLater || far });
    } catch (error) {
      if (from === "python") throw error;
      this.hooks.onDropped();
      return false;
    }
    this.view = next;
    this.state = next.state;
    this.source = from;
    if (teacherChanged) refreshQuestions();
    if (this.later) this.later.drew(far);
    if (firstLater && firstLater.size) {
      // <body data-live> says the whole view is drawn: not yet. The rest is
      // drawn after the frame that shows the first screen (before it, this
      // work held that frame back).
      delete document.body.dataset.live;
      this.rest = new Promise((resolve) => afterFrame(() => {
        if (this.view === next) this.drawRest(next);
        resolve();
      }));
    } else {
      document.body.dataset.live = String(this.source === "python");
    }
    const notices = this.hooks.pageNotices;
    chrome.showNotices([...notices, ...next.notices]);
    if (from === "python") notices.length = 0; // said once, with Python's first view
    if (change || (from === "prepared" && !this.approximate)) url.mirror(this.addressOf(next), { soon: change });
    this.syncButtons();
    this.clearPending();
    if ("panel" in this.state) {
      const moved = previousPanel !== undefined && previousPanel !== this.state.panel;
      showPanel(this.state.panel, scrollToPanel || moved);
    }
    if (once("lab:first-paint")) {
      requestAnimationFrame(() => {
        performance.mark("lab:first-paint");
        this.framed();
      });
    }
    performance.mark("lab:paint"); // one per view drawn: a burst of calls draws once
    performance.measure(`lab:show:${from}`, { start, end: performance.now() });
    if (from === "python" && once("lab:confirmed")) { // Python's own view is on screen
      performance.mark("lab:confirmed");
      this.hooks.onConfirmed();
      skipOffScreen(this.root);
      this.later = new Later(this.root, (part) => renderView(this.root, this.view, { only: part }),
        () => this.hooks.settling.check(), chrome.onBarCover);
    }
    return true;
  }

  // No view will be drawn on its own (none was prepared): the boot need not
  // wait for a first frame.
  noFirstView() {
    this.framed();
  }

  // The query string of a view's address. An embed's panel is part of it even
  // when it is the default one (left out of Python's canonical form): without
  // it, a reload or «atrás» on the course page would show the whole lab.
  addressOf(next) {
    if (!document.body.dataset.embed || !("panel" in next.state)) return next.query_string;
    const params = new URLSearchParams(next.query_string);
    if (!params.has("panel")) params.set("panel", next.state.panel);
    return params.toString();
  }

  drawRest(next) {
    try {
      renderView(this.root, next);
    } catch (error) {
      this.hooks.onDropped(); // a malformed file: Python will draw
      return;
    }
    document.body.dataset.live = String(this.source === "python");
    performance.mark("lab:paint");
  }

  // The panels a first paint can leave for a moment later: those below the
  // first screen (as the page lies before drawing, which only makes panels
  // taller), or, when the link names a panel the page scrolls to, every
  // other one. Scroll anchoring keeps what the reader sees in place.
  offScreenPanels(panel, scrollToPanel) {
    const panels = [...this.root.querySelectorAll(":scope > section.panel")];
    return new Set(panels.filter((section) => section.id !== panel &&
      (scrollToPanel || section.getBoundingClientRect().top > innerHeight)));
  }

  syncButtons() {
    const prev = document.getElementById("step-prev");
    const next = document.getElementById("step-next");
    if (prev && next && this.state && "step" in this.state) {
      prev.disabled = this.state.step <= 1;
      next.disabled = this.state.step >= this.view.sentence.tokens.length;
    }
  }

  // A control a renderer turned off (data-off: the first word cannot move
  // left) stays off when the page enables the rest.
  enableControls(on = true) {
    if (on) document.body.dataset.controls = "on";
    else delete document.body.dataset.controls;
    for (const control of this.root.querySelectorAll("select, button, input, textarea[data-sentence-field]")) {
      if (!control.closest("#fault")) control.disabled = !on || "off" in control.dataset;
    }
    if (on && this.state) this.syncButtons();
  }

  // Parts of the page that a pending change will redraw are marked (dimmed,
  // with the sticky status saying why) until Python applies it.
  markPending(keys, reads) {
    for (const node of this.topLevelSources()) {
      const name = node.dataset.source.split(".")[0];
      const affected = !reads || !reads[name] || reads[name].some((key) => keys.includes(key));
      if (affected && name !== "controls") node.classList.add("pending");
    }
    document.body.dataset.pending = "true";
    if (this.hooks.running()) chrome.showApplying(true);
    chrome.setNote(say(this.approximate ? "note.approximate" : "note.pending"));
  }

  clearPending() {
    const running = this.hooks.running();
    for (const node of this.root.querySelectorAll(".pending")) node.classList.remove("pending");
    delete document.body.dataset.pending;
    if (running) chrome.showApplying(false);
    chrome.setNote(running ? "" : say("note.prepared"));
  }

  topLevelSources() {
    return [...this.root.querySelectorAll("[data-source]")].filter((node) =>
      !node.parentElement.closest("[data-render='each'], [data-render='with']"));
  }
}

function showPanel(panel, scroll) {
  for (const link of document.querySelectorAll(".panel-nav a[data-panel]")) {
    if (link.dataset.panel === panel) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  }
  // The map marks every part the panel teaches (data-marks: its panels).
  for (const part of document.querySelectorAll(".block-map [data-marks]")) {
    if (part.dataset.marks.split(" ").includes(panel)) part.setAttribute("aria-current", "true");
    else part.removeAttribute("aria-current");
  }
  const section = panel && document.getElementById(panel);
  if (scroll && section && !document.body.dataset.embed) section.scrollIntoView({ block: "start" });
}
