"""Tag size for a camera on a tripod or a shelf at the table's edge (``markers --size auto``).

A camera looking down at a slant sees the far edge smaller than the near one,
and squashed along the line of sight. Straight-down framing (``auto_tag_size``)
then under-sizes the tags; this module places the camera and measures the
far tags instead.

The set-up: the camera stands at the middle of the table's near long side (the
``y = 0`` edge, the table's width along x), its lens ``height`` inches above
the table, tilted ``tilt`` degrees from straight down (0: overhead) towards
the far side, aimed at the table's centre; ``fov`` is its horizontal field of
view (a 1080p webcam's is about 70 degrees), pixels square, no lens
distortion (a webcam's barrel shrinks the picture's corners by a few percent
more: the size is rounded up). Every table place a tag's centre can reach is
measured, and the worst one sets the size: there a tag cell's equivalent
square (the square root of its area in pixels, so a cell squashed to 4 x 6 px
counts as 4.9) must reach ``min_px_per_cell``, the goal straight-down framing
uses too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from referee.errors import RefereeError
from referee.tags.layout import DEFAULT_DICTIONARY, marker_bits

FloatArray = NDArray[np.float64]

#: Horizontal field of view assumed without ``--fov``: a typical 1080p USB webcam's.
DEFAULT_FOV_DEG = 70.0
#: Steepest tilt accepted, degrees from straight down: beyond it the far edge is a sliver.
MAX_TILT_DEG = 75.0
#: ``--size auto`` rounds up to a multiple of this, inches (as straight-down framing).
STEP_IN = 0.05
#: Tag centres lie at least this far inside the table edges (half a 0.8 in tag's paper).
EDGE_INSET_IN = 0.5


@dataclass(frozen=True)
class ObliqueCamera:
    """Where the camera is: height of its lens, tilt from straight down, its picture."""

    height_in: float
    tilt_deg: float
    resolution: tuple[int, int]
    fov_deg: float = DEFAULT_FOV_DEG

    def describe(self) -> str:
        w, h = self.resolution
        return (
            f"a {w}x{h} camera ({self.fov_deg:g} deg view) {self.height_in:g} in up, tilted "
            f"{self.tilt_deg:g} deg from straight down"
        )


@dataclass(frozen=True)
class ObliqueSize:
    """The tag size an oblique camera needs, and why."""

    size_in: float
    worst_xy: tuple[float, float]
    """The table place where a tag looks smallest (a far corner)."""
    distance_in: float
    """From the lens to that place."""
    across_px: float
    """Pixels per tag cell there, across the line of sight (along the table's width)."""
    along_px: float
    """... and along it (squashed by the slant)."""
    equivalent_px: float
    """The cell's equivalent square side there (``sqrt(across * along)`` for a square cell)."""
    out_of_view: tuple[tuple[float, float], ...]
    """Table corners whose anchors (reaching half an inch from the edges) leave the picture."""


def _axes(camera: ObliqueCamera, table_in: tuple[float, float]) -> tuple[FloatArray, ...]:
    """Lens position and the camera's right, down and optical axes, table frame, z up."""
    width, depth = table_in
    tilt = math.radians(camera.tilt_deg)
    centre = np.array([width / 2, depth / 2, 0.0])
    forward = np.array([0.0, math.sin(tilt), -math.cos(tilt)])
    lens = centre - forward * (camera.height_in / math.cos(tilt))
    right = np.array([1.0, 0.0, 0.0])
    down = np.cross(forward, right)
    return lens, right, down, forward


def _project(
    camera: ObliqueCamera, table_in: tuple[float, float], xy: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Table points (n, 2) at z = 0 -> pixels relative to the picture's centre, and depth."""
    lens, right, down, forward = _axes(camera, table_in)
    focal = (camera.resolution[0] / 2) / math.tan(math.radians(camera.fov_deg) / 2)
    rays = np.column_stack([xy, np.zeros(len(xy))]) - lens
    depth = rays @ forward
    with np.errstate(divide="ignore", invalid="ignore"):
        px = focal * np.column_stack([rays @ right, rays @ down]) / depth[:, None]
    return px, depth


def oblique_tag_size(
    table_in: tuple[float, float],
    camera: ObliqueCamera,
    dictionary: str = DEFAULT_DICTIONARY,
    *,
    min_px_per_cell: float = 5.0,
) -> ObliqueSize:
    """The smallest tag (a multiple of 0.05 in) whose cells reach ``min_px_per_cell``
    everywhere on the table, seen by ``camera`` at the middle of the near long side.

    >>> fit = oblique_tag_size((48, 36), ObliqueCamera(40, 30, (1920, 1080)))
    >>> fit.size_in, fit.worst_xy, fit.out_of_view
    (1.45, (0.5, 35.5), ((0.0, 0.0), (48.0, 0.0)))
    >>> oblique_tag_size((48, 36), ObliqueCamera(49, 0, (1920, 1080))).size_in
    1.1
    """
    width, depth = table_in
    if min(width, depth) <= 2 * EDGE_INSET_IN:
        raise RefereeError(f"--table {width:g}x{depth:g}: too small to hold a tag")
    # The table seen from its long side: width along x, the camera at y < 0 looking +y.
    width, depth = max(width, depth), min(width, depth)
    xs = np.linspace(EDGE_INSET_IN, width - EDGE_INSET_IN, 49)
    ys = np.linspace(EDGE_INSET_IN, depth - EDGE_INSET_IN, 37)
    grid = np.array([(x, y) for y in ys for x in xs])
    _, depths = _project(camera, (width, depth), grid)
    if np.any(depths <= 1e-6):
        raise RefereeError(
            f"--camera-tilt {camera.tilt_deg:g}: from {camera.height_in:g} in up the table's far "
            "edge is at or behind the camera's horizon; tilt the camera less or raise it"
        )
    # Pixels per table inch along x and y at each place (central differences, 1/100 in).
    step = 0.01
    dx = (
        _project(camera, (width, depth), grid + np.array([step, 0.0]))[0]
        - _project(camera, (width, depth), grid - np.array([step, 0.0]))[0]
    ) / (2 * step)
    dy = (
        _project(camera, (width, depth), grid + np.array([0.0, step]))[0]
        - _project(camera, (width, depth), grid - np.array([0.0, step]))[0]
    ) / (2 * step)
    area = np.abs(dx[:, 0] * dy[:, 1] - dx[:, 1] * dy[:, 0])
    # A plane's pixel area per square inch depends on the depth along the optical axis
    # only, so a whole row ties: name the farthest place of the smallest.
    lens = _axes(camera, (width, depth))[0]
    distances = np.linalg.norm(np.column_stack([grid, np.zeros(len(grid))]) - lens, axis=1)
    smallest = np.flatnonzero(area <= float(area.min()) * (1 + 1e-3))
    worst = int(smallest[np.argmax(distances[smallest])])
    cells = marker_bits(dictionary) + 2
    per_in = math.sqrt(float(area[worst]))
    exact = cells * min_px_per_cell / per_in
    size = round(math.ceil(round(exact / STEP_IN, 6)) * STEP_IN, 4)
    cell = size / cells
    worst_xyz = np.array([*grid[worst], 0.0])
    corners = np.array([(0.0, 0.0), (width, 0.0), (width, depth), (0.0, depth)])
    # The corner anchors (their paper reaches half an inch from the edges) must be seen whole.
    inset = EDGE_INSET_IN * np.array([(1, 1), (-1, 1), (-1, -1), (1, -1)])
    corner_px, _ = _project(camera, (width, depth), corners + inset)
    half_w, half_h = camera.resolution[0] / 2, camera.resolution[1] / 2
    outside = tuple(
        (float(x), float(y))
        for (x, y), (u, v) in zip(corners, corner_px, strict=True)
        if abs(u) > half_w or abs(v) > half_h
    )
    return ObliqueSize(
        size_in=size,
        worst_xy=(round(float(grid[worst][0]), 2), round(float(grid[worst][1]), 2)),
        distance_in=float(np.linalg.norm(worst_xyz - lens)),
        across_px=float(np.linalg.norm(dx[worst])) * cell,
        along_px=float(np.linalg.norm(dy[worst])) * cell,
        equivalent_px=per_in * cell,
        out_of_view=outside,
    )
