import pytest
"""The attention lab in a real Chromium, on the bundled Pyodide runtime."""
import re

from conftest import expected, new_page, rows_text, text

DEFAULT = {"sentence": "parque", "query": 1, "mask": "causal", "head": "lugar"}


def core(state):
    """The four keys of the foundation; later panels add more."""
    return {key: state[key] for key in DEFAULT}


def number(text):
    return float(text.replace("−", "-").replace(".", "").replace(",", "."))


def test_page_becomes_ready_on_the_bundled_runtime(lab):
    lab.open(lab.base_url)
    assert text(lab.page.locator("#status")).startswith("Listo")
    runtime = lab.page.evaluate("window.lab.runtime")
    assert runtime == {"name": "bundled", "pyodide": "0.17.1",
                       "python": "3.8.2", "numpy": "1.17.5"}
    footer = text(lab.page.locator("footer"))
    assert "Pyodide 0.17.1" in footer and "Python 3.8.2" in footer and "NumPy 1.17.5" in footer
    assert core(lab.state()) == DEFAULT
    assert lab.page.evaluate("location.search") == ""  # the default state needs no query
    assert lab.notices() == []


def test_article_exercise_through_the_controls(lab):
    lab.open(lab.base_url).look()
    lab.choose("Frase", "El banco del parque")
    lab.choose("Consulta", "1 · banco")
    lab.choose("Máscara", "bidireccional")
    state = lab.choose("Cabeza", "pista de lugar")
    assert core(state) == dict(DEFAULT, mask="bidirectional")
    assert lab.search() == "?mask=bidirectional"
    assert lab.selected_row("Puntuaciones") == "banco"
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    weight = lab.cell("Pesos", "banco", "parque")
    assert weight == "0,58" and number(weight) > 0

    lab.choose("Máscara", "causal")
    assert lab.cell("Puntuaciones", "banco", "parque") == "−∞"
    assert lab.cell("Pesos", "banco", "parque") == "0"
    # The remaining weights of the row still add up to 1 (0,50 + 0,50).
    row = lab.table("Pesos")["banco"]
    assert sum(number(t) for t in row) == 1.0


def test_exercise_button_prepares_the_article_state(lab):
    lab.open(lab.base_url)
    lab.page.get_by_role("button", name="Preparar el ejercicio").click()
    lab.settle()
    assert core(lab.state()) == dict(DEFAULT, mask="bidirectional")
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"


def test_causal_banco_row_is_identical_for_both_sentences(lab):
    lab.open(lab.base_url).look()
    for head in ("pista de lugar", "pista financiera", "token anterior"):
        lab.choose("Cabeza", head)
        lab.choose("Frase", "El banco del parque")
        park = {c: lab.table(c)["banco"] for c in ("Puntuaciones", "Pesos")}
        park_mix = text(lab.page.locator("#mezcla output").first)
        lab.choose("Frase", "El banco de crédito")
        bank = {c: lab.table(c)["banco"] for c in ("Puntuaciones", "Pesos")}
        assert park == bank, head
        assert text(lab.page.locator("#mezcla output").first) == park_mix
    # Bidirectional: the finance cue now sees crédito, and the rows differ.
    lab.choose("Máscara", "bidireccional")
    lab.choose("Cabeza", "pista financiera")
    credit_row = lab.table("Pesos")["banco"]
    lab.choose("Frase", "El banco del parque")
    assert lab.table("Pesos")["banco"] != credit_row


# What a veiled part shows: whether a cell inside it is drawn, and its cover.
VEIL = """(wrap) => [getComputedStyle(wrap.querySelector('td')).visibility,
                  getComputedStyle(wrap, '::after').content]"""


