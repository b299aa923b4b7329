"""Panel 6: causal training scores every position at once against the next token."""
from __future__ import annotations

import math

import numpy as np

from .. import display as d
from ..didactic import VOCABULARY
from ..language import training_step
from ..memo import reads
from ..pictures import chart, linear_axis, series
from ..words import join_words
from .context import SENTENCE, heads_of, position_label, tokens_of


def pairs_sentence(inputs, targets, scored=None):
    """«La salida de «El» se compara con «banco», la de «banco» con «del»…»;
    a pair whose target the toy model cannot predict is said to have no loss."""
    scored = [True] * len(inputs) if scored is None else list(scored)
    parts = ["%s «%s» %s «%s»%s" % ("La salida de" if n == 0 else "la de", a,
                                   "se compara con" if n == 0 else "con", b,
                                   "" if ok else " (sin pérdida)")
             for n, (a, b, ok) in enumerate(zip(inputs, targets, scored))]
    return "; ".join(parts) + "."


LOSS_DIGITS = 3
PROB_DIGITS = 2  # a probability reads as on panel 2's vocabulary table


def _moves(inputs, targets, causal, leaked):
    """Which positions the bidirectional mask helps and which it hurts, as read."""
    better, worse = [], []
    for a, b, before, after in zip(inputs, targets, causal, leaked):
        said = "«%s» → «%s» (%s → %s)" % (a, b, d.fmt(before, LOSS_DIGITS), d.fmt(after, LOSS_DIGITS))
        shown_before, shown_after = d.number(d.fmt(before, LOSS_DIGITS)), d.number(d.fmt(after, LOSS_DIGITS))
        if shown_after < shown_before:
            better.append(said)
        elif shown_after > shown_before:
            worse.append(said)
    return better, worse


def _positions(k, n, verb):  # -> «1 de 3 posiciones mejora», «las 3 posiciones empeoran»
    plural = "" if k == 1 else "n"
    if k == n:
        return "su única posición %s" % verb if n == 1 else "las %d posiciones %sn" % (n, verb)
    return "%d de %d posiciones %s%s" % (k, n, verb, plural)


def summary(causal_loss, leak_loss, better, worse, n):
    """The panel's conclusion (the mean losses, how many of the n positions
    go against the mean, and why the bidirectional mask is cheating
    whichever way its mean goes) and its detail: the positions it helps or
    hurts (all as read, at three decimals). A mean that falls while most
    positions rise would otherwise read as if seeing the answer helped
    every position. Returns (summary, detail)."""
    causal, leaked = d.fmt(causal_loss, LOSS_DIGITS), d.fmt(leak_loss, LOSS_DIGITS)
    head = "Pérdida media: causal %s; bidireccional %s" % (causal, leaked)
    if d.number(leaked) < d.number(causal):
        head += " (más baja, aunque %s)" % _positions(len(worse), n, "empeora") if worse else (
            " (más baja)")
    elif d.number(leaked) > d.number(causal):
        head += " (más alta, aunque %s)" % _positions(len(better), n, "mejora") if better else (
            " (más alta)")
    else:
        head += " (la misma)"
    conclusion = (head + ". Baje o suba, la bidireccional muestra a cada posición la palabra "
                  "a adivinar, que al generar aún no existe.")
    parts = []
    if better:
        parts.append("Con la bidireccional mejora%s %s." % ("n" if len(better) > 1 else "",
                                                           join_words(better)))
    if worse:
        parts.append("%s %s." % ("Empeoran" if len(worse) > 1 else "Empeora", join_words(worse)))
    parts.append("Que la media baje o suba depende de estos vectores hechos a mano; que la "
                 "bidireccional deje ver la respuesta, no.")
    return conclusion, " ".join(parts)


