"""Papercraft's all-pairs clear distances equal the per-pair question, float for float."""

from __future__ import annotations

import numpy as np
import pytest

from referee.geometry import base_corners_many
from referee.rules.core import clear_edge_distance, clear_edge_distances


def per_pair(corners: np.ndarray, live: np.ndarray) -> np.ndarray:
    n = len(corners)
    dist = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            others = live.copy()
            others[[i, j]] = False
            dist[i, j] = dist[j, i] = clear_edge_distance(corners[i], corners[j], corners[others])
    return dist


def table(seed: int, n: int, size: float, grid: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if grid:  # axis-aligned on a 1" grid: edges touch, overlap and line up exactly
        xy = rng.integers(0, int(size), (n, 2)).astype(float)
        heading = rng.choice([0.0, 90.0], n)
        base = rng.choice([1.0, 2.0, 3.0], (n, 2))
    else:
        xy = rng.uniform(0, size, (n, 2))
        heading = rng.uniform(0, 360, n)
        base = rng.uniform(0.5, 3.0, (n, 2))
    return base_corners_many(xy, heading, base), rng.random(n) > 0.15


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("n", "size", "grid"), [(12, 20, False), (30, 25, False), (30, 10, True)])
def test_all_pairs_equal_per_pair(seed: int, n: int, size: float, grid: bool) -> None:
    corners, live = table(seed, n, size, grid)
    expected = per_pair(corners, live)
    assert np.isinf(expected).any() or size > 20
    np.testing.assert_array_equal(clear_edge_distances(corners, live), expected)


def test_pieces_in_a_line() -> None:
    # The nearest line between the two ends runs through the middle ones: the answer is a
    # longer sampled line past them, or inf where a taller base walls the way.
    xs = np.arange(8) * 3.0
    heading = np.zeros(8)
    for bases in ([(2.0, 2.0)] * 8, [(2.0, 2.0), (2.0, 4.0)] * 4):
        corners = base_corners_many(np.c_[xs, 0.4 * np.sin(xs)], heading, bases)
        live = np.ones(8, bool)
        live[5] = False
        np.testing.assert_array_equal(clear_edge_distances(corners, live), per_pair(corners, live))


def test_few_pieces() -> None:
    for n in (0, 1, 2):
        corners, live = table(n, n, 10, False)
        np.testing.assert_array_equal(clear_edge_distances(corners, live), per_pair(corners, live))
