"""The projector's calibration: where its pixels land on the table, and how well that is known.

A value of its own (not in :mod:`referee.calibration.projector`) because the
profile file stores it as its optional ``projector`` field and the profile
parser must read it without pulling in the detector::

    "projector": {"resolution": [1280, 800],
                  "homography": [[..3..], [..3..], [..3..]],   # projector px -> table in
                  "held_out_p95_in": 0.02, "held_out_max_in": 0.04,
                  "points_used": 96,
                  "covered": [[x, y], ...],                     # table inches, clipped
                  "lens": [k1] or [k1, k2]}                     # optional; absent: none

``lens`` is the projector's radial distortion about its picture centre, in
units of the half-width (as :class:`referee.sim.projector.Projector` has it):
a picture pixel ``p`` lands at ``homography(undistort(p))``, and a table point
is drawn at ``distort(inverse homography(t))``, a closed form the projector
page computes too. Profiles written before it read as a plain homography.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee import validate as v
from referee.errors import ProfileError

FloatArray = NDArray[np.float64]

_FIX = "calibrate the projector again (the profile is not meant to be edited by hand)"
MAX_PROJECTOR_SIDE = 32768
MAX_TABLE_IN = 10_000.0
MAX_LENS_TERM = 1.0
"""Largest |k| read from a profile: beyond it the picture folds over itself."""


def _lens_factor(offset: FloatArray, lens: tuple[float, ...]) -> FloatArray:
    r2 = np.sum(offset * offset, axis=-1, keepdims=True)
    factor = np.ones_like(r2)
    power = np.ones_like(r2)
    for k in lens:
        power = power * r2
        factor = factor + k * power
    return factor


def distort(
    undistorted_px: FloatArray, lens: tuple[float, ...], resolution: tuple[int, int]
) -> FloatArray:
    """Undistorted projector pixels (..., 2) -> the picture pixels whose light lands there."""
    if not any(lens):
        return undistorted_px
    width, height = resolution
    centre = np.array([(width - 1) / 2, (height - 1) / 2])
    offset = (undistorted_px - centre) / (width / 2)
    return np.asarray(centre + offset * _lens_factor(offset, lens) * (width / 2), np.float64)


def undistort(
    picture_px: FloatArray, lens: tuple[float, ...], resolution: tuple[int, int]
) -> FloatArray:
    """The inverse of :func:`distort`, by fixed-point iteration (the terms are small:
    each step shrinks the error by about the lens's own factor at the picture's edge)."""
    if not any(lens):
        return picture_px
    width, height = resolution
    centre = np.array([(width - 1) / 2, (height - 1) / 2])
    seen = (np.asarray(picture_px, np.float64) - centre) / (width / 2)
    offset = seen.copy()
    for _ in range(30):
        offset = seen / _lens_factor(offset, lens)
    return np.asarray(centre + offset * (width / 2), np.float64)


@dataclass(frozen=True)
class ProjectorFit:
    """A fitted projector: projector pixel -> table inches, its held-out error, what it covers."""

    resolution: tuple[int, int]
    """(width, height) of the projector's picture, pixels."""
    homography: tuple[tuple[float, float, float], ...]
    """3x3 rows: projector pixel (homogeneous) -> table inches."""
    held_out_p95_in: float
    """95th percentile of the error on points left out of the fit, inches."""
    held_out_max_in: float
    """Largest such error, inches."""
    points_used: int
    """Tag corners the final fit used."""
    covered: tuple[tuple[float, float], ...]
    """The picture's outline on the table, clipped to the table (inches; may be empty)."""
    lens: tuple[float, ...] = ()
    """Radial terms (k1,) or (k1, k2) about the picture centre, half-widths; (): none."""

    def __post_init__(self) -> None:
        matrix = np.array(self.homography, np.float64)
        if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)):
            raise ValueError(f"homography must be a finite 3x3 matrix, got {self.homography!r}")
        if abs(float(np.linalg.det(matrix))) < 1e-15:
            raise ValueError("homography must be invertible")
        if len(self.lens) > 2 or not all(math.isfinite(k) for k in self.lens):
            raise ValueError(f"lens must be up to 2 finite radial terms, got {self.lens!r}")

    @property
    def matrix(self) -> FloatArray:
        return np.array(self.homography, np.float64)

    def to_table(self, picture_px: ArrayLike) -> FloatArray:
        """Projector pixels (n, 2) -> table inches (n, 2)."""
        points = undistort(
            np.asarray(picture_px, np.float64).reshape(-1, 2), self.lens, self.resolution
        )
        mapped = cv2.perspectiveTransform(points.reshape(-1, 1, 2), self.matrix)
        return np.asarray(mapped.reshape(-1, 2))

    def to_picture(self, table_xy: ArrayLike) -> FloatArray:
        """Table inches (n, 2) -> projector pixels (n, 2)."""
        points = np.asarray(table_xy, np.float64).reshape(-1, 1, 2)
        inverse = np.linalg.inv(self.matrix)
        straight = np.asarray(cv2.perspectiveTransform(points, inverse).reshape(-1, 2), np.float64)
        return distort(straight, self.lens, self.resolution)

    def to_json(self) -> dict[str, Any]:
        return {
            "resolution": list(self.resolution),
            "homography": [list(row) for row in self.homography],
            "held_out_p95_in": self.held_out_p95_in,
            "held_out_max_in": self.held_out_max_in,
            "points_used": self.points_used,
            "covered": [list(p) for p in self.covered],
            "lens": list(self.lens),
        }

    @classmethod
    def from_json(
        cls, data: Any, source: str = "<profile>", path: str = "$.projector"
    ) -> ProjectorFit:
        """Parse and validate; every problem is a one-line :class:`ProfileError`."""
        raw = v.mapping(
            data,
            source,
            path,
            error=ProfileError,
            what="an object {resolution, homography, held_out_p95_in, ...}",
            hint=_FIX,
        )
        known = (
            "resolution",
            "homography",
            "held_out_p95_in",
            "held_out_max_in",
            "points_used",
            "covered",
        )
        optional = ("lens",)
        for key in raw:
            if key not in known + optional:
                raise v.fail(
                    source,
                    f"{path}.{key}",
                    "unknown field",
                    ProfileError,
                    f"expected {', '.join(known + optional)}; {_FIX}",
                )
        for key in known:
            if key not in raw:
                raise v.fail(source, f"{path}.{key}", "missing field", ProfileError, _FIX)
        size = v.items(
            raw["resolution"],
            source,
            f"{path}.resolution",
            error=ProfileError,
            length=2,
            what="[width, height] in pixels",
            hint=_FIX,
        )
        width, height = (
            v.whole(
                s,
                source,
                f"{path}.resolution[{i}]",
                error=ProfileError,
                minimum=1,
                maximum=MAX_PROJECTOR_SIDE,
                hint=_FIX,
            )
            for i, s in enumerate(size)
        )
        rows = v.items(
            raw["homography"],
            source,
            f"{path}.homography",
            error=ProfileError,
            length=3,
            what="a 3x3 matrix",
            hint=_FIX,
        )
        matrix = tuple(
            v.numbers(
                row,
                source,
                f"{path}.homography[{i}]",
                error=ProfileError,
                length=3,
                what="a row of 3 numbers",
                minimum=-1e9,
                maximum=1e9,
                hint=_FIX,
            )
            for i, row in enumerate(rows)
        )
        if abs(float(np.linalg.det(np.array(matrix)))) < 1e-15:
            raise v.fail(
                source, f"{path}.homography", "must be an invertible matrix", ProfileError, _FIX
            )

        def error_in(key: str) -> float:
            return v.number(
                raw[key],
                source,
                f"{path}.{key}",
                error=ProfileError,
                minimum=0.0,
                maximum=1e6,
                hint=_FIX,
            )

        corners = v.items(
            raw["covered"],
            source,
            f"{path}.covered",
            error=ProfileError,
            max_count=64,
            what="a list of [x, y] table points",
            hint=_FIX,
        )
        covered = []
        for i, corner in enumerate(corners):
            x, y = v.numbers(
                corner,
                source,
                f"{path}.covered[{i}]",
                error=ProfileError,
                length=2,
                what="[x, y] in inches",
                minimum=-MAX_TABLE_IN,
                maximum=MAX_TABLE_IN,
                hint=_FIX,
            )
            covered.append((x, y))
        lens = (
            v.numbers(
                raw["lens"],
                source,
                f"{path}.lens",
                error=ProfileError,
                length=(0, 1, 2),
                what="[k1] or [k1, k2], radial terms in half-widths",
                minimum=-MAX_LENS_TERM,
                maximum=MAX_LENS_TERM,
                hint=_FIX,
            )
            if "lens" in raw
            else ()
        )
        return cls(
            resolution=(width, height),
            homography=matrix,  # type: ignore[arg-type]
            held_out_p95_in=error_in("held_out_p95_in"),
            held_out_max_in=error_in("held_out_max_in"),
            points_used=v.whole(
                raw["points_used"],
                source,
                f"{path}.points_used",
                error=ProfileError,
                minimum=4,
                maximum=10**7,
                hint=_FIX,
            ),
            covered=tuple(covered),
            lens=tuple(lens),
        )


def covered_grid(fit: ProjectorFit, step_px: float = 20.0) -> FloatArray:
    """Projector pixels every ``step_px`` whose light lands (by ``fit``) on the part of the
    table it covers: where two fits are compared, and where placement is measured."""
    width, height = fit.resolution
    grid = np.stack(
        np.meshgrid(np.arange(0, width, step_px), np.arange(0, height, step_px)), -1
    ).reshape(-1, 2)
    if not fit.covered:
        return np.asarray(grid, np.float64)
    polygon = np.asarray(fit.covered, np.float32).reshape(-1, 1, 2)
    landed = fit.to_table(grid)
    inside = np.array(
        [cv2.pointPolygonTest(polygon, (float(x), float(y)), False) >= 0 for x, y in landed],
        bool,
    )
    return np.asarray(grid[inside], np.float64)


def landing_shift(before: ProjectorFit, after: ProjectorFit) -> tuple[float, float]:
    """(p95, max) inches between where ``before`` and ``after`` land the same projector
    pixels over ``before``'s covered area: how far the projector (or the table) moved."""
    if before.resolution != after.resolution:
        raise ValueError(
            f"fits at {before.resolution} and {after.resolution} pixels cannot be compared"
        )
    grid = covered_grid(before)
    if not len(grid):
        return math.inf, math.inf
    shift = np.hypot(*(after.to_table(grid) - before.to_table(grid)).T)
    return float(np.percentile(shift, 95)), float(shift.max())
