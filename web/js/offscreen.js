// Parts of the page off screen skip their rendering. Every change redraws
// parts of several panels, and the browser's style, layout and paint of the
// parts nobody sees were most of a change's time. With
// `content-visibility: auto` (lab.css, under body[data-offscreen]) the
// browser renders a part only near the screen, and keeps its contents in
// the page: find-in-page, focus, links and screen readers still reach them.
//
// The parts are the panels and, inside a panel, its tall blocks (a pair of
// tables, a figure, the vector editor), and each head's block: a panel
// taller than the screen (the heads with «todas») then renders only the
// blocks in view, not all of itself.
//
// A skipped part keeps a height: the one it last had on screen
// (`contain-intrinsic-size: auto`). So that a part never seen yet holds its
// own height, not a guess (a link or a reload would land off), it starts
// from the height it has when this turns on: after the first whole view is
// drawn and laid out, read from a layout the browser has already done.
// Blocks that a later change adds (the heads of «todas») start from the
// guess in lab.css until they are first on screen.

import { onReaderMove } from "./place.js";

const PANELS = ":scope > section.panel";
const LATER = ":scope > section.panel [data-later]";
const BLOCKS = ":scope > section.panel > *, :scope > section.panel .blocks > *";
const TALL = 160; // px: below this a block costs little to render, and is left alone

function contentHeight(part) {
  const box = getComputedStyle(part);
  const edges = ["paddingTop", "paddingBottom", "borderTopWidth", "borderBottomWidth"]
    .reduce((sum, side) => sum + parseFloat(box[side]), 0);
  return part.getBoundingClientRect().height - edges;
}

export function skipOffScreen(root) {
  if (!CSS.supports("content-visibility", "auto")) return;
  requestAnimationFrame(() => setTimeout(() => {
    const heights = new Map();
    const onScreen = new Set();
    const look = (part) => {
      const box = part.getBoundingClientRect();
      if (box.bottom > 0 && box.top < innerHeight) onScreen.add(part);
    };
    for (const panel of root.querySelectorAll(PANELS)) {
      heights.set(panel, contentHeight(panel));
      look(panel);
    }
    for (const block of root.querySelectorAll(BLOCKS)) {
      const height = contentHeight(block);
      if (height >= TALL) {
        heights.set(block, height);
        block.dataset.skip = "";
        look(block);
      }
    }
    for (const part of root.querySelectorAll(".blocks > *, .combine")) look(part); // lab.css skips these too
    // All read first, then all written: one layout, not one per part.
    for (const [part, height] of heights) {
      if (height > 0) part.style.containIntrinsicHeight = `auto ${height}px`;
    }
    // A part on screen as this turns on stays rendered (data-stay): the
    // browser would skip it for one frame before it found it on screen, and
    // every line of it would jump from nowhere to its place (a layout shift
    // the reader sees as a flash, and CLS counts).
    for (const part of onScreen) part.dataset.stay = "";
    document.body.dataset.offscreen = "";
    keepEdges();
  }));
}

// Home and End land at the page's edge. A skipped part keeps the height it
// last had on screen; one whose contents changed while it was off screen
// (the panels a change drew there) takes its new height only as the
// browser's scroll brings it near and renders it, so that scroll, aimed at
// the edge as it was, stopped short of it (here, with «todas» the heads:
// End 8 to 180 px short, Home once 569 px). After Home or End, then, each
// scroll's end and each change in the page's height take the page on to
// the edge, until the reader does anything else (focus moved by a screen
// reader included). Keys a control keeps (a grid's Home, a field's End) are
// not the page's.
const EDGE_MS = 2000; // long enough for the parts on the way to render

