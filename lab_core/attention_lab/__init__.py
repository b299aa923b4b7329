"""The laboratorio of "Cómo funciona un Transformer": state and view.

`SPEC` lists the state keys; `build_view(state)` returns the view dict. Each
panel has its own module and builder, cached on the state keys it reads
(`memo.reads`); `build_view` calls them all. The keys of the view are
documented in `lab_core/views.py`.
"""
from __future__ import annotations

import math

from .. import scaling
from ..didactic import DEFAULT_STATE, HEADS, ROPE_DEFAULTS, SENTENCES
from ..memo import reads
from ..state import Key, Spec, choice_key, float_range, int_range, parse_int, vector
from .cache import cache_panel
from .context import ALL_HEADS, MASK_LABELS, head_label, options, position_label, tokens_of
from .heads_panel import heads_panel
from .mask import mask_panel
from .mixture import mixture_panel
from .rope_panel import rope_panel
from .scores import arithmetic_panel, scaling_panel, score_tables
from .training import training_panel

PANELS = {
    "puntuacion": "1 · De dónde sale una puntuación",
    "mezcla": "2 · La mezcla y el vocabulario",
    "cabezas": "3 · Las cabezas, una a una y juntas",
    "mascara": "4 · La máscara, antes de softmax",
    "rope": "5 · RoPE con una sola frecuencia",
    "entrenamiento": "6 · Entrenar todas las posiciones a la vez",
    "cache": "7 · Generar paso a paso con caché KV",
}
THETA_MAX = round(math.pi, 2)  # one frequency in [0, π]: beyond π it aliases
POSITION_MAX = 32
VECTOR_LIMIT = 5.0
SENTENCE_LABELS = {k: s["label"] for k, s in SENTENCES.items()}
HEAD_LABELS = dict([(k, h["label"]) for k, h in HEADS.items()]
                   + [(ALL_HEADS, "todas (concatenar y W_O)")])

LABELS = {
    "sentence": "Frase", "query": "Consulta", "mask": "Máscara", "head": "Cabeza",
    "key": "Clave", "dk": "Anchura dₖ", "theta": "Frecuencia θ",
    "rope_m": "Posición m de la consulta", "rope_n": "Posición n de la clave",
    "rope_q": "Vector q", "rope_k": "Vector k", "step": "Paso", "panel": "Panel",
}


def _position(name):
    label = LABELS[name]
    return Key(label, lambda value, state: parse_int(label, value, 0, len(tokens_of(state)) - 1))


def _width(value, state):
    number = parse_int(LABELS["dk"], value, 1, max(scaling.WIDTHS))
    if number not in scaling.WIDTHS:
        raise ValueError("%s: %d no está entre las anchuras medidas (%s)"
                         % (LABELS["dk"], number, ", ".join(map(str, scaling.WIDTHS))))
    return number


SPEC = Spec(
    # Parse order: sentence first, since positions and steps depend on it.
    keys={
        "sentence": choice_key(LABELS["sentence"], SENTENCE_LABELS),
        "query": _position("query"),
        "mask": choice_key(LABELS["mask"], MASK_LABELS),
        "head": choice_key(LABELS["head"], HEAD_LABELS),
        "key": _position("key"),
        "dk": Key(LABELS["dk"], _width),
        "theta": float_range(LABELS["theta"], 0.0, THETA_MAX),
        "rope_m": int_range(LABELS["rope_m"], 0, POSITION_MAX),
        "rope_n": int_range(LABELS["rope_n"], 0, POSITION_MAX),
        "rope_q": vector(LABELS["rope_q"], 2, -VECTOR_LIMIT, VECTOR_LIMIT),
        "rope_k": vector(LABELS["rope_k"], 2, -VECTOR_LIMIT, VECTOR_LIMIT),
        "step": Key(LABELS["step"], lambda value, state: parse_int(
            LABELS["step"], value, 1, len(tokens_of(state)))),
        "panel": choice_key(LABELS["panel"], PANELS),
    },
    defaults={
        **DEFAULT_STATE,  # sentence, query, mask, head: the article's exercise
        "key": 3,
        "dk": 128,
        "theta": ROPE_DEFAULTS["theta"],
        "rope_m": ROPE_DEFAULTS["rope_m"],
        "rope_n": ROPE_DEFAULTS["rope_n"],
        "rope_q": list(ROPE_DEFAULTS["q"]),
        "rope_k": list(ROPE_DEFAULTS["k"]),
        "step": 2,
        "panel": "puntuacion",
    },
)


