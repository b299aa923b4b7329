// What the page sends to Python and what it makes of the reply: the checks
// a lab.set partial passes before it may travel, and the conversation with
// lab_core.views.Conversation (views sent as changes of the last one).

import { LoadError } from "./download.js";

// A partial must be a plain JSON object: what JSON cannot carry (undefined,
// functions, NaN, inherited properties…) would vanish on the way to Python
// and make a call that silently does nothing.
function notJSON(value, depth = 0) {
  if (depth > 32) return "anida demasiados niveles";
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : `${value} no es un número JSON`;
  if (typeof value === "undefined") return "vale undefined";
  if (typeof value === "function") return "es una función";
  if (typeof value !== "object") return `es de tipo ${typeof value}`;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = notJSON(item, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return "no es un objeto simple";
  for (const key of Object.keys(value)) {
    const problem = notJSON(value[key], depth + 1);
    if (problem) return problem;
  }
  return null;
}

export function checkPartial(partial) {
  if (partial === null || typeof partial !== "object" || Array.isArray(partial) ||
      ![Object.prototype, null].includes(Object.getPrototypeOf(partial))) {
    return "lab.set espera un objeto simple, por ejemplo {mask: 'causal'}";
  }
  for (const key in partial) { // eslint-disable-line guard-for-in
    if (!Object.prototype.hasOwnProperty.call(partial, key)) {
      return `lab.set: «${key}» es una propiedad heredada, no del objeto`;
    }
    const problem = notJSON(partial[key]);
    if (problem) return `lab.set: «${key}» ${problem}, y no se puede enviar a Python`;
  }
  return null;
}

// One request to Python. A view comes back as a change of the last view
// Python sent (lab_core.views.Conversation) when the request names it as
// its "base": only the parts that changed travel, and the parts that did not
// stay the very objects already drawn. window.py_view_data is always the
// whole envelope (made on first read), and window.py_table_data the block
// lab's table, as the article's cell publishes it.
// Where a round trip's time goes, for scripts/bench.py: lab:python (in the
// worker), lab:reply (carrying and parsing the reply), lab:draw (drawing).
let fromPython = null; // {id, view}: the last view Python sent, whole
let envelope = { text: undefined, reply: null }; // the last reply, whole

Object.defineProperty(window, "py_view_data", {
  configurable: true,
  get() {
    if (envelope.text === undefined && envelope.reply) envelope.text = JSON.stringify(envelope.reply);
    return envelope.text;
  },
});

export async function ask(python, request) {
  const start = performance.now();
  const sent = fromPython && request.from === "set" ? { ...request, base: fromPython.id } : request;
  const { text, table, python: pythonMs } = await python.call(sent);
  if (table !== undefined) window.py_table_data = table;
  const reply = JSON.parse(text);
  if (reply.ok && reply.view) {
    if (reply.base !== undefined) {
      if (!fromPython || reply.base !== fromPython.id) throw new LoadError("runtime", null, "respuesta de Python desordenada");
      reply.view = { ...fromPython.view, ...reply.view };
      delete reply.base;
      envelope = { text: undefined, reply };
    } else {
      envelope = { text, reply };
    }
    fromPython = { id: reply.view_id, view: reply.view };
  } else {
    envelope = { text, reply };
  }
  const parsed = performance.now();
  performance.measure("lab:python", { start, duration: pythonMs });
  performance.measure("lab:reply", { start, duration: Math.max(0, parsed - start - pythonMs) });
  return reply;
}

// After a fault the worker is gone, and with it the view a reply could be a
// change of: the next request asks for a whole view.
export function forget() {
  fromPython = null;
}
