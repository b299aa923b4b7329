"""A small Spanish grammar: the corpus of the capstone's decoder.

Every sentence is made here, by rules; none is copied from anywhere. The
grammar is finite, so it is enumerated whole: each sentence with its exact
probability under the generating process. That gives three things no sample
could: the grammar's own next-word distribution after any prefix
(`next_words`), hence the lowest loss a causal model can reach
(`entropy_per_word`), and an exact membership test for what a model writes
(`is_sentence`).

What the sentences exercise
---------------------------
- Agreement: el/los banco/bancos, viejo/viejos, es/son, está/están,
  cobra/cobran, presta/prestan; del parque / de la plaza.
- The two senses of «banco», decided by a word *after* it («el banco del
  parque …», «el banco de inversión …») or *before* it («en la plaza el
  banco …», «con la hipoteca el banco …»); what comes at the end (es de
  madera / cobra intereses) must fit the sense.
- A copy: a name said twice («ana se sienta en el banco del parque y ana
  lee»). The second name can only be predicted by looking back at the first
  one, wherever it stands: the pattern real models learn with a look-back
  (induction) head.

Kinds of sentence, each chosen with probability 1/4, then every slot
uniformly among its options:

    despues   [tiempo] DET BANCO [ADJ] COMPLEMENTO PREDICADO .
    antes     [tiempo] CONTEXTO DET BANCO [ADJ] PREDICADO .
    copia     [tiempo] NOMBRE se sienta en el banco LUGAR y NOMBRE ACCIÓN .
    pide      [tiempo] NOMBRE pide un crédito al banco y NOMBRE ACCIÓN .

Every sentence ends with «.», the word a generator writes to stop. The
prompt of a sentence (`Sentence.prompt`) ends with the word that decides
what must follow: the place or kind of bank (the sense of banco) or the
first name (who comes back after «y»). A continuation is right when prompt
+ continuation is a sentence of the grammar: that is the grammar's own
check. To pass it a generator must carry the deciding word, and the number
of «el banco»/«los bancos», several words forward.
"""
from __future__ import annotations

import functools
import itertools
import math
from collections import namedtuple

import numpy as np

END = "."

TIMES = ("", "hoy", "ahora")  # "" = no time word
NAMES = ("ana", "luis", "marta", "pablo", "sara", "juan", "elena", "mario")
ACTIONS = ("lee", "descansa", "sonríe")
# Places after «banco» (the seat) and kinds of bank after it (the entity).
SEAT_AFTER = (("del", "parque"), ("de", "la", "plaza"), ("del", "jardín"))
BANK_AFTER = (("de", "ahorros"), ("de", "inversión"), ("de", "crédito"))
# What comes before «el banco» and decides its sense.
SEAT_BEFORE = (("en", "el", "parque"), ("en", "la", "plaza"), ("en", "el", "jardín"))
BANK_BEFORE = (("con", "la", "hipoteca"), ("con", "el", "préstamo"), ("con", "el", "crédito"))
# (singular, plural) predicates by sense.
PREDICATES = {
    "asiento": ((("es", "de", "madera"), ("son", "de", "madera")),
                (("está", "al", "sol"), ("están", "al", "sol"))),
    "entidad": ((("cobra", "intereses"), ("cobran", "intereses")),
                (("presta", "dinero"), ("prestan", "dinero"))),
}
NOUN = {"singular": ("el", "banco"), "plural": ("los", "bancos")}
ADJECTIVES = {"singular": ("", "viejo", "nuevo"), "plural": ("", "viejos", "nuevos")}
NUMBERS = ("singular", "plural")
KINDS = ("despues", "antes", "copia", "pide")

HELD_OUT_SHARE = 0.2
SPLIT_SEED = 7

# words: tuple of words (END last); p: probability under the grammar; kind;
# sense of banco; prompt: how many words the held-out prompt keeps.
Sentence = namedtuple("Sentence", "words p kind sense prompt")


def _opt(word):  # "" -> (), "hoy" -> ("hoy",)
    return (word,) if word else ()


