"""``pairwise_base_distances`` against its earlier dense form, bit for bit.

The fast version computes only the vertex/edge pairs that can hold the minimum and
settles the separating-axis test from bounds; every value it returns must be the very
float the dense version (kept here as the oracle) returned, on tables that are spread
out, crowded, touching, overlapping, axis-aligned (many ties), degenerate or huge.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.geometry import EPS, Pose, base_corners_many, base_distance
from referee.maps.pairwise import pairwise_base_distances


def dense_base_distances(xy: np.ndarray, heading: np.ndarray, base: np.ndarray) -> np.ndarray:
    """The earlier implementation: 16 vertex/edge ``(n, n)`` tables and a dense
    separating-axis test (the oracle)."""
    corners = base_corners_many(xy, heading, base)
    n = len(corners)
    if n == 0:
        return np.zeros((0, 0))
    nxt = np.roll(corners, -1, axis=1)
    d = np.full((n, n), np.inf)
    apx, apy, t, tmp = (np.empty((n, n)) for _ in range(4))
    for m in range(4):
        ax, ay = corners[None, :, m, 0], corners[None, :, m, 1]
        abx, aby = nxt[None, :, m, 0] - ax, nxt[None, :, m, 1] - ay
        denom = abx * abx + aby * aby
        flat = ~(denom > 0)
        for k in range(4):
            np.subtract(corners[:, k, 0, None], ax, out=apx)
            np.subtract(corners[:, k, 1, None], ay, out=apy)
            np.multiply(apx, abx, out=t)
            np.multiply(apy, aby, out=tmp)
            t += tmp
            with np.errstate(invalid="ignore", divide="ignore"):
                t /= denom
            np.clip(t, 0.0, 1.0, out=t)
            if flat.any():
                t[:, flat[0]] = 0.0
            np.multiply(t, abx, out=tmp)
            apx -= tmp
            np.multiply(t, aby, out=tmp)
            apy -= tmp
            np.minimum(d, np.hypot(apx, apy, out=apx), out=d)
    d = np.minimum(d, d.T)
    edges = nxt - corners
    axes = np.stack([edges[:, 0], edges[:, 1]], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        axes = axes / np.linalg.norm(axes, axis=-1, keepdims=True)
    proj = np.einsum("iad,jkd->ijak", axes, corners)
    lo = np.minimum(np.minimum(proj[..., 0], proj[..., 1]), np.minimum(proj[..., 2], proj[..., 3]))
    hi = np.maximum(np.maximum(proj[..., 0], proj[..., 1]), np.maximum(proj[..., 2], proj[..., 3]))
    own = np.einsum("iad,ikd->iak", axes, corners)
    own_lo, own_hi = own.min(axis=2), own.max(axis=2)
    sep_i = np.any((hi < own_lo[:, None, :] - EPS) | (lo > own_hi[:, None, :] + EPS), axis=2)
    return np.asarray(np.where(sep_i | sep_i.T, d, 0.0))


def table(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Random bases of one flavour: ``xy (n, 2)``, ``heading (n,)``, ``base (n, 2)``."""
    xy = rng.uniform(0, 72, (n, 2)) * [1, 48 / 72]
    heading = rng.uniform(0, 360, n)
    base = np.tile([1.5, 2.5], (n, 1))
    if kind == "crowded":  # many overlapping and near pairs
        xy = rng.uniform(0, 8, (n, 2))
        base = rng.uniform(0.2, 3.0, (n, 2))
    elif kind == "grid":  # square bases on a unit lattice: touching edges and corners
        side = math.ceil(math.sqrt(n))
        k = np.arange(n)
        xy = np.stack([k % side, k // side], axis=1) * 2.0 + rng.integers(0, 2, (n, 2)) * 0.5
        heading = rng.choice([0.0, 90.0, 180.0, 270.0], n)
        base = np.tile([2.0, 2.0], (n, 1))
    elif kind == "aligned":  # same heading, integer places: parallel facing edges, ties
        xy = rng.integers(0, 30, (n, 2)).astype(float)
        heading = rng.choice([0.0, 45.0, 90.0], n)
        base = rng.choice([1.0, 2.0, 3.0], (n, 2))
    elif kind == "degenerate":  # zero-size, zero-width, tiny and long thin bases
        pick = rng.integers(0, 5, n)
        base = np.choose(
            pick[:, None],
            [
                np.zeros((n, 2)),
                np.stack([np.zeros(n), rng.uniform(0.5, 3, n)], axis=1),
                rng.uniform(1e-7, 1e-5, (n, 2)),
                np.stack([rng.uniform(0.05, 0.2, n), rng.uniform(10, 40, n)], axis=1),
                rng.uniform(0.5, 3, (n, 2)),
            ],
        )
    elif kind == "duplicates":  # identical bases and shared centres
        xy = rng.uniform(0, 20, (n, 2))
        xy[1::3] = xy[0::3][: len(xy[1::3])]
        heading[1::3] = heading[0::3][: len(heading[1::3])]
        base = rng.uniform(0.5, 3, (n, 2))
    elif kind == "huge":  # far from the origin: rounding is relative to the coordinates
        xy = xy + rng.uniform(1e5, 1e6, 2)
        base = rng.uniform(0.5, 50, (n, 2))
    elif kind == "near-eps":  # gaps a hair either side of EPS along an axis
        xy = np.zeros((n, 2))
        xy[:, 0] = np.arange(n) * (2.0 + EPS * rng.choice([0.5, 1.0, 1.0 + 1e-3, 2.0], n))
        heading = rng.choice([0.0, 180.0], n)
        base = np.tile([2.0, 2.0], (n, 1))
    return xy, heading, base


KINDS = ["spread", "crowded", "grid", "aligned", "degenerate", "duplicates", "huge", "near-eps"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_same_floats_as_dense(kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 90))
    xy, heading, base = table(kind, n, rng)
    got = pairwise_base_distances(xy, heading, base)
    want = dense_base_distances(xy, heading, base)
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = np.argwhere(got.view(np.int64) != want.view(np.int64))
    assert not len(diff), [(i, j, got[i, j], want[i, j]) for i, j in diff[:5]]


@pytest.mark.parametrize("kind", KINDS)
def test_rows_shared_among_cores_give_the_same_floats(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big table's rows are measured on several cores, every n-th row to each: the
    very floats of the dense form, in both halves of the matrix."""
    from referee.maps import pairwise

    monkeypatch.setattr(pairwise, "CORES", range(3))
    monkeypatch.setattr(pairwise, "_GAPS_PER_SHARE", 100)
    rng = np.random.default_rng(11)
    xy, heading, base = table(kind, 60, rng)
    got = pairwise_base_distances(xy, heading, base)
    want = dense_base_distances(xy, heading, base)
    assert np.array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_small_tables(n: int) -> None:
    rng = np.random.default_rng(n)
    xy, heading, base = table("crowded", n, rng)
    got = pairwise_base_distances(xy, heading, base)
    assert np.array_equal(got, dense_base_distances(xy, heading, base))


def test_benchmark_table_and_per_pair_distance() -> None:
    """A 400-piece benchmark-like table, and ``base_distance`` agreeing pair by pair."""
    rng = np.random.default_rng(11)
    xy, heading, base = table("spread", 400, rng)
    got = pairwise_base_distances(xy, heading, base)
    assert np.array_equal(got, dense_base_distances(xy, heading, base))
    for i, j in rng.integers(0, 400, (200, 2)):
        one = base_distance(Pose(*xy[i], heading[i]), base[i], Pose(*xy[j], heading[j]), base[j])
        assert got[i, j] == pytest.approx(one, abs=1e-9)


def test_non_finite_bases_as_before() -> None:
    xy = np.array([[0.0, 0.0], [5.0, 0.0], [np.nan, 1.0], [np.inf, 2.0]])
    heading, base = np.zeros(4), np.ones((4, 2))
    with np.errstate(invalid="ignore"):
        got = pairwise_base_distances(xy, heading, base)
        want = dense_base_distances(xy, heading, base)
    assert np.array_equal(got, want, equal_nan=True)
