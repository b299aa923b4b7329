"""What the page says follows from what it shows, where the reader looks."""
import pytest

from conftest import text, texts


def in_view(locator):
    return locator.evaluate(
        "(e) => { const r = e.getBoundingClientRect();"
        " return r.bottom > 0 && r.top < innerHeight && r.height > 0; }")


def test_a_tie_reads_as_a_tie(lab):
    lab.open(lab.base_url)
    assert text(lab.page.locator("#vocab-best")) == "empate entre del y de (0,41 cada una)"
    selected = texts(lab.page.locator("#table-vocab tr.selected th"))
    assert selected == ["del", "de"]


def test_the_prefix_verdict_names_both_sentences_tokens(lab):
    lab.open(lab.base_url, "?step=3").look()
    prefix = text(lab.page.locator("#cache .prefix"))
    assert "(«del»)" in prefix and "(«de»)" in prefix
    verdict = text(lab.page.locator("#prefix-verdict"))
    assert verdict.startswith("iguales, aunque los prefijos difieren (del/de)")


def test_a_rejected_value_is_explained_beside_its_control(lab):
    lab.open(lab.base_url, "?panel=rope")
    field = lab.page.get_by_label("Posición n de la clave")
    field.fill("99")
    field.press("Tab")
    lab.settle()
    message = lab.page.locator("#err-rope_n")
    assert text(message) == ("Posición n de la clave: 99 está fuera del rango 0 a 32. "
                                    "Se mantiene: 3.")
    assert in_view(message) and field.get_attribute("aria-invalid") == "true"
    assert lab.state()["rope_n"] == 3
    assert lab.notices() == []


def test_url_notices_stay_in_view_when_a_panel_is_opened(lab):
    lab.open(lab.base_url, "?panel=cache&query=9")
    assert lab.page.evaluate("window.scrollY") > 0
    notices = lab.page.locator("#notice-box")
    assert in_view(notices)
    assert "Consulta: 9 está fuera del rango 0 a 3" in text(notices)
    assert "query" not in text(notices)
    notices.get_by_role("button", name="Entendido").click()
    lab.settle()
    assert notices.is_hidden()


@pytest.mark.parametrize("query", ["", "?sentence=credito&head=all&panel=cache"])
def test_preparing_the_exercise_shows_its_result(lab, query):
    # From another state, far below: the score tables are rebuilt, and drawn
    # a moment after the change (off screen); the cell is found and flashed
    # once they are.
    lab.open(lab.base_url, query)
    lab.page.get_by_role("button", name="Preparar el ejercicio").click()
    lab.settle()
    lab.page.wait_for_function(
        "() => document.getElementById('announce').textContent.includes('1,41')")
    cell = lab.page.locator("#table-scores td.focus")
    assert text(cell) == "1,41"
    lab.page.wait_for_function(
        "() => { const r = document.querySelector('#table-scores td.focus')"
        ".getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }")
    lab.page.wait_for_selector("#table-scores td.focus.flash")
    # The keyboard goes on from the cell, not from the button far above.
    assert cell.evaluate("(td) => document.activeElement === td") is True
    # Preparing the exercise is not answering it: its weights wait for the
    # reader's prediction (the button had given it away).
    assert text(lab.page.locator("#announce")) == (
        "Ejercicio listo: puntuación de «banco» → «parque», 1,41. "
        "Los pesos esperan tu predicción, encima de las tablas.")
    weights = lab.page.locator("#puntuacion .weights-wrap").first
    assert weights.evaluate("(w) => w.classList.contains('veiled') && w.inert") is True
    question = lab.page.locator("#puntuacion .predict")
    assert text(question.locator(".predict-verdict")) == ""
    question.locator(".predict-options").get_by_role("button", name="la mitad o más", exact=True).click()
    assert weights.evaluate("(w) => w.classList.contains('veiled')") is False
    assert lab.cell("Pesos", "banco", "parque") == "0,58"
    # Once the weights are in view, preparing it again says the weight too.
    lab.page.get_by_role("button", name="Preparar el ejercicio").click()
    lab.settle()
    lab.page.wait_for_function("() => document.getElementById('announce').textContent.includes('0,58')")
    assert text(lab.page.locator("#announce")) == (
        "Ejercicio listo: puntuación de «banco» → «parque», 1,41; peso, 0,58.")


def test_questions_hide_their_answers_until_the_reader_picks(lab):
    lab.open(lab.base_url, "?panel=cache")
    # The comparison of the two sentences' prefixes answers it too.
    drift = lab.page.locator("#cache-answers")
    veiled = "(nodes) => nodes.map((d) => d.inert && d.classList.contains('veiled'))"
    assert drift.evaluate_all(veiled) == [True]
    lab.page.locator("#cache .predict").get_by_role("button", name="no", exact=True).click()
    lab.settle()
    assert drift.evaluate_all(veiled) == [False]
    # Answered stays answered: a new question (another mask, another head)
    # may be answered too, but what it hides stays in view.
    skip = lab.page.locator("#cache .predict-skip")
    for change in ({"mask": "bidirectional"}, {"mask": "causal"}, {"head": "all"}):
        lab.set(**change)
        assert drift.evaluate_all(veiled) == [False] and skip.is_hidden()


def test_block_sentences_follow_the_sizes(lab):
    lab.open(lab.base_url + "bloque.html", "?d_ff=512")
    sentence = text(lab.page.locator("#share-sentence"))
    assert sentence.startswith("Con d_ff = d_model, la FFN se lleva el 33,3 %")
    assert "dos tercios" not in sentence.split(" y la atención")[0]
    lab.set(d_model=768, heads=12, d_ff=3072)
    check = text(lab.page.locator("#block-check"))
    assert "finitos" not in check and "no se han calculado" in check
    lab.set(order=[0, 1, 2, 3, 4])
    assert "no ha cambiado" in text(lab.page.locator("#order-summary"))
    lab.set(depth=1)
    assert text(lab.page.locator("#residual")).count("Tras 1 capa,") == 1
