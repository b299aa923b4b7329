"""The laboratorio of "Cómo funciona un Transformer": state and view.

`SPEC` lists the state keys; `build_view(state)` returns the view dict. Each
panel has one builder; `build_view` calls them all. The keys of the view are
documented in `lab_core/views.py`.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from . import display as d
from .attention import MASK_KINDS
from .didactic import DEFAULT_STATE, HEADS, ROPE_DEFAULTS, SENTENCES, VOCABULARY
from .heads import get_head, multi_head, run_head
from .kvcache import full_recompute, generate_with_cache, prefix_drift, projection_counts
from .language import next_word_probs, training_step
from .rope import rope_rotate, rope_score
from .memo import reads
from .state import Spec, choice, float_range, int_range, parse_int, vector2

MASK_LABELS = {"causal": "causal", "bidirectional": "bidireccional"}
ALL_HEADS = "all"
PANELS = {
    "puntuacion": "1 · De dónde sale una puntuación",
    "mezcla": "2 · La mezcla y el vocabulario",
    "cabezas": "3 · Las cabezas",
    "mascara": "4 · La máscara",
    "rope": "5 · RoPE de una frecuencia",
    "entrenamiento": "6 · Entrenar en paralelo",
    "cache": "7 · Generar con caché KV",
}
THETA_MAX = round(math.pi, 2)  # one frequency in [0, π]: beyond π it aliases
POSITION_MAX = 32
VECTOR_LIMIT = 5.0


def _position(key):
    def parse(value, state):
        n_seq = len(SENTENCES[state["sentence"]]["tokens"])
        return parse_int(key, value, 0, n_seq - 1)
    return parse


def _step(value, state):
    return parse_int("step", value, 1, len(SENTENCES[state["sentence"]]["tokens"]))


SPEC = Spec(
    # Parse order: sentence first, since positions and steps depend on it.
    parsers={
        "sentence": choice("sentence", tuple(SENTENCES)),
        "query": _position("query"),
        "mask": choice("mask", MASK_KINDS),
        "head": choice("head", tuple(HEADS) + (ALL_HEADS,)),
        "key": _position("key"),
        "theta": float_range("theta", 0.0, THETA_MAX),
        "rope_m": int_range("rope_m", 0, POSITION_MAX),
        "rope_n": int_range("rope_n", 0, POSITION_MAX),
        "rope_q": vector2("rope_q", -VECTOR_LIMIT, VECTOR_LIMIT),
        "rope_k": vector2("rope_k", -VECTOR_LIMIT, VECTOR_LIMIT),
        "step": _step,
        "panel": choice("panel", tuple(PANELS)),
    },
    defaults={
        **DEFAULT_STATE,  # sentence, query, mask, head: the article's exercise
        "key": 3,
        "theta": ROPE_DEFAULTS["theta"],
        "rope_m": ROPE_DEFAULTS["rope_m"],
        "rope_n": ROPE_DEFAULTS["rope_n"],
        "rope_q": list(ROPE_DEFAULTS["q"]),
        "rope_k": list(ROPE_DEFAULTS["k"]),
        "step": 2,
        "panel": "puntuacion",
    },
)


def shown_heads(state):
    return list(HEADS) if state["head"] == ALL_HEADS else [state["head"]]


@functools.lru_cache(maxsize=32)
def _run(sentence_id, head_id, mask_kind):
    """run_head, cached: several panels need the same head's attention."""
    return run_head(sentence_id, head_id, mask_kind)


def head_runs(state):  # head id -> run, for the heads the state shows
    return {h: _run(state["sentence"], h, state["mask"]) for h in shown_heads(state)}


def head_label(head_id):
    return "todas las cabezas" if head_id == ALL_HEADS else HEADS[head_id]["label"]


# ---------------------------------------------------------------- controls

def _options(pairs):
    return [{"value": value, "label": label} for value, label in pairs]