def _sentences():
    """Every sentence with its probability: kind 1/4, then uniform slots."""
    out = []
    for kind in KINDS:
        made = []
        if kind == "despues":
            for time, number, sense, adj_i, pred_i in itertools.product(
                    TIMES, NUMBERS, ("asiento", "entidad"), range(3), range(2)):
                for comp in (SEAT_AFTER if sense == "asiento" else BANK_AFTER):
                    head = _opt(time) + NOUN[number] + _opt(ADJECTIVES[number][adj_i]) + comp
                    pred = PREDICATES[sense][pred_i][NUMBERS.index(number)]
                    made.append((head + pred + (END,), sense, len(head)))  # … parque | es
        elif kind == "antes":
            for time, number, sense, adj_i, pred_i in itertools.product(
                    TIMES, NUMBERS, ("asiento", "entidad"), range(3), range(2)):
                for ctx in (SEAT_BEFORE if sense == "asiento" else BANK_BEFORE):
                    head = _opt(time) + ctx + NOUN[number] + _opt(ADJECTIVES[number][adj_i])
                    pred = PREDICATES[sense][pred_i][NUMBERS.index(number)]
                    made.append((head + pred + (END,), sense, len(_opt(time)) + len(ctx)))
        elif kind == "copia":
            for time, name, place, action in itertools.product(
                    TIMES, NAMES, SEAT_AFTER, ACTIONS):
                head = _opt(time) + (name, "se", "sienta", "en", "el", "banco") + place + ("y",)
                made.append((head + (name, action, END), "asiento", len(_opt(time)) + 1))
        else:  # pide
            for time, name, action in itertools.product(TIMES, NAMES, ACTIONS):
                head = _opt(time) + (name, "pide", "un", "crédito", "al", "banco", "y")
                made.append((head + (name, action, END), "entidad", len(_opt(time)) + 1))
        # Uniform over each slot = uniform over the kind's sentences, except
        # that the two senses' option lists have equal length, so it is.
        p = 1.0 / len(KINDS) / len(made)
        out.extend(Sentence(words, p, kind, sense, prompt) for words, sense, prompt in made)
    return tuple(out)


SENTENCES = _sentences()
LANGUAGE = frozenset(s.words for s in SENTENCES)
# The model's vocabulary: every word of the grammar, END first, then in the
# order they first appear (a fixed order, the same on every machine).
VOCABULARY = tuple(dict.fromkeys((END,) + tuple(w for s in SENTENCES for w in s.words)))
MAX_WORDS = max(len(s.words) for s in SENTENCES)


def split(seed=SPLIT_SEED, held_out_share=HELD_OUT_SHARE):
    """Training and held-out sentences: disjoint, every kind in both, the
    same share of each kind held out (a seeded shuffle within each kind)."""
    rng = np.random.RandomState(seed)
    train, held = [], []
    for kind in KINDS:
        mine = [s for s in SENTENCES if s.kind == kind]
        order = rng.permutation(len(mine))
        n_held = int(round(len(mine) * held_out_share))
        held.extend(mine[i] for i in sorted(order[:n_held]))
        train.extend(mine[i] for i in sorted(order[n_held:]))
    return tuple(train), tuple(held)


TRAIN, HELD_OUT = split()


@functools.lru_cache(maxsize=4096)
def next_words(prefix):  # tuple of words -> {word: probability}
    """The grammar's distribution of the word after `prefix` (empty if no
    sentence starts so): the sum of the probabilities of the sentences that
    continue it with each word, normalised."""
    n = len(prefix)
    mass = {}
    for s in SENTENCES:
        if len(s.words) > n and s.words[:n] == prefix:
            mass[s.words[n]] = mass.get(s.words[n], 0.0) + s.p
    total = sum(mass.values())
    return {w: m / total for w, m in mass.items()}


def word_losses(words):  # a sentence -> [len - 1] of −ln p(word | prefix)
    """What the grammar itself "pays" for each word after the first: the
    loss of a perfect causal model on this sentence."""
    return [-math.log(next_words(tuple(words[:i]))[words[i]]) for i in range(1, len(words))]


def entropy_per_word(sentences):
    """Mean over every predicted word of `sentences` of −ln p_grammar(word |
    words before it): the lowest mean loss, in nats, a causal model can
    expect on them (the first word is given, never predicted)."""
    losses = [x for s in sentences for x in word_losses(s.words)]
    return sum(losses) / len(losses)


def is_sentence(words):
    """The grammar's own check: is this word sequence one of its sentences?"""
    return tuple(words) in LANGUAGE


def sample(n, seed, sentences=SENTENCES):  # -> n sentences drawn by their probabilities
    rng = np.random.RandomState(seed)
    p = np.array([s.p for s in sentences])
    return tuple(sentences[i] for i in rng.choice(len(sentences), size=n, p=p / p.sum()))
