"""The view contract: one lab state in, one JSON-ready dict out.

`build_view(state)` is the only function that turns a state into what the
page draws. JS never computes a number; it reads this dict and renders it.

View keys (contract version 1)
------------------------------
state     the normalised state: sentence, query, mask, head.
notices   list of str: what was ignored from the URL, for the user.
controls  key -> {"label": str, "options": [{"value", "label"}]}, one entry
          per control, in the order the page shows them.
sentence  {"id", "label", "tokens": [str]}.
head      {"id", "label", "summary", "d_k", "d_v"}.
tables    "scores" and "weights", each a table:
          {"id", "caption", "corner", "columns": [str],
           "rows": [{"label": str, "selected": bool, "cells": [cell]}]}
          cell = {"value": float | null, "text": str, "masked": bool}.
          A masked score travels as value null with text "−∞": JSON has no
          infinity, and json.dumps(allow_nan=False) refuses to invent one.
focus     the selected query in words: {"query": str, "best_key": str
          (every key sharing the top weight, joined with "y"),
          "best_weight": str, "mixture": str, "d_v": int}.

Numbers are formatted here in Spanish style (1,41; 1.048.576): one place
decides how a number reads, so the pre-rendered view and the live one match.

The reply envelope sent through `handle()` is {"ok": true, "view": view} or
{"ok": false, "error": str}.
"""
from __future__ import annotations

import json

import numpy as np

from .didactic import HEADS, SENTENCES
from .heads import get_head, run_head
from .state import state_from_params, update_state

CONTRACT_VERSION = 1
MINUS = "\u2212"
MASKED_TEXT = MINUS + "∞"
MASK_LABELS = {"causal": "causal", "bidirectional": "bidireccional"}


def fmt(x, digits=2):
    """Spanish number text: decimal comma, '.' between thousands, real minus."""
    if not np.isfinite(x):
        raise ValueError("no se puede mostrar un número no finito: %r" % (x,))
    text = "{:,.{}f}".format(abs(float(x)), digits)
    text = text.replace(",", "\u0000").replace(".", ",").replace("\u0000", ".")
    negative = x < 0 and text.strip("0,.") != ""
    return (MINUS if negative else "") + text


def fmt_vector(values, digits=2):
    return "(" + "; ".join(fmt(x, digits) for x in values) + ")"


def _join_words(words):
    """['El', 'banco', 'del'] -> 'El, banco y del'."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " y " + words[-1]


def _table(table_id, caption, tokens, matrix, mask, query, masked_text):
    rows = []
    for i, label in enumerate(tokens):
        cells = []
        for j in range(len(tokens)):
            if mask[i, j]:
                cells.append(
                    {"value": float(matrix[i, j]), "text": fmt(matrix[i, j]),
                     "masked": False}
                )
            else:
                cells.append(dict(masked_text))
        rows.append({"label": label, "selected": i == query, "cells": cells})
    return {
        "id": table_id,
        "caption": caption,
        "corner": "consulta \\ clave",
        "columns": list(tokens),
        "rows": rows,
    }


def _controls(state):
    tokens = SENTENCES[state["sentence"]]["tokens"]
    return {
        "sentence": {
            "label": "Frase",
            "options": [
                {"value": key, "label": s["label"]} for key, s in SENTENCES.items()
            ],
        },
        "query": {
            "label": "Consulta",
            "options": [
                {"value": i, "label": "%d · %s" % (i, word)}
                for i, word in enumerate(tokens)
            ],
        },
        "mask": {
            "label": "Máscara",
            "options": [{"value": k, "label": v} for k, v in MASK_LABELS.items()],
        },
        "head": {
            "label": "Cabeza",
            "options": [{"value": k, "label": h["label"]} for k, h in HEADS.items()],
        },
    }


def build_view(state):
    """The whole page, as data, for one valid state."""
    run = run_head(state["sentence"], state["head"], state["mask"])
    tokens, query = run["tokens"], state["query"]
    head = get_head(state["head"])
    weights_row = run["weights"][query]
    top = np.max(weights_row)
    # Ties are common with hand-picked vectors: name every key that shares
    # the top weight rather than whichever argmax happens to pick.
    best = [tokens[j] for j in np.flatnonzero(np.isclose(weights_row, top))]
    return {
        "contract": CONTRACT_VERSION,
        "state": dict(state),
        "notices": [],
        "controls": _controls(state),
        "sentence": {
            "id": state["sentence"],
            "label": SENTENCES[state["sentence"]]["label"],
            "tokens": list(tokens),
        },
        "head": {
            "id": state["head"],
            "label": head["label"],
            "summary": head["summary"],
            "d_k": int(run["q"].shape[1]),
            "d_v": int(run["v"].shape[1]),
        },
        "tables": {
            "scores": _table(
                "scores", "Puntuaciones", tokens, run["scores"], run["mask"],
                query, {"value": None, "text": MASKED_TEXT, "masked": True},
            ),
            "weights": _table(
                "weights", "Pesos", tokens, run["weights"], run["mask"],
                query, {"value": 0.0, "text": "0", "masked": True},
            ),
        },
        "focus": {
            "query": tokens[query],
            "best_key": _join_words(best),
            "best_weight": fmt(top),
            "mixture": fmt_vector(run["out"][query]),
            "d_v": int(run["v"].shape[1]),
        },
    }


def to_json(data):
    """Serialise for the page; refuses NaN and ±∞, which JSON cannot carry."""
    return json.dumps(data, allow_nan=False, ensure_ascii=False)


def handle(request_text):
    """Answer one page request (JSON text) with a reply envelope (JSON text).

    request = {"state": {...}, "from": "set" | "url"}
      "set": strict; the current state is request["current"], and a bad
             value gives {"ok": false, "error": message}.
      "url": lenient; values are URL strings, bad ones become notices.
    """
    try:
        request = json.loads(request_text)
        if not isinstance(request, dict):
            raise ValueError("la petición debe ser un objeto JSON")
        if request.get("from") == "url":
            state, notices = state_from_params(request.get("state") or {})
        else:
            state = update_state(request.get("current") or {}, request.get("state"))
            notices = []
        view = build_view(state)
        view["notices"] = notices
        return to_json({"ok": True, "view": view})
    except ValueError as error:
        return to_json({"ok": False, "error": str(error)})
