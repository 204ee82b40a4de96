"""The table plane refined during the game from every flat tag the camera sees.

A profile's table pose comes from one moment of the calibration clip: the anchors at the
corners and the board lying in the middle. During the game the same camera sees the
anchors and, all over the table, many more tags lying flat (bases with ``tag_height`` 0,
the tags printed on terrain templates), each of a known size, for seconds on end. A tag
of known size lying flat says how far away the table is where it lies, so tags spread
across the table pin the plane's tilt far from the anchors and the board.

:class:`PlaneRefiner` watches one camera's detections. A tag that holds still for
``window_frames`` frames (its corners within ``still_px``) gives its mean corners, which
averages the detection noise away. Once at least ``min_anchors`` anchors and
``min_flat_tags`` other flat tags are in, the pose is refined once
(:func:`referee.calibration.table.refine_with_flat_tags`: the anchors' places fixed, each
flat tag's place and facing free) and kept only if

- the fit explains every corner to ``max_rms_px``, and fits the anchors no worse than the
  old pose did (``anchor_slack_px``): a plane bent to fit tags that are not flat, or not
  the size the roster says, fits the anchors worse, and the old pose is kept; and
- no table point in view moves more than ``max_shift_in`` (a larger change is not the
  plane's small tilt but something else: a misplaced anchor; the bump watch handles a
  moved camera), and some point moves at least ``min_shift_in`` (else the plane was right).

It refines again after the camera is re-registered (:meth:`reset`). The doubt map is
worked out from the profile in force, so it follows the refined plane.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import TablePose, pixels_to_table, project, table_xyz
from referee.calibration.profile import CalibrationProfile
from referee.calibration.table import (
    FlatTag,
    match_anchors,
    refine_with_flat_tags,
    reprojection_rms,
)
from referee.markers.roster import Roster
from referee.tags.anchors import AnchorTag
from referee.tags.detect import Detections

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class PlaneSettings:
    """When the table plane is refined from the game's flat tags, and when it is kept."""

    enabled: bool = True
    window_frames: int = 24
    """Frames a tag must hold still to count (2 s at 12 frames/s): its corners averaged."""
    still_px: float = 0.3
    """A tag whose corners stray more than this from their running mean has moved."""
    min_anchors: int = 2
    """Anchors (fixed places) needed: without them the plane has no frame to keep."""
    min_flat_tags: int = 4
    """Other flat tags needed, held still, besides the anchors."""
    max_flat_tags: int = 48
    """At most this many are used (the nearest to the picture's edges first would be
    better; the first seen is simpler and enough): the fit grows with the count."""
    max_rms_px: float = 0.5
    """The refined fit must explain the corners to this, px RMS."""
    max_shift_in: float = 0.25
    """...and move no table point in view by more than this, inches."""
    min_shift_in: float = 0.005
    """A refinement that moves no table point this much is not applied: the plane was
    already right, and every piece would shift by a hair for nothing."""
    anchor_slack_px: float = 0.05
    """The refined pose may fit the anchors' corners at most this much worse (px RMS)
    than the pose it replaces."""
    report_shift_in: float = 0.02
    """A refinement that moves a table point this much or more is said (a ``table_refined``
    flag: the calibration's table view was that far off, worth calibrating again); a
    smaller one is kept without a word."""


@dataclass(frozen=True)
class PlaneRefinement:
    """A refined table pose, and what it was made from."""

    pose: TablePose
    flat_tags: int
    anchors: int
    rms_px: float
    shift_in: float
    """The largest move of a table point in view, inches."""


