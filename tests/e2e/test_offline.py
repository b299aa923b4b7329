"""After one visit the lab works without a network (web/sw.js, js/offline.js).

Each test has a browser context of its own with service workers allowed
(the other tests block them: conftest.browser) and a copy of the built site
on a server of its own, which records every request that reaches it, so a
test can change the site as a new build would.
"""
import functools
import hashlib
import http.server
import json
import shutil
import sys
import threading

import pytest

from conftest import ROOT, STATIC, Lab, new_page, text

sys.path.insert(0, str(ROOT / "scripts"))

from serve import LabHandler, make_server  # noqa: E402

pytestmark = pytest.mark.cold  # each test is a first visit, then a reload

SAVED = "body[data-offline='saved']"
OFFLINE_NOTICE = "Sin conexión: usando la copia guardada de la página; los cálculos siguen en vivo."


class Site:
    """A copy of static/ served on its own port, requests counted by path."""

    def __init__(self, root):
        shutil.copytree(STATIC, root)
        self.root = root
        self.requests = []
        site = self

        class Recording(LabHandler):
            def do_GET(self):
                site.requests.append(self.path.split("?")[0])
                super().do_GET()

        self.server = make_server(root, handler_class=Recording)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d/" % self.server.server_address[1]

    def manifest(self):
        return json.loads((self.root / "manifest.json").read_text(encoding="utf-8"))

    def runtime_files(self):
        manifest = self.manifest()
        runtime = manifest["runtimes"]["bundled"]
        return ["/" + runtime["indexURL"] + f["name"] for f in runtime["files"]] + \
            ["/" + manifest["wheel"]["path"]]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site(tmp_path):
    served = Site(tmp_path / "site")
    yield served
    served.close()


@pytest.fixture
def context(browser):
    context = browser.new_context(service_workers="allow")
    yield context
    context.close()


def visit(context, url):
    """A first visit: the page live, and the service worker holding its files."""
    lab = Lab(new_page(context))
    lab.open(url, more=False)
    lab.page.wait_for_selector(SAVED, state="attached")
    return lab


def reload_live(lab):
    lab.page.reload()
    lab.page.evaluate("window.lab.ready")
    lab.page.wait_for_selector("body[data-live='true']", state="attached")


def cache_names(page):
    """The service worker's caches."""
    return [name for name in page.evaluate("() => caches.keys()")
            if name.startswith("attention-lab-build-")]


def test_both_labs_open_and_answer_offline_after_one_visit(context, site):
    attention = visit(context, site.url + "?mask=bidirectional")
    block = visit(context, site.url + "bloque.html")
    # One cache, of this build, holds the runtime the first visit downloaded.
    names = cache_names(attention.page)
    assert len(names) == 1
    stored = attention.page.evaluate(
        "async (name) => (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname)",
        names[0])
    assert set(site.runtime_files()) <= set(stored)
    # Only the lab's own files: nothing outside its folder, no query strings.
    assert all(path.startswith("/") for path in stored)

    before = len(site.requests)
    context.set_offline(True)
    reload_live(attention)
    assert OFFLINE_NOTICE in attention.notices()
    assert attention.state()["mask"] == "bidirectional"  # the link's state, offline
    assert attention.cell("Puntuaciones", "banco", "parque") == "1,41"
    # Python answers: the causal mask closes the weight, a typed sentence is read.
    attention.set(mask="causal")
    assert attention.cell("Puntuaciones", "banco", "parque") == "−∞"
    attention.set(tokens="Pedí un crédito al banco")
    assert attention.state()["tokens"] == ["Pedí", "un", "crédito", "al", "banco"]
    reload_live(block)
    assert OFFLINE_NOTICE in block.notices()
    block.set(heads=1)
    assert block.state()["heads"] == 1
    # Nothing reached the server but the browser's own check for a newer
    # sw.js, which DevTools' offline switch does not cover (it fails offline).
    assert set(site.requests[before:]) <= {"/sw.js"}
    assert attention.errors == [] and block.errors == []

    # Back online, the page comes from the network again: no notice.
    context.set_offline(False)
    reload_live(attention)
    assert OFFLINE_NOTICE not in attention.notices()


def test_a_damaged_saved_file_is_refetched_never_run(context, site):
    lab = visit(context, site.url + "?mask=bidirectional")
    numpy = next(path for path in site.runtime_files() if path.endswith("numpy.data"))
    # The saved numpy.data is replaced by other bytes of the same length.
    lab.page.evaluate("""async ([name, url]) => {
      const cache = await caches.open(name);
      const response = await cache.match(url);
      const bytes = new Uint8Array(await response.arrayBuffer()).reverse();
      await cache.put(url, new Response(bytes, { headers: response.headers }));
    }""", [cache_names(lab.page)[0], site.url + numpy[1:]])
    context.set_offline(True)
    lab.page.reload()
    box = lab.page.locator("#fault")
    box.wait_for(state="visible")
    assert text(box.locator(".fault-title")).startswith(
        "NumPy (la biblioteca de cálculo) llegó dañado: su contenido no es el publicado")
    # Offline, «Reintentar» asks the network for a fresh copy: it says the connection failed.
    box.get_by_role("button", name="Reintentar").click()
    lab.page.wait_for_function(
        "() => document.getElementById('status').textContent.includes('intento 2')")
    assert text(box.locator(".fault-title")).startswith("No se pudo descargar NumPy")
    assert "Comprueba tu conexión" in text(box)
    context.set_offline(False)
    box.get_by_role("button", name="Reintentar").click()
    lab.page.evaluate("window.lab.ready")
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    # The saved copy is the published file again.
    saved = lab.page.evaluate("""async ([name, url]) => {
      const response = await (await caches.open(name)).match(url);
      const digest = await crypto.subtle.digest('SHA-256', await response.arrayBuffer());
      return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    }""", [cache_names(lab.page)[0], site.url + numpy[1:]])
    assert saved == hashlib.sha256((site.root / numpy[1:]).read_bytes()).hexdigest()
    lab.forget_errors()


