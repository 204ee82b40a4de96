"""Calibration on a fresh machine: no libzbar, no --board, only what the README asks for."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.calibration.calibrate import BoardDetector, calibrate_frames, iter_video
from referee.calibration.camera import project, table_xyz
from referee.calibration.profile import load_profile
from referee.calibration.recognise import match_printed_board, printed_boards
from referee.calibration.table import default_anchors
from referee.cli import cli
from referee.markers import qr
from referee.markers.board_sheet import board_sheet, default_board
from referee.markers.pdf import rasterize
from referee.tags.anchors import AnchorTag

FOOTAGE = Path(__file__).resolve().parents[2] / "sample_footage" / "skirmish"
LETTER = "charuco:5x7:0.03m:0.021m:DICT_6X6_250"
A4 = "charuco:5x7:0.033m:0.0231m:DICT_6X6_250"


@pytest.fixture
def no_libzbar(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine where pyzbar cannot load libzbar."""

    def missing() -> None:
        raise OSError("Unable to find zbar shared library")

    monkeypatch.setattr(qr, "_pyzbar", None)
    monkeypatch.setattr(qr, "_pyzbar_tried", False)
    monkeypatch.setitem(__import__("sys").modules, "pyzbar", None)  # import fails
    monkeypatch.setattr(qr, "USE_PYZBAR", True)
    del missing


@pytest.mark.slow  # the whole sample clip calibrated again without libzbar: ~11 s of CPU
@pytest.mark.usefixtures("no_libzbar")
def test_readme_calibration_of_the_sample_clip_works_without_libzbar(tmp_path: Path) -> None:
    true = load_profile(FOOTAGE / "camera.json")
    out = tmp_path / "camera.json"
    args = ["calibrate", str(FOOTAGE / "calibration.mp4"), "--out", str(out), "--table", "36x24"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning style: never a raw Python warning
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    got = load_profile(out)
    # The sim draws no QR code: the board was recognised by its pattern, sized by the anchors.
    assert got.board == LETTER == true.board
    assert got.frame_source == "anchors"
    grid = table_xyz(np.array([(x, y) for x in range(2, 36, 4) for y in range(2, 24, 4)]), 0.0)
    error = project(got.intrinsics, got.table_pose, grid) - project(
        true.intrinsics, true.table_pose, grid
    )
    assert np.abs(error).max() < 1.0  # pixels
    assert json.loads(out.read_text())["board"] == LETTER


@pytest.mark.slow  # calibrates the whole sample clip again: a minute of the README's run
def test_printed_size_follows_the_tags_beside_the_board() -> None:
    """Anchors 10% larger make the same pattern the 10% larger (A4) board."""
    true = load_profile(FOOTAGE / "camera.json")
    bigger = tuple(
        AnchorTag(a.tag, a.x, a.y, a.size * 33 / 30)
        for a in default_anchors("DICT_4X4_100", true.table)
    )
    run = calibrate_frames(
        iter_video(FOOTAGE / "calibration.mp4"), spec=None, table=true.table, anchors=bigger
    )
    assert run.profile.board == A4


def _sheet_in_view(sim: ModuleType, rig: Any, page: str, with_qr: bool = True) -> np.ndarray:
    from referee.sim.warp import PlanePose, RayMap, draw_plane

    sheet = board_sheet(default_board(page), page)
    paper = rasterize(sheet.page, 150)
    if not with_qr:
        x, y, module = (round(v * 150 / 72) for v in sheet.qr_box)
        paper[: y + 40 * module, x - 10 :] = 255
    paper = cv2.cvtColor(paper, cv2.COLOR_GRAY2BGR)
    size = np.array([paper.shape[1], paper.shape[0], 0]) / 150
    rotation, _ = cv2.Rodrigues(np.radians([20.0, 10.0, 5.0]))
    ray = rig.intrinsics.undistort_normalized([[640, 360]])[0]
    origin = np.array([ray[0], ray[1], 1.0]) * 18 - rotation @ (size / 2)
    image = sim.blank(rig)
    draw_plane(
        image,
        RayMap.for_camera(rig.intrinsics),
        PlanePose(rotation[:, 0], rotation[:, 1], origin),
        paper,
        150,
        2,
    )
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))


@pytest.mark.parametrize(("page", "spec"), [("letter", LETTER), ("a4", A4)])
def test_printed_sheet_is_told_by_its_qr_pattern_without_decoding(
    sim: ModuleType, sim_rig: Any, page: str, spec: str
) -> None:
    gray = _sheet_in_view(sim, sim_rig, page)
    detector = BoardDetector(printed_boards()[0].spec)
    view = detector.detect(gray)
    squares = view.object_m[:, :2] / detector.spec.square_m
    found = match_printed_board(gray, view.corners_px, squares)
    assert found is not None and found.to_string() == spec
    blank = _sheet_in_view(sim, sim_rig, page, with_qr=False)
    view = detector.detect(blank)
    squares = view.object_m[:, :2] / detector.spec.square_m
    assert match_printed_board(blank, view.corners_px, squares) is None


@pytest.mark.usefixtures("no_libzbar")
def test_error_names_the_printed_boards_spec(tmp_path: Path) -> None:
    photos = Path(__file__).resolve().parents[1] / "data" / "calibration" / "real-images"
    result = CliRunner().invoke(
        cli, ["calibrate", str(photos / "charuco-calibration"), "--out", str(tmp_path / "c.json")]
    )
    assert result.exit_code == 2
    # 4x4 cm OpenCV photos: a 5x7 DICT_6X6_250 pattern but not ours (no anchors to size it).
    assert LETTER in result.output
    assert "referee: error:" in result.output


@pytest.mark.usefixtures("no_libzbar")
def test_no_board_at_all_names_the_printed_boards_spec(tmp_path: Path) -> None:
    photos = Path(__file__).resolve().parents[1] / "data" / "calibration" / "real-images"
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "markers.jpg").write_bytes((photos / "singlemarkers.jpg").read_bytes())
    result = CliRunner().invoke(cli, ["calibrate", str(folder), "--out", str(tmp_path / "c.json")])
    assert result.exit_code == 2
    assert "no calibration board recognised" in result.output
    assert f"--board {LETTER} for calibration/board-letter.pdf" in result.output
