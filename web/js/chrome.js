// The page chrome both labs share: the sticky bar (status line, download
// progress, faults with their «Reintentar» button, notices), the polite live
// region that announces results, and the runtime line in the footer. Text
// goes in with textContent only.

import { renderNotices } from "./render.js";

const statusBox = document.getElementById("status");
const statusText = document.getElementById("status-text");
const progress = document.getElementById("progress");
const fault = document.getElementById("fault");
const noticeList = document.getElementById("notices");

// Megabytes with one decimal, Spanish style («4,1»). Not Intl.NumberFormat:
// its first use loads locale data (~20 ms), right when the first paint is due.
const MB = { format: (n) => n.toFixed(1).replace(".", ",") };

// What a reader is told while the lab gets ready, step by step.
const STEPS = {
  manifest: "Preparando la descarga",
  download: "Descargando Python y NumPy",
  worker: "Arrancando Python en tu navegador",
  python: "Arrancando Python en tu navegador",
  numpy: "Preparando NumPy, la biblioteca de cálculo",
  lab: "Cargando el laboratorio",
};

// The status line while loading: a note about the view on screen (prepared,
// approximate, a change pending) followed by the boot's progress.
// On a phone the note takes a line of its own (CSS).
let note = "";
let stepText = "Preparando Python en tu navegador";
let starting = false; // Python is starting: the bar goes on, the text says so
const noteLine = document.createElement("span");
noteLine.className = "status-note";
const stepLine = document.createElement("span");

