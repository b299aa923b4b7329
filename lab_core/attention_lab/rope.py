"""Panel 5: single-frequency RoPE, and why only the signed offset n − m counts."""
from __future__ import annotations

import numpy as np

from .. import display as d
from ..memo import reads
from ..pictures import chart, linear_axis, series
from ..rope import rope_rotate, rope_score, rope_scores
from ..words import prompt, same
from .context import options

STARTS = (0, 3, 7)  # three query positions per offset: same offset, same score


def _offset_table(q, k, theta, offset):
    offsets = sorted(set(range(-3, 4)) | {offset})
    base = max(0, -min(offsets))  # so that n = m + offset is never negative
    columns = [base + s for s in STARTS]
    m = np.array(columns)[None, :]
    scores = rope_scores(q, k, m, m + np.array(offsets)[:, None], theta)  # [offsets, columns]
    # The three cells of a row are one number computed three ways; d.fmt
    # reads 12 digits, so round-off never splits them at a tie.
    rows = [{"label": "n − m = %s" % d.fmt_signed(off), "selected": off == offset,
             "cells": [d.cell(float(score)) for score in row]}
            for off, row in zip(offsets, scores)]
    return d.table("rope", "qₘ · kₙ según el desplazamiento n − m (θ = %s)" % d.fmt(theta),
                   ["m = %d" % m for m in columns], rows, "desplazamiento")


def _sign_sentence(q, k, theta, offset, score):
    """What the sign of n − m changes, from the geometry of q and k.

    q · R(δ)k − q · R(−δ)k = 2·sin δ·(q₂k₁ − q₁k₂): the two signs give the same
    score exactly when sin δ = 0 or q and k are parallel (or one is null).
    With θ = 0 nothing turns at all, whatever the positions.
    """
    if theta == 0:
        return ("Con θ = 0 nada gira: qₘ · kₙ = q · k %s en cualquier posición, así que no "
                "cuentan ni el desplazamiento ni su signo." % d.equals(score))
    if offset == 0:
        return ("Con n − m = 0 los dos vectores giran lo mismo: qₘ · kₙ = q · k %s."
                % d.equals(score))
    mirrored = rope_score(q, k, 0, -offset, theta)
    text = ("Con n − m = %s, qₘ · kₙ %s; con n − m = %s valdría %s"
            % (d.fmt_signed(offset), d.equals(score), d.fmt_signed(-offset), d.fmt(mirrored)))
    if not same(score, mirrored):
        if d.fmt(score) == d.fmt(mirrored):  # the table, at two decimals, cannot tell them apart
            text += (", que con dos decimales se leen igual pero difieren en %s"
                     % d.fmt_sci(abs(score - mirrored)))
        return text + ": el desplazamiento tiene signo, no es una distancia."
    if not q.any() or not k.any():
        return text + ": con un vector nulo el producto es 0 en cualquier posición."
    if abs(q[1] * k[0] - q[0] * k[1]) < 1e-12:
        return text + (": q y k son paralelos, y girar uno hacia un lado o hacia el otro "
                       "da el mismo producto. Con vectores no paralelos el signo sí cuenta.")
    return text + (": con este ángulo, (n − m)·θ %s rad, un múltiplo de π, girar hacia un lado "
                   "o hacia el otro da lo mismo. Con n − m = ±1 el signo sí cuenta."
                   % d.equals(offset * theta))


def _shift_explanation(q, k, theta, score, shifted, offset):
    """Why adding 1 to m and to n leaves qₘ · kₙ as it was."""
    if not same(score, shifted):
        raise AssertionError("a rotation by the same angle cannot change the score")
    text = "No cambia: vale %s antes y %s después. " % (d.fmt(score), d.fmt(shifted))
    if not q.any() or not k.any():
        null = "q y k son nulos" if not q.any() and not k.any() else "%s es nulo" % (
            "q" if not q.any() else "k")
        return text + ("Aquí %s, y el producto de un vector nulo con cualquier vector girado "
                       "es 0. Con dos vectores no nulos tampoco cambiaría: solo cuenta n − m."
                       % null)
    if theta == 0:
        return text + "Con θ = 0 nada gira: la puntuación no depende de ninguna posición."
    return text + ("Solo importa el desplazamiento n − m = %s (con su signo: no es una "
                   "distancia), porque girar los dos vectores el mismo ángulo no cambia el "
                   "ángulo entre ellos." % d.fmt_signed(offset))


