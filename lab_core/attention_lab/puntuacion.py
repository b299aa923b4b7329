"""Panel 1: the score and weight tables, where one score comes from, and why
the scores are divided by √d_k."""
from __future__ import annotations

import numpy as np

from .. import display as d
from .. import scaling
from ..attention import softmax
from ..pictures import HeadLines, attention_lines
from ..didactic import HEADS
from ..memo import reads
from ..words import best_as_read, join_words, prompt, same, winner_sentence
from ..display import rows_note
from .context import (
    MASK_LABELS, SENTENCE, asked_head, head_runs, options, shown_heads, tokens_of,
    weight_texts, weights_note, word_at,
)

CORNER = "consulta \\ clave"


def _rows(run, query, key, weights):
    tokens, mask = run["tokens"], run["mask"]
    rows = []
    for i, word in enumerate(tokens):
        if weights:
            texts = weight_texts(run["weights"][i], mask[i])
            cells = [d.cell(run["weights"][i, j], texts[j], masked=not mask[i, j])
                     for j in range(len(tokens))]
        else:
            cells = [d.cell(run["scores"][i, j], masked=False) if mask[i, j]
                     else d.cell(None, d.MASKED_TEXT, masked=True)
                     for j in range(len(tokens))]
        for j, cell in enumerate(cells):
            cell["focus"] = i == query and j == key  # the cell the arithmetic explains
        rows.append({"label": word, "selected": i == query, "cells": cells})
    return rows


def _score_tables(run, query, key, head_id, many):
    label = HEADS[head_id]["label"] if many else None
    suffix = "" if label is None else " · " + label
    id_suffix = "-" + head_id if many else ""
    tokens = list(run["tokens"])
    return {
        "head": label or "",
        "scores": d.table("scores" + id_suffix, "Puntuaciones" + suffix, tokens,
                          _rows(run, query, key, False), CORNER),
        "weights": d.table("weights" + id_suffix, "Pesos" + suffix, tokens,
                           _rows(run, query, key, True), CORNER, weights_note(run)),
    }


@reads(*SENTENCE, "query", "key", "mask", "head")
def score_tables(state):
    runs, heads = head_runs(state), shown_heads(state)
    return [_score_tables(runs[h], state["query"], state["key"], h, len(heads) > 1)
            for h in heads]


@reads(*SENTENCE, "query", "mask", "head")
def head_view_panel(state):
    """Attention as lines between words, for the heads the state shows."""
    runs, heads = head_runs(state), shown_heads(state)
    drawn = []
    for head_id in heads:
        run = runs[head_id]
        texts = [weight_texts(run["weights"][i], run["mask"][i]) for i in range(len(run["tokens"]))]
        drawn.append(HeadLines(head_id, HEADS[head_id]["label"], run["weights"].tolist(),
                               run["mask"].tolist(), texts))
    return attention_lines(tokens_of(state), drawn, state["query"],
                     "Atención de cada palabra (izquierda) a cada clave (derecha)")


# ------------------------------------------------ where one score comes from

def _why(run, i, j):
    tokens, raw = run["tokens"], run["scores"][i, j]
    weight = weight_texts(run["weights"][i], run["mask"][i])[j]
    if not run["mask"][i, j]:
        # Without the mask the whole row competes: the weight the cell would get.
        open_row = np.ones_like(run["mask"][i])
        unmasked = weight_texts(softmax(run["scores"][i]), open_row)[j]
        return ("«%s» (posición %d) va después de «%s» (posición %d). Con la máscara "
                "causal una consulta solo ve su pasado y a sí misma, así que la puntuación "
                "efectiva es −∞ y e^(−∞) = 0: el peso es exactamente 0. Sin máscara, su "
                "puntuación (%s) contaría y el peso sería %s."
                % (tokens[j], j, tokens[i], i, d.fmt(raw), unmasked))
    row = np.where(run["mask"][i], run["scores"][i], -np.inf)
    exps = np.where(run["mask"][i], np.exp(row - row.max()), 0.0)
    top, total = d.fmt(exps[j], EXP_DIGITS), d.fmt(exps.sum(), EXP_DIGITS)
    sign = d.quotient(top, total, weight)
    division = "%s / %s %s %s" % (top, total, sign or "≈", weight)
    if sign is None:  # the shown numbers would round to another weight
        division += " (dividiendo los valores sin redondear)"
    key = "«%s»" % tokens[j] + (" (posición %d)" % j if tokens.count(tokens[j]) > 1 else "")
    return ("El peso de %s es e^(%s − %s) dividido por la suma de la fila: %s. "
            "Depende también de las demás puntuaciones: si otra clave sube, este peso baja."
            % (key, d.fmt(raw), d.fmt(row.max()), division))


