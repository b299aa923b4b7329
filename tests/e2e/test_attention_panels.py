"""Every panel of the attention laboratorio, through its controls and lab.set.

Expected texts come from lab_core itself, run here in CPython 3.11 + NumPy 2:
the page runs the same code on Python 3.8 + NumPy 1.17, so equality is also
a cross-runtime check.
"""
import re

import pytest

from lab_core import attention_lab
from lab_core.page_text import TEXT as SAID

from conftest import OPEN_MORE, RENDERED, expected, rows_text, text, texts

SPEC = attention_lab.SPEC


def test_score_arithmetic_for_the_article_cell(lab):
    lab.open(lab.base_url).look()
    lab.choose("Máscara", "bidireccional")
    panel = lab.page.locator("#puntuacion")
    derivation = panel.locator(".derivation")
    assert text(derivation.locator(".formula")) == "(1·2 + 0·0) / √2 ≈ 1,41"
    assert "q = (1; 0), k = (2; 0)" in text(derivation)
    softmax = lab.table("Softmax de la fila de «banco»")
    assert softmax["parque"] == ["1,41", "1,000", "0,58"]
    assert softmax["suma"][-1] == "1,00"
    # Another cell, through the Clave control: El's key (0, 1).
    lab.choose("Clave", "0 · El")
    assert text(derivation.locator(".formula")) == "(1·0 + 0·1) / √2 = 0,00"
    # A masked cell explains itself.
    lab.set(mask="causal", key=3)
    assert "−∞" in text(derivation.locator(".why"))
    assert "Puntuación efectiva: −∞." in text(derivation)
    assert "Peso final: 0." in text(derivation)


MORE = "la mitad o más"  # panel 1's question: the chosen key's weight, in three bands
LESS = "más de 0 y menos de la mitad"


def test_score_prediction_is_revealed_after_a_pick(lab):
    lab.open(lab.base_url, "?mask=bidirectional")
    prompt = lab.page.locator("#puntuacion .predict")
    assert text(prompt.locator(".predict-question")) == (
        "En «pista de lugar», con la máscara bidireccional, ¿qué peso recibirá «parque» en la "
        "fila de «banco»?")
    assert text(prompt.locator(".predict-verdict")) == ""
    prompt.get_by_role("button", name="0", exact=True).click()
    lab.settle()
    assert prompt.get_attribute("data-revealed") == "wrong"
    prompt.get_by_role("button", name=MORE, exact=True).click()
    lab.settle()
    assert prompt.get_attribute("data-revealed") == "right"
    assert text(prompt.locator(".predict-verdict")).startswith(
        "¡Bien visto! «parque» recibe 0,58 de la fila de «banco»: más de la mitad.")


def test_a_question_answered_stays_answered(lab):
    # Step 4 of the exercise asked again what step 3 had answered: the
    # weights hid behind a new question. An answer now opens them for the
    # visit, across changes and a reload of the tab, until lab.reset().
    lab.open(lab.base_url, "?mask=bidirectional")
    prompt = lab.page.locator("#puntuacion .predict")
    weights = lab.page.locator("#puntuacion .weights-wrap").first
    veiled = "(w) => w.classList.contains('veiled') && w.inert"
    skip = prompt.get_by_role("button", name="Mostrar sin predecir")
    assert weights.evaluate(veiled) is True
    prompt.get_by_role("button", name=MORE, exact=True).click()
    assert weights.evaluate(veiled) is False and skip.is_hidden()
    assert lab.cell("Pesos", "banco", "parque") == "0,58"
    lab.set(mask="causal")  # step 4: the weight falls to 0, in view at once
    assert weights.evaluate(veiled) is False and skip.is_hidden()
    assert lab.cell("Pesos", "banco", "parque") == "0"
    assert prompt.get_attribute("data-revealed") == "open"
    assert text(prompt.locator(".predict-verdict")) == SAID["predict.again"]
    view = expected(mask="causal")["arithmetic"]["predict"]
    assert view["answers"] == ["cero"]
    prompt.get_by_role("button", name="0", exact=True).click()  # may still be answered
    assert prompt.get_attribute("data-revealed") == "right"
    # A reload of the tab keeps the answers.
    lab.page.reload()
    lab.page.evaluate("window.lab.ready")
    lab.page.wait_for_selector("body[data-live='true']", state="attached")
    lab.settle()
    assert lab.state()["mask"] == "causal"
    assert weights.evaluate(veiled) is False
    assert prompt.get_attribute("data-revealed") == "right"
    # lab.reset() forgets them.
    lab.page.evaluate("window.lab.reset()")
    assert weights.evaluate(veiled) is True
    assert prompt.get_attribute("data-revealed") == "false"


