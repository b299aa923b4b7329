"""A small Spanish grammar: the corpus of the capstone's decoder.

Every sentence is made here, by rules; none is copied from anywhere. The
grammar is finite, so it is enumerated whole, each sentence with its
probability: every sentence is equally likely (a kind in proportion to how
many sentences it has, then each slot uniformly among its options). That
gives three things no sample could: the grammar's own next-word
distribution after any prefix (`next_words`), hence the loss a model that
had learned those probabilities exactly would pay on any sentences
(`entropy_per_word`: on sentences it never saw, no model can expect to pay
less), and an exact membership test for what a model writes
(`is_sentence`).

What the sentences exercise
---------------------------
- Agreement: el/los, banco/bancos, viejo/viejos, central/centrales,
  es/son, está/están, cobra/cobran; del parque / de la plaza.
- The two senses of «banco», decided by a word *after* it («el banco del
  parque …», «el banco de inversión …») or *before* it («en la plaza el
  banco …», «con la hipoteca el banco …»); what comes at the end (es de
  madera / cobra intereses) must fit the sense.
- A copy: a companion's name said twice («ana se sienta con luis en el
  banco del parque y luis lee»). After «y» the name to write is the one
  after «con», several words back and at no fixed distance; the subject's
  name, also earlier, is the wrong one. Only a head that looks back at the
  companion's name can predict it.

Kinds of sentence (an optional opener, «además» or «también», first):

    despues   DET [ADJ] BANCO COMPLEMENTO PREDICADO .
    antes     CONTEXTO DET [ADJ] BANCO PREDICADO .
    copia     NOMBRE se sienta con NOMBRE₂ en el banco LUGAR y NOMBRE₂ ACCIÓN .
              (no opener)
    pide      NOMBRE va al banco con NOMBRE₂ y NOMBRE₂ pide un crédito .

NOMBRE₂ is never NOMBRE. Every sentence ends with «.», the word a
generator writes to stop. The prompt of a sentence (`Sentence.prompt`)
ends with the word that decides what must follow: the place or kind of
bank (the sense of banco) or the companion's name (who comes back after
«y»). A continuation is right when prompt + continuation is a sentence of
the grammar: that is the grammar's own check. To pass it a generator must
carry the deciding word, and the number of «el banco»/«los bancos»,
several words forward.
"""
from __future__ import annotations

import functools
import itertools
import math
from collections import namedtuple

import numpy as np

END = "."

OPENERS = ("", "además", "también")  # "" = none
NAMES = ("ana", "luis", "marta", "pablo", "sara", "juan")
ACTIONS = ("lee", "descansa", "sonríe")
# Places after «banco» (the seat) and kinds of bank after it (the entity).
SEAT_AFTER = (("del", "parque"), ("de", "la", "plaza"), ("del", "jardín"))
# (singular, plural): «el banco central», «los bancos centrales».
BANK_AFTER = ((("central",), ("centrales",)), (("de", "inversión"),) * 2, (("de", "crédito"),) * 2)
# What comes before «el banco» and decides its sense.
SEAT_BEFORE = (("en", "el", "parque"), ("en", "la", "plaza"), ("en", "el", "jardín"))
BANK_BEFORE = (("con", "la", "hipoteca"), ("con", "la", "cuenta"), ("con", "la", "tarjeta"))
# (singular, plural) predicates by sense.
PREDICATES = {
    "asiento": ((("es", "de", "madera"), ("son", "de", "madera")),
                (("está", "al", "sol"), ("están", "al", "sol"))),
    "entidad": ((("cobra", "intereses"), ("cobran", "intereses")),
                (("cobra", "comisiones"), ("cobran", "comisiones"))),
}
DETERMINERS = {"singular": "el", "plural": "los"}
NOUNS = {"singular": "banco", "plural": "bancos"}
# Before the noun: «el viejo banco de inversión» keeps the compound whole.
ADJECTIVES = {"singular": ("", "viejo", "nuevo"), "plural": ("", "viejos", "nuevos")}
NUMBERS = ("singular", "plural")
SENSES = ("asiento", "entidad")
KINDS = ("despues", "antes", "copia", "pide")

HELD_OUT_SHARE = 0.2
SPLIT_SEED = 7

# words: tuple of words (END last); p: probability under the grammar; kind;
# sense of banco; prompt: how many words the prompt keeps (through the
# deciding word).
Sentence = namedtuple("Sentence", "words p kind sense prompt")


def _opt(word):  # "" -> (), "además" -> ("además",)
    return (word,) if word else ()


def _noun_phrase(number, adj_i):  # -> ("los", "viejos", "bancos")
    return (DETERMINERS[number],) + _opt(ADJECTIVES[number][adj_i]) + (NOUNS[number],)


