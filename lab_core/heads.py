"""From words to per-head Q, K and V, through real projection matrices.

Each head keeps its own W_Q, W_K, W_V (the classic formulation): heads stay
separate and named until their mixtures are concatenated.

A head is data (see didactic.HEADS). A word head has per-word vectors: the
article's six words their own, any other word of the lab's vocabulary those
of its group's word (vocabulary.LIKE), an unknown word zeros. A position
head («token anterior») builds q, k and v from the position alone. The
functions here take that data, so a head whose vectors a reader edited runs
through exactly the same code as the article's.
"""
from __future__ import annotations

import numpy as np

from .attention import attention, make_mask
from .didactic import HEADS, SENTENCES, VOCABULARY, W_O
from .rope import rope_rotate
from .vocabulary import LIKE, group_of, lemma

D_MODEL = len(VOCABULARY)
ROLES = ("q", "k", "v")
# The article's words by their lower-case form: «el» is the article's «El».
ARTICLE = {word.lower(): word for word in VOCABULARY}
ZERO = {"q": (0.0, 0.0), "k": (0.0, 0.0), "v": (0.0, 0.0)}


def model_word(word):
    """The article word a written word is («el», «El» -> «El»), or None."""
    return ARTICLE.get(lemma(word) or "")


def embed(tokens):  # n_seq words -> [n_seq, d_model]
    """One-hot embedding over the article's six words: row i has a 1 in the
    column of word i. Any other word has a zero row: the toy model of
    panel 2 knows only those six, and reads the rest through the heads."""
    x = np.zeros((len(tokens), D_MODEL))
    for i, word in enumerate(tokens):
        known = model_word(word)
        if known is not None:
            x[i, VOCABULARY.index(known)] = 1.0
    return x


def vector_key(word):
    """The name a word's vectors go by in a head's table and in the
    reader's edits: the article's spelling («El»), the lexicon's («río»), or
    None for a word the lab does not know."""
    return model_word(word) or lemma(word)


def word_vectors(head, word):
    """{q, k, v} of a word in a word head: its own row, else its group's
    word's, else zeros (neutral words and words the lab does not know)."""
    vectors = head["vectors"]
    key = vector_key(word)
    if key in vectors:
        return vectors[key]
    like = LIKE.get(group_of(word))
    return vectors[ARTICLE[like]] if like else ZERO


def position_qkv(positions, spec):
    # positions, {theta, base, value} -> q, k, v, each [len(positions), 2]
    """The previous-token head, with panel 5's rotation: k_j = R(jθ)·base,
    q_i = R((i − 1)θ)·base, v_j = R(jθ)·value, so that
    q_i·k_j = |base|²·cos((j − i + 1)·θ), largest at j = i − 1."""
    theta, n = spec["theta"], len(positions)
    q = np.array([rope_rotate(spec["base"], i - 1, theta) for i in positions]).reshape(n, 2)
    k = np.array([rope_rotate(spec["base"], j, theta) for j in positions]).reshape(n, 2)
    v = np.array([rope_rotate(spec["value"], j, theta) for j in positions]).reshape(n, 2)
    return q, k, v


def is_position_head(head):
    return "position" in head


def head_projections(head, words=VOCABULARY):
    # word head, words -> W_Q [len(words), d_k], W_K, W_V: one row per word
    """A word head's projection matrices, restricted to `words`: row w of
    W_Q is word w's q (with one-hot inputs, x·W_Q picks that row)."""
    if is_position_head(head):
        raise ValueError("la cabeza «%s» no tiene vectores por palabra: los construye "
                         "con la posición" % head["label"])
    return tuple(
        np.array([word_vectors(head, word)[role] for word in words], dtype=float)
        for role in ROLES
    )


def head_qkv(tokens, head, first=0):
    # n_seq words, head -> q [n, d_k], k [n, d_k], v [n, d_v] for positions first..n_seq-1
    """q, k and v of the tokens from position `first` on (a generator
    projects only the newest: first = n_seq − 1)."""
    if is_position_head(head):
        return position_qkv(range(first, len(tokens)), head["position"])
    rows = [word_vectors(head, word) for word in tokens[first:]]
    return tuple(np.array([row[role] for row in rows], dtype=float).reshape(len(rows), 2)
                 for role in ROLES)


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
        if is_position_head(head):
            heads[head_id] = head
            continue
        vectors = {word: dict(roles) for word, roles in head["vectors"].items()}
        heads[head_id] = dict(head, vectors=vectors)
    for name, value in (edits or {}).items():
        head_id, word, role = name.split(".")
        head = heads[head_id]
        if word not in head["vectors"]:  # a group's word, edited: it gets its own row
            head["vectors"][word] = dict(word_vectors(head, word))
        head["vectors"][word][role] = tuple(float(x) for x in value)
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
