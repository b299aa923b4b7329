"""Panel 7: generation step by step with a KV cache, checked against a full
recompute, and what a causal prefix does and does not share."""
from __future__ import annotations

import functools

import numpy as np

from .. import display as d
from ..didactic import HEADS
from ..kvcache import full_recompute, generate_with_cache, prefix_drift, projection_counts
from ..memo import reads
from ..words import join_words, same
from .context import (
    SENTENCE, _heads, frozen_edits,
    MASK_LABELS, heads_of, options, other_label, other_tokens, sentence_label, shown_heads,
    tokens_of,
)
from .scores import weight_texts


@functools.lru_cache(maxsize=32)
def _cached_generation(tokens, head_id, edits):
    return generate_with_cache(tokens, _heads(edits)[head_id])


def _generate(state, tokens, head_id):
    return _cached_generation(tuple(tokens), head_id, frozen_edits(state))


def _differences(a, b):
    return ["%s/%s" % (x, y) for x, y in zip(a, b) if x != y]


def _same_vectors(state, words_a, words_b, head_ids):
    """Do the words that differ carry the same q, k and v in every head?"""
    heads = heads_of(state)
    return all(heads[h]["vectors"][a] == heads[h]["vectors"][b]
               for h in head_ids for a, b in zip(words_a, words_b) if a != b)


def prefix_comparison(state, step, head_ids):
    """The output at position step − 1 in this sentence and in the other one.

    The verdict follows from two checked facts: whether the token prefixes
    are equal, and whether the outputs are. Equal outputs from different
    prefixes are said to be what they are: a property of the vectors.
    """
    here, there = tokens_of(state), other_tokens(state)
    p = step - 1
    mine = [_generate(state, here, h)[0][p] for h in head_ids]
    result = {"position": p, "query": here[p], "sentence": sentence_label(state),
              "other": other_label(state), "mine": " | ".join(d.fmt_vector(o) for o in mine)}
    if p >= len(there):
        result.update(other_query="", theirs="—", same=False,
                      verdict="la otra frase no llega a la posición %d: no hay salida que "
                              "comparar" % p)
        return result
    theirs = [_generate(state, there, h)[0][p] for h in head_ids]
    prefix_same = here[:step] == there[:step]
    outputs_same = all(same(a, b) for a, b in zip(mine, theirs))
    differ = ", ".join(_differences(here[:step], there[:step]))
    if prefix_same and not outputs_same:
        raise AssertionError("a causal prefix cannot give two outputs")
    if prefix_same and step == 1:
        verdict = ("iguales: en la posición 0 las dos frases tienen el mismo token (%s), y "
                   "con la caché causal nada posterior cuenta" % here[0])
    elif prefix_same:
        verdict = ("iguales: hasta la posición %d las dos frases tienen los mismos tokens "
                   "(%s), y con la caché causal nada posterior cuenta"
                   % (p, join_words(here[:step])))
    elif outputs_same and _same_vectors(state, here[:step], there[:step], head_ids):
        verdict = ("iguales, aunque los prefijos difieren (%s): en %s esas palabras tienen "
                   "los mismos vectores q, k y v" % (differ, join_words(
                       ["«%s»" % HEADS[h]["label"] for h in head_ids])))
    elif outputs_same:
        verdict = ("iguales, aunque los prefijos difieren (%s): sus pesos y valores se "
                   "compensan en esta cabeza" % differ)
    else:
        verdict = "distintas: los prefijos ya difieren (%s)" % differ
    result.update(other_query=there[p], theirs=" | ".join(d.fmt_vector(o) for o in theirs),
                  same=bool(outputs_same), verdict=verdict)
    return result


