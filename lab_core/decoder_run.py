"""The capstone's runs: train the decoder, generate with a KV cache, measure the lesson.

Two runs start from the same weights (decoder.init_params(seed)) and see the
same minibatches in the same order; they differ only in the mask. A run is
a plain object that grows step by step (`advance`), so a page can train it
a few steps at a time, pause, and go on.

The lesson, measured (`lesson`): the bidirectional run reaches a far lower
training loss, because each position reads the very word it must predict;
yet asked to continue prompts it fails the grammar's own check far more
often than the causal run, because when it writes a word the next one does
not exist yet (how often it still succeeds depends on the positions and
the seed: scripts/model_figures.py measures it).

Heads are named only when their numbers show a pattern (`head_patterns`):
a previous-word head puts most of each word's weight on the word just
before it, a next-word head (bidirectional only) on the word just after
it; a look-back head, at «y» in a copy sentence, puts most of its
weight on the companion's name said earlier, which is the word that must
come next (not the subject's name, also earlier).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from . import decoder as D
from . import grammar as G
from .attention import softmax
from .generation import choose

CONFIG = D.Config(vocab=len(G.VOCABULARY), d_model=16, n_head=2, d_ff=32, n_block=2)
DEFAULT_LR = 0.01
DEFAULT_SEED = 0
DEFAULT_STEPS = 1000
MAX_STEPS = 3000
MAX_SEED = 9999
MAX_LR = 1.0
# Sentences per step. Small batches: a step's cost in the browser is its
# elements (docs/performance.md), and their noise keeps the model from
# memorising its training sentences (the held-out loss stays near the bound).
BATCH = 8
HELD_EVERY = 50  # the held-out loss every 50 steps: a forward pass over every held-out sentence
MASKS = ("causal", "bidirectional")
# A head is named when its mean weight on the pattern's word reaches this.
PATTERN_SHARE = 0.5

TRAIN_BATCH = D.encode([s.words for s in G.TRAIN], G.VOCABULARY)
HELD_BATCH = D.encode([s.words for s in G.HELD_OUT], G.VOCABULARY)


def _is_integer(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_seed(seed):
    if not _is_integer(seed) or not 0 <= seed <= MAX_SEED:
        raise ValueError("la semilla debe ser un entero de 0 a %d; llegó %r" % (MAX_SEED, seed))


def check_args(lr, seed, steps):
    """Raise ValueError, in Spanish, unless 0 < lr ≤ MAX_LR and seed, steps are in range."""
    if (not isinstance(lr, numbers.Real) or isinstance(lr, bool) or not math.isfinite(lr)
            or not 0 < lr <= MAX_LR):
        raise ValueError("la tasa de aprendizaje debe ser un número mayor que 0 y como "
                         "mucho %g; llegó %r" % (MAX_LR, lr))
    _check_seed(seed)
    if not _is_integer(steps) or not 0 <= steps <= MAX_STEPS:
        raise ValueError("los pasos deben ser un entero de 0 a %d; llegó %r" % (MAX_STEPS, steps))


class Runs:
    """Runs that differ only in their mask, stepped together: the same
    initial weights (decoder.init_params(seed)), the same minibatches in the
    same order, and one set of NumPy calls for all of them (their weights
    stacked on a leading axis; no sum ever mixes two runs). `runs` maps each
    mask to its `Run`. A run that diverges stops at its last finite step;
    the others go on."""

    def __init__(self, masks, positions="rope", lr=DEFAULT_LR, seed=DEFAULT_SEED, cfg=CONFIG):
        check_args(lr, seed, 0)
        for mask in masks:
            D.key_mask([1], 1, mask)  # an unknown mask fails here
        if positions not in D.POSITIONS:
            raise ValueError("las posiciones «%s» no existen; usa «rope» o «sinusoidal»"
                             % (positions,))
        self.masks, self.positions, self.lr, self.seed, self.cfg = (
            tuple(masks), positions, float(lr), int(seed), cfg)
        start = D.init_params(cfg, seed)
        self.params = {name: np.stack([value] * len(masks)) for name, value in start.items()}
        self.adam = D.adam_state(self.params)
        self.batches = np.random.RandomState(seed + 1)  # the minibatch stream
        self.step = 0
        self.losses = [[] for _ in masks]
        self.held = [[] for _ in masks]
        self.stopped_at = [None] * len(masks)
        self.runs = {mask: Run(self, r) for r, mask in enumerate(masks)}
        self._evaluate()

    def running(self):
        return [r for r, stopped in enumerate(self.stopped_at) if stopped is None]

    def _evaluate(self):
        losses = D.mean_losses(self.params, self.cfg, HELD_BATCH, self.masks, self.positions)
        for r in self.running():
            self.held[r].append((self.step, float(losses[r])))

    def advance(self, n=1):
        """n Adam steps, each on a minibatch of BATCH training sentences."""
        n_runs = len(self.masks)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            for _ in range(max(0, n)):
                running = self.running()
                if not running or self.step >= MAX_STEPS:
                    break
                rows = self.batches.choice(len(TRAIN_BATCH.lengths), BATCH, replace=False)
                batch = D.Batch(TRAIN_BATCH.tokens[rows], TRAIN_BATCH.lengths[rows])
                losses, grads = D.losses_and_grads(self.params, self.cfg, batch, self.masks,
                                                   self.positions)
                params, adam = D.adam_step(self.params, grads, self.adam, self.lr)
                # One sum per run over all its new weights: ∞ or NaN anywhere shows there.
                total = np.concatenate([v.reshape(n_runs, -1) for v in params.values()], axis=1)
                finite = np.isfinite(losses) & np.isfinite(total.sum(axis=1))
                for r in running:
                    if finite[r]:
                        self.losses[r].append(float(losses[r]))
                    else:
                        self.stopped_at[r] = self.step
                for r in range(n_runs):
                    if self.stopped_at[r] is not None:  # it keeps its last finite weights
                        for name in params:
                            params[name][r] = self.params[name][r]
                            adam["m"][name][r] = self.adam["m"][name][r]
                            adam["v"][name][r] = self.adam["v"][name][r]
                self.params, self.adam = params, adam
                if not self.running():
                    break
                self.step += 1
                if self.step % HELD_EVERY == 0:
                    self._evaluate()
        return self


class Run:
    """One mask's run within its `Runs`. `losses[t]` is the loss of step
    t's minibatch under the weights before update t (the training curve, one
    point per step); `held` holds (step, held-out loss) at step 0 and every
    HELD_EVERY steps (`held_loss()` gives it at the current step). Both
    depend only on the step reached, never on how it was reached.
    `stopped_at` is None, or the last step whose weights stayed finite."""

    def __init__(self, group, index):
        self.group, self.index = group, index
        self.mask_kind = group.masks[index]
        self.positions, self.lr, self.seed, self.cfg = group.positions, group.lr, group.seed, group.cfg

    @property
    def params(self):  # this run's weights (views into the group's)
        return D.unstack(self.group.params, self.index)

    @property
    def stopped_at(self):
        return self.group.stopped_at[self.index]

    @property
    def step(self):
        return self.group.step if self.stopped_at is None else self.stopped_at

    @property
    def losses(self):
        return self.group.losses[self.index]

    @property
    def held(self):
        return self.group.held[self.index]

    def advance(self, n=1):  # steps the whole group
        self.group.advance(n)
        return self

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


def single(mask_kind, positions="rope", lr=DEFAULT_LR, seed=DEFAULT_SEED):  # -> Run
    """One run on its own."""
    return Runs((mask_kind,), positions, lr, seed).runs[mask_kind]


def train_both(lr=DEFAULT_LR, seed=DEFAULT_SEED, steps=DEFAULT_STEPS, positions="rope"):
    # -> {mask: Run}
    check_args(lr, seed, steps)
    return Runs(MASKS, positions, lr, seed).advance(steps).runs


SNAPSHOT_EVERY = 100  # the runs can go back to any step from the snapshot before it
_RUNS = {}  # (lr, seed, positions) -> [Runs, {step: snapshot}]
_KEPT_RUNS = 4  # groups kept in memory; the oldest goes first


def _copied(params, adam):  # weights and Adam's state, sharing no array with the originals
    return ({n: v.copy() for n, v in params.items()},
            {"t": adam["t"], "m": {n: v.copy() for n, v in adam["m"].items()},
             "v": {n: v.copy() for n, v in adam["v"].items()}})


def _snapshot(group):
    return ((group.step,) + _copied(group.params, group.adam)
            + (group.batches.get_state(), [len(x) for x in group.losses],
               [len(x) for x in group.held], list(group.stopped_at)))


def _restore(group, snap):
    step, params, adam, rng, n_losses, n_held, stopped = snap
    group.step, group.stopped_at = step, list(stopped)
    group.params, group.adam = _copied(params, adam)
    group.batches.set_state(rng)
    for losses, n in zip(group.losses, n_losses):
        del losses[n:]
    for held, n in zip(group.held, n_held):
        del held[n:]


def runs_at(lr, seed, positions, steps):  # -> {mask: Run} at `steps` (or where each stopped)
    """Both runs of (lr, seed, positions) at step `steps`, as a page asks for
    them one change after another: forward from where they are, or back to
    the last snapshot before `steps` and forward again. Every path gives the
    same weights as one run from step 0 (the minibatch stream is part of
    the snapshot)."""
    check_args(lr, seed, steps)
    key = (float(lr), int(seed), positions)
    if key not in _RUNS:
        group = Runs(MASKS, positions, lr, seed)  # refuses bad positions before anything goes
        while len(_RUNS) >= _KEPT_RUNS:
            del _RUNS[next(iter(_RUNS))]
        _RUNS[key] = [group, {}]
    entry = _RUNS[key]
    group, snaps = entry
    if group.step > steps:
        back = max((s for s in snaps if s <= steps), default=0)
        if back == 0:
            entry[0] = group = Runs(MASKS, positions, lr, seed)
        else:
            _restore(group, snaps[back])
    while group.step < steps and group.running():
        group.advance(min(steps, (group.step // SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY) - group.step)
        if group.step % SNAPSHOT_EVERY == 0 and group.step not in snaps:
            snaps[group.step] = _snapshot(group)
    return group.runs


# ------------------------------------------------------------ generation

def encode_words(words):  # words -> indices; unknown words refused in Spanish
    if isinstance(words, str) or not all(isinstance(w, str) for w in words):
        raise ValueError("las palabras deben llegar como una lista de palabras")
    words = list(words)
    unknown = [w for w in words if w not in G.VOCABULARY]
    if unknown:
        raise ValueError("el modelo no conoce %s: su vocabulario es el de la gramática"
                         % ", ".join("«%s»" % w for w in dict.fromkeys(unknown)))
    if not words:
        raise ValueError("escribe al menos una palabra")
    if len(words) > G.MAX_WORDS:
        raise ValueError("la frase puede tener como mucho %d palabras; llegaron %d"
                         % (G.MAX_WORDS, len(words)))
    return [G.VOCABULARY.index(w) for w in words]


def encode_prompt(words):  # a prompt leaves room for a new word, and is not finished
    tokens = encode_words(words)
    if len(tokens) >= G.MAX_WORDS:
        raise ValueError("el comienzo debe tener menos de %d palabras; llegaron %d"
                         % (G.MAX_WORDS, len(tokens)))
    if G.END in words:
        raise ValueError("el comienzo no puede llevar «%s»: es la palabra con la que el modelo "
                         "termina una frase" % G.END)
    return tokens


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
        w = softmax(q @ caches[l]["k"].transpose(0, 2, 1) / math.sqrt(d_h))  # [H, 1, t]
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


MIN_TEMPERATURE, MAX_TEMPERATURE = 0.05, 5.0


def check_generation(temperature, seed, max_words):
    """Raise ValueError, in Spanish, unless temperature is 0 (greedy) or in
    [MIN_TEMPERATURE, MAX_TEMPERATURE] (below it, logits / T overflow), the
    seed is in range and max_words at most the grammar's longest sentence."""
    if (not isinstance(temperature, numbers.Real) or isinstance(temperature, bool)
            or not (temperature == 0 or MIN_TEMPERATURE <= temperature <= MAX_TEMPERATURE)):
        raise ValueError("la temperatura debe ser 0 (la palabra más probable) o un número de "
                         "%g a %g; llegó %r" % (MIN_TEMPERATURE, MAX_TEMPERATURE, temperature))
    _check_seed(seed)
    if not _is_integer(max_words) or not 1 <= max_words <= G.MAX_WORDS:
        raise ValueError("el largo máximo debe ser un entero de 1 a %d; llegó %r"
                         % (G.MAX_WORDS, max_words))


