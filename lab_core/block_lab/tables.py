"""Tables the block lab's panels share: attention weights, each its own rounding."""
from __future__ import annotations

from .. import display as d


def _weights_note(labels, texts):
    """Where a row of weights, as read, does not add up to 1."""
    gaps = [("los pesos de la fila de «%s»" % w, gap, "1,00") for w, gap in
            ((w, d.sum_gap(row, "1,00")) for w, row in zip(labels, texts)) if gap]
    return d.rounding_note(gaps)


def weights_table(table_id, caption, labels, weights):
    """Attention weights at two decimals, each its own rounding."""
    texts = [d.fmt_row(row) for row in weights]
    return d.table(table_id, caption, labels,
                   [{"label": w, "cells": [d.cell(x, t) for x, t in zip(row, shown)]}
                    for w, row, shown in zip(labels, weights, texts)], "consulta \\ clave",
                   _weights_note(labels, texts))
