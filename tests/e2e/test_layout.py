"""Every table readable from a 320 px phone to a 1920 px screen.

A table either fits its box, or scrolls inside it with a visible cue, its
row labels kept in view and the box reachable by keyboard; the page itself
never scrolls sideways; and the article's exercise cell (banco → parque)
is in view at phone width without any sideways scrolling.

The tests share a module's warm page (conftest.py): a width is set by
resizing it, as a phone turned on its side or a window dragged narrower
does, and the page must lay itself out again for it.
"""
import pytest

WIDTHS = [320, 390, 768, 1366, 1920]
PAGES = ["?mask=bidirectional", "?mask=bidirectional&head=all&step=4",
         "?tokens=El;banco;del;parque;de;cr%C3%A9dito;banco;parque",  # a long «Tu frase» option
         "bloque.html", "bloque.html?pe_d=64&d_model=768&heads=12&d_ff=3072"]

# The scroll cue is set by a ResizeObserver, after the browser's layout:
# read once two frames have passed, every panel laid out as if the reader
# had scrolled past it (a panel off screen skips its layout, offscreen.js).
TABLES = """async () => {
  const body = document.body;
  const skipping = body.hasAttribute('data-offscreen');
  body.removeAttribute('data-offscreen');
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  try {
  return [...document.querySelectorAll('main .table-wrap')].filter((w) => w.querySelector('table')
  && w.offsetParent !== null).map((wrap) => {
    const box = wrap.getBoundingClientRect();
    const table = wrap.querySelector('table');
    const rowLabel = table.querySelector('tbody th');
    const cells = [...table.querySelectorAll('td, th')];
    return {
      caption: table.caption ? table.caption.textContent : '',
      scrolls: wrap.scrollWidth > wrap.clientWidth + 1,
      marked: wrap.classList.contains('scrolls'),
      focusable: wrap.tabIndex === 0 && wrap.getAttribute('role') === 'region',
      sticky: rowLabel ? getComputedStyle(rowLabel).position === 'sticky' : true,
      cut: cells.filter((c) => c.getBoundingClientRect().right > box.right + 1).length,
    };
  });
  } finally {
    if (skipping) body.setAttribute('data-offscreen', '');
  }
}"""


@pytest.mark.parametrize("query", PAGES)
def test_tables_fit_or_scroll_inside_their_box(lab, query):
    # From the narrowest phone up and back down: a cue set at one width must
    # go when the table fits at the next.
    lab.page.set_viewport_size({"width": WIDTHS[0], "height": 900})
    lab.open(lab.base_url + query)
    for width in WIDTHS + WIDTHS[-2::-1]:
        lab.page.set_viewport_size({"width": width, "height": 900})
        assert lab.page.evaluate("document.documentElement.scrollWidth") <= width, query
        tables = lab.page.evaluate(TABLES)
        assert tables, query
        for table in tables:
            if table["scrolls"]:
                assert table["marked"] and table["focusable"] and table["sticky"], (query, width, table)
            else:
                assert not table["marked"] and table["cut"] == 0, (query, width, table)


@pytest.mark.parametrize("width", [320, 390])
def test_the_exercise_cell_is_in_view_on_a_phone(lab, width):
    lab.page.set_viewport_size({"width": width, "height": 844})
    lab.open(lab.base_url, "?mask=bidirectional")
    lab.page.locator("#puntuacion").get_by_role("button", name="Mostrar sin predecir").click()
    for table_id in ("table-scores", "table-weights"):
        cell = lab.page.locator("#%s tbody tr" % table_id).nth(1).locator("td").nth(3)
        cell.scroll_into_view_if_needed()
        wrap = lab.page.locator("#%s" % table_id).locator("xpath=..")
        assert wrap.evaluate("(w) => w.scrollWidth <= w.clientWidth + 1"), table_id
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (table_id, box)
        assert lab.page.evaluate("window.scrollX") == 0
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"


