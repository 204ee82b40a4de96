"""The calibration profile file: round trip, and clear refusals of anything else."""

from __future__ import annotations

import json

import numpy as np
import pytest

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize, load_profile
from referee.errors import ProfileError
from referee.tags.anchors import AnchorTag


def make_profile() -> CalibrationProfile:
    return CalibrationProfile(
        intrinsics=Intrinsics.from_fov((1920, 1080), 70, (-0.2, 0.03, 0, 0, 0)),
        table_pose=TablePose.looking_down((24, 18), 40, tilt_deg=5),
        table=TableSize(48, 36),
        frame_source="anchors",
        board="charuco:5x7:0.04m:0.02m:DICT_6X6_250",
        rms_px=0.2,
        view_errors_px=(0.18, 0.22),
        views_used=2,
        anchors=(AnchorTag(96, 1.5, 1.5, 2.0),),
    )


def test_profile_round_trips_through_its_file(tmp_path):
    profile = make_profile()
    path = tmp_path / "camera.json"
    profile.save(path)
    loaded = load_profile(path)
    assert loaded.table == profile.table
    assert loaded.anchors == profile.anchors
    assert loaded.board == profile.board
    assert np.array_equal(loaded.intrinsics.matrix, profile.intrinsics.matrix)
    assert np.array_equal(loaded.table_pose.tvec, profile.table_pose.tvec)
    assert loaded.created == profile.created


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "invalid JSON at line 1 column 2"),
        ('{"pieces": []}', "not a table referee calibration profile"),
        ('{"format": "table-referee/calibration", "version": 99}', "unsupported profile version"),
    ],
)
def test_foreign_or_corrupt_profiles_get_one_line_errors(tmp_path, text, message):
    path = tmp_path / "p.json"
    path.write_text(text)
    with pytest.raises(ProfileError, match=message) as error:
        load_profile(path)
    assert "\n" not in str(error.value)
    assert str(path) in str(error.value)


def test_a_broken_field_is_named_by_its_json_path(tmp_path):
    data = make_profile().to_json()
    data["distortion"] = [0.1, 0.2, 0.3]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match=r"\$\.distortion"):
        load_profile(path)


def test_missing_profile_says_how_to_make_one(tmp_path):
    with pytest.raises(ProfileError, match="referee calibrate"):
        load_profile(tmp_path / "absent.json")


def test_a_profile_that_is_not_text_is_one_line_not_a_traceback(tmp_path):
    path = tmp_path / "camera.json"
    path.write_bytes(b"\xff\xfe{")
    with pytest.raises(ProfileError, match=r"cannot read calibration profile.*referee calibrate"):
        load_profile(path)
