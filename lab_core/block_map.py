"""The map: where each panel sits in a transformer, as data.

Both pages show one small figure of the whole path, from the words to the
next word, through one block (LayerNorm, attention step by step, heads and
W_O, residual, LayerNorm, FFN, residual). Each part names the panels that
teach it, on either page; the build draws the figure once, from this data,
into each page (scripts/pages.py), and the page only marks the part of the
panel the reader is on.

Geometry is in the figure's own units (its viewBox): rows of boxes read left
to right, each row's end joined to the next row's start.
"""
from __future__ import annotations

from collections import namedtuple

from .words import join_words

Part = namedtuple("Part", "id label long panels")
Part.__doc__ = """One box: its id, its short label, what it is in a few words,
and the panels that teach it as (lab, panel id) pairs, the one to link first
on each page."""

# The rows, in reading order (BLOCK_ROWS says which are inside the block).
ROWS = (
    (Part("palabras", "Palabras", "las palabras de la frase",
          (("attention", "propia"), ("block", "orden"), ("model", "modelo"))),
     Part("vectores", "Vectores", "un vector por palabra",
          (("attention", "propia"), ("model", "modelo"))),
     Part("posicion", "Posición", "la posición de cada palabra",
          (("block", "posicion"), ("attention", "rope"), ("model", "entrena")))),
    (Part("norma1", "LayerNorm", "la primera normalización",
          (("block", "layernorm"), ("model", "modelo"))),
     Part("puntuacion", "q·k/√dₖ", "las puntuaciones, q·k entre √dₖ",
          (("attention", "puntuacion"), ("attention", "aprende"), ("model", "cabezas"))),
     Part("mascara", "Máscara", "la máscara, antes de softmax",
          (("attention", "mascara"), ("attention", "entrenamiento"), ("model", "entrena"), ("model", "aviso"))),
     Part("softmax", "Softmax", "softmax: de puntuaciones a pesos",
          (("attention", "mezcla"), ("attention", "aprende"), ("model", "cabezas")))),
    (Part("mezcla", "Mezcla de v", "la mezcla de los valores con esos pesos",
          (("attention", "mezcla"), ("attention", "cache"), ("block", "orden"), ("model", "cabezas"))),
     Part("cabezas", "Cabezas y W_O", "varias cabezas, unidas por W_O",
          (("attention", "cabezas"), ("model", "cabezas"))),
     Part("residual1", "+ residual", "la suma residual tras la atención",
          (("block", "residual"), ("model", "modelo")))),
    (Part("norma2", "LayerNorm", "la segunda normalización",
          (("block", "layernorm"), ("model", "modelo"))),
     Part("ffn", "FFN", "la red feed-forward, posición a posición",
          (("block", "ffn"), ("model", "modelo"))),
     Part("residual2", "+ residual", "la suma residual tras la FFN",
          (("block", "residual"), ("model", "modelo")))),
    (Part("siguiente", "Siguiente palabra", "la siguiente palabra, del vocabulario",
          (("attention", "cache"), ("attention", "entrenamiento"), ("attention", "mezcla"), ("model", "genera"))),),
)
BLOCK_ROWS = (1, 3)  # the rows inside one block (first, last)
WHOLE = ("block", "bloque")  # the panel of the whole block marks every part inside it
PAGES = {"attention": "./", "block": "bloque.html", "model": "modelo.html"}

WIDTH = 360
ROW_HEIGHT = 24
ROW_GAP = 12
MARGIN = 6
BOX_GAP = 10
FRAME_PAD = 6
FRAME_LABEL = 14  # room above the block's first row for its label


