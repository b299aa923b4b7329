"""Pictures as data: every number a drawing shows, computed here.

Two kinds, both JSON-ready, both with a text alternative that says what they
show (the table beside each stays the reference):

- a head view: the words twice, queries on the left and keys on the right,
  one link per open (query, key) pair with its weight; masked pairs have no
  link at all;
- a chart: axes with their ticks (values in plot coordinates, labels as
  read; a log axis carries log10 of the values), and series of points in
  plot coordinates. The page only maps plot coordinates to pixels.
"""
from __future__ import annotations

import math
from collections import namedtuple

from . import display as d
from .words import best, join_words, occurrence

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


# ------------------------------------------------------------- head views

HeadLines = namedtuple("HeadLines", "id label weights opened texts")
HeadLines.__doc__ = """One head of an attention-lines picture: its id and label, its
weights [n][n], which pairs are open [n][n] (bool) and the weights' texts as
the tables beside it show them [n][n]."""


def attention_lines(tokens, heads, query=None, caption=""):
    """heads: [HeadLines]. Words on the left (queries) and on the right
    (keys), one link per open pair.

    Links carry the weight (for thickness and opacity) and its text as the
    tables show it. The alternative text names, for each query, its
    strongest link(s) with the weight.
    """
    links, alt = [], []
    for style, (head_id, label, weights, opened, texts) in enumerate(heads):  # HeadLines
        strongest = []
        for i in range(len(tokens)):
            for j in range(len(tokens)):
                if opened[i][j] and weights[i][j] > 0:
                    links.append({"head": style, "from": i, "to": j,
                                  "weight": d.num(weights[i][j]), "text": texts[i][j]})
            row = [j for j in range(len(tokens)) if opened[i][j] and weights[i][j] > 0]
            if not row:
                continue  # a row with no line (panel 8 draws banco's only)
            top = best(row, [float(weights[i][j]) for j in row])
            # A tie as read: every key whose weight reads like the strongest.
            ties = [j for j in row if texts[i][j] == texts[i][top[0]]]
            # Tied keys in «», so that a word like «y» never reads as the joiner.
            keys = ([occurrence(tokens, j) for j in ties] if len(ties) == 1 else
                    ["«%s»" % occurrence(tokens, j) for j in ties])
            strongest.append("%s → %s (%s)" % (occurrence(tokens, i), join_words(keys),
                                              texts[i][top[0]]))
        alt.append("%s: %s." % (label[:1].upper() + label[1:], "; ".join(strongest)))
    return {
        "caption": caption,
        "words": [occurrence(tokens, i) for i in range(len(tokens))],  # as the texts name them
        "labels": _word_labels(tokens, links, [h.label for h in heads] if len(heads) > 1 else None),
        "query": query,
        "heads": [{"id": h.id, "label": h.label, "style": i} for i, h in enumerate(heads)],
        "links": links,
        "alt": "Líneas de atención, de cada consulta (izquierda) a cada clave (derecha). "
               "Por cabeza, el enlace más fuerte de cada consulta, con su peso. " + " ".join(alt),
    }


def _word_labels(tokens, links, heads=None):
    """What each word's button says to a screen reader: its links and their
    weights, «banco (consulta): El 0,50, banco 0,50», or «sin enlaces»; with
    several heads, each link names its head."""
    labels = {}
    for side, role, mine, other in (("q", "consulta", "from", "to"), ("k", "clave", "to", "from")):
        labels[side] = []
        for i in range(len(tokens)):
            said = ", ".join("%s %s%s" % (occurrence(tokens, link[other]), link["text"],
                                          " (%s)" % heads[link["head"]] if heads else "")
                             for link in links if link[mine] == i)
            labels[side].append("%s (%s): %s" % (occurrence(tokens, i), role,
                                                 said or "sin enlaces"))
    return labels


# ----------------------------------------------------------------- charts

def nice_step(span, count=5):
    """A round tick step (1, 2 or 5 × 10^k) giving about `count` ticks."""
    if span <= 0:
        return 1.0
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def linear_axis(lo, hi, label, count=5, digits=None, integer=False):
    """An axis over [lo, hi] widened to round ticks, labels as read; an
    integer axis (layers, steps) never ticks between whole numbers."""
    if hi <= lo:
        lo, hi = lo - 1, hi + 1
    step = nice_step(hi - lo, count)
    if integer:
        step = max(1.0, step)
    start = math.floor(lo / step) * step
    end = math.ceil(hi / step) * step
    if digits is None:
        digits = max(0, -int(math.floor(math.log10(step)))) if step < 1 else 0
    ticks = []
    value = start
    while value <= end + step / 2:
        ticks.append({"value": d.num(value), "label": d.fmt(value, digits)})
        value += step
    return {"min": d.num(start), "max": d.num(end), "log": False, "label": label,
            "ticks": ticks}


def log_axis(lo, hi, label):
    """A log10 axis over positive values: plot coordinates are log10(value),
    ticks at powers of ten, read «10⁻⁴»."""
    low = math.floor(math.log10(lo))
    high = math.ceil(math.log10(hi))
    if high == low:
        high += 1
    stride = max(1, int(math.ceil((high - low) / 6)))
    ticks = [{"value": float(p), "label": power_text(p)} for p in range(low, high + 1, stride)]
    return {"min": float(low), "max": float(high), "log": True, "label": label, "ticks": ticks,
            "scale": "Escala logarítmica: cada marca es %s veces la anterior." % _TIMES.get(
                stride, power_text(stride))}


_TIMES = {1: "diez", 2: "cien", 3: "mil"}  # a tick's step, in words


def power_text(p):
    return "1" if p == 0 else "10" + str(p).translate(SUPERSCRIPT)


def series(name, xs, ys, style, log=False, dash=False, dots=False):
    """Points in plot coordinates (log10 of y on a log axis). dots: the values
    exist only at the points (whole offsets), and each is drawn."""
    points = [[d.num(x), d.num(math.log10(y) if log else y)] for x, y in zip(xs, ys)]
    return {"name": name, "style": style, "dash": dash, "dots": dots, "points": points}


def chart(title, x, y, lines, alt, marker=None, kind="line"):
    """A chart: axes, series, an optional marked x, and its text alternative."""
    return {"title": title, "x": x, "y": y, "series": lines, "marker": marker,
            "kind": kind, "alt": alt}
