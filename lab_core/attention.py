"""Scaled dot-product attention, one small function per step.

Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k + M) · V      (Vaswani et al., 2017)

Shapes use one vocabulary across the project, the same in JSON keys and UI
text: n_seq (tokens), d_model (embedding width), d_k (query/key width), d_v
(value width), n_head (heads).

Masks are boolean arrays where True means "this query may look at this key".
They are applied to the scores *before* softmax, by replacing blocked scores
with −∞: exp(−∞) = 0, so a blocked key gets a weight of exactly 0 and the
remaining weights of the row still sum to 1.
"""
from __future__ import annotations

import numpy as np

MASK_KINDS = ("causal", "bidirectional")


def causal_mask(n_seq):  # int -> [n_seq, n_seq] bool
    """Query i may look at keys 0..i: the past and itself, never the future.

    The diagonal stays open because a position always knows its own token.
    """
    return np.tril(np.ones((n_seq, n_seq), dtype=bool))


def bidirectional_mask(n_seq):  # int -> [n_seq, n_seq] bool
    """Every query may look at every key, as in an encoder."""
    return np.ones((n_seq, n_seq), dtype=bool)


def make_mask(kind, n_seq):  # str, int -> [n_seq, n_seq] bool
    if kind == "causal":
        return causal_mask(n_seq)
    if kind == "bidirectional":
        return bidirectional_mask(n_seq)
    raise ValueError(
        "la máscara «%s» no existe; usa «causal» o «bidirectional»" % (kind,)
    )


def scaled_scores(q, k):  # [n_q, d_k], [n_k, d_k] -> [n_q, n_k]
    """Q·Kᵀ/√d_k: compare every query with every key.

    Dividing by √d_k keeps the spread of the dot products near 1 as d_k
    grows, so softmax does not saturate (Vaswani et al., 2017, §3.2.1).
    """
    d_k = q.shape[-1]
    if k.shape[-1] != d_k:
        raise ValueError(
            "Q y K deben tener la misma d_k: %d frente a %d" % (d_k, k.shape[-1])
        )
    return q @ k.T / np.sqrt(d_k)


def apply_mask(scores, mask):  # [n_q, n_k], [n_q, n_k] bool -> [n_q, n_k]
    """Blocked cells become −∞, so that softmax turns them into exactly 0."""
    if mask.shape != scores.shape:
        raise ValueError(
            "la máscara tiene forma %s y las puntuaciones %s"
            % (mask.shape, scores.shape)
        )
    if not mask.any(axis=-1).all():
        raise ValueError("cada consulta necesita al menos una clave abierta")
    return np.where(mask, scores, -np.inf)


def softmax(x):  # [..., n] -> [..., n], each row sums to 1
    """Numerically stable softmax along the last axis.

    Subtracting the row maximum does not change the result (it cancels in the
    ratio) but keeps exp() from overflowing. Rows must hold at least one
    finite value; −∞ entries come out as exactly 0.
    """
    shifted = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1, keepdims=True)


def attention(q, k, v, mask):
    # [n_q, d_k], [n_k, d_k], [n_k, d_v], [n_q, n_k] bool
    #   -> scores [n_q, n_k], weights [n_q, n_k], out [n_q, d_v]
    """Scaled dot-product attention, returning every intermediate.

    The teaching page shows all three: the scaled scores (before the mask),
    the weights after the mask and softmax, and the mixture weights·V.
    """
    if v.shape[0] != k.shape[0]:
        raise ValueError(
            "K y V deben tener una fila por posición: %d frente a %d"
            % (k.shape[0], v.shape[0])
        )
    scores = scaled_scores(q, k)
    weights = softmax(apply_mask(scores, mask))
    return scores, weights, weights @ v
