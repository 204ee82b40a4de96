"""Calibration's refusals name the fix: the board's ChArUco pattern, the table's size."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.tags.board import BoardSpec

BOARD = "charuco:6x8:30mm:22mm:DICT_5X5_100"


def board_photos(folder: Path, spec: BoardSpec) -> Path:
    """Three photos of the printed board, turned a little each time."""
    folder.mkdir()
    sheet = spec.cv_board().generateImage((600, 800), marginSize=30)
    for k, angle in enumerate((-8.0, 0.0, 9.0)):
        canvas = np.full((960, 1280), 200, np.uint8)
        canvas[80:880, 340:940] = sheet
        turn = cv2.getRotationMatrix2D((640, 480), angle, 1.0)
        photo = cv2.warpAffine(canvas, turn, (1280, 960), borderValue=200)
        cv2.imwrite(str(folder / f"view_{k}.png"), cv2.GaussianBlur(photo, (0, 0), 0.7))
    return folder


@pytest.mark.parametrize(
    ("printed", "given", "said"),
    [
        (BOARD + ":legacy", BOARD, "add the :legacy ending"),
        (BOARD, BOARD + ":legacy", "drop the :legacy ending"),
    ],
)
def test_board_of_the_other_charuco_pattern_names_the_legacy_ending(
    tmp_path: Path, printed: str, given: str, said: str
) -> None:
    photos = board_photos(tmp_path / "photos", BoardSpec.parse(printed))
    out = tmp_path / "camera.json"
    result = CliRunner().invoke(
        cli, ["calibrate", str(photos), "--board", given, "--out", str(out)]
    )
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("referee: error:")
    assert said in line
    assert f"--board {BoardSpec.parse(printed).to_string()}" in line
    assert not out.exists()
