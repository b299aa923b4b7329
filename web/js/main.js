// The page's glue: owns the UI state, mirrors it in the URL, asks Python for
// a view of it, and draws that view. Publishes window.lab (see README):
//   lab.ready       Promise, resolves once Python is live (it answers lab.set)
//                   and the page shows the URL's state (after a fault and
//                   «Reintentar», a new one). When that state is one the
//                   build prepared, its prepared view is already on screen
//                   and Python's own view of it follows a moment later: the
//                   same numbers (the build checks it), so nothing moves;
//                   <body data-live="true"> says it arrived.
//   lab.state       a copy of the state the page shows
//   lab.set(p)      Promise, resolves once the page shows the state with `p`
//                   applied; rejects (state unchanged) on a bad value. The
//                   address bar follows when the changes pause (url.js).
//   lab.runtime     {name, pyodide, python, numpy} once ready
// Which lab this page is comes from <body data-lab>.
//
// Before Python is live, a state the build prepared (prepared.js) is painted
// at once, and lab.set resolves when it is on screen; any other change waits,
// visibly pending, and is applied the moment Python is live. Once live, calls
// made in one burst go to Python as one batch: one round trip, one paint.

import * as chrome from "./chrome.js";
import * as classroom from "./classroom.js";
import { LoadError, downloadJSON } from "./download.js";
import { Later, afterFrame, skipOffScreen } from "./offscreen.js";
import { goTo, keepPlace, savedPlace } from "./place.js";
import { Prepared, pageIndex } from "./prepared.js";
import { bootPython, pickRuntime } from "./python.js";
import { clearErrors, showError, wire } from "./controls.js";
import { ask as askPython, checkPartial, forget } from "./conversation.js";
import { renderView } from "./render.js";
import { Settling } from "./settle.js";
import * as url from "./url.js";

document.documentElement.dataset.js = "started"; // the watchdog stands down

const MANIFEST = { url: new URL("manifest.json", document.baseURI).href,
  label: "la lista de archivos del laboratorio" };

const labName = document.body.dataset.lab;
const root = document.querySelector("main");

let state = null; // the state on screen
let view = null;
let live = false; // Python answers: changes go to it
let own = false; // the view on screen is Python's own (not a prepared one)
// Python is live but its first view is still being computed: a change
// meanwhile shows its prepared view at once, or waits marked pending, as
// before Python was live (sent to Python, it would wait behind that view).
let confirming = false;
let python = null;
let prepared = new Prepared(pageIndex()); // the build wrote its index into the page
let urlPending = false; // the URL's own state is not on screen yet
const queue = []; // lab.set calls waiting for Python: {partial, resolve, reject}
let flushing = false;
let preLive = Promise.resolve(); // orders the calls made before Python is live
let fault = null; // the boot's fault, while one is shown
let attempts = 0;
const have = new Map(); // downloaded runtime files, kept across retries
const suspect = new Set();
let manifest = null;
let painted = null; // the first paint: a Promise of whether a prepared view is on screen
// A reload's place (place.js): taken once the whole first view is drawn, and
// it wins over the panel the link names (the reader had moved on from it).
let place = savedPlace();
let placeAgain = null; // once Python's own view is drawn (place.js)
let paintedPrepared = false;
let later = null; // the parts a change left for a moment later (offscreen.js)
const pageNotices = []; // about page keys (runtime), not the lab state
let ready;
let settleReady;

function newReady() {
  ready = new Promise((resolve, reject) => { settleReady = { resolve, reject }; });
  ready.catch(() => {});
}
newReady();

// --------------------------------------------------------------- drawing

function showPanel(panel, scroll) {
  for (const link of document.querySelectorAll("a[data-panel]")) {
    if (link.dataset.panel === panel) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  }
  const section = panel && document.getElementById(panel);
  if (scroll && section && !document.body.dataset.embed) section.scrollIntoView({ block: "start" });
}

// Marks read by scripts/bench.py, each made once. (Looked up by name, they
// would scan a timeline that grows by a few entries with every change.)
let firstPaintMarked = false;
let confirmedMarked = false;
let framed; // resolves as the frame of the first view begins (or none will)
const firstFrame = new Promise((resolve) => { framed = resolve; });

function markFirstPaint() {
  if (firstPaintMarked) return;
  firstPaintMarked = true;
  requestAnimationFrame(() => {
    performance.mark("lab:first-paint");
    framed();
  });
}

