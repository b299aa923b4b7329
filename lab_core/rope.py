"""Rotary position embedding (RoPE) with a single frequency (Su et al., 2021).

A 2-D query at position m is rotated by the angle m·θ, a key at position n by
n·θ. Rotations keep lengths, and R(a)ᵀR(b) = R(b − a), so

    (R(mθ) q) · (R(nθ) k) = q · R((n − m)θ) k,

which depends on the positions only through the offset n − m. Real models
rotate many coordinate pairs, each with its own frequency; one pair is enough
to see the idea.
"""
from __future__ import annotations

import numpy as np


def rotation(angle):  # float -> [2, 2]
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def rope_rotate(x, pos, theta):  # [2], int, float -> [2]
    """Rotate a 2-D vector by pos·θ radians."""
    x = np.asarray(x, dtype=float)
    if x.shape != (2,):
        raise ValueError("RoPE de una frecuencia gira vectores de 2 coordenadas")
    return rotation(pos * theta) @ x


def rope_score(q, k, m, n, theta):  # [2], [2], int, int, float -> float
    """q_m · k_n: the dot product after rotating q to m and k to n."""
    return float(rope_rotate(q, m, theta) @ rope_rotate(k, n, theta))


def rope_scores(q, k, m, n, theta):  # [2], [2], int array, int array, float -> float array
    """rope_score for many position pairs at once (m and n broadcast together).

    The same rotations written out per coordinate, (x₀ cos a − x₁ sin a,
    x₀ sin a + x₁ cos a), so that a panel's table and curve cost one NumPy
    call each instead of one per cell (each call is slow in the browser).
    """
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    a, b = np.asarray(m) * theta, np.asarray(n) * theta
    cos_a, sin_a, cos_b, sin_b = np.cos(a), np.sin(a), np.cos(b), np.sin(b)
    q_m = (cos_a * q[0] - sin_a * q[1], sin_a * q[0] + cos_a * q[1])
    k_n = (cos_b * k[0] - sin_b * k[1], sin_b * k[0] + cos_b * k[1])
    return q_m[0] * k_n[0] + q_m[1] * k_n[1] + 0.0  # + 0.0: no −0.0 from a null vector
