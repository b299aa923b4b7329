"""The block lab page (bloque.html) in a real Chromium, panel by panel."""
import json
import math
import re

import pytest

from lab_core import block_lab
from lab_core.block_lab import residual

from conftest import text

PAGE = "bloque.html"


def open_block(lab, query=""):
    return lab.open(lab.base_url + PAGE, query)


def number(text):
    """'1,2·10⁻¹⁵', '< 10⁻¹²' (a bound) or '0,3942' -> float."""
    if text == "< 10⁻¹²":
        return 1e-12
    sup = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
    if "·10" in text:
        mantissa, exponent = text.split("·10")
        return float(mantissa.replace(",", ".").replace("−", "-")) * 10 ** int(exponent.translate(sup))
    return float(text.replace(".", "").replace(",", ".").replace("−", "-"))


def test_parameter_table_for_the_article_and_py_table_data(lab):
    open_block(lab)
    assert text(lab.page.locator("#status")).startswith("Listo")
    table = lab.table("Parámetros del bloque")
    # Each share its own rounding, as the article's table: 33,3 + 66,7 + 0,1.
    assert table == {"Atención": ["1.048.576", "33,3 %"], "FFN": ["2.099.712", "66,7 %"],
                     "LayerNorm": ["2.048", "0,1 %"], "Total": ["3.150.336", "100,0 %"]}
    note = lab.page.locator("#bloque .table-note")
    assert text(note) == "Cada proporción está redondeada por separado: suman 100,1 %, no 100,0 %."
    # window.py_table_data: exactly what the article's own code cell publishes.
    published = json.loads(lab.page.evaluate("window.py_table_data"))
    assert published == {"headers": ["Component", "Parameters", "Share"], "rows": [
        ["Attention", "1,048,576", "33.3%"], ["FFN", "2,099,712", "66.7%"],
        ["LayerNorm", "2,048", "0.1%"], ["Total", "3,150,336", "100.0%"]]}
    assert text(lab.page.locator("#block-in")) == "(2, 10, 512)"
    assert text(lab.page.locator("#block-out")) == "(2, 10, 512)"
    assert "todos sus valores son finitos" in text(lab.page.locator("#block-check"))


def test_sizes_through_the_inputs(lab):
    open_block(lab)
    for label, value in (("d_model", "768"), ("Cabezas", "12"), ("d_ff", "3072")):
        field = lab.page.get_by_label(label, exact=True)
        field.fill(value)
        field.press("Tab")
        lab.settle()
    state = lab.state()
    assert (state["d_model"], state["heads"], state["d_ff"]) == (768, 12, 3072)
    assert lab.table("Parámetros del bloque")["Total"] == ["7.084.800", "100,0 %"]
    assert "fórmula cerrada" in text(lab.page.locator("#bloque"))
    assert "d_model=768" in lab.url()
    published = json.loads(lab.page.evaluate("window.py_table_data"))
    assert published["rows"][3][1] == "7,084,800"


def test_bad_sizes_show_a_message_beside_the_input_and_keep_the_table(lab):
    open_block(lab)
    before = lab.table("Parámetros del bloque")
    field = lab.page.get_by_label("d_model", exact=True)
    field.fill("100")
    field.press("Tab")
    lab.settle()
    message = lab.page.locator("[data-error-for='d_model']")
    assert "no es divisible entre 8 cabezas" in text(message)
    assert text(message).endswith("Se mantiene: 512.")
    assert field.get_attribute("aria-invalid") == "true"
    assert lab.table("Parámetros del bloque") == before
    assert lab.state()["d_model"] == 512
    for partial, pattern in [({"d_model": 0}, "fuera del rango"),
                             ({"d_ff": -1}, "fuera del rango"),
                             ({"heads": 2.5}, "no es un número entero"),
                             ({"d_model": 9000}, "fuera del rango"),
                             ({"d_ff": "mucho"}, "no es un número entero"),
                             ({"heads": 3}, "no es divisible")]:
        error = lab.page.evaluate(
            "(p) => window.lab.set(p).then(() => 'resolved', (e) => e.message)", partial)
        assert re.search(pattern, error), (partial, error)
        key = next(iter(partial))
        assert re.search(pattern, text(lab.page.locator("[data-error-for='%s']" % key)))
    assert lab.table("Parámetros del bloque") == before
    # A good value clears the messages.
    lab.set(d_model=1024, heads=16, d_ff=4096)
    assert text(lab.page.locator("[data-error-for='d_model']")) == ""
    assert field.get_attribute("aria-invalid") is None
    assert lab.table("Parámetros del bloque")["Atención"] == ["4.194.304", "33,3 %"]


