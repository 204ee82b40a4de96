"""A tiny exact renderer for vision unit tests: tags on a grey table, with lens distortion.

Each output pixel near a tag is traced back through the camera model
(``pixels_to_table`` at the tag's height) and 4x4 supersampled, so the
rendered corners are where :func:`referee.calibration.camera.project` says
they are. The full simulator (``referee.sim``) is used for end-to-end tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.calibration.camera import Intrinsics, TablePose, pixels_to_table, project, table_xyz
from referee.tags.layout import TagLayout, marker_cells


@dataclass(frozen=True)
class Tag:
    id: int
    x: float
    y: float
    heading: float
    height: float = 0.0
    size: float = 0.8


def camera_1080p(k1: float = -0.2, table=(48.0, 36.0)) -> tuple[Intrinsics, TablePose]:
    intr = Intrinsics.from_fov((1920, 1080), 70.0, (k1, 0.0, 0.0, 0.0, 0.0))
    pose = TablePose.looking_down((table[0] / 2, table[1] / 2), 40.0, tilt_deg=8.0, yaw_deg=1.0)
    return intr, pose


def tag_corners_px(intr: Intrinsics, pose: TablePose, tag: Tag) -> np.ndarray:
    corners = TagLayout(tag.size).corners(tag.x, tag.y, tag.heading)
    return project(intr, pose, table_xyz(corners, tag.height))


def render(
    intr: Intrinsics,
    pose: TablePose,
    tags: list[Tag],
    dictionary: str = "DICT_4X4_100",
    background: int = 150,
    noise: float = 0.0,
    seed: int = 0,
    occluders: list[tuple[float, float, float]] = (),  # type: ignore[assignment]
) -> np.ndarray:
    """A BGR image of the tags; ``occluders`` are (px_x, px_y, radius_px) skin discs."""
    width, height = intr.image_size
    image = np.full((height, width), float(background))
    sub = 4
    for tag in tags:
        cells = marker_cells(dictionary, tag.id)
        n = cells.shape[0]
        layout = TagLayout(tag.size, n - 2)
        outer = project(
            intr,
            pose,
            table_xyz(TagLayout(layout.outer).corners(tag.x, tag.y, tag.heading), tag.height),
        )
        x0, y0 = np.floor(outer.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(outer.max(axis=0)).astype(int) + 3
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, width), min(y1, height)
        if x1 <= x0 or y1 <= y0:
            continue
        offsets = (np.arange(sub) + 0.5) / sub - 0.5
        gx, gy = np.meshgrid(np.arange(x0, x1), np.arange(y0, y1))
        px = (gx[..., None, None] + offsets[None, None, None, :]).repeat(sub, axis=2)
        py = (gy[..., None, None] + offsets[None, None, :, None]).repeat(sub, axis=3)
        pts = np.stack([px.ravel(), py.ravel()], axis=1)
        xy = pixels_to_table(intr, pose, pts, tag.height)
        h = np.radians(tag.heading)
        fwd = np.array([np.cos(h), np.sin(h)])
        right = np.array([-np.sin(h), np.cos(h)])
        rel = xy - [tag.x, tag.y]
        f = rel @ fwd
        r = rel @ right
        # Marker cell coordinates: row 0 at the front (f = +size/2), column 0 at the left.
        row = (layout.size / 2 - f) / layout.cell
        col = (r + layout.size / 2) / layout.cell
        inside_outer = (np.abs(f) <= layout.outer / 2) & (np.abs(r) <= layout.outer / 2)
        in_marker = (row >= 0) & (row < n) & (col >= 0) & (col < n)
        value = np.where(inside_outer, 255.0, np.nan)
        ri = np.clip(row.astype(int), 0, n - 1)
        ci = np.clip(col.astype(int), 0, n - 1)
        value = np.where(in_marker, np.where(cells[ri, ci], 255.0, 20.0), value)
        value = value.reshape(y1 - y0, x1 - x0, sub * sub)
        region = image[y0:y1, x0:x1]
        covered = ~np.isnan(value)
        filled = np.where(covered, value, region[..., None])
        image[y0:y1, x0:x1] = filled.mean(axis=2)
    bgr = np.repeat(image[..., None], 3, axis=2)
    for cx, cy, radius in occluders:
        yy, xx = np.ogrid[:height, :width]
        disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= radius**2
        bgr[disc] = (120, 150, 200)
    if noise:
        bgr += np.random.default_rng(seed).normal(0, noise, bgr.shape)
    return np.clip(np.round(bgr), 0, 255).astype(np.uint8)
