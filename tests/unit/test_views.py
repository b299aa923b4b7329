"""The view contract and the state rules, as the page sees them (JSON in, JSON out)."""
import itertools
import json
import re

import pytest

from lab_core import attention_lab
from lab_core.didactic import DEFAULT_STATE, HEADS, SENTENCES
from lab_core.display import fmt, fmt_sci, fmt_short
from lab_core.export import tables_of
from lab_core.state import query_string, state_from_params, update_state
from lab_core.views import Conversation, handle, to_json

SPEC = attention_lab.SPEC
DEFAULT = SPEC.default_state()


def ask(**request):
    request.setdefault("lab", "attention")
    return json.loads(handle(json.dumps(request)))


def set_state(partial, current=None):
    return ask(**{"from": "set", "current": current or DEFAULT, "state": partial})


def strict_load(text):
    """json.loads that refuses NaN/Infinity, as JSON.parse in the browser does."""
    def refuse(name):
        raise ValueError("non-JSON constant %s" % name)
    return json.loads(text, parse_constant=refuse)


def test_default_state_is_the_articles_exercise_one_click_away():
    assert {k: DEFAULT[k] for k in DEFAULT_STATE} == {
        "sentence": "parque", "query": 1, "mask": "causal", "head": "lugar"}
    assert DEFAULT["key"] == 3  # parque


def test_every_view_is_strict_json():
    states = itertools.product(SENTENCES, range(4), ("causal", "bidirectional"),
                               list(HEADS) + ["all"], (1, 4))
    for sentence, query, mask, head, step in states:
        state = dict(DEFAULT, sentence=sentence, query=query, mask=mask, head=head,
                     step=step, key=(query + 2) % 4)
        text = handle(json.dumps({"lab": "attention", "from": "set", "current": state,
                                  "state": {}}))
        reply = strict_load(text)
        assert reply["ok"] and reply["view"]["state"] == state


def test_article_exercise_in_the_view():
    reply = set_state({"mask": "bidirectional"})
    assert reply["ok"]
    (pair,) = reply["view"]["tables"]
    scores = pair["scores"]
    assert scores["caption"] == "Puntuaciones"
    banco = scores["rows"][1]
    assert banco["label"] == "banco" and banco["selected"]
    assert scores["columns"][3] == "parque"
    assert banco["cells"][3]["text"] == "1,41"
    weight = pair["weights"]["rows"][1]["cells"][3]
    assert weight["value"] > 0 and weight["text"] == "0,58"
    (block,) = reply["view"]["arithmetic"]["blocks"]
    assert block["expression"] == "(1·2 + 0·0) / √2 ≈ 1,41"
    assert block["q"] == "(1; 0)" and block["k"] == "(2; 0)"

    closed = set_state({"mask": "causal"}, reply["view"]["state"])["view"]
    (pair,) = closed["tables"]
    assert pair["scores"]["rows"][1]["cells"][3] == {
        "value": None, "text": "−∞", "masked": True, "focus": True}
    assert pair["weights"]["rows"][1]["cells"][3]["value"] == 0.0
    assert pair["weights"]["rows"][1]["cells"][3]["text"] == "0"
    (block,) = closed["arithmetic"]["blocks"]
    assert block["masked"] and block["score"] == "−∞" and block["weight"] == "0"
    assert "−∞" in block["why"] and "1,41" in block["why"]
    # Without the mask the weight would be the open view's 0,58, not the
    # score: «valdría 1,41» once read as a weight above 1.
    assert block["why"].endswith("Sin máscara, su puntuación (1,41) contaría y el peso sería %s."
                                 % weight["text"])


def test_all_heads_view_shows_one_table_pair_per_head_and_the_combination():
    view = set_state({"head": "all"})["view"]
    assert [p["scores"]["caption"] for p in view["tables"]] == [
        "Puntuaciones · " + h["label"] for h in HEADS.values()]
    combine = view["heads"]["combine"]
    assert combine["shapes"][-1].endswith("[n_seq=4, d_model=6]")
    assert len(combine["concat"]["columns"]) == 6
    assert set_state({"head": "lugar"})["view"]["heads"]["combine"] is None


