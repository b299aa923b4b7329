"""Every sentence the page writes follows from the numbers it shows.

These tests sweep the whole discrete state space of the attention lab (every
sentence, query, key, mask, head and step) and grids of the block lab's
sizes, orders and depths, and check each conclusion against the numbers in
the same view: ties read as ties, «iguales» only for equal outputs, «el
prefijo es el mismo» only for equal token prefixes, a rounding note exactly
where rounded parts do not add up, no «finitos» without a run, a real minus
sign everywhere, no state key names and no «1 capas». tests/unit/test_claims.py
checks the same claims against a computation of its own.
"""
import functools
import itertools
import json
import math
import re
import sys
from decimal import ROUND_HALF_UP, Context, Decimal
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab_core import attention_lab, block_lab, scaling
from lab_core.attention_lab.rope import _angle_text as rope_angle_text
from lab_core.attention import softmax
from lab_core.didactic import HEADS, SENTENCES
from lab_core.block import block_parameter_counts
from lab_core.display import decimals, fmt, fmt_row, fmt_shares, signed_terms, sum_gap
from lab_core.views import answer

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from pages import assemble  # noqa: E402
ATTENTION = attention_lab.SPEC.default_state()
BLOCK = block_lab.SPEC.default_state()
# Dict keys whose strings are data, not prose: ids, option values, state.
NOT_PROSE = {"id", "value", "answers", "state", "query_string", "lab", "panel", "role",
             "name", "contract", "shown"}
# State keys a reader must never see in a sentence (d_model and d_ff are the
# article's own notation and the visible labels of their controls).
HIDDEN_KEYS = [k for k in list(attention_lab.SPEC.parsers) + list(block_lab.SPEC.parsers)
               if k not in ("d_model", "d_ff", "panel", "tokens")]  # Spanish words too


def view_of(lab, partial):
    reply = answer(json.dumps({"lab": lab, "from": "set", "current": None, "state": partial}))
    assert reply["ok"], reply
    return reply["view"]


def prose(node, key=None):
    """Every user-facing string in a view."""
    if key in NOT_PROSE:
        return
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from prose(v, k)
    elif isinstance(node, list):
        for item in node:
            yield from prose(item, key)


def number(text):
    """'0,05' -> Decimal('0.05'); '−0,5' -> Decimal('-0.5'); '< 0,1 %' -> 0."""
    text = text.replace("%", "").strip()
    if text.startswith("<"):
        return Decimal(0)
    return Decimal(text.replace("−", "-").replace(".", "").replace(",", "."))


ASCII_MINUS = re.compile(r"(?<![\w.])-\d|\s-\s")
STATE_KEY = re.compile(r"(?<![\w.])(%s)(?![\w])" % "|".join(map(re.escape, HIDDEN_KEYS)))
ONE_PLURAL = re.compile(r"(?<![\d.,])1 (capas|filas|posiciones|pasos|cabezas|palabras)\b")


@functools.lru_cache(maxsize=None)
def check_text(text):
    """One sentence's checks. Views repeat most of their sentences, so each
    distinct one is checked once (a failure raises, and is never cached)."""
    assert not ASCII_MINUS.search(text), "ASCII minus in %r" % text
    found = STATE_KEY.search(text)
    assert not found, "state key %s in %r" % (found and found.group(1), text)
    assert not ONE_PLURAL.search(text), text


def check_prose(view):
    for text in prose(view):
        check_text(text)


def rounded_row(values, texts):
    """Each text is its value's own rounding at two decimals (nothing nudged)."""
    assert texts == [fmt(v, 2) for v in values], (values, texts)
    return sum(number(t) for t in texts) == Decimal("1.00")


ATTENTION_STATES = [
    dict(sentence=s, query=q, key=k, mask=m, head=h, step=t)
    for s, q, k, m, h, t in itertools.product(
        SENTENCES, range(4), range(4), ("causal", "bidirectional"),
        list(HEADS) + ["all"], range(1, 5))
]


@pytest.fixture(scope="module")
def attention_views():
    return [(state, view_of("attention", state)) for state in ATTENTION_STATES]


def test_the_sweep_covers_the_whole_discrete_space(attention_views):
    assert len(attention_views) == 2 * 4 * 4 * 2 * 4 * 4


def test_prose_has_real_minus_signs_and_no_state_keys(attention_views):
    for _, view in attention_views:
        check_prose(view)


def test_the_vocabulary_winner_is_a_tie_when_the_numbers_tie(attention_views):
    for state, view in attention_views:
        rows = view["mixture"]["vocab"]["table"]["rows"][:-1]
        values = [r["cells"][1]["value"] for r in rows]
        top = max(values)
        tied = [r["label"] for r, v in zip(rows, values) if top - v <= 1e-9]
        texts = [r["cells"][1]["text"] for r in rows]
        shown_top = max(number(t) for t in texts)
        tied = [r["label"] for r, t in zip(rows, texts) if number(t) == shown_top]  # a tie as read
        best = view["mixture"]["vocab"]["best"]
        if len(tied) > 1:
            assert best.startswith("empate entre"), (state, best)
            for word in tied:
                assert word in best
        else:
            assert not best.startswith("empate") and best.startswith(tied[0] + " ("), best
        assert [r["label"] for r in rows if r["selected"]] == tied
        adds = rounded_row(values, texts)
        note = view["mixture"]["vocab"]["table"]["note"]
        assert (note is None) == adds, (state, texts, note)


def test_the_default_page_shows_the_del_de_tie():
    view = view_of("attention", {})
    assert view["mixture"]["vocab"]["best"] == "empate entre del y de (0,41 cada una)"
    credito = view_of("attention", {"sentence": "credito"})
    assert credito["mixture"]["vocab"]["best"].startswith("empate entre")


