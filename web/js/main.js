// The page's wiring: window.lab, the boot, and the path of a change. The
// page's life is a Session (session.js: painting → booting → confirming →
// live, or fault); what it shows is the Screen (screen.js); calls on their
// way to Python go in Batches (batch.js). Publishes window.lab (docs/api.md):
//   lab.ready       Promise, resolves once Python is live (it answers lab.set)
//                   and the page shows the URL's state (after a fault and
//                   «Reintentar», a new one)
//   lab.state       a copy of the state the page shows
//   lab.set(p)      Promise, resolves once the page shows the state with `p`
//                   applied; rejects (state unchanged) on a bad value
//   lab.settled()   Promise, resolves once every lab.set has settled,
//                   every panel shows the current state and the address
//                   bar holds it
//   lab.runtime     {name, pyodide, python, numpy} once ready
// Which lab this page is comes from <body data-lab>.

import { Batches } from "./batch.js";
import * as chrome from "./chrome.js";
import { initClassroom } from "./classroom.js";
import { wire, clearErrors, showError } from "./controls.js";
import { ask as askPython, checkPartial, forget } from "./conversation.js";
import { LoadError, downloadJSON } from "./download.js";
import { initFields } from "./fields.js";
import { initGrids } from "./grid.js";
import { fromSavedCopy, keepForOffline } from "./offline.js";
import { goTo, keepPlace, savedPlace } from "./place.js";
import { forgetAnswers } from "./predict.js";
import { Prepared, pageIndex, sameValue } from "./prepared.js";
import { bootPython, pickRuntime } from "./python.js";
import { Screen } from "./screen.js";
import { Session } from "./session.js";
import { Settling } from "./settle.js";
import { embedMode } from "./share.js";
import { say } from "./text.js";
import * as url from "./url.js";

document.documentElement.dataset.js = "started"; // the watchdog stands down

const MANIFEST = { url: new URL("manifest.json", document.baseURI).href,
  label: say("file.manifest"), Label: say("file.manifest.cap"), of: say("file.manifest.of"), feminine: true };
// The first view's file is a few kB: a file that never ends only delays the boot.
const FIRST_VIEW_WAIT_MS = 3000;

const labName = document.body.dataset.lab;
const session = new Session((phase) => { document.documentElement.dataset.phase = phase; });
let prepared = new Prepared(pageIndex()); // the build wrote its index into the page
const pageNotices = []; // about page keys (runtime, embed), not the lab state
// <body data-busy> and lab.settled(): lab.set calls on their way, and panels
// still to draw.
const settling = new Settling(() => Boolean(screen.later && screen.later.pending), (busy) => {
  if (busy) document.body.dataset.busy = "true";
  else delete document.body.dataset.busy;
});
const screen = new Screen(document.querySelector("main"), {
  settling,
  running: () => session.running,
  pageNotices,
  onDropped: () => { prepared = new Prepared(null); },
  onConfirmed: () => {
    if (placeAgain) placeAgain();
    placeAgain = null;
  },
});
const batches = new Batches({
  send: (partials) => ask({ lab: labName, from: "set", current: screen.state, partials }),
  applied,
  hold: () => { if (screen.later) screen.later.hold(); },
  release: () => { if (screen.later) screen.later.release(); },
});
let python = null;
let preLive = Promise.resolve(); // orders the calls made before Python is live
const have = new Map(); // downloaded runtime files, kept across retries
const suspect = new Set();
let manifest = null;
let painted = null; // the first paint: a Promise of whether a prepared view is on screen
let firstViewDeadline = null;
// A reload's place (place.js): taken once the whole first view is drawn, and
// it wins over the panel the link names (the reader had moved on from it).
let place = savedPlace();
let placeAgain = null; // once Python's own view is drawn (place.js)
let ready;
let settleReady;

function newReady() {
  ready = new Promise((resolve, reject) => { settleReady = { resolve, reject }; });
  ready.catch(() => {});
}
newReady();

function ask(request) {
  return askPython(python, request);
}

// ------------------------------------------------------------ lab.set

// Whoever waits for the page to settle may read the address bar next.
const settled = () => settling.settled().then(() => url.flush());
const heading = () => settling.heading(screen.state);

function set(partial) {
  const problem = checkPartial(partial);
  if (problem) return Promise.reject(new Error(problem));
  const own = { ...partial };
  return settling.track(new Promise((resolve, reject) => {
    const call = { partial, resolve, reject };
    if (session.live) {
      batches.add(call);
      batches.schedule();
    } else {
      preLive = preLive.then(() => beforeLive(call));
    }
  }), own);
}

