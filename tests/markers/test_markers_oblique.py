"""``markers --size auto`` for a camera on a tripod at the table's edge (issue 41, item 4)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner

from referee.calibration.camera import Intrinsics, TablePose, project, table_xyz
from referee.cli import cli
from referee.markers.oblique import ObliqueCamera, oblique_tag_size
from referee.markers.sheets import MIN_PX_PER_CELL, auto_tag_size
from referee.tags.layout import TagLayout


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_the_far_tags_measure_what_the_camera_model_projects() -> None:
    """The size's reasoning agrees with the project's own camera model (calibration.camera)."""
    camera = ObliqueCamera(40.0, 30.0, (1920, 1080), 70.0)
    fit = oblique_tag_size((48, 36), camera)
    intr = Intrinsics.from_fov((1920, 1080), 70.0)
    pose = TablePose.looking_down((24.0, 18.0), 40.0, 30.0)
    x, y = fit.worst_xy
    assert y == pytest.approx(35.5)  # the far edge, where the camera sees least
    # A tag square to the table edges there, drawn by the camera model: its sides in pixels.
    quad = project(intr, pose, table_xyz(TagLayout(fit.size_in).corners(x, y, 0.0), 0.0))
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    cells = 6  # DICT_4X4_100: 4 bits and the black border
    assert sorted([fit.along_px, fit.across_px]) == pytest.approx(
        sorted([sides[0] / cells, sides[1] / cells]), rel=0.02
    )
    assert fit.equivalent_px >= MIN_PX_PER_CELL
    assert fit.distance_in == pytest.approx(np.linalg.norm(pose.camera_center - [x, y, 0]))


def test_a_slanted_camera_needs_bigger_tags_than_one_overhead() -> None:
    sizes = [
        oblique_tag_size((48, 36), ObliqueCamera(40.0, tilt, (1920, 1080))).size_in
        for tilt in (0, 20, 30, 40)
    ]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    # Straight down at the height where the 70 deg view just holds the table: as --size auto
    # without a camera height (which assumes exactly that framing) within a step.
    overhead = oblique_tag_size((48, 36), ObliqueCamera(49.0, 0.0, (1920, 1080))).size_in
    assert overhead == pytest.approx(auto_tag_size((48, 36), (1920, 1080))[0], abs=0.051)
    # More pixels, smaller tags.
    four_k = oblique_tag_size((48, 36), ObliqueCamera(40.0, 30.0, (3840, 2160))).size_in
    assert four_k == pytest.approx(sizes[2] / 2, abs=0.051)


def test_markers_size_auto_for_a_tripod_prints_the_size_and_why(tmp_path, read_pdf) -> None:
    out = tmp_path / "t.pdf"
    result = run(
        "markers", "--size", "auto", "--camera-height", "40", "--camera-tilt", "30",
        "--resolution", "1920x1080", "--fov", "70", "--table", "48x36", "--ids", "1-4",
        "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    match = re.match(
        r"--size auto: ([\d.]+) in \([\d.]+ mm\) tags: a tag looks smallest at ", first
    )
    assert match is not None, first
    size = float(match.group(1))
    assert size == oblique_tag_size((48, 36), ObliqueCamera(40, 30, (1920, 1080), 70)).size_in
    assert "40 in up, tilted 30 deg from straight down" in first
    assert re.search(r"px along the line of sight \([\d.]+ px square, goal 5\)", first)
    assert f"{size:g} in" in result.stdout.splitlines()[1] and out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "auto", "--camera-tilt", "30"], "--camera-tilt needs --camera-height"),
        (["--size", "auto", "--fov", "70"], "--fov needs --camera-height"),
        (["--camera-height", "40"], "--camera-height sizes the tags for an oblique camera: it "),
        (["--size", "0.8in", "--camera-tilt", "30"], "it goes with --size auto"),
        (["--size", "auto", "--camera-height", "-3"], "--camera-height: must be positive"),
        (["--size", "auto", "--camera-height", "nan"], "--camera-height: must be a finite"),
        (["--size", "auto", "--camera-height", "40", "--camera-tilt", "80"], "between 0 and 75"),
        (["--size", "auto", "--camera-height", "40", "--fov", "200"], "--fov: must be between"),
        (["--size", "auto", "--camera-height", "5", "--camera-tilt", "70"], "horizon"),
        (["--size", "auto", "--camera-height", "40", "--resolution", "big"], "cannot read 'big'"),
    ],
)
def test_oblique_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, args, message) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("markers", *args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], result.output
    assert not list(tmp_path.glob("*.pdf"))


def test_corners_the_camera_cannot_see_are_named() -> None:
    """Low and steep, the near corners (where two anchors sit) drop out of the picture."""
    low = oblique_tag_size((48, 36), ObliqueCamera(20.0, 45.0, (1920, 1080)))
    assert (0.0, 0.0) in low.out_of_view and (48.0, 0.0) in low.out_of_view
    high = oblique_tag_size((48, 36), ObliqueCamera(45.0, 35.0, (1920, 1080), 78.0))
    assert high.out_of_view == ()
