"""Choosing a runtime: the bundled one works offline; `current` fails clearly."""
import re

import pytest

from conftest import text

pytestmark = pytest.mark.cold  # which runtime boots is the subject


def test_current_runtime_without_numpy_ends_in_a_clear_message(lab):
    lab.page.goto(lab.base_url + "?runtime=current&mask=bidirectional")
    error = lab.page.evaluate("window.lab.ready.then(() => 'resolved', (e) => e.message)")
    assert "NumPy" in error and "«current»" in error
    status = lab.page.locator("#status")
    assert status.get_attribute("data-phase") == "error"
    fault = lab.page.locator("#fault")
    assert "no tiene NumPy" in text(fault)
    assert "Pyodide 314.0.7, Python 3.14" in fault.locator(".fault-detail").text_content()
    assert lab.page.locator("#status .spinner").is_hidden()  # no endless spinner
    # Retrying cannot conjure a wheel that no registry has: no button, a way out.
    assert fault.get_by_role("button", name="Reintentar").is_hidden()
    # The prepared view stays on screen and usable.
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    link = lab.page.get_by_role("link", name="Abrir con el entorno incluido")
    assert link.get_attribute("href") == "/?mask=bidirectional"
    with lab.page.expect_navigation():  # waits for the new page's load event
        link.click()
    lab.page.evaluate("window.lab.ready")
    assert lab.page.evaluate("window.lab.runtime.name") == "bundled"
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"


@pytest.mark.parametrize("name", ["__proto__", "constructor", "toString"])
def test_runtime_names_from_the_object_prototype_fall_back(lab, name):
    lab.open(lab.base_url, "?runtime=" + name)
    assert lab.page.evaluate("window.lab.runtime.name") == "bundled"
    assert "runtime=«%s»" % name in lab.notices()[0]


def test_unknown_runtime_falls_back_to_bundled_with_a_notice(lab):
    lab.open(lab.base_url, "?runtime=%3Cb%3Eotro%3C/b%3E")
    assert lab.page.evaluate("window.lab.runtime.name") == "bundled"
    notices = lab.notices()
    assert len(notices) == 1 and re.search(r"runtime=«<b>otro</b>»", notices[0])
    assert lab.page.locator("main b").count() == 0
    assert "runtime=" in lab.page.url  # a page key, kept as the user wrote it


def test_bundled_runtime_by_name(lab):
    lab.open(lab.base_url, "?runtime=bundled")
    assert lab.page.evaluate("window.lab.runtime") == {
        "name": "bundled", "pyodide": "0.17.1", "python": "3.8.2", "numpy": "1.17.5"}
    assert lab.notices() == []


def test_the_site_works_under_a_path_prefix(lab, prefixed_url):
    lab.open(prefixed_url, "?mask=bidirectional")
    assert lab.page.url.startswith(prefixed_url)
    assert lab.cell("Puntuaciones", "banco", "parque") == "1,41"
    assert lab.page.evaluate("location.pathname") == "/attention-lab/"
    with lab.page.expect_navigation():
        lab.page.get_by_role("link", name="Posición, residuales y bloque").click()
    lab.page.evaluate("window.lab.ready")
    assert lab.page.evaluate("location.pathname") == "/attention-lab/bloque.html"
    assert lab.table("Parámetros del bloque")["Total"][0] == "3.150.336"
