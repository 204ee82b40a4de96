"""Papercraft's clear distance: the shortest edge-to-edge line crossing no other unit,
exact (not a sampled line), the same pair by pair and all pairs at once."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math

import numpy as np
import pytest

from referee.geometry import base_corners_many, boundary_distance, point_in_polygon
from referee.maps.clearance import (
    clear_distance,
    clear_edge_distance,
    clear_edge_distances,
    clear_segment,
    segments_cross_rectangles,
)
from referee.maps.pairwise import upper_pairs
from referee.rules import find_ruleset
from referee.scene import Piece, Scene, Table
from referee.sim.tables import random_table

from .sweep import sweep


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


def dense_search(pa: np.ndarray, pb: np.ndarray, bases: np.ndarray, k: int) -> float:
    """The oracle: the shortest of the lines between ``k`` points on every edge of each
    outline that crosses no base (an upper bound of the exact answer)."""
    t = np.linspace(0, 1, k + 1)[:-1]

    def points(poly: np.ndarray) -> np.ndarray:
        return (poly[:, None] + t[None, :, None] * (np.roll(poly, -1, 0) - poly)[:, None]).reshape(
            -1, 2
        )

    sa, sb = points(pa), points(pb)
    p, q = np.repeat(sa, len(sb), axis=0), np.tile(sb, (len(sa), 1))
    d = np.linalg.norm(q - p, axis=1)
    if len(bases):
        d = np.where(segments_cross_rectangles(p, q, bases).any(axis=1), math.inf, d)
    return float(d.min())


def assert_clear_segment(pa: np.ndarray, pb: np.ndarray, bases: np.ndarray) -> float:
    """The answer is carried by a real segment: from pa to pb, crossing no base."""
    length, p, q = clear_segment(pa, pb, bases)
    if math.isinf(length):
        assert np.isnan(p).all() and np.isnan(q).all()
        return length
    assert math.dist(p, q) == pytest.approx(length, abs=1e-12)
    for point, poly in ((p, pa), (q, pb)):
        assert point_in_polygon(point, poly) or boundary_distance(point, poly) < 1e-9
    if len(bases) and length > 0:
        assert not segments_cross_rectangles(p[None], q[None], bases).any()
    return length


@pytest.mark.parametrize("seed", sweep(range(3), 1))
@pytest.mark.parametrize(("n", "size", "grid"), [(14, 20, False), (14, 10, True)])
def test_never_longer_than_a_dense_search_and_carried_by_a_clear_segment(
    seed: int, n: int, size: float, grid: bool
) -> None:
    corners, live = table(seed, n, size, grid)
    dist = clear_edge_distances(corners, live)
    for i in range(n):
        for j in range(i + 1, n):
            others = live.copy()
            others[[i, j]] = False
            bases = corners[others]
            exact = assert_clear_segment(corners[i], corners[j], bases)
            assert exact == dist[i, j]
            dense = dense_search(corners[i], corners[j], bases, 32)
            assert exact <= dense + 1e-9  # a clear line the search finds is never missed


def test_grazing_a_corner_at_the_best_angle() -> None:
    """Tilted bases and a post in the way: the shortest clear line grazes the post's
    corner with both ends inside edges, at an angle no sampled line has."""
    a = base_corners_many(np.array([[0.0, 0.0]]), np.array([20.0]), np.array([[3.0, 2.0]]))[0]
    b = base_corners_many(np.array([[11.0, 2.5]]), np.array([-35.0]), np.array([[2.5, 2.0]]))[0]
    post = base_corners_many(np.array([[5.5, 1.0]]), np.array([10.0]), np.array([[1.0, 2.2]]))
    exact = assert_clear_segment(a, b, post)
    dense = dense_search(a, b, post, 256)
    assert exact <= dense < exact + 0.01
    assert clear_edge_distance(a, b, np.zeros((0, 4, 2))) < exact - 0.1  # the post matters


def test_a_second_base_on_the_way_round_the_first() -> None:
    """The search starts from the bases that cross the nearest line and adds the ones
    that cross its answer: the way below the post is shut by a second base, so the
    answer goes over the post's top instead, as a dense search finds."""
    a = base_corners_many(np.array([[0.0, 0.0]]), np.array([15.0]), np.array([[2.0, 2.0]]))[0]
    b = base_corners_many(np.array([[12.0, 0.5]]), np.array([-10.0]), np.array([[2.0, 2.0]]))[0]
    post = base_corners_many(np.array([[6.0, 0.2]]), np.array([5.0]), np.array([[1.0, 3.0]]))
    below = base_corners_many(np.array([[4.0, -0.8]]), np.array([30.0]), np.array([[0.8, 0.8]]))
    round_post = assert_clear_segment(a, b, post)
    _, p, _ = clear_segment(a, b, post)
    assert p[1] < 0  # alone, the post is passed below
    both = np.concatenate([post, below])
    exact = assert_clear_segment(a, b, both)
    _, p, q = clear_segment(a, b, both)
    assert p[1] > 0 and q[1] > 1  # over the top
    assert exact > round_post + 0.5
    assert exact <= dense_search(a, b, both, 256) < exact + 0.01