@reads(*SENTENCE, "step", "mask", "head")
def cache_panel(state):
    tokens = tokens_of(state)
    step, heads = state["step"], shown_heads(state)
    new = step - 1
    per_head, worst = [], 0.0
    for head_id in heads:
        outs, weights, caches = _generate(state, tokens, head_id)
        full = full_recompute(tokens, heads_of(state)[head_id], "causal")
        worst = max(worst, float(np.max(np.abs(outs - full))))
        per_head.append((outs, weight_texts(weights[new], np.ones(step, dtype=bool)),
                         caches[new]))
    cache_rows = [{"label": "%d · %s" % (t, tokens[t]), "selected": t == new, "cells": [
        d.cell(None, " | ".join(d.fmt_vector_short(c["k"][t]) for _, _, c in per_head)),
        d.cell(None, " | ".join(d.fmt_vector_short(c["v"][t]) for _, _, c in per_head)),
        d.cell(None, " | ".join(texts[t] for _, texts, _ in per_head))]}
        for t in range(step)]
    with_cache, without = projection_counts(step)
    n_head = len(heads)
    count_rows = [{"label": "paso %d" % (t + 1), "selected": t == new, "cells": [
        d.cell(with_cache[t] * n_head, str(with_cache[t] * n_head)),
        d.cell(without[t] * n_head, str(without[t] * n_head))]} for t in range(step)]
    count_rows.append({"label": "total", "cells": [
        d.cell(sum(with_cache) * n_head, str(sum(with_cache) * n_head)),
        d.cell(sum(without) * n_head, str(sum(without) * n_head))]})
    head_data = heads_of(state)
    causal_drift = max(prefix_drift(tokens, head_data[h], "causal") for h in heads)
    bidir_drift = max(prefix_drift(tokens, head_data[h], "bidirectional") for h in heads)
    drifts = {"causal": causal_drift, "bidirectional": bidir_drift}
    moves = drifts[state["mask"]] >= d.ROUND_OFF
    return {
        "step": step,
        "new_token": tokens[new],
        "heads": join_words([HEADS[h]["label"] for h in heads]),
        "cache": d.table("kv", "Caché tras el paso %d: %s de K y V"
                         % (step, "1 fila" if step == 1 else "%d filas" % step),
                         ["K", "V", "peso de «%s» (causal)" % tokens[new]], cache_rows,
                         "posición"),
        "counts": d.table("projections", "Proyecciones calculadas (q, k y v%s)"
                          % (", en %d cabezas" % n_head if n_head > 1 else ""),
                          ["con caché", "sin caché"], count_rows, "paso"),
        "check": {"max_diff": d.fmt_error(worst), "exact": worst < d.ROUND_OFF},
        "prefix": prefix_comparison(state, step, heads),
        "drift": {
            "causal": d.fmt_error(causal_drift),
            "bidirectional": d.fmt_error(bidir_drift),
            "appended": tokens[-1],
            "verdict": _drift_verdict(causal_drift, bidir_drift, len(tokens)),
        },
        "predict": {
            "id": "pred-cache:%s:%s:%s" % ("|".join(tokens), state["mask"], state["head"]),
            "question": "Con la máscara %s, al añadir «%s» al final, ¿cambian las "
                        "salidas ya calculadas de las posiciones anteriores?"
                        % (MASK_LABELS[state["mask"]], tokens[-1]),
            "options": options([("si", "sí"), ("no", "no")]),
            "answers": ["si" if moves else "no"],
            "explanation": _why_drift(state["mask"], moves, len(tokens)),
        },
    }


def _why_drift(mask, moves, n_tokens):
    """Why the answer is what it is; the measured changes are said below it."""
    if n_tokens == 1:
        return "Con una sola palabra no hay posiciones anteriores que puedan cambiar."
    if mask == "causal":
        return ("Con la máscara causal ninguna posición anterior puede mirar la palabra nueva: "
                "sus pesos y sus salidas no cambian. Debajo, lo medido.")
    if moves:
        return ("Con la bidireccional las posiciones anteriores también miran la palabra nueva, "
                "y eso cambia sus pesos y sus salidas. Debajo, lo medido.")
    return ("En esta frase, la palabra nueva no cambia nada ni con la bidireccional, aunque las "
            "posiciones anteriores la miran: en general sí lo haría. Debajo, lo medido.")


def _drift_verdict(causal, bidirectional, n_tokens):
    if n_tokens == 1:
        return ("Con una sola palabra no hay salidas anteriores que puedan cambiar: añade "
                "palabras a tu frase para verlo.")
    stable = causal < d.ROUND_OFF
    moved = bidirectional >= d.ROUND_OFF
    if stable and moved:
        return ("Solo con la máscara causal lo ya calculado queda fijo y se puede guardar "
                "en la caché; con la bidireccional la caché quedaría obsoleta en cada paso.")
    if stable:
        return ("Con la máscara causal lo ya calculado queda fijo. En esta frase la "
                "bidireccional tampoco cambia nada, pero en general sí lo haría.")
    raise AssertionError("a causal prefix cannot drift")
