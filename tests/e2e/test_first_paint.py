"""The first paint (the build-time view) never lies, and early clicks are kept."""
import json

import pytest

from conftest import STATIC


@pytest.mark.parametrize("page_name, lab_name", [("", "attention"), ("bloque.html", "block")])
def test_first_paint_equals_the_live_view(lab, page_name, lab_name):
    lab.open(lab.base_url + page_name)
    live = json.loads(lab.page.evaluate("window.py_view_data"))
    built = json.loads((STATIC / "views" / (lab_name + ".json")).read_text(encoding="utf-8"))
    assert live == built
    assert lab.page.evaluate("performance.getEntriesByName('lab:first-paint').length") == 1


def test_tables_are_painted_before_python_and_early_controls_are_queued(lab):
    held = []
    lab.page.route("**/pyodide.asm.wasm", lambda route: held.append(route))
    lab.page.goto(lab.base_url)
    # Python cannot be live (its wasm is held back), yet the tables are there.
    lab.page.wait_for_selector("body[data-live='false']")
    assert "Calculando en vivo" in lab.page.locator("#status").inner_text()
    assert lab.cell("Puntuaciones", "banco", "parque") == "−∞"
    assert lab.page.evaluate("window.lab.runtime") is None
    # A control pressed now is queued, not lost.
    lab.page.get_by_label("Máscara", exact=True).select_option(label="bidireccional")
    while not held:
        lab.page.wait_for_timeout(50)
    for route in held:
        route.continue_()
    lab.page.evaluate("window.lab.ready")
    lab.page.wait_for_function("() => window.lab.state.mask === 'bidirectional'")
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    assert lab.page.get_attribute("body", "data-live") == "true"


def test_a_url_with_state_waits_for_python_instead_of_painting_the_default(lab):
    lab.page.add_init_script("""
        window.__phases = [];
        new MutationObserver(() => window.__phases.push(document.body.dataset.live))
            .observe(document, {subtree: true, attributes: true, attributeFilter: ['data-live']});
    """)
    lab.open(lab.base_url, "?mask=bidirectional")
    assert lab.page.evaluate("window.__phases") == ["true"]  # never showed the default
    assert lab.page.evaluate("performance.getEntriesByName('lab:first-paint').length") == 1
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"


def test_a_second_visit_reuses_compiled_numpy_bytecode(lab):
    warnings = []
    lab.page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    lab.open(lab.base_url)
    lab.page.wait_for_function(
        "performance.getEntriesByName('lab:bytecode-saved').length > 0", timeout=30000)
    keys = lab.page.evaluate(
        "caches.open('attention-lab-bytecode').then((c) => c.keys()).then((k) => k.map((r) => r.url))")
    assert len(keys) == 1 and keys[0].endswith("/runtime/pyodide-0.17.1/bytecode.zip")
    lab.open(lab.base_url, "?mask=bidirectional")  # same context: a revisit
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    # Restored, so nothing is compiled again this time.
    lab.page.wait_for_timeout(1500)
    assert lab.page.evaluate("performance.getEntriesByName('lab:bytecode-saved').length") == 0
    assert warnings == []