def test_only_selected_row_is_marked():
    view = set_state({"query": 2})["view"]
    flags = [row["selected"] for row in view["tables"][0]["weights"]["rows"]]
    assert flags == [False, False, True, False]


def test_predictions_carry_answers_computed_from_the_numbers():
    view = set_state({"mask": "bidirectional"})["view"]
    assert view["arithmetic"]["predict"]["answers"] == ["mitad"]  # parque's 0,58
    assert view["mask"]["predict"]["answers"] == ["si"]
    assert view["rope"]["predict"]["answers"] == ["igual"]
    assert view["cache"]["predict"]["answers"] == ["si"]
    causal = set_state({})["view"]
    assert causal["arithmetic"]["predict"]["answers"] == ["cero"]  # parque is masked
    assert causal["mask"]["predict"]["answers"] == ["no"]
    assert causal["cache"]["predict"]["answers"] == ["no"]


def test_query_string_holds_only_changed_keys_and_reads_back():
    assert query_string(SPEC, DEFAULT) == ""
    state = update_state(SPEC, DEFAULT, {"mask": "bidirectional", "theta": 0.25,
                                         "rope_q": [0.5, -1], "panel": "rope"})
    text = query_string(SPEC, state)
    assert text == "mask=bidirectional&theta=0.25&rope_q=0.5;-1&panel=rope"
    params = dict(pair.split("=") for pair in text.split("&"))
    assert state_from_params(SPEC, params) == (state, [])


def test_a_teachers_view_is_a_yes_no_key_in_both_labs():
    from lab_core import block_lab
    for spec in (SPEC, block_lab.SPEC):
        assert spec.default_state()["respuestas"] is False
        state = update_state(spec, spec.default_state(), {"respuestas": True})
        assert query_string(spec, state) == "respuestas=1"
        for given, read in (("1", True), ("0", False), ("true", True), (False, False), (1, True)):
            assert state_from_params(spec, {"respuestas": given})[0]["respuestas"] is read
        for bad in ("sí", 2, None, [1]):
            with pytest.raises(ValueError, match="Respuestas a la vista: «.*» debe ser 1 \\(sí\\) o 0 \\(no\\)"):
                update_state(spec, spec.default_state(), {"respuestas": bad})
        state, notices = state_from_params(spec, {"respuestas": "quizá"})
        assert state["respuestas"] is False and len(notices) == 1


@pytest.mark.parametrize("value, text", [
    (2 ** 0.5, "1,41"), (-0.5, "−0,50"), (-0.001, "0,00"), (0, "0,00"),
    (1048576.0, "1.048.576,00"), (3150336, "3.150.336,00"),
])
def test_spanish_number_format(value, text):
    assert fmt(value) == text



def test_round_off_never_decides_a_tie():
    # One score computed two ways (RoPE at two query positions): the last
    # bits differ, and the tie at 85,305 must read the same both times.
    a, b = 85.30499999999999, 85.30500000000001
    assert a != b and fmt(a) == fmt(b) == "85,31"
    assert fmt(-17.534999999999997) == fmt(-17.535000000000004) == "−17,54"
    # A real difference in the 12th digit still decides.
    assert fmt(0.12499999999) == "0,12" and fmt(0.125) == "0,13"
    assert fmt(3150336, 0) == "3.150.336" and fmt(1e-300, 3) == "0,000"

def test_short_and_scientific_formats():
    assert [fmt_short(x) for x in (1, 0.5, -2, -0.001, 2.0)] == ["1", "0,5", "−2", "0", "2"]
    assert fmt_sci(0) == "0" and fmt_sci(2.2e-16) == "2,2·10⁻¹⁶"
    with pytest.raises(ValueError):
        fmt(float("inf"))
    with pytest.raises(ValueError):
        fmt_sci(float("nan"))


