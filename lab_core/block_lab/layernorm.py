"""Panel 4: LayerNorm, where to put it (post-norm or pre-norm), and what
each does to the forward norms and to the gradients at initialisation."""
from __future__ import annotations

import functools
import math

import numpy as np

from .. import block as b
from .. import display as d
from ..memo import reads
from ..pictures import chart, linear_axis, series
from ..words import plural, same
from .sizes import DEPTH_MAX


NORMS = ("sin normalizar", "post-norm", "pre-norm")
GAMMA_DIGITS = 4  # γ and β as the state line gives them (2,2361)


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


@functools.lru_cache(maxsize=8)
def _stability(depth):
    """The gradient of the last layer as the stack grows: post-norm keeps it,
    pre-norm shrinks it (Xiong et al., 2020); a table, a chart, a sentence."""
    post, pre = (values[:depth] for values in b.last_layer_gradients(DEPTH_MAX))
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
        post_ratio, pre_ratio = d.fmt(post[-1] / post[0]), d.fmt(pre[-1] / pre[0])
        kept = _kept(post)
        reduced = pre[-1] < pre[0]
        if post[-1] >= post[0]:
            post_words = "post-norm no lo reduce: con %d capas es %s veces el de una" % (
                depth, post_ratio)
        elif kept:
            post_words = ("post-norm lo reduce poco: con %d capas es %s veces el de una (y de 1 "
                          "a %d capas oscila entre %s y %s)" % (
                              depth, post_ratio, depth, d.fmt(min(post)), d.fmt(max(post))))
        else:
            post_words = "post-norm también lo reduce: con %d capas es %s veces el de una" % (
                depth, post_ratio)
        summary = (
            "Con %s, el gradiente de los pesos de la última capa al inicio vale %s con post-norm "
            "y %s con pre-norm; con una sola capa, %s y %s. Al apilar capas, %s; pre-norm %s: "
            "%s veces." % (
                plural(depth, "capa"), d.fmt(post[-1]), d.fmt(pre[-1]), d.fmt(post[0]),
                d.fmt(pre[0]), post_words, "lo reduce" if reduced else "no lo reduce", pre_ratio))
        if kept and reduced:
            summary += (
                " Unas últimas capas con gradientes grandes, que apenas bajan al apilar más, se "
                "mueven demasiado en los primeros pasos si la tasa de aprendizaje es grande "
                "desde el principio: por eso post-norm suele necesitar calentamiento (empezar "
                "con una tasa pequeña e ir subiéndola), y pre-norm a menudo puede prescindir de "
                "él, como observaron Xiong et al. (2020). Aquí solo se mide el gradiente al "
                "inicio: no se entrena nada.")
    picture = chart(
        "Gradiente de la última capa al inicio", linear_axis(0, depth, "capas", 6, integer=True),
        linear_axis(0, max(post + pre), "norma del gradiente"),
        [series(name, layers, values, k + 1, dash=k == 0)
         for k, (name, values) in enumerate((("post-norm", post), ("pre-norm", pre)))], summary)
    return table, summary, picture


def _kept(values):
    """«no lo reduce»: no value falls below half the first."""
    return min(values) >= 0.5 * values[0]


def _undo_sentence(x, mean, scale, out):
    """Whether γ and β undo the normalisation here, and which values would."""
    # γ with the decimals the panel and the state line give it; μ as its row reads.
    gamma = d.equals_shortest(scale, GAMMA_DIGITS)
    beta = ("= " if d.reads_exactly(d.fmt_exact(mean, 3), mean) else "≈ ") + d.fmt_exact(mean, 3)
    if np.all(x == x[0]):  # a constant x normalises to zeros, which γ cannot scale
        return ("Aquí x es constante: se normaliza a ceros y γ no tiene nada que escalar; basta "
                "β = μ %s para recuperarlo%s." % (beta, ", y así está" if same(out, x) else ""))
    if same(out, x):
        return ("Con γ = √(σ² + ε) %s y β = μ %s la salida vuelve a ser x: γ y β, aprendidos, "
                "pueden deshacer la normalización cuando al modelo le conviene." % (gamma, beta))
    if d.fmt_vector(out, 3) == d.fmt_vector(x, 3):
        # γ typed with the digits the page shows (2,2361) misses √(σ² + ε)
        # by 10⁻⁵: «harían falta» would ask for the values already there.
        return ("Con estos γ y β la salida se lee igual que x: son los que deshacen la "
                "normalización, γ = √(σ² + ε) %s y β = μ %s, a las cifras que se ven."
                % (gamma, beta))
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
        "gamma": d.fmt_exact(state["gamma"], 1, GAMMA_DIGITS),
        "beta": d.fmt_exact(state["beta"], 1, GAMMA_DIGITS),
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


PARTS = (("layernorm", layernorm_panel),)
