"""The lab of "Posición, Residuales y el Bloque Feed-Forward": state and view.

`SPEC` lists the state keys; `build_view(state)` returns the view dict (keys
documented in lab_core/views.py). Sizes that get real arrays are bounded;
parameter counts use the closed form, so any size up to 8192 is instant.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from . import block as b
from . import display as d
from .didactic_block import (
    ORDER_D_MODEL, ORDER_SEED, ORDER_SENTENCE, PANELS, QUIZ, SWAPPED_ORDER,
)
from .memo import frozen, reads
from .pictures import chart, head_view, linear_axis, log_axis, series
from .state import Key, Spec, choice_key, float_range, int_range, parse_int, permutation, vector
from .state import state_line as line_of
from .words import fraction_words, plural, same

SIZE_MAX = 8192
# Above this the shape check uses no arrays. The article's 512/8/2048 block
# (3.150.336 parameters) takes about 0,3 s in the browser's NumPy, once.
REAL_PARAMS_MAX = 3_200_000
PE_POSITIONS_MAX = 128
PE_D_MAX = 128
# The PE heatmap travels as integers, each value times HEAT_SCALE: a
# thousandth is finer than its colours can show (215 shades from 0 to ±1).
# At 128 × 64, integers are two thirds of the bytes of 4-decimal floats and
# a quarter of the time to write as JSON (0,5 against 1,8 ms in CPython),
# paid on every change of the map's size.
HEAT_SCALE = 1000
DEPTH_MAX = 64
LN_LIMIT = 100.0  # x, γ and β: wide enough for γ and β to undo any x's normalisation
SHAPE_BATCH, SHAPE_T = 2, 10  # the article's batch and T


LABELS = {
    "order": "Orden", "pe_positions": "Posiciones", "pe_d": "d_model de la codificación",
    "shift_k": "Desplazamiento k", "depth": "Profundidad", "ln_x": "Vector x",
    "gamma": "Escala γ", "beta": "Desplazamiento β", "d_model": "d_model",
    "heads": "Cabezas", "d_ff": "d_ff", "panel": "Panel",
}


def _size(name):
    return int_range(LABELS[name], 1, SIZE_MAX)


def _heads(value, state):
    heads = parse_int(LABELS["heads"], value, 1, SIZE_MAX)
    if state["d_model"] % heads:
        raise ValueError("d_model = %s no es divisible entre %s: cada cabeza "
                         "necesita d_model/cabezas dimensiones enteras"
                         % (d.fmt_int(state["d_model"]), plural(heads, "cabeza")))
    return heads


def _even_width(value, state):
    width = parse_int(LABELS["pe_d"], value, 2, PE_D_MAX)
    if width % 2:
        raise ValueError("%s: %d debe ser par, porque seno y coseno van en parejas"
                         % (LABELS["pe_d"], width))
    return width


SPEC = Spec(
    keys={
        "order": permutation(LABELS["order"], len(ORDER_SENTENCE)),
        "pe_positions": int_range(LABELS["pe_positions"], 1, PE_POSITIONS_MAX),
        "pe_d": Key(LABELS["pe_d"], _even_width),
        "shift_k": int_range(LABELS["shift_k"], 0, 64),
        "depth": int_range(LABELS["depth"], 1, DEPTH_MAX),
        "ln_x": vector(LABELS["ln_x"], 4, -LN_LIMIT, LN_LIMIT),
        "gamma": float_range(LABELS["gamma"], -LN_LIMIT, LN_LIMIT),
        "beta": float_range(LABELS["beta"], -LN_LIMIT, LN_LIMIT),
        "d_model": _size("d_model"),
        "heads": Key(LABELS["heads"], _heads),
        "d_ff": _size("d_ff"),
        "panel": choice_key(LABELS["panel"], PANELS),
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


def _next_sizes(d_model, heads):
    # -> {"d_model": (down, up), "heads": (down, up)}: None where none is left
    """The sizes ↑ and ↓ go to in the fields: the nearest that keep d_model
    divisible by the heads (a step of 1 would land on 513, refused, and the
    next ↑ would start from 512 again). d_model moves by the heads; the
    heads move to the next divisor of d_model."""
    divisors = sorted({n for k in range(1, math.isqrt(d_model) + 1) if d_model % k == 0
                       for n in (k, d_model // k) if n <= SIZE_MAX})
    below = [n for n in divisors if n < heads]
    above = [n for n in divisors if n > heads]
    return {
        "d_model": (d_model - heads if d_model - heads >= heads else None,
                    d_model + heads if d_model + heads <= SIZE_MAX else None),
        "heads": (below[-1] if below else None, above[0] if above else None),
    }


@reads("d_model", "heads")
def controls(state):
    def number(name, low, high, step=1):
        return {"label": LABELS[name], "min": low, "max": high, "step": step}

    def size(name):
        down, up = _next_sizes(state["d_model"], state["heads"])[name]
        return {**number(name, 1, SIZE_MAX), "down": down, "up": up}

    return {
        "pe_positions": number("pe_positions", 1, PE_POSITIONS_MAX),
        "pe_d": number("pe_d", 2, PE_D_MAX, 2),
        "shift_k": number("shift_k", 0, 64),
        "depth": number("depth", 1, DEPTH_MAX),
        "ln_x": number("ln_x", -LN_LIMIT, LN_LIMIT, 0.5),
        "gamma": number("gamma", -LN_LIMIT, LN_LIMIT, 0.1),
        "beta": number("beta", -LN_LIMIT, LN_LIMIT, 0.1),
        "d_model": size("d_model"),
        "heads": size("heads"),
        "d_ff": number("d_ff", 1, SIZE_MAX),
        "panel": {"label": LABELS["panel"],
                  "options": [{"value": k, "label": v} for k, v in PANELS.items()]},
    }


def _matrix_table(table_id, caption, labels, matrix, corner=""):
    return d.table(table_id, caption, labels,
                   [{"label": w, "cells": [d.cell(x) for x in row]}
                    for w, row in zip(labels, matrix)], corner)


def _weights_note(labels, texts):
    """Where a row of weights, as read, does not add up to 1."""
    gaps = [("los pesos de la fila de «%s»" % w, gap, "1,00") for w, gap in
            ((w, d.sum_gap(row, "1,00")) for w, row in zip(labels, texts)) if gap]
    return d.rounding_note(gaps)


def _weights_table(table_id, caption, labels, weights):
    """Attention weights at two decimals, each its own rounding."""
    texts = [d.fmt_row(row) for row in weights]
    return d.table(table_id, caption, labels,
                   [{"label": w, "cells": [d.cell(x, t) for x, t in zip(row, shown)]}
                    for w, row, shown in zip(labels, weights, texts)], "consulta \\ clave",
                   _weights_note(labels, texts))


# ---------------------------------------------------- 1. order-blind attention

@functools.lru_cache(maxsize=1)
def _order_weights():
    """Toy embeddings and one head's projections, from a fixed seed."""
    rng = np.random.RandomState(ORDER_SEED)
    n, width = len(ORDER_SENTENCE), ORDER_D_MODEL
    x = rng.normal(size=(n, width))
    w_q, w_k, w_v = (rng.normal(size=(width, width)) / np.sqrt(width) for _ in range(3))
    return x, w_q, w_k, w_v


