"""The reader's own sentence and vectors, and the pictures' data."""
import json
import math
from decimal import ROUND_HALF_UP, Decimal
import random

import pytest

from lab_core import attention_lab, block, block_lab, pictures
from lab_core.didactic import HEADS, SENTENCES, VOCABULARY
from lab_core.state import query_string, state_from_params
from lab_core.views import answer

from by_hand import attend, head_rows, heads_with  # tests/unit, on the path

SPEC = attention_lab.SPEC


def view_of(partial, lab="attention"):
    reply = answer(json.dumps({"lab": lab, "from": "set", "current": None, "state": partial}))
    assert reply["ok"], reply
    return reply["view"]


def error_of(partial):
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": None, "state": partial}))
    assert not reply["ok"]
    return reply["error"]


def naive_scores(tokens, head, edits=None, mask="causal"):
    """Scores and weights by hand, from the data alone (tests/unit/by_hand.py)."""
    scores, weights, _ = attend(tokens, head_rows(tokens, head, heads_with(edits)),
                                mask == "causal")
    return scores, [[w or 0.0 for w in row] for row in weights]


def values(table):
    return [[c["value"] for c in row["cells"]] for row in table["rows"]]


def test_a_sentence_of_the_same_words_gives_the_presets_numbers():
    for sentence_id, sentence in SENTENCES.items():
        for mask in ("causal", "bidirectional"):
            for head in list(HEADS) + ["all"]:
                preset = view_of({"sentence": sentence_id, "mask": mask, "head": head})
                own = view_of({"tokens": list(sentence["tokens"]), "mask": mask, "head": head})
                for name in ("tables", "arithmetic", "mixture", "heads", "mask", "training",
                             "cache", "headview"):
                    assert own[name] == preset[name], (sentence_id, mask, head, name)


def test_the_article_cell_belongs_to_the_words():
    view = view_of({"tokens": "El;banco;de;parque", "mask": "bidirectional"})
    assert view["tables"][0]["scores"]["rows"][1]["cells"][3]["text"] == "1,41"
    assert view["sentence"]["label"] == "El banco de parque" and view["sentence"]["own"]
    assert view["query_string"] == "tokens=El;banco;de;parque&mask=bidirectional"


def test_random_sentences_against_an_independent_computation():
    rng = random.Random(7)
    for _ in range(60):
        words = VOCABULARY + ("río", "préstamo", "pedí", "al", "zorro")
        tokens = [rng.choice(words) for _ in range(rng.randint(1, 12))]
        head = rng.choice(list(HEADS))
        mask = rng.choice(["causal", "bidirectional"])
        view = view_of({"tokens": tokens, "head": head, "mask": mask, "query": 0, "key": 0})
        tokens = view["sentence"]["tokens"]  # «El» not first is read «el»
        scores, weights = naive_scores(tokens, head, mask=mask)
        table = view["tables"][0]
        for i in range(len(tokens)):
            for j in range(len(tokens)):
                shown = table["scores"]["rows"][i]["cells"][j]["value"]
                if mask == "causal" and j > i:
                    assert shown is None
                else:
                    assert shown == pytest.approx(scores[i][j], abs=1e-8)  # values carry 8 decimals
                assert table["weights"]["rows"][i]["cells"][j]["value"] == pytest.approx(
                    weights[i][j], abs=1e-9)
        # Every panel draws, and the head view has one link per open pair.
        links = [l for l in view["headview"]["links"] if l["weight"] > 0]
        opened = sum(1 for i in range(len(tokens)) for j in range(len(tokens))
                     if mask == "bidirectional" or j <= i)
        assert len(links) == opened


