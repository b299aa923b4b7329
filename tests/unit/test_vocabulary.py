"""A sentence the reader types: how text becomes words, the vocabulary's
vectors, the previous-token head on any sentence, and what the two word
heads find, each checked against tests/unit/by_hand.py (plain Python from
the data) or against the article's own numbers."""
import json
import math
import random

import pytest

from lab_core import attention_lab
from lab_core.didactic import HEADS, VOCABULARY
from lab_core.state import query_string, state_from_params
from lab_core.views import answer
from lab_core.vocabulary import GROUPS, LEXICON, MAX_WORDS, read_sentence, suggestions

from by_hand import attend, head_rows, heads_with  # tests/unit, on the path

SPEC = attention_lab.SPEC


def reply_of(partial, current=None):
    return answer(json.dumps({"lab": "attention", "from": "set", "current": current,
                              "state": partial}))


def view_of(partial):
    reply = reply_of(partial)
    assert reply["ok"], reply
    return reply["view"]


# ------------------------------------------------------------- reading text

@pytest.mark.parametrize("text, words", [
    ("Me senté en el banco junto al río", ["Me", "senté", "en", "el", "banco", "junto", "al", "río"]),
    ("Pedí un crédito al banco.", ["Pedí", "un", "crédito", "al", "banco"]),
    ("  ¡El BANCO, del parque!  ", ["El", "banco", "del", "parque"]),
    ("el banco «del» parque…", ["el", "banco", "del", "parque"]),
    ("El;banco;de;crédito", ["El", "banco", "de", "crédito"]),  # the URL form
    ("María abrió la cuenta", ["María", "abrió", "la", "cuenta"]),  # unknown: as written
    ("Rio", ["Rio"]),
    ("junto-al río", ["junto", "al", "río"]),
    ("rı\u0301o", ["rı́o"]),  # a decomposed accent on a dotless i: kept, as one word
])
def test_text_becomes_the_words_the_lab_reads(text, words):
    assert read_sentence(text) == words


@pytest.mark.parametrize("text, said", [
    ("", "escribe al menos una palabra"),
    ("   ", "escribe al menos una palabra"),
    ("¿…?", "escribe al menos una palabra"),
    (" ".join(["banco"] * 13), "una frase tiene de 1 a 12 palabras; esta tiene 13"),
    ("a" * 201, "la frase tiene 201 caracteres; el máximo es 200"),
    ("<img src=x onerror=alert(1)>", "«<» no se usa en una frase"),
    ("</textarea>", "«<» no se usa en una frase"),
    ("El banco 😀", "«😀» no es una letra ni un signo de puntuación"),
    ("El banco 3", "«3» es una cifra: escribe los números con letras"),
    ("El banco del parque 12345", "«12345» son cifras: escribe los números con letras"),
    ("El\u200bbanco", "hay un carácter invisible (U+200B)"),
    ("El banco \u202edel", "hay un carácter que cambia la dirección del texto (U+202E)"),
    ("El banco \u200fdel", "hay un carácter que cambia la dirección del texto (U+200F)"),
    ("بنك", "no es una letra del alfabeto latino"),
    ("x" * 31, "tiene más de 30 letras"),
    (7, "escribe la frase como texto"),
])
def test_text_that_cannot_be_a_sentence_is_refused_in_spanish(text, said):
    with pytest.raises(ValueError, match="^Tu frase: ") as refused:
        read_sentence(text)
    assert said in str(refused.value)


@pytest.mark.parametrize("typed, meant", [
    ("rio", ["río"]), ("Rio", ["río"]), ("bancos", ["banco"]), ("interes", ["interés"]),
    ("intereses", ["interés"]), ("prestamos", ["préstamo"]), ("jardin", ["jardín"]),
    ("zorro", []), ("xyz", []),
])
def test_near_misses_are_suggested(typed, meant):
    assert suggestions(typed) == meant


def test_a_bad_sentence_leaves_the_sentence_on_screen_and_is_named_beside_its_field():
    current = view_of({"tokens": "Pedí un crédito al banco"})["state"]
    for bad in ("", "<b>banco</b>", "banco " * 13, "😀", "\u202e", "a" * 300):
        reply = reply_of({"tokens": bad}, current)
        assert not reply["ok"] and reply["key"] == "tokens"
        assert reply["error"].startswith("Tu frase: ")
        assert "<" not in reply["error"].replace("«<»", "")  # no markup, only the character named
    other = reply_of({"other": "<script>"}, current)
    assert not other["ok"] and other["error"].startswith("Frase para comparar: ")