def _made():
    """Every sentence as (words, kind, sense, prompt length)."""
    made = []
    slots = itertools.product(OPENERS, NUMBERS, SENSES, range(3), range(2), range(3))
    for opener, number, sense, adj_i, pred_i, which in slots:
        pred = PREDICATES[sense][pred_i][NUMBERS.index(number)]
        noun = _noun_phrase(number, adj_i)
        comp = (SEAT_AFTER[which] if sense == "asiento"
                else BANK_AFTER[which][NUMBERS.index(number)])
        head = _opt(opener) + noun + comp
        made.append((head + pred + (END,), "despues", sense, len(head)))
        ctx = (SEAT_BEFORE if sense == "asiento" else BANK_BEFORE)[which]
        made.append((_opt(opener) + ctx + noun + pred + (END,), "antes", sense,
                     len(_opt(opener) + ctx)))
    for opener, name, other in itertools.product(OPENERS, NAMES, NAMES):
        if name == other:
            continue
        if not opener:  # the place alone already moves «y» away from the name
            for place, action in itertools.product(SEAT_AFTER, ACTIONS):
                head = (name, "se", "sienta", "con", other)
                made.append((head + ("en", "el", "banco") + place + ("y", other, action, END),
                             "copia", "asiento", len(head)))
        head = _opt(opener) + (name, "va", "al", "banco", "con", other)
        made.append((head + ("y", other, "pide", "un", "crédito", END), "pide", "entidad",
                     len(head)))
    return made


_ALL = _made()
SENTENCES = tuple(Sentence(words, 1.0 / len(_ALL), kind, sense, prompt)
                  for words, kind, sense, prompt in _ALL)
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


def _following():
    """Every prefix of every sentence -> {next word: summed probability of
    the sentences that continue it with that word}: one pass over the
    grammar, so that next_words is a look-up."""
    after = {}
    for s in SENTENCES:
        for i in range(len(s.words)):
            seen = after.setdefault(s.words[:i], {})
            seen[s.words[i]] = seen.get(s.words[i], 0.0) + s.p
    return after


_AFTER = _following()


def next_words(prefix):  # tuple of words -> {word: probability}
    """The grammar's distribution of the word after `prefix` (empty if no
    sentence starts so): the sum of the probabilities of the sentences that
    continue it with each word, normalised."""
    mass = _AFTER.get(tuple(prefix), {})
    total = sum(mass.values())
    return {w: m / total for w, m in mass.items()}


def word_losses(words):  # a sentence -> [len - 1] of −ln p(word | prefix)
    """What the grammar itself "pays" for each word after the first: the
    loss of a perfect causal model on this sentence."""
    return [-math.log(next_words(tuple(words[:i]))[words[i]]) for i in range(1, len(words))]


def entropy_per_word(sentences):
    """Mean over every predicted word of `sentences` of −ln p_grammar(word |
    words before it), in nats (the first word is given, never predicted):
    what a model that had learned the grammar's probabilities exactly
    would pay on them. On sentences drawn from the grammar that it never
    saw, no model can expect to pay less."""
    losses = [x for s in sentences for x in word_losses(s.words)]
    return sum(losses) / len(losses)


# What a predictor may know of a prefix (the words before the next one):
# the words said so far without their order, with the current one; and the
# same with the one before it too. `loss_knowing` says what each is worth.
def said_and_current(prefix):
    return frozenset(prefix), prefix[-1]


def said_current_and_previous(prefix):
    return frozenset(prefix), prefix[-1], prefix[-2] if len(prefix) > 1 else None


@functools.lru_cache(maxsize=8)
def loss_knowing(know=None):
    """The loss per predicted word, over every sentence of the grammar, of
    the best predictor that knows only know(prefix) of each prefix (None:
    the whole prefix, in order): for each thing it may know, the grammar's
    own distribution of the next word among the prefixes that share it.
    Knowing less never costs less; with the whole prefix this is
    entropy_per_word(SENTENCES)."""
    know = know or tuple
    events = [(know(s.words[:i]), s.words[i], s.p) for s in SENTENCES
              for i in range(1, len(s.words))]
    mass, known = {}, {}  # (known, next word) -> probability; known -> probability
    for k, word, p in events:
        mass[k, word] = mass.get((k, word), 0.0) + p
        known[k] = known.get(k, 0.0) + p
    return (sum(p * -math.log(mass[k, word] / known[k]) for k, word, p in events)
            / sum(p for _, _, p in events))


def is_sentence(words):
    """The grammar's own check: is this word sequence one of its sentences?"""
    return tuple(words) in LANGUAGE
