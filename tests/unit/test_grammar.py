"""The capstone's grammar: its probabilities, its agreement, its split, its check.

Each sentence's probability is derived again here from the generating
process the module's docstring states (a kind with 1/4, then each slot
uniformly), and the next-word distributions are checked through the chain
rule against those probabilities.
"""
from __future__ import annotations

import math
from collections import Counter

import pytest

from lab_core import grammar as G

PLACES = {"parque": "m", "jardín": "m", "plaza": "f"}
SEAT_WORDS = {"parque", "plaza", "jardín"}
BANK_WORDS = {"ahorros", "inversión", "crédito", "hipoteca", "préstamo"}


def process_probability(s):
    """1/4 for the kind, then 1/(options) for each slot the kind fills."""
    p = 1 / 4 / len(G.TIMES)
    if s.kind in ("despues", "antes"):
        # number, sense, adjective, predicate, complement or context
        return p / 2 / 2 / 3 / 2 / 3
    if s.kind == "copia":
        return p / len(G.NAMES) / 3 / len(G.ACTIONS)
    return p / len(G.NAMES) / len(G.ACTIONS)


def test_probabilities_follow_the_generating_process():
    assert len(G.SENTENCES) == len(G.LANGUAGE) == 720  # no sentence made twice
    for s in G.SENTENCES:
        assert s.p == pytest.approx(process_probability(s), rel=1e-12)
    assert sum(s.p for s in G.SENTENCES) == pytest.approx(1.0)
    for kind in G.KINDS:
        assert sum(s.p for s in G.SENTENCES if s.kind == kind) == pytest.approx(0.25)


def test_next_words_multiply_back_to_each_sentence():
    """Chain rule: p(s) = p(first word) · Π p(word | words before)."""
    first = Counter()
    for s in G.SENTENCES:
        first[s.words[0]] += s.p
    for s in G.SENTENCES[::7]:
        assert sum(G.word_losses(s.words)) == pytest.approx(-math.log(s.p / first[s.words[0]]))
    for prefix in [(), ("el", "banco"), ("hoy", "ana", "se")]:
        assert sum(G.next_words(prefix).values()) == pytest.approx(1.0)


def test_next_words_by_hand():
    assert G.next_words(("el", "banco", "del", "parque")) == pytest.approx({"es": 0.5, "está": 0.5})
    assert G.next_words(("los", "bancos", "de", "inversión")) == pytest.approx(
        {"cobran": 0.5, "prestan": 0.5})
    copy = ("hoy", "marta", "se", "sienta", "en", "el", "banco", "de", "la", "plaza", "y")
    assert G.next_words(copy) == {"marta": 1.0}
    # «el banco» opens only «despues» sentences (singular, no time word): an
    # adjective (1/3 each) or none (1/3), then the sense (1/2) and one of its
    # three complements: «del» for parque and jardín, «de» for la plaza and every bank
    after = G.next_words(("el", "banco"))
    assert after["viejo"] == after["nuevo"] == pytest.approx(1 / 3)
    assert after["del"] == pytest.approx(1 / 3 * 1 / 2 * 2 / 3)
    assert after["de"] == pytest.approx(1 / 3 * (1 / 2 * 1 / 3 + 1 / 2))
    assert G.next_words(("nadie",)) == {}


def test_entropy_is_the_mean_of_the_word_losses():
    one = G.HELD_OUT[0]
    assert G.entropy_per_word([one]) == pytest.approx(sum(G.word_losses(one.words)) / (len(one.words) - 1))
    # a copy sentence pays nothing for its second name: p = 1
    copy = next(s for s in G.SENTENCES if s.kind == "copia")
    y = copy.words.index("y")
    assert G.word_losses(copy.words)[y] == 0.0  # loss of words[y + 1]
    assert 0.4 < G.entropy_per_word(G.HELD_OUT) < 0.6


def test_every_sentence_agrees():
    for s in G.SENTENCES:
        w = s.words
        assert w[-1] == G.END and w.count(G.END) == 1
        if s.kind in ("despues", "antes"):
            plural = "bancos" in w
            det = w[w.index("bancos" if plural else "banco") - 1]
            assert det == ("los" if plural else "el")
            verbs = {"es", "está", "cobra", "presta", "son", "están", "cobran", "prestan"}
            (verb,) = [x for x in w if x in verbs]
            assert verb.endswith("n") == plural, w
            adjectives = [x for x in w if x.startswith(("viej", "nuev"))]
            assert all(a.endswith("s") == plural for a in adjectives), w
            seat = bool(SEAT_WORDS & set(w))
            assert seat == (s.sense == "asiento") and bool(BANK_WORDS & set(w)) != seat
            assert (verb in {"es", "está", "son", "están"}) == seat, w
        for i, word in enumerate(w):
            if word in PLACES and w[i - 1] in ("del", "la"):
                assert (w[i - 1] == "del") == (PLACES[word] == "m"), w
        if s.kind in ("copia", "pide"):
            names = [x for x in w if x in G.NAMES]
            assert len(names) == 2 and names[0] == names[1]


def test_the_grammar_check():
    assert G.is_sentence("los bancos del parque son de madera .".split())
    for wrong in ("los bancos del parque es de madera .",       # number
                  "el banco de la parque es de madera .",       # gender
                  "el banco de inversión es de madera .",       # sense
                  "ana se sienta en el banco del parque y luis lee .",  # the copy
                  "el banco del parque es de madera"):          # no end
        assert not G.is_sentence(wrong.split()), wrong


def test_prompts_end_with_the_deciding_word():
    for s in G.SENTENCES:
        last = s.words[s.prompt - 1]
        if s.kind in ("copia", "pide"):
            assert last in G.NAMES
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
