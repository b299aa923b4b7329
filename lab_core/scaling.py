"""Why the scores are divided by √d_k: a measurement, not a slogan.

If the coordinates of q and k are independent with mean 0 and variance 1,
q·k is a sum of d_k such products: its mean is 0 and its variance is d_k, so
its spread grows like √d_k (Vaswani et al., 2017, §3.2.1, footnote 4). Large
scores push softmax into saturation: one key takes almost all the weight and
the gradient through the others almost vanishes. Dividing by √d_k brings the
spread back to about 1 whatever the width.

Draws come from NumPy's legacy RandomState, whose stream is the same in every
NumPy version, so the page (NumPy 1.17) and the tests (NumPy 2.x) agree.
"""
from __future__ import annotations

import functools

import numpy as np

from .attention import softmax

WIDTHS = (2, 8, 32, 128, 512)  # the d_k values the table compares
N_PAIRS = 1000  # random (q, k) pairs per width: the spread within about 2 % (1/√(2n))
N_KEYS = 8  # keys in one softmax row
SEED = 2017


def random_pairs(d_k, n_pairs, seed=SEED):  # -> q [n_pairs, d_k], k [n_pairs, d_k]
    """Standard-normal queries and keys (mean 0, variance 1 per coordinate)."""
    rng = np.random.RandomState(seed + d_k)
    return rng.normal(size=(n_pairs, d_k)), rng.normal(size=(n_pairs, d_k))


# Each measurement is made once per width and kept (the panel's table shows
# every width on every view); arrays come back read-only, as they are shared.
@functools.lru_cache(maxsize=None)
def dot_spread(d_k, n_pairs=N_PAIRS, seed=SEED):
    """Standard deviation of q·k and of q·k/√d_k over random pairs."""
    q, k = random_pairs(d_k, n_pairs, seed)
    dots = np.sum(q * k, axis=1)  # [n_pairs]: one q·k per pair
    return float(np.std(dots)), float(np.std(dots / np.sqrt(d_k)))


@functools.lru_cache(maxsize=None)
def softmax_rows(d_k, n_rows=N_PAIRS // N_KEYS, n_keys=N_KEYS, seed=SEED):
    # -> raw scores [n_rows, n_keys], weights without and with the division
    """Rows of one query against n_keys random keys, softmaxed both ways."""
    rng = np.random.RandomState(seed + 7 * d_k)
    q = rng.normal(size=(n_rows, 1, d_k))
    k = rng.normal(size=(n_rows, n_keys, d_k))
    scores = np.sum(q * k, axis=2)  # [n_rows, n_keys]
    rows = scores, softmax(scores), softmax(scores / np.sqrt(d_k))
    for array in rows:
        array.setflags(write=False)
    return rows


@functools.lru_cache(maxsize=None)
def saturation(d_k):
    """Mean of each row's largest weight, without and with the division.

    1/n_keys means evenly spread; 1 means one key takes everything.
    """
    _, raw, scaled = softmax_rows(d_k)
    return float(np.mean(raw.max(axis=1))), float(np.mean(scaled.max(axis=1)))
