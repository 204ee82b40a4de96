"""A simulated projector over the table: its light added to a rendered camera frame.

The projector is described the way calibration will find it: a homography
from (undistorted) projector pixels to table inches on the flat table, plus
an optional radial distortion of its lens. Light is added per camera pixel by
inverse mapping, as :mod:`referee.sim.warp` draws textures: each camera
pixel's viewing ray meets the surface it sees (the cloth at height 0, or a
piece's top at its height), and the projector pixel lighting that table point
is read with ``cv2.remap``.

A raised top is lit by the projector pixel aimed at the table point straight
below it: a projector far above the table, as a ceiling mount is. A real
projector off to one side shifts the light on a 1 in top by a fraction of an
inch; ``tag_mask``'s margin is what absorbs that (and motion between frames).

The light is additive (projected light on a black tag cell makes it grey, the
harshest case for the detector) and dimmed by the room: ``ambient`` is the
share of the light the room's own lighting drowns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.calibration.camera import Intrinsics, TablePose, project, table_xyz
from referee.sim.render import PiecePose, TableRenderer, _rect
from referee.sim.warp import RayMap

Image = NDArray[np.uint8]
FloatArray = NDArray[np.float64]


def _matrix(values: ArrayLike) -> FloatArray:
    array = np.array(values, dtype=np.float64).reshape(3, 3)
    if not np.all(np.isfinite(array)) or abs(np.linalg.det(array)) < 1e-12:
        raise ValueError(f"projector homography must be finite and invertible, got {array}")
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class Projector:
    """A projector over the table: picture size, where its pixels land, its lens, its power."""

    resolution: tuple[int, int]
    """(width, height) of the projector's picture, pixels."""
    homography: FloatArray
    """3x3: undistorted projector pixel (homogeneous) -> table inches on the flat table."""
    k1: float = 0.0
    """Radial distortion of the lens about the picture centre, in units of the half-width."""
    brightness: float = 1.0
    """Light added by a full-white pixel on a white surface, as a share of 255."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "homography", _matrix(self.homography))
        width, height = self.resolution
        if width <= 0 or height <= 0:
            raise ValueError(f"projector resolution must be positive, got {self.resolution}")
        object.__setattr__(self, "resolution", (int(width), int(height)))

    @classmethod
    def overhead(
        cls,
        resolution: tuple[int, int],
        table_rect: tuple[float, float, float, float],
        rotation_deg: float = 0.0,
        keystone: float = 0.0,
        k1: float = 0.0,
        brightness: float = 1.0,
    ) -> Projector:
        """A projector whose picture fills ``table_rect`` (x0, y0, x1, y1 inches), roughly.

        ``rotation_deg`` turns the picture about its centre; ``keystone`` (a
        share of the width) narrows its far edge, as a projector tilted towards
        the table does.
        """
        width, height = resolution
        x0, y0, x1, y1 = table_rect
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        hw, hh = (x1 - x0) / 2, (y1 - y0) / 2
        squeeze = keystone * hw
        table = np.array(
            [[-hw + squeeze, -hh], [hw - squeeze, -hh], [hw, hh], [-hw, hh]], dtype=np.float64
        )
        turn = np.radians(rotation_deg)
        c, s = np.cos(turn), np.sin(turn)
        table = table @ np.array([[c, s], [-s, c]]) + np.array([cx, cy])
        picture = np.array(
            [[-0.5, -0.5], [width - 0.5, -0.5], [width - 0.5, height - 0.5], [-0.5, height - 0.5]]
        )
        homography = cv2.getPerspectiveTransform(
            picture.astype(np.float32), table.astype(np.float32)
        )
        return cls((width, height), np.asarray(homography, np.float64), k1, brightness)

    @property
    def centre(self) -> tuple[float, float]:
        width, height = self.resolution
        return (width - 1) / 2, (height - 1) / 2

    def distort(self, undistorted_px: FloatArray) -> FloatArray:
        """Undistorted projector pixels -> the picture pixels that really land there."""
        if self.k1 == 0.0:
            return undistorted_px
        centre = np.array(self.centre)
        scale = self.resolution[0] / 2
        offset = (undistorted_px - centre) / scale
        r2 = np.sum(offset * offset, axis=-1, keepdims=True)
        return np.asarray(centre + offset * (1 + self.k1 * r2) * scale, np.float64)

    def undistort(self, picture_px: FloatArray) -> FloatArray:
        """The inverse of :meth:`distort` (fixed-point iteration; k1 is small)."""
        if self.k1 == 0.0:
            return picture_px
        centre = np.array(self.centre)
        scale = self.resolution[0] / 2
        seen = (np.asarray(picture_px, np.float64) - centre) / scale
        offset = seen.copy()
        for _ in range(40):
            offset = seen / (1 + self.k1 * np.sum(offset * offset, axis=-1, keepdims=True))
        return np.asarray(centre + offset * scale, np.float64)

    def landing(self, picture_px: ArrayLike) -> FloatArray:
        """Picture pixels (n, 2) as shown -> where their light truly lands, table inches."""
        points = np.asarray(picture_px, np.float64).reshape(-1, 2)
        return self.picture_to_table(self.undistort(points))

    def table_to_picture(self, table_xy: FloatArray) -> FloatArray:
        """Table inches (..., 2) -> the picture pixels whose light lands there (NaN: none)."""
        inverse = np.linalg.inv(self.homography)
        points = np.asarray(table_xy, np.float64)
        homog = points @ inverse[:, :2].T + inverse[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            undistorted = homog[..., :2] / homog[..., 2:3]
        return self.distort(undistorted)

    def picture_to_table(self, picture_px: ArrayLike) -> FloatArray:
        """Undistorted picture pixels (n, 2) -> table inches (n, 2)."""
        points = np.asarray(picture_px, np.float64).reshape(-1, 2)
        mapped = cv2.perspectiveTransform(points.reshape(-1, 1, 2), self.homography)
        return np.asarray(mapped.reshape(-1, 2), np.float64)


@dataclass(frozen=True)
class RaisedTop:
    """A flat top above the table (a piece's base or the roof its tag is printed on)."""

    outline: tuple[tuple[float, float], ...]
    """Convex outline in table inches."""
    height: float
    """Inches above the table."""


def _table_points(
    normalized: NDArray[np.float32], pose: TablePose, heights: NDArray[np.float32] | float
) -> FloatArray:
    """Where each camera ray (normalized image points, (..., 2)) meets the plane
    ``heights`` above the table, (..., 2) inches."""
    rotation_t = pose.rotation.T
    rays = normalized.astype(np.float64) @ rotation_t[:, :2].T + rotation_t[:, 2]
    centre = pose.camera_center
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (-np.asarray(heights, np.float64) - centre[2]) / rays[..., 2]
    scale = np.where(scale > 0, scale, np.nan)
    return np.asarray(centre[:2] + scale[..., None] * rays[..., :2], np.float64)


def _to_maps(projector: Projector, table: FloatArray) -> tuple[FloatArray, FloatArray]:
    picture = projector.table_to_picture(table)
    picture = np.where(np.isfinite(picture), picture, -1e6)
    return picture[..., 0], picture[..., 1]


class LightMaps:
    """:func:`light_maps` for one projector, camera and camera pose, frame after frame.

    The bare table's maps are made once; each frame only the pixels that see a raised
    top are made again (a few percent of the picture), so a game of frames costs a
    frame's remap, not a full-picture ray cast each."""

    def __init__(self, projector: Projector, intrinsics: Intrinsics, pose: TablePose) -> None:
        self.projector, self.intrinsics, self.pose = projector, intrinsics, pose
        self._normalized = RayMap.for_camera(intrinsics).normalized
        flat_x, flat_y = _to_maps(projector, _table_points(self._normalized, pose, 0.0))
        self._flat = (flat_x.astype(np.float32), flat_y.astype(np.float32))

    def maps(
        self, tops: Sequence[RaisedTop] = ()
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """For every camera pixel, the projector picture pixel lighting what it sees.

        Tops are filled into a height map in the order given (the caller gives them
        lowest first, so a tag's roof wins over its base)."""
        intrinsics, pose = self.intrinsics, self.pose
        width, height = intrinsics.image_size
        heights = np.zeros((height, width), np.float32)
        for top in tops:
            px = project(intrinsics, pose, table_xyz(np.asarray(top.outline, float), top.height))
            if not np.all(np.isfinite(px)) or np.abs(px).max() > 1e5:
                continue
            pts = np.round(px * 16).astype(np.int32).reshape(-1, 1, 2)
            cv2.fillPoly(heights, [pts], float(top.height), cv2.LINE_8, 4)
        map_x, map_y = self._flat[0].copy(), self._flat[1].copy()
        raised = np.nonzero(heights)
        if raised[0].size:
            table = _table_points(self._normalized[raised], pose, heights[raised])
            map_x[raised], map_y[raised] = _to_maps(self.projector, table)
        return map_x, map_y


def light_maps(
    projector: Projector,
    intrinsics: Intrinsics,
    pose: TablePose,
    tops: Sequence[RaisedTop] = (),
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """For every camera pixel, the projector picture pixel lighting what it sees (remap maps).

    Tops are filled into a height map in the order given (the caller gives
    them lowest first, so a tag's roof wins over its base). Frame after frame under one
    camera pose, :class:`LightMaps` makes the same maps for far less.
    """
    return LightMaps(projector, intrinsics, pose).maps(tops)


def add_light(
    frame: Image,
    picture: Image,
    projector: Projector,
    intrinsics: Intrinsics,
    pose: TablePose,
    tops: Sequence[RaisedTop] = (),
    ambient: float = 0.3,
    maps: tuple[NDArray[np.float32], NDArray[np.float32]] | None = None,
) -> Image:
    """``frame`` with the projector showing ``picture`` (H x W x 3 uint8, black = no light).

    ``ambient`` in [0, 1): the share of the projected light the room's own
    light drowns (0: a dark room). ``maps`` from :func:`light_maps` may be
    passed to reuse them while nothing moves. Returns a new frame, clipped at 255.
    """
    if not 0.0 <= ambient < 1.0:
        raise ValueError(f"ambient must be in [0, 1), got {ambient}")
    expected = (projector.resolution[1], projector.resolution[0], 3)
    if picture.shape != expected:
        raise ValueError(f"projector picture must be {expected}, got {picture.shape}")
    map_x, map_y = maps if maps is not None else light_maps(projector, intrinsics, pose, tops)
    light = cv2.remap(
        picture, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )
    gain = projector.brightness * (1.0 - ambient)
    lit = frame.astype(np.float32) + light.astype(np.float32) * gain
    return np.clip(lit, 0, 255).astype(np.uint8)


def piece_tops(renderer: TableRenderer, poses: Mapping[str, PiecePose]) -> list[RaisedTop]:
    """The tops of every drawn piece (its base, then its tag's roof), lowest first."""
    entries = {entry.id: entry for entry in renderer.pieces}
    bases: list[RaisedTop] = []
    roofs: list[RaisedTop] = []
    for pid, pose in poses.items():
        entry = entries[pid]
        base = _rect(pose.x, pose.y, pose.heading, entry.base)
        bases.append(RaisedTop(_points(base), pose.lift + 0.08))
        x, y, z = renderer.tag_centre(entry, pose)
        # The roof under a raised tag is drawn a little larger than the tag's white square.
        outer = renderer.tag_layout(entry).outer * 1.05
        roofs.append(RaisedTop(_points(_rect(x, y, pose.heading, (outer, outer))), z))
    return bases + roofs


def _points(array: FloatArray) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in array)


def line_overlay(
    resolution: tuple[int, int],
    points_px: FloatArray,
    colour: tuple[int, int, int] = (255, 255, 255),
    thickness_px: int = 5,
) -> Image:
    """A picture with a line between every pair of ``points_px`` (projector pixels).

    What a verdict overlay looks like at its busiest: lines of sight criss-crossing
    the table, over pieces and tags alike (until masked).
    """
    width, height = resolution
    image = np.zeros((height, width, 3), np.uint8)
    pts = np.asarray(points_px, np.float64).reshape(-1, 2)
    shift = 4
    fixed = np.round(pts * (1 << shift)).astype(np.int64)
    for i in range(len(fixed)):
        for j in range(i + 1, len(fixed)):
            if np.abs(fixed[[i, j]]).max() > 2**30:
                continue
            a = (int(fixed[i, 0]), int(fixed[i, 1]))
            b = (int(fixed[j, 0]), int(fixed[j, 1]))
            cv2.line(image, a, b, colour, thickness_px, cv2.LINE_AA, shift)
    return image