def test_a_veiled_wide_table_keeps_its_cover_in_view_and_shows_its_cell_once_answered(lab):
    # On a phone the weights of a long sentence scroll sideways. While the
    # question hides them, their box stays at its start, where its cover
    # says why (scrolled to the marked cell, the cover slid off with the
    # columns); once the reader looks, the box scrolls to the marked cell.
    lab.page.set_viewport_size({"width": 390, "height": 844})
    lab.open(lab.base_url, "?tokens=Me;sent%C3%A9;en;el;banco;junto;al;r%C3%ADo")
    assert (lab.state()["query"], lab.state()["key"]) == (4, 7)  # banco → río, the last column
    wrap = lab.page.locator("#puntuacion .weights-wrap")
    assert wrap.evaluate("(w) => w.classList.contains('veiled') && w.scrollWidth > w.clientWidth + 1")
    lab.page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert wrap.evaluate("(w) => w.scrollLeft") == 0
    lab.page.locator("#puntuacion").get_by_role("button", name="Mostrar sin predecir").click()
    lab.page.wait_for_function("""() => {
      const wrap = document.querySelector('#puntuacion .weights-wrap');
      const cell = wrap.querySelector('td.focus');
      const box = wrap.getBoundingClientRect(), place = cell.getBoundingClientRect();
      return !wrap.classList.contains('veiled') && wrap.scrollLeft > 0
        && place.left >= box.left && place.right <= box.right + 1;
    }""")


def test_a_control_of_the_stuck_bar_takes_focus_where_it_is(lab):
    # On a wide screen the bar of controls sticks to the top. A reader who
    # has scrolled to the scores and clicks «Máscara» must still see them:
    # focusing a control of the bar once scrolled the page up by the bar's
    # height (scroll-padding-top took the bar's own controls for hidden).
    lab.page.set_viewport_size({"width": 1366, "height": 900})
    lab.open(lab.base_url)
    lab.page.locator("#puntuacion").get_by_role("button", name="Mostrar sin predecir").click()
    cell = lab.page.locator("#table-weights tbody tr").nth(1).locator("td").nth(3)
    cell.evaluate("(node) => node.scrollIntoView({ block: 'center' })")
    before = lab.page.evaluate("scrollY")
    bar = lab.page.locator("#lab-bar").bounding_box()
    assert before > 300 and bar["y"] == 0, (before, bar)  # scrolled, the bar stuck
    mask = lab.page.get_by_label("Máscara", exact=True)
    mask.focus()
    assert lab.page.evaluate("scrollY") == before
    mask.select_option(label="bidireccional")
    lab.settle()
    assert lab.page.evaluate("scrollY") == before
    box = cell.bounding_box()
    assert box["y"] >= bar["height"] and box["y"] + box["height"] <= 900, (box, bar)
    assert lab.cell("Pesos", "banco", "parque") == "0,58"


# Where a finger lands around each row's name button, and what it hits.
ROW_PICK_TAPS = """() => [...document.querySelectorAll('#table-scores .row-pick')].map((button) => {
  button.scrollIntoView({ block: 'center' });
  const box = button.getBoundingClientRect();
  const x = box.left, y = box.top + box.height / 2;
  const points = [[x + 1, y - 11], [x + 23, y - 11], [x + 1, y + 11], [x + 23, y + 11]];
  return { name: button.textContent, width: box.width, height: box.height,
           hits: points.map(([px, py]) => document.elementFromPoint(px, py) === button) };
})"""


def test_a_finger_can_pick_a_row_on_a_phone(lab):
    # Panel 1's row names («El» is 13 × 20 px) pick the query: each takes taps
    # across a 24 × 24 px square from its left edge (WCAG 2.5.8's target
    # size), without moving the table.
    lab.page.set_viewport_size({"width": 390, "height": 844})
    lab.open(lab.base_url, "?mask=bidirectional")
    lab.page.locator("#puntuacion").get_by_role("button", name="Mostrar sin predecir").click()
    taps = lab.page.evaluate(ROW_PICK_TAPS)
    assert [tap["name"] for tap in taps] == ["El", "banco", "del", "parque"]
    for tap in taps:
        assert all(tap["hits"]), tap


