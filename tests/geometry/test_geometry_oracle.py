"""Geometry against shapely (test-only oracle) and hypothesis properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon

from referee.geometry import (
    Pose,
    base_corners,
    base_distance,
    centre_distance,
    front_point,
    point_in_polygon,
    polygon_distance,
    polygon_is_simple,
    polygons_overlap,
    segment_polygon,
    segment_spans,
    signed_boundary_distance,
)
from referee.maps import MapTable

RNG = np.random.default_rng(7)


def star(rng: np.random.Generator, n: int | None = None) -> np.ndarray:
    """A random simple (star-shaped, often non-convex) polygon."""
    n = n or int(rng.integers(3, 9))
    angles = np.sort(rng.uniform(0, 2 * math.pi, n))
    radii = rng.uniform(1.0, 5.0, n)
    centre = rng.uniform(5, 30, 2)
    return centre + np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=1)


def random_segment(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.uniform(0, 36, 2), rng.uniform(0, 36, 2)


def test_point_in_polygon_matches_shapely() -> None:
    for _ in range(60):
        poly = star(RNG)
        shape = Polygon(poly)
        assume_valid = shape.is_valid
        if not assume_valid:
            continue
        for p in RNG.uniform(0, 36, (40, 2)):
            assert point_in_polygon(p, poly) == shape.covers(Point(p))
            assert point_in_polygon(p, poly, strict=True) == shape.contains(Point(p))
        # Vertices and edge midpoints are on the boundary: inside, but not strictly.
        for a, b in zip(poly, np.roll(poly, -1, 0), strict=True):
            assert point_in_polygon((a + b) / 2, poly)
            assert not point_in_polygon((a + b) / 2, poly, strict=True)


def test_signed_boundary_distance_matches_shapely() -> None:
    for _ in range(30):
        poly = star(RNG)
        shape = Polygon(poly)
        pts = RNG.uniform(0, 36, (20, 2))
        got = signed_boundary_distance(pts, poly)
        for p, d in zip(pts, got, strict=True):
            want = shape.exterior.distance(Point(p))
            assert abs(abs(d) - want) < 1e-9
            assert (d > 0) == shape.contains(Point(p)) or want < 1e-9


def test_segment_polygon_matches_shapely() -> None:
    kinds = set()
    for _ in range(300):
        poly = star(RNG)
        shape = Polygon(poly)
        if not shape.is_valid:
            continue
        a, b = random_segment(RNG)
        line = LineString([a, b])
        got = segment_polygon(a, b, poly)
        crosses = line.relate_pattern(shape, "T********") or line.relate_pattern(shape, "***T*****")
        kinds.add(got.contact)
        if crosses:
            assert got.contact == "crosses"
            assert got.clearance == 0.0
        elif line.intersects(shape):
            assert got.contact == "touches"
        else:
            assert got.contact == "clear"
            assert got.clearance == pytest.approx(line.distance(shape.exterior), abs=1e-9)
    assert kinds == {"crosses", "clear"} or kinds == {"crosses", "clear", "touches"}


@pytest.mark.parametrize(
    ("a", "b", "contact"),
    [
        ((-1, 0), (5, 0), "touches"),  # along the bottom edge
        ((0, 0), (4, 4), "crosses"),  # the diagonal, corner to corner
        ((-2, 2), (2, 6), "touches"),  # grazes the corner (0, 4)
        ((4, 4), (6, 6), "touches"),  # starts at a corner and leaves
        ((2, 2), (3, 3), "crosses"),  # wholly inside
        ((0, 1), (0, 3), "touches"),  # on an edge, inside it
        ((0, 2), (8, 2), "crosses"),  # starts on an edge, goes through
        ((-1, 5), (5, 5), "clear"),
    ],
)
def test_segment_polygon_boundary_cases(a, b, contact) -> None:
    sq = [(0, 0), (4, 0), (4, 4), (0, 4)]
    assert segment_polygon(a, b, sq).contact == contact
    line = LineString([a, b])
    shape = Polygon(sq)
    oracle = (
        "crosses"
        if line.relate_pattern(shape, "T********") or line.relate_pattern(shape, "***T*****")
        else "touches"
        if line.intersects(shape)
        else "clear"
    )
    assert oracle == contact


def test_depth_is_the_deepest_point_for_convex_polygons() -> None:
    for _ in range(40):
        pts = RNG.uniform(0, 20, (8, 2))
        from shapely.geometry import MultiPoint

        hull = np.array(MultiPoint(pts).convex_hull.exterior.coords)[:-1]
        a, b = random_segment(RNG)
        got = segment_polygon(a, b, hull)
        ts = np.linspace(0, 1, 4001)
        brute = signed_boundary_distance(a + ts[:, None] * (b - a), hull).max()
        assert got.depth == pytest.approx(max(brute, 0.0), abs=2e-3)


def test_depth_in_a_convex_polygon_is_the_exact_peak() -> None:
    """Along the diagonal of a right triangle the depth peaks where the distance to the
    legs meets the distance to the hypotenuse: s = (4 - 2s) / sqrt(2), exactly."""
    triangle = [(0, 0), (4, 0), (0, 4)]
    peak = 4 / (2 + math.sqrt(2))
    assert segment_polygon((-1, -1), (3, 3), triangle).depth == pytest.approx(peak, abs=1e-12)
    # clockwise, and the peak beyond the segment's end: the depth at the end
    got = segment_polygon((-1, -1), (0.5, 0.5), triangle[::-1]).depth
    assert got == pytest.approx(0.5, abs=1e-12)


def test_segment_spans_cover_the_inside_length() -> None:
    for _ in range(60):
        poly = star(RNG)
        shape = Polygon(poly)
        if not shape.is_valid:
            continue
        a, b = random_segment(RNG)
        length = float(np.hypot(*(b - a)))
        spans = segment_spans(a, b, poly)
        inside = sum(t1 - t0 for t0, t1 in spans) * length
        assert inside == pytest.approx(LineString([a, b]).intersection(shape).length, abs=1e-7)


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_vectorised_segments_match_scalar() -> None:
    polys = [star(RNG) for _ in range(12)]
    polys = [p for p in polys if Polygon(p).is_valid]
    a = RNG.uniform(0, 36, (150, 2))
    b = RNG.uniform(0, 36, (150, 2))
    # A few exact vertex and edge contacts, the awkward cases.
    a[:3] = polys[0][0] - 1
    b[:3] = polys[0][0]
    a[3] = polys[0][0]
    b[3] = polys[0][1]
    res = MapTable.segments(a, b, polys, margin=0.5, depth=True)
    for s in range(len(a)):
        for k, poly in enumerate(polys):
            one = segment_polygon(a[s], b[s], poly)
            assert res.crosses[s, k] == (one.contact == "crosses"), (s, k)
            assert res.touches[s, k] == (one.contact == "touches"), (s, k)
            if one.clearance <= 0.5:
                assert res.clearance[s, k] == pytest.approx(one.clearance, abs=1e-9)
            else:
                assert res.clearance[s, k] == np.inf
            if one.contact == "crosses" and Polygon(poly).convex_hull.equals(Polygon(poly)):
                if one.depth <= 0.5:
                    assert res.depth[s, k] == pytest.approx(one.depth, abs=1e-4)
                else:  # only known to be deeper than the margin
                    assert 0.5 < res.depth[s, k] <= one.depth + 1e-9


def test_base_distance_matches_shapely_and_pairwise() -> None:
    xy = RNG.uniform(0, 20, (25, 2))
    heading = RNG.uniform(0, 360, 25)
    base = RNG.uniform(0.5, 3.0, (25, 2))
    matrix = MapTable.base_distances(xy, heading, base)
    for i in range(25):
        for j in range(25):
            if i == j:
                assert matrix[i, j] == 0
                continue
            pi = Polygon(base_corners(*xy[i], heading[i], base[i]))
            pj = Polygon(base_corners(*xy[j], heading[j], base[j]))
            want = pi.distance(pj)
            got = base_distance(
                Pose(*xy[i], heading[i]), base[i], Pose(*xy[j], heading[j]), base[j]
            )
            assert got == pytest.approx(want, abs=1e-9)
            assert matrix[i, j] == pytest.approx(want, abs=1e-9)
            assert polygons_overlap(pi.exterior.coords[:-1], pj.exterior.coords[:-1]) == (
                pi.intersection(pj).area > 1e-12
            )


def test_polygon_is_simple_matches_shapely() -> None:
    for _ in range(300):
        n = int(RNG.integers(3, 7))
        pts = RNG.integers(0, 5, (n, 2)).astype(float)  # small grid: many degenerate cases
        shape = Polygon(pts)
        simple = polygon_is_simple(pts)
        if simple:
            assert shape.is_valid and shape.area > 0, pts.tolist()
        elif shape.is_valid and shape.area > 0 and len(set(map(tuple, pts))) == n:
            # shapely accepts collinear fold-free outlines we also accept; anything
            # else we refuse must be invalid there too.
            raise AssertionError(pts.tolist())


def test_front_point_and_corners_follow_the_heading() -> None:
    assert front_point(10, 10, 90, 4) == (10.0, 12.0)
    fl, fr, br, bl = base_corners(0, 0, 90, (2, 4)).tolist()
    # Facing +y (down the map), the piece's right is -x.
    assert fl == [1.0, 2.0] and fr == [-1.0, 2.0] and br == [-1.0, -2.0] and bl == [1.0, -2.0]


coord = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
size = st.floats(0.2, 5, allow_nan=False, allow_infinity=False)
angle = st.floats(0, 360, allow_nan=False, allow_infinity=False)


@st.composite
def bases(draw):
    return Pose(draw(coord), draw(coord), draw(angle)), (draw(size), draw(size))


def _moved(pose: Pose, dx: float, dy: float, turn: float) -> Pose:
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    return Pose(c * pose.x - s * pose.y + dx, s * pose.x + c * pose.y + dy, pose.heading + turn)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(bases(), bases())
def test_distances_are_symmetric(a, b) -> None:
    (pa, ba), (pb, bb) = a, b
    assert base_distance(pa, ba, pb, bb) == pytest.approx(base_distance(pb, bb, pa, ba), abs=1e-9)
    assert centre_distance(pa.xy, pb.xy) == centre_distance(pb.xy, pa.xy)
    assert base_distance(pa, ba, pb, bb) <= centre_distance(pa.xy, pb.xy) + 1e-9


@settings(max_examples=150, deadline=None, derandomize=True)
@given(bases(), bases(), coord, coord, angle)
def test_distances_survive_moving_the_whole_table(a, b, dx, dy, turn) -> None:
    (pa, ba), (pb, bb) = a, b
    ma, mb = _moved(pa, dx, dy, turn), _moved(pb, dx, dy, turn)
    assert centre_distance(ma.xy, mb.xy) == pytest.approx(centre_distance(pa.xy, pb.xy), abs=1e-9)
    assert base_distance(ma, ba, mb, bb) == pytest.approx(base_distance(pa, ba, pb, bb), abs=1e-7)
    m = MapTable.centre_distances([ma.xy, mb.xy])
    assert m[0, 1] == m[1, 0]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(st.tuples(coord, coord), min_size=2, max_size=2),
    st.integers(0, 10_000),
    coord,
    coord,
    angle,
)
def test_segment_contact_survives_moving_the_whole_table(seg, seed, dx, dy, turn) -> None:
    poly = star(np.random.default_rng(seed)) - 15
    assume(Polygon(poly).is_valid)
    (ax, ay), (bx, by) = seg
    before = segment_polygon((ax, ay), (bx, by), poly)
    assume(before.clearance > 1e-6 or before.depth > 1e-6)  # not a knife-edge contact
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    rot = np.array([[c, -s], [s, c]])

    def move(p):
        return np.asarray(p) @ rot.T + (dx, dy)

    after = segment_polygon(move((ax, ay)), move((bx, by)), move(poly))
    assert after.contact == before.contact
    assert after.clearance == pytest.approx(before.clearance, abs=1e-7)
    assert after.depth == pytest.approx(before.depth, abs=1e-6)
    assert polygon_distance(move(poly), move(poly + 100)) == pytest.approx(
        polygon_distance(poly, poly + 100), abs=1e-7
    )
