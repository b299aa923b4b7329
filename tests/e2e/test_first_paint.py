"""The first seconds: prepared views paint before Python is live, never lie,
and early changes either show at once or wait visibly for Python."""
import json
import re

import pytest

from conftest import RENDERED, STATIC, console_messages, expected, rows_text, text
from lab_core import prepared

pytestmark = pytest.mark.cold  # the first paint, the boot and reloads are the subject

# Compare two views field by field, in the page (key order does not matter).
SAME = """(a, b) => {
  const canon = (v) => Array.isArray(v) ? v.map(canon)
    : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]))
    : v;
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}"""

# Every prepared state of a lab, set one by one through lab.set, checked
# against the prepared view the page would have painted for it.
SWEEP = """async (states) => {
  const same = %s;
  const { Prepared, pageIndex } = await import('./js/prepared.js');
  const prepared = new Prepared(pageIndex());
  const bad = [];
  for (const state of states) {
    await window.lab.set(state);
    const live = JSON.parse(window.py_view_data).view;
    const built = await prepared.view(live.state);
    if (!built || !same(live, built)) {
      const fields = built ? Object.keys(live).filter((k) => !same(live[k], built[k])) : ['(missing)'];
      bad.push({ state, fields });
      if (bad.length > 5) break;
    }
  }
  return bad;
}""" % SAME


def hold_python(page):
    """Hold back the runtime's wasm, so Python cannot become live."""
    held = []
    page.route("**/pyodide.asm.wasm", lambda route: held.append(route))
    return held


def release(page, held):
    page.wait_for_function("() => true")
    while not held:
        page.wait_for_timeout(50)
    for route in held:
        route.continue_()


def page_index(page_name):
    """The index of prepared views the build wrote into a page."""
    html = (STATIC / (page_name or "index.html")).read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="lab-prepared">(.*?)</script>', html)
    return json.loads(found.group(1))


def prepared_view(lab_name, state):
    index = page_index({"attention": "index.html", "block": "bloque.html",
                        "model": "modelo.html"}[lab_name])
    lab = prepared.get_lab(lab_name)
    name = prepared.group_name(lab, state)
    group = json.loads((STATIC / index["path"] / (name + ".json")).read_text(encoding="utf-8"))
    return prepared.assemble(group, state)


@pytest.mark.parametrize("page_name, lab_name", [("", "attention"), ("bloque.html", "block"),
                                                 ("modelo.html", "model")])
def test_first_paint_equals_the_live_view(lab, page_name, lab_name):
    lab.open(lab.base_url + page_name)
    live = json.loads(lab.page.evaluate("window.py_view_data"))["view"]
    state = prepared.get_lab(lab_name).spec.default_state()
    assert live == prepared_view(lab_name, state)
    assert lab.page.evaluate("performance.getEntriesByName('lab:first-paint').length") == 1
    first = lab.page.evaluate("performance.getEntriesByName('lab:first-paint')[0].startTime")
    ready = lab.page.evaluate("performance.getEntriesByName('lab:ready')[0].startTime")
    assert first < ready


def sweep_states(module):
    """States that together hold every part the build prepared: every state
    at the default panel (the panel is read by no part but the state and its
    URL form), and every panel for one state of each group. The build itself
    checks all states, panels included, against render() in CPython."""
    default_panel = module.spec.defaults["panel"]
    states, panels_seen = [], set()
    for state in prepared.selector_states(module):
        group = prepared.group_name(module, state)
        if state["panel"] == default_panel:
            states.append(state)
        elif (group, state["panel"]) not in panels_seen and all(
                state[k] == module.spec.defaults[k] for k in module.selectors
                if k not in prepared.group_keys(module) and k != "panel"):
            panels_seen.add((group, state["panel"]))
            states.append(state)
    return [{k: s[k] for k in module.selectors} for s in states]


@pytest.mark.parametrize("lab_name, page_name", [("attention", ""), ("block", "bloque.html"),
                                                 ("model", "modelo.html")])
def test_every_prepared_part_equals_the_live_one(lab, lab_name, page_name):
    # Python must build every part itself: given the prepared view it would
    # adopt it (views.Conversation), so their files are held back until it
    # is live, and its first view is its own.
    lab.page.route("**/views/**", lambda route: route.abort())
    lab.open(lab.base_url + page_name)
    assert lab.page.evaluate("performance.getEntriesByName('lab:show:prepared').length") == 0
    lab.page.unroute("**/views/**")
    module = prepared.get_lab(lab_name)
    states = sweep_states(module)
    parts = {(name, prepared.lookup(s[k] for k in keys))
             for s in prepared.selector_states(module)
             for name, keys in prepared.part_reads(module).items()
             if "panel" not in keys}
    covered = {(name, prepared.lookup(s[k] for k in keys))
               for s in (dict(module.spec.default_state(), **x) for x in states)
               for name, keys in prepared.part_reads(module).items() if "panel" not in keys}
    assert covered == parts
    bad = lab.page.evaluate(SWEEP, states)
    assert bad == []


def test_a_shared_link_paints_its_own_view_before_python(lab):
    held = hold_python(lab.page)
    query = "?sentence=credito&mask=bidirectional&head=finanzas&query=3&key=1&panel=mascara"
    lab.page.goto(lab.base_url + query)
    lab.page.wait_for_selector("body[data-live='false']")
    assert lab.page.evaluate("window.lab.runtime") is None
    view = expected(sentence="credito", mask="bidirectional", head="finanzas", query=3, key=1,
                    panel="mascara")
    pair = view["tables"][0]
    assert lab.table("Puntuaciones") == rows_text(pair["scores"])
    assert lab.selected_row("Puntuaciones") == "crédito"
    assert lab.page.get_by_label("Cabeza", exact=True).input_value() == "finanzas"
    kept = lab.page.evaluate("Object.fromEntries(new URLSearchParams(location.search))")
    assert kept == dict(p.split("=") for p in query[1:].split("&"))  # the link's state
    assert lab.page.evaluate("window.scrollY") > 0  # the panel it names
    release(lab.page, held)
    lab.page.evaluate("window.lab.ready")
    assert lab.table("Puntuaciones") == rows_text(pair["scores"])


def test_a_first_paint_draws_the_screen_first_and_the_rest_before_it_says_so(lab):
    # The link names the last panel: the page paints it (and scrolls to it)
    # first, and the panels above a moment later; <body data-live> is set
    # once every panel is drawn, and the reader's panel stays in view.
    held = hold_python(lab.page)
    lab.page.goto(lab.base_url + "?panel=cache")
    lab.page.wait_for_selector("body[data-live='false']")
    first = lab.page.evaluate("""() => {
      const paint = performance.getEntriesByName('lab:paint');
      return { paints: paint.length, first: performance.getEntriesByName('lab:first-paint').length };
    }""")
    assert first["paints"] == 2 and first["first"] == 1  # on screen first, then the rest
    empty = lab.page.evaluate("""() => [...document.querySelectorAll('main section.panel')]
      .filter((s) => s.querySelector('[data-render="table"]') && !s.querySelector('td'))
      .map((s) => s.id)""")
    assert empty == []
    view = expected(panel="cache")
    assert lab.table("Puntuaciones") == rows_text(view["tables"][0]["scores"])
    box = lab.page.locator("#cache").bounding_box()
    assert box["y"] < lab.page.viewport_size["height"] and box["y"] + box["height"] > 0
    release(lab.page, held)
    lab.page.evaluate("window.lab.ready")
    assert lab.table("Puntuaciones") == rows_text(view["tables"][0]["scores"])


def test_the_article_exercise_works_before_python_is_live(lab):
    held = hold_python(lab.page)
    lab.page.goto(lab.base_url)
    lab.page.wait_for_selector("body[data-live='false']")
    assert "Vista preparada, ya puedes usarla" in text(lab.page.locator("#status"))
    lab.choose("Máscara", "bidireccional")
    lab.choose("Cabeza", "pista de lugar")
    state = lab.choose("Consulta", "1 · banco")
    assert lab.page.evaluate("window.lab.runtime") is None  # no Python yet
    assert (state["mask"], state["head"], state["query"]) == ("bidirectional", "lugar", 1)
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    # A change's URL is written once the changes pause (url.js).
    lab.page.wait_for_function("() => location.search === '?mask=bidirectional'")
    lab.choose("Máscara", "causal")
    assert lab.cell("Puntuaciones", "banco", "parque") == "−∞"
    lab.choose("Clave", "0 · El")
    assert text(lab.page.locator("#puntuacion .formula")) == "(1·0 + 0·1) / √2 = 0,00"
    release(lab.page, held)
    lab.page.evaluate("window.lab.ready")
    assert lab.state()["key"] == 0  # Python confirms the same state and numbers
    assert text(lab.page.locator("#puntuacion .formula")) == "(1·0 + 0·1) / √2 = 0,00"


