"""How numbers and tables read on the page, decided once, in Python.

Spanish style: decimal comma, '.' between thousands, a real minus sign (−).
Formatting lives here so that a view pre-rendered at build time and the live
one in the browser read exactly the same.

Rounding rules, one for the whole lab:
- every digit shown is the correct rounding, half up, of its value, from
  its 12-digit decimal (0,125 → 0,13, as a reader rounds by hand; Python's
  format() would round half to even);
- the same quantity has the same decimals everywhere: weights and
  probabilities two (`WEIGHT_DIGITS`), parameter shares one;
- nothing is nudged to make a row add up: where the shown parts do not add
  up to the shown total, the table carries a short note that says so
  (`sum_gap`, `rounding_note`);
- a share that is not zero but rounds to zero reads «< 0,1 %», never «0,0 %».
"""
from __future__ import annotations

import math
from decimal import Decimal

MINUS = "\u2212"
MASKED_TEXT = MINUS + "∞"
TIE_TOLERANCE = 1e-9  # values closer than this are the same number, up to round-off


SIGNIFICANT = 12  # digits a text is decided by: below them is floating-point round-off


def fmt(x, digits=2):
    """1.4142 -> '1,41'; -0.5 -> '−0,50'; 0.125 -> '0,13'; 3150336 (digits=0) -> '3.150.336'.

    The value cut to 12 significant digits first: one number computed two
    ways differs in its last bits, and at a rounding tie (85,305 to two
    decimals) those bits would decide, so the same score would read 85,30 in
    one cell and 85,31 in the next. Then rounded half up with integers
    rather than Decimal: every number on the page goes through here (a test
    checks the two roundings agree).
    """
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("no se puede mostrar un número no finito: %r" % (x,))
    # The 12-digit decimal: '1.41421356237', '-2.5e-07', '3e+20'.
    text = "%.*g" % (SIGNIFICANT, x)
    negative = text[0] == "-"
    mantissa, _, exponent = text.lstrip("-").partition("e")
    whole, _, fraction = mantissa.partition(".")
    places = len(fraction) - int(exponent or 0)  # the value is n / 10**places
    n = int(whole + fraction)
    if places <= digits:
        n *= 10 ** (digits - places)
    else:
        unit = 10 ** (places - digits)
        n, rest = divmod(n, unit)
        n += 2 * rest >= unit
    body = str(n).rjust(digits + 1, "0")
    head, tail = body[:len(body) - digits], body[len(body) - digits:]
    if len(head) > 3:
        head = "{:,}".format(int(head)).replace(",", ".")
    return (MINUS if negative and n else "") + (head + "," + tail if digits else head)


def fmt_short(x, digits=2):
    """Like fmt, without trailing zeros: 1.0 -> '1', 0.5 -> '0,5'."""
    text = fmt(x, digits)
    return text.rstrip("0").rstrip(",") if "," in text else text


def fmt_signed(x, digits=2):
    """An offset whose sign matters: '+2', '−2', '0'."""
    text = fmt_short(x, digits)
    return "+" + text if float(x) > 0 and text != "0" else text


def fmt_int(n):
    """3072 -> '3.072'; −2 -> '−2'."""
    return fmt(n, 0)


def fmt_vector(values, digits=2):
    return "(" + "; ".join(fmt(x, digits) for x in values) + ")"


def fmt_vector_short(values):
    return "(" + "; ".join(fmt_short(x) for x in values) + ")"


WEIGHT_DIGITS = 2  # weights and probabilities: the same two decimals on every panel


def fmt_row(values, digits=WEIGHT_DIGITS):
    """Texts for a row of values that should add up (weights, probabilities):
    each its own rounding, half up, at the same decimals. Nothing is nudged
    to make the row add up; `sum_gap` says when it does not."""
    return [fmt(v, digits) for v in values]


def shown_sum(texts):
    """The sum of number texts as a reader adds them: ['0,33'] * 3 -> 0,99."""
    return sum((number(t) for t in texts), Decimal(0))


def sum_gap(texts, total_text):
    """None when the texts add up to the total as read; else the sum they
    show, as text ('0,99'), for a note that says so."""
    shown = shown_sum(texts)
    if shown == number(total_text):
        return None
    return fmt(float(shown), max([decimals(t) for t in texts] + [decimals(total_text)]))


def rounding_note(gaps):
    """The plain note under a table whose rounded parts do not add up:
    gaps is [(what, sum as read, total as read)]; None when there are none."""
    if not gaps:
        return None
    said = "; ".join("%s suman %s, no %s" % gap for gap in gaps)
    return "Cada número está redondeado por separado: %s." % said


def rows_note(rows, what="los pesos de la fila de «%s»", total="1,00"):
    """The note under a table whose rows of weights, as read, do not all add
    up to 1: rows is [(label, open texts)]."""
    gaps = []
    for label, texts in rows:
        gap = sum_gap(texts, total) if texts else None
        if gap is not None:
            gaps.append((what % label, gap, total))
    return rounding_note(gaps)


def fmt_shares(counts, digits=1):
    """Percentages of a total, each its own rounding (half up) at `digits`;
    a share that is not zero but rounds to zero reads «< 0,1 %», never
    «0,0 %». They may add up to 99,9 % or 100,1 % (the article's own table
    reads 33,3 + 66,7 + 0,1): `shares_gap` says so."""
    total = float(sum(counts))
    smallest = fmt(10.0 ** -digits, digits)
    texts = []
    for c in counts:
        text = fmt(100.0 * c / total, digits)
        texts.append(("< %s %%" % smallest) if c and number(text) == 0 else text + " %")
    return texts


