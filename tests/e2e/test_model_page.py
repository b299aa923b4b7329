"""The capstone (modelo.html) in a real Chromium: the model trained in the
page's worker, both masks side by side, heads, generation with the KV cache,
and the verdict, each against lab_core's own view of the same state."""
import pytest

from lab_core import model_lab

from conftest import rows_text, text

PAGE = "modelo.html"


def expected(**changes):
    return model_lab.LAB.build_view(dict(model_lab.SPEC.default_state(), **changes))


def open_model(lab, query=""):
    return lab.open(lab.base_url + PAGE, query)


def test_the_model_and_its_parameter_table(lab):
    open_model(lab)
    assert text(lab.page.locator("#status")).startswith("Listo")
    view = expected()
    assert lab.table("Los parámetros del modelo") == rows_text(view["model"]["params"])
    assert lab.table("Los parámetros del modelo")["Total"][0] == "6.068"
    assert text(lab.page.locator("#model-size")) == view["model"]["size"]
    # No question on this page, so no link «con respuestas» to offer.
    assert lab.page.locator(".predict").count() == 0
    assert lab.page.get_by_role("button", name="Enlace con respuestas").count() == 0
    assert lab.page.get_by_role("button", name="Copiar enlace").is_visible()
    assert not lab.errors


def test_training_runs_in_the_page_and_reaches_the_views_numbers(lab):
    """«Entrenar» steps both runs in the worker; paused, the page shows what
    lab_core computes for that step in CPython (the same code, the same
    seed: the same numbers)."""
    open_model(lab)
    page = lab.page
    train = page.locator("#entrena button[data-action='play']")
    train.click()
    assert text(train) == "Pausa"
    # Training goes on until paused: wait for the page to announce step 100 or more.
    page.wait_for_function("() => window.lab.state.steps >= 100")
    train.click()
    assert text(train) == "Entrenar"
    steps = lab.settle()["steps"]
    assert steps >= 100 and steps % 50 == 0
    view = expected(steps=steps)
    assert lab.table(view["training"]["table"]["caption"]) == rows_text(view["training"]["table"])
    assert text(page.locator("#lesson-verdict")) == view["lesson"]["verdict"]
    # «Paso» is one more step; «Reiniciar» goes back to the initial weights.
    page.locator("#entrena button[data-action='play-next']").click()
    assert lab.settle()["steps"] == steps + 1
    page.locator("#entrena button[data-action='play-reset']").click()
    assert lab.settle()["steps"] == 0
    assert not lab.errors


def test_a_typed_sentence_and_a_typed_beginning(lab):
    open_model(lab, "?steps=300")
    page = lab.page
    page.get_by_label("Escribe una frase").fill("Ana va al banco con Luis y luis pide un crédito.")
    page.get_by_label("Escribe una frase").press("Enter")
    state = lab.settle()
    assert state["sentence"] == "ana va al banco con luis y luis pide un crédito ."
    view = expected(steps=300, sentence=state["sentence"])
    assert text(page.locator("#heads-where")) == view["heads"]["where"]
    caption = view["heads"]["blocks"][0]["tables"][1]["caption"]
    assert lab.table(caption) == rows_text(view["heads"]["blocks"][0]["tables"][1])
    # An unknown word: a Spanish message beside the field, the state unchanged.
    page.get_by_label("Escribe una frase").fill("el banco de la esquina")
    page.get_by_label("Escribe una frase").press("Enter")
    lab.settle()
    assert "«esquina»" in text(page.locator("#err-sentence"))
    assert lab.state()["sentence"] == state["sentence"]
    # A beginning: both models write; the causal one says what its cache saved.
    page.get_by_label("Comienzo").fill("el banco de crédito")
    page.get_by_label("Comienzo").press("Enter")
    state = lab.settle()
    view = expected(steps=300, sentence=state["sentence"], prompt="el banco de crédito")
    shown = page.locator("#genera .gen-run")
    for i, run in enumerate(view["generation"]["runs"]):
        assert text(shown.nth(i).locator(".gen-text")) == run["text"]
        assert lab.table(run["table"]["caption"]) == rows_text(run["table"])
    # Greedy draws nothing: its temperature and seed are off until sampling.
    temperature, draw_seed = page.get_by_label("Temperatura"), page.get_by_label("Semilla del sorteo")
    assert temperature.is_disabled() and draw_seed.is_disabled()
    lab.choose("Cómo elige", model_lab.genera.GEN_MODES["sample"])
    assert temperature.is_enabled() and draw_seed.is_enabled()
    lab.choose("Cómo elige", model_lab.genera.GEN_MODES["greedy"])
    assert temperature.is_disabled()
    lab.forget_errors()


@pytest.mark.parametrize("query, key", [("?lr=0", "lr"), ("?steps=99999", "steps"),
                                        ("?gen_temp=0.001", "gen_temp")])
def test_bad_values_in_the_link_are_refused_in_spanish(lab, query, key):
    open_model(lab, query)
    notices = lab.notices()
    assert notices and all("Se ignoró" in n for n in notices)
    assert lab.state()[key] == model_lab.SPEC.defaults[key]
