"""Train it yourself: one attention head learns the sense of «banco», by hand.

The model is the smallest one that can show the first article's thesis:

    x = one-hot(words)                         [n_seq, d_model]
    q, k, v = x·W_Q, x·W_K, x·W_V              [n_seq, 2] each (d_k = d_v = 2)
    weights = softmax(mask(q·kᵀ / √d_k))       only banco's row (position 1) is read
    out = weights[banco] · V                   [2]
    logits = out·W_R + b_R                     [2]: one per sense (asiento, entidad)
    loss = cross-entropy, mean over the corpus

It is trained by full-batch gradient descent with a backward pass written out
by hand (`backward`), twice from the same initial weights: once with the
causal mask, once bidirectional. Under the causal mask banco sees only
(El, banco), the same two words in every sentence, so its output, and hence
its prediction, is the same for every sentence: the run cannot do better
than chance, whatever it learns. Bidirectional attention lets banco read the
deciding word («parque», «crédito»…) and the run learns.

Only banco's row of the attention matrix reaches the loss, so training
computes just that row, for every sentence at once (`banco_forward`, padded
to the longest sentence, padding hidden by the mask). `forward` computes the
full matrix of one sentence with `lab_core.attention`, for the page; the
tests check that both agree.

The two runs train side by side: `banco_forward` and `backward` accept
weights with a leading runs axis (shapes below read [..., n_sent, d_k]: the
«...» is that axis, or nothing for one run), and every sum runs over the
sentence axes of each run only, so a run never sees the other. One step of
both runs is one pass of NumPy calls on arrays twice as long: in the
browser, where each NumPy call has a fixed cost, that halves the time.

The trajectory
--------------
`train(lr, seed, steps, mask_kind)` returns a plain dict (arrays indexed by
step 0..steps, step 0 being the initial weights):

    mask_kind, lr, seed, steps        the arguments
    stopped_at                        None if every step stayed finite; else
                                      the last finite step (see below)
    loss, test_loss                   [steps + 1]: mean cross-entropy
    train_accuracy, test_accuracy     [steps + 1]: share in 0..1 (see `accuracy`)
    train_probs, test_probs           [steps + 1, n_sent, 2]: p(asiento), p(entidad)
    params                            {"w_q", "w_k", "w_v": [steps + 1, d_model, 2],
                                       "w_r": [steps + 1, 2, 2], "b_r": [steps + 1, 2]}

Entry t holds the weights *before* update t and the loss and accuracies they
give. `params_at(trajectory, t)` rebuilds step t's weights for `forward`,
`banco_weights` and `learned_vectors`.

Divergence: with a learning rate that is too large the weights blow up
until a number overflows. The run stops at the last step whose weights,
losses and probabilities are all finite, records it in `stopped_at`, and
every later entry repeats that step's values, so the arrays keep their
length and hold no NaN or infinity.
"""
from __future__ import annotations

import math
import numbers
from collections import namedtuple

import numpy as np

from .attention import apply_mask, attention, make_mask, softmax
from .didactic_train import (
    BANCO_POSITION, DECIDING_WORDS, DEFAULT_LR, DEFAULT_SEED, INIT_SCALE, MAX_SEED,
    MAX_STEPS, SENSES, TEST_SENTENCES, TRAIN_SENTENCES, TRAIN_VOCABULARY,
)

D_MODEL = len(TRAIN_VOCABULARY)  # one-hot embeddings: one coordinate per word
D_K = D_V = 2                    # as in the lab's hand-made heads
N_SENSES = len(SENSES)
PARAM_NAMES = ("w_q", "w_k", "w_v", "w_r", "b_r")
# What one step of a run leaves: its weights, both losses, and p(sense) per sentence.
Record = namedtuple("Record", "params loss test_loss probs")


# ------------------------------------------------------------------ the model