def test_the_weight_prediction_follows_the_weights(attention_views):
    # Panel 1 asks for the chosen key's weight in three bands, and names the
    # row's heaviest keys in its explanation; both from the table as read.
    for state, view in attention_views:
        head = "lugar" if state["head"] == "all" else state["head"]
        weights = view["tables"][0]["weights"]["rows"][state["query"]]["cells"]
        shown = [number(c["text"]) for c in weights]
        cell = weights[state["key"]]["text"]
        predict = view["arithmetic"]["predict"]
        # Exactly one half (two equal scores; the cell's unrounded value) is
        # «la mitad o más»; a weight that only reads 0,50 is right both ways.
        value = weights[state["key"]]["value"]
        exact_half = value is not None and abs(value - 0.5) < 1e-12
        band = (["cero"] if cell == "0" else ["mitad"] if exact_half
                else ["menos", "mitad"] if cell == "0,50"
                else ["mitad"] if number(cell) > Decimal("0.5") else ["menos"])
        assert sorted(predict["answers"]) == band, (state, head, cell)
        top = max(shown)
        words = SENTENCES[state["sentence"]]["tokens"]
        expected = sorted({w for w, v in zip(words, shown) if v == top})  # a tie as read
        assert ("Más peso en la fila: empate" in predict["explanation"]) == (len(expected) > 1)


def test_a_derivation_says_equals_only_when_its_result_is_exact(attention_views):
    # «(1·2 + 0·0) / √2 ≈ 1,41» (2/√2 = 1,41421…), «(1·0 + 0·1) / √2 = 0,00».
    signs = set()
    for state, view in attention_views:
        for block in view["arithmetic"]["blocks"]:
            terms, sign, result = re.fullmatch(r"\((.*)\) / √2 ([=≈]) (\S+)",
                                               block["expression"]).groups()
            value = sum(float(number(a)) * float(number(b.strip("()"))) for a, b in
                        (term.split("·") for term in terms.split(" + "))) / math.sqrt(2)
            assert "·−" not in terms  # a negative factor is bracketed
            assert (sign == "=") == (abs(value - float(number(result))) < 1e-12), (state, block["expression"])
            signs.add(sign)
    assert signs == {"=", "≈"}


SUM = re.compile(r"la columna «(\w+)» es ([\w· +]+): ([^;]*\d)")


def terms(text):
    """'0,10 − 0,68' (spaces or no-break spaces) -> [Decimal('0.10'), Decimal('-0.68')]."""
    tokens = text.replace("\u00a0", " ").split(" ")
    values = [number(tokens[0])]
    for sign, token in zip(tokens[1::2], tokens[2::2]):
        assert sign in "+−" and not token.startswith("−"), text  # never «+ −»
        values.append(number(token) * (-1 if sign == "−" else 1))
    return values


def check_combine_sums(state, combine):
    """The query row's output worked out from the concatenation, with the
    numbers exactly as the tables show them: «=» when they add up as read,
    «≈» (and the sentence's reason) when they do not."""
    concat, output = combine["concat"], combine["output"]
    row = state.get("query", 0)
    word = output["rows"][row]["label"]
    sentence = combine["sums"]
    assert sentence.startswith("En la fila de «%s», " % word), sentence
    found = SUM.findall(sentence)
    assert [f[0] for f in found] == ["parque", "crédito"], sentence
    off = False
    for column, names, worked in found:
        parts_text, sign, total = worked.replace("\u00a0", " ").rsplit(" ", 2)
        names = names.split(" + ")
        cells = [concat["rows"][row]["cells"][concat["columns"].index(n)] for n in names]
        out = output["rows"][row]["cells"][output["columns"].index(column)]
        assert signed_terms([c["text"] for c in cells]) == parts_text, sentence
        assert total == out["text"], sentence
        adds = sum(terms(parts_text)) == number(total)
        assert sign == ("=" if adds else "≈"), sentence
        off = off or not adds
    assert ("Donde pone «≈», cada número está redondeado por separado" in sentence) == off
    return off


def test_the_output_of_all_heads_is_worked_out_as_the_tables_read(attention_views):
    # «En la fila de «parque», la columna «parque» es lug·1 + fin·1: 0,65 +
    # 0,38 ≈ 1,02 …»: the tables' own numbers, and why they do not add up.
    notes = 0
    for state, view in attention_views:
        combine = view["heads"]["combine"]
        assert (combine is None) == (state["head"] != "all")
        if combine:
            notes += check_combine_sums(state, combine)
    assert notes > 0
    sums = view_of("attention", {"head": "all", "query": 3})["heads"]["combine"]["sums"]
    assert "la columna «parque» es lug·1 + fin·1: 0,65\u00a0+\u00a00,38\u00a0≈\u00a01,02" in sums


@pytest.mark.parametrize("partial", [
    {"vec": {"lugar.parque.v": [-3.5, 2.25], "finanzas.banco.v": [0.125, -0.375]}},
    {"tokens": ["El", "banco", "del", "parque", "de", "crédito", "El", "banco"], "query": 7},
    {"vec": {"lugar.parque.v": [0.1, 0.1], "finanzas.parque.v": [0.1, 0.1]}, "mask": "causal", "query": 3},
])
def test_the_worked_out_output_holds_for_the_readers_own_input(partial):
    view = view_of("attention", dict(partial, head="all"))
    check_combine_sums(view["state"], view["heads"]["combine"])


def test_a_sum_subtracts_a_negative_term():
    assert signed_terms(["0,10", "−0,68"]) == "0,10 − 0,68"
    assert signed_terms(["−0,10", "0,68", "−1,5"]) == "−0,10 + 0,68 − 1,5"