def test_a_refused_value_gives_way_to_the_kept_one_when_its_message_goes(lab):
    # Cabezas = 7 is refused («Se mantiene: 8»); then d_model = 768 is
    # applied and the message goes, while Tab has brought the focus back to
    # Cabezas. The field read 7 beside «d_k = 96» (768 / 8).
    open_block(lab)
    heads = lab.page.get_by_label("Cabezas", exact=True)
    heads.fill("7")
    heads.press("Tab")
    lab.settle()
    assert text(lab.page.locator("[data-error-for='heads']")).endswith("Se mantiene: 8.")
    d_model = lab.page.get_by_label("d_model", exact=True)
    d_model.fill("768")
    d_model.press("Tab")
    lab.settle()
    assert lab.page.evaluate("document.activeElement.id") == "ctl-heads"
    assert text(lab.page.locator("[data-error-for='heads']")) == ""
    assert heads.input_value() == "8" and heads.get_attribute("aria-invalid") is None
    assert (lab.state()["d_model"], lab.state()["heads"]) == (768, 8)
    # The field typed in keeps what is typed, while no message stands.
    heads.fill("1")
    lab.set(d_ff=3072)
    assert heads.input_value() == "1"


@pytest.mark.cold
def test_number_fields_read_the_spanish_comma_and_step_with_the_arrows(lab):
    # A number input reads «2,5» as 25 (the comma as a thousands mark): the
    # fields are text, and Python reads what the student wrote.
    open_block(lab)
    depth = lab.page.get_by_label("Profundidad", exact=True)
    depth.fill("2,5")
    depth.press("Enter")
    assert lab.settle()["depth"] == 12
    assert text(lab.page.locator("[data-error-for='depth']")) == (
        "Profundidad: «2,5» no es un número entero. Se mantiene: 12.")
    assert depth.get_attribute("aria-invalid") == "true"
    x1 = lab.page.get_by_label("x₁", exact=True)
    x1.fill("1,5")
    x1.press("Tab")
    assert lab.settle()["ln_x"][0] == 1.5
    assert x1.input_value() == "1,5"
    # ↑ and ↓ step as a number field's did, within its bounds.
    x1.press("ArrowUp")
    assert lab.settle()["ln_x"][0] == 2
    # What is typed and not yet sent is read by Python first; the step
    # starts there. A value Python refuses takes no step and says why.
    x1.fill("-0,5")
    x1.press("ArrowUp")
    assert lab.settle()["ln_x"][0] == 0 and x1.input_value() == "0"
    depth.fill("abc")
    depth.press("ArrowUp")
    assert lab.settle()["depth"] == 12
    assert text(lab.page.locator("[data-error-for='depth']")) == (
        "Profundidad: «abc» no es un número entero. Se mantiene: 12.")
    assert depth.input_value() == "abc"
    depth.fill("1")
    depth.press("Enter")
    lab.settle()
    depth.press("ArrowDown")  # already the least
    depth.press("ArrowUp")
    assert lab.settle()["depth"] == 2 and depth.input_value() == "2"
    # A size written as the page writes it, its thousands grouped, is that
    # size; ↑ steps from it, not from 2,048.
    d_ff = lab.page.get_by_label("d_ff", exact=True)
    d_ff.fill("1.024")
    d_ff.press("Enter")
    assert lab.settle()["d_ff"] == 1024 and d_ff.input_value() == "1.024"  # as typed
    assert text(lab.page.locator("[data-error-for='d_ff']")) == ""
    assert d_ff.get_attribute("aria-invalid") is None
    d_ff.fill("2.048")
    d_ff.press("ArrowUp")
    assert lab.settle()["d_ff"] == 2049 and d_ff.input_value() == "2049"
    # d_model and the heads step to the nearest size Python accepts (d_model
    # divisible by the heads), not to 513, refused, again and again.
    d_model = lab.page.get_by_label("d_model", exact=True)
    heads = lab.page.get_by_label("Cabezas", exact=True)
    assert (lab.state()["d_model"], lab.state()["heads"]) == (512, 8)
    d_model.press("ArrowUp")
    assert lab.settle()["d_model"] == 520 and d_model.input_value() == "520"
    d_model.press("ArrowUp")
    assert lab.settle()["d_model"] == 528
    heads.press("ArrowUp")  # 528 = 2⁴·3·11: the next divisor is 11
    assert lab.settle()["heads"] == 11 and heads.input_value() == "11"
    heads.press("ArrowDown")
    assert lab.settle()["heads"] == 8
    assert text(lab.page.locator("[data-error-for='heads']")) == ""
    # In a decimal field a point that may group thousands is asked about.
    x1.fill("1.024")
    x1.press("Enter")
    assert lab.settle()["ln_x"][0] == 0
    assert text(lab.page.locator("[data-error-for='ln_x']")) == (
        "Vector x: «1.024» se lee de dos maneras: escribe «1,024» para los decimales "
        "o «1024» sin punto. Se mantiene: (0; 4; 6; 8).")


