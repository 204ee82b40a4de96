"""Papercraft's shields: on a crowded table they prove most pairs walled off before any
search, and never one that a clear line joins."""

from __future__ import annotations

import numpy as np
import pytest

import referee.maps.clearance as clearance
from referee.geometry import base_corners_many
from referee.maps.clear_shields import (
    BINS,
    _reaching_past,
    band_extents,
    shield_reach,
    shields_into,
    walled_off,
)
from referee.maps.clearance import segments_cross_rectangles
from referee.maps.pairwise import upper_pairs
from referee.sim.tables import random_table


def crowd(seed: int, n: int, grid: bool) -> tuple[np.ndarray, np.ndarray]:
    """``n`` bases on a 40 x 30 in table: at random, or axis-aligned on a 1 x 0.75 in grid
    (edges touch, overlap and line up exactly); about one in seven dead."""
    rng = np.random.default_rng(seed)
    if grid:
        xy = rng.integers(0, 40, (n, 2)) * [1.0, 0.75]
        heading = rng.choice([0.0, 90.0], n)
        base = rng.choice([1.0, 1.5, 2.0], (n, 2))
    else:
        xy = rng.uniform(0, 1, (n, 2)) * [40, 30]
        heading = rng.uniform(0, 360, n)
        base = rng.uniform(0.6, 2.5, (n, 2))
    return base_corners_many(xy, heading, base), rng.random(n) > 0.15


def shields_of(
    corners: np.ndarray, live: np.ndarray, reach: float | None = None
) -> tuple[np.ndarray, ...]:
    frames = np.ascontiguousarray(np.stack(clearance._frames(corners)))
    cos, sin, half = band_extents(frames)
    shield = np.empty((len(corners), BINS))
    reach = shield_reach(frames, live) if reach is None else reach
    assert reach > 0
    shields_into(0, 1, frames, live, reach, cos, sin, half, shield)
    return frames, cos, sin, half, shield


def maps(
    corners: np.ndarray, live: np.ndarray, monkeypatch: pytest.MonkeyPatch, pairs_per_shield: int
) -> tuple[np.ndarray, ...]:
    monkeypatch.setattr(clearance, "_PAIRS_PER_SHIELD", pairs_per_shield)
    first, second = upper_pairs(len(corners))
    return clearance._clear_pair_segments(corners, live, first, second)


