"""Any request, however malformed, gets a reply envelope with a Spanish message.

hypothesis generates requests from JSON values (deep nesting, huge numbers,
odd strings, wrong types in every field) with a fixed seed and a bounded
number of examples, so the run is the same on every machine.
"""
import json

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from lab_core import attention_lab, block_lab
from lab_core.views import answer, handle

KEYS = sorted(set(attention_lab.SPEC.parsers) | set(block_lab.SPEC.parsers)) + ["x", "__proto__"]
SCALARS = (st.none() | st.booleans() | st.integers(min_value=-10 ** 400, max_value=10 ** 400)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30)
           | st.sampled_from(["parque", "bidirectional", "all", "1;0", "0;4;2;3;1", "", "1e999",
                              # typed sentences, good and bad (the tokens and other keys)
                              "Pedí un crédito al banco", "El;banco;junto;al;rio",
                              "<img src=x onerror=alert(1)>", "</textarea>", "banco 😀",
                              "El\u200bbanco", "\u202eEl banco", "banco " * 13, "x" * 250]))
VALUES = st.recursive(SCALARS, lambda children: st.lists(children, max_size=4)
                      | st.dictionaries(st.sampled_from(KEYS), children, max_size=4), max_leaves=12)
PARTIAL = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5) | VALUES
REQUEST = st.fixed_dictionaries({}, optional={
    "lab": st.sampled_from(["attention", "block", "cocina", 7, None]),
    "from": st.sampled_from(["set", "url", "otro", None]),
    "state": PARTIAL,
    "current": PARTIAL,
    "partials": st.lists(PARTIAL, max_size=4) | VALUES,
})
PYTHON_WORDS = ("None", "True", "False", "Traceback", "Error:", "object has no attribute")


def check(reply):
    assert isinstance(reply, dict) and isinstance(reply.get("ok"), bool)
    if reply["ok"]:
        assert isinstance(reply.get("view"), dict) or "results" in reply
        for result in reply.get("results", []):
            if not result["ok"]:
                check_message(result["error"])
    else:
        check_message(reply["error"])


def check_message(message):
    assert isinstance(message, str) and message
    for word in PYTHON_WORDS:
        assert word not in message, message


@seed(20261130)
@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(REQUEST)
def test_any_request_gets_an_envelope(request):
    reply = answer(json.dumps(request))
    check(reply)
    text = handle(json.dumps(request))
    json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))


@seed(20261130)
@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=200))
def test_any_text_gets_an_envelope(text):
    check(answer(text))


def test_the_cases_that_used_to_escape():
    deep = "[" * 3000 + "]" * 3000
    for text in (deep, json.dumps({"lab": "attention", "current": [1], "state": {}}),
                 json.dumps({"lab": "attention", "from": "url", "state": "mask"}),
                 json.dumps({"lab": "attention", "state": {"query": 10 ** 400}}),
                 '{"lab": "attention", "state": {"mask": %s}}' % deep,
                 json.dumps({"lab": "block", "partials": [{"heads": None}, 3, {"d_ff": 10 ** 400}]})):
        check(answer(text))
    # a refused yes/no value keeps the current one, named as the reader reads it
    for current, kept in ((True, "sí"), (False, "no")):
        reply = answer(json.dumps({"lab": "attention", "from": "set",
                                   "current": {"respuestas": current}, "state": {"respuestas": "x"}}))
        check(reply)
        assert reply["error"].endswith("Se mantiene: %s" % kept)