def test_a_typed_sentence_travels_in_the_link_and_comes_back():
    state = view_of({"tokens": "Me senté en el banco junto al río"})["state"]
    # The query moves to banco, the key to «río», the word that says which banco.
    assert (state["query"], state["key"]) == (4, 7)
    text = query_string(SPEC, state)
    assert text == ("tokens=Me;sent%C3%A9;en;el;banco;junto;al;r%C3%ADo&query=4&key=7")
    from urllib.parse import parse_qsl
    assert state_from_params(SPEC, dict(parse_qsl(text))) == (state, [])
    # A link that names the sentence and not the query puts it on banco too.
    linked, notices = state_from_params(SPEC, {"tokens": "Pedí;un;crédito;al;banco"})
    assert (linked["query"], linked["key"]) == (4, 2) and notices == []
    # A crafted link is refused, with a notice, and the page opens on the preset.
    crafted, notices = state_from_params(SPEC, {"tokens": "El;<img src=x>"})
    assert crafted["tokens"] == [] and "«<» no se usa en una frase" in notices[0]


def test_a_typed_sentence_puts_the_key_on_the_word_that_tells_which_banco():
    # By hand, under the default «pista de lugar»: the place or money word
    # nearest the query; the earlier of two as near; none keeps the key in
    # range; a key sent with the sentence wins.
    cases = {"Pedí un crédito al banco": (4, 2),
             "El banco del parque de crédito": (1, 3),
             "Con la tarjeta fui al banco del río": (5, 7),  # río 2 away, tarjeta 3
             "La plaza y el banco y el dinero": (4, 1),  # plaza and dinero both 3 away
             "El perro y el banco": (4, 3)}  # no such word: the key 3 still fits
    for typed, (query, key) in cases.items():
        state = view_of({"tokens": typed})["state"]
        assert (state["query"], state["key"]) == (query, key), typed
    # Of both kinds, the kind the chosen head reads, however far.
    both = "Pedí un crédito en el banco junto al río"
    assert view_of({"tokens": both})["state"]["key"] == 8  # «pista de lugar»: río
    assert view_of({"tokens": both, "head": "finanzas"})["state"]["key"] == 2  # crédito
    assert view_of({"tokens": "La plaza y el banco y el dinero",
                    "head": "finanzas"})["state"]["key"] == 7
    assert view_of({"tokens": "El banco"})["state"]["key"] == 1  # clamped into range
    assert view_of({"tokens": "Pedí un crédito al banco", "key": 0})["state"]["key"] == 0
    # Changing only the query, or the head, leaves a chosen key alone.
    mine = view_of({"tokens": "Pedí un crédito al banco", "key": 1})["state"]
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": mine,
                               "state": {"query": 2}}))
    assert reply["view"]["state"]["key"] == 1


def test_the_builder_list_and_typed_text_are_read_alike():
    typed = view_of({"tokens": "El banco del parque"})
    built = view_of({"tokens": ["El", "banco", "del", "parque"]})
    assert typed["state"]["tokens"] == built["state"]["tokens"] == ["El", "banco", "del", "parque"]
    assert typed["tables"] == built["tables"]


# ------------------------------------------------------------- vocabulary

def test_the_vocabulary_has_its_groups_and_every_word_once():
    assert len(LEXICON) >= 80
    every = [w for _, _, words in GROUPS.values() for w in words]
    assert len(every) == len(set(every)) == len(LEXICON)
    assert {w.lower() for w in VOCABULARY} <= set(LEXICON)
    for word in ("parque", "río", "orilla", "plaza", "jardín", "paseo", "árbol", "playa"):
        assert word in GROUPS["lugar"][2]
    for word in ("crédito", "préstamo", "dinero", "cuenta", "hipoteca", "interés", "pagar", "cajero"):
        assert word in GROUPS["dinero"][2]
    for word in ("el", "la", "los", "las", "un", "una", "de", "del", "al", "en", "con", "junto",
                 "y", "que", "me", "mi"):
        assert word in GROUPS["funcion"][2]
    assert GROUPS["ambigua"][2] == ("banco",)
    view = view_of({})["vocabulary"]
    assert view["title"] == "Vocabulario: %d palabras" % len(LEXICON)
    assert [g["label"].split(" (")[0] for g in view["groups"]] == [g[0] for g in GROUPS.values()]