// Before Python is live, or before its first view is in (confirming): a
// prepared state is shown at once; anything else (or anything after
// something pending) waits for Python, marked pending.
async function beforeLive(call) {
  if (session.live) {
    batches.add(call);
    batches.schedule();
    return;
  }
  const keys = Object.keys(call.partial);
  if (!screen.approximate && batches.waiting === 0 && screen.state && prepared.covers(keys)) {
    const next = await prepared.view({ ...screen.state, ...call.partial });
    if (next && screen.show(next, "prepared", { change: true })) {
      clearErrors();
      sayWhatChanged([call.partial]);
      call.resolve(structuredClone(screen.state));
      return;
    }
  }
  if (session.fault) {
    call.reject(new Error(chrome.describe(session.fault).title));
    return;
  }
  batches.add(call);
  const group = prepared.index && await prepared.group(screen.state || prepared.defaults);
  screen.markPending(keys, group && group.reads);
}

// A batch's reply: drawn once; each call resolves, or rejects with its
// message beside its control.
function applied(calls, reply) {
  const drawing = performance.now();
  if (reply.view) screen.show(reply.view, "python", { change: true });
  else screen.clearPending(); // all refused: the page shows its state as it is
  performance.measure("lab:draw", { start: drawing, end: performance.now() });
  sayWhatChanged(calls.filter((c, i) => reply.results[i].ok).map((c) => c.partial));
  if (reply.results.some((r) => r.ok)) clearErrors();
  const shown = structuredClone(screen.state);
  reply.results.forEach((result, i) => {
    if (result.ok) {
      calls[i].resolve(shown);
    } else {
      showError(result);
      calls[i].reject(new Error(result.error));
    }
  });
}

// The result of a change, for screen readers: Python says, for each state
// key, what its change shows (view.announce); the polite live region reads it.
function sayWhatChanged(partials) {
  const view = screen.view;
  if (!view || !view.announce) return;
  const said = [];
  for (const partial of partials) {
    for (const key of Object.keys(partial)) {
      const text = view.announce[key];
      if (text && !said.includes(text)) said.push(text);
    }
  }
  if (partials.some((partial) => "panel" in partial)) {
    const title = document.getElementById(`${screen.state.panel}-title`);
    if (title) said.push(say("panel.said", { title: title.textContent.trim() }));
  }
  if (said.length) chrome.announce(said.join(" "));
}

// Back to a fresh visit of the page, without loading it again: the default
// state (on the panel the reader is on), no answers given, no notices, no
// refused value, no dialog open. For a teacher's «start again» and for tests.
async function reset() {
  forgetAnswers();
  chrome.showNotices([]);
  clearErrors();
  for (const dialog of document.querySelectorAll("dialog[open]")) dialog.close();
  const defaults = prepared.defaults || {};
  const { panel, ...rest } = defaults;
  await set(rest);
  await settled();
}

const lab = {
  get ready() {
    return ready;
  },
  get state() {
    return screen.state ? structuredClone(screen.state) : null;
  },
  set,
  settled,
  reset,
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
  if (session.running) return false; // the file came after Python: it has nothing to add
  if (next) {
    const ok = screen.show(next, "prepared", { scrollToPanel: "panel" in params && place === null });
    await screen.rest;
    if (ok) goBackToPlace();
    return ok;
  }
  const near = {};
  for (const key of keys) if (prepared.covers([key])) near[key] = params[key];
  next = await prepared.view({ ...prepared.defaults, ...near }) ||
    await prepared.view({ ...prepared.defaults });
  if (!next || session.running) return false;
  screen.approximate = true;
  // The nearest view already lands on the link's panel: Python's will not
  // move the page again (the reader may have scrolled meanwhile).
  if (!screen.show(next, "prepared", { scrollToPanel: "panel" in near && place === null })) return false;
  await screen.rest;
  goBackToPlace();
  const group = await prepared.group(next.state);
  screen.markPending(keys, group && group.reads);
  return true;
}

// The first paint starts as this module does, beside the manifest: the
// page's index (in the page) names the view's file. The boot starts the
// runtime's download once the frame that shows that view begins, so the
// view's file does not share a phone's line with it, and the first paint
// does not share the main thread with its pieces. The panels below the
// first screen, drawn after that frame, share it with them.
function paintFirst() {
  painted = paintFromURL().then((ok) => {
    if (ok && !session.running) screen.enableControls();
    return ok;
  }, () => false);
  painted.then((ok) => { if (!ok) screen.noFirstView(); });
  firstViewDeadline = new Promise((resolve) => setTimeout(resolve, FIRST_VIEW_WAIT_MS));
}

