// The page's glue: owns the UI state, mirrors it in the URL, asks Python for
// a view of it, and draws that view. Publishes window.lab (see README):
//   lab.ready       Promise, resolves once Python is live and the page drawn
//   lab.state       a copy of the current state
//   lab.set(p)      Promise, resolves once the page shows the state with `p`
//                   applied; rejects (state unchanged) on a bad value
//   lab.runtime     {name, pyodide, python, numpy} once ready
// Which lab this page is comes from <body data-lab>.

import { bootRuntime } from "./runtime.js";
import { renderNotices, renderView } from "./render.js";

// URL keys that belong to the page, not to the lab state.
const PAGE_KEYS = new Set(["runtime"]);

const labName = document.body.dataset.lab;
const root = document.querySelector("main");
const statusBox = document.getElementById("status");
const statusText = document.getElementById("status-text");
const noticeList = document.getElementById("notices");

// Whatever scrolls into view (a panel, a focused control) lands below the
// sticky bar: the CSS reads its height from --bar-height.
const bar = document.getElementById("lab-bar");
if (bar) {
  new ResizeObserver(() => {
    const sticky = getComputedStyle(bar).position === "sticky";
    document.documentElement.style.setProperty("--bar-height", sticky ? `${bar.offsetHeight + 8}px` : "0px");
  }).observe(bar);
}

let state = null;
let view = null;
let call = null;
const pageNotices = []; // about page keys (runtime), not the lab state

function paramsFromURL() {
  const params = {};
  for (const [key, value] of new URLSearchParams(location.search)) {
    if (!PAGE_KEYS.has(key)) params[key] = value;
  }
  return params;
}

// Python gives the state's canonical query string; page keys are kept.
function mirrorInURL(queryString) {
  const params = new URLSearchParams(queryString);
  for (const [key, value] of new URLSearchParams(location.search)) {
    if (PAGE_KEYS.has(key)) params.set(key, value);
  }
  const search = params.toString().replaceAll("%3B", ";");
  history.replaceState(null, "", `${location.pathname}${search ? `?${search}` : ""}${location.hash}`);
}

function showPanel(panel, scroll) {
  for (const link of document.querySelectorAll("a[data-panel]")) {
    if (link.dataset.panel === panel) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  }
  const section = panel && document.getElementById(panel);
  if (scroll && section) section.scrollIntoView({ block: "start" });
}

// A rejected value's message goes beside its control when the page has a
// place for it (and the control is marked invalid), else into the notices.
function showError(reply) {
  const spot = reply.key && document.querySelector(`[data-error-for="${CSS.escape(reply.key)}"]`);
  if (!spot) {
    renderNotices(noticeList, [`No se aplicó el cambio. ${reply.error}.`]);
    return;
  }
  spot.textContent = `${reply.error}.`;
  for (const input of document.querySelectorAll(`[data-key="${CSS.escape(reply.key)}"]`)) {
    input.setAttribute("aria-invalid", "true");
  }
  const box = spot.getBoundingClientRect();
  if (box.bottom > innerHeight || box.top < 0) spot.scrollIntoView({ block: "nearest" });
}

