"""Pose: tag pixels -> piece centre, heading and footprint in table inches.

Each tag's corners are undistorted and their viewing rays intersected with
the plane at the tag's roster height (a tag on a tank roof 0.9 in up lands
up to half an inch off if mapped onto the table top), the tag's centre and
facing are taken in table inches, and the roster's tag offset is undone to
give the base centre. Anchor tags are split off (they locate the table, not
a piece) and ids that are in neither list are reported as unknown.

A terrain template's tags give one pose of the template frame's origin
(``id`` = the template's id): from one tag, that tag's centre and heading with
its place on the template undone; from several, the rigid fit of their centres
weighted by each centre's doubt (a baseline of inches turns far more exactly
than one small tag's own corners do).
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
from referee.markers.roster import Roster, RosterEntry, TemplateTag, TerrainTemplate
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
    """One pose per detected roster tag, including duplicates (the tracker decides), then
    one per terrain template with a tag in view (its id: the template's)."""
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
        """Poses of every roster piece (and terrain template) whose tag is in ``detections``."""
        is_anchor = np.isin(detections.ids, list(self.anchor_ids))
        entries = [self.roster.by_tag(int(i)) for i in detections.ids]
        on_template = [self.roster.template_by_tag(int(i)) for i in detections.ids]
        is_piece = np.array([e is not None for e in entries], dtype=bool).reshape(-1)
        is_template = np.array([t is not None for t in on_template], dtype=bool).reshape(-1)
        known = is_piece | is_template
        unknown = tuple(sorted({int(i) for i in detections.ids[~known & ~is_anchor]}))
        pieces = detections[is_piece & ~is_anchor]
        poses = self._poses(
            pieces,
            [e for e, k, a in zip(entries, is_piece, is_anchor, strict=True) if k and not a],
        )
        templates = self._template_poses(
            detections[is_template & ~is_anchor],
            [t for t, k, a in zip(on_template, is_template, is_anchor, strict=True) if k and not a],
        )
        return FramePoses((*poses, *templates), detections[is_anchor], unknown)

    def _tag_poses(
        self, found: Detections, heights: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Each tag's centre (n, 2) and heading (n,) on the table, and the doubt of its
        centre and of its heading as a sideways shift per inch of lever (n,), 1 sigma."""
        intr, pose = self.profile.intrinsics, self.profile.table_pose
        corners_px = found.corners_px.reshape(-1, 2)
        corner_heights = np.repeat(heights, 4)
        table = pixels_to_table(intr, pose, corners_px, corner_heights).reshape(-1, 4, 2)
        centres = table.mean(axis=1)
        headings = heading_from_corners(table)
        ipp = inches_per_pixel(intr, pose, found.centers_px, heights)
        rms = self.profile.rms_px or 0.0
        side_in = np.linalg.norm(table - np.roll(table, -1, axis=1), axis=2).mean(axis=1)
        # Centre: mean of 4 corners; heading error ~ corner noise / tag side.
        sigma_centre = ipp * math.hypot(self.corner_noise_px / 2, rms)
        sigma_turn = ipp * self.corner_noise_px / np.maximum(side_in, 1e-6)
        return centres, np.asarray(headings, dtype=np.float64), sigma_centre, sigma_turn

    def _poses(self, found: Detections, entries: list[RosterEntry | None]) -> list[PiecePose]:
        if not len(found):
            return []
        heights = np.array([e.tag_height for e in entries if e is not None])
        centres, headings, sigma_centre, sigma_turn = self._tag_poses(found, heights)
        out = []
        for k, entry in enumerate(entries):
            assert entry is not None
            h = math.radians(float(headings[k]))
            fwd = np.array([math.cos(h), math.sin(h)])
            right = np.array([-math.sin(h), math.cos(h)])
            off_f, off_r = entry.tag_offset
            centre = centres[k] - off_f * fwd - off_r * right
            sigma = math.hypot(sigma_centre[k], sigma_turn[k] * math.hypot(off_f, off_r))
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

    def _template_poses(
        self,
        found: Detections,
        places: list[tuple[TerrainTemplate, TemplateTag] | None],
    ) -> list[PiecePose]:
        """One pose per template from whichever of its tags are in view (a tag seen twice
        in one frame is left out: which copy is the template's is unknowable)."""
        if not len(found):
            return []
        heights = np.array([p[0].tag_height for p in places if p is not None])
        centres, headings, sigma_centre, sigma_turn = self._tag_poses(found, heights)
        counts: dict[int, int] = {}
        for tag in found.ids:
            counts[int(tag)] = counts.get(int(tag), 0) + 1
        seen: dict[str, list[int]] = {}
        for k, place in enumerate(places):
            assert place is not None
            ok = np.isfinite(centres[k]).all() and math.isfinite(float(headings[k]))
            if ok and counts[place[1].tag] == 1:
                seen.setdefault(place[0].id, []).append(k)
        out = []
        for ks in seen.values():
            template = places[ks[0]]
            assert template is not None
            tags = [places[k][1] for k in ks]  # type: ignore[index]
            out.append(
                _fit_template(
                    template[0],
                    tags,
                    centres[ks],
                    headings[ks],
                    sigma_centre[ks],
                    sigma_turn[ks],
                )
            )
        return out


def _fit_template(
    template: TerrainTemplate,
    tags: list[TemplateTag],
    centres: NDArray[np.float64],
    headings: NDArray[np.float64],
    sigma_centre: NDArray[np.float64],
    sigma_turn: NDArray[np.float64],
) -> PiecePose:
    """The template frame's pose from its tags seen (their table centres and headings).

    One tag: its own heading, its place on the template undone. Several: the weighted
    rigid fit (2D Procrustes) of their places onto their centres, each weighted by the
    inverse variance of its centre; its doubt is the fit's centroid doubt plus the turn's
    doubt over the tags' spread.
    """
    at = np.array([t.at for t in tags], dtype=np.float64)
    first = min(t.tag for t in tags)
    if len(tags) == 1:
        heading = (float(headings[0]) - tags[0].heading) % 360.0
        h = math.radians(heading)
        c, s = math.cos(h), math.sin(h)
        f, r = float(at[0, 0]), float(at[0, 1])
        x = float(centres[0, 0]) - (f * c - r * s)
        y = float(centres[0, 1]) - (f * s + r * c)
        sigma = math.hypot(float(sigma_centre[0]), float(sigma_turn[0]) * math.hypot(f, r))
        return PiecePose(template.id, first, x, y, heading, 2.0 * sigma)
    w = 1.0 / np.maximum(sigma_centre, 1e-9) ** 2
    w = w / w.sum()
    a_mean = (w[:, None] * at).sum(axis=0)
    b_mean = (w[:, None] * centres).sum(axis=0)
    a, b = at - a_mean, centres - b_mean
    cross = float((w * (a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])).sum())
    dot = float((w * (a * b).sum(axis=1)).sum())
    theta = math.atan2(cross, dot)
    c, s = math.cos(theta), math.sin(theta)
    x = float(b_mean[0] - (a_mean[0] * c - a_mean[1] * s))
    y = float(b_mean[1] - (a_mean[0] * s + a_mean[1] * c))
    spread = float(np.sqrt((w * (a**2).sum(axis=1)).sum()))
    sigma_mean = float(np.sqrt(1.0 / (1.0 / np.maximum(sigma_centre, 1e-9) ** 2).sum()))
    # The turn's doubt: centre doubt over the spread; it moves the origin by its lever.
    sigma_theta = sigma_mean / max(spread, 1e-6)
    lever = math.hypot(float(a_mean[0]), float(a_mean[1]))
    sigma = math.hypot(sigma_mean, sigma_theta * lever)
    return PiecePose(template.id, first, x, y, math.degrees(theta) % 360.0, 2.0 * sigma)


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
