"""Panel «Entrénalo»: both masks trained from the same weights on the same
minibatches (decoder_run.Runs), step by step as the reader asks; the loss
curves and the figures of the lesson at the step reached."""
from __future__ import annotations

import math

from .. import decoder_run as R
from .. import display as d
from ..memo import reads
from ..pictures import chart, linear_axis, log_axis, series
from ..words import plural
from .context import GRAMMAR_LOSS, MASK_LABELS, RUN_KEYS, figures_of, fmt_loss, percent

MASKS = R.MASKS
SMOOTH = 25  # the training curve: the mean loss of each 25 steps (one minibatch is noisy)
AXIS_EVERY = 500  # the x axis grows in 500-step strides once training passes the default


def result_table(fig, step):
    """The figures at this step, one column per mask (two columns fit a phone)."""
    rows = [
        {"label": "pérdida (todas las frases de entrenamiento)", "cells": [
            d.cell(fig[k]["train_loss"], fmt_loss(fig[k]["train_loss"])) for k in MASKS]},
        {"label": "pérdida (apartadas)", "cells": [
            d.cell(fig[k]["held_loss"], fmt_loss(fig[k]["held_loss"])) for k in MASKS]},
        {"label": "comienzos bien continuados", "cells": [
            d.cell(fig[k]["correct"], percent(fig[k]["correct"])) for k in MASKS]},
    ]
    return d.table("model-result", "Resultado en el paso %s" % d.fmt_int(step),
                   [MASK_LABELS[k] for k in MASKS], rows, "cifra")


def _smoothed(losses):  # -> xs, ys: the mean of each SMOOTH steps, at the window's end
    xs, ys = [], []
    for end in range(SMOOTH, len(losses) + 1, SMOOTH):
        window = losses[end - SMOOTH:end]
        xs.append(end)
        ys.append(sum(window) / len(window))
    return xs, ys


def loss_chart(fig, step):
    right = max(R.DEFAULT_STEPS, math.ceil(step / AXIS_EVERY) * AXIS_EVERY)
    lines, values = [], [GRAMMAR_LOSS]
    for i, mask in enumerate(MASKS):
        xs, ys = _smoothed(fig[mask]["losses"])
        if xs:
            lines.append(series("entrenamiento · %s" % MASK_LABELS[mask], xs, ys, i, log=True,
                                dash=i == 1))
            values += ys
        held = fig[mask]["held"]
        lines.append(series("apartadas · %s" % MASK_LABELS[mask], [s for s, _ in held],
                            [x for _, x in held], i, log=True, dash=i == 1, dots=True))
        values += [x for _, x in held]
    lines.append(series("la propia gramática", [0, right], [GRAMMAR_LOSS] * 2, 2, log=True))
    low, high = min(values), max(values)
    causal, bidir = fig["causal"], fig["bidirectional"]
    if step == 0:
        now = ("Antes de entrenar, con las frases apartadas, la pérdida es %s con la máscara "
               "causal y %s con la bidireccional: los pesos son los mismos, pero cada máscara "
               "deja leer palabras distintas." % (fmt_loss(causal["held"][0][1]),
                                                   fmt_loss(bidir["held"][0][1])))
    else:
        at = causal["held"][-1][0]
        window = min(step, SMOOTH)
        now = ("En el paso %s, la pérdida de entrenamiento (%s) es "
               "%s con la causal y %s con la bidireccional; con las frases apartadas, medida "
               "en el paso %s, %s y %s." % (
                   d.fmt_int(step), "media de los últimos %d pasos" % window if window > 1
                   else "la de su único paso",
                   fmt_loss(_recent(causal["losses"])), fmt_loss(_recent(bidir["losses"])),
                   d.fmt_int(at), fmt_loss(causal["held"][-1][1]), fmt_loss(bidir["held"][-1][1])))
    alt = ("Pérdida según el paso, en escala logarítmica: la de entrenamiento (media de cada "
           "%d pasos%s) y la de las frases apartadas (un punto cada %d pasos), con la máscara "
           "causal y la bidireccional. %s La recta horizontal es la pérdida de la propia "
           "gramática, %s." % (SMOOTH, "; su línea empieza en el paso %d" % SMOOTH
                               if step < SMOOTH else "", R.HELD_EVERY, now,
                               fmt_loss(GRAMMAR_LOSS)))
    return chart("Pérdida durante el entrenamiento",
                 linear_axis(0, right, "paso", 5, integer=True),
                 log_axis(low, high, "pérdida (nats por palabra)"), lines, alt,
                 marker={"x": step, "y": d.num(math.log10(causal["held"][-1][1])),
                         "label": "paso %s" % d.fmt_int(step)})


def _recent(losses):  # the training curve's value now: the mean of the last SMOOTH steps
    window = losses[-SMOOTH:]
    return sum(window) / len(window)


def stopped(fig):
    return ["La ejecución %s se detuvo en el paso %s: con esta tasa de aprendizaje sus pesos "
            "dejaron de ser números finitos, y se queda con los del último paso válido."
            % (MASK_LABELS[k], d.fmt_int(fig[k]["stopped_at"])) for k in MASKS
            if fig[k]["stopped_at"] is not None]


@reads(*RUN_KEYS)
def training_panel(state):
    fig = figures_of(state)
    step = state["steps"]
    return {
        "step": "Paso %s de %s" % (d.fmt_int(step), d.fmt_int(R.MAX_STEPS)),
        "status": (("Sin entrenar: los dos modelos empiezan con los mismos pesos; sus pérdidas ya "
                    "difieren porque cada máscara deja leer palabras distintas.")
                   if step == 0 else "Tras 1 paso, con un lote de %d frases." % R.BATCH
                   if step == 1 else
                   "Tras %s, con lotes de %d frases cada uno." % (plural(step, "paso"), R.BATCH)),
        "table": result_table(fig, step),
        "chart": loss_chart(fig, step),
        "stopped": stopped(fig),
    }


PARTS = (("training", training_panel),)
