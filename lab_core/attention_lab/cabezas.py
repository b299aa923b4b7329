"""Panel 3: each head's Q, K and V, all heads concatenated through W_O, and
the reader's own vectors (every word's q, k and v, editable in place)."""
from __future__ import annotations

from .. import display as d
from ..didactic import HEADS, VOCABULARY
from ..heads import is_position_head, multi_head, vector_key, word_vectors
from ..vocabulary import lemma
from ..memo import reads
from ..words import join_words
from .context import SENTENCE, ALL_HEADS, heads_of, run, shown_heads, tokens_of, word_at

ROLE_NAMES = {"q": "consulta q", "k": "clave k", "v": "valor v"}


def _vector_name(name):
    """'lugar.parque.k' -> 'k de «parque»' (quoted: «k de «de»», not «k de de»)."""
    _, word, role = name.split(".")
    return "%s de «%s»" % (role, word)


NBSP = "\u00a0"


def _sums(word, concat, out, w_o, names):
    """The query row's output, worked out from the concatenation, with the
    numbers as the tables show them (two decimals, each its own rounding):
    which concatenated coordinates W_O adds into each word's column, and
    their sum. «=» when the rounded numbers add up as read; «≈» when
    rounding each on its own moves the sum, and the sentence says why."""
    sums, off = [], False
    for j, column in enumerate(VOCABULARY):
        used = [c for c in range(len(concat)) if w_o[c, j] != 0]
        if not used:
            continue
        terms = [names[c] if w_o[c, j] == 1 else "%s·%s" % (d.fmt_short(w_o[c, j]), names[c])
                 for c in used]
        texts = [d.fmt(w_o[c, j] * concat[c]) for c in used]
        total = d.fmt(out[j])
        adds = d.shown_sum(texts) == d.number(total)
        off = off or not adds
        worked = "%s %s %s" % (d.signed_terms(texts), "=" if adds else "≈", total)
        sums.append("la columna «%s» es %s: %s" % (
            column, " + ".join(terms), worked.replace(" ", NBSP)))
    if not sums:
        return ""
    sentence = "En la fila de «%s», %s." % (word, "; ".join(sums))
    if off:
        sentence += (" Donde pone «≈», cada número está redondeado por separado y los "
                     "redondeados no suman exactamente lo mismo.")
    return sentence


def _output_note(tokens, concat, out, w_o):
    """Where the output's cells, as read, are not the sum of the
    concatenation's cells W_O adds into them, as read."""
    off = []
    for i, word in enumerate(tokens):
        for j, column in enumerate(VOCABULARY):
            used = [c for c in range(concat.shape[1]) if w_o[c, j] != 0]
            if not used:
                continue
            added = d.shown_sum([d.fmt(w_o[c, j] * concat[i, c]) for c in used])
            if added != d.number(d.fmt(out[i, j])):
                off.append("fila %s, columna «%s»: %s en vez de %s" % (
                    word_at(tokens, i), column, d.fmt(float(added)), d.fmt(out[i, j])))
    if not off:
        return None
    return ("Cada número está redondeado por separado: sumando, tal como se leen, las celdas de "
            "la concatenación que W_O lleva a cada columna, sale otra cifra en %s."
            % "; ".join(off))


