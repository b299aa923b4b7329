"""Sentences that state a conclusion, built from the numbers they talk about.

A word on the page is a result like a number: «empate», «iguales», «dos
tercios» must follow from the values beside them. The helpers here take the
values, not a verdict: a tie is decided here, once, with the same tolerance
everywhere, and plurals agree with their count.
"""
from __future__ import annotations

import numpy as np

from .display import TIE_TOLERANCE, fmt, number

# Simple fractions a reader recognises, and how to say them.
FRACTIONS = (
    (1 / 4, "un cuarto"),
    (1 / 3, "un tercio"),
    (1 / 2, "la mitad"),
    (2 / 3, "dos tercios"),
    (3 / 4, "tres cuartos"),
)
FRACTION_TOLERANCE = 0.02  # «unos dos tercios» only within 2 points of 2/3


def join_words(words, last="y"):
    """['El', 'banco', 'del'] -> 'El, banco y del'."""
    words = [str(w) for w in words]
    if not words:
        return ""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " %s " % last + words[-1]


def occurrence(words, i):
    """How a figure names word i of a sentence: «ana», or «ana (2.ª)» when
    the sentence says it more than once (its second time), so that a text
    alternative or a note never leaves the reader to guess which one."""
    word = words[i]
    if list(words).count(word) < 2:
        return word
    return "%s (%d.ª)" % (word, list(words[:i + 1]).count(word))


def quoted(words):
    """['del', 'de'] -> '«del» y «de»'."""
    return join_words(["«%s»" % w for w in words])


def plural(n, singular, plural_form=None):
    """(1, 'capa') -> '1 capa'; (12, 'capa') -> '12 capas'; (1024, 'cabeza')
    -> '1.024 cabezas', its thousands grouped as every number on the page."""
    word = singular if n == 1 else (plural_form or singular + "s")
    return "%s %s" % (fmt(n, 0), word)


def best(labels, values, tolerance=TIE_TOLERANCE):
    """The labels whose value is the maximum (several on a tie), in order.

    Values closer than the tolerance are the same number computed two ways:
    a tie reads as a tie, never as a winner picked by round-off.
    """
    values = [float(v) for v in values]
    top = max(values)
    return [label for label, v in zip(labels, values) if top - v <= tolerance]


def best_as_read(labels, texts):
    """The labels whose number text reads the largest (several on a tie as
    read): a reader who sees 0,25 four times sees a tie, whatever digits the
    page does not show."""
    values = [number(t) for t in texts]
    top = max(values)
    return [label for label, v in zip(labels, values) if v == top]


def winner_sentence(labels, texts):
    """«del (0,41)», or «empate entre del y de (0,41 cada una)».

    `texts` are the values as the table beside the sentence shows them: the
    sentence quotes exactly what the reader sees, and a tie is a tie as read.
    """
    top = best_as_read(labels, texts)
    value = texts[list(labels).index(top[0])]
    if len(top) == 1:
        return "%s (%s)" % (top[0], value)
    return "empate entre %s (%s cada una)" % (join_words(top), value)


def same(a, b, tolerance=TIE_TOLERANCE):
    """Two arrays (or numbers) of the same shape, equal up to round-off."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tolerance))


SMALL_NUMBERS = ("cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve",
                 "diez")


def small_number_word(n):
    """0..10 in words («con dos decimales»); larger numbers as digits."""
    return SMALL_NUMBERS[n] if 0 <= n < len(SMALL_NUMBERS) else str(n)


def fraction_words(share):
    """0.6665 -> 'aproximadamente dos tercios'; 0.5 -> 'la mitad'; else None."""
    for value, words in FRACTIONS:
        gap = abs(share - value)
        if gap <= FRACTION_TOLERANCE:
            return words if gap < 1e-9 else "aproximadamente " + words
    return None


def prompt(question):
    """A prediction prompt (views.py): {"id", "question", "options",
    "answers", "explanation"}, with "printed", what paper shows in its place:
    the options, then the whole answer."""
    labels = " · ".join(option["label"] for option in question["options"])
    return dict(question, printed="Opciones: %s. %s" % (labels, question["explanation"]))
