// What the page sends to Python and what it makes of the reply: the
// conversation with lab_core.views.Conversation (views sent as changes of
// the last one). A lab.set partial passes checks.js first.

import { LoadError } from "./download.js";
import { say } from "./text.js";

export { checkPartial } from "./checks.js";

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
    if (reply.adopted && request.prepared) {
      // Python took the prepared view on screen as its own (its first
      // request carried it): only what differs came back.
      reply.view = { ...request.prepared, ...reply.view };
      delete reply.adopted;
      envelope = { text: undefined, reply };
    } else if (reply.base !== undefined) {
      if (!fromPython || reply.base !== fromPython.id) throw new LoadError("runtime", null, say("detail.disordered"));
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