def test_weights_are_rounded_one_by_one_and_a_note_says_when_rows_do_not_add_up(attention_views):
    notes = 0
    # The article's sentences, and typed ones (12 words: rows whose rounded
    # weights miss 1,00 by up to 0,04).
    typed = [dict(tokens=text, head=head, mask=mask) for text in (
        "Fui al banco junto al río con mi amigo y su perro", "El banco del parque junto al río")
        for head in ("lugar", "finanzas", "anterior") for mask in ("causal", "bidirectional")]
    for state, view in attention_views + [(state, view_of("attention", state)) for state in typed]:
        for pair in view["tables"]:
            table = pair["weights"]
            off = []
            for row in table["rows"]:
                cells = [c for c in row["cells"] if not c["masked"]]
                if not rounded_row([c["value"] for c in cells], [c["text"] for c in cells]):
                    off.append(row["label"])
            assert (table["note"] is None) == (not off), (state, table["note"])
            for label in off:  # «al», or «al» (posición 4) when the sentence has it twice
                assert "la fila de «%s»" % label in table["note"]
            notes += bool(off)
        for block in view["arithmetic"]["blocks"]:
            rows = block["softmax"]["rows"][:-1]
            cells = [r["cells"][2] for r in rows if not r["cells"][2]["masked"]]
            adds = rounded_row([c["value"] for c in cells], [c["text"] for c in cells])
            note = block["softmax"]["note"] or ""
            assert ("los pesos mostrados suman" in note) == (not adds), (state, note)
        for block in view["mixture"]["blocks"]:
            rows = block["table"]["rows"][:-1]
            cells = [r["cells"][0] for r in rows if not r["cells"][0]["masked"]]
            adds = rounded_row([c["value"] for c in cells], [c["text"] for c in cells])
            note = block["table"]["note"] or ""
            assert ("los pesos suman" in note) == (not adds), (state, note)
    assert notes > 0  # the rule is exercised


def test_equal_weights_always_read_equal(attention_views):
    for _, view in attention_views:
        for pair in view["tables"]:
            for row in pair["weights"]["rows"]:
                cells = [c for c in row["cells"] if not c["masked"]]
                for a, b in itertools.combinations(cells, 2):
                    if abs(a["value"] - b["value"]) <= 1e-9:
                        assert a["text"] == b["text"], row


def test_the_prefix_verdict_follows_tokens_and_outputs(attention_views):
    for state, view in attention_views:
        prefix = view["cache"]["prefix"]
        step = state["step"]
        here = SENTENCES[state["sentence"]]["tokens"]
        other = "credito" if state["sentence"] == "parque" else "parque"
        there = SENTENCES[other]["tokens"]
        assert prefix["query"] == here[step - 1] and prefix["other_query"] == there[step - 1]
        assert prefix["other"] == SENTENCES[other]["label"]
        same_prefix = here[:step] == there[:step]
        said_same = "mismos tokens" in prefix["verdict"] or "mismo token" in prefix["verdict"]
        assert said_same == same_prefix, (state, prefix)
        assert prefix["verdict"].startswith("iguales") == (prefix["mine"] == prefix["theirs"])
        assert prefix["same"] == (prefix["mine"] == prefix["theirs"])
        if not same_prefix:
            assert "difieren" in prefix["verdict"]


def test_the_article_cases_of_the_prefix():
    step3 = view_of("attention", {"step": 3})["cache"]["prefix"]
    assert step3["verdict"].startswith("iguales, aunque los prefijos difieren (del/de)")
    assert "mismos vectores" in step3["verdict"]
    assert (step3["query"], step3["other_query"]) == ("del", "de")
    step4 = view_of("attention", {"head": "anterior", "step": 4})["cache"]["prefix"]
    assert "difieren" in step4["verdict"] and "mismos tokens" not in step4["verdict"]
    banco = view_of("attention", {"step": 2})["cache"]["prefix"]
    assert "mismos tokens" in banco["verdict"]


def test_the_mask_prediction_follows_the_rows(attention_views):
    for state, view in attention_views:
        head = "lugar" if state["head"] == "all" else state["head"]
        other = "credito" if state["sentence"] == "parque" else "parque"
        twin = view_of("attention", dict(state, sentence=other, head=head))
        mine = view_of("attention", dict(state, head=head))
        a = [c["value"] for c in mine["tables"][0]["weights"]["rows"][state["query"]]["cells"]]
        b = [c["value"] for c in twin["tables"][0]["weights"]["rows"][state["query"]]["cells"]]
        changes = not np.allclose(a, b, rtol=0, atol=1e-9)
        predict = view["mask"]["predict"]
        assert predict["answers"] == (["si"] if changes else ["no"]), state
        assert predict["explanation"].startswith("Cambia" if changes else "Es idéntica")


def test_training_words_follow_the_sentence():
    for sentence_id, sentence in SENTENCES.items():
        view = view_of("attention", {"sentence": sentence_id})["training"]
        tokens = sentence["tokens"]
        for a, b in zip(tokens, tokens[1:]):
            assert "«%s» con «%s»" % (a, b) in view["pairs"] or \
                "«%s» se compara con «%s»" % (a, b) in view["pairs"]
        mean = view["table"]["rows"][-1]["cells"]
        causal, leak = number(mean[2]["text"]), number(mean[3]["text"])
        assert ("(más baja" in view["summary"]) == (leak < causal)
        assert ("(más alta" in view["summary"]) == (leak > causal)
        # Positions that go against the mean are counted beside it, from
        # the table's own cells.
        rows = [r["cells"] for r in view["table"]["rows"][:-1] if r["cells"][2]["text"] != "—"]
        up = sum(number(c[3]["text"]) > number(c[2]["text"]) for c in rows)
        down = sum(number(c[3]["text"]) < number(c[2]["text"]) for c in rows)
        against = up if leak < causal else down if leak > causal else 0
        if against:
            verb = "empeora" if leak < causal else "mejora"
            said = ("las %d posiciones %sn" % (len(rows), verb) if against == len(rows) else
                    "%d de %d posiciones %s%s" % (against, len(rows), verb,
                                                     "" if against == 1 else "n"))
            assert ", aunque %s)" % said in view["summary"], view["summary"]
        else:
            assert "aunque" not in view["summary"], view["summary"]