EXP_DIGITS = 3  # e^(p − máx), as the softmax table shows it


def _softmax_table(run, head_id, i, j):
    tokens, mask = run["tokens"], run["mask"][i]
    row = np.where(mask, run["scores"][i], -np.inf)
    exps = np.where(mask, np.exp(row - row.max()), 0.0)
    weights = weight_texts(run["weights"][i], mask)
    exp_texts = [d.fmt(x, EXP_DIGITS) for x in exps]
    rows = []
    for col, word in enumerate(tokens):
        blocked = not mask[col]
        rows.append({"label": word, "selected": col == j, "cells": [
            d.cell(None, d.MASKED_TEXT, masked=True) if blocked else d.cell(row[col]),
            d.cell(0.0, "0", masked=True) if blocked else d.cell(exps[col], exp_texts[col]),
            d.cell(run["weights"][i, col], weights[col], masked=blocked),
        ]})
    exp_sum, weight_sum = d.fmt(exps.sum(), EXP_DIGITS), d.fmt(1, d.WEIGHT_DIGITS)
    rows.append({"label": "suma", "cells": [
        d.cell(None, ""), d.cell(exps.sum(), exp_sum), d.cell(1.0, weight_sum)]})
    shown_exps = [t for t, o in zip(exp_texts, mask) if o]
    shown_weights = [t for t, o in zip(weights, mask) if o]
    gaps = [(what, gap, total) for what, gap, total in (
        ("los e^(p − máx) mostrados", d.sum_gap(shown_exps, exp_sum), exp_sum),
        ("los pesos mostrados", d.sum_gap(shown_weights, weight_sum), weight_sum)) if gap]
    return d.table("softmax-" + head_id, "Softmax de la fila de «%s»" % tokens[i],
                   ["puntuación", "e^(p − máx)", "peso"], rows, "clave", d.rounding_note(gaps))


def _factor(x, digits):
    """A second factor: bracketed when negative, 0·(−1,25), never 0·−1,25."""
    text = d.fmt_short(x, digits)
    return "(%s)" % text if text.startswith(d.MINUS) else text


def _factor_digits(q, k, score):
    """The fewest decimals (2 to 4) for q and k such that the sum written
    with them gives the score as shown: the rotated vectors of «token
    anterior» are not round (k = (4,88; 1,096…)), and 5·1,1 would not make
    the 3,87 beside it. None when even 4 do not."""
    shown = d.fmt(score)
    for digits in (2, 3, 4):
        product = sum(float(d.number(d.fmt_short(a, digits))) * float(d.number(d.fmt_short(b, digits)))
                      for a, b in zip(q, k))
        if d.fmt(product / np.sqrt(len(q))) == shown:
            return digits
    return None


def _arithmetic(run, head_id, i, j):
    q, k = run["q"][i], run["k"][j]
    digits = _factor_digits(q, k, run["scores"][i, j])
    shown = digits or 4
    terms = " + ".join("%s·%s" % (d.fmt_short(a, shown), _factor(b, shown)) for a, b in zip(q, k))
    masked = not run["mask"][i, j]
    return {
        "head": HEADS[head_id]["label"],
        "q": "(" + "; ".join(d.fmt_short(x, shown) for x in q) + ")",
        "k": "(" + "; ".join(d.fmt_short(x, shown) for x in k) + ")",
        "expression": "(%s) / √%d %s%s" % (terms, len(q), d.equals(run["scores"][i, j]),
                                          "" if digits else " (con q y k sin redondear)"),
        "score": d.MASKED_TEXT if masked else d.fmt(run["scores"][i, j]),
        "weight": "0" if masked else weight_texts(run["weights"][i], run["mask"][i])[j],
        "masked": bool(masked),
        "why": _why(run, i, j),
        "softmax": _softmax_table(run, head_id, i, j),
    }


