"""Exports: CSV cells a Spanish spreadsheet reads as numbers, the rest as shown."""
import csv
import io
import math
import re

import pytest

from lab_core import attention_lab, block_lab, export


@pytest.mark.parametrize("shown, written", [
    ("1,41", "1,41"), ("−0,53", "-0,53"), ("−2,83", "-2,83"), ("0", "0"),
    ("3.150.336", "3.150.336"), ("5,4·10⁻⁴", "5,4E-4"), ("3,1·10⁻¹⁶", "3,1E-16"),
    ("2,0·10¹²", "2,0E12"), ("33,28 %", "33,28%"), ("−∞", "−∞"), ("(1; 0)", "(1; 0)"),
    ("< 10⁻¹²", "< 10⁻¹²"), ("< 0,01 %", "< 0,01 %"), ("1.5", "1.5"), ("n − m = +1", "n − m = +1"),
    ("", ""),
])
def test_spreadsheet_text_by_hand(shown, written):
    assert export.spreadsheet_text(shown) == written


def spanish_number(text):
    """How a spreadsheet in Spanish reads a cell: '.' groups thousands, ','
    is the decimal point, E an exponent, % a hundredth; None for text."""
    match = re.fullmatch(r"(-?[\d.]+(?:,\d+)?)(?:E(-?\d+))?(%?)", text)
    if not match or not re.fullmatch(r"-?(\d{1,3}(\.\d{3})+|\d+)(,\d+)?", match.group(1)):
        return None
    value = float(match.group(1).replace(".", "").replace(",", "."))
    if match.group(2):
        value *= 10.0 ** int(match.group(2))
    return value / 100 if match.group(3) else value


def decimals(text):
    mantissa = text.split("E")[0].rstrip("%")
    return len(mantissa.split(",")[1]) if "," in mantissa else 0


VIEWS = [
    attention_lab.LAB.build_view(dict(attention_lab.SPEC.default_state(), **changes))
    for changes in ({}, {"mask": "bidirectional"}, {"head": "all"}, {"sentence": "credito", "dk": 512})
] + [
    block_lab.LAB.build_view(dict(block_lab.SPEC.default_state(), **changes))
    for changes in ({}, {"depth": 64}, {"d_model": 768, "heads": 12, "d_ff": 3072})
]


@pytest.mark.parametrize("view", VIEWS)
def test_csv_numbers_are_the_values_on_screen(view):
    checked = 0
    for table in export.tables_of(view):
        rows = list(csv.reader(io.StringIO(export.to_csv(table)), delimiter=";"))
        assert rows[0] == [table["corner"]] + list(table["columns"])
        for row, written in zip(table["rows"], rows[1:]):
            assert written[0] == row["label"]
            for cell, text in zip(row["cells"], written[1:]):
                number = spanish_number(text)
                if number is None:
                    assert text == cell["text"]  # text stays as shown
                    continue
                # The same number as the text on screen, read independently.
                shown = cell["text"].replace("−", "-").replace(" %", "%")
                sci = re.fullmatch(r"(-?[\d,]+)·10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", shown)
                if sci:
                    exponent = sci.group(2).translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
                    shown = "%sE%s" % (sci.group(1), exponent)
                assert spanish_number(shown) == number
                value = cell.get("value")
                if isinstance(value, float) and math.isfinite(value) and "E" not in text:
                    scale = 100 if text.endswith("%") else 1
                    # One unit of the last digit shown: a row that must sum
                    # to 1 may round a cell the other way to keep its sum
                    # (display.py); `value` carries 10 significant digits.
                    unit = 10.0 ** -decimals(text) / scale
                    assert abs(number - value) <= unit + 1e-9 * abs(value), (text, value)
                checked += 1
    assert checked > 0


def test_markdown_and_latex_keep_the_screen_text():
    # The previous-token head, row «río» (position 6), key «El»: 25·cos(−2,25)/√2 ≈ −11,10.
    view = attention_lab.LAB.build_view(dict(
        attention_lab.SPEC.default_state(), head="anterior",
        tokens=["El", "banco", "del", "parque", "junto", "al", "río"]))
    table = next(t for t in export.tables_of(view) if t["id"] == "scores")
    shown = [cell["text"] for row in table["rows"] for cell in row["cells"]]
    assert "−11,10" in shown and "−∞" in shown
    assert "| −11,10 |" in export.to_markdown(table)
    assert "$-$11,10" in export.to_latex(table)
    written = export.to_csv(table)
    assert ";-11,10;" in written or ";-11,10\r\n" in written
    assert "−∞" in written  # a spreadsheet has no infinity: the text as shown


def test_every_export_names_its_state_and_link():
    # A causal table could not be told from a bidirectional one once copied.
    link = "https://lab.example/?mask=bidirectional&head=finanzas"
    for mask, said in (("causal", "Máscara: causal"), ("bidirectional", "Máscara: bidireccional")):
        state = dict(attention_lab.SPEC.default_state(), mask=mask, head="finanzas")
        out = export.export_table(attention_lab.LAB.build_view(state), "weights", link)
        line = ("Frase: El banco del parque · Consulta: banco · Clave: parque · %s · "
                "Cabeza: pista financiera" % said)
        table, context = out["csv"].split("\r\n\r\n")
        assert table.startswith("consulta \\ clave;El;banco;del;parque\r\n")
        assert context == "Estado;%s\r\nEnlace;%s\r\n" % (line, link)
        assert out["markdown"].startswith("**Pesos**\n\n%s · <%s>\n\n| " % (line, link))
        assert "%% Enlace: %s\n" % link in out["latex"]
        assert "\\caption{Pesos. %s}" % line.replace("·", "$\\cdot$") in out["latex"]
    # The block's tables name its sizes.
    view = block_lab.LAB.build_view(block_lab.SPEC.default_state())
    table_id = next(iter(export.tables_of(view)))["id"]
    assert "Estado;\"Orden: " in export.export_table(view, table_id)["csv"]
    # No link given: only the state.
    assert "Enlace" not in export.export_table(view, table_id)["csv"]
