"""Panel 5: the feed-forward network: GELU and ReLU, why σ matters, and that
each position is computed alone."""
from __future__ import annotations

import functools

import numpy as np

from .. import block as b
from .. import display as d
from ..memo import reads
from ..pictures import chart, linear_axis, series
from .bloque import ratio_text


@functools.lru_cache(maxsize=1)
def _activation_chart(grid):
    gelu, relu = b.gelu(np.array(grid)), b.relu(np.array(grid))
    # GELU's true minimum, not the plot's lowest point: a fine grid around it
    # (x·Φ(x) has one minimum, near −0,75).
    fine = np.linspace(-1.5, 0.0, 150001)
    lowest = float(b.gelu(fine).min())
    return chart(
        "GELU y ReLU", linear_axis(grid[0], grid[-1], "x"),
        linear_axis(min(0.0, float(gelu.min())), float(relu.max()), "σ(x)"),
        [series("GELU", grid, gelu, 0), series("ReLU", grid, relu, 1, dash=True)],
        "GELU y ReLU de %s a %s: ReLU vale 0 para todo x negativo y x para el positivo; GELU, "
        "x·Φ(x), es suave en 0 y baja un poco por debajo de 0 (su mínimo, %s) antes de "
        "acercarse a 0 por la izquierda." % (d.fmt_short(grid[0]), d.fmt_short(grid[-1]),
                                              d.fmt(lowest, 3)))


@reads("d_model", "d_ff")
def ffn_panel(state):
    x, w1, b1, w2, b2 = b.toy_ffn()
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
        "plot": _activation_chart(tuple(float(v) for v in grid)),
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


PARTS = (("ffn", ffn_panel),)