function keepEdges() {
  let edge = null;
  let until = 0;
  const settle = () => {
    if (!edge || performance.now() > until) {
      edge = null;
      return;
    }
    const top = edge === "Home" ? 0 : document.documentElement.scrollHeight - innerHeight;
    if (Math.abs(scrollY - top) >= 1) scrollTo({ top, behavior: "instant" });
  };
  const stop = () => {
    edge = null;
  };
  onReaderMove(stop, { focus: true });
  addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.metaKey || event.shiftKey) return;
    if (event.key !== "Home" && event.key !== "End") return;
    const target = event.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    edge = event.key;
    until = performance.now() + EDGE_MS;
  });
  addEventListener("scrollend", settle, { passive: true });
  new ResizeObserver(settle).observe(document.body);
}

// Drawing waits for the screen too. A change redraws every panel its keys
// reach, and drawing the panels nobody sees (the DOM writes, and the style
// work they cause) was most of what a change cost. So a change draws, with
// its frame, the panels on screen, the panel it moves to and the one holding
// the focus; the others are drawn a moment later, one per task after that
// frame. So does a block marked data-later inside a panel drawn now, while
// off screen: panel 3's vector editor, under the heads' tables, whose
// fields (36 a head, 108 with «todas») the browser laid out again on every
// change of head (left for later, a quarter of the main thread's time a
// change of head takes); panel 2's head view and a cell's arithmetic, under
// its tables. (Panel 3's concatenation, left for later, cost more than it
// saved: it stayed in the page under one head, not hidden.) The reader's
// next move draws what is left at once, before the browser acts on it: a
// key or a pointer pressed (before focus moves or a link is followed), a
// focus that arrives anyway, a print. A scroll draws the parts it brings
// within half a screen of the view (as far ahead as the browser renders a
// skipped part), from an observer: it reports after the frame, and reads
// no layout of its own. While a request is with Python they wait, since its
// reply draws them anyway, from the newer view (a slider dragged draws them
// once, when it stops). main.js keeps <body data-busy> until all are drawn.
const AFTER_FRAME = -1; // Later.timer while waiting for the frame
const NO_FRAME_MS = 100;

// Run `work` in a task after the next frame: what is drawn before it is on
// screen first. A page that draws no frames (a hidden tab, an embed scrolled
// out of its page) runs it after NO_FRAME_MS anyway. Once, either way.
export function afterFrame(work) {
  let waiting = true;
  const start = () => {
    if (!waiting) return;
    waiting = false;
    setTimeout(work);
  };
  requestAnimationFrame(start);
  setTimeout(start, NO_FRAME_MS);
}

export class Later {
  // draw(panel): draws one panel from the view on screen;
  // done(): every panel shows the view on screen;
  // onBarCover(listener): calls listener(px) now and whenever the px of
  // the screen's top under the page's sticky bar change (chrome.js).
  constructor(root, draw, done, onBarCover) {
    this.draw = draw;
    this.done = done;
    this.stale = new Set();
    this.onScreen = new Set();
    this.watching = false; // until the observer first reports
    this.held = false;
    this.timer = null;
    if (!("IntersectionObserver" in window)) return; // then every change draws all
    this.panels = [...root.querySelectorAll(PANELS)];
    this.blocks = [...root.querySelectorAll(LATER)];
    this.parts = [...this.panels, ...this.blocks];
    // What the sticky bar covers is not on screen. A page scrolled to a
    // panel keeps the end of the one above under the bar; with «todas» the
    // heads, that one grows by three heads' tables the reader cannot see.
    let observer = null;
    this.barTop = 0;
    this.catching = false; // a frame's catch-up is asked for
    onBarCover((top) => {
      this.barTop = top;
      if (observer) observer.disconnect();
      this.onScreen.clear();
      this.watching = false;
      observer = this.watch(this.onScreen, `-${top}px 0px 0px 0px`);
    });
    const now = () => {
      if (this.pending) this.drawAll();
    };
    for (const type of ["keydown", "pointerdown", "focusin", "beforeprint"]) {
      addEventListener(type, now, { capture: true, passive: true });
    }
    // The browser scrolls by itself too: when a panel above the screen
    // grows (the heads with «todas»), scroll anchoring moves the page by as
    // much. A scroll listener that read where the panels were forced a
    // layout of the change just drawn on every such scroll, and the frame
    // laid out again what the next task drew.
    this.watch(new Set(), "50% 0px");
  }