@pytest.mark.parametrize("partial, message", [
    ({"sentence": "perro"}, "^Frase: «perro» no es una de las opciones .*Se mantiene: «El banco del parque»$"),
    ({"query": 4}, "fuera del rango"),
    ({"query": -1}, "fuera del rango"),
    ({"query": "uno"}, "no es un número entero"),
    ({"query": True}, "no es un número entero"),
    ({"query": 1.5}, "no es un número entero"),
    ({"mask": "futuro"}, "^Máscara: «futuro» no es una de las opciones"),
    # The values a link writes, each with the label shown when they differ.
    ({"mask": "bidireccional"}, r"opciones \(causal, bidirectional = bidireccional\)"),
    ({"head": "<img src=x onerror=alert(1)>"}, "no es una de las opciones"),
    ({"color": "rojo"}, "lab.set no conoce «color»"),
    ({"theta": "mucho"}, "«mucho» no es un número. "),
    ({"theta": 4}, "fuera del rango"),
    ({"theta": "nan"}, "«nan» no es un número. "),
    ({"theta": "1e999"}, "«1e999» es demasiado grande. "),
    ({"rope_m": 99}, "fuera del rango"),
    ({"rope_n": "x"}, "no es un número entero"),
    ({"rope_q": [1]}, "2 coordenadas"),
    ({"rope_k": [1, "inf"]}, "«inf» no es un número. "),
    ({"step": 5}, "fuera del rango"),
    ({"step": 0}, "fuera del rango"),
    ({"panel": "cocina"}, "^Panel: «cocina» no es una de las opciones"),
    ({"rope_n": 99}, "^Posición n de la clave: 99 está fuera del rango 0 a 32. Se mantiene: 3$"),
    ({"query": True}, "«true» no es"),
    ({"query": None}, "^Consulta: falta el número"),
    ({"theta": " "}, "^Frecuencia θ: falta el número"),
    ({"key": 7}, "fuera del rango"),
])
def test_set_rejects_bad_values_with_a_message(partial, message):
    reply = set_state(partial)
    assert reply["ok"] is False and "view" not in reply
    assert re.search(message, reply["error"]), reply["error"]


def test_set_accepts_text_from_controls():
    state = update_state(SPEC, DEFAULT, {"query": "3", "theta": "0,75", "rope_k": ["1", "2.5"]})
    assert (state["query"], state["theta"], state["rope_k"]) == (3, 0.75, [1.0, 2.5])


def test_set_needs_an_object_and_a_known_lab():
    reply = set_state([1, 2])
    assert not reply["ok"] and "objeto" in reply["error"]
    assert not json.loads(handle("[]"))["ok"]
    assert not json.loads(handle("{no json"))["ok"]
    assert "laboratorio" in ask(**{"lab": "cocina", "from": "url", "state": {}})["error"]


def test_url_falls_back_per_key_with_notices():
    state, notices = state_from_params(SPEC, {
        "sentence": "credito", "query": "9", "mask": "bidirectional",
        "head": "<script>alert(1)</script>", "zoom": "2", "theta": "abc",
        "step": "7", "panel": "rope",
    })
    assert state == dict(DEFAULT, sentence="credito", mask="bidirectional", panel="rope")
    assert len(notices) == 5
    assert any("zoom" in n for n in notices)
    assert any("Consulta: 9 está fuera del rango 0 a 3" in n for n in notices)
    assert any("<script>" in n for n in notices)  # shown as text by the page
    assert any("Paso: 7 está fuera del rango 1 a 4" in n for n in notices)


def test_url_with_nothing_gives_the_default_and_no_notice():
    assert state_from_params(SPEC, {}) == (DEFAULT, [])


def test_long_values_are_shortened_in_messages():
    _, notices = state_from_params(SPEC, {"head": "x" * 5000})
    assert len(notices[0]) < 260 and "x" * 39 + "…" in notices[0]