def _order_verdicts(moved_any, pe_gap):
    """What the checks show, said only when the order actually changed."""
    if not moved_any:
        return {
            "changed": False,
            "summary": "El orden no ha cambiado: la frase se compara consigo misma. "
                       "Intercambia o baraja las palabras para ver qué conserva la atención.",
            "pe": "Con el orden sin cambiar, sumar la codificación posicional tampoco "
                  "cambia nada.",
        }
    return {
        "changed": True,
        "summary": "Cada par de palabras conserva su peso, y las salidas solo se reordenan: "
                   "sin posición, la atención no distingue las dos frases.",
        "pe": ("Con la codificación posicional sumada, las salidas ya no son un simple "
               "reordenamiento: la atención distingue las dos frases." if pe_gap >= 1e-9 else
               "Incluso con la codificación posicional, las salidas solo se reordenan."),
    }


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
    def picture(labels, matrix):
        texts = [d.fmt_row(row) for row in matrix]
        opened = [[True] * len(labels) for _ in labels]
        return head_view(labels, [("orden", "una cabeza sin posición", matrix.tolist(), opened,
                                   texts)], None, "Pesos · %s" % " ".join(labels))

    view = {
        "original": " ".join(words),
        "permuted": " ".join(moved),
        "views": [picture(words, weights), picture(moved, weights_p)],
        "weights": _weights_table("order-w", "Pesos · %s" % " ".join(words), words, weights),
        "weights_permuted": _weights_table("order-wp", "Pesos · %s" % " ".join(moved), moved,
                                           weights_p),
        "pair": {"a": d.fmt(weights[i, j]), "b": d.fmt(weights_p[pi, pj])},
        "weights_gap": d.fmt_error(weights_gap),
        "out_gap": d.fmt_error(out_gap),
        "pe_gap": d.fmt_error(pe_gap),
        "pe_differs": pe_gap >= 1e-9,
        # Which of the panel's two sentences is on screen (its buttons show
        # it pressed), and the swapped order its button asks for.
        "shown": ("original" if list(order) == list(range(len(order)))
                  else "swap" if tuple(order) == SWAPPED_ORDER else "other"),
        "swapped": list(SWAPPED_ORDER),
    }
    view.update(_order_verdicts(list(order) != list(range(len(order))), pe_gap))
    return view