@reads("sentence")
def controls(state):
    tokens = tokens_of(state)
    positions = options((i, position_label(i, w)) for i, w in enumerate(tokens))

    def choices(name, labels):
        return {"label": LABELS[name], "options": options(labels.items())}

    def number(name, low, high, step=1):
        return {"label": LABELS[name], "min": low, "max": high, "step": step}

    return {
        "sentence": choices("sentence", SENTENCE_LABELS),
        "query": {"label": LABELS["query"], "options": positions},
        "key": {"label": LABELS["key"], "options": positions},
        "mask": choices("mask", MASK_LABELS),
        "head": choices("head", HEAD_LABELS),
        "dk": {"label": LABELS["dk"],
               "options": options((w, "dₖ = %d" % w) for w in scaling.WIDTHS)},
        "step": {"label": LABELS["step"],
                 "options": options((t, "%d · llega «%s»" % (t, tokens[t - 1]))
                                    for t in range(1, len(tokens) + 1))},
        "panel": choices("panel", PANELS),
        "theta": number("theta", 0, THETA_MAX, 0.01),
        "rope_m": number("rope_m", 0, POSITION_MAX),
        "rope_n": number("rope_n", 0, POSITION_MAX),
        "rope_q": number("rope_q", -VECTOR_LIMIT, VECTOR_LIMIT, 0.5),
        "rope_k": number("rope_k", -VECTOR_LIMIT, VECTOR_LIMIT, 0.5),
    }


@reads("sentence")
def sentence_view(state):
    sentence = SENTENCES[state["sentence"]]
    return {"id": state["sentence"], "label": sentence["label"],
            "tokens": list(sentence["tokens"])}


@reads("head")
def head_view(state):
    return {"id": state["head"], "label": head_label(state["head"]),
            "summary": ("cada cabeza calcula su propia mezcla; luego se concatenan y W_O "
                        "las vuelve a mezclar." if state["head"] == ALL_HEADS
                        else HEADS[state["head"]]["summary"])}


@reads("sentence", "query", "key", "mask", "head")
def state_line(state):
    """The state as printed under the title: «Frase: … · Consulta: banco · …»."""
    tokens = tokens_of(state)
    return " · ".join([
        "Frase: %s" % SENTENCES[state["sentence"]]["label"],
        "Consulta: %s" % tokens[state["query"]],
        "Clave: %s" % tokens[state["key"]],
        "Máscara: %s" % MASK_LABELS[state["mask"]],
        "Cabeza: %s" % head_label(state["head"]),
    ])


@reads(*[k for k in LABELS if k != "panel"])
def announce(state):
    """What a screen reader hears after a change, by the state key changed.

    (A change of panel is announced by the page with the panel's title.)
    """
    arithmetic = arithmetic_panel(state)
    block = arithmetic["blocks"][0]
    weight = ("Peso de %s → %s: %s; puntuación %s (%s, máscara %s)."
              % (arithmetic["query"], arithmetic["key"], block["weight"], block["score"],
                 block["head"], MASK_LABELS[state["mask"]]))
    rope = rope_panel(state)
    rope_text = "qₘ · kₙ = %s, con n − m = %s." % (rope["score"], rope["offset"])
    cache = cache_panel(state)
    said = {key: weight for key in ("sentence", "query", "key", "mask", "head")}
    said.update({key: rope_text for key in ("theta", "rope_m", "rope_n", "rope_q", "rope_k")})
    said["step"] = "Paso %d: llega «%s»." % (cache["step"], cache["new_token"])
    row = [r for r in scaling_panel(state)["table"]["rows"] if r["selected"]][0]
    said["dk"] = ("%s: q·k se desvía %s sin dividir y %s dividiendo entre √dₖ."
                  % (row["label"], row["cells"][0]["text"], row["cells"][2]["text"]))
    return said


# The view, key by key: each part is built by a builder that declares the
# state keys it reads (memo.reads). The build uses the same table to prepare
# views ahead of time (lab_core/prepared.py).
PARTS = (
    ("controls", controls),
    ("tables", score_tables),
    ("arithmetic", arithmetic_panel),
    ("scaling", scaling_panel),
    ("mixture", mixture_panel),
    ("heads", heads_panel),
    ("mask", mask_panel),
    ("rope", rope_panel),
    ("training", training_panel),
    ("cache", cache_panel),
    ("sentence", sentence_view),
    ("head", head_view),
    ("state_line", state_line),
    ("announce", announce),
)
# Keys a reader sets with the page's selects and steppers: any state that
# only changes these is prepared at build time (prepared.py).
SELECTORS = ("sentence", "mask", "head", "query", "key", "step", "panel")


def build_view(state):
    """Every panel of the attention lab for one valid state."""
    view = {"lab": "attention", "state": dict(state), "notices": []}
    for name, build in PARTS:
        view[name] = build(state)
    return view
