"""Re-registration: a bumped camera is noticed through the anchors and the table found again."""

from __future__ import annotations

import numpy as np
import pytest

from referee.calibration.calibrate import BoardView
from referee.calibration.camera import Intrinsics, TablePose, project, table_xyz
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.calibration.register import (
    anchor_errors_px,
    camera_moved,
    reregister,
    reregister_board,
)
from referee.calibration.table import anchor_table_corners, default_anchors
from referee.errors import ProfileError, RefereeError
from referee.tags.board import BoardSpec

TABLE = TableSize(48, 36)
CAMERA = Intrinsics.from_fov((1920, 1080), 70, (-0.2, 0.03, 0.0, 0.0, 0.0))
ANCHORS = default_anchors("DICT_4X4_100", TABLE)
HOME = TablePose.looking_down((24, 18), 49)


def profile(pose: TablePose = HOME, **extra: object) -> CalibrationProfile:
    fields: dict[str, object] = {"frame_source": "anchors", "anchors": ANCHORS}
    fields.update(extra)
    return CalibrationProfile(CAMERA, pose, TABLE, **fields)  # type: ignore[arg-type]


def seen(pose: TablePose, headings=(0, 0, 0, 0), keep=(0, 1, 2, 3), noise=0.0, seed=0):  # type: ignore[no-untyped-def]
    """Anchor detections as a camera at ``pose`` would report them (ids, corners px)."""
    rng = np.random.default_rng(seed)
    ids, quads = [], []
    for i in keep:
        corners = anchor_table_corners(ANCHORS[i], headings[i])
        quad = project(CAMERA, pose, table_xyz(corners)) + rng.normal(0, noise, (4, 2))
        ids.append(ANCHORS[i].tag)
        quads.append(quad)
    return np.array(ids), np.array(quads)


def bumped(dx: float = 0.3, dyaw: float = 1.5, dtilt: float = 1.0) -> TablePose:
    return TablePose.looking_down((24 + dx, 18 - dx), 49.2, dtilt, dyaw)


def grid_error(pose_a: TablePose, pose_b: TablePose) -> float:
    grid = table_xyz([[x, y] for x in range(0, 49, 6) for y in range(0, 37, 6)])
    return float(np.abs(project(CAMERA, pose_a, grid) - project(CAMERA, pose_b, grid)).max())


def test_still_camera_is_not_moved() -> None:
    ids, corners = seen(HOME, noise=0.15)
    assert not camera_moved(profile(), ids, corners)
    assert np.median(anchor_errors_px(profile(), ids, corners)) < 0.5


def test_bump_is_noticed_and_undone() -> None:
    new = bumped()
    ids, corners = seen(new, noise=0.1)
    assert camera_moved(profile(), ids, corners)
    pose = reregister(profile(), ids, corners)
    assert grid_error(pose, new) < 0.3  # pixels, over the whole table
    assert not camera_moved(profile().with_pose(pose), ids, corners)


@pytest.mark.parametrize("keep", [(0, 2), (1, 3), (0, 1, 2)])
def test_two_or_three_anchors_suffice(keep: tuple[int, ...]) -> None:
    new = bumped(0.2, 1.0, 0.5)
    ids, corners = seen(new, keep=keep, noise=0.05)
    pose = reregister(profile(), ids, corners)
    assert grid_error(pose, new) < 0.5


def test_anchors_glued_any_way_round() -> None:
    """Each anchor's facing is read from the image and snapped to a right angle."""
    new = bumped()
    ids, corners = seen(new, headings=(0, 90, 180, 270))
    assert grid_error(reregister(profile(), ids, corners), new) < 0.05


def test_big_twist_recovered_from_scratch() -> None:
    """A 30-degree twist (the stand was turned): the fresh anchor solve takes over."""
    new = TablePose.looking_down((24, 18), 50, 3.0, 30.0)
    ids, corners = seen(new)
    assert grid_error(reregister(profile(), ids, corners), new) < 0.05


def test_too_few_anchors() -> None:
    ids, corners = seen(bumped(), keep=(2,))
    with pytest.raises(RefereeError, match=r"only 1 of the 4 anchor tags .*missing ids 96, 97, 99"):
        reregister(profile(), ids, corners)
    # ... and a hand over three corners is no evidence of a bump.
    assert not camera_moved(profile(), ids[:0], corners[:0])


def test_other_tags_are_ignored() -> None:
    new = bumped()
    ids, corners = seen(new)
    extra_ids = np.concatenate([ids, [5, 12]])
    extra = np.concatenate([corners, corners[:2] + 300.0])
    assert grid_error(reregister(profile(), extra_ids, extra), new) < 0.05


def test_profile_without_anchors_needs_them_given() -> None:
    bare = profile(frame_source="board", anchors=())
    ids, corners = seen(bumped())
    with pytest.raises(ProfileError, match="records no anchor tags"):
        reregister(bare, ids, corners)
    assert grid_error(reregister(bare, ids, corners, ANCHORS), bumped()) < 0.05


def test_board_left_on_the_table() -> None:
    spec = BoardSpec.parse("charuco:5x7:1.5in:1.1in:DICT_5X5_100")
    base = profile(frame_source="board", anchors=(), board=spec.to_string())
    corners_m = np.asarray(spec.cv_board().getChessboardCorners(), dtype=np.float64)
    ids = np.arange(len(corners_m), dtype=np.int32)
    new = bumped()
    px = project(CAMERA, new, corners_m * (1000 / 25.4))
    view = BoardView("now", ids, px, corners_m, 100.0, np.zeros(0, np.int32))
    assert grid_error(reregister_board(base, view), new) < 0.05
    with pytest.raises(ProfileError, match="came from 'anchors'"):
        reregister_board(profile(), view)
