"""RoPE, multi-head + W_O, the vocabulary softmax, the training loss and the KV cache."""
import math

import numpy as np
import pytest

from lab_core.attention import attention, causal_mask
from lab_core.didactic import HEADS, SENTENCES, VOCABULARY, W_O, W_U
from lab_core.heads import embed, head_projections, multi_head, run_head, sentence_tokens
from lab_core.kvcache import (
    cache_step, empty_cache, full_recompute, generate_with_cache, prefix_drift,
    projection_counts,
)
from lab_core.language import cross_entropy, next_word_probs, training_step
from lab_core.rope import rope_rotate, rope_score, rope_scores, rotation

RNG = np.random.default_rng(2021)


# ---------------------------------------------------------------- RoPE

def test_rope_keeps_vector_norms():
    for _ in range(100):
        x = RNG.normal(size=2) * 3
        pos, theta = int(RNG.integers(0, 64)), float(RNG.uniform(0, math.pi))
        assert np.linalg.norm(rope_rotate(x, pos, theta)) == pytest.approx(
            np.linalg.norm(x), rel=1e-12)


def test_rope_score_depends_only_on_the_offset():
    q, k = np.array([1.0, 0.0]), np.array([2.0, 0.0])
    for _ in range(100):
        m, n = int(RNG.integers(0, 50)), int(RNG.integers(0, 50))
        theta, shift = float(RNG.uniform(0, math.pi)), int(RNG.integers(1, 40))
        here = rope_score(q, k, m, n, theta)
        assert rope_score(q, k, m + shift, n + shift, theta) == pytest.approx(here, abs=1e-12)
        # Closed form: q · R((n − m)θ) k, and for these vectors 2·cos((n − m)θ).
        assert here == pytest.approx(float(q @ rotation((n - m) * theta) @ k), abs=1e-12)
        assert here == pytest.approx(2 * math.cos((n - m) * theta), abs=1e-12)


def test_rope_score_depends_on_content_too():
    a = rope_score([1, 0], [2, 0], 1, 3, 0.5)
    b = rope_score([0, 1], [2, 0], 1, 3, 0.5)
    assert a != pytest.approx(b)



def test_rope_scores_match_one_pair_at_a_time():
    for _ in range(50):
        q, k = RNG.normal(size=2) * 3, RNG.normal(size=2) * 3
        theta = float(RNG.uniform(0, 3))
        m, n = RNG.integers(0, 60, size=(7, 3)), RNG.integers(0, 60, size=(7, 3))
        many = rope_scores(q, k, m, n, theta)
        assert many.shape == (7, 3)
        for (i, j), score in np.ndenumerate(many):
            assert score == pytest.approx(rope_score(q, k, int(m[i, j]), int(n[i, j]), theta),
                                          abs=1e-12)
    # Broadcasting: one query position against a row of keys.
    row = rope_scores([1, 0], [2, 0], 0, np.arange(4), math.pi / 2)
    np.testing.assert_allclose(row, [2, 0, -2, 0], atol=1e-12)


def test_rope_table_reads_one_score_per_offset():
    """The panel's lesson, same offset, same score, holds in what it shows:
    the three query positions of a row read the same text, even when the
    score sits on a rounding tie (vectors with two decimals make many)."""
    import importlib

    from lab_core.display import num

    panel = importlib.import_module("lab_core.attention_lab.rope").rope_panel.uncached
    rng = np.random.default_rng(7)
    for theta in [round(0.05 * i, 2) for i in range(61)]:
        for m, n in [(0, 0), (2, 5), (5, 2), (0, 20), (20, 0), (7, 7), (3, 30)]:
            for _ in range(6):
                q = [float(x) for x in np.round(rng.uniform(-10, 10, 2), 2)]
                k = [float(x) for x in np.round(rng.uniform(-10, 10, 2), 2)]
                table = panel({"theta": theta, "rope_m": m, "rope_n": n, "rope_q": q,
                               "rope_k": k})["table"]
                for row in table["rows"]:
                    offset = int(row["label"].split("= ")[1].replace("\u2212", "-"))
                    expected = rope_score(q, k, 0, offset, theta) if offset >= 0 \
                        else rope_score(q, k, -offset, 0, theta)
                    assert len({c["text"] for c in row["cells"]}) == 1, (theta, m, n, q, k, row)
                    for c in row["cells"]:
                        assert c["value"] == pytest.approx(num(expected), abs=1e-9)

def test_rope_rotation_by_hand():
    np.testing.assert_allclose(rope_rotate([1, 0], 1, math.pi / 2), [0, 1], atol=1e-15)
    with pytest.raises(ValueError, match="2 coordenadas"):
        rope_rotate([1, 0, 0], 1, 0.5)


# ------------------------------------------------------- heads together

@pytest.mark.parametrize("mask_kind", ["causal", "bidirectional"])
def test_multi_head_concatenates_then_projects(mask_kind):
    mh = multi_head(sentence_tokens("parque"), HEADS, mask_kind)
    n_seq = len(SENTENCES["parque"]["tokens"])
    assert mh["concat"].shape == (n_seq, 2 * len(HEADS))
    w_o = np.array(W_O)
    for i in range(n_seq):
        parts = [run_head(sentence_tokens("parque"), HEADS[h], mask_kind)["out"][i] for h in HEADS]
        concat = [x for part in parts for x in part]
        np.testing.assert_array_equal(mh["concat"][i], concat)
        expected = [sum(concat[r] * w_o[r, c] for r in range(len(concat)))
                    for c in range(w_o.shape[1])]
        np.testing.assert_allclose(mh["out"][i], expected, atol=1e-15)


