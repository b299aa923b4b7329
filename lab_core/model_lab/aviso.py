"""Panel «Por qué un generador debe ser causal»: the two figures of the
lesson side by side (training loss; share of held-out beginnings continued
into a sentence of the grammar) and a verdict built from them, never
assumed: early in training, or with another seed or rate, it says what the
numbers say."""
from __future__ import annotations

import math

from .. import decoder_run as R
from .. import display as d
from ..memo import reads
from .. import grammar as G
from .context import GRAMMAR_LOSS, MARGIN, MASK_LABELS, RUN_KEYS, figures_of, fmt_loss, percent

WRITES_WELL = 0.9  # the bar: a model that continues ≥ 90 % of the beginnings
WRITES_BADLY = 0.3  # … and one that continues at most 30 % of them
LOWER = 0.5  # «much lower»: at most half the other's training loss


PROMPTS = R.held_out_prompts()
TRAIN_STARTS = frozenset(s.words[:n] for s in G.TRAIN for n in range(1, len(s.words)))
SEEN = sum(p in TRAIN_STARTS for p in PROMPTS)  # beginnings that also start a training sentence


def prompts_sentence():
    """What «comienzos» are, counted: the held-out sentences' distinct
    beginnings, many of which also begin some training sentence."""
    return ("Los comienzos son los %d distintos de las %d frases apartadas, cada uno cortado "
            "justo tras la palabra que decide lo que sigue; %d también empiezan alguna frase "
            "de entrenamiento. Lo que se mide no es si los ha visto, sino si sabe seguir "
            "escribiendo hasta una frase de la gramática." % (len(PROMPTS), len(G.HELD_OUT), SEEN))


UNSTABLE_RISE = 0.5  # nats: a held-out loss that climbs this far back above its best so far
# is the rate at work, not noise (at the default rate it climbs at most ~0,1)


def _rising(run):  # its held-out loss is now above where it started: the rate is too high
    return run["held_loss"] > run["held"][0][1]


def _swing(run):
    """((step, lowest), (step, highest after it)) of the held-out loss, when
    it climbed back more than UNSTABLE_RISE above its best so far; None
    otherwise."""
    low, swing = (None, math.inf), None
    for step, loss in run["held"]:
        low = min(low, (step, loss), key=lambda x: x[1])
        if loss - low[1] > UNSTABLE_RISE and (swing is None or
                                              loss - low[1] > swing[1][1] - swing[0][1]):
            swing = (low, (step, loss))
    return swing


def _models(masks):  # ["causal"] -> «del modelo causal»; both -> «de los dos modelos»
    return ("del modelo %s" % MASK_LABELS[masks[0]] if len(masks) == 1 else
            "de los dos modelos")