def test_bad_url_sizes_fall_back_with_a_notice(lab):
    open_block(lab, "?d_model=abc&heads=0&order=9;9&pe_d=7")
    state, default = lab.state(), block_lab.SPEC.default_state()
    for key in ("d_model", "heads", "order", "pe_d"):
        assert state[key] == default[key]
    assert len(lab.notices()) == 4
    assert lab.table("Parámetros del bloque")["Total"] == ["3.150.336", "100,0 %"]


def test_order_panel_swap_and_shuffle(lab):
    open_block(lab)
    original = lab.table("Pesos · El perro mordió al hombre")
    swapped = lab.table("Pesos · El hombre mordió al perro")
    # The pair (perro -> hombre) keeps its weight across the swap.
    assert original["perro"][4] == swapped["perro"][1]
    assert number(text(lab.page.locator("#order-weights-gap"))) <= 1e-12
    assert number(text(lab.page.locator("#order-out-gap"))) <= 1e-12
    assert number(text(lab.page.locator("#order-pe-gap"))) > 0.01
    original_button = lab.page.get_by_role("button", name="El perro mordió al hombre", exact=True)
    swap_button = lab.page.get_by_role("button", name="El hombre mordió al perro", exact=True)
    pressed = lambda: [b.get_attribute("aria-pressed") for b in (original_button, swap_button)]
    assert pressed() == ["false", "true"]  # the default state shows the swapped sentence
    original_button.click()
    lab.settle()
    assert lab.state()["order"] == [0, 1, 2, 3, 4]
    assert pressed() == ["true", "false"]
    swap_button.click()
    lab.settle()
    assert lab.state()["order"] == [0, 4, 2, 3, 1] and pressed() == ["false", "true"]
    lab.page.evaluate("window.lab.set({order: [1, 0, 2, 3, 4]})")
    assert pressed() == ["false", "false"]  # neither of the two sentences
    # The draws that first leave (perro El …) as it is, then take it back to
    # the original order: the press moves the words, and both tables then
    # carry one caption (the shuffled one is the second).
    lab.page.evaluate("""() => {
      const draws = [0.99, 0.99, 0.99, 0.99, 0.99, 0.99, 0.99, 0];
      window.realRandom = Math.random;
      Math.random = () => (draws.length ? draws.shift() : window.realRandom());
    }""")
    try:
        lab.page.get_by_role("button", name="Barajar").click()
        lab.settle()
    finally:
        lab.page.evaluate("Math.random = window.realRandom")
    order = lab.state()["order"]
    assert order == [0, 1, 2, 3, 4]
    words = ["El", "perro", "mordió", "al", "hombre"]
    # Then a press with the browser's own draws: an order other than this one.
    for press in range(2):
        if press:
            lab.page.get_by_role("button", name="Barajar").click()
            lab.settle()
            order = lab.state()["order"]
            assert sorted(order) == [0, 1, 2, 3, 4] and order != [0, 1, 2, 3, 4]
        caption = "Pesos · " + " ".join(words[i] for i in order)
        shuffled = lab.table(caption, last=True)
        # Every pair of words keeps its weight, wherever the shuffle put them.
        for a in words:
            for bb in words:
                assert shuffled[a][[words[i] for i in order].index(bb)] == original[a][words.index(bb)]