def test_every_control_changes_the_tables(lab):
    lab.open(lab.base_url)
    # The weights are veiled until the reader predicts, or chooses to look.
    # Veiled is not drawn at all (a blur let the darkest cell, the answer,
    # show through): its place is kept, under a cover that says why.
    weights = lab.page.locator("#puntuacion .weights-wrap")
    assert weights.evaluate("(w) => w.inert") is True
    assert weights.evaluate(VEIL) == ["hidden", '"Oculto hasta que respondas la predicción"']
    size = "(w) => [w.offsetWidth, w.offsetHeight]"
    box = weights.evaluate(size)
    skip = lab.page.locator("#puntuacion").get_by_role("button", name="Mostrar sin predecir")
    skip.scroll_into_view_if_needed()
    y = lab.page.evaluate("scrollY")
    skip.click()
    lab.settle()
    assert weights.evaluate("(w) => w.inert") is False
    assert weights.evaluate(VEIL) == ["visible", "none"]
    # Its width was kept; its cover held a few lines of its height, and
    # the rest opens below it (nothing above moves: see scrollY below).
    shown = weights.evaluate(size)
    assert shown[0] == box[0] and shown[1] >= box[1]
    # The button hid itself: focus went to the answer the question now gives
    # in its place, not to the page, and the page stayed where it was.
    verdict = lab.page.locator("#puntuacion .predict-verdict")
    assert verdict.evaluate("(v) => document.activeElement === v")
    assert text(verdict).startswith("Sin predecir. «parque» recibe ")
    assert lab.page.evaluate("scrollY") == y

    def snapshot():
        return (lab.table("Puntuaciones"), lab.table("Pesos"), lab.selected_row("Pesos"))

    steps = [("Máscara", "bidireccional"), ("Cabeza", "pista financiera"),
             ("Frase", "El banco de crédito"), ("Consulta", "3 · crédito")]
    for label, option in steps:
        before = snapshot()
        lab.choose(label, option)
        assert snapshot() != before, label
    assert core(lab.state()) == {"sentence": "credito", "query": 3,
                                 "mask": "bidirectional", "head": "finanzas"}
    assert lab.selected_row("Pesos") == "crédito"
    # Clicking a row header picks that token as the query too.
    lab.find_table("Pesos").get_by_role("button", name="El").click()
    lab.settle()
    assert lab.state()["query"] == 0 and lab.selected_row("Puntuaciones") == "El"


def test_a_url_reproduces_a_state(lab, browser):
    wanted = {"sentence": "credito", "query": 3, "mask": "bidirectional", "head": "finanzas"}
    lab.open(lab.base_url).look()
    lab.set(**wanted)
    url = lab.url()
    tables = (lab.table("Puntuaciones"), lab.table("Pesos"))
    assert "sentence=credito" in url and "head=finanzas" in url

    other = new_page(browser.new_context())
    other.goto(url)
    other.evaluate("window.lab.ready")
    assert core(other.evaluate("window.lab.state")) == wanted
    assert other.get_by_label("Cabeza", exact=True).input_value() == "finanzas"
    again = type(lab)(other).look()
    assert (again.table("Puntuaciones"), again.table("Pesos")) == tables
    other.context.close()


def test_bad_urls_leave_a_working_page_and_a_notice(lab):
    hostile = ("?sentence=perro&query=99&mask=futuro&foo=1"
               "&head=%3Cimg%20src%3Dx%20onerror%3D%22window.pwned%3D1%22%3E")
    lab.open(lab.base_url, hostile)
    assert core(lab.state()) == DEFAULT
    notices = lab.notices()
    assert len(notices) == 5
    assert any("foo" in n for n in notices)
    assert any("<img" in n for n in notices)  # shown as text, never parsed
    assert lab.page.locator("main img").count() == 0
    assert lab.page.evaluate("window.pwned") is None
    # Still fully working.
    lab.choose("Máscara", "bidireccional")
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    # A good change clears the notices; the URL is rewritten to the real state.
    assert lab.notices() == []
    url = lab.url()
    assert "foo" not in url and "perro" not in url


def test_query_text_in_url_is_parsed_or_refused(lab):
    lab.open(lab.base_url, "?query=2.5&mask=bidirectional")
    assert core(lab.state()) == dict(DEFAULT, mask="bidirectional")
    assert len(lab.notices()) == 1 and "Consulta: «2.5» no es un número entero" in lab.notices()[0]


