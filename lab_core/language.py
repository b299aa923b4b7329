"""From attention outputs to next-word probabilities, and the training loss.

Attention weights spread over *positions of the context*; these
probabilities spread over *words of the vocabulary*. They are computed after
the heads: residual = x + MHA(x), logits = residual · W_U, softmax.
"""
from __future__ import annotations

import numpy as np

from .attention import softmax
from .didactic import VOCABULARY, W_U
from .heads import embed, model_word, multi_head


def next_word_probs(tokens, heads, mask_kind):
    # n_seq words, {head id: head}, str
    #   -> residual [n_seq, d_model], logits [n_seq, vocab], probs [n_seq, vocab]
    """Every position's distribution over the next word, all at once."""
    residual = embed(tokens) + multi_head(tokens, heads, mask_kind)["out"]
    logits = residual @ np.array(W_U, dtype=float)
    return residual, logits, softmax(logits)


def cross_entropy(probs, targets):  # [n, vocab], n ints -> [n]
    """−ln p(target) per position: 0 when the model is sure and right."""
    return -np.log(probs[np.arange(len(targets)), targets])


def training_step(tokens, heads, mask_kind):
    """Causal training in parallel: position i is scored against token i+1.

    Every position is computed in one pass; the mask alone decides what each
    one may see. The last position has no next token, so it has no target.
    The toy model predicts only the article's six words: a position whose
    next word is another has no loss (`scored` False; its p and loss NaN),
    and the mean is over the scored positions (NaN if none is).
    Returns inputs, targets (words), scored, p(target), losses and their mean.
    """
    if len(tokens) < 2:
        raise ValueError("hace falta una frase de al menos 2 palabras para tener objetivos")
    _, _, probs = next_word_probs(tokens, heads, mask_kind)
    known = [model_word(word) for word in tokens[1:]]
    scored = np.array([word is not None for word in known])
    p_target = np.full(len(known), np.nan)
    losses = np.full(len(known), np.nan)
    rows = np.flatnonzero(scored)
    targets = [VOCABULARY.index(known[i]) for i in rows]
    p_target[rows] = probs[rows, targets]
    losses[rows] = cross_entropy(probs[rows], targets)
    return {
        "inputs": list(tokens[:-1]),
        "targets": list(tokens[1:]),
        "scored": scored,
        "p_target": p_target,
        "losses": losses,
        "loss": float(np.mean(losses[rows])) if len(rows) else float("nan"),
    }
