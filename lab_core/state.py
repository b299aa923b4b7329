"""Lab state: typed keys, defaults, and how input is checked.

Each lab declares its keys as a `Spec`: an ordered map key -> `Key` (the
control's visible label and a parser), plus defaults. A parser takes
(value, state so far) and returns the clean value or raises ValueError with a
message for the reader; keys are parsed in order, so a later key may depend
on an earlier one (a query position on the sentence).

Messages name the control by its label («Consulta», «Posición n de la
clave»), never by its state key (`query`, `rope_n`): the reader sees labels.
Values in messages are spelled the way JavaScript would show them (true,
null), since that is what a page or a lab.set caller sent.

- `update_state(spec, current, partial)` is strict: the first bad value
  raises (`lab.set` rejects with its message, the state stays as it was).
- `state_from_params(spec, params)` is lenient, for URLs a person may have
  typed: each bad value falls back to its default and yields a notice.
"""
from __future__ import annotations

import json
import math
import re
from urllib.parse import urlencode

from .display import fmt_short

_INT_TEXT = re.compile(r"^[+-]?\d{1,9}$")
# A whole number with its thousands grouped, by dots as the page writes them
# («1.024», «8.192», and no other reading makes them whole) or by spaces as
# the RAE and SI write them («2 048»): one mark throughout.
_GROUPED_INT_TEXT = re.compile(r"^[+-]?[1-9]\d{0,2}([. \u00a0\u202f])\d{3}(\1\d{3})?$")
_FLOAT_TEXT = re.compile(r"^[+-]?(\d{1,9}(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$")
URL_SAFE = ";:,"  # left readable in URLs: tokens=El;banco, vec=lugar.parque.k:3;0


class StateError(ValueError):
    """A bad value, with the state key it belongs to (the page shows the
    message beside that key's control)."""

    def __init__(self, message, key=None):
        super().__init__(message)
        self.key = key


class Key:
    """One state key: the label of its control, how its value is checked,
    (for choices) how a value reads: {"parque": "El banco del parque"}, and
    (optionally) how the value that stays after a refusal reads, from the
    state: `kept(state)` («El banco del parque» for an empty `tokens`)."""

    def __init__(self, label, parse, names=None, kept=None):
        self.label = label
        self.parse = parse
        self.names = names or {}
        self.kept = kept


class Spec:
    """The keys of one lab: Keys in parse order, and the default state.

    `resets`: choosing a key resets others to their default unless they are
    chosen too (a preset sentence replaces the reader's own). `clamps`: a
    key whose old value no longer fits after another changed is brought
    into range instead of refused (a query position when the sentence gets
    shorter); a value the caller sends is still checked strictly.
    `follows`: key -> (other, rule): when `other` is given, or a reset
    replaced it, and `key` is not, key = rule(state) (a typed sentence puts
    the query on its «banco», and so does a preset that replaces it).
    """

    def __init__(self, keys, defaults, resets=None, clamps=None, follows=None):
        if list(keys) != list(defaults):
            raise ValueError("keys and defaults must list the same keys in order")
        self.keys = keys
        self.parsers = {name: key.parse for name, key in keys.items()}
        self.labels = {name: key.label for name, key in keys.items()}
        self.defaults = defaults
        self.resets = resets or {}
        self.clamps = clamps or {}
        self.follows = follows or {}

    def default_state(self):
        return {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
                for k, v in self.defaults.items()}


def shown(value):
    """A short rendering of a caller's value for messages, in JSON spelling."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            text = "un valor no válido"
    return text if len(text) <= 40 else text[:39] + "…"


def number_text(x):
    """A bound or value in a message, Spanish style: −10, 0,5."""
    return fmt_short(x, 4)


def choice(label, options):
    """A parser that accepts one of `options`: a dict value -> its label."""
    def parse(value, state):
        if isinstance(value, str) and value in options:
            return value
        # The values a link or lab.set writes, each with the label the page
        # shows when they differ («bidirectional», shown «bidireccional»).
        accepted = ", ".join(key if key == name else "%s = %s" % (key, name)
                             for key, name in options.items())
        raise ValueError("%s: «%s» no es una de las opciones (%s)"
                         % (label, shown(value), accepted))

    return parse


def _missing(label, value):
    """The message for an empty field, or None."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return "%s: falta el número" % label
    return None


