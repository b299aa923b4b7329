"""Panel 6: causal training scores every position at once against the next token."""
from __future__ import annotations

from .. import display as d
from ..language import training_step
from ..memo import reads
from ..pictures import chart, linear_axis, series
from .context import SENTENCE, heads_of, position_label, tokens_of


def pairs_sentence(inputs, targets):
    """«La salida de «El» se compara con «banco», la de «banco» con «del»…»."""
    parts = ["La salida de «%s» se compara con «%s»" % (inputs[0], targets[0])]
    parts += ["la de «%s» con «%s»" % (a, b) for a, b in zip(inputs[1:], targets[1:])]
    return "; ".join(parts) + "."


@reads(*SENTENCE)
def training_panel(state):
    tokens = tokens_of(state)
    if len(tokens) < 2:
        return {"table": None, "chart": None, "has_loss": False,
                "pairs": "Con una sola palabra no hay token siguiente con "
                "el que comparar: hace falta una frase de al menos dos.",
                "loss": "", "leak_loss": "", "verdict": ""}
    heads = heads_of(state)
    step = training_step(tokens, heads, "causal")
    leak = training_step(tokens, heads, "bidirectional")
    rows = [{"label": position_label(i, word), "cells": [
        d.cell(None, step["targets"][i]),
        d.cell(step["p_target"][i], d.fmt(step["p_target"][i], 3)),
        d.cell(step["losses"][i], d.fmt(step["losses"][i], 3))]}
        for i, word in enumerate(step["inputs"])]
    rows.append({"label": "pérdida media", "selected": True,
                 "cells": [d.cell(None, ""), d.cell(None, ""),
                           d.cell(step["loss"], d.fmt(step["loss"], 3))]})
    causal, leaked = d.fmt(step["loss"], 3), d.fmt(leak["loss"], 3)
    if leak["loss"] < step["loss"] and causal != leaked:
        verdict = ("más baja, pero es trampa: cada posición ya está viendo la palabra que "
                   "debía adivinar.")
    elif causal == leaked:
        verdict = "la misma con estos vectores: aquí mirar el futuro no ayuda a adivinar."
    else:
        verdict = ("más alta: en esta frase, lo que se ve del futuro despista en vez de "
                   "ayudar. Aun así, entrenar con el futuro a la vista sería trampa.")
    positions = list(range(len(step["inputs"])))
    x_axis = linear_axis(-0.5, len(positions) - 0.5, "posición (entrada → objetivo)")
    x_axis["ticks"] = [{"value": i, "label": "%s → %s" % (a, b)}
                       for i, (a, b) in enumerate(zip(step["inputs"], step["targets"]))]
    worst = int(max(positions, key=lambda i: step["losses"][i]))
    picture = chart(
        "−ln p de cada posición", x_axis,
        linear_axis(0, max(float(max(step["losses"])), 0.1), "−ln p(objetivo)"),
        [series("−ln p", positions, step["losses"], 0)],
        "La pérdida de cada posición: %s. La mayor es la de «%s» → «%s» (%s)." % (
            "; ".join("%s → %s: %s" % (a, b, d.fmt(x, 3)) for a, b, x in
                      zip(step["inputs"], step["targets"], step["losses"])),
            step["inputs"][worst], step["targets"][worst], d.fmt(step["losses"][worst], 3)),
        kind="bars")
    return {
        "chart": picture,
        "has_loss": True,
        "table": d.table("training", "Todas las posiciones a la vez, máscara causal "
                         "(objetivo: el token siguiente)", ["objetivo", "p(objetivo)", "−ln p"],
                         rows, "entrada"),
        "pairs": pairs_sentence(step["inputs"], step["targets"]),
        "loss": causal,
        "leak_loss": leaked,
        "verdict": verdict,
    }