def test_a_question_seen_without_predicting_gives_its_answer(lab):
    # «Mostrar sin predecir» opens what the question hides: the question then
    # says its answer, from Python's prompt, for this row and the next.
    lab.open(lab.base_url, "?mask=bidirectional")
    prompt = lab.page.locator("#puntuacion .predict")
    view = expected(mask="bidirectional")["arithmetic"]["predict"]
    prompt.get_by_role("button", name="Mostrar sin predecir").click()
    assert prompt.get_attribute("data-revealed") == "skipped"
    right = [o["label"] for o in view["options"] if o["value"] in view["answers"]]
    assert right == [MORE]
    # Python's explanation names the answer once; the page adds nothing to it.
    assert view["explanation"].startswith("«parque» recibe 0,58 de la fila de «banco»: más de la "
                                          "mitad. Más peso en la fila: parque (0,58).")
    assert text(prompt.locator(".predict-verdict")) == "Sin predecir. " + view["explanation"]
    assert texts(prompt.locator(".predict-options button.correct")) == [MORE]
    lab.set(query=0)  # another row, another question: its answer too
    view = expected(mask="bidirectional", query=0)["arithmetic"]["predict"]
    assert prompt.get_attribute("data-revealed") == "skipped"
    assert "Más peso en la fila: empate entre El y del" in view["explanation"]  # a tie
    assert text(prompt.locator(".predict-verdict")) == "Sin predecir. " + view["explanation"]
    # The reader may still answer: their pick is judged as any other.
    prompt.get_by_role("button", name=LESS, exact=True).click()
    assert prompt.get_attribute("data-revealed") == "right"
    assert text(prompt.locator(".predict-verdict")) == "¡Bien visto! " + view["explanation"]
    # A tie across every key, as the row reads.
    lab.set(query=3, head="finanzas")
    view = expected(mask="bidirectional", query=3, head="finanzas")["arithmetic"]["predict"]
    assert "empate entre El, banco, del y parque" in view["explanation"]
    assert text(prompt.locator(".predict-verdict")) == "Sin predecir. " + view["explanation"]


def test_mixture_and_vocabulary_distribution(lab):
    lab.open(lab.base_url)
    lab.set(mask="bidirectional")
    view = expected(mask="bidirectional")
    block = view["mixture"]["blocks"][0]
    assert lab.table(block["table"]["caption"]) == rows_text(block["table"])
    assert lab.table(block["table"]["caption"])["suma"][-1] == "(0,65; 0,07)"
    vocab = view["mixture"]["vocab"]["table"]
    shown = lab.table(vocab["caption"])
    assert shown == rows_text(vocab)
    assert shown["suma"][-1] == "1,00"
    assert list(shown)[0] == "del"  # banco, seeing parque, expects "del"


def test_heads_one_by_one_and_all_together(lab):
    lab.open(lab.base_url)
    combine = lab.page.locator("#cabezas .combine")
    assert combine.is_hidden()
    assert lab.table("Q, K y V · pista de lugar")["banco"] == ["(1; 0)", "(0; 0)", "(0,5; 0,5)"]
    lab.choose("Cabeza", "todas (concatenar y W_O)")
    assert lab.state()["head"] == "all"
    assert combine.is_visible()
    assert "× W_O [6, d_model=6] → [n_seq=4, d_model=6]" in text(combine)
    for label in ("pista de lugar", "pista financiera", "token anterior"):
        lab.find_table("Puntuaciones · " + label).wait_for()
        assert lab.table("Q, K y V · " + label)
    view = expected(head="all")
    concat = view["heads"]["combine"]["concat"]
    assert lab.table(concat["caption"]) == rows_text(concat)
    # The query row's output, worked out from the concatenation, under it.
    sums = combine.locator("p.explain").last
    assert text(sums) == view["heads"]["combine"]["sums"]
    assert "En la fila de «banco», la columna «parque» es lug·1 + fin·1" in text(sums)
    lab.set(query=3)
    # The tables' own numbers, and why they do not add up as read.
    assert "lug·1 + fin·1: 0,65\u00a0+\u00a00,38\u00a0≈\u00a01,02" in text(sums)
    assert "cada número está redondeado por separado" in text(sums)
    lab.set(head="finanzas")
    assert combine.is_hidden()