# What the page shows, as a reader sees it: every table's text (as drawn
# once on screen: conftest.RENDERED) and the state.
SNAPSHOT = """() => (%s)(() => ({
  state: window.lab.state,
  tables: [...document.querySelectorAll('main table')].map((t) => t.innerText),
  live: document.body.dataset.live,
  runtime: window.lab.runtime,
}))""" % RENDERED


@pytest.mark.parametrize("page_name, query", [
    ("", ""), ("", "?mask=bidirectional&head=lugar&query=1&panel=mascara"),
    ("bloque.html", "?panel=orden")])
def test_ready_comes_with_the_prepared_view_and_python_confirms_it(lab, page_name, query):
    # A prepared state: lab.ready resolves as soon as Python answers, with the
    # prepared view on screen; Python adopts that view as its own (the first
    # request carries it) and confirms it (<body data-live="true">), changing
    # nothing a reader can see.
    lab.page.goto(lab.base_url + page_name + query)
    at_ready = lab.page.evaluate("window.lab.ready.then(%s)" % SNAPSHOT)
    assert at_ready["runtime"]["name"] == "bundled"  # Python is live
    lab.page.wait_for_selector("body[data-live='true']")
    confirmed = lab.page.evaluate(SNAPSHOT)
    assert confirmed["tables"] == at_ready["tables"]
    assert confirmed["state"] == at_ready["state"]
    marks = lab.page.evaluate("""() => ['lab:ready', 'lab:confirmed'].map(
      (name) => performance.getEntriesByName(name)[0].startTime)""")
    assert marks[0] <= marks[1]
    assert json.loads(lab.page.evaluate("window.py_view_data"))["view"]["state"] == confirmed["state"]
    if page_name == "bloque.html":  # the article's cell's table, from Python's first reply
        published = json.loads(lab.page.evaluate("window.py_table_data"))
        assert published["rows"][3] == ["Total", "3,150,336", "100.0%"]


def test_a_change_made_the_moment_python_is_live_is_applied_after_its_confirmation(lab):
    lab.page.goto(lab.base_url)
    state = lab.page.evaluate("""window.lab.ready.then(
      () => window.lab.set({mask: 'bidirectional', head: 'lugar', query: 1, theta: 1.2}))""")
    assert (state["mask"], state["theta"]) == ("bidirectional", 1.2)
    assert lab.page.evaluate("document.body.dataset.live") == "true"
    view = expected(mask="bidirectional", head="lugar", query=1, theta=1.2)
    assert lab.table("Puntuaciones") == rows_text(view["tables"][0]["scores"])
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    assert text(lab.page.locator("#rope-score")) == view["rope"]["score"]
    # A fresh load of the same link shows the same numbers.
    fresh = lab.page.context.new_page()
    fresh.goto(lab.base_url + lab.search())
    fresh.wait_for_selector("body[data-live='true']")
    assert fresh.evaluate(SNAPSHOT)["tables"] == lab.page.evaluate(SNAPSHOT)["tables"]
    fresh.close()


def test_a_prepared_change_made_at_ready_shows_at_once_and_python_confirms_it(lab):
    # Between lab.ready and Python's first reply, a change with a prepared
    # view shows it at once, as before Python was live; Python's own view of
    # the new state follows.
    lab.page.goto(lab.base_url)
    at_set = lab.page.evaluate("""window.lab.ready.then(
      () => window.lab.set({mask: 'bidirectional', head: 'lugar', query: 1}))
      .then((state) => ({ state, live: document.body.dataset.live }))""")
    assert at_set["live"] == "false"  # shown before Python's view arrived
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    lab.page.wait_for_selector("body[data-live='true']", state="attached")
    assert lab.state() == at_set["state"]
    lab.look()
    view = expected(mask="bidirectional", head="lugar", query=1)
    assert lab.table("Puntuaciones") == rows_text(view["tables"][0]["scores"])
    assert lab.table("Pesos") == rows_text(view["tables"][0]["weights"])
    assert json.loads(lab.page.evaluate("window.py_view_data"))["view"]["state"]["mask"] == "bidirectional"


