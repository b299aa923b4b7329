// Number fields and sliders: what the reader types or drags goes to Python
// through lab.set; ↑ and ↓ in a field send the values Python gave for it
// (view.fields: the page computes and formats no number itself).

import { showEffect } from "./effect.js";

let lab = null; // {set, settled(), view(), state()}

export function initFields(hooks) {
  lab = hooks;
  document.addEventListener("change", onControl);
  document.addEventListener("input", onControl);
  document.addEventListener("keydown", onKey);
}

function valueOf(input) {
  const key = input.dataset.key;
  if (input.dataset.index === undefined) return input.value;
  return [...document.querySelectorAll(`[data-key="${key}"][data-index]`)]
    .sort((a, b) => a.dataset.index - b.dataset.index)
    .map((item) => item.value);
}

function lookupValue(path) {
  return path.split(".").reduce((value, part) => (value ? value[part] : undefined), lab.view());
}

function onControl(event) {
  const input = event.target.closest("[data-key]");
  if (!input || "sentenceField" in input.dataset) return; // a typed sentence: controls.js
  if (event.type === "input" && input.type !== "range") return;
  if (input.dataset.valueFrom && input.value === lookupValue(input.dataset.valueFrom)) return;
  const key = input.dataset.key;
  const done = lab.set({ [key]: valueOf(input) });
  // A control of the bar: its effect is brought into view once drawn.
  if (input.closest("#controls")) done.then(() => lab.settled()).then(() => showEffect(key, lab.view().state.panel), () => {});
  else done.catch(() => {});
}

function onKey(event) {
  const input = event.target;
  if (input.type === "text" && input.dataset.step) stepField(event, input);
  else if (input.type === "range" && input.dataset.steps) stepSlider(event, input);
}

// A slider's arrows take a useful step, PageUp/PageDown a big one,
// Home/End the ends (data-steps="arrow page" on the input): its position,
// not a number the reader reads (Python's output beside it says that).
function stepSlider(event, input) {
  const [small, big] = input.dataset.steps.split(" ").map(Number);
  const min = Number(input.min);
  const max = Number(input.max);
  const value = Number(input.value);
  const moves = {
    ArrowRight: value + small, ArrowUp: value + small, ArrowLeft: value - small, ArrowDown: value - small,
    PageUp: value + big, PageDown: value - big, Home: min, End: max,
  };
  if (!(event.key in moves)) return;
  event.preventDefault();
  const next = Math.min(max, Math.max(min, moves[event.key]));
  input.value = String(Math.round(next * 1000) / 1000);
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

// ↑ and ↓ step from the number Python holds for the field. What the reader
// typed and has not sent yet is sent first, so Python reads it («1.024»,
// «2,5») and the step starts there; a value it refuses stays refused, with
// its message, and takes no step. Presses faster than Python count each
// from the view the one before brought.
async function stepField(event, input) {
  const sign = { ArrowUp: "up", ArrowDown: "down" }[event.key];
  if (!sign || !lab.view()) return;
  event.preventDefault();
  const field = () => lab.view().fields[input.dataset.key];
  const index = input.dataset.index;
  const shown = () => (index === undefined ? field().text : field().text[Number(index)]);
  if (input.value !== shown()) {
    input.dispatchEvent(new Event("change", { bubbles: true }));
    await lab.settled();
    if (input.hasAttribute("aria-invalid")) return;
  }
  await lab.settled(); // a press before the last one's view counts from there
  const next = index === undefined ? field()[sign] : field()[sign][Number(index)];
  if (next === null) return; // at a bound: none left that way
  // The field is the reader's while focused: it gets Python's text for the
  // value it stepped to.
  lab.set({ [input.dataset.key]: next }).then(() => { input.value = shown(); }, () => {});
}
