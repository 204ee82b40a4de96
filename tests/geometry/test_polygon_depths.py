"""polygon_depths is signed_boundary_distance and points_in_polygon (closed and strict)
at once: the very same values, points on vertices, edges and grid lines included."""

from __future__ import annotations

import numpy as np

from referee.geometry import points_in_polygon, polygon_depths, signed_boundary_distance


def test_polygon_depths_are_the_three_answers() -> None:
    rng = np.random.default_rng(1)
    for trial in range(300):
        poly = rng.uniform(0, 10, (int(rng.integers(3, 9)), 2))
        if trial % 3 == 0:
            poly = np.round(poly)  # edges along grid lines
        pts = rng.uniform(-1, 11, (50, 2))
        if trial % 2:
            pts = np.round(pts * 2) / 2
        pts = np.concatenate([pts, poly, (poly + np.roll(poly, -1, axis=0)) / 2])
        signed, held, strict = polygon_depths(pts, poly)
        assert np.array_equal(signed, signed_boundary_distance(pts, poly))
        assert np.array_equal(held, points_in_polygon(pts, poly))
        assert np.array_equal(strict, points_in_polygon(pts, poly, strict=True))
