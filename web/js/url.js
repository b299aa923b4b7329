// The address bar mirrors the state on screen, so that a link copied,
// shared, bookmarked, printed or reloaded reproduces it.
//
// Writing it (history.replaceState) was the dearest JavaScript step of a
// change on this page (1,2-1,4 ms of every round trip on a desktop, plus a
// style update and a same-document navigation). A reader looks at the tables, not at the
// address bar, so a change's URL is written once the changes pause
// (QUIET_MS after the last one: a slider dragged writes once), and at once
// whenever something is about to read it: anything here that reads the URL
// calls flush() first, and so does the page before it is printed, hidden or
// left.

import { onLeave } from "./place.js";

export const PAGE_KEYS = new Set(["runtime", "embed"]); // the page's keys, not the lab state's
const QUIET_MS = 250;

let pending = null; // the query string to write, or null
let timer = 0;
const writers = []; // called after each write (links that carry the URL)

export function onWrite(fn) {
  writers.push(fn);
}

// Python gives the state's canonical query string; page keys are kept.
// `soon`: a reader's change, written when the changes pause.
export function mirror(queryString, { soon = false } = {}) {
  pending = queryString;
  clearTimeout(timer);
  timer = 0;
  if (soon) timer = setTimeout(flush, QUIET_MS);
  else flush();
}

export function flush() {
  clearTimeout(timer);
  timer = 0;
  if (pending === null) return;
  const params = new URLSearchParams(pending);
  pending = null;
  for (const [key, value] of new URLSearchParams(location.search)) {
    if (PAGE_KEYS.has(key)) params.set(key, value);
  }
  const search = params.toString().replace(/%3B/g, ";").replace(/%3A/g, ":").replace(/%2C/g, ",");
  const url = `${location.pathname}${search ? `?${search}` : ""}${location.hash}`;
  if (url === `${location.pathname}${location.search}${location.hash}`) return;
  history.replaceState(null, "", url);
  for (const fn of writers) fn();
}

// The URL as the reader would copy it now.
export function href() {
  flush();
  return location.href;
}

export function searchParams() {
  flush();
  return new URLSearchParams(location.search);
}

// The lab state's keys in the URL (page keys left out).
export function labParams() {
  const params = {};
  for (const [key, value] of searchParams()) {
    if (!PAGE_KEYS.has(key)) params[key] = value;
  }
  return params;
}

// About to be read: a link the pointer is on (the embed's way out, which
// carries the URL), the page about to print, hide or go.
document.addEventListener("pointerdown", flush, true);
document.addEventListener("focusin", (event) => {
  if (event.target.closest && event.target.closest("a[href]")) flush();
});
addEventListener("beforeprint", flush);
onLeave(flush);