# ---------------------------------------------------- 2. positional encoding

@reads("pe_positions", "pe_d", "shift_k")
def position_panel(state):
    n_pos, width, k = state["pe_positions"], state["pe_d"], state["shift_k"]
    pe = b.sinusoidal_pe(n_pos, width)
    lam = b.wavelengths(width)
    omega = b.pair_frequencies(width)
    rows = [{"label": "%d (coord. %d y %d)" % (i, 2 * i, 2 * i + 1), "cells": [
        d.cell(omega[i], d.fmt_sci(omega[i])), d.cell(lam[i], d.fmt(lam[i], 1))]}
        for i in range(len(lam))]
    sine_only = b.sine_only_shift_error(n_pos, width, k, first=1)
    at_zero = b.sine_only_shift_error(1, width, k) if k else 0.0  # position 0 alone
    return {
        "heatmap": {
            "rows": n_pos, "cols": width,
            "scale": HEAT_SCALE,
            "values": np.rint(pe * HEAT_SCALE).astype(int).tolist(),
            "label": "PE(pos, i) para %s y d_model = %d" % (plural(n_pos, "posición", "posiciones"), width),
        },
        "wavelengths": d.table("wavelengths", "Longitud de onda de cada pareja (d_model = %d)"
                               % width, ["frecuencia ω", "longitud de onda 2π/ω"], rows, "pareja"),
        "waves": _waves_sentence(lam),
        "limit": _limit_sentence(len(lam)),
        "shift": {"k": k, "error": d.fmt_error(b.shift_error(n_pos, width, k)),
                  "sine_only": d.fmt_error(sine_only),
                  "zero": d.fmt_error(at_zero),
                  "verdict": _sine_verdict(k, n_pos, sine_only, at_zero)},
    }


def _waves_sentence(lam):
    """The fastest and slowest waves, said as the table shows them."""
    if len(lam) == 1:
        return ("Con d_model = 2 solo hay una pareja: su onda se repite cada %s posiciones (2π)."
                % d.fmt(lam[0], 1))
    return ("La onda más rápida se repite cada %s posiciones (2π); la más lenta, cada %s."
            % (d.fmt(lam[0], 1), d.fmt(lam[-1], 1)))


def _limit_sentence(pairs):
    """Where the slowest wave goes as d_model grows: 2π·10000^((d−2)/d) → 2π·10000."""
    limit = d.fmt(b.PE_BASE * 2 * np.pi, 0)
    if pairs == 1:
        return ("Con más parejas, la más lenta se alargaría hasta acercarse a 10000·2π ≈ %s."
                % limit)
    return "Con d_model grande, la más lenta se acerca a 10000·2π ≈ %s." % limit


