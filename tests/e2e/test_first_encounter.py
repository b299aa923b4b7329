"""The first encounter: the article's exercise done by a student on a phone
and on a desktop, what stays answered, a teacher's view, and an embed that
fits its frame. Positions are read from what the page has drawn once it
settles (a scroll the page starts is waited for, not timed)."""
import pytest

from lab_core.page_text import TEXT

from conftest import PHONE, close_page, expected, new_page, text

DESKTOP = {"viewport": {"width": 1366, "height": 900}}

# The cell banco → parque of a table of panel 1, and whether it lies on the
# screen below the sticky bar; and whether a control of the bar does too.
CELL_IN_VIEW = """([caption, column]) => {
  const table = [...document.querySelectorAll('#puntuacion table')]
    .find((t) => t.caption && t.caption.textContent.trim() === caption);
  if (!table || table.closest('.veiled')) return false;
  const heads = [...table.tHead.rows[0].cells].map((c) => c.textContent.trim());
  const row = [...table.tBodies[0].rows].find((r) => r.cells[0].textContent.trim() === 'banco');
  const cell = row.cells[heads.indexOf(column)];
  const covered = Math.max(0, ...['lab-bar', 'controls'].map((id) =>
    document.getElementById(id).getBoundingClientRect().bottom));
  const box = cell.getBoundingClientRect();
  return box.top >= covered - 1 && box.bottom <= innerHeight + 1;
}"""
# ... and whether a control is wholly on the screen.
CONTROL_IN_VIEW = """(label) => {
  const control = document.getElementById(label);
  const box = control.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= innerHeight && box.left >= 0 && box.right <= innerWidth;
}"""


def open_on(request, base_url, device, query=""):
    """A fresh page of a returning reader on that device (the worker's
    shared context for it: conftest's `phone_visitor` or `visitor`)."""
    context = request.getfixturevalue("phone_visitor" if device is PHONE else "visitor")
    page = new_page(context)
    if device is not PHONE:
        page.set_viewport_size(device["viewport"])
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(base_url + query)
    page.evaluate("window.lab.ready")
    page.wait_for_selector("body[data-live='true']", state="attached")
    return context, page, errors


def settle(page):
    page.wait_for_function("() => !document.body.dataset.busy")


def cell_text(page, caption, column="parque"):
    return page.evaluate("""([caption, column]) => {
      const table = [...document.querySelectorAll('#puntuacion table')]
        .find((t) => t.caption && t.caption.textContent.trim() === caption);
      const heads = [...table.tHead.rows[0].cells].map((c) => c.textContent.trim());
      const row = [...table.tBodies[0].rows].find((r) => r.cells[0].textContent.trim() === 'banco');
      return row.cells[heads.indexOf(column)].textContent.trim();
    }""", [caption, column])


@pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_exercise_by_taps_keeps_its_cell_in_view(request, base_url, device):
    context, page, errors = open_on(request, base_url, device)
    try:
        steps = [("#ctl-query", "1", "Puntuaciones", "−∞"),
                 ("#ctl-mask", "bidirectional", "Puntuaciones", "1,41"),
                 ("#ctl-head", "lugar", "Puntuaciones", "1,41")]
        for control, value, caption, shown in steps:
            page.locator(control).select_option(value)
            settle(page)
            page.wait_for_function(CELL_IN_VIEW, arg=[caption, "parque"])
            assert cell_text(page, caption) == shown
            # The controls of the next steps are on that same screen (on a
            # phone, docked at the top once the bar has scrolled away).
            page.wait_for_function(CONTROL_IN_VIEW, arg="ctl-mask")
            assert page.evaluate(CONTROL_IN_VIEW, "ctl-head")
        # The student predicts (by a tap), and the weights open.
        question = page.locator("#puntuacion .predict")
        answer = question.get_by_role("button", name="la mitad o más", exact=True)
        if device is PHONE:
            answer.tap()
        else:
            answer.click()
        page.wait_for_function(CELL_IN_VIEW, arg=["Pesos", "parque"])
        assert cell_text(page, "Pesos") == "0,58"
        # Step 4: back to causal. The weight falls to 0 at once, in view,
        # without a second question in the way.
        page.locator("#ctl-mask").select_option("causal")
        settle(page)
        page.wait_for_function(CELL_IN_VIEW, arg=["Pesos", "parque"])
        assert cell_text(page, "Pesos") == "0"
        assert cell_text(page, "Puntuaciones") == "−∞"
        assert question.get_attribute("data-revealed") == "open"
        if device is PHONE:
            # The docked row scrolls sideways: an arrow at its right edge says
            # that more controls wait there, and is gone at the row's end.
            after = "getComputedStyle(document.getElementById('controls'), '::after')"
            assert page.evaluate("document.body.dataset.docked") == ""
            page.evaluate("document.getElementById('controls').scrollLeft = 0")
            page.wait_for_function("() => %s.content === '\"›\"' && %s.opacity === '1'" % (after, after))
            page.evaluate("document.getElementById('controls').scrollLeft = 1e6")
            page.wait_for_function("() => %s.opacity === '0'" % after)
        assert errors == []
    finally:
        close_page(context, page)


