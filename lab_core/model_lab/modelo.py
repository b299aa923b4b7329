"""Panel «El modelo y sus frases»: what is trained, counted piece by piece,
and the sentences it learns from (lab_core/grammar.py)."""
from __future__ import annotations

import math

from .. import decoder as D
from .. import decoder_run as R
from .. import display as d
from .. import grammar as G
from ..memo import reads
from ..words import join_words
from .context import GRAMMAR_LOSS, MARGIN

CFG = R.CONFIG
KIND_LABELS = {
    "despues": "el sentido de banco lo decide una palabra de después",
    "antes": "el sentido de banco lo decide una palabra de antes",
    "copia": "un nombre que se repite",
    "pide": "un nombre que se repite, con el banco como entidad que da créditos",
}
# The pieces of the parameter table, in the order the data flows, with the
# weights of decoder.param_shapes each one holds ("b*" = every block).
PIECES = (
    ("Embedding", ("emb",)),
    ("LayerNorm 1 (γ, β)", ("ln1_g", "ln1_b")),
    ("W_Q, W_K, W_V", ("w_q", "w_k", "w_v")),
    ("W_O", ("w_o",)),
    ("LayerNorm 2 (γ, β)", ("ln2_g", "ln2_b")),
    ("FFN (W₁, b₁, W₂, b₂)", ("w1", "b1", "w2", "b2")),
    ("LayerNorm final (γ, β)", ("lnf_g", "lnf_b")),
    ("Unembedding (W_U, b_U)", ("w_u", "b_u")),
)
OPEN_PREFIX = ("el", "banco", "del", "parque")  # a prefix the grammar leaves open
IN_BLOCK = {"ln1_g", "ln1_b", "w_q", "w_k", "w_v", "w_o", "ln2_g", "ln2_b", "w1", "b1", "w2", "b2"}


def _shape_text(shape):
    return "×".join(str(n) for n in shape)


def parameter_rows(cfg=CFG):
    """[(piece, shapes as read, count)], each block's pieces counted once per
    block; the counts add up to decoder.count_params(cfg)."""
    shapes = D.param_shapes(cfg)
    rows = []
    for label, names in PIECES:
        if names[0] in IN_BLOCK:
            one = [shapes["b0.%s" % n] for n in names]
            count = cfg.n_block * sum(math.prod(s) for s in one)
            shown = "%d × (%s)" % (cfg.n_block, " + ".join(_shape_text(s) for s in one))
        else:
            one = [shapes[n] for n in names]
            count = sum(math.prod(s) for s in one)
            shown = " + ".join(_shape_text(s) for s in one)
        rows.append((label, shown, count))
    return rows


def parameter_table(cfg=CFG):
    """Count first, shapes second: on a phone the count is what stays in view.
    A piece inside the blocks reads «2 × (…)»: once per block."""
    rows = [{"label": label, "cells": [d.cell(count, d.fmt_int(count)), d.cell(None, shown)]}
            for label, shown, count in parameter_rows(cfg)]
    rows.append({"label": "Total", "cells": [d.cell(D.count_params(cfg),
                                                    d.fmt_int(D.count_params(cfg))),
                                             d.cell(None, "")]})
    return d.table("model-params", "Los parámetros del modelo", ["parámetros", "formas"], rows,
                   "pieza", "Las piezas de dentro de los bloques cuentan una vez por bloque: "
                   "«%d × (…)»." % cfg.n_block)


def _kinds():
    out = []
    for kind in G.KINDS:
        train = [s for s in G.TRAIN if s.kind == kind]
        held = [s for s in G.HELD_OUT if s.kind == kind]
        out.append({"label": KIND_LABELS[kind],
                    "count": "%s frases: %s de entrenamiento y %s apartadas"
                             % (d.fmt_int(len(train) + len(held)), d.fmt_int(len(train)),
                                d.fmt_int(len(held))),
                    "example": " ".join(train[0].words),
                    "held": " ".join(held[0].words)})
    return out


@reads()
def model_panel(state):
    words = sorted(w for w in G.VOCABULARY if w != G.END)
    return {
        "params": parameter_table(),
        "size": "d_model = %d, %d cabezas de %d dimensiones por bloque, d_ff = %d, %d bloques y "
                "%d palabras en el vocabulario (contando «.»): %s parámetros en total."
                % (CFG.d_model, CFG.n_head, CFG.d_model // CFG.n_head, CFG.d_ff, CFG.n_block,
                   CFG.vocab, d.fmt_int(D.count_params(CFG))),
        "corpus": "La gramática genera %s frases distintas, todas igual de probables. El "
                  "modelo entrena con %s y se guardan %s que nunca ve, para medir si generaliza."
                  % (d.fmt_int(len(G.SENTENCES)), d.fmt_int(len(G.TRAIN)),
                     d.fmt_int(len(G.HELD_OUT))),
        "kinds": _kinds(),
        "bound": "Aunque el modelo aprendiera la gramática entera, no podría adivinar todas las "
                 "palabras: tras «%s» puede venir %s. Un modelo que conociera las probabilidades exactas de la gramática pagaría, "
                 "de media, %s nats por palabra en las frases apartadas: es la pérdida más baja "
                 "que cabe esperar sin ver las palabras que vienen después. La meta es quedar a menos de "
                 "%s de ella." % (" ".join(OPEN_PREFIX), join_words(
                     ["«%s»" % w for w in G.next_words(OPEN_PREFIX)], "o"),
                     d.fmt_small(GRAMMAR_LOSS), d.fmt(MARGIN, 1)),
        "vocabulary": "%s palabras: estas %s, %s; y «%s» para terminar."
                      % (d.fmt_int(len(words) + 1), d.fmt_int(len(words)),
                         ", ".join("«%s»" % w for w in words), G.END),
        "batch": "Cada paso de entrenamiento toma %d frases al azar de las de entrenamiento. "
                 "La pérdida con las apartadas se mide cada %d pasos."
                 % (R.BATCH, R.HELD_EVERY),
    }


PARTS = (("model", model_panel),)
