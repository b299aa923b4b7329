"""Browser fixtures: static/ served on a free 127.0.0.1 port, a real Chromium.

These tests never skip: with no static/ or no Chromium they fail and say why.
Run them through `make test`, which builds static/ and finds a Chromium.

Booting Python is most of a test's time, so the tests of a module share one
warm page: `Lab.open` on the page already live at that address resets it
(`lab.reset()`: the default state, no answers, no notices) and applies the
link's state with `lab.set`, as if the link had been opened. A test whose
subject is the boot itself, or what only a fresh load does (the first
paint, a link's notices, faults, a reload's place), is marked `cold` and
gets a page of its own; so does a link with a value `lab.set` refuses.
LAB_WARM=0 runs every test cold. Pages of a worker, warm and cold, are one
returning reader's (the `visitor` context: its HTTP cache and the
service worker's copies); what only a first visit does, with empty caches, and a test
that installs Playwright's clock (which holds for the whole context) are
marked `own_context` and get a browser context of their own.

A panel's longer explanation and secondary tools sit in closed
`<details class="more">`, one tap away for a reader. `Lab.open` opens them
all, so that a test reads and uses every part; a test of what a reader
meets first opens with `more=False` (test_first_encounter.py).
"""
import functools
import inspect
import os
import sys
import threading
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from chromium import launch_options  # noqa: E402
from serve import make_server  # noqa: E402

STATIC = ROOT / "static"


def expected(**changes):
    """The attention lab's view of the default state with `changes`, built by
    lab_core here in CPython (the page runs the same code in Pyodide)."""
    from lab_core import attention_lab

    return attention_lab.LAB.build_view(dict(attention_lab.SPEC.default_state(), **changes))


def rows_text(table):
    """A view's table as {row label: [cell texts]}, as Lab.table reads one."""
    return {row["label"]: [c["text"] for c in row["cells"]] for row in table["rows"]}


# LAB_CPU_THROTTLE=4 runs every page under Chromium's 4× CPU throttling
# (DevTools protocol): the suite must give the same results on a slow machine.
CPU_THROTTLE = float(os.environ.get("LAB_CPU_THROTTLE", "1"))
WARM = os.environ.get("LAB_WARM", "1") != "0"
VIEWPORT = {"width": 1280, "height": 720}  # Playwright's default
# A phone: its size, a mobile viewport and touch are a context's options.
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# Page keys are not lab state: a link that holds one is opened cold.
PAGE_KEYS = ("embed", "runtime")
# Reset a live page to a fresh visit of `partial`'s link: the defaults, no
# answers, then the link's state (the default panel when it names none), at
# the top of the page. Resolves with null, or with the message of a value
# lab.set refused (the test then opens the link cold).
RESET = """async ([partial, panel, given]) => {
  localStorage.clear();
  sessionStorage.clear();
  for (const more of document.querySelectorAll('details.more[open]')) more.open = false;
  await window.lab.reset();
  try {
    await window.lab.set({ panel, ...partial });
  } catch (error) {
    return error.message;
  }
  await window.lab.settled();
  if (!given) window.scrollTo(0, 0);
  document.activeElement.blur();
  return null;
}"""

# Every closed «more» part opened. A reader opens one on screen, where the
# browser lays it out at once (a table's scroll cue, web/js/table.js, comes
# from that layout); parts opened off screen are laid out once, the skip
# lifted for two frames, as if the reader had scrolled past them.
# The panel at the screen's top stays where it was (parts above it grow).
OPEN_MORE = """async () => {
  const panel = [...document.querySelectorAll('main > section.panel')]
    .find((section) => section.getBoundingClientRect().bottom > 0);
  // A reader at the top stays there, as the browser keeps them.
  const top = scrollY > 0 && panel ? panel.getBoundingClientRect().top : null;
  for (const more of document.querySelectorAll('details.more:not([open])')) more.open = true;
  const body = document.body;
  const skipping = body.hasAttribute('data-offscreen');
  body.removeAttribute('data-offscreen');
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  if (top !== null) scrollBy(0, panel.getBoundingClientRect().top - top);
  if (skipping) body.setAttribute('data-offscreen', '');
}"""

