"""Panel «Por qué un generador debe ser causal»: the two figures of the
lesson side by side (training loss; share of held-out beginnings continued
into a sentence of the grammar) and a verdict built from them, never
assumed: early in training, or with another seed or rate, it says what the
numbers say."""
from __future__ import annotations

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


def _rising(run):  # its held-out loss is now above where it started: the rate is too high
    return run["held_loss"] > run["held"][0][1]


def _peak(run):  # the highest held-out loss so far, when it went above where it started
    peak = max(loss for _, loss in run["held"])
    return peak if peak > run["held"][0][1] else None


def verdict(fig, step):
    """The lesson's figures in words, and only the conclusion they support."""
    causal, bidir = fig["causal"], fig["bidirectional"]
    figures = ("En el paso %s, la pérdida de entrenamiento es %s con la máscara causal y %s "
               "con acceso bidireccional; de los %d comienzos, la causal continúa bien el %s y la "
               "bidireccional el %s." % (
                   d.fmt_int(step), fmt_loss(causal["train_loss"]), fmt_loss(bidir["train_loss"]),
                   len(PROMPTS), percent(causal["correct"]), percent(bidir["correct"])))
    if step == 0:
        return figures + " Aún no ha aprendido ninguna de las dos: pulsa «Entrenar»."
    rising = [MASK_LABELS[k] for k in R.MASKS if _rising(fig[k])]
    if rising:
        which = ("La pérdida con las frases apartadas de la %s está por encima de la inicial"
                 % rising[0] if len(rising) == 1 else
                 "Las pérdidas con las frases apartadas de las dos están por encima de las "
                 "iniciales")
        return figures + (
            " %s: con esta tasa de aprendizaje el entrenamiento no converge, y estas cifras no "
            "dicen nada de las máscaras. Prueba una tasa menor." % which)
    # A run that went above its starting loss and came back down is unstable
    # at this rate: what it reads now may not last, so no «sigue entrenando».
    swung = [(MASK_LABELS[k], _peak(fig[k]), fig[k]["held"][0][1]) for k in R.MASKS
             if _peak(fig[k]) is not None]
    caution = ""
    if len(swung) == 1:
        caution = (" La pérdida con las frases apartadas de la %s llegó a %s, por encima de la "
                   "inicial (%s)" % (swung[0][0], fmt_loss(swung[0][1]), fmt_loss(swung[0][2])))
    elif swung:
        caution = (" Las pérdidas con las frases apartadas de las dos llegaron a %s y %s, por "
                   "encima de las iniciales (%s y %s)" % tuple(
                       fmt_loss(x) for x in (swung[0][1], swung[1][1], swung[0][2],
                                             swung[1][2])))
    if swung:
        caution += ": con esta tasa el entrenamiento es inestable. Prueba una tasa menor."
    more = step < R.MAX_STEPS and not swung  # «sigue entrenando» only where it may help
    lower = bidir["train_loss"] <= LOWER * causal["train_loss"]
    apart = causal["correct"] >= WRITES_WELL and bidir["correct"] <= WRITES_BADLY
    why = (" Al entrenar, cada posición de la bidireccional podía leer la palabra que tenía que "
           "predecir; al generar, esa palabra todavía no existe.")
    if lower and apart:
        return figures + (
            " La bidireccional predice mucho mejor las frases con las que entrena, y aun así "
            "escribe mucho peor." + why + " Su pérdida baja era leer la respuesta, no saber "
            "la gramática.") + caution
    if apart:
        return figures + (
            " La causal ya escribe bien y la bidireccional no, aunque su pérdida de "
            "entrenamiento aún no es ni la mitad de la causal." + why) + caution
    if max(causal["correct"], bidir["correct"]) <= WRITES_BADLY:
        # a gap between two bad writers explains nothing
        return figures + (
            " Ninguna de las dos escribe bien todavía: ninguna continúa bien más del %s de los "
            "comienzos." % percent(WRITES_BADLY)) + (
            caution or (" Sigue entrenando." if more else
                        " Tras %s pasos, tampoco." % d.fmt_int(step)))
    if bidir["correct"] < causal["correct"]:
        return figures + (
            " La bidireccional escribe peor%s." % (
                " aunque predice mejor sus frases de entrenamiento" if lower else "")
            + why + (" Sigue entrenando para ver hasta dónde llega la diferencia." if more
                     else "")) + caution
    if bidir["correct"] > causal["correct"]:
        return figures + (
            " De momento la bidireccional continúa bien más comienzos que la causal: con esta "
            "semilla y esta tasa, la causal aún no ha aprendido a escribir." + (
                " Sigue entrenando." if more else "")) + caution
    if lower:
        return figures + (
            " La bidireccional predice mejor sus frases de entrenamiento, pero con esta "
            "semilla y esta tasa no escribe peor que la causal: la diferencia no se ve aquí."
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
    out = ("Con las frases apartadas, la causal pierde %s por palabra, frente a %s de la "
           "propia gramática: %s (menos de %s)." % (
               fmt_loss(causal), fmt_loss(GRAMMAR_LOSS),
               "dentro de la meta" if causal < target else "aún fuera de la meta",
               fmt_loss(target)))
    if bidir < GRAMMAR_LOSS:
        return out + (" La bidireccional baja a %s, por debajo de lo que cabe esperar de un "
                      "modelo que solo lee las palabras de antes: llega ahí porque lee la "
                      "palabra que debe predecir." % fmt_loss(bidir))
    return out + " La bidireccional pierde %s." % fmt_loss(bidir)


@reads(*RUN_KEYS)
def lesson_panel(state):
    fig = figures_of(state)
    step = state["steps"]
    rows = [
        {"label": "pérdida (entrenamiento)", "cells": [
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
