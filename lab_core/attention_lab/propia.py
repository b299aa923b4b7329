"""Panel «Tu propia frase»: a sentence built from the lab's words, and a
second sentence for the comparisons of panels 4 and 7.

The numbers still belong to the words: with `tokens` = El banco de parque,
the place head scores banco → parque 2/√2 ≈ 1,41, as in the preset.
"""
from __future__ import annotations

from ..memo import reads
from .context import MAX_TOKENS, other_tokens, tokens_of


def _words(tokens):
    return [{"index": i, "word": w, "label": "%d · %s" % (i, w)} for i, w in enumerate(tokens)]


@reads("sentence", "tokens", "other")
def builder_view(state):
    tokens, other = tokens_of(state), other_tokens(state)
    return {
        "words": _words(tokens),
        "other_words": _words(other),
        "count": "%d de %d palabras" % (len(tokens), MAX_TOKENS),
        "other_count": "%d de %d palabras" % (len(other), MAX_TOKENS),
        "full": len(tokens) >= MAX_TOKENS,
        "other_full": len(other) >= MAX_TOKENS,
        "single": len(tokens) <= 1,
        "other_single": len(other) <= 1,
    }


PARTS = (("builder", builder_view),)
