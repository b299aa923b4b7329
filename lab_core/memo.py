"""Panel builders that say which state keys they read, cached on those keys.

A lab's view is rebuilt on every lab.set, but most panels depend on a few
keys: moving the RoPE slider need not recompute the KV cache. `reads(*keys)`
marks a builder with the keys it depends on; the builder receives a state
holding *only* those keys (reading any other raises KeyError, so a missing
dependency fails loudly in the tests instead of serving stale numbers), and
its result is cached on their values.

Cached results are shared between views: builders return fresh dicts and
nothing downstream mutates them (views only add top-level keys).

Keying a builder's cache means freezing the values it reads (a sentence's
vectors are lists of lists), and a view runs some twenty builders over the
same state: freezing each value again for each was a quarter of a change's
Python. `frozen(state)` freezes a state once, as each key is first read;
`build_view` hands it to every builder, and a builder hands its own keys,
already frozen, to the builders it calls.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping


class _Frozen(tuple):
    """A dict value, frozen (sorted items) so it can key the cache."""


def _freeze(value):
    if isinstance(value, dict):
        return _Frozen(sorted((k, _freeze(v)) for k, v in value.items()))
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def _thaw(value):
    if isinstance(value, _Frozen):
        return {k: _thaw(v) for k, v in value}
    return [_thaw(v) for v in value] if isinstance(value, tuple) else value


class FrozenState(Mapping):
    """A state, read-only, that keeps the frozen form of each value read."""

    __slots__ = ("_values", "_frozen")

    def __init__(self, values, frozen_values=None):
        self._values = values
        self._frozen = dict(frozen_values or ())

    def __getitem__(self, key):
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def frozen_value(self, key):
        try:
            return self._frozen[key]
        except KeyError:
            value = self._frozen[key] = _freeze(self._values[key])
            return value


def frozen(state):
    """The state as builders read it, each value frozen at most once."""
    return state if isinstance(state, FrozenState) else FrozenState(state)


def reads(*keys, maxsize=16):
    def decorate(build):
        @functools.lru_cache(maxsize=maxsize)
        def cached(key):
            return build(FrozenState({name: _thaw(value) for name, value in key}, key))

        @functools.wraps(build)
        def run(state):
            state = frozen(state)
            return cached(tuple((key, state.frozen_value(key)) for key in keys))

        run.keys = keys
        run.uncached = build
        return run

    return decorate