def generate(run, prompt, temperature=0.0, seed=0, max_words=G.MAX_WORDS):
    # -> {"words", "new", "probs", "cache_rows", "kv_saved", "kv_computed", "cached"}
    """Continue `prompt` word by word until «.» or max_words.

    `probs[i]` is the model's own probability of new word i (softmax of its
    logits, whatever the temperature it was drawn with). The causal run
    reads earlier words from its KV cache (`cached` True): `cache_rows[i]`
    is how many positions each block's cache holds once word i is chosen
    (the last word written is never fed back, so it is never cached),
    `kv_computed` the key/value rows projected, `kv_saved` those a full
    recompute at every step would have projected again. The bidirectional
    run cannot use a cache (adding a word changes what earlier positions
    read, so their block-2 keys change): it recomputes the whole prefix
    every step, and saves nothing.
    """
    check_generation(temperature, seed, max_words)
    tokens = encode_prompt(prompt)
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
        index, _ = choose(logits, temperature, rng)  # the lab's one rule, ties included
        new.append(G.VOCABULARY[index])
        probs.append(float(softmax(logits)[index]))
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
    check_generation(0, 0, max_words)
    tokens = [encode_prompt(p) for p in prompts]
    while True:
        open_ = [i for i, t in enumerate(tokens)
                 if len(t) < max_words and (len(t) == len(prompts[i]) or t[-1] != END_INDEX)]
        if not open_:
            break
        batch = D.encode([tuple(G.VOCABULARY[j] for j in tokens[i]) for i in open_], G.VOCABULARY)
        h, _ = D.hidden(D.stack(run.params), run.cfg, batch.tokens, batch.lengths,
                        (run.mask_kind,), run.positions)
        last = h[0, np.arange(len(open_)), batch.lengths - 1]  # [P, d]: each one's last word
        logits = last @ run.params["w_u"] + run.params["b_u"]
        for i, row in zip(open_, logits):
            tokens[i].append(choose(row, 0, None)[0])
    return [tuple(G.VOCABULARY[j] for j in t) for t in tokens]