# The address bar shows the state on screen: its lab keys are those of the
# query string Python gave for the view (page keys such as runtime and embed
# left aside, and an embed's panel, kept even when it is the default). A
# change's URL is written once the changes pause (url.js).
URL_SHOWS_VIEW = """() => {
  const envelope = JSON.parse(window.py_view_data || 'null');
  if (!envelope || !envelope.view) return false;
  // Python's last view, of the state on screen (not one a prepared change
  // has already moved past while Python was confirming its first view).
  const canon = (v) => Array.isArray(v) ? v.map(canon)
    : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]))
    : v;
  if (JSON.stringify(canon(envelope.view.state)) !== JSON.stringify(canon(window.lab.state))) return false;
  const want = new URLSearchParams(envelope.view.query_string);
  const have = new URLSearchParams(location.search);
  if (have.has('embed') && !want.has('panel')) have.delete('panel');
  for (const key of ['runtime', 'embed']) have.delete(key);
  want.sort();
  have.sort();
  return want.toString() === have.toString();
}"""


# Once the page is live, panels off screen skip their rendering
# (web/js/offscreen.js: content-visibility: auto), and Chromium gives no
# innerText for the contents of a skipped panel: a reader scrolls there
# first. The tests read what a panel shows once rendered without scrolling
# the page: the skip is lifted for the read, within one task (nothing is
# painted meanwhile), and put back. `text(locator)` is inner_text() read so.
RENDERED = """(read) => {
  const body = document.body;
  const skipping = body.hasAttribute('data-offscreen');
  body.removeAttribute('data-offscreen');
  try { return read(); } finally { if (skipping) body.setAttribute('data-offscreen', ''); }
}"""
TEXT = "(node) => (%s)(() => node.innerText)" % RENDERED


def text(locator):
    return locator.evaluate(TEXT)


def texts(locator):
    """all_inner_texts(), read so."""
    return locator.evaluate_all("(nodes) => (%s)(() => nodes.map((node) => node.innerText))" % RENDERED)


def serve(prefix="/"):
    if not (STATIC / "manifest.json").is_file():
        pytest.fail("static/ is not built: run `make build` (make test does it)")
    server = make_server(STATIC, prefix=prefix)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, "http://127.0.0.1:%d%s" % (server.server_address[1], prefix)


@pytest.fixture(scope="session")
def base_url():
    server, url = serve()
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def prefixed_url():
    """The site under a path prefix, as on https://host/attention-lab/."""
    server, url = serve("/attention-lab/")
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    """Chromium. Its contexts block the lab's service worker (sw.js) unless a
    test asks for it (`service_workers="allow"`, test_offline.py): what a
    service worker serves never reaches Playwright's page.route, and the
    fault tests route the boot's requests."""
    options = launch_options()
    if WARM:  # see `visitor`: a worker's pages of the site share one renderer process
        options = dict(options, args=[*options["args"], "--process-per-site"])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**options)
        opened = browser.new_context
        browser.new_context = functools.partial(opened, service_workers="block")
        yield browser
        browser.close()


