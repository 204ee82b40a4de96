"""Paper terrain templates at exact size (issue 32 item 2): `referee markers terrain`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.markers.pdf import PT_PER_IN, Clipped, Line, Text, page_size, rasterize
from referee.markers.roster import Roster, load_roster
from referee.markers.terrain_sheet import OVERLAP_IN, shaped_outline, terrain_sheet
from referee.tags.detect import TagDetector
from referee.tags.layout import heading_from_corners

HILL = {
    "tags": [
        {"tag": 61, "at": [-2.0, 0.0], "heading": 0},
        {"tag": 62, "at": [2.0, 0.5], "heading": 30},
    ],
    "id": "hill1",
    "terrain": "hill",
    "outline": [[-3, -2], [3, -2], [3.5, 1], [0, 2.5], [-3, 2]],
    "tag_size": 1.0,
}
HOUSE = {
    "tag": 63,
    "id": "b1",
    "terrain": "building",
    "outline": [[-1.5, -1], [1.5, -1], [1.5, 1], [-1.5, 1]],
}


def roster(*templates):
    return Roster.from_json({"pieces": [], "terrain": list(templates)})


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def outline_lines(page):
    found = []
    for shape in page.shapes:
        inner = shape.shapes if isinstance(shape, Clipped) else (shape,)
        found += [s for s in inner if isinstance(s, Line) and s.closed and s.width == 1.0]
    return found


def test_a_template_is_drawn_at_exact_size_with_its_tags_where_the_roster_says():
    r = roster(HILL, HOUSE)
    sheet = terrain_sheet(r.templates, r.dictionary)
    hill = next(o for o in sheet.outlines if o.template == "hill1")
    assert hill.tiles == 1
    pts = np.array(hill.points)
    # 6.5 x 4.5 in fits the page's width unturned: exact size, 72 pt to the inch.
    assert np.ptp(pts[:, 0]) == pytest.approx(6.5 * PT_PER_IN)
    assert np.ptp(pts[:, 1]) == pytest.approx(4.5 * PT_PER_IN)
    tags = {t.tag: t for t in sheet.tags}
    assert tags[61].size == pytest.approx(1.0 * PT_PER_IN) and tags[63].size == pytest.approx(
        0.8 * PT_PER_IN
    )
    origin = pts[0] - np.array([-3, -2]) * PT_PER_IN  # the template frame's origin on the page
    for t in (61, 62):
        at = next(x["at"] for x in HILL["tags"] if x["tag"] == t)
        assert np.allclose(tags[t].center, origin + np.array(at) * PT_PER_IN)
    assert tags[62].heading == 30.0
    # The tags are read off the printed page, facing as the roster says.
    dpi = 150
    image = rasterize(sheet.pages[tags[61].page], dpi)
    found = TagDetector(r.dictionary).detect_full(image)
    got = dict(zip(found.ids.tolist(), heading_from_corners(found.corners_px), strict=True))
    assert {61, 62} <= set(got)
    assert abs((got[61] - 0 + 180) % 360 - 180) < 1.0
    assert abs((got[62] - 30 + 180) % 360 - 180) < 1.0
    centre = found.corners_px[found.ids.tolist().index(62)].mean(axis=0) / dpi * PT_PER_IN
    assert np.allclose(centre, tags[62].center, atol=0.5)
    texts = [s.text for p in sheet.pages for s in p.shapes if isinstance(s, Text)]
    assert "tag 61" in texts and any("hill1 (hill)" in t for t in texts)
    assert any("measure to check the print scale" in t for t in texts)  # scale bars


def test_a_long_template_is_turned_down_the_page():
    r = roster(HOUSE | {"outline": [[-4.2, -1], [4.2, -1], [4.2, 1], [-4.2, 1]]})
    sheet = terrain_sheet(r.templates, r.dictionary)
    (outline,) = sheet.outlines
    pts = np.array(outline.points)
    assert outline.tiles == 1 and len(sheet.pages) == 1
    assert np.ptp(pts[:, 1]) == pytest.approx(8.4 * PT_PER_IN)  # its length down the page
    assert sheet.tags[0].heading == 90.0


def test_a_template_bigger_than_the_page_is_split_with_overlap_marks():
    big = {
        "tag": 64,
        "id": "lake",
        "terrain": "water",
        "outline": [[-9, -7], [9, -7], [9, 7], [-9, 7]],
    }
    r = roster(big)
    sheet = terrain_sheet(r.templates, r.dictionary, "letter")
    (outline,) = sheet.outlines
    width, height = page_size("letter")
    assert outline.tiles == len(sheet.pages) > 1
    # Each sheet shows the template clipped to its printable area...
    for page in sheet.pages:
        (clip,) = [s for s in page.shapes if isinstance(s, Clipped)]
        x, y, w, h = clip.rect
        assert x >= 36 and y >= 36 and x + w <= width - 36 + 1e-9 and y + h <= height - 36 + 1e-9
    # ...with dashed lines OVERLAP_IN from the edge where the next sheet's edge goes.
    first = sheet.pages[0]
    (clip,) = [s for s in first.shapes if isinstance(s, Clipped)]
    dashed = [s for s in first.shapes if isinstance(s, Line) and s.dash]
    xs = {round(s.points[0][0], 6) for s in dashed if s.points[0][0] == s.points[1][0]}
    assert round(clip.rect[0] + clip.rect[2] - OVERLAP_IN * PT_PER_IN, 6) in xs
    # The whole outline is 18 x 14 in (the first sheet holds it before clipping).
    pts = np.array(outline.points)
    assert sorted([np.ptp(pts[:, 0]), np.ptp(pts[:, 1])]) == pytest.approx(
        [14 * PT_PER_IN, 18 * PT_PER_IN]
    )
    assert [t.tag for t in sheet.tags] == [64]


@pytest.mark.parametrize("kind", ["woods", "hill", "building", "road", "river"])
def test_each_kind_has_a_shape_inside_its_size(kind):
    outline = np.array(shaped_outline(kind, 8, 6))
    assert np.ptp(outline[:, 0]) == pytest.approx(8, abs=0.01)
    assert np.ptp(outline[:, 1]) <= 6 + 1e-9
    r = roster({"tag": 5, "id": "x", "terrain": kind, "outline": outline.tolist()})
    assert len(r.templates[0].outline) == len(outline)


def test_markers_terrain_from_a_kind_and_size_prints_the_entry_to_paste(tmp_path):
    out = tmp_path / "wood.pdf"
    result = run(
        "markers", "terrain", "--kind", "woods", "--size", "8x6", "--tag", 70, "--out", out
    )
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(b"%PDF")
    entry = json.loads(result.output.splitlines()[-1])
    assert entry["tag"] == 70 and entry["terrain"] == "woods" and entry["id"] == "woods1"
    assert "1 terrain template (woods1) on 1 letter page" in result.output
    # The entry pasted into a roster is a template of it, the same outline.
    pasted = roster(entry).templates[0]
    assert pasted.outline == tuple(tuple(p) for p in shaped_outline("woods", 8, 6))


def test_markers_terrain_adds_to_a_roster_and_prints_a_roster(tmp_path):
    path = tmp_path / "roster.json"
    path.write_text(json.dumps({"pieces": [{"tag": 1, "id": "t34", "base": [1, 2]}]}))
    result = run(
        "markers", "terrain", "--kind", "road", "--size", "12x3", "--id", "road1", "--tag", 80,
        "--roster-out", path, "--out", tmp_path / "a.pdf",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    saved = load_roster(path)
    assert [p.id for p in saved] == ["t34"]
    (road,) = saved.templates
    assert [t.tag for t in road.tags] == [80, 81]  # a long one gets two tags
    again = run("markers", "terrain", "--roster", path, "--out", tmp_path / "b.pdf")
    assert again.exit_code == 0, again.output
    assert "(road1)" in again.output
    # A second template with a taken tag is refused, the roster unchanged.
    before = path.read_text()
    clash = run(
        "markers", "terrain", "--kind", "hill", "--size", "6x4", "--tag", 1,
        "--roster-out", path, "--out", tmp_path / "c.pdf",
    )  # fmt: skip
    assert clash.exit_code == 2
    assert "tag 1 is already on pieces[0]" in clash.output
    assert path.read_text() == before and not (tmp_path / "c.pdf").exists()


def test_markers_terrain_from_an_outline_file(tmp_path):
    shape = tmp_path / "shape.json"
    shape.write_text(json.dumps({"outline": [[-2, -2], [3, -1], [2, 2], [-2, 1]]}))
    result = run(
        "markers", "terrain", "--kind", "rough", "--outline", shape, "--out", tmp_path / "r.pdf"
    )
    assert result.exit_code == 0, result.output
    entry = json.loads(result.output.splitlines()[-1])
    assert entry["outline"] == [[-2, -2], [3, -1], [2, 2], [-2, 1]]
    assert entry["tag"] == 60


def test_the_plain_markers_command_still_prints_tags(tmp_path):
    out = tmp_path / "t.pdf"
    result = run("markers", "--ids", "1-2", "--out", out)
    assert result.exit_code == 0, result.output
    assert out.exists() and "2 tags (ids 1-2" in result.output
