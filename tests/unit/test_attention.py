"""The attention engine: the article's number, invariants, and a second computation."""
import math

import numpy as np
import pytest

from lab_core.attention import (
    apply_mask, attention, bidirectional_mask, causal_mask, make_mask,
    scaled_scores, softmax,
)
from lab_core.heads import embed, head_projections, run_head, sentence_tokens
from lab_core.didactic import HEADS, SENTENCES, VOCABULARY


def naive_attention(q, k, v, mask):
    """The same computation with explicit loops and math.exp, for cross-checks."""
    n_q, n_k, d_k = q.shape[0], k.shape[0], q.shape[1]
    scores = [[sum(q[i, c] * k[j, c] for c in range(d_k)) / math.sqrt(d_k)
               for j in range(n_k)] for i in range(n_q)]
    weights, out = [], []
    for i in range(n_q):
        allowed = [scores[i][j] for j in range(n_k) if mask[i, j]]
        top = max(allowed)
        exps = [math.exp(scores[i][j] - top) if mask[i, j] else 0.0 for j in range(n_k)]
        total = sum(exps)
        weights.append([e / total for e in exps])
        out.append([sum(weights[i][j] * v[j, c] for j in range(n_k))
                    for c in range(v.shape[1])])
    return np.array(scores), np.array(weights), np.array(out)


def test_article_place_cue_score_is_two_over_root_two():
    run = run_head(sentence_tokens("parque"), HEADS["lugar"], "bidirectional")
    banco, parque = 1, 3
    np.testing.assert_array_equal(run["q"][banco], [1.0, 0.0])
    np.testing.assert_array_equal(run["k"][parque], [2.0, 0.0])
    assert run["scores"][banco, parque] == pytest.approx(2 / math.sqrt(2), abs=1e-15)
    assert round(run["scores"][banco, parque], 2) == 1.41
    assert run["weights"][banco, parque] > 0.5


def test_closing_the_causal_mask_zeroes_the_same_weight():
    run = run_head(sentence_tokens("parque"), HEADS["lugar"], "causal")
    assert run["weights"][1, 3] == 0.0
    # The raw score is still 1,41: the mask, not the score, removes parque.
    assert run["scores"][1, 3] == pytest.approx(math.sqrt(2))