@reads(*SENTENCE, "query", "key", "mask", "head")
def arithmetic_panel(state):
    runs = head_runs(state)
    i, j = state["query"], state["key"]
    tokens = tokens_of(state)
    head_id = shown_heads(state)[0]
    weights = runs[head_id]["weights"][i]
    texts = weight_texts(weights, runs[head_id]["mask"][i])
    words = list(dict.fromkeys(tokens))
    # A word that appears twice gets the larger of its weights.
    columns = [max((c for c, w in enumerate(tokens) if w == word), key=lambda c: weights[c])
               for word in words]
    shown = [texts[c] for c in columns]
    # A winning word said twice: where it has that weight.
    top = best_as_read(words, shown)
    where = []
    for word in top:
        if tokens.count(word) > 1:
            at = [c for c, w in enumerate(tokens) if w == word and texts[c] == shown[words.index(word)]]
            where.append(" «%s» lo tiene en %s." % (word, "la posición %d" % at[0] if len(at) == 1
                                                     else "las posiciones %s" % join_words(map(str, at))))
    return {
        "query": tokens[i],
        "key": tokens[j],
        "blocks": [_arithmetic(runs[h], h, i, j) for h in shown_heads(state)],
        "predict": _weight_question(state, tokens, head_id, weights, texts,
                                    runs[head_id]["mask"][i], words, shown, "".join(where)),
    }


# The panel's question asks for one weight, the chosen key's share of the
# query's row, in three bands: the score table in view beside it does not
# give that away (softmax has to be thought through), while the row's
# largest score would name the key with the most weight.
WEIGHT_BANDS = (("cero", "0"), ("menos", "más de 0 y menos de la mitad"), ("mitad", "la mitad o más"))
HALF = d.fmt(0.5, d.WEIGHT_DIGITS)


def weight_band(weight, text, allowed):
    """The right bands for a weight: ["cero"] when the mask blocks it, else
    by its value; exactly one half (two equal scores) is «la mitad o más»,
    and a weight that only reads as the half (0,50) is right both ways."""
    if not allowed:
        return ["cero"]
    if text == HALF and not same(weight, 0.5):
        return ["menos", "mitad"]
    return ["mitad"] if weight >= 0.5 or same(weight, 0.5) else ["menos"]


def _weight_question(state, tokens, head_id, weights, texts, allowed, words, shown, where):
    i, j = state["query"], state["key"]
    answers = weight_band(weights[j], texts[j], allowed[j])
    if not allowed[j]:
        share = ("%s recibe 0: está después de %s y la máscara causal lo tapa."
                 % (word_at(tokens, j), word_at(tokens, i)))
    else:
        # The band named as the options name it; a weight that reads 0,00
        # is given unrounded too, so that a reader who chose «0» from the
        # table sees why it is not.
        reads_zero = d.number(texts[j]) == 0  # open, so above 0, however small
        share = "%s recibe %s%s de la fila de %s: %s." % (
            word_at(tokens, j), texts[j],
            " (sin redondear, %s)" % d.fmt_sci(weights[j], powers=True) if reads_zero else "",
            word_at(tokens, i),
            "la mitad, leída con dos decimales" if len(answers) == 2
            else "exactamente la mitad" if same(weights[j], 0.5)
            else "más de la mitad" if answers == ["mitad"] else dict(WEIGHT_BANDS)["menos"])
        if reads_zero:
            share += (" No es 0: una clave abierta siempre recibe algo, aunque con dos "
                      "decimales se lea 0,00; solo la máscara da un 0 exacto.")
    return prompt({
        "id": "pred-puntuacion:%s:%s:%s:%d:%d" % ("|".join(tokens), state["mask"], head_id, i, j),
        # A word said twice is named with its position, as in the other panels.
        "question": "En %s, con la máscara %s, ¿qué peso recibirá %s en la fila de %s?"
                    % (asked_head(state), MASK_LABELS[state["mask"]], word_at(tokens, j),
                       word_at(tokens, i)),
        "options": options(WEIGHT_BANDS),
        "answers": answers,
        "explanation": "%s Más peso en la fila: %s.%s Un peso no depende solo de su puntuación: "
                       "softmax la compara con todas las demás abiertas de la fila."
                       % (share, winner_sentence(words, shown), where),
    })


