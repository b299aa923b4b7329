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

from .views import handle


def render(request_text):
    """Answer a page request; the reply envelope lands on window.py_view_data."""
    js.window.py_view_data = handle(request_text)


def publish_runtime():
    """The Python and NumPy versions actually running, on window.py_runtime."""
    js.window.py_runtime = json.dumps(
        {"python": platform.python_version(), "numpy": np.__version__}
    )
