"""Panel 7: generation step by step with a KV cache, checked against a full
recompute, and what a causal prefix does and does not share."""
from __future__ import annotations

import functools

import numpy as np

from .. import display as d
from ..didactic import HEADS, VOCABULARY
from ..heads import is_position_head, word_vectors
from ..kvcache import (
    attention_counts, cache_sizes, full_recompute, generate_with_cache, prefix_drift,
    projection_counts,
)
from ..generation import generate
from ..language import next_word_probs
from ..memo import reads
from ..words import join_words, plural, prompt, same
from .context import (
    SENTENCE, _heads, frozen_edits,
    heads_of, options, other_label, other_tokens, sentence_label, shown_heads,
    tokens_of, weight_texts,
)


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
    return all(is_position_head(heads[h])  # it reads positions only
               or word_vectors(heads[h], a) == word_vectors(heads[h], b)
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
    said = "Salida de la posición %d en «%s» («%s»): %s" % (
        p, result["sentence"], here[p], result["mine"])
    if p >= len(there):
        result.update(other_query="", theirs="", same=False,
                      text="%s; «%s» no llega a la posición %d" % (said, result["other"], p),
                      verdict="no hay salida con la que compararla")
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
    elif outputs_same and all(is_position_head(HEADS[h]) for h in head_ids):
        verdict = ("iguales, aunque los prefijos difieren (%s): la cabeza «%s» no mira las "
                   "palabras, solo sus posiciones" % (differ, HEADS[head_ids[0]]["label"]))
    elif outputs_same and _same_vectors(state, here[:step], there[:step], head_ids):
        verdict = ("iguales, aunque los prefijos difieren (%s): en %s esas palabras tienen "
                   "los mismos vectores q, k y v" % (differ, join_words(
                       ["«%s»" % HEADS[h]["label"] for h in head_ids])))
    elif outputs_same:
        # Nothing need cancel out (with «xyz» for «El», both keys score 0
        # with banco's query and both values are 0): say only what is seen.
        verdict = ("iguales, aunque los prefijos difieren (%s): en esta cabeza esas palabras "
                   "distintas llevan a la misma mezcla" % differ)
    else:
        verdict = "distintas: los prefijos ya difieren (%s)" % differ
    theirs_text = " | ".join(d.fmt_vector(o) for o in theirs)
    result.update(other_query=there[p], theirs=theirs_text, same=bool(outputs_same),
                  text="%s; en «%s» («%s»): %s" % (said, result["other"], there[p], theirs_text),
                  verdict=verdict)
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
    n_head = len(heads)
    d_k, d_v = per_head[0][2]["k"].shape[1], per_head[0][2]["v"].shape[1]
    columns = [[n * n_head for n in counts] for counts in
               projection_counts(step) + attention_counts(step) + (cache_sizes(step, d_k, d_v),)]
    count_rows = [{"label": "paso %d" % (t + 1), "selected": t == new,
                   "cells": [d.cell(c[t], d.fmt_int(c[t])) for c in columns]}
                  for t in range(step)]
    count_rows.append({"label": "total", "cells": [
        d.cell(sum(c), d.fmt_int(sum(c))) for c in columns[:4]] + [d.cell(None, "")]})
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
        "counts": d.table("projections", "Trabajo y memoria de cada paso%s"
                          % (" (%d cabezas)" % n_head if n_head > 1 else ""),
                          ["proyecciones con caché", "proyecciones sin caché", "q·k con caché",
                           "q·k sin caché", "números en la caché"], count_rows, "paso"),
        "tradeoff": _tradeoff(step, n_head, d_k, d_v, [c[new] for c in columns]),
        "check": {"max_diff": d.fmt_error(worst), "exact": worst < d.ROUND_OFF},
        "prefix": prefix_comparison(state, step, heads),
        "drift": {
            "causal": d.fmt_error(causal_drift),
            "bidirectional": d.fmt_error(bidir_drift),
            "appended": tokens[-1],
            "verdict": _drift_verdict(causal_drift, bidir_drift, len(tokens)),
        },
        "predict": prompt({
            "id": "pred-cache:%s:%s:%s" % ("|".join(tokens), state["mask"], state["head"]),
            # The cache's table is always causal (generation is): the
            # question under «bidireccional» asks what that mask would do.
            "question": ("Con la máscara causal, al añadir «%s» al final, ¿cambian las "
                         "salidas ya calculadas de las posiciones anteriores?" % tokens[-1]
                         if state["mask"] == "causal" else
                         "La tabla de la caché es causal. Si la atención fuera bidireccional, "
                         "como la tienes arriba, al añadir «%s» al final, ¿cambiarían las "
                         "salidas ya calculadas de las posiciones anteriores?" % tokens[-1]),
            "options": options([("si", "sí"), ("no", "no")]),
            "answers": ["si" if moves else "no"],
            "explanation": _why_drift(state["mask"], moves, len(tokens)),
        }),
    }