def test_lab_set_rejects_bad_values_and_keeps_the_state(lab):
    lab.open(lab.base_url)
    lab.set(mask="bidirectional")
    for partial, pattern in [({"head": "nada"}, "no es una de las opciones"),
                             ({"query": 7}, "fuera del rango"),
                             ({"mask": "<b>x</b>"}, "no es una de las opciones"),
                             ({"volumen": 3}, "lab.set no conoce")]:
        error = lab.page.evaluate(
            "(p) => window.lab.set(p).then(() => 'resolved', (e) => e.message)", partial)
        assert re.search(pattern, error), (partial, error)
        assert core(lab.state()) == dict(DEFAULT, mask="bidirectional")
        key = next(iter(partial))
        spot = lab.page.locator("[data-error-for='%s']" % key)
        # A message about a control sits beside it; one about no control, in the notices.
        shown = text(spot) if spot.count() else lab.notices()[0]
        assert re.search(pattern, shown), shown
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    assert lab.page.locator("main b").count() == 0


def scroll_to(page, panel):
    """Scroll a panel to the top, and wait a frame more than the one that
    shows it: what is on screen, for a change, is what an observer heard of
    that frame (web/js/offscreen.js)."""
    page.evaluate("""(id) => new Promise((resolve) => {
      document.getElementById(id).scrollIntoView({block: 'start'});
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve)));
    })""", panel)


def test_lab_set_resolves_once_the_page_shows_the_state(lab):
    # On screen: the panels off screen follow a moment later (see below).
    lab.open(lab.base_url)
    scroll_to(lab.page, "puntuacion")
    shown = lab.page.evaluate("""async () => {
        await window.lab.set({mask: 'bidirectional', head: 'finanzas', sentence: 'credito'});
        const table = document.getElementById('table-scores');
        return [table.rows[2].cells[4].textContent, document.getElementById('ctl-head').value];
    }""")
    assert shown == ["1,41", "finanzas"]
    # The address bar follows once the changes pause.
    assert lab.search() == "?sentence=credito&mask=bidirectional&head=finanzas"


def test_clicks_faster_than_python_all_count(lab):
    # Each click asks for «one more» from where the page is heading, not from
    # what it shows: two clicks in one burst go two steps and add two words.
    lab.open(lab.base_url, "?step=1")
    lab.page.evaluate("""() => {
      const next = document.getElementById('step-next');
      next.click();
      next.click();
      const add = document.querySelector('[data-builder-add="tokens"]');
      add.click();
      add.click();
    }""")
    lab.page.wait_for_selector("body:not([data-busy])")
    state = lab.state()
    assert state["step"] == 3
    assert len(state["tokens"]) == 6  # the 4 words of the preset, and two more
    assert state["tokens"][:4] == ["El", "banco", "del", "parque"]


# A panel's tables as text (inside page scripts: the page's policy forbids eval).
READ = """const read = (id) => [...document.getElementById(id).querySelectorAll('table')]
  .map((table) => table.textContent).join('|');"""
# Until every panel shows the state (<body data-busy> gone).
IDLE = """const idle = () => new Promise((resolve) => {
  if (!document.body.dataset.busy) return resolve();
  const watch = new MutationObserver(() => {
    if (!document.body.dataset.busy) { watch.disconnect(); resolve(); }
  });
  watch.observe(document.body, {attributes: true, attributeFilter: ['data-busy']});
});"""


def test_a_change_draws_the_panels_near_the_screen_first_and_the_rest_a_moment_later(lab):
    # Drawing the panels nobody sees was most of a change's time: lab.set
    # resolves once the panels near the screen show the change; the others
    # follow, one per task, and <body data-busy> stays until they have.
    lab.open(lab.base_url)
    scroll_to(lab.page, "cache")
    before = lab.page.evaluate("() => { %s return {cache: read('cache'), puntuacion: read('puntuacion')}; }" % READ)
    seen = lab.page.evaluate("""async () => {
      %s
      %s
      await window.lab.set({sentence: 'credito', mask: 'bidirectional', head: 'finanzas'});
      const at = {cache: read('cache'), puntuacion: read('puntuacion'), busy: document.body.dataset.busy};
      await idle();
      return {at, after: read('puntuacion'), cell: document.getElementById('table-scores').rows[2].cells[4].textContent};
    }""" % (READ, IDLE))
    assert seen["at"]["cache"] != before["cache"]  # near the screen: drawn with the change
    assert seen["at"]["puntuacion"] == before["puntuacion"]  # far: not yet
    assert seen["at"]["busy"] == "true"
    assert seen["after"] != before["puntuacion"] and seen["cell"] == "1,41"
    # A print draws what is left at once, before the page is laid out on paper.
    printed = lab.page.evaluate("""async () => {
      %s
      const before = read('puntuacion');
      await window.lab.set({sentence: 'parque'});
      const stale = read('puntuacion') === before;
      dispatchEvent(new Event('beforeprint'));
      return {stale, drawn: read('puntuacion') !== before, busy: document.body.dataset.busy || null};
    }""" % READ)
    assert printed == {"stale": True, "drawn": True, "busy": None}
    # A scroll to a stale panel finds it drawn (an observer draws the stale
    # panels a scroll brings within half a screen of the view).
    stale = lab.page.evaluate("""async () => {
      %s
      window.__before = read('puntuacion');
      await window.lab.set({sentence: 'credito'});
      const stale = read('puntuacion') === window.__before;
      document.getElementById('puntuacion').scrollIntoView({block: 'start'});
      return stale;
    }""" % READ)
    assert stale
    lab.page.wait_for_function("() => { %s return read('puntuacion') !== window.__before; }" % READ)
    assert lab.table("Puntuaciones") == rows_text(
        expected(sentence="credito", mask="bidirectional", head="finanzas")["tables"][0]["scores"])


