// The effect of a change in view. A control of the bar (#controls) sets a
// state key; when no panel that reads that key (data-reads, written by the
// build from the builders' @reads) is on screen, the panel the reader is on,
// or else the first that reads it, is brought under the bar: its heading at
// the top if its result (data-effect, else its first table) then fits on
// the screen, else scrolled further until the result's bottom is in view.
// On a phone the changed cell is then on the same screen as the docked
// controls (chrome.js).

import { barCover } from "./chrome.js";

function readers(key) {
  return [...document.querySelectorAll("main > section.panel[data-reads]")]
    .filter((panel) => !panel.hidden && panel.dataset.reads.split(" ").includes(key));
}

// At least half of the screen below the bar shows it (or all of it, if shorter).
function inView(panel, top) {
  const box = panel.getBoundingClientRect();
  const seen = Math.min(box.bottom, innerHeight) - Math.max(box.top, top);
  return seen >= Math.min(box.height, (innerHeight - top) / 2);
}

export function showEffect(key, panelId) {
  const covered = barCover();
  const panels = readers(key);
  if (!panels.length || panels.some((panel) => inView(panel, covered.now))) return;
  const top = covered.stuck;
  const panel = panels.find((p) => p.id === panelId) || panels[0];
  const result = panel.querySelector("[data-effect]") || panel.querySelector(".table-wrap") || panel;
  const margin = 8;
  const head = panel.getBoundingClientRect().top - top - margin;
  const box = result.getBoundingClientRect();
  const toBottom = box.bottom - (innerHeight - margin);
  const toTop = box.top - top - margin; // never past the result's own top
  const delta = Math.min(Math.max(head, toBottom), toTop);
  const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
  window.scrollBy({ top: delta, behavior: smooth ? "smooth" : "auto" });
}