class Lab:
    """A page of the lab, read the way a person reads it."""

    def __init__(self, page, warm=False):
        self.page = page
        self.warm = warm  # may open a link on the live page (see the module's docstring)
        if not hasattr(page, "lab_errors"):
            page.lab_errors = []
            page.on("pageerror", lambda error: page.lab_errors.append(str(error)))
        self.first_error = len(page.lab_errors)

    @property
    def errors(self):
        return self.page.lab_errors[self.first_error:]

    def forget_errors(self):
        """The errors so far were expected (a test checked them)."""
        self.first_error = len(self.page.lab_errors)

    def open(self, base_url, query="", more=True):
        """Load a page and wait until it has settled: Python is live
        (lab.ready) and its own view is on screen (<body data-live="true">;
        on a prepared state lab.ready comes a moment before it, with the
        prepared view, see test_first_paint.py). On a warm page already live
        at that address, the link's state is applied instead (lab.reset and
        lab.set): what a fresh load shows, without booting Python again.
        With `more`, every closed «more» part is then opened (see above)."""
        url = base_url + query
        if not (self.warm and self._reuse(url)):
            self.page.goto(url)
            self.page.evaluate("window.lab.ready")
            self.page.wait_for_selector("body[data-live='true']", state="attached")
        if more:
            self.open_more()
        return self

    def open_more(self):
        """Open every closed «more» part, as a reader tapping each one."""
        self.page.evaluate(OPEN_MORE)

    def _reuse(self, url):
        wanted, here = urlsplit(url), urlsplit(self.page.url)
        if (wanted.scheme, wanted.netloc, wanted.path) != (here.scheme, here.netloc, here.path):
            return False
        params = dict(parse_qsl(wanted.query, keep_blank_values=True))
        if any(key in params for key in PAGE_KEYS) or here.query and any(
                key in dict(parse_qsl(here.query)) for key in PAGE_KEYS):
            return False
        if self.page.evaluate("document.body.dataset.live !== 'true' || "
                              "document.documentElement.dataset.phase !== 'live'"):
            return False
        given = "panel" in params
        panel = params.pop("panel", None) or self.page.evaluate(
            "JSON.parse(document.getElementById('lab-prepared').textContent).defaults.panel")
        refused = self.page.evaluate(RESET, [params, panel, given])
        if refused is None:
            self.page.wait_for_function(URL_SHOWS_VIEW)
        return refused is None

    def look(self):
        """Look without predicting, in every panel that asks first: what a
        question hides is not drawn (nor in the accessibility tree) until the
        reader answers or presses «Mostrar sin predecir»."""
        buttons = self.page.get_by_role("button", name="Mostrar sin predecir")
        for _ in range(buttons.count()):
            buttons.first.click()  # a pressed one hides: the next is first
        self.page.wait_for_function("() => !document.querySelector('.veiled')")
        return self

    def find_table(self, caption, last=False):
        """A table or a grid (the score tables), found by its caption; `last`:
        the last of several that carry it."""
        found = self.page.get_by_role("table", name=caption, exact=True).or_(
            self.page.get_by_role("grid", name=caption, exact=True))
        return found.last if last else found

    def table(self, caption, last=False):
        """A table (found by its caption) as {row label: [cell texts]}."""
        return self.find_table(caption, last).evaluate("(node) => (%s)(() => Object.fromEntries("
                                                 "[...node.tBodies[0].rows].map((row) => [row.cells[0].innerText.trim(), "
                                                 "[...row.cells].slice(1).map((cell) => cell.innerText.trim())])))" % RENDERED)

    def cell(self, caption, row, column):
        table = self.find_table(caption)
        columns = [name.strip() for name in texts(table.locator("thead th"))][1:]
        return self.table(caption)[row][columns.index(column)]

    def selected_row(self, caption):
        table = self.find_table(caption)
        return text(table.locator("tbody tr.selected th")).strip()

    def choose(self, label, option_label):
        """Pick an option of the control whose visible label is `label`;
        returns the state the page shows once the change is applied."""
        self.page.get_by_label(label, exact=True).select_option(label=option_label)
        return self.settle()

    def fill(self, label, text):
        """Type into the field whose visible label is `label`, then leave it."""
        field = self.page.get_by_label(label, exact=True)
        field.fill(text)
        field.press("Tab")
        return self.settle()

    def settle(self):
        """Wait until every lab.set the page started has settled (the page marks
        <body data-busy> meanwhile); returns the state shown."""
        self.page.wait_for_function("() => !document.body.dataset.busy")
        return self.state()

    def set(self, **partial):
        """lab.set, then wait until settled: lab.set resolves once the change
        is on screen, and the panels far from the screen are drawn a moment
        later (web/js/offscreen.js); tests read any panel."""
        self.page.evaluate("(p) => window.lab.set(p)", partial)
        return self.settle()

    def url(self):
        """The page's URL once it shows the view on screen (a change's URL is
        written when the changes pause, web/js/url.js)."""
        self.page.wait_for_function(URL_SHOWS_VIEW)
        return self.page.evaluate("location.href")

    def search(self):
        """The query string of url()."""
        self.url()
        return self.page.evaluate("location.search")

    def state(self):
        return self.page.evaluate("window.lab.state")

    def notices(self):
        return texts(self.page.locator("#notices li"))


# Chromium's console line when a context blocks service workers (see
# `browser`): Playwright's, not the page's.
SW_BLOCKED = "Service Worker registration blocked by Playwright"


def console_messages(page, *types):
    """The page's console messages of these types, as they come."""
    messages = []
    page.on("console", lambda m: messages.append(m.text)
            if m.type in types and m.text != SW_BLOCKED else None)
    return messages