def test_panel_3_picks_its_query_where_the_reader_reads(lab):
    # On a phone the controls are far above panel 3: its tables' row names
    # pick the query too, and the worked-out sum below follows, while the
    # table stays where the finger was.
    lab.page.set_viewport_size({"width": 390, "height": 844})
    lab.open(lab.base_url, "?mask=bidirectional&head=all")
    output = lab.find_table("Salida tras W_O [4 × 6]")
    pick = output.locator("tbody tr").nth(3).get_by_role("button", name="parque")
    # The reader scrolls there. A panel drawn off screen (here with every
    # head) takes its height as it comes near, which moves what is below its
    # top: the place is read once two frames have passed.
    pick.evaluate("(node) => node.scrollIntoView({ block: 'center' })")
    lab.page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    before = pick.bounding_box()["y"]
    pick.click()
    assert lab.settle()["query"] == 3
    assert lab.selected_row("Salida tras W_O [4 × 6]") == "parque"
    assert lab.selected_row("Q, K y V · pista de lugar") == "parque"
    sums = lab.page.locator("#cabezas .combine p.explain").last
    assert sums.inner_text().startswith("En la fila de «parque», la columna «parque» es lug·1 + fin·1")
    assert abs(pick.bounding_box()["y"] - before) < 1
    # The per-head tables and the mask's pick the same way.
    lab.find_table("Q, K y V · token anterior").get_by_role("button", name="banco").click()
    assert lab.settle()["query"] == 1
    lab.look()  # the mask's table waits for the reader's prediction
    lab.find_table("Máscara bidireccional (se suma antes de softmax)").get_by_role("button", name="El", exact=True).click()
    assert lab.settle()["query"] == 0


def test_a_tall_hidden_answer_is_no_long_scroll_on_a_phone(lab):
    # Panel 8's results (over 2.000 px tall at 390 px) wait for the reader's
    # prediction under a cover of at most half a screen; answering opens
    # them whole, below the question, which stays where it was.
    lab.page.set_viewport_size({"width": 390, "height": 844})
    lab.open(lab.base_url, "?panel=aprende")
    results = lab.page.locator("#aprende .learning-results")
    sizes = "(node) => [node.classList.contains('veiled'), node.clientHeight, node.scrollHeight]"
    veiled, height, full = results.evaluate(sizes)
    assert veiled and height <= 0.5 * 844 + 1 and full > 1500, (veiled, height, full)
    question = lab.page.locator("#aprende .predict")
    # Measured from the panel's own top: a panel above, drawn off screen
    # until now, may take its real height meanwhile (web/js/offscreen.js),
    # which moves the whole panel, not the question within it.
    where = ("(node) => node.getBoundingClientRect().top"
             " - node.closest('.panel').getBoundingClientRect().top")
    before = question.evaluate(where)
    question.get_by_role("button", name="Mostrar sin predecir").click()
    veiled, height, opened = results.evaluate(sizes)
    assert not veiled and height == opened and opened > 1500, (veiled, height, opened)
    assert abs(question.evaluate(where) - before) < 1



# Each question's box and the covers around it, as drawn (a cover is its
# element's ::after, inset from it): the gaps between them, and the room
# the cover's words have (the cover's height less its top padding and one
# line: a one-line cover is about one line of text tall).
COVERS = """() => [...document.querySelectorAll('.predict[data-hides]')].map((question) => {
  const box = question.getBoundingClientRect();
  const drawn = [...question.closest('section').querySelectorAll('.veiled')]
    .filter((cover) => cover.offsetParent !== null).map((cover) => {
      const at = cover.getBoundingClientRect();
      const after = getComputedStyle(cover, '::after');
      const line = parseFloat(after.lineHeight) || 1.2 * parseFloat(after.fontSize);
      const top = at.top + parseFloat(after.top);
      const bottom = at.bottom - parseFloat(after.bottom);
      return { top, bottom, room: bottom - top - parseFloat(after.paddingTop) - line };
    }).sort((a, b) => a.top - b.top);
  return {
    panel: question.closest('section').id,
    gaps: drawn.map((c) => c.top >= box.bottom ? c.top - box.bottom : box.top - c.bottom),
    between: drawn.slice(1).map((c, i) => c.top - drawn[i].bottom),
    room: drawn.map((c) => c.room),
  };
})"""