// The panels a first paint can leave for a moment later: those below the
// first screen (as the page lies before drawing, which only makes panels
// taller), or, when the link names a panel the page scrolls to, every other
// one. Scroll anchoring keeps what the reader sees in place as they fill in.
function offScreenPanels(panel, scrollToPanel) {
  const panels = [...root.querySelectorAll(":scope > section.panel")];
  return new Set(panels.filter((section) => section.id !== panel &&
    (scrollToPanel || section.getBoundingClientRect().top > innerHeight)));
}

let rest = Promise.resolve(); // the first paint's panels still to draw

// Draw a view; `from` is "python" or "prepared". A prepared view that does
// not draw (a malformed file) is dropped without a word: Python will draw.
// `change`: the view answers the reader's change (its URL is written when
// the changes pause, url.js); otherwise the page's first views, written at
// once, before drawing (replaceState brings the page's style up to date for
// :target: before a view is drawn that costs nothing, after it a restyle).
function show(next, from, { scrollToPanel = false, change = false } = {}) {
  const previousPanel = state ? state.panel : undefined;
  const start = performance.now();
  if (from === "python" && !change) url.mirror(addressOf(next)); // Python's view always draws
  const firstLater = from === "prepared" && !state && "panel" in next.state
    ? offScreenPanels(next.state.panel, scrollToPanel) : null;
  const goesTo = state && next.state.panel !== state.panel ? next.state.panel : null; // scrolled to below
  const far = change && later ? later.far(goesTo) : null;
  try {
    renderView(root, next, { skip: firstLater || far });
  } catch (error) {
    if (from === "python") throw error;
    prepared = new Prepared(null);
    return false;
  }
  view = next;
  state = next.state;
  own = from === "python";
  if (later) later.drew(far);
  if (firstLater && firstLater.size) {
    // <body data-live> says the whole view is drawn: not yet.
    delete document.body.dataset.live;
    // After the frame that shows the first screen (before it, this work
    // held that frame back: 20-30 ms here).
    rest = new Promise((resolve) => afterFrame(() => {
      if (view === next) drawRest(next);
      resolve();
    }));
  } else {
    document.body.dataset.live = String(own);
  }
  chrome.showNotices([...pageNotices, ...next.notices]);
  if (from === "python") pageNotices.length = 0; // said once, with Python's first view
  if (change || (from === "prepared" && !urlPending)) url.mirror(addressOf(next), { soon: change });
  syncButtons();
  clearPending();
  if ("panel" in state) {
    const moved = previousPanel !== undefined && previousPanel !== state.panel;
    showPanel(state.panel, scrollToPanel || moved);
  }
  markFirstPaint();
  performance.mark("lab:paint"); // one per view drawn: a burst of calls draws once
  performance.measure(`lab:show:${from}`, { start, end: performance.now() });
  if (own && !confirmedMarked) {
    confirmedMarked = true;
    if (placeAgain) placeAgain();
    placeAgain = null;
    performance.mark("lab:confirmed"); // Python's own view is on screen
    skipOffScreen(root);
    later = new Later(root, (part) => renderView(root, view, { only: part }),
      () => settling.check(), chrome.onBarCover);
  }
  return true;
}

// The query string of a view's address. An embed's panel is part of it even
// when it is the default one (left out of Python's canonical form): without
// it, a reload or «atrás» on the course page would show the whole lab.
function addressOf(next) {
  if (!document.body.dataset.embed || !("panel" in next.state)) return next.query_string;
  const params = new URLSearchParams(next.query_string);
  if (!params.has("panel")) params.set("panel", next.state.panel);
  return params.toString();
}

function drawRest(next) {
  try {
    renderView(root, next);
  } catch (error) {
    prepared = new Prepared(null); // a malformed file: Python will draw
    return;
  }
  document.body.dataset.live = String(own);
  performance.mark("lab:paint");
}

function syncButtons() {
  const prev = document.getElementById("step-prev");
  const next = document.getElementById("step-next");
  if (prev && next && "step" in state) {
    prev.disabled = state.step <= 1;
    next.disabled = state.step >= view.sentence.tokens.length;
  }
}

// A control a renderer turned off (data-off: the first word cannot move
// left) stays off when the page enables the rest.
function enableControls(on = true) {
  for (const control of root.querySelectorAll("select, button, input")) {
    if (!control.closest("#fault")) control.disabled = !on || "off" in control.dataset;
  }
  if (on && state) syncButtons();
}