def parse_int(label, value, low, high):
    """An integer in [low, high], given as a number or as decimal text
    ('1024', or '1.024' or '1 024' with its thousands grouped)."""
    number = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _INT_TEXT.match(value.strip()):
        number = int(value.strip())
    elif isinstance(value, str) and _GROUPED_INT_TEXT.match(value.strip()):
        number = int(re.sub(r"[. \u00a0\u202f]", "", value.strip()))
    if number is None:
        raise ValueError(_missing(label, value) or
                         "%s: «%s» no es un número entero" % (label, shown(value)))
    if not low <= number <= high:
        raise ValueError("%s: %s está fuera del rango %s a %s"
                         % (label, number_text(number), number_text(low), number_text(high)))
    return number


def parse_float(label, value, low, high):
    """A finite number in [low, high], as a number or text ('0.5' or '0,5')."""
    number = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        grouped = _GROUPED_INT_TEXT.match(value.strip())
        if grouped and grouped.group(1) == ".":
            # «1.024»: the page writes thousands so (its integer fields read
            # it as 1024), a programmer writes decimals so: neither is assumed.
            whole = value.strip().replace(".", "")
            raise ValueError("%s: «%s» se lee de dos maneras: escribe «%s» para los decimales "
                             "o «%s» sin punto" % (label, shown(value),
                                                   value.strip().replace(".", ","), whole))
        text = value.strip().replace(",", ".").replace("\u2212", "-")  # −2,5 as the page writes it
        if _FLOAT_TEXT.match(text):
            number = float(text)
    if number is None:
        raise ValueError(_missing(label, value) or
                         "%s: «%s» no es un número" % (label, shown(value)))
    if not math.isfinite(number):  # «1e999»: written as a number, too big for one
        raise ValueError("%s: «%s» es demasiado grande" % (label, shown(value)))
    if not low <= number <= high:
        raise ValueError("%s: %s está fuera del rango %s a %s"
                         % (label, number_text(number), number_text(low), number_text(high)))
    return number


def number_control(label, low, high, step=1):
    """A number control's spec for the view: its label and bounds (↑ and ↓
    step within them)."""
    return {"label": label, "min": low, "max": high, "step": step}


def int_range(label, low, high):
    return Key(label, lambda value, state: parse_int(label, value, low, high))


def float_range(label, low, high):
    return Key(label, lambda value, state: parse_float(label, value, low, high))


def choice_key(label, options):
    return Key(label, choice(label, options), options)


def vector(label, n, low, high):
    """n finite numbers: a list, or the text 'x;y;…' (URL form)."""
    def parse(value, state):
        parts = value.split(";") if isinstance(value, str) else value
        if not isinstance(parts, (list, tuple)) or len(parts) != n:
            raise ValueError("%s: «%s» debe tener %d coordenadas, como %s"
                             % (label, shown(value), n, "; ".join(["1"] + ["0"] * (n - 1))))
        return [parse_float(label, part, low, high) for part in parts]

    return Key(label, parse)


def flag(label):
    """A yes/no key: true or false, or 1 and 0 as a link writes them."""
    def parse(value, state):
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, str)) and str(value).strip().lower() in ("1", "true"):
            return True
        if isinstance(value, (int, str)) and str(value).strip().lower() in ("0", "false"):
            return False
        raise ValueError("%s: «%s» debe ser 1 (sí) o 0 (no)" % (label, shown(value)))

    return Key(label, parse)


def permutation(label, n):
    """An order of 0..n-1: a list of ints or the text '0;4;2;3;1'."""
    def parse(value, state):
        parts = value.split(";") if isinstance(value, str) else value
        if isinstance(parts, (list, tuple)) and len(parts) == n:
            try:
                order = [parse_int(label, part, 0, n - 1) for part in parts]
            except ValueError:
                order = None
            if order is not None and sorted(order) == list(range(n)):
                return order
        raise ValueError("%s: «%s» debe ser un orden de 0 a %d sin repetir, como %s"
                         % (label, shown(value), n - 1, ";".join(map(str, range(n)))))

    return Key(label, parse)


