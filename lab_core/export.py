"""A table of a view as CSV, Markdown and LaTeX, with the numbers as shown.

The page's tables already hold every number as Spanish text (1,41; −∞;
3.150.336): the exports copy those texts, never re-format the values, so a
table pasted into a course page or a paper reads exactly as on screen.
Each export names what it shows, so that a causal table cannot be taken for
a bidirectional one once it is out of the page: the view's state line
(«Frase: … · Máscara: causal · Cabeza: …», or the block's sizes) and the
page's link, after the table in CSV (a spreadsheet reads the table from
its first row), under the caption in Markdown, in the caption in LaTeX.
CSV is for spreadsheets, which read a cell as a number only in their own
spelling: it uses ';' between fields, as spreadsheets in Spanish expect
(the decimal comma is taken), and a cell that is one number is written the
way they read it (`spreadsheet_text`: −0,53 -> -0,53, 5,4·10⁻⁴ -> 5,4E-4,
33,28 % -> 33,28%). Every other text (−∞, (1; 0), < 10⁻¹²) is copied as shown.
"""
from __future__ import annotations

import csv
import io
import re
import unicodedata

# pdflatex-safe forms of the symbols the lab writes.
LATEX_SYMBOLS = {
    "−": "$-$", "∞": "$\\infty$", "√": "$\\surd$", "·": "$\\cdot$", "×": "$\\times$",
    "→": "$\\to$", "≈": "$\\approx$", "θ": "$\\theta$", "γ": "$\\gamma$", "β": "$\\beta$",
    "ω": "$\\omega$", "π": "$\\pi$", "ε": "$\\varepsilon$", "σ": "$\\sigma$", "μ": "$\\mu$",
    "ₖ": "$_k$", "ₘ": "$_m$", "ₙ": "$_n$", "²": "$^2$", "⁻": "$^{-}$", "¹": "$^1$",
    "⁰": "$^0$", "³": "$^3$", "⁴": "$^4$", "⁵": "$^5$", "⁶": "$^6$", "⁷": "$^7$",
    "⁸": "$^8$", "⁹": "$^9$", "|": "$|$", "<": "$<$", ">": "$>$",
}
LATEX_SPECIAL = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#",
                 "_": "\\_", "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}",
                 "^": "\\textasciicircum{}"}


def grid(table):
    """The table as rows of texts, the header row first."""
    rows = [[table["corner"]] + list(table["columns"])]
    for row in table["rows"]:
        rows.append([row["label"]] + [cell["text"] for cell in row["cells"]])
    return rows


SUPERSCRIPTS = {"⁻": "-", "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5",
                "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9"}

# The lab's spellings of one number (display.py): 1,41  −0,53  3.150.336
# 5,4·10⁻⁴  33,28 %. The sign is U+2212 on screen.
_DECIMAL = r"[−-]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?"
_NUMBER = re.compile(r"^(%s)$" % _DECIMAL)
_SCIENTIFIC = re.compile(r"^(%s)·10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)$" % _DECIMAL)
_PERCENT = re.compile(r"^(%s) %%$" % _DECIMAL)


def spreadsheet_text(text):
    """A cell that is one number, spelled as a spreadsheet in Spanish reads a
    number: '−0,53' -> '-0,53', '5,4·10⁻⁴' -> '5,4E-4', '33,28 %' -> '33,28%'.
    Any other text is returned as it is."""
    number = _NUMBER.match(text)
    if number:
        return number.group(1).replace("−", "-")
    scientific = _SCIENTIFIC.match(text)
    if scientific:
        exponent = "".join(SUPERSCRIPTS[c] for c in scientific.group(2))
        return "%sE%s" % (scientific.group(1).replace("−", "-"), exponent)
    percent = _PERCENT.match(text)
    if percent:
        return percent.group(1).replace("−", "-") + "%"
    return text


# The words that introduce the context lines of an export.
STATE_WORD, LINK_WORD = "Estado", "Enlace"


