"""What a lab is, declared the same way for both articles.

A lab is a `Spec` of state keys, a table of its panels and the parts of the
view that belong to no panel (its controls, the state line, what a screen
reader hears). Each panel is a module named after the panel's id, which
lists its view keys and their builders in `PARTS`; every builder declares
the state keys it reads (memo.reads). One table per lab names each panel
once:

    PANELS = (Panel("puntuacion", "1 · De dónde sale una puntuación", puntuacion), …)

From it come the view (`Lab.build_view`), the views prepared at build time
(prepared.py), and the state keys each panel reads (`Lab.panel_reads`,
written by the build into the page as data-reads).
"""
from __future__ import annotations

from collections import namedtuple

from .display import fmt_short
from .memo import frozen, reads
from .state import url_text

Panel = namedtuple("Panel", "id title module")
Panel.__doc__ = """One panel: its id (the page's anchor and the `panel` state key's
value), its title as the page shows it, and its module, whose PARTS are
(view key, builder) pairs."""


class Lab:
    """A lab: its name, its Spec, its panels, and the parts no panel owns.

    `selectors`: the keys a reader sets with the page's selects and steppers;
    every state that only changes these is prepared at build time.
    """

    def __init__(self, name, spec, panels, common, selectors):
        self.name = name
        self.spec = spec
        self.panels = tuple(panels)
        self.parts = tuple(common) + tuple(part for panel in self.panels
                                           for part in panel.module.PARTS)
        self.selectors = tuple(selectors)
        keys = [name for name, _ in self.parts]
        if len(set(keys)) != len(keys):
            raise ValueError("a view key belongs to two parts: %s" % keys)

    @property
    def titles(self):
        """{panel id: title}: the `panel` state key's choices."""
        return {panel.id: panel.title for panel in self.panels}

    def build_view(self, state, held=None):
        """Every part of the view, for one valid state.

        `held`: an earlier view of this lab (the last one the page was sent,
        or the prepared view it adopted). A part whose builder reads the same
        values of its keys in both states is taken from it as it is: a
        builder sees only the keys it declares (memo.reads), so it would
        build the same part. A change then runs only the builders it
        concerns, even those whose cache has never seen the held state.
        """
        view = {"lab": self.name, "state": dict(state), "notices": []}
        read = frozen(state)  # each value frozen once, for every builder's cache key
        was = frozen(held["state"]) if held and held.get("lab") == self.name else None
        for key, build in self.parts:
            if was is not None and key in held and all(
                    k in was and read.frozen_value(k) == was.frozen_value(k) for k in build.keys):
                view[key] = held[key]
            else:
                view[key] = build(read)
        return view

    def panel_reads(self):
        """{panel id: sorted state keys its parts read}."""
        return {panel.id: sorted({key for _, build in panel.module.PARTS for key in build.keys})
                for panel in self.panels}


FIELD_DECIMALS = 6  # a number field shows what was set, not a rounding of it


def field_text(value):
    """A number as its field writes it: 3, 0,5, 2,23607 (no thousands marks:
    the reader types into it)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return fmt_short(value, FIELD_DECIMALS).replace(".", "")


def _stepped(value, sign, step, low, high):
    """value ± step, within [low, high]; None when the bound is already there."""
    moved = value + sign * step
    moved = round(moved, FIELD_DECIMALS) if isinstance(step, float) else moved
    moved = min(high, max(low, moved))
    return None if moved == value else moved


def number_fields(bounds):
    """The part "fields": for each number field, its text, its slider form
    (raw, the URL's), and the values ↑ and ↓ send. bounds: {key: (low, high,
    step)}; a list value (a vector) gets one of each per coordinate."""
    @reads(*bounds)
    def fields(state):
        out = {}
        for key, (low, high, step) in bounds.items():
            value = state[key]
            if isinstance(value, list):
                out[key] = {
                    "text": [field_text(v) for v in value], "raw": [url_text(v) for v in value],
                    "up": [_vector_step(value, i, 1, step, low, high) for i in range(len(value))],
                    "down": [_vector_step(value, i, -1, step, low, high) for i in range(len(value))],
                }
            else:
                out[key] = {"text": field_text(value), "raw": url_text(value),
                            "up": _stepped(value, 1, step, low, high),
                            "down": _stepped(value, -1, step, low, high)}
        return out

    return fields


def _vector_step(vector, i, sign, step, low, high):
    moved = _stepped(vector[i], sign, step, low, high)
    return None if moved is None else vector[:i] + [moved] + vector[i + 1:]
