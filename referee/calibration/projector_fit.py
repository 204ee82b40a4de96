"""The projector's calibration: where its pixels land on the table, and how well that is known.

A value of its own (not in :mod:`referee.calibration.projector`) because the
profile file stores it as its optional ``projector`` field and the profile
parser must read it without pulling in the detector::

    "projector": {"resolution": [1280, 800],
                  "homography": [[..3..], [..3..], [..3..]],   # projector px -> table in
                  "held_out_p95_in": 0.02, "held_out_max_in": 0.04,
                  "points_used": 96,
                  "covered": [[x, y], ...]}                     # table inches, clipped
"""

from __future__ import annotations

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

    def __post_init__(self) -> None:
        matrix = np.array(self.homography, np.float64)
        if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)):
            raise ValueError(f"homography must be a finite 3x3 matrix, got {self.homography!r}")
        if abs(float(np.linalg.det(matrix))) < 1e-15:
            raise ValueError("homography must be invertible")

    @property
    def matrix(self) -> FloatArray:
        return np.array(self.homography, np.float64)

    def to_table(self, picture_px: ArrayLike) -> FloatArray:
        """Projector pixels (n, 2) -> table inches (n, 2)."""
        points = np.asarray(picture_px, np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(points, self.matrix).reshape(-1, 2))

    def to_picture(self, table_xy: ArrayLike) -> FloatArray:
        """Table inches (n, 2) -> projector pixels (n, 2)."""
        points = np.asarray(table_xy, np.float64).reshape(-1, 1, 2)
        inverse = np.linalg.inv(self.matrix)
        return np.asarray(cv2.perspectiveTransform(points, inverse).reshape(-1, 2))

    def to_json(self) -> dict[str, Any]:
        return {
            "resolution": list(self.resolution),
            "homography": [list(row) for row in self.homography],
            "held_out_p95_in": self.held_out_p95_in,
            "held_out_max_in": self.held_out_max_in,
            "points_used": self.points_used,
            "covered": [list(p) for p in self.covered],
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
        for key in raw:
            if key not in known:
                raise v.fail(
                    source,
                    f"{path}.{key}",
                    "unknown field",
                    ProfileError,
                    f"expected {', '.join(known)}; {_FIX}",
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
        )
