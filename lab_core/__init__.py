"""Attention Lab's engine: the math of the Spanish transformer articles in NumPy.

Modules
-------
attention       scores, masks, softmax and attention: pure functions.
didactic        the El · banco sentences, vocabulary and named heads, as data.
heads           words -> one-hot embeddings -> per-head Q, K, V -> attention.
language        next-word probabilities over the vocabulary; the training loss.
rope            single-frequency rotary position embedding.
kvcache         generation with a KV cache, checked against full recompute.
block           positional encoding, residuals, LayerNorm, FFN, the full block.
didactic_block  the block lab's sentence, panels and quiz, as data.
attention_lab   the first article's lab: state keys and panel builders.
block_lab       the second article's lab: state keys and panel builders.
scaling         why scores are divided by √d_k, measured.
words           sentences that state conclusions, built from the numbers.
prepared        views prepared at build time for the page's first paint.
state           typed state keys, strict and lenient checks, the URL form.
display         Spanish number formatting and table helpers.
memo            panel builders cached on the state keys they declare.
views           the view contract: a request in, a reply with a view out.
browser         the Pyodide glue (the only module that imports `js`).
"""
from __future__ import annotations

__version__ = "0.1.0"