def one_hot(tokens):  # n_seq words -> [n_seq, d_model]
    """One-hot embedding over TRAIN_VOCABULARY; fixed, never trained."""
    x = np.zeros((len(tokens), D_MODEL))
    for i, word in enumerate(tokens):
        if word not in TRAIN_VOCABULARY:
            raise ValueError("la palabra %r no está en el vocabulario del corpus" % (word,))
        x[i, TRAIN_VOCABULARY.index(word)] = 1.0
    return x


def init_params(seed):
    # int -> w_q, w_k, w_v [d_model, d_k], w_r [d_v, n_senses], b_r [n_senses]
    """Small random weights from RandomState(seed), the same on every NumPy.

    Small (normal · 0.1) so that attention starts nearly uniform and the
    read-out nearly silent: the reader sees the head *start* to attend.
    The bias starts at 0: no sense is favoured before any data.
    """
    rng = np.random.RandomState(seed)
    return {
        "w_q": rng.normal(size=(D_MODEL, D_K)) * INIT_SCALE,
        "w_k": rng.normal(size=(D_MODEL, D_K)) * INIT_SCALE,
        "w_v": rng.normal(size=(D_MODEL, D_V)) * INIT_SCALE,
        "w_r": rng.normal(size=(D_V, N_SENSES)) * INIT_SCALE,
        "b_r": np.zeros(N_SENSES),
    }


def readout(out, w_r, b_r):  # [..., d_v], [d_v, n_senses], [n_senses] -> [..., n_senses]
    """A linear read-out: one logit per sense of banco."""
    return out @ w_r + b_r


def log_softmax(logits):  # [..., n] -> [..., n]
    """ln softmax, stable: never takes the log of an underflowed 0."""
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def forward(params, tokens, mask_kind):
    # one sentence -> x [n_seq, d_model], q, k [n_seq, d_k], v [n_seq, d_v],
    #   mask, scores, weights [n_seq, n_seq], out [d_v] (banco's), logits, probs [n_senses]
    """Everything the head computes for one sentence, the full matrix included."""
    if len(tokens) < 2 or tokens[BANCO_POSITION] != "banco":
        raise ValueError("la frase debe empezar «El banco …»: banco va en la posición 1")
    x = one_hot(tokens)
    q, k, v = x @ params["w_q"], x @ params["w_k"], x @ params["w_v"]
    mask = make_mask(mask_kind, len(tokens))
    scores, weights, outs = attention(q, k, v, mask)
    out = outs[BANCO_POSITION]
    logits = readout(out, params["w_r"], params["b_r"])
    return {
        "tokens": tuple(tokens), "x": x, "q": q, "k": k, "v": v, "mask": mask,
        "scores": scores, "weights": weights, "out": out,
        "logits": logits, "probs": softmax(logits),
    }


def banco_weights(params, tokens, mask_kind):  # one sentence -> [n_seq]
    """Banco's attention row: how much it reads each word of the sentence."""
    return forward(params, tokens, mask_kind)["weights"][BANCO_POSITION]


def learned_vectors(params):
    # -> q_banco [d_k], k {word: [d_k]}, score {word: float}
    """q(banco) and the keys of the deciding words, as the head learned them.

    The article built q(banco) = (1, 0) and k(parque) = (2, 0) by hand, a
    score of 2/√2 ≈ 1,41. A trained head is free to use any directions (only
    the dot products matter), so `score` gives q(banco)·k/√d_k per word, the
    number to compare with 1,41.
    """
    q_banco = params["w_q"][TRAIN_VOCABULARY.index("banco")]
    keys, scores = {}, {}
    for sense in SENSES:
        for word in DECIDING_WORDS[sense]:
            keys[word] = params["w_k"][TRAIN_VOCABULARY.index(word)]
            scores[word] = float(q_banco @ keys[word] / math.sqrt(D_K))
    return {"q_banco": q_banco, "k": keys, "score": scores}


# ------------------------------------------------------------- the whole corpus

