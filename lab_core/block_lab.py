"""The lab of "Posición, Residuales y el Bloque Feed-Forward": state and view.

`SPEC` lists the state keys; `build_view(state)` returns the view dict (keys
documented in lab_core/views.py). Sizes that get real arrays are bounded;
parameter counts use the closed form, so any size up to 8192 is instant.
"""
from __future__ import annotations

import functools

import numpy as np

from . import block as b
from . import display as d
from .didactic_block import (
    ORDER_D_MODEL, ORDER_SEED, ORDER_SENTENCE, PANELS, QUIZ, SWAPPED_ORDER,
)
from .memo import reads
from .state import Spec, choice, float_range, int_range, parse_int, permutation, vector

SIZE_MAX = 8192
# Above this the shape check uses no arrays. The article's 512/8/2048 block
# (3.150.336 parameters) takes about 0,3 s in the browser's NumPy, once.
REAL_PARAMS_MAX = 3_200_000
PE_POSITIONS_MAX = 128
PE_D_MAX = 128
DEPTH_MAX = 64
SHAPE_BATCH, SHAPE_T = 2, 10  # the article's batch and T


def _size(key):
    return lambda value, state: parse_int(key, value, 1, SIZE_MAX)


def _heads(value, state):
    heads = parse_int("heads", value, 1, SIZE_MAX)
    if state["d_model"] % heads:
        raise ValueError("d_model=%d no es divisible entre heads=%d: cada cabeza "
                         "necesita d_model/heads dimensiones enteras"
                         % (state["d_model"], heads))
    return heads


def _even_width(value, state):
    width = parse_int("pe_d", value, 2, PE_D_MAX)
    if width % 2:
        raise ValueError("pe_d=%d debe ser par: seno y coseno van en parejas" % width)
    return width


SPEC = Spec(
    parsers={
        "order": permutation("order", len(ORDER_SENTENCE)),
        "pe_positions": int_range("pe_positions", 1, PE_POSITIONS_MAX),
        "pe_d": _even_width,
        "shift_k": int_range("shift_k", 0, 64),
        "depth": int_range("depth", 1, DEPTH_MAX),
        "ln_x": vector("ln_x", 4, -100.0, 100.0),
        "gamma": float_range("gamma", -3.0, 3.0),
        "beta": float_range("beta", -3.0, 3.0),
        "d_model": _size("d_model"),
        "heads": _heads,
        "d_ff": _size("d_ff"),
        "panel": choice("panel", tuple(PANELS)),
    },
    defaults={
        "order": list(SWAPPED_ORDER),
        "pe_positions": 50,
        "pe_d": 16,
        "shift_k": 3,
        "depth": 12,
        "ln_x": [2.0, 4.0, 6.0, 8.0],
        "gamma": 1.0,
        "beta": 0.0,
        "d_model": 512,
        "heads": 8,
        "d_ff": 2048,
        "panel": "orden",
    },
)


@reads()
def controls(state):
    def number(label, low, high, step=1):
        return {"label": label, "min": low, "max": high, "step": step}

    return {
        "pe_positions": number("Posiciones", 1, PE_POSITIONS_MAX),
        "pe_d": number("d_model de la codificación", 2, PE_D_MAX, 2),
        "shift_k": number("Desplazamiento k", 0, 64),
        "depth": number("Profundidad", 1, DEPTH_MAX),
        "ln_x": number("Vector x", -100, 100, 0.5),
        "gamma": number("Escala γ", -3, 3, 0.1),
        "beta": number("Desplazamiento β", -3, 3, 0.1),
        "d_model": number("d_model", 1, SIZE_MAX),
        "heads": number("Cabezas", 1, SIZE_MAX),
        "d_ff": number("d_ff", 1, SIZE_MAX),
        "panel": {"label": "Panel",
                  "options": [{"value": k, "label": v} for k, v in PANELS.items()]},
    }


def _matrix_table(table_id, caption, labels, matrix, corner=""):
    return d.table(table_id, caption, labels,
                   [{"label": w, "cells": [d.cell(x) for x in row]}
                    for w, row in zip(labels, matrix)], corner)


