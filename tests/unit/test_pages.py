"""The pages' shared chrome is written once (web/partials/) and put into
each page by scripts/pages.py."""
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
