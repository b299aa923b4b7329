"""Didactic data for «Entrénala tú»: a tiny corpus where «banco» must learn its sense.

The first article's thesis, proved by learning instead of by hand-made
vectors: every sentence starts «El banco …», and the word that decides
whether «banco» is a seat (asiento) or a bank (entidad) always comes *after*
it. Under the causal mask, banco's visible prefix (El, banco) is the same in
every sentence, so no weights can tell the senses apart; with bidirectional
attention banco can read the deciding word. `lab_core.train` trains one head
on this corpus twice, once per mask, from the same initial weights.

How the corpus is built
-----------------------
- Each sentence is a tuple of words plus the sense of «banco» in it.
- Exactly one deciding word per sentence (listed in DECIDING_WORDS), at
  positions 2 to 6 (banco is position 1), sometimes followed by more words.
- The other words are neutral distractors (de, del, la, está, muy…). Most of
  them appear with both senses in training, so the head cannot win by
  counting them: it has to find the deciding word.
- The test sentences are new combinations never seen in training: a deciding
  word at another position, or among distractors it never came with
  («plegable» with «es muy viejo», «cuenta» after «nuevo abre una»…).
- The lab's own six words (El, banco, del, parque, de, crédito) are the first
  six of the vocabulary, in the lab's order, and the lab's two sentences are
  the first training sentence of each sense.
"""
from __future__ import annotations

# The two senses of «banco», in the order of the read-out's two logits.
SENSES = ("asiento", "entidad")

# The words that decide the sense. Everything else is a distractor.
DECIDING_WORDS = {
    "asiento": ("parque", "plaza", "madera", "jardín", "plegable"),
    "entidad": ("crédito", "préstamo", "dinero", "cuenta", "central"),
}

# (words, sense). The deciding word's position is noted for the reader.
TRAIN_SENTENCES = (
    # asiento: a seat
    (("El", "banco", "del", "parque"), "asiento"),                             # 3
    (("El", "banco", "de", "madera"), "asiento"),                              # 3
    (("El", "banco", "plegable"), "asiento"),                                  # 2
    (("El", "banco", "junto", "al", "jardín"), "asiento"),                     # 4
    (("El", "banco", "verde", "de", "la", "plaza"), "asiento"),                # 5
    (("El", "banco", "está", "en", "un", "parque"), "asiento"),                # 5
    (("El", "banco", "viejo", "es", "de", "madera"), "asiento"),               # 5
    (("El", "banco", "del", "jardín", "es", "muy", "grande"), "asiento"),      # 3
    (("El", "banco", "nuevo", "está", "en", "la", "plaza"), "asiento"),        # 6
    (("El", "banco", "plegable", "es", "nuevo"), "asiento"),                   # 2
    (("El", "banco", "grande", "del", "parque", "es", "muy", "viejo"), "asiento"),  # 4
    (("El", "banco", "viejo", "da", "al", "parque"), "asiento"),               # 5
    # entidad: a bank
    (("El", "banco", "de", "crédito"), "entidad"),                             # 3
    (("El", "banco", "da", "un", "préstamo"), "entidad"),                      # 4
    (("El", "banco", "central"), "entidad"),                                   # 2
    (("El", "banco", "guarda", "el", "dinero"), "entidad"),                    # 4
    (("El", "banco", "abre", "una", "cuenta"), "entidad"),                     # 4
    (("El", "banco", "está", "lleno", "de", "dinero"), "entidad"),             # 5
    (("El", "banco", "nuevo", "da", "crédito"), "entidad"),                    # 4
    (("El", "banco", "del", "préstamo", "es", "muy", "grande"), "entidad"),    # 3
    (("El", "banco", "verde", "guarda", "la", "cuenta"), "entidad"),           # 5
    (("El", "banco", "central", "es", "nuevo"), "entidad"),                    # 2
    (("El", "banco", "grande", "de", "crédito", "es", "muy", "viejo"), "entidad"),  # 4
    (("El", "banco", "viejo", "da", "un", "préstamo"), "entidad"),             # 5
)

# New combinations: each deciding word here is at a position, or among
# distractors, that it never had in training.
TEST_SENTENCES = (
    (("El", "banco", "verde", "de", "madera"), "asiento"),                     # 4
    (("El", "banco", "del", "jardín", "está", "lleno"), "asiento"),            # 3
    (("El", "banco", "plegable", "es", "muy", "viejo"), "asiento"),            # 2
    (("El", "banco", "grande", "está", "en", "la", "plaza"), "asiento"),       # 6
    (("El", "banco", "del", "crédito", "es", "muy", "viejo"), "entidad"),      # 3
    (("El", "banco", "nuevo", "abre", "una", "cuenta"), "entidad"),            # 5
    (("El", "banco", "central", "es", "muy", "grande"), "entidad"),            # 2
    (("El", "banco", "viejo", "está", "lleno", "de", "dinero"), "entidad"),    # 6
)


def _vocabulary(sentences):
    """Every word, in order of first appearance (El and banco come first)."""
    words = []
    for tokens, _ in sentences:
        for word in tokens:
            if word not in words:
                words.append(word)
    return tuple(words)


# The lab's six words first, in the lab's order, then every other word of the
# corpus in order of first appearance. Embeddings are one-hot, so d_model is
# the vocabulary size.
_LAB_WORDS = ("El", "banco", "del", "parque", "de", "crédito")
TRAIN_VOCABULARY = _LAB_WORDS + tuple(
    word for word in _vocabulary(TRAIN_SENTENCES + TEST_SENTENCES)
    if word not in _LAB_WORDS
)

BANCO_POSITION = 1  # «El banco …»: banco is always the second token

# Training defaults: chosen so that the bidirectional run visibly learns over
# the first few hundred steps (small initial weights make a slow start, the
# read-out and the values grow together) and generalises to the test set:
# with lr = 0,5 the loss falls from ln 2 ≈ 0,69 to ≈ 0,04 between steps 50 and
# 200, and every seed from 0 to 39 reaches ≥ 90 % on the test set by step 300.
# Larger rates learn faster, but gradient descent on the causal run, stuck at
# ln 2, starts to oscillate near lr = 4 and overflows from lr ≈ 5 on.
DEFAULT_LR = 0.5
DEFAULT_SEED = 0
MAX_STEPS = 500
MAX_SEED = 2 ** 31 - 1
INIT_SCALE = 0.1  # initial weights are normal(0, 1) · 0.1: small, near-uniform attention