def test_the_export_dialog_opened_before_python_works_once_it_is_live(lab):
    held = hold_python(lab.page)
    lab.page.goto(lab.base_url)
    lab.page.wait_for_selector("body[data-live='false']")
    lab.page.get_by_role("button", name="Exportar la tabla «Puntuaciones»").click()
    dialog = lab.page.locator("#export-dialog")
    assert "en cuanto Python esté listo" in text(dialog.locator(".export-status"))
    assert dialog.get_by_role("button", name="Copiar CSV").is_disabled()
    release(lab.page, held)
    lab.page.wait_for_function(
        "() => !document.querySelector('#export-dialog [data-format]').disabled")
    assert text(dialog.locator(".export-caption")) == "Puntuaciones"
    assert text(dialog.locator(".export-status")) == ""


def test_a_link_that_was_not_prepared_is_ready_only_with_pythons_view(lab):
    lab.page.goto(lab.base_url + "?mask=bidirectional&theta=1.2")
    at_ready = lab.page.evaluate("window.lab.ready.then(%s)" % SNAPSHOT)
    assert at_ready["live"] == "true" and at_ready["state"]["theta"] == 1.2
    assert lab.page.locator(".pending").count() == 0


def test_a_change_that_was_not_prepared_waits_visibly(lab):
    held = hold_python(lab.page)
    lab.page.goto(lab.base_url)
    lab.page.wait_for_selector("body[data-live='false']")
    lab.page.evaluate("() => { window.pending = window.lab.set({theta: 1.2}); }")
    lab.page.wait_for_selector("body[data-pending='true']")
    assert "se aplicará en cuanto Python esté listo" in text(lab.page.locator("#status"))
    rope = lab.page.locator("#rope [data-source='rope.score']")
    assert "pending" in rope.get_attribute("class")
    # Parts that do not read θ are not marked.
    assert "pending" not in (lab.page.locator("#score-tables").get_attribute("class") or "")
    release(lab.page, held)
    state = lab.page.evaluate("window.pending")
    assert state["theta"] == 1.2
    assert lab.page.locator(".pending").count() == 0
    assert text(lab.page.locator("#rope-score")) == expected(theta=1.2)["rope"]["score"]


def test_a_waiting_change_that_python_refuses_leaves_nothing_marked(lab):
    # A value out of range, typed before Python's first view: Python says
    # why, and its own view of the state on screen confirms it; the page
    # did not stay dimmed and «aplicando tu cambio…» (found by a review:
    # the batch of refused changes came back with no view).
    held = hold_python(lab.page)
    lab.page.goto(lab.base_url)
    lab.page.wait_for_selector("body[data-live='false']")
    lab.choose("Cabeza", "todas (concatenar y W_O)")
    lab.page.evaluate("""() => { window.refused = window.lab.set({vec: {'lugar.parque.v': [11, 0]}})
      .then(() => 'applied', (error) => error.message); }""")
    lab.page.wait_for_selector("body[data-pending='true']")
    release(lab.page, held)
    assert "11 está fuera del rango" in lab.page.evaluate("window.refused")
    lab.page.wait_for_selector("body[data-live='true']", state="attached")
    assert lab.page.locator(".pending").count() == 0
    assert lab.page.evaluate("document.body.dataset.pending") is None
    assert text(lab.page.locator("#status")).startswith("Listo: Python calcula en vivo.")
    assert "fuera del rango" in text(lab.page.locator("#err-vec"))
    assert lab.state()["head"] == "all" and not lab.state()["vec"]


def test_a_link_that_was_not_prepared_shows_the_nearest_view_marked(lab):
    held = hold_python(lab.page)
    lab.page.goto(lab.base_url + "?mask=bidirectional&theta=1.2")
    lab.page.wait_for_selector("body[data-live='false']")
    assert "Vista aproximada" in text(lab.page.locator("#status"))
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"  # its prepared part
    assert lab.page.evaluate("location.search") == "?mask=bidirectional&theta=1.2"
    assert lab.page.locator(".pending").count() > 0
    release(lab.page, held)
    lab.page.evaluate("window.lab.ready")
    assert lab.state()["theta"] == 1.2
    assert lab.page.locator(".pending").count() == 0


def test_a_tampered_prepared_view_falls_back_to_python_silently(lab):
    messages = console_messages(lab.page, "error", "warning")
    lab.page.route("**/views/**", lambda route: route.fulfill(
        status=200, content_type="application/json", body='{"reads": {"tables": ["x"]}, "parts": 7}'))
    lab.open(lab.base_url, "?mask=bidirectional")
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    assert lab.page.locator("#fault").is_hidden()
    first = lab.page.evaluate("performance.getEntriesByName('lab:first-paint')[0].startTime")
    ready = lab.page.evaluate("performance.getEntriesByName('lab:ready')[0].startTime")
    assert first >= ready - 50  # nothing was painted from the tampered file
    assert messages == []


def test_the_first_view_does_not_wait_for_the_manifest(lab):
    held = []
    lab.page.route("**/manifest.json", lambda route: held.append(route))
    lab.page.goto(lab.base_url + "?mask=bidirectional&head=lugar")
    lab.page.wait_for_selector("body[data-live='false']")
    assert held, "the page asked for its manifest"
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    for route in held:
        route.continue_()
    lab.page.evaluate("window.lab.ready")
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"


@pytest.mark.parametrize("index", ["{not json", '{"path": 7, "group": "sentence"}', "null"])
def test_a_tampered_index_in_the_page_falls_back_to_python_silently(lab, index):
    messages = console_messages(lab.page, "error", "warning")

    def tamper(route):
        html = route.fetch().text()
        html = re.sub(r'(id="lab-prepared">).*?(</script>)', lambda m: m.group(1) + index + m.group(2),
                      html)
        route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)

    lab.page.route(lab.base_url + "?*", tamper)
    lab.open(lab.base_url, "?mask=bidirectional")
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    assert lab.page.locator("#fault").is_hidden()
    assert lab.page.evaluate("performance.getEntriesByType('resource')"
                             ".filter((e) => e.name.includes('/views/')).length") == 0
    assert messages == []


def test_a_prepared_view_that_never_arrives_does_not_hold_python_back(lab):
    held = []
    lab.page.route("**/views/**", lambda route: held.append(route))  # never answered
    lab.open(lab.base_url, "?mask=bidirectional")  # waits for lab.ready
    assert held, "the page asked for its prepared view"
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    assert lab.page.locator("#fault").is_hidden()
    # The file finally arrives, after Python: it must not paint over the live view.
    paints = "performance.getEntriesByName('lab:paint').length"
    before = lab.page.evaluate(paints)
    for route in held:
        route.continue_()
    lab.page.wait_for_function("() => performance.getEntriesByType('resource')"
                               ".some((e) => e.name.includes('/views/'))")
    lab.page.evaluate("window.lab.set({head: 'anterior'})")
    assert lab.page.evaluate(paints) == before + 1  # the set's own paint, nothing else
    assert lab.page.evaluate("document.body.dataset.live") == "true"
    # anterior, built from position: q_1·k_3 = 25·cos(3·0,45), divided by √2.
    assert lab.cell("Puntuaciones", "banco", "parque") == "3,87"


def test_the_page_preloads_only_what_every_visit_uses(lab):
    for page in ("index.html", "bloque.html"):
        html = (STATIC / page).read_text(encoding="utf-8")
        assert html.count('rel="preload"') == 1 and 'rel="preload" href="manifest.json"' in html
    warnings = []
    lab.page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    lab.open(lab.base_url, "?mask=bidirectional&head=all")
    fetched = lab.page.evaluate(
        "performance.getEntriesByType('resource').filter((e) => e.name.endsWith('manifest.json')).length")
    assert fetched == 1
    assert not [w for w in warnings if "preload" in w]


# Each frame while the page loads: the status line's phase and where the
# page below the bar starts (in the document, so a scroll does not count).
WATCH_BELOW_BAR = """
window.belowBar = [];
const watch = () => {
  const status = document.getElementById('status');
  const bar = document.getElementById('lab-bar');
  const below = bar && bar.nextElementSibling;
  if (status && below && document.body.dataset.live !== undefined) {
    window.belowBar.push([status.dataset.phase, document.body.dataset.live,
                          below.getBoundingClientRect().top + scrollY]);
  }
  if (document.body.dataset.live !== 'true') requestAnimationFrame(watch);
};
requestAnimationFrame(watch);
"""