def test_a_new_build_is_served_and_replaces_the_old_cache(context, site):
    import build

    lab = visit(context, site.url)
    old_cache = cache_names(lab.page)

    # A new manifest (the wheel under a new hash) while the old worker is in
    # control: the old worker has no copy of the new file and asks the server.
    manifest = site.manifest()
    old_wheel = manifest["wheel"]["path"]
    new_wheel = old_wheel.replace(old_wheel.split("/")[1], "0123456789ab")
    (site.root / new_wheel).parent.mkdir(parents=True)
    shutil.move(site.root / old_wheel, site.root / new_wheel)
    manifest["wheel"]["path"] = new_wheel
    (site.root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    for suffix in (".br", ".gz"):
        (site.root / ("manifest.json" + suffix)).unlink()
    before = len(site.requests)
    reload_live(lab)
    assert "/" + new_wheel in site.requests[before:]
    assert "/" + old_wheel not in site.requests[before:]
    assert cache_names(lab.page) == old_cache

    # A rebuild with a visible change: the page says so at once, and the new
    # build's worker takes over with a cache of its own, the old one deleted,
    # and so is the bytecode cache pages of earlier builds kept.
    lab.page.evaluate("async () => { await (await caches.open('attention-lab-bytecode'))"
                      ".put('/__bytecode', new Response('x')); }")
    page = (site.root / "index.html").read_text(encoding="utf-8")
    (site.root / "index.html").write_text(page.replace("<title>", "<title>Nueva · ", 1),
                                          encoding="utf-8")
    for suffix in (".br", ".gz"):
        (site.root / ("index.html" + suffix)).unlink()
    shutil.copyfile(ROOT / "web" / "sw.js", site.root / "sw.js")
    version = build.write_service_worker(site.root)
    (site.root / "sw.js.br").unlink(missing_ok=True)
    (site.root / "sw.js.gz").unlink(missing_ok=True)
    reload_live(lab)
    assert lab.page.title().startswith("Nueva · ")
    # wait_for_function does not await a Promise (it is truthy at once): the
    # predicate reads the names an earlier poll asked for.
    lab.page.wait_for_function(
        "(want) => { caches.keys().then((names) => { window.__cacheNames = names; });"
        " const names = window.__cacheNames || [];"
        " return names.length === 1 && names[0] === want; }", arg="attention-lab-build-" + version)
    lab.page.wait_for_selector(SAVED, state="attached")
    context.set_offline(True)
    reload_live(lab)
    assert lab.page.title().startswith("Nueva · ")
    assert OFFLINE_NOTICE in lab.notices()


def test_two_embedded_panels_loading_at_once_download_the_runtime_once(context, site, tmp_path):
    # A teacher's course page on another origin with two panels of the lab.
    course = tmp_path / "course"
    course.mkdir()
    (course / "index.html").write_text(
        '<!doctype html><meta charset="utf-8"><title>Curso</title>'
        '<iframe title="Puntuaciones" src="%sindex.html?embed=1&amp;panel=puntuacion"></iframe>'
        '<iframe title="Cabezas" src="%sindex.html?embed=1&amp;panel=cabezas&amp;mask=bidirectional">'
        '</iframe><script src="%sembed.js" async></script>' % (site.url, site.url, site.url),
        encoding="utf-8")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(course)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page = new_page(context)
        page.goto("http://127.0.0.1:%d/" % server.server_address[1])
        frames = [frame for frame in page.frames if frame.url.startswith(site.url)]
        assert len(frames) == 2
        for frame in frames:
            frame.evaluate("window.lab.ready")
            frame.wait_for_selector(SAVED, state="attached")
        # Each runtime file and the wheel reached the server once, for both.
        for path in site.runtime_files():
            assert site.requests.count(path) == 1, path
        # The network drops; each panel reloads from the saved copy (the
        # course page itself is the course site's to keep).
        context.set_offline(True)
        for frame in frames:
            with page.expect_event("framenavigated", lambda f: f == frame):
                frame.evaluate("location.reload()")
            frame.wait_for_load_state()
            frame.evaluate("window.lab.ready")
            assert OFFLINE_NOTICE in frame.locator("#notices").inner_text()
        assert frames[1].evaluate("window.lab.state.mask") == "bidirectional"
    finally:
        server.shutdown()
        server.server_close()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass
