"""Evidence with every ruling: what the camera saw when a verdict was logged.

For a verdict about some pieces, two compact JPEGs: a crop of the camera frame around the
pieces (for a pair, one crop covering both and the line between them) and the same table
region seen from straight above. Kept cheap, as it runs on the frame loop: only the crop's
region is remapped, from a coarse grid of projected points scaled up.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import project, table_xyz
from referee.calibration.profile import CalibrationProfile
from referee.vision.pipeline import FrameResult
from referee.vision.topdown import jpeg

Image = NDArray[np.uint8]

MAX_BYTES = 40 * 1024
"""One verdict's pictures together at most (quality, then size, lowered until they fit)."""
MARGIN_IN = 2.0
"""Inches of table kept around the pieces (a base and what stands next to it)."""
TOP_PPI = 10.0
"""Pixels per inch of the top-down crop."""
MAX_SIDE = 400
"""Longest side of a crop in pixels, before the budget shrinks it further."""
QUALITIES = (70, 50, 35)
_GRID_STEP = 8
"""Top-down pixels between two projected points: the remap tables in between are
interpolated (lens distortion varies slowly over a few pixels)."""


def camera_for(
    result: FrameResult, names: Sequence[str]
) -> tuple[Image | None, CalibrationProfile]:
    """The frame and profile of the camera that saw most of the pieces ``names`` this tick
    (the first such camera on a tie, the first camera when none did): over a table two
    cameras share, a piece only the far camera sees is shown from that camera."""
    views = [v for v in result.views if v.image is not None]
    if len(views) < 2:
        return result.image, result.profile
    wanted = set(names)
    best = max(views, key=lambda v: sum(p.id in wanted for p in v.pieces))  # first of ties
    return best.image, best.profile


def _table_box(
    points: Sequence[tuple[float, float]], width: float, depth: float
) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    x0 = max(0.0, min(xs) - MARGIN_IN)
    y0 = max(0.0, min(ys) - MARGIN_IN)
    x1 = min(width, max(xs) + MARGIN_IN)
    y1 = min(depth, max(ys) + MARGIN_IN)
    return x0, y0, max(x1, x0 + 1.0), max(y1, y0 + 1.0)


def _fit(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    h, w = image.shape[:2]
    scale = MAX_SIDE / max(h, w)
    if scale >= 1.0:
        return image
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)


def camera_crop(
    image: NDArray[np.uint8], profile: CalibrationProfile, box: tuple[float, float, float, float]
) -> NDArray[np.uint8] | None:
    """The camera frame's pixels that see the table box ``(x0, y0, x1, y1)``; None when the
    camera does not see it."""
    x0, y0, x1, y1 = box
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), ((x0 + x1) / 2, (y0 + y1) / 2)]
    pixels = project(profile.intrinsics, profile.table_pose, table_xyz(corners))
    if not np.isfinite(pixels).all():
        return None
    h, w = image.shape[:2]
    left = int(max(0, np.floor(pixels[:, 0].min())))
    top = int(max(0, np.floor(pixels[:, 1].min())))
    right = int(min(w, np.ceil(pixels[:, 0].max()) + 1))
    bottom = int(min(h, np.ceil(pixels[:, 1].max()) + 1))
    if right - left < 2 or bottom - top < 2:
        return None
    # Every k-th pixel, not a resize of the whole crop: a crop spanning the table is most of
    # a 1080p frame, and only the few pixels kept are copied (what keeps this under 1 ms).
    step = max(1, -(-max(right - left, bottom - top) // MAX_SIDE))
    return np.ascontiguousarray(image[top:bottom:step, left:right:step])


def top_crop(
    image: NDArray[np.uint8], profile: CalibrationProfile, box: tuple[float, float, float, float]
) -> NDArray[np.uint8]:
    """The table box seen from straight above, ``TOP_PPI`` pixels per inch (origin top-left,
    as the dashboard's top-down view)."""
    x0, y0, x1, y1 = box
    width = max(2, round((x1 - x0) * TOP_PPI))
    depth = max(2, round((y1 - y0) * TOP_PPI))
    gw = max(2, width // _GRID_STEP + 1)
    gh = max(2, depth // _GRID_STEP + 1)
    xs = np.linspace(x0, x1, gw)
    ys = np.linspace(y0, y1, gh)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    pixels = project(profile.intrinsics, profile.table_pose, table_xyz(grid))
    maps = pixels.reshape(gh, gw, 2).astype(np.float32)
    full = cv2.resize(maps, (width, depth), interpolation=cv2.INTER_LINEAR)
    map_x, map_y = np.ascontiguousarray(full[..., 0]), np.ascontiguousarray(full[..., 1])
    out = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR)
    return _fit(np.asarray(out, np.uint8))


def _encoded(pictures: dict[str, NDArray[np.uint8]]) -> dict[str, bytes]:
    """The pictures as JPEGs of at most :data:`MAX_BYTES` together: lower quality first,
    then halve their size, until they fit."""
    while True:
        for quality in QUALITIES:
            out = {kind: jpeg(picture, quality) for kind, picture in pictures.items()}
            if sum(len(b) for b in out.values()) <= MAX_BYTES:
                return out
        if all(min(p.shape[:2]) <= 16 for p in pictures.values()):
            return {}  # cannot fit however small: no evidence rather than a broken budget
        pictures = {
            kind: np.asarray(
                cv2.resize(
                    p,
                    (max(8, p.shape[1] // 2), max(8, p.shape[0] // 2)),
                    interpolation=cv2.INTER_AREA,
                ),
                np.uint8,
            )
            for kind, p in pictures.items()
        }


def capture(
    image: NDArray[np.uint8], profile: CalibrationProfile, points: Sequence[tuple[float, float]]
) -> dict[str, bytes]:
    """Evidence kind -> JPEG for a verdict about pieces at the table ``points`` (inches)."""
    if not points:
        return {}
    box = _table_box(points, profile.table.width, profile.table.depth)
    pictures: dict[str, NDArray[np.uint8]] = {}
    camera = camera_crop(image, profile, box)
    if camera is not None:
        pictures["camera"] = camera
    pictures["top"] = top_crop(image, profile, box)
    return _encoded(pictures)
