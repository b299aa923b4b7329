"""Every kind of request the page makes, for each lab: run inside Pyodide.

scripts/trace_runtime.py runs this in the page's Python worker on the whole
runtime to learn which files the lab opens (scripts/runtime_trace.json);
tests/e2e/test_runtime_files.py runs it on the trimmed runtime the build
ships, where a file left out would surface as an import error.

It is plain Python 3.8 that imports only lab_core and the standard library,
sent as text: `exercise()` returns a summary, {"requests": n, "problems":
[...]}, where a problem is a request whose reply says it could not be
processed (answer() turns any exception, an ImportError included, into such
a reply) or that raised.
"""
import json

from lab_core import export, prepared
from lab_core.browser import render
from lab_core.views import LABS, answer, get_lab

SENTENCES = ("Pedí un crédito al banco", "El banco junto al río es viejo",
             "la orilla del rio", "Ana vio el banco", "<b>hola</b>", "🙂", "")
# Values a reader or a link can send that no control offers.
ODD = ("", "x", "1e400", "-1", "0,5", [], {}, None, True, [1, 2], "1;2;3")


def nearby(value):
    """Valid-looking neighbours of a default value, of the same kind."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, 0]
    if isinstance(value, float):
        return [value * 1.5 + 0.25, 0.0, -value]
    if isinstance(value, list):
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
            return [list(reversed(value)), [x + 0.5 for x in value]]
        return [list(reversed(value)), value[:1]]
    if isinstance(value, str):
        return list(SENTENCES)
    return []


def exercise(sample_every=97, labs=LABS):
    """`labs`: the labs whose requests to make (all of them by default)."""
    problems, count = [], 0

    def ask(request):
        nonlocal count
        count += 1
        text = json.dumps(request, ensure_ascii=False)
        try:
            reply = answer(text)
            render(text)  # the page's own path: a conversation, window globals
        except Exception as error:  # noqa: BLE001 — reported, not raised
            problems.append("%s: %s" % (text[:120], error))
            return {"ok": False}
        if not reply["ok"] and "no se pudo procesar" in reply.get("error", ""):
            problems.append("%s: %s" % (text[:120], reply["error"]))
        for result in reply.get("results") or []:
            if "no se pudo procesar" in result.get("error", ""):
                problems.append("%s: %s" % (text[:120], result["error"]))
        return reply

    for name in labs:
        lab = get_lab(name)
        spec = lab.spec
        base = spec.default_state()
        view = ask({"lab": name, "state": {}, "current": base})["view"]
        for key, definition in spec.keys.items():
            values = list(definition.names) or nearby(base[key])
            for value in values + list(ODD):
                ask({"lab": name, "state": {key: value}, "current": base})
                ask({"lab": name, "from": "url",
                     "state": {key: value if isinstance(value, str) else json.dumps(value)}})
        ask({"lab": name, "partials": [{k: v} for k, v in list(base.items())[:4]],
             "current": base})
        for table in export.tables_of(view):
            ask({"lab": name, "from": "export", "state": base, "table": table["id"],
                 "link": "https://example.org/?a=1"})
        for index, state in enumerate(prepared.selector_states(lab)):
            if index % sample_every == 0 or name != "attention":
                ask({"lab": name, "state": state, "current": base})
    for bad in ("", "[]", "{", '{"lab": "nada"}', '{"lab": "attention", "state": 3}',
                '{"lab": "block", "from": "export", "table": "x"}', "[" * 5000):
        count += 1
        try:
            answer(bad)
        except Exception as error:  # noqa: BLE001
            problems.append("%r: %s" % (bad[:40], error))
    return {"requests": count, "problems": problems}
