"""Panel 1: attention does not know the order of the words."""
from __future__ import annotations

import numpy as np

from .. import block as b
from .. import display as d
from ..didactic_block import ORDER_D_MODEL, ORDER_SEED, ORDER_SENTENCE, SWAPPED_ORDER
from ..memo import reads
from ..pictures import HeadLines, attention_lines
from .tables import weights_table


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
    x, w_q, w_k, w_v = b.toy_attention(len(ORDER_SENTENCE), ORDER_D_MODEL, ORDER_SEED)
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
        return attention_lines(labels, [HeadLines("orden", "una cabeza sin posición",
                                                  matrix.tolist(), opened, texts)],
                               None, "Pesos · %s" % " ".join(labels))

    view = {
        "original": " ".join(words),
        "permuted": " ".join(moved),
        "views": [picture(words, weights), picture(moved, weights_p)],
        "weights": weights_table("order-w", "Pesos · %s" % " ".join(words), words, weights),
        "weights_permuted": weights_table("order-wp", "Pesos · %s" % " ".join(moved), moved,
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


PARTS = (("order", order_panel),)
