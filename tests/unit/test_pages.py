"""The pages' shared chrome is written once (web/partials/) and put into
each page by scripts/pages.py."""
import json
import re
import subprocess
from html.parser import HTMLParser
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from pages import assemble, write_pages  # noqa: E402

PAGES = ("index.html", "bloque.html")


@pytest.mark.parametrize("page", PAGES)
def test_each_page_gets_the_shared_chrome_once(page):
    text = assemble(ROOT / "web" / page)
    assert "<!-- include" not in text
    for fixed in ('id="status"', 'id="fault"', 'class="fault-retry"', 'id="notice-box"',
                  'data-classroom="copy-link"', 'id="announce"', "<noscript>"):
        assert text.count(fixed) == 1, (page, fixed)
    # The sticky bar still opens before the status and closes after it.
    assert text.index('id="lab-bar"') < text.index('id="status"') < text.index('id="notice-box"')
    for fixed in ('id="export-dialog"', 'id="embed-dialog"', 'id="text-dialog"', 'id="runtime"',
                  'src="js/main.js"', 'href="css/lab.css"'):
        assert text.count(fixed) == 1, (page, fixed)


@pytest.mark.parametrize("page", PAGES)
def test_the_page_fetches_its_script_as_one_file(page):
    # The built js/main.js holds every module it imports (scripts/build.py):
    # a modulepreload would fetch a module the page never runs.
    text = assemble(ROOT / "web" / page)
    assert "modulepreload" not in text
    assert re.findall(r'<script type="module" src="([^"]+)">', text) == ["js/main.js"]


def test_the_bundle_runs_as_the_modules_did_and_maps_back(tmp_path):
    import build
    if not build.ESBUILD.is_file():
        pytest.fail("esbuild is missing: run `npm ci` (make setup installs it)")
    js = tmp_path / "js"
    js.mkdir()
    (js / "main.js").write_text('import { twice } from "./b.js";\n'
                                'console.log(JSON.stringify({ v: twice(21), t: "«ñ»" }));\n')
    (js / "b.js").write_text('// doubles\nexport function twice(x) { return 2 * x; }\n')
    build.bundle_script(tmp_path)
    bundled = (js / "main.js").read_text(encoding="utf-8")
    assert "import" not in bundled and "«ñ»" in bundled  # one file, UTF-8 kept
    ran = subprocess.run(["node", "--input-type=module"], input=bundled, text=True,
                         capture_output=True, check=True)
    assert json.loads(ran.stdout) == {"v": 42, "t": "«ñ»"}
    source_map = json.loads((js / "main.js.map").read_text())
    assert sorted(source_map["sources"]) == ["b.js", "main.js"]
    assert "// doubles" in "".join(source_map["sourcesContent"])


def test_a_bundle_that_still_imports_stops_the_build(tmp_path, monkeypatch):
    import build
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "main.js").write_text('import { x } from "https://example.org/x.js";\n')

    def leave_as_is(*args, **kwargs):  # what an external import would leave
        return None
    monkeypatch.setattr(build.subprocess, "run", leave_as_is)
    with pytest.raises(SystemExit, match="still imports"):
        build.bundle_script(tmp_path)


def test_includes_keep_the_indent_and_drop_the_partials_comment(tmp_path):
    (tmp_path / "partials").mkdir()
    (tmp_path / "partials" / "x.html").write_text("<!-- what x is -->\n<p>a</p>\n\n<p>b</p>\n")
    (tmp_path / "p.html").write_text("<main>\n    <!-- include partials/x.html -->\n</main>\n")
    assert assemble(tmp_path / "p.html") == "<main>\n    <p>a</p>\n\n    <p>b</p>\n</main>\n"
    out = tmp_path / "out"
    out.mkdir()
    (out / "partials").mkdir()
    (out / "partials" / "x.html").write_text("copied")
    write_pages(tmp_path, out)
    assert (out / "p.html").read_text().startswith("<main>\n    <p>a</p>")
    assert not (out / "partials").exists()


def test_a_missing_partial_stops_the_build(tmp_path):
    (tmp_path / "p.html").write_text("  <!-- include partials/nope.html -->\n")
    with pytest.raises(SystemExit, match="nope.html"):
        assemble(tmp_path / "p.html")



