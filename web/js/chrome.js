// The page chrome both labs share: the sticky bar (status line, download
// progress, faults with their «Reintentar» button, notices), the polite live
// region that announces results, and the runtime line in the footer. Every
// word comes from Python's table (text.js); text goes in with textContent
// only.

import { el } from "./dom.js";
import { has, say } from "./text.js";

const statusBox = document.getElementById("status");
const statusText = document.getElementById("status-text");
const progress = document.getElementById("progress");
const fault = document.getElementById("fault");
const noticeList = document.getElementById("notices");


// The status line while loading: a note about the view on screen (prepared,
// approximate, a change pending) followed by the boot's progress.
// On a phone the note takes a line of its own (CSS).
let note = "";
let stepText = say("step.start");
let starting = false; // Python is starting: the bar goes on, the text says so
const noteLine = document.createElement("span");
noteLine.className = "status-note";
const stepLine = document.createElement("span");

function drawLoading() {
  statusBox.dataset.phase = "loading";
  noteLine.textContent = note;
  stepLine.textContent = say("step.ongoing", { step: stepText });
  if (statusText.firstChild !== noteLine) statusText.replaceChildren(noteLine, " ", stepLine);
}

export function setStatus(phase, text) {
  statusBox.dataset.phase = phase;
  statusText.textContent = text;
  if (phase === "ready") {
    progress.hidden = true;
    releaseHeight();
  } else if (phase !== "loading") {
    progress.hidden = true;
    letGo();
  }
}

// While Python loads, the status box grows when its text needs another line
// but does not shrink: each step's text has its own length, and on a phone
// (where the bar scrolls with the page) every change in its height moved the
// page below it up or down, under the reader's eyes, or a control under
// their finger. It takes its own height again after a fault, when the
// window's width changes, and at «Listo»: at once in a sticky bar, else once
// the box is out of sight (scroll anchoring then keeps the page still).
// On a phone, lab.css also reserves the loading text's lines from the first
// byte (.status[data-phase="loading"] #status-text, 3lh or 4lh); the height
// kept here covers what it cannot foresee: a longer note, or a width between
// its breakpoints.
let kept = 0;
let outOfSight = null;

function releaseHeight() {
  if (!kept || outOfSight) return;
  const box = statusBox.getBoundingClientRect();
  const inSight = box.bottom > 0 && box.top < innerHeight;
  if (covered > 0 || !inSight || !("IntersectionObserver" in window)) {
    letGo();
    return;
  }
  outOfSight = new IntersectionObserver(([entry]) => {
    if (!entry.isIntersecting) letGo();
  });
  outOfSight.observe(statusBox);
}

function keepAtLeast(height) {
  if (height <= kept) return;
  kept = height;
  statusBox.style.minHeight = `${height}px`;
}

function letGo() {
  kept = 0;
  statusBox.style.minHeight = "";
  if (outOfSight) outOfSight.disconnect();
  outOfSight = null;
}

new ResizeObserver(([entry]) => {
  if (statusBox.dataset.phase === "loading") keepAtLeast(entry.contentRect.height);
}).observe(statusBox);
let width = innerWidth;
addEventListener("resize", () => {
  if (innerWidth !== width) letGo();
  width = innerWidth;
}, { passive: true });

// What the view on screen is while Python boots: "" once it is live.
export function setNote(text) {
  note = text;
  if (statusBox.dataset.phase === "loading") drawLoading();
}

// A boot step, in plain Spanish; Python's start counts its own steps.
const START = ["python", "numpy", "lab"];
let downloaded = false; // every byte shown arrived (none shown: no bar to move)

export function showStep(step) {
  const at = START.indexOf(step);
  stepText = at < 0 ? say(`step.${step}`)
    : say("step.counted", { step: say(`step.${step}`), n: at + 1, total: START.length });
  starting = step !== "manifest";
  if (starting && downloaded) working();
  drawLoading();
}

// Once every byte has arrived, a full bar would stand still while Python
// starts: each step takes what the machine takes, so the bar moves without a
// fraction of its own (indeterminate), and the words count the steps.
function working() {
  progress.hidden = false;
  progress.removeAttribute("value");
  progress.setAttribute("aria-valuetext", stepText);
}