def _sine_verdict(k, n_pos, error, at_zero):
    """What the sine-only fit shows: over positions 1 onwards (the table's
    error), and position 0 on its own, whose sine-only code is all zeros."""
    if k == 0:
        return ("Con k = 0 no hay nada que desplazar: la identidad sirve, con senos solos "
                "o con parejas.")
    zero = ("La posición 0 es aparte: con senos solos su código es el vector nulo, y ningún "
            "mapa lineal convierte el vector nulo en otro, así que allí falla en %s."
            % d.fmt_error(at_zero))
    if n_pos == 1:
        return zero
    if error < 1e-9:
        return ("De la posición 1 en adelante, con tan pocas posiciones, incluso los senos "
                "solos bastan. " + zero)
    return ("De la posición 1 en adelante, el mejor mapa lineal fijo falla en %s: sin el "
            "coseno de su pareja, un seno no sabe si sube o baja, y no hay matriz que "
            "desplace todas las posiciones a la vez. " % d.fmt_error(error) + zero)


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
    layers = list(range(1, depth + 1))
    values = plain + with_res
    picture = chart(
        "Norma del gradiente según la profundidad", linear_axis(0, depth, "capas", 6, integer=True),
        log_axis(min(values), max(values), "norma (escala log.)"),
        [series("sin residual", layers, plain, 0, log=True),
         series("con residual", layers, with_res, 1, log=True, dash=True)],
        "Con %s, la norma del gradiente que llega a la primera capa es %s sin residual y "
        "%s con residual." % (plural(depth, "capa"), d.fmt_sci(plain[-1]),
                              d.fmt(with_res[-1], 3)))
    return {
        "depth": depth,
        "chart": picture,
        "scale": picture["y"]["scale"],  # the ticks' step: ×10 up to 6 decades, then more
        "layers": plural(depth, "capa"),
        "table": d.table("gradients", "Norma del gradiente que llega a la primera capa",
                         ["sin residual", "con residual"], rows, "capas"),
        "plain": d.fmt_sci(plain[-1]),
        "residual": d.fmt(with_res[-1], 3),
        "summary": _residual_summary(plain, with_res),

    }


def _residual_summary(plain, with_res):
    """Across the depths 1 … depth of the table: the range with the residual,
    and how low the plain stack goes (and at which depth)."""
    depth = len(plain)
    if depth == 1:
        return "Con una sola capa todavía no hay producto de jacobianos que encoja."
    low, high = min(with_res), max(with_res)
    lowest = int(np.argmin(plain))
    spread = ("vale %s en todas" % d.fmt(low, 3) if d.fmt(low, 3) == d.fmt(high, 3) else
              "se queda entre %s y %s" % (d.fmt(low, 3), d.fmt(high, 3)))
    text = "De 1 a %d capas, con residual la norma %s. Sin residual " % (depth, spread)
    if lowest == depth - 1:
        return text + "baja hasta %s, la menor de la tabla." % d.fmt_sci(plain[-1])
    return text + ("llega a bajar a %s (con %s), aunque no siempre baja al añadir una capa: "
                   "con %s es %s." % (d.fmt_sci(plain[lowest]), plural(lowest + 1, "capa"),
                                      plural(depth, "capa"), d.fmt_sci(plain[-1])))


# -------------------------------------------------------------- 4. LayerNorm

NORMS = ("sin normalizar", "post-norm", "pre-norm")


@functools.lru_cache(maxsize=8)
def _growth(depth):
    """The forward norms after each layer, from the input on: table, summary, chart."""
    growth = b.norm_growth(depth)
    rows = [{"label": "entrada" if layer == 0 else str(layer), "selected": layer == depth,
             "cells": [d.cell(v) for v in values]} for layer, values in enumerate(growth)]
    plain, post, pre = growth[-1]
    summary = ("La entrada tiene norma %s. Tras %s: sin normalizar llega a %s, post-norm la "
               "deja en %s y pre-norm llega a %s." % (
                   d.fmt(growth[0][0]), plural(depth, "capa"), d.fmt(plain), d.fmt(post),
                   d.fmt(pre)))
    layers = list(range(len(growth)))
    picture = chart(
        "Norma de la activación según la profundidad",
        linear_axis(0, depth, "capa (0: la entrada)", 6, integer=True),
        linear_axis(0, max(max(row) for row in growth), "norma"),
        [series(name, layers, [row[k] for row in growth], k, dash=k == 1)
         for k, name in enumerate(NORMS)], summary)
    return (d.table("growth", "Norma de la activación tras cada capa", list(NORMS), rows,
                    "capa"), summary, picture)


@functools.lru_cache(maxsize=1)
def _last_layer_gradients():
    """‖∂L/∂W‖ of the last layer at initialisation, for stacks of 1 … DEPTH_MAX
    layers, post-norm and pre-norm (block.norm_gradients)."""
    post, pre = [], []
    for depth in range(1, DEPTH_MAX + 1):
        p, q = b.norm_gradients(depth)
        post.append(p[-1])
        pre.append(q[-1])
    return post, pre