async function boot() {
  chrome.hideFault();
  chrome.showStep("manifest");
  // A manifest that never answers (a school network that holds a request)
  // ends, like any runtime file, in the stall message and «Reintentar».
  if (!manifest) {
    manifest = await downloadJSON(MANIFEST, {
      onResponse: (response) => {
        if (fromSavedCopy(response) && !pageNotices.includes(say("notice.offline"))) {
          pageNotices.push(say("notice.offline"));
        }
      },
    });
  }
  await Promise.race([screen.firstFrame, firstViewDeadline]);
  const runtime = pickRuntime(manifest, requestedRuntime);
  if (requestedRuntime !== null && requestedRuntime !== runtime.name && !pageNotices.length) {
    pageNotices.push(say("notice.runtime", { asked: requestedRuntime, name: runtime.name }));
  }
  try {
    python = await bootPython({
      manifest, runtime, have, suspect,
      onBytes: (done, total) => { if (!session.fault) chrome.showBytes(done, total, runtime.size_text); },
      onStep: (step) => {
        performance.mark(`lab:step:${step}`); // where the boot's time goes, for scripts/bench.py
        if (!session.fault && step !== "download") chrome.showStep(step);
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
// prepared view, the lab is ready at once («confirming»); the request
// carries that view, which Python adopts when it is the URL's state
// (lab_core.views.Conversation: nothing is built again, and later changes
// build only the parts they touch), and its reply confirms it; meanwhile
// changes use prepared views or wait, marked pending, as before. Otherwise
// the page waits for Python's view.
async function goLive() {
  const shown = screen.source === "prepared" && !screen.approximate;
  const asked = ask({ lab: labName, from: "url", state: url.labParams(),
    ...(shown ? { prepared: screen.view } : {}) });
  if (shown) {
    session.to("confirming");
    becomeReady();
    // After the changes already in the chain: each showed or queued first.
    asked.then((reply) => { preLive = preLive.then(() => confirm(reply)); })
      .catch((error) => failed(asLoadError(error)));
    return;
  }
  const reply = await asked;
  if (!reply.ok) throw new LoadError("runtime", null, reply.error);
  const scrollToPanel = "panel" in url.labParams() && screen.source === null && place === null;
  screen.approximate = false;
  session.to("live");
  screen.show(reply.view, "python", { scrollToPanel });
  goBackToPlace();
  becomeReady();
}

// Python's first view has arrived. Drawn when the page still shows its
// state and nothing waits (the same text: nothing moves); otherwise the
// waiting changes go to Python now, with an empty one after them: a batch
// whose changes Python all refuses (a value out of range) comes back with
// no view, and Python's own view of the state on screen must still come.
function confirm(reply) {
  if (session.phase !== "confirming") return; // a fault came first
  if (!reply.ok) {
    failed(new LoadError("runtime", null, reply.error));
    return;
  }
  session.to("live");
  if (!batches.waiting && sameValue(reply.view.state, screen.state)) {
    screen.show(reply.view, "python");
    return;
  }
  batches.add({ partial: {}, resolve: () => {}, reject: () => {} });
  batches.schedule();
}

function asLoadError(error) {
  return error instanceof LoadError ? error
    : new LoadError("runtime", null, error && error.message ? error.message : String(error));
}

function becomeReady() {
  lab.runtime = python.info;
  chrome.showRuntime(python.info);
  have.clear(); // the worker has its copy; free the page's
  screen.enableControls();
  chrome.showReady();
  performance.mark("lab:ready"); // read by scripts/bench.py
  settleReady.resolve();
  if (batches.waiting && session.live) batches.schedule();
  keepForOffline();
}

// A fault ends in a message, never an endless spinner: pending calls reject
// with it, and «Reintentar» boots again in place, reusing what arrived.
function failed(error) {
  if (session.phase === "fault") return;
  session.to("fault", error);
  if (python) python.stop();
  python = null;
  forget();
  const message = chrome.describe(error).title;
  batches.rejectAll(message);
  screen.clearPending();
  const retryable = error.kind !== "missing-numpy";
  let fallbackHref = null;
  if (requestedRuntime !== null) {
    const params = url.searchParams();
    params.delete("runtime");
    fallbackHref = `${location.pathname}${params.toString() ? `?${params}` : ""}`;
  }
  chrome.showFault(error, session.attempts, { onRetry: retryable ? retry : null, fallbackHref });
  screen.enableControls(Boolean(screen.state)); // a prepared view stays usable
  settleReady.reject(new Error(message));
}

function retry() {
  newReady();
  start();
}

function start() {
  session.to("booting");
  boot().catch((error) => failed(asLoadError(error)));
}

// The first view's file is asked for before anything else (the theme's
// first read of localStorage alone can take a while); it is drawn once it
// arrives, after the lines below have run.
paintFirst();
keepPlace();
chrome.trackBarHeight();
const embedNotice = embedMode(url.searchParams());
if (embedNotice) pageNotices.push(embedNotice);
initClassroom({
  set,
  settled,
  defaults: () => prepared.defaults || {},
  live: () => session.running,
  whenLive: () => ready, // rejects with the boot's fault
  announce: chrome.announce,
  stateLine: () => (screen.view && screen.view.state_line) || "",
  exportTable: async (table) => {
    // The link goes into the file, beside the state it names.
    const reply = await ask({ lab: labName, from: "export", state: screen.state, table, link: url.href() });
    if (!reply.ok) throw new Error(reply.error);
    return reply.export;
  },
});
start();

// ---------------------------------------------------------------- events

const hooks = { set, settled, state: heading, view: () => screen.view, announce: chrome.announce,
  notices: chrome.showNotices };
wire(hooks);
initFields(hooks);
initGrids(hooks);
