"""The verdict picture: one drawing model, rendered to SVG and PNG, and ``check --picture``."""

from __future__ import annotations

import itertools
import json
import math
import re

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.picture import PALETTE, draw, text_box, text_width, to_png, to_svg
from referee.rules import ruleset_for
from referee.rules.cli import EXAMPLE
from referee.scene import load_scene


@pytest.fixture
def example():
    scene = load_scene(EXAMPLE)
    verdicts = [v.to_json() for v in ruleset_for(scene).answer_all(scene)]
    return scene, verdicts


def test_drawing_holds_every_terrain_piece_and_verdict(example):
    scene, verdicts = example
    picture = draw(scene, verdicts)
    polygons = [s for s in picture.shapes if s.kind == "polygon"]
    assert len(polygons) == 1 + len(scene.terrain) + len(scene.pieces)  # table, terrain, bases
    texts = {s.text for s in picture.shapes if s.kind == "text"}
    assert {p.id for p in scene} <= texts
    los = [v for v in verdicts if v["ask"] == "los"]
    lines = [s for s in picture.shapes if s.kind == "line" and s.width == 0.14]
    assert {s.stroke for s in lines} >= {PALETTE["verdict"][v["los"]] for v in los}
    assert len(picture.caption) >= len(verdicts)
    assert picture.caption[0].startswith(("[ok]", "[NO]", "[??]"))


def test_sight_line_runs_between_the_two_centres(example):
    scene, verdicts = example
    los = next(v for v in verdicts if v["ask"] == "los")
    picture = draw(scene, [los])
    line = next(s for s in picture.shapes if s.kind == "line" and s.width == 0.14)
    assert line.points == (scene.piece(los["from"]).xy, scene.piece(los["to"]).xy)


def test_a_sight_line_that_names_its_ends_is_drawn_there(example):
    """Papercraft's LOS verdict carries its shortest clear line (``line``): the picture
    draws it there, with the distance beside it."""
    scene, verdicts = example
    los = {**next(v for v in verdicts if v["ask"] == "los"), "line": [[1, 2], [5.5, 2]]}
    picture = draw(scene, [los])
    line = next(s for s in picture.shapes if s.kind == "line" and s.width == 0.14)
    assert line.points == ((1.0, 2.0), (5.5, 2.0))
    distance = f"{los['distance']:.2f}in"
    label = next(s for s in picture.shapes if s.kind == "text" and s.text.startswith(distance))
    # beside the middle of the line, clear of its stroke
    assert label.points[0][0] == pytest.approx(3.25)
    assert text_box(label)[3] < 2.0 - 0.07


def test_selected_piece_gets_rings_and_the_rulesets_ranges(example):
    scene, _ = example
    piece = scene.pieces[0].id
    circles = [
        s for s in draw(scene, selected=piece, ranges=[12.0, 8.0]).shapes if s.kind == "circle"
    ]
    assert sorted(c.radius for c in circles) == [3.0, 6.0, 8.0, 12.0]  # 12 is drawn once
    assert [c.dash for c in circles if c.radius == 8.0] == [True]


def test_svg_and_png_render_the_same_picture(example):
    scene, verdicts = example
    picture = draw(scene, verdicts)
    svg = to_svg(picture)
    assert svg.startswith("<svg") and svg.count("<polygon") == 1 + len(scene.terrain) + len(
        scene.pieces
    )
    png = cv2.imdecode(np.frombuffer(to_png(picture, ppi=20), np.uint8), cv2.IMREAD_COLOR)
    assert png.shape[1] == round((scene.table.width + 1) * 20)
    # the table cloth's colour fills the middle of the table area
    cloth = PALETTE["cloth"].lstrip("#")
    bgr = [int(cloth[i : i + 2], 16) for i in (4, 2, 0)]
    corner = png[round(0.5 * 20) + 3, round(0.5 * 20) + 3]
    assert np.abs(corner.astype(int) - bgr).max() <= 2


def test_check_picture_writes_png_and_svg(tmp_path):
    runner = CliRunner()
    png, svg = tmp_path / "out.png", tmp_path / "out.svg"
    assert runner.invoke(cli, ["check", "--picture", str(png)]).exit_code == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    result = runner.invoke(cli, ["check", "--json", "--picture", str(svg)])
    assert result.exit_code == 0
    summaries = [v["summary"] for v in json.loads(result.output)["verdicts"] if "summary" in v]
    text = svg.read_text()
    for summary in summaries:
        assert summary.replace(">", "&gt;") in text