@reads(*SENTENCE)
def training_panel(state):
    tokens = tokens_of(state)
    if len(tokens) < 2:
        return {"table": None, "chart": None, "has_loss": False,
                "pairs": "Con una sola palabra no hay token siguiente con "
                "el que comparar: hace falta una frase de al menos dos.",
                "summary": "", "detail": ""}
    heads = heads_of(state)
    step = training_step(tokens, heads, "causal")
    leak = training_step(tokens, heads, "bidirectional")
    kept = [int(i) for i in np.flatnonzero(step["scored"])]
    outside = [step["targets"][i] for i in range(len(step["targets"])) if not step["scored"][i]]
    if not kept:
        return {"table": None, "chart": None, "has_loss": False,
                "pairs": "Ninguna palabra siguiente de tu frase (%s) está entre las seis que "
                "el modelo de juguete sabe predecir (%s): no hay pérdida que calcular."
                % (join_words(["«%s»" % w for w in outside]), join_words(VOCABULARY)),
                "summary": "", "detail": ""}
    rows = []
    for i, word in enumerate(step["inputs"]):
        if step["scored"][i]:
            cells = [d.cell(step["p_target"][i], d.fmt(step["p_target"][i], PROB_DIGITS)),
                     d.cell(step["losses"][i], d.fmt(step["losses"][i], LOSS_DIGITS)),
                     d.cell(leak["losses"][i], d.fmt(leak["losses"][i], LOSS_DIGITS))]
        else:
            cells = [d.cell(None, "—")] * 3
        rows.append({"label": position_label(i, word),
                     "cells": [d.cell(None, step["targets"][i])] + cells})
    rows.append({"label": "pérdida media", "selected": True,
                 "cells": [d.cell(None, ""), d.cell(None, ""),
                           d.cell(step["loss"], d.fmt(step["loss"], LOSS_DIGITS)),
                           d.cell(leak["loss"], d.fmt(leak["loss"], LOSS_DIGITS))]})
    inputs = [step["inputs"][i] for i in kept]
    targets = [step["targets"][i] for i in kept]
    losses, leaked = step["losses"][kept], leak["losses"][kept]
    better, worse = _moves(inputs, targets, losses, leaked)
    # −ln p from p as shown (two decimals) may read otherwise than the loss.
    redone = any(float(d.number(d.fmt(p, PROB_DIGITS))) <= 0 or
                 d.fmt(-math.log(float(d.number(d.fmt(p, PROB_DIGITS)))), LOSS_DIGITS)
                 != d.fmt(loss, LOSS_DIGITS) for p, loss in zip(step["p_target"][kept], losses))
    positions = list(range(len(kept)))
    x_axis = linear_axis(-0.5, len(positions) - 0.5, "posición (entrada → objetivo)")
    x_axis["ticks"] = [{"value": i, "label": "%s → %s" % (a, b)}
                       for i, (a, b) in enumerate(zip(inputs, targets))]
    worst = int(max(positions, key=lambda i: losses[i]))
    picture = chart(
        "−ln p de cada posición, con la máscara causal", x_axis,
        linear_axis(0, max(float(max(losses)), 0.1), "−ln p(objetivo)"),
        [series("−ln p", positions, losses, 0)],
        "La pérdida de cada posición, con la máscara causal: %s. La mayor es la de «%s» → «%s» "
        "(%s)." % (
            "; ".join("«%s» → «%s»: %s" % (a, b, d.fmt(x, LOSS_DIGITS)) for a, b, x in
                      zip(inputs, targets, losses)),
            inputs[worst], targets[worst], d.fmt(losses[worst], LOSS_DIGITS)),
        kind="bars")
    notes = []
    if outside:
        one = len(outside) == 1
        notes.append("«—»: el modelo de juguete solo sabe predecir las seis palabras del "
                     "artículo (%s); %s no %s, así que %s en la media."
                     % (join_words(VOCABULARY), join_words(["«%s»" % w for w in
                                                             dict.fromkeys(outside)]),
                        "es una de ellas" if len(set(outside)) == 1 else "son de ellas",
                        "esa posición no cuenta" if one else "esas posiciones no cuentan"))
    if redone:
        notes.append("p se lee con dos decimales; −ln p se calcula con p sin redondear, así "
                     "que puede no salir de la p que se lee.")
    conclusion, detail = summary(step["loss"], leak["loss"], better, worse, len(kept))
    return {
        "chart": picture,
        "has_loss": True,
        "summary": conclusion,
        "detail": detail,
        "table": d.table("training", "Todas las posiciones a la vez (objetivo: el token "
                         "siguiente)", ["objetivo", "p(objetivo), causal", "−ln p, causal",
                                        "−ln p, bidireccional"], rows, "entrada",
                         " ".join(notes) or None),
        "pairs": pairs_sentence(step["inputs"], step["targets"], step["scored"]),
    }


PARTS = (("training", training_panel),)