def test_the_training_summary_counts_the_positions_against_the_mean():
    # The article's sentence: the mean falls with the bidirectional mask,
    # yet two of its three positions rise (hand-derived from the table:
    # El → banco 0,222 → 0,336, del → parque 0,279 → 0,336).
    view = view_of("attention", {})["training"]
    assert view["summary"].startswith(
        "Pérdida media: causal 0,463; bidireccional 0,335 (más baja, aunque 2 de 3 "
        "posiciones empeoran).")


def test_rope_offsets_are_signed_with_a_real_minus():
    view = view_of("attention", {"rope_m": 3, "rope_n": 1, "rope_q": [1, 1]})["rope"]
    assert view["offset"] == "−2"
    labels = [r["label"] for r in view["table"]["rows"]]
    assert "n − m = −2" in labels and "n − m = +2" in labels
    assert "el desplazamiento tiene signo" in view["sign"]
    assert "2,76" in view_of("attention", {"rope_m": 1, "rope_n": 3, "rope_q": [1, 1]})[
        "rope"]["sign"] and "−0,60" in view["sign"]
    for row in view["table"]["rows"]:
        assert len({c["text"] for c in row["cells"]}) == 1, row  # same offset, same score


def test_rope_table_cells_hold_only_numbers():
    view = view_of("attention", {})["rope"]
    for row in view["table"]["rows"]:
        for cell in row["cells"]:
            assert re.fullmatch(r"−?\d+,\d\d", cell["text"]), cell
    assert view["table"]["columns"] == ["m = 3", "m = 6", "m = 10"]


# ----------------------------------------------------------------- block lab

SIZES = [(512, 8, 2048), (512, 8, 512), (768, 12, 3072), (1, 1, 1), (8192, 8, 1),
         (64, 4, 256), (12, 3, 7), (1024, 16, 4096), (2, 2, 8192), (100, 5, 300)]


@pytest.mark.parametrize("d_model, heads, d_ff", SIZES)
def test_block_shares_add_up_and_the_sentence_follows_the_sizes(d_model, heads, d_ff):
    view = view_of("block", {"d_model": d_model, "heads": heads, "d_ff": d_ff})
    check_prose(view)
    block = view["block"]
    rows = block["params"]["rows"]
    counts = [int(r[1].replace(".", "")) for r in rows[:3]]
    total = sum(counts)
    for count, row in zip(counts, rows[:3]):
        honest = fmt(100 * count / total, 1)
        assert row[2] == ("< 0,1 %" if count and honest == "0,0" else honest + " %"), rows
    assert rows[3][2] == "100,0 %"
    readable = [number(r[2]) for r in rows[:3] if not r[2].startswith("<")]
    adds = sum(readable) == Decimal("100.0") and len(readable) == 3
    assert (block["params"]["note"] is None) == adds, (rows, block["params"]["note"])
    share = counts[1] / sum(counts)
    sentence = block["share_sentence"]
    assert rows[1][2] in sentence or "menos del" in sentence
    assert ("dos tercios" in sentence.split(" y la atención")[0]) == (abs(share - 2 / 3) <= 0.02)
    ratio = d_ff / d_model
    if d_ff == d_model:
        assert sentence.startswith("Con d_ff = d_model,")
    elif ratio >= 0.001:
        text = fmt(ratio, 3).rstrip("0").rstrip(",")
        exact = float(number(text)) == ratio  # «=» only for an exact ratio
        assert "d_ff %s %s·d_model" % ("=" if exact else "≈", text) in sentence
    assert ("finitos" in block["check"]) == block["real"]


@pytest.mark.parametrize("d_model, heads, d_ff", SIZES + [(2, 2, 8), (64, 4, 256), (1000, 8, 1024),
                                                   (16, 16, 1), (512, 8, 100), (2, 2, 2)])
def test_the_share_sentence_says_where_the_share_goes_as_the_block_grows(d_model, heads, d_ff):
    view = view_of("block", {"d_model": d_model, "heads": heads, "d_ff": d_ff})
    sentence = view["block"]["share_sentence"]
    ffn_here = view["block"]["params"]["rows"][1][2]
    ratio = d_ff / d_model
    if ratio < 0.001:
        assert sentence.endswith("se acerca a uno que solo depende de esa proporción.")
        return
    said = re.search(r"tiende al (\S+) %", sentence).group(1)
    big = block_parameter_counts(d_model * 2 ** 20, d_ff * 2 ** 20)
    assert abs(number(said) - Decimal(100 * big["ffn"] / big["total"])) <= Decimal(10) ** -decimals(said) / 2
    counts = block_parameter_counts(d_model, d_ff)
    # Above, at or below the limit f/(2d + f), exactly, in integers.
    here = counts["ffn"] * (2 * d_model + d_ff)
    limit = d_ff * counts["total"]
    if here == limit:
        assert d_ff == d_model and "exactamente un tercio, y aquí ya lo tiene" in sentence
        return
    below = here < limit
    assert below == (d_ff > d_model)
    side = "debajo" if below else "encima"
    if said + " %" != ffn_here:
        assert "Aquí queda por %s, en %s." % (side, ffn_here) in sentence
    else:
        # Equal at one decimal: the first digits that tell them apart, each
        # checked against Decimal here.
        assert "Aquí queda justo por %s: con un decimal los dos se leen %s, y con " % (
            side, ffn_here) in sentence
        found = re.search(r"y con (\w+) decimales, (\S+) % frente a (\S+) %\.", sentence)
        digits = ["dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"].index(
            found.group(1)) + 2
        share_text, limit_text = found.group(2), found.group(3)
        exact_share = Decimal(100 * counts["ffn"]) / Decimal(counts["total"])
        exact_limit = Decimal(100 * d_ff) / Decimal(2 * d_model + d_ff)
        step = Decimal(10) ** -digits
        assert decimals(share_text) == decimals(limit_text) == digits
        assert abs(number(share_text) - exact_share) <= step / 2
        assert abs(number(limit_text) - exact_limit) <= step / 2
        assert share_text != limit_text
        assert (number(share_text) < number(limit_text)) == below
    assert ("con d_ff mayor que d_model baja más de lo que sube" in sentence) == below
    assert ("con d_ff menor que d_model sube más de lo que baja" in sentence) == (not below)


