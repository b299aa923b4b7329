"""Panel «Genera»: both models continue the reader's beginning word by word;
the causal one with its KV cache (decoder_run.generate says what it saved),
the bidirectional one recomputing everything, because its keys change with
every new word. The grammar's own check says whether what they wrote is a
sentence."""
from __future__ import annotations

from .. import decoder_run as R
from .. import display as d
from .. import grammar as G
from ..memo import reads
from ..words import join_words, plural
from .context import MASK_LABELS, RUN_KEYS, runs

GEN_MODES = {"greedy": "la más probable", "sample": "muestreo con temperatura"}
GEN_KEYS = ("prompt", "gen_mode", "gen_temp", "gen_seed")


def _grammar_next(prompt):
    """What the grammar allows after the beginning, with its probabilities
    (each rounded on its own; said so when the shown ones do not add up)."""
    allowed = G.next_words(prompt)
    if not allowed:
        return ("Ninguna frase de la gramática empieza así: ningún modelo entrenado con ella "
                "tiene dónde apoyarse.")
    ranked = sorted(allowed.items(), key=lambda item: (-item[1], item[0]))
    words = ["«%s»" % w for w, _ in ranked]
    if len(ranked) == 1:
        return "La gramática solo permite seguir con %s." % words[0]
    if max(allowed.values()) - min(allowed.values()) < 1e-12:
        return "La gramática permite seguir con %s, igual de probables." % join_words(words, "o")
    texts = [d.fmt(p) for _, p in ranked]
    note = "" if d.sum_gap(texts, "1,00") is None else \
        " (cada probabilidad está redondeada por separado)"
    return "La gramática permite seguir con %s%s." % (join_words(
        ["%s (probabilidad %s)" % (w, t) for w, t in zip(words, texts)], "o"), note)


def _verdict(words, new, finished):
    if G.is_sentence(words):
        return "Es una frase de la gramática."
    if not finished:
        return ("Llegó a %d palabras sin escribir «%s»: no es una frase de la gramática."
                % (G.MAX_WORDS, G.END))
    return "No es una frase de la gramática."


def _one(run, prompt, temperature, seed):
    out = R.generate(run, list(prompt), temperature, seed)
    new = out["new"]
    finished = bool(new) and new[-1] == G.END
    cached = out["cached"]
    rows = []
    for i, (word, p) in enumerate(zip(new, out["probs"])):
        read = len(prompt) + i  # the words before it: the keys its choice attends to
        rows.append({"label": "%d · %s" % (i + 1, word), "cells": [
            d.cell(p, d.fmt_small(p, 2)),  # a word drawn at 0,3 % is not «0,00»
            d.cell(read, str(read)) if cached else d.cell(None, "sin caché")]})
    mask = run.mask_kind
    table = d.table("model-gen-%s" % mask, "Lo que escribe el modelo %s" % MASK_LABELS[mask],
                    ["probabilidad según el modelo", "claves en la caché al elegirla"], rows,
                    "palabra", "La probabilidad es la del modelo, sin temperatura."
                    if temperature else None)
    return {"mask": MASK_LABELS[mask], "text": " ".join(out["words"]),
            "said": " ".join(prompt),  # the beginning apart, so the page can set off the rest
            "new": " ".join(new), "table": table, "cache": _cache_sentence(out, prompt, run),
            "verdict": _verdict(out["words"], new, finished),
            "ok": G.is_sentence(out["words"])}


def _cache_sentence(out, prompt, run):
    """What the cache saved, or what going without one cost."""
    rows = plural(out["kv_computed"], "fila")
    if out["cached"]:
        return ("Con la caché calculó %s de claves y valores (una k y una v por palabra y "
                "bloque); sin ella, volviendo a calcular en cada paso las de todas las palabras "
                "anteriores, habría calculado %s más." % (rows, d.fmt_int(out["kv_saved"])))
    if len(out["new"]) <= 1:
        return ("Sin caché, pero solo escribió una palabra: calculó una vez %s de claves y "
                "valores, las del comienzo, y no tuvo nada que recalcular." % rows)
    # Every block projects a k and a v row per word it reads, at every step:
    # the first block's are a 1 / n_block share. They read only their own
    # word and position, so of those only the rows of words never projected
    # before are new: two per word fed in (the last word written never is).
    first = out["kv_computed"] // run.cfg.n_block
    fed = len(prompt) + len(out["new"]) - 1
    return ("Sin caché: cada palabra nueva cambia lo que leen las anteriores, y con ello sus "
            "claves y valores a partir del segundo bloque; por eso, en cada paso, vuelve a "
            "calcular las de todas las palabras hasta la última escrita: %s de claves y valores "
            "en total. Las %s del primer bloque solo dependen de cada palabra y de su posición: "
            "de ellas, %s repiten filas ya calculadas en un paso anterior, que sí podrían "
            "guardarse." % (rows, d.fmt_int(first), d.fmt_int(first - 2 * fed)))


@reads(*RUN_KEYS, *GEN_KEYS)
def generation_panel(state):
    prompt = tuple(state["prompt"].split())
    temperature = 0.0 if state["gen_mode"] == "greedy" else state["gen_temp"]
    both = runs(state)
    results = [_one(both[mask], prompt, temperature, state["gen_seed"]) for mask in R.MASKS]
    how = ("Cada palabra es la más probable según el modelo." if temperature == 0 else
           "Cada palabra se sortea con temperatura %s y semilla %d, la misma para las dos "
           "máscaras." % (d.fmt_short(temperature), state["gen_seed"]))
    return {"prompt": " ".join(prompt), "allowed": _grammar_next(prompt), "how": how,
            "runs": results}


PARTS = (("generation", generation_panel),)