// Bytes arrive in hundreds of pieces: the bar is redrawn once per frame. The
// bar shows how much has arrived; the words name the download and its size
// (Python wrote them in the manifest: sizeText), never a number the page
// formats.
let bytes = null;

export function showBytes(done, total, sizeText) {
  if (!bytes) requestAnimationFrame(drawBytes);
  bytes = { done, total, sizeText };
}

function drawBytes() {
  const { done, total, sizeText } = bytes;
  bytes = null;
  if (statusBox.dataset.phase !== "loading") return; // ready, or a fault, since
  progress.hidden = false;
  progress.max = total;
  progress.value = done;
  const text = say("step.file", { step: say("step.download"), size: sizeText });
  progress.setAttribute("aria-valuetext", text);
  downloaded = done >= total;
  if (starting) { // NumPy's files still arriving while Python starts
    if (downloaded) working();
    return;
  }
  stepText = text;
  drawLoading();
}

const READY = say("status.ready");

export function showReady() {
  note = "";
  setStatus("ready", READY);
}

// A change waits for Python's first view (a second at most, after «Listo»).
export function showApplying(on) {
  if (statusBox.dataset.phase !== "ready") return;
  const text = on ? say("status.applying") : READY;
  if (statusText.textContent !== text) statusText.textContent = text;
}

// ------------------------------------------------------------------ faults

// A fault, in words a student understands: what failed, why, what to do.
// A file's label comes from the manifest (Python), with its capitalised
// form and its gender («la biblioteca…» takes the _f forms).
export function describe(error) {
  const file = error.file;
  const values = { what: file ? file.label : "Python", What: file ? file.Label : "Python",
    of: file ? file.of : "" };
  const gender = file && file.feminine ? "_f" : "";
  const detail = file ? say("fault.detail", { url: file.url, message: error.message }) : error.message;
  const keys = {
    network: ["fault.network", "fault.network.advice"],
    http: [has(`fault.http.${error.status}`) ? `fault.http.${error.status}` : "fault.http.other", error.status >= 500 ? "fault.http.server.advice" : "fault.http.advice"],
    corrupt: [`fault.${error.truncated ? "truncated" : "corrupt"}${gender}`, `fault.corrupt.advice${gender}`],
    timeout: [file ? "fault.timeout.file" : "fault.timeout.python", "fault.timeout.advice"],
    script: ["fault.script", "fault.script.advice"],
  }[error.kind];
  if (keys) {
    return { title: say(keys[0], { ...values, status: error.status }), advice: say(keys[1]), detail };
  }
  if (error.kind === "missing-numpy") {
    return { title: say("fault.numpy", error.runtime), advice: say("fault.numpy.advice"),
      detail: say("fault.numpy.detail", { ...error.runtime, message: say("detail.no_numpy") }) };
  }
  return { title: say("fault.runtime"), advice: say("fault.runtime.advice"), detail };
}

// The fault panel: message, advice, a collapsible technical line, and the
// «Reintentar» button (and, when another runtime was asked for, a link back
// to the default one). `attempt` counts failed boots.
export function showFault(error, attempt, { onRetry, fallbackHref } = {}) {
  const text = describe(error);
  setStatus("error", attempt > 1 ? say("status.failed_again", { n: attempt }) : say("status.failed"));
  fault.hidden = false;
  fault.querySelector(".fault-title").textContent = text.title;
  fault.querySelector(".fault-advice").textContent = text.advice;
  fault.querySelector(".fault-detail").textContent = text.detail;
  const button = fault.querySelector(".fault-retry");
  button.hidden = !onRetry;
  button.disabled = false;
  button.onclick = onRetry ? () => {
    button.disabled = true;
    onRetry();
  } : null;
  const link = fault.querySelector(".fault-fallback");
  link.hidden = !fallbackHref;
  if (fallbackHref) link.href = fallbackHref;
}

export function hideFault() {
  fault.hidden = true;
}