@reads("sentence")
def controls(state):
    tokens = SENTENCES[state["sentence"]]["tokens"]
    positions = _options((i, "%d · %s" % (i, w)) for i, w in enumerate(tokens))
    return {
        "sentence": {"label": "Frase",
                     "options": _options((k, s["label"]) for k, s in SENTENCES.items())},
        "query": {"label": "Consulta", "options": positions},
        "key": {"label": "Clave", "options": positions},
        "mask": {"label": "Máscara", "options": _options(MASK_LABELS.items())},
        "head": {"label": "Cabeza",
                 "options": _options([(k, h["label"]) for k, h in HEADS.items()]
                                     + [(ALL_HEADS, "todas (concatenar y W_O)")])},
        "step": {"label": "Paso",
                 "options": _options((t, "%d · llega «%s»" % (t, tokens[t - 1]))
                                     for t in range(1, len(tokens) + 1))},
        "panel": {"label": "Panel", "options": _options(PANELS.items())},
        "theta": {"label": "Frecuencia θ", "min": 0, "max": THETA_MAX, "step": 0.01},
        "rope_m": {"label": "Posición m de la consulta", "min": 0, "max": POSITION_MAX},
        "rope_n": {"label": "Posición n de la clave", "min": 0, "max": POSITION_MAX},
        "rope_q": {"label": "Vector q", "min": -VECTOR_LIMIT, "max": VECTOR_LIMIT},
        "rope_k": {"label": "Vector k", "min": -VECTOR_LIMIT, "max": VECTOR_LIMIT},
    }


# ---------------------------------------------------------- score tables

def _score_tables(run, query, key, head_id, many):
    tokens, mask = run["tokens"], run["mask"]
    label = HEADS[head_id]["label"] if many else None
    suffix = "" if label is None else " · " + label
    id_suffix = "-" + head_id if many else ""

    def rows(matrix, masked_text, masked_value):
        out = []
        for i, word in enumerate(tokens):
            cells = [d.cell(matrix[i, j]) if mask[i, j]
                     else d.cell(masked_value, masked_text, masked=True)
                     for j in range(len(tokens))]
            for j, c in enumerate(cells):
                c.setdefault("masked", False)
                c["focus"] = i == query and j == key  # the cell panel 1 explains
            out.append({"label": word, "selected": i == query, "cells": cells})
        return out

    corner = "consulta \\ clave"
    return {
        "head": label or "",
        "scores": d.table("scores" + id_suffix, "Puntuaciones" + suffix, tokens,
                          rows(run["scores"], d.MASKED_TEXT, None), corner),
        "weights": d.table("weights" + id_suffix, "Pesos" + suffix, tokens,
                           rows(run["weights"], "0", 0.0), corner),
    }


@reads("sentence", "query", "key", "mask", "head")
def score_tables(state):
    runs, heads = head_runs(state), shown_heads(state)
    return [_score_tables(runs[h], state["query"], state["key"], h, len(heads) > 1)
            for h in heads]


# ------------------------------------------- panel 1: where a score comes from

def _arithmetic(run, head_id, i, j):
    q, k, tokens = run["q"][i], run["k"][j], run["tokens"]
    d_k = len(q)
    terms = " + ".join("%s·%s" % (d.fmt_short(a), d.fmt_short(b)) for a, b in zip(q, k))
    raw = run["scores"][i, j]
    expression = "(%s) / √%d = %s" % (terms, d_k, d.fmt(raw))
    masked = not run["mask"][i, j]
    row = run["scores"][i]
    open_scores = np.where(run["mask"][i], row, -np.inf)
    top = np.max(open_scores)
    exps = np.where(run["mask"][i], np.exp(row - top), 0.0)
    softmax_rows = []
    for col, word in enumerate(tokens):
        blocked = not run["mask"][i, col]
        softmax_rows.append({
            "label": word,
            "selected": col == j,
            "cells": [
                d.cell(None, d.MASKED_TEXT, masked=True) if blocked else d.cell(row[col]),
                d.cell(0.0, "0", masked=True) if blocked else d.cell(exps[col], d.fmt(exps[col], 3)),
                d.cell(run["weights"][i, col], "0" if blocked else None, masked=blocked),
            ],
        })
    softmax_rows.append({"label": "suma", "cells": [
        d.cell(None, ""), d.cell(exps.sum(), d.fmt(exps.sum(), 3)),
        d.cell(run["weights"][i].sum())]})
    if masked:
        why = ("«%s» (posición %d) va después de «%s» (posición %d). Con la máscara "
               "causal una consulta solo ve su pasado y a sí misma, así que la puntuación "
               "efectiva es −∞ y e^(−∞) = 0: el peso es exactamente 0. Sin máscara "
               "valdría %s." % (tokens[j], j, tokens[i], i, d.fmt(raw)))
    else:
        why = ("El peso de «%s» es e^(%s − máx) dividido por la suma de la fila: "
               "depende también de las demás puntuaciones. Si otra clave sube, "
               "este peso baja." % (tokens[j], d.fmt(raw)))
    return {
        "head": HEADS[head_id]["label"],
        "q": d.fmt_vector_short(q),
        "k": d.fmt_vector_short(k),
        "expression": expression,
        "score": d.MASKED_TEXT if masked else d.fmt(raw),
        "weight": "0" if masked else d.fmt(run["weights"][i, j]),
        "masked": bool(masked),
        "why": why,
        "softmax": d.table("softmax-" + head_id, "Softmax de la fila de «%s»" % tokens[i],
                           ["puntuación", "e^(p − máx)", "peso"], softmax_rows, "clave"),
    }