# --------------------------------------------------- why divide by √d_k

@reads("dk")
def scaling_panel(state):
    rows, off = [], {}
    for width in scaling.WIDTHS:
        raw, scaled = scaling.dot_spread(width)
        top_raw, top_scaled = scaling.saturation(width)
        rows.append({"label": "dₖ = %d" % width, "selected": width == state["dk"], "cells": [
            d.cell(raw), d.cell(np.sqrt(width)), d.cell(scaled),
            d.cell(top_raw), d.cell(top_scaled)]})
        # The third column divides the unrounded values: a reader dividing
        # the two shown may get another last digit.
        shown = [d.fmt(raw), d.fmt(np.sqrt(width)), d.fmt(scaled)]
        if d.quotient(*shown) is None:
            off[width] = "%s / %s daría %s" % (shown[0], shown[1],
                                                d.fmt(float(d.number(shown[0]) / d.number(shown[1]))))
    width = state["dk"]
    scores, raw_w, scaled_w = scaling.softmax_rows(width)
    raw_texts, scaled_texts = d.fmt_row(raw_w[0]), d.fmt_row(scaled_w[0])
    example = [{"label": "clave %d" % (c + 1), "cells": [
        d.cell(scores[0, c]), d.cell(raw_w[0, c], t_raw), d.cell(scaled_w[0, c], t_scaled)]}
        for c, (t_raw, t_scaled) in enumerate(zip(raw_texts, scaled_texts))]
    example_note = rows_note([("sin dividir", raw_texts), ("dividiendo", scaled_texts)],
                             "los pesos %s")
    raw, scaled = scaling.dot_spread(width)
    top_raw, top_scaled = scaling.saturation(width)
    even = 1.0 / scaling.N_KEYS
    return {
        "said": "dₖ = %d: q·k se desvía %s sin dividir y %s dividiendo entre √dₖ."
                % (width, d.fmt(raw), d.fmt(scaled)),
        "dk": width,
        "table": d.table("scaling", "Dispersión de q·k y peso de la clave más alta",
                         ["desv. de q·k", "√dₖ", "desv. de q·k/√dₖ",
                          "peso máx. sin dividir", "peso máx. dividiendo"], rows, "anchura",
                         "La columna «desv. de q·k/√dₖ» divide los valores sin redondear; con "
                         "los de la tabla, %s." % "; ".join(off.values()) if off else None),
        "example": d.table("scaling-row", "Una fila de %d claves con dₖ = %d"
                           % (scaling.N_KEYS, width),
                           ["q·k", "peso sin dividir", "peso dividiendo"], example, "clave",
                           example_note),
        "verdict": (
            "Con dₖ = %d, la desviación típica de q·k es %s (√%d %s); dividida entre √dₖ, %s%s. "
            "Sin dividir, la clave más alta se lleva de media un peso de %s; dividiendo, "
            "%s (repartido por igual, cada clave tendría 1/%d = %s)."
            % (width, d.fmt(raw), width, d.equals(np.sqrt(width)), d.fmt(scaled),
               " (dividiendo los valores sin redondear)" if width in off else "",
               d.fmt(top_raw), d.fmt(top_scaled), scaling.N_KEYS, d.fmt(even, 3))),
        "sample": "%d pares (q, k) al azar por anchura, coordenadas normales de media 0 y "
                  "varianza 1; %d filas de %d claves para los pesos."
                  % (scaling.N_PAIRS, scaling.N_PAIRS // scaling.N_KEYS, scaling.N_KEYS),
    }


PARTS = (("tables", score_tables), ("headview", head_view_panel), ("arithmetic", arithmetic_panel),
         ("scaling", scaling_panel))