def test_through_a_narrow_window() -> None:
    """Two bases leave a 0.05in window: the straight line through it is clear (8in), which
    no line between eighths of the edges passes."""
    a, b = Piece("a", "x", "infantry", 1, 1, base=(2, 2)), Piece("b", "y", "infantry", 11, 1)
    b = dataclasses.replace(b, base=(2, 2))
    upper = Piece("u", "z", "infantry", 6, 1.15 + 1.5, base=(3, 2))  # y from 1.15 up
    lower = Piece("l", "z", "infantry", 6, 1.10 - 1.5, base=(3, 2))  # y up to 1.10
    assert clear_distance(a, b, [upper, lower]) == pytest.approx(8.0, abs=1e-9)
    _, p, q = clear_segment(a.corners(), b.corners(), np.stack([upper.corners(), lower.corners()]))
    assert 1.10 - 1e-9 <= p[1] <= 1.15 + 1e-9 and 1.10 - 1e-9 <= q[1] <= 1.15 + 1e-9
    assert (
        dense_search(a.corners(), b.corners(), np.stack([upper.corners(), lower.corners()]), 8)
        > 8.1
    )


def test_blocked_by_one_base_or_by_two_together() -> None:
    a, b = (
        Piece("a", "x", "infantry", 0, 0, base=(2, 2)),
        Piece("b", "x", "infantry", 12, 0, base=(2, 2)),
    )
    wall = Piece("w", "z", "infantry", 6, 0, base=(4, 4))  # wider than both: every line crosses it
    assert clear_distance(a, b, [wall]) == math.inf
    # Two bases, each leaving a gap the other closes: neither alone blocks every line.
    upper = Piece("u", "z", "infantry", 6, 0.9, base=(2, 2))
    lower = Piece("l", "z", "infantry", 6, -0.9, base=(2, 2))
    assert clear_distance(a, b, [upper]) < math.inf
    assert clear_distance(a, b, [lower]) < math.inf
    assert clear_distance(a, b, [upper, lower]) == math.inf
    # A dead base is moved over and blocks nothing.
    assert clear_distance(a, b, [dataclasses.replace(wall, state="destroyed")]) == 10.0


def test_along_a_post_edge_and_past_bases_beside_the_corridor() -> None:
    a, b = (
        Piece("a", "x", "infantry", 0, 0, base=(2, 2)),
        Piece("b", "x", "infantry", 12, 0, base=(2, 2)),
    )
    post = Piece("p", "z", "infantry", 6, 0, base=(0.5, 0.5))
    assert clear_distance(a, b, [post]) == pytest.approx(10.0, abs=1e-12)  # along its top edge
    tilted_a = dataclasses.replace(a, heading=10)
    far = Piece("b", "x", "infantry", 20, 10, heading=-25, base=(2, 2))
    beside = Piece("c", "z", "infantry", 1, 9, base=(1, 1))
    assert clear_distance(tilted_a, far, [beside]) == clear_distance(tilted_a, far, [])