@reads(*SENTENCE, "query", "mask", "head")
def heads_panel(state):
    tokens = tokens_of(state)
    heads = []
    for head_id in shown_heads(state):
        head_run = run(state, head_id)
        head = HEADS[head_id]
        rows = [{"label": w, "selected": i == state["query"], "cells": [
            d.cell(None, d.fmt_vector_short(head_run[role][i])) for role in ("q", "k", "v")]}
            for i, w in enumerate(tokens)]
        edited = [k for k in (state["vec"] or {}) if k.startswith(head_id + ".")]
        heads.append({
            "id": head_id,
            "label": head["label"],
            "summary": head["summary"] if not edited else
            "has cambiado %s de esta cabeza (%s): el resumen del artículo ya no describe "
            "tus vectores; las tablas sí." % (
                "1 vector" if len(edited) == 1 else "%d vectores" % len(edited),
                join_words([_vector_name(k) for k in sorted(edited)])),
            "axes": "Q y K: (%s); V: (%s)" % ("; ".join(head["axes"]),
                                              "; ".join(head["value_axes"])),
            "table": d.table("qkv-" + head_id, "Q, K y V · %s" % head["label"],
                             ["Q", "K", "V"], rows, "token"),
        })
    combine = None
    if state["head"] == ALL_HEADS:
        mh = multi_head(tokens, heads_of(state), state["mask"])
        n_seq, width = mh["concat"].shape
        d_model = mh["w_o"].shape[1]
        names = ["%s·%d" % (h[:3], c + 1) for h in HEADS for c in range(2)]

        def matrix(table_id, caption, columns, values, note=None):
            return d.table(table_id, caption, columns, [
                {"label": w, "selected": i == state["query"],
                 "cells": [d.cell(x) for x in values[i]]} for i, w in enumerate(tokens)], "token",
                note)

        combine = {
            "shapes": [
                "%d cabezas × [n_seq=%d, d_v=2]" % (len(HEADS), n_seq),
                "concatenar → [n_seq=%d, n_head·d_v=%d]" % (n_seq, width),
                "× W_O [%d, d_model=%d] → [n_seq=%d, d_model=%d]"
                % (width, d_model, n_seq, d_model),
            ],
            "concat": matrix("concat", "Concatenación de las mezclas [%d × %d]" % (n_seq, width),
                             names, mh["concat"]),
            "output": matrix("mha-out", "Salida tras W_O [%d × %d]" % (n_seq, d_model),
                             list(VOCABULARY), mh["out"],
                             _output_note(tokens, mh["concat"], mh["out"], mh["w_o"])),
            "sums": _sums(tokens[state["query"]], mh["concat"][state["query"]],
                          mh["out"][state["query"]], mh["w_o"], names),
        }
    return {"heads": heads, "combine": combine}


# ------------------------------------------------------ the reader's vectors

def _number(x):
    """How a coordinate reads in an input: 0,5 or 3 (no trailing zeros)."""
    return d.fmt_short(x, 4)


def editable_words(tokens):
    """The words of a sentence whose vectors a reader may edit, once each,
    in order, as their tables write them: the lab's words (an unknown word
    is neutral and stays so)."""
    return list(dict.fromkeys(vector_key(w) for w in tokens if lemma(w) is not None))


@reads("sentence", "tokens", "vec", "head")
def vectors_view(state):
    """For each shown word head, the q, k and v of the sentence's words, editable."""
    heads = heads_of(state)
    words = editable_words(tokens_of(state))
    tables = []
    position_heads = [h for h in shown_heads(state) if is_position_head(HEADS[h])]
    for head_id in shown_heads(state):
        if head_id in position_heads:
            continue
        rows = []
        for word in words:
            cells = []
            for role in ("q", "k", "v"):
                name = "%s.%s.%s" % (head_id, word, role)
                value = word_vectors(heads[head_id], word)[role]
                original = word_vectors(HEADS[head_id], word)[role]
                cells.append({
                    "name": name, "role": role,
                    "x": _number(value[0]), "y": _number(value[1]),
                    "edited": name in state["vec"],
                    "label": "%s de «%s»" % (ROLE_NAMES[role], word),
                    "original": d.fmt_vector_short(original),
                })
            rows.append({"word": word, "cells": cells})
        edited = sum(1 for k in state["vec"] if k.startswith(head_id + "."))
        label = HEADS[head_id]["label"]
        tables.append({"head": head_id, "label": label,
                       "caption": "Vectores de cada palabra · %s" % label,
                       "rows": rows, "edited": edited,
                       "picker": label if not edited else "%s (%d %s)" % (
                           label, edited, "cambiado" if edited == 1 else "cambiados")})
    notes = []
    if position_heads:
        notes.append("La cabeza «%s» no tiene vectores por palabra: los construye con la "
                     "posición (panel 5), así que aquí no hay nada que cambiar."
                     % HEADS[position_heads[0]]["label"])
    if any(lemma(w) is None for w in tokens_of(state)):
        notes.append("Una palabra que no conozco es neutra y no se edita.")
    return {"tables": tables, "edited": len(state["vec"]), "note": " ".join(notes)}


PARTS = (("heads", heads_panel), ("vectors", vectors_view))