def test_unrun_block_claims_nothing_about_its_values():
    block = view_of("block", {"d_model": 768, "heads": 12, "d_ff": 3072})["block"]
    assert not block["real"] and "finitos" not in block["check"]
    assert "no se han calculado" in block["check"]


@pytest.mark.parametrize("order", list(itertools.permutations(range(5))))
def test_order_verdicts_follow_the_order(order):
    view = view_of("block", {"order": list(order)})["order"]
    identity = list(order) == list(range(5))
    assert view["changed"] == (not identity)
    assert ("no ha cambiado" in view["summary"]) == identity
    assert ("distingue las dos frases" in view["pe"]) == (not identity and view["pe_differs"])
    # The pressed button says which sentence is on screen: the caption's.
    words = ["El", "perro", "mordió", "al", "hombre"]
    caption = " ".join(words[i] for i in order)
    assert view["shown"] == {"El perro mordió al hombre": "original",
                             "El hombre mordió al perro": "swap"}.get(caption, "other")
    assert view["permuted"] == caption
    check_prose({"order": view})


def test_depth_words_agree_with_their_count_and_layers_ignore_later_depth():
    deepest = view_of("block", {"depth": 64})
    growth64 = deepest["layernorm"]["growth"]["rows"]
    gradient64 = deepest["residual"]["table"]["rows"]
    for depth in range(1, 65):
        view = view_of("block", {"depth": depth})
        check_prose(view)
        assert view["residual"]["layers"] == ("1 capa" if depth == 1 else "%d capas" % depth)
        growth = view["layernorm"]["growth"]["rows"]
        assert growth[0]["label"] == "entrada" and len(growth) == depth + 1
        assert [r["cells"] for r in growth] == [r["cells"] for r in growth64[:depth + 1]]
        assert [r["cells"] for r in view["residual"]["table"]["rows"]] == \
            [r["cells"] for r in gradient64[:depth]]


def test_the_quiz_uses_one_notation_for_the_affine_collapse():
    quiz = {q["id"]: q for q in view_of("block", {})["quiz"]}
    sigma = quiz["q-sigma"]
    assert "W2(W1x + b1) + b2" in sigma["question"]
    assert "A = W2·W1 y b = W2·b1 + b2" in sigma["explanation"]


# ---------------------------------------------------------- display rules

@settings(max_examples=400, deadline=None)
@given(st.lists(st.floats(-4, 4), min_size=2, max_size=7), st.integers(0, 3))
def test_a_row_is_rounded_value_by_value_and_its_gap_is_said(scores, ties):
    """Weights rows (a softmax, ties included): every text is its own value's
    rounding, half up, computed a second way in Decimal; equal values read
    equal; sum_gap names the sum as read exactly when it is not 1,00."""
    scores = scores + scores[:ties]
    values = [float(w) for w in softmax(np.array(scores))]
    texts = fmt_row(values)
    assert texts == [_fmt_by_decimal(v, 2) for v in values]
    for i, j in itertools.combinations(range(len(values)), 2):
        if abs(values[i] - values[j]) <= 1e-12:
            assert texts[i] == texts[j]
    shown = sum(Decimal(t.replace(",", ".")) for t in texts)
    gap = sum_gap(texts, "1,00")
    assert (gap is None) == (shown == Decimal("1.00"))
    if gap is not None:
        assert number(gap) == shown


def test_half_up_rounding_and_tiny_shares():
    assert fmt(0.125) == "0,13" and fmt(0.135) == "0,14" and fmt(-0.125) == "−0,13"
    assert fmt_shares([1048576, 2099712, 2048]) == ["33,3 %", "66,7 %", "0,1 %"]
    assert fmt_shares([10 ** 6, 1]) == ["100,0 %", "< 0,1 %"]
    assert fmt_shares([1, 1, 1]) == ["33,3 %"] * 3


def _fmt_by_decimal(x, digits):
    """fmt's rule computed a second way, in Decimal: the 12-digit shortest
    decimal, rounded half up, in Spanish digits."""
    value = Decimal(repr(float("%.12g" % x)))
    rounded = abs(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP,
                                  context=Context(prec=400))
    text = "{:,.{}f}".format(rounded, digits).replace(",", " ").replace(".", ",")
    text = text.replace(" ", ".")
    return ("−" if value < 0 and rounded != 0 else "") + text


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                 st.integers(-10 ** 9, 10 ** 9).map(lambda n: n / 1000),  # ties: 0,125
                 st.integers(-10 ** 7, 10 ** 7).map(float)),
       st.integers(0, 8))
def test_fmt_rounds_as_decimal_arithmetic_does(x, digits):
    assert fmt(x, digits) == _fmt_by_decimal(x, digits)


@pytest.mark.parametrize("x", [0.0, -0.0, 0.125, -0.125, 0.5, 2.5, 999.995, -999.995,
                               85.30499999999999, 5e-324, 1.7976931348623157e308, 1e21])
def test_fmt_agrees_with_decimal_at_the_edges(x):
    for digits in range(9):
        assert fmt(x, digits) == _fmt_by_decimal(x, digits)


def test_static_page_text_uses_real_minus_signs():
    for page in ("index.html", "bloque.html"):
        text = re.sub(r"<[^>]+>", " ", assemble(ROOT / "web" / page))
        assert not re.search(r"(?<![\w.])-\d", text), page


# --------------------------------------------- why the scores are divided by √d_k

def test_dot_products_spread_like_root_dk_and_the_division_undoes_it():
    for width in scaling.WIDTHS:
        raw, scaled = scaling.dot_spread(width)
        # Independent computation: the same draws, one pair at a time.
        q, k = scaling.random_pairs(width, scaling.N_PAIRS)
        dots = [sum(a * b for a, b in zip(qi, ki)) for qi, ki in zip(q, k)]
        mean = sum(dots) / len(dots)
        std = (sum((x - mean) ** 2 for x in dots) / len(dots)) ** 0.5
        assert raw == pytest.approx(std, rel=1e-9)
        assert scaled == pytest.approx(std / width ** 0.5, rel=1e-9)
        # Theory: variance d_k, so the spread is √d_k (within sampling error).
        assert raw == pytest.approx(width ** 0.5, rel=0.08)
        assert scaled == pytest.approx(1.0, rel=0.08)


def test_softmax_saturates_without_the_division():
    tops = [scaling.saturation(w) for w in scaling.WIDTHS]
    raw = [t[0] for t in tops]
    assert raw == sorted(raw) and raw[-1] > 0.9  # one key takes nearly everything
    for top_raw, top_scaled in tops[1:]:
        assert top_scaled < top_raw
    scores, raw_w, scaled_w = scaling.softmax_rows(128)
    row = scores[0]
    expected = [np.exp(s - row.max()) for s in row]
    np.testing.assert_allclose(raw_w[0], np.array(expected) / sum(expected), rtol=1e-12)
    np.testing.assert_allclose(scaled_w[0], softmax(row / np.sqrt(128)), rtol=1e-12)


def test_the_scaling_verdict_quotes_the_table():
    view = view_of("attention", {"dk": 512})["scaling"]
    row = [r for r in view["table"]["rows"] if r["selected"]][0]
    assert row["label"] == "dₖ = 512"
    raw, root, scaled = (c["text"] for c in row["cells"][:3])
    assert "la desviación típica de q·k es %s (√512 ≈ %s)" % (raw, root) in view["verdict"]
    assert "dividida entre √dₖ, %s" % scaled in view["verdict"]
    # The mean top weights in the table's own format (not as a percentage),
    # and the even share against 1/N computed here.
    top_raw, top_scaled = (c["text"] for c in row["cells"][3:5])
    assert ("se lleva de media un peso de %s; dividiendo, %s (" % (top_raw, top_scaled)
            in view["verdict"])
    assert "cada clave tendría 1/%d = %s)" % (scaling.N_KEYS, (
        "%.3f" % (1 / scaling.N_KEYS)).replace(".", ",")) in view["verdict"]


def rope_cases():
    """(q, k, θ, m, n): the edge cases, then 300 drawn at random."""
    rng = np.random.RandomState(4)
    cases = [([1, 0], [2, 0], 0.5, 1, 3), ([1, 1], [2, 0], 0.0, 1, 3), ([0, 0], [1, 1], 0.5, 0, 2),
             ([1, 1], [1, 1], 0.7, 0, 4), ([1, 1], [2, 0], np.pi / 2, 0, 2),
             ([0, 0], [0, 0], 0.5, 1, 3), ([2, 1], [0, 0], 0.5, 1, 3),
             # A review's cases: −1,4748 (read −1,475 beside the table's −1,47),
             # and 1,9952 / 2,0048 (1,995 / 2,005 beside 2,00 / 2,00).
             ([1, 0], [2, 0], 1.2, 1, 3), ([1.5, 1], [0, -2], 3.14, 4, 3)]
    cases += [([int(x) for x in rng.randint(-3, 4, 2)], [int(x) for x in rng.randint(-3, 4, 2)],
               round(float(rng.uniform(0, 3.14)), 2), int(rng.randint(0, 9)), int(rng.randint(0, 9)))
              for _ in range(300)]
    return cases


def test_the_rope_sign_sentence_gives_the_true_reason():
    for q, k, theta, m, n in rope_cases():
        view = view_of("attention", {"rope_q": q, "rope_k": k, "theta": theta, "rope_m": m,
                                     "rope_n": n})["rope"]
        sign = view["sign"]
        offset = n - m
        check_prose({"rope": view})
        if theta == 0:
            # Nothing turns: neither the offset nor its sign counts, and the
            # shift question says so too.
            assert sign.startswith("Con θ = 0 nada gira") and "no cuentan ni el desplazamiento" in sign
            assert "solo importa el desplazamiento" not in view["predict"]["explanation"]
            continue
        if offset == 0:
            assert sign.startswith("Con n − m = 0")
            continue
        a = rope_score_for(q, k, theta, offset)
        b = rope_score_for(q, k, theta, -offset)
        differ = abs(a - b) > 1e-9
        assert ("tiene signo" in sign) == differ, (q, k, theta, m, n, sign)
        if not differ:
            cross = q[1] * k[0] - q[0] * k[1]
            if not any(q) or not any(k):
                assert "vector nulo" in sign
                nulls = [name for name, v in (("q", q), ("k", k)) if not any(v)]
                said = "q y k son nulos" if len(nulls) == 2 else "%s es nulo" % nulls[0]
                assert "Aquí %s, y el producto" % said in view["predict"]["explanation"]
                y = [t["value"] for t in view["chart"]["y"]["ticks"]]
                assert (min(y), max(y)) == (-1, 1)
            elif cross == 0:
                assert "paralelos" in sign
            else:
                assert "con este ángulo" in sign and abs(np.sin(offset * theta)) < 1e-6


def test_rope_sentences_quote_the_table_beside_them():
    # Every qₘ · kₙ a sentence gives reads exactly as the table's cell for the
    # same offset (two decimals, the same rounding), with «=» only when exact.
    for q, k, theta, m, n in rope_cases():
        view = view_of("attention", {"rope_q": q, "rope_k": k, "theta": theta, "rope_m": m,
                                     "rope_n": n})["rope"]
        table = {row["label"]: row["cells"][0]["text"] for row in view["table"]["rows"]}
        here = table["n − m = %s" % view["offset"]]
        assert view["score"] == here
        assert view["chart"]["alt"].endswith("vale %s." % here)
        explanation = view["predict"]["explanation"]
        assert explanation.startswith("No cambia: vale %s antes y %s después." % (here, here))
        assert view["plain_score"] == table["n − m = 0"] or theta == 0
        said = re.search(r"qₘ · kₙ (?:= q · k )?([=≈]) (−?[\d.]+,\d\d)", view["sign"])
        assert said and said.group(2) == here, (q, k, theta, m, n, view["sign"])
        exact = rope_score_for(q, k, theta, n - m)
        assert (said.group(1) == "=") == (abs(exact - float(number(here))) < 1e-9)


def test_a_turn_and_a_rest_read_as_less_than_a_turn():
    # 12,56 rad is 1·2π + 6,2768: «+ 6,28» would read as a second whole turn.
    assert view_of("attention", {"theta": 3.14, "rope_m": 4})["rope"]["angle_q"] == (
        "12,56 (1·2π + 6,277)")
    for theta in np.round(np.arange(0.01, 3.15, 0.01), 2):
        for m in range(1, 33):
            angle = m * theta
            if angle < 2 * np.pi:
                continue
            rest = re.fullmatch(r"[\d.,]+ \((\d+)·2π \+ ([\d,]+)\)",
                                rope_angle_text(angle))
            turns, text = int(rest.group(1)), rest.group(2)
            assert turns == int(angle // (2 * np.pi))
            assert 0 < number(text) < number(fmt(2 * np.pi, len(text.split(",")[1]))), (
                theta, m, text)


def rope_score_for(q, k, theta, offset):
    from lab_core.rope import rope_score
    return rope_score(np.array(q, float), np.array(k, float), 0, offset, theta)


def test_position_sentences_follow_the_sizes():
    two = view_of("block", {"pe_d": 2})["position"]
    assert two["waves"].startswith("Con d_model = 2 solo hay una pareja")
    # One pair has no «slowest» yet: the limit is what more pairs would
    # approach. The slowest wave, 2π·10000^((d−2)/d), tends to 2π·10000.
    assert two["limit"] == ("Con más parejas, la más lenta se alargaría hasta acercarse a "
                            "10.000·2π ≈ 62.832.")
    wide = view_of("block", {"pe_d": 128})["position"]
    assert wide["limit"] == "Con d_model grande, la más lenta se acerca a 10.000·2π ≈ 62.832."
    slowest = float(wide["wavelengths"]["rows"][-1]["cells"][1]["text"].replace(".", "")
                    .replace(",", "."))
    assert 0.8 * 62832 < slowest < 62832
    # The fastest and slowest waves are quoted as the table beside them reads.
    for width in (2, 4, 8, 64, 128):
        view = view_of("block", {"pe_d": width})["position"]
        column = [row["cells"][1]["text"] for row in view["wavelengths"]["rows"]]
        assert "cada %s posiciones" % column[0] in view["waves"], width
        assert view["waves"].endswith("cada %s." % column[-1]) or len(column) == 1, width
    still = view_of("block", {"shift_k": 0})["position"]["shift"]
    assert still["verdict"].startswith("Con k = 0 no hay nada que desplazar")
    moved = view_of("block", {"shift_k": 3})["position"]["shift"]
    # The error is printed just before the verdict, which refers to it.
    assert float(moved["sine_only"].replace(",", ".")) > 1e-9
    assert "ningún mapa lineal fijo lo hace exacto" in moved["verdict"]
    assert "mínimos cuadrados" in moved["verdict"]  # what the error printed is the error of
    assert "allí falla en %s" % moved["zero"] in moved["verdict"]


def test_the_expansion_ratio_never_reads_zero():
    assert view_of("block", {"d_ff": 1})["ffn"]["ratio"] == "0,002"
    tiny = view_of("block", {"d_model": 8192, "heads": 8, "d_ff": 1})
    assert tiny["ffn"]["ratio"] == "< 0,001"
    assert "menor que una milésima" in tiny["block"]["share_sentence"]


def test_a_check_between_two_sizes_names_no_single_control():
    reply = answer(json.dumps({"lab": "block", "from": "set", "current": None,
                               "state": {"d_model": 100}}))
    assert reply["key"] == "d_model" and reply["error"].startswith("d_model = 100 no es divisible")


@pytest.mark.parametrize("head", list(HEADS) + ["all"])
def test_a_question_names_the_head_it_asks_about_among_the_tables_shown(head):
    # With «todas» panel 1 shows three heads' tables and asked «En «pista de
    # lugar», …» as if only one were there; panel 4 already said which.
    view = view_of("attention", {"head": head, "mask": "bidirectional"})
    first = HEADS[head if head != "all" else list(HEADS)[0]]["label"]
    named = "«%s»%s" % (first, " (la primera de las tres)" if head == "all" else "")
    assert view["arithmetic"]["predict"]["question"].startswith(
        "En %s, con la máscara bidireccional, ¿qué peso recibirá" % named)
    assert " y la cabeza %s, si pasas" % named in view["mask"]["predict"]["question"]
    # The answer is that head's: the first of the worked-out blocks shown.
    assert view["arithmetic"]["blocks"][0]["head"] == first


@pytest.mark.parametrize("depth", [2, 3, 5, 12, 40, 64])
def test_the_gradient_sentence_says_what_the_stability_table_shows(depth):
    # «post-norm no lo reduce» read against a table going 8,31 → 6,67: the
    # words now follow the table's own values, last layer against one layer.
    view = view_of("block", {"depth": depth})["layernorm"]
    rows = view["stability"]["rows"]
    assert [r["label"] for r in rows] == [str(n) for n in range(1, depth + 1)]
    post = [r["cells"][0]["value"] for r in rows]
    pre = [r["cells"][1]["value"] for r in rows]
    sentence = view["stability_summary"]
    assert sentence.startswith("Con %d capas, el gradiente de los pesos de la última capa al inicio "
                               "vale %s con post-norm y %s con pre-norm; con una sola capa, %s y %s."
                               % (depth, rows[-1]["cells"][0]["text"], rows[-1]["cells"][1]["text"],
                                  rows[0]["cells"][0]["text"], rows[0]["cells"][1]["text"]))
    post_ratio = "%.2f" % (Decimal(repr(post[-1])) / Decimal(repr(post[0])))
    pre_ratio = "%.2f" % (Decimal(repr(pre[-1])) / Decimal(repr(pre[0])))
    if post[-1] >= post[0]:
        said = "post-norm no lo reduce: con %d capas es %s veces el de una;"
    elif min(post) >= 0.5 * post[0]:
        said = "post-norm lo reduce poco: con %d capas es %s veces el de una (y de 1 a"
    else:
        said = "post-norm también lo reduce: con %d capas es %s veces el de una;"
    assert said % (depth, post_ratio.replace(".", ",")) in sentence
    assert ("pre-norm %s: %s veces." % ("lo reduce" if pre[-1] < pre[0] else "no lo reduce",
                                         pre_ratio.replace(".", ","))) in sentence
    if "oscila entre" in sentence:
        low, high = re.search(r"oscila entre (\S+) y (\S+)\)", sentence).groups()
        texts = [r["cells"][0]["text"] for r in rows]
        assert low == texts[post.index(min(post))] and high == texts[post.index(max(post))]


def test_quiz_explanations_begin_with_their_answer_quoted_once():
    """The page puts «Respuesta:» (teacher), «¡Bien visto!» or «Sin predecir.»
    before an explanation: the explanation itself starts with the answer, in
    «», with any quote inside it as “”, never «…«…»…»."""
    from lab_core.page_text import TEXT
    for q in view_of("block", {})["quiz"]:
        answer = dict((o["value"], o["label"]) for o in q["options"])[q["answers"][0]]
        inner = answer.replace("«", "“").replace("»", "”")
        assert q["explanation"].startswith("«%s». " % inner), q["explanation"]
        assert q["explanation"].count("«") == q["explanation"].count("»")
        teacher = TEXT["predict.teacher"].format(explanation=q["explanation"])
        assert teacher.count("Respuesta") == 1


def test_a_share_too_small_to_show_is_never_said_to_be_missing_from_100():
    from lab_core.display import shares_note
    # 768 wide: attention and FFN read 33,3 % and 66,7 % (100,0 %), LayerNorm «< 0,1 %».
    said = shares_note(["33,3 %", "66,7 %", "< 0,1 %"])
    assert "ya suman 100,0 %" in said and "«< 0,1 %»" in said and "falta" not in said
    said = shares_note(["33,3 %", "66,6 %", "< 0,1 %"])
    assert "suman 99,9 %, y falta una parte menor que 0,1 %" in said


def test_repeated_words_are_told_apart_by_what_their_own_vectors_show():
    # «token anterior» builds q, k and v from the position: three «banco»
    # have three values (the V column), whatever the mask, and the reason
    # given is that, not a prefix they all share.
    for mask in ("causal", "bidirectional"):
        mix = view_of("attention", {"tokens": "banco;banco;banco", "head": "anterior",
                                    "mask": mask})["mixture"]["blocks"][0]
        values = [row["cells"][1]["text"] for row in mix["table"]["rows"][:-1]]
        assert len(set(values)) == 3, values
        assert "dependen de su posición" in mix["copies"], mix["copies"]
        assert "prefijo" not in mix["copies"] and "contexto" not in mix["copies"]
    # «pista de lugar» gives both «banco» the same vectors: only the causal
    # prefixes (El banco / El banco del parque banco) separate them.
    mix = view_of("attention", {"tokens": "El;banco;del;parque;banco", "head": "lugar",
                                "query": 1})["mixture"]["blocks"][0]
    values = [row["cells"][1]["text"] for row in mix["table"]["rows"][:-1]]
    assert values[1] == values[4]
    assert mix["copies"].endswith("Las copias empiezan con el mismo vector, pero con la máscara "
                                  "causal cada copia ve un prefijo distinto: el contexto las separa.")


def test_two_equal_scores_give_exactly_one_half_and_one_right_band():
    # «El banco», banco's row: both scores 0,00 (computed here from the
    # vectors the panel shows), so e⁰ / (e⁰ + e⁰) is exactly one half.
    view = view_of("attention", {"tokens": "El;banco", "query": 1, "key": 0,
                                 "mask": "bidirectional"})
    scores = [c["text"] for c in view["tables"][0]["scores"]["rows"][1]["cells"]]
    assert scores[:2] == ["0", "0"] or scores[:2] == ["0,00", "0,00"], scores
    predict = view["arithmetic"]["predict"]
    assert predict["answers"] == ["mitad"]
    assert ": exactamente la mitad." in predict["explanation"], predict["explanation"]


def test_the_cache_says_no_compensation_where_nothing_cancels():
    # «xyz» for «El»: both keys score 0 with banco's query and both values
    # are 0, so nothing cancels; the verdict says only that the mix is the same.
    verdict = view_of("attention", {"tokens": "xyz;banco;qwerty;parque", "step": 2})[
        "cache"]["prefix"]["verdict"]
    assert verdict == ("iguales, aunque los prefijos difieren (xyz/El): en esta cabeza esas "
                       "palabras distintas llevan a la misma mezcla")
