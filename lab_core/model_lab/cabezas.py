"""Panel «Qué mira cada cabeza»: every head of both blocks on a sentence the
reader picks or types, at the step reached, and the patterns the numbers
show over the held-out sentences (decoder_run.head_patterns)."""
from __future__ import annotations

import functools
import math

from .. import decoder_run as R
from .. import display as d
from .. import grammar as G
from ..display import rows_note
from ..memo import reads
from ..pictures import HeadLines, attention_lines
from ..words import occurrence
from .context import (GRAMMAR_LOSS, MARGIN, MASK_LABELS, RUN_KEYS, figures_of, fmt_loss,
                      runs)

TRAIN_WORDS = frozenset(s.words for s in G.TRAIN)
HELD_WORDS = frozenset(s.words for s in G.HELD_OUT)
COPIES = [s for s in G.HELD_OUT if s.kind == "copia"]  # where head_patterns measures a look back


def head_label(block, head):
    return "bloque %d, cabeza %d" % (block + 1, head + 1)


def where(words):
    """Where the sentence comes from, as a reader needs to know it."""
    if words in TRAIN_WORDS:
        return "Es una de las frases de entrenamiento."
    if words in HELD_WORDS:
        return "Es una de las frases apartadas: el modelo no la ha visto nunca."
    if G.is_sentence(words):
        return "Es una frase de la gramática."
    return ("No es una frase de la gramática, pero el modelo conoce todas sus palabras: las "
            "cabezas la leen igual.")


@functools.lru_cache(maxsize=16)
def patterns(lr, seed, positions, steps, mask):
    return R.head_patterns(R.runs_at(lr, seed, positions, steps)[mask])


def pattern_sentence(block, head, found, mask, here=None):
    """What a head does on the held-out sentences, said from its means
    (decoder_run.head_patterns); named only past PATTERN_SHARE. The word
    after is spoken of only where the mask lets a head see it, and counted
    only where the grammar leaves a choice (decoder_run.choice_points).
    `here`: the same measures on the sentence shown (sentence_shares), so a
    named pattern also says what the head does on the one in its figure."""
    name = head_label(block, head).capitalize()
    back, prev, nxt = (d.fmt(found[k]) for k in ("look_back", "previous", "next"))
    ahead = mask == "bidirectional"
    pattern = found["pattern"]
    if pattern:
        low, high = (d.fmt(x) for x in found["spread"][pattern])
        # One weight per sentence for the look back; a mean over its words otherwise.
        its = "" if pattern == "look_back" else "su media "
        spread = (" Según la frase, %sva de %s a %s" % (its, low, high) if low != high else
                  " En todas las frases, %s" % low)
        mine = (here or {}).get(pattern)
        spread += "; en la de arriba, %s." % d.fmt(mine) if mine is not None else "."
    if pattern == "look_back":
        return ("%s mira atrás: al llegar a «y», pone de media %s de su peso en el nombre que "
                "toca repetir, dicho antes.%s" % (name, back, spread))
    if pattern == "previous":
        return "%s mira la palabra anterior: le da de media %s de su peso.%s" % (
            name, prev, spread)
    if pattern == "next":
        return ("%s mira la palabra siguiente, la que el modelo debe adivinar: donde la "
                "gramática deja elegir, le da de media %s de su peso.%s" % (name, nxt, spread))
    shares = ("%s a la anterior, %s a la siguiente donde hay elección y %s al nombre que toca "
              "repetir" % (
        prev, nxt, back) if ahead else "%s a la anterior y %s al nombre que toca repetir" % (
        prev, back))
    return ("%s no sigue ninguno de esos patrones: da de media %s. Puede que haga otra "
            "cosa: mira su tabla." % (name, shares))


def rule(mask):
    """How a head earns a name, said once above them."""
    ahead = mask == "bidirectional"
    looks = ("la palabra anterior, la siguiente (contada solo donde la gramática deja elegir "
             "más de una: donde no, mirarla no da nada que no se sepa ya)" if ahead
             else "la palabra anterior")
    even = d.fmt(R.even_share(mask)) + " a la anterior" + (
        " y %s a la siguiente" % d.fmt(R.even_share(mask, which="next")) if ahead else "")
    return ("Medias sobre las frases apartadas. Una cabeza recibe nombre si pone de media al "
            "menos %s de su peso en %s o, al llegar a «y», en el nombre que toca repetir "
            "(en las %s frases apartadas como «%s»). Una cabeza que repartiera su peso por igual entre las palabras que puede leer "
            "daría de media %s." % (d.fmt(R.PATTERN_SHARE), looks, len(COPIES),
                                    " ".join(COPIES[0].words[:-1]), even))