def test_a_scroll_draws_only_the_stale_panels_it_brings_near_the_screen(lab):
    # The browser scrolls by itself too: «todas» grows panel 2 above the
    # screen, and scroll anchoring moves the page by as much. Such a scroll
    # brings nothing new near, and drawing every stale panel on it put them
    # all on the change's own frame. A scroll event that moves nothing into
    # view (dispatched here, so no task can draw in between) leaves a far
    # panel for later; once the page is scrolled to it, it is drawn.
    lab.open(lab.base_url)
    scroll_to(lab.page, "cabezas")
    seen = lab.page.evaluate("""async () => {
      %s
      const before = {puntuacion: read('puntuacion'), cabezas: read('cabezas')};
      await window.lab.set({head: 'all'});
      const drawnWithChange = read('cabezas') !== before.cabezas;
      const staleAtFirst = read('puntuacion') === before.puntuacion;
      dispatchEvent(new Event('scroll'));
      const staleAfterScroll = read('puntuacion') === before.puntuacion;
      const busy = document.body.dataset.busy || null;
      window.__before = before.puntuacion;
      document.getElementById('puntuacion').scrollIntoView({block: 'start'});
      return {drawnWithChange, staleAtFirst, staleAfterScroll, busy};
    }""" % READ)
    assert seen == {"drawnWithChange": True, "staleAtFirst": True, "staleAfterScroll": True,
                    "busy": "true"}
    lab.page.wait_for_function("() => { %s return read('puntuacion') !== window.__before; }" % READ)


# The vector editor's shown table: its head, and the name of its first field.
EDITOR = """const editor = () => {
  const box = document.querySelector('#cabezas .vectors .vec-table-box:not([hidden])');
  return box.dataset.head + ' ' + box.querySelector('input').getAttribute('aria-label');
};"""


def test_the_vector_editor_below_the_heads_is_drawn_once_near_the_screen(lab):
    # Laying out the editor's fields again was the largest part of a change
    # of head: under the heads' tables and off screen, it is drawn a moment
    # later (data-later, offscreen.js), unless it holds the focus; a scroll
    # that brings it near draws it.
    lab.open(lab.base_url)
    scroll_to(lab.page, "cabezas")
    seen = lab.page.evaluate("""async () => {
      %s
      %s
      const below = document.querySelector('#cabezas .vectors').getBoundingClientRect().top > innerHeight;
      const before = editor();
      await window.lab.set({head: 'finanzas'});
      const heads = document.querySelector('#cabezas .blocks h3').textContent;
      const stale = editor() === before;
      await idle();
      return {below, before, heads, stale, after: editor()};
    }""" % (EDITOR, IDLE))
    assert seen["below"] and seen["stale"]
    assert seen["heads"] == "pista financiera"
    assert seen["before"].startswith("lugar ") and seen["after"].startswith("finanzas ")
    # A field of the editor holds the focus (off screen still): drawn with the change.
    focused = lab.page.evaluate("""async () => {
      %s
      const field = document.querySelector('#cabezas .vectors input');
      field.focus({preventScroll: true});
      const below = field.getBoundingClientRect().top > innerHeight;
      await window.lab.set({head: 'lugar'});
      return {below, shown: editor()};
    }""" % EDITOR)
    assert focused["below"] and focused["shown"].startswith("lugar ")
    # A scroll brings it near: drawn.
    stale = lab.page.evaluate("""async () => {
      %s
      document.activeElement.blur();
      await window.lab.set({head: 'finanzas'});
      const stale = editor().startsWith('lugar ');
      document.querySelector('#cabezas .vectors').scrollIntoView({block: 'center'});
      return stale;
    }""" % EDITOR)
    assert stale
    lab.page.wait_for_function("() => { %s return editor().startsWith('finanzas '); }" % EDITOR)


