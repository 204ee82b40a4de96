"""Camera pictures turned into the table seen from straight above, and sent as JPEG.

The picture work of the live table and of the evidence kept with each verdict: remap
tables from one camera's calibration onto the table in inches (made once per camera pose,
the costly part), the mosaic of several cameras, downscaling and JPEG encoding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import project, table_xyz
from referee.calibration.profile import CalibrationProfile
from referee.errors import RefereeError


def top_down(
    image: NDArray[np.uint8], profile: CalibrationProfile, ppi: float
) -> NDArray[np.uint8]:
    """The table as seen from straight above: each output pixel is the camera pixel that sees
    that table point (lens distortion included), ``ppi`` pixels per inch, origin top-left."""
    maps = table_maps(profile, profile.table, ppi)
    out = cv2.remap(image, maps.map_x, maps.map_y, cv2.INTER_LINEAR)
    return np.asarray(out, dtype=np.uint8)


@dataclass(frozen=True)
class TableMaps:
    """Where each pixel of the top-down picture is in one camera's picture (the costly part
    of :func:`top_down`, the same for every frame until the camera is bumped)."""

    profile: CalibrationProfile
    map_x: NDArray[np.float32]
    map_y: NDArray[np.float32]
    inside: NDArray[np.bool_]
    """Table pixels this camera's picture holds."""


def table_maps(profile: CalibrationProfile, table: Any, ppi: float) -> TableMaps:
    """The remap tables of ``profile``'s camera onto ``table`` at ``ppi`` pixels per inch."""
    width = max(1, round(table.width * ppi))
    depth = max(1, round(table.depth * ppi))
    xs = (np.arange(width) + 0.5) / ppi
    ys = (np.arange(depth) + 0.5) / ppi
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    pixels = project(profile.intrinsics, profile.table_pose, table_xyz(grid))
    maps = pixels.reshape(depth, width, 2).astype(np.float32)
    w, h = profile.intrinsics.image_size
    inside = (
        np.isfinite(maps).all(axis=2)
        & (maps[..., 0] >= 0)
        & (maps[..., 0] <= w - 1)
        & (maps[..., 1] >= 0)
        & (maps[..., 1] <= h - 1)
    )
    return TableMaps(profile, maps[..., 0].copy(), maps[..., 1].copy(), inside)


def top_down_mosaic(pictures: Sequence[tuple[NDArray[np.uint8], TableMaps]]) -> NDArray[np.uint8]:
    """:func:`top_down` of several cameras over one table: each table point from the first
    camera (in camera order) whose picture holds it, so the seam is where camera 1 ends."""
    depth, width = pictures[0][1].inside.shape
    out = np.zeros((depth, width, 3), np.uint8)
    filled = np.zeros((depth, width), bool)
    for image, maps in pictures:
        take = maps.inside & ~filled
        if take.any():
            warped = cv2.remap(image, maps.map_x, maps.map_y, cv2.INTER_LINEAR)
            out[take] = np.asarray(warped, np.uint8).reshape(depth, width, -1)[take][..., :3]
            filled |= take
    return out


def scaled(image: NDArray[np.uint8], width: int) -> NDArray[np.uint8]:
    if image.shape[1] <= width:
        return image
    height = round(image.shape[0] * width / image.shape[1])
    return np.asarray(cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA))


def jpeg(image: NDArray[np.uint8], quality: int = 75) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RefereeError("could not encode the camera picture as JPEG")
    return bytes(data)
