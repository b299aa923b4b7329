"""Train it yourself: the hand-written backward pass, the corpus, and the thesis.

The gradients are checked against two other computations (finite differences
and PyTorch autograd on a per-sentence forward written in torch), the whole
descent against a PyTorch re-run, and the article's claim as a property: the
causal run predicts the same for every sentence at every step.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch  # a test dependency: make test installs torch==2.13.0

from lab_core import train as T
from lab_core.didactic import VOCABULARY
from lab_core.didactic_train import (
    DECIDING_WORDS, DEFAULT_LR, DEFAULT_SEED, MAX_SEED, MAX_STEPS, SENSES,
    TEST_SENTENCES, TRAIN_SENTENCES, TRAIN_VOCABULARY,
)

MASKS = ("causal", "bidirectional")
TRAIN_BATCH = T.encode_corpus(TRAIN_SENTENCES)


def flat(grads):  # dict of arrays -> one vector, in PARAM_NAMES order
    return np.concatenate([np.ravel(grads[name]) for name in T.PARAM_NAMES])


def relative_error(a, b, floor=1e-12):
    """Largest difference over the largest entry: the error of the gradient as
    a whole (a per-entry ratio would blow up on entries that cancel to ~0)."""
    return np.max(np.abs(a - b)) / max(np.max(np.abs(a)), np.max(np.abs(b)), floor)


def random_params(seed):
    """Weights of order 1, far from the small initial ones: sharper attention."""
    rng = np.random.RandomState(seed)
    return {name: rng.normal(size=value.shape) for name, value in T.init_params(0).items()}


PARAM_CASES = {
    "lab_initial": T.init_params(DEFAULT_SEED),
    "random": random_params(5),
}


@pytest.fixture(scope="module")
def both():
    return T.train_both(DEFAULT_LR, DEFAULT_SEED, MAX_STEPS)


# ------------------------------------------------------------------ gradients

def five_point_gradient(params, mask_kind, h=1e-3):
    """Central differences, fourth order: (−L(+2h) + 8L(+h) − 8L(−h) + L(−2h)) / 12h.

    A two-point difference at h = 1e-6 is limited by rounding to about
    ε·loss/h ≈ 1e-10 absolute, ≈ 1e-7 relative on the initial weights'
    1e-3-sized gradients. This stencil has rounding ≈ 1e-13 and truncation
    O(h⁴) ≈ 1e-12, so it can be held to 1e-8.
    """
    def loss_with(name, index, delta):
        shifted = dict(params)
        shifted[name] = params[name].copy()
        shifted[name][index] += delta
        return T.banco_forward(shifted, TRAIN_BATCH, mask_kind)["loss"]

    grads = {}
    for name in T.PARAM_NAMES:
        grads[name] = np.zeros_like(params[name])
        for index in np.ndindex(params[name].shape):
            grads[name][index] = (
                -loss_with(name, index, 2 * h) + 8 * loss_with(name, index, h)
                - 8 * loss_with(name, index, -h) + loss_with(name, index, -2 * h)
            ) / (12 * h)
    return grads


@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("case", sorted(PARAM_CASES))
def test_hand_written_gradients_equal_finite_differences(case, mask_kind):
    params = PARAM_CASES[case]
    _, grads = T.loss_and_grads(params, TRAIN_SENTENCES, mask_kind)
    numeric = five_point_gradient(params, mask_kind)
    assert relative_error(flat(grads), flat(numeric)) < 1e-8


def torch_loss(params, sentences, mask_kind):
    """The same model in torch, one sentence at a time, no padding: an
    independent forward (masked_fill with −∞, F.softmax, F.cross_entropy)."""
    logits, labels = [], []
    for tokens, sense in sentences:
        x = torch.tensor(T.one_hot(tokens))                              # [n_seq, d_model]
        q, k, v = x @ params["w_q"], x @ params["w_k"], x @ params["w_v"]
        scores = q @ k.T / math.sqrt(T.D_K)                             # [n_seq, n_seq]
        n_seq = len(tokens)
        allowed = torch.ones(n_seq, n_seq, dtype=torch.bool)
        if mask_kind == "causal":
            allowed = torch.tril(allowed)
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = weights[1] @ v                                            # banco's mixture [d_v]
        logits.append(out @ params["w_r"] + params["b_r"])
        labels.append(SENSES.index(sense))
    return torch.nn.functional.cross_entropy(torch.stack(logits), torch.tensor(labels))


def torch_params(params):
    return {name: torch.tensor(value, dtype=torch.float64, requires_grad=True)
            for name, value in params.items()}


@pytest.mark.parametrize("mask_kind", MASKS)
@pytest.mark.parametrize("case", sorted(PARAM_CASES))
def test_hand_written_gradients_equal_torch_autograd(case, mask_kind):
    params = PARAM_CASES[case]
    loss, grads = T.loss_and_grads(params, TRAIN_SENTENCES, mask_kind)
    theirs = torch_params(params)
    their_loss = torch_loss(theirs, TRAIN_SENTENCES, mask_kind)
    their_loss.backward()
    assert loss == pytest.approx(their_loss.item(), rel=1e-12)
    for name in T.PARAM_NAMES:
        assert relative_error(grads[name], theirs[name].grad.numpy()) < 1e-8, name
    assert relative_error(flat(grads),
                          flat({n: theirs[n].grad.numpy() for n in T.PARAM_NAMES})) < 1e-12


def test_the_mask_gives_blocked_keys_no_gradient():
    # Causal: banco's row sees only El and banco, so only their keys and
    # values, and only banco's query, can receive any gradient at all.
    _, grads = T.loss_and_grads(PARAM_CASES["random"], TRAIN_SENTENCES, "causal")
    seen = [TRAIN_VOCABULARY.index("El"), TRAIN_VOCABULARY.index("banco")]
    others = [i for i in range(T.D_MODEL) if i not in seen]
    assert np.all(grads["w_k"][others] == 0.0) and np.all(grads["w_v"][others] == 0.0)
    assert np.all(np.delete(grads["w_q"], seen[1], axis=0) == 0.0)
    assert np.all(grads["w_k"][seen] != 0.0) and np.all(grads["w_v"][seen] != 0.0)


@pytest.mark.parametrize("mask_kind", MASKS)
def test_batched_banco_row_equals_the_full_single_sentence_forward(mask_kind):
    params = PARAM_CASES["random"]
    sentences = TRAIN_SENTENCES + TEST_SENTENCES
    f = T.banco_forward(params, T.encode_corpus(sentences), mask_kind)
    for b, (tokens, _) in enumerate(sentences):
        one = T.forward(params, tokens, mask_kind)
        n_seq = len(tokens)
        np.testing.assert_allclose(f["weights"][b, :n_seq], one["weights"][1], rtol=0, atol=1e-15)
        assert np.all(f["weights"][b, n_seq:] == 0.0)      # padding is masked out
        np.testing.assert_allclose(f["logits"][b], one["logits"], rtol=0, atol=1e-14)
        np.testing.assert_allclose(f["probs"][b], one["probs"], rtol=0, atol=1e-15)
        np.testing.assert_allclose(one["weights"].sum(axis=1), 1.0, rtol=0, atol=1e-15)
        assert np.all(one["weights"][~one["mask"]] == 0.0)


# ------------------------------------------------------------------ training

@pytest.mark.parametrize("mask_kind", MASKS)
def test_trajectory_equals_a_pytorch_rerun_at_step_50(both, mask_kind):
    steps = 50
    theirs = torch_params(T.init_params(DEFAULT_SEED))
    optimizer = torch.optim.SGD(list(theirs.values()), lr=DEFAULT_LR)
    losses = []
    for _ in range(steps + 1):
        optimizer.zero_grad()
        loss = torch_loss(theirs, TRAIN_SENTENCES, mask_kind)
        losses.append(loss.item())
        loss.backward()
        if len(losses) <= steps:
            optimizer.step()
    ours = both[mask_kind]
    np.testing.assert_allclose(ours["loss"][:steps + 1], losses, rtol=1e-8, atol=0)
    at_50 = T.params_at(ours, steps)
    for name in T.PARAM_NAMES:
        assert relative_error(at_50[name], theirs[name].detach().numpy()) < 1e-8, name


def test_both_runs_start_from_the_same_weights_and_are_deterministic(both):
    for name in T.PARAM_NAMES:
        np.testing.assert_array_equal(both["causal"]["params"][name][0],
                                      both["bidirectional"]["params"][name][0])
        np.testing.assert_array_equal(both["causal"]["params"][name][0],
                                      T.init_params(DEFAULT_SEED)[name])
    again = T.train(DEFAULT_LR, DEFAULT_SEED, 20, "bidirectional")
    np.testing.assert_array_equal(again["loss"], both["bidirectional"]["loss"][:21])


def test_trajectory_shape(both):
    run = both["bidirectional"]
    n = MAX_STEPS + 1
    assert run["stopped_at"] is None and run["steps"] == MAX_STEPS
    for key in ("loss", "test_loss", "train_accuracy", "test_accuracy"):
        assert run[key].shape == (n,)
    assert run["train_probs"].shape == (n, len(TRAIN_SENTENCES), 2)
    assert run["test_probs"].shape == (n, len(TEST_SENTENCES), 2)
    assert run["params"]["w_q"].shape == (n, len(TRAIN_VOCABULARY), 2)
    assert run["params"]["w_r"].shape == (n, 2, 2) and run["params"]["b_r"].shape == (n, 2)
    assert T.train(DEFAULT_LR, DEFAULT_SEED, 0)["loss"].shape == (1,)


def test_causal_run_predicts_the_same_for_every_sentence_at_every_step(both):
    run = both["causal"]
    for key in ("train_probs", "test_probs"):
        probs = run[key]                                   # [steps + 1, n_sent, 2]
        assert np.all(probs == probs[:, :1, :]), key
    # Checked again from the stored weights, through the full per-sentence
    # forward of every sentence, every 10 steps: the same two visible words.
    for step in range(0, MAX_STEPS + 1, 10):
        params = T.params_at(run, step)
        probs = np.array([T.forward(params, tokens, "causal")["probs"]
                          for tokens, _ in TRAIN_SENTENCES + TEST_SENTENCES])
        np.testing.assert_allclose(probs, probs[:1].repeat(len(probs), axis=0),
                                   rtol=0, atol=1e-15)
    assert np.all(run["train_accuracy"] == 0.5)
    assert np.all(run["test_accuracy"] == 0.5)
    # It learns the only thing it can: p = 1/2, the loss ln 2.
    assert run["loss"][-1] == pytest.approx(math.log(2), abs=1e-6)


def test_bidirectional_run_learns_and_generalises(both):
    run = both["bidirectional"]
    assert run["test_accuracy"][300] >= 0.9
    assert run["loss"][300] < run["loss"][0]
    assert run["loss"][300] < run["loss"][100] < run["loss"][0]
    # Banco ends up looking at the deciding word of a test sentence.
    weights = T.banco_weights(T.params_at(run, 300), ("El", "banco", "del", "crédito",
                                                         "es", "muy", "viejo"), "bidirectional")
    assert np.argmax(weights) == 3


def test_causal_weights_on_the_future_are_exactly_zero(both):
    params = T.params_at(both["causal"], 300)
    weights = T.banco_weights(params, ("El", "banco", "del", "parque"), "causal")
    assert weights[2] == 0.0 and weights[3] == 0.0 and weights.sum() == pytest.approx(1.0)


def test_learned_vectors():
    params = PARAM_CASES["random"]
    vectors = T.learned_vectors(params)
    q = params["w_q"][TRAIN_VOCABULARY.index("banco")]
    np.testing.assert_array_equal(vectors["q_banco"], q)
    words = [w for sense in SENSES for w in DECIDING_WORDS[sense]]
    assert list(vectors["k"]) == words and list(vectors["score"]) == words
    k_parque = params["w_k"][TRAIN_VOCABULARY.index("parque")]
    assert vectors["score"]["parque"] == pytest.approx(q @ k_parque / math.sqrt(2))


# ------------------------------------------------------------------ the corpus

def deciding_position(tokens):
    found = [i for i, word in enumerate(tokens)
             if any(word in DECIDING_WORDS[sense] for sense in SENSES)]
    assert len(found) == 1, tokens
    return found[0]


def test_corpus():
    for sentences, at_least in ((TRAIN_SENTENCES, 16), (TEST_SENTENCES, 4)):
        senses = [sense for _, sense in sentences]
        assert len(sentences) >= at_least
        assert senses.count("asiento") == senses.count("entidad") == len(sentences) // 2
        for tokens, sense in sentences:
            assert tokens[:2] == ("El", "banco")
            assert 3 <= len(tokens) <= 8
            assert all(word in TRAIN_VOCABULARY for word in tokens)
            position = deciding_position(tokens)
            assert 2 <= position <= 6
            assert tokens[position] in DECIDING_WORDS[sense]
    assert len({deciding_position(t) for t, _ in TRAIN_SENTENCES}) >= 3
    assert len({deciding_position(t) for t, _ in TEST_SENTENCES}) >= 3
    train = {tokens for tokens, _ in TRAIN_SENTENCES}
    assert not any(tokens in train for tokens, _ in TEST_SENTENCES)
    # Every test word was seen in training: the test asks for new
    # combinations, not for words the head never met.
    assert {w for t, _ in TEST_SENTENCES for w in t} <= {w for t in train for w in t}


def test_vocabulary_starts_with_the_labs_words():
    assert TRAIN_VOCABULARY[:2] == ("El", "banco")
    assert TRAIN_VOCABULARY[:len(VOCABULARY)] == VOCABULARY
    assert len(set(TRAIN_VOCABULARY)) == len(TRAIN_VOCABULARY) == T.D_MODEL
    assert set(TRAIN_VOCABULARY) == {w for t, _ in TRAIN_SENTENCES + TEST_SENTENCES for w in t}
    assert (("El", "banco", "del", "parque"), "asiento") in TRAIN_SENTENCES
    assert (("El", "banco", "de", "crédito"), "entidad") in TRAIN_SENTENCES


# ------------------------------------------------------------------ bad input and divergence

def assert_all_finite(run):
    for key, value in run.items():
        if isinstance(value, np.ndarray):
            assert np.all(np.isfinite(value)), key
    for name, value in run["params"].items():
        assert np.all(np.isfinite(value)), name


def test_a_huge_learning_rate_stops_at_the_last_finite_step():
    runs = T.train_both(1e6, DEFAULT_SEED, MAX_STEPS)
    for run in runs.values():
        assert_all_finite(run)
    run = runs["causal"]
    last = run["stopped_at"]
    assert last is not None and 0 < last < MAX_STEPS
    # Later steps repeat the last finite one.
    assert np.all(run["loss"][last:] == run["loss"][last])
    assert np.all(run["params"]["w_r"][last:] == run["params"]["w_r"][last])
    assert run["loss"][last] > 1e100       # it did blow up before stopping
    for mask_kind in MASKS:
        run = T.train(1e8, DEFAULT_SEED, MAX_STEPS, mask_kind)
        assert run["stopped_at"] is not None
        assert_all_finite(run)


@pytest.mark.parametrize("lr", [DEFAULT_LR, 1e6, 1e8])
def test_runs_trained_side_by_side_equal_runs_trained_alone(lr):
    # train_both steps both masks together (a runs axis on every array);
    # each must be bit for bit the run trained on its own, including when
    # one run stops and the other goes on (1e6: only the causal run stops).
    both = T.train_both(lr, DEFAULT_SEED, 120)
    for mask_kind in MASKS:
        alone = T.train(lr, DEFAULT_SEED, 120, mask_kind)
        together = both[mask_kind]
        assert together["stopped_at"] == alone["stopped_at"]
        for key, value in alone.items():
            if key == "params":
                for name in value:
                    assert np.array_equal(together[key][name], value[name]), name
            elif isinstance(value, np.ndarray):
                assert np.array_equal(together[key], value), key
            else:
                assert together[key] == value, key
    if lr == 1e6:
        assert both["causal"]["stopped_at"] is not None and both["bidirectional"]["stopped_at"] is None


def test_the_batched_forward_and_backward_equal_one_run_at_a_time():
    params = [T.init_params(seed) for seed in (1, 2)]
    stacked = {name: np.stack([p[name] for p in params]) for name in T.PARAM_NAMES}
    batch = T.encode_corpus(TRAIN_SENTENCES)
    masks = ("causal", "bidirectional")
    f = T.banco_forward(stacked, batch, masks)
    grads = T.backward(stacked, batch, f)
    for r, mask_kind in enumerate(masks):
        one = T.banco_forward(params[r], batch, mask_kind)
        assert np.allclose(f["loss"][r], one["loss"], rtol=1e-14)
        assert np.allclose(f["probs"][r], one["probs"], rtol=1e-14, atol=0)
        _, alone = T.loss_and_grads(params[r], batch, mask_kind)
        for name in T.PARAM_NAMES:
            assert np.allclose(grads[name][r], alone[name], rtol=1e-12, atol=1e-15), name


def test_a_first_update_that_overflows_stops_at_step_0():
    run = T.train(1e200, DEFAULT_SEED, 10, "bidirectional")
    assert run["stopped_at"] == 0
    assert_all_finite(run)
    assert np.all(run["loss"] == run["loss"][0])


@pytest.mark.parametrize("lr", [0, -0.1, float("nan"), float("inf"), "0.5", None, True])
def test_bad_learning_rate(lr):
    with pytest.raises(ValueError, match="tasa de aprendizaje"):
        T.train(lr, DEFAULT_SEED, 10)


@pytest.mark.parametrize("steps", [-1, MAX_STEPS + 1, 2.5, "10", None, True])
def test_bad_steps(steps):
    with pytest.raises(ValueError, match="pasos"):
        T.train(DEFAULT_LR, DEFAULT_SEED, steps)


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 1.5, "3", None, False])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="semilla"):
        T.train(DEFAULT_LR, seed, 10)


def test_bad_mask_sentence_and_step():
    with pytest.raises(ValueError, match="no existe"):
        T.train(DEFAULT_LR, DEFAULT_SEED, 10, "futuro")
    with pytest.raises(ValueError, match="vocabulario"):
        T.forward(T.init_params(0), ("El", "banco", "azul"), "causal")
    with pytest.raises(ValueError, match="El banco"):
        T.forward(T.init_params(0), ("banco", "El"), "causal")
    run = T.train(DEFAULT_LR, DEFAULT_SEED, 5)
    with pytest.raises(ValueError, match="paso"):
        T.params_at(run, 6)
    assert MAX_SEED == 2 ** 31 - 1 and T.train(DEFAULT_LR, MAX_SEED, 1)["seed"] == MAX_SEED