def _tradeoff(step, n_head, d_k, d_v, counts):
    """What the cache saves at this step, what it does not, and what it costs."""
    projected, reprojected, dots, redone, held = counts
    heads = " (en %d cabezas)" % n_head if n_head > 1 else ""
    memory = ("Y cuesta memoria: por cada token guarda su k y su v, %s por cabeza y por capa; "
              "tras este paso, %s." % (plural(d_k + d_v, "número"), d.fmt_int(held)))
    if step == 1:
        return ("En el paso 1%s todavía no hay nada guardado que reutilizar: se proyecta la "
                "primera palabra (%s) y su consulta se compara consigo misma (%s). %s" % (
                    heads, plural(projected, "proyección", "proyecciones"),
                    plural(dots, "producto q·k", "productos q·k"), memory))
    return ("En el paso %d%s la caché evita rehacer lo ya calculado: %s en vez de %s, y %s "
            "en vez de %s. Lo que no evita: la consulta nueva se compara con cada una de las %s, "
            "así que cada paso cuesta más que el anterior a medida que crece la frase. %s" % (
                step, heads, plural(projected, "proyección", "proyecciones"),
                d.fmt_int(reprojected), plural(dots, "producto q·k", "productos q·k"),
                d.fmt_int(redone), plural(step, "clave guardada", "claves guardadas"), memory))


def _why_drift(mask, moves, n_tokens):
    """The answer, then why; the measured changes are said below it."""
    if n_tokens == 1:
        return "No: con una sola palabra no hay posiciones anteriores que puedan cambiar."
    if mask == "causal":
        return ("No: con la máscara causal ninguna posición anterior puede mirar la palabra "
                "nueva, así que sus pesos y sus salidas no cambian. Debajo, lo medido.")
    if moves:
        return ("Sí: con la bidireccional las posiciones anteriores también miran la palabra "
                "nueva, y eso cambia sus pesos y sus salidas. Debajo, lo medido.")
    return ("No, en esta frase: la palabra nueva no cambia nada ni con la bidireccional, aunque "
            "las posiciones anteriores la miran; en general sí lo haría. Debajo, lo medido.")


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


GEN_MODES = {"greedy": "la más probable (voraz)", "sample": "al azar, según la probabilidad"}
TOP = 3  # candidates shown per step


@functools.lru_cache(maxsize=16)
def _generated(tokens, edits, n_new, temperature, seed):
    return generate(tokens, _heads(edits), n_new, temperature, seed)


@reads(*SENTENCE, "gen_words", "gen_mode", "gen_temp", "gen_seed")
def generation_panel(state):
    """The toy model continues the sentence word by word, with its caches."""
    tokens = tokens_of(state)
    greedy = state["gen_mode"] == "greedy"
    temperature = 0.0 if greedy else state["gen_temp"]
    out, steps = _generated(tokens, frozen_edits(state), state["gen_words"], temperature,
                            state["gen_seed"])
    heads = heads_of(state)
    worst = 0.0
    rows = []
    for n, step in enumerate(steps):
        # The same logits from scratch, over the whole sequence so far.
        _, logits, _ = next_word_probs(out[:len(tokens) + n], heads, "causal")
        worst = max(worst, float(np.max(np.abs(logits[-1] - step["logits"]))))
        order = np.argsort(-step["probs"], kind="stable")[:TOP]
        rows.append({"label": "paso %d" % (n + 1), "cells": [
            d.cell(None, step["input"]),
            d.cell(None, "; ".join("%s %s" % (VOCABULARY[w], d.fmt(step["probs"][w]))
                                   for w in order)),
            d.cell(None, "%s (%s)" % (step["chosen"],
                                      d.fmt(step["probs"][VOCABULARY.index(step["chosen"])]))),
            d.cell(step["cache_rows"], d.fmt_int(step["cache_rows"]))]})
    how = ("eligiendo siempre la más probable (en un empate, la primera del vocabulario)"
           if greedy else "sorteando cada palabra según sus probabilidades a temperatura %s "
           "(semilla %d)" % (d.fmt_short(temperature), state["gen_seed"]))
    if not steps:
        summary = "Pide al menos una palabra nueva para ver al modelo generar."
    else:
        summary = ("«%s» sigue así: «%s», %s. Cada paso proyecta solo la palabra que entra y "
                   "la añade a la caché de cada cabeza (%s tras el último paso). Recalculando "
                   "toda la frase en cada paso saldrían los mismos logits: diferencia máxima "
                   "%s." % (" ".join(tokens), " ".join(out[len(tokens):]), how,
                            plural(steps[-1]["cache_rows"], "fila"), d.fmt_error(worst)))
    return {
        "sentence": " ".join(out),
        "new": " ".join(out[len(tokens):]),
        "summary": summary,
        "table": d.table("generation", "Generación paso a paso",
                         ["entra", "más probables" if greedy else  # the draw's own odds
                          "más probables a temperatura %s" % d.fmt_short(temperature),
                          "elegida", "filas en la caché"], rows,
                         "paso"),
    }


PARTS = (("cache", cache_panel), ("generation", generation_panel))
