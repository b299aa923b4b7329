"""The page's code keeps its shape: one-way imports, no word of its own, no
number formatted in JavaScript, every word it says in Python's table."""
import re
from pathlib import Path

import pytest

from lab_core import page_text

ROOT = Path(__file__).resolve().parents[2]
JS = sorted((ROOT / "web" / "js").glob("*.js"))
IMPORT = re.compile(r"""^\s*(?:import|export)\s[^;]*?from\s*["']\./([\w.-]+)["']""", re.M)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`')
# A reader-facing phrase: an accented letter, Spanish quotes, or two of
# Spanish's commonest words.
SPANISH = re.compile(r"[áéíóúñ¿¡«»]")
COMMON = re.compile(r"(?<![\w-])(de|la|el|que|en|los|las|del|por|con|para|una|se|es|sin|su|al)(?![\w-])")
# How JavaScript would format a number for a reader.
FORMATS = re.compile(r"toLocaleString|NumberFormat|replace\(\s*[\"']\.[\"']\s*,\s*[\"'],[\"']|toFixed\([^)]*\)\.replace")


def code(path):
    """A module's text without its comments (// lines and /* */ blocks)."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def imports():
    return {path.name: set(IMPORT.findall(path.read_text(encoding="utf-8"))) for path in JS}


def test_the_page_modules_import_one_way():
    graph = imports()
    for name, targets in graph.items():
        assert targets <= set(graph), (name, targets - set(graph))

    def visit(name, path):
        if name in path:
            raise AssertionError("import cycle: " + " → ".join(path[path.index(name):] + [name]))
        for target in graph[name]:
            visit(target, path + [name])

    for name in graph:
        visit(name, [])
    # The leaves import nothing; the registry is imported by the screen only.
    assert graph["dom.js"] == set() and graph["text.js"] == set()
    assert [n for n, t in graph.items() if "render.js" in t] == ["screen.js"]


def test_a_cycle_is_found():
    graph = {"a.js": {"b.js"}, "b.js": {"a.js"}}
    with pytest.raises(AssertionError, match="a.js → b.js → a.js"):
        def visit(name, path):
            if name in path:
                raise AssertionError("import cycle: " + " → ".join(path[path.index(name):] + [name]))
            for target in graph[name]:
                visit(target, path + [name])
        visit("a.js", [])


@pytest.mark.parametrize("path", JS, ids=lambda p: p.name)
def test_no_page_module_writes_a_word_or_formats_a_number(path):
    text = code(path)
    for literal in STRING.findall(text):
        body = re.sub(r"\$\{[^}]*\}", " ", literal[1:-1])  # a template's values are not its words
        assert not SPANISH.search(body), (path.name, literal)
        assert len(COMMON.findall(body)) < 2, (path.name, literal)
    assert not FORMATS.search(text), path.name


def test_the_checks_catch_a_word_and_a_format(tmp_path):
    bad = tmp_path / "bad.js"
    bad.write_text('const a = "Pulsa aquí";\nconst b = x.toFixed(1).replace(".", ",");\n')
    literal = STRING.findall(code(bad))[0]
    assert SPANISH.search(literal) and FORMATS.search(code(bad))
    assert len(COMMON.findall("sin datos de la red")) >= 2


def test_every_word_the_page_says_is_in_pythons_table():
    literals, said = set(), set()
    for path in JS + sorted((ROOT / "web").glob("*.html")):
        text = path.read_text(encoding="utf-8")
        said |= set(re.findall(r"""say\(\s*["']([\w.]+)["']""", text))
        literals |= {m[1:-1] for m in STRING.findall(text)} | set(re.findall(r'data-(?:kicker|play-label)="([\w.]+)"', text))
    assert not sorted(k for k in said if k not in page_text.TEXT)
    # Every word of the table is said somewhere: by its key, or by a key the
    # page builds at run time (a boot step, an HTTP status, a theme, a chip's
    # side, a fault's gender).
    dynamic = ("step.", "fault.http.", "theme.", "chip.", "fault.truncated", "fault.corrupt")
    unused = sorted(k for k in page_text.TEXT if k not in literals | said and not k.startswith(dynamic))
    assert not unused, unused


def test_a_template_names_only_words_or_counts():
    # {What} is a file's label with a capital; every other name is lower case.
    for key in page_text.TEXT:
        for name in page_text.placeholders(key):
            assert name == "What" or name.islower() or name == name.lower(), (key, name)