def test_hand_computed_three_by_three():
    # q = k = [[1,0],[0,1],[1,1]], v = identity-like; d_k = 2, so scores are q·k/√2.
    q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    k = q.copy()
    v = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    r = 1 / math.sqrt(2)
    expected_scores = np.array([[r, 0, r], [0, r, r], [r, r, 2 * r]])
    scores, weights, out = attention(q, k, v, causal_mask(3))
    np.testing.assert_allclose(scores, expected_scores, rtol=0, atol=1e-15)
    # Row 0 sees only itself; row 1 sees scores (0, r); row 2 sees (r, r, 2r).
    e = math.exp
    row1 = [e(0) / (e(0) + e(r)), e(r) / (e(0) + e(r)), 0.0]
    z2 = 2 * e(r) + e(2 * r)
    row2 = [e(r) / z2, e(r) / z2, e(2 * r) / z2]
    np.testing.assert_allclose(weights, [[1, 0, 0], row1, row2], rtol=0, atol=1e-15)
    np.testing.assert_allclose(out, [[1, 0], row1[:2], row2[:2]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("mask_kind", ["causal", "bidirectional"])
@pytest.mark.parametrize("head_id", sorted(HEADS))
@pytest.mark.parametrize("sentence_id", sorted(SENTENCES))
def test_weights_rows_sum_to_one_and_masked_are_exactly_zero(sentence_id, head_id, mask_kind):
    run = run_head(sentence_tokens(sentence_id), HEADS[head_id], mask_kind)
    np.testing.assert_allclose(run["weights"].sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.all(run["weights"][~run["mask"]] == 0.0)
    assert np.all(run["weights"][run["mask"]] > 0.0)


@pytest.mark.parametrize("mask_kind", ["causal", "bidirectional"])
def test_vectorised_attention_matches_naive_loop_on_random_inputs(mask_kind):
    rng = np.random.default_rng(7)
    for n_seq, d_k, d_v in [(1, 1, 1), (3, 2, 2), (5, 4, 3), (9, 8, 6)]:
        q, k = rng.normal(size=(n_seq, d_k)), rng.normal(size=(n_seq, d_k))
        v = rng.normal(size=(n_seq, d_v))
        mask = make_mask(mask_kind, n_seq)
        scores, weights, out = attention(q, k, v, mask)
        n_scores, n_weights, n_out = naive_attention(q, k, v, mask)
        np.testing.assert_allclose(scores, n_scores, rtol=0, atol=1e-12)
        np.testing.assert_allclose(weights, n_weights, rtol=0, atol=1e-12)
        np.testing.assert_allclose(out, n_out, rtol=0, atol=1e-12)


@pytest.mark.parametrize("head_id", sorted(HEADS))
def test_every_didactic_score_matches_naive_loop(head_id):
    for sentence_id in SENTENCES:
        run = run_head(sentence_tokens(sentence_id), HEADS[head_id], "bidirectional")
        n_scores, _, n_out = naive_attention(run["q"], run["k"], run["v"], run["mask"])
        np.testing.assert_allclose(run["scores"], n_scores, rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(run["out"], n_out, rtol=1e-15, atol=1e-15)


def test_masks():
    np.testing.assert_array_equal(
        causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    assert bidirectional_mask(3).all()
    assert causal_mask(6).diagonal().all()
    with pytest.raises(ValueError, match="no existe"):
        make_mask("futuro", 3)


def test_mask_goes_in_before_softmax_as_minus_infinity():
    masked = apply_mask(np.zeros((2, 2)), causal_mask(2))
    assert masked[0, 1] == -np.inf
    np.testing.assert_array_equal(softmax(masked), [[1.0, 0.0], [0.5, 0.5]])


def test_softmax_is_stable_for_large_scores():
    w = softmax(np.array([[1000.0, 1000.0, -1000.0]]))
    assert np.all(np.isfinite(w))
    np.testing.assert_allclose(w, [[0.5, 0.5, 0.0]], atol=1e-300)


def test_shape_errors_are_value_errors():
    with pytest.raises(ValueError, match="d_k"):
        scaled_scores(np.zeros((2, 2)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="una fila por posición"):
        attention(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((3, 2)), causal_mask(2))
    with pytest.raises(ValueError, match="forma"):
        apply_mask(np.zeros((2, 2)), causal_mask(3))
    with pytest.raises(ValueError, match="al menos una clave"):
        apply_mask(np.zeros((2, 2)), np.zeros((2, 2), dtype=bool))


def test_projections_are_one_hot_row_picks():
    w_q, w_k, w_v = head_projections(HEADS["lugar"])
    assert w_q.shape == (len(VOCABULARY), 2)
    x = embed(["banco"])
    np.testing.assert_array_equal(x @ w_q, [[1.0, 0.0]])
    # A word outside the article's six has no column of its own: the toy
    # model reads it only through the heads.
    np.testing.assert_array_equal(embed(["perro", "El"]), [[0] * 6, [1, 0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(embed(["el"]), embed(["El"]))


@pytest.mark.parametrize("head_id", sorted(HEADS))
def test_causal_banco_row_is_identical_in_both_sentences(head_id):
    a = run_head(sentence_tokens("parque"), HEADS[head_id], "causal")
    b = run_head(sentence_tokens("credito"), HEADS[head_id], "causal")
    np.testing.assert_array_equal(a["weights"][1], b["weights"][1])
    np.testing.assert_array_equal(a["out"][1], b["out"][1])
    # With the bidirectional mask the rest of the sentence can reach banco,
    # except in the previous-token head, which reads positions, not words:
    # both sentences have the same four.
    c = run_head(sentence_tokens("parque"), HEADS[head_id], "bidirectional")
    d = run_head(sentence_tokens("credito"), HEADS[head_id], "bidirectional")
    differs = not np.array_equal(c["out"][1], d["out"][1])
    assert differs == (head_id != "anterior")


def test_named_heads_do_what_their_names_say():
    finance = run_head(sentence_tokens("credito"), HEADS["finanzas"], "bidirectional")
    assert np.argmax(finance["weights"][1]) == 3  # banco -> crédito
    assert finance["scores"][1, 3] == pytest.approx(math.sqrt(2))
    previous = run_head(sentence_tokens("parque"), HEADS["anterior"], "causal")
    for i in range(1, 4):
        assert np.argmax(previous["weights"][i]) == i - 1