def encode_corpus(sentences):
    # (words, sense) pairs -> x [n_sent, n_max, d_model], real [n_sent, n_max] bool,
    #   labels [n_sent] int
    """Pad every sentence to the longest one, with all-zero embeddings.

    A padding slot has x = 0, so its q, k and v are 0 and it gets no
    gradient; `real` marks the true tokens so the mask can hide the padding.
    """
    n_max = max(len(tokens) for tokens, _ in sentences)
    x = np.zeros((len(sentences), n_max, D_MODEL))
    real = np.zeros((len(sentences), n_max), dtype=bool)
    labels = np.zeros(len(sentences), dtype=int)
    for b, (tokens, sense) in enumerate(sentences):
        if sense not in SENSES:
            raise ValueError("el sentido %r no existe; usa %s" % (sense, " o ".join(SENSES)))
        if len(tokens) < 2 or tokens[BANCO_POSITION] != "banco":
            raise ValueError("la frase %r no empieza «El banco …»" % (" ".join(tokens),))
        x[b, :len(tokens)] = one_hot(tokens)
        real[b, :len(tokens)] = True
        labels[b] = SENSES.index(sense)
    return {"x": x, "real": real, "labels": labels}


def _visible(batch, mask_kind):  # -> [n_sent, n_max] bool, or [n_runs, ...] for a tuple
    """The mask's banco row, and padding hidden: −∞ before softmax, weight 0.
    A tuple of masks gives one row per run. Made once per batch and mask
    (training reads it a thousand times)."""
    key = ("visible", mask_kind)
    if key not in batch:
        if isinstance(mask_kind, tuple):
            batch[key] = np.stack([_visible(batch, kind) for kind in mask_kind])
        else:
            batch[key] = make_mask(mask_kind, batch["x"].shape[1])[BANCO_POSITION] & batch["real"]
    return batch[key]


def banco_forward(params, batch, mask_kind):
    # x [n_sent, n_max, d_model], weights [..., d_model, d_k] ->
    #   q [..., n_sent, d_k], k [..., n_sent, n_max, d_k], v [..., n_sent, n_max, d_v],
    #   visible, scores, weights [..., n_sent, n_max], out [..., n_sent, d_v],
    #   logits, log_probs, probs [..., n_sent, n_senses], loss (float, or [n_runs])
    """Banco's row of attention for every sentence at once, and the loss.
    With a runs axis on the weights, `mask_kind` is a tuple: one per run."""
    x, labels = batch["x"], batch["labels"]
    n_sent, n_max, _ = x.shape
    runs = params["w_q"].shape[:-2]                             # () or (n_runs,)
    x_flat = x.reshape(n_sent * n_max, D_MODEL)                 # [n_sent·n_max, d_model]
    q = x[:, BANCO_POSITION] @ params["w_q"]                    # [..., n_sent, d_k]
    k = (x_flat @ params["w_k"]).reshape(runs + (n_sent, n_max, D_K))  # [..., n_sent, n_max, d_k]
    v = (x_flat @ params["w_v"]).reshape(runs + (n_sent, n_max, D_V))  # [..., n_sent, n_max, d_v]
    # q·k_j/√d_k for every key j: the √d_k keeps the spread near 1 (Vaswani
    # et al., 2017, §3.2.1).
    scores = np.sum(q[..., None, :] * k, axis=-1) / math.sqrt(D_K)  # [..., n_sent, n_max]
    visible = _visible(batch, mask_kind)
    weights = softmax(apply_mask(scores, visible))              # [..., n_sent, n_max]
    out = np.sum(weights[..., None] * v, axis=-2)               # Σ_j weights_j·v_j: [..., n_sent, d_v]
    logits = readout(out, params["w_r"], params["b_r"][..., None, :])  # [..., n_sent, n_senses]
    log_probs = log_softmax(logits)
    # 0.0 − mean, not −mean: a perfect fit reads 0, never −0.
    loss = 0.0 - np.mean(log_probs[..., np.arange(n_sent), labels], axis=-1)
    loss = float(loss) if not runs else loss
    return {
        "q": q, "k": k, "v": v, "visible": visible, "scores": scores,
        "weights": weights, "out": out, "logits": logits,
        "log_probs": log_probs, "probs": softmax(logits), "loss": loss,
    }