@reads("sentence", "query", "key", "mask", "head")
def arithmetic_panel(state):
    runs = head_runs(state)
    i, j = state["query"], state["key"]
    tokens = SENTENCES[state["sentence"]]["tokens"]
    heads = shown_heads(state)
    first = runs[heads[0]]
    best = [tokens[c] for c in np.flatnonzero(np.isclose(first["weights"][i],
                                                         first["weights"][i].max()))]
    return {
        "query": tokens[i],
        "key": tokens[j],
        "blocks": [_arithmetic(runs[h], h, i, j) for h in heads],
        "predict": {
            "id": "pred-puntuacion:%s:%s:%s:%d" % (state["sentence"], state["mask"],
                                                   heads[0], i),
            "question": "En «%s», ¿qué clave recibirá más peso en la fila de «%s»?"
                        % (HEADS[heads[0]]["label"], tokens[i]),
            "options": _options((w, w) for w in dict.fromkeys(tokens)),
            "answers": best,
            "explanation": "Más peso: %s (%s). Cuentan todas las puntuaciones abiertas "
                           "de la fila, no solo la mayor."
                           % (d.join_words(best), d.fmt(first["weights"][i].max())),
        },
    }


# ----------------------------------------------- panel 2: mixture and vocabulary

def _mixture(run, head_id, i):
    tokens, weights, v = run["tokens"], run["weights"][i], run["v"]
    rows = []
    for j, word in enumerate(tokens):
        blocked = not run["mask"][i, j]
        rows.append({"label": word, "cells": [
            d.cell(weights[j], "0" if blocked else None, masked=blocked),
            d.cell(None, d.fmt_vector_short(v[j])),
            d.cell(None, d.fmt_vector(weights[j] * v[j])),
        ]})
    rows.append({"label": "suma", "selected": True, "cells": [
        d.cell(weights.sum()), d.cell(None, ""), d.cell(None, d.fmt_vector(run["out"][i]))]})
    return {
        "head": HEADS[head_id]["label"],
        "out": d.fmt_vector(run["out"][i]),
        "d_v": int(v.shape[1]),
        "table": d.table("mixture-" + head_id, "Contribuciones a la salida de «%s» · %s"
                         % (tokens[i], HEADS[head_id]["label"]),
                         ["peso", "valor V", "peso × V"], rows, "posición"),
    }


@reads("sentence", "query", "mask", "head")
def mixture_panel(state):
    runs = head_runs(state)
    i = state["query"]
    tokens = SENTENCES[state["sentence"]]["tokens"]
    _, logits, probs = next_word_probs(state["sentence"], state["mask"])
    order = np.argsort(-probs[i], kind="stable")
    rows = [{"label": VOCABULARY[w], "selected": bool(w == order[0]),
             "cells": [d.cell(logits[i, w]), d.cell(probs[i, w])]} for w in order]
    rows.append({"label": "suma", "cells": [d.cell(None, ""), d.cell(probs[i].sum())]})
    return {
        "blocks": [_mixture(runs[h], h, i) for h in shown_heads(state)],
        "vocab": {
            "query": tokens[i],
            "best": VOCABULARY[order[0]],
            "table": d.table("vocab", "Siguiente palabra tras «%s» (vocabulario)" % tokens[i],
                             ["logit", "probabilidad"], rows, "palabra"),
        },
    }


# --------------------------------------------------------- panel 3: the heads