def test_mask_matrix_closes_cells_in_place(lab):
    lab.open(lab.base_url)
    caption = "Máscara causal (se suma antes de softmax)"
    grid = lab.table(caption)
    assert sum(row.count("−∞") for row in grid.values()) == 6
    cell = lab.page.get_by_role("table", name=caption).locator("tbody tr").nth(0).locator("td").nth(3)
    cell.evaluate("(td) => { td.dataset.marker = 'same-node'; }")
    assert "0.45s" in cell.evaluate("(td) => getComputedStyle(td).transitionDuration")
    lab.choose("Máscara", "bidireccional")
    grid = lab.table("Máscara bidireccional (se suma antes de softmax)")
    assert sum(row.count("−∞") for row in grid.values()) == 0
    # The same cell element changed class (and so animates) rather than being replaced.
    same = lab.page.locator("td[data-marker='same-node']")
    assert same.count() == 1 and text(same) == "0"
    diagonal = lab.page.locator("#mascara td.diagonal")
    assert diagonal.count() == 4
    prompt = lab.page.locator("#mascara .predict")
    prompt.get_by_role("button", name="sí, cambia").click()
    lab.settle()
    assert prompt.get_attribute("data-revealed") == "right"


def test_rope_panel_controls(lab):
    lab.open(lab.base_url)
    score = lab.page.locator("#rope-score")
    assert text(score) == expected()["rope"]["score"]
    assert lab.page.locator("#rope svg line.vec").count() == 4  # q, k, qₘ, kₙ
    # Shifting m and n together leaves the score alone.
    before = text(score)
    lab.page.get_by_label("Posición m de la consulta").fill("5")
    lab.page.get_by_label("Posición n de la clave").fill("7")
    lab.page.get_by_label("Posición n de la clave").press("Tab")
    lab.settle()
    assert (lab.state()["rope_m"], lab.state()["rope_n"]) == (5, 7)
    assert text(score) == before
    # A different offset changes it; so does different content.
    lab.page.get_by_label("Posición n de la clave").fill("9")
    lab.page.get_by_label("Posición n de la clave").press("Tab")
    lab.settle()
    assert text(score) != before
    offset_score = text(score)
    lab.page.get_by_label("q₂").fill("1")
    lab.page.get_by_label("q₂").press("Tab")
    lab.settle()
    assert lab.state()["rope_q"] == [1, 1]
    assert text(score) != offset_score
    # The slider moves θ.
    lab.page.get_by_label("Frecuencia θ").fill("1.2")
    lab.settle()
    assert lab.state()["theta"] == 1.2
    assert text(score) == expected(theta=1.2, rope_m=5, rope_n=9, rope_q=[1, 1])["rope"]["score"]
    # The offset table is veiled until the reader answers the question it answers.
    offsets = lab.page.locator("#rope-answers")
    assert offsets.get_attribute("class") == "veiled"
    prompt = lab.page.locator("#rope .predict")
    prompt.get_by_role("button", name="no cambia").click()
    lab.settle()
    assert prompt.get_attribute("data-revealed") == "right"
    assert offsets.get_attribute("class") == ""
    # Every row of the offset table holds one value, whatever (m, n).
    table = lab.table("qₘ · kₙ según el desplazamiento n − m (θ = 1,20)")
    assert "n − m = +4" in table and "n − m = −3" in table
    for label, cells in table.items():
        assert len(set(cells)) == 1, (label, cells)


def test_training_panel_through_the_panel_key(lab):
    lab.open(lab.base_url, "?panel=entrenamiento")
    link = lab.page.locator(".panel-nav a[data-panel='entrenamiento']")
    assert link.get_attribute("aria-current") == "true"
    assert lab.page.locator("#entrenamiento").evaluate(
        "(s) => { const r = s.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; }")
    table = expected()["training"]["table"]
    shown = lab.table(table["caption"])
    assert shown == rows_text(table)
    assert shown["1 · banco"][0] == "del" and shown["2 · del"][0] == "parque"
    lab.choose("Frase", "El banco de crédito")
    assert lab.table(table["caption"])["2 · de"][0] == "crédito"
    lab.page.locator(".panel-nav a[data-panel='cache']").click()
    lab.settle()
    assert lab.state()["panel"] == "cache"
    assert "panel=cache" in lab.url()