def test_overlapping_bases() -> None:
    a, b = (
        Piece("a", "x", "infantry", 0, 0, base=(2, 2)),
        Piece("b", "x", "infantry", 1.5, 0.5, base=(2, 2)),
    )
    between = Piece("c", "z", "infantry", 0.75, 0, base=(0.5, 4))
    assert clear_distance(a, b, [between]) == 0.0  # touching or overlapping: 0 apart
    # A base overlapping the firer: the clear line starts where their edges cross.
    c = Piece("c", "x", "infantry", 10, 0, base=(2, 2))
    over = Piece("o", "z", "infantry", 1.5, -0.5, base=(2, 2))
    exact = assert_clear_segment(a.corners(), c.corners(), over.corners()[None])
    assert exact <= dense_search(a.corners(), c.corners(), over.corners()[None], 64) + 1e-9
    assert exact == pytest.approx(8.0)  # over the overlap's top edge, y = 0.5 to 1


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("n", "size", "grid"), [(12, 20, False), (30, 25, False), (30, 10, True)])
def test_all_pairs_equal_per_pair(seed: int, n: int, size: float, grid: bool) -> None:
    corners, live = table(seed, n, size, grid)
    expected = per_pair(corners, live)
    assert np.isinf(expected).any() or size > 20
    np.testing.assert_array_equal(clear_edge_distances(corners, live), expected)


def test_pieces_in_a_line() -> None:
    # The nearest line between the two ends runs through the middle ones: the answer is a
    # longer line past them, or inf where a taller base walls the way.
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


def test_los_answer_gives_the_line_for_the_tape() -> None:
    rules = find_ruleset("papercraft")
    pieces = (
        Piece("a", "x", "infantry", 0, 0, base=(2, 2), fields={"range": 12}),
        Piece("b", "y", "infantry", 12, 0, base=(2, 2), fields={"range": 12}),
        Piece("p", "z", "character", 6, 0, base=(0.5, 0.5), fields={"range": 1}),
    )
    scene = Scene("papercraft", Table(36, 36), pieces)
    verdict = rules.answer(scene, {"ask": "los", "from": "a", "to": "b"})
    assert verdict.los == "clear" and verdict.distance == pytest.approx(10.0)
    start, end = verdict.details["line"]
    assert math.dist(start, end) == pytest.approx(10.0)
    assert start[0] == pytest.approx(1.0) and end[0] == pytest.approx(11.0)
    assert abs(start[1]) >= 0.25 - 1e-9  # past the post, along its edge
    blocked = rules.answer(scene, {"ask": "los", "from": "a", "to": "p"})
    assert blocked.details["line"] is not None  # nothing between a and the post
    wall = dataclasses.replace(pieces[2], base=(4.0, 1.0))
    shut = rules.answer(
        dataclasses.replace(scene, pieces=(*pieces[:2], wall)),
        {"ask": "los", "from": "a", "to": "b"},
    )
    assert shut.los == "blocked" and shut.details["line"] is None


# -- several bases that only together wall a pair off ----------------------------------


def test_staggered_posts_wall_off_a_pair_that_neither_does() -> None:
    a = base_corners_many([(0.0, 0.0)], [0.0], [(2.0, 2.0)])[0]
    b = base_corners_many([(12.0, 0.0)], [0.0], [(2.0, 2.0)])[0]
    # y from -0.6 to 1.5 at x = 4, and from -1.5 to 0.2 at x = 8: each leaves lines past
    # it (along the top or the bottom edges), the two together leave none.
    posts = base_corners_many([(4.0, 0.45), (8.0, -0.65)], [0.0, 0.0], [(2.1, 1.0), (1.7, 1.0)])
    for k in range(2):
        assert clear_edge_distance(a, b, posts[[k]]) == pytest.approx(10.0)
    assert clear_edge_distance(a, b, posts) == math.inf
    assert dense_search(a, b, posts, 64) == math.inf
    # Moved 0.6in further apart, a line slips between them, and is found.
    apart = posts + np.array([[[0.0, 0.3]], [[0.0, -0.3]]])
    exact = assert_clear_segment(a, b, apart)
    assert exact < math.inf and exact <= dense_search(a, b, apart, 64) + 1e-9