// Parts of the page that a pending change will redraw are marked (dimmed,
// with the sticky status saying why) until Python applies it.
function topLevelSources() {
  return [...root.querySelectorAll("[data-source]")].filter((node) =>
    !node.parentElement.closest("[data-render='each'], [data-render='with']"));
}

function markPending(keys, reads) {
  for (const node of topLevelSources()) {
    const name = node.dataset.source.split(".")[0];
    const affected = !reads || !reads[name] || reads[name].some((key) => keys.includes(key));
    if (affected && name !== "controls") node.classList.add("pending");
  }
  document.body.dataset.pending = "true";
  if (live) chrome.showApplying(true);
  chrome.setNote(urlPending ? "Vista aproximada: tu enlace se aplicará en cuanto Python esté listo"
    : "Cambio pendiente: se aplicará en cuanto Python esté listo");
}

function clearPending() {
  for (const node of root.querySelectorAll(".pending")) node.classList.remove("pending");
  delete document.body.dataset.pending;
  if (live) chrome.showApplying(false);
  chrome.setNote(live ? "" : "Vista preparada, ya puedes usarla");
}

// --------------------------------------------------- lab.set, its checks

// <body data-busy> and settled() (settle.js): lab.set calls on their way,
// and panels still to draw.
const settling = new Settling(() => Boolean(later && later.pending));
const settled = () => settling.settled();
const wanted = () => settling.heading(state);

function set(partial) {
  const problem = checkPartial(partial);
  if (problem) return Promise.reject(new Error(problem));
  const own = { ...partial };
  return settling.track(new Promise((resolve, reject) => {
    const call = { partial, resolve, reject };
    if (live && !confirming) {
      queue.push(call);
      scheduleFlush();
    } else {
      preLive = preLive.then(() => beforeLive(call));
    }
  }), own);
}

// Before Python is live, or before its first view is in (confirming): a
// prepared state is shown at once; anything else (or anything after
// something pending) waits for Python, marked pending.
async function beforeLive(call) {
  if (live && !confirming) {
    queue.push(call);
    scheduleFlush();
    return;
  }
  const keys = Object.keys(call.partial);
  if (!urlPending && queue.length === 0 && state && prepared.covers(keys)) {
    const next = await prepared.view({ ...state, ...call.partial });
    if (next && show(next, "prepared", { change: true })) {
      clearErrors();
      sayWhatChanged([call.partial]);
      call.resolve(structuredClone(state));
      return;
    }
  }
  if (fault) {
    call.reject(new Error(chrome.describe(fault).title));
    return;
  }
  queue.push(call);
  const group = prepared.index && await prepared.group(state || prepared.defaults);
  markPending(keys, group && group.reads);
}

// Once live: everything queued goes to Python in one batch, and the page is
// painted once with the result; then the next batch, if calls arrived.
function scheduleFlush() {
  if (flushing) return;
  flushing = true;
  queueMicrotask(flush);
}

async function flush() {
  const calls = queue.splice(0);
  if (!calls.length) {
    flushing = false;
    return;
  }
  let reply;
  if (later) later.hold();
  try {
    reply = await ask({ lab: labName, from: "set", current: state, partials: calls.map((c) => c.partial) });
  } catch (error) {
    for (const call of calls) call.reject(error);
    flushing = false;
    return;
  } finally {
    if (later) later.release();
  }
  if (!reply.ok) {
    for (const call of calls) call.reject(new Error(reply.error));
  } else {
    const drawing = performance.now();
    if (reply.view) show(reply.view, "python", { change: true });
    else clearPending(); // all refused: the page shows its state as it is
    performance.measure("lab:draw", { start: drawing, end: performance.now() });
    sayWhatChanged(calls.filter((c, i) => reply.results[i].ok).map((c) => c.partial));
    if (reply.results.some((r) => r.ok)) clearErrors();
    const shown = structuredClone(state);
    reply.results.forEach((result, i) => {
      if (result.ok) {
        calls[i].resolve(shown);
      } else {
        showError(result);
        calls[i].reject(new Error(result.error));
      }
    });
  }
  flushing = false;
  if (queue.length) scheduleFlush();
}

