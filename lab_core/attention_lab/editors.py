"""The reader's own input: a sentence built from the lab's words, a second
sentence to compare with, and the heads' vectors edited in place.

The numbers still belong to the words: with `tokens` = El banco de parque,
the place head scores banco → parque 2/√2 ≈ 1,41, as in the preset.
"""
from __future__ import annotations

from .. import display as d
from ..didactic import HEADS, VOCABULARY
from ..memo import reads
from .context import heads_of, other_tokens, shown_heads, tokens_of

MAX_TOKENS = 8
ROLE_NAMES = {"q": "consulta q", "k": "clave k", "v": "valor v"}


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


def _number(x):
    """How a coordinate reads in an input: 0,5 or 3 (no trailing zeros)."""
    return d.fmt_short(x, 4)


@reads("vec", "head")
def vectors_view(state):
    """For each shown head, every word's q, k and v, editable."""
    heads = heads_of(state)
    tables = []
    for head_id in shown_heads(state):
        rows = []
        for word in VOCABULARY:
            cells = []
            for role in ("q", "k", "v"):
                name = "%s.%s.%s" % (head_id, word, role)
                value = heads[head_id]["vectors"][word][role]
                original = HEADS[head_id]["vectors"][word][role]
                cells.append({
                    "name": name, "role": role,
                    "x": _number(value[0]), "y": _number(value[1]),
                    "edited": name in state["vec"],
                    "label": "%s de «%s»" % (ROLE_NAMES[role], word),
                    "original": d.fmt_vector_short(original),
                })
            rows.append({"word": word, "cells": cells})
        edited = sum(1 for k in state["vec"] if k.startswith(head_id + "."))
        label = HEADS[head_id]["label"]
        tables.append({"head": head_id, "label": label,
                       "caption": "Vectores de cada palabra · %s" % label,
                       "rows": rows, "edited": edited,
                       "picker": label if not edited else "%s (%d %s)" % (
                           label, edited, "cambiado" if edited == 1 else "cambiados")})
    return {"tables": tables, "edited": len(state["vec"])}
