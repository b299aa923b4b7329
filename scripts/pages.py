"""Assemble the pages from web/: both labs share their chrome (status, fault
box, notices, share tools) from web/partials/, written once.

A page asks for a partial with a line of its own:

    <!-- include partials/lab-status.html -->

and gets the partial's lines there, indented like the comment, without the
partial's leading comment (which says what the partial is for). A missing
partial stops the build.

Each panel (<section class="panel" … id="…">) also gets `data-reads`: the
state keys its builders declare (lab.Lab.panel_reads), never written by hand,
so an embed shows exactly the controls its panel reads.
"""
from __future__ import annotations

import re
from pathlib import Path

PANEL = re.compile(r'<section class="panel[^"]*"[^>]*\bid="([\w-]+)"')
LAB = re.compile(r'<body data-lab="([\w-]+)"')
INCLUDE = re.compile(r"^([ \t]*)<!-- include (partials/[\w.-]+\.html) -->[ \t]*\n", re.M)
LEADING_COMMENT = re.compile(r"\A<!--.*?-->[ \t]*\n", re.S)


def assemble(page: Path) -> str:
    """The page's text with every include replaced by its partial."""
    web = page.parent

    def expand(match):
        indent, name = match.groups()
        path = web / name
        if not path.is_file():
            raise SystemExit("build: %s includes %s, which web/ does not have" % (page.name, name))
        body = LEADING_COMMENT.sub("", path.read_text(encoding="utf-8"))
        return "".join(indent + line if line.strip() else line
                       for line in body.splitlines(True))

    return INCLUDE.sub(expand, page.read_text(encoding="utf-8"))


def with_reads(text: str, reads) -> str:
    """The page with each panel's data-reads: reads is {panel id: [keys]}."""
    if "data-reads" in text:
        raise SystemExit("build: a page writes data-reads by hand; the build derives them")

    def add(match):
        panel = match.group(1)
        if panel not in reads:
            raise SystemExit("build: the page has a panel «%s» its lab does not declare" % panel)
        return match.group(0) + ' data-reads="%s"' % " ".join(reads[panel])

    return PANEL.sub(add, text)


def write_pages(web: Path, out: Path, panel_reads=None):
    """Write web/*.html assembled into out/, with each panel's data-reads
    (panel_reads: {lab name: {panel id: [keys]}}), and leave the partials out
    of the site (they are not pages)."""
    for page in sorted(web.glob("*.html")):
        text = assemble(page)
        lab = LAB.search(text)
        if panel_reads is not None and lab:
            text = with_reads(text, panel_reads[lab.group(1)])
        (out / page.name).write_text(text, encoding="utf-8")
    partials = out / "partials"
    if partials.is_dir():
        for path in partials.iterdir():
            path.unlink()
        partials.rmdir()
