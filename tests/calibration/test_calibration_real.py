"""Calibrating from OpenCV's real ChArUco photographs, and the command's behaviour on bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.calibration.calibrate import (
    BoardDetector,
    Frame,
    calibrate_frames,
    iter_folder,
)
from referee.calibration.profile import TableSize, load_profile
from referee.calibration.table import detect_markers
from referee.cli import cli
from referee.errors import RefereeError
from referee.tags.board import BoardSpec

REAL = Path(__file__).resolve().parents[1] / "data" / "calibration" / "real-images"
CHARUCO = REAL / "charuco-calibration"
SPEC = "charuco:5x7:0.04m:0.02m:DICT_6X6_250"
#: OpenCV's reference calibration of these four photos (reference_calibration.yml).
REFERENCE = {"fx": 452.51, "fy": 456.77, "cx": 317.70, "cy": 277.75}


@pytest.fixture()
def photos(tmp_path: Path) -> Path:
    folder = tmp_path / "photos"
    folder.mkdir()
    for name in ("img_00.jpg", "img_01.jpg", "img_02.jpg", "img_03.jpg"):
        shutil.copy(CHARUCO / name, folder / name)
    return folder


def test_real_photos_match_opencv_reference(photos: Path) -> None:
    run = calibrate_frames(iter_folder(photos), spec=BoardSpec.parse(SPEC), table=TableSize(48, 36))
    intr = run.profile.intrinsics
    assert run.solution.rms_px <= 0.25
    for name, value in REFERENCE.items():
        assert getattr(intr, name) == pytest.approx(value, rel=0.02), name
    assert len(run.profile.view_errors_px) == run.profile.views_used == 4
    assert all(0 < e < 0.5 for e in run.profile.view_errors_px)
    # The last photo is the table view: the board defines a provisional frame.
    assert run.profile.frame_source == "board"
    assert run.table is not None and run.table.rms_px < 0.5


def test_reference_file_agrees_with_test_constants() -> None:
    fs = cv2.FileStorage(str(CHARUCO / "reference_calibration.yml"), cv2.FILE_STORAGE_READ)
    matrix = fs.getNode("camera_matrix").mat()
    fs.release()
    assert matrix[0, 0] == pytest.approx(REFERENCE["fx"], abs=0.01)
    assert matrix[1, 2] == pytest.approx(REFERENCE["cy"], abs=0.01)


def test_single_markers_photo_finds_all_six() -> None:
    gray = cv2.imread(str(REAL / "singlemarkers.jpg"), cv2.IMREAD_GRAYSCALE)
    ids, corners = detect_markers(gray, "DICT_6X6_250")
    assert sorted(ids.tolist()) == [23, 40, 62, 98, 124, 203]
    assert corners.shape == (6, 4, 2)


def test_occluded_board_still_gives_corners() -> None:
    view = BoardDetector(BoardSpec.parse(SPEC)).detect(cv2.imread(str(CHARUCO / "occluded.jpg")))
    assert 6 <= len(view) < 24
    assert view.object_m.shape == (len(view), 3)


def test_cli_writes_profile_and_prints_per_view_table(photos: Path, tmp_path: Path) -> None:
    out = tmp_path / "cam.json"
    result = CliRunner().invoke(cli, ["calibrate", str(photos), "--out", str(out), "--board", SPEC])
    assert result.exit_code == 0, result.output
    for name in ("img_00.jpg", "img_03.jpg", "RMS 0.1", "fx 457", "wrote"):
        assert name in result.output
    profile = load_profile(out)
    assert profile.board == SPEC
    assert profile.rms_px is not None and profile.rms_px <= 0.25
    assert profile.intrinsics.image_size == (640, 480)


def _fails(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("referee: error: ")
    return line


def test_wrong_dictionary_names_the_one_seen(photos: Path, tmp_path: Path) -> None:
    out = tmp_path / "cam.json"
    out.write_text('{"keep": "me"}')
    line = _fails(
        [
            "calibrate",
            str(photos),
            "--out",
            str(out),
            "--board",
            "charuco:5x7:0.04m:0.02m:DICT_4X4_50",
        ]
    )
    assert "markers of DICT_6X6_50 were found" in line and "pass --board" in line
    assert json.loads(out.read_text()) == {"keep": "me"}  # a failed run never overwrites
    # The suggested spec works (DICT_6X6_50 holds the same markers as DICT_6X6_250).
    suggested = line.rsplit("--board ", 1)[1]
    result = CliRunner().invoke(
        cli, ["calibrate", str(photos), "--out", str(out), "--board", suggested]
    )
    assert result.exit_code == 0, result.output
    assert load_profile(out).rms_px is not None


def test_wrong_grid_says_check_the_size(photos: Path, tmp_path: Path) -> None:
    line = _fails(
        [
            "calibrate",
            str(photos),
            "--out",
            str(tmp_path / "x.json"),
            "--board",
            "charuco:7x5:0.04m:0.02m:DICT_6X6_250",
        ]
    )
    assert "board size" in line
    assert not (tmp_path / "x.json").exists()


def test_no_spec_and_no_qr(photos: Path, tmp_path: Path) -> None:
    line = _fails(["calibrate", str(photos), "--out", str(tmp_path / "x.json")])
    assert "the board is the printed 5x7 board but its QR code was not read" in line
    assert "--board charuco:5x7:0.03m:0.021m:DICT_6X6_250" in line


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--board", "charuco:5x7:0.04:0.02m:DICT_6X6_250"], "needs a unit"),
        (["--board", SPEC, "--table", "48by36"], "WIDTHxDEPTH"),
        (["--board", SPEC, "--table", "0x36"], "positive"),
    ],
)
def test_bad_options(photos: Path, tmp_path: Path, args: list[str], fragment: str) -> None:
    line = _fails(["calibrate", str(photos), "--out", str(tmp_path / "x.json"), *args])
    assert fragment in line


def test_too_few_views(photos: Path, tmp_path: Path) -> None:
    for extra in ("img_01.jpg", "img_02.jpg"):
        (photos / extra).unlink()
    line = _fails(["calibrate", str(photos), "--out", str(tmp_path / "x.json"), "--board", SPEC])
    assert "only 2 usable board view(s)" in line and "at least 3" in line


def test_empty_and_missing_sources(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = str(tmp_path / "x.json")
    assert "no images" in _fails(["calibrate", str(empty), "--out", out, "--board", SPEC])
    assert "no such camera" in _fails(
        ["calibrate", str(tmp_path / "nope"), "--out", out, "--board", SPEC]
    )
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"not a video at all")
    assert "clip.mp4" in _fails(["calibrate", str(video), "--out", out, "--board", SPEC])


def test_corrupt_image_in_folder(photos: Path, tmp_path: Path) -> None:
    (photos / "img_09.jpg").write_bytes(b"\xff\xd8 truncated")
    line = _fails(["calibrate", str(photos), "--out", str(tmp_path / "x.json"), "--board", SPEC])
    assert "img_09.jpg" in line and "cannot read image" in line


def test_blurry_source_says_blurry() -> None:
    image = cv2.imread(str(CHARUCO / "img_00.jpg"))
    blurred = cv2.GaussianBlur(image, (0, 0), 6)
    frames = [Frame(f"b{i}", np.roll(blurred, 40 * i, axis=1)) for i in range(4)]
    with pytest.raises(RefereeError, match="blurry"):
        calibrate_frames(frames, spec=BoardSpec.parse(SPEC), table=TableSize(48, 36))


def test_video_source(photos: Path, tmp_path: Path) -> None:
    """A video is sampled and calibrated like a folder; its last frame is the table view."""
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (640, 480))
    for name in sorted(photos.iterdir()):
        frame = cv2.imread(str(name))
        for _ in range(5):
            writer.write(frame)
    writer.release()
    out = tmp_path / "cam.json"
    result = CliRunner().invoke(
        cli, ["calibrate", str(video), "--out", str(out), "--board", SPEC, "--every", "0.3"]
    )
    assert result.exit_code == 0, result.output
    profile = load_profile(out)
    # Frames repeat five times each: repeats are skipped (still) or rejected (duplicate).
    assert profile.views_used == 4
    assert "duplicate" in result.output
    assert profile.rms_px is not None and profile.rms_px < 0.5


def test_committed_example_profile_is_reproducible(tmp_path: Path) -> None:
    """calibration/profiles/opencv-sample-640x480.json is what the documented command makes."""
    committed = Path(__file__).resolve().parents[2] / "calibration" / "profiles"
    out = tmp_path / "again.json"
    result = CliRunner().invoke(
        cli, ["calibrate", str(CHARUCO), "--board", SPEC, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    want = json.loads((committed / "opencv-sample-640x480.json").read_text())
    got = json.loads(out.read_text())
    for data in (want, got):
        data.pop("created")
    assert got.keys() == want.keys()
    for key, value in want.items():
        if isinstance(value, str) or value is None:
            assert got[key] == value, key
        else:
            assert np.allclose(
                np.array(_flat(got[key]), float), np.array(_flat(value), float), rtol=1e-5
            ), key


def _flat(value: object) -> list[object]:
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _flat(value[k])]
    if isinstance(value, list):
        return [x for v in value for x in _flat(v)]
    return [value]


def test_table_image_from_another_resolution(photos: Path, tmp_path: Path) -> None:
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(cv2.imread(str(CHARUCO / "img_00.jpg")), (320, 240)))
    out = tmp_path / "x.json"
    line = _fails(
        ["calibrate", str(photos), "--out", str(out), "--board", SPEC, "--table-image", str(small)]
    )
    assert "small.png" in line and "320x240" in line and "640x480" in line
    assert not out.exists()