def test_a_part_the_change_itself_brings_on_screen_is_drawn_in_that_frame(lab):
    # From «todas» to one head, panel 3 shrinks and pulls the vector editor
    # (left for later while under the heads) up into view. The observer
    # would tell only after that frame; the page reads the change's layout
    # just before it and draws the editor there: never one frame stale.
    lab.open(lab.base_url, "?head=all")
    lab.settle()
    lab.page.evaluate("""() => new Promise((resolve) => {
      document.querySelector('#cabezas .blocks > :last-child').scrollIntoView({block: 'start'});
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve)));
    })""")
    seen = lab.page.evaluate("""async () => {
      %s
      const boxes = () => document.querySelectorAll('#cabezas .vectors .vec-table-box').length;
      const below = document.querySelector('#cabezas .vectors').getBoundingClientRect().top > innerHeight;
      await window.lab.set({head: 'lugar'});
      const atSet = boxes();
      return new Promise((resolve) => requestAnimationFrame(() => {
        const box = document.querySelector('#cabezas .vectors').getBoundingClientRect();
        resolve({below, atSet, inView: box.top < innerHeight && box.bottom > 0,
                 boxes: boxes(), shown: editor()});
      }));
    }""" % EDITOR)
    assert seen["below"] and seen["atSet"] == 2  # left for later with the change (the word heads')
    assert seen["inView"] and seen["boxes"] == 1 and seen["shown"].startswith("lugar ")


def test_home_and_end_land_at_the_edges_of_the_page(lab):
    # Panels off screen keep the height they last had; those a change drew
    # there take their new one as the browser's scroll renders them, and
    # that scroll used to stop short of the edge (End 8 to 180 px, Home once
    # 569 px, with «todas» the heads). The page goes on to the edge.
    lab.open(lab.base_url)
    scroll_to(lab.page, "cabezas")
    lab.page.evaluate("async () => { %s await window.lab.set({head: 'all'}); await idle(); }" % IDLE)
    lab.page.locator("#cabezas h2").click()  # the page, not a control, has the keys
    for key in ("Home", "End", "Home", "End"):
        lab.page.keyboard.press(key)
        edge = "0" if key == "Home" else "document.documentElement.scrollHeight - innerHeight"
        lab.page.wait_for_function("() => Math.abs(scrollY - (%s)) < 1" % edge)
        # and stays there once every part on the way has rendered
        lab.page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert lab.page.evaluate("() => Math.abs(scrollY - (%s))" % edge) < 1, key


@pytest.mark.cold
def test_what_the_sticky_bar_covers_is_not_on_screen(lab):
    # Scrolled to panel 3, the end of panel 2 sits under the sticky bar.
    # «todas» grows panel 2 by three heads' tables that nobody can see
    # there: they are drawn a moment later, not with the change's frame.
    lab.open(lab.base_url)
    scroll_to(lab.page, "cabezas")
    seen = lab.page.evaluate("""async () => {
      %s
      %s
      const bar = document.getElementById('lab-bar').getBoundingClientRect();
      const mezcla = document.getElementById('mezcla').getBoundingClientRect();
      const before = {mezcla: read('mezcla'), cabezas: read('cabezas')};
      await window.lab.set({head: 'all'});
      const at = {cabezas: read('cabezas') !== before.cabezas, mezcla: read('mezcla') !== before.mezcla};
      await idle();
      return {underBar: mezcla.bottom > 0 && mezcla.bottom <= bar.bottom, at,
              later: read('mezcla') !== before.mezcla};
    }""" % (READ, IDLE))
    assert seen == {"underBar": True, "at": {"cabezas": True, "mezcla": False}, "later": True}