def test_check_picture_refuses_other_formats(tmp_path):
    result = CliRunner().invoke(cli, ["check", "--picture", str(tmp_path / "out.gif")])
    assert result.exit_code == 2
    # one line naming the file and the suffixes it takes (the wording is the shared
    # output check's, from the bad-input work)
    assert re.fullmatch(r"referee: error: --picture .*out\.gif: [^\n]*\.png[^\n]*\.svg[^\n]*\n",
                        result.output)  # fmt: skip


# -- words never over lines, never cut ------------------------------------------------------------


def _crowded():
    """Pieces against every edge and corner, sight lines passing right under their names,
    rings around one: where the old fixed spots put text over lines or off the picture."""
    from referee.scene import Scene

    pieces = [
        ("a1", "red", 0.6, 0.6),
        ("a2", "red", 23.4, 0.6),
        ("a3", "red", 0.6, 17.4),
        ("a4", "red", 23.4, 17.4),
        ("b1", "blue", 12.0, 17.5),
        ("b2", "blue", 12.0, 9.0),
        ("b3", "blue", 6.0, 10.5),
        ("b4", "blue", 18.0, 10.6),
        ("longest-name-here", "blue", 23.0, 9.0),
    ]
    doc = {
        "table": {"width": 24, "depth": 18},
        "ruleset": "paper-tigers",
        "pieces": [
            {
                "id": i,
                "side": side,
                "kind": "tank",
                "x": x,
                "y": y,
                "heading": 0,
                "base": [1.2, 2.0],
            }
            for i, side, x, y in pieces
        ],
        "terrain": [
            {
                "id": "woods-by-the-edge",
                "kind": "woods",
                "polygon": [[20, 14], [24, 14], [24, 18], [20, 18]],
            }
        ],
        "queries": [
            {"ask": "los", "from": f, "to": t}
            for f, t in (("a1", "a4"), ("a3", "a2"), ("b3", "b4"), ("b2", "b1"), ("a3", "b1"))
        ]
        + [{"ask": "range", "from": "b2", "to": t} for t in ("a1", "a2", "longest-name-here")],
    }
    scene = Scene.from_json(doc, "crowded")
    verdicts = [v.to_json() for v in ruleset_for(scene).answer_all(scene)]
    return scene, verdicts


def _segments(picture):
    for shape in picture.shapes[1:]:
        if shape.kind == "line" or (shape.kind == "polygon" and shape.opacity == 1.0):
            points = list(shape.points) + ([shape.points[0]] if shape.kind == "polygon" else [])
            for a, b in itertools.pairwise(points):
                yield a, b, shape.width / 2


def _hits(box, a, b, pad):
    """Whether segment a-b comes within pad of the box (sampled finely: a test's own way)."""
    n = max(2, int(math.dist(a, b) / 0.01))
    for k in range(n + 1):
        x = a[0] + (b[0] - a[0]) * k / n
        y = a[1] + (b[1] - a[1]) * k / n
        if box[0] - pad < x < box[2] + pad and box[1] - pad < y < box[3] + pad:
            return True
    return False


@pytest.mark.parametrize("selected", [None, "b2"])
def test_no_text_over_a_line_or_past_the_edge(example, selected):
    for scene, verdicts in (example, _crowded()):
        picture = draw(scene, verdicts, selected=selected if selected in scene else None)
        texts = [s for s in picture.shapes if s.kind == "text"]
        assert {p.id for p in scene} <= {t.text for t in texts}  # every piece still named
        boxes = [text_box(t) for t in texts]
        width, depth = scene.table.width, scene.table.depth
        for text, box in zip(texts, boxes, strict=True):
            # inside the picture (the table and its half-inch margin)
            assert box[0] >= -0.5 and box[1] >= -0.5, text
            assert box[2] <= width + 0.5 and box[3] <= depth + 0.5, text
            for a, b, pad in _segments(picture):
                assert not _hits(box, a, b, pad), (text.text, a, b)
        for i, a in enumerate(boxes):  # nor over each other
            for b in boxes[i + 1 :]:
                assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
        # caption lines fit the picture's width: long verdicts wrap, never run off
        for line in picture.caption:
            assert text_width(line, 0.8 * 0.6) <= width + 1.0, line