@pytest.mark.parametrize("word", LEXICON)
def test_every_word_of_the_vocabulary_has_the_vectors_of_its_group(word):
    # Read from the page's own tables: the word in a sentence of its own.
    view = view_of({"tokens": [word], "head": "all"})
    rows = {h: head["table"]["rows"][0]["cells"] for h, head in
            zip(HEADS, view["heads"]["heads"])}
    group = next(g for g, (_, _, words) in GROUPS.items() if word in words)
    like = GROUPS[group][1]
    for h in ("lugar", "finanzas"):
        table = HEADS[h]["vectors"]
        own = next((table[w] for w in table if w.lower() == word), None)
        want = own or (table[like] if like else {"q": (0, 0), "k": (0, 0), "v": (0, 0)})
        got = [c["text"] for c in rows[h]]
        assert got == ["(%s)" % "; ".join(fmt(x) for x in want[r]) for r in "qkv"], (word, h)


def fmt(x):
    return ("%g" % x).replace("-", "−").replace(".", ",")


# ------------------------------------------------------------- the article stays

def test_the_articles_numbers_are_unchanged():
    parque = view_of({"mask": "bidirectional"})
    assert parque["tables"][0]["scores"]["rows"][1]["cells"][3]["text"] == "1,41"
    causal = view_of({})
    assert causal["tables"][0]["weights"]["rows"][1]["cells"][3]["text"] == "0"
    # The same causal mixture for banco in both sentences, every word head.
    for head in ("lugar", "finanzas"):
        a = view_of({"head": head})["mixture"]["blocks"][0]["table"]
        b = view_of({"head": head, "sentence": "credito"})["mixture"]["blocks"][0]["table"]
        assert a["rows"][-1] == b["rows"][-1]
    finance = view_of({"sentence": "credito", "head": "finanzas", "mask": "bidirectional"})
    assert finance["tables"][0]["scores"]["rows"][1]["cells"][3]["text"] == "1,41"


# ------------------------------------------------------------- previous token

def test_the_previous_token_head_peaks_on_the_previous_word_of_any_sentence():
    rng = random.Random(42)
    for case in range(200):
        n = MAX_WORDS if case % 4 == 0 else rng.randint(1, MAX_WORDS)  # the limit, often
        tokens = [rng.choice(LEXICON) for _ in range(n)]
        mask = rng.choice(["causal", "bidirectional"])
        view = view_of({"tokens": tokens, "head": "anterior", "mask": mask, "query": 0})
        tokens = view["sentence"]["tokens"]
        scores, weights, _ = attend(tokens, head_rows(tokens, "anterior", heads_with({})),
                                    mask == "causal")
        table = view["tables"][0]
        for i in range(n):
            shown = [c["value"] for c in table["weights"]["rows"][i]["cells"]]
            assert shown == pytest.approx([w or 0.0 for w in weights[i]], abs=1e-8)
            top = max(range(n), key=lambda j: -1 if weights[i][j] is None else weights[i][j])
            if i >= 1:
                assert top == i - 1, (tokens, i, mask)
                second = sorted((w for w in weights[i] if w is not None), reverse=True)[1]
                assert weights[i][i - 1] - second > 0.5
            elif mask == "causal":
                assert weights[0][0] == 1.0  # the first word, alone, looks at itself
            else:
                assert top == 0, (tokens, mask)  # …and with the whole sentence open too
    # The peak's score: |base|² / √2 = 25/√2 ≈ 17,68, at every i ≥ 1.
    table = view_of({"head": "anterior"})["tables"][0]["scores"]
    assert [table["rows"][i]["cells"][i - 1]["text"] for i in (1, 2, 3)] == ["17,68"] * 3
    assert 25 / math.sqrt(2) == pytest.approx(17.6777, abs=1e-4)


def test_the_previous_token_head_has_no_word_vectors_to_edit():
    view = view_of({"head": "anterior"})
    assert view["vectors"]["tables"] == []
    assert "los construye con la posición" in view["vectors"]["note"]
    assert "posición" in view["head"]["summary"] and "i − 1" in view["head"]["summary"]


# ------------------------------------------------------------- what a student finds

def independent_clue(tokens, query, head):
    """The head's strongest key for the query with open access, by hand,
    as read at two decimals, and its causal weight."""
    heads = heads_with({})
    _, open_w, _ = attend(tokens, head_rows(tokens, head, heads), False)
    _, causal_w, _ = attend(tokens, head_rows(tokens, head, heads), True)
    read = [round(w + 1e-12, 2) for w in open_w[query]]
    top = [j for j, w in enumerate(read) if w == max(read)]
    return top, read, causal_w[query]


