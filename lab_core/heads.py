"""From words to per-head Q, K and V, through real projection matrices.

Each head keeps its own W_Q, W_K, W_V (the classic formulation): heads stay
separate and named until their mixtures are concatenated.

A head is data: a dict with its per-word vectors (see didactic.HEADS). The
functions here take that data, so a head whose vectors a reader edited runs
through exactly the same code as the article's.
"""
from __future__ import annotations

import numpy as np

from .attention import attention, make_mask
from .didactic import HEADS, SENTENCES, VOCABULARY, W_O

D_MODEL = len(VOCABULARY)
ROLES = ("q", "k", "v")


def embed(tokens):  # n_seq words -> [n_seq, d_model]
    """One-hot embedding: row i has a 1 in the column of word i."""
    x = np.zeros((len(tokens), D_MODEL))
    for i, word in enumerate(tokens):
        if word not in VOCABULARY:
            raise ValueError("la palabra «%s» no está en el vocabulario" % (word,))
        x[i, VOCABULARY.index(word)] = 1.0
    return x


def head_projections(head):
    # head data -> W_Q [d_model, d_k], W_K [d_model, d_k], W_V [d_model, d_v]
    """Stack the head's per-word vectors into its three projection matrices."""
    vectors = head["vectors"]
    return tuple(
        np.array([vectors[word][role] for word in VOCABULARY], dtype=float)
        for role in ROLES
    )


def head_qkv(tokens, head):
    # n_seq words, head -> q [n_seq, d_k], k [n_seq, d_k], v [n_seq, d_v]
    x = embed(tokens)
    w_q, w_k, w_v = head_projections(head)
    return x @ w_q, x @ w_k, x @ w_v


def run_head(tokens, head, mask_kind):
    # -> dict of tokens, q, k, v, mask [n_seq, n_seq], scores, weights, out
    """Everything one head computes for one sentence under one mask."""
    q, k, v = head_qkv(tokens, head)
    mask = make_mask(mask_kind, len(tokens))
    scores, weights, out = attention(q, k, v, mask)
    return {
        "tokens": tuple(tokens),
        "q": q,
        "k": k,
        "v": v,
        "mask": mask,
        "scores": scores,
        "weights": weights,
        "out": out,
    }


def sentence_tokens(sentence_id):
    """The words of one of the article's sentences."""
    try:
        return SENTENCES[sentence_id]["tokens"]
    except (KeyError, TypeError):
        raise ValueError(
            "la frase «%s» no existe; elige entre %s"
            % (sentence_id, ", ".join(SENTENCES))
        ) from None


def get_head(head_id):
    try:
        return HEADS[head_id]
    except (KeyError, TypeError):
        raise ValueError(
            "la cabeza «%s» no existe; elige entre %s" % (head_id, ", ".join(HEADS))
        ) from None


def edit_heads(edits):
    """HEADS with some vectors replaced: {"lugar.parque.k": [3, 0], …} -> heads.

    Returns new dicts; the article's data is never modified.
    """
    heads = {}
    for head_id, head in HEADS.items():
        vectors = {word: dict(roles) for word, roles in head["vectors"].items()}
        heads[head_id] = dict(head, vectors=vectors)
    for name, value in (edits or {}).items():
        head_id, word, role = name.split(".")
        heads[head_id]["vectors"][word][role] = tuple(float(x) for x in value)
    return heads


def multi_head(tokens, heads, mask_kind):
    # n_seq words, {head id: head} ->
    #   dict: runs (one per head, by id), concat [n_seq, n_head·d_v],
    #   w_o [n_head·d_v, d_model], out [n_seq, d_model]
    """All heads side by side, then concatenation and the output projection.

    Each head keeps its own projections and its own attention; only here are
    their mixtures put next to each other and mixed again by W_O.
    """
    runs = {head_id: run_head(tokens, head, mask_kind) for head_id, head in heads.items()}
    concat = np.concatenate([runs[head_id]["out"] for head_id in heads], axis=1)
    w_o = np.array(W_O, dtype=float)
    if w_o.shape[0] != concat.shape[1]:
        raise ValueError("W_O espera %d filas y hay %d coordenadas concatenadas"
                         % (w_o.shape[0], concat.shape[1]))
    return {"runs": runs, "concat": concat, "w_o": w_o, "out": concat @ w_o}
