"""The verdict picture: one drawing model, rendered to SVG and PNG, and ``check --picture``."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.picture import PALETTE, draw, to_png, to_svg
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
    assert label.points[0] == pytest.approx((3.25, 1.6))


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
    assert re.fullmatch(r"referee: error: --picture .*out\.gif: write a \.png or an \.svg file\n",
                        result.output)  # fmt: skip
