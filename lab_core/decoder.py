"""The capstone: a whole small decoder, forward and backward by hand, trained with Adam.

Two pre-norm blocks exactly as the block lab describes them, then a final
LayerNorm and an unembedding:

    x = E[words] (+ PE[positions] with the sinusoidal encoding)   [B, T, d_model]
    for each block:
        x = x + MHA(LN1(x)) · W_O       two heads; RoPE turns q and k if chosen
        x = x + FFN(LN2(x))             W1, ReLU, W2
    logits = LN_f(x) · W_U + b_U                                  [B, T, vocab]
    loss = mean over predicted words of −ln p(next word)

Position t predicts word t + 1. With the causal mask position t reads words
0 … t only, which is all a generator has when it writes word t + 1. With
the bidirectional mask it also reads word t + 1 itself: training becomes
copying, the loss falls far lower, and at generation time the word it
learned to read is not there yet.

Batches are B sentences padded to T words (padding never read: the mask
closes padded keys, and padded positions carry no loss). Shapes below:
B sentences, T positions, d = d_model, H heads of d_h = d/H, F = d_ff,
V = vocabulary. Row vectors throughout (x @ W), as in the block lab.

Every forward step returns what its backward step needs (a "cache"), and
every backward step is written out: `backward` calls them in reverse. The
tests check the gradients against finite differences and against torch's
autograd, and a few Adam steps against a torch re-run.

The FFN's activation is ReLU, the original Transformer's, rather than the
block lab's GELU: in the browser's NumPy a tanh costs many times a
multiplication per number, and GELU's would be the largest single item of
a training step (docs/performance.md).
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .attention import make_mask
from .block import sinusoidal_pe

Config = namedtuple("Config", "vocab d_model n_head d_ff n_block")
POSITIONS = ("rope", "sinusoidal")
ROPE_BASE = 100.0  # pair i turns by θ_i = 100^(−2i/d_h) per position: 1, 0,32, 0,1, 0,03
LN_EPS = 1e-5
ADAM = {"beta1": 0.9, "beta2": 0.99, "eps": 1e-8}


def param_shapes(cfg):  # -> {name: shape}, in a fixed order (`param_names`)
    d, f, v = cfg.d_model, cfg.d_ff, cfg.vocab
    one = {"ln1_g": (d,), "ln1_b": (d,), "w_q": (d, d), "w_k": (d, d), "w_v": (d, d),
           "w_o": (d, d), "ln2_g": (d,), "ln2_b": (d,), "w1": (d, f), "b1": (f,),
           "w2": (f, d), "b2": (d,)}
    shapes = {"emb": (v, d)}
    for l in range(cfg.n_block):
        shapes.update(("b%d.%s" % (l, n), s) for n, s in one.items())
    shapes.update(lnf_g=(d,), lnf_b=(d,), w_u=(d, v), b_u=(v,))
    return shapes


def param_names(cfg):
    return tuple(param_shapes(cfg))


def count_params(cfg):
    return sum(int(np.prod(s)) for s in param_shapes(cfg).values())


def init_params(cfg, seed):  # -> {name: array}, from RandomState(seed)
    """Weights drawn in `param_names` order, so the same seed gives the same
    model on every NumPy. Projections ~ N(0, 1/fan_in); the two matrices
    that write into the residual stream (W_O, W2) are scaled down by
    1/√(2·n_block), as GPT-2 does, so that the stream starts near its input;
    LayerNorm gains 1, biases 0."""
    rng = np.random.RandomState(seed)
    shrink = 1.0 / math.sqrt(2 * cfg.n_block)
    params = {}
    for name, shape in param_shapes(cfg).items():
        short = name.split(".")[-1]
        if short.endswith("_g"):
            params[name] = np.ones(shape)
        elif short in ("ln1_b", "ln2_b", "lnf_b", "b1", "b2", "b_u"):
            params[name] = np.zeros(shape)
        elif short == "emb":
            params[name] = rng.normal(size=shape)
        else:
            scale = 1.0 / math.sqrt(shape[0])
            if short in ("w_o", "w2"):
                scale *= shrink
            params[name] = rng.normal(size=shape) * scale
    return params


# ---------------------------------------------------------------- pieces
#
# Every piece works on activations with any leading axes ([..., B, T, d]):
# one run ([B, T, d], weights [d, e]) or several runs stepped together
# ([R, B, T, d], weights expanded to [R, 1, d, e] by `_expand`). Gradients
# sum over B and T only, so each run gets its own.

def _sum_bt(x):  # [..., B, T, n] -> [..., n]: summed over sentences and positions
    return x.reshape(x.shape[:-3] + (-1, x.shape[-1])).sum(axis=-2)


def _outer(a, b):  # [..., B, T, m], [..., B, T, n] -> [..., m, n]: Σ over B, T of aᵀb
    lead = a.shape[:-3]
    return (a.reshape(lead + (-1, a.shape[-1])).swapaxes(-1, -2)
            @ b.reshape(lead + (-1, b.shape[-1])))


def layer_norm(x, g, b):  # [..., d], [d], [d] -> y [..., d], cache
    centred = x - x.mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + LN_EPS)
    x_hat = centred * rstd
    return x_hat * g + b, (x_hat, rstd, g)


def layer_norm_backward(dy, cache):  # ∂L/∂y -> ∂L/∂x, ∂L/∂g, ∂L/∂b
    """dx = (dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂))·rstd, with dx̂ = dy·g."""
    x_hat, rstd, g = cache
    d_hat = dy * g
    dx = (d_hat - d_hat.mean(axis=-1, keepdims=True)
          - x_hat * (d_hat * x_hat).mean(axis=-1, keepdims=True)) * rstd
    return dx, _sum_bt(dy * x_hat), _sum_bt(dy)


def relu(u):  # [...] -> a [...], cache: where u > 0
    on = u > 0
    return u * on, on


def relu_backward(da, on):  # the gradient passes where the unit was on
    return da * on


def rope_tables(n_pos, d_h):  # -> cos, sin [n_pos, d_h/2]
    """Pair i of a head turns by pos·θ_i, θ_i = ROPE_BASE^(−2i/d_h): the
    lab's rotation, one frequency per pair."""
    theta = ROPE_BASE ** (-np.arange(0, d_h, 2) / d_h)
    angle = np.arange(n_pos)[:, None] * theta[None, :]
    return np.cos(angle), np.sin(angle)