# ---------------------------------------------------- 1. order-blind attention

@functools.lru_cache(maxsize=1)
def _order_weights():
    """Toy embeddings and one head's projections, from a fixed seed."""
    rng = np.random.RandomState(ORDER_SEED)
    n, width = len(ORDER_SENTENCE), ORDER_D_MODEL
    x = rng.normal(size=(n, width))
    w_q, w_k, w_v = (rng.normal(size=(width, width)) / np.sqrt(width) for _ in range(3))
    return x, w_q, w_k, w_v


@reads("order")
def order_panel(state):
    order = state["order"]
    x, w_q, w_k, w_v = _order_weights()
    p = b.permutation_matrix(order)
    words = list(ORDER_SENTENCE)
    moved = [words[i] for i in order]
    weights, out = b.self_attention(x, w_q, w_k, w_v)
    weights_p, out_p = b.self_attention(p @ x, w_q, w_k, w_v)
    weights_gap = float(np.max(np.abs(weights_p - p @ weights @ p.T)))
    out_gap = float(np.max(np.abs(out_p - p @ out)))
    pe = b.sinusoidal_pe(len(words), ORDER_D_MODEL)
    _, out_pe = b.self_attention(x + pe, w_q, w_k, w_v)
    _, out_pe_p = b.self_attention(p @ x + pe, w_q, w_k, w_v)
    pe_gap = float(np.max(np.abs(out_pe_p - p @ out_pe)))
    i, j = words.index("perro"), words.index("hombre")
    pi, pj = moved.index("perro"), moved.index("hombre")
    return {
        "original": " ".join(words),
        "permuted": " ".join(moved),
        "weights": _matrix_table("order-w", "Pesos · %s" % " ".join(words), words, weights,
                                 "consulta \\ clave"),
        "weights_permuted": _matrix_table("order-wp", "Pesos · %s" % " ".join(moved), moved,
                                          weights_p, "consulta \\ clave"),
        "pair": {"a": d.fmt(weights[i, j]), "b": d.fmt(weights_p[pi, pj])},
        "weights_gap": d.fmt_error(weights_gap),
        "out_gap": d.fmt_error(out_gap),
        "pe_gap": d.fmt_error(pe_gap),
        "pe_differs": pe_gap > 1e-9,
    }


# ---------------------------------------------------- 2. positional encoding

@reads("pe_positions", "pe_d", "shift_k")
def position_panel(state):
    n_pos, width, k = state["pe_positions"], state["pe_d"], state["shift_k"]
    pe = b.sinusoidal_pe(n_pos, width)
    lam = b.wavelengths(width)
    omega = b.pair_frequencies(width)
    rows = [{"label": "par %d (dims %d, %d)" % (i, 2 * i, 2 * i + 1), "cells": [
        d.cell(omega[i], d.fmt_sci(omega[i])), d.cell(lam[i], d.fmt(lam[i], 1))]}
        for i in range(len(lam))]
    return {
        "heatmap": {
            "rows": n_pos, "cols": width,
            "values": [[round(d.num(v), 4) for v in row] for row in pe],
            "label": "PE(pos, i) para %d posiciones y d_model = %d" % (n_pos, width),
        },
        "wavelengths": d.table("wavelengths", "Longitud de onda de cada par (d_model = %d)" % width,
                               ["frecuencia ω", "longitud de onda 2π/ω"], rows, "par"),
        "first": d.fmt(lam[0], 2),
        "last": d.fmt(lam[-1], 0),
        "limit": d.fmt(b.PE_BASE * 2 * np.pi, 0),
        "shift": {"k": k, "error": d.fmt_error(b.shift_error(n_pos, width, k)),
                  "sine_only": d.fmt_sci(b.sine_only_shift_error(n_pos, width, k))},
    }


# ------------------------------------------------------------- 3. residuals