def held_out_prompts(sentences=G.HELD_OUT):
    """The distinct prompts of the sentences (several sentences share one):
    each ends with the word that decides what must follow. Short as they
    are, most also begin some training sentence: what they test is whether
    a model can write on from them, not whether it has seen them."""
    return list(dict.fromkeys(s.words[:s.prompt] for s in sentences))


def continuation_share(run, prompts=None):
    """Share of the prompts whose greedy continuation is a sentence of the
    grammar (its own check); the held-out sentences' prompts by default."""
    prompts = held_out_prompts() if prompts is None else prompts
    if not prompts:
        raise ValueError("hace falta al menos un comienzo")
    words = greedy_continuations(run, prompts)
    return sum(G.is_sentence(w) for w in words) / len(words)


def lesson(runs):  # {mask: Run} -> the figures the verdict is built from
    groups = {id(run.group) for run in runs.values()}
    if len(groups) == 1:  # runs stepped together: one stacked pass over the training set
        group = next(iter(runs.values())).group
        stacked = D.mean_losses(group.params, group.cfg, TRAIN_BATCH, group.masks,
                                group.positions)
        train = {mask: float(stacked[run.index]) for mask, run in runs.items()}
    else:
        train = {mask: run.train_loss() for mask, run in runs.items()}
    return {mask: {"train_loss": train[mask], "held_loss": run.held_loss(),
                   "correct": continuation_share(run), "stopped_at": run.stopped_at}
            for mask, run in runs.items()}