def rope(x, cos, sin):  # [..., T, d_h] -> same, each pair (x₀, x₁) turned by its angle
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = x0 * cos - x1 * sin
    out[..., 1::2] = x0 * sin + x1 * cos
    return out


def rope_backward(dy, cos, sin):  # the transpose of a rotation turns back
    return rope(dy, cos, -sin)


def key_mask(lengths, n_pos, mask_kind):  # [B] -> allowed [B, 1, T, T] bool
    """Query i may read key j if j is a word of the sentence (not padding)
    and, under the causal mask, j ≤ i."""
    real = np.arange(n_pos)[None, :] < np.asarray(lengths)[:, None]  # [B, T]
    return real[:, None, None, :] & make_mask(mask_kind, n_pos)  # the lab's masks


def split_heads(x, n_head):  # [..., T, d] -> [..., H, T, d_h]
    return x.reshape(x.shape[:-1] + (n_head, x.shape[-1] // n_head)).swapaxes(-2, -3)


def merge_heads(x):  # [..., H, T, d_h] -> [..., T, d]
    x = x.swapaxes(-2, -3)
    return x.reshape(x.shape[:-2] + (-1,))


def attention(h, p, allowed, n_head, turn):
    # h [..., B, T, d], block params, allowed [..., B, 1, T, T], turn (cos, sin) or None
    # -> out [..., B, T, d], cache
    q, k, v = (split_heads(h @ p[w], n_head) for w in ("w_q", "w_k", "w_v"))  # [..., H, T, d_h]
    if turn is not None:
        q, k = rope(q, *turn), rope(k, *turn)
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1])  # [..., H, T, T]
    scores = np.where(allowed, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    mixed = merge_heads(weights @ v)  # [..., B, T, d]
    return mixed @ p["w_o"], (h, q, k, v, weights, mixed, turn)


def attention_backward(dout, p, cache, n_head):  # -> ∂L/∂h, {w_q, w_k, w_v, w_o}
    h, q, k, v, weights, mixed, turn = cache
    grads = {"w_o": _outer(mixed, dout)}
    dmixed = split_heads(dout @ p["w_o"].swapaxes(-1, -2), n_head)  # [..., H, T, d_h]
    dweights = dmixed @ v.swapaxes(-1, -2)  # [..., H, T, T]
    dv = weights.swapaxes(-1, -2) @ dmixed
    # softmax: dS = A·(dA − Σ_j dA·A); blocked cells have A = 0, so dS = 0 there
    dscores = weights * (dweights - (dweights * weights).sum(axis=-1, keepdims=True))
    dscores = dscores / math.sqrt(q.shape[-1])
    dq = dscores @ k
    dk = dscores.swapaxes(-1, -2) @ q
    if turn is not None:
        dq, dk = rope_backward(dq, *turn), rope_backward(dk, *turn)
    dh = 0.0
    for name, dx in (("w_q", dq), ("w_k", dk), ("w_v", dv)):
        dx = merge_heads(dx)  # [..., B, T, d]
        grads[name] = _outer(h, dx)
        dh = dh + dx @ p[name].swapaxes(-1, -2)
    return dh, grads


def ffn(h, p):  # [..., B, T, d] -> [..., B, T, d], cache
    a, on = relu(h @ p["w1"] + p["b1"])  # [..., B, T, F]
    return a @ p["w2"] + p["b2"], (h, a, on)


def ffn_backward(dout, p, cache):  # -> ∂L/∂h, {w1, b1, w2, b2}
    h, a, on = cache
    grads = {"w2": _outer(a, dout), "b2": _sum_bt(dout)}
    du = relu_backward(dout @ p["w2"].swapaxes(-1, -2), on)  # [..., B, T, F]
    grads["w1"] = _outer(h, du)
    grads["b1"] = _sum_bt(du)
    return du @ p["w1"].swapaxes(-1, -2), grads


def block(x, p, allowed, n_head, turn):  # [..., B, T, d] -> same, cache
    """Pre-norm: x + MHA(LN1(x)), then + FFN(LN2(x))."""
    h1, ln1 = layer_norm(x, p["ln1_g"], p["ln1_b"])
    att, att_cache = attention(h1, p, allowed, n_head, turn)
    x = x + att
    h2, ln2 = layer_norm(x, p["ln2_g"], p["ln2_b"])
    f, ffn_cache = ffn(h2, p)
    return x + f, (ln1, att_cache, ln2, ffn_cache)


def block_backward(dx, p, cache, n_head):  # ∂L/∂out -> ∂L/∂in, grads
    ln1, att_cache, ln2, ffn_cache = cache
    dh2, grads = ffn_backward(dx, p, ffn_cache)
    dres, grads["ln2_g"], grads["ln2_b"] = layer_norm_backward(dh2, ln2)
    dx = dx + dres  # the residual passes dx through unchanged
    dh1, att_grads = attention_backward(dx, p, att_cache, n_head)
    grads.update(att_grads)
    dres, grads["ln1_g"], grads["ln1_b"] = layer_norm_backward(dh1, ln1)
    return dx + dres, grads


def block_params(params, l):  # "b1.w_q" -> "w_q" for block l
    prefix = "b%d." % l
    return {name[len(prefix):]: value for name, value in params.items() if name.startswith(prefix)}


def _expand(value):  # a runs' weight [R, n] or [R, m, n] -> [R, 1, 1, n] or [R, 1, m, n]
    return value[:, None, None, :] if value.ndim == 2 else value[:, None]


# ------------------------------------------------------------ the model
#
# The model functions take the weights of R runs stacked ({name: [R, ...]})
# and one mask per run; `stack` and `unstack` go between one run and R = 1.
# Several runs stepped together share every NumPy call: in the browser a
# call's fixed cost is most of a small step (docs/performance.md).

def stack(params):  # one run's weights -> R = 1
    return {name: value[None] for name, value in params.items()}


def unstack(params, r=0):  # run r's weights (views, not copies)
    return {name: value[r] for name, value in params.items()}


def hidden(params, cfg, tokens, lengths, masks, positions):
    # runs' weights, tokens [B, T] int, lengths [B], one mask per run -> LN_f(x) [R, B, T, d], cache
    """Everything up to the unembedding: embedding, positions, the blocks,
    the final LayerNorm."""
    if positions not in POSITIONS:
        raise ValueError("las posiciones «%s» no existen; usa «rope» o «sinusoidal»" % (positions,))
    tokens = np.asarray(tokens)
    n_pos = tokens.shape[1]
    x = params["emb"][:, tokens]  # [R, B, T, d]
    turn = None
    if positions == "sinusoidal":
        x = x + sinusoidal_pe(n_pos, cfg.d_model)
    else:
        turn = rope_tables(n_pos, cfg.d_model // cfg.n_head)
    allowed = np.stack([key_mask(lengths, n_pos, mask) for mask in masks])  # [R, B, 1, T, T]
    caches = []
    for l in range(cfg.n_block):
        p = {name: _expand(value) for name, value in block_params(params, l).items()}
        x, c = block(x, p, allowed, cfg.n_head, turn)
        caches.append(c)
    h, lnf = layer_norm(x, _expand(params["lnf_g"]), _expand(params["lnf_b"]))
    return h, (tokens, lnf, caches)


def forward(params, cfg, tokens, lengths, mask_kind, positions):
    # one run: tokens [B, T] int, lengths [B] -> logits [B, T, V], cache (with R = 1)
    h, cache = hidden(stack(params), cfg, tokens, lengths, (mask_kind,), positions)
    return h[0] @ params["w_u"] + params["b_u"], cache


def target_weights(lengths, n_pos):  # -> [B, T]: 1 where position t predicts a word
    """Position t predicts word t + 1: the last word of each sentence and the
    padding predict nothing."""
    return (np.arange(n_pos)[None, :] < np.asarray(lengths)[:, None] - 1).astype(float)


def _predicting(batch):  # -> (rows, cols) of the positions that predict, their targets [N]
    rows, cols = np.nonzero(target_weights(batch.lengths, batch.tokens.shape[1]))
    return rows, cols, batch.tokens[rows, cols + 1]


def _loss(params, h, batch):  # -> mean loss per run [R], (rows, cols, h rows [R, N, d], ∂L/∂logits [R, N, V])
    """Cross-entropy over the predicting positions only: the unembedding and
    its softmax are computed for those N rows, never for padding or for the
    last word (a third of the cells, and the costliest per cell)."""
    rows, cols, targets = _predicting(batch)
    h_rows = h[:, rows, cols]  # [R, N, d]
    logits = h_rows @ params["w_u"] + params["b_u"][:, None, :]  # [R, N, V]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=-1)  # [R, N]
    n = len(targets)
    losses = (np.log(total) - shifted[:, np.arange(n), targets]).sum(axis=-1) / n
    probs = e / total[..., None]
    probs[:, np.arange(n), targets] -= 1.0
    return losses, (rows, cols, h_rows, probs / n)


def backward(params, cfg, cache, loss_cache):  # -> {name: ∂L/∂name [R, ...]}
    tokens, lnf, caches = cache
    rows, cols, h_rows, dlogits = loss_cache  # ∂L/∂logits [R, N, V] of the predicting rows
    grads = {"w_u": h_rows.swapaxes(-1, -2) @ dlogits, "b_u": dlogits.sum(axis=1)}
    dh = np.zeros(lnf[0].shape)  # no loss reaches the other positions
    dh[:, rows, cols] = dlogits @ params["w_u"].swapaxes(-1, -2)
    dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dh, lnf)
    for l in reversed(range(cfg.n_block)):
        p = {name: _expand(value) for name, value in block_params(params, l).items()}
        dx, g = block_backward(dx, p, caches[l], cfg.n_head)
        grads.update(("b%d.%s" % (l, name), value) for name, value in g.items())
    # the embedding: each row gathers the gradient of every place its word
    # stands, as one-hot(words)ᵀ · dx (np.add.at does the same, far slower)
    one_hot = np.eye(cfg.vocab)[tokens.ravel()]  # [B·T, V]
    grads["emb"] = one_hot.T @ dx.reshape(dx.shape[0], -1, cfg.d_model)
    return grads


def losses_and_grads(params, cfg, batch, masks, positions):  # runs' weights -> [R], grads [R, ...]
    """Each run's mean loss and its gradient: the runs never mix (every sum
    is over one run's sentences and positions)."""
    h, cache = hidden(params, cfg, batch.tokens, batch.lengths, masks, positions)
    losses, loss_cache = _loss(params, h, batch)
    return losses, backward(params, cfg, cache, loss_cache)


def mean_losses(params, cfg, batch, masks, positions):  # runs' weights -> [R]
    h, _ = hidden(params, cfg, batch.tokens, batch.lengths, masks, positions)
    return _loss(params, h, batch)[0]


def loss_and_grads(params, cfg, batch, mask_kind, positions):  # one run
    losses, grads = losses_and_grads(stack(params), cfg, batch, (mask_kind,), positions)
    return float(losses[0]), unstack(grads)


def mean_loss(params, cfg, batch, mask_kind, positions):  # one run
    return float(mean_losses(stack(params), cfg, batch, (mask_kind,), positions)[0])


# ------------------------------------------------------------ Adam

def adam_state(params):
    return {"t": 0, "m": {n: np.zeros_like(p) for n, p in params.items()},
            "v": {n: np.zeros_like(p) for n, p in params.items()}}


def adam_step(params, grads, state, lr):  # -> new params, new state (inputs unchanged)
    """Adam (Kingma & Ba, 2015) with bias correction, on every parameter."""
    b1, b2, eps = ADAM["beta1"], ADAM["beta2"], ADAM["eps"]
    t = state["t"] + 1
    m = {n: b1 * state["m"][n] + (1 - b1) * grads[n] for n in params}
    v = {n: b2 * state["v"][n] + (1 - b2) * grads[n] ** 2 for n in params}
    c1, c2 = 1 - b1 ** t, 1 - b2 ** t
    new = {n: params[n] - lr * (m[n] / c1) / (np.sqrt(v[n] / c2) + eps) for n in params}
    return new, {"t": t, "m": m, "v": v}


# ------------------------------------------------------------ batches

Batch = namedtuple("Batch", "tokens lengths")


def encode(sentences, vocabulary):  # word tuples -> Batch, padded with index 0
    index = {w: i for i, w in enumerate(vocabulary)}
    n_pos = max(len(s) for s in sentences)
    tokens = np.zeros((len(sentences), n_pos), dtype=int)
    for i, words in enumerate(sentences):
        tokens[i, :len(words)] = [index[w] for w in words]
    return Batch(tokens, np.array([len(s) for s in sentences]))
