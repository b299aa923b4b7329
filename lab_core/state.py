"""The lab state: its keys, their defaults, and how input is checked.

The page owns the state (a plain object mirrored in the URL) but every value
is checked here, before any computation, so the rules live in one place:

- `update_state(current, partial)` is strict: the first bad value raises a
  ValueError whose message is shown to the user (`lab.set` rejects with it).
- `state_from_params(params)` is lenient, for URLs a person may have typed:
  each bad value falls back to its default and yields a notice.
"""
from __future__ import annotations

import re

from .attention import MASK_KINDS
from .didactic import DEFAULT_STATE, HEADS, SENTENCES

_INT_TEXT = re.compile(r"^[+-]?\d{1,9}$")


def _shown(value):
    """A short, printable rendering of a user's value for messages."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _choice(key, options):
    def parse(value, state):
        if isinstance(value, str) and value in options:
            return value
        raise ValueError(
            "%s «%s» no existe; opciones: %s"
            % (key, _shown(value), ", ".join(options))
        )

    return parse


def parse_int(key, value, low, high):
    """An integer in [low, high], given as a number or as decimal text."""
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _INT_TEXT.match(value.strip()):
        number = int(value.strip())
    else:
        number = None
    if number is None:
        raise ValueError("%s «%s» no es un número entero" % (key, _shown(value)))
    if not low <= number <= high:
        raise ValueError(
            "%s=%d está fuera del rango %d a %d" % (key, number, low, high)
        )
    return number


def _query(value, state):
    tokens = SENTENCES[state["sentence"]]["tokens"]
    return parse_int("query", value, 0, len(tokens) - 1)


# Key -> parser(value, state so far). Order matters: `query` is checked
# against the sentence chosen before it.
PARSERS = {
    "sentence": _choice("sentence", tuple(SENTENCES)),
    "query": _query,
    "mask": _choice("mask", MASK_KINDS),
    "head": _choice("head", tuple(HEADS)),
}


def default_state():
    return dict(DEFAULT_STATE)


def update_state(current, partial):
    """Strict: apply `partial` on top of `current`, or raise ValueError."""
    if not isinstance(partial, dict):
        raise ValueError("lab.set espera un objeto, por ejemplo {mask: 'causal'}")
    unknown = [key for key in partial if key not in PARSERS]
    if unknown:
        raise ValueError(
            "clave desconocida «%s»; las claves son: %s"
            % (_shown(unknown[0]), ", ".join(PARSERS))
        )
    state = default_state()
    state.update(current)
    for key, parse in PARSERS.items():
        value = partial.get(key, state[key])
        state[key] = parse(value, state)
    return state


def state_from_params(params):
    """Lenient: (state, notices). Bad or unknown values fall back to defaults."""
    state, notices = default_state(), []
    for key in params:
        if key not in PARSERS:
            notices.append("Se ignoró el parámetro desconocido «%s»." % _shown(key))
    for key, parse in PARSERS.items():
        if key not in params:
            state[key] = parse(state[key], state)
            continue
        try:
            state[key] = parse(params[key], state)
        except ValueError as error:
            state[key] = parse(DEFAULT_STATE[key], state)
            notices.append(
                "Se ignoró %s: %s. Se usa %s=%s." % (key, error, key, state[key])
            )
    return state, notices
