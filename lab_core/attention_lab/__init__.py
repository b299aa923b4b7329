"""The laboratorio of "Cómo funciona un Transformer": state and view.

`PANELS` names each panel once (id, title, module: one module per panel,
named after its id); `SPEC` lists the state keys; `LAB.build_view(state)`
returns the view dict (lab_core/lab.py). The keys of the view are documented
in lab_core/views.py.
"""
from __future__ import annotations

import math

from .. import scaling
from ..didactic import DEFAULT_STATE, HEADS, ROPE_DEFAULTS, SENTENCES
from ..heads import is_position_head, vector_key, word_vectors
from ..didactic_train import DEFAULT_LR, DEFAULT_SEED, MAX_SEED, MAX_STEPS
from ..lab import Lab, Panel, number_fields
from ..memo import reads
from ..state import (
    Key, Spec, choice_key, flag, float_range, int_range, number_control, parse_float, parse_int,
    shown, vector,
)
from ..vocabulary import GROUPS, LEXICON, group_of, lemma, read_sentence
from ..words import plural
from . import aprende, cabezas, cache, entrenamiento, mascara, mezcla, propia, puntuacion, rope
from .cache import GEN_MODES
from .context import (
    ALL_HEADS, MASK_LABELS, MAX_TOKENS, SENTENCE, head_label, options, other_label,
    other_tokens, position_label, sentence_label, tokens_of,
)

# Every panel, once: its id (the page's anchor), its title, its module.
PANELS = (
    Panel("puntuacion", "1 · De dónde sale una puntuación", puntuacion),
    Panel("propia", "Tu propia frase", propia),
    Panel("mezcla", "2 · La mezcla y el vocabulario", mezcla),
    Panel("cabezas", "3 · Las cabezas, una a una y juntas", cabezas),
    Panel("mascara", "4 · La máscara, antes de softmax", mascara),
    Panel("rope", "5 · RoPE con una sola frecuencia", rope),
    Panel("entrenamiento", "6 · Entrenar todas las posiciones a la vez", entrenamiento),
    Panel("cache", "7 · Generar paso a paso con caché KV", cache),
    Panel("aprende", "8 · Entrena una cabeza", aprende),
)
TITLES = {panel.id: panel.title for panel in PANELS}
THETA_MAX = round(math.pi, 2)  # one frequency in [0, π]: beyond π it aliases
POSITION_MAX = 32
VECTOR_LIMIT = 5.0
EDIT_LIMIT = 10.0  # an edited q, k or v: coordinates from −10 to 10
ROLES = ("q", "k", "v")
SENTENCE_LABELS = {k: s["label"] for k, s in SENTENCES.items()}
HEAD_LABELS = dict([(k, h["label"]) for k, h in HEADS.items()]
                   + [(ALL_HEADS, "todas (concatenar y W_O)")])

LABELS = {
    "respuestas": "Respuestas a la vista",
    "sentence": "Frase", "tokens": "Tu frase", "other": "Frase para comparar",
    "vec": "Tus vectores", "query": "Consulta", "mask": "Máscara", "head": "Cabeza",
    "key": "Clave", "dk": "Anchura dₖ", "theta": "Frecuencia θ",
    "rope_m": "Posición m de la consulta", "rope_n": "Posición n de la clave",
    "rope_q": "Vector q", "rope_k": "Vector k", "step": "Paso", "panel": "Panel",
    "train_steps": "Paso de entrenamiento", "train_lr": "Tasa de aprendizaje",
    "train_seed": "Semilla",
    "gen_words": "Palabras nuevas", "gen_mode": "Cómo elegir", "gen_temp": "Temperatura",
    "gen_seed": "Semilla del sorteo",
}
GEN_WORDS_MAX = 8
GEN_TEMP_RANGE = (0.1, 5.0)
GEN_SEED_MAX = 9999
LR_RANGE = (0.001, 10.0)  # a rate of 0 learns nothing; above 10 nothing is gained