function drawLoading() {
  statusBox.dataset.phase = "loading";
  noteLine.textContent = note ? `${note}.` : "";
  stepLine.textContent = `${stepText}…`;
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

// A boot step, in plain Spanish.
export function showStep(step) {
  stepText = STEPS[step] || step;
  starting = step !== "manifest";
  drawLoading();
}

// Bytes arrive in hundreds of pieces: the bar is redrawn once per frame.
let bytes = null;

export function showBytes(done, total) {
  if (!bytes) requestAnimationFrame(drawBytes);
  bytes = { done, total };
}

function drawBytes() {
  const { done, total } = bytes;
  bytes = null;
  if (statusBox.dataset.phase !== "loading") return; // ready, or a fault, since
  progress.hidden = false;
  progress.max = total;
  progress.value = done;
  // The figures stay on one line (no-break spaces).
  const text = `${STEPS.download}: ${MB.format(done / 1e6)}\u00a0de\u00a0${MB.format(total / 1e6)}\u00a0MB`;
  progress.setAttribute("aria-valuetext", text);
  if (starting) return; // NumPy's files still arriving while Python starts
  stepText = text;
  drawLoading();
}

const READY = "Listo: Python calcula en vivo.";

export function showReady() {
  note = "";
  setStatus("ready", READY);
}

// A change waits for Python's first view (a second at most, after «Listo»).
export function showApplying(on) {
  if (statusBox.dataset.phase !== "ready") return;
  const text = on ? "Listo: Python calcula en vivo; aplicando tu cambio…" : READY;
  if (statusText.textContent !== text) statusText.textContent = text;
}

// ------------------------------------------------------------------ faults

const HTTP_WORDS = {
  404: "no está en el servidor (error 404)",
  403: "no está permitido en el servidor (error 403)",
  500: "falló en el servidor (error 500)",
  502: "no llegó: el servidor intermedio falló (error 502)",
  503: "no llegó: el servidor no está disponible ahora (error 503)",
  504: "no llegó a tiempo desde el servidor (error 504)",
};

// Spanish agreement with a file's label («la biblioteca…» is feminine) and
// «de» + «el» → «del».
const isFeminine = (label) => /^la /i.test(label);
const ofThe = (label) => `de ${label}`.replace(/^de el /, "del ");

// A fault, in words a student understands: what failed, why, what to do.
export function describe(error) {
  const what = error.file ? error.file.label : "Python";
  const a = isFeminine(what) ? "a" : "o"; // incomplet-a/-o, dañad-a/-o
  const detail = error.file ? `${error.file.url}: ${error.message}` : error.message;
  const retry = "Pulsa «Reintentar»; lo que ya llegó no se vuelve a descargar.";
  switch (error.kind) {
    case "network":
      return { title: `No se pudo descargar ${what}: se cortó la conexión con el servidor.`,
        advice: `Comprueba tu conexión a internet. ${retry}`, detail };
    case "http": {
      const words = HTTP_WORDS[error.status] || `no llegó (el servidor respondió con el error ${error.status})`;
      const advice = error.status >= 500
        ? `Es un fallo del servidor: espera un momento y ${retry.charAt(0).toLowerCase()}${retry.slice(1)}`
        : "Avisa a quien publicó el laboratorio. Mientras tanto puedes leer la vista preparada.";
      return { title: `${capitalize(what)} ${words}.`, advice, detail };
    }
    case "corrupt":
      return { title: error.truncated
        ? `${capitalize(what)} llegó incomplet${a}: la descarga se quedó a medias.`
        : `${capitalize(what)} llegó dañad${a}: su contenido no es el publicado.`,
      advice: `Pulsa «Reintentar» para descargarl${a} de nuevo.`, detail };
    case "timeout":
      return { title: error.file
        ? `La descarga ${ofThe(what)} lleva 30 segundos sin avanzar.`
        : "Python lleva 30 segundos sin avanzar al arrancar.",
      advice: `Si tu conexión es lenta, espera un poco. ${retry}`, detail };
    case "script":
      return { title: `No se pudo cargar ${what}.`,
        advice: `Comprueba la conexión. ${retry}`, detail };
    case "missing-numpy":
      return { title: `El entorno «${error.runtime.name}» arrancó, pero no tiene NumPy, la biblioteca de cálculo.`,
        advice: "Su NumPy no está publicado en ningún registro de paquetes ni en este servidor. " +
          "Usa el entorno incluido (enlace de la derecha), o copia una rueda de NumPy para él en " +
          "wheels-current/ y vuelve a construir el sitio.",
        detail: `Pyodide ${error.runtime.pyodide}, Python ${error.runtime.python}: ${error.message}` };
    default:
      return { title: "Python no pudo arrancar en este navegador.",
        advice: `${retry} Si vuelve a fallar, prueba con otro navegador actualizado.`, detail };
  }
}

function capitalize(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// The fault panel: message, advice, a collapsible technical line, and the
// «Reintentar» button (and, when another runtime was asked for, a link back
// to the default one). `attempt` counts failed boots.
export function showFault(error, attempt, { onRetry, fallbackHref } = {}) {
  const text = describe(error);
  setStatus("error", attempt > 1 ? `Ha vuelto a fallar (intento ${attempt}).` : "No se pudo arrancar el laboratorio.");
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

export function showNotices(messages) {
  renderNotices(noticeList, messages);
}

export function announce(text) {
  const region = document.getElementById("announce");
  if (region.textContent === text) region.textContent = "";
  region.textContent = text;
}

export function showRuntime(info) {
  document.getElementById("runtime-text").textContent =
    `Pyodide ${info.pyodide} · Python ${info.python} · NumPy ${info.numpy} ` +
    `(${info.name === "bundled" ? "incluido en la página" : `entorno «${info.name}»`}, sin descargas externas)`;
}

// Whatever scrolls into view (a panel, a focused control) lands below the
// sticky bar: the CSS reads its height from --bar-height. The px of the
// screen's top it covers (0 on a phone, where it scrolls away) also go to
// whoever asked with onBarCover (offscreen.js: what it covers is not on
// screen).
let covered = 0;
const coverListeners = [];

export function trackBarHeight() {
  const bar = document.getElementById("lab-bar");
  new ResizeObserver(() => {
    const sticky = getComputedStyle(bar).position === "sticky";
    document.documentElement.style.setProperty("--bar-height", sticky ? `${bar.offsetHeight + 8}px` : "0px");
    const height = sticky ? bar.offsetHeight : 0;
    if (height === covered) return;
    covered = height;
    for (const listener of coverListeners) listener(height);
  }).observe(bar);
}

export function onBarCover(listener) {
  coverListeners.push(listener);
  listener(covered);
}