def test_positional_encoding_panel(lab):
    open_block(lab)
    assert lab.page.locator("#posicion canvas").count() == 1
    field = lab.page.get_by_label("d_model de la codificación")
    field.fill("32")
    field.press("Tab")
    lab.settle()
    table = lab.table("Longitud de onda de cada pareja (d_model = 32)")
    assert len(table) == 16
    assert table["0 (coord. 0 y 1)"][1] == "6,28"
    assert number(text(lab.page.locator("#pe-shift-error"))) < 1e-9
    assert number(text(lab.page.locator("#pe-sine-error"))) > 0.1
    field.fill("33")
    field.press("Tab")
    lab.settle()
    assert "debe ser par" in text(lab.page.locator("[data-error-for='pe_d']"))
    lab.set(pe_d=64)
    canvas = lab.page.locator("#posicion canvas")
    assert canvas.get_attribute("aria-label") == "PE(pos, i) para 50 posiciones y d_model = 64"



def heat_colour(v):
    """The heatmap's colour of a value in [−1, 1]: white at 0, red +1, blue −1."""
    a = min(1.0, abs(v))
    fade = lambda to: math.floor(255 - a * (255 - to) + 0.5)  # noqa: E731 (JS Math.round)
    return [fade(214), fade(40), fade(40)] if v >= 0 else [fade(40), fade(70), fade(214)]


# Every cell's centre pixel, and its corners' (no smoothing between cells).
HEAT_PIXELS = """(map) => {
  const canvas = document.querySelector('#posicion canvas');
  const w = canvas.width / map.cols, h = canvas.height / map.rows;
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const at = (x, y) => Array.from(data.slice(4 * (y * canvas.width + x), 4 * (y * canvas.width + x) + 3));
  return map.values.map((row, r) => row.map((v, c) => [
    at(Math.floor((c + 0.5) * w), Math.floor((r + 0.5) * h)),
    at(Math.floor(c * w), Math.floor(r * h)),
    at(Math.floor((c + 1) * w) - 1, Math.floor((r + 1) * h) - 1)]));
}"""


def test_the_heatmap_paints_each_value_in_its_own_colour(lab):
    for query in ("?pe_d=8&pe_positions=20", "?pe_d=64&pe_positions=128"):
        open_block(lab, query)
        heatmap = json.loads(lab.page.evaluate("window.py_view_data"))["view"]["position"]["heatmap"]
        assert (heatmap["rows"], heatmap["cols"]) == (len(heatmap["values"]), len(heatmap["values"][0]))
        pixels = lab.page.evaluate(HEAT_PIXELS, heatmap)
        for r, row in enumerate(heatmap["values"]):
            for c, v in enumerate(row):
                assert pixels[r][c] == [heat_colour(v / heatmap["scale"])] * 3, (query, r, c, v)

