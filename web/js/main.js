// The page's glue: owns the UI state, mirrors it in the URL, asks Python for
// a view of it, and draws that view. Publishes window.lab (see README):
//   lab.ready       Promise, resolves once Python is live and the page drawn
//   lab.state       a copy of the current state
//   lab.set(p)      Promise, resolves once the page shows the state with `p`
//                   applied, rejects (state unchanged) on a bad value
//   lab.runtime     {name, pyodide, python, numpy} once ready

import { bootRuntime } from "./runtime.js";
import { renderNotices, renderView } from "./render.js";

// URL keys that belong to the page, not to the lab state.
const PAGE_KEYS = new Set(["runtime"]);

const root = document.querySelector("main");
const statusBox = document.getElementById("status");
const statusText = document.getElementById("status-text");
const noticeList = document.getElementById("notices");

let state = null;
let call = null;

function paramsFromURL() {
  const params = {};
  for (const [key, value] of new URLSearchParams(location.search)) {
    if (!PAGE_KEYS.has(key)) params[key] = value;
  }
  return params;
}

function mirrorInURL(nextState) {
  const params = new URLSearchParams(location.search);
  for (const key of [...params.keys()]) {
    if (!PAGE_KEYS.has(key)) params.delete(key);
  }
  for (const [key, value] of Object.entries(nextState)) params.set(key, String(value));
  history.replaceState(null, "", `${location.pathname}?${params}`);
}

function show(view) {
  state = view.state;
  renderView(root, view);
  renderNotices(noticeList, view.notices);
  mirrorInURL(state);
  document.body.dataset.state = JSON.stringify(state);
}

function setStatus(phase, text) {
  statusBox.dataset.phase = phase;
  statusText.textContent = text;
}

async function boot() {
  const runtime = await bootRuntime((step) => setStatus("loading", `${step}…`));
  call = runtime.call;
  const reply = call({ from: "url", state: paramsFromURL() });
  if (!reply.ok) throw new Error(reply.error);
  show(reply.view);
  lab.runtime = runtime.info;
  const { pyodide, python, numpy } = runtime.info;
  document.getElementById("runtime-text").textContent =
    `Pyodide ${pyodide} · Python ${python} · NumPy ${numpy} (entorno «${runtime.info.name}», sin red)`;
  for (const control of document.querySelectorAll("select, button")) control.disabled = false;
  setStatus("ready", "Listo: Python calcula en vivo.");
  performance.mark("lab:ready"); // read by scripts/bench.py
}

const ready = boot().catch((error) => {
  setStatus("error", `No se pudo arrancar el laboratorio. ${error.message}`);
  throw error;
});

async function set(partial) {
  await ready;
  const reply = call({ from: "set", current: state, state: partial });
  if (!reply.ok) {
    renderNotices(noticeList, [`No se aplicó el cambio: ${reply.error}.`]);
    throw new Error(reply.error);
  }
  show(reply.view);
  return { ...state };
}

const lab = {
  ready,
  get state() {
    return state ? { ...state } : null;
  },
  set,
  runtime: null,
};
window.lab = lab;

// Controls and row headers only ever send a partial state through lab.set.
document.getElementById("controls").addEventListener("change", (event) => {
  const key = event.target.dataset.key;
  if (key) set({ [key]: event.target.value }).catch(() => {});
});
root.addEventListener("click", (event) => {
  const pick = event.target.closest("button.row-pick");
  if (pick) set({ query: pick.dataset.query }).catch(() => {});
});
document.getElementById("exercise-go").addEventListener("click", () => {
  set({ sentence: "parque", query: 1, mask: "bidirectional", head: "lugar" }).catch(() => {});
});
ready.catch(() => {});
