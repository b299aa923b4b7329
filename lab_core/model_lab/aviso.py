"""Panel «Por qué un generador debe ser causal»: the two figures of the
lesson side by side (training loss; share of held-out beginnings continued
into a sentence of the grammar) and a verdict built from them, never
assumed: early in training, or with another seed or rate, it says what the
numbers say."""
from __future__ import annotations

from .. import decoder_run as R
from .. import display as d
from ..memo import reads
from .context import GRAMMAR_LOSS, MARGIN, RUN_KEYS, figures_of, fmt_loss, percent

WRITES_WELL = 0.9  # the bar: a model that continues ≥ 90 % of the beginnings
WRITES_BADLY = 0.3  # … and one that continues at most 30 % of them
LOWER = 0.5  # «much lower»: at most half the other's training loss


def verdict(fig, step):
    causal, bidir = fig["causal"], fig["bidirectional"]
    n = len(R.held_out_prompts())
    figures = ("En el paso %d, la pérdida de entrenamiento es %s con la máscara causal y %s "
               "con acceso bidireccional; de los %d comienzos apartados, la causal continúa "
               "bien el %s y la bidireccional el %s." % (
                   step, fmt_loss(causal["train_loss"]), fmt_loss(bidir["train_loss"]), n,
                   percent(causal["correct"]), percent(bidir["correct"])))
    if step == 0:
        return figures + " Aún no ha aprendido ninguna de las dos: pulsa «Entrenar»."
    more = step < R.MAX_STEPS  # «sigue entrenando» only while there are steps left
    lower = bidir["train_loss"] <= LOWER * causal["train_loss"]
    if lower and causal["correct"] >= WRITES_WELL and bidir["correct"] <= WRITES_BADLY:
        return figures + (
            " La bidireccional predice mucho mejor las frases con las que entrena, y aun así "
            "escribe mucho peor: al entrenar, cada posición podía leer la palabra que tenía que "
            "predecir; al generar, esa palabra todavía no existe. Su pérdida baja era leer la "
            "respuesta, no saber la gramática.")
    if lower and bidir["correct"] < causal["correct"]:
        return figures + (
            " La bidireccional ya predice mejor sus frases de entrenamiento y escribe peor: "
            "aprende a leer la palabra que viene, que al generar no está."
            + (" Sigue entrenando para ver hasta dónde llega la diferencia." if more else ""))
    if lower:
        return figures + (
            " La bidireccional predice mejor sus frases de entrenamiento, pero con esta "
            "semilla y esta tasa no escribe peor que la causal: la diferencia no se ve aquí.")
    return figures + (" Aún no se separan: sigue entrenando." if more else
                      " Tras %d pasos no se separan." % step)


FAR_BELOW = 0.5  # «far below» the grammar's loss: under half of it


def bound_sentence(fig):
    """Each run's held-out loss next to the grammar's own: the causal one
    against the target (within MARGIN), the bidirectional one said to be
    reading the answer only when it is far below what reading the past allows."""
    causal, bidir = fig["causal"]["held_loss"], fig["bidirectional"]["held_loss"]
    target = GRAMMAR_LOSS + MARGIN
    out = ("Con las frases apartadas, la causal pierde %s por palabra, frente a %s de la "
           "propia gramática: %s (menos de %s)." % (
               fmt_loss(causal), fmt_loss(GRAMMAR_LOSS),
               "dentro de la meta" if causal < target else "aún fuera de la meta",
               fmt_loss(target)))
    if bidir < FAR_BELOW * GRAMMAR_LOSS:
        return out + (" La bidireccional baja a %s, muy por debajo de lo que cabe esperar de un "
                      "modelo que solo lee las palabras de antes: se llega ahí mirando la "
                      "respuesta." % fmt_loss(bidir))
    return out + " La bidireccional pierde %s." % fmt_loss(bidir)


@reads(*RUN_KEYS)
def lesson_panel(state):
    fig = figures_of(state)
    step = state["steps"]
    rows = [
        {"label": "pérdida de entrenamiento", "cells": [
            d.cell(fig[k]["train_loss"], fmt_loss(fig[k]["train_loss"])) for k in R.MASKS]},
        {"label": "comienzos apartados bien continuados", "cells": [
            d.cell(fig[k]["correct"], percent(fig[k]["correct"])) for k in R.MASKS]},
    ]
    return {
        "table": d.table("model-lesson", "Las dos cifras, paso %d" % step,
                         ["causal", "bidireccional"], rows, "cifra"),
        "verdict": verdict(fig, step),
        "bound": bound_sentence(fig),
    }


PARTS = (("lesson", lesson_panel),)