@reads("sentence", "query", "mask", "head")
def heads_panel(state):
    tokens = SENTENCES[state["sentence"]]["tokens"]
    heads = []
    for head_id in shown_heads(state):
        run = _run(state["sentence"], head_id, state["mask"])
        head = get_head(head_id)
        rows = [{"label": w, "selected": i == state["query"], "cells": [
            d.cell(None, d.fmt_vector_short(run[name][i])) for name in ("q", "k", "v")]}
            for i, w in enumerate(tokens)]
        heads.append({
            "id": head_id,
            "label": head["label"],
            "summary": head["summary"],
            "axes": "Q y K: (%s); V: (%s)" % ("; ".join(head["axes"]),
                                              "; ".join(head["value_axes"])),
            "table": d.table("qkv-" + head_id, "Q, K y V · %s" % head["label"],
                             ["Q", "K", "V"], rows, "token"),
        })
    combine = None
    if state["head"] == ALL_HEADS:
        mh = multi_head(state["sentence"], state["mask"])
        n_seq, width = mh["concat"].shape
        d_model = mh["w_o"].shape[1]
        combine = {
            "shapes": [
                "%d cabezas × [n_seq=%d, d_v=2]" % (len(HEADS), n_seq),
                "concatenar → [n_seq=%d, n_head·d_v=%d]" % (n_seq, width),
                "× W_O [%d, d_model=%d] → [n_seq=%d, d_model=%d]"
                % (width, d_model, n_seq, d_model),
            ],
            "concat": d.table("concat", "Concatenación de las mezclas [%d × %d]" % (n_seq, width),
                              ["%s·%d" % (h[:3], c + 1) for h in HEADS for c in range(2)],
                              [{"label": w, "selected": i == state["query"],
                                "cells": [d.cell(x) for x in mh["concat"][i]]}
                               for i, w in enumerate(tokens)], "token"),
            "output": d.table("mha-out", "Salida tras W_O [%d × %d]" % (n_seq, d_model),
                              list(VOCABULARY),
                              [{"label": w, "selected": i == state["query"],
                                "cells": [d.cell(x) for x in mh["out"][i]]}
                               for i, w in enumerate(tokens)], "token"),
        }
    return {"heads": heads, "combine": combine}


# ---------------------------------------------------------- panel 4: the mask

@reads("sentence", "query", "mask", "head")
def mask_panel(state):
    tokens = SENTENCES[state["sentence"]]["tokens"]
    mask = head_runs(state)[shown_heads(state)[0]]["mask"]
    rows = [{"label": w, "selected": i == state["query"], "cells": [
        d.cell(0.0, "0", masked=False, diagonal=i == j) if mask[i, j]
        else d.cell(None, d.MASKED_TEXT, masked=True, diagonal=False)
        for j in range(len(tokens))]} for i, w in enumerate(tokens)]
    # Does banco's row change between the sentences under the current mask?
    other = "credito" if state["sentence"] == "parque" else "parque"
    head_id = shown_heads(state)[0]
    here = _run(state["sentence"], head_id, state["mask"])["weights"][1]
    there = _run(other, head_id, state["mask"])["weights"][1]
    changes = not np.array_equal(here, there)
    return {
        "open": int(mask.sum()),
        "closed": int((~mask).sum()),
        "table": d.table("mask", "Máscara %s (se suma antes de softmax)"
                         % MASK_LABELS[state["mask"]], tokens, rows, "consulta \\ clave"),
        "predict": {
            "id": "pred-mascara:%s:%s" % (state["mask"], head_id),
            "question": "Con la máscara %s y la cabeza «%s», si cambias de frase, "
                        "¿cambia la fila de banco?" % (MASK_LABELS[state["mask"]],
                                                       HEADS[head_id]["label"]),
            "options": _options([("si", "sí, cambia"), ("no", "no, es idéntica")]),
            "answers": ["si" if changes else "no"],
            "explanation": (
                "Cambia: con acceso bidireccional banco ve las palabras que vienen "
                "después, y ahí difieren las frases." if changes else
                "Es idéntica: banco solo puede ver «El» y «banco», iguales en ambas "
                "frases." if state["mask"] == "causal" else
                "Es idéntica en esta cabeza, aunque banco vea el futuro: sus pesos "
                "no dependen de las palabras que difieren."),
        },
    }


# -------------------------------------------------------------- panel 5: RoPE

