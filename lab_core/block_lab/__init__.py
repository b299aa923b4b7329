"""The lab of "Posición, Residuales y el Bloque Feed-Forward": state and view.

`PANELS` names each panel once (id, title, module: one module per panel,
named after its id); `SPEC` lists the state keys; `LAB.build_view(state)`
returns the view dict (lab_core/lab.py, keys documented in
lab_core/views.py). Sizes that get real arrays are bounded; parameter counts
use the closed form, so any size up to 8192 is instant.
"""
from __future__ import annotations

import math

from .. import block as b
from .. import display as d
from ..didactic_block import ORDER_SENTENCE, SWAPPED_ORDER
from ..lab import Lab, Panel, number_fields
from ..memo import reads
from ..state import (
    Key, Spec, choice_key, flag, float_range, int_range, number_control, parse_int, permutation, vector,
)
from ..state import state_line as line_of
from ..words import plural
from . import bloque, ffn, layernorm, orden, posicion, quiz, residual
from .sizes import DEPTH_MAX, LN_LIMIT, PE_D_MAX, PE_POSITIONS_MAX, SIZE_MAX

# Every panel, once: its id (the page's anchor), its title, its module.
PANELS = (
    Panel("orden", "1 · La atención no sabe en qué orden van las palabras", orden),
    Panel("posicion", "2 · Codificación posicional sinusoidal", posicion),
    Panel("residual", "3 · Conexiones residuales", residual),
    Panel("layernorm", "4 · LayerNorm, pre-norm y post-norm", layernorm),
    Panel("ffn", "5 · La red feed-forward", ffn),
    Panel("bloque", "6 · El bloque completo (pre-norm)", bloque),
    Panel("quiz", "7 · Quiz", quiz),
)
TITLES = {panel.id: panel.title for panel in PANELS}

LABELS = {
    "respuestas": "Respuestas a la vista",
    "order": "Orden", "pe_positions": "Posiciones", "pe_d": "d_model de la codificación",
    "shift_k": "Desplazamiento k", "depth": "Profundidad", "ln_x": "Vector x",
    "gamma": "Escala γ", "beta": "Desplazamiento β", "d_model": "d_model",
    "heads": "Cabezas", "d_ff": "d_ff", "panel": "Panel",
}


def _size(name):
    return int_range(LABELS[name], 1, SIZE_MAX)


def _heads(value, state):
    heads = parse_int(LABELS["heads"], value, 1, SIZE_MAX)
    if state["d_model"] % heads:
        raise ValueError("d_model = %s no es divisible entre %s: cada cabeza "
                         "necesita d_model/cabezas dimensiones enteras"
                         % (d.fmt_int(state["d_model"]), plural(heads, "cabeza")))
    return heads


def _even_width(value, state):
    width = parse_int(LABELS["pe_d"], value, 2, PE_D_MAX)
    if width % 2:
        raise ValueError("%s: %d debe ser par, porque seno y coseno van en parejas"
                         % (LABELS["pe_d"], width))
    return width


SPEC = Spec(
    keys={
        "order": permutation(LABELS["order"], len(ORDER_SENTENCE)),
        "pe_positions": int_range(LABELS["pe_positions"], 1, PE_POSITIONS_MAX),
        "pe_d": Key(LABELS["pe_d"], _even_width),
        "shift_k": int_range(LABELS["shift_k"], 0, 64),
        "depth": int_range(LABELS["depth"], 1, DEPTH_MAX),
        "ln_x": vector(LABELS["ln_x"], 4, -LN_LIMIT, LN_LIMIT),
        "gamma": float_range(LABELS["gamma"], -LN_LIMIT, LN_LIMIT),
        "beta": float_range(LABELS["beta"], -LN_LIMIT, LN_LIMIT),
        "d_model": _size("d_model"),
        "heads": Key(LABELS["heads"], _heads),
        "d_ff": _size("d_ff"),
        "panel": choice_key(LABELS["panel"], TITLES),
        "respuestas": flag(LABELS["respuestas"]),
    },
    defaults={
        "order": list(SWAPPED_ORDER),
        "pe_positions": 50,
        "pe_d": 16,
        "shift_k": 3,
        "depth": 12,
        "ln_x": [2.0, 4.0, 6.0, 8.0],
        "gamma": 1.0,
        "beta": 0.0,
        "d_model": 512,
        "heads": 8,
        "d_ff": 2048,
        "panel": "orden",        "respuestas": False,  # a teacher's link shows every answer
    },
)