# ------------------------------------------------------------ heads

def attention_weights(run, words):  # -> [n_block, H, T, T]
    """Every head's attention on one sentence, block by block."""
    tokens = np.array([encode_words(list(words))])
    _, cache = D.forward(run.params, run.cfg, tokens, [tokens.shape[1]], run.mask_kind,
                         run.positions)
    return np.stack([c[1][4][0, 0] for c in cache[2]])  # run 0, sentence 0


def choice_points(sentences):  # -> [B, T - 1] bool
    """Where the grammar leaves a choice: entry (b, i) is true when more
    than one word may follow the first i + 1 words of sentence b. Only
    there does reading the word after give away something the words
    before did not: elsewhere a head needs no look ahead to know it."""
    sentences = list(sentences)
    out = np.zeros((len(sentences), max(len(s.words) for s in sentences) - 1), dtype=bool)
    for b, s in enumerate(sentences):
        for i in range(len(s.words) - 1):
            out[b, i] = len(G.next_words(s.words[:i + 1])) > 1
    return out


def even_share(mask, sentences=G.HELD_OUT, which="previous"):
    """What a head that spread its weight evenly over the words it may read
    would give, on average, to the word before or (which="next") the word
    after, over the pairs head_patterns counts: 1 / (i + 2) for the word
    at i + 1 under the causal mask, 1 / n under the bidirectional one (the
    word after only at choice points, and only there unmasked). The level
    a named pattern must stand out from."""
    sentences = list(sentences)
    if which == "next":
        if mask == "causal":
            return 0.0
        points = choice_points(sentences)
        shares = [1.0 / len(s.words) for b, s in enumerate(sentences)
                  for i in range(len(s.words) - 1) if points[b, i]]
    else:
        shares = [1.0 / (i + 2) if mask == "causal" else 1.0 / len(s.words)
                  for s in sentences for i in range(len(s.words) - 1)]
    return sum(shares) / len(shares)


