"""The only module that touches the browser: it publishes JSON on `window`.

Like the article's own cell (`js.window.py_table_data = json.dumps(...)`),
Python writes text on `window` and the page's JavaScript reads and draws it.
Nothing here computes; everything here is a thin wrapper over `views`.
"""
from __future__ import annotations

import json
import platform

import js  # provided by Pyodide; this module is never imported in CPython
import numpy as np

from .views import Conversation, to_json

_conversation = Conversation()


def render(request_text):
    """Answer a page request; the reply envelope lands on window.py_view_data.

    With "base" naming the view the page holds, the view holds only what
    changed (views.Conversation); the page merges it, and its own
    window.py_view_data is always the whole envelope. The block lab's
    parameter table is also published on window.py_table_data as
    {"headers", "rows"}, exactly as the article's own code cell does.
    """
    sent, whole = _conversation.reply(request_text)
    js.window.py_view_data = to_json(sent)
    view = whole.get("view") if whole["ok"] else None
    if view and view["lab"] == "block" and ("block" in sent["view"] or sent.get("adopted")):
        js.window.py_table_data = json.dumps(view["block"]["published"])


def publish_runtime():
    """The Python and NumPy versions actually running, on window.py_runtime."""
    js.window.py_runtime = json.dumps(
        {"python": platform.python_version(), "numpy": np.__version__}
    )
