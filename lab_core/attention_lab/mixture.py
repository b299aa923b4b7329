"""Panel 2: one head's output is one mixture; the vocabulary comes later."""
from __future__ import annotations

import numpy as np

from .. import display as d
from ..didactic import HEADS, VOCABULARY
from ..language import next_word_probs
from ..memo import reads
from ..words import best, winner_sentence
from .context import SENTENCE, head_runs, heads_of, tokens_of
from .scores import weight_texts


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
        d.cell(weights.sum(), d.sum_text(weights.sum(), texts)), d.cell(None, ""),
        d.cell(None, d.fmt_vector(run["out"][i]))]})
    return {
        "head": HEADS[head_id]["label"],
        "out": d.fmt_vector(run["out"][i]),
        "d_v": int(v.shape[1]),
        "table": d.table("mixture-" + head_id, "Contribuciones a la salida de «%s» · %s"
                         % (tokens[i], HEADS[head_id]["label"]),
                         ["peso", "valor V", "peso × V"], rows, "posición"),
    }


@reads(*SENTENCE, "query", "mask", "head")
def mixture_panel(state):
    i = state["query"]
    tokens = tokens_of(state)
    _, logits, probs = next_word_probs(tokens, heads_of(state), state["mask"])
    order = np.argsort(-probs[i], kind="stable")
    words = [VOCABULARY[w] for w in order]
    top = best(words, probs[i][order])
    texts = d.fmt_parts(probs[i][order])
    rows = [{"label": word, "selected": word in top,
             "cells": [d.cell(logits[i, w]), d.cell(probs[i, w], text)]}
            for word, w, text in zip(words, order, texts)]
    rows.append({"label": "suma", "cells": [
        d.cell(None, ""), d.cell(probs[i].sum(), d.sum_text(probs[i].sum(), texts))]})
    return {
        "blocks": [_mixture(run, h, i) for h, run in head_runs(state).items()],
        "vocab": {
            "query": tokens[i],
            "best": winner_sentence(words, probs[i][order], texts),
            "table": d.table("vocab", "Siguiente palabra tras «%s» (vocabulario)" % tokens[i],
                             ["logit", "probabilidad"], rows, "palabra"),
        },
    }