def _position(name):
    label = LABELS[name]
    return Key(label, lambda value, state: parse_int(label, value, 0, len(tokens_of(state)) - 1))


def _words(name):
    """A sentence of the reader's, 1 to MAX_TOKENS words, read by
    vocabulary.read_sentence: typed text («Pedí un crédito al banco»), the
    URL form 'Pedí;un;crédito;al;banco' (a semicolon is punctuation too), or
    a list of words. None or [] means the preset."""
    label = LABELS[name]

    def parse(value, state):
        if value is None or (isinstance(value, (list, tuple)) and not value):
            return []
        if isinstance(value, (list, tuple)):
            if not all(isinstance(word, str) for word in value):
                raise ValueError("%s: «%s» debe ser una lista de palabras, como "
                                 "[\"El\", \"banco\"]" % (label, shown(value)))
            value = " ".join(value)
        return read_sentence(value, label)

    named = sentence_label if name == "tokens" else other_label
    return Key(label, parse, kept=lambda state: "«%s»" % named(state))


def vector_label(name):
    """'lugar.parque.k' -> 'k de «parque» (pista de lugar)'."""
    head_id, word, role = name.split(".")
    return "%s de «%s» (%s)" % (role, word, HEADS[head_id]["label"])


def _editable(head_id, word):
    """Can the reader edit this word's vectors in this head? A word head,
    and a word of the lab's vocabulary written as its table writes it."""
    return (head_id in HEADS and not is_position_head(HEADS[head_id])
            and isinstance(word, str) and lemma(word) is not None and vector_key(word) == word)


def _vectors(value, state):
    """The reader's edits: {"head.word.role": [x, y]} or the URL text
    'lugar.parque.k:3;0,lugar.banco.q:1;1'. Only edits travel: a vector set
    back to the article's value is dropped."""
    label = LABELS["vec"]
    if value is None or value == "" or value == {}:
        return {}
    if isinstance(value, str):
        items = []
        for part in value.split(","):
            name, _, coords = part.partition(":")
            items.append((name, coords))
    elif isinstance(value, dict):
        items = list(value.items())
    else:
        raise ValueError("%s: «%s» debe ser un objeto {\"lugar.parque.k\": [3, 0]}"
                         % (label, shown(value)))
    edits = {}
    for name, coords in items:
        parts = name.split(".") if isinstance(name, str) else []
        if len(parts) == 3 and parts[0] in HEADS and is_position_head(HEADS[parts[0]]):
            raise ValueError("%s: la cabeza «%s» se construye con la posición, no con la "
                             "palabra: no tiene vectores por palabra que cambiar"
                             % (label, HEADS[parts[0]]["label"]))
        if len(parts) != 3 or not _editable(parts[0], parts[1]) or parts[2] not in ROLES:
            raise ValueError("%s: «%s» no es un vector; se escribe cabeza.palabra.q, .k o .v, "
                             "como lugar.parque.k" % (label, shown(name)))
        what = vector_label(name)
        values = coords.split(";") if isinstance(coords, str) else coords
        if not isinstance(values, (list, tuple)):
            raise ValueError("%s: «%s» no es un vector de 2 números" % (what, shown(coords)))
        if len(values) != 2:
            raise ValueError("%s: tiene %s; aquí cada vector tiene 2"
                             % (what, plural(len(values), "coordenada")))
        xy = [parse_float(what, v, -EDIT_LIMIT, EDIT_LIMIT) for v in values]
        if tuple(xy) != tuple(word_vectors(HEADS[parts[0]], parts[1])[parts[2]]):
            edits[name] = xy
    return edits


def _clamp_position(value, state):
    return min(value, len(tokens_of(state)) - 1) if isinstance(value, int) else value


def _query_on_banco(state):
    """A new sentence of the reader's puts the query on its first «banco»
    (the word the lab is about), or keeps it in range."""
    tokens = tokens_of(state)
    found = [i for i, word in enumerate(tokens) if lemma(word) == "banco"]
    return found[0] if found else _clamp_position(state["query"], state)