def test_a_clue_before_banco_survives_the_causal_mask():
    tokens = ["Pedí", "un", "crédito", "al", "banco"]
    top, read, causal = independent_clue(tokens, 4, "finanzas")
    assert top == [2]  # crédito
    clues = view_of({"tokens": " ".join(tokens)})["clues"]
    finance = clues["heads"][1]
    assert finance.startswith("Pista financiera: con acceso bidireccional, la palabra a la que "
                              "«banco» da más peso es «crédito» (%s)" % fmt2(read[2]))
    assert "va antes, así que la máscara causal no la oculta: con ella recibe %s." % fmt2(
        round(causal[2] + 1e-12, 2)) in finance
    # No place word here: banco's row is even, 1/5 each.
    assert clues["heads"][0] == ("Pista de lugar: con acceso bidireccional, «banco» reparte su "
                                 "peso por igual (0,20 cada palabra): esta cabeza no encuentra "
                                 "pista.")
    assert clues["lesson"] == ("«crédito» va antes de «banco», y la máscara causal solo oculta lo "
                               "que viene después: con ella, «crédito» sigue recibiendo %s en la "
                               "pista financiera." % fmt2(round(causal[2] + 1e-12, 2)))


def test_a_clue_after_banco_is_hidden_by_the_causal_mask():
    tokens = ["El", "banco", "junto", "al", "río"]
    top, read, causal = independent_clue(tokens, 1, "lugar")
    assert top == [4] and causal[4] is None  # río, after banco: masked
    clues = view_of({"tokens": " ".join(tokens)})["clues"]
    assert clues["heads"][0] == ("Pista de lugar: con acceso bidireccional, la palabra a la que "
                                 "«banco» da más peso es «río» (%s); va después, así que la "
                                 "máscara causal la oculta: peso 0." % fmt2(read[4]))
    assert clues["heads"][1].startswith("Pista financiera: con acceso bidireccional, ninguna "
                                        "palabra recibe de «banco» más que ella misma")
    assert clues["lesson"] == ("«río» va después de «banco»: con la máscara causal, al leer "
                               "«banco» todavía no ha llegado (peso 0), y solo el acceso "
                               "bidireccional lo ve.")
    # And the tables say the same: 0 under the causal mask, the top weight open.
    causal_view = view_of({"tokens": " ".join(tokens), "head": "lugar"})
    assert causal_view["tables"][0]["weights"]["rows"][1]["cells"][4]["text"] == "0"
    open_view = view_of({"tokens": " ".join(tokens), "head": "lugar", "mask": "bidirectional"})
    assert open_view["tables"][0]["weights"]["rows"][1]["cells"][4]["text"] == fmt2(read[4])


def fmt2(x):
    return ("%.2f" % x).replace(".", ",")


def test_clues_on_both_sides_and_on_none():
    tokens = ["el", "dinero", "del", "banco", "del", "parque", "junto", "al", "río"]
    place, read, _ = independent_clue(tokens, 3, "lugar")
    money, _, _ = independent_clue(tokens, 3, "finanzas")
    assert place == [5, 8] and money == [1]  # parque and río tie, after; dinero, before
    both = view_of({"tokens": " ".join(tokens)})["clues"]
    assert both["heads"][0].startswith(
        "Pista de lugar: con acceso bidireccional, las palabras a las que «banco» da más peso "
        "son «parque» y «río» (%s cada una); van después" % fmt2(read[5]))
    assert both["lesson"] == ("«dinero» va antes de «banco» y la máscara causal lo deja ver; "
                              "«parque» y «río» van después y la máscara los oculta. La máscara causal "
                              "solo oculta lo que viene después.")
    none = view_of({"tokens": "me senté en el banco"})["clues"]
    assert none["lesson"] == ("Ni la «pista de lugar» ni la «pista financiera» encuentra otra "
                              "palabra que sirva de pista para «banco» en esta frase: añade una "
                              "palabra de lugar o de dinero.")
    # A query that is not banco: no advice to add a word banco would need.
    other = view_of({"tokens": "El perro duerme en el parque"})["clues"]
    assert other["lesson"].endswith("Están hechas para «banco»: escríbelo en tu frase.")
    # With a banco in the sentence, it can be chosen as the query.
    chosen = view_of({"tokens": "El perro y el banco", "query": 1})["clues"]
    assert chosen["lesson"].endswith("Están hechas para «banco»: elige banco en «Consulta».")
    # A word that gets only as much as the query itself is no clue (río →
    # parque = río → río): the head has not singled it out.
    tied = view_of({"tokens": "El río del parque"})["clues"]
    top, read, _ = independent_clue(["El", "río", "del", "parque"], 1, "lugar")
    assert top == [1, 3] and read[1] == read[3]
    assert tied["heads"][0] == ("Pista de lugar: con acceso bidireccional, ninguna palabra "
                                "recibe de «río» más que ella misma (%s; «parque» recibe lo "
                                "mismo): esta cabeza no encuentra pista." % fmt2(read[3]))
    assert tied["lesson"].startswith("Ni la «pista de lugar» ni la «pista financiera» encuentra")
    # Three words tied with banco: edited keys make «El» and «del» weigh as
    # much as banco itself, and none is a clue.
    edited = view_of({"vec": {"lugar.parque.k": [-2, 0]}, "mask": "bidirectional"})
    weights = [c["text"] for c in edited["tables"][0]["weights"]["rows"][1]["cells"]]
    assert weights[0] == weights[1] == weights[2] > weights[3]
    assert edited["clues"]["heads"][0] == (
        "Pista de lugar: con acceso bidireccional, ninguna palabra recibe de «banco» más que "
        "ella misma (%s; «El» y «del» reciben lo mismo): esta cabeza no encuentra pista."
        % weights[1])
    # The same word twice is named by its position.
    twice = view_of({"tokens": "el banco del parque y el banco de crédito"})["clues"]
    assert twice["title"] == "Qué encuentra «banco» (posición 1)"


