// Sharing: copy (with the text shown in a box where the clipboard is not
// available), the link to this view, the snippet that embeds one panel,
// embed mode itself, and the links that carry the current URL.

import * as url from "./url.js";
import { say } from "./text.js";

let announce = () => {};

export function initShare(hooks) {
  announce = hooks.announce;
  url.onWrite(refreshLinks);
  refreshLinks();
}

// Copy text; where the clipboard is not available (a plain-http address is
// not a secure context; permission refused), show it selected in a box.
export async function copy(text, what) {
  try {
    if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    announce(say("copied", { what }));
    return true;
  } catch (error) {
    showText(text, say("copy.manual", { what }));
    return false;
  }
}

function showText(text, title) {
  const dialog = document.getElementById("text-dialog");
  dialog.querySelector(".dialog-title").textContent = title;
  const box = dialog.querySelector("textarea");
  box.value = text;
  if (!dialog.open) dialog.showModal();
  box.focus();
  box.select();
}

export function download(filename, blob) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function confirmNear(button, text) {
  const note = button.parentElement.querySelector(".confirm");
  if (note) {
    note.textContent = text;
    setTimeout(() => { if (note.textContent === text) note.textContent = ""; }, 4000);
  }
}

// The current link as a teacher's view: every question's answer in view
// (the state key respuestas).
export function withAnswers(href) {
  const link = new URL(href);
  link.searchParams.set("respuestas", "1");
  return link.href.replace(/%3B/g, ";");
}

function embedURL(panel, answers) {
  const link = new URL(url.href());
  link.hash = "";
  link.searchParams.set("embed", "1");
  link.searchParams.set("panel", panel);
  if (answers) link.searchParams.set("respuestas", "1");
  else link.searchParams.delete("respuestas");
  return link.href.replace(/%3B/g, ";");
}

// An attribute value for the snippet: whatever the URL holds, it cannot
// close the attribute or open a tag.
function attribute(text) {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// The frame and the script that sizes it (embed.js, from the lab's own
// address): the embedded page says its height, the frame takes it.
function snippet(panel, answers) {
  const title = document.getElementById(`${panel}-title`);
  const name = title ? title.textContent.replace(/\s+/g, " ").trim() : panel;
  // Until the page inside says its height: the panel's own now, plus room
  // for the status and its controls.
  const height = Math.max(480, Math.round(document.getElementById(panel).scrollHeight + 240));
  const script = new URL("embed.js", location.href).href;
  return `<iframe src="${attribute(embedURL(panel, answers))}" title="${attribute(say("embed.title", { panel: name }))}" ` +
    `width="100%" height="${height}" style="border:0" loading="lazy"></iframe>\n` +
    `<script src="${attribute(script)}" async></script>`;
}

export function showSnippet(panel) {
  const dialog = document.getElementById("embed-dialog");
  const answers = dialog.querySelector("#embed-answers");
  const write = () => { dialog.querySelector("textarea").value = snippet(panel, answers.checked); };
  answers.onchange = write;
  write();
  dialog.dataset.panel = panel;
  dialog.showModal();
  dialog.querySelector("textarea").select();
}

// In a frame, the page tells its parent how tall it is whenever that
// changes (embed.js, on the parent's side, sizes the frame).
function reportHeight() {
  if (window.parent === window) return;
  const send = () => window.parent.postMessage({
    type: "attention-lab:height",
    height: Math.ceil(document.documentElement.getBoundingClientRect().height),
  }, "*");
  new ResizeObserver(send).observe(document.documentElement);
}

// Links that carry the current URL: the embedded page's way out, and the
// link printed on paper.
function refreshLinks() {
  const whole = document.getElementById("open-whole");
  if (whole && document.body.dataset.embed) {
    const link = new URL(url.href());
    link.searchParams.delete("embed");
    whole.href = link.href;
  }
  const printed = document.getElementById("print-url");
  if (printed) printed.textContent = url.href();
}

// ------------------------------------------------------------------- embed

// ?embed=1&panel=…: only that panel and the controls it reads, for an
// <iframe> on a course page or in slides. Returns a notice for the reader
// when the request cannot be honoured (the whole page then shows).
export function embedMode(params) {
  if (params.get("embed") !== "1") return null;
  const panel = params.get("panel");
  const section = panel && document.getElementById(panel);
  if (!section || !section.classList.contains("panel")) {
    return panel === null ? say("notice.embed.none") : say("notice.embed.unknown", { panel });
  }
  document.body.dataset.embed = panel;
  section.classList.add("embedded");
  const reads = (section.dataset.reads || "").split(" ");
  for (const control of document.querySelectorAll("#controls .control")) {
    const input = control.querySelector("[data-key]");
    control.hidden = !input || !reads.includes(input.dataset.key);
  }
  const controls = document.getElementById("controls");
  if (controls) controls.hidden = !controls.querySelector(".control:not([hidden])");
  refreshLinks();
  reportHeight();
  return null;
}