@pytest.mark.parametrize(("seed", "n", "grid"), [(1, 260, False), (2, 200, True), (3, 320, True)])
def test_a_map_with_shields_is_the_map_without(
    seed: int, n: int, grid: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The very floats and ends, with and without shields, on crowded tables: at random,
    and on a grid where bases touch, overlap and line up; with the shields and pairs on
    one thread or shared among three."""
    corners, live = crowd(seed, n, grid)
    searched = maps(corners, live, monkeypatch, 10**9)
    assert np.isinf(searched[0]).mean() > 0.5 and np.isfinite(searched[0]).any()
    for cores in (1, 3):
        monkeypatch.setattr(clearance, "CORES", range(cores))
        shielded = maps(corners, live, monkeypatch, 16)
        for a, b in zip(shielded, searched, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("seed", "grid"), [(4, False), (5, True)])
def test_most_walled_off_pairs_are_proved_so_and_every_one_is(seed: int, grid: bool) -> None:
    """Every pair the shields wall off has no clear line (the exact search finds none,
    and no segment between points spread over the two outlines is clear), and they
    prove nearly nine in ten of the blocked pairs of a crowded table (0.84-0.85 before
    bases beside or over a base covered where they reach past it, 0.89-0.90 after)."""
    corners, live = crowd(seed, 300, grid)
    frames, cos, sin, half, shield = shields_of(corners, live)
    first, second = upper_pairs(len(corners))
    pairs = zip(first, second, strict=True)
    walled = np.array([walled_off(i, j, frames, cos, sin, half, shield) for i, j in pairs])
    exact = clearance._clear_pair_segments(corners, live, first, second)[0]
    blocked = np.isinf(exact)
    assert not (walled & ~blocked).any()
    assert walled.sum() > 0.87 * blocked.sum()
    t = np.linspace(0, 1, 6)[:-1]
    rng = np.random.default_rng(seed)
    for k in rng.choice(np.flatnonzero(walled), 40, replace=False):
        i, j = first[k], second[k]
        sample = [
            (c[:, None] + t[None, :, None] * (np.roll(c, -1, 0) - c)[:, None]).reshape(-1, 2)
            for c in (corners[i], corners[j])
        ]
        sample[0] = np.vstack([sample[0], corners[i].mean(axis=0)])
        p = np.repeat(sample[0], len(sample[1]), axis=0)
        q = np.tile(sample[1], (len(sample[0]), 1))
        others = live.copy()
        others[[i, j]] = False
        assert segments_cross_rectangles(p, q, corners[others]).any(axis=1).all()


def test_a_ring_of_bases_walls_off_the_base_inside_from_everything_outside() -> None:
    """A base inside a closed ring of overlapping bases sees nothing beyond the ring;
    with one base of the ring dead, the shields prove nothing through the gap."""
    angle = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    ring = np.c_[10 + 4 * np.cos(angle), 10 + 4 * np.sin(angle)]
    outside = np.array([[30.0, 10], [10, 30], [-12, -5], [25, 28]])
    xy = np.vstack([[[10.0, 10]], ring, outside])
    heading = np.r_[0, np.degrees(angle), np.zeros(4)]  # long sides along the ring
    base = np.tile([2.0, 1.0], (len(xy), 1))
    base[0] = [1.0, 1.0]
    corners = base_corners_many(xy, heading, base)
    live = np.ones(len(xy), bool)
    frames, cos, sin, half, shield = shields_of(corners, live, 50.0)
    beyond = range(17, 21)
    assert all(walled_off(0, j, frames, cos, sin, half, shield) for j in beyond)
    assert all(walled_off(j, 0, frames, cos, sin, half, shield) for j in beyond)
    live[1] = False  # the ring base on the line to (30, 10)
    frames, cos, sin, half, shield = shields_of(corners, live, 50.0)
    assert not walled_off(0, 17, frames, cos, sin, half, shield)
    assert np.isfinite(clearance.clear_edge_distance(corners[0], corners[17], corners[2:17]))


def test_shields_are_left_out_where_they_would_not_pay() -> None:
    """A sparse table (100 pieces on 72 x 48 in) gets no shields, a crowded one does, and
    a map of few pairs per base gets none either."""
    for n, crowded in ((100, False), (400, True)):
        scene = random_table(n, 0, 0.02, ruleset="papercraft")
        corners = np.array([p.corners() for p in scene.pieces], float)
        live = np.array([p.state != "destroyed" for p in scene.pieces])
        frames = np.stack(clearance._frames(corners))
        assert (shield_reach(frames, live) > 0) == crowded
        assert clearance._walled_off(frames, live, *upper_pairs(n), 1).any() == crowded
        chain = (np.arange(n - 1), np.arange(1, n))  # one pair a base
        assert not clearance._walled_off(frames, live, *chain, 1).any()


def test_a_base_over_another_covers_where_it_reaches_past_it() -> None:
    """Band along +x, A a 2 x 2 square at the origin. A 1 x 1 base over A's top right
    reaches past A's far side (x = 1) on every line it spans (y 0 to 1); one beside A
    that ends short of it covers nothing."""
    mine = (0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0)
    over = (1.0, 0.5, 0.5, 0.5, 1.0, 0.0, 0.0, 1.0)
    assert _reaching_past(mine, over, 0.0, 1.0, 1.0) == (0.0, 1.0)
    short = (0.25, 1.5, 0.5, 0.5, 1.0, 0.0, 0.0, 1.0)
    lo, hi = _reaching_past(mine, short, 1.0, 2.0, 1.0)
    assert hi <= lo


def test_a_stretch_never_takes_a_line_where_the_base_falls_short() -> None:
    """A turned 45 degrees (its far side x = sqrt 2 - |y| across a band along +x) and a
    base whose far side is x = 0.5 for y 0.7 to 1.3: it reaches past A only above
    y = sqrt 2 - 0.5. The stretch starts there or within a piece after, and runs to the
    base's own end."""
    r = np.sqrt(0.5)
    mine = (0.0, 0.0, 1.0, 1.0, r, r, -r, r)
    beside = (0.2, 1.0, 0.3, 0.3, 1.0, 0.0, 0.0, 1.0)
    lo, hi = _reaching_past(mine, beside, 0.7, 1.3, np.sqrt(2))
    assert np.sqrt(2) - 0.5 <= lo <= np.sqrt(2) - 0.5 + 0.6 / 8 + 1e-12
    assert hi == 1.3