def test_an_unknown_word_is_kept_neutral_and_named_with_its_near_miss():
    view = view_of({"tokens": "El banco junto al rio", "head": "lugar", "mask": "bidirectional"})
    assert view["sentence"]["tokens"] == ["El", "banco", "junto", "al", "rio"]
    builder = view["builder"]
    assert builder["words"][4]["known"] is False and builder["words"][4]["group"] == "desconocida"
    assert builder["notice"].startswith("No conozco «rio»: la trato como palabra neutra")
    assert builder["notice"].endswith("¿Querías decir «río»?")
    two = view_of({"tokens": "El bancos junto al rio"})["builder"]["notice"]
    assert two.endswith("Quizá querías decir «banco» (por «bancos») y «río» (por «rio»).")
    assert builder["fix"] == {"label": "Usar «El banco junto al río»",
                              "tokens": ["El", "banco", "junto", "al", "río"]}
    # Neutral: zero q, k and v, so every score with it is 0.
    rows = view["heads"]["heads"][0]["table"]["rows"][4]["cells"]
    assert [c["text"] for c in rows] == ["(0; 0)"] * 3
    scores = view["tables"][0]["scores"]["rows"]
    assert scores[1]["cells"][4]["text"] == "0,00" and scores[4]["cells"][1]["text"] == "0,00"
    # The corrected sentence finds río.
    fixed = view_of({"tokens": builder["fix"]["tokens"], "mask": "bidirectional"})
    assert fixed["tables"][0]["scores"]["rows"][1]["cells"][4]["text"] == "1,41"
    plain = view_of({"tokens": "El banco junto al zorro"})["builder"]
    assert plain["fix"] is None and "Mira el vocabulario" in plain["notice"]


def test_panel_six_scores_only_the_words_the_toy_model_predicts():
    view = view_of({"tokens": "El banco del río"})
    training = view["training"]
    rows = training["table"]["rows"]
    assert [c["text"] for c in rows[2]["cells"]] == ["río", "—", "—", "—"]
    assert "«río» no es una de ellas" in training["table"]["note"]
    none = view_of({"tokens": "senté junto al río"})["training"]
    assert none["table"] is None and "no hay pérdida que calcular" in none["pairs"]


def test_panel_two_says_when_the_query_is_not_one_of_the_toy_models_words():
    note = view_of({"tokens": "El banco junto al río", "query": 4})["mixture"]["vocab"]["table"]["note"]
    assert "«río» no es una de las seis palabras del modelo de juguete" in note
    assert "banco" not in (view_of({})["mixture"]["vocab"]["table"]["note"] or "")


def test_the_exercise_says_when_its_steps_are_not_about_the_sentence_shown():
    assert view_of({})["sentence"]["exercise"] == ""
    said = view_of({"tokens": "El perro come pan"})["sentence"]["exercise"]
    assert said == ("Estos pasos son los de la frase del artículo, no los de tu frase: "
                    "«Preparar el ejercicio» vuelve a «El banco del parque».")
    said = view_of({"sentence": "credito"})["sentence"]["exercise"]
    assert "en «El banco de crédito» no hay «parque»" in said