@pytest.mark.parametrize("lab_name", ["attention", "block"])
def test_every_view_key_is_documented_in_the_contract(lab_name):
    import lab_core.views as views_module

    doc = views_module.__doc__
    view = ask(**{"lab": lab_name, "from": "url", "state": {}})["view"]
    for key in view:
        assert re.search(r"^%s\b" % re.escape(key), doc, re.M), key


def _merged(conversation, request, held):
    """What the page does with a Conversation's reply: merge a change into
    the view it holds. -> (reply as sent, view after merging)."""
    sent, whole = conversation.reply(json.dumps(request))
    sent = strict_load(to_json(sent))
    view = dict(held, **sent["view"]) if "base" in sent else sent["view"]
    assert view == strict_load(to_json(whole))["view"]
    return sent, view


def test_a_conversation_sends_only_the_parts_a_change_touched():
    talk = Conversation()
    first, view = _merged(talk, {"lab": "attention", "from": "url", "state": {}}, {})
    assert "base" not in first and first["view_id"] == 1
    request = {"lab": "attention", "from": "set", "current": view["state"], "base": 1,
               "partials": [{"key": 0}]}
    change, view = _merged(talk, request, view)
    assert change["base"] == 1 and change["view_id"] == 2
    # A new key redraws the cell's arithmetic and its focus in the tables, not the figures.
    assert "arithmetic" in change["view"] and "state" in change["view"]
    assert not {"headview", "scaling", "rope", "learning", "controls"} & set(change["view"])
    assert view == ask(**{"from": "set", "current": DEFAULT, "state": {"key": 0}})["view"]
    # Every part a change of head touches travels, and the merge is the whole view.
    request.update(base=2, current=view["state"], partials=[{"head": "all"}])
    change, view = _merged(talk, request, view)
    assert {"tables", "arithmetic", "headview", "mixture"} <= set(change["view"])


def test_a_conversation_sends_a_whole_view_unless_the_base_is_the_last_one():
    talk = Conversation()
    _, view = _merged(talk, {"lab": "attention", "from": "url", "state": {}}, {})
    _merged(talk, {"lab": "attention", "from": "set", "current": DEFAULT,
                   "partials": [{"mask": "bidirectional"}], "base": 1}, view)
    for base in (1, 7, None, True, "2"):  # stale, unknown, absent, not a number
        sent, view = _merged(talk, {"lab": "attention", "from": "set", "current": DEFAULT,
                                    "partials": [{"key": 1}], "base": base}, {})
        assert "base" not in sent and view == set_state({"key": 1})["view"]
    # A rejected change, an export and a malformed request carry no view: no number.
    for request in ({"lab": "attention", "from": "set", "current": DEFAULT,
                     "state": {"mask": "nada"}, "base": 4},
                    {"lab": "attention", "from": "export", "state": DEFAULT, "table": "scores"}):
        sent, _ = talk.reply(json.dumps(request))
        assert "view_id" not in sent
    assert talk.reply("{no json")[0]["ok"] is False
    # A view of the other lab is never a change of this one.
    sent, _ = talk.reply(json.dumps({"lab": "block", "from": "url", "state": {}, "base": 4}))
    assert "base" not in sent and sent["view"]["lab"] == "block"


def _counting(monkeypatch, lab):
    """Wrap a lab's builders: -> {view key: calls}, each call counted."""
    calls = {}

    def counted(key, build):
        def run(state):
            calls[key] = calls.get(key, 0) + 1
            return build(state)
        run.keys = build.keys
        return run

    monkeypatch.setattr(lab, "parts", tuple((key, counted(key, build)) for key, build in lab.parts))
    return calls


def _prepared(lab_name, partial):
    """A prepared view as the page holds it: built whole, gone through JSON."""
    return strict_load(handle(json.dumps({"lab": lab_name, "from": "url", "state": partial})))["view"]