def state_line(spec, state, keys):
    """The state as a reader would say it: «Frase: El banco del parque · …»."""
    parts = []
    for key in keys:
        value = state[key]
        names = spec.keys[key].names
        if isinstance(value, list):
            text = "(" + "; ".join(number_text(v) for v in value) + ")"
        elif isinstance(value, str):
            text = names.get(value, value)
        else:
            text = number_text(value)
        parts.append("%s: %s" % (spec.labels[key], text))
    return " · ".join(parts)


def update_state(spec, current, partial):
    """Strict: apply `partial` on top of `current`, or raise ValueError."""
    if not isinstance(partial, dict):
        raise ValueError("lab.set espera un objeto, por ejemplo {mask: 'causal'}")
    unknown = [key for key in partial if key not in spec.parsers]
    if unknown:
        raise ValueError("lab.set no conoce «%s»; conoce: %s"
                         % (shown(unknown[0]), ", ".join(spec.parsers)))
    state = spec.default_state()
    if isinstance(current, dict):
        state.update({k: v for k, v in current.items() if k in spec.parsers})
    changed = set(partial)  # what the caller gave, and what a reset replaced
    for key, others in spec.resets.items():
        if key in partial:
            for other in others:
                if other not in partial:
                    default = spec.default_state()[other]
                    if state[other] != default:
                        changed.add(other)
                    state[other] = default
    for key, parse in spec.parsers.items():
        try:
            if key not in partial and key in spec.clamps:
                state[key] = spec.clamps[key](state[key], state)
            if key not in partial and spec.follows.get(key, (None,))[0] in changed:
                state[key] = spec.follows[key][1](state)
            state[key] = parse(partial.get(key, state[key]), state)
        except ValueError as error:
            # Blame the key the caller changed: a check between two keys
            # (d_model and heads) fails on the later one.
            blamed = key if key in partial else next(iter(partial), key)
            raise StateError(str(error), blamed) from None
    return state


def state_from_params(spec, params):
    """Lenient: (state, notices). Bad or unknown values fall back to defaults."""
    state, notices = spec.default_state(), []
    for key in params:
        if key not in spec.parsers:
            notices.append("Se ignoró el parámetro desconocido «%s» de la dirección."
                           % shown(key))
    for key, parse in spec.parsers.items():
        given = key in params
        try:
            if not given and key in spec.clamps:
                state[key] = spec.clamps[key](state[key], state)
            if not given and spec.follows.get(key, (None,))[0] in params:
                state[key] = spec.follows[key][1](state)
            state[key] = parse(params[key] if given else state[key], state)
            continue
        except ValueError as error:
            if given:
                notices.append("Se ignoró un valor de la dirección. %s. Se usa el valor "
                               "por defecto." % error)
            else:
                notices.append("No encaja con el resto de la dirección: %s." % error)
        try:
            state[key] = parse(spec.defaults[key], state)
        except ValueError:
            # The default clashes with an earlier key (heads with a d_model
            # from the URL): start again from the defaults.
            notices.append("Se usa el estado por defecto completo.")
            return spec.default_state(), notices
    return state, notices


def url_text(value):
    """A value in its URL form: 1, 0.5, "parque", 1;0, lugar.parque.k:3;0."""
    if isinstance(value, dict):
        return ",".join("%s:%s" % (name, url_text(value[name])) for name in sorted(value))
    if isinstance(value, (list, tuple)):
        return ";".join(url_text(v) for v in value)
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def query_string(spec, state):
    """The URL form of a state: only the keys that differ from the default.

    Opening '?' + this text reproduces the state: `state_from_params` reads
    exactly these forms back.
    """
    changed = [(key, url_text(state[key])) for key in spec.parsers
               if state[key] != spec.defaults[key]]
    return urlencode(changed, safe=URL_SAFE)