@pytest.mark.parametrize("width", [390, 1366])
def test_the_heatmap_fits_a_screen_at_every_size(lab, width):
    # At d_model = 2 a phone stretched the two columns across its width,
    # each row as tall as half a column: 128 positions made a figure 4.500 px
    # tall, with the wavelength table six screens below the field.
    lab.page.set_viewport_size({"width": width, "height": 844})
    open_block(lab)
    for d, positions in ((2, 128), (2, 1), (64, 128), (128, 128), (128, 1)):
        lab.set(pe_d=d, pe_positions=positions)
        box = lab.page.locator("#posicion canvas").bounding_box()
        panel = lab.page.locator("#posicion").bounding_box()
        assert 0 < box["height"] <= 290 and 0 < box["width"] <= 362, (d, positions, box)
        assert box["x"] + box["width"] <= panel["x"] + panel["width"], (d, positions)
        size = lab.page.evaluate("() => { const c = document.querySelector('#posicion canvas');"
                                 " return [c.width, c.height]; }")
        # Whole pixels per cell, so every cell is one flat colour.
        assert size[0] % d == 0 and size[1] % positions == 0, (d, positions, size)
        assert size[0] // d >= 2 and size[1] // positions >= 2


def test_residual_and_layernorm_panels(lab):
    open_block(lab)
    field = lab.page.get_by_role("textbox", name="Profundidad")
    field.fill("40")
    field.press("Tab")
    lab.settle()
    assert len(lab.table("Norma del gradiente que llega a la primera capa")) == 40
    assert number(text(lab.page.locator("#grad-plain"))) < 1e-10
    assert number(text(lab.page.locator("#grad-residual"))) > 0.5
    assert len(lab.table("Norma de la activación tras cada capa")) == 41  # the input, then 40 layers
    assert text(lab.page.locator("#ln-mean")) == "5,000"
    assert text(lab.page.locator("#ln-var")) == "5,000"
    for i in range(4):
        lab.page.get_by_label("x%s" % "₁₂₃₄"[i]).fill("3")
        lab.page.get_by_label("x%s" % "₁₂₃₄"[i]).press("Tab")
        lab.settle()
    assert lab.state()["ln_x"] == [3, 3, 3, 3]
    assert text(lab.page.locator("#ln-var")) == "0,000"
    beta = lab.page.get_by_label("Desplazamiento β")
    beta.fill("0,5")
    beta.press("Tab")
    lab.settle()
    assert text(lab.page.locator("#ln-out")) == "(0,500; 0,500; 0,500; 0,500)"
    # A constant x: β = μ alone gives it back.
    assert "basta β = μ = 3,000 para recuperarlo" in text(lab.page.locator("#ln-undo"))
    for i, value in enumerate(("2", "4", "6", "8")):
        lab.page.get_by_label("x%s" % "₁₂₃₄"[i]).fill(value)
        lab.page.get_by_label("x%s" % "₁₂₃₄"[i]).press("Tab")
        lab.settle()
    # The button puts the γ and β Python computed: the output is x again.
    lab.page.get_by_role("button", name="Deshacer la normalización").click()
    lab.settle()
    assert lab.state()["beta"] == 5
    assert text(lab.page.locator("#ln-out")) == "(2,000; 4,000; 6,000; 8,000)"
    assert text(lab.page.locator("#ln-undo")).startswith("Con γ = √(σ² + ε) ≈ 2,2361 y β = μ = 5,000 la salida vuelve a ser x")
    # The gradients at initialisation, beside the forward norms.
    stability = lab.table("Gradiente de la última capa al inicio, según la profundidad")
    assert len(stability) == 40
    assert "Xiong et al. (2020)" in text(lab.page.locator("#stability-summary"))



def test_a_table_gains_and_loses_rows_in_place(lab):
    """Another depth adds or takes away rows of the same table (no table is
    built again), and every row reads what Python computes for that depth."""
    open_block(lab)
    caption = "Norma del gradiente que llega a la primera capa"
    lab.find_table(caption).evaluate("(table) => { table.dataset.mark = 'first'; }")
    state = block_lab.SPEC.default_state()
    for depth in (40, 3, 64, 1, 12):
        lab.set(depth=depth)
        view = residual.residual_panel(dict(state, depth=depth))["table"]
        assert lab.table(caption) == {row["label"]: [c["text"] for c in row["cells"]]
                                      for row in view["rows"]}, depth
        table = lab.find_table(caption)
        assert table.evaluate("(table) => table.dataset.mark") == "first"
        assert table.locator("tbody tr.selected th").count() == 1
        assert text(table.locator("tbody tr.selected th")).strip() == str(depth)