@pytest.mark.parametrize("width", [390, 1366])
def test_a_question_stands_apart_from_what_it_hides(lab, width):
    # Panel 7's question sat between two covers with no space around it, a
    # one-line cover's words touched its bottom edge, and the two covers
    # below the question touched each other.
    lab.page.set_viewport_size({"width": width, "height": 900})
    lab.open(lab.base_url)
    questions = lab.page.evaluate(COVERS)
    assert {q["panel"] for q in questions} == {"puntuacion", "rope", "cache", "aprende"}
    for question in questions:
        assert question["gaps"] and min(question["gaps"]) >= 8, question
        assert min(question["room"]) >= 2, question
        assert all(gap >= 6 for gap in question["between"]), question
    assert any(question["between"] for question in questions)


CHART_TEXT = """() => [...document.querySelectorAll('svg.chart')].flatMap((svg) => {
  const width = svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll('text')].map((t) => {
    const box = t.getBBox();  // in the chart's own units, before any rotation
    const along = t.getAttribute('transform') ? [box.y, box.y + box.height] : [box.x, box.x + box.width];
    return { text: t.textContent, from: along[0], to: along[1], width,
             rotated: Boolean(t.getAttribute('transform')) };
  });
})"""


@pytest.mark.parametrize("query", ["bloque.html?depth=64", "bloque.html?depth=45", "?theta=3.14"])
def test_chart_labels_are_never_cut(lab, query):
    # At 64 layers LayerNorm's axis reads «300.000.000»: it was cut to
    # «0.000.000» at the chart's left edge.
    lab.page.set_viewport_size({"width": 390, "height": 844})
    page, _, search = query.partition("?")
    lab.open(lab.base_url + page, "?" + search)
    texts = lab.page.evaluate(CHART_TEXT)
    assert len(texts) > 20
    for label in texts:
        if not label["rotated"]:
            assert 0 <= label["from"] and label["to"] <= label["width"], label


def test_the_rope_curve_shows_its_values_as_points(lab):
    # Only whole offsets exist: each is a point; a line alone at θ = 2,5
    # read as a jagged curve.
    lab.open(lab.base_url, "?theta=2.5")
    points = lab.page.locator("#rope svg.chart circle.point").count()
    view = lab.page.evaluate("() => JSON.parse(window.py_view_data).view")
    assert points == len(view["rope"]["chart"]["series"][0]["points"]) == 25


# Each vector field's focus ring (its box grown by the outline's width and
# offset) against the «(», «;» and «)» written beside it.
RINGS = """() => [...document.querySelectorAll('.vec-pair input')].slice(0, 6).map((input) => {
  input.focus();
  const style = getComputedStyle(input);
  const grow = parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset);
  const box = input.getBoundingClientRect();
  const ring = { left: box.left - grow, right: box.right + grow, top: box.top - grow, bottom: box.bottom + grow };
  // The value printed on paper (display: none on screen) is no neighbour.
  const beside = (node, step) => {
    let at = node[step];
    while (at && at.nodeType === Node.ELEMENT_NODE && getComputedStyle(at).display === 'none') at = at[step];
    return at;
  };
  const marks = [beside(input, 'previousSibling'), beside(input, 'nextSibling')]
    .filter((n) => n && n.nodeType === Node.TEXT_NODE)
    .map((node) => {
      const range = document.createRange();
      range.selectNodeContents(node);
      const at = range.getBoundingClientRect();
      const across = Math.min(ring.right, at.right) - Math.max(ring.left, at.left);
      const down = Math.min(ring.bottom, at.bottom) - Math.max(ring.top, at.top);
      return { text: node.textContent, covered: across > 0.5 && down > 0.5 };
    });
  return { grow, ring: style.outlineStyle, marks };
})"""


