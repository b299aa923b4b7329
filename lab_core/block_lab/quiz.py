"""Panel 7: the closing quiz; each question links to the panel that shows why."""
from __future__ import annotations

import functools

from ..didactic_block import QUIZ
from ..memo import reads
from ..words import prompt


def _quoted(label):
    """An answer in «», with any «» inside it as “” (never «…«…»…»)."""
    return "«%s»" % label.replace("«", "“").replace("»", "”")


@functools.lru_cache(maxsize=1)
def quiz():
    """The closing quiz as prompts; each explanation names its answer first,
    and each links to the panel that shows why."""
    from . import TITLES as titles  # the lab's table of panels, which imports this module

    return [prompt({
        "id": q["id"], "question": q["question"],
        "options": [{"value": v, "label": label} for v, label in q["options"]],
        "answers": [q["answer"]],
        # The answer first, as the other labs' explanations begin: the page
        # puts «Respuesta:», «¡Bien visto!» or «Sin predecir.» before it.
        "explanation": "%s. %s" % (_quoted(dict(q["options"])[q["answer"]]), q["explanation"]),
        "panel": q["panel"], "panel_label": "Por qué: %s" % titles[q["panel"]],
    }) for q in QUIZ]


@reads()
def quiz_view(state):
    return quiz()


# Printed in the panels' order: every key but the panel (the link says it).


PARTS = (("quiz", quiz_view),)