@pytest.mark.parametrize("page_name", ["", "bloque.html"])
@pytest.mark.parametrize("width", [320, 390, 768])
def test_nothing_below_the_status_line_moves_while_python_loads(lab, page_name, width):
    # The status line's text changes at every step (a note on the view, the
    # step, the megabytes) and the download's bar appears: on a phone, where
    # the bar scrolls with the page, each change of its height moved what the
    # reader was reading, or a control under their finger. From the first
    # paint through «Listo» it keeps one height.
    lab.page.set_viewport_size({"width": width, "height": 800})
    lab.page.add_init_script(WATCH_BELOW_BAR)
    held = hold_python(lab.page)
    lab.page.goto(lab.base_url + page_name)
    lab.page.wait_for_selector("body[data-live='false']", state="attached")
    lab.page.wait_for_function("() => document.getElementById('progress').value > 0")
    release(lab.page, held)
    lab.page.evaluate("window.lab.ready")
    lab.page.wait_for_selector("body[data-live='true']", state="attached")
    frames = lab.page.evaluate("window.belowBar")
    loading = [top for phase, live, top in frames if phase == "loading" and live == "false"]
    assert len(loading) > 10, frames  # frames from the first paint through the download
    tops = [top for _, _, top in frames]
    assert max(tops) - min(tops) < 0.5, sorted(set(tops))
    # Out of sight, the box takes its own height back, and the page stays
    # where the reader is (scroll anchoring).
    status = "document.getElementById('status')"
    tall = lab.page.evaluate(f"() => {status}.getBoundingClientRect().height")
    panel = "document.querySelectorAll('main > section.panel')[1]"
    lab.page.evaluate(f"() => {panel}.scrollIntoView()")
    before = lab.page.evaluate(f"() => {panel}.getBoundingClientRect().top")
    lab.page.wait_for_function(f"() => {status}.style.minHeight === ''")
    lab.page.wait_for_function("() => new Promise((r) => requestAnimationFrame(() => r(true)))")
    assert abs(lab.page.evaluate(f"() => {panel}.getBoundingClientRect().top") - before) <= 1
    lab.page.evaluate("() => window.scrollTo(0, 0)")
    one_line = lab.page.evaluate(f"() => {status}.getBoundingClientRect().height")
    assert one_line < 45 and (width > 520 or tall > one_line + 20), (tall, one_line)


# Every change of the status line, as the reader saw it: its words and the
# bar's state (hidden, its value if it has one).
WATCH_STATUS = """
window.statusSeen = [];
document.addEventListener('DOMContentLoaded', () => {
  const box = document.getElementById('status');
  const bar = document.getElementById('progress');
  const note = () => window.statusSeen.push({
    text: document.getElementById('status-text').textContent,
    phase: box.dataset.phase, hidden: bar.hidden,
    value: bar.hasAttribute('value') ? bar.value : null, max: bar.max });
  new MutationObserver(note).observe(box, { subtree: true, childList: true,
    characterData: true, attributes: true });
});
"""


def test_pythons_start_counts_its_steps_and_its_bar_never_stands_full(lab):
    # After the download, Python's start takes seconds: a full bar standing
    # still looked frozen. Each step says which it is, of how many, and the
    # bar moves without a made-up fraction (indeterminate: no value).
    from lab_core.page_text import TEXT
    lab.page.add_init_script(WATCH_STATUS)
    lab.page.goto(lab.base_url)
    lab.page.evaluate("window.lab.ready")
    seen = lab.page.evaluate("window.statusSeen")
    steps = [TEXT["step.counted"].format(step=TEXT["step." + name], n=n, total=3)
             for n, name in enumerate(("python", "numpy", "lab"), 1)]
    said = [step for step in steps if any(step in s["text"] for s in seen)]
    assert said == steps, [s["text"] for s in seen]
    firsts = [next(i for i, s in enumerate(seen) if step in s["text"]) for step in steps]
    assert firsts == sorted(firsts)
    # The last step: every byte is in, the bar moves without a value.
    last = [s for s in seen if steps[2] in s["text"]]
    assert all(not s["hidden"] and s["value"] is None for s in last), last
    # Never a full bar standing under a step of the start.
    full = [s for s in seen if any(t in s["text"] for t in steps) and not s["hidden"]
            and s["value"] is not None and s["value"] >= s["max"]]
    assert not full, full