# The words that tell which «banco» is meant; the word head that reads each kind.
CLUE_GROUPS = {"lugar": "lugar", "dinero": "finanzas"}


def _key_on_clue(state):
    """A new sentence of the reader's puts the key on the word that tells
    which «banco» is meant, as «parque» is in the article's cell: the
    nearest the query of the place or money words, of the kind the chosen
    head reads if the sentence has one (the earlier of two as near); with
    none, the key stays in range."""
    tokens, query = tokens_of(state), state["query"]
    reader = {i: CLUE_GROUPS.get(group_of(word)) for i, word in enumerate(tokens)}
    clues = ([i for i, head in reader.items() if head == state["head"]]
             or [i for i, head in reader.items() if head])
    if not clues or not isinstance(query, int):
        return _clamp_position(state["key"], state)
    return min(clues, key=lambda i: (abs(i - query), i))


def _clamp_step(value, state):
    return min(value, len(tokens_of(state))) if isinstance(value, int) else value


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
        "tokens": _words("tokens"),
        "other": _words("other"),
        "vec": Key(LABELS["vec"], _vectors),
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
        "train_steps": int_range(LABELS["train_steps"], 0, MAX_STEPS),
        "train_lr": float_range(LABELS["train_lr"], *LR_RANGE),
        "train_seed": int_range(LABELS["train_seed"], 0, MAX_SEED),
        "gen_words": int_range(LABELS["gen_words"], 0, GEN_WORDS_MAX),
        "gen_mode": choice_key(LABELS["gen_mode"], GEN_MODES),
        "gen_temp": float_range(LABELS["gen_temp"], *GEN_TEMP_RANGE),
        "gen_seed": int_range(LABELS["gen_seed"], 0, GEN_SEED_MAX),
        "panel": choice_key(LABELS["panel"], TITLES),
        "respuestas": flag(LABELS["respuestas"]),
    },
    defaults={
        "sentence": DEFAULT_STATE["sentence"], "tokens": [], "other": [], "vec": {},
        "query": DEFAULT_STATE["query"], "mask": DEFAULT_STATE["mask"],
        "head": DEFAULT_STATE["head"],  # the article's exercise, one click away
        "key": 3,
        "dk": 128,
        "theta": ROPE_DEFAULTS["theta"],
        "rope_m": ROPE_DEFAULTS["rope_m"],
        "rope_n": ROPE_DEFAULTS["rope_n"],
        "rope_q": list(ROPE_DEFAULTS["q"]),
        "rope_k": list(ROPE_DEFAULTS["k"]),
        "step": 2,
        "train_steps": 0,
        "train_lr": DEFAULT_LR,
        "train_seed": DEFAULT_SEED,
        "gen_words": 4,
        "gen_mode": "greedy",
        "gen_temp": 1.0,
        "gen_seed": 0,
        "panel": "puntuacion",        "respuestas": False,  # a teacher's link shows every answer
    },
    # A preset sentence replaces the reader's own; positions follow a
    # sentence that got shorter.
    resets={"sentence": ("tokens",)},
    clamps={"query": _clamp_position, "key": _clamp_position, "step": _clamp_step},
    follows={"query": ("tokens", _query_on_banco), "key": ("tokens", _key_on_clue)},
)


# Every number field and slider: (low, high, step). ↑ and ↓ send the values
# Python gives for them (the part "fields"); the sliders' own bounds too.
NUMBERS = {
    "theta": (0.0, THETA_MAX, 0.01),
    "rope_m": (0, POSITION_MAX, 1),
    "rope_n": (0, POSITION_MAX, 1),
    "rope_q": (-VECTOR_LIMIT, VECTOR_LIMIT, 0.5),
    "rope_k": (-VECTOR_LIMIT, VECTOR_LIMIT, 0.5),
    "train_steps": (0, MAX_STEPS, 1),
    "train_lr": (LR_RANGE[0], LR_RANGE[1], 0.05),
    "train_seed": (0, MAX_SEED, 1),
    "gen_words": (0, GEN_WORDS_MAX, 1),
    "gen_temp": (GEN_TEMP_RANGE[0], GEN_TEMP_RANGE[1], 0.1),
    "gen_seed": (0, GEN_SEED_MAX, 1),
}


