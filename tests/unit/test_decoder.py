"""The capstone's decoder: hand-written gradients, Adam, the KV cache, and the lesson.

The backward pass is checked against finite differences and against torch
autograd on an independent forward (torch's own LayerNorm, ReLU, scaled
dot-product attention and cross-entropy; RoPE as a complex rotation), a few
Adam steps against torch.optim.Adam, the cached generator against the full
forward, and the lesson on the default run.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch  # a test dependency: make test installs torch==2.13.0
import torch.nn.functional as F

from lab_core import decoder as D
from lab_core import decoder_run as R
from lab_core import grammar as G

SMALL = D.Config(vocab=len(G.VOCABULARY), d_model=8, n_head=2, d_ff=12, n_block=2)
# Sentences of every kind and several lengths, so that padding and both masks matter.
SAMPLE = D.encode([s.words for s in G.TRAIN[::97]], G.VOCABULARY)
CASES = [(mask, positions) for mask in R.MASKS for positions in D.POSITIONS]


def perturbed(cfg, seed, scale=0.3):
    """Initial weights moved off their symmetric start (gains ≠ 1, biases ≠ 0)."""
    rng = np.random.RandomState(100 + seed)
    return {n: v + scale * rng.normal(size=v.shape) for n, v in D.init_params(cfg, seed).items()}


def relative_error(a, b):
    return np.max(np.abs(a - b)) / max(np.max(np.abs(a)), np.max(np.abs(b)), 1e-12)


# ------------------------------------------------------------ gradients

@pytest.mark.parametrize("mask_kind,positions", CASES)
def test_gradients_equal_finite_differences(mask_kind, positions):
    params = perturbed(SMALL, 1)
    _, grads = D.loss_and_grads(params, SMALL, SAMPLE, mask_kind, positions)
    rng = np.random.RandomState(2)
    h = 1e-5
    for name in D.param_names(SMALL):
        # every entry of the small tensors, 12 random entries of the larger ones
        indices = list(np.ndindex(params[name].shape))
        if len(indices) > 12:
            indices = [indices[i] for i in rng.choice(len(indices), 12, replace=False)]
        for index in indices:
            old = params[name][index]
            params[name][index] = old + h
            up = D.mean_loss(params, SMALL, SAMPLE, mask_kind, positions)
            params[name][index] = old - h
            down = D.mean_loss(params, SMALL, SAMPLE, mask_kind, positions)
            params[name][index] = old
            numeric = (up - down) / (2 * h)
            assert abs(numeric - grads[name][index]) <= 1e-6 * max(1.0, abs(numeric)), (name, index)


def torch_rope(x, n_pos, d_h):  # [B, H, T, d_h]: each pair as a complex number times e^{i·pos·θ}
    theta = D.ROPE_BASE ** (-torch.arange(0, d_h, 2, dtype=torch.float64) / d_h)
    turn = torch.polar(torch.ones(n_pos, d_h // 2, dtype=torch.float64),
                       torch.arange(n_pos, dtype=torch.float64)[:, None] * theta[None, :])
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], d_h // 2, 2).contiguous())
    return torch.view_as_real(pairs * turn).reshape(x.shape)


def torch_loss(p, cfg, batch, mask_kind, positions):
    """The decoder written again in torch, from the module docstring only."""
    tokens = torch.tensor(batch.tokens)
    b, t = tokens.shape
    d, n_head = cfg.d_model, cfg.n_head
    d_h = d // n_head
    x = p["emb"][tokens]
    if positions == "sinusoidal":
        pos = torch.arange(t, dtype=torch.float64)[:, None]
        freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        pe = torch.stack([torch.sin(pos * freq), torch.cos(pos * freq)], dim=-1).reshape(t, d)
        x = x + pe
    real = torch.arange(t)[None, :] < torch.tensor(batch.lengths)[:, None]  # [B, T]
    allowed = real[:, None, None, :].expand(b, 1, t, t)
    if mask_kind == "causal":
        allowed = allowed & torch.tril(torch.ones(t, t, dtype=torch.bool))
    for l in range(cfg.n_block):
        q_ = lambda n: p["b%d.%s" % (l, n)]  # noqa: E731
        h = F.layer_norm(x, (d,), q_("ln1_g"), q_("ln1_b"), eps=1e-5)
        q, k, v = ((h @ q_(w)).view(b, t, n_head, d_h).transpose(1, 2) for w in ("w_q", "w_k", "w_v"))
        if positions == "rope":
            q, k = torch_rope(q, t, d_h), torch_rope(k, t, d_h)
        mixed = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        x = x + mixed.transpose(1, 2).reshape(b, t, d) @ q_("w_o")
        h = F.layer_norm(x, (d,), q_("ln2_g"), q_("ln2_b"), eps=1e-5)
        x = x + F.relu(h @ q_("w1") + q_("b1")) @ q_("w2") + q_("b2")
    logits = F.layer_norm(x, (d,), p["lnf_g"], p["lnf_b"], eps=1e-5) @ p["w_u"] + p["b_u"]
    predicts = torch.arange(t - 1)[None, :] < torch.tensor(batch.lengths)[:, None] - 1
    return F.cross_entropy(logits[:, :-1][predicts], tokens[:, 1:][predicts])


def as_torch(params):
    return {n: torch.tensor(v, dtype=torch.float64, requires_grad=True) for n, v in params.items()}


@pytest.mark.parametrize("mask_kind,positions", CASES)
def test_gradients_equal_torch_autograd(mask_kind, positions):
    params = perturbed(R.CONFIG, 3)
    batch = D.encode([s.words for s in G.TRAIN[::41]], G.VOCABULARY)
    loss, grads = D.loss_and_grads(params, R.CONFIG, batch, mask_kind, positions)
    theirs = as_torch(params)
    their_loss = torch_loss(theirs, R.CONFIG, batch, mask_kind, positions)
    their_loss.backward()
    assert loss == pytest.approx(their_loss.item(), rel=1e-12)
    for name in D.param_names(R.CONFIG):
        assert relative_error(grads[name], theirs[name].grad.numpy()) < 1e-10, name


@pytest.mark.parametrize("mask_kind", R.MASKS)
def test_adam_steps_equal_a_torch_rerun(mask_kind):
    """Five steps of the page's run (its minibatches, its Adam) against
    torch.optim.Adam on the same batches from the same weights."""
    run = R.single(mask_kind, "rope", lr=0.01, seed=4)
    theirs = as_torch(run.params)
    adam = torch.optim.Adam(theirs.values(), lr=0.01, betas=(0.9, 0.99), eps=1e-8)
    order = np.random.RandomState(4 + 1)  # the run's minibatch stream
    for _ in range(5):
        rows = order.choice(len(R.TRAIN_BATCH.lengths), R.BATCH, replace=False)
        batch = D.Batch(R.TRAIN_BATCH.tokens[rows], R.TRAIN_BATCH.lengths[rows])
        adam.zero_grad()
        loss = torch_loss(theirs, R.CONFIG, batch, mask_kind, "rope")
        loss.backward()
        adam.step()
        run.advance(1)
        assert run.losses[-1] == pytest.approx(loss.item(), rel=1e-10)
    for name in D.param_names(R.CONFIG):
        assert relative_error(run.params[name], theirs[name].detach().numpy()) < 1e-9, name


def test_parameter_count_matches_the_shapes():
    d, f, v, n = 16, 32, len(G.VOCABULARY), 2
    per_block = 4 * d * d + 2 * d * f + f + d + 4 * d  # attention, FFN, two LayerNorms
    assert D.count_params(R.CONFIG) == v * d + n * per_block + 2 * d + d * v + v


def test_runs_at_any_step_equal_one_run_from_the_start():
    """Forward, back to a snapshot, forward again: the same weights, losses
    and held-out points as a single run to that step."""
    lr, seed = 0.02, 3
    for steps in (130, 0, 40, 230, 100, 230):  # the last goes on from the snapshot at 100
        runs = R.runs_at(lr, seed, "rope", steps)
    straight = R.Runs(R.MASKS, "rope", lr, seed).advance(230).runs
    for mask, run in runs.items():
        assert run.step == 230
        assert run.losses == straight[mask].losses and run.held == straight[mask].held
        for name in run.params:
            np.testing.assert_array_equal(run.params[name], straight[mask].params[name])
        assert run.held_loss() == straight[mask].loss(R.HELD_BATCH)
    assert [s for s, _ in straight["causal"].held] == [0, 50, 100, 150, 200]


# ------------------------------------------------------------ the KV cache

@pytest.mark.parametrize("positions", D.POSITIONS)
def test_cached_decoding_equals_the_full_forward(positions):
    params = perturbed(R.CONFIG, 6)
    words = G.HELD_OUT[60].words
    tokens = np.array([R.encode_words(list(words))])
    logits, _ = D.forward(params, R.CONFIG, tokens, [len(words)], "causal", positions)
    caches = R.empty_caches(R.CONFIG)
    for pos, token in enumerate(tokens[0]):
        step = R.decode_step(params, R.CONFIG, caches, token, pos, positions)
        np.testing.assert_allclose(step, logits[0, pos], rtol=0, atol=1e-12)
    assert caches[1]["k"].shape == (2, len(words), 8)


def test_generation_counts_what_the_cache_saves():
    run = R.single("causal")
    out = R.generate(run, ("ana", "va"), max_words=6)
    n_new = len(out["new"])
    assert 1 <= n_new <= 4 and out["words"][:2] == ("ana", "va")
    # 2 blocks × (k, v): the prompt's 2 words, then each new word but the last is fed back
    assert out["kv_computed"] == 4 * (2 + n_new - 1)
    # a full recompute would project every earlier word again at each of those steps
    assert out["kv_saved"] == 4 * sum(range(2, 2 + n_new - 1))
    assert out["cache_rows"] == [3 + i for i in range(n_new - 1)] + [1 + n_new]
    wide = R.generate(R.single("bidirectional"), ("ana", "va"), max_words=6)
    assert not wide["cached"] and wide["kv_saved"] == 0
    assert wide["kv_computed"] == 4 * sum(range(2, 2 + len(wide["new"])))


def test_sampling_draws_from_the_tempered_softmax_and_greedy_is_the_argmax():
    run = R.single("causal", seed=2).advance(30)
    tokens = np.array([R.encode_words(["el"])])
    logits, _ = D.forward(run.params, run.cfg, tokens, [1], "causal", "rope")
    for temperature, seed in ((0.7, 5), (2.0, 11)):
        out = R.generate(run, ("el",), temperature=temperature, seed=seed, max_words=2)
        scaled = logits[0, -1] / temperature
        p = np.exp(scaled - scaled.max())
        expected = np.random.RandomState(seed).choice(len(p), p=p / p.sum())
        assert out["new"] == (G.VOCABULARY[expected],)
        own = np.exp(logits[0, -1] - logits[0, -1].max())
        assert out["probs"][0] == pytest.approx(own[expected] / own.sum())
    greedy = R.generate(run, ("el",))
    tokens = np.array([R.encode_words(list(greedy["words"][:-1]))])
    logits, _ = D.forward(run.params, run.cfg, tokens, [tokens.shape[1]], "causal", "rope")
    assert G.VOCABULARY[int(np.argmax(logits[0, -1]))] == greedy["words"][-1]


# ------------------------------------------------------------ bad input

@pytest.mark.parametrize("lr,seed,steps", [
    (0, 0, 1), (-0.1, 0, 1), (1.5, 0, 1), (float("nan"), 0, 1), (True, 0, 1), ("0.1", 0, 1),
    (0.01, -1, 1), (0.01, 10000, 1), (0.01, 1.5, 1), (0.01, 0, -1), (0.01, 0, 3001),
])
def test_out_of_range_arguments_are_refused_in_spanish(lr, seed, steps):
    with pytest.raises(ValueError, match="debe"):
        R.check_args(lr, seed, steps)


def test_bad_prompts_masks_positions_and_temperatures_are_refused():
    run = R.single("causal")
    with pytest.raises(ValueError, match="no conoce «perro», «gato»"):
        R.generate(run, ("el", "perro", "gato", "perro"))
    with pytest.raises(ValueError, match="al menos una palabra"):
        R.generate(run, ())
    with pytest.raises(ValueError, match="lista de palabras"):
        R.generate(run, "el banco")
    with pytest.raises(ValueError, match="menos de %d palabras; llegaron %d" % (G.MAX_WORDS, G.MAX_WORDS)):
        R.generate(run, ("el",) * G.MAX_WORDS)
    with pytest.raises(ValueError, match="no puede llevar «.»"):
        R.generate(run, ("el", "banco", "."))
    for t in (-1, 6, float("inf"), float("nan"), 1e-310, 0.01, True):
        with pytest.raises(ValueError, match="temperatura"):
            R.generate(run, ("el",), temperature=t)
    for seed in (-1, 1.5, 10000):
        with pytest.raises(ValueError, match="semilla"):
            R.generate(run, ("el",), temperature=1.0, seed=seed)
    with pytest.raises(ValueError, match="largo máximo"):
        R.generate(run, ("el",), max_words=40)
    with pytest.raises(ValueError, match="al menos un comienzo"):
        R.continuation_share(run, [])
    with pytest.raises(ValueError, match="máscara"):
        R.single("futura")
    with pytest.raises(ValueError, match="posiciones"):
        R.single("causal", positions="absolutas")


def test_a_run_that_overflows_stops_at_its_last_finite_step():
    runs = R.Runs(R.MASKS).advance(3)
    run, other = runs.runs["causal"], runs.runs["bidirectional"]
    for name in ("b0.w_q", "b0.w_k"):  # the causal run's q·k overflows to ∞ on the next step
        runs.params[name][0] *= 1e200
    before = {n: v.copy() for n, v in run.params.items()}
    runs.advance(5)
    assert run.stopped_at == 3 and run.step == 3 and len(run.losses) == 3
    assert all(np.isfinite(l) for l in run.losses)
    for name in before:  # it keeps its last finite weights
        np.testing.assert_array_equal(run.params[name], before[name])
    # the other run goes on as if alone
    alone = R.single("bidirectional").advance(8)
    assert other.step == 8 and other.losses == alone.losses


# ------------------------------------------------------------ the default runs

@pytest.fixture(scope="module")
def default_runs():
    return R.train_both()


def test_head_patterns_are_named_only_past_the_threshold(default_runs):
    run = default_runs["causal"]
    found = R.head_patterns(run)
    named = {k: v["pattern"] for k, v in found.items() if v["pattern"]}
    assert "look_back" in named.values()
    for (l, h), v in found.items():
        share = max(v["previous"], v["look_back"], v["next"])
        assert v["next"] == 0.0  # the causal mask hides the word after
        assert (v["pattern"] is not None) == (share >= R.PATTERN_SHARE)
    # on one copy sentence: at «y», each look-back head reads the first name
    s = next(s for s in G.HELD_OUT if s.kind == "copia")
    w = R.attention_weights(run, s.words)
    y = s.words.index("y")
    assert s.words[s.prompt - 1] == s.words[y + 1]  # the name said twice
    for (l, h), pattern in named.items():
        if pattern == "look_back":
            assert w[l, h, y, s.prompt - 1] > 0.5
            assert w[l, h, y, y + 1:].sum() == 0.0  # the causal mask: nothing ahead
    assert w.sum(axis=-1) == pytest.approx(np.ones(w.shape[:-1]))


def test_batched_greedy_continuations_equal_one_prompt_at_a_time(default_runs):
    prompts = [s.words[:s.prompt] for s in G.HELD_OUT[::9]] + [
        ("el",), ("y", "y"), ("ana", "se", "sienta", "con", "luis", "en", "el", "banco"),
        ("los",) * (G.MAX_WORDS - 1)]
    for run in default_runs.values():
        batched = R.greedy_continuations(run, prompts)
        assert batched == [R.generate(run, p)["words"] for p in prompts]
        assert all(len(w) <= G.MAX_WORDS for w in batched)


def test_the_lesson_holds_with_the_defaults(default_runs):
    """The issue's figures on the default run: the causal model's held-out
    loss within 0,1 nats of the grammar's own entropy and ≥ 90 % of
    held-out prompts continued right; the bidirectional model's training
    loss at most half the causal's, and ≤ 30 % continued right."""
    figures = R.lesson(default_runs)
    causal, wide = figures["causal"], figures["bidirectional"]
    assert causal["held_loss"] < G.entropy_per_word(G.HELD_OUT) + 0.1
    assert causal["correct"] >= 0.9
    assert wide["train_loss"] <= causal["train_loss"] / 2
    assert wide["correct"] <= 0.3


def test_sentence_shares_measure_one_sentence_as_head_patterns_define_them():
    run = R.single("bidirectional", seed=1).advance(20)
    words = ("juan", "juan", "lee", ".")  # not a sentence of the grammar
    w = R.attention_weights(run, words)
    shares = R.sentence_shares(run, words)
    # «juan» alone may go on in several ways; «juan juan» in none.
    assert len(G.next_words(("juan",))) > 1 and G.next_words(("juan", "juan")) == {}
    for (l, h), got in shares.items():
        assert got["previous"] == pytest.approx(np.mean([w[l, h, i, i - 1] for i in (1, 2, 3)]))
        assert got["next"] == pytest.approx(w[l, h, 0, 1])
        assert got["look_back"] is None  # only a «copia» sentence has a name to repeat
    copy = next(s for s in G.HELD_OUT if s.kind == "copia")
    w = R.attention_weights(run, copy.words)
    for (l, h), got in R.sentence_shares(run, copy.words).items():
        assert got["look_back"] == pytest.approx(w[l, h, copy.words.index("y"), copy.prompt - 1])