def _t(a):  # [..., m, n] -> [..., n, m]: each run's matrix transposed
    return np.swapaxes(a, -1, -2)


def backward(params, batch, f):  # params, batch, banco_forward(...) -> grads like params
    """∂loss/∂(every weight), by the chain rule, one line per step of forward.

    g_name is ∂loss/∂name. Read it bottom-up against `banco_forward`.
    """
    x, labels = batch["x"], batch["labels"]
    n_sent, n_max, _ = x.shape
    runs = params["w_q"].shape[:-2]                             # () or (n_runs,)
    q, k, v, weights = f["q"], f["k"], f["v"], f["weights"]

    # Softmax + cross-entropy together: ∂(−ln p_y)/∂logits = p − onehot(y);
    # the mean over the corpus divides by n_sent.
    target = np.zeros((n_sent, N_SENSES))
    target[np.arange(n_sent), labels] = 1.0
    g_logits = (f["probs"] - target) / n_sent                   # [..., n_sent, n_senses]

    # logits = out·W_R + b_R
    g_w_r = _t(f["out"]) @ g_logits                              # [d_v, n_sent]·[n_sent, n_senses] -> [d_v, n_senses]
    g_b_r = np.sum(g_logits, axis=-2)                           # [n_senses]: b_R is added to every sentence
    g_out = g_logits @ _t(params["w_r"])                         # [n_sent, n_senses]·[n_senses, d_v] -> [n_sent, d_v]

    # out = Σ_j weights_j·v_j: each weight meets its value, each value its weight.
    g_weights = np.sum(g_out[..., None, :] * v, axis=-1)        # g_out·v_j: [..., n_sent, n_max]
    g_v = weights[..., None] * g_out[..., None, :]              # weights_j·g_out: [..., n_sent, n_max, d_v]

    # Softmax Jacobian: ∂weights_i/∂scores_j = weights_i·(δ_ij − weights_j), so
    # g_scores_j = weights_j·(g_weights_j − Σ_i weights_i·g_weights_i).
    # The mask: a blocked key has weights_j = 0 exactly, so g_scores_j = 0
    # exactly; the −∞ it was given carries no gradient, and its k gets none.
    g_scores = weights * (g_weights - np.sum(weights * g_weights, axis=-1, keepdims=True))

    # scores_j = q·k_j/√d_k: the same 1/√d_k scales both gradients.
    g_q = np.sum(g_scores[..., None] * k, axis=-2) / math.sqrt(D_K)      # Σ_j g_scores_j·k_j: [..., n_sent, d_k]
    g_k = g_scores[..., None] * q[..., None, :] / math.sqrt(D_K)         # g_scores_j·q: [..., n_sent, n_max, d_k]

    # q = x_banco·W_Q, k = x·W_K, v = x·W_V, so ∂loss/∂W = xᵀ·∂loss/∂(x·W),
    # summed over sentences and positions. With one-hot x, each word's row of
    # W collects the gradients of the slots where that word appears.
    x_flat = x.reshape(n_sent * n_max, D_MODEL)                 # [n_sent·n_max, d_model]
    g_w_q = x[:, BANCO_POSITION].T @ g_q                        # [d_model, n_sent]·[n_sent, d_k] -> [d_model, d_k]
    g_w_k = x_flat.T @ g_k.reshape(runs + (n_sent * n_max, D_K))  # [d_model, n_sent·n_max]·[n_sent·n_max, d_k]
    g_w_v = x_flat.T @ g_v.reshape(runs + (n_sent * n_max, D_V))  # [d_model, n_sent·n_max]·[n_sent·n_max, d_v]
    return {"w_q": g_w_q, "w_k": g_w_k, "w_v": g_w_v, "w_r": g_w_r, "b_r": g_b_r}