@reads("sentence", "tokens")
def controls(state):
    tokens = tokens_of(state)
    positions = options((i, position_label(i, w)) for i, w in enumerate(tokens))

    def choices(name, labels):
        return {"label": LABELS[name], "options": options(labels.items())}

    return {
        "sentence": {"label": LABELS["sentence"],
                     "options": options(list(SENTENCE_LABELS.items())
                                        + ([("propia", "Tu frase: %s" % " ".join(tokens))]
                                           if state["tokens"] else []))},
        "vocabulary": {"label": "Palabra", "options": options(
            (w, "%s · %s" % (w, GROUPS[group][0].lower())) for group in GROUPS
            for w in GROUPS[group][2])},
        "query": {"label": LABELS["query"], "options": positions},
        "key": {"label": LABELS["key"], "options": positions},
        "mask": choices("mask", MASK_LABELS),
        "head": choices("head", HEAD_LABELS),
        "dk": {"label": LABELS["dk"],
               "options": options((w, "dₖ = %d" % w) for w in scaling.WIDTHS)},
        "step": {"label": LABELS["step"],
                 "options": options((t, "%d · llega «%s»" % (t, tokens[t - 1]))
                                    for t in range(1, len(tokens) + 1))},
        "panel": choices("panel", TITLES),
        "gen_mode": choices("gen_mode", GEN_MODES),
        **{name: number_control(LABELS[name], *bounds) for name, bounds in NUMBERS.items()},
    }


@reads("sentence", "tokens", "other")
def sentence_view(state):
    return {"id": "propia" if state["tokens"] else state["sentence"],
            "label": sentence_label(state), "tokens": list(tokens_of(state)),
            "own": bool(state["tokens"]), "other": other_label(state),
            "other_tokens": list(other_tokens(state)), "other_own": bool(state["other"]),
            # The exercise's steps are the article's sentence's.
            "exercise": ("Estos pasos son los de la frase del artículo, no los de tu frase: "
                         "«Preparar el ejercicio» vuelve a «%s»." % SENTENCE_LABELS["parque"]
                         if state["tokens"] else _other_preset(state["sentence"]))}


def _other_preset(sentence):
    """The exercise's note on a preset other than the article's sentence."""
    if sentence == EXERCISE["sentence"]:
        return ""
    return ("Estos pasos son los de «%s»: en «%s» no hay «parque». «Preparar el ejercicio» "
            "vuelve a la frase del artículo." % (SENTENCE_LABELS[EXERCISE["sentence"]],
                                                SENTENCE_LABELS[sentence]))


# The article's exercise: banco's row of «El banco del parque», its cell
# banco → parque, bidirectional, with the place head (its last step, the
# causal mask, undoes the third). «Preparar el ejercicio» sends this state.
EXERCISE = {"sentence": "parque", "query": 1, "key": 3, "mask": "bidirectional", "head": "lugar"}


@reads("sentence", "tokens", "vec", "query", "mask", "head")
def exercise_steps(state):
    """For each step of the exercise's list (index.html), whether the state
    already has it: «(ya elegida)», or what is chosen instead; and "go", the
    partial state «Preparar el ejercicio» sends (the article's vectors back
    too, since its 1,41 is theirs)."""
    done, word = "(ya elegida)", tokens_of(state)[state["query"]]
    asked = SENTENCES[EXERCISE["sentence"]]["tokens"][EXERCISE["query"]]
    return {
        "query": done if lemma(word) == asked else "(ahora: «%s»)" % word,
        "mask": (done if state["mask"] == EXERCISE["mask"]
                 else "(ahora: %s)" % MASK_LABELS[state["mask"]]),
        "head": (done if state["head"] == EXERCISE["head"]
                 else "(ahora: «%s»)" % head_label(state["head"])),
        "go": dict(EXERCISE, **({"vec": {}} if state["vec"] else {})),
    }