@functools.lru_cache(maxsize=8)
def _stability(depth):
    """The gradient of the last layer as the stack grows: post-norm keeps it,
    pre-norm shrinks it (Xiong et al., 2020); a table, a chart, a sentence."""
    post, pre = (values[:depth] for values in _last_layer_gradients())
    rows = [{"label": str(n + 1), "selected": n + 1 == depth,
             "cells": [d.cell(post[n]), d.cell(pre[n])]} for n in range(depth)]
    table = d.table("stability", "Gradiente de la última capa al inicio, según la profundidad",
                    ["post-norm", "pre-norm"], rows, "capas")
    layers = list(range(1, depth + 1))
    if depth == 1:
        summary = ("Con una sola capa, el gradiente de sus pesos al inicio vale %s con post-norm "
                   "y %s con pre-norm. Sube la profundidad para ver qué pasa al apilar capas."
                   % (d.fmt(post[0]), d.fmt(pre[0])))
    else:
        kept = _kept(post)
        reduced = pre[-1] < pre[0]
        summary = (
            "Con %s, el gradiente de los pesos de la última capa al inicio vale %s con post-norm "
            "y %s con pre-norm; con una sola capa, %s y %s. Al apilar capas, post-norm lo deja "
            "%s (de 1 a %d capas se queda entre %s y %s) y pre-norm lo %s: con %d capas es %s "
            "veces el de una." % (
                plural(depth, "capa"), d.fmt(post[-1]), d.fmt(pre[-1]), d.fmt(post[0]),
                d.fmt(pre[0]), "más o menos igual" if kept else "oscilando", depth,
                d.fmt(min(post)), d.fmt(max(post)), "reduce" if reduced else "no reduce",
                depth, d.fmt(pre[-1] / pre[0])))
        if kept and reduced:
            summary += (
                " Unas últimas capas con gradientes grandes, que no bajan al apilar más, se "
                "mueven demasiado en los primeros pasos si la tasa de aprendizaje es grande "
                "desde el principio: por eso post-norm suele necesitar calentamiento (empezar "
                "con una tasa pequeña e ir subiéndola) y pre-norm entrena estable sin él, como "
                "mostraron Xiong et al. (2020).")
    picture = chart(
        "Gradiente de la última capa al inicio", linear_axis(0, depth, "capas", 6, integer=True),
        linear_axis(0, max(post + pre), "norma del gradiente"),
        [series(name, layers, values, k + 1, dash=k == 0)
         for k, (name, values) in enumerate((("post-norm", post), ("pre-norm", pre)))], summary)
    return table, summary, picture


def _kept(values):
    """«más o menos igual»: every value within a factor of two of the first."""
    return all(0.5 * values[0] <= v <= 2 * values[0] for v in values)


def _undo_sentence(x, mean, scale, out):
    """Whether γ and β undo the normalisation here, and which values would."""
    gamma, beta = d.equals_shortest(scale), d.equals_shortest(mean)
    if np.all(x == x[0]):  # a constant x normalises to zeros, which γ cannot scale
        return ("Aquí x es constante: se normaliza a ceros y γ no tiene nada que escalar; basta "
                "β = μ %s para recuperarlo%s." % (beta, ", y así está" if same(out, x) else ""))
    if same(out, x):
        return ("Con γ = √(σ² + ε) %s y β = μ %s la salida vuelve a ser x: γ y β, aprendidos, "
                "pueden deshacer la normalización cuando al modelo le conviene." % (gamma, beta))
    return ("Para deshacer la normalización harían falta γ = √(σ² + ε) %s y β = μ %s: con ellos "
            "la salida volvería a ser x." % (gamma, beta))


