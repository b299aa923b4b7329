"""The lab's didactic data: sentences, vocabulary and named heads.

Everything the page teaches with lives here, as plain data, so a reader can
check every number by hand.

How the vectors become Q, K and V
---------------------------------
Each word of the vocabulary has a one-hot embedding x (d_model = 6, one
coordinate per word). A head's projections W_Q, W_K, W_V are [d_model, 2]
matrices, so q = x·W_Q simply picks the row of W_Q that belongs to the word.
That is why each head below is written as a table word -> (q, k, v): each row
*is* a row of that head's projection matrices. Real models learn these
matrices; here they were chosen by hand to make one pattern visible per head.

Every head has d_k = d_v = 2, so every score is divided by √2.

The place and money heads' vectors depend only on the word, not on its
position. Therefore, under the causal mask, "banco" in both sentences sees
exactly the same tokens (El, banco) and produces exactly the same mixture.
A word the reader types that is not one of the six takes the vectors of
its group's word (lab_core/vocabulary.py: «río» those of parque). The
previous-token head is built from position alone (see its entry).
"""
from __future__ import annotations

# The words the lab knows, in the order of the one-hot embedding.
VOCABULARY = ("El", "banco", "del", "parque", "de", "crédito")

# Two sentences that share the prefix "El · banco" and then disambiguate it.
SENTENCES = {
    "parque": {
        "label": "El banco del parque",
        "tokens": ("El", "banco", "del", "parque"),
    },
    "credito": {
        "label": "El banco de crédito",
        "tokens": ("El", "banco", "de", "crédito"),
    },
}

# Named heads. For each word: q (query), k (key), v (value), all 2-D.
# `axes` names the two coordinates of q/k, `value_axes` those of v.
HEADS = {
    "lugar": {
        "label": "pista de lugar",
        "summary": (
            "banco pregunta si hay un lugar cerca (q = (1; 0)); parque responde "
            "con una clave fuerte en el eje «lugar» (k = (2; 0))."
        ),
        "axes": ("lugar", "función"),
        "value_axes": ("lugar", "finanzas"),
        "vectors": {
            # The article's exercise: q(banco) = (1, 0), k(parque) = (2, 0),
            # so score = (1·2 + 0·0)/√2 = 2/√2 ≈ 1,41.
            # Function words ask for function words: (0, 1)·(0, 1)/√2 ≈ 0,71.
            "El": {"q": (0, 1), "k": (0, 1), "v": (0, 0)},
            "banco": {"q": (1, 0), "k": (0, 0), "v": (0.5, 0.5)},
            "del": {"q": (0, 1), "k": (0, 1), "v": (0, 0)},
            "parque": {"q": (1, 0), "k": (2, 0), "v": (1, 0)},
            "de": {"q": (0, 1), "k": (0, 1), "v": (0, 0)},
            "crédito": {"q": (0, 0), "k": (0, 0), "v": (0, 1)},
        },
    },
    "finanzas": {
        "label": "pista financiera",
        "summary": (
            "banco busca una palabra de dinero (q = (0; 1)); crédito responde "
            "con la clave (0; 2), como parque en la pista de lugar."
        ),
        "axes": ("función", "dinero"),
        "value_axes": ("lugar", "finanzas"),
        "vectors": {
            "El": {"q": (1, 0), "k": (1, 0), "v": (0, 0)},
            "banco": {"q": (0, 1), "k": (0, 1), "v": (0.5, 0.5)},
            "del": {"q": (1, 0), "k": (1, 0), "v": (0, 0)},
            "parque": {"q": (0, 0), "k": (0, 0), "v": (1, 0)},
            "de": {"q": (1, 0), "k": (1, 0), "v": (0, 0)},
            # crédito also looks back at banco: (0, 1)·(0, 1)/√2 ≈ 0,71.
            "crédito": {"q": (0, 1), "k": (0, 2), "v": (0, 1)},
        },
    },
    "anterior": {
        "label": "token anterior",
        "summary": (
            "no mira qué palabra es, sino dónde está: la consulta de la posición i "
            "gira como la clave de la posición i − 1 (una rotación como la del panel 5, "
            "con su propio θ fijo, 0,45: el deslizador de ese panel no la mueve), así que en cualquier frase de hasta 12 palabras cada palabra "
            "apunta a la anterior; la primera, sin nadie delante, se mira a sí misma."
        ),
        "axes": ("eje 1", "eje 2"),
        "value_axes": ("eje 1", "eje 2"),
        # Built from position, not from the word (heads.position_qkv):
        # k_j = R(j·θ)·base, q_i = R((i − 1)·θ)·base, v_j = R(j·θ)·value.
        # q_i·k_j = |base|²·cos((j − i + 1)·θ): largest, 25, at j = i − 1.
        # θ ≤ 2π/13 keeps the peak unique for up to 12 words with either
        # mask: no offset of such a sentence comes back within θ of a whole
        # turn (with θ = 0,5, the first word of 12 looked at the last).
        "position": {"theta": 0.45, "base": (5.0, 0.0), "value": (1.0, 0.0)},
    },
}

# The output projection W_O [n_head·d_v, d_model]: it maps the concatenated
# mixtures back into the residual stream, whose coordinates are the words of
# VOCABULARY (one-hot embeddings). Rows are the concatenated coordinates, in
# head order: lugar (lugar, finanzas), finanzas (lugar, finanzas), anterior
# (eje 1, eje 2). Place evidence pushes towards "parque", money evidence
# towards "crédito"; the previous-token head is not used by the toy unembedding.
W_O = (
    #  El   banco del  parque de   crédito
    (0.0, 0.0, 0.0, 1.0, 0.0, 0.0),  # lugar · lugar
    (0.0, 0.0, 0.0, 0.0, 0.0, 1.0),  # lugar · finanzas
    (0.0, 0.0, 0.0, 1.0, 0.0, 0.0),  # finanzas · lugar
    (0.0, 0.0, 0.0, 0.0, 0.0, 1.0),  # finanzas · finanzas
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # anterior · eje 1
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),  # anterior · eje 2
)

# The unembedding W_U [d_model, vocabulary]: residual stream -> next-word
# logits. Rows are residual coordinates (the current word, plus the context
# the heads wrote in), columns the next word. It encodes a toy bigram model
# ("El" is followed by "banco", "banco" by "del" or "de") that the context
# can tip: place evidence favours "del" and "parque", money "de" and "crédito".
W_U = (
    #  El   banco del  parque de   crédito   <- next word
    (0.0, 3.0, 0.0, 0.0, 0.0, 0.0),  # current word El
    (0.0, 0.0, 1.5, 0.0, 1.5, 0.0),  # current word banco
    (0.0, 0.0, 0.0, 3.0, 0.0, 0.0),  # current word del
    (1.0, 0.0, 2.0, 0.0, 0.0, 0.0),  # parque (word or place evidence)
    (0.0, 0.0, 0.0, 0.0, 0.0, 3.0),  # current word de
    (1.0, 0.0, 0.0, 0.0, 2.0, 0.0),  # crédito (word or money evidence)
)

# Single-frequency RoPE: the article's vectors, rotated by position·θ.
ROPE_DEFAULTS = {"theta": 0.5, "rope_m": 1, "rope_n": 3, "q": (1.0, 0.0), "k": (2.0, 0.0)}

# The state a page opens in: the article's exercise, one click from done.
DEFAULT_STATE = {
    "sentence": "parque",
    "query": 1,
    "mask": "causal",
    "head": "lugar",
}