// The result of a change, for screen readers: Python says, for each state
// key, what its change shows (view.announce); the polite live region reads it.
function sayWhatChanged(partials) {
  if (!view || !view.announce) return;
  const said = [];
  for (const partial of partials) {
    for (const key of Object.keys(partial)) {
      const text = view.announce[key];
      if (text && !said.includes(text)) said.push(text);
    }
  }
  if (partials.some((partial) => "panel" in partial)) {
    const title = document.getElementById(`${state.panel}-title`);
    if (title) said.push(`Panel ${title.textContent.trim()}.`);
  }
  if (said.length) chrome.announce(said.join(" "));
}

function ask(request) {
  return askPython(python, request);
}

const lab = {
  get ready() {
    return ready;
  },
  get state() {
    return state ? structuredClone(state) : null;
  },
  set,
  runtime: null,
};
window.lab = lab;

// ------------------------------------------------------------- the boot

const requestedRuntime = url.searchParams().get("runtime");

function goBackToPlace() {
  if (place === null) return;
  placeAgain = goTo(place);
  place = null;
}

// The first paint: the URL's own state if the build prepared it, else the
// nearest prepared view (its selector values, defaults for the rest),
// clearly marked as not yet the reader's.
async function paintFromURL() {
  const params = url.labParams();
  const keys = Object.keys(params);
  const exact = prepared.covers(keys);
  let next = exact ? await prepared.view({ ...prepared.defaults, ...params }) : null;
  if (live) return false; // the file came after Python: it has nothing to add
  if (next) {
    const ok = show(next, "prepared", { scrollToPanel: "panel" in params && place === null });
    await rest;
    if (ok) goBackToPlace();
    return ok;
  }
  const near = {};
  for (const key of keys) if (prepared.covers([key])) near[key] = params[key];
  next = await prepared.view({ ...prepared.defaults, ...near }) ||
    await prepared.view({ ...prepared.defaults });
  if (!next || live) return false;
  urlPending = true;
  // The nearest view already lands on the link's panel: Python's will not
  // move the page again (the reader may have scrolled meanwhile).
  if (!show(next, "prepared", { scrollToPanel: "panel" in near && place === null })) return false;
  await rest;
  goBackToPlace();
  const group = await prepared.group(next.state);
  markPending(keys, group && group.reads);
  return true;
}

// The first paint starts as this module does, beside the manifest: the
// page's index (in the page) names the view's file. The boot starts the
// runtime's 10 MB once the frame that shows that view begins: the view's
// file (a few kB) does not share a phone's line with them, and the first
// paint does not share the main thread with their hundreds of pieces
// (starting them earlier, at the same time as the view's file, made the
// first paint later and Python no earlier here). The panels below the first
// screen, drawn after that frame, share it with them. The wait is bounded:
// a view file that never ends only costs FIRST_VIEW_WAIT_MS.
const FIRST_VIEW_WAIT_MS = 3000;
let firstViewDeadline = null;

function paintFirst() {
  painted = paintFromURL().then((ok) => {
    paintedPrepared = ok;
    if (ok && !live) enableControls();
    return ok;
  }, () => false);
  painted.then(framed); // no view drawn: no frame to wait for
  firstViewDeadline = new Promise((resolve) => setTimeout(resolve, FIRST_VIEW_WAIT_MS));
}

async function boot() {
  chrome.hideFault();
  chrome.showStep("manifest");
  // A manifest that never answers (a school network that holds a request)
  // ends, like any runtime file, in the stall message and «Reintentar».
  if (!manifest) manifest = await downloadJSON(MANIFEST);
  await Promise.race([firstFrame, firstViewDeadline]);
  const runtime = pickRuntime(manifest, requestedRuntime);
  if (requestedRuntime !== null && requestedRuntime !== runtime.name && !pageNotices.length) {
    pageNotices.push(`Se ignoró runtime=«${requestedRuntime}»: los entornos son «bundled» ` +
      `y «current». Se usa «${runtime.name}».`);
  }
  try {
    python = await bootPython({
      manifest, runtime, have, suspect,
      onBytes: (done, total) => { if (!fault) chrome.showBytes(done, total); },
      onStep: (step) => {
        performance.mark(`lab:step:${step}`); // where the boot's time goes, for scripts/bench.py
        if (!fault && step !== "download") chrome.showStep(step);
      },
    });
  } catch (error) {
    if (error.kind === "missing-numpy") error.runtime = runtime;
    throw error;
  }
  python.onFault = (error) => failed(error);
  await Promise.race([painted, firstViewDeadline]);
  await (preLive = preLive.then(goLive));
}

