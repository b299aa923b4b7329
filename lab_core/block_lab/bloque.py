"""Panel 6: the whole pre-norm block: its shapes, and its parameter table
(the article's own, published on window.py_table_data as the article does)."""
from __future__ import annotations

from .. import block as b
from .. import display as d
from ..memo import reads
from ..words import fraction_words, small_number_word
from .sizes import REAL_PARAMS_MAX

SHAPE_BATCH, SHAPE_T = 2, 10  # the article's batch and T


def parameter_table(d_model, d_ff):
    """The article's table, with Spanish headers: {"headers", "rows", "note",
    "shares"} ("shares": each component's printed share, by name, for the
    sentences that quote them).

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
        "shares": dict(zip(("attention", "ffn", "layernorm"), shares)),
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
                           "tercio, y aquí ya lo tiene, a cualquier tamaño: sus pesos "
                           "(2·d_model²) son un tercio de los términos en d_model² (6·d_model²), "
                           "y sus sesgos (2·d_model), un tercio de los lineales (6·d_model, con "
                           "los 4·d_model de LayerNorm)." % limit)
    below = d_ff > d_model
    side = "debajo" if below else "encima"
    if limit == here:
        # Equal at one decimal, yet not equal: the digits that tell them apart.
        exact_limit = 100 * d_ff / (2 * d_model + d_ff)
        digits = 2
        while digits < 9 and d.fmt(100 * share, digits) == d.fmt(exact_limit, digits):
            digits += 1
        where = ("justo por %s: con un decimal los dos se leen %s, y con %s decimales, %s %% "
                 "frente a %s %%" % (side, here, small_number_word(digits),
                                     d.fmt(100 * share, digits), d.fmt(exact_limit, digits)))
    else:
        where = "por %s, en %s" % (side, here)
    return sentence + (": con esta proporción la FFN tiende al %s del total cuanto mayor es "
                       "d_model. Aquí queda %s. A este tamaño aún cuentan los "
                       "términos que solo crecen como d_model: los sesgos de la FFN "
                       "(d_ff + d_model) suben su parte y LayerNorm (4·d_model) la baja, y con "
                       "d_ff %s que d_model %s." % (
                           limit, where, "mayor" if below else "menor",
                           "baja más de lo que sube" if below else "sube más de lo que baja"))


@reads("d_model", "heads", "d_ff")
def block_panel(state):
    d_model, heads, d_ff = state["d_model"], state["heads"], state["d_ff"]
    counts = b.block_parameter_counts(d_model, d_ff)
    real = counts["total"] <= REAL_PARAMS_MAX
    shape_in = shape_out = (SHAPE_BATCH, SHAPE_T, d_model)
    if real:
        shape_in, shape_out, finite = b.shape_check(d_model, heads, d_ff, SHAPE_BATCH, SHAPE_T)
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
        "ffn_share": table["shares"]["ffn"],
        "share_sentence": share_sentence(d_model, d_ff),
    }


PARTS = (("block", block_panel),)