def test_a_conversation_adopts_the_prepared_view_of_its_url_and_builds_nothing(monkeypatch):
    url = {"mask": "bidirectional", "query": "2", "nada": "1"}  # an unknown key: a notice
    prepared = _prepared("attention", url)
    prepared["notices"] = []  # a prepared view carries none; Python adds the URL's
    calls = _counting(monkeypatch, attention_lab.LAB)
    talk = Conversation()
    sent, whole = talk.reply(json.dumps({"lab": "attention", "from": "url", "state": url,
                                         "prepared": prepared}))
    assert calls == {}
    assert sent["adopted"] is True and sent["view_id"] == 1
    assert sent["view"] == {"notices": [
        "Se ignoró el parámetro desconocido «nada» de la dirección."]}
    view = dict(prepared, **sent["view"])
    # A change builds only the parts that read a key it changed, and the
    # merged view is the one a fresh answer gives.
    trained = 0
    for partial in ({"key": 0}, {"theta": 0.75}, {"train_lr": 0.3}, {"sentence": "credito"},
                    {"head": "all", "query": 0}):
        calls.clear()
        request = {"lab": "attention", "from": "set", "current": view["state"],
                   "base": sent["view_id"], "partials": [partial]}
        sent, view = _merged(talk, request, view)
        assert "adopted" not in sent
        built = {key for key, build in attention_lab.LAB.parts if set(partial) & set(build.keys)}
        assert set(calls) == built and built
        trained += calls.get("learning", 0)
        fresh = strict_load(handle(json.dumps(dict(request, base=None))))["view"]
        assert view == fresh
    assert trained == 1  # for the new rate only: the default run was adopted, never built


@pytest.mark.parametrize("lab_name", ["attention", "block", "model"])
def test_an_adopted_view_exports_and_publishes_as_a_built_one(lab_name):
    # Its parts went through JSON (lists, not tuples); an export reads them.
    prepared = _prepared(lab_name, {})
    talk = Conversation()
    sent, whole = talk.reply(json.dumps({"lab": lab_name, "from": "url", "state": {},
                                         "prepared": prepared}))
    assert sent["adopted"] is True and sent["view"] == {}
    ids = [table["id"] for table in tables_of(prepared)]
    assert ids
    for table in ids:
        request = {"lab": lab_name, "from": "export", "state": whole["view"]["state"],
                   "table": table}
        exported, _ = talk.reply(json.dumps(request))
        assert strict_load(to_json(exported)) == ask(**request)


def test_a_prepared_view_of_another_state_or_malformed_is_not_adopted():
    url = {"mask": "bidirectional"}
    good = _prepared("attention", url)
    others = [_prepared("attention", {"mask": "causal"}), dict(good, contract=1),
              {k: v for k, v in good.items() if k != "learning"}, dict(good, lab="block"),
              "vista", None]
    for prepared in others:
        sent, _ = Conversation().reply(json.dumps({"lab": "attention", "from": "url",
                                                   "state": url, "prepared": prepared}))
        assert "adopted" not in sent and sent["view"] == good
    # A request no lab can answer still gets its message, never an exception.
    for request in ({"lab": "nada", "from": "url", "state": {}, "prepared": {"lab": "nada"}},
                    {"lab": "attention", "from": "url", "state": [], "prepared": good},
                    {"lab": "attention", "from": "url", "state": {"head": []}, "prepared": good}):
        sent, _ = Conversation().reply(json.dumps(request))
        assert "adopted" not in sent
    # Only a URL request adopts: a change carrying a view is answered as a change.
    sent, _ = Conversation().reply(json.dumps({"lab": "attention", "from": "set",
                                               "current": DEFAULT, "state": url,
                                               "prepared": good}))
    assert "adopted" not in sent and sent["view"] == good


def test_with_every_head_a_change_is_announced_for_every_head():
    view = set_state({"head": "all", "mask": "bidirectional"})["view"]
    said = view["announce"]["key"]
    blocks = view["arithmetic"]["blocks"]
    assert len(blocks) == len(HEADS)
    for block in blocks:  # each head's own weight and score, as its block shows them
        assert "%s, %s (puntuación %s)" % (block["head"], block["weight"], block["score"]) in said
