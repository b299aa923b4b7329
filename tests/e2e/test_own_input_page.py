"""Your own sentence, your own vectors, and attention you can see."""
import pytest
from conftest import Lab, close_page, new_page, text, texts


def chips(lab, target="tokens"):
    return lab.page.locator("[data-target='%s'][data-builder='remove']" % target).evaluate_all(
        "(buttons) => buttons.map((b) => b.closest('li').querySelector('.chip-word').textContent)")


def test_build_a_sentence_by_clicking(lab):
    lab.open(lab.base_url, "?mask=bidirectional&panel=propia")
    builder = lab.page.locator("#propia")
    assert chips(lab) == ["El", "banco", "del", "parque"]
    builder.get_by_role("button", name="Quitar «del» (posición 2)").click()
    lab.settle()
    builder.get_by_label("Palabra", exact=True).select_option("de")
    builder.get_by_role("button", name="Añadir al final").first.click()
    lab.settle()
    builder.get_by_role("button", name="Mover «de» (posición 3) a la izquierda").click()
    lab.settle()
    assert chips(lab) == ["El", "banco", "de", "parque"]
    assert lab.state()["tokens"] == ["El", "banco", "de", "parque"]
    assert "tokens=El;banco;de;parque" in lab.url()
    # The numbers belong to the words: banco → parque is still 1,41.
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    assert lab.page.get_by_label("Frase", exact=True).input_value() == "propia"
    # Choosing a preset replaces your sentence.
    lab.choose("Frase", "El banco de crédito")
    assert lab.state()["tokens"] == [] and chips(lab) == ["El", "banco", "de", "crédito"]


def test_build_a_sentence_by_keyboard(lab):
    lab.open(lab.base_url, "?panel=propia")
    move = lab.page.get_by_role("button", name="Mover «parque» (posición 3) a la izquierda")
    move.focus()
    lab.page.keyboard.press("Enter")
    lab.settle()
    assert chips(lab) == ["El", "banco", "parque", "del"]
    # Focus followed the word: pressing again moves it further.
    assert "parque" in lab.page.evaluate("document.activeElement.getAttribute('aria-label')")
    lab.page.keyboard.press("Enter")
    lab.settle()
    assert chips(lab) == ["El", "parque", "banco", "del"]


def test_edit_a_vector_and_read_the_new_score(lab):
    lab.open(lab.base_url, "?mask=bidirectional")
    first = lab.page.get_by_label("clave k de «parque», coordenada 1").first
    first.fill("3")
    first.press("Tab")
    lab.settle()
    assert lab.cell("Puntuaciones", "banco", "parque") == "2,12"
    assert text(lab.page.locator("#puntuacion .formula")) == "(1·3 + 0·0) / √2 ≈ 2,12"
    assert "vec=lugar.parque.k:3;0" in lab.url()
    cell = lab.page.locator("[data-cell='lugar.parque.k']")
    assert "edited" in cell.get_attribute("class") and "artículo: (2; 0)" in text(cell)
    # A refused value stays in its field, marked, with the message beside the table.
    second = lab.page.get_by_label("clave k de «parque», coordenada 2").first
    second.fill("doce")
    second.press("Tab")
    lab.settle()
    assert "«doce» no es un número. " in text(lab.page.locator("#err-vec"))
    assert second.get_attribute("aria-invalid") == "true"
    assert lab.cell("Puntuaciones", "banco", "parque") == "2,12"  # the last valid table stays
    # A decimal comma is fine.
    second.fill("0,5")
    second.press("Tab")
    lab.settle()
    assert lab.state()["vec"] == {"lugar.parque.k": [3, 0.5]}
    assert second.get_attribute("aria-invalid") is None and text(lab.page.locator("#err-vec")) == ""
    lab.page.get_by_role("button", name="Restablecer los vectores de «pista de lugar»").click()
    lab.settle()
    assert lab.state()["vec"] == {} and lab.cell("Puntuaciones", "banco", "parque") == "1,41"