// Python is live once lab_core is imported. Its view of the URL's state is
// asked for first. When the page already shows that state from the build's
// prepared view, the lab is ready at once, and Python's view (about a
// second of the first view's training and √dₖ measurements, here) confirms
// it when it arrives; meanwhile changes use prepared views or wait, marked
// pending, as before Python was live. Otherwise the page waits for
// Python's view.
async function goLive() {
  const asked = ask({ lab: labName, from: "url", state: url.labParams() });
  if (paintedPrepared && !urlPending && state !== null) {
    confirming = true;
    becomeReady();
    // After the changes already in the chain: each showed or queued first.
    asked.then((reply) => { preLive = preLive.then(() => confirm(reply)); })
      .catch((error) => failed(asLoadError(error)));
    return;
  }
  const reply = await asked;
  if (!reply.ok) throw new LoadError("runtime", null, reply.error);
  const scrollToPanel = "panel" in url.labParams() && !paintedPrepared && place === null;
  urlPending = false;
  show(reply.view, "python", { scrollToPanel });
  goBackToPlace();
  becomeReady();
}

// Python's first view has arrived. Drawn when the page still shows its
// state and nothing waits (the same text: nothing moves); otherwise the
// waiting changes go to Python now, or Python is asked for the state on
// screen (a prepared one the reader chose meanwhile).
function confirm(reply) {
  if (!confirming || !python) return; // a fault came first
  confirming = false;
  if (!reply.ok) {
    failed(new LoadError("runtime", null, reply.error));
    return;
  }
  if (!queue.length && sameState(reply.view.state, state)) {
    show(reply.view, "python");
    return;
  }
  // The waiting changes go with an empty one after them: a batch whose
  // changes Python all refuses (a value out of range) comes back with no
  // view, and Python's own view of the state on screen must still come.
  queue.push({ partial: {}, resolve: () => {}, reject: () => {} });
  scheduleFlush();
}

function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
  }
  return value;
}

function sameState(a, b) {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function asLoadError(error) {
  return error instanceof LoadError ? error
    : new LoadError("runtime", null, error && error.message ? error.message : String(error));
}

function becomeReady() {
  live = true;
  lab.runtime = python.info;
  chrome.showRuntime(python.info);
  have.clear(); // the worker has its copy; free the page's
  enableControls();
  chrome.showReady();
  performance.mark("lab:ready"); // read by scripts/bench.py
  settleReady.resolve();
  if (queue.length && !confirming) scheduleFlush();
}

// A fault ends in a message, never an endless spinner: pending calls reject
// with it, and «Reintentar» boots again in place, reusing what arrived.
function failed(error) {
  fault = error;
  attempts += 1;
  live = false;
  confirming = false;
  if (python) python.stop();
  python = null;
  forget();
  const message = chrome.describe(error).title;
  for (const call of queue.splice(0)) call.reject(new Error(message));
  clearPending();
  const retryable = error.kind !== "missing-numpy";
  let fallbackHref = null;
  if (requestedRuntime !== null) {
    const params = url.searchParams();
    params.delete("runtime");
    fallbackHref = `${location.pathname}${params.toString() ? `?${params}` : ""}`;
  }
  chrome.showFault(error, attempts, { onRetry: retryable ? retry : null, fallbackHref });
  enableControls(Boolean(state)); // a prepared view stays usable
  settleReady.reject(new Error(message));
}

function retry() {
  fault = null;
  newReady();
  start();
}

function start() {
  boot().catch((error) => failed(asLoadError(error)));
}

// The first view's file is asked for before anything else (the theme's
// first read of localStorage alone can take 10 ms); it is drawn once it
// arrives, after the lines below have run.
paintFirst();
keepPlace();
chrome.trackBarHeight();
const embedNotice = classroom.embedMode(url.searchParams());
if (embedNotice) pageNotices.push(embedNotice);
classroom.init({
  set,
  settled,
  view: () => view,
  defaults: () => prepared.defaults || {},
  live: () => live,
  whenLive: () => ready, // rejects with the boot's fault
  announce: chrome.announce,
  exportTable: async (table) => {
    const reply = await ask({ lab: labName, from: "export", state, table });
    if (!reply.ok) throw new Error(reply.error);
    return reply.export;
  },
});
start();

// ---------------------------------------------------------------- events

wire({ set, settled, state: wanted, view: () => view, announce: chrome.announce,
  notices: chrome.showNotices });
