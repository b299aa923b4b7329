"""The capstone's runs: train the decoder, generate with a KV cache, measure the lesson.

Two runs start from the same weights (decoder.init_params(seed)) and see the
same minibatches in the same order; they differ only in the mask. A run is
a plain object that grows step by step (`advance`), so a page can train it
a few steps at a time, pause, and go on.

The lesson, measured (`lesson`): the bidirectional run reaches a far lower
training loss, because each position reads the very word it must predict;
yet asked to continue held-out prompts it mostly fails the grammar's own
check, because when it writes a word the next one does not exist yet.

Heads are named only when their numbers show a pattern (`head_patterns`):
a previous-word head puts most of each word's weight on the word just
before it; a look-back head, at «y» in a copy sentence, puts most of its
weight on the name said earlier, which is the word that must come next.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from . import decoder as D
from . import grammar as G
from .attention import softmax

CONFIG = D.Config(vocab=len(G.VOCABULARY), d_model=16, n_head=2, d_ff=32, n_block=2,
                  max_len=G.MAX_WORDS)
DEFAULT_LR = 0.01
DEFAULT_SEED = 0
DEFAULT_STEPS = 1000
MAX_STEPS = 3000
MAX_SEED = 9999
MAX_LR = 1.0
# Sentences per step. Small batches: a step's cost in the browser is its
# elements (docs/performance.md), and their noise keeps the model from
# memorising its 577 sentences (the held-out loss stays near the bound).
BATCH = 8
HELD_EVERY = 50  # the held-out loss every 50 steps: a forward pass over 143 sentences
MASKS = ("causal", "bidirectional")
# A head is named when its mean weight on the pattern's word reaches this.
PATTERN_SHARE = 0.5

TRAIN_BATCH = D.encode([s.words for s in G.TRAIN], G.VOCABULARY)
HELD_BATCH = D.encode([s.words for s in G.HELD_OUT], G.VOCABULARY)


def _is_integer(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_args(lr, seed, steps):
    """Raise ValueError, in Spanish, unless 0 < lr ≤ MAX_LR and seed, steps are in range."""
    if (not isinstance(lr, numbers.Real) or isinstance(lr, bool) or not math.isfinite(lr)
            or not 0 < lr <= MAX_LR):
        raise ValueError("la tasa de aprendizaje debe ser un número mayor que 0 y como "
                         "mucho %g; llegó %r" % (MAX_LR, lr))
    if not _is_integer(seed) or not 0 <= seed <= MAX_SEED:
        raise ValueError("la semilla debe ser un entero de 0 a %d; llegó %r" % (MAX_SEED, seed))
    if not _is_integer(steps) or not 0 <= steps <= MAX_STEPS:
        raise ValueError("los pasos deben ser un entero de 0 a %d; llegó %r" % (MAX_STEPS, steps))


class Run:
    """One model under training. `losses[t]` is the loss of step t's
    minibatch under the weights before update t (the training curve, one
    point per step); `held` holds (step, held-out loss) at step 0 and every
    HELD_EVERY steps (`held_loss()` gives it at the current step). Both
    depend only on the step reached, never on how it was reached.
    `stopped_at` is None, or the last step whose weights stayed finite."""

    def __init__(self, mask_kind, positions="rope", lr=DEFAULT_LR, seed=DEFAULT_SEED,
                 cfg=CONFIG):
        check_args(lr, seed, 0)
        D.key_mask([1], 1, mask_kind)  # an unknown mask fails here
        if positions not in D.POSITIONS:
            raise ValueError("las posiciones «%s» no existen; usa «rope» o «sinusoidal»"
                             % (positions,))
        self.mask_kind, self.positions, self.lr, self.seed, self.cfg = (
            mask_kind, positions, float(lr), int(seed), cfg)
        self.params = D.init_params(cfg, seed)
        self.adam = D.adam_state(self.params)
        self.batches = np.random.RandomState(seed + 1)  # minibatch order, shared by both masks
        self.step = 0
        self.losses = []
        self.held = []
        self.stopped_at = None
        self._evaluate()

    def _evaluate(self):
        self.held.append((self.step, self.loss(HELD_BATCH)))

    def loss(self, batch):
        return D.mean_loss(self.params, self.cfg, batch, self.mask_kind, self.positions)

    def train_loss(self):
        """The loss over every training sentence at the current step."""
        return self.loss(TRAIN_BATCH)

    def held_loss(self):
        """The loss over every held-out sentence at the current step."""
        if self.held[-1][0] == self.step:
            return self.held[-1][1]
        return self.loss(HELD_BATCH)

    def advance(self, n=1):
        """n Adam steps on minibatches of BATCH training sentences (fewer if
        the run diverges: it stops at the last finite step and says so)."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            for _ in range(n):
                if self.stopped_at is not None or self.step >= MAX_STEPS:
                    break
                rows = self.batches.choice(len(TRAIN_BATCH.lengths), BATCH, replace=False)
                batch = D.Batch(TRAIN_BATCH.tokens[rows], TRAIN_BATCH.lengths[rows])
                loss, grads = D.loss_and_grads(self.params, self.cfg, batch, self.mask_kind,
                                               self.positions)
                params, adam = D.adam_step(self.params, grads, self.adam, self.lr)
                if not (math.isfinite(loss) and all(np.isfinite(p).all() for p in params.values())):
                    self.stopped_at = self.step
                    break
                self.losses.append(loss)
                self.params, self.adam = params, adam
                self.step += 1
                if self.step % HELD_EVERY == 0:
                    self._evaluate()
        return self