def test_with_all_heads_the_editor_shows_one_heads_vectors_at_a_time(lab):
    lab.open(lab.base_url, "?head=all&mask=bidirectional")
    editor = lab.page.locator("#cabezas .vectors")
    picker = editor.get_by_role("group", name="Vectores de")
    buttons = picker.get_by_role("button")
    # The word heads: «token anterior» is built from position, with no word's vectors.
    assert texts(buttons) == ["pista de lugar", "pista financiera"]
    assert buttons.first.get_attribute("aria-pressed") == "true"
    tables = editor.locator("table:visible")
    assert tables.count() == 1 and "pista de lugar" in text(tables.first.locator("caption"))
    # Another head's table, by keyboard; its edit reaches the URL and its button.
    buttons.nth(1).focus()
    lab.page.keyboard.press("Enter")
    assert tables.count() == 1 and "pista financiera" in text(tables.first.locator("caption"))
    field = tables.first.get_by_label("valor v de «banco», coordenada 1")
    field.fill("-2")
    field.press("Tab")
    state = lab.settle()
    assert state["vec"] == {"finanzas.banco.v": [-2, 0.5]}
    assert text(buttons.nth(1)) == "pista financiera (1 cambiado)"
    assert buttons.nth(1).get_attribute("aria-pressed") == "true"  # the pick stays
    # One head again: its table alone, no picker; the fields now name its vectors.
    lab.choose("Cabeza", "pista financiera")
    assert picker.count() == 0 and tables.count() == 1
    assert tables.first.locator("[data-cell='finanzas.banco.v']").count() == 1
    assert tables.first.get_by_label("valor v de «banco», coordenada 1").input_value() == "−2"  # as Python writes it


def refuse_doce(lab, field):
    """Type a word into a vector field: refused, with the message beside it."""
    field.fill("doce")
    field.press("Enter")
    lab.settle()
    message = lab.page.locator("#err-vec")
    assert "«doce» no es un número. " in text(message)
    return message


@pytest.mark.cold
def test_on_a_phone_a_refused_value_and_its_field_are_both_on_screen(lab):
    # The editor stacks 18 rows on a phone; its message sits after them.
    lab.page.set_viewport_size({"width": 390, "height": 844})
    lab.open(lab.base_url, "?head=all")
    field = lab.page.get_by_label("consulta q de «El», coordenada 1").first
    field.scroll_into_view_if_needed()
    message = refuse_doce(lab, field)
    field.press("Tab")
    lab.settle()
    on_screen = "(e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"
    assert field.evaluate(on_screen) and message.evaluate(on_screen)


@pytest.mark.cold
@pytest.mark.parametrize("width,height", [(390, 844), (1366, 768)])
def test_a_refused_value_never_covers_its_field(lab, width, height):
    # The message sticks to the bottom of the screen: a field typed in at the
    # bottom edge must move up above it, not sit under it.
    lab.page.set_viewport_size({"width": width, "height": height})
    lab.open(lab.base_url, "?head=all")
    field = lab.page.get_by_label("clave k de «parque», coordenada 1").first
    field.scroll_into_view_if_needed()
    field.evaluate("(e) => scrollBy(0, e.getBoundingClientRect().bottom - innerHeight + 4)")
    message = refuse_doce(lab, field)
    boxes = [e.evaluate("(e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }")
             for e in (field, message)]
    (top, bottom), (message_top, message_bottom) = boxes
    assert 0 <= top and bottom <= message_top and message_bottom <= height, boxes
    # Another field scrolled under the message still takes a tap.
    other = lab.page.get_by_label("consulta q de «El», coordenada 1").first
    hit = other.evaluate("""(e) => {
      const box = document.getElementById('err-vec').getBoundingClientRect();
      scrollBy(0, e.getBoundingClientRect().top - (box.top + box.bottom) / 2);
      const r = e.getBoundingClientRect(), m = document.getElementById('err-vec').getBoundingClientRect();
      const y = (r.top + r.bottom) / 2;
      return [m.top < y && y < m.bottom, document.elementFromPoint((r.left + r.right) / 2, y) === e];
    }""")
    assert hit == [True, True]


def test_a_shared_link_with_a_sentence_and_edits_reproduces_the_view(lab, browser):
    query = "?tokens=El;banco;de;parque;parque&mask=bidirectional&vec=lugar.parque.k:3;0"
    lab.open(lab.base_url, query).look()
    tables = (lab.table("Puntuaciones"), lab.table("Pesos"))
    other = type(lab)(new_page(browser.new_context()))
    other.open(lab.base_url, query).look()
    assert (other.table("Puntuaciones"), other.table("Pesos")) == tables
    assert other.state() == lab.state()
    other.page.context.close()


def test_preparing_the_exercise_puts_the_article_vectors_back(lab):
    lab.open(lab.base_url, "?vec=lugar.parque.k:3;0")
    lab.page.get_by_role("button", name="Preparar el ejercicio").click()
    state = lab.settle()
    assert state["vec"] == {} and (state["mask"], state["head"]) == ("bidirectional", "lugar")
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"  # what the card says


