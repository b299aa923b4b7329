"""The build's check of prepared views (prepared.verify): it must catch any
prepared part that is not, as JSON, the part Python builds live."""
import json

import pytest

from lab_core import prepared
from lab_core.views import to_json


def stored(lab_name):
    """The groups as the build writes them and the page reads them."""
    groups, _ = prepared.prepare(lab_name)
    return {name: json.loads(to_json(group)) for name, group in groups.items()}


def first_value(value, wanted):
    """The path to the first value of type `wanted` inside a part (bools are not ints)."""
    if type(value) is wanted:
        return []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(
        value, list) else ()
    for key, inner in items:
        path = first_value(inner, wanted)
        if path is not None:
            return [key] + path
    return None


def changed(groups, wanted, new):
    """A copy of groups with the first value of type `wanted` in some part set to new(value)."""
    groups = json.loads(json.dumps(groups))
    for group in groups.values():
        for parts in group["parts"].values():
            for part in parts.values():
                path = first_value(part, wanted)
                if path:
                    *inside, last = path
                    for key in inside:
                        part = part[key]
                    part[last] = new(part[last])
                    return groups
    raise AssertionError("no %s in any part" % wanted.__name__)


@pytest.mark.parametrize("lab_name", ["block", "model"])
def test_the_stored_views_pass_and_any_change_fails(lab_name):
    groups = stored(lab_name)
    assert prepared.verify(lab_name, groups) == len(list(prepared.selector_states(
        prepared.get_lab(lab_name))))
    for wanted, new in ((str, lambda text: text + " "), (float, lambda x: x + 1e-9),
                        (bool, int)):  # true and 1 are one number to Python, not in JSON
        with pytest.raises(ValueError, match="differs from the live one"):
            prepared.verify(lab_name, changed(groups, wanted, new))
    gone = json.loads(json.dumps(groups))
    parts = next(iter(gone.values()))["parts"]
    del parts[next(iter(parts))]  # a part no group holds
    with pytest.raises((ValueError, KeyError)):
        prepared.verify(lab_name, gone)