# -------------------------------------------------- vocabulary and loss

@pytest.mark.parametrize("sentence_id", sorted(SENTENCES))
@pytest.mark.parametrize("mask_kind", ["causal", "bidirectional"])
def test_vocabulary_softmax_sums_to_one(sentence_id, mask_kind):
    _, logits, probs = next_word_probs(sentence_tokens(sentence_id), HEADS, mask_kind)
    assert probs.shape == (4, len(VOCABULARY))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-15)
    assert np.all(probs > 0)


def test_toy_loss_equals_a_hand_computation():
    # Position 0 ("El") with the causal mask sees only itself. Every head's
    # output for El, through W_O, lands on the residual; the logits are
    # residual · W_U. Recompute them with plain Python and math.log.
    tokens = SENTENCES["parque"]["tokens"]
    residual = [1.0 if w == "El" else 0.0 for w in VOCABULARY]
    concat = []
    for head in HEADS.values():
        # Only El is visible: weight 1. The previous-token head's value at
        # position 0 is its unrotated value vector.
        concat += list(head["vectors"]["El"]["v"] if "vectors" in head
                       else head["position"]["value"])
    for r, x in enumerate(concat):
        for c in range(len(VOCABULARY)):
            residual[c] += x * W_O[r][c]
    logits = [sum(residual[r] * W_U[r][c] for r in range(len(residual)))
              for c in range(len(VOCABULARY))]
    target = VOCABULARY.index(tokens[1])  # banco follows El
    log_z = math.log(sum(math.exp(z) for z in logits))
    expected = log_z - logits[target]
    step = training_step(sentence_tokens("parque"), HEADS, "causal")
    assert step["targets"] == ["banco", "del", "parque"]
    assert step["losses"][0] == pytest.approx(expected, abs=1e-12)
    assert step["loss"] == pytest.approx(float(np.mean(step["losses"])), abs=1e-15)


def test_cross_entropy_matches_minus_log():
    probs = np.array([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1]])
    np.testing.assert_allclose(cross_entropy(probs, [0, 1]), [math.log(2), -math.log(0.8)])


def test_open_mask_lowers_the_loss_by_peeking():
    for sentence_id in SENTENCES:
        assert (training_step(sentence_tokens(sentence_id), HEADS, "bidirectional")["loss"]
                < training_step(sentence_tokens(sentence_id), HEADS, "causal")["loss"])


# --------------------------------------------------------------- KV cache

@pytest.mark.parametrize("head_id", sorted(HEADS))
@pytest.mark.parametrize("sentence_id", sorted(SENTENCES))
def test_cache_equals_full_recompute(head_id, sentence_id):
    tokens = SENTENCES[sentence_id]["tokens"]
    outs, weights, caches = generate_with_cache(tokens, HEADS[head_id])
    assert np.max(np.abs(outs - full_recompute(tokens, HEADS[head_id]))) <= 1e-12
    assert [c["k"].shape[0] for c in caches] == [1, 2, 3, 4]
    for t, row in enumerate(weights):
        assert row.shape == (t + 1,) and row.sum() == pytest.approx(1.0, abs=1e-15)


def test_cache_equals_full_recompute_with_random_projections():
    for n_seq, d_model, d_k, d_v in [(1, 3, 2, 2), (7, 8, 4, 3), (16, 12, 6, 5)]:
        x = RNG.normal(size=(n_seq, d_model))
        w_q, w_k, w_v = (RNG.normal(size=(d_model, d)) for d in (d_k, d_k, d_v))
        cache = empty_cache(d_k, d_v)
        outs = []
        for x_new in x:
            out, _, cache = cache_step(cache, x_new @ w_q, x_new @ w_k, x_new @ w_v)
            outs.append(out)
        full = attention(x @ w_q, x @ w_k, x @ w_v, causal_mask(n_seq))[2]
        assert np.max(np.abs(np.array(outs) - full)) <= 1e-12


def test_prefix_is_stable_only_under_the_causal_mask():
    tokens = SENTENCES["parque"]["tokens"]
    assert prefix_drift(tokens, HEADS["lugar"], "causal") == 0.0
    assert prefix_drift(tokens, HEADS["lugar"], "bidirectional") > 0.1


def test_projection_counts():
    with_cache, without = projection_counts(4)
    assert with_cache == [3, 3, 3, 3] and without == [3, 6, 9, 12]
    assert sum(without) == 3 * 4 * 5 // 2


def test_embed_is_one_hot_and_projections_pick_rows():
    x = embed(["El", "crédito"])
    np.testing.assert_array_equal(x.sum(axis=1), [1, 1])
    w_q, _, _ = head_projections(HEADS["finanzas"])
    np.testing.assert_array_equal((x @ w_q)[1], HEADS["finanzas"]["vectors"]["crédito"]["q"])
