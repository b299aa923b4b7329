"""Assemble the pages from web/: both labs share their chrome (status, fault
box, notices, share tools) from web/partials/, written once.

A page asks for a partial with a line of its own:

    <!-- include partials/lab-status.html -->

and gets the partial's lines there, indented like the comment, without the
partial's leading comment (which says what the partial is for). Nothing else
changes; a missing partial stops the build.
"""
from __future__ import annotations

import re
from pathlib import Path

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


def write_pages(web: Path, out: Path):
    """Write web/*.html assembled into out/, and leave the partials out of
    the site (they are not pages)."""
    for page in sorted(web.glob("*.html")):
        (out / page.name).write_text(assemble(page), encoding="utf-8")
    partials = out / "partials"
    if partials.is_dir():
        for path in partials.iterdir():
            path.unlink()
        partials.rmdir()
