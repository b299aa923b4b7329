// Unit tests of the page's pure modules, run by `node --test tests/js`
// (no dependency beyond Node): the checks a lab.set partial passes, the
// batching of calls, the settling of the page, the life cycle's transitions,
// the words' templates and the prepared views' look-ups. The page itself is
// tested in a real browser (tests/e2e).
import assert from "node:assert/strict";
import { test } from "node:test";

import { Batches } from "../../web/js/batch.js";
import { checkPartial } from "../../web/js/checks.js";
import { turnOff } from "../../web/js/dom.js";
import { Prepared } from "../../web/js/prepared.js";
import { Session } from "../../web/js/session.js";
import { Settling } from "../../web/js/settle.js";
import { shuffled } from "../../web/js/shuffle.js";
import { has, say, useText } from "../../web/js/text.js";

const WORDS = {
  "set.object": "lab.set espera un objeto simple",
  "set.inherited": "lab.set: «{key}» es una propiedad heredada",
  "set.value": "lab.set: «{key}» {problem}",
  "set.undefined": "vale undefined",
  "set.number": "{value} no es un número JSON",
  "set.function": "es una función",
  "set.plain": "no es un objeto simple",
  "set.deep": "anida demasiados niveles",
  "set.type": "es de un tipo que JSON no tiene",
};

test("say fills a template's names and leaves unknown ones as they are", () => {
  useText({ greet: "Hola, {name}: {n} de {total}", plain: "Sin nombres" });
  assert.equal(say("greet", { name: "banco", n: 2, total: 4 }), "Hola, banco: 2 de 4");
  assert.equal(say("greet", { name: "banco" }), "Hola, banco: {n} de {total}");
  assert.equal(say("plain"), "Sin nombres");
  assert.equal(say("missing"), "missing"); // a page without its words still says something
  assert.ok(has("plain") && !has("missing"));
});

test("a partial must be a plain JSON object, or lab.set says what is wrong", () => {
  useText(WORDS);
  assert.equal(checkPartial({ mask: "causal", vec: { "lugar.parque.k": [3, 0] } }), null);
  assert.equal(checkPartial(null), "lab.set espera un objeto simple");
  assert.equal(checkPartial([1]), "lab.set espera un objeto simple");
  assert.equal(checkPartial(new Date()), "lab.set espera un objeto simple");
  assert.equal(checkPartial({ query: undefined }), "lab.set: «query» vale undefined");
  assert.equal(checkPartial({ theta: NaN }), "lab.set: «theta» NaN no es un número JSON");
  assert.equal(checkPartial({ theta: Infinity }), "lab.set: «theta» Infinity no es un número JSON");
  assert.equal(checkPartial({ head: () => 1 }), "lab.set: «head» es una función");
  assert.equal(checkPartial({ step: 1n }), "lab.set: «step» es de un tipo que JSON no tiene");
  assert.equal(checkPartial({ vec: new Map() }), "lab.set: «vec» no es un objeto simple");
  const deep = [];
  let at = deep;
  for (let i = 0; i < 40; i++) at = (at[0] = []);
  assert.equal(checkPartial({ tokens: deep }), "lab.set: «tokens» anida demasiados niveles");
  const inherited = Object.create({ mask: "causal" });
  assert.equal(checkPartial(inherited), "lab.set espera un objeto simple");
  const bare = Object.create(null);
  bare.mask = "causal";
  assert.equal(checkPartial(bare), null);
});

test("calls made in one burst go to Python as one batch, each settling on its own", async () => {
  const sent = [];
  const drawn = [];
  const batches = new Batches({
    send: async (partials) => {
      sent.push(partials);
      return { ok: true, view: { n: sent.length }, results: partials.map((p) => (p.bad ? { ok: false } : { ok: true })) };
    },
    applied: (calls, reply) => {
      drawn.push(reply.view.n);
      reply.results.forEach((result, i) => (result.ok ? calls[i].resolve(i) : calls[i].reject(new Error("no"))));
    },
  });
  const call = (partial) => new Promise((resolve, reject) => batches.add({ partial, resolve, reject }));
  const a = call({ mask: "bidirectional" });
  const b = call({ bad: true });
  const c = call({ head: "all" });
  batches.schedule();
  batches.schedule(); // once per burst
  assert.equal(await a, 0);
  await assert.rejects(b, /no/);
  assert.equal(await c, 2);
  assert.deepEqual(sent, [[{ mask: "bidirectional" }, { bad: true }, { head: "all" }]]);
  assert.deepEqual(drawn, [1]);
  // A reply that is not ok rejects the whole batch with its message.
  const failing = new Batches({ send: async () => ({ ok: false, error: "Python dice no" }), applied: () => {} });
  const d = new Promise((resolve, reject) => failing.add({ partial: {}, resolve, reject }));
  failing.schedule();
  await assert.rejects(d, /Python dice no/);
  // A fault rejects what waits.
  const stuck = new Batches({ send: () => new Promise(() => {}), applied: () => {} });
  const e = new Promise((resolve, reject) => stuck.add({ partial: {}, resolve, reject }));
  assert.equal(stuck.waiting, 1);
  stuck.rejectAll("Sin conexión");
  await assert.rejects(e, /Sin conexión/);
  assert.equal(stuck.waiting, 0);
});

