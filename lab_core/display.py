"""How numbers and tables read on the page, decided once, in Python.

Spanish style: decimal comma, '.' between thousands, a real minus sign (−).
Formatting lives here so that a view pre-rendered at build time and the live
one in the browser read exactly the same.
"""
from __future__ import annotations

import math

MINUS = "\u2212"
MASKED_TEXT = MINUS + "∞"


def fmt(x, digits=2):
    """1.4142 -> '1,41'; -0.5 -> '−0,50'; 3150336 (digits=0) -> '3.150.336'."""
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("no se puede mostrar un número no finito: %r" % (x,))
    text = "{:,.{}f}".format(abs(x), digits)
    text = text.replace(",", "\u0000").replace(".", ",").replace("\u0000", ".")
    negative = x < 0 and text.strip("0,.") != ""
    return (MINUS if negative else "") + text


def fmt_short(x, digits=2):
    """Like fmt, without trailing zeros: 1.0 -> '1', 0.5 -> '0,5'."""
    text = fmt(x, digits)
    return text.rstrip("0").rstrip(",") if "," in text else text


def fmt_vector(values, digits=2):
    return "(" + "; ".join(fmt(x, digits) for x in values) + ")"


def fmt_vector_short(values):
    return "(" + "; ".join(fmt_short(x) for x in values) + ")"


def fmt_sci(x):
    """Tiny differences: '0' when exactly zero, else '3,1·10⁻¹⁶'-style text."""
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("no se puede mostrar un número no finito: %r" % (x,))
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e6:
        return fmt(x, 4)
    mantissa, exponent = "{:.1e}".format(x).split("e")
    superscript = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return fmt(float(mantissa), 1) + "·10" + str(int(exponent)).translate(superscript)


def fmt_error(x):
    """A measured difference that should vanish: '0', '< 10⁻¹²', or its value.

    Below 10⁻¹² a difference is round-off, and round-off depends on the
    machine and the NumPy build; the page shows the bound, not the noise.
    """
    x = abs(float(x))
    if x == 0:
        return "0"
    return "< 10⁻¹²" if x < 1e-12 else fmt_sci(x)


def join_words(words):
    """['El', 'banco', 'del'] -> 'El, banco y del'."""
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " y " + words[-1]


def num(x):
    """A raw number for drawing (shading, plots, SVG): 10 significant digits.

    NumPy versions may differ in the last bit; the view must read the same in
    CPython (built ahead of time) and in the browser.
    """
    return float("%.10g" % float(x))


def cell(value, text=None, **flags):
    """A table cell: the number (or None, see num()) and how it reads."""
    data = {"value": None if value is None else num(value),
            "text": fmt(value) if text is None else text}
    data.update(flags)
    return data


def table(table_id, caption, columns, rows, corner=""):
    """rows: list of {"label", "cells", optional "selected"}."""
    for row in rows:
        row.setdefault("selected", False)
    return {"id": table_id, "caption": caption, "corner": corner,
            "columns": list(columns), "rows": rows}
