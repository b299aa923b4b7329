"""Panel 8 in the page: play, pause, step, change the rate and the seed,
share a link to a step, and the figures are lab_core's."""
import json

import pytest

from conftest import new_page, text
from lab_core.views import answer


def expected_rows(**state):
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": None, "state": state}))
    table = reply["view"]["learning"]["table"]
    return {row["label"]: [c["text"] for c in row["cells"]] for row in table["rows"]}


def reveal(lab):
    lab.page.locator("#aprende").get_by_role("button", name="Mostrar sin predecir").click()


def test_the_question_comes_before_the_results(lab):
    lab.open(lab.base_url, "?panel=aprende")
    results = lab.page.locator("#aprende .learning-results")
    assert results.evaluate("(r) => r.inert")
    lab.page.locator("#aprende .predict").get_by_role("button", name="la bidireccional").click()
    assert not results.evaluate("(r) => r.inert")
    assert "¡Bien visto!" in text(lab.page.locator("#aprende .predict-verdict"))


@pytest.mark.own_context  # Playwright's clock is the whole context's
def test_play_pause_and_step(lab):
    lab.page.clock.install()
    lab.open(lab.base_url, "?panel=aprende")
    play = lab.page.locator("#aprende").get_by_role("button", name="Reproducir")
    # Watching would answer the question: the reader answers (or looks) first.
    lab.page.locator("#aprende").get_by_role("button", name="Mostrar sin predecir").click()
    assert lab.page.locator("#aprende .learning-results").evaluate("(r) => !r.inert")
    play.click()
    for _ in range(5):
        lab.page.clock.run_for(60)
        lab.settle()
    playing = lab.state()["train_steps"]
    assert playing >= 8
    lab.page.locator("#aprende").get_by_role("button", name="Pausa").click()
    lab.settle()
    paused = lab.state()["train_steps"]
    lab.page.clock.run_for(5000)
    lab.settle()
    assert lab.state()["train_steps"] == paused  # it stopped
    lab.page.locator("#aprende").get_by_role("button", name="Paso siguiente del entrenamiento").click()
    lab.settle()
    assert lab.state()["train_steps"] == paused + 1
    assert lab.table("Resultado del entrenamiento") == expected_rows(train_steps=paused + 1)
    lab.page.locator("#aprende").get_by_role("button", name="Reiniciar").click()
    lab.settle()
    assert lab.state()["train_steps"] == 0


def test_rate_and_seed_change_the_runs(lab):
    lab.open(lab.base_url, "?panel=aprende&train_steps=300")
    reveal(lab)
    assert lab.table("Resultado del entrenamiento") == expected_rows(train_steps=300)
    lab.fill("Tasa de aprendizaje", "1")
    lab.fill("Semilla", "7")
    assert (lab.state()["train_lr"], lab.state()["train_seed"]) == (1, 7)
    assert lab.table("Resultado del entrenamiento") == expected_rows(
        train_steps=300, train_lr=1, train_seed=7)
    lab.fill("Tasa de aprendizaje", "0")
    assert "Tasa de aprendizaje: 0 está fuera del rango" in text(lab.page.locator("#err-train_lr"))
    assert lab.state()["train_lr"] == 1
    lab.fill("Tasa de aprendizaje", "10")
    assert "se detuvo en el paso" in text(lab.page.locator("#aprende .learning-results"))
    assert "NaN" not in text(lab.page.locator("#aprende"))


def test_a_link_to_step_120_reproduces_it(lab, browser):
    lab.open(lab.base_url, "?panel=aprende")
    reveal(lab)
    lab.set(train_steps=120)
    url = lab.url()
    assert "train_steps=120" in url
    other = type(lab)(new_page(browser.new_context()))
    other.page.goto(url)
    other.page.evaluate("window.lab.ready")
    other.page.locator("#aprende").get_by_role("button", name="Mostrar sin predecir").click()
    assert other.table("Resultado del entrenamiento") == expected_rows(train_steps=120)
    assert text(other.page.locator("#learning-verdict")) == \
        text(lab.page.locator("#learning-verdict"))
    other.page.context.close()