@reads("theta", "rope_m", "rope_n", "rope_q", "rope_k")
def rope_panel(state):
    theta, m, n = state["theta"], state["rope_m"], state["rope_n"]
    q, k = np.array(state["rope_q"]), np.array(state["rope_k"])
    q_m, k_n = rope_rotate(q, m, theta), rope_rotate(k, n, theta)
    score = float(q_m @ k_n)
    offset = n - m
    offsets = sorted(set(range(-3, 4)) | {offset})
    rows = []
    for off in offsets:
        starts = [max(0, -off) + shift for shift in (0, 3, 7)]
        rows.append({"label": "n − m = %d" % off, "selected": off == offset, "cells": [
            d.cell(rope_score(q, k, s, s + off, theta),
                   "%s  (m=%d, n=%d)" % (d.fmt(rope_score(q, k, s, s + off, theta)), s, s + off))
            for s in starts]})
    shifted = rope_score(q, k, m + 1, n + 1, theta)
    extent = max(1.0, float(np.linalg.norm(q)), float(np.linalg.norm(k)))
    return {
        "theta": d.fmt(theta),
        "angle_q": d.fmt(m * theta), "angle_k": d.fmt(n * theta),
        "q": d.fmt_vector(q), "k": d.fmt_vector(k),
        "q_m": d.fmt_vector(q_m), "k_n": d.fmt_vector(k_n),
        "score": d.fmt(score, 3),
        "plain_score": d.fmt(float(q @ k), 3),
        "norms": "|q| = %s = |q_m|; |k| = %s = |k_n|" % (
            d.fmt(np.linalg.norm(q), 3), d.fmt(np.linalg.norm(k), 3)),
        "drawing": {
            "extent": d.num(extent),
            "vectors": [
                {"name": "q", "x": d.num(q[0]), "y": d.num(q[1]), "role": "q", "moved": False},
                {"name": "k", "x": d.num(k[0]), "y": d.num(k[1]), "role": "k", "moved": False},
                {"name": "q_m", "x": d.num(q_m[0]), "y": d.num(q_m[1]), "role": "q", "moved": True},
                {"name": "k_n", "x": d.num(k_n[0]), "y": d.num(k_n[1]), "role": "k", "moved": True},
            ],
        },
        "table": d.table("rope", "q_m · k_n según el desplazamiento n − m (θ = %s)"
                         % d.fmt(theta), ["par 1", "par 2", "par 3"], rows, "desplazamiento"),
        "predict": {
            "id": "pred-rope:%s:%d:%d:%s:%s" % (state["theta"], m, n, state["rope_q"],
                                                state["rope_k"]),
            "question": "Si sumas 1 a m y también a n, ¿qué le pasa a q_m · k_n?",
            "options": _options([("sube", "sube"), ("baja", "baja"), ("igual", "no cambia")]),
            "answers": ["igual" if abs(shifted - score) < 1e-9 else
                        "sube" if shifted > score else "baja"],
            "explanation": "Vale %s antes y %s después: solo importa n − m = %d, "
                           "porque girar ambos vectores el mismo ángulo no cambia el "
                           "ángulo entre ellos." % (d.fmt(score, 3), d.fmt(shifted, 3), offset),
        },
    }


# ------------------------------------------------------ panel 6: training

@reads("sentence")
def training_panel(state):
    step = training_step(state["sentence"], "causal")
    leak = training_step(state["sentence"], "bidirectional")
    rows = [{"label": "%d · %s" % (i, word), "cells": [
        d.cell(None, step["targets"][i]),
        d.cell(step["p_target"][i], d.fmt(step["p_target"][i], 3)),
        d.cell(step["losses"][i], d.fmt(step["losses"][i], 3))]}
        for i, word in enumerate(step["inputs"])]
    rows.append({"label": "pérdida media", "selected": True,
                 "cells": [d.cell(None, ""), d.cell(None, ""),
                           d.cell(step["loss"], d.fmt(step["loss"], 3))]})
    return {
        "table": d.table("training", "Todas las posiciones a la vez, máscara causal",
                         ["objetivo (token siguiente)", "p(objetivo)", "−ln p"], rows,
                         "entrada"),
        "loss": d.fmt(step["loss"], 3),
        "leak_loss": d.fmt(leak["loss"], 3),
    }


# ------------------------------------------------------- panel 7: KV cache

