"""The capstone: a whole small transformer, trained in the reader's browser.

Two pre-norm blocks of two heads (lab_core/decoder.py), trained twice from
the same weights on a Spanish grammar (lab_core/grammar.py), once with the
causal mask and once with bidirectional access (lab_core/decoder_run.py),
to show what the articles warn: a model that reads the future while it
trains has nothing to read when it generates. `PANELS` names each panel
once; `LAB.build_view(state)` returns the view (keys in lab_core/views.py).

The `steps` key is where training has got to: the page's «Entrenar» raises
it a stride at a time, and decoder_run.runs_at trains forward from where
the runs are (or goes back from a snapshot), so a step is computed once.
"""
from __future__ import annotations

from .. import decoder_run as R
from .. import display as d
from .. import grammar as G
from ..lab import Lab, Panel, number_fields
from ..memo import reads
from ..state import Key, Spec, choice_key, flag, float_range, int_range, number_control
from ..state import state_line as line_of
from . import aviso, cabezas, entrena, genera, modelo
from .context import MASK_LABELS, POSITION_LABELS, figures_of, fmt_loss, percent, read_words
from .genera import GEN_MODES

PANELS = (
    Panel("modelo", "1 · El modelo y sus frases", modelo),
    Panel("entrena", "2 · Entrénalo", entrena),
    Panel("cabezas", "3 · Qué mira cada cabeza", cabezas),
    Panel("genera", "4 · Que escriba", genera),
    Panel("aviso", "5 · Por qué un generador debe ser causal", aviso),
)
TITLES = {panel.id: panel.title for panel in PANELS}

LABELS = {
    "steps": "Pasos de entrenamiento", "lr": "Tasa de aprendizaje", "seed": "Semilla",
    "positions": "Posiciones", "sentence": "Frase", "mask": "Máscara", "prompt": "Comienzo",
    "gen_mode": "Cómo elige", "gen_temp": "Temperatura", "gen_seed": "Semilla del sorteo",
    "panel": "Panel", "respuestas": "Respuestas a la vista",
}
LR_RANGE = (0.0001, R.MAX_LR)
TEMP_RANGE = (R.MIN_TEMPERATURE, R.MAX_TEMPERATURE)
# A copy sentence the model never trains on, and a beginning whose next word
# must be the name said after «con».
DEFAULT_SENTENCE = "pablo se sienta con juan en el banco del parque y juan lee ."
DEFAULT_PROMPT = "luis se sienta con pablo en el banco del jardín y"


def _text(name, prompt=False):
    return Key(LABELS[name], lambda value, state: read_words(value, LABELS[name], prompt),
               kept=lambda state: "«%s»" % state[name])


SPEC = Spec(
    keys={
        "lr": float_range(LABELS["lr"], *LR_RANGE),
        "seed": int_range(LABELS["seed"], 0, R.MAX_SEED),
        "positions": choice_key(LABELS["positions"], POSITION_LABELS),
        "steps": int_range(LABELS["steps"], 0, R.MAX_STEPS),
        "sentence": _text("sentence"),
        "mask": choice_key(LABELS["mask"], MASK_LABELS),
        "prompt": _text("prompt", prompt=True),
        "gen_mode": choice_key(LABELS["gen_mode"], GEN_MODES),
        "gen_temp": float_range(LABELS["gen_temp"], *TEMP_RANGE),
        "gen_seed": int_range(LABELS["gen_seed"], 0, R.MAX_SEED),
        "panel": choice_key(LABELS["panel"], TITLES),
        "respuestas": flag(LABELS["respuestas"]),
    },
    defaults={
        "lr": R.DEFAULT_LR, "seed": R.DEFAULT_SEED, "positions": "rope", "steps": 0,
        "sentence": DEFAULT_SENTENCE, "mask": "causal", "prompt": DEFAULT_PROMPT,
        "gen_mode": "greedy", "gen_temp": 1.0, "gen_seed": 0,
        "panel": "modelo", "respuestas": False,
    },
)

NUMBERS = {
    "steps": (0, R.MAX_STEPS, 1),
    "lr": (LR_RANGE[0], LR_RANGE[1], 0.001),
    "seed": (0, R.MAX_SEED, 1),
    "gen_temp": (TEMP_RANGE[0], TEMP_RANGE[1], 0.1),
    "gen_seed": (0, R.MAX_SEED, 1),
}
fields = number_fields(NUMBERS)


def _choices(name, labels):
    return {"label": LABELS[name],
            "options": [{"value": k, "label": v} for k, v in labels.items()]}


# Greedy decoding draws nothing: its temperature and seed are turned off.
DRAW_KEYS = ("gen_temp", "gen_seed")


@reads("gen_mode")
def controls(state):
    greedy = state["gen_mode"] == "greedy"
    return {
        **{name: dict(number_control(LABELS[name], *bounds),
                      **({"off": greedy} if name in DRAW_KEYS else {}))
           for name, bounds in NUMBERS.items()},
        "positions": _choices("positions", POSITION_LABELS),
        "mask": _choices("mask", MASK_LABELS),
        "gen_mode": _choices("gen_mode", GEN_MODES),
        "panel": _choices("panel", TITLES),
    }


LINE_KEYS = ("steps", "lr", "seed", "positions", "mask", "gen_mode", "gen_temp", "gen_seed")


@reads("sentence", "prompt", *LINE_KEYS)
def state_line(state):
    return " · ".join(["Frase: %s" % state["sentence"], "Comienzo: %s" % state["prompt"],
                       line_of(SPEC, state, LINE_KEYS)])


# «respuestas» is read so a teacher's link (respuestas=1) is a state of this
# page too; the page has no question for it to open, so nothing is said.
@reads("lr", "seed", "positions", "steps", "sentence", "prompt", "respuestas")
def announce(state):
    fig = figures_of(state)
    trained = ("Paso %s: pérdida de entrenamiento %s con la causal y %s con la bidireccional; "
               "comienzos bien continuados: %s y %s." % (
                   d.fmt_int(state["steps"]), fmt_loss(fig["causal"]["train_loss"]),
                   fmt_loss(fig["bidirectional"]["train_loss"]),
                   percent(fig["causal"]["correct"]), percent(fig["bidirectional"]["correct"])))
    said = {k: trained for k in ("steps", "lr", "seed", "positions")}
    # The sentence ends with its own «.»; a beginning has none to add.
    said["sentence"] = "Frase: %s" % state["sentence"]
    said["prompt"] = "Comienzo: %s" % state["prompt"]
    return said


@reads()
def sentence_choices(state):
    """Sentences to pick from for the heads: one of each kind, held out."""
    seen, out = set(), []
    for s in G.HELD_OUT:
        if s.kind not in seen:
            seen.add(s.kind)
            out.append(" ".join(s.words))
    return {"sentences": out, "prompts": [" ".join(p) for p in R.held_out_prompts()[:6]],
            "vocabulary": "%s palabras" % d.fmt_int(len(G.VOCABULARY))}


COMMON = (
    ("controls", controls),
    ("fields", fields),
    ("state_line", state_line),
    ("announce", announce),
    ("choices", sentence_choices),
)
SELECTORS = ("panel",)
LAB = Lab("model", SPEC, PANELS, COMMON, SELECTORS)