def test_kv_cache_steps_and_live_check(lab):
    lab.open(lab.base_url).look()
    cache = lab.page.locator("#cache")
    assert text(lab.page.locator("#cache-diff")) == "< 10⁻¹²"
    assert cache.locator(".check").get_attribute("data-flag") == "true"
    # Step 2 is banco: the same mixture in both sentences (identical prefix).
    assert text(lab.page.locator("#prefix-verdict")).startswith("iguales")
    assert len(lab.table("Caché tras el paso 2: 2 filas de K y V")) == 2
    cache.get_by_role("button", name="Paso siguiente →").click()
    lab.settle()
    cache.get_by_role("button", name="Paso siguiente →").click()
    lab.settle()
    assert lab.state()["step"] == 4
    assert cache.get_by_role("button", name="Paso siguiente →").is_disabled()
    assert len(lab.table("Caché tras el paso 4: 4 filas de K y V")) == 4
    counts = lab.table("Trabajo y memoria de cada paso")
    assert counts["total"] == ["12", "30", "10", "20", ""]
    assert counts["paso 4"] == ["3", "12", "4", "10", "16"]
    # At the last position the sentences differ, and so do the mixtures.
    assert text(lab.page.locator("#prefix-verdict")).startswith("distintas")
    assert text(lab.page.locator("#drift-causal")) == "< 10⁻¹²"
    assert not text(lab.page.locator("#drift-bidirectional")).startswith("<")
    lab.choose("Paso", "1 · llega «El»")
    assert cache.get_by_role("button", name="← Paso anterior").is_disabled()
    prompt = cache.locator(".predict")
    prompt.get_by_role("button", name="no", exact=True).click()
    lab.settle()
    assert prompt.get_attribute("data-revealed") == "right"


def test_kv_cache_with_all_heads(lab):
    lab.open(lab.base_url, "?head=all&step=3").look()
    counts = lab.table("Trabajo y memoria de cada paso (3 cabezas)")
    assert counts["total"] == ["27", "54", "18", "30", ""]
    assert text(lab.page.locator("#cache-diff")) == "< 10⁻¹²"


def test_bad_panel_values_fall_back_with_notices(lab):
    lab.open(lab.base_url, "?theta=abc&rope_m=-3&step=9&panel=cocina&head=todas&rope_q=1")
    state = lab.state()
    default = SPEC.default_state()
    for key in ("theta", "rope_m", "step", "panel", "head", "rope_q"):
        assert state[key] == default[key], key
    assert len(lab.notices()) == 6
    for partial, pattern in [({"theta": "NaN"}, "«NaN» no es un número\\. "),
                             ({"theta": 9}, "fuera del rango"),
                             ({"step": 5}, "fuera del rango"),
                             ({"rope_n": 1.5}, "no es un número entero"),
                             ({"panel": "nada"}, "no es una de las opciones"),
                             ({"head": "todas"}, "no es una de las opciones")]:
        error = lab.page.evaluate(
            "(p) => window.lab.set(p).then(() => 'resolved', (e) => e.message)", partial)
        assert re.search(pattern, error), (partial, error)
    assert lab.state() == state
    # No number on the page reads NaN or Infinity.
    assert not re.search(r"NaN|Infinity|undefined", text(lab.page.locator("main")))


@pytest.mark.cold  # the subject is a fresh load's place: a warm page is scrolled to the top by its reset
def test_page_opens_at_the_top_unless_a_panel_is_asked_for(lab):
    lab.open(lab.base_url, "?mask=bidirectional", more=False)
    assert lab.page.evaluate("window.scrollY") == 0
    lab.set(panel="rope")
    assert lab.page.evaluate("window.scrollY") > 0
    assert lab.page.locator(".panel-nav a[data-panel='rope']").get_attribute("aria-current") == "true"