@reads("sentence", "step", "mask", "head")
def cache_panel(state):
    tokens = SENTENCES[state["sentence"]]["tokens"]
    step, heads = state["step"], shown_heads(state)
    new = step - 1
    per_head, worst = [], 0.0
    for head_id in heads:
        outs, weights, caches = generate_with_cache(tokens, head_id)
        full = full_recompute(tokens, head_id, "causal")
        worst = max(worst, float(np.max(np.abs(outs - full))))
        per_head.append((head_id, outs, weights[new], caches[new]))
    cache_rows = [{"label": "%d · %s" % (t, tokens[t]), "selected": t == new, "cells": [
        d.cell(None, " | ".join(d.fmt_vector_short(c["k"][t]) for _, _, _, c in per_head)),
        d.cell(None, " | ".join(d.fmt_vector_short(c["v"][t]) for _, _, _, c in per_head)),
        d.cell(None, " | ".join(d.fmt(w[t]) for _, _, w, _ in per_head))]}
        for t in range(step)]
    with_cache, without = projection_counts(step)
    n_head = len(heads)
    count_rows = [{"label": "paso %d" % (t + 1), "selected": t == new, "cells": [
        d.cell(with_cache[t] * n_head, str(with_cache[t] * n_head)),
        d.cell(without[t] * n_head, str(without[t] * n_head))]} for t in range(step)]
    count_rows.append({"label": "total", "cells": [
        d.cell(sum(with_cache) * n_head, str(sum(with_cache) * n_head)),
        d.cell(sum(without) * n_head, str(sum(without) * n_head))]})
    other = "credito" if state["sentence"] == "parque" else "parque"
    mine = per_head[0][1][new]
    theirs = generate_with_cache(SENTENCES[other]["tokens"], heads[0])[0][new]
    same = bool(np.array_equal(mine, theirs))
    causal_drift = max(prefix_drift(tokens, h, "causal") for h in heads)
    bidir_drift = max(prefix_drift(tokens, h, "bidirectional") for h in heads)
    return {
        "step": step,
        "new_token": tokens[new],
        "heads": d.join_words([HEADS[h]["label"] for h in heads]),
        "cache": d.table("kv", "Caché tras el paso %d: %d filas de K y V" % (step, step),
                         ["K", "V", "peso de «%s»" % tokens[new]], cache_rows, "posición"),
        "counts": d.table("projections", "Proyecciones calculadas (q, k y v%s)"
                          % (", por cabeza × %d" % n_head if n_head > 1 else ""),
                          ["con caché", "sin caché"], count_rows, "paso"),
        "check": {"max_diff": d.fmt_error(worst), "exact": worst <= 1e-12},
        "prefix": {
            "query": tokens[new],
            "sentence": SENTENCES[state["sentence"]]["label"],
            "other": SENTENCES[other]["label"],
            "mine": d.fmt_vector(mine),
            "theirs": d.fmt_vector(theirs),
            "same": same,
            "verdict": "iguales: el prefijo es el mismo" if same else
                       "distintas: ya hay tokens que separan las frases",
        },
        "drift": {"causal": d.fmt_error(causal_drift), "bidirectional": d.fmt_error(bidir_drift),
                  "appended": tokens[-1]},
        "predict": {
            "id": "pred-cache:%s:%s:%s" % (state["sentence"], state["mask"], state["head"]),
            "question": "Con la máscara %s, al añadir «%s» al final, ¿cambian las "
                        "salidas ya calculadas de las posiciones anteriores?"
                        % (MASK_LABELS[state["mask"]], tokens[-1]),
            "options": _options([("si", "sí"), ("no", "no")]),
            "answers": ["si" if (bidir_drift if state["mask"] == "bidirectional"
                                 else causal_drift) > 1e-12 else "no"],
            "explanation": "Diferencia máxima medida: causal %s, bidireccional %s. Solo "
                           "con la máscara causal se pueden guardar K y V y reutilizarlos."
                           % (d.fmt_error(causal_drift), d.fmt_error(bidir_drift)),
        },
    }


# --------------------------------------------------------------- the view

@reads("sentence", "head")
def sentence_and_head(state):
    sentence = SENTENCES[state["sentence"]]
    return {
        "sentence": {"id": state["sentence"], "label": sentence["label"],
                     "tokens": list(sentence["tokens"])},
        "head": {"id": state["head"], "label": head_label(state["head"]),
                 "summary": ("cada cabeza calcula su propia mezcla; luego se concatenan "
                             "y W_O las vuelve a mezclar." if state["head"] == ALL_HEADS
                             else HEADS[state["head"]]["summary"])},
    }


def build_view(state):
    """Every panel of the attention lab for one valid state."""
    view = {
        "lab": "attention",
        "state": dict(state),
        "notices": [],
        "controls": controls(state),
        "tables": score_tables(state),
        "arithmetic": arithmetic_panel(state),
        "mixture": mixture_panel(state),
        "heads": heads_panel(state),
        "mask": mask_panel(state),
        "rope": rope_panel(state),
        "training": training_panel(state),
        "cache": cache_panel(state),
    }
    view.update(sentence_and_head(state))
    return view
