"""What every panel of the model lab shares: the runs a state names, the
figures measured on them once per step, the labels a reader sees, and how
a typed sentence is read."""
from __future__ import annotations

import functools
import math

from .. import decoder_run as R
from .. import display as d
from .. import grammar as G

MASK_LABELS = {"causal": "causal", "bidirectional": "bidireccional"}
POSITION_LABELS = {"rope": "RoPE (girar q y k)", "sinusoidal": "sinusoidal (sumada a la entrada)"}
RUN_KEYS = ("lr", "seed", "positions", "steps")  # the keys that name a pair of runs at a step
# The grammar's own loss on the held-out sentences: no predictor that reads
# only the words before can do better on average.
GRAMMAR_LOSS = G.entropy_per_word(G.HELD_OUT)
MARGIN = 0.1  # the target: the causal held-out loss within 0,1 nats of the grammar's


def runs(state):  # -> {mask: decoder_run.Run}, live: read what you need before the next call
    return R.runs_at(state["lr"], state["seed"], state["positions"], state["steps"])


@functools.lru_cache(maxsize=8)
def figures(lr, seed, positions, steps):
    """The lesson's figures at one step (decoder_run.lesson), with each run's
    losses so far: computed once per step, for every panel that reads them."""
    at = R.runs_at(lr, seed, positions, steps)
    out = R.lesson(at)
    for mask, run in at.items():
        out[mask].update(losses=tuple(run.losses), held=tuple(run.held), step=run.step)
    return out


def figures_of(state):
    return figures(*(state[k] for k in RUN_KEYS))


def percent(x):
    return d.fmt(100 * x, 0) + "\u00a0%"


def fmt_loss(x):
    """A loss as read: 0,465; one near 0 keeps its digits (0,000039); a
    diverged one in powers of ten."""
    if not math.isfinite(x) or x >= 1e4:
        return d.fmt_sci(x, powers=True) if math.isfinite(x) else "—"
    return d.fmt_small(x)


def read_words(value, label, prompt=False):
    """A typed sentence -> its words as the model reads them: lower case,
    a final «.» split off («parque.» -> «parque», «.»); refused in Spanish
    when a word is not in the model's vocabulary or the length is wrong."""
    if isinstance(value, (list, tuple)):
        value = " ".join(str(w) for w in value)
    if not isinstance(value, str):
        raise ValueError("%s: escribe las palabras como texto" % label)
    text = value.strip().lower()
    if text.endswith("."):
        text = text[:-1].rstrip() + " ."
    words = text.split()
    try:
        (R.encode_prompt if prompt else R.encode_words)(words)
    except ValueError as error:
        said = str(error)  # «el comienzo …» already names the field
        raise ValueError(said if said.startswith("el comienzo") else
                         "%s: %s" % (label, said)) from None
    return " ".join(words)
