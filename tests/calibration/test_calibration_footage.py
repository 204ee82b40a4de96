"""The simulator's sample calibration clip calibrates to its true camera within 0.02 in."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.calibration.calibrate import calibrate_frames, iter_video
from referee.calibration.camera import pixels_to_table, project, table_xyz
from referee.calibration.profile import load_profile
from referee.tags.board import BoardSpec

FOOTAGE = Path(__file__).resolve().parents[2] / "sample_footage" / "skirmish"


@pytest.mark.skipif(
    not (FOOTAGE / "calibration.mp4").exists(), reason="sample footage not generated"
)
def test_sample_clip_calibrates_to_the_true_camera() -> None:
    true = load_profile(FOOTAGE / "camera.json")
    assert true.board is not None
    run = calibrate_frames(
        iter_video(FOOTAGE / "calibration.mp4"), spec=BoardSpec.parse(true.board), table=true.table
    )
    got = run.profile
    # The board lies flat for the clip's last seconds beside the four corner anchors.
    assert got.frame_source == "anchors"
    assert got.rms_px is not None and got.rms_px < 0.2
    grid = np.array(
        [
            (x, y)
            for x in np.arange(1, true.table.width, 2.0)
            for y in np.arange(1, true.table.depth, 2.0)
        ]
    )
    for height in (0.0, 0.9):
        px = project(true.intrinsics, true.table_pose, table_xyz(grid, height))
        error = np.linalg.norm(
            pixels_to_table(got.intrinsics, got.table_pose, px, height) - grid, axis=1
        )
        assert np.sqrt(np.mean(error**2)) < 0.02
