"""Panel 2: one head's output is one mixture; the vocabulary comes later."""
from __future__ import annotations

import numpy as np

from .. import display as d
from ..didactic import HEADS, VOCABULARY
from ..heads import model_word
from ..language import next_word_probs
from ..memo import reads
from ..words import best_as_read, join_words, same, winner_sentence
from ..display import rows_note
from .context import SENTENCE, head_runs, heads_of, tokens_of, weight_texts


def _mixture(run, head_id, i):
    tokens, weights, v = run["tokens"], run["weights"][i], run["v"]
    texts = weight_texts(weights, run["mask"][i])
    rows = []
    for j, word in enumerate(tokens):
        blocked = not run["mask"][i, j]
        rows.append({"label": word, "cells": [
            d.cell(weights[j], texts[j], masked=blocked),
            d.cell(None, d.fmt_vector_short(v[j])),
            d.cell(None, d.fmt_vector(weights[j] * v[j])),
        ]})
    rows.append({"label": "suma", "selected": True, "cells": [
        d.cell(1.0, d.fmt(1, d.WEIGHT_DIGITS)), d.cell(None, ""),
        d.cell(None, d.fmt_vector(run["out"][i]))]})
    note = _note(texts, run, i)
    return {
        "copies": _copies(run, i),
        "head": HEADS[head_id]["label"],
        "out": d.fmt_vector(run["out"][i]),
        "d_v": int(v.shape[1]),
        "table": d.table("mixture-" + head_id, "Contribuciones a la salida de «%s» · %s"
                         % (tokens[i], HEADS[head_id]["label"]),
                         ["peso", "valor V", "peso × V"], rows, "posición", note),
    }


def _copies(run, i):
    """When the query's word appears more than once: do its copies get the
    same mixture? Said from the outputs, with the reason the mask gives."""
    tokens = run["tokens"]
    where = [p for p, w in enumerate(tokens) if w == tokens[i]]
    if len(where) < 2:
        return ""
    outs = [run["out"][p] for p in where]
    places = join_words([str(p) for p in where])
    if all(same(outs[0], o) for o in outs[1:]):
        why = ("con la máscara bidireccional todas las copias tienen la misma consulta y ven las "
               "mismas palabras, y aquí los vectores no dependen de la posición: sin una señal "
               "de posición, la atención no distingue una copia de otra"
               if run["mask"].all() else
               "aunque cada copia ve un prefijo distinto, en esta cabeza sus pesos y valores dan "
               "la misma mezcla")
        every = "las dos" if len(where) == 2 else "las %d" % len(where)
        return ("«%s» aparece en las posiciones %s y su mezcla es la misma en %s, %s: %s."
                % (tokens[i], places, every, d.fmt_vector(outs[0]), why))
    said = join_words(["%s en la %d" % (d.fmt_vector(o), p) for o, p in zip(outs, where)])
    # The reason read from the copies' own vectors: a head that builds them
    # from the position («token anterior») gives each copy its own, whatever
    # the mask; otherwise only the causal mask's prefixes can separate them.
    own = [np.concatenate([run["q"][p], run["k"][p], run["v"][p]]) for p in where]
    if not all(same(own[0], o) for o in own[1:]):
        why = ("no empiezan con los mismos vectores: en esta cabeza la consulta, la clave y el "
               "valor de cada palabra dependen de su posición")
    else:
        why = ("empiezan con el mismo vector, pero con la máscara causal cada copia ve un prefijo "
               "distinto: el contexto las separa")
    return "«%s» aparece en las posiciones %s y sus mezclas difieren: %s. Las copias %s." % (
        tokens[i], places, said, why)


def _note(texts, run, i):
    """Where the rounded weights or contributions, as read, do not add up to
    their «suma» row."""
    opened = run["mask"][i]
    gaps = []
    weight_gap = d.sum_gap([t for t, o in zip(texts, opened) if o], "1,00")
    if weight_gap:
        gaps.append(("los pesos", weight_gap, "1,00"))
    parts = [[d.fmt(x) for x in run["weights"][i, j] * run["v"][j]] for j in range(len(texts))]
    total = [d.fmt(x) for x in run["out"][i]]
    added = [d.fmt(float(d.shown_sum(column))) for column in zip(*parts)]
    if added != total:
        gaps.append(("las contribuciones peso × V", "(%s)" % "; ".join(added),
                     "(%s)" % "; ".join(total)))
    return d.rounding_note(gaps)


def _vocab_note(word, note):
    """A word outside the toy model's six has no embedding of its own: say
    so under its row of probabilities."""
    if model_word(word) is not None:
        return note
    said = ("«%s» no es una de las seis palabras del modelo de juguete (%s): no tiene "
            "embedding propio, y lo que predice sale solo de lo que escriben las cabezas."
            % (word, ", ".join(VOCABULARY)))
    return said if not note else note + " " + said


@reads(*SENTENCE, "query", "mask", "head")
def mixture_panel(state):
    i = state["query"]
    tokens = tokens_of(state)
    _, logits, probs = next_word_probs(tokens, heads_of(state), state["mask"])
    order = np.argsort(-probs[i], kind="stable")
    words = [VOCABULARY[w] for w in order]
    texts = d.fmt_row(probs[i][order])
    top = best_as_read(words, texts)
    rows = [{"label": word, "selected": word in top,
             "cells": [d.cell(logits[i, w]), d.cell(probs[i, w], text)]}
            for word, w, text in zip(words, order, texts)]
    rows.append({"label": "suma", "cells": [d.cell(None, ""), d.cell(1.0, d.fmt(1, d.WEIGHT_DIGITS))]})
    return {
        "blocks": [_mixture(run, h, i) for h, run in head_runs(state).items()],
        "vocab": {
            "query": tokens[i],
            "best": winner_sentence(words, texts),
            "table": d.table("vocab", "Siguiente palabra tras «%s» (vocabulario)" % tokens[i],
                             ["logit", "probabilidad"], rows, "palabra",
                             _vocab_note(tokens[i], rows_note([(tokens[i], texts)],
                                                              "las probabilidades tras «%s»"))),
        },
    }


PARTS = (("mixture", mixture_panel),)
