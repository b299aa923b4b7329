"""The capstone's grammar: its probabilities, its agreement, its split, its check.

The next-word distributions are checked through the chain rule against the
sentences' probabilities, and by hand from the generating process the
module's docstring states (every sentence equally likely, so each slot
uniform among its options).
"""
from __future__ import annotations

import math
from collections import Counter

import pytest

from lab_core import grammar as G

PLACES = {"parque": "m", "jardín": "m", "plaza": "f"}
SEAT_WORDS = {"parque", "plaza", "jardín"}
BANK_WORDS = {"central", "centrales", "inversión", "crédito", "hipoteca", "cuenta", "tarjeta"}
VERBS = {"es": "asiento", "está": "asiento", "son": "asiento", "están": "asiento",
         "cobra": "entidad", "cobran": "entidad"}


def test_every_sentence_is_equally_likely_and_made_once():
    kinds = Counter(s.kind for s in G.SENTENCES)
    # despues and antes: opener 3 × number 2 × sense 2 × adjective 3 × predicate 2 × option 3
    assert kinds == {"despues": 216, "antes": 216, "copia": 30 * 3 * 3, "pide": 3 * 30}
    assert len(G.LANGUAGE) == len(G.SENTENCES) == 792
    assert all(s.p == 1 / 792 for s in G.SENTENCES)


def test_next_words_multiply_back_to_each_sentence():
    """Chain rule: p(s) = p(first word) · Π p(word | words before)."""
    first = Counter()
    for s in G.SENTENCES:
        first[s.words[0]] += s.p
    for s in G.SENTENCES[::7]:
        assert sum(G.word_losses(s.words)) == pytest.approx(-math.log(s.p / first[s.words[0]]))
    for prefix in [(), ("el", "banco"), ("ana", "se")]:
        assert sum(G.next_words(prefix).values()) == pytest.approx(1.0)


def test_next_words_by_hand():
    assert G.next_words(("el", "banco", "del", "parque")) == pytest.approx({"es": 0.5, "está": 0.5})
    assert G.next_words(("los", "bancos", "de", "inversión")) == {"cobran": 1.0}
    assert G.next_words(("los", "bancos", "de", "inversión", "cobran")) == pytest.approx(
        {"intereses": 0.5, "comisiones": 0.5})
    copy = ("marta", "se", "sienta", "con", "luis", "en", "el", "banco", "de", "la", "plaza", "y")
    assert G.next_words(copy) == {"luis": 1.0}
    # «el» opens despues sentences without an opener: no adjective, viejo or nuevo
    assert G.next_words(("el",)) == pytest.approx({"banco": 1 / 3, "viejo": 1 / 3, "nuevo": 1 / 3})
    # then the sense (1/2) and one of its three complements: «del» parque or
    # jardín, «de» la plaza, inversión or crédito, «central»
    assert G.next_words(("el", "banco")) == pytest.approx(
        {"del": 1 / 2 * 2 / 3, "de": 1 / 2 * 1 / 3 + 1 / 2 * 2 / 3, "central": 1 / 2 * 1 / 3})
    # plural: «centrales», never «los bancos central»
    assert G.next_words(("los", "bancos")) == pytest.approx(
        {"del": 1 / 2 * 2 / 3, "de": 1 / 2 * 1 / 3 + 1 / 2 * 2 / 3, "centrales": 1 / 2 * 1 / 3})
    assert G.next_words(("nadie",)) == {}


def test_entropy_is_the_mean_of_the_word_losses():
    one = G.HELD_OUT[0]
    assert G.entropy_per_word([one]) == pytest.approx(
        sum(G.word_losses(one.words)) / (len(one.words) - 1))
    # a copy sentence pays nothing for the companion's name said again: p = 1
    copy = next(s for s in G.SENTENCES if s.kind == "copia")
    y = copy.words.index("y")
    assert G.word_losses(copy.words)[y] == 0.0  # the loss of words[y + 1]
    # every sentence's words, each paying its own share
    total = sum(sum(G.word_losses(s.words)) for s in G.SENTENCES)
    assert G.entropy_per_word(G.SENTENCES) == pytest.approx(
        total / sum(len(s.words) - 1 for s in G.SENTENCES))


def test_every_sentence_agrees():
    for s in G.SENTENCES:
        w = s.words
        assert w[-1] == G.END and w.count(G.END) == 1
        if s.kind in ("despues", "antes"):
            plural = "bancos" in w
            noun = w.index("bancos" if plural else "banco")
            det = noun - 1 if w[noun - 1] in ("el", "los") else noun - 2
            assert w[det] == ("los" if plural else "el"), w
            adjectives = [x for x in w if x.startswith(("viej", "nuev", "central"))]
            assert all(a.endswith("s") == plural for a in adjectives), w
            (verb,) = [x for x in w if x in VERBS]
            assert verb.endswith("n") == plural, w
            seat = bool(SEAT_WORDS & set(w))
            assert seat == (s.sense == "asiento") and bool(BANK_WORDS & set(w)) != seat
            assert VERBS[verb] == s.sense, w
        for i, word in enumerate(w):
            if word in PLACES and w[i - 1] in ("del", "la"):
                assert (w[i - 1] == "del") == (PLACES[word] == "m"), w
        if s.kind in ("copia", "pide"):
            subject, companion, again = [x for x in w if x in G.NAMES]
            assert companion == again != subject
            assert w[w.index("con") + 1] == companion and w[w.index("y") + 1] == companion


def test_the_grammar_check():
    assert G.is_sentence("los bancos del parque son de madera .".split())
    assert G.is_sentence("además el viejo banco de inversión cobra intereses .".split())
    for wrong in ("los bancos del parque es de madera .",        # number
                  "el banco de la parque es de madera .",        # gender
                  "el banco de inversión es de madera .",        # sense
                  "ana se sienta con luis en el banco del parque y ana lee .",  # the copy
                  "ana se sienta con ana en el banco del parque y ana lee .",   # one person
                  "el banco del parque es de madera"):           # no end
        assert not G.is_sentence(wrong.split()), wrong


def test_prompts_end_with_the_deciding_word():
    for s in G.SENTENCES:
        last = s.words[s.prompt - 1]
        if s.kind in ("copia", "pide"):
            assert last == s.words[s.words.index("y") + 1]  # the name to write again
        else:
            assert last in SEAT_WORDS | BANK_WORDS


def test_training_and_held_out_are_disjoint_and_cover_every_kind():
    train, held = set(s.words for s in G.TRAIN), set(s.words for s in G.HELD_OUT)
    assert not train & held and train | held == G.LANGUAGE
    for kind in G.KINDS:
        n = sum(s.kind == kind for s in G.SENTENCES)
        assert sum(s.kind == kind for s in G.HELD_OUT) == round(n * G.HELD_OUT_SHARE)
    assert G.split() == (G.TRAIN, G.HELD_OUT)  # the same on every call


def test_vocabulary_holds_every_word_once():
    assert G.VOCABULARY[0] == G.END and len(set(G.VOCABULARY)) == len(G.VOCABULARY)
    assert set(G.VOCABULARY) == {w for s in G.SENTENCES for w in s.words}