class PlaneRefiner:
    """One camera's watch of still flat tags; :meth:`observe` once per frame."""

    def __init__(
        self, roster: Roster, anchors: tuple[AnchorTag, ...], settings: PlaneSettings | None
    ) -> None:
        self.settings = settings or PlaneSettings()
        self.anchors = anchors
        sizes: dict[int, float] = {
            p.tag: float(p.tag_size)
            for p in roster
            if p.tag_height == 0 and p.tag_size is not None and p.tag_size > 0
        }
        for template in roster.templates:
            if template.tag_height == 0 and template.tag_size:
                sizes.update({t.tag: float(template.tag_size) for t in template.tags})
        self.sizes = sizes
        self.reset()

    def reset(self) -> None:
        """Forget the tags seen and refine again (a new registration of the camera)."""
        self._windows: dict[int, list[FloatArray]] = {}
        self._done = not self.settings.enabled

    def observe(
        self, profile: CalibrationProfile, detections: Detections
    ) -> PlaneRefinement | None:
        """The refined plane, the first frame it can be made and kept; else None."""
        if self._done:
            return None
        s = self.settings
        anchor_tags = {a.tag for a in self.anchors}
        for tag, quad in zip(detections.ids, detections.corners_px, strict=True):
            tag = int(tag)
            if tag not in self.sizes and tag not in anchor_tags:
                continue
            window = self._windows.setdefault(tag, [])
            if window and np.abs(quad - np.mean(window, axis=0)).max() > s.still_px:
                window.clear()  # it moved: count from here
            window.append(np.asarray(quad, float))
            del window[: -s.window_frames]
        # Only tags in this frame: a window left full by a piece since carried away is stale.
        now = {int(t) for t in detections.ids}
        still = {
            t: np.mean(w, axis=0)
            for t, w in self._windows.items()
            if t in now and len(w) >= s.window_frames
        }
        seen_anchors = [t for t in still if t in anchor_tags]
        flats = [t for t in still if t not in anchor_tags][: s.max_flat_tags]
        if len(seen_anchors) < s.min_anchors or len(flats) < s.min_flat_tags:
            return None
        self._done = True  # once per registration, kept or not
        return self._refine(profile, still, seen_anchors, flats)

    def _refine(
        self,
        profile: CalibrationProfile,
        still: dict[int, FloatArray],
        seen_anchors: list[int],
        flats: list[int],
    ) -> PlaneRefinement | None:
        s = self.settings
        intrinsics = profile.intrinsics
        ids = np.array(seen_anchors, np.int64)
        quads = np.array([still[t] for t in seen_anchors], float)
        pose, rms, used = refine_with_flat_tags(
            intrinsics,
            profile.table_pose,
            [],
            [],
            [FlatTag(t, self.sizes[t], still[t]) for t in flats],
            self.anchors,
            ids,
            quads,
        )
        if used < s.min_flat_tags or not np.isfinite(rms) or rms > s.max_rms_px:
            return None
        # The flat tags may only settle what the anchors leave free: a plane bent to fit
        # tags that are not flat (or not the size the roster says) fits the anchors worse.
        if anchor_rms(profile, pose, ids, quads, self.anchors) > s.anchor_slack_px + anchor_rms(
            profile, profile.table_pose, ids, quads, self.anchors
        ):
            return None
        shift = table_shift(profile, pose)
        if not np.isfinite(shift) or not s.min_shift_in <= shift <= s.max_shift_in:
            return None
        return PlaneRefinement(pose, used, len(seen_anchors), rms, shift)


def anchor_rms(
    profile: CalibrationProfile,
    pose: TablePose,
    ids: NDArray[np.int64],
    quads: FloatArray,
    anchors: tuple[AnchorTag, ...],
) -> float:
    """How well ``pose`` puts the anchors seen (``ids`` at ``quads``) where they are glued,
    px RMS over their corners."""
    match = match_anchors(profile.intrinsics, pose, ids, quads, anchors)
    xyz = table_xyz(match.table_xy, 0.0)
    return reprojection_rms(profile.intrinsics, pose, xyz, match.pixels)


def table_shift(profile: CalibrationProfile, pose: TablePose, step_in: float = 2.0) -> float:
    """How far, at most, a table point the camera sees moves when ``pose`` replaces the
    profile's, inches (a grid every ``step_in`` over the table)."""
    table = profile.table
    xs = np.arange(0.0, table.width + 1e-9, step_in)
    ys = np.arange(0.0, table.depth + 1e-9, step_in)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    pixels = project(profile.intrinsics, profile.table_pose, table_xyz(grid, 0.0))
    width, height = profile.intrinsics.image_size
    inside = (
        np.all(np.isfinite(pixels), axis=1)
        & (pixels[:, 0] >= 0)
        & (pixels[:, 0] < width)
        & (pixels[:, 1] >= 0)
        & (pixels[:, 1] < height)
    )
    if not inside.any():
        return float("inf")
    moved = pixels_to_table(profile.intrinsics, pose, pixels[inside], 0.0)
    return float(np.max(np.linalg.norm(moved - grid[inside], axis=1)))
