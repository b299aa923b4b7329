"""Panel 8: the page's figures are lab_core's, and its words follow them."""
import json
import re

import numpy as np

from lab_core import train as t
from lab_core.attention_lab.learning import trajectories
from lab_core.didactic_train import DEFAULT_LR, DEFAULT_SEED
from lab_core.views import answer


def view_of(partial):
    reply = answer(json.dumps({"lab": "attention", "from": "set", "current": None, "state": partial}))
    assert reply["ok"], reply
    return reply["view"]["learning"]


def test_the_table_shows_the_trajectory_at_the_step():
    runs = t.train_both(DEFAULT_LR, DEFAULT_SEED)
    for step in (0, 50, 120, 300, 500):
        table = view_of({"train_steps": step})["table"]
        for row, kind in zip(table["rows"], ("bidirectional", "causal")):
            loss, train_acc, test_acc = (c["value"] for c in row["cells"])
            assert loss == float("%.10g" % runs[kind]["loss"][step])
            assert train_acc == float("%.10g" % runs[kind]["train_accuracy"][step])
            assert test_acc == float("%.10g" % runs[kind]["test_accuracy"][step])


def test_bidirectional_learns_and_causal_stays_at_chance_at_300_steps():
    view = view_of({"train_steps": 300})
    rows = {r["label"]: [c["text"] for c in r["cells"]] for r in view["table"]["rows"]}
    bidir = float(rows["bidireccional"][2].replace(",", ".").rstrip(" %"))
    assert bidir >= 90.0
    assert rows["causal"][1:] == ["50,0 %", "50,0 %"]
    assert "la causal el 50,0 %" in view["verdict"]
    assert "Solo con acceso bidireccional la salida de banco incluye la palabra que decide" in view["verdict"]
    assert view["predict"]["answers"] == ["bidireccional"]


def test_the_words_about_the_learned_vectors_follow_them():
    early = view_of({"train_steps": 0})["vectors"]["text"]
    late = view_of({"train_steps": 300})["vectors"]["text"]
    assert "Aún reparte su atención casi por igual" in early and "Ya mira más a la palabra que decide" in late
    assert "(1; 0)" in late and "(2; 0)" in late and "1,41" in late


def test_a_diverging_rate_stops_the_run_and_says_so():
    view = view_of({"train_lr": 10, "train_steps": 500})
    runs = trajectories(10.0, DEFAULT_SEED)
    assert len(view["stopped"]) == 2
    assert "se detuvo en el paso %d" % runs["causal"]["stopped_at"] in view["stopped"][1]
    text = json.dumps(view, ensure_ascii=False)
    assert "NaN" not in text and "Infinity" not in text and "inf" not in text


def test_bad_rates_and_seeds_are_refused_in_spanish():
    for partial, words in (({"train_lr": 0}, "Tasa de aprendizaje: 0 está fuera del rango 0,001 a 10"),
                           ({"train_lr": -1}, "fuera del rango"),
                           ({"train_lr": "rápido"}, "«rápido» no es un número. "),
                           ({"train_seed": -3}, "Semilla: −3 está fuera del rango"),
                           ({"train_steps": 501}, "Paso de entrenamiento: 501 está fuera del rango 0 a 500")):
        reply = answer(json.dumps({"lab": "attention", "from": "set", "current": None, "state": partial}))
        assert not reply["ok"] and words in reply["error"], reply


def test_the_trajectory_is_computed_once_per_rate_and_seed():
    trajectories.cache_clear()
    view_of({"train_steps": 10})
    view_of({"train_steps": 20, "panel": "aprende"})
    assert trajectories.cache_info().misses == 1 and trajectories.cache_info().hits >= 1


def test_the_weights_tables_show_banco_looking_at_the_deciding_word():
    view = view_of({"train_steps": 300})
    park = view["weights"][0]
    assert park["caption"] == "Pesos de «banco» en «El banco del parque» · paso 300"
    bidir = [c["value"] for c in park["rows"][0]["cells"]]
    assert int(np.argmax(bidir)) == 3  # parque
    causal = park["rows"][1]["cells"]
    assert [c["text"] for c in causal[2:]] == ["0", "0"]  # the future is closed
    assert re.search(r"banco → parque \(0,\d+\)", view["views"][0]["alt"])