def verdict(fig, step):
    """The lesson's figures in words, and only the conclusion they support."""
    causal, bidir = fig["causal"], fig["bidirectional"]
    figures = ("En el paso %s, la pérdida de entrenamiento es %s con la máscara causal y %s "
               "con acceso bidireccional; de los %d comienzos, el modelo causal continúa bien "
               "el %s y el bidireccional el %s." % (
                   d.fmt_int(step), fmt_loss(causal["train_loss"]), fmt_loss(bidir["train_loss"]),
                   len(PROMPTS), percent(causal["correct"]), percent(bidir["correct"])))
    if step == 0:
        return figures + (" Aún no ha aprendido ninguno de los dos: pulsa «Entrenar» en el "
                          "panel 2.")
    rising = [k for k in R.MASKS if _rising(fig[k])]
    if rising:
        which = ("La pérdida con las frases apartadas %s está por encima de la inicial"
                 % _models(rising) if len(rising) == 1 else
                 "Las pérdidas con las frases apartadas %s están por encima de las iniciales"
                 % _models(rising))
        return figures + (
            " %s: con esta tasa de aprendizaje el entrenamiento no converge, y estas cifras no "
            "dicen nada de las máscaras. Prueba una tasa menor." % which)
    # A held-out loss that climbed well back above its best: the rate is
    # unstable here, what the run reads now may not last, and more steps are
    # no advice.
    swings = {k: _swing(fig[k]) for k in R.MASKS}
    swung = [k for k in R.MASKS if swings[k]]
    caution = ""
    if swung:
        # Each model by name, its low and its high with their steps: the high
        # may be a peak the curve has left since, not the table's figure.
        said = []
        for n, k in enumerate(swung):
            (at_low, low), (at_high, high) = swings[k]
            said.append("%s %s bajó a %s (paso %s) y luego subió a %s (paso %s)" % (
                "la" if n else "La pérdida con las frases apartadas",
                "del modelo %s" % MASK_LABELS[k] if n == 0 else "del %s" % MASK_LABELS[k],
                fmt_loss(low), d.fmt_int(at_low), fmt_loss(high), d.fmt_int(at_high)))
        caution = (" " + "; ".join(said) + ": con esta tasa el entrenamiento es inestable. "
                   "Prueba una tasa menor.")
    more = step < R.MAX_STEPS and not swung  # «sigue entrenando» only where it may help
    lower = bidir["train_loss"] <= LOWER * causal["train_loss"]
    apart = causal["correct"] >= WRITES_WELL and bidir["correct"] <= WRITES_BADLY
    why = (" Al entrenar, cada posición del bidireccional podía leer la palabra que tenía que "
           "predecir; al generar, esa palabra todavía no existe.")
    if lower and apart:
        return figures + (
            " El bidireccional predice mucho mejor las frases con las que entrena, y aun así "
            "escribe mucho peor." + why + " Su pérdida baja era leer la respuesta, no saber "
            "la gramática.") + caution
    if apart:
        return figures + (
            " El causal ya escribe bien y el bidireccional no, aunque la pérdida de "
            "entrenamiento del bidireccional aún no ha bajado a la mitad de la del causal."
            + why) + caution
    if max(causal["correct"], bidir["correct"]) <= WRITES_BADLY:
        # a gap between two bad writers explains nothing
        return figures + (
            " Ninguno de los dos escribe bien%s: ninguno continúa bien más del %s de los "
            "comienzos." % ("" if swung or not more else " todavía", percent(WRITES_BADLY))) + (
            caution or (" Sigue entrenando." if more else
                        " Tras %s pasos, tampoco." % d.fmt_int(step)))
    if bidir["correct"] < causal["correct"]:
        return figures + (
            " El bidireccional escribe peor%s." % (
                " aunque predice mejor sus frases de entrenamiento" if lower else "")
            + why + (" Sigue entrenando para ver hasta dónde llega la diferencia." if more
                     else "")) + caution
    if bidir["correct"] > causal["correct"]:
        return figures + (
            " De momento el bidireccional continúa bien más comienzos que el causal: con esta "
            "semilla y esta tasa, el causal aún no ha aprendido a escribir." + (
                " Sigue entrenando." if more else "")) + caution
    if lower:
        return figures + (
            " El bidireccional predice mejor sus frases de entrenamiento, pero con esta "
            "semilla y esta tasa no escribe peor que el causal: la diferencia no se ve aquí."
            ) + caution
    return figures + (" Aún no se separan: sigue entrenando." if more else
                      " Tras %s pasos no se separan." % d.fmt_int(step)) + caution


def bound_sentence(fig):
    """Each run's held-out loss next to the grammar's own: the causal one
    against the target (within MARGIN); the bidirectional one, when below
    the grammar's, said to be reading the answer (no model that reads only
    the words before can expect to go there)."""
    causal, bidir = fig["causal"]["held_loss"], fig["bidirectional"]["held_loss"]
    target = GRAMMAR_LOSS + MARGIN
    out = ("Con las frases apartadas (la tabla del panel 2), la pérdida del modelo causal es %s "
           "por palabra, frente a "
           "%s de la propia gramática: %s (menos de %s)." % (
               fmt_loss(causal), fmt_loss(GRAMMAR_LOSS),
               "dentro de la meta" if causal < target else "aún fuera de la meta",
               fmt_loss(target)))
    if bidir < GRAMMAR_LOSS:
        return out + (" La del bidireccional baja a %s, por debajo de lo que cabe esperar de un "
                      "modelo que solo lee las palabras de antes: llega ahí porque lee la "
                      "palabra que debe predecir." % fmt_loss(bidir))
    return out + " La del bidireccional es %s." % fmt_loss(bidir)


@reads(*RUN_KEYS)
def lesson_panel(state):
    fig = figures_of(state)
    step = state["steps"]
    rows = [
        {"label": "pérdida (todas las frases de entrenamiento)", "cells": [
            d.cell(fig[k]["train_loss"], fmt_loss(fig[k]["train_loss"])) for k in R.MASKS]},
        {"label": "comienzos bien continuados", "cells": [
            d.cell(fig[k]["correct"], percent(fig[k]["correct"])) for k in R.MASKS]},
    ]
    return {
        "table": d.table("model-lesson", "Las dos cifras, paso %s" % d.fmt_int(step),
                         ["causal", "bidireccional"], rows, "cifra"),
        "verdict": verdict(fig, step),
        "bound": bound_sentence(fig),
        "prompts": prompts_sentence(),
    }


PARTS = (("lesson", lesson_panel),)