@pytest.mark.cold
def test_a_teachers_link_shows_every_answer(lab):
    lab.open(lab.base_url, "?respuestas=1&mask=bidirectional")
    assert lab.state()["respuestas"] is True
    assert lab.page.locator(".veiled").count() == 0
    for question in lab.page.locator(".predict[data-hides]").all():
        assert question.get_attribute("data-revealed") == "skipped"
    assert lab.page.get_by_role("button", name="Mostrar sin predecir").count() == 0
    assert lab.cell("Pesos", "banco", "parque") == "0,58"
    # On a projector the answer is given as an answer, not as «not predicted».
    explanation = expected(mask="bidirectional")["arithmetic"]["predict"]["explanation"]
    verdict = lab.page.locator("#puntuacion .predict-verdict")
    assert text(verdict) == "Respuesta: " + explanation
    # Turned off, the questions ask again (nothing was kept as answered).
    lab.set(respuestas=False)
    assert lab.page.locator("#puntuacion .weights-wrap.veiled").count() > 0
    assert "respuestas" not in lab.search()


@pytest.mark.cold
def test_the_teachers_link_is_copied_and_a_students_stays_predict_first(lab):
    lab.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    lab.open(lab.base_url, "?mask=bidirectional")
    tools = lab.page.locator(".share-tools")
    tools.get_by_role("button", name="Enlace con respuestas").click()
    lab.page.wait_for_function(
        "() => document.querySelector('.share-tools .confirm').textContent.length > 0")
    copied = lab.page.evaluate("navigator.clipboard.readText()")
    assert copied == lab.page.url + "&respuestas=1"
    assert "respuestas" not in lab.page.url  # the student's own view is unchanged
    assert lab.page.locator("#puntuacion .weights-wrap.veiled").count() > 0


@pytest.mark.cold
def test_an_embed_offers_the_answers_too(lab):
    lab.open(lab.base_url, "?mask=bidirectional")
    lab.page.locator("#mascara").get_by_role("button", name="Insertar").click()
    dialog = lab.page.locator("#embed-dialog")
    code = dialog.locator("textarea")
    assert "respuestas" not in code.input_value()
    dialog.get_by_label("Con las respuestas a la vista").check()
    assert "respuestas=1" in code.input_value() and "embed=1" in code.input_value()
    assert 'src="%sembed.js"' % lab.base_url in code.input_value()


@pytest.mark.cold
def test_replay_asks_its_question_first(lab):
    lab.open(lab.base_url, "?panel=aprende")
    panel = lab.page.locator("#aprende")
    panel.get_by_role("button", name="Reproducir").click()
    lab.page.wait_for_function(
        "() => document.querySelector('#aprende .confirm').textContent.length > 0")
    assert text(panel.locator(".confirm")) == TEXT["play.ask"]
    assert lab.state()["train_steps"] == 0
    assert panel.locator(".learning-results.veiled").count() == 1
    assert text(panel.locator(".predict-verdict")) == ""  # the answer is not given away
    assert lab.page.evaluate(
        "document.activeElement.closest('#aprende .predict-options') !== null")
    # Answered, it plays.
    panel.locator(".predict-options button").first.click()
    panel.get_by_role("button", name="Reproducir").click()
    lab.page.wait_for_function("() => window.lab.state.train_steps > 0")


# A course page with one frame of the lab and the script «Insertar» gives.
HOST = """<!doctype html><html><body style="margin:0">
<iframe id="f" src="{src}" title="lab" width="100%" height="600" style="border:0"></iframe>
<script src="{script}"></script></body></html>"""
FITS = """() => {
  const frame = document.getElementById('f');
  const inner = frame.contentDocument;
  if (!inner || !inner.body || inner.body.dataset.live !== 'true') return false;
  const content = Math.ceil(inner.documentElement.getBoundingClientRect().height);
  return Math.abs(frame.getBoundingClientRect().height - content) <= 1 &&
    inner.documentElement.scrollHeight <= frame.contentWindow.innerHeight + 1;
}"""


@pytest.mark.parametrize("width", [390, 1366])
def test_an_embedded_panel_sizes_its_frame(visitor, base_url, width):
    context = visitor
    page = new_page(context)
    page.set_viewport_size({"width": width, "height": 800})
    try:
        # The host page is on the lab's own origin, as a course page would
        # be on its own: the frame and the script are what the snippet holds.
        page.route(base_url + "host.html", lambda route: route.fulfill(
            content_type="text/html", body=HOST.format(
                src=base_url + "?embed=1&panel=mascara&mask=bidirectional",
                script=base_url + "embed.js")))
        page.goto(base_url + "host.html")
        page.wait_for_function(FITS)
    finally:
        close_page(context, page)


