"""Attention Lab's engine: the math of the Spanish transformer articles in NumPy.

Modules
-------
attention  scores, masks, softmax and attention: pure functions.
didactic   the sentences, vocabulary and named heads the lab teaches with.
heads      words -> one-hot embeddings -> per-head Q, K, V -> attention.
state      the lab state's keys, defaults and input checks.
views      the view contract: a state in, a JSON-ready dict out.
browser    the Pyodide glue (the only module that imports `js`).
"""
from __future__ import annotations

__version__ = "0.1.0"
