"""Pose: tag pixels -> piece centre, heading and footprint in table inches.

Each tag's corners are undistorted and their viewing rays intersected with
the plane at the tag's roster height (a tag on a tank roof 0.9 in up lands
up to half an inch off if mapped onto the table top), the tag's centre and
facing are taken in table inches, and the roster's tag offset is undone to
give the base centre. Anchor tags are split off (they locate the table, not
a piece) and ids that are in neither list are reported as unknown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.calibration.camera import inches_per_pixel, pixels_to_table, project, table_xyz
from referee.calibration.profile import CalibrationProfile
from referee.geometry import base_corners, front_point
from referee.markers.roster import Roster, RosterEntry
from referee.tags.detect import Detections
from referee.tags.layout import anchor_ids, heading_from_corners

#: Corner localisation noise of the detector, px (1 sigma, measured on simulated footage).
CORNER_NOISE_PX = 0.15


@dataclass(frozen=True)
class PiecePose:
    """Where one piece is, as seen in one frame (or as the tracker settled it)."""

    id: str
    """Piece id from the roster."""
    tag: int
    x: float
    """Base centre, table inches."""
    y: float
    heading: float
    """Facing in degrees [0, 360): 0 along +x, 90 along +y."""
    uncertainty: float
    """About two standard deviations of the position, inches."""
    seen: bool = True
    """Whether the tag was detected in this frame (False: last known pose)."""

    def front(self, depth: float) -> tuple[float, float]:
        """Front point of a base ``depth`` inches deep: centre + depth/2 along the heading.

        >>> PiecePose("a", 1, 10.0, 5.0, 90.0, 0.0).front(2.0)
        (10.0, 6.0)
        """
        return front_point(self.x, self.y, self.heading, depth)

    def footprint(self, base: tuple[float, float]) -> NDArray[np.float64]:
        """Base rectangle corners (4, 2), inches: front-left, front-right, back-right, back-left."""
        return base_corners(self.x, self.y, self.heading, base)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tag": self.tag,
            "x": round(self.x, 4),
            "y": round(self.y, 4),
            "heading": round(self.heading, 2),
            "uncertainty": round(self.uncertainty, 4),
            "seen": self.seen,
        }


@dataclass(frozen=True)
class FramePoses:
    """What one frame's detections mean on the table."""

    pieces: tuple[PiecePose, ...]
    """One pose per detected roster tag, including duplicates (the tracker decides)."""
    anchors: Detections
    """Detections of anchor tags (table corners)."""
    unknown: tuple[int, ...]
    """Detected ids that are neither pieces nor anchors, sorted."""


class PoseEstimator:
    """Maps :class:`Detections` to :class:`PiecePose` values for one profile and roster."""

    def __init__(
        self,
        profile: CalibrationProfile,
        roster: Roster,
        corner_noise_px: float = CORNER_NOISE_PX,
    ) -> None:
        self.profile = profile
        self.roster = roster
        self.corner_noise_px = corner_noise_px
        anchors = {a.tag for a in roster.anchors} | {a.tag for a in profile.anchors}
        if not anchors:
            anchors = set(anchor_ids(roster.dictionary))
        self.anchor_ids = frozenset(anchors)

    def with_profile(self, profile: CalibrationProfile) -> PoseEstimator:
        """The same estimator for a re-registered camera."""
        return PoseEstimator(profile, self.roster, self.corner_noise_px)

    def estimate(self, detections: Detections) -> FramePoses:
        """Poses of every roster piece whose tag is in ``detections``."""
        is_anchor = np.isin(detections.ids, list(self.anchor_ids))
        entries = [self.roster.by_tag(int(i)) for i in detections.ids]
        known = np.array([e is not None for e in entries], dtype=bool).reshape(-1)
        unknown = tuple(sorted({int(i) for i in detections.ids[~known & ~is_anchor]}))
        pieces = detections[known & ~is_anchor]
        poses = self._poses(
            pieces, [e for e, k, a in zip(entries, known, is_anchor, strict=True) if k and not a]
        )
        return FramePoses(tuple(poses), detections[is_anchor], unknown)

    def _poses(self, found: Detections, entries: list[RosterEntry | None]) -> list[PiecePose]:
        if not len(found):
            return []
        intr, pose = self.profile.intrinsics, self.profile.table_pose
        heights = np.array([e.tag_height for e in entries if e is not None])
        corners_px = found.corners_px.reshape(-1, 2)
        corner_heights = np.repeat(heights, 4)
        table = pixels_to_table(intr, pose, corners_px, corner_heights).reshape(-1, 4, 2)
        centres = table.mean(axis=1)
        headings = heading_from_corners(table)
        ipp = inches_per_pixel(intr, pose, found.centers_px, heights)
        rms = self.profile.rms_px or 0.0
        side_in = np.linalg.norm(table - np.roll(table, -1, axis=1), axis=2).mean(axis=1)
        out = []
        for k, entry in enumerate(entries):
            assert entry is not None
            h = math.radians(float(headings[k]))
            fwd = np.array([math.cos(h), math.sin(h)])
            right = np.array([-math.sin(h), math.cos(h)])
            off_f, off_r = entry.tag_offset
            centre = centres[k] - off_f * fwd - off_r * right
            # Centre: mean of 4 corners; heading error ~ corner noise / tag side, scaled by offset.
            sigma_centre = ipp[k] * math.hypot(self.corner_noise_px / 2, rms)
            sigma_heading = ipp[k] * self.corner_noise_px / max(float(side_in[k]), 1e-6)
            sigma = math.hypot(sigma_centre, sigma_heading * math.hypot(off_f, off_r))
            out.append(
                PiecePose(
                    id=entry.id,
                    tag=entry.tag,
                    x=float(centre[0]),
                    y=float(centre[1]),
                    heading=float(headings[k]),
                    uncertainty=2.0 * sigma,
                )
            )
        return [p for p in out if math.isfinite(p.x) and math.isfinite(p.y)]


def point_doubt(
    profile: CalibrationProfile, xy: ArrayLike, corner_noise_px: float = CORNER_NOISE_PX
) -> NDArray[np.float64]:
    """How far a bare point of the table (height 0) may be from where the map shows it, in
    inches: the same two sigma as a piece's centre (corner noise and the calibration's RMS
    through the local inches per pixel), for a tape laid on the map. NaN off the camera."""
    points = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    intr, pose = profile.intrinsics, profile.table_pose
    pixels = project(intr, pose, table_xyz(points))
    ipp = inches_per_pixel(intr, pose, pixels)
    w, h = intr.image_size
    seen = (pixels[:, 0] >= 0) & (pixels[:, 0] < w) & (pixels[:, 1] >= 0) & (pixels[:, 1] < h)
    sigma = ipp * math.hypot(corner_noise_px / 2, profile.rms_px or 0.0)
    return np.asarray(np.where(seen, 2.0 * sigma, np.nan), dtype=np.float64)