# The attention page at 390 px before this pass (issue 41): 16.800 px, a
# long document. Closed explanations must leave at most 60 % of it.
PHONE_PAGE_BEFORE = 16800


def test_the_phone_page_is_short_and_every_explanation_a_tap_away(request, base_url):
    context, page, errors = open_on(request, base_url, PHONE)
    try:
        closed = page.evaluate("[...document.querySelectorAll('details.more')].map((d) => d.open)")
        assert len(closed) >= 15 and not any(closed)
        # Read with every panel laid out (none skipped off screen).
        height = page.evaluate("""() => {
          document.body.removeAttribute('data-offscreen');
          return document.documentElement.scrollHeight;
        }""")
        assert height <= 0.6 * PHONE_PAGE_BEFORE, height
        # One tap opens a part: the measurement of √dₖ and its control.
        dk = page.locator("#ctl-dk")
        assert not dk.is_visible()
        page.get_by_text("¿Por qué dividir entre √dk? Mídelo").tap()
        assert dk.is_visible()
        # On paper every closed part prints, without its «open» line.
        page.emulate_media(media="print")
        printed = page.evaluate("""() => {
          const more = document.querySelector('#mascara details.more:not([open])');
          return [more.querySelector('p').getBoundingClientRect().height,
                  getComputedStyle(more.querySelector('summary')).display];
        }""")
        assert printed[0] > 0 and printed[1] == "none", printed
        assert errors == []
    finally:
        close_page(context, page)


def test_the_keyboard_skips_to_the_exercise_and_reaches_a_score_cell_soon(request, base_url):
    context, page, errors = open_on(request, base_url, DESKTOP)
    try:
        page.keyboard.press("Tab")
        skip = page.locator(":focus")
        assert text(skip) == "Saltar al ejercicio"
        box = skip.bounding_box()
        assert box and box["y"] >= 0 and box["height"] > 0
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.activeElement.id === 'exercise-title'")
        heading = page.evaluate("""() => {
          const h = document.activeElement.getBoundingClientRect();
          return [h.top, document.getElementById('lab-bar').getBoundingClientRect().bottom];
        }""")
        assert heading[0] >= heading[1] - 1, heading  # not under the sticky bar
        # From «Máscara», the first score cell within ten Tab stops.
        page.locator("#ctl-mask").focus()
        for presses in range(1, 11):
            page.keyboard.press("Tab")
            if page.evaluate("() => !!document.activeElement.closest('#score-tables td')"):
                break
        else:
            pytest.fail("no score cell within 10 Tab stops of «Máscara»")
        # A panel link takes the keyboard to its panel's heading, in view.
        page.locator(".panel-nav a[data-panel='rope']").focus()
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.activeElement.id === 'rope-title'")
        page.wait_for_function("""() => {
          const h = document.activeElement.getBoundingClientRect();
          return h.top >= document.getElementById('lab-bar').getBoundingClientRect().bottom - 1
            && h.bottom <= innerHeight;
        }""")
        assert errors == []
    finally:
        close_page(context, page)


@pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_map_marks_the_readers_panel_and_takes_them_to_another(request, base_url, device):
    # One figure of the whole path; the parts the panel on screen teaches are
    # marked. On a phone the map is one tap away; beside the title otherwise.
    context, page, errors = open_on(request, base_url, device, "bloque.html")
    marked = "() => [...document.querySelectorAll('.block-map [aria-current]')].map((a) => a.dataset.part)"
    assert page.evaluate(marked) == ["palabras", "mezcla"]  # panel 1 of the block page
    fold = page.locator("details.map-fold")
    part = page.locator(".block-map a[data-part='ffn']")
    if device is PHONE:
        assert not part.is_visible()
        fold.locator("summary").tap()
        part.tap()
    else:
        assert part.is_visible()
        part.click()
    page.wait_for_function("() => window.lab.state.panel === 'ffn'")
    page.evaluate("window.lab.settled()")
    assert page.evaluate(marked) == ["ffn"]
    heading = page.locator("#ffn h2")
    assert page.evaluate("() => document.activeElement === document.querySelector('#ffn h2')")
    box = heading.bounding_box()
    bar = page.evaluate("() => document.getElementById('lab-bar').getBoundingClientRect().bottom")
    assert max(0, bar) - 1 <= box["y"] and box["y"] + box["height"] <= device["viewport"]["height"]
    # A part taught on the other page goes there, to its panel.
    elsewhere = page.locator(".block-map a[data-part='puntuacion']")
    assert elsewhere.get_attribute("href") == "./?panel=puntuacion#puntuacion"
    assert "(en la otra página)" in elsewhere.get_attribute("aria-label")
    # Its text alternative names every part, from the words to the next word.
    desc = page.locator(".block-map desc").text_content()
    assert desc.startswith("Un transformer, de las palabras a la siguiente palabra")
    assert errors == []
    close_page(context, page)
