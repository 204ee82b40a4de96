"""Re-registration: notice a bumped camera and find the table again, keeping the lens.

The lens (intrinsics) does not change when someone knocks the camera stand;
only the table pose does. The corner anchor tags (or a calibration board left
where it lay when the profile was made) are enough to re-solve it.

The vision pipeline calls, per frame that shows anchors::

    if camera_moved(profile, ids, corners_px):
        profile = profile.with_pose(reregister(profile, ids, corners_px))

Anchors default to the profile's own (``profile.anchors``, recorded when the
frame came from anchors); pass ``anchors`` (e.g. a roster's) otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from referee.calibration.calibrate import BoardView
from referee.calibration.camera import TablePose, project
from referee.calibration.profile import CalibrationProfile
from referee.calibration.table import (
    AnchorMatch,
    match_anchors,
    pose_from_anchors,
    solve_pose,
)
from referee.errors import ProfileError, RefereeError
from referee.tags.anchors import AnchorTag
from referee.tags.board import BoardSpec

#: Median anchor-corner error (px) above which the camera counts as moved. Sub-pixel
#: corner noise stays well under it; a 1 mm nudge of a camera a metre up exceeds it.
DEFAULT_MOVED_PX = 1.5


def _anchors(
    profile: CalibrationProfile, anchors: Sequence[AnchorTag] | None
) -> tuple[AnchorTag, ...]:
    chosen = tuple(anchors) if anchors is not None else profile.anchors
    if not chosen:
        raise ProfileError(
            "the calibration profile records no anchor tags (its table frame came from "
            f"{profile.frame_source!r}); pass the roster's anchors or recalibrate with the "
            "corner anchors in view"
        )
    return chosen


def anchor_errors_px(
    profile: CalibrationProfile,
    ids: ArrayLike,
    corners_px: ArrayLike,
    anchors: Sequence[AnchorTag] | None = None,
) -> np.ndarray:
    """Pixel distance of each seen anchor corner from where the profile's pose puts it.

    Empty when no anchor is seen.
    """
    return _errors(profile, _match(profile, ids, corners_px, anchors))


def _match(
    profile: CalibrationProfile,
    ids: ArrayLike,
    corners_px: ArrayLike,
    anchors: Sequence[AnchorTag] | None,
) -> AnchorMatch:
    return match_anchors(
        profile.intrinsics, profile.table_pose, ids, corners_px, _anchors(profile, anchors)
    )


def _errors(profile: CalibrationProfile, match: AnchorMatch) -> np.ndarray:
    if not match.tags:
        return np.zeros(0)
    xyz = np.column_stack([match.table_xy, np.zeros(len(match.table_xy))])
    expected = project(profile.intrinsics, profile.table_pose, xyz)
    return np.asarray(np.linalg.norm(expected - match.pixels, axis=1))


def camera_moved(
    profile: CalibrationProfile,
    ids: ArrayLike,
    corners_px: ArrayLike,
    anchors: Sequence[AnchorTag] | None = None,
    threshold_px: float = DEFAULT_MOVED_PX,
    min_anchors: int = 1,
) -> bool:
    """True when the seen anchors sit more than ``threshold_px`` (median) from where they should.

    False when fewer than ``min_anchors`` anchors are seen: hands over the
    corners are no evidence of a bump.
    """
    # Called per frame by the pipeline: match the anchors once, for the count and the errors.
    match = _match(profile, ids, corners_px, anchors)
    if len(match.tags) < min_anchors:
        return False
    return bool(np.median(_errors(profile, match)) > threshold_px)


def reregister(
    profile: CalibrationProfile,
    ids: ArrayLike,
    corners_px: ArrayLike,
    anchors: Sequence[AnchorTag] | None = None,
    min_anchors: int = 2,
) -> TablePose:
    """The new table pose from the anchors seen in one frame (intrinsics unchanged).

    Starts from the profile's pose (so each anchor's facing is known even
    after a sizeable twist) and also tries a fresh solve when three or more
    anchors are visible, keeping whichever explains the pixels better.
    Raises :class:`RefereeError` naming the missing anchors when fewer than
    ``min_anchors`` are seen.
    """
    chosen = _anchors(profile, anchors)
    fit = pose_from_anchors(
        profile.intrinsics,
        ids,
        corners_px,
        chosen,
        initial=profile.table_pose,
        min_anchors=min_anchors,
    )
    seen = {int(i) for i in np.asarray(ids).ravel()} & {a.tag for a in chosen}
    if len(seen) >= 3 and fit.rms_px > 1.0:
        try:
            fresh = pose_from_anchors(profile.intrinsics, ids, corners_px, chosen)
        except RefereeError:
            return fit.pose
        if fresh.rms_px < fit.rms_px:
            return fresh.pose
    return fit.pose


def reregister_board(profile: CalibrationProfile, view: BoardView) -> TablePose:
    """The new table pose from a board still lying where it lay at calibration.

    Only for profiles whose frame came from the board (``frame_source ==
    "board"``): the board's corners are then at known table positions.
    ``view`` is the board as detected now (:class:`BoardDetector`).
    """
    if profile.frame_source != "board" or not profile.board:
        raise ProfileError(
            "re-registering from the board needs a profile whose table frame came from the "
            f"board (this one's came from {profile.frame_source!r})"
        )
    if len(view) < 4:
        raise RefereeError(
            f"only {len(view)} board corners are visible; re-registration needs at least 4"
        )
    spec = BoardSpec.parse(profile.board)
    if spec.corner_count <= int(view.ids.max()):
        raise RefereeError(f"the board seen does not match the profile's {profile.board}")
    xyz = view.object_in(profile.table.inch_mm)
    return solve_pose(profile.intrinsics, xyz, view.corners_px, initial=profile.table_pose).pose
