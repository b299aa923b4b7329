"""Generation with a KV cache, for one head (the cache is a value, not state).

At each step the new token is projected once (its q, k, v); its k and v are
appended to the cache, and its q attends to every cached key. A causal
decoder never changes earlier positions when a token is appended, so the
cached keys and values stay exact and the step-by-step outputs equal a full
recomputation. With a bidirectional mask, earlier outputs would change.
"""
from __future__ import annotations

import numpy as np

from .attention import attention, make_mask, softmax, scaled_scores
from .heads import head_qkv


def empty_cache(d_k, d_v):  # -> {"k": [0, d_k], "v": [0, d_v]}
    return {"k": np.zeros((0, d_k)), "v": np.zeros((0, d_v))}


def cache_step(cache, q, k, v):
    # cache {"k": [t, d_k], "v": [t, d_v]}, the new token's q [d_k], k [d_k], v [d_v]
    #   -> out [d_v], weights [t+1], new cache (t+1 rows)
    """Extend the cache with the new token's k and v, attend over it with its q.

    The new token is the last position, so causality needs no mask here: it
    may see every cached position and itself.
    """
    cache = {"k": np.vstack([cache["k"], k]), "v": np.vstack([cache["v"], v])}
    weights = softmax(scaled_scores(q[None, :], cache["k"]))[0]
    return weights @ cache["v"], weights, cache


def generate_with_cache(tokens, head):
    # n_seq words, head data -> outs [n_seq, d_v], weights: n_seq rows, caches: n_seq caches
    # A token's q, k and v depend on itself and its position only: computing
    # them for the whole sentence at once is what projecting each new token
    # as it arrives would give.
    q, k, v = head_qkv(tokens, head)
    cache = empty_cache(k.shape[1], v.shape[1])
    outs, caches, weights = [], [], []
    for t in range(len(tokens)):
        out, row, cache = cache_step(cache, q[t], k[t], v[t])
        outs.append(out)
        weights.append(row)
        caches.append(cache)
    return np.array(outs), weights, caches


def full_recompute(tokens, head, mask_kind="causal"):  # -> [n_seq, d_v]
    """Every position from scratch: the reference the cache must match."""
    q, k, v = head_qkv(tokens, head)
    return attention(q, k, v, make_mask(mask_kind, len(tokens)))[2]


def prefix_drift(tokens, head, mask_kind):
    """Max |change| of the earlier outputs when the last token is appended.

    A one-token sentence has no earlier outputs: nothing can drift (0).
    """
    if len(tokens) < 2:
        return 0.0
    before = full_recompute(tokens[:-1], head, mask_kind)
    after = full_recompute(tokens, head, mask_kind)[:-1]
    return float(np.max(np.abs(after - before)))


def projection_counts(n_steps):
    """Projections (one each of q, k, v per token processed) with and without cache.

    With a cache, step t projects only the new token: 3 per step. Without it,
    step t re-projects all t tokens: 3·t per step.
    """
    with_cache = [3] * n_steps
    without = [3 * t for t in range(1, n_steps + 1)]
    return with_cache, without


def attention_counts(n_steps):
    """q·k products with and without cache, per step.

    With a cache, step t still compares the new query with all t cached keys:
    t products, growing with the sentence. Without it, step t recomputes the
    causal attention of every position: 1 + 2 + … + t = t(t + 1)/2.
    """
    with_cache = list(range(1, n_steps + 1))
    without = [t * (t + 1) // 2 for t in range(1, n_steps + 1)]
    return with_cache, without


def cache_sizes(n_steps, d_k, d_v):
    """Numbers the cache holds after each step, per head and per layer: the
    k (d_k numbers) and v (d_v numbers) of every token so far."""
    return [t * (d_k + d_v) for t in range(1, n_steps + 1)]