function clearErrors() {
  for (const spot of document.querySelectorAll("[data-error-for]")) spot.textContent = "";
  for (const input of document.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
}

function show(next) {
  const previousPanel = state ? state.panel : undefined; // none yet: do not scroll on load
  view = next;
  state = next.state;
  renderView(root, next);
  renderNotices(noticeList, [...pageNotices, ...next.notices]);
  pageNotices.length = 0;
  mirrorInURL(next.query_string);
  syncButtons();
  if ("panel" in state) showPanel(state.panel, previousPanel !== undefined && previousPanel !== state.panel);
}

function syncButtons() {
  const prev = document.getElementById("step-prev");
  const next = document.getElementById("step-next");
  if (prev && next && "step" in state) {
    prev.disabled = state.step <= 1;
    next.disabled = state.step >= view.sentence.tokens.length;
  }
}

let bootStep = "";

function setStatus(phase, text) {
  statusBox.dataset.phase = phase;
  statusText.textContent = text;
}

// While booting, the status names the current step; once the build-time
// view is on screen it also says that the live computation is coming.
function showBootStep(step = bootStep) {
  bootStep = step;
  const early = document.body.dataset.live === "false" ? "Calculando en vivo… " : "";
  setStatus("loading", `${early}${step}…`);
}

function enableControls() {
  for (const control of document.querySelectorAll("select, button, input")) control.disabled = false;
  syncButtons();
}

function markFirstPaint() {
  if (performance.getEntriesByName("lab:first-paint").length) return;
  requestAnimationFrame(() => performance.mark("lab:first-paint")); // read by scripts/bench.py
}

// The default view, rendered at build time by the same lab_core in CPython:
// painted at once, while Python boots. Only for the default state (a URL
// with lab keys waits for Python). A test checks it equals the live view.
const prerendered = Object.keys(paramsFromURL()).length
  ? Promise.resolve(null)
  : fetch(`views/${labName}.json`) // preloaded by the page; the server revalidates it
    .then((response) => (response.ok ? response.json() : null))
    .catch(() => null);

// Painting takes main-thread time: wait until the boot has its downloads
// under way, so the paint overlaps the network instead of delaying it.
let bootStarted;
const started = new Promise((resolve) => { bootStarted = resolve; });

Promise.all([prerendered, started]).then(([reply]) => {
  if (!reply || !reply.ok || state) return; // Python was faster, or no file
  show(reply.view);
  document.body.dataset.live = "false";
  showBootStep();
  enableControls(); // what is pressed now is queued by lab.set until Python is live
  markFirstPaint();
});

const requestedRuntime = new URLSearchParams(location.search).get("runtime");

async function boot() {
  const runtime = await bootRuntime(showBootStep, bootStarted, requestedRuntime);
  call = runtime.call;
  if (requestedRuntime !== null && requestedRuntime !== runtime.info.name) {
    pageNotices.push(`Se ignoró runtime=«${requestedRuntime}»: los entornos son «bundled» ` +
      `y «current». Se usa «${runtime.info.name}».`);
  }
  const params = paramsFromURL();
  const reply = call({ lab: labName, from: "url", state: params });
  if (!reply.ok) throw new Error(reply.error);
  show(reply.view);
  if ("panel" in params && state.panel === params.panel) showPanel(state.panel, true);
  lab.runtime = runtime.info;
  const { pyodide, python, numpy } = runtime.info;
  document.getElementById("runtime-text").textContent =
    `Pyodide ${pyodide} · Python ${python} · NumPy ${numpy} (entorno «${runtime.info.name}», sin red)`;
  enableControls();
  document.body.dataset.live = "true";
  setStatus("ready", "Listo: Python calcula en vivo.");
  markFirstPaint();
  performance.mark("lab:ready"); // read by scripts/bench.py
}

// A failed boot ends in a message, never an endless spinner; the controls
// go quiet, and with another runtime requested, a link back to the default.
const ready = boot().catch((error) => {
  setStatus("error", `No se pudo arrancar el laboratorio. ${error.message}`);
  for (const control of document.querySelectorAll("select, button, input")) control.disabled = true;
  if (requestedRuntime !== null) {
    const params = new URLSearchParams(location.search);
    params.delete("runtime");
    const link = document.createElement("a");
    link.href = `${location.pathname}${params.toString() ? `?${params}` : ""}`;
    link.textContent = "Abrir con el entorno incluido";
    link.className = "status-action";
    statusBox.append(link);
  }
  throw error;
});

async function set(partial) {
  await ready;
  const reply = call({ lab: labName, from: "set", current: state, state: partial });
  if (!reply.ok) {
    showError(reply);
    throw new Error(reply.error);
  }
  clearErrors();
  show(reply.view);
  return { ...state };
}

const lab = {
  ready,
  get state() {
    return state ? structuredClone(state) : null;
  },
  set,
  runtime: null,
};
window.lab = lab;

// ---------------------------------------------------------------- events
// Every control only ever sends a partial state through lab.set.

function valueOf(input) {
  const key = input.dataset.key;
  if (input.dataset.index === undefined) return input.value;
  return [...document.querySelectorAll(`[data-key="${key}"][data-index]`)]
    .sort((a, b) => a.dataset.index - b.dataset.index)
    .map((item) => item.value);
}

function onControl(event) {
  const input = event.target.closest("[data-key]");
  if (!input) return;
  if (event.type === "input" && input.type !== "range") return;
  set({ [input.dataset.key]: valueOf(input) }).catch(() => {});
}
document.addEventListener("change", onControl);
document.addEventListener("input", onControl);

// Selecting or focusing a score cell explains it: (row, column) -> (query, key).
function pickCell(event) {
  const cell = event.target.closest("td[data-col]");
  if (!cell || !state) return;
  const partial = { query: cell.dataset.row, key: cell.dataset.col };
  if (String(state.query) === partial.query && String(state.key) === partial.key) return;
  set(partial).catch(() => {});
}
document.addEventListener("focusin", pickCell);

document.addEventListener("click", (event) => {
  pickCell(event);
  const pick = event.target.closest("button.row-pick");
  if (pick) {
    set({ [pick.dataset.pick]: pick.dataset.value }).catch(() => {});
    return;
  }
  const link = event.target.closest("a[data-panel]");
  if (link) set({ panel: link.dataset.panel }).catch(() => {});
});

function shuffled(items) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// Buttons with data-action send one of these partial states.
const ACTIONS = {
  "notices-close": () => {
    renderNotices(noticeList, []);
    return null;
  },
  "exercise-go": () => ({ sentence: "parque", query: 1, key: 3, mask: "bidirectional", head: "lugar" }),
  "step-prev": () => ({ step: state.step - 1 }),
  "step-next": () => ({ step: state.step + 1 }),
  "order-original": () => ({ order: state.order.map((_, i) => i) }),
  "order-swap": () => ({ order: [0, 4, 2, 3, 1] }),
  "order-shuffle": () => ({ order: shuffled(state.order) }),
};
// After an action, what the reader should look at: the exercise's result.
const AFTER = {
  "exercise-go": () => {
    const cells = document.querySelectorAll("#score-tables td.focus");
    if (!cells.length) return;
    cells[0].scrollIntoView({ block: "center", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
    for (const cell of cells) {
      cell.classList.remove("flash");
      void cell.offsetWidth; // restart the animation
      cell.classList.add("flash");
    }
    const block = view.arithmetic.blocks[0];
    announce(`Ejercicio listo: puntuación de ${view.arithmetic.query} → ${view.arithmetic.key}, ` +
      `${block.score}; peso, ${block.weight}.`);
  },
};

function announce(text) {
  const region = document.getElementById("announce");
  if (region) region.textContent = text;
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const action = ACTIONS[button.dataset.action];
  if (!action) throw new Error(`no hay una acción llamada «${button.dataset.action}»`);
  const after = AFTER[button.dataset.action];
  const partial = action();
  if (partial) set(partial).then(() => after && after()).catch(() => {});
});
ready.catch(() => {});