@reads("depth")
def residual_panel(state):
    depth = state["depth"]
    weights = b.toy_layer_weights(depth, 8, 0.5, seed=1)
    plain = b.gradient_norms(weights, residual=False)
    with_res = b.gradient_norms(weights, residual=True)
    rows = [{"label": str(layer + 1), "selected": layer + 1 == depth, "cells": [
        d.cell(plain[layer], d.fmt_sci(plain[layer])),
        d.cell(with_res[layer], d.fmt(with_res[layer], 3))]} for layer in range(depth)]
    return {
        "depth": depth,
        "table": d.table("gradients", "Norma del gradiente que llega a la primera capa",
                         ["sin residual", "con residual"], rows, "capas"),
        "plain": d.fmt_sci(plain[-1]),
        "residual": d.fmt(with_res[-1], 3),
        "low": d.fmt(min(with_res), 3),
        "high": d.fmt(max(with_res), 3),
    }


# -------------------------------------------------------------- 4. LayerNorm

@functools.lru_cache(maxsize=8)
def _growth_table(depth):
    growth = b.norm_growth(depth)
    rows = [{"label": str(layer + 1), "selected": layer + 1 == len(growth),
             "cells": [d.cell(v) for v in values]} for layer, values in enumerate(growth)]
    return d.table("growth", "Norma de la activación tras cada capa",
                   ["sin normalizar", "post-norm", "pre-norm"], rows, "capa")


@reads("ln_x", "gamma", "beta", "depth")
def layernorm_panel(state):
    x = np.array(state["ln_x"])
    gamma = np.full(4, state["gamma"])
    beta = np.full(4, state["beta"])
    mean, var = float(x.mean()), float(x.var())
    normalized = (x - mean) / np.sqrt(var + b.LN_EPS)
    out = b.layer_norm(x, gamma, beta)
    return {
        "x": d.fmt_vector(x), "mean": d.fmt(mean, 3), "var": d.fmt(var, 3),
        "normalized": d.fmt_vector(normalized, 3),
        "gamma": d.fmt(state["gamma"], 1), "beta": d.fmt(state["beta"], 1),
        "out": d.fmt_vector(out, 3),
        "out_mean": d.fmt(float(out.mean()), 3), "out_std": d.fmt(float(out.std()), 3),
        "growth": _growth_table(state["depth"]),
    }


# -------------------------------------------------------------------- 5. FFN

@functools.lru_cache(maxsize=1)
def _ffn_demo():
    """A small FFN (8 -> 32 -> 8) and an 8-position input, from a fixed seed."""
    rng = np.random.RandomState(11)
    w1, b1 = rng.normal(size=(8, 32)) / np.sqrt(8), rng.normal(size=32) * 0.1
    w2, b2 = rng.normal(size=(32, 8)) / np.sqrt(32), rng.normal(size=8) * 0.1
    return rng.normal(size=(8, 8)), w1, b1, w2, b2


@reads("d_model", "d_ff")
def ffn_panel(state):
    x, w1, b1, w2, b2 = _ffn_demo()
    grid = np.linspace(-4.0, 4.0, 81)
    identity = lambda v: v  # noqa: E731  (σ removed)
    a, bias = b.collapse_without_activation(w1, b1, w2, b2)
    collapse = float(np.max(np.abs(b.ffn(x, w1, b1, w2, b2, act=identity) - (x @ a + bias))))
    # Change the token at position 3; watch positions 3 and 5.
    x2 = x.copy()
    x2[3] += 1.0
    ffn_gap = np.abs(b.ffn(x2, w1, b1, w2, b2) - b.ffn(x, w1, b1, w2, b2)).max(axis=1)
    eye = np.eye(8)
    attn_gap = np.abs(b.self_attention(x2, eye, eye, eye)[1]
                      - b.self_attention(x, eye, eye, eye)[1]).max(axis=1)
    return {
        "d_model": state["d_model"], "d_ff": state["d_ff"],
        "ratio": d.fmt_short(state["d_ff"] / state["d_model"]),
        "plot": {"x": [d.num(v) for v in grid],
                 "series": [{"name": "GELU", "y": [d.num(v) for v in b.gelu(grid)]},
                            {"name": "ReLU", "y": [d.num(v) for v in b.relu(grid)]}]},
        "gelu_at": {"x": "−1", "gelu": d.fmt(float(b.gelu(np.array(-1.0))), 4), "relu": "0"},
        "collapse": {"error": d.fmt_error(collapse), "shape_a": "%d × %d" % a.shape},
        "locality": {"ffn3": d.fmt_error(ffn_gap[3]), "ffn5": d.fmt_error(ffn_gap[5]),
                     "attn5": d.fmt_error(attn_gap[5])},
    }


