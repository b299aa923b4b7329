"""The attention lab's heads computed by hand, in plain Python, from the
data alone (didactic.HEADS, vocabulary.GROUPS): an independent computation
the tests compare lab_core's numbers and sentences with. Nothing here calls
lab_core.heads."""
import math

from lab_core.didactic import HEADS
from lab_core.vocabulary import GROUPS

ZERO = {"q": (0.0, 0.0), "k": (0.0, 0.0), "v": (0.0, 0.0)}


def heads_with(edits):
    """Every word head's table, word -> {q, k, v}, with the edits."""
    heads = {h: {w: {r: tuple(map(float, v)) for r, v in roles.items()}
                 for w, roles in data["vectors"].items()}
             for h, data in HEADS.items() if "vectors" in data}
    for name, xy in (edits or {}).items():
        h, w, r = name.split(".")
        heads[h].setdefault(w, dict(word_row(heads[h], w)))
        heads[h][w][r] = tuple(float(x) for x in xy)
    return heads


def word_row(table, word):
    """A word's q, k and v read from the data: its own row (the article's
    «El» is any «el»), else its group's word's (vocabulary.GROUPS), else zeros."""
    low = word.lower()
    for known, row in table.items():
        if known.lower() == low:
            return row
    for _, like, words in GROUPS.values():
        if low in words:
            return table[like] if like else ZERO
    return ZERO


def rotate(v, angle):
    c, s = math.cos(angle), math.sin(angle)
    return (c * v[0] - s * v[1], s * v[0] + c * v[1])


def head_rows(tokens, h, heads):
    """q, k, v of every position: by word, or (the position head) by the
    rotations its data names: q_i at (i − 1)·θ, k_j and v_j at j·θ."""
    if h not in heads:
        spec = HEADS[h]["position"]
        t = spec["theta"]
        return [{"q": rotate(spec["base"], (i - 1) * t), "k": rotate(spec["base"], i * t),
                 "v": rotate(spec["value"], i * t)} for i in range(len(tokens))]
    return [word_row(heads[h], w) for w in tokens]


def attend(tokens, rows, causal):
    """One head by loops: scores, weights (None where masked), outputs."""
    n = len(tokens)
    scores = [[sum(a * b for a, b in zip(rows[i]["q"], rows[j]["k"]))
               / math.sqrt(2) for j in range(n)] for i in range(n)]
    weights, outs = [], []
    for i in range(n):
        seen = [j for j in range(n) if not causal or j <= i]
        top = max(scores[i][j] for j in seen)
        e = {j: math.exp(scores[i][j] - top) for j in seen}
        total = sum(e.values())
        row = [e[j] / total if j in e else None for j in range(n)]
        weights.append(row)
        outs.append([sum((row[j] or 0.0) * rows[j]["v"][c] for j in range(n))
                     for c in range(2)])
    return scores, weights, outs