def test_clicking_or_focusing_a_score_cell_explains_it(lab):
    lab.open(lab.base_url, "?mask=bidirectional&key=0")
    formula = lab.page.locator("#puntuacion .derivation .formula")
    scores = lab.find_table("Puntuaciones")
    # Click: row banco, column parque -> the article's cell.
    scores.locator("tbody tr").nth(1).locator("td").nth(3).click()
    lab.settle()
    assert (lab.state()["query"], lab.state()["key"]) == (1, 3)
    assert text(formula) == "(1·2 + 0·0) / √2 ≈ 1,41"
    assert text(scores.locator("td.focus")) == "1,41"
    # Keyboard: the arrows move within the grid; Enter explains the cell.
    lab.page.keyboard.press("ArrowLeft")
    lab.page.keyboard.press("Enter")
    lab.settle()
    assert (lab.state()["query"], lab.state()["key"]) == (1, 2)
    assert text(formula) == "(1·0 + 0·1) / √2 = 0,00"
    assert scores.locator("td.focus").count() == 1


def test_narrow_screens_do_not_scroll_sideways(lab):
    for page_name in ("", "bloque.html"):
        lab.page.set_viewport_size({"width": 390, "height": 844})
        lab.open(lab.base_url + page_name)
        assert lab.page.evaluate("document.documentElement.scrollWidth") <= 390, page_name


# Every table the page shows (a hidden part keeps what it last drew), as
# text, and the vector editor's fields.
PAGE_TEXT = """() => (%s)(() => ({
  tables: [...document.querySelectorAll('main table')].filter((t) => t.getClientRects().length)
    .map((t) => [t.id, t.innerText]),
  titles: [...document.querySelectorAll('#score-tables td[title], #score-tables .row-pick')]
    .map((n) => n.title),
  fields: [...document.querySelectorAll('.vectors input')].map((i) => [i.getAttribute('aria-label'), i.value]),
  questions: [...document.querySelectorAll('.predict-question')].map((q) => q.textContent),
  sections: [...document.querySelectorAll('main [data-render="with"]')].map((w) => w.hidden),
}))""" % RENDERED


def test_redraws_reuse_tables_and_read_like_a_fresh_page(lab):
    # Tables are relabelled in place when only their words change, and the
    # «todas» tables are set aside and put back: none of that may leave a
    # stale word, title or number behind.
    lab.open(lab.base_url, "?mask=bidirectional")
    lab.page.evaluate("() => { window.__scores = document.querySelector('#table-scores'); }")
    lab.choose("Frase", "El banco de crédito")
    assert lab.page.evaluate("() => document.querySelector('#table-scores') === window.__scores")
    view = expected(sentence="credito", mask="bidirectional")
    assert lab.table("Puntuaciones") == rows_text(view["tables"][0]["scores"])
    assert "Ver la cuenta de «banco» → «crédito»" in lab.page.evaluate(PAGE_TEXT)["titles"]
    for head in ("todas (concatenar y W_O)", "pista financiera", "todas (concatenar y W_O)",
                 "token anterior"):
        lab.choose("Cabeza", head)
    lab.choose("Frase", "El banco del parque")
    shown = lab.page.evaluate(PAGE_TEXT)
    assert lab.page.locator("#table-scores").count() == 1
    fresh = lab.page.context.new_page()
    fresh.goto(lab.base_url + lab.search())
    fresh.evaluate("window.lab.ready")
    fresh.wait_for_selector("body[data-live='true']", state="attached")
    fresh.evaluate(OPEN_MORE)
    assert fresh.evaluate(PAGE_TEXT) == shown
    fresh.close()


def test_todas_comes_back_whole_after_one_head(lab):
    # The «todas» part (concatenation and W_O) hides for one head and must
    # come back, and every sentence that names the head must follow it.
    lab.open(lab.base_url, "?head=all")
    for head in ("pista financiera", "todas (concatenar y W_O)"):
        lab.choose("Cabeza", head)
    assert lab.page.locator("#table-concat").is_visible()
    assert lab.page.locator("#table-mha-out").is_visible()
    shown = lab.page.evaluate(PAGE_TEXT)
    fresh = lab.page.context.new_page()
    fresh.goto(lab.base_url + "?head=all")
    fresh.evaluate("window.lab.ready")
    fresh.wait_for_selector("body[data-live='true']", state="attached")
    fresh.evaluate(OPEN_MORE)
    assert fresh.evaluate(PAGE_TEXT) == shown
    fresh.close()
    lab.choose("Cabeza", "pista de lugar")
    question = text(lab.page.locator("#mascara .predict-question"))
    assert "«pista de lugar»" in question and "de las tres" not in question