def _next_sizes(d_model, heads):
    # -> {"d_model": (down, up), "heads": (down, up)}: None where none is left
    """The sizes ↑ and ↓ go to in the fields: the nearest that keep d_model
    divisible by the heads (a step of 1 would land on 513, refused, and the
    next ↑ would start from 512 again). d_model moves by the heads; the
    heads move to the next divisor of d_model."""
    divisors = sorted({n for k in range(1, math.isqrt(d_model) + 1) if d_model % k == 0
                       for n in (k, d_model // k) if n <= SIZE_MAX})
    below = [n for n in divisors if n < heads]
    above = [n for n in divisors if n > heads]
    return {
        "d_model": (d_model - heads if d_model - heads >= heads else None,
                    d_model + heads if d_model + heads <= SIZE_MAX else None),
        "heads": (below[-1] if below else None, above[0] if above else None),
    }


# Every number field: (low, high, step). ↑ and ↓ send the values Python
# gives for them (the part "fields").
NUMBERS = {
    "pe_positions": (1, PE_POSITIONS_MAX, 1),
    "pe_d": (2, PE_D_MAX, 2),
    "shift_k": (0, 64, 1),
    "depth": (1, DEPTH_MAX, 1),
    "ln_x": (-LN_LIMIT, LN_LIMIT, 0.5),
    "gamma": (-LN_LIMIT, LN_LIMIT, 0.1),
    "beta": (-LN_LIMIT, LN_LIMIT, 0.1),
    "d_model": (1, SIZE_MAX, 1),
    "heads": (1, SIZE_MAX, 1),
    "d_ff": (1, SIZE_MAX, 1),
}
_numbers = number_fields(NUMBERS)


@reads(*NUMBERS)
def fields(state):
    """The number fields' texts and steps; d_model and the heads step to the
    nearest sizes that keep d_model divisible by the heads."""
    out = dict(_numbers(state))
    for name, (down, up) in _next_sizes(state["d_model"], state["heads"]).items():
        out[name] = dict(out[name], down=down, up=up)
    return out


@reads()
def controls(state):
    return {
        **{name: number_control(LABELS[name], *bounds) for name, bounds in NUMBERS.items()},
        "panel": {"label": LABELS["panel"],
                  "options": [{"value": k, "label": v} for k, v in TITLES.items()]},
    }


LINE_KEYS = ("pe_positions", "pe_d", "shift_k", "depth", "ln_x", "gamma", "beta",
             "d_model", "heads", "d_ff")


@reads("order", *LINE_KEYS)
def state_line(state):
    """The state as printed under the title: every value a panel reads."""
    words = [ORDER_SENTENCE[i] for i in state["order"]]
    return " · ".join(["Orden: %s" % " ".join(words), line_of(SPEC, state, LINE_KEYS)])


@reads(*[k for k in LABELS if k != "panel"])
def announce(state):
    """What a screen reader hears after a change, by the state key changed."""
    order, position = orden.order_panel(state), posicion.position_panel(state)
    residual_view, layernorm_view = residual.residual_panel(state), layernorm.layernorm_panel(state)
    block = bloque.block_panel(state)
    said = {"order": "%s Peso de perro → hombre: %s en la frase original, %s en «%s»."
                     % (order["summary"], order["pair"]["a"], order["pair"]["b"],
                        order["permuted"]),
            "depth": "Tras %s, gradiente %s sin residual y %s con residual."
                     % (residual_view["layers"], residual_view["plain"],
                        residual_view["residual"])}
    said.update({k: position["waves"] for k in ("pe_positions", "pe_d", "shift_k")})
    said.update({k: "LayerNorm: salida %s." % layernorm_view["out"] for k in ("ln_x", "gamma", "beta")})
    counts = b.block_parameter_counts(state["d_model"], state["d_ff"])
    said.update({k: "Parámetros del bloque: %s en total; la FFN se lleva el %s."
                    % (d.fmt_int(counts["total"]), block["ffn_share"])
                 for k in ("d_model", "heads", "d_ff")})
    return said


# The parts no panel owns (lab.Lab); SELECTORS: keys whose states are
# prepared at build time.
COMMON = (
    ("controls", controls),
    ("fields", fields),
    ("state_line", state_line),
    ("announce", announce),
)
SELECTORS = ("panel",)
LAB = Lab("block", SPEC, PANELS, COMMON, SELECTORS)