// ---------------------------------------------------------- notices, voice

// Notices (what the page ignored from a URL, a change it could not apply)
// sit in the sticky bar, so they are seen wherever the page scrolled to, and
// the reader dismisses them with the box's «Entendido» button.
export function showNotices(messages) {
  noticeList.replaceChildren(...messages.map((message) => el("li", message)));
  const box = noticeList.closest(".notice-box");
  if (box) box.hidden = messages.length === 0;
}

export function announce(text) {
  const region = document.getElementById("announce");
  if (region.textContent === text) region.textContent = "";
  region.textContent = text;
}

export function showRuntime(info) {
  document.getElementById("runtime-text").textContent =
    say(info.name === "bundled" ? "runtime.bundled" : "runtime.other", info);
}

// Whatever scrolls into view (a panel, a focused control) lands below what
// covers the screen's top: the sticky bar on a wide screen, the docked
// controls on a phone once the bar has scrolled away (0 before). The CSS
// reads its height from --bar-height; the px also go to whoever asked with
// onBarCover (offscreen.js: what it covers is not on screen).
let covered = 0;
const coverListeners = [];
const PHONE = matchMedia("(max-width: 640px)");

function docked() {
  return document.body.dataset.docked !== undefined;
}

// {now: px of the screen's top covered now, stuck: px covered once the
// page has scrolled down (the bar stuck, or the controls docked)}.
export function barCover() {
  const bar = document.getElementById("lab-bar");
  const controls = document.getElementById("controls");
  if (!bar || !controls) return { now: 0, stuck: 0 };
  if (getComputedStyle(bar).position === "sticky") {
    return { now: Math.max(0, bar.getBoundingClientRect().bottom), stuck: bar.offsetHeight };
  }
  if (!PHONE.matches || document.body.dataset.embed !== undefined) return { now: 0, stuck: 0 };
  if (docked()) return { now: controls.offsetHeight, stuck: controls.offsetHeight };
  // Not docked yet: its height docked, read within this task (nothing is
  // drawn meanwhile).
  document.body.dataset.docked = "";
  const stuck = controls.offsetHeight;
  delete document.body.dataset.docked;
  return { now: 0, stuck };
}

function updateCover() {
  const bar = document.getElementById("lab-bar");
  const controls = document.getElementById("controls");
  const sticky = getComputedStyle(bar).position === "sticky";
  const height = sticky ? bar.offsetHeight : docked() ? controls.offsetHeight : 0;
  document.documentElement.style.setProperty("--bar-height", height ? `${height + 8}px` : "0px");
  if (height === covered) return;
  covered = height;
  for (const listener of coverListeners) listener(height);
}

export function trackBarHeight() {
  const bar = document.getElementById("lab-bar");
  const resized = new ResizeObserver(updateCover);
  resized.observe(bar);
  dockOnPhones(bar, resized);
}

// On a phone the bar scrolls away with the page (stuck, its 300 px would
// cover half the screen). Once it is above the screen, its controls dock at
// the top in one row that scrolls sideways, so that a change's effect and
// the next control share the screen; the bar keeps its height meanwhile, so
// docking moves nothing on the page. Not in an embed (no bar there).
function dockOnPhones(bar, resized) {
  const controls = document.getElementById("controls");
  if (!controls || document.body.dataset.embed !== undefined) return;
  resized.observe(controls);
  const watch = new IntersectionObserver(([entry]) => {
    const dock = PHONE.matches && !entry.isIntersecting && entry.boundingClientRect.bottom <= 0
      && document.body.dataset.embed === undefined;
    if (dock === docked()) return;
    if (dock) {
      bar.style.minHeight = getComputedStyle(bar).height; // its own box, as before
      document.body.dataset.docked = "";
    } else {
      delete document.body.dataset.docked;
      bar.style.minHeight = "";
    }
    updateCover();
  });
  watch.observe(bar);
  PHONE.addEventListener("change", () => {
    watch.unobserve(bar);
    watch.observe(bar);
  });
}

export function onBarCover(listener) {
  coverListeners.push(listener);
  listener(covered);
}