@reads("head", "vec")
def head_summary(state):
    edited = [k for k in state["vec"] if state["head"] == ALL_HEADS or k.startswith(state["head"] + ".")]
    summary = ("cada cabeza calcula su propia mezcla; luego se concatenan y W_O las vuelve a "
               "mezclar." if state["head"] == ALL_HEADS else HEADS[state["head"]]["summary"])
    if edited:
        summary = ("con tus vectores (%s); el resumen del artículo ya no los describe."
                   % plural(len(edited), "cambio", "cambios"))
    return {"id": state["head"], "label": head_label(state["head"]), "summary": summary}


@reads(*SENTENCE, "query", "key", "mask", "head")
def state_line(state):
    """The state as printed under the title: «Frase: … · Consulta: banco · …»."""
    tokens = tokens_of(state)
    edited = len(state["vec"])
    return " · ".join([
        "Frase: %s" % sentence_label(state),
        "Consulta: %s" % tokens[state["query"]],
        "Clave: %s" % tokens[state["key"]],
        "Máscara: %s" % MASK_LABELS[state["mask"]],
        "Cabeza: %s" % head_label(state["head"]),
    ] + (["Vectores cambiados: %d" % edited] if edited else []))


@reads(*[k for k in LABELS if k != "panel" and not k.startswith(("train_", "gen_"))])
def announce(state):
    """What a screen reader hears after a change, by the state key changed.

    (A change of panel is announced by the page with the panel's title.)
    """
    arithmetic = puntuacion.arithmetic_panel(state)
    blocks = arithmetic["blocks"]
    if len(blocks) == 1:
        weight = ("Peso de «%s» → «%s»: %s; puntuación %s (%s, máscara %s)."
                  % (arithmetic["query"], arithmetic["key"], blocks[0]["weight"],
                     blocks[0]["score"], blocks[0]["head"], MASK_LABELS[state["mask"]]))
    else:  # «todas»: every head's weight, not just the first one's
        weight = ("Pesos de «%s» → «%s», cabeza a cabeza (máscara %s): %s."
                  % (arithmetic["query"], arithmetic["key"], MASK_LABELS[state["mask"]],
                     "; ".join("%s, %s (puntuación %s)" % (b["head"], b["weight"], b["score"])
                               for b in blocks)))
    rope_view = rope.rope_panel(state)
    rope_text = "qₘ · kₙ %s, con n − m = %s." % (rope_view["equals"], rope_view["offset"])
    cache_view = cache.cache_panel(state)
    said = {key: weight for key in ("sentence", "tokens", "other", "vec", "query", "key",
                                    "mask", "head")}
    said.update({key: rope_text for key in ("theta", "rope_m", "rope_n", "rope_q", "rope_k")})
    said["step"] = "Paso %d: llega «%s»." % (cache_view["step"], cache_view["new_token"])
    said["dk"] = puntuacion.scaling_panel(state)["said"]
    return said


# The parts no panel owns, then each panel's (lab.Lab): each built by a
# builder that declares the state keys it reads. SELECTORS: keys a reader sets
# with the page's selects and steppers; any state that only changes these is
# prepared at build time (prepared.py).
COMMON = (
    ("controls", controls),
    ("fields", number_fields(NUMBERS)),
    ("sentence", sentence_view),
    ("exercise", exercise_steps),
    ("head", head_summary),
    ("state_line", state_line),
    ("announce", announce),
)
SELECTORS = ("sentence", "mask", "head", "query", "key", "step", "panel")
LAB = Lab("attention", SPEC, PANELS, COMMON, SELECTORS)
