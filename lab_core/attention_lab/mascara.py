"""Panel 4: the mask, added before softmax, and what it lets a row see."""
from __future__ import annotations

from .. import display as d
from ..didactic import HEADS
from ..memo import reads
from ..words import join_words, prompt, same
from .context import (
    SENTENCE,
    MASK_LABELS, asked_head, options, other_label, other_tokens, run, sentence_label, shown_heads,
    tokens_of,
)


def visible(tokens, i, mask_kind):
    """The words position i may look at under a mask."""
    return tuple(tokens[:i + 1]) if mask_kind == "causal" else tuple(tokens)


def row_comparison(state, head_id):
    """Does the query's row of weights change when the sentence changes?

    Returns (changes, explanation), both from the numbers: the words each
    row can see and the weights it gives them.
    """
    i, mask_kind = state["query"], state["mask"]
    here, there = tokens_of(state), other_tokens(state)
    word = here[i]
    if i >= len(there):  # mask_panel asks whether the row exists at all
        return False, ("No: «%s» tiene %d palabras (posiciones 0 a %d), así que allí no hay "
                       "fila %d." % (other_label(state), len(there), len(there) - 1, i))
    seen_here, seen_there = visible(here, i, mask_kind), visible(there, i, mask_kind)
    mine = run(state, head_id)
    theirs = run(state, head_id, tokens=there)
    # The row's weights over what it can see (sentences may differ in length).
    same_weights = same(mine["weights"][i][:len(seen_here)], theirs["weights"][i][:len(seen_there)])
    who = "la fila de «%s»" % word if there[i] == word else \
        "la fila %d («%s» aquí, «%s» allí)" % (i, word, there[i])
    if seen_here == seen_there:
        if same_weights:
            seen = ("«%s», la misma palabra" % seen_here[0] if len(seen_here) == 1 else
                    "%s, las mismas palabras" % join_words(seen_here))
            return False, ("Es idéntica: con la máscara %s %s solo ve %s en las dos frases."
                           % (MASK_LABELS[mask_kind], who, seen))
        raise AssertionError("same visible words cannot give different weights")
    differ = ["%s/%s" % (a, b) for a, b in zip(seen_here, seen_there) if a != b]
    if len(seen_here) != len(seen_there):
        differ.append("%d frente a %d palabras" % (len(seen_here), len(seen_there)))
    if same_weights:
        scores = same(mine["scores"][i][:len(seen_here)], theirs["scores"][i][:len(seen_there)])
        return False, ("Es idéntica aunque %s vea palabras distintas (%s): en la cabeza «%s» "
                       "%s." % (who, ", ".join(differ), HEADS[head_id]["label"],
                                "esas palabras dan las mismas puntuaciones" if scores else
                                "los pesos coinciden aunque las puntuaciones no"))
    return True, ("Cambia: con la máscara %s %s ve palabras distintas en cada frase (%s), y "
                  "sus pesos cambian." % (MASK_LABELS[mask_kind], who, ", ".join(differ)))


@reads(*SENTENCE, "query", "mask", "head")
def mask_panel(state):
    tokens = tokens_of(state)
    head_id = shown_heads(state)[0]
    mask = run(state, head_id)["mask"]
    rows = [{"label": w, "selected": i == state["query"], "cells": [
        d.cell(0.0, "0", masked=False, diagonal=i == j) if mask[i, j]
        else d.cell(None, d.MASKED_TEXT, masked=True, diagonal=False)
        for j in range(len(tokens))]} for i, w in enumerate(tokens)]
    changes, explanation = row_comparison(state, head_id)
    i = state["query"]
    there = other_tokens(state)
    row = ("la fila de pesos de «%s»" % tokens[i] if i < len(there) and there[i] == tokens[i]
           else "la fila de pesos de la posición %d («%s» aquí)" % (i, tokens[i]))
    head_words = "la cabeza " + asked_head(state)
    if i >= len(there):
        # The row has no counterpart to compare: the question is whether it exists.
        question = ("Si pasas de «%s» a «%s», ¿sigue habiendo una fila de pesos en la "
                    "posición %d («%s» aquí)?" % (sentence_label(state), other_label(state), i,
                                                  tokens[i]))
        # Neither option says why: that is the question (the explanation does).
        choices = [("si", "sí"), ("no", "no")]
    else:
        question = ("Con la máscara %s y %s, si pasas de «%s» a «%s», ¿cambia %s?"
                    % (MASK_LABELS[state["mask"]], head_words, sentence_label(state),
                       other_label(state), row))
        choices = [("si", "sí, cambia"), ("no", "no, es idéntica")]
    return {
        "open": int(mask.sum()),
        "closed": int((~mask).sum()),
        "table": d.table("mask", "Máscara %s (se suma antes de softmax)"
                         % MASK_LABELS[state["mask"]], tokens, rows, "consulta \\ clave"),
        "predict": prompt({
            "id": "pred-mascara:%s:%s:%s:%d" % ("|".join(tokens), state["mask"], head_id,
                                                state["query"]),
            "question": question,
            "options": options(choices),
            "answers": ["si" if changes else "no"],
            "explanation": explanation,
        }),
    }


PARTS = (("mask", mask_panel),)