def _offset_chart(q, k, theta, offset):
    """The score against the offset n − m, with the current offset marked."""
    span = max(12, abs(offset))
    offsets = list(range(-span, span + 1))
    steps = np.array(offsets)
    # Positions never negative: the query at −offset when the offset is.
    scores = [float(s) for s in rope_scores(q, k, np.maximum(0, -steps), np.maximum(0, steps), theta)]
    # |qₘ · kₙ| ≤ |q|·|k|; with a null vector the curve is 0 and the axis ±1.
    limit = float(np.linalg.norm(q) * np.linalg.norm(k)) or 1.0
    current = scores[offsets.index(offset)]  # the marker sits on the curve
    return chart(
        "qₘ · kₙ según n − m", linear_axis(-span, span, "n − m"),
        linear_axis(-limit, limit, "qₘ · kₙ"), [series("qₘ · kₙ", offsets, scores, 0, dots=True)],
        "La puntuación qₘ · kₙ para desplazamientos n − m de %s a %s: %s; en el desplazamiento "
        "actual, %s, vale %s." % (
            d.fmt_signed(-span), d.fmt_signed(span),
            "vale siempre %s" % d.fmt(min(scores)) if d.fmt(min(scores)) == d.fmt(max(scores))
            else "oscila entre %s y %s" % (d.fmt(min(scores)), d.fmt(max(scores))),
            d.fmt_signed(offset), d.fmt(current)),
        marker={"x": offset, "y": d.num(current), "label": "n − m = %s" % d.fmt_signed(offset)})


def _angle_text(angle):
    """An angle in radians, and its reduction to [0, 2π) when it is larger.

    The rest reads with the decimals it takes to be less than a turn and
    more than nothing: 12,5600 is 1·2π + 6,277, not «+ 6,28» (2π itself).
    """
    turns = angle / (2 * np.pi)
    if angle < 2 * np.pi:
        return d.fmt(angle)
    rest = angle % (2 * np.pi)
    places = next((p for p in range(2, 7) if d.fmt(rest, p) != d.fmt(2 * np.pi, p)
                   and (rest == 0 or d.number(d.fmt(rest, p)) != 0)), 6)
    return "%s (%s + %s)" % (d.fmt(angle), "%d·2π" % int(turns), d.fmt(rest, places))


def _arrow(name, vector, role, moved):
    """A vector of the drawing; a null vector has no direction and no arrow."""
    return {"name": name, "x": d.num(vector[0]), "y": d.num(vector[1]), "role": role,
            "moved": moved, "null": not np.any(vector)}


# θ moves by 0,01 on its slider: the cache keeps a whole sweep and the way
# back, so dragging back and forth never computes a panel twice.
@reads("theta", "rope_m", "rope_n", "rope_q", "rope_k", maxsize=64)
def rope_panel(state):
    theta, m, n = state["theta"], state["rope_m"], state["rope_n"]
    q, k = np.array(state["rope_q"]), np.array(state["rope_k"])
    q_m, k_n = rope_rotate(q, m, theta), rope_rotate(k, n, theta)
    score = float(q_m @ k_n)
    offset = n - m
    shifted = rope_score(q, k, m + 1, n + 1, theta)
    extent = max(1.0, float(np.linalg.norm(q)), float(np.linalg.norm(k)))
    unchanged = same(shifted, score)
    vectors = [_arrow("q", q, "q", False), _arrow("k", k, "k", False)]
    # A rotation by 0 leaves the vector where it was: one arrow, one label.
    if m * theta:
        vectors.append(_arrow("qₘ", q_m, "q", True))
    if n * theta:
        vectors.append(_arrow("kₙ", k_n, "k", True))
    return {
        "theta": d.fmt(theta),
        "angle_q": _angle_text(m * theta), "angle_k": _angle_text(n * theta),
        # The reader's q and k as panels 1 and 3 write vectors, (1; 0); the
        # rotated ones at the two decimals of every computed value.
        "q": d.fmt_vector_short(q), "k": d.fmt_vector_short(k),
        "q_m": d.fmt_vector(q_m), "k_n": d.fmt_vector(k_n),
        "score": d.fmt(score),  # as the table beside it reads
        "equals": d.equals(score),  # «= 2,00» or «≈ 1,41», for a sentence
        "plain_score": d.fmt(float(q @ k)),
        "offset": d.fmt_signed(offset),
        "sign": _sign_sentence(q, k, theta, offset, score),
        "norms": "|q| = %s = |qₘ|; |k| = %s = |kₙ|" % (
            d.fmt(np.linalg.norm(q), 3), d.fmt(np.linalg.norm(k), 3)),
        "drawing": {"extent": d.num(extent), "vectors": vectors,
                    "label": "q = %s y k = %s, girados %s y %s rad: qₘ = %s, kₙ = %s"
                             % (d.fmt_vector_short(q), d.fmt_vector_short(k), d.fmt(m * theta),
                                d.fmt(n * theta), d.fmt_vector(q_m), d.fmt_vector(k_n))},
        "table": _offset_table(q, k, theta, offset),
        "chart": _offset_chart(q, k, theta, offset),
        "predict": prompt({
            "id": "pred-rope:%s:%d:%d:%s:%s" % (state["theta"], m, n, state["rope_q"],
                                                state["rope_k"]),
            "question": "Si sumas 1 a m y también a n, ¿qué le pasa a qₘ · kₙ?",
            "options": options([("sube", "sube"), ("baja", "baja"), ("igual", "no cambia")]),
            "answers": ["igual" if unchanged else "sube" if shifted > score else "baja"],
            "explanation": _shift_explanation(q, k, theta, score, shifted, offset),
        }),
    }


PARTS = (("rope", rope_panel),)
