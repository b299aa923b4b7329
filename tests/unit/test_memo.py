"""Panel caching: a builder sees only the keys it declares, and is cached on them."""
import pytest

from lab_core import attention_lab, block_lab
from lab_core import memo
from lab_core.memo import reads


def test_builder_sees_only_declared_keys_and_is_cached_on_them():
    calls = []

    @reads("a")
    def build(state):
        calls.append(dict(state))
        return {"double": state["a"] * 2}

    first = build({"a": 2, "b": [1, 2]})
    assert first == {"double": 4} and calls == [{"a": 2}]
    assert build({"a": 2, "b": "changed"}) is first  # b is not read: a cache hit
    assert build({"a": 3, "b": "changed"}) == {"double": 6}
    assert len(calls) == 2

    @reads("a")
    def sneaky(state):
        return state["b"]

    with pytest.raises(KeyError):
        sneaky({"a": 1, "b": 2})


def test_lists_are_thawed_for_the_builder():
    @reads("v")
    def build(state):
        return type(state["v"]).__name__

    assert build({"v": [1, 2]}) == "list"


@pytest.mark.parametrize("lab", [attention_lab, block_lab])
def test_cached_panels_equal_fresh_ones(lab):
    state = lab.SPEC.default_state()
    cached = lab.LAB.build_view(state)
    builders = [build for _, build in lab.LAB.parts]
    assert all(hasattr(build, "uncached") for build in builders)
    for builder in builders:
        fresh = builder.uncached({k: state[k] for k in builder.keys})
        assert builder(state) == fresh
    assert lab.LAB.build_view(state) == cached


@pytest.mark.parametrize("lab", [attention_lab, block_lab])
def test_a_view_freezes_each_state_value_once(lab, monkeypatch):
    # Some twenty builders key their caches on the same state: each value
    # is frozen once for the whole view, by the first builder that reads it.
    # (Lists only: they are the values that cost, and the only ones whose
    # identity is their own; a 0 or a True is shared by several keys.)
    state = lab.SPEC.default_state()
    lists = [v for v in state.values() if isinstance(v, list)]
    frozen = []
    real = memo._freeze

    def counting(value):
        if any(value is v for v in lists):
            frozen.append(id(value))
        return real(value)

    monkeypatch.setattr(memo, "_freeze", counting)
    view = lab.LAB.build_view(state)
    assert lists and sorted(frozen) == sorted(set(frozen)) and len(frozen) >= 2
    monkeypatch.undo()
    assert view == lab.LAB.build_view(state)


def test_a_frozen_state_is_read_only_and_reads_as_its_values():
    state = memo.frozen({"a": [1, [2, 3]], "b": 4})
    assert memo.frozen(state) is state
    assert dict(state) == {"a": [1, [2, 3]], "b": 4} and state.get("c") is None
    assert state.frozen_value("a") == (1, (2, 3))
    with pytest.raises(TypeError):
        state["b"] = 5


def test_the_rope_panel_keeps_a_sweep_of_the_slider():
    # θ moves in steps of 0,01: a reader sweeping the slider back over the
    # values just seen (the bench cycles 30) gets them from the cache; with
    # 16 kept, a sweep of 30 recomputed every one.
    from lab_core.attention_lab.rope import rope_panel
    state = attention_lab.SPEC.default_state()
    thetas = [round(0.05 * i, 2) for i in range(1, 61)]
    first = [rope_panel(dict(state, theta=theta)) for theta in thetas]
    again = [rope_panel(dict(state, theta=theta)) for theta in thetas]
    assert all(a is b for a, b in zip(first, again))
    assert first[0] != first[1]  # another θ, another panel
    assert first[0] == rope_panel.uncached(dict(state, theta=thetas[0]))
