"""Panel 3: residual connections keep the gradient alive through depth."""
from __future__ import annotations

import numpy as np

from .. import block as b
from .. import display as d
from ..memo import reads
from ..pictures import chart, linear_axis, log_axis, series
from ..words import plural


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


PARTS = (("residual", residual_panel),)