def previous_note(found, mask, learned=True):
    """Under the causal mask, once the model has learned the grammar
    (`learned`: an untrained head has no reason to look anywhere), when no
    head is named for the word before, what that word is worth in this
    grammar (grammar.loss_knowing, over all its sentences: the best loss
    knowing the words said, then the word before too, then every word
    before in order); None otherwise."""
    if (mask != "causal" or not learned
            or any(f["pattern"] == "previous" for f in found.values())):
        return None
    most = max(found, key=lambda k: found[k]["previous"])
    return ("¿Por qué ninguna cabeza se dedica a la palabra anterior? La que más la mira, %s, "
            "le da de media %s, algo más que una que repartiera su peso por igual (%s). "
            "En estas frases la palabra anterior sirve de poco. Contando las %s frases de la "
            "gramática (no solo las %s apartadas), el mejor modelo posible que conociera la "
            "palabra actual y cuáles se han dicho antes, sin su orden, perdería %s nats por "
            "palabra; si conociera además la anterior, %s; y con todas las anteriores en su "
            "orden, %s (con las apartadas solas, %s)." % (
                head_label(*most), d.fmt(found[most]["previous"]),
                d.fmt(R.even_share(mask)), d.fmt_int(len(G.SENTENCES)),
                d.fmt_int(len(G.HELD_OUT)),
                fmt_loss(G.loss_knowing(G.said_and_current)),
                fmt_loss(G.loss_knowing(G.said_current_and_previous)),
                fmt_loss(G.loss_knowing()), fmt_loss(GRAMMAR_LOSS)))


def learned(state):
    """Has the causal run learned the grammar: its latest held-out loss
    within MARGIN of the grammar's own?"""
    _, loss = figures_of(state)["causal"]["held"][-1]
    return math.isfinite(loss) and loss <= GRAMMAR_LOSS + MARGIN


@reads(*RUN_KEYS, "sentence", "mask")
def heads_panel(state):
    words = tuple(state["sentence"].split())
    mask = state["mask"]
    run = runs(state)[mask]
    weights = R.attention_weights(run, words)  # [L, H, T, T]
    n = len(words)
    named = [occurrence(words, i) for i in range(n)]  # «juan (2.ª)», as the figures say
    opened = [[mask == "bidirectional" or j <= i for j in range(n)] for i in range(n)]
    blocks = []
    for l in range(run.cfg.n_block):
        drawn, tables = [], []
        for h in range(run.cfg.n_head):
            w = weights[l, h]
            texts = [[d.fmt(w[i, j], d.WEIGHT_DIGITS) if opened[i][j] else "0" for j in range(n)]
                     for i in range(n)]
            drawn.append(HeadLines("b%dh%d" % (l, h), "cabeza %d" % (h + 1), w.tolist(), opened,
                                   texts))
            rows = [{"label": named[i], "cells": [
                d.cell(w[i, j], texts[i][j], masked=not opened[i][j]) for j in range(n)]}
                for i in range(n)]
            note = rows_note([(occurrence(words, i), [t for t, o in zip(texts[i], opened[i]) if o])
                              for i in range(n)])
            tables.append(d.table("model-heads-%d-%d" % (l, h), "Pesos · %s" % head_label(l, h),
                                  named, rows, "consulta", note))
        caption = "Bloque %d · máscara %s · paso %s" % (l + 1, MASK_LABELS[mask],
                                                        d.fmt_int(state["steps"]))
        blocks.append({"title": "Bloque %d" % (l + 1),
                       "view": attention_lines(list(words), drawn, None, caption),
                       "tables": tables})
    found = patterns(state["lr"], state["seed"], state["positions"], state["steps"], mask)
    here = R.sentence_shares(run, words)
    return {
        "words": " ".join(words),
        "where": where(words),
        "blocks": blocks,
        "rule": rule(mask),
        "patterns": [pattern_sentence(l, h, found[(l, h)], mask, here[(l, h)])
                     for l, h in sorted(found)],
        "previous": previous_note(found, mask, learned(state)) or "",
    }


PARTS = (("heads", heads_panel),)
