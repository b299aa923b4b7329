// The reader's place on the page across a reload or a step back in history
// (a phone reloads a tab it had set aside). The browser's own restoration
// scrolls while the page is still its empty skeleton, shorter than the drawn
// page, and scroll anchoring then keeps whatever sat at that height in view:
// another panel. So the page keeps its place itself (sessionStorage, this
// tab only) and goes back to it once its whole first view is drawn.

const KEY = `lab-place:${location.pathname}`;

function storage() {
  try {
    return window.sessionStorage; // refused in some embeds: no place kept
  } catch (error) {
    return null;
  }
}

// The place is the panel across the top of the screen and how far its top
// is above the screen's: the status bar above it is taller while Python
// loads, so a height alone would land that much off. Above the first panel
// (the page's header on screen), the height is the place: the header does
// not move.
function save() {
  const store = storage();
  const panel = [...document.querySelectorAll("main > section.panel[id]")]
    .find((section) => section.getBoundingClientRect().bottom > 0);
  const top = panel ? panel.getBoundingClientRect().top : 1;
  const place = top <= 0 ? { panel: panel.id, top } : { y: scrollY };
  try {
    if (store) store.setItem(KEY, JSON.stringify(place));
  } catch (error) {
    // full or refused: the next load starts at its default place
  }
}

// Where this load should go back to when it is a reload or a step in
// history, else null (a new visit starts where its link says).
export function savedPlace() {
  const navigation = performance.getEntriesByType("navigation")[0];
  if (!navigation || !["reload", "back_forward"].includes(navigation.type)) return null;
  const store = storage();
  try {
    const place = JSON.parse(store ? store.getItem(KEY) : "null");
    return place && typeof place === "object" ? place : null;
  } catch (error) {
    return null;
  }
}

function go(place) {
  const panel = typeof place.panel === "string" && document.getElementById(place.panel);
  if (panel && Number.isFinite(place.top)) scrollBy(0, panel.getBoundingClientRect().top - place.top);
  else if (Number.isFinite(place.y)) scrollTo(0, place.y);
}

// The reader's own moves: a wheel, a touch, a key, a click, and with
// `focus` a focus that moves (a screen reader's included). Calls `moved` at
// the first of each, before the page acts on it; returns what stops
// listening. What the page does for the reader on its own (going back to a
// place, keeping to an edge) stops at the reader's next move.
const MOVES = ["wheel", "touchstart", "keydown", "pointerdown"];

export function onReaderMove(moved, { focus = false } = {}) {
  const types = focus ? [...MOVES, "focusin"] : MOVES;
  for (const type of types) addEventListener(type, moved, { capture: true, passive: true });
  return () => {
    for (const type of types) removeEventListener(type, moved, { capture: true });
  };
}

// Back to a saved place, once the page is drawn. What still changes above
// it (the status line shrinks at «Listo») scroll anchoring makes up for,
// but each of its moves lands on a whole pixel: the function returned goes
// back once more when the page has settled, unless the reader has moved
// since.
export function goTo(place) {
  go(place);
  let moved = false;
  const stop = onReaderMove(() => {
    moved = true;
  });
  return () => {
    stop();
    if (!moved) go(place);
  };
}

// The page about to be hidden or left (a phone's tab set aside, another
// app, a link followed): the last moment to keep anything, as a phone may
// discard a hidden tab without a word.
export function onLeave(leaving) {
  addEventListener("pagehide", leaving);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") leaving();
  });
}

export function keepPlace() {
  if ("scrollRestoration" in history) history.scrollRestoration = "manual";
  onLeave(save);
}
