"""What every panel of the attention lab shares: the sentence a state names
(a preset, or the reader's own `tokens`), the second sentence comparisons
use (`other`), the heads with the reader's edited vectors (`vec`), their
cached runs, and the labels a reader sees."""
from __future__ import annotations

import functools

from .. import display as d
from ..display import rows_note
from ..didactic import HEADS, SENTENCES
from ..heads import edit_heads, run_head
from ..vocabulary import MAX_WORDS

# The state keys that decide the sentences and the heads' vectors: every
# builder that runs a head reads them.
SENTENCE = ("sentence", "tokens", "other", "vec")

MASK_LABELS = {"causal": "causal", "bidirectional": "bidireccional"}
MAX_TOKENS = MAX_WORDS  # a reader's sentence: 1 to 12 words
ALL_HEADS = "all"


def options(pairs):
    return [{"value": value, "label": label} for value, label in pairs]


def tokens_of(state):
    """The words of the sentence the state shows: the reader's, or the preset's."""
    return tuple(state.get("tokens") or SENTENCES[state["sentence"]]["tokens"])


def sentence_label(state):
    if state.get("tokens"):
        return " ".join(state["tokens"])
    return SENTENCES[state["sentence"]]["label"]


def other_sentence_id(state):
    """The preset comparisons default to: the one the sentence shown is not."""
    tokens = tuple(state.get("tokens") or ())
    for sentence_id, sentence in SENTENCES.items():
        if tokens == tuple(sentence["tokens"]):
            return "credito" if sentence_id == "parque" else "parque"
    return "credito" if state["sentence"] == "parque" else "parque"


def other_tokens(state):
    """The second sentence comparisons use: the reader's, or the other preset."""
    return tuple(state.get("other") or SENTENCES[other_sentence_id(state)]["tokens"])


def other_label(state):
    if state.get("other"):
        return " ".join(state["other"])
    return SENTENCES[other_sentence_id(state)]["label"]


def frozen_edits(state):
    return tuple(sorted((k, tuple(v)) for k, v in (state.get("vec") or {}).items()))


def shown_heads(state):
    return list(HEADS) if state["head"] == ALL_HEADS else [state["head"]]


def asked_head(state):
    """The head a panel's question is about, as the question names it: with
    «todas» the tables show three heads and the question is about the first."""
    label = "«%s»" % HEADS[shown_heads(state)[0]]["label"]
    return label if state["head"] != ALL_HEADS else label + " (la primera de las tres)"


def head_label(head_id):
    return "todas las cabezas" if head_id == ALL_HEADS else HEADS[head_id]["label"]


def heads_of(state):
    """The heads' data as the state sees them: the article's vectors, with
    the reader's edits."""
    return _heads(frozen_edits(state))


@functools.lru_cache(maxsize=8)
def _heads(frozen_edits):
    return edit_heads(dict(frozen_edits))


@functools.lru_cache(maxsize=64)
def _run(tokens, head_id, mask_kind, frozen_edits):
    return run_head(tokens, _heads(frozen_edits)[head_id], mask_kind)


def run(state, head_id, tokens=None, mask_kind=None):
    """run_head for a head of the state, cached: several panels need it."""
    return _run(tokens_of(state) if tokens is None else tuple(tokens), head_id,
                mask_kind or state["mask"], frozen_edits(state))


def head_runs(state):  # head id -> run, for the heads the state shows
    return {h: run(state, h) for h in shown_heads(state)}


def word_at(tokens, i):
    """«banco», or «banco» (posición 3) when the sentence has it twice: how
    prose names a word of the sentence."""
    word = tokens[i]
    return "«%s»" % word + (" (posición %d)" % i if tokens.count(word) > 1 else "")


def position_label(i, word):
    return "%d · %s" % (i, word)


# ------------------------------------------------ weights, as read

def weight_texts(weights, mask):
    """A row of weights as read: open cells at two decimals, each its own
    rounding; blocked cells exactly «0»."""
    return [d.fmt(w, d.WEIGHT_DIGITS) if allowed else "0" for w, allowed in zip(weights, mask)]


def weights_note(run):
    """rows_note for one head's table of weights (its open cells)."""
    tokens = run["tokens"]
    return rows_note([(word_at(tokens, i),
                       [t for t, o in zip(weight_texts(run["weights"][i], run["mask"][i]),
                                          run["mask"][i]) if o])
                      for i in range(len(tokens))], "los pesos de la fila de %s")