def block_map(lab, titles):
    """The figure for the page of `lab` ("attention" or "block").

    titles: {lab: {panel id: title}} for both labs. Returns {title, alt,
    width, height, frame, frame_label, parts, joins; fold: the words of its
    closed part on a phone}: each part with its
    box (x, y, w, h), the link it opens (a panel of this page if one teaches
    it, else the other page's), its link's spoken label, and the panels of
    this page that mark it as the reader's place.
    """
    parts, joins, y = [], [], MARGIN
    frame_top = frame_bottom = None
    row_boxes = []
    for r, row in enumerate(ROWS):
        if r == BLOCK_ROWS[0]:
            frame_top = y
            y += FRAME_LABEL
        inner = FRAME_PAD if BLOCK_ROWS[0] <= r <= BLOCK_ROWS[1] else 0
        left, right = MARGIN + inner, WIDTH - MARGIN - inner
        width = (right - left - BOX_GAP * (len(row) - 1)) / len(row)
        boxes = []
        for c, part in enumerate(row):
            x = left + c * (width + BOX_GAP)
            boxes.append((x, y, width, ROW_HEIGHT))
            inside = BLOCK_ROWS[0] <= r <= BLOCK_ROWS[1]
            parts.append(_part(part, lab, titles, (x, y, width, ROW_HEIGHT), inside))
            if c:
                joins.append([[x - BOX_GAP, y + ROW_HEIGHT / 2], [x, y + ROW_HEIGHT / 2]])
        row_boxes.append(boxes)
        y += ROW_HEIGHT
        if r == BLOCK_ROWS[1]:
            y += FRAME_PAD
            frame_bottom = y
        y += ROW_GAP
    for upper, lower in zip(row_boxes, row_boxes[1:]):
        # From the end of a row down, back to the next row's start, down.
        x1, y1, w1, h1 = upper[-1]
        x2, y2, w2, _ = lower[0]
        turn = y2 - ROW_GAP / 2 if y2 - (y1 + h1) <= ROW_GAP + FRAME_PAD else y1 + h1 + ROW_GAP / 2
        joins.append([[x1 + w1 / 2, y1 + h1], [x1 + w1 / 2, turn], [x2 + w2 / 2, turn],
                      [x2 + w2 / 2, y2]])
    height = y - ROW_GAP + MARGIN
    here = [p for p in parts if p["panels"]]
    return {
        "title": "Dónde está cada panel en un transformer",
        "fold": "Mapa: dónde está cada panel",
        "alt": "Un transformer, de las palabras a la siguiente palabra: %s; después, un "
               "bloque que se repite: %s; al final, %s. Cada parte lleva a su panel." % (
                   join_words([p.long for p in ROWS[0]]),
                   join_words([p.long for row in ROWS[BLOCK_ROWS[0]:BLOCK_ROWS[1] + 1]
                               for p in row]),
                   ROWS[-1][0].long) + (" Esta página enseña %s." % join_words(
                       [p["label"] for p in here]) if here else ""),
        "width": WIDTH, "height": height,
        "frame": [MARGIN, frame_top, WIDTH - 2 * MARGIN, frame_bottom - frame_top],
        "frame_label": "Un bloque (se repite)",
        "parts": parts, "joins": joins,
    }


def _part(part, lab, titles, box, inside):
    """A part's box, link and marks, for the page of `lab`; a part `inside`
    the block is also marked by the whole block's panel (not linked to it:
    its link goes where it is taught)."""
    mine = [panel for owner, panel in part.panels if owner == lab]
    owner, panel = (lab, mine[0]) if mine else part.panels[0]
    href = "#%s" % panel if owner == lab else "%s?panel=%s#%s" % (PAGES[owner], panel, panel)
    where = "" if owner == lab else " (en la otra página)"
    x, y, w, h = box
    return {
        "id": part.id, "label": part.label,
        "x": round(x, 2), "y": round(y, 2), "w": round(w, 2), "h": h,
        "href": href, "panel": panel if owner == lab else None,
        "spoken": "%s: %s. Panel «%s»%s" % (part.label, part.long, titles[owner][panel], where),
        "panels": mine + [WHOLE[1]] * (inside and lab == WHOLE[0]),
    }
