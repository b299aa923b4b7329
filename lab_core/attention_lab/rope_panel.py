"""Panel 5: single-frequency RoPE, and why only the signed offset n − m counts."""
from __future__ import annotations

import numpy as np

from .. import display as d
from ..memo import reads
from ..rope import rope_rotate, rope_score
from ..words import same
from .context import options

STARTS = (0, 3, 7)  # three query positions per offset: same offset, same score


def _offset_table(q, k, theta, offset):
    offsets = sorted(set(range(-3, 4)) | {offset})
    base = max(0, -min(offsets))  # so that n = m + offset is never negative
    columns = [base + s for s in STARTS]
    rows = [{"label": "n − m = %s" % d.fmt_signed(off), "selected": off == offset,
             "cells": [d.cell(rope_score(q, k, m, m + off, theta)) for m in columns]}
            for off in offsets]
    return d.table("rope", "q_m · k_n según el desplazamiento n − m (θ = %s)" % d.fmt(theta),
                   ["m = %d" % m for m in columns], rows, "desplazamiento")


def _sign_sentence(q, k, theta, offset, score):
    if offset == 0:
        return ("Con n − m = 0 los dos vectores giran lo mismo: q_m · k_n = q · k = %s."
                % d.fmt(score, 3))
    mirrored = rope_score(q, k, 0, -offset, theta)
    text = ("Con n − m = %s, q_m · k_n = %s; con n − m = %s valdría %s"
            % (d.fmt_signed(offset), d.fmt(score, 3), d.fmt_signed(-offset),
               d.fmt(mirrored, 3)))
    if same(score, mirrored):
        return text + (": con estos vectores el signo no cambia nada, pero con otros sí "
                       "(prueba q = (1; 1)).")
    return text + ": el desplazamiento tiene signo, no es una distancia."


@reads("theta", "rope_m", "rope_n", "rope_q", "rope_k")
def rope_panel(state):
    theta, m, n = state["theta"], state["rope_m"], state["rope_n"]
    q, k = np.array(state["rope_q"]), np.array(state["rope_k"])
    q_m, k_n = rope_rotate(q, m, theta), rope_rotate(k, n, theta)
    score = float(q_m @ k_n)
    offset = n - m
    shifted = rope_score(q, k, m + 1, n + 1, theta)
    extent = max(1.0, float(np.linalg.norm(q)), float(np.linalg.norm(k)))
    unchanged = same(shifted, score)
    return {
        "theta": d.fmt(theta),
        "angle_q": d.fmt(m * theta), "angle_k": d.fmt(n * theta),
        "q": d.fmt_vector(q), "k": d.fmt_vector(k),
        "q_m": d.fmt_vector(q_m), "k_n": d.fmt_vector(k_n),
        "score": d.fmt(score, 3),
        "plain_score": d.fmt(float(q @ k), 3),
        "offset": d.fmt_signed(offset),
        "sign": _sign_sentence(q, k, theta, offset, score),
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
        "table": _offset_table(q, k, theta, offset),
        "predict": {
            "id": "pred-rope:%s:%d:%d:%s:%s" % (state["theta"], m, n, state["rope_q"],
                                                state["rope_k"]),
            "question": "Si sumas 1 a m y también a n, ¿qué le pasa a q_m · k_n?",
            "options": options([("sube", "sube"), ("baja", "baja"), ("igual", "no cambia")]),
            "answers": ["igual" if unchanged else "sube" if shifted > score else "baja"],
            "explanation": "Vale %s antes y %s después: solo importa el desplazamiento "
                           "n − m = %s, porque girar los dos vectores el mismo ángulo no "
                           "cambia el ángulo entre ellos."
                           % (d.fmt(score, 3), d.fmt(shifted, 3), d.fmt_signed(offset)),
        },
    }