@reads("ln_x", "gamma", "beta", "depth")
def layernorm_panel(state):
    x = np.array(state["ln_x"])
    gamma = np.full(4, state["gamma"])
    beta = np.full(4, state["beta"])
    mean, var = float(x.mean()), float(x.var())
    scale = math.sqrt(var + b.LN_EPS)
    normalized = (x - mean) / scale
    out = b.layer_norm(x, gamma, beta)
    growth, growth_summary, growth_chart = _growth(state["depth"])
    stability, stability_summary, stability_chart = _stability(state["depth"])
    return {
        # x and μ with the decimals they need: (1; 1; 1; 1,001) must not read
        # as a constant vector beside a normalised one that is not zero.
        "x": "(%s)" % "; ".join(d.fmt_exact(v) for v in x), "mean": d.fmt_exact(mean, 3),
        "var": d.fmt_small(var),
        "normalized": d.fmt_vector(normalized, 3),
        "gamma": d.fmt_exact(state["gamma"], 1, 3), "beta": d.fmt_exact(state["beta"], 1, 3),
        "out": d.fmt_vector(out, 3),
        "out_mean": d.fmt(float(out.mean()), 3), "out_std": d.fmt(float(out.std()), 3),
        "undo": {"gamma": scale, "beta": mean,
                 "sentence": _undo_sentence(x, mean, scale, out)},
        "growth": growth,
        "growth_summary": growth_summary,
        "growth_chart": growth_chart,
        "stability": stability,
        "stability_summary": stability_summary,
        "stability_chart": stability_chart,
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
        "ratio": ratio_text(state["d_model"], state["d_ff"]),
        "demo": "d_model = %d → d_ff = %d → d_model = %d" % (w1.shape[0], w1.shape[1], w2.shape[1]),
        "plot": {"x": [d.num(v) for v in grid],
                 "series": [{"name": "GELU", "y": [d.num(v) for v in b.gelu(grid)]},
                            {"name": "ReLU", "y": [d.num(v) for v in b.relu(grid)]}]},
        "gelu_at": {"x": "−1", "gelu": d.fmt(float(b.gelu(np.array(-1.0))), 4), "relu": "0"},
        "collapse": {
            "error": d.fmt_error(collapse), "shape_a": "%d × %d" % a.shape,
            "verdict": ("son la misma función (dos capas sin σ no valen más que una)"
                        if collapse < 1e-9 else "no coinciden"),
        },
        "locality": {
            "ffn3": d.fmt_error(ffn_gap[3]), "ffn5": d.fmt_error(ffn_gap[5]),
            "attn5": d.fmt_error(attn_gap[5]),
            "verdict": _locality_verdict(ffn_gap[5], attn_gap[5]),
        },
    }


def _locality_verdict(ffn5, attn5):
    ffn_blind = ffn5 < d.ROUND_OFF
    attn_sees = attn5 >= d.ROUND_OFF
    return "%s; %s" % (
        "la FFN en la posición 5 no se entera del cambio" if ffn_blind else
        "la FFN en la posición 5 también cambia",
        "la atención en la posición 5, por el contrario, sí se entera" if attn_sees else
        "la atención en la posición 5 tampoco cambia")


# --------------------------------------------------------------- 6. the block

@functools.lru_cache(maxsize=4)
def shape_check(d_model, n_head, d_ff):
    """Run the real block on a (batch, T, d_model) input; cached per size."""
    params = b.init_block(d_model, n_head, d_ff)
    x = np.random.RandomState(5).normal(size=(SHAPE_BATCH, SHAPE_T, d_model))
    out = np.stack([b.transformer_block(seq, params) for seq in x])
    return x.shape, out.shape, bool(np.all(np.isfinite(out)))


def parameter_table(d_model, d_ff):
    """The article's table, with Spanish headers: {"headers", "rows", "note"}.

    Each share is its own rounding at one decimal, as the article's table
    prints them (33,3 + 66,7 + 0,1 = 100,1 for 512/2048); when they do not
    add up to the Total row's 100,0 %, the note says so. A share too small
    to show reads «< 0,1 %».
    """
    counts = b.block_parameter_counts(d_model, d_ff)
    parts = [counts["attention"], counts["ffn"], counts["layernorm"]]
    shares = d.fmt_shares(parts)
    return {
        "headers": ["Componente", "Parámetros", "Proporción"],
        "rows": [
            ["Atención", d.fmt_int(parts[0]), shares[0]],
            ["FFN", d.fmt_int(parts[1]), shares[1]],
            ["LayerNorm", d.fmt_int(parts[2]), shares[2]],
            ["Total", d.fmt_int(counts["total"]), d.fmt(100, 1) + " %"],
        ],
        "note": d.shares_note(shares),
    }


