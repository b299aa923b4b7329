"""The view contract and the state rules, as the page sees them (JSON in, JSON out)."""
import json
import re

import pytest

from lab_core.didactic import DEFAULT_STATE, HEADS, SENTENCES
from lab_core.state import state_from_params, update_state
from lab_core.views import build_view, fmt, handle


def ask(**request):
    return json.loads(handle(json.dumps(request)))


def strict_load(text):
    """json.loads that refuses NaN/Infinity, as JSON.parse in the browser does."""
    def refuse(name):
        raise ValueError("non-JSON constant %s" % name)
    return json.loads(text, parse_constant=refuse)


def all_states():
    for sentence in SENTENCES:
        for query in range(len(SENTENCES[sentence]["tokens"])):
            for mask in ("causal", "bidirectional"):
                for head in HEADS:
                    yield {"sentence": sentence, "query": query, "mask": mask, "head": head}


def test_every_view_is_strict_json():
    for state in all_states():
        text = json.dumps(build_view(state), allow_nan=False)
        view = strict_load(text)
        assert view["state"] == state


def test_article_exercise_in_the_view():
    reply = ask(**{"from": "set", "current": DEFAULT_STATE,
                   "state": {"mask": "bidirectional"}})
    assert reply["ok"]
    scores = reply["view"]["tables"]["scores"]
    banco = scores["rows"][1]
    assert banco["label"] == "banco" and banco["selected"]
    assert scores["columns"][3] == "parque"
    assert banco["cells"][3]["text"] == "1,41"
    weight = reply["view"]["tables"]["weights"]["rows"][1]["cells"][3]
    assert weight["value"] > 0 and weight["text"] == "0,58"

    closed = ask(**{"from": "set", "current": reply["view"]["state"],
                    "state": {"mask": "causal"}})["view"]
    assert closed["tables"]["scores"]["rows"][1]["cells"][3] == {
        "value": None, "text": "−∞", "masked": True}
    assert closed["tables"]["weights"]["rows"][1]["cells"][3]["value"] == 0.0
    assert closed["tables"]["weights"]["rows"][1]["cells"][3]["text"] == "0"


def test_only_selected_row_is_marked():
    view = build_view(dict(DEFAULT_STATE, query=2))
    flags = [row["selected"] for row in view["tables"]["weights"]["rows"]]
    assert flags == [False, False, True, False]


def test_focus_names_ties_and_the_mixture():
    view = build_view(DEFAULT_STATE)  # causal banco in lugar: El and banco tie at 0,50
    assert view["focus"]["best_key"] == "El y banco"
    assert view["focus"]["best_weight"] == "0,50"
    assert view["focus"]["mixture"] == "(0,25; 0,25)"


@pytest.mark.parametrize("value, text", [
    (2 ** 0.5, "1,41"), (-0.5, "−0,50"), (-0.001, "0,00"), (0, "0,00"),
    (1048576, "1.048.576,00"), (3150336.0, "3.150.336,00"),
])
def test_spanish_number_format(value, text):
    assert fmt(value) == text


def test_fmt_refuses_non_finite():
    with pytest.raises(ValueError):
        fmt(float("inf"))


@pytest.mark.parametrize("partial, message", [
    ({"sentence": "perro"}, "frase|sentence"),
    ({"query": 4}, "fuera del rango"),
    ({"query": -1}, "fuera del rango"),
    ({"query": "uno"}, "no es un número entero"),
    ({"query": True}, "no es un número entero"),
    ({"query": 1.5}, "no es un número entero"),
    ({"mask": "futuro"}, "mask"),
    ({"head": "<img src=x onerror=alert(1)>"}, "no existe"),
    ({"color": "rojo"}, "clave desconocida"),
])
def test_set_rejects_bad_values_with_a_message(partial, message):
    reply = ask(**{"from": "set", "current": DEFAULT_STATE, "state": partial})
    assert reply["ok"] is False and "view" not in reply
    assert re.search(message, reply["error"])


def test_set_accepts_digit_text_from_controls():
    assert update_state(DEFAULT_STATE, {"query": "3"})["query"] == 3


def test_set_needs_an_object():
    reply = ask(**{"from": "set", "current": DEFAULT_STATE, "state": [1, 2]})
    assert not reply["ok"] and "objeto" in reply["error"]
    assert not json.loads(handle("[]"))["ok"]
    assert not json.loads(handle("{no json"))["ok"]


def test_url_falls_back_per_key_with_notices():
    state, notices = state_from_params({
        "sentence": "credito", "query": "9", "mask": "bidirectional",
        "head": "<script>alert(1)</script>", "zoom": "2",
    })
    assert state == {"sentence": "credito", "query": 1, "mask": "bidirectional",
                     "head": "lugar"}
    assert len(notices) == 3
    assert any("zoom" in n for n in notices)
    assert any("query" in n and "9" in n for n in notices)
    assert any("<script>" in n for n in notices)  # shown as text by the page


def test_url_with_nothing_gives_the_default_and_no_notice():
    assert state_from_params({}) == (DEFAULT_STATE, [])


def test_long_values_are_shortened_in_messages():
    _, notices = state_from_params({"head": "x" * 5000})
    assert len(notices[0]) < 200
