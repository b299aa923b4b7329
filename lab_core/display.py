"""How numbers and tables read on the page, decided once, in Python.

Spanish style: decimal comma, '.' between thousands, a real minus sign (−).
Formatting lives here so that a view pre-rendered at build time and the live
one in the browser read exactly the same.

Rounding rules, one for the whole lab:
- a single number rounds half up on its shortest decimal form (0,125 → 0,13,
  as a reader rounds by hand; Python's format() would round half to even);
- numbers that must add up (a row of attention weights, the shares of a
  parameter table) show as many decimals as it takes for the digits shown to
  keep the sum shown (`fmt_parts`): each still reads as its own honest
  rounding, and equal values always read equal;
- a share that is not zero but rounds to zero reads «< 0,01 %», never «0,00 %».
"""
from __future__ import annotations

import math
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal

MINUS = "\u2212"
MASKED_TEXT = MINUS + "∞"
TIE_TOLERANCE = 1e-9  # values closer than this are the same number, up to round-off


SIGNIFICANT = 12  # digits a text is decided by: below them is floating-point round-off


def _decimal(x):
    """x to SIGNIFICANT digits, as the shortest decimal: what a person would round.

    One number computed two ways differs in its last bits; at a rounding tie
    (85,305 to two decimals) those bits would decide, and the same score read
    85,30 in one cell and 85,31 in the next. Cut to 12 digits first, both
    read 85,31.
    """
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("no se puede mostrar un número no finito: %r" % (x,))
    return Decimal(repr(float("%.*g" % (SIGNIFICANT, x))))


def _spanish(magnitude, digits):
    """A non-negative Decimal, already rounded, in Spanish digits."""
    text = "{:,.{}f}".format(magnitude, digits)
    return text.replace(",", "\u0000").replace(".", ",").replace("\u0000", ".")


def _signed(negative, text):
    return (MINUS if negative and text.strip("0,.") != "" else "") + text


def fmt(x, digits=2):
    """1.4142 -> '1,41'; -0.5 -> '−0,50'; 0.125 -> '0,13'; 3150336 (digits=0) -> '3.150.336'.

    The value's 12-digit decimal (see _decimal), rounded half up with
    integers: every number on the page goes through here, and this takes
    half the time of the same rounding in Decimal, which
    tests/unit/test_fidelity.py checks it against.
    """
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("no se puede mostrar un número no finito: %r" % (x,))
    # The 12-digit decimal, as _decimal's (a decimal of 12 digits is its
    # float's shortest form): '1.41421356237', '-2.5e-07', '3e+20'.
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


def fmt_parts(values, digits=2, max_digits=4):
    """Texts for values that must add up: each rounded on its own (half up),
    with as many decimals as it takes (digits to max_digits) for the texts to
    add up to the rounded total. 0,0529 + 0,8942 + 0,0529 read 0,053 + 0,894 +
    0,053, never 0,05 + 0,89 + 0,05 (0,99). Every text stays the honest
    rounding of its value, and equal values read equal.

    When no number of decimals makes them add up (a row like 0,75677 +
    3 × 0,05596 + 2 × 0,03768), the units of the last decimal are handed out
    by the largest-remainder method, to whole groups of equal values, and a
    value that reads 0 gets none. Only the last decimal may move, so that
    each text, cut by one decimal, still reads as its own value does: that
    row reads 0,7568 + 3 × 0,0560 + 2 × 0,0376, where 0,756 + 3 × 0,056 +
    2 × 0,038 would show 0,756 beside another panel's honest 0,757. When no
    choice keeps that, the fewest decimals that add up are used. Equal
    values that even that cannot keep together (three thirds: 0,33 each,
    0,99 in all) read alone, at `digits`.
    """
    values = [float(v) for v in values]
    total = sum(_decimal(v) for v in values)
    for places in range(digits, max_digits + 1):
        texts = [fmt(v, places) for v in values]
        shown = sum(_decimal(v).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
                    for v in values)
        if shown == total.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):
            return texts
    for places in range(digits + 2, max_digits + 1):
        texts = _largest_remainder(values, places, honest=places - 1)
        if texts is not None:
            return texts
    for places in range(min(digits + 1, max_digits), max_digits + 1):
        texts = _largest_remainder(values, places)
        if texts is not None:
            return texts
    return [fmt(v, digits) for v in values]


def fmt_sum(parts, total, digits=2, most=6):
    """A sum written out, «a + b = c», that adds up as read: the parts and
    the total at the fewest decimals (digits to most) at which the rounded
    parts add up to the rounded total, and at which every text, rounded by
    hand to `digits`, reads as its value does at `digits` (a table beside
    it). 0,08256 + 0,08256 = 0,16512 reads so, not 0,08 + 0,08 = 0,17, nor
    0,083 + 0,083 = 0,165; 0,3750 + 0,6298 = 1,0048, not 0,375 + 0,630 =
    1,005 (which a reader rounds to 1,01, where the table reads 1,00).
    Returns (part texts, total text, sign): sign is "=" when the texts add
    up, "≈" when no decimals up to `most` do.
    """
    values = list(parts) + [total]
    for places in range(digits, most + 1):
        texts = [fmt(v, places) for v in values]
        if sum(number(t) for t in texts[:-1]) != number(texts[-1]):
            continue
        if _read_as_rounded(texts, values, digits):
            return texts[:-1], texts[-1], "="
    return [fmt(v, most) for v in parts], fmt(total, most), "≈"


