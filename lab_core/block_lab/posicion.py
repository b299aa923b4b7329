"""Panel 2: the sinusoidal positional encoding, and why sines come with cosines."""
from __future__ import annotations

import numpy as np

from .. import block as b
from .. import display as d
from ..memo import reads
from ..words import plural
from .sizes import HEAT_SCALE

WAVE_DIGITS = 2  # 2π reads 6,28 here as in the quiz


@reads("pe_positions", "pe_d", "shift_k")
def position_panel(state):
    n_pos, width, k = state["pe_positions"], state["pe_d"], state["shift_k"]
    pe = b.sinusoidal_pe(n_pos, width)
    lam = b.wavelengths(width)
    omega = b.pair_frequencies(width)
    rows = [{"label": "%d (coord. %d y %d)" % (i, 2 * i, 2 * i + 1), "cells": [
        d.cell(omega[i], d.fmt_sci(omega[i])), d.cell(lam[i], d.fmt(lam[i], WAVE_DIGITS))]}
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
                % d.fmt(lam[0], WAVE_DIGITS))
    return ("La onda más rápida se repite cada %s posiciones (2π); la más lenta, cada %s."
            % (d.fmt(lam[0], WAVE_DIGITS), d.fmt(lam[-1], WAVE_DIGITS)))


def _limit_sentence(pairs):
    """Where the slowest wave goes as d_model grows: 2π·10000^((d−2)/d) → 2π·10000."""
    limit = d.fmt(b.PE_BASE * 2 * np.pi, 0)
    base = d.fmt_int(b.PE_BASE)
    if pairs == 1:
        return ("Con más parejas, la más lenta se alargaría hasta acercarse a %s·2π ≈ %s."
                % (base, limit))
    return "Con d_model grande, la más lenta se acerca a %s·2π ≈ %s." % (base, limit)


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
        return "Solo está la posición 0" + zero[len("La posición 0 es aparte"):]
    if error < 1e-9:
        return ("De la posición 1 en adelante, con tan pocas posiciones, incluso los senos "
                "solos bastan. " + zero)
    # The error itself is printed just before this sentence (bloque.html).
    return ("De la posición 1 en adelante, ningún mapa lineal fijo lo hace exacto: sin el "
            "coseno de su pareja, un seno no sabe si sube o baja, y no hay matriz que "
            "desplace todas las posiciones a la vez. Ese error es el del mejor ajuste por "
            "mínimos cuadrados (el que hace pequeña la suma de los errores al cuadrado; otro "
            "mapa podría bajar algo el mayor de ellos, nunca a cero). " + zero)


PARTS = (("position", position_panel),)