class Elements(HTMLParser):
    """A page's elements as (attributes, inside a <template>?, the id of the
    panel they are in or None), in order; `scoped` says, for each, whether it
    is inside an element that draws its children from a scope of its own
    (data-render «each» or «with»)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}

    def __init__(self, text):
        super().__init__()
        self.found, self.scoped, self.open, self.scopes = [], [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        panels = [panel for _, panel in self.open if panel]
        self.found.append((attrs, any(t == "template" for t, _ in self.open),
                           panels[-1] if panels else None))
        self.scoped.append(any(self.scopes))
        if tag not in self.VOID:
            panel = tag == "section" and "panel" in (attrs.get("class") or "").split()
            self.open.append((tag, attrs.get("id") if panel else None))
            self.scopes.append(attrs.get("data-render") in ("each", "with"))

    def handle_endtag(self, tag):
        while self.open:
            self.scopes.pop()
            if self.open.pop()[0] == tag:
                break


@pytest.mark.parametrize("page", PAGES)
def test_what_the_page_finds_once_is_never_drawn(page):
    # render.js finds the controls ([data-key]) and the questions that hide
    # (.predict[data-hides]) once, in the page's HTML: a template's copy,
    # drawn later, would be missed.
    elements = Elements(assemble(ROOT / "web" / page)).found
    found = [(attrs, drawn) for attrs, drawn, _ in elements
             if "data-key" in attrs or "data-hides" in attrs]
    assert sum("data-hides" in attrs for attrs, _ in found) == (4 if page == "index.html" else 0)
    assert sum("data-key" in attrs for attrs, _ in found) >= 10
    assert [attrs for attrs, drawn in found if drawn] == []


@pytest.mark.parametrize("page", PAGES)
def test_a_question_hides_only_parts_of_its_own_panel(page):
    # predict.js looks for what a question hides inside its panel: each
    # selector starts from the panel or from an element in it.
    elements = Elements(assemble(ROOT / "web" / page)).found
    panel_of = {attrs["id"]: panel for attrs, _, panel in elements if attrs.get("id")}
    for attrs, _, panel in elements:
        if "data-hides" not in attrs:
            continue
        assert panel
        for selector in attrs["data-hides"].split(","):
            first = selector.split()[0]
            assert first.startswith("#"), selector
            assert first[1:] == panel or panel_of.get(first[1:]) == panel, (page, selector)


@pytest.mark.parametrize("page", PAGES)
def test_a_block_drawn_later_draws_from_the_view_itself(page):
    # offscreen.js may leave a block marked data-later for a moment later,
    # and draws it alone from the whole view: so it draws (data-render), sits
    # in a panel, and is in no scope of its own (a template's copy, an
    # «each» item, a «with» block), where its source would mean another thing.
    parsed = Elements(assemble(ROOT / "web" / page))
    later = [(attrs, drawn, panel, scoped)
             for (attrs, drawn, panel), scoped in zip(parsed.found, parsed.scoped)
             if "data-later" in attrs]
    for attrs, drawn, panel, scoped in later:
        assert attrs.get("data-render") and attrs.get("data-source"), attrs
        assert panel and not drawn and not scoped, attrs
    names = [(panel, attrs["data-render"]) for attrs, _, panel, _ in later]
    assert names == ([("puntuacion", "head-view"), ("puntuacion", "each"), ("cabezas", "vectors")]
                     if page == "index.html" else [])
    # The parser sees scopes: panel 3's heads are drawn inside «each».
    if page == "index.html":
        sources = {attrs.get("data-source"): scoped
                   for (attrs, _, _), scoped in zip(parsed.found, parsed.scoped)}
        assert sources["heads.heads"] is False and sources["label"] is True


def test_each_panel_reads_what_its_builders_declare(tmp_path):
    # data-reads is derived, never written by hand: an embed shows exactly the
    # controls of the keys its panel's builders read (memo.reads).
    from lab_core.views import LABS, get_lab
    reads = {name: get_lab(name).panel_reads() for name in LABS}
    for page in PAGES:
        assert "data-reads" not in (ROOT / "web" / page).read_text(encoding="utf-8")
    write_pages(ROOT / "web", tmp_path, reads)
    for page, lab in (("index.html", "attention"), ("bloque.html", "block")):
        text = (tmp_path / page).read_text(encoding="utf-8")
        found = dict(re.findall(r'<section class="panel[^"]*"[^>]*\bid="([\w-]+)" data-reads="([^"]*)"', text))
        assert {k: v.split() for k, v in found.items()} == reads[lab]
    # Panel 1 reads the sentence, its vectors and the four selects above it.
    assert {"sentence", "query", "key", "mask", "head"} <= set(reads["attention"]["puntuacion"])
    assert "dk" in reads["attention"]["puntuacion"] and "step" not in reads["attention"]["puntuacion"]
    assert reads["block"]["quiz"] == []