def loss_and_grads(params, corpus, mask_kind):
    # params, (words, sense) pairs or encode_corpus(...) -> loss (float), grads like params
    """The mean cross-entropy over the corpus and its gradient, written by hand."""
    batch = corpus if isinstance(corpus, dict) else encode_corpus(corpus)
    f = banco_forward(params, batch, mask_kind)
    return f["loss"], backward(params, batch, f)


def accuracy(probs, labels):  # [n_sent, n_senses], [n_sent] -> float in 0..1
    """Share of sentences whose most probable sense is the right one.

    The prediction is np.argmax, which returns the first of equal values: on
    an exact 50/50 tie the prediction is «asiento» (SENSES[0]). Either way,
    when every sentence gets the same probabilities (the causal run) every
    sentence gets the same prediction, right for one sense and wrong for the
    other: exactly 50 % on a balanced corpus.
    """
    return float(np.mean(np.argmax(probs, axis=-1) == labels))


# ------------------------------------------------------------------ training

def _is_real_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_integer(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_training_args(lr, seed, steps):
    """Raise ValueError, in Spanish, unless lr > 0 is finite and seed, steps are in range."""
    if not _is_real_number(lr) or not math.isfinite(lr) or lr <= 0:
        raise ValueError("la tasa de aprendizaje debe ser un número finito mayor "
                         "que 0; llegó %r" % (lr,))
    if not _is_integer(seed) or not 0 <= seed <= MAX_SEED:
        raise ValueError("la semilla debe ser un entero de 0 a %d; llegó %r"
                         % (MAX_SEED, seed))
    if not _is_integer(steps) or not 0 <= steps <= MAX_STEPS:
        raise ValueError("los pasos deben ser un entero de 0 a %d; llegó %r"
                         % (MAX_STEPS, steps))


def _all_finite(*arrays):
    return all(np.isfinite(a).all() for a in arrays)


def _finite_runs(arrays, n_runs):
    # [n_runs, ...] arrays -> [n_runs] bool: every element of that run finite
    """One sum per run over all its elements: a finite sum proves them all
    finite (∞ or NaN anywhere makes it ∞ or NaN). Only a run whose sum is
    not finite (one of them, or an overflowing sum) is looked at element by
    element. A few NumPy calls per step, not a few per array and run."""
    total = np.concatenate([a.reshape(n_runs, -1) for a in arrays], axis=1).sum(axis=1)
    return [bool(ok) or _all_finite(*(a[r] for a in arrays))
            for r, ok in enumerate(np.isfinite(total))]


def train(lr=DEFAULT_LR, seed=DEFAULT_SEED, steps=MAX_STEPS, mask_kind="bidirectional"):
    # -> trajectory dict (see the module docstring)
    """Full-batch gradient descent: params ← params − lr·grads, `steps` times."""
    return _train_runs(lr, seed, steps, (mask_kind,))[mask_kind]


def train_both(lr=DEFAULT_LR, seed=DEFAULT_SEED, steps=MAX_STEPS):
    # -> {"causal": trajectory, "bidirectional": trajectory}
    """The same head, the same initial weights (init_params(seed)), two masks,
    trained side by side (see the module docstring)."""
    return _train_runs(lr, seed, steps, ("causal", "bidirectional"))


def _train_runs(lr, seed, steps, mask_kinds):
    # -> {mask_kind: trajectory}
    """One run per mask, all from init_params(seed), stepped together.

    The test sentences ride along in the same forward pass as the training
    ones (every row is computed on its own, and no gradient flows from
    them): only the first n_train rows reach `backward`. A run that stops
    (see «Divergence» in the module docstring) keeps being computed with
    the others, but its record is frozen: nothing of it reaches the rest.
    """
    check_training_args(lr, seed, steps)
    for kind in mask_kinds:
        make_mask(kind, 1)  # an unknown mask fails here, before any work
    n_runs, n_train = len(mask_kinds), len(TRAIN_SENTENCES)
    batch = encode_corpus(list(TRAIN_SENTENCES) + list(TEST_SENTENCES))
    labels = batch["labels"]
    train_batch = {"x": batch["x"][:n_train], "labels": labels[:n_train],
                   ("visible", mask_kinds): _visible(batch, mask_kinds)[:, :n_train]}
    rows = np.arange(len(labels))
    start = init_params(seed)
    params = {name: np.stack([start[name]] * n_runs) for name in PARAM_NAMES}  # [n_runs, ...]
    records = [[] for _ in mask_kinds]
    stopped_at = [None] * n_runs
    running = list(range(n_runs))
    # A diverging run overflows on purpose; it is caught by the checks below.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        for step in range(steps + 1):
            f = banco_forward(params, batch, mask_kinds)
            # 0.0 − mean, not −mean: a perfect fit reads 0, never −0.
            picked = f["log_probs"][:, rows, labels]                # [n_runs, n_sent]
            probs_ok = _finite_runs([f["probs"]], n_runs)
            for r in list(running):
                loss = 0.0 - float(np.mean(picked[r, :n_train]))
                test_loss = 0.0 - float(np.mean(picked[r, n_train:]))
                if not (math.isfinite(loss) and math.isfinite(test_loss) and probs_ok[r]):
                    # Step 0 (small initial weights) is always finite.
                    stopped_at[r] = step - 1
                    running.remove(r)
                    continue
                records[r].append(Record({name: params[name][r] for name in PARAM_NAMES},
                                         loss, test_loss, f["probs"][r]))
            if step == steps or not running:
                break
            grads = backward(params, train_batch, {name: f[name][:, :n_train] for name in (
                "q", "k", "v", "weights", "out", "probs")})
            params = {name: params[name] - lr * grads[name] for name in PARAM_NAMES}
            params_ok = _finite_runs([params[name] for name in PARAM_NAMES], n_runs)
            for r in list(running):
                if not params_ok[r]:
                    stopped_at[r] = step
                    running.remove(r)
            if not running:
                break
    return {kind: _trajectory(kind, lr, seed, steps, stopped_at[r], records[r], labels, n_train)
            for r, kind in enumerate(mask_kinds)}


def _trajectory(mask_kind, lr, seed, steps, stopped_at, records, labels, n_train):
    # After a stop, later steps repeat the last finite one.
    records = records + [records[-1]] * (steps + 1 - len(records))
    probs = np.array([r.probs for r in records])                # [steps + 1, n_sent, n_senses]
    right = np.argmax(probs, axis=-1) == labels                 # [steps + 1, n_sent]
    return {
        "mask_kind": mask_kind, "lr": float(lr), "seed": int(seed), "steps": int(steps),
        "stopped_at": stopped_at,
        "loss": np.array([r.loss for r in records]),
        "test_loss": np.array([r.test_loss for r in records]),
        "train_accuracy": np.mean(right[:, :n_train], axis=1),
        "test_accuracy": np.mean(right[:, n_train:], axis=1),
        "train_probs": probs[:, :n_train],
        "test_probs": probs[:, n_train:],
        "params": {name: np.array([r.params[name] for r in records]) for name in PARAM_NAMES},
    }


def params_at(trajectory, step):  # trajectory, int -> params of that step
    """Step `step`'s weights, for forward, banco_weights and learned_vectors."""
    if not _is_integer(step) or not 0 <= step <= trajectory["steps"]:
        raise ValueError("el paso debe ser un entero de 0 a %d; llegó %r"
                         % (trajectory["steps"], step))
    return {name: trajectory["params"][name][step] for name in PARAM_NAMES}