# --------------------------------------------------------------- 6. the block

@functools.lru_cache(maxsize=4)
def shape_check(d_model, n_head, d_ff):
    """Run the real block on a (batch, T, d_model) input; cached per size."""
    params = b.init_block(d_model, n_head, d_ff)
    x = np.random.RandomState(5).normal(size=(SHAPE_BATCH, SHAPE_T, d_model))
    out = np.stack([b.transformer_block(seq, params) for seq in x])
    return x.shape, out.shape, bool(np.all(np.isfinite(out)))


def parameter_table(d_model, d_ff):
    """The article's table, with Spanish headers: {"headers", "rows"}."""
    counts = b.block_parameter_counts(d_model, d_ff)
    total = counts["total"]

    def share(n):
        return d.fmt(100.0 * n / total, 1) + " %"

    return {
        "headers": ["Componente", "Parámetros", "Proporción"],
        "rows": [
            ["Atención", d.fmt(counts["attention"], 0), share(counts["attention"])],
            ["FFN", d.fmt(counts["ffn"], 0), share(counts["ffn"])],
            ["LayerNorm", d.fmt(counts["layernorm"], 0), share(counts["layernorm"])],
            ["Total", d.fmt(total, 0), "100,0 %"],
        ],
    }


@reads("d_model", "heads", "d_ff")
def block_panel(state):
    d_model, heads, d_ff = state["d_model"], state["heads"], state["d_ff"]
    counts = b.block_parameter_counts(d_model, d_ff)
    real = counts["total"] <= REAL_PARAMS_MAX
    if real:
        shape_in, shape_out, finite = shape_check(d_model, heads, d_ff)
        note = "Calculado con arrays reales: el bloque de NumPy corrió sobre la entrada."
    else:
        shape_in = shape_out = (SHAPE_BATCH, SHAPE_T, d_model)
        finite = True
        note = ("Con %s parámetros el bloque no se ejecuta en el navegador (el límite es %s): "
                "las formas y el recuento salen de la fórmula cerrada."
                % (d.fmt(counts["total"], 0), d.fmt(REAL_PARAMS_MAX, 0)))
    table = parameter_table(d_model, d_ff)
    return {
        "shape_in": "(%d, %d, %d)" % shape_in,
        "shape_out": "(%d, %d, %d)" % shape_out,
        "check": ("la salida tiene la forma de la entrada y todos sus valores son finitos"
                  if shape_in == shape_out and finite else "¡la salida no encaja con la entrada!"),
        "real": real,
        "note": note,
        "d_k": d_model // heads,
        "params": table,
        "table": d.table("params", "Parámetros del bloque", table["headers"][1:],
                         [{"label": row[0], "selected": row[0] == "Total",
                           "cells": [d.cell(None, text) for text in row[1:]]}
                          for row in table["rows"]], table["headers"][0]),
        "ffn_share": table["rows"][1][2],
    }


# ------------------------------------------------------------------- 7. quiz

@functools.lru_cache(maxsize=1)
def quiz():
    return [{
        "id": q["id"], "question": q["question"],
        "options": [{"value": v, "label": label} for v, label in q["options"]],
        "answers": [q["answer"]], "explanation": q["explanation"],
        "panel": q["panel"], "panel_label": PANELS[q["panel"]],
    } for q in QUIZ]


def build_view(state):
    """Every panel of the block lab for one valid state."""
    return {
        "lab": "block",
        "state": dict(state),
        "notices": [],
        "controls": controls(state),
        "order": order_panel(state),
        "position": position_panel(state),
        "residual": residual_panel(state),
        "layernorm": layernorm_panel(state),
        "ffn": ffn_panel(state),
        "block": block_panel(state),
        "quiz": quiz(),
    }