test("the page is settled once every call settled and nothing is left to draw", async () => {
  let drawing = false;
  const marks = [];
  const settling = new Settling(() => drawing, (busy) => marks.push(busy));
  let finish;
  const call = settling.track(new Promise((resolve) => { finish = resolve; }), { step: 3 });
  assert.deepEqual(settling.heading({ step: 1, mask: "causal" }), { step: 3, mask: "causal" });
  let settled = false;
  const waiting = settling.settled().then(() => { settled = true; });
  drawing = true;
  finish();
  await call;
  await Promise.resolve();
  assert.equal(settled, false); // a panel is still to draw
  drawing = false;
  settling.check();
  await waiting;
  assert.equal(settled, true);
  assert.deepEqual(marks, [true, false]);
  assert.equal(settling.heading(null), null);
});

test("the life cycle goes only where it may", () => {
  const phases = [];
  const session = new Session((phase) => phases.push(phase));
  assert.equal(session.phase, "painting");
  session.to("booting");
  assert.ok(!session.running && !session.live);
  session.to("confirming");
  assert.ok(session.running && !session.live);
  session.to("live");
  assert.ok(session.live);
  assert.throws(() => session.to("booting"), /cannot go from "live" to "booting"/);
  const error = new Error("cut");
  session.to("fault", error);
  assert.equal(session.fault, error);
  assert.equal(session.attempts, 1);
  session.to("booting");
  assert.equal(session.fault, null);
  assert.deepEqual(phases, ["painting", "booting", "confirming", "live", "fault", "booting"]);
});

test("a prepared view is looked up with Python's spelling, never the page's", () => {
  const index = {
    path: "views/x/", group: ["sentence"], selectors: ["sentence", "query", "panel"],
    files: ["parque"], defaults: { sentence: "parque", query: 1, panel: "puntuacion", theta: 0.5, vec: {} },
    encoded: { sentence: "parque", query: "1", panel: "puntuacion", theta: "0.5", vec: "" },
  };
  const prepared = new Prepared(index);
  assert.ok(prepared.covers(["query", "panel"]) && !prepared.covers(["theta"]));
  const state = { ...index.defaults };
  assert.equal(prepared.spell(state, "query"), "1");
  assert.equal(prepared.spell({ ...state, query: "3" }, "query"), "3");
  assert.equal(prepared.spell(state, "theta"), "0.5"); // the default, as Python spelled it
  assert.equal(prepared.spell({ ...state, theta: 0.7 }, "theta"), null); // not prepared
  assert.equal(prepared.spell({ ...state, vec: { "lugar.parque.k": [3, 0] } }, "vec"), null);
  assert.equal(prepared.spell({ ...state, query: 1.5 }, "query"), null);
  // An index without Python's spelling is no index: the page waits for Python.
  const { encoded, ...old } = index;
  assert.equal(new Prepared(old).index, null);
});

test("a control a view turns back on is usable only while the page's controls are", () => {
  const body = { dataset: {} };
  globalThis.document = { body };
  try {
    const field = { disabled: true, dataset: {} };
    turnOff(field, true); // the view makes it moot
    assert.deepEqual([field.disabled, "off" in field.dataset], [true, true]);
    turnOff(field, false); // moot no longer, but the page is still booting
    assert.deepEqual([field.disabled, "off" in field.dataset], [true, false]);
    body.dataset.controls = "on"; // screen.enableControls()
    turnOff(field, false);
    assert.equal(field.disabled, false);
    turnOff(field, true);
    assert.equal(field.disabled, true);
  } finally {
    delete globalThis.document;
  }
});

test("«Barajar» always moves the words, and keeps every one of them", () => {
  // A random() that first draws the identity (each j = i), then a real move.
  const draws = [0.99, 0.99, 0.99, 0.99, 0, 0, 0, 0];
  const random = () => draws.shift();
  const order = shuffled([0, 1, 2, 3, 4], random);
  assert.deepEqual(order, [1, 2, 3, 4, 0]); // the second draw: j = 0 at every step
  assert.equal(draws.length, 0); // the identity was drawn, and drawn again
  for (let n = 0; n < 200; n++) {
    const from = [4, 0, 2, 3, 1];
    const to = shuffled(from);
    assert.notDeepEqual(to, from);
    assert.deepEqual([...to].sort(), [0, 1, 2, 3, 4]);
  }
  assert.deepEqual(shuffled([7]), [7]); // one word has no other order
  assert.deepEqual(shuffled([]), []);
  assert.deepEqual(shuffled([3, 3]), [3, 3]); // no other order to draw: no endless loop
});