def test_edited_vectors_against_an_independent_computation():
    view = view_of({"vec": {"lugar.parque.k": ["3", "0"]}, "mask": "bidirectional"})
    assert view["tables"][0]["scores"]["rows"][1]["cells"][3]["text"] == "2,12"
    assert view["arithmetic"]["blocks"][0]["expression"] == "(1·3 + 0·0) / √2 ≈ 2,12"
    # A negative factor is bracketed.
    negative = view_of({"mask": "bidirectional", "vec": {"lugar.parque.k": [0.5, -1.25]}})
    assert negative["arithmetic"]["blocks"][0]["expression"] == "(1·0,5 + 0·(−1,25)) / √2 ≈ 0,35"
    rng = random.Random(11)
    for _ in range(40):
        head = rng.choice(["lugar", "finanzas"])  # the word heads: «token anterior» has no words
        edits = {}
        for _ in range(rng.randint(1, 4)):
            name = "%s.%s.%s" % (head, rng.choice(VOCABULARY), rng.choice("qkv"))
            edits[name] = [round(rng.uniform(-10, 10), 2), round(rng.uniform(-10, 10), 2)]
        sentence = rng.choice(list(SENTENCES))
        mask = rng.choice(["causal", "bidirectional"])
        view = view_of({"sentence": sentence, "head": head, "mask": mask, "vec": edits})
        scores, weights = naive_scores(SENTENCES[sentence]["tokens"], head, edits, mask)
        got = values(view["tables"][0]["weights"])
        for row, expected in zip(got, weights):
            assert row == pytest.approx(expected, abs=1e-9)
        # The mixture uses the edited values too.
        v = {w: dict(r) for w, r in HEADS[head]["vectors"].items()}
        for name, value in edits.items():
            _, word, role = name.split(".")
            v[word][role] = tuple(value)
        q = view["state"]["query"]
        tokens = SENTENCES[sentence]["tokens"]
        mix = [sum(weights[q][j] * v[tokens[j]]["v"][c] for j in range(len(tokens))) for c in (0, 1)]
        shown = view["mixture"]["blocks"][0]["table"]["rows"][-1]["cells"][2]["text"]
        parsed = [float(t.replace("−", "-").replace(",", ".")) for t in shown[1:-1].split("; ")]
        assert parsed == pytest.approx(mix, abs=0.005 + 1e-12)


def test_edits_travel_in_the_url_and_only_the_edited_ones():
    state = view_of({"vec": {"lugar.parque.k": [3, 0], "lugar.banco.q": [1, 0]}})["state"]
    assert state["vec"] == {"lugar.parque.k": [3.0, 0.0]}  # (1; 0) is the article's: dropped
    text = query_string(SPEC, state)
    assert text == "vec=lugar.parque.k:3;0"
    params = dict(pair.split("=") for pair in text.split("&"))
    assert state_from_params(SPEC, params) == (state, [])


def test_with_all_heads_each_vector_table_names_its_head_and_its_edits():
    # The page shows one head's table at a time, picked by these words.
    edits = {"lugar.parque.k": [3, 0], "lugar.El.q": [0, 2], "finanzas.banco.v": [1, 1]}
    tables = view_of({"head": "all", "vec": edits})["vectors"]["tables"]
    edited = {head: sum(1 for name in edits if name.startswith(head + ".")) for head in HEADS}
    assert [t["head"] for t in tables] == ["lugar", "finanzas"]  # the word heads
    for table in tables:
        assert table["edited"] == edited[table["head"]]
        assert sum(cell["edited"] for row in table["rows"] for cell in row["cells"]) == table["edited"]
        # One row per word of the sentence, each once.
        assert [row["word"] for row in table["rows"]] == ["El", "banco", "del", "parque"]
    assert [t["picker"] for t in tables] == [
        "pista de lugar (2 cambiados)", "pista financiera (1 cambiado)"]


@pytest.mark.parametrize("partial, words", [
    ({"vec": {"lugar.parque.k": [11, 0]}}, "k de «parque» (pista de lugar): 11 está fuera del rango −10 a 10"),
    ({"vec": {"lugar.parque.k": ["tres", 0]}}, "«tres» no es un número. "),
    ({"vec": {"lugar.parque.k": [1, 2, 3]}}, "tiene 3 coordenadas; aquí cada vector tiene 2"),
    ({"vec": {"lugar.zorro.k": [1, 2]}}, "«lugar.zorro.k» no es un vector"),
    ({"vec": {"lugar.Río.k": [1, 2]}}, "«lugar.Río.k» no es un vector"),
    ({"vec": {"anterior.El.q": [1, 2]}}, "la cabeza «token anterior» se construye con la posición"),
    ({"vec": "lugar.parque.k"}, "tiene 1 coordenada;"),
    ({"tokens": ["El", "<b>"]}, "Tu frase: «<» no se usa en una frase"),
    ({"tokens": ["El", 3]}, "Tu frase: «[\"El\", 3]» debe ser una lista de palabras"),
    ({"tokens": ["El"] * 13}, "una frase tiene de 1 a 12 palabras; esta tiene 13"),
    ({"other": "El;<b>"}, "Frase para comparar: «<» no se usa en una frase"),
])
def test_bad_input_is_refused_in_spanish(partial, words):
    assert words in error_of(partial)