def test_the_head_view_draws_one_line_per_open_pair(lab):
    lab.open(lab.base_url)
    lines = lab.page.locator("#puntuacion .headview line.hv-link")
    assert lines.count() == 10  # causal, 4 words: 4 + 3 + 2 + 1 open pairs
    lab.choose("Máscara", "bidireccional")
    assert lines.count() == 16
    lab.page.locator("#puntuacion").get_by_role("button", name="Mostrar sin predecir").click()
    word = lab.page.locator("#puntuacion .hv-q .hv-word").nth(1)
    assert text(word).strip() == "banco" and "hv-query" in word.get_attribute("class")
    word.focus()
    shown = [t for t in lab.page.locator("#puntuacion .hv-k .hv-w").all_text_contents() if t]
    assert len(shown) == 4 and "0,58" in shown
    assert lab.page.locator("#puntuacion line.hv-link.hv-on").count() == 4
    assert "banco → parque (0,58)" in text(lab.page.locator("#puntuacion .headview + .visually-hidden, "
                                                      "#puntuacion .visually-hidden").first)
    # Another query moves the highlight; the lines stay the very same drawing.
    lab.page.evaluate("document.querySelector('#puntuacion .headview svg').dataset.mark = 'drawn'")
    lab.choose("Consulta", "3 · parque")
    queries = lab.page.locator("#puntuacion .hv-q .hv-word")
    assert [i for i in range(4) if "hv-query" in queries.nth(i).get_attribute("class")] == [3]
    assert lab.page.locator("#puntuacion .headview svg").get_attribute("data-mark") == "drawn"
    assert lines.count() == 16
    # Another mask draws anew: its lines are not the same.
    lab.choose("Máscara", "causal")
    assert lines.count() == 10
    assert lab.page.locator("#puntuacion .headview svg").get_attribute("data-mark") is None
    assert "hv-query" in queries.nth(3).get_attribute("class")
    lab.choose("Cabeza", "todas (concatenar y W_O)")
    assert lab.page.locator("#puntuacion .hv-legend li").count() == 3
    dashes = lab.page.locator("#puntuacion line.hv-link.head-1").first.get_attribute("stroke-dasharray")
    assert dashes  # heads differ by dash pattern, not colour alone


def test_curves_have_axes_ticks_and_a_text_alternative(lab):
    lab.open(lab.base_url + "bloque.html", "?panel=residual")
    chart = lab.page.locator("#residual svg.chart")
    assert "sin residual" in text(lab.page.locator("#residual .chart-legend"))
    assert chart.locator("text.tick").count() >= 5
    assert "10⁻" in " ".join(chart.locator("text.tick").all_text_contents())
    assert chart.get_attribute("aria-label").startswith("Con 12 capas, la norma del gradiente")
    assert lab.page.locator("#layernorm svg.chart polyline").count() == 5  # 3 norms, 2 gradients
    assert lab.page.locator("#orden .headview").count() == 2
    lab.open(lab.base_url, "?panel=rope")
    assert lab.page.locator("#rope svg.chart circle.marker-dot").count() == 1
    assert lab.page.locator("#entrenamiento svg.chart rect.bar").count() == 3


# ------------------------------------------------------------- typing a sentence

def type_sentence(lab, words, field="#type-tokens"):
    """Type into the sentence field as a phone user does, and tap «Usar»."""
    box = lab.page.locator(field)
    box.scroll_into_view_if_needed()
    box.tap()
    box.fill(words)
    box.locator("xpath=ancestor::form").get_by_role("button", name="Usar").tap()
    return lab.settle()


