"""The map of a transformer on each page (lab_core/block_map.py), and its
drawing by the build (scripts/pages.py)."""
import re
import sys
from itertools import combinations
from pathlib import Path
from xml.etree import ElementTree

import pytest

from lab_core.block_map import ROWS, block_map
from lab_core.views import LABS, get_lab

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from pages import map_svg, write_pages  # noqa: E402

TITLES = {name: get_lab(name).titles for name in LABS}
PAGE = {"attention": "index.html", "block": "bloque.html"}


def test_every_part_names_real_panels_and_every_panel_has_a_place():
    named = {(lab, panel) for row in ROWS for part in row for lab, panel in part.panels}
    for lab, panel in named:
        assert panel in TITLES[lab], (lab, panel)
    # Each panel but the block's quiz (which asks about all of it) marks a
    # part of its own page's map.
    for lab in LABS:
        marking = {panel for part in block_map(lab, TITLES)["parts"] for panel in part["panels"]}
        assert set(TITLES[lab]) - marking == ({"quiz"} if lab == "block" else set()), lab


@pytest.mark.parametrize("lab", sorted(LABS))
def test_boxes_stay_inside_and_apart(lab):
    drawing = block_map(lab, TITLES)
    boxes = [(p["x"], p["y"], p["w"], p["h"]) for p in drawing["parts"]]
    for x, y, w, h in boxes:
        assert 0 <= x and x + w <= drawing["width"] and 0 <= y and y + h <= drawing["height"]
        assert w >= 60  # room for an 11 px label of a dozen letters
    for (x1, y1, w1, h1), (x2, y2, w2, h2) in combinations(boxes, 2):
        assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
    # The block's frame holds its rows and nothing else.
    fx, fy, fw, fh = drawing["frame"]
    inside = [p["id"] for p in drawing["parts"]
              if fx <= p["x"] and p["x"] + p["w"] <= fx + fw and fy <= p["y"] and p["y"] + p["h"] <= fy + fh]
    assert inside == ["norma1", "puntuacion", "mascara", "softmax", "mezcla", "cabezas",
                      "residual1", "norma2", "ffn", "residual2"]


@pytest.mark.parametrize("lab", sorted(LABS))
def test_each_join_runs_from_a_box_edge_to_the_next_box(lab):
    drawing = block_map(lab, TITLES)
    order = [p for p in drawing["parts"]]
    edges = {(p["x"], p["y"] + p["h"] / 2) for p in order} | {
        (p["x"] + p["w"] / 2, p["y"]) for p in order}
    starts = {(p["x"] + p["w"], p["y"] + p["h"] / 2) for p in order} | {
        (p["x"] + p["w"] / 2, p["y"] + p["h"]) for p in order}
    close = lambda a, pts: any(abs(a[0] - b[0]) < 0.01 and abs(a[1] - b[1]) < 0.01 for b in pts)  # noqa: E731
    # One join into every part but the first: the path has no gap.
    assert len(drawing["joins"]) == len(order) - 1
    for join in drawing["joins"]:
        assert close(join[0], starts) and close(join[-1], edges), join


def test_links_go_to_this_page_or_name_the_other():
    attention = {p["id"]: p for p in block_map("attention", TITLES)["parts"]}
    block = {p["id"]: p for p in block_map("block", TITLES)["parts"]}
    # Taught here: a link within the page, marked by the panels that teach it.
    assert attention["puntuacion"]["href"] == "#puntuacion"
    assert attention["puntuacion"]["panels"] == ["puntuacion", "aprende"]
    assert block["ffn"]["href"] == "#ffn" and block["ffn"]["panels"] == ["ffn", "bloque"]
    # Taught on the other page: its address, and the spoken label says so.
    assert attention["ffn"]["href"] == "bloque.html?panel=ffn#ffn"
    assert attention["ffn"]["panel"] is None and attention["ffn"]["panels"] == []
    assert attention["ffn"]["spoken"].endswith("(en la otra página)")
    assert block["puntuacion"]["href"] == "./?panel=puntuacion#puntuacion"
    assert "1 · De dónde sale una puntuación" in block["puntuacion"]["spoken"]
    # Both pages teach a position: each links its own panel.
    assert attention["posicion"]["href"] == "#rope" and block["posicion"]["href"] == "#posicion"
    # The whole block (panel 6 of the block page) marks every part inside it.
    marked = [p["id"] for p in block.values() if "bloque" in p["panels"]]
    assert marked == ["norma1", "puntuacion", "mascara", "softmax", "mezcla", "cabezas",
                      "residual1", "norma2", "ffn", "residual2"]


@pytest.mark.parametrize("lab", sorted(LABS))
def test_the_drawing_is_svg_with_a_link_per_part(lab):
    drawing = block_map(lab, TITLES)
    fold = ElementTree.fromstring(map_svg(drawing))
    # On a phone, one tap away (lab.css shows it open on wider screens).
    assert fold.tag == "details" and fold.find("summary").text == drawing["fold"]
    svg = fold.find("figure").find("svg")
    links = svg.findall("a")
    assert [a.get("data-part") for a in links] == [p["id"] for p in drawing["parts"]]
    for a, part in zip(links, drawing["parts"]):
        assert a.get("href") == part["href"] and a.get("aria-label") == part["spoken"]
        assert a.find("text").text == part["label"]
        assert (a.get("data-panel") is not None) == bool(part["panel"])
    # Its room is in the markup: no shift when the page's style or script arrives.
    assert (svg.get("width"), svg.get("height")) == (str(drawing["width"]), str(drawing["height"]))
    assert svg.find("desc").text == drawing["alt"]
    assert "Cada parte lleva a su panel" in drawing["alt"]


def test_each_page_gets_its_map(tmp_path):
    maps = {name: block_map(name, TITLES) for name in LABS}
    write_pages(ROOT / "web", tmp_path, {name: get_lab(name).panel_reads() for name in LABS}, maps)
    for lab, page in PAGE.items():
        text = (tmp_path / page).read_text(encoding="utf-8")
        assert text.count('class="block-map" id="mapa"') == 1
        assert "data-map>" not in text
        here = re.findall(r'data-part="(\w+)" data-panel="(\w+)"', text)
        assert {panel for _, panel in here} <= set(TITLES[lab])
