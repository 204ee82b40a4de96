"""The compiled bearing-bin passes of the LOS map against the numpy forms they replaced,
kept here as oracles: the very same answers, bit for bit."""

from __future__ import annotations

import math

import numpy as np

from referee.geometry import _BIN, _BINS, _CONE_SLACK, Bearings, upper_pairs

RNG = np.random.default_rng(23)


def _through_numpy(
    bearings: Bearings, toward: tuple[np.ndarray, np.ndarray], radii: np.ndarray, barred: np.ndarray
) -> np.ndarray:
    """``Bearings.through`` as numpy wrote it: every (point, disc) cone drawn into a row of
    bins a quarter turn wider either side, folded back, then the whole table looked up."""
    n = len(bearings.points)
    dist, centre = toward
    m = dist.shape[1]
    r = np.asarray(radii, float).reshape(-1) * (1 - 1e-8)
    seen = (dist > r * (1 + 1e-9) + 1e-9) & (r > 0) & ~barred
    v, k = np.nonzero(seen)
    d = dist[v, k]
    half = np.arcsin(r[k] / d) - _CONE_SLACK
    mid = centre[v, k]
    first = np.ceil((mid - half) / _BIN).astype(np.intp)
    count = np.maximum(np.floor((mid + half) / _BIN).astype(np.intp) - first, 0)
    if n < 2 or not int(count.sum()):
        return np.zeros((n, n), bool)
    bits = max(m - 1, 1).bit_length()
    key = np.ceil(d * 1e6).astype(np.int64) << bits | k
    stride = _BINS + _BINS // 2
    wide = np.full((n, stride), np.iinfo(np.int64).max >> bits << bits)
    rows_of = np.repeat(v, count)
    offs = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    cols = np.repeat(first + _BINS // 4, count) + offs
    np.minimum.at(wide, (rows_of, cols), np.repeat(key, count))
    q = _BINS // 4
    cover = wide[:, q : q + _BINS].copy()
    np.minimum(cover[:, _BINS - q :], wide[:, :q], out=cover[:, _BINS - q :])
    np.minimum(cover[:, :q], wide[:, q + _BINS :], out=cover[:, :q])
    rows = np.arange(n)
    best = cover[rows[:, None], bearings.bins.astype(np.intp)]
    disc = best & ((1 << bits) - 1)
    reach = (best >> bits) * 1e-6
    reach += 1e-6
    reach *= reach
    past = (bearings.length2 > reach) & ~barred[rows[None, :], disc]
    np.fill_diagonal(past, False)
    return np.asarray(past | past.T)


def _table(n: int, m: int, snap: float | None = None) -> tuple[np.ndarray, ...]:
    pts = RNG.uniform(0, 48, (n, 2))
    if snap:
        pts = np.round(pts / snap) * snap  # equal bearings, points on cone edges
    owners = RNG.choice(n, m, replace=False)
    centres = pts[owners] + RNG.normal(0, 0.05, (m, 2))
    radii = RNG.uniform(0.2, 1.5, m)
    radii[RNG.random(m) < 0.1] = 0.0  # outlines with no inner room
    barred = RNG.random((n, m)) < 0.03
    barred[owners, np.arange(m)] = True
    return pts, centres, radii, barred


def test_through_lines_is_the_numpy_table() -> None:
    for n, m, snap in ((60, 30, None), (150, 70, None), (120, 90, 1.0), (90, 1, None)):
        pts, centres, radii, barred = _table(n, m, snap)
        bearings = Bearings.of(pts)
        toward = bearings.toward(centres)
        want = _through_numpy(bearings, toward, radii, barred)
        got = bearings.through(toward, radii, barred)
        assert np.array_equal(got, want) and (want.sum() > n or m == 1)
        i, j = upper_pairs(n)
        some = RNG.random(len(i)) < 0.4
        lines = bearings.through_lines(toward, radii, barred, i[some], j[some])
        assert np.array_equal(lines, want[i[some], j[some]])
        # Asked the other way round, a line is the same line.
        assert np.array_equal(bearings.through_lines(toward, radii, barred, j, i), want[i, j])


def test_through_lines_of_nothing() -> None:
    bearings = Bearings.of(RNG.uniform(0, 10, (5, 2)))
    toward = bearings.toward(np.zeros((0, 2)))
    i, j = upper_pairs(5)
    assert not bearings.through_lines(toward, [], np.zeros((5, 0), bool), i, j).any()
    assert math.isclose(_BIN * _BINS, 2 * math.pi)