def test_a_line_over_a_row_of_thirty_posts() -> None:
    # Every post crosses the nearest segment, so the search runs past all thirty at once:
    # more corners than its first room for candidate lines holds, so it makes more room
    # and takes the pair again. The line rises from A's corner over the first post's.
    a = base_corners_many([(0.0, 0.0)], [0.0], [(0.2, 0.2)])[0]  # x, y within 0.1
    b = base_corners_many([(40.0, 0.0)], [0.0], [(6.0, 1.0)])[0]  # x from 39.5, y within 3
    posts = base_corners_many([(2.0 + k, 0.0) for k in range(30)], [0.0] * 30, [(0.4, 0.6)] * 30)
    exact = clear_edge_distance(a, b, posts)
    # From (0.1, 0.1) past (1.7, 0.2), the first post's corner, to x = 39.5.
    assert exact == pytest.approx(39.4 * math.hypot(1.0, 0.1 / 1.6), abs=1e-9)
    assert exact <= dense_search(a, b, posts, 64) + 1e-9
    table = clear_edge_distances(np.concatenate([a[None], b[None], posts]), np.ones(32, bool))
    assert table[0, 1] == exact


def test_posts_in_contact_with_the_firer_still_wall_it_off() -> None:
    """A unit touching (or overlapping) the firer's base blocks by its part between the
    two: with the second post, no line gets out."""
    a = base_corners_many([(0.0, 0.0)], [0.0], [(2.0, 2.0)])[0]
    b = base_corners_many([(12.0, 0.0)], [0.0], [(2.0, 2.0)])[0]
    for x in (1.5, 1.3):  # edge to edge with a, then 0.2in over it
        posts = base_corners_many([(x, 0.45), (8.0, -0.5)], [0.0, 0.0], [(2.1, 1.0), (2.0, 1.0)])
        assert clear_edge_distance(a, b, posts[[0]]) == clear_edge_distance(a, b, posts[[1]]) == 10
        assert clear_edge_distance(a, b, posts) == math.inf


def test_a_seam_or_a_window_is_left_open() -> None:
    """Two bases edge to edge leave the line along their seam (it enters neither), and
    two 0.05in apart leave a window."""
    a = base_corners_many([(0.0, 1.0)], [0.0], [(2.0, 2.0)])[0]
    b = base_corners_many([(12.0, 1.0)], [0.0], [(2.0, 2.0)])[0]
    seam = base_corners_many([(6.0, 0.0), (6.0, 2.0)], [0.0, 0.0], [(1.0, 2.0)] * 2)
    window = base_corners_many([(6.0, -0.025), (6.0, 2.025)], [0.0, 0.0], [(1.0, 2.0)] * 2)
    for bases in (seam, window):
        assert clear_edge_distance(a, b, bases) == pytest.approx(10.0, abs=1e-12)


def test_bases_inside_or_across_each_other_are_0_apart() -> None:
    """No corner of either inside the other (a cross), or one wholly inside the other:
    the outlines meet, whatever lies about them."""
    long = base_corners_many([(0.0, 0.0)], [0.0], [(6.0, 0.5)])[0]
    across = base_corners_many([(0.0, 0.0)], [90.0], [(6.0, 0.5)])[0]
    small = base_corners_many([(0.0, 1.0)], [30.0], [(0.2, 0.2)])[0]
    post = base_corners_many([(2.0, 2.0)], [0.0], [(1.0, 1.0)])
    for other in (across, small):
        length, p, q = clear_segment(long, other, post)
        assert length == 0.0 and np.array_equal(p, q)
        assert boundary_distance(p, long) < 1e-9 or point_in_polygon(p, long)


def test_compiled_crossing_test_answers_as_the_vectorised_one() -> None:
    """The loop's test of one segment against one base gives the numpy test's very
    answers, on segments that touch edges, run along them, end on corners or cross."""
    from referee.maps.clear_search import _crosses

    rng = np.random.default_rng(11)
    rects = base_corners_many(
        rng.integers(0, 6, (40, 2)).astype(float),
        rng.choice([0.0, 90.0, 45.0, 30.0], 40),
        rng.choice([1.0, 2.0], (40, 2)),
    )
    ends = np.concatenate([rects.reshape(-1, 2), rng.integers(-1, 7, (200, 2)).astype(float)])
    p, q = ends[rng.integers(0, len(ends), 600)], ends[rng.integers(0, len(ends), 600)]
    dense = segments_cross_rectangles(p, q, rects)  # (segments, rects)
    assert 0 < dense.sum() < dense.size  # crossings and misses (touching) both occur
    quads = [(tuple(r[:, 0].tolist()), tuple(r[:, 1].tolist())) for r in rects]
    loop = [[_crosses(*p[k], *q[k], *quad) for quad in quads] for k in range(len(p))]
    np.testing.assert_array_equal(np.array(loop), dense)