def test_ffn_panel(lab):
    open_block(lab)
    assert number(text(lab.page.locator("#ffn-collapse"))) < 1e-9
    assert text(lab.page.locator("#ffn-position5")) == "< 10⁻¹²"
    assert "no se entera" in text(lab.page.locator("#ffn-locality"))
    assert lab.page.locator("#ffn polyline").count() == 2
    lab.set(d_model=256, heads=8, d_ff=1024)
    assert "d_ff = 1024" in text(lab.page.locator("#ffn"))


def test_quiz_feedback_and_links(lab):
    open_block(lab)
    items = lab.page.locator("#quiz .quiz-item")
    assert 6 <= items.count() <= 8
    first = items.nth(0).locator(".predict")
    first.get_by_role("button", name="Cambia, porque las palabras se movieron").click()
    lab.settle()
    assert first.get_attribute("data-revealed") == "wrong"
    first.get_by_role("button", name="No cambia: solo depende de qué palabras son").click()
    lab.settle()
    assert first.get_attribute("data-revealed") == "right"
    assert "q·k" in text(first.locator(".predict-verdict"))
    # The link to the panel that explains a question shows once it is answered.
    link = items.nth(3).get_by_role("link")
    assert link.is_hidden()
    items.nth(3).locator(".predict-options button").first.click()
    assert items.nth(3).locator("button.correct").count() == 1
    assert link.get_attribute("href") == "#residual"
    link.click()
    lab.settle()
    assert lab.state()["panel"] == "residual"


def test_shuffling_on_a_phone_shows_the_words_in_their_new_order(lab):
    """On a 390 px phone the two weight tables stack below the buttons: a
    press brings the reordered one into view once it is drawn."""
    lab.page.set_viewport_size({"width": 390, "height": 844})
    lab.page.emulate_media(reduced_motion="reduce")  # the scroll lands at once
    open_block(lab)
    lab.page.locator("#orden").evaluate("(p) => p.scrollIntoView({block: 'start'})")
    permuted = lab.page.locator("#order-permuted")
    assert permuted.evaluate("(e) => e.getBoundingClientRect().bottom > innerHeight")
    lab.page.get_by_role("button", name="Barajar").click()
    lab.settle()
    lab.page.wait_for_function(
        "() => { const r = document.getElementById('order-permuted').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight + 1; }")
    words = ["El", "perro", "mordió", "al", "hombre"]
    caption = "Pesos · " + " ".join(words[i] for i in lab.state()["order"])
    assert text(permuted.locator("caption")).strip() == caption


def test_undoing_the_normalisation_on_a_phone_shows_its_result(lab):
    """On a 390 px phone the output row sits below the buttons' screen: the
    button brings the sentence under it into view once it is drawn."""
    lab.page.set_viewport_size({"width": 390, "height": 844})
    lab.page.emulate_media(reduced_motion="reduce")  # the scroll lands at once
    open_block(lab)
    button = lab.page.get_by_role("button", name="Deshacer la normalización")
    # The panel read from its heading, as a reader arrives at it.
    lab.page.locator("#layernorm").evaluate("(p) => p.scrollIntoView({block: 'start'})")
    result = lab.page.locator("#ln-undo")
    below = result.evaluate("(e) => e.getBoundingClientRect().bottom > innerHeight")
    assert below  # where a phone reader is when they tap
    button.click()
    lab.settle()
    lab.page.wait_for_function(
        "() => { const r = document.getElementById('ln-undo').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight + 1; }")
    assert text(lab.page.locator("#ln-out")) == "(2,000; 4,000; 6,000; 8,000)"
    assert lab.page.locator("#ln-out").evaluate(
        "(e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight + 1; }")