@pytest.mark.own_context  # a first visit: every byte crosses the wire
def test_the_download_says_what_crosses_the_wire(lab):
    # The size the loading line gives is what a first visit downloads (what
    # a reader's data plan pays), measured here by the browser's own
    # resource timing: the runtime's files and the wheel as they arrived,
    # compressed. Not the 32 MB they unpack to.
    from lab_core.page_text import TEXT
    lab.page.add_init_script(WATCH_STATUS)
    lab.page.goto(lab.base_url)
    lab.page.evaluate("window.lab.ready")
    said = {m.group(1) for s in lab.page.evaluate("window.statusSeen")
            for m in [re.search(re.escape(TEXT["step.download"]) + r" \((\d+,\d) MB\)", s["text"])]
            if m}
    assert len(said) == 1, said
    wire = lab.page.evaluate("""performance.getEntriesByType('resource')
      .filter((e) => /\\/(runtime|wheels)\\//.test(new URL(e.name).pathname))
      .reduce((sum, e) => sum + e.encodedBodySize, 0)""")
    assert wire > 3e6  # the runtime did cross the wire, compressed
    assert float(said.pop().replace(",", ".")) == pytest.approx(wire / 1e6, abs=0.05)


# Every layout shift the reader did not cause, with what moved.
WATCH_SHIFTS = """
window.shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.shifts.push({ value: entry.value, at: Math.round(entry.startTime),
      moved: entry.sources.map((s) => s.node ? (s.node.id || s.node.nodeName) : '?') });
  }
}).observe({ type: 'layout-shift', buffered: true });
"""


@pytest.mark.parametrize("page_name", ["", "bloque.html"])
@pytest.mark.parametrize("device", [
    {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    {"viewport": {"width": 1366, "height": 900}}], ids=["phone", "desktop"])
def test_the_page_holds_still_from_the_first_byte_to_every_panel_drawn(browser, base_url,
                                                                      page_name, device):
    # Cumulative layout shift, from navigation through «Listo», Python's own
    # view, every panel drawn and the parts off screen set aside
    # (<body data-offscreen>): at most 0,1 (a "good" page by the usual measure).
    context = browser.new_context(**device)
    page = context.new_page()
    page.add_init_script(WATCH_SHIFTS)
    page.goto(base_url + page_name)
    page.evaluate("window.lab.ready")
    page.wait_for_selector("body[data-live='true']", state="attached")
    page.evaluate("window.lab.settled()")
    page.wait_for_selector("body[data-offscreen]", state="attached")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    shifts = page.evaluate("window.shifts")
    assert sum(s["value"] for s in shifts) <= 0.1, shifts
    context.close()


@pytest.mark.parametrize("page_name, panel", [("", "rope"), ("bloque.html", "layernorm")])
@pytest.mark.parametrize("width, height", [(1280, 720), (390, 844)])
def test_a_reload_keeps_the_readers_place(lab, page_name, panel, width, height):
    # A phone reloads a tab it had set aside: the reader must find the panel
    # they were reading where it was, not whatever sat at that height in the
    # page's skeleton (the browser's own restoration lands there).
    lab.page.set_viewport_size({"width": width, "height": height})
    lab.open(lab.base_url + page_name)
    top = f"Math.round(document.getElementById('{panel}').getBoundingClientRect().top)"
    lab.page.evaluate(f"window.scrollTo(0, scrollY + {top} + 40)")
    # Scrolled out of sight, the status box takes its own height back
    # (chrome.js) and scroll anchoring moves the page by as much, to the
    # nearest pixel: the reader's place is where the page then stays.
    lab.page.wait_for_function("() => document.getElementById('status').style.minHeight === ''")
    lab.page.evaluate(f"window.scrollTo(0, scrollY + {top} + 40)")
    before = lab.page.evaluate(top)
    assert before == -40 and lab.page.evaluate("scrollY") > 1000
    lab.page.reload()
    lab.page.evaluate("window.lab.ready")
    lab.page.wait_for_selector("body[data-live='true']", state="attached")
    assert abs(lab.page.evaluate(top) - before) <= 1
    # At the top of the page, a reload leaves it there (the status bar, taller
    # while Python loads, made each reload land its height lower: one reload
    # shows the first step of that drift).
    lab.page.evaluate("window.scrollTo(0, 0)")
    lab.page.reload()
    lab.page.evaluate("window.lab.ready")
    lab.page.wait_for_selector("body[data-live='true']", state="attached")
    assert lab.page.evaluate("scrollY") == 0