def test_a_refused_vector_says_what_stays_without_claiming_it_was_edited():
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": None, "partials": [
        {"vec": {"finanzas.banco.v": [1, 1], "finanzas.El.q": [2, 2]}},
        {"vec": {"finanzas.banco.v": [1, 1], "finanzas.El.q": [2, 2], "lugar.parque.k": ["doce", 0]}}]}))
    assert [r["ok"] for r in reply["results"]] == [True, False]
    assert reply["results"][1]["error"] == ("k de «parque» (pista de lugar): «doce» no es un número. "
                                            "Cada vector se queda con el valor que tenía")
    fresh = error_of({"vec": {"lugar.parque.k": [11, 0]}})
    assert fresh.endswith("Se mantienen los vectores del artículo")


def test_comma_decimals_are_accepted():
    assert view_of({"vec": {"lugar.parque.k": ["2,5", "0"]}})["state"]["vec"] == {
        "lugar.parque.k": [2.5, 0.0]}


def test_positions_follow_a_shorter_sentence_and_a_preset_replaces_yours():
    long = view_of({"tokens": ["El", "banco", "de", "parque", "de", "crédito"], "query": 5,
                    "key": 4, "step": 6})["state"]
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": long,
                               "state": {"tokens": ["El", "banco"]}}))
    assert (reply["view"]["state"]["query"], reply["view"]["state"]["key"],
            reply["view"]["state"]["step"]) == (1, 1, 2)
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": long,
                               "state": {"sentence": "credito"}}))
    assert reply["view"]["state"]["tokens"] == []
    assert reply["view"]["sentence"]["label"] == "El banco de crédito"
    # The preset's own cell, as typing it would give: banco's row, and the
    # word that decides its sense (found here from the preset's words).
    words = SENTENCES["credito"]["tokens"]
    assert (reply["view"]["state"]["query"], reply["view"]["state"]["key"]) == (
        words.index("banco"), words.index("crédito"))
    assert reply["view"]["state_line"] == view_of(
        {"sentence": "credito", "query": words.index("banco"),
         "key": words.index("crédito")})["state_line"]
    # Between presets the reader's cell stays where it was.
    moved = view_of({"sentence": "parque", "query": 0, "key": 2})["state"]
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": moved,
                               "state": {"sentence": "credito"}}))
    assert (reply["view"]["state"]["query"], reply["view"]["state"]["key"]) == (0, 2)
    # A position sent explicitly is still checked strictly.
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": long,
                               "state": {"tokens": ["El"], "query": 3}}))
    assert not reply["ok"] and "Consulta: 3 está fuera del rango 0 a 0" in reply["error"]


def test_a_one_word_sentence_works_in_every_panel():
    view = view_of({"tokens": ["banco"], "mask": "bidirectional", "head": "all"})
    assert view["training"]["table"] is None and "al menos dos" in view["training"]["pairs"]
    assert view["cache"]["step"] == 1
    assert len(view["tables"]) == 3
    # Alone, banco's weight on itself is 1: not a weight «spread evenly» over words.
    for said in view["clues"]["heads"]:
        assert "la única palabra de la frase y se lleva todo su peso (1,00)" in said, said
        assert "por igual" not in said


def test_comparisons_use_the_second_sentence_the_reader_built():
    view = view_of({"other": ["El", "banco", "del", "parque"], "step": 4})
    prefix = view["cache"]["prefix"]
    assert prefix["other"] == "El banco del parque" and prefix["same"]
    assert "mismos tokens" in prefix["verdict"]
    shorter = view_of({"other": ["El"], "step": 3})["cache"]["prefix"]
    assert shorter["verdict"] == "no hay salida con la que compararla"
    assert shorter["text"].endswith("«El» no llega a la posición 2")


def test_an_edited_head_says_its_summary_no_longer_applies():
    view = view_of({"vec": {"lugar.parque.k": [3, 0]}})
    summary = view["heads"]["heads"][0]["summary"]
    assert summary.startswith("has cambiado 1 vector de esta cabeza (k de «parque»)")


# ------------------------------------------------------------- pictures