def article_table(d_model, d_ff):
    """What the article's own code cell publishes on window.py_table_data, to
    the character: English headers, Python's own formats (f"{n:,}", f"{x:.1%}")."""
    counts = b.block_parameter_counts(d_model, d_ff)
    total = counts["total"]
    names = (("Attention", "attention"), ("FFN", "ffn"), ("LayerNorm", "layernorm"))
    return {
        "headers": ["Component", "Parameters", "Share"],
        "rows": [[name, "{:,}".format(counts[key]), "{:.1%}".format(counts[key] / total)]
                 for name, key in names] + [["Total", "{:,}".format(total), "100.0%"]],
    }


def ratio_text(d_model, d_ff):
    """d_ff / d_model as read: '4', '3,906', or '< 0,001' (never a bare 0)."""
    ratio = d_ff / d_model
    return d.fmt_short(ratio, 3) if ratio >= 0.001 else "< 0,001"


def share_sentence(d_model, d_ff):
    """How the FFN's share reads, for the sizes chosen (not for the article's),
    and where it goes as d_model grows with d_ff in the same proportion r:
    the d_model² terms win, so the FFN's share tends to r/(2 + r).

    Above, below or at that limit is decided exactly, in integers:
    (2df + f + d)/(4d² + 2df + f + 5d) against f/(2d + f) differ by the sign
    of 2d(d − f) once multiplied out, so the share is below the limit when
    d_ff > d_model, above it when d_ff < d_model, and on it when they are equal.
    """
    counts = b.block_parameter_counts(d_model, d_ff)
    share = counts["ffn"] / counts["total"]
    attn_share = counts["attention"] / counts["total"]
    shares = d.fmt_shares([counts["attention"], counts["ffn"], counts["layernorm"]])
    ratio_read = ratio_text(d_model, d_ff)
    if ratio_read.startswith("<"):
        ratio = "d_ff menor que una milésima de d_model"
    else:
        exact = d.reads_exactly(ratio_read, d_ff / d_model)
        ratio = ("d_ff = d_model" if d_ff == d_model else
                 "d_ff %s %s·d_model" % ("=" if exact else "≈", ratio_read))
    words = fraction_words(share)
    attn_words = fraction_words(attn_share)
    here = shares[1]
    said = [("menos del " + text[2:]) if text.startswith("<") else "el " + text
            for text in shares]
    sentence = ("Con %s, la FFN se lleva %s de los parámetros%s y la atención %s%s. "
                "Atención: 4·d_model²; FFN: 2·d_model·d_ff + d_ff + d_model; LayerNorm: "
                "4·d_model. Si d_ff crece en proporción a d_model, los términos en d_model² "
                "mandan" % (ratio, said[1], " (%s)" % words if words else "",
                            said[0], " (%s)" % attn_words if attn_words else ""))
    if ratio_read.startswith("<"):
        return sentence + " y el reparto se acerca a uno que solo depende de esa proporción."
    limit = d.fmt(100 * d_ff / (2 * d_model + d_ff), 1) + " %"
    if d_ff == d_model:
        return sentence + (": con d_ff = d_model la FFN tiende al %s del total, exactamente un "
                           "tercio, y aquí ya lo tiene: sus sesgos (d_ff + d_model) y LayerNorm "
                           "(4·d_model) pesan lo mismo a cualquier tamaño." % limit)
    below = d_ff > d_model
    reads_same = " (con un decimal se lee igual)" if limit == here else ""
    return sentence + (": con esta proporción la FFN tiende al %s del total cuanto mayor es "
                       "d_model. Aquí queda por %s, en %s%s: a este tamaño aún cuentan los "
                       "términos que solo crecen como d_model; los sesgos de la FFN "
                       "(d_ff + d_model) suben su parte y LayerNorm (4·d_model) la baja, y con "
                       "d_ff %s que d_model %s." % (
                           limit, "debajo" if below else "encima", here, reads_same,
                           "mayor" if below else "menor",
                           "baja más de lo que sube" if below else "sube más de lo que baja"))