def new_page(context):
    page = context.new_page()
    if CPU_THROTTLE != 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": CPU_THROTTLE})
    return page


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Under pytest-xdist (`--dist loadgroup`, make test), the tests that share
    a module's warm page run on one worker, so that the page boots once; a
    test with a page of its own (cold, or its own context) goes to whichever
    worker is free. Runs before xdist reads the groups."""
    for item in items:
        function = getattr(item, "function", None)
        if function and ".clock.install(" in inspect.getsource(function) and \
                item.get_closest_marker("own_context") is None:
            raise pytest.UsageError("%s installs Playwright's clock, which holds for the whole "
                                    "browser context: mark it own_context" % item.nodeid)
        warm = "lab" in getattr(item, "fixturenames", ()) and not (
            item.get_closest_marker("cold") or item.get_closest_marker("own_context"))
        if warm:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
    # A warm page that moves to another of the lab's pages boots again:
    # within a module, the tests that open the attention lab come first,
    # then the block lab's, then the model's, each lab's embeds last (tests
    # never depend on their order).
    modules = {}
    items.sort(key=lambda item: (modules.setdefault(item.nodeid.split("::")[0], len(modules)),
                                 lab_page_of(item)))


def lab_page_of(item):
    """(0, 1 or 2: the lab a test opens, the attention lab, bloque.html or
    modelo.html; whether it opens an embed), as its parameters or, failing
    them, its code say."""
    function = getattr(item, "function", None)
    text = item.name if "[" in item.name or function is None else inspect.getsource(function)
    lab = next((rank for rank, page in ((2, "modelo.html"), (1, "bloque.html")) if page in text), 0)
    return lab, "embed=" in text  # an embed is a page key: its load is never reused


@pytest.fixture(scope="session")
def visitor(browser, base_url):
    """The worker's reader: one browser context for its warm pages and its
    cold ones, so that a fresh load finds what a returning reader's browser
    keeps (the HTTP cache, the service worker's copies) and boots as a
    second visit does. What only a first visit does (empty caches), or
    installs Playwright's clock (the context's, not the page's), is marked
    `own_context` and gets a context of its own. Each test
    leaves the context as it found it: no page of its own, no permissions,
    no local storage (see `lab`).

    The context also keeps one live page of the lab open (`keeper`), never
    used by a test. The tests' browser gives all of a context's pages of the
    site one renderer process (`--process-per-site`), where the engine keeps
    a compiled WebAssembly module for as long as an instance of it lives: so
    the interpreter and NumPy's extensions, compiled once for the keeper,
    are not compiled again for every later page, which is most of a boot's
    processor time after the first. Everything else a boot does still runs
    (downloads, their checks, the worker, Python's start, lab_core, the
    first view). `LAB_WARM=0` runs without either."""
    yield from returning_reader(browser, base_url)


@pytest.fixture(scope="session")
def phone_visitor(browser, base_url):
    """`visitor` on a phone (PHONE), with a keeper of its own: a context's
    pages share a renderer process, contexts do not. Made for the first
    test of a worker that asks for it."""
    yield from returning_reader(browser, base_url, **PHONE)


def returning_reader(browser, base_url, **options):
    """A context with its keeper page live (see `visitor`), closed after."""
    context = browser.new_context(**options)
    if WARM:
        keeper = new_page(context)
        keeper.goto(base_url)
        keeper.wait_for_selector("body[data-live='true']", state="attached")
    yield context
    context.close()


def close_page(context, page):
    """A test's own page in a shared context, closed and its traces gone."""
    leave_clean(context, page)
    page.close()


def leave_clean(context, page):
    """What a test may leave in the shared context, taken away: the page's
    local storage (the theme, a reader's answers) and granted permissions."""
    try:
        page.evaluate("localStorage.clear()")
    except Exception:  # noqa: BLE001  a page elsewhere or closed: nothing of ours stored
        pass
    context.clear_permissions()


@pytest.fixture(scope="module")
def warm_page(visitor):
    """One page for the tests of a module that need no fresh load."""
    page = new_page(visitor)
    yield page
    page.close()


@pytest.fixture
def lab(request, browser, visitor, base_url, warm_page):
    cold = not WARM or request.node.get_closest_marker("cold") is not None
    own = request.node.get_closest_marker("own_context") is not None
    context = browser.new_context() if own else visitor
    if cold or own:
        page = new_page(context)
    else:
        page = warm_page
        # What an earlier test emulated, back to Playwright's defaults.
        page.emulate_media(media="screen", color_scheme="light", reduced_motion="no-preference")
        if page.viewport_size != VIEWPORT:
            page.set_viewport_size(VIEWPORT)
    instance = Lab(page, warm=not (cold or own))
    instance.base_url = base_url
    yield instance
    if own:
        context.close()
    else:
        leave_clean(context, page)
        if cold:
            page.close()
    assert instance.errors == [], "uncaught errors in the page: %s" % instance.errors