def test_the_corner_lines_each_base_crosses_are_the_crossing_tests_answers() -> None:
    """The 16 corner-to-corner lines of a pair tested against a base at once (sharing
    projections) give the one-line test's very answers, on a grid where lines run along
    edges and through corners."""
    from referee.maps.clear_search import _corner_lines_crossed, _crosses, base_slabs

    rng = np.random.default_rng(5)
    outlines = base_corners_many(
        rng.integers(0, 8, (30, 2)).astype(float),
        rng.choice([0.0, 90.0, 45.0], 30),
        rng.choice([1.0, 2.0, 3.0], (30, 2)),
    )
    crossed = 0
    for i, j, b in rng.integers(0, 30, (400, 3)):
        rx, ry = tuple(outlines[b, :, 0].tolist()), tuple(outlines[b, :, 1].tolist())
        mask = _corner_lines_crossed(outlines, base_slabs(outlines), i, j, b)
        for u in range(4):
            for w in range(4):
                one = _crosses(*outlines[i, u], *outlines[j, w], rx, ry)
                assert bool(mask >> (4 * u + w) & 1) == one
                crossed += one
    assert 0 < crossed < 400 * 16


def test_the_turning_direction_is_where_the_gap_between_two_edge_lines_is_least() -> None:
    """Through a corner at heights h1, h2 above two edges' lines, the direction found
    without trigonometry gives a gap no longer than the least on a fine grid of turns
    between the normals, for normals from parallel to nearly opposite."""
    from referee.maps.clear_search import _turning_direction

    rng = np.random.default_rng(9)
    for _ in range(300):
        h1, h2 = rng.uniform(0.0, 3.0, 2) * (rng.random(2) > 0.1)
        phi, delta = rng.uniform(-math.pi, math.pi), rng.uniform(-3.1, 3.1)
        n1 = np.array([math.cos(phi), math.sin(phi)])
        n2 = np.array([math.cos(phi + delta), math.sin(phi + delta)])
        c, s = float(n1 @ n2), float(n1[0] * n2[1] - n1[1] * n2[0])
        u = np.array(_turning_direction(h1, h2, n1[0], n1[1], c, s))
        assert math.hypot(*u) == pytest.approx(1.0, abs=1e-12)
        # Turns between the normals, within a quarter turn of each.
        lo = max(min(0.0, delta), max(0.0, delta) - math.pi / 2 + 1e-6)
        hi = min(max(0.0, delta), min(0.0, delta) + math.pi / 2 - 1e-6)
        turns = np.linspace(lo, hi, 4001)
        grid = h1 / np.cos(turns) + h2 / np.cos(turns - delta)
        gap = h1 / (u @ n1) + h2 / (u @ n2) if h2 else h1 / (u @ n1)
        assert u @ n1 > 0 and (u @ n2 > 0 or h2 == 0)
        assert gap <= grid.min() * (1 + 1e-9) + 1e-12