def shares_note(shares, digits=1):
    """The note under shares that, as read, do not add up to 100 %; None when
    they do. A «< 0,1 %» share has no value to add, so the note says what
    the others add up to and that a part below 0,1 % is left."""
    tiny = [t for t in shares if t.startswith("<")]
    values = [number(t.rstrip(" %")) for t in shares if not t.startswith("<")]
    shown = fmt(float(sum(values, Decimal(0))), digits) + " %"
    if not tiny and number(shown.rstrip(" %")) == 100:
        return None
    if tiny and number(shown.rstrip(" %")) == 100:
        return ("Cada proporción está redondeada por separado: las demás ya suman %s, y la "
                "que se lee «%s» es demasiado pequeña para notarse en esa suma."
                % (shown, tiny[0]))
    if tiny:
        return ("Cada proporción está redondeada por separado: las demás suman %s, y falta "
                "una parte menor que %s." % (shown, tiny[0][2:]))
    return ("Cada proporción está redondeada por separado: suman %s, no %s %%."
            % (shown, fmt(100, digits)))


def equals_shortest(x, most=3):
    """'= 5' when the value is what the fewest decimals (up to `most`) say,
    '≈ 2,236' when even `most` decimals round it (√5,00001 = 2,23607…)."""
    text = fmt_exact(x, 0, most)
    return ("= " if reads_exactly(text, x) else "≈ ") + text


def signed_terms(texts):
    """Number texts as a sum, a negative one subtracted: ['0,10', '−0,68']
    -> '0,10 − 0,68' (never '0,10 + −0,68')."""
    out = texts[0]
    for text in texts[1:]:
        out += " − " + text[1:] if text.startswith(MINUS) else " + " + text
    return out


def number(text):
    """A text from fmt back to its Decimal: '−1.234,5' -> Decimal('-1234.5')."""
    return Decimal(text.replace(".", "").replace(",", ".").replace(MINUS, "-"))


def decimals(text):
    """How many decimals a number text shows: '0,894' -> 3."""
    return len(text.split(",")[1].split(" ")[0]) if "," in text else 0


def quotient(numerator, denominator, result_text):
    """How «a / b ≈ c» reads when a and b are shown as texts and c is the
    result as the table shows it: "=" when the shown a / b is exactly the
    shown c, "≈" when it rounds to it, and None when a reader dividing the
    shown numbers would get another c (then the sentence must say that it
    divides the unrounded values)."""
    a, b = number(numerator), number(denominator)
    if b == 0:
        return None
    exact = a / b
    c = number(result_text)
    if exact == c:
        return "="
    places = decimals(result_text)
    return "≈" if fmt(float(exact), places) == fmt(float(c), places) else None


def fmt_sci(x, powers=False):
    """Tiny differences: '0' when exactly zero, else '3,1·10⁻¹⁶'-style text;
    between 10⁻³ and 10⁶ four decimals, unless `powers` asks for the power
    of ten always (1,5·10⁵, a quantity blowing up)."""
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("no se puede mostrar un número no finito: %r" % (x,))
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e6 and not powers:
        return fmt(x, 4)
    mantissa, exponent = "{:.1e}".format(x).split("e")
    superscript = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return fmt(float(mantissa), 1) + "·10" + str(int(exponent)).translate(superscript)


def reads_exactly(text, x):
    """Whether a text from fmt is the value itself, not a rounding of it."""
    shown = float(number(text))
    return abs(shown - float(x)) <= 1e-9 * max(1.0, abs(float(x)))


def equals(x, digits=2):
    """'= 2,00' when the text is the value itself, '≈ 1,41' when it is rounded
    (2/√2 is 1,41421…): an expression's last sign tells the two apart."""
    text = fmt(x, digits)
    return ("= " if reads_exactly(text, x) else "≈ ") + text


def fmt_exact(x, digits=2, most=6):
    """The fewest decimals from `digits` to `most` that read the value as it
    is: 1,00 but 1,001 and 1,00025, so a difference that matters is seen."""
    for places in range(digits, most + 1):
        text = fmt(x, places)
        if reads_exactly(text, x):
            return text
    return fmt(x, most)


def fmt_small(x, digits=3):
    """Like fmt, but a value that is not zero never reads as zero: 1,9·10⁻⁵
    where fmt would write 0,000 (a variance beside ε must show its size)."""
    text = fmt(x, digits)
    return fmt_sci(x) if float(x) != 0 and text.strip(MINUS + "0,") == "" else text


ROUND_OFF = 1e-12


def fmt_error(x):
    """A measured difference that should vanish: '< 10⁻¹²', or its value.

    Below 10⁻¹² a difference is round-off, and round-off depends on the
    machine and the NumPy build (the same sum can give 0 on one and 10⁻¹⁶ on
    another): the page shows the bound, never the noise, and never a «0» that
    another machine would not reproduce.
    """
    x = abs(float(x))
    return "< 10⁻¹²" if x < ROUND_OFF else fmt_sci(x)


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


def table(table_id, caption, columns, rows, corner="", note=None):
    """rows: list of {"label", "cells", optional "selected"}; note: a plain
    sentence shown under the table (why its rounded numbers do not add up)."""
    for row in rows:
        row.setdefault("selected", False)
    return {"id": table_id, "caption": caption, "corner": corner,
            "columns": list(columns), "rows": rows, "note": note}
