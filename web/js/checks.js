// The checks a lab.set partial passes before it may travel to Python. No
// DOM here: node --test runs it as it is.

import { say } from "./text.js";

// A partial must be a plain JSON object: what JSON cannot carry (undefined,
// functions, NaN, inherited properties…) would vanish on the way to Python
// and make a call that silently does nothing.
function notJSON(value, depth = 0) {
  if (depth > 32) return say("set.deep");
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : say("set.number", { value });
  if (typeof value === "undefined") return say("set.undefined");
  if (typeof value === "function") return say("set.function");
  if (typeof value !== "object") return say("set.type");
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = notJSON(item, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return say("set.plain");
  for (const key of Object.keys(value)) {
    const problem = notJSON(value[key], depth + 1);
    if (problem) return problem;
  }
  return null;
}

export function checkPartial(partial) {
  if (partial === null || typeof partial !== "object" || Array.isArray(partial) ||
      ![Object.prototype, null].includes(Object.getPrototypeOf(partial))) {
    return say("set.object");
  }
  for (const key in partial) { // eslint-disable-line guard-for-in
    if (!Object.prototype.hasOwnProperty.call(partial, key)) {
      return say("set.inherited", { key });
    }
    const problem = notJSON(partial[key]);
    if (problem) return say("set.value", { key, problem });
  }
  return null;
}