def test_the_png_draws_the_words_inside_their_boxes():
    """The rendered PNG agrees with the geometry: every pixel the words change is inside
    some label's box (so inside the picture and off the lines the boxes keep clear of)."""
    from dataclasses import replace

    scene, verdicts = _crowded()
    picture = draw(scene, verdicts, selected="b2")
    bare = replace(picture, shapes=tuple(s for s in picture.shapes if s.kind != "text"))
    ppi = 20

    def render(p):
        return cv2.imdecode(np.frombuffer(to_png(p, ppi=ppi), np.uint8), cv2.IMREAD_COLOR)

    changed = np.any(render(picture) != render(bare), axis=2)
    assert changed.any()
    covered = np.zeros_like(changed)
    for x0, y0, x1, y1 in (text_box(t) for t in picture.shapes if t.kind == "text"):
        r0, r1 = max(0, math.floor((y0 + 0.5) * ppi) - 1), math.ceil((y1 + 0.5) * ppi) + 1
        c0, c1 = max(0, math.floor((x0 + 0.5) * ppi) - 1), math.ceil((x1 + 0.5) * ppi) + 1
        covered[r0:r1, c0:c1] = True
    table = np.zeros_like(changed)
    table[: round((scene.table.depth + 1) * ppi)] = True  # above the caption
    assert not (changed & table & ~covered).any()


# -- words a player can read (issue 42 item 5) ----------------------------------------------------


def test_a_pairs_distance_is_written_once_in_white_with_a_halo(example):
    """``check --picture`` wrote a pair's distance twice, green for its range and red for its
    sight line: once now, white on a dark halo (the line beside it carries the colour)."""
    scene, _ = example
    verdicts = [
        v.to_json()
        for v in ruleset_for(scene).answer_all(scene)
        if v.to_json().get("ask") in ("range", "los")
    ]
    pair = [{**v, "from": "panther", "to": "pgren"} for v in verdicts if v["ask"] == "los"][:1]
    rng = {**pair[0], "ask": "range", "ok": True}
    rng.pop("los")
    picture = draw(scene, [rng, pair[0]])
    distance = f"{pair[0]['distance']:.2f}in"
    written = [s for s in picture.shapes if s.kind == "text" and s.text.startswith(distance)]
    assert len(written) == 1
    assert written[0].fill == PALETTE["text"]
    svg = to_svg(picture)
    texts = re.findall(r"<text [^>]*>", svg)
    table_texts = [t for t in texts if "text-anchor" in t]  # not the caption's
    assert table_texts and all('paint-order="stroke"' in t for t in table_texts)
    assert all(f'stroke="{PALETTE["halo"]}"' in t for t in table_texts)


def test_rings_stop_at_the_cloth_in_svg_and_png():
    from referee.picture import MARGIN, Picture, Shape

    ring = Shape("circle", ((1.0, 1.0),), stroke="#ffffff", radius=5.0, width=0.1, opacity=0.8)
    picture = Picture(12.0, 8.0, (ring,))
    assert 'clip-path="url(#cloth)"' in re.search(r"<circle [^>]*>", to_svg(picture)).group(0)
    assert re.search(
        r'<clipPath id="cloth"><rect x="0" y="0" width="12" height="8"/>', to_svg(picture)
    )
    ppi = 20
    image = cv2.imdecode(np.frombuffer(to_png(picture, ppi=ppi), np.uint8), cv2.IMREAD_COLOR)
    lit = np.any(image != 32, axis=2)
    edge = round(MARGIN * ppi)
    assert lit[edge + 1 :, edge + 1 :].any()  # drawn on the cloth...
    assert not lit[:edge, :].any() and not lit[:, :edge].any()  # ...and not past its edge


@pytest.mark.parametrize("selected", [None, "b2"])
def test_no_word_sits_on_a_base(example, selected):
    for scene, verdicts in (example, _crowded()):
        picture = draw(scene, verdicts, selected=selected if selected in scene else None)
        bases = []
        for p in scene:
            xs, ys = zip(*p.corners(), strict=True)
            bases.append((min(xs), min(ys), max(xs), max(ys)))
        for text in (s for s in picture.shapes if s.kind == "text"):
            a = text_box(text)
            for b in bases:
                assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), text.text
