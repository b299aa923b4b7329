"""The view contract: a lab state in, one JSON-ready dict out.

The page sends a request to `handle()` and draws the view it gets back; JS
never computes a number. Each lab (one per article) is a `Spec` of state keys
and a `build_view(state)`; `LABS` maps the lab's name to both.

Reply envelope (answer() builds it, handle() serialises it)
-----------------------------------------------------------
{"ok": true, "view": view} or {"ok": false, "error": message, "key": key}, where
key names the state key whose control should show the message (or null).

Common view keys (every lab)
----------------------------
lab       the lab's name ("attention" or "block").
contract  the version of this contract (CONTRACT_VERSION).
state     the normalised state; the page adopts it as is.
query_string  the state's URL form (only keys that differ from the default;
          "" for the default state); the page mirrors it into location.search.
notices   list of str: what was ignored from the URL, for the user.
controls  key -> {"label", "options": [{"value", "label"}]} for choices, or
          {"label", "min", "max", "step"} for numbers.

Tables, wherever they appear:
  {"id", "caption", "corner", "columns": [str],
   "rows": [{"label": str, "selected": bool, "cells": [cell]}]}
  cell = {"value": float | null, "text": str, "masked": bool, ...flags}.
  A masked score travels as value null with text "−∞": JSON has no
  infinity, and json.dumps(allow_nan=False) refuses to invent one.

Prediction prompts, wherever they appear:
  {"id", "question", "options": [{"value", "label"}], "answers": [value],
   "explanation"}; the page reveals the answer once the reader picks.

Attention lab ("attention", lab_core/attention_lab.py)
------------------------------------------------------
sentence    {"id", "label", "tokens"}.
head        {"id", "label", "summary"}.
tables      list, one per shown head: {"head", "scores", "weights"}; captions
            "Puntuaciones" and "Pesos" (suffixed with the head with head="all").
arithmetic  {"query", "key", "blocks": [{"head", "q", "k", "expression",
            "score", "weight", "masked", "why", "softmax": table}], "predict"}.
mixture     {"blocks": [{"head", "out", "d_v", "table"}],
            "vocab": {"query", "best", "table"}}.
heads       {"heads": [{"id", "label", "summary", "axes", "table"}],
            "combine": null | {"shapes": [str], "concat": table, "output": table}}.
mask        {"open", "closed", "table", "predict"}; cells carry "diagonal".
rope        {"theta", "angle_q", "angle_k", "q", "k", "q_m",
            "k_n", "score", "plain_score", "norms", "drawing": {"extent",
            "vectors": [{"name", "x", "y", "role", "moved"}]}, "table", "predict"}.
training    {"table", "loss", "leak_loss"}.
cache       {"step", "new_token", "heads", "cache", "counts",
            "check": {"max_diff", "exact"}, "prefix": {"query", "sentence", "other",
            "mine", "theirs", "same", "verdict"}, "drift": {"causal",
            "bidirectional", "appended"}, "predict"}.

Block lab ("block", lab_core/block_lab.py)
------------------------------------------
order       {"original", "permuted", "weights", "weights_permuted" (tables),
            "pair": {"a", "b"}, "weights_gap", "out_gap", "pe_gap", "pe_differs"}.
position    {"heatmap": {"rows", "cols", "values" [rows][cols], "label"},
            "wavelengths" (table), "first", "last", "limit",
            "shift": {"k", "error", "sine_only"}}.
residual    {"depth", "table", "plain", "residual", "low", "high"}.
layernorm   {"x", "mean", "var", "normalized", "gamma", "beta", "out",
            "out_mean", "out_std", "growth" (table)}.
ffn         {"d_model", "d_ff", "ratio", "plot": {"x", "series": [{"name", "y"}]},
            "gelu_at", "collapse": {"error", "shape_a"},
            "locality": {"ffn3", "ffn5", "attn5"}}.
block       {"shape_in", "shape_out", "check", "real", "note", "d_k",
            "params": {"headers", "rows"} (also published on
            window.py_table_data), "table", "ffn_share"}.
quiz        [{"id", "question", "options", "answers", "explanation", "panel",
            "panel_label"}]: prediction prompts with a link to their panel.

Measured differences that should vanish read "0" or "< 10⁻¹²" (display.fmt_error).
"""
from __future__ import annotations

import json

import importlib

from .state import query_string, state_from_params, update_state

CONTRACT_VERSION = 2
# Lab name -> module with SPEC and build_view. Imported on first use, so each
# page compiles only its own lab's code in the browser.
LABS = {
    "attention": "lab_core.attention_lab",
    "block": "lab_core.block_lab",
}


def get_lab(name):
    if not isinstance(name, str) or name not in LABS:
        raise ValueError("el laboratorio %r no existe; hay: %s" % (name, ", ".join(LABS)))
    return importlib.import_module(LABS[name])


def render(lab_name, state):
    """The view for a state already valid for that lab."""
    lab = get_lab(lab_name)
    view = lab.build_view(state)
    view["contract"] = CONTRACT_VERSION
    view["query_string"] = query_string(lab.SPEC, state)
    return view


def to_json(data):
    """Serialise for the page; refuses NaN and ±∞, which JSON cannot carry."""
    return json.dumps(data, allow_nan=False, ensure_ascii=False)


def answer(request_text):
    """Answer one page request (JSON text) with a reply envelope (a dict).

    request = {"lab": name, "from": "set" | "url", "state": {...}, "current": {...}}
      "set": strict; `state` is a partial applied on `current`, and a bad
             value gives {"ok": false, "error": message, "key": key}.
      "url": lenient; `state` holds URL strings, bad ones become notices.
    """
    try:
        request = json.loads(request_text)
        if not isinstance(request, dict):
            raise ValueError("la petición debe ser un objeto JSON")
        lab_name = request.get("lab", "attention")
        spec = get_lab(lab_name).SPEC
        if request.get("from") == "url":
            state, notices = state_from_params(spec, request.get("state") or {})
        else:
            state = update_state(spec, request.get("current"), request.get("state"))
            notices = []
        view = render(lab_name, state)
        view["notices"] = notices
        return {"ok": True, "view": view}
    except ValueError as error:
        return {"ok": False, "error": str(error), "key": getattr(error, "key", None)}


def handle(request_text):
    """answer(), serialised: the JSON text the page parses."""
    return to_json(answer(request_text))
