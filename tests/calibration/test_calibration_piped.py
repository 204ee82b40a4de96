"""``calibrate`` piped or redirected says one line per stage (README: "Progress bars"), not
a line per view: the advice "12 views; no corners yet near ..." carried the view count, so
every view looked like new advice (issue 42)."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
from click.testing import CliRunner

from referee.cli import cli
from referee.tags.board import BoardSpec

#: The calibration tests' simulated board (conftest.SIM_BOARD), big enough at 1280x720.
SIM_BOARD = BoardSpec.parse("charuco:5x7:1.5in:1.1in:DICT_5X5_100")


def _clip(folder: Path, frames: list) -> Path:
    """The frames as a 5 fps video (calibrate samples one every 0.2 s: each frame once)."""
    path = folder / "clip.mp4"
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 5.0, (w, h))
    for frame in frames:
        writer.write(frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR))
    writer.release()
    return path


def test_calibrate_piped_says_one_line_per_stage(tmp_path, sim, sim_rig, held_frames):
    table = sim.render_table(sim_rig, board=SIM_BOARD)
    clip = _clip(tmp_path, [f.image for f in held_frames] + [table] * 3)
    out = tmp_path / "camera.json"
    args = ["calibrate", str(clip), "--board", SIM_BOARD.to_string(), "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if not line.startswith("referee: ")]
    # "calibrate: reading board views: 15 views (last: ...; 15 views; every region ...)"
    ends = [re.match(r"calibrate: ([a-z ]+): \d+ views? \(last: ", line) for line in lines]
    assert lines and all(ends), lines  # stage lines only, no advice line per view
    stages = [end.group(1) for end in ends if end]
    assert len(stages) == len(set(stages)), lines  # each stage once, when it ends
    assert stages == ["reading board views"]  # --board given: the board needs no identifying
    assert "\r" not in result.stderr
    views = re.search(r": (\d+) views? \(last: ", lines[-1])
    assert views is not None and int(views.group(1)) >= len(held_frames), lines
    assert f"{views.group(1)} views (last" in lines[-1]  # counted in the plural
    assert out.is_file()