MEASURES = ("look_back", "previous", "next")  # head_patterns' order: the first of equals wins


def _per_sentence(run, sentences):
    # -> {measure: [L, B, H] mean of each sentence, NaN where it has no pair},
    #    {measure: [B] how many pairs each sentence counts}
    """Each head's weight, sentence by sentence, on the word before (every
    word after the first), on the word after (at the choice points only:
    a word the words before already fix is no sign of reading ahead;
    always 0 under the causal mask) and, at «y» in «copia» sentences, on
    the name said earlier (the companion's, several words back). Only
    «copia»: in «pide» the name to repeat is the word just before «y», so
    a previous-word head would pass for a look-back one there."""
    batch = D.encode([s.words for s in sentences], G.VOCABULARY)
    _, cache = D.forward(run.params, run.cfg, batch.tokens, batch.lengths, run.mask_kind,
                         run.positions)
    w = np.stack([c[1][4][0] for c in cache[2]])  # [L, B, H, T, T], run 0
    # Entry i of the diagonal below the main one is (i + 1 → i): it counts
    # while i + 1 is a word of the sentence (not padding); the diagonal
    # above holds the same pairs read the other way, (i → i + 1).
    before = np.diagonal(w, offset=-1, axis1=-2, axis2=-1)  # [L, B, H, T - 1]
    after = np.diagonal(w, offset=1, axis1=-2, axis2=-1)  # [L, B, H, T - 1]
    counted = np.arange(w.shape[-1] - 1)[None, :] < (batch.lengths[:, None] - 1)  # [B, T - 1]
    chosen = counted & choice_points(sentences)[:, :w.shape[-1] - 1]  # [B, T - 1]
    back = np.full(w.shape[:3], np.nan)  # [L, B, H]
    copies = [(b, s.words.index("y"), s.prompt - 1) for b, s in enumerate(sentences)
              if s.kind == "copia"]
    if copies:
        rows, ys, names = (np.array(x) for x in zip(*copies))
        back[:, rows] = w.transpose(0, 1, 3, 4, 2)[:, rows, ys, names]  # [L, C, H]
    pairs = {"previous": counted.sum(axis=1), "next": chosen.sum(axis=1),
             "look_back": np.isin(np.arange(len(sentences)), [c[0] for c in copies]).astype(int)}
    with np.errstate(invalid="ignore"):  # 0 / 0: a sentence with no such pair
        per = {"previous": (before * counted[None, :, None, :]).sum(axis=3)
               / pairs["previous"][None, :, None],
               "next": (after * chosen[None, :, None, :]).sum(axis=3) / pairs["next"][None, :, None],
               "look_back": back}
    return per, pairs


def sentence_shares(run, words):
    # -> {(block, head): {"previous", "next", "look_back": share or None}}
    """head_patterns' three measures on one sentence, the one a reader is
    shown (None where it has no pair: no choice point, or not a «copia»
    sentence of the grammar)."""
    words = tuple(words)
    sentence = _SENTENCE_OF.get(words) or G.Sentence(words, 0.0, None, None, 0)
    per, _ = _per_sentence(run, [sentence])
    return {(l, h): {k: None if np.isnan(per[k][l, 0, h]) else float(per[k][l, 0, h])
                     for k in MEASURES}
            for l in range(run.cfg.n_block) for h in range(run.cfg.n_head)}


_SENTENCE_OF = {s.words: s for s in G.SENTENCES}


def head_patterns(run, sentences=G.HELD_OUT):
    # -> {(block, head): {"previous", "next", "look_back": share, "pattern": name or None,
    #                     "spread": {same keys: (lowest, highest) of one sentence's mean}}}
    """Mean weight of each head on the measures of `_per_sentence`, every
    pair alike, over the held-out sentences, and how far single sentences
    stray from it. A head is given the name of its largest mean, only when
    that mean reaches PATTERN_SHARE."""
    per, pairs = _per_sentence(run, list(sentences))
    out = {}
    for l in range(run.cfg.n_block):
        for h in range(run.cfg.n_head):
            shares, spread = {}, {}
            for k in MEASURES:
                mine, n = per[k][l, :, h], pairs[k]
                shares[k] = float(np.nansum(mine * n) / n.sum()) if n.sum() else 0.0
                spread[k] = ((float(np.nanmin(mine)), float(np.nanmax(mine))) if n.sum()
                             else (0.0, 0.0))
            best = max(MEASURES, key=lambda k: shares[k])  # the first of equals, in that order
            pattern = best if shares[best] >= PATTERN_SHARE else None
            out[(l, h)] = dict(shares, pattern=pattern, spread=spread)
    return out
