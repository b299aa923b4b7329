"""Panel builders that say which state keys they read, cached on those keys.

A lab's view is rebuilt on every lab.set, but most panels depend on a few
keys: moving the RoPE slider need not recompute the KV cache. `reads(*keys)`
marks a builder with the keys it depends on; the builder receives a state
holding *only* those keys (reading any other raises KeyError, so a missing
dependency fails loudly in the tests instead of serving stale numbers), and
its result is cached on their values.

Cached results are shared between views: builders return fresh dicts and
nothing downstream mutates them (views only add top-level keys).
"""
from __future__ import annotations

import functools


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


def reads(*keys, maxsize=16):
    def decorate(build):
        @functools.lru_cache(maxsize=maxsize)
        def cached(frozen):
            return build({key: _thaw(value) for key, value in frozen})

        @functools.wraps(build)
        def run(state):
            return cached(tuple((key, _freeze(state[key])) for key in keys))

        run.keys = keys
        run.uncached = build
        return run

    return decorate