def test_the_strip_index_holds_every_live_base_with_a_point_in_the_corridor() -> None:
    """Each pair's bases come from bitsets of the cells of each strip its corridor (the
    band between two parallel lines, within a box) crosses: for bands of every slope and
    width and boxes of every size, including ones beyond the table and boxes touching
    at one coordinate, the bits hold every live base whose box has a point in the
    corridor, and no dead one (the loop then tests the bases exactly); a thin diagonal
    corridor holds far fewer than the box around it."""
    from referee.maps.clear_search import _corridor, _low_bit, _strip_index

    assert [_low_bit(1 << k) for k in range(63)] == list(range(63))
    assert _low_bit(np.int64(-(2**63))) == 63 and _low_bit(0b101000) == 3
    rng = np.random.default_rng(3)
    count = 150  # three words
    lo = rng.integers(0, 60, (count, 2)).astype(float)
    hi = lo + rng.choice([0.0, 1.0, 2.5, 6.0], (count, 2))
    live = rng.random(count) > 0.2
    started, unended, origin, scale = _strip_index(lo, hi, live)
    near = np.empty(started.shape[3], np.int64)
    for trial in range(600):
        q_lo = rng.integers(-5, 70, 2).astype(float)
        q_hi = q_lo + rng.choice([0.0, 0.5, 3.0, 40.0, 70.0], 2)
        turn = rng.choice([0.0, math.pi / 2, math.pi / 4, rng.uniform(0, 2 * math.pi)])
        n = np.array([math.cos(turn), math.sin(turn)]) * rng.choice([0.5, 1.0, 30.0])
        mid = float(n @ (q_lo + q_hi) / 2 + rng.normal(0, 10))
        half = float(rng.choice([0.0, 0.5, 2.0, 20.0])) * float(np.hypot(*n))
        band = (float(n[0]), float(n[1]), mid - half, mid + half)
        _corridor(near, band, (*q_lo, *q_hi), started, unended, origin, scale)
        held = {64 * w + k for w, word in enumerate(near) for k in range(64) if word >> k & 1}
        # A box's part inside the query box, and that part's extent across the band.
        a, b = np.maximum(lo, q_lo), np.minimum(hi, q_hi)
        boxed = np.all(a <= b, axis=1)
        mixed = [a[:, 0] * n[0] + b[:, 1] * n[1], b[:, 0] * n[0] + a[:, 1] * n[1]]
        ends = np.stack([a @ n, b @ n, *mixed])
        in_band = boxed & (ends.max(axis=0) >= band[2]) & (ends.min(axis=0) <= band[3])
        assert set(np.flatnonzero(in_band & live).tolist()) <= held, trial
        assert not held & set(np.flatnonzero(~live).tolist())
    # Corner to corner of the whole table, one inch wide: a long diagonal pair.
    diagonal = (-1.0, 1.0, -0.5, 0.5)
    _corridor(near, diagonal, (0.0, 0.0, 66.0, 66.0), started, unended, origin, scale)
    held = sum(bin(int(word) & (2**64 - 1)).count("1") for word in near)
    assert held < live.sum() / 3