@pytest.mark.parametrize("width", [390, 1366])
def test_a_vector_fields_focus_ring_leaves_its_brackets_readable(lab, width):
    # At 390 px the ring around a vector's second number covered its «)».
    lab.page.set_viewport_size({"width": width, "height": 844})
    lab.open(lab.base_url, "?mask=bidirectional")
    lab.page.locator("#cabezas .vectors input").first.focus()  # draws the editor left for later
    rings = lab.page.evaluate(RINGS)
    assert len(rings) == 6
    for ring in rings:
        assert ring["grow"] >= 3 and ring["ring"] != "none", ring
        assert sorted(mark["text"] for mark in ring["marks"]) in (["(", ";"], [")", ";"]), ring
        assert not any(mark["covered"] for mark in ring["marks"]), ring


# Every sentence field's text, whole: nothing past its right edge or below it.
FIELDS_WHOLE = """() => [...document.querySelectorAll('[data-sentence-field]')]
  .filter((f) => f.offsetParent !== null)
  .map((f) => ({id: f.id, value: f.value, cut: f.scrollWidth > f.clientWidth + 1
                || f.scrollHeight > f.clientHeight + 1}))"""


@pytest.mark.parametrize("width", [320, 390, 1366])
@pytest.mark.parametrize("query", ["modelo.html",
                                   "?tokens=El;banco;del;parque;de;cr%C3%A9dito;banco;parque"])
def test_a_typed_sentence_is_shown_whole_and_enter_sends_it(lab, width, query):
    """The model page's default «Comienzo» is eleven words: a one-line field
    on a phone showed «luis se sienta con pablo en el ba». The field wraps
    instead, and Enter sends what it holds (no line break in it)."""
    lab.page.set_viewport_size({"width": width, "height": 900})
    lab.open(lab.base_url + query)
    fields = lab.page.evaluate(FIELDS_WHOLE)
    assert len(fields) == 2 and all(f["value"] for f in fields), fields
    assert [f for f in fields if f["cut"]] == []
    field = lab.page.locator("#type-prompt" if query == "modelo.html" else "#type-tokens")
    words = ("ana se sienta con juan en el banco de la plaza y" if query == "modelo.html"
             else "Pedí un crédito al banco de la plaza del pueblo")
    field.fill(words)
    field.press("Enter")
    state = lab.settle()
    key = "prompt" if query == "modelo.html" else "tokens"
    assert (state[key] == words if key == "prompt" else " ".join(state[key]) == words)
    assert field.input_value() == words and "\n" not in field.input_value()
    assert [f for f in lab.page.evaluate(FIELDS_WHOLE) if f["cut"]] == []
    assert lab.page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("query, panel", [("modelo.html", "entrena"), ("", "entrenamiento")])
def test_a_training_table_shows_both_masks_beside_its_figure_on_a_desktop(lab, query, panel):
    # The figure took half the width, the table's last column (the
    # bidirectional mask's) went under the box's edge: the table now keeps
    # its own width, the figure beside it.
    lab.page.set_viewport_size({"width": 1280, "height": 800})
    lab.open(lab.base_url, query)
    wrap = lab.page.locator("#%s .table-beside .table-wrap" % panel)
    wrap.scroll_into_view_if_needed()
    figure = lab.page.locator("#%s .table-beside .chart-figure" % panel)
    assert wrap.evaluate("(w) => w.scrollWidth <= w.clientWidth + 1")
    table, chart = wrap.bounding_box(), figure.bounding_box()
    assert chart["x"] >= table["x"] + table["width"] and chart["y"] < table["y"] + table["height"]
