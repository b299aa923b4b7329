"""What the page says follows from what it shows, where the reader looks."""


def in_view(locator):
    return locator.evaluate(
        "(e) => { const r = e.getBoundingClientRect();"
        " return r.bottom > 0 && r.top < innerHeight && r.height > 0; }")


def test_a_tie_reads_as_a_tie(lab):
    lab.open(lab.base_url)
    assert lab.page.locator("#vocab-best").inner_text() == "empate entre del y de (0,41 cada una)"
    selected = lab.page.locator("#table-vocab tr.selected th").all_inner_texts()
    assert selected == ["del", "de"]


def test_the_prefix_verdict_names_both_sentences_tokens(lab):
    lab.open(lab.base_url, "?step=3")
    prefix = lab.page.locator("#cache .prefix").inner_text()
    assert "(«del»)" in prefix and "(«de»)" in prefix
    verdict = lab.page.locator("#prefix-verdict").inner_text()
    assert verdict.startswith("iguales, aunque los prefijos difieren (del/de)")


def test_a_rejected_value_is_explained_beside_its_control(lab):
    lab.open(lab.base_url, "?panel=rope")
    field = lab.page.get_by_label("Posición n de la clave")
    field.fill("99")
    field.press("Tab")
    lab.settle()
    message = lab.page.locator("#err-rope_n")
    assert message.inner_text() == ("Posición n de la clave: 99 está fuera del rango 0 a 32. "
                                    "Se mantiene: 3.")
    assert in_view(message) and field.get_attribute("aria-invalid") == "true"
    assert lab.state()["rope_n"] == 3
    assert lab.notices() == []


def test_url_notices_stay_in_view_when_a_panel_is_opened(lab):
    lab.open(lab.base_url, "?panel=cache&query=9")
    assert lab.page.evaluate("window.scrollY") > 0
    notices = lab.page.locator("#notice-box")
    assert in_view(notices)
    assert "Consulta: 9 está fuera del rango 0 a 3" in notices.inner_text()
    assert "query" not in notices.inner_text()
    notices.get_by_role("button", name="Entendido").click()
    lab.settle()
    assert notices.is_hidden()


def test_preparing_the_exercise_shows_its_result(lab):
    lab.open(lab.base_url)
    lab.page.get_by_role("button", name="Preparar el ejercicio").click()
    lab.settle()
    lab.page.wait_for_function(
        "() => document.getElementById('announce').textContent.includes('1,41')")
    cell = lab.page.locator("#table-scores td.focus")
    assert cell.inner_text() == "1,41"
    lab.page.wait_for_function(
        "() => { const r = document.querySelector('#table-scores td.focus')"
        ".getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }")
    assert "flash" in cell.get_attribute("class")
    assert lab.page.locator("#announce").inner_text() == (
        "Ejercicio listo: puntuación de banco → parque, 1,41; peso, 0,58.")


def test_questions_hide_their_answers_until_the_reader_picks(lab):
    lab.open(lab.base_url, "?panel=cache")
    drift = lab.page.locator("#cache-drift")
    assert drift.evaluate("(d) => d.inert && d.classList.contains('veiled')")
    lab.page.locator("#cache .predict").get_by_role("button", name="no", exact=True).click()
    lab.settle()
    assert drift.evaluate("(d) => !d.inert && !d.classList.contains('veiled')")
    # Once the reader has answered, a new question does not veil it again.
    lab.set(mask="bidirectional")
    assert drift.evaluate("(d) => !d.inert")


def test_block_sentences_follow_the_sizes(lab):
    lab.open(lab.base_url + "bloque.html", "?d_ff=512")
    sentence = lab.page.locator("#share-sentence").inner_text()
    assert sentence.startswith("Con d_ff = 1·d_model, la FFN se lleva el 33,33 %")
    assert "dos tercios" not in sentence.split(" y la atención")[0]
    lab.set(d_model=768, heads=12, d_ff=3072)
    check = lab.page.locator("#block-check").inner_text()
    assert "finitos" not in check and "no se han calculado" in check
    lab.set(order=[0, 1, 2, 3, 4])
    assert "no ha cambiado" in lab.page.locator("#order-summary").inner_text()
    lab.set(depth=1)
    assert lab.page.locator("#residual").inner_text().count("Tras 1 capa,") == 1