def test_a_map_shared_among_threads_is_the_one_thread_map(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every n-th pair to each of several threads: the very floats and ends one thread
    finds (on a table with dead bases, so the threads share the live ones)."""
    import referee.maps.clearance as clearance

    scene = random_table(90, 0, 0.02, ruleset="papercraft", seed=4)
    corners = np.array([p.corners() for p in scene.pieces], float)
    live = np.arange(len(corners)) % 7 != 0
    first, second = upper_pairs(len(corners))
    monkeypatch.setattr(clearance, "CORES", range(3))
    shared = clearance._clear_pair_segments(corners, live, first, second)
    monkeypatch.setattr(clearance, "CORES", range(1))
    alone = clearance._clear_pair_segments(corners, live, first, second)
    assert np.isinf(alone[0]).any() and np.isfinite(alone[0]).any()
    for a, b in zip(shared, alone, strict=True):
        np.testing.assert_array_equal(a, b)
    # Maps asked for at once (the dashboard's threads, the session's): each its own.
    monkeypatch.setattr(clearance, "CORES", range(2))
    with concurrent.futures.ThreadPoolExecutor(3) as callers:
        jobs = [
            callers.submit(clearance._clear_pair_segments, corners, live, first, second)
            for _ in range(6)
        ]
        for job in jobs:
            for a, b in zip(job.result(), alone, strict=True):
                np.testing.assert_array_equal(a, b)


def test_a_corner_hidden_from_an_outline_sees_none_of_it() -> None:
    """A corner the search leaves out as hidden by a base from A (or B): every segment
    from it to a point of that outline's edges crosses the base, as the numpy test
    finds; and corners it keeps include ones with a clear segment to both."""
    from referee.maps.clear_search import _hidden, base_slabs

    rng = np.random.default_rng(21)
    hidden = kept_open = 0
    for _ in range(300):
        outlines = base_corners_many(
            rng.uniform(0, 12, (3, 2)), rng.uniform(0, 180, 3), rng.uniform(0.5, 4, (3, 2))
        )
        a, b, base = outlines
        c = rng.uniform(0, 12, 2)
        ends = tuple(tuple(o[:, k].tolist()) for o in (a, b) for k in range(2))
        # Points all round each outline: corners and along every edge.
        t = np.linspace(0, 1, 41)[:, None, None]
        rims = [(o + t * (np.roll(o, -1, axis=0) - o)).reshape(-1, 2) for o in (a, b)]
        crossed = [
            segments_cross_rectangles(np.repeat(c[None], len(r), 0), r, base[None])[:, 0]
            for r in rims
        ]
        if _hidden(c[0], c[1], ends, np.array([0]), base[None], base_slabs(base[None])):
            hidden += 1
            assert crossed[0].all() or crossed[1].all()
        elif not crossed[0].all() and not crossed[1].all():
            kept_open += 1
    assert hidden > 10 and kept_open > 10


def test_a_corner_of_a_or_b_hidden_by_one_base_sees_none_of_the_other() -> None:
    """The corners of A and B whose four corner-to-corner lines one base crosses: every
    segment from such a corner to a point of the other outline crosses the base."""
    from referee.maps.clear_search import _corner_lines_crossed, _hidden_ends, base_slabs

    assert _hidden_ends(0xF0F0) == 0b1010 and _hidden_ends(0x2222) == 1 << 5
    rng = np.random.default_rng(8)
    hidden = 0
    t = np.linspace(0, 1, 41)[:, None, None]
    for _ in range(300):
        outlines = base_corners_many(
            rng.uniform(0, 12, (3, 2)), rng.uniform(0, 180, 3), rng.uniform(0.5, 4, (3, 2))
        )
        ends = _hidden_ends(_corner_lines_crossed(outlines, base_slabs(outlines), 0, 1, 2))
        for side, (src, dst) in enumerate(((outlines[0], outlines[1]), (outlines[1], outlines[0]))):
            rim = (dst + t * (np.roll(dst, -1, axis=0) - dst)).reshape(-1, 2)
            for u in range(4):
                if ends >> (4 * side + u) & 1:
                    hidden += 1
                    start = np.repeat(src[u][None], len(rim), 0)
                    assert segments_cross_rectangles(start, rim, outlines[2:])[:, 0].all()
    assert hidden > 20


def test_a_grazing_turn_left_out_would_not_leave_and_meet_through_its_edges() -> None:
    """Where the search skips finding the least gap's direction through a corner between
    an edge of A and one of B, that direction misses one of the two edges; and where it
    does find it, the direction often passes through both."""
    from referee.maps.clear_search import _least_elsewhere, _turning_direction

    def cross(u: np.ndarray, v: np.ndarray) -> float:
        return float(u[0] * v[1] - u[1] * v[0])

    def within(u: np.ndarray, d1: np.ndarray, d2: np.ndarray) -> bool:
        if cross(d1, d2) < 0:
            d1, d2 = d2, d1
        return cross(d1, u) >= 0 and cross(u, d2) >= 0

    rng = np.random.default_rng(17)
    skipped = through_both = 0
    for _ in range(3000):
        c = np.zeros(2)
        # A's edge below-left of the corner, B's above-right, at random turns.
        phi_a, phi_b = rng.uniform(0, 2 * math.pi, 2)
        n1 = np.array([math.cos(phi_a), math.sin(phi_a)])  # A's outward normal
        n2 = np.array([math.cos(phi_b), math.sin(phi_b)])  # B's inward normal
        h1, h2 = rng.uniform(0.2, 5.0, 2)
        foot_a, foot_b = c - h1 * n1, c + h2 * n2
        along_a, along_b = np.array([-n1[1], n1[0]]), np.array([-n2[1], n2[0]])
        a_ends = foot_a + along_a * rng.uniform(-4, 4, 2)[:, None]
        b_ends = foot_b + along_b * rng.uniform(-4, 4, 2)[:, None]
        cos_t, sin_t = float(n1 @ n2), cross(n1, n2)
        if cos_t < 0 and abs(sin_t) < 1e-6:
            continue
        cone_a = (*(c - a_ends[0]), *(c - a_ends[1]))
        cone_b = (*(b_ends[0] - c), *(b_ends[1] - c))
        args = (h1, h2, n1[0], n1[1], cos_t, sin_t)
        u = np.array(_turning_direction(*args))
        both = within(u, c - a_ends[0], c - a_ends[1]) and within(u, *(b_ends - c))
        if _least_elsewhere(*args, cone_a, cone_b):
            skipped += 1
            assert not both
        else:
            through_both += both
    assert skipped > 300 and through_both > 300
