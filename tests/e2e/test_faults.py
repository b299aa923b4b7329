"""Every file the boot needs can fail; every failure ends in a clear Spanish
message, within 30 s, with «Reintentar» that works once the fault is gone.

Faults are injected with Playwright routes: an aborted connection, an HTTP
error, a truncated or garbled body, and a request that is never answered
(with Playwright's clock, so the 30 s stall passes without waiting for it).
"""
import json
import re

import pytest

from conftest import STATIC, text

pytestmark = pytest.mark.cold  # faults of the boot are the subject

URL = "?mask=bidirectional"  # a link with state: it must survive the fault and the retry


def runtime_folder():
    """The bundled runtime's folder in the built site (named by its version
    and content hash)."""
    manifest = json.loads((STATIC / "manifest.json").read_text(encoding="utf-8"))
    return STATIC / manifest["runtimes"]["bundled"]["indexURL"]


def original(pattern):
    path = {"pyodide.asm.js": runtime_folder() / "pyodide.asm.js",
            "pyodide.asm.wasm": runtime_folder() / "pyodide.asm.wasm",
            "packages.json": runtime_folder() / "packages.json",
            "js/main.js": STATIC / "js" / "main.js"}[pattern]
    return path.read_bytes()


def leb128(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def valid_wasm(size):
    """A WebAssembly module that compiles (no code: one custom section of
    filler), exactly `size` bytes long: the worker compiles the wasm as it
    streams, and must not run one the page's SHA-256 check refuses."""
    for width in range(1, 6):
        length = size - 8 - 1 - width
        if len(leb128(length)) == width:
            body = b"\x01x" + b"\x00" * (length - 2)
            return b"\x00asm\x01\x00\x00\x00" + b"\x00" + leb128(length) + body
    raise AssertionError(size)


class Fault:
    """A route that fails while `on` is True, and counts the requests it saw."""

    def __init__(self, page, pattern, kind):
        self.page, self.pattern, self.kind = page, pattern, kind
        self.on = True
        self.seen = 0
        self.held = []
        page.route("**/" + pattern, self.handle)

    def handle(self, route):
        self.seen += 1
        if not self.on:
            route.continue_()
        elif self.kind == "abort":
            route.abort("connectionreset")
        elif self.kind in ("404", "500"):
            route.fulfill(status=int(self.kind), body="no", content_type="text/plain")
        elif self.kind == "truncated":
            body = original(self.pattern)
            route.fulfill(status=200, body=body[:len(body) // 2], content_type="text/javascript")
        elif self.kind == "garbled":
            body = original(self.pattern)
            route.fulfill(status=200, body=body[::-1], content_type="application/json")
        elif self.kind == "impostor":
            route.fulfill(status=200, body=valid_wasm(len(original(self.pattern))),
                          content_type="application/wasm")
        elif self.kind == "hang":
            self.held.append(route)  # never answered
        else:
            raise AssertionError(self.kind)


def wait_for_fault(lab):
    lab.page.locator("#fault").wait_for(state="visible")
    return lab.page.locator("#fault")


def retry_and_boot(lab, fault):
    fault.on = False
    lab.page.locator("#fault").get_by_role("button", name="Reintentar").click()
    lab.page.evaluate("window.lab.ready")
    assert lab.page.locator("#fault").is_hidden()
    assert lab.state()["mask"] == "bidirectional"  # the link's state was kept
    assert "mask=bidirectional" in lab.page.url
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    assert text(lab.page.locator("#status")).startswith("Listo")


@pytest.mark.parametrize("pattern, kind, title", [
    ("manifest.json", "500", r"^La lista de archivos del laboratorio falló en el servidor \(error 500\)\.$"),
    ("pyodide.asm.wasm", "404", r"^El intérprete de Python no está en el servidor \(error 404\)\.$"),
    ("pyodide.asm.data", "500", r"^La biblioteca estándar de Python falló en el servidor"),
    ("numpy.data", "abort", r"^No se pudo descargar NumPy \(la biblioteca de cálculo\): se cortó la conexión"),
    ("lab_core-*.whl", "500", r"^El código del laboratorio \(lab_core\) falló en el servidor"),
    ("pyodide.asm.js", "truncated", r"^El intérprete de Python \(su parte en JavaScript\) llegó incompleto"),
    ("pyodide.asm.wasm", "truncated", r"^El intérprete de Python llegó incompleto"),
    ("pyodide.asm.wasm", "impostor", r"^El intérprete de Python llegó dañado"),
    ("packages.json", "garbled", r"^La lista de paquetes de Python llegó dañada: "),
    ("packages.json", "truncated", r"^La lista de paquetes de Python llegó incompleta: "),
    ("js/worker.js", "404", r"^No se pudo cargar el programa que ejecuta Python\.$"),
])
def test_a_failed_file_ends_in_a_message_and_a_retry_that_works(lab, pattern, kind, title):
    fault = Fault(lab.page, pattern, kind)
    lab.page.goto(lab.base_url + URL)
    box = wait_for_fault(lab)
    assert re.search(title, text(box.locator(".fault-title"))), text(box)
    assert text(box.locator(".fault-advice"))
    if kind in ("truncated", "garbled"):  # «descargarla» for «la biblioteca…», else «descargarlo»
        pronoun = "la" if title.startswith("^La ") else "lo"
        assert "descargar%s de nuevo" % pronoun in text(box.locator(".fault-advice"))
    assert lab.page.locator("#status").get_attribute("data-phase") == "error"
    assert lab.page.locator("#status .spinner").is_hidden()  # never an endless spinner
    # The technical line is there, folded away.
    details = box.locator("details")
    assert details.get_attribute("open") is None
    assert pattern.split("*")[0].split("/")[-1] in box.locator(".fault-detail").text_content()
    # A change that needs Python is refused with the same words, never left hanging.
    error = lab.page.evaluate("window.lab.set({theta: 1}).then(() => 'resolved', (e) => e.message)")
    assert error == text(box.locator(".fault-title"))
    retry_and_boot(lab, fault)


@pytest.mark.own_context  # Playwright's clock is the whole context's
def test_a_change_pending_when_the_boot_fails_is_rejected(lab):
    fault = Fault(lab.page, "numpy.data", "hang")
    lab.page.clock.install()
    lab.page.goto(lab.base_url + URL)
    lab.page.wait_for_selector("body[data-live='false']")
    lab.page.evaluate("() => { window.pending = window.lab.set({theta: 1.5}).then("
                      "() => 'resolved', (e) => e.message); }")
    while not fault.held:
        lab.page.wait_for_timeout(50)
    # Every other file has arrived: only numpy.data is missing.
    size = (runtime_folder() / "numpy.data").stat().st_size
    lab.page.wait_for_function(
        "(size) => { const p = document.getElementById('progress');"
        " return p.max > size && p.value >= p.max - size; }", arg=size)
    lab.page.clock.run_for(31000)  # 30 s with no byte of numpy.data
    box = wait_for_fault(lab)
    assert text(box.locator(".fault-title")) == (
        "La descarga de NumPy (la biblioteca de cálculo) lleva 30 segundos sin avanzar.")
    assert lab.page.evaluate("window.pending") == text(box.locator(".fault-title"))
    retry_and_boot(lab, fault)


@pytest.mark.own_context  # Playwright's clock is the whole context's
@pytest.mark.parametrize("pattern, title", [
    ("manifest.json", "La descarga de la lista de archivos del laboratorio lleva 30 segundos sin avanzar."),
    ("pyodide.asm.wasm", "La descarga del intérprete de Python lleva 30 segundos sin avanzar."),
])
def test_a_download_that_never_answers_ends_in_a_message_and_a_retry(lab, pattern, title):
    fault = Fault(lab.page, pattern, "hang")
    lab.page.clock.install()
    lab.page.goto(lab.base_url + URL)
    while not fault.held:
        lab.page.wait_for_timeout(50)
    if pattern != "manifest.json":
        # The interpreter's other files in; the packages' and lab_core's wait
        # for the interpreter's (python.js): nothing else moves the stall timer.
        files = json.loads((STATIC / "manifest.json").read_text())["runtimes"]["bundled"]["files"]
        others = sum(f["size"] for f in files
                     if not f["name"].startswith("numpy.") and f["name"] != pattern)
        lab.page.wait_for_function(
            "(others) => { const p = document.getElementById('progress');"
            " return p.max > others && p.value >= others; }", arg=others)
    lab.page.clock.run_for(31000)  # 30 s with no answer
    box = wait_for_fault(lab)
    assert text(box.locator(".fault-title")) == title
    retry_and_boot(lab, fault)


def test_a_second_failure_says_so_and_keeps_the_button(lab):
    fault = Fault(lab.page, "pyodide.asm.wasm", "404")
    numpy = Fault(lab.page, "numpy.data", "none")
    numpy.on = False
    lab.page.goto(lab.base_url + URL)
    box = wait_for_fault(lab)
    box.get_by_role("button", name="Reintentar").click()
    lab.page.wait_for_function(
        "() => document.getElementById('status').textContent.includes('intento 2')")
    assert "Ha vuelto a fallar (intento 2)" in text(lab.page.locator("#status"))
    assert box.get_by_role("button", name="Reintentar").is_enabled()
    retry_and_boot(lab, fault)
    # What arrived on the first attempt was not fetched again.
    assert numpy.seen == 1 and fault.seen == 3


# The page's script is one file (scripts/build.py bundles its modules): a
# missing one, or one cut short (it does not parse, so never runs).
@pytest.mark.parametrize("kind", ["404", "truncated"])
def test_the_page_says_so_when_its_own_script_cannot_load(lab, kind):
    fault = Fault(lab.page, "js/main.js", kind)
    lab.page.goto(lab.base_url + URL)
    box = wait_for_fault(lab)
    assert text(box.locator(".fault-title")) == "No se pudo cargar el programa de esta página."
    assert lab.page.locator("#status .spinner").is_hidden()
    # A script cut short is a syntax error the browser reports: that one only.
    assert len(lab.errors) == (kind == "truncated"), lab.errors
    lab.forget_errors()
    fault.on = False
    with lab.page.expect_navigation():
        box.get_by_role("button", name="Reintentar").click()
    lab.page.evaluate("window.lab.ready")
    assert lab.state()["mask"] == "bidirectional"


def test_values_json_cannot_carry_are_refused_in_spanish(lab):
    lab.open(lab.base_url)
    cases = {
        "({mask: undefined})": "«mask» vale undefined",
        "({theta: NaN})": "«theta» NaN no es un número JSON",
        "({theta: () => 1})": "«theta» es una función",
        "(Object.create({mask: 'bidirectional'}))": "objeto simple",
        "([1, 2])": "objeto simple",
        "({mask: new Date()})": "«mask» no es un objeto simple",
    }
    for expression, words in cases.items():
        error = lab.page.evaluate(
            "window.lab.set(%s).then(() => 'resolved', (e) => e.message)" % expression)
        assert words in error, (expression, error)
    assert lab.state()["mask"] == "causal"
    deep = lab.page.evaluate("""() => {
        let v = 'causal'; for (let i = 0; i < 3000; i++) v = [v];
        return window.lab.set({mask: v}).then(() => 'resolved', (e) => e.message);
    }""")
    assert "anida demasiados niveles" in deep


def test_a_burst_of_calls_costs_about_one_paint(lab):
    lab.open(lab.base_url, "?panel=cache")
    before = lab.page.evaluate("performance.getEntriesByName('lab:paint').length")
    states = lab.page.evaluate("""async () => {
        const calls = [];
        for (let i = 0; i < 300; i++) {
            calls.push(window.lab.set({mask: i % 2 ? 'causal' : 'bidirectional', step: 1 + i % 4}));
        }
        return Promise.all(calls);
    }""")
    paints = lab.page.evaluate("performance.getEntriesByName('lab:paint').length") - before
    assert paints <= 3
    final = lab.state()
    assert (final["mask"], final["step"]) == ("causal", 4)
    assert all(s == final for s in states)  # every promise resolves with the state shown


def test_no_security_policy_violation_on_either_page(lab):
    lab.page.add_init_script("""
        window.__violations = [];
        document.addEventListener('securitypolicyviolation',
            (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
    """)
    errors = []
    lab.page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    for page, panels in (("", ["puntuacion", "mezcla", "cabezas", "mascara", "rope",
                               "entrenamiento", "cache"]),
                         ("bloque.html", ["orden", "posicion", "residual", "layernorm", "ffn",
                                          "bloque", "quiz"])):
        lab.open(lab.base_url + page)
        assert lab.page.evaluate("document.querySelector('meta[http-equiv]').content").startswith(
            "default-src 'self'")
        for panel in panels:
            lab.set(panel=panel)
        lab.set(head="all") if page == "" else lab.set(d_model=256, heads=4, d_ff=1024)
        assert lab.page.evaluate("window.__violations") == []
    assert not [e for e in errors if "Política" in e or "Content Security" in e]