def test_nice_ticks_and_log_axes():
    axis = pictures.linear_axis(-1.98, 2.0, "y")
    assert [t["label"] for t in axis["ticks"]] == ["−2", "−1", "0", "1", "2"]
    log = pictures.log_axis(1.1e-4, 2.0, "y")
    assert log["log"] and log["ticks"][0]["label"] == "10⁻⁴" and log["ticks"][-1]["value"] == 1.0
    points = pictures.series("s", [1, 2], [1e-3, 10], 0, log=True)["points"]
    assert points == [[1, -3.0], [2, 1.0]]


def test_the_head_view_text_says_each_querys_strongest_link():
    view = view_of({"mask": "bidirectional"})["headview"]
    assert "banco → parque (0,58)" in view["alt"]
    assert "banco → «El» y «banco» (0,50)" in view_of({})["headview"]["alt"]  # a tie, both named
    all_heads = view_of({"head": "all"})["headview"]
    assert [h["style"] for h in all_heads["heads"]] == [0, 1, 2]
    # One sentence per head, opened by its name: one colon each, never two in a row.
    sentences = all_heads["alt"].split(". ")[2:]
    assert [s.split(":")[0] for s in sentences] == ["Pista de lugar", "Pista financiera", "Token anterior"]
    assert all(s.count(":") == 1 for s in sentences)


def test_charts_carry_their_data_in_plot_coordinates():
    block_view = view_of({"depth": 12}, lab="block")
    chart = block_view["residual"]["chart"]
    plain = block.gradient_norms(block.toy_layer_weights(12, 8, 0.5, seed=1), False)
    assert chart["y"]["log"]
    assert [p[1] for p in chart["series"][0]["points"]] == pytest.approx(
        [math.log10(x) for x in plain], abs=1e-9)
    rope = view_of({"rope_q": [1, 1]})["rope"]["chart"]
    assert rope["marker"]["x"] == 2 and rope["marker"]["label"] == "n − m = +2"
    training = view_of({})["training"]["chart"]
    assert training["kind"] == "bars" and len(training["series"][0]["points"]) == 3


def _factor_value(text):
    return float(text.strip("()").replace(".", "").replace(",", ".").replace("−", "-"))


@pytest.mark.parametrize("tokens", ["El banco del parque", "Pedí un crédito al banco",
                                    "el niño pidió un préstamo al banco junto al río y nadamos"])
@pytest.mark.parametrize("head", ["lugar", "finanzas", "anterior"])
def test_a_worked_score_gives_the_score_shown_from_the_factors_shown(tokens, head):
    # The factors as written, multiplied and divided again here: «token
    # anterior»'s rotated vectors need a third decimal (5·1,1 would not give
    # the 3,87 beside it).
    n = len(tokens.split())
    for query in range(n):
        for key in range(n):
            block = view_of({"tokens": tokens, "head": head, "mask": "bidirectional",
                             "query": query, "key": key})["arithmetic"]["blocks"][0]
            sums, root_and_result = block["expression"].split(" / √")
            terms = [term.split("·") for term in sums.strip("()").split(" + ")]
            width, sign, shown = root_and_result.split(" ")[:3]
            value = sum(_factor_value(a) * _factor_value(b) for a, b in terms) / math.sqrt(int(width))
            assert "sin redondear" not in block["expression"]
            rounded = Decimal(repr(value)).quantize(Decimal("0.01"), ROUND_HALF_UP)
            assert rounded == Decimal(shown.replace(",", ".").replace("−", "-")), block


def test_the_mask_question_asks_whether_a_row_exists_when_the_other_sentence_is_shorter():
    mask = view_of({"tokens": "Pedí un crédito al banco", "other": "El banco de crédito",
                    "mask": "bidirectional"})["mask"]["predict"]
    assert mask["question"] == ("Si pasas de «Pedí un crédito al banco» a «El banco de crédito», "
                                "¿sigue habiendo una fila de pesos en la posición 4 («banco» aquí)?")
    assert mask["answers"] == ["no"]
    # The options give no reason away: 4 < 5 words is for the reader to see.
    assert [o["label"] for o in mask["options"]] == ["sí", "no"]
    assert mask["explanation"] == ("No: «El banco de crédito» tiene 4 palabras (posiciones 0 a "
                                   "3), así que allí no hay fila 4.")
