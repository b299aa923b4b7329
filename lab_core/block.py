"""Position, residuals, LayerNorm, the FFN and the full pre-norm block.

The math of "Posición, Residuales y el Bloque Feed-Forward", one pure NumPy
function per idea. Shapes use the project's names: n_seq, d_model, d_k,
n_head, d_ff. Row vectors throughout: x @ W, as the article's code does.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .attention import attention, bidirectional_mask

PE_BASE = 10000.0  # Vaswani et al. (2017): wavelengths from 2π to 10000·2π
LN_EPS = 1e-5  # Ba et al. (2016); PyTorch's default: keeps 1/√(σ² + ε) finite


# ------------------------------------------------ 1. attention ignores order

def self_attention(x, w_q, w_k, w_v):
    # [n_seq, d_model], 3 × [d_model, d_k] -> weights [n_seq, n_seq], out [n_seq, d_k]
    """One bidirectional head with no positional signal."""
    n_seq = x.shape[0]
    _, weights, out = attention(x @ w_q, x @ w_k, x @ w_v, bidirectional_mask(n_seq))
    return weights, out


@functools.lru_cache(maxsize=1)
def toy_attention(n_seq, d_model, seed):
    # -> x [n_seq, d_model], W_Q, W_K, W_V [d_model, d_model]
    """Toy embeddings and one head's projections, from a fixed seed (NumPy's
    legacy RandomState: the same stream in every NumPy version)."""
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n_seq, d_model))
    w_q, w_k, w_v = (rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(3))
    return x, w_q, w_k, w_v


def permutation_matrix(order):  # n ints -> [n, n], (P @ x)[i] = x[order[i]]
    order = list(order)
    if sorted(order) != list(range(len(order))):
        raise ValueError("el orden %r no es una permutación de 0..%d"
                         % (order, len(order) - 1))
    return np.eye(len(order))[order]


# ---------------------------------------------- 2. sinusoidal positions

def sinusoidal_pe(n_pos, d_model):  # int, int (even) -> [n_pos, d_model]
    """PE[pos, 2i] = sin(pos/10000^(2i/d_model)), PE[pos, 2i+1] = cos(same).

    Each pair (2i, 2i+1) turns at its own frequency; the first pair fastest
    (wavelength 2π), the last slowest (close to 10000·2π).
    """
    if d_model % 2:
        raise ValueError("d_model debe ser par para alternar seno y coseno")
    pos = np.arange(n_pos)[:, None]  # [n_pos, 1]
    freq = pair_frequencies(d_model)[None, :]  # [1, d_model/2]
    pe = np.zeros((n_pos, d_model))
    pe[:, 0::2] = np.sin(pos * freq)
    pe[:, 1::2] = np.cos(pos * freq)
    return pe


def pair_frequencies(d_model):  # -> [d_model/2]: ω_i = 1/10000^(2i/d_model)
    return 1.0 / PE_BASE ** (np.arange(0, d_model, 2) / d_model)


def wavelengths(d_model):  # -> [d_model/2]: 2π/ω_i, from 2π up to < 10000·2π
    return 2 * np.pi / pair_frequencies(d_model)


def shift_matrix(k, d_model):  # int, int -> [d_model, d_model]
    """M_k with PE(pos + k) = M_k @ PE(pos) for every pos.

    From sin(a+b) = sin a cos b + cos a sin b and cos(a+b) = cos a cos b −
    sin a sin b: each (sin, cos) pair is rotated by k·ω_i. M_k depends on k
    only, never on pos, so "k positions further" is one fixed linear map.
    """
    m = np.zeros((d_model, d_model))
    for i, w in enumerate(pair_frequencies(d_model)):
        c, s = np.cos(k * w), np.sin(k * w)
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
    return m


def shift_error(n_pos, d_model, k):  # -> max |M_k PE(pos) − PE(pos + k)|
    pe = sinusoidal_pe(n_pos + k, d_model)
    moved = pe[:n_pos] @ shift_matrix(k, d_model).T
    return float(np.max(np.abs(moved - pe[k:])))


def sine_only_shift_error(n_pos, d_model, k, first=0):
    """Best linear map from sine-only encodings at pos to pos + k, and its error,
    over the positions first … n_pos − 1.

    With sines alone (sin(pos·ω_i) in every coordinate) no fixed matrix can
    shift positions once there are enough of them: the least-squares fit
    still misses. Position 0 fails for a reason of its own: its sine-only
    encoding is the zero vector, which every linear map sends to zero, while
    sin(k·ω_i) is not zero; `first=1` leaves it out.
    """
    pos = np.arange(n_pos + k)[:, None]
    freq = 1.0 / PE_BASE ** (np.arange(d_model) / d_model)
    enc = np.sin(pos * freq[None, :])  # [n_pos + k, d_model]
    src, dst = enc[first:n_pos], enc[first + k:n_pos + k]
    if len(src) == 0:
        return 0.0
    m, _, _, _ = np.linalg.lstsq(src, dst, rcond=None)
    return float(np.max(np.abs(src @ m - dst)))


# ----------------------------------------------------------- 3. residuals

def toy_layer_weights(depth, d, gain, seed=0):  # -> [depth, d, d]
    rng = np.random.RandomState(seed)
    return rng.normal(0.0, gain / np.sqrt(d), size=(depth, d, d))


def gradient_norms(weights, residual, seed=1):
    """‖∂out/∂x₀ᵀ g‖ after each layer, for layers x ↦ tanh(x W) (+ x).

    The gradient reaching the first layer is a product of Jacobians. Plain:
    J_l = W_l diag(1 − tanh²); with the residual: I + J_l, whose identity
    term keeps at least a direct path of size 1 (He et al., 2015).
    """
    depth, d, _ = weights.shape
    x = np.random.RandomState(seed).normal(size=d)
    jac = np.eye(d)
    norms = []
    for w in weights:
        pre = x @ w
        local = w * (1.0 - np.tanh(pre) ** 2)[None, :]  # d(tanh(x W))/dx, [d, d]
        if residual:
            local = np.eye(d) + local
            x = x + np.tanh(pre)
        else:
            x = np.tanh(pre)
        jac = jac @ local
        g = np.ones(d) / np.sqrt(d)  # a unit upstream gradient
        norms.append(float(np.linalg.norm(jac @ g)))
    return norms


# ---------------------------------------------------------- 4. LayerNorm

def layer_norm(x, gamma, beta, eps=LN_EPS):  # [..., d], [d], [d] -> [..., d]
    """(x − μ)/√(σ² + ε)·γ + β over the last axis (Ba et al., 2016).

    σ² is the biased variance (divide by d), as in PyTorch's LayerNorm.
    """
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def norm_growth(depth, d=16, seed=3):
    # -> depth + 1 rows (no norm, post-norm, pre-norm): the input, then each layer
    """Activation norm after each layer: no norm, post-norm and pre-norm.

    Sublayer f(x) = x W with random W. No norm: x + f(x) keeps adding.
    Post-norm (Vaswani et al., 2017): LN(x + f(x)) resets the scale each
    layer. Pre-norm (Xiong et al., 2020): x + f(LN(x)) adds a bounded term.
    """
    rng = np.random.RandomState(seed)
    # The input first, then the layers in order: layer l's numbers never
    # depend on how many layers come after it.
    x0 = rng.normal(size=d)
    weights = rng.normal(0.0, 1.0 / np.sqrt(d), size=(depth, d, d))
    ones, zeros = np.ones(d), np.zeros(d)
    plain, post, pre = x0.copy(), x0.copy(), x0.copy()
    rows = [(float(np.linalg.norm(x0)),) * 3]  # the input, before any layer
    for w in weights:
        plain = plain + plain @ w
        post = layer_norm(post + post @ w, ones, zeros)
        pre = pre + layer_norm(pre, ones, zeros) @ w
        rows.append((float(np.linalg.norm(plain)), float(np.linalg.norm(post)),
                     float(np.linalg.norm(pre))))
    return rows


def _layer_norm_backward(x, grad_out, eps=LN_EPS):
    # x [n, d], ∂L/∂LN(x) [n, d] (γ = 1, β = 0) -> ∂L/∂x [n, d]
    """Backward through (x − μ)/√(σ² + ε), row by row:
    ∂L/∂x = (g − mean(g) − x̂·mean(g·x̂)) / √(σ² + ε), with x̂ the output."""
    std = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    x_hat = (x - x.mean(axis=-1, keepdims=True)) / std
    return (grad_out - grad_out.mean(axis=-1, keepdims=True)
            - x_hat * (grad_out * x_hat).mean(axis=-1, keepdims=True)) / std


def norm_gradients(depth, d=16, n_seq=8, seed=3):
    # -> (post [depth], pre [depth]): ‖∂L/∂W_l‖ for each layer l, at initialisation
    """How large the gradient of each layer's weights is, at initialisation,
    with post-norm and with pre-norm (the comparison of Xiong et al., 2020).

    The same toy stack as `norm_growth` (sublayer f(x) = x·W_l, W_l drawn
    once), on n_seq tokens. Post-norm: x_l = LN(x_{l−1} + x_{l−1}·W_l).
    Pre-norm: x_l = x_{l−1} + LN(x_{l−1})·W_l, with a final LN as GPT-2
    has. The loss is L = Σ out·G for a fixed random G (a unit upstream
    gradient per token), so ∂L/∂out = G; the backward pass is by hand.
    """
    rng = np.random.RandomState(seed)
    # Inputs and the upstream gradient first, then the layers in order: layer
    # l's weights, and the loss, never depend on how many layers follow.
    x0 = rng.normal(size=(n_seq, d))
    upstream = rng.normal(size=(n_seq, d)) / np.sqrt(d)
    weights = rng.normal(0.0, 1.0 / np.sqrt(d), size=(depth, d, d))
    ones, zeros = np.ones(d), np.zeros(d)

    # Post-norm: keep each sum s_l = x_{l−1} + x_{l−1} W_l for the backward.
    xs, sums = [x0], []
    for w in weights:
        sums.append(xs[-1] + xs[-1] @ w)
        xs.append(layer_norm(sums[-1], ones, zeros))
    post = [0.0] * depth
    grad = upstream  # ∂L/∂x_depth
    for l in reversed(range(depth)):
        grad_sum = _layer_norm_backward(sums[l], grad)  # ∂L/∂s_l
        post[l] = float(np.linalg.norm(xs[l].T @ grad_sum))  # ∂L/∂W_l = x_{l−1}ᵀ ∂L/∂s_l
        grad = grad_sum + grad_sum @ weights[l].T  # ∂L/∂x_{l−1}

    # Pre-norm: keep each input x_{l−1} and its LN for the backward.
    xs = [x0]
    for w in weights:
        xs.append(xs[-1] + layer_norm(xs[-1], ones, zeros) @ w)
    pre = [0.0] * depth
    grad = _layer_norm_backward(xs[-1], upstream)  # through the final LN
    for l in reversed(range(depth)):
        normed = layer_norm(xs[l], ones, zeros)
        pre[l] = float(np.linalg.norm(normed.T @ grad))  # ∂L/∂W_l = LN(x_{l−1})ᵀ ∂L/∂x_l
        grad = grad + _layer_norm_backward(xs[l], grad @ weights[l].T)  # identity + branch
    return post, pre


@functools.lru_cache(maxsize=1)
def last_layer_gradients(max_depth, d=16, n_seq=8, seed=3):
    # -> (post [max_depth], pre [max_depth])
    """‖∂L/∂W‖ of the last layer at initialisation, for stacks of 1 …
    max_depth layers, post-norm and pre-norm: norm_gradients(depth)[k][-1]
    for every depth, in one forward pass. The stacks share their first
    layers (the draws come in the same order), and the last layer's
    gradient needs no backward pass below it: ∂L/∂x_depth is the upstream
    gradient G (post-norm) or G through the final LN (pre-norm)."""
    rng = np.random.RandomState(seed)
    x0 = rng.normal(size=(n_seq, d))
    upstream = rng.normal(size=(n_seq, d)) / np.sqrt(d)
    weights = rng.normal(0.0, 1.0 / np.sqrt(d), size=(max_depth, d, d))
    ones, zeros = np.ones(d), np.zeros(d)
    post, pre = [], []
    x_post = x_pre = x0
    for w in weights:
        s = x_post + x_post @ w  # s_depth; x_depth = LN(s_depth)
        post.append(float(np.linalg.norm(x_post.T @ _layer_norm_backward(s, upstream))))
        normed = layer_norm(x_pre, ones, zeros)  # LN(x_{depth−1})
        x_post, x_pre = layer_norm(s, ones, zeros), x_pre + normed @ w
        pre.append(float(np.linalg.norm(normed.T @ _layer_norm_backward(x_pre, upstream))))
    return post, pre


# ---------------------------------------------------------------- 5. FFN

_erf = np.vectorize(math.erf, otypes=[float])  # NumPy has no erf; math's is exact


def gelu(x):  # [...] -> [...], exact: x·Φ(x) (Hendrycks & Gimpel, 2016)
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def relu(x):  # [...] -> [...]
    return np.maximum(x, 0.0)


def ffn(x, w1, b1, w2, b2, act=gelu):
    # [n_seq, d_model], [d_model, d_ff], [d_ff], [d_ff, d_model], [d_model] -> [n_seq, d_model]
    """Expand to d_ff, apply σ element-wise, compress back; row by row."""
    return act(x @ w1 + b1) @ w2 + b2


@functools.lru_cache(maxsize=1)
def toy_ffn(seed=11):
    # -> x [8, 8], W1 [8, 32], b1 [32], W2 [32, 8], b2 [8]
    """A small FFN (8 -> 32 -> 8) and an 8-position input, from a fixed seed."""
    rng = np.random.RandomState(seed)
    w1, b1 = rng.normal(size=(8, 32)) / np.sqrt(8), rng.normal(size=32) * 0.1
    w2, b2 = rng.normal(size=(32, 8)) / np.sqrt(32), rng.normal(size=8) * 0.1
    return rng.normal(size=(8, 8)), w1, b1, w2, b2


def collapse_without_activation(w1, b1, w2, b2):
    """With σ = identity, (x W1 + b1) W2 + b2 = x A + b: one affine map."""
    return w1 @ w2, b1 @ w2 + b2


# ---------------------------------------------------------- 6. the block

def block_parameter_counts(d_model, d_ff):
    """Closed form for the article's block: valid for any size, no arrays.

    Attention: W_Q, W_K, W_V, W_O, each d_model², no biases.
    FFN: W1 and W2 (d_model·d_ff each) plus biases b1 (d_ff) and b2 (d_model).
    LayerNorm: two of them, each with γ and β (d_model each).
    """
    attn = 4 * d_model * d_model
    ffn_params = 2 * d_model * d_ff + d_ff + d_model
    ln = 2 * 2 * d_model
    return {"attention": attn, "ffn": ffn_params, "layernorm": ln,
            "total": attn + ffn_params + ln}


def init_block(d_model, n_head, d_ff, seed=0):
    """Weights for one block, as a dict of arrays (the block's state is a value)."""
    if d_model % n_head:
        raise ValueError("d_model=%d no es divisible entre %d cabezas" % (d_model, n_head))
    rng = np.random.RandomState(seed)

    def dense(n_in, n_out):
        return rng.uniform(-1, 1, size=(n_in, n_out)) / np.sqrt(n_in)

    return {
        "n_head": n_head,
        "ln1_g": 1.0 + 0.1 * rng.normal(size=d_model), "ln1_b": 0.1 * rng.normal(size=d_model),
        "w_q": dense(d_model, d_model), "w_k": dense(d_model, d_model),
        "w_v": dense(d_model, d_model), "w_o": dense(d_model, d_model),
        "ln2_g": 1.0 + 0.1 * rng.normal(size=d_model), "ln2_b": 0.1 * rng.normal(size=d_model),
        "w1": dense(d_model, d_ff), "b1": 0.1 * rng.normal(size=d_ff),
        "w2": dense(d_ff, d_model), "b2": 0.1 * rng.normal(size=d_model),
    }


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_head, mask=None):
    # [n_seq, d_model], 4 × [d_model, d_model] -> [n_seq, d_model]
    """Split into n_head heads of d_k = d_model/n_head, attend, concat, W_O.

    Heads stay separate in a loop: head h uses columns h·d_k … (h+1)·d_k of
    each projection, exactly what the article's .view(B, T, heads, d_k) does.
    """
    n_seq, d_model = x.shape
    d_k = d_model // n_head
    if mask is None:
        mask = bidirectional_mask(n_seq)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    heads = []
    for h in range(n_head):
        cols = slice(h * d_k, (h + 1) * d_k)
        heads.append(attention(q[:, cols], k[:, cols], v[:, cols], mask)[2])
    return np.concatenate(heads, axis=1) @ w_o


def transformer_block(x, p, mask=None):  # [n_seq, d_model], params -> [n_seq, d_model]
    """Pre-norm block: x + MHA(LN1(x)), then x + FFN(LN2(x)) with GELU."""
    x = x + multi_head_attention(layer_norm(x, p["ln1_g"], p["ln1_b"]),
                                 p["w_q"], p["w_k"], p["w_v"], p["w_o"], p["n_head"], mask)
    return x + ffn(layer_norm(x, p["ln2_g"], p["ln2_b"]), p["w1"], p["b1"], p["w2"], p["b2"])


@functools.lru_cache(maxsize=4)
def shape_check(d_model, n_head, d_ff, batch, n_seq, seed=5):
    # -> (input shape, output shape, all finite)
    """Run the block on a (batch, n_seq, d_model) input, as the article's
    code does; cached per size (the 512/8/2048 block is a third of a second)."""
    params = init_block(d_model, n_head, d_ff)
    x = np.random.RandomState(seed).normal(size=(batch, n_seq, d_model))
    out = np.stack([transformer_block(seq, params) for seq in x])
    return x.shape, out.shape, bool(np.all(np.isfinite(out)))
