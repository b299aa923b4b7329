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

And each page's map (`<figure class="block-map" data-map></figure>`) gets
its drawing: the data (parts, boxes, links, words) is lab_core/block_map.py;
here it only becomes SVG markup, so the figure is on the page before any
script runs, takes its room at once, and prints.
"""
from __future__ import annotations

import re
from html import escape
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


MAP_SLOT = '<figure class="block-map" data-map></figure>'


def map_svg(drawing) -> str:
    """The map's figure: lab_core.block_map.block_map's data as SVG. A part
    taught on this page carries data-panel (the page's panel links handle
    it) and data-marks (the panels that mark it as the reader's place)."""
    a = lambda value: escape(str(value), quote=True)  # noqa: E731
    out = ['<details class="map-fold"><summary>%s</summary>' % escape(drawing["fold"]),
           '<figure class="block-map" id="mapa" aria-labelledby="mapa-title">',
           '<figcaption id="mapa-title">%s</figcaption>' % escape(drawing["title"]),
           '<svg viewBox="0 0 %s %s" width="%s" height="%s" aria-labelledby="mapa-title" '
           'aria-describedby="mapa-desc">' % ((drawing["width"], drawing["height"]) * 2),
           '<desc id="mapa-desc">%s</desc>' % escape(drawing["alt"])]
    x, y, w, h = drawing["frame"]
    out.append('<rect class="map-frame" x="%s" y="%s" width="%s" height="%s" rx="6"/>'
               % (x, y, w, h))
    out.append('<text class="map-frame-label" x="%s" y="%s" text-anchor="end">%s</text>'
               % (x + w - 6, y + 11, escape(drawing["frame_label"])))
    for points in drawing["joins"]:
        out.append('<polyline class="map-join" points="%s" marker-end="url(#map-arrow)"/>'
                   % " ".join("%g,%g" % tuple(point) for point in points))
    out.insert(5, '<defs><marker id="map-arrow" viewBox="0 0 6 6" refX="6" refY="3" '
                  'markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0 L6,3 L0,6 z"/>'
                  '</marker></defs>')
    for part in drawing["parts"]:
        attrs = ' href="%s" aria-label="%s" class="map-part" data-part="%s"' % (
            a(part["href"]), a(part["spoken"]), a(part["id"]))
        if part["panel"]:
            attrs += ' data-panel="%s"' % a(part["panel"])
        else:
            attrs += ' data-elsewhere=""'
        if part["panels"]:
            attrs += ' data-marks="%s"' % a(" ".join(part["panels"]))
        out.append('<a%s><rect x="%s" y="%s" width="%s" height="%s" rx="4"/>'
                   '<text x="%g" y="%g" text-anchor="middle">%s</text></a>' % (
                       attrs, part["x"], part["y"], part["w"], part["h"],
                       part["x"] + part["w"] / 2, part["y"] + part["h"] / 2 + 4,
                       escape(part["label"])))
    out.append("</svg></figure></details>")
    return "\n".join(out)


def with_map(text: str, drawing) -> str:
    if text.count(MAP_SLOT) != 1:
        raise SystemExit("build: a lab page has no single slot for its map")
    return text.replace(MAP_SLOT, map_svg(drawing))


def write_pages(web: Path, out: Path, panel_reads=None, maps=None):
    """Write web/*.html assembled into out/, with each panel's data-reads
    (panel_reads: {lab name: {panel id: [keys]}}) and its map (maps: {lab
    name: block_map drawing}), and leave the partials out of the site (they
    are not pages)."""
    for page in sorted(web.glob("*.html")):
        text = assemble(page)
        lab = LAB.search(text)
        if panel_reads is not None and lab:
            text = with_reads(text, panel_reads[lab.group(1)])
        if maps is not None and lab:
            text = with_map(text, maps[lab.group(1)])
        (out / page.name).write_text(text, encoding="utf-8")
    partials = out / "partials"
    if partials.is_dir():
        for path in partials.iterdir():
            path.unlink()
        partials.rmdir()