@reads("d_model", "heads", "d_ff")
def block_panel(state):
    d_model, heads, d_ff = state["d_model"], state["heads"], state["d_ff"]
    counts = b.block_parameter_counts(d_model, d_ff)
    real = counts["total"] <= REAL_PARAMS_MAX
    shape_in = shape_out = (SHAPE_BATCH, SHAPE_T, d_model)
    if real:
        shape_in, shape_out, finite = shape_check(d_model, heads, d_ff)
        note = "Calculado con arrays reales: el bloque de NumPy corrió sobre la entrada."
        check = ("la salida tiene la forma de la entrada y todos sus valores son finitos"
                 if shape_in == shape_out and finite else
                 "¡la salida no encaja con la entrada!")
    else:
        note = ("Con %s parámetros el bloque no se ejecuta en el navegador (el límite es %s): "
                "las formas y el recuento salen de la fórmula cerrada."
                % (d.fmt_int(counts["total"]), d.fmt_int(REAL_PARAMS_MAX)))
        check = ("según la fórmula, la salida tiene la forma de la entrada; sus valores no "
                 "se han calculado")
    table = parameter_table(d_model, d_ff)
    return {
        "shape_in": "(%d, %d, %d)" % shape_in,
        "shape_out": "(%d, %d, %d)" % shape_out,
        "check": check,
        "real": real,
        "note": note,
        "d_k": d_model // heads,
        "params": table,
        "table": d.table("params", "Parámetros del bloque", table["headers"][1:],
                         [{"label": row[0], "selected": row[0] == "Total",
                           "cells": [d.cell(None, text) for text in row[1:]]}
                          for row in table["rows"]], table["headers"][0], table["note"]),
        "published": article_table(d_model, d_ff),
        "ffn_share": table["rows"][1][2],
        "share_sentence": share_sentence(d_model, d_ff),
    }


# ------------------------------------------------------------------- 7. quiz

@functools.lru_cache(maxsize=1)
def quiz():
    """The closing quiz as prompts; each explanation names its answer first."""
    return [{
        "id": q["id"], "question": q["question"],
        "options": [{"value": v, "label": label} for v, label in q["options"]],
        "answers": [q["answer"]],
        "explanation": "Respuesta: «%s». %s" % (dict(q["options"])[q["answer"]], q["explanation"]),
        "panel": q["panel"], "panel_label": PANELS[q["panel"]],
    } for q in QUIZ]


@reads()
def quiz_view(state):
    return quiz()


# Printed in the panels' order: every key but the panel (the link says it).
LINE_KEYS = ("pe_positions", "pe_d", "shift_k", "depth", "ln_x", "gamma", "beta",
             "d_model", "heads", "d_ff")


@reads("order", *LINE_KEYS)
def state_line(state):
    """The state as printed under the title: every value a panel reads."""
    words = [ORDER_SENTENCE[i] for i in state["order"]]
    return " · ".join(["Orden: %s" % " ".join(words), line_of(SPEC, state, LINE_KEYS)])


@reads(*[k for k in LABELS if k != "panel"])
def announce(state):
    """What a screen reader hears after a change, by the state key changed."""
    order, position = order_panel(state), position_panel(state)
    residual, layernorm = residual_panel(state), layernorm_panel(state)
    block = block_panel(state)
    said = {"order": "%s Peso de perro → hombre: %s en la frase original, %s en «%s»."
                     % (order["summary"], order["pair"]["a"], order["pair"]["b"],
                        order["permuted"]),
            "depth": "Tras %s, gradiente %s sin residual y %s con residual."
                     % (residual["layers"], residual["plain"], residual["residual"])}
    said.update({k: position["waves"] for k in ("pe_positions", "pe_d", "shift_k")})
    said.update({k: "LayerNorm: salida %s." % layernorm["out"] for k in ("ln_x", "gamma", "beta")})
    counts = b.block_parameter_counts(state["d_model"], state["d_ff"])
    said.update({k: "Parámetros del bloque: %s en total; la FFN se lleva el %s."
                    % (d.fmt_int(counts["total"]), block["ffn_share"])
                 for k in ("d_model", "heads", "d_ff")})
    return said


# The view, key by key, each part with the state keys it reads (see
# attention_lab.PARTS); SELECTORS: keys whose states are prepared at build time.
PARTS = (
    ("controls", controls),
    ("order", order_panel),
    ("position", position_panel),
    ("residual", residual_panel),
    ("layernorm", layernorm_panel),
    ("ffn", ffn_panel),
    ("block", block_panel),
    ("quiz", quiz_view),
    ("state_line", state_line),
    ("announce", announce),
)
SELECTORS = ("panel",)


def build_view(state):
    """Every panel of the block lab for one valid state."""
    view = {"lab": "block", "state": dict(state), "notices": []}
    read = frozen(state)  # each value frozen once, for every builder's cache key
    for name, build in PARTS:
        view[name] = build(read)
    return view
