"""Attention Lab's engine: the math of the Spanish transformer articles in NumPy.

Math (pure functions over NumPy arrays)
---------------------------------------
attention       scores, masks, softmax and attention.
heads           words -> per-head Q, K, V (by word, or by position) -> attention; W_O.
language        next-word probabilities over the vocabulary; the training loss.
generation      the toy model continuing a sentence word by word, with KV caches.
rope            single-frequency rotary position embedding.
kvcache         generation with a KV cache, checked against full recompute; its costs.
scaling         why scores are divided by √d_k, measured.
block           positional encoding, residuals, LayerNorm, FFN, the full block.
train           one head trained to tell the senses of banco, backward pass by hand.
decoder         the capstone: two pre-norm blocks, forward and backward by hand, Adam.
decoder_run     the capstone's runs, generation with a KV cache, its heads, its lesson.

Didactic data
-------------
didactic        the El · banco sentences, vocabulary, named heads, W_O and W_U.
vocabulary      the words a reader may type, by group; typed text -> words.
didactic_block  the block lab's sentence and quiz.
didactic_train  the training corpus of panel 8.
grammar         the capstone's Spanish grammar: every sentence, its probability, its check.

The two labs (one package each, one module per panel, named after its id)
-------------------------------------------------------------------------
lab             what a lab is: its Spec, its table of panels, build_view.
attention_lab   the first article's lab.
block_lab       the second article's lab.

Words, numbers and pictures
---------------------------
display         Spanish number formatting (half up, one rounding rule) and tables.
words           sentences that state conclusions, built from the numbers.
pictures        attention lines and charts as data, with text alternatives.
export          a table as CSV, Markdown or LaTeX.

The contract with the page
--------------------------
state           typed state keys, strict and lenient checks, the URL form.
memo            panel builders cached on the state keys they declare.
views           the view contract: a request in, a reply with a view out.
prepared        views prepared at build time for the page's first paint.
browser         the Pyodide glue (the only module that imports `js`).
"""
from __future__ import annotations

__version__ = "0.1.0"