def to_csv(table, state=None, link=None):
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    rows = grid(table)
    writer.writerow(rows[0])
    writer.writerows([row[0]] + [spreadsheet_text(text) for text in row[1:]] for row in rows[1:])
    context = [[word, text] for word, text in ((STATE_WORD, state), (LINK_WORD, link)) if text]
    if context:
        writer.writerow([])
        writer.writerows(context)
    return out.getvalue()


def _markdown_text(text):
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def to_markdown(table, state=None, link=None):
    rows = grid(table)
    lines = ["**%s**" % _markdown_text(table["caption"]), ""]
    context = [_markdown_text(state)] if state else []
    if link:
        context.append("<%s>" % link.replace(">", "%3E").replace(" ", "%20"))
    if context:
        lines[1:1] = ["", " · ".join(context)]
    lines.append("| " + " | ".join(_markdown_text(t) or " " for t in rows[0]) + " |")
    lines.append("| --- | " + " | ".join("---:" for _ in rows[0][1:]) + " |")
    for row in rows[1:]:
        lines.append("| " + " | ".join(_markdown_text(t) for t in row) + " |")
    return "\n".join(lines) + "\n"


def latex_text(text):
    """Escape LaTeX's special characters and spell the lab's symbols for pdflatex;
    a run of superscripts (10⁻¹²) becomes one group: 10$^{-12}$."""
    text = re.sub("[%s]+" % "".join(SUPERSCRIPTS),
                  lambda m: "\u0000%s\u0001" % "".join(SUPERSCRIPTS[c] for c in m.group(0)), text)
    out = []
    for char in text:
        if char == "\u0000":
            out.append("$^{")
            continue
        if char == "\u0001":
            out.append("}$")
            continue
        if char in LATEX_SPECIAL:
            out.append(LATEX_SPECIAL[char])
        elif char in LATEX_SYMBOLS:
            out.append(LATEX_SYMBOLS[char])
        else:
            out.append(char)
    return "".join(out).replace("$$", "")


def to_latex(table, state=None, link=None):
    rows = grid(table)
    caption = table["caption"] + (". " + state if state else "")
    lines = [
        "% " + latex_text(table["caption"]).replace("\n", " "),
        "% Con pdflatex: \\usepackage[utf8]{inputenc} y \\usepackage[T1]{fontenc}.",
    ] + (["%% %s: %s" % (LINK_WORD, link.replace("\n", " "))] if link else []) + [
        "\\begin{table}[ht]",
        "\\centering",
        "\\caption{%s}" % latex_text(caption),
        "\\begin{tabular}{l%s}" % ("r" * (len(rows[0]) - 1)),
        "\\hline",
        " & ".join(latex_text(t) for t in rows[0]) + " \\\\",
        "\\hline",
    ]
    lines += [" & ".join(latex_text(t) for t in row) + " \\\\" for row in rows[1:]]
    lines += ["\\hline", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def filename(table):
    """'Puntuaciones · pista de lugar' -> 'puntuaciones-pista-de-lugar'."""
    text = unicodedata.normalize("NFKD", table["caption"]).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return (slug or table["id"])[:60]


def tables_of(node):
    """Every table dict inside a view, depth first."""
    if isinstance(node, dict):
        if {"id", "caption", "columns", "rows"} <= set(node):
            yield node
        for value in node.values():
            yield from tables_of(value)
    elif isinstance(node, list):
        for item in node:
            yield from tables_of(item)


def export_table(view, table_id, link=None):
    """The exports of the table with this id in the view, naming the view's
    state and `link` (the page's address), or ValueError."""
    state = view.get("state_line")
    for table in tables_of(view):
        if table["id"] == table_id:
            return {"id": table_id, "caption": table["caption"], "filename": filename(table),
                    "csv": to_csv(table, state, link), "markdown": to_markdown(table, state, link),
                    "latex": to_latex(table, state, link)}
    raise ValueError("esta vista no tiene la tabla «%s»" % table_id)
