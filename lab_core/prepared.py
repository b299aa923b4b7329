"""Views prepared at build time, so a page paints its tables before Python is live.

A reader who opens a shared link, or changes a select while Python boots,
should see that state at once. The build renders every state a reader can
reach with the page's selects and steppers (each lab's SELECTORS) with the
same lab_core, in CPython, and stores the views compactly: a view is made of
parts (lab.Lab.parts), each built by a builder that declares the state keys it
reads, so a part is stored once per combination of *those* keys, not once per
state. A group file holds the parts for one combination of the group keys
(the attention page: sentence, mask, head), so the page fetches one small
file for its first paint and another when one of those keys changes.

Group file (JSON, in views/<hash>/<lab>/<group>.json):
    {"reads": {view key: [state keys]},
     "parts": {view key: {lookup: value}}}
where lookup joins the URL form of each read key's value with "|" (see
lookup()). The page assembles a view by looking up each part; a state is
prepared when every part is found. The page never computes a part: it only
looks one up, and falls back to waiting for Python when one is missing.

Index (written by the build into the lab's page, as the JSON of
<script type="application/json" id="lab-prepared">): {"path", "group",
"selectors", "defaults", "encoded" (each default in its URL form, as the
look-ups spell it: the page encodes no number itself), "contract",
"choices" (the values of each group key), "files", "states" (how many
states are prepared)}.
"""
from __future__ import annotations

import functools
import itertools
import json

from .state import update_state, url_text
from .views import CONTRACT_VERSION, get_lab, render

# Candidate values per selector key; invalid combinations (a query beyond the
# sentence) are dropped by the lab's own SPEC.
CANDIDATES = {
    "query": range(8),
    "key": range(8),
    "step": range(1, 9),
}
FIXED_PARTS = ("lab", "contract", "notices")


def lookup(values):
    """The lookup text of a list of state values: 'parque|1|1;0'."""
    return "|".join(url_text(v) for v in values)


def _lookups(state, reads):
    """part name -> its lookup text for `state` (reads: part_reads), each
    value written once: a state's values are shared by most of its parts."""
    texts = {key: url_text(value) for key, value in state.items()}
    return {name: "|".join(texts[k] for k in keys) for name, keys in reads.items()}


def group_name(lab, state):
    keys = group_keys(lab)
    return "-".join(url_text(state[k]) for k in keys) or "default"


def group_keys(lab):
    return tuple(k for k in ("sentence", "mask", "head") if k in lab.selectors)


def part_reads(lab):
    """view key -> the state keys its value depends on."""
    reads = {name: list(build.keys) for name, build in lab.parts}
    reads.update({name: [] for name in FIXED_PARTS})
    # The state and its URL form vary with the selectors only: every other
    # key is read by some part, which is found only for its default value.
    reads["state"] = list(lab.selectors)
    reads["query_string"] = list(lab.selectors)
    return reads


def selector_states(lab):
    """Every valid state that differs from the default only in selector keys
    (fresh dicts: a caller may change them)."""
    return (dict(state) for state in _selector_states(lab))


@functools.lru_cache(maxsize=None)
def _selector_states(lab):
    # Enumerated once per lab: the build walks them several times (views,
    # the groups' choices, the check), and most of the product is invalid.
    return tuple(_enumerate_states(lab))


def _enumerate_states(lab):
    spec = lab.spec
    choices = []
    for key in lab.selectors:
        names = spec.keys[key].names
        choices.append(list(names) if names else list(CANDIDATES[key]))
    seen = set()
    for values in itertools.product(*choices):
        try:
            state = update_state(spec, None, dict(zip(lab.selectors, values)))
        except ValueError:
            continue
        marker = lookup(state[k] for k in lab.selectors)
        if marker not in seen:
            seen.add(marker)
            yield state


def check_coverage(lab):
    """Every non-selector key must be read by some part (see part_reads)."""
    read = {k for _, build in lab.parts for k in build.keys}
    missing = [k for k in lab.spec.parsers if k not in read and k not in lab.selectors]
    if missing:
        raise ValueError("prepared views: no part reads %s" % ", ".join(missing))


def prepare(lab_name):
    """(groups, index): group name -> group file dict, and the lab's index entry."""
    lab = get_lab(lab_name)
    check_coverage(lab)
    reads = part_reads(lab)
    groups = {}
    for state in selector_states(lab):
        view = render(lab_name, state)
        view["notices"] = []
        group = groups.setdefault(group_name(lab, state), {"reads": reads, "parts": {}})
        for name, text in _lookups(state, reads).items():
            group["parts"].setdefault(name, {})[text] = view[name]
    choices = {key: sorted({url_text(state[key]) for state in selector_states(lab)})
               for key in group_keys(lab)}
    defaults = lab.spec.default_state()
    index = {"group": list(group_keys(lab)), "selectors": list(lab.selectors),
             "defaults": defaults, "contract": CONTRACT_VERSION,
             "encoded": {key: url_text(value) for key, value in defaults.items()},
             "choices": choices, "files": sorted(groups)}
    return groups, index


def assemble(group, state):
    """The view a group file holds for a state, or None: the page's look-up, in
    Python, so the build can check every prepared view against render()."""
    view = {}
    for name, text in _lookups(state, group["reads"]).items():
        part = group["parts"][name].get(text)
        if part is None:
            return None
        view[name] = part
    return view


def verify(lab_name, groups):
    """Every prepared state reassembles to exactly the view render() builds:
    the same keys, each part the same JSON text (keys sorted). Views share
    their parts (builders are memoised, groups store each part once), so
    each distinct part object is written out once, not once per state."""
    lab = get_lab(lab_name)
    texts = {}  # id(part) -> (part, its JSON): the part is held, so its id is not reused

    def text(part):
        found = texts.get(id(part))
        if found is None:
            found = texts[id(part)] = (part, json.dumps(part, sort_keys=True))
        return found[1]

    count = 0
    for state in selector_states(lab):
        built = render(lab_name, state)
        built["notices"] = []
        got = assemble(groups[group_name(lab, state)], state)
        if (got is None or sorted(got) != sorted(built)
                or any(text(got[k]) != text(built[k]) for k in built)):
            raise ValueError("prepared view differs from the live one for %s" % state)
        count += 1
    return count