def _read_as_rounded(texts, values, digits):
    """Whether each text, rounded by hand to `digits`, reads as its value
    does at `digits` (as a table beside it shows it)."""
    return all(fmt(number(t), digits) == fmt(v, digits) for t, v in zip(texts, values))


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


def _tie_groups(values):
    """Indices of values equal up to round-off, grouped."""
    groups = []
    for i in sorted(range(len(values)), key=lambda i: values[i]):
        if groups and abs(values[i] - values[groups[-1][-1]]) <= TIE_TOLERANCE:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _largest_remainder(values, places, honest=None):
    """Texts at `places` decimals that add up to the rounded total: floors,
    and one unit more for the groups of equal values with the largest
    remainders. With `honest`, only choices whose every text reads, at
    `honest` decimals, as its value does; None when there is no choice."""
    unit = Decimal(1).scaleb(-places)
    exact = [_decimal(v) for v in values]
    floors = [v.quantize(unit, rounding=ROUND_FLOOR) for v in exact]
    total = sum(exact, Decimal(0)).quantize(unit, rounding=ROUND_HALF_UP)
    missing = int(((total - sum(floors, Decimal(0))) / unit).to_integral_value())
    groups = _tie_groups(values)
    if any(len({floors[i] for i in g}) > 1 for g in groups) or missing < 0:
        return None
    remainder = [float(exact[g[0]] - floors[g[0]]) for g in groups]
    # A value that reads 0 stays 0: a weight of 2·10⁻⁷ is never shown as 0,001.
    zero = [abs(exact[g[0]]) < unit / 2 for g in groups]
    best = None
    for mask in range(1 << len(groups)):  # at most 2^8 subsets: rows are short
        chosen = [k for k in range(len(groups)) if mask >> k & 1]
        if sum(len(groups[k]) for k in chosen) != missing or any(zero[k] for k in chosen):
            continue
        if honest is not None and not _reads_honest(groups, chosen, floors, unit, values, honest):
            continue
        gain = sum(remainder[k] * len(groups[k]) for k in chosen)
        if best is None or gain > best[0]:
            best = (gain, chosen)
    if best is None:
        return None
    up = {i for k in best[1] for i in groups[k]}
    return [_signed(exact[i] < 0, _spanish(abs(floors[i] + (unit if i in up else 0)), places))
            for i in range(len(values))]


def _reads_honest(groups, chosen, floors, unit, values, digits):
    """Whether the texts of a largest-remainder choice (floors, one unit more
    for the chosen groups) each read, at `digits` decimals, as their values do."""
    for k, group in enumerate(groups):
        i = group[0]
        shown = floors[i] + (unit if k in chosen else 0)
        if fmt(float(shown), digits) != fmt(values[i], digits):
            return False
    return True


def fmt_shares(counts, digits=1):
    """Percentages of a total whose texts add up to 100 (see fmt_parts); a
    share too small to show reads «< 0,01 %» (at the decimals used)."""
    total = float(sum(counts))
    texts = fmt_parts([100.0 * c / total for c in counts], digits, digits + 2)
    places = max(decimals(t) for t in texts)
    smallest = "0," + "0" * (places - 1) + "1" if places else "1"
    return [("< %s %%" % smallest) if c and text.strip("0,") == "" else text + " %"
            for c, text in zip(counts, texts)]


def sum_text(total, texts):
    """A «suma» row: the total with as many decimals as the parts show."""
    return fmt(total, max([decimals(t) for t in texts] + [2]))


def total_share(shares):
    """The «100,0 %» of a Total row, with the decimals its parts show."""
    places = max(decimals(t.lstrip("< ")) for t in shares)
    return fmt(100, places) + " %"


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


def fmt_beside(values, digits=3, shown=2, most=6):
    """Texts for numbers a sentence gives more finely than the table beside
    it: all at the fewest decimals (digits to most) at which each text,
    rounded by hand to `shown`, reads as the table does. −1,4748 reads
    −1,4748, not −1,475, which a reader rounds to −1,48 where the table
    reads −1,47; 1,99502 and 2,00498 read 1,99502 and 2,00498, not 1,995 and
    2,005 (which a reader rounds to 2,00 and 2,01; the table: 2,00 and 2,00).
    """
    values = [float(v) for v in values]
    for places in range(digits, most + 1):
        texts = [fmt(v, places) for v in values]
        if _read_as_rounded(texts, values, shown):
            return texts
    return [fmt(v, most) for v in values]


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


def table(table_id, caption, columns, rows, corner=""):
    """rows: list of {"label", "cells", optional "selected"}."""
    for row in rows:
        row.setdefault("selected", False)
    return {"id": table_id, "caption": caption, "corner": corner,
            "columns": list(columns), "rows": rows}