def train_both(lr=DEFAULT_LR, seed=DEFAULT_SEED, steps=DEFAULT_STEPS, positions="rope"):
    # -> {mask: Run}
    check_args(lr, seed, steps)
    return {mask: Run(mask, positions, lr, seed).advance(steps) for mask in MASKS}


SNAPSHOT_EVERY = 100  # a run can go back to any step from the snapshot before it
_RUNS = {}  # (lr, seed, positions) -> {mask: Run}, and their snapshots
_KEPT_RUNS = 4  # pairs of runs kept in memory; the oldest goes first


def _snapshot(run):
    return (run.step, {n: v.copy() for n, v in run.params.items()},
            {"t": run.adam["t"], "m": dict(run.adam["m"]), "v": dict(run.adam["v"])},
            run.batches.get_state(), len(run.losses), len(run.held), run.stopped_at)


def _restore(run, snap):
    step, params, adam, rng, n_losses, n_held, stopped = snap
    run.step, run.params, run.adam, run.stopped_at = step, dict(params), dict(adam), stopped
    run.batches.set_state(rng)
    del run.losses[n_losses:], run.held[n_held:]


def runs_at(lr, seed, positions, steps):  # -> {mask: Run} at exactly `steps`
    """Both runs of (lr, seed, positions) at step `steps`, as a page asks for
    them one change after another: forward from where they are, or back to
    the last snapshot before `steps` and forward again. Every path gives the
    same weights as one run from step 0 (the minibatch stream is part of
    the snapshot)."""
    check_args(lr, seed, steps)
    key = (float(lr), int(seed), positions)
    if key not in _RUNS:
        while len(_RUNS) >= _KEPT_RUNS:
            del _RUNS[next(iter(_RUNS))]
        _RUNS[key] = ({mask: Run(mask, positions, lr, seed) for mask in MASKS},
                      {mask: {0: None} for mask in MASKS})
    runs, snaps = _RUNS[key]
    for mask, run in runs.items():
        if run.step > steps:
            back = max(s for s in snaps[mask] if s <= steps)
            if back == 0:
                runs[mask] = run = Run(mask, positions, lr, seed)
            else:
                _restore(run, snaps[mask][back])
        while run.step < steps and run.stopped_at is None:
            run.advance(min(steps, (run.step // SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY) - run.step)
            if run.step % SNAPSHOT_EVERY == 0 and run.step not in snaps[mask]:
                snaps[mask][run.step] = _snapshot(run)
    return runs


# ------------------------------------------------------------ generation

def encode_words(words):  # words -> indices; unknown words refused in Spanish
    unknown = [w for w in words if w not in G.VOCABULARY]
    if unknown:
        raise ValueError("el modelo no conoce %s: su vocabulario es el de la gramática"
                         % ", ".join("«%s»" % w for w in dict.fromkeys(unknown)))
    if not words:
        raise ValueError("escribe al menos una palabra")
    if len(words) > G.MAX_WORDS:
        raise ValueError("como mucho %d palabras" % G.MAX_WORDS)
    return [G.VOCABULARY.index(w) for w in words]


def encode_prompt(words):  # a prompt leaves room for at least one new word
    if len(words) >= G.MAX_WORDS:
        raise ValueError("el comienzo debe tener menos de %d palabras" % G.MAX_WORDS)
    return encode_words(words)


def decode_step(params, cfg, caches, token, pos, positions):
    # one word at position pos, the caches of the words before it -> logits [V]
    """The causal model on one new word, reading earlier words from the KV
    cache: each block projects only this word's q, k, v, appends k and v to
    its cache, and attends over the cache. Equal to the full forward's last
    row (the tests check it), at a fraction of the work."""
    x = params["emb"][token][None, :]  # [1, d]
    if positions == "sinusoidal":
        x = x + D.sinusoidal_pe(pos + 1, cfg.d_model)[pos]
    d_h = cfg.d_model // cfg.n_head
    cos, sin = (t[pos:pos + 1] for t in D.rope_tables(pos + 1, d_h))
    for l in range(cfg.n_block):
        p = D.block_params(params, l)
        h, _ = D.layer_norm(x, p["ln1_g"], p["ln1_b"])
        q, k, v = (D.split_heads((h @ p[w])[None], cfg.n_head)[0] for w in ("w_q", "w_k", "w_v"))
        if positions == "rope":  # [H, 1, d_h]
            q, k = D.rope(q, cos, sin), D.rope(k, cos, sin)
        caches[l]["k"] = np.concatenate([caches[l]["k"], k], axis=1)  # [H, t, d_h]
        caches[l]["v"] = np.concatenate([caches[l]["v"], v], axis=1)
        scores = q @ caches[l]["k"].transpose(0, 2, 1) / math.sqrt(d_h)  # [H, 1, t]
        w = np.exp(scores - scores.max(axis=-1, keepdims=True))
        w = w / w.sum(axis=-1, keepdims=True)
        mixed = D.merge_heads((w @ caches[l]["v"])[None])[0]  # [1, d]
        x = x + mixed @ p["w_o"]
        h, _ = D.layer_norm(x, p["ln2_g"], p["ln2_b"])
        x = x + D.ffn(h[None], p)[0][0]
    h, _ = D.layer_norm(x, params["lnf_g"], params["lnf_b"])
    return (h @ params["w_u"] + params["b_u"])[0]


def empty_caches(cfg):
    d_h = cfg.d_model // cfg.n_head
    return [{"k": np.zeros((cfg.n_head, 0, d_h)), "v": np.zeros((cfg.n_head, 0, d_h))}
            for _ in range(cfg.n_block)]


def choose(logits, temperature, rng):  # -> (index, probs [V])
    """Greedy (temperature 0: the most probable word, the first on a tie) or
    a draw from softmax(logits / temperature)."""
    if temperature == 0:
        probs = softmax(logits)
        return int(np.argmax(probs)), probs
    probs = softmax(logits / temperature)
    return int(rng.choice(len(probs), p=probs / probs.sum())), probs


def generate(run, prompt, temperature=0.0, seed=0, max_words=G.MAX_WORDS):
    # -> {"words", "new", "probs", "cache_rows", "kv_saved", "kv_computed", "cached"}
    """Continue `prompt` word by word until «.» or max_words.

    The causal run reads earlier words from its KV cache (`cached` True):
    `cache_rows[i]` is how many positions each block's cache holds after
    new word i, `kv_computed` the key/value rows projected and `kv_saved`
    those a full recompute would have projected again. The bidirectional
    run cannot use a cache (adding a word changes what earlier positions
    read, so their block-2 keys change): it recomputes the whole prefix
    every step, and saves nothing.
    """
    if not (isinstance(temperature, numbers.Real) and math.isfinite(temperature)
            and 0 <= temperature <= 5):
        raise ValueError("la temperatura debe ser un número de 0 a 5; llegó %r" % (temperature,))
    tokens = encode_prompt(list(prompt))
    rng = np.random.RandomState(seed)
    cfg, params = run.cfg, run.params
    kv_rows = 2 * cfg.n_block  # one k row and one v row per block, per word projected
    new, probs, cache_rows = [], [], []
    computed = saved = 0
    cached = run.mask_kind == "causal"
    if cached:
        caches = empty_caches(cfg)
        for pos, token in enumerate(tokens):  # prefill, one word at a time
            logits = decode_step(params, cfg, caches, token, pos, run.positions)
        computed += kv_rows * len(tokens)
    while len(tokens) < max_words and (not new or new[-1] != G.END):
        if not cached:
            logits, _ = D.forward(params, cfg, np.array([tokens]), [len(tokens)],
                                  run.mask_kind, run.positions)
            logits = logits[0, -1]
            computed += kv_rows * len(tokens)
        index, p = choose(logits, temperature, rng)
        new.append(G.VOCABULARY[index])
        probs.append(float(p[index]))
        tokens.append(index)
        if cached and len(tokens) < max_words and new[-1] != G.END:
            logits = decode_step(params, cfg, caches, index, len(tokens) - 1, run.positions)
            computed += kv_rows
            saved += kv_rows * (len(tokens) - 1)
        cache_rows.append(caches[0]["k"].shape[1] if cached else 0)
    return {"words": tuple(prompt) + tuple(new), "new": tuple(new), "probs": probs,
            "cache_rows": cache_rows, "kv_computed": computed, "kv_saved": saved,
            "cached": cached}


END_INDEX = G.VOCABULARY.index(G.END)


def greedy_continuations(run, prompts, max_words=G.MAX_WORDS):
    # word tuples -> word tuples, each prompt continued until «.» or max_words
    """Greedy continuations of many prompts at once: one forward pass over
    all the unfinished ones per new word, each read at its own last word.
    The same words as `generate(run, prompt)` one prompt at a time (the
    mask closes every padded key, so padding changes nothing), for ~12
    passes over the batch instead of one per word of every prompt."""
    tokens = [encode_prompt(list(p)) for p in prompts]
    while True:
        open_ = [i for i, t in enumerate(tokens)
                 if len(t) < max_words and (len(t) == len(prompts[i]) or t[-1] != END_INDEX)]
        if not open_:
            break
        batch = D.encode([tuple(G.VOCABULARY[j] for j in tokens[i]) for i in open_], G.VOCABULARY)
        h, _ = D.hidden(run.params, run.cfg, batch.tokens, batch.lengths, run.mask_kind,
                        run.positions)
        last = h[np.arange(len(open_)), batch.lengths - 1]  # [P, d]: each one's last word
        logits = last @ run.params["w_u"] + run.params["b_u"]
        for i, index in zip(open_, np.argmax(logits, axis=-1)):
            tokens[i].append(int(index))
    return [tuple(G.VOCABULARY[j] for j in t) for t in tokens]


def continuation_share(run, sentences=G.HELD_OUT):
    """Share of the sentences' prompts whose greedy continuation is a
    sentence of the grammar (its own check)."""
    words = greedy_continuations(run, [s.words[:s.prompt] for s in sentences])
    return sum(G.is_sentence(w) for w in words) / len(words)


def lesson(runs):  # {mask: Run} -> the figures the verdict is built from
    return {mask: {"train_loss": run.train_loss(), "held_loss": run.held_loss(),
                   "correct": continuation_share(run), "stopped_at": run.stopped_at}
            for mask, run in runs.items()}


# ------------------------------------------------------------ heads

def attention_weights(run, words):  # -> [n_block, H, T, T]
    """Every head's attention on one sentence, block by block."""
    tokens = np.array([encode_words(list(words))])
    _, cache = D.forward(run.params, run.cfg, tokens, [tokens.shape[1]], run.mask_kind,
                         run.positions)
    return np.stack([c[1][4][0] for c in cache[2]])


def head_patterns(run, sentences=G.HELD_OUT):
    # -> {(block, head): {"previous": share, "look_back": share, "pattern": name or None}}
    """Mean weight of each head on the word before (every word after the
    first) and, at «y» in copy sentences, on the name said earlier. A head
    is given a pattern's name only when that mean reaches PATTERN_SHARE."""
    prev = np.zeros((run.cfg.n_block, run.cfg.n_head))
    back = np.zeros_like(prev)
    n_prev = n_back = 0
    for s in sentences:
        w = attention_weights(run, s.words)  # [L, H, T, T]
        t = len(s.words)
        prev += w[:, :, np.arange(1, t), np.arange(0, t - 1)].sum(axis=-1)
        n_prev += t - 1
        if s.kind in ("copia", "pide"):
            y = s.words.index("y")
            back += w[:, :, y, s.prompt - 1]
            n_back += 1
    prev, back = prev / n_prev, back / max(n_back, 1)
    out = {}
    for l in range(run.cfg.n_block):
        for h in range(run.cfg.n_head):
            pattern = None
            if back[l, h] >= PATTERN_SHARE and back[l, h] >= prev[l, h]:
                pattern = "look_back"
            elif prev[l, h] >= PATTERN_SHARE:
                pattern = "previous"
            out[(l, h)] = {"previous": float(prev[l, h]), "look_back": float(back[l, h]),
                           "pattern": pattern}
    return out
