"""Panel caching: a builder sees only the keys it declares, and is cached on them."""
import pytest

from lab_core import attention_lab, block_lab
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
    cached = lab.build_view(state)
    builders = [v for v in vars(lab).values() if hasattr(v, "uncached")]
    assert builders
    for builder in builders:
        fresh = builder.uncached({k: state[k] for k in builder.keys})
        assert builder(state) == fresh
    assert lab.build_view(state) == cached