  // An observer that keeps in `seen` the parts within `rootMargin` of the
  // screen, and draws the stale ones as they arrive.
  watch(seen, rootMargin) {
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) seen.add(entry.target);
        else seen.delete(entry.target);
      }
      if (seen === this.onScreen) this.watching = true;
      const arrived = [...this.stale].filter((part) => seen.has(part));
      if (arrived.length) this.drawNow(arrived);
    }, { rootMargin });
    for (const part of this.parts) observer.observe(part);
    return observer;
  }

  get pending() {
    return this.stale.size > 0;
  }

  // The parts a change may leave for later (null: draw them all now): the
  // panels off screen, and the marked blocks off screen in the panels that
  // are drawn now. What is on screen is what the observer saw at the last
  // frame: reading the layout here would force one (the last change's, not
  // yet drawn), and cost more than the drawing it saves.
  far(keep) {
    if (!this.watching) return null;
    const focus = document.activeElement;
    const away = (part) => !this.onScreen.has(part) && !part.contains(focus);
    const panels = this.panels.filter((panel) => panel.id !== keep && away(panel));
    const blocks = this.blocks.filter((block) => {
      const panel = block.closest("section.panel");
      return panel.id !== keep && !panels.includes(panel) && away(block);
    });
    return new Set([...panels, ...blocks]);
  }

  // A view was drawn, all but `skipped` (a Set, or null: all of it).
  drew(skipped) {
    this.stale = new Set(skipped || []);
    if (this.pending && !this.catching) {
      this.catching = true;
      requestAnimationFrame(() => this.catchUp());
    }
    this.schedule();
  }

  // The change itself can bring a part left for later on screen: tables
  // that shrink (from «todas» to one head) pull up what is under them, and
  // the observer would tell only after that frame, so the part showed the
  // last change (or nothing) for one frame. Just before the frame, the
  // parts left for later that the change's layout puts on screen are drawn.
  // Read here, after the change's writes, the layout is the one the frame
  // makes anyway, not one more.
  catchUp() {
    this.catching = false;
    const bottom = innerHeight;
    const shown = [...this.stale].filter((part) => {
      const box = part.getBoundingClientRect();
      return box.height > 0 && box.bottom > this.barTop && box.top < bottom;
    });
    if (shown.length) this.drawNow(shown);
  }

  // A request is with Python (hold) or back (release).
  hold() {
    this.held = true;
    clearTimeout(this.timer);
    this.timer = null;
  }

  release() {
    this.held = false;
    this.schedule();
  }

  // A panel drawn is drawn whole: its blocks left for later are done too.
  drawNow(parts) {
    for (const part of parts) {
      if (!this.stale.delete(part)) continue; // drawn with its panel already
      if (this.panels.includes(part)) {
        for (const block of this.blocks) if (part.contains(block)) this.stale.delete(block);
      }
      this.draw(part);
    }
    if (!this.pending) this.done();
  }

  drawAll() {
    this.drawNow([...this.stale]);
  }

  // After the frame that shows the change, a task per panel. (A page that
  // draws no frames, an embed scrolled out of its page, starts anyway.)
  schedule() {
    if (this.held || this.timer !== null) return;
    if (!this.pending) {
      this.done();
      return;
    }
    const next = () => {
      this.timer = null;
      if (this.held || !this.pending) return;
      const [part] = this.stale;
      this.drawNow([part]);
      if (this.pending) this.timer = setTimeout(next);
    };
    this.timer = AFTER_FRAME;
    afterFrame(() => {
      if (this.timer === AFTER_FRAME) next(); // not held meanwhile
    });
  }
}