@pytest.mark.parametrize("partial, marks", [
    ({}, ("(ya elegida)", "(ahora: causal)", "(ya elegida)")),
    ({"mask": "bidirectional"}, ("(ya elegida)",) * 3),
    ({"sentence": "credito", "head": "finanzas", "query": 0},
     ("(ahora: «El»)", "(ahora: causal)", "(ahora: «pista financiera»)")),
    ({"head": "all", "query": 3, "mask": "bidirectional"},
     ("(ahora: «parque»)", "(ya elegida)", "(ahora: «todas las cabezas»)")),
    ({"tokens": "Me senté en el banco", "mask": "bidirectional"}, ("(ya elegida)",) * 3),
])
def test_each_step_of_the_exercise_says_whether_the_state_has_it(partial, marks):
    # The list in index.html: banco as the query, the bidirectional mask,
    # the place head. Each mark is read from the state the view reports.
    view = view_of(partial)
    assert (view["exercise"]["query"], view["exercise"]["mask"], view["exercise"]["head"]) == marks
    state = view["state"]
    word = view["sentence"]["tokens"][state["query"]]
    assert (marks[0] == "(ya elegida)") == (word == "banco")
    assert (marks[1] == "(ya elegida)") == (state["mask"] == "bidirectional")
    assert (marks[2] == "(ya elegida)") == (state["head"] == "lugar")
    # «Preparar el ejercicio» sends "go": from any state, the article's cell.
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": state,
                               "state": view["exercise"]["go"]}))
    done = reply["view"]
    assert [done["exercise"][k] for k in ("query", "mask", "head")] == ["(ya elegida)"] * 3
    row = done["tables"][0]["scores"]["rows"][done["state"]["query"]]
    assert (row["label"], row["cells"][done["state"]["key"]]["text"]) == ("banco", "1,41")
    assert math.isclose(2 / math.sqrt(2), 1.41, abs_tol=0.005)


def test_preparing_the_exercise_puts_the_articles_vectors_back_only_when_edited():
    assert "vec" not in view_of({})["exercise"]["go"]
    edited = view_of({"vec": {"lugar.parque.k": [-2, 0]}})
    assert edited["exercise"]["go"]["vec"] == {}


def test_panel_six_names_the_pairs_without_a_loss():
    pairs = view_of({"tokens": "El banco del río"})["training"]["pairs"]
    assert pairs == ("La salida de «El» se compara con «banco»; la de «banco» con «del»; "
                     "la de «del» con «río» (sin pérdida).")


def test_an_open_weight_that_reads_0_00_is_said_not_to_be_0():
    tokens = "Fui al banco junto al río con mi amigo y su perro".split()
    _, weights, _ = attend(tokens, head_rows(tokens, "anterior", heads_with({})), False)
    assert 0 < weights[2][3] < 0.005  # banco → junto: open, and it reads 0,00
    view = view_of({"tokens": tokens, "head": "anterior", "mask": "bidirectional",
                    "query": 2, "key": 3})
    explanation = view["arithmetic"]["predict"]["explanation"]
    mantissa, power = ("%.1e" % weights[2][3]).split("e")
    unrounded = "%s·10%s" % (mantissa.replace(".", ","), str(int(power)).translate(
        str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")))
    assert explanation.startswith("«junto» recibe 0,00 (sin redondear, %s) de la fila de «banco»: "
                                  "más de 0 y menos de la mitad. No es 0: una clave abierta "
                                  "siempre recibe algo" % unrounded), explanation
    assert "No es 0" not in view_of({})["arithmetic"]["predict"]["explanation"]


def test_a_clue_on_each_side_names_the_word_of_each_clause():
    # «El parque banco parque»: banco's place head ties the two «parque»;
    # the one before keeps its causal weight (computed here), the one after
    # gets 0. Each clause names its own word, so neither reads as both.
    tokens = ["El", "parque", "banco", "parque"]
    top, read, causal = independent_clue(tokens, 2, "lugar")
    assert top == [1, 3] and causal[3] is None
    said = view_of({"tokens": " ".join(tokens), "query": 2})["clues"]["heads"][0]
    assert ("; «parque» (posición 1) va antes, así que la máscara causal no la oculta: con ella "
            "recibe %s; «parque» (posición 3) va después, así que la máscara causal la oculta: "
            "peso 0." % fmt2(round(causal[1] + 1e-12, 2))) in said, said