def test_type_a_sentence_on_a_phone_and_read_bancos_weights(phone_visitor, base_url):
    context = phone_visitor
    lab = Lab(new_page(context))
    try:
        lab.open(base_url, "", more=False)
        state = type_sentence(lab, "Pedí un crédito al banco.")
        # Python read the words (the full stop is dropped) and put the query on banco.
        assert state["tokens"] == ["Pedí", "un", "crédito", "al", "banco"] and state["query"] == 4
        assert "tokens=Ped%C3%AD;un;cr%C3%A9dito;al;banco" in lab.url()
        lesson = text(lab.page.locator("#propia .clue-lesson"))
        assert ("«crédito» va antes de «banco», y la máscara causal solo oculta lo que viene "
                "después") in lesson
        # banco's weights, causal, with the money head: crédito gets the 0,45 the sentence quotes.
        lab.choose("Cabeza", "pista financiera")
        lab.page.locator("#puntuacion").get_by_role("button", name="Mostrar sin predecir").tap()
        lab.page.wait_for_function("() => !document.querySelector('#puntuacion .veiled')")
        row = lab.table("Pesos")["banco"]
        assert row == ["0,11", "0,11", "0,45", "0,11", "0,22"]
        assert "sigue recibiendo 0,45 en la pista financiera" in lesson
        # A link with the typed sentence paints it again after a reload.
        lab.page.reload()
        lab.page.evaluate("window.lab.ready")
        lab.page.wait_for_selector("body[data-live='true']", state="attached")
        assert lab.state()["tokens"] == ["Pedí", "un", "crédito", "al", "banco"]
        assert lab.page.locator("#type-tokens").input_value() == "Pedí un crédito al banco"
        assert "«crédito» va antes" in text(lab.page.locator("#propia .clue-lesson"))
        # On a phone every chip's button is a finger's size.
        lab.page.locator("#propia summary", has_text="Armarla con botones").tap()
        sizes = lab.page.locator("#propia [data-target='tokens'][data-builder]").evaluate_all(
            "(bs) => bs.map((b) => [b.getBoundingClientRect().width, b.getBoundingClientRect().height])")
        assert len(sizes) == 15 and all(w >= 44 and h >= 44 for w, h in sizes), sizes
        # A longer sentence: the key moves to «río», past the right edge of
        # the phone's score table, which scrolls sideways to show its cell.
        state = type_sentence(lab, "Me senté en el banco junto al río")
        assert (state["query"], state["key"]) == (4, 7)
        lab.page.wait_for_function("""() => {
          const cell = document.querySelector('#score-tables td.focus');
          const wrap = cell && cell.closest('table').parentElement;
          if (!cell || wrap.scrollWidth <= wrap.clientWidth) return false;
          const box = wrap.getBoundingClientRect(), place = cell.getBoundingClientRect();
          return place.left >= box.left && place.right <= box.right + 1 && wrap.scrollLeft > 0;
        }""")
        assert lab.errors == []
    finally:
        close_page(context, lab.page)


def test_an_unknown_word_is_named_and_its_near_miss_is_one_tap_away(phone_visitor, base_url):
    context = phone_visitor
    lab = Lab(new_page(context))
    try:
        lab.open(base_url, "", more=False)
        type_sentence(lab, "El banco junto al rio")
        notice = lab.page.locator("#notice-tokens")
        assert text(notice).startswith("No conozco «rio»: la trato como palabra neutra")
        assert text(notice).endswith("¿Querías decir «río»?")
        unknown = lab.page.locator("#propia .chip-unknown .chip-word")
        assert unknown.count() == 1 and unknown.text_content().startswith("rio")
        assert "Ni la «pista de lugar» ni la «pista financiera» encuentra otra palabra" in text(lab.page.locator("#propia .clue-lesson"))
        lab.page.get_by_role("button", name="Usar «El banco junto al río»").tap()
        state = lab.settle()
        assert state["tokens"] == ["El", "banco", "junto", "al", "río"]
        # The button is gone; focus is back in the field, not lost on the page.
        lab.page.wait_for_function("() => document.activeElement.id === 'type-tokens'")
        assert not notice.is_visible() and lab.page.locator(".fix-button:visible").count() == 0
        lesson = text(lab.page.locator("#propia .clue-lesson"))
        assert lesson.startswith("Qué encuentra «banco» — «río» va después de «banco»: con la máscara causal")
        # Bad input: said beside the field, the sentence unchanged, nothing drawn as markup.
        for bad, said in (("<img src=x onerror=alert(1)>", "«<» no se usa en una frase"),
                          ("", "escribe al menos una palabra"),
                          ("banco " * 13, "una frase tiene de 1 a 12 palabras; esta tiene 13"),
                          ("El banco 😀", "«😀» no es una letra")):
            type_sentence(lab, bad)
            error = lab.page.locator("#err-tokens")
            assert said in text(error), (bad, text(error))
            assert error.is_visible()
            assert lab.page.locator("#type-tokens").get_attribute("aria-invalid") == "true"
            assert lab.state()["tokens"] == ["El", "banco", "junto", "al", "río"]
            assert lab.page.locator("img[src='x']").count() == 0
        assert lab.errors == []
    finally:
        close_page(context, lab.page)


def test_the_comparison_sentence_can_be_typed_too(lab):
    lab.open(lab.base_url, "?step=3")
    lab.page.locator("#type-other").fill("¿El banco, junto al río?")
    lab.page.locator("#type-other").press("Enter")
    state = lab.settle()
    assert state["other"] == ["El", "banco", "junto", "al", "río"]
    # The field shows the words Python read.
    lab.page.wait_for_function("() => document.getElementById('type-other').value === "
                               "'El banco junto al río'")
    lab.look()
    assert "«El banco junto al río»" in text(lab.page.locator("#cache"))
    # The vocabulary, by group, one tap away.
    groups = texts(lab.page.locator("#propia .vocabulary dt"))
    assert groups[0].startswith("La palabra ambigua (1)") and any(g.startswith("Lugares (") for g in groups)
    assert "río" in text(lab.page.locator("#propia .vocabulary dd").nth(1))
