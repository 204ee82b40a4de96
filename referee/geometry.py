"""Plane geometry in table inches: bases, distances, polygons, lines of sight.

Pure numpy, no shapely at run time. Conventions (DESIGN.md): x along the table
width, y along its depth growing the way image rows grow, heading in degrees
with 0 along +x and 90 along +y. A base is ``(width, depth)``: width across the
front, depth from front to back; a piece's right side points to heading + 90.

Boundary behaviour, stated once and used everywhere:

- *Inside* a polygon means the closed region: a point on an edge is inside
  (:func:`point_in_polygon`); ``strict=True`` asks for the open interior.
- Two bases that touch or overlap are ``0`` apart (:func:`polygon_distance`).
- A segment *crosses* a polygon when some point of it lies in the open
  interior; it *touches* when it meets the boundary without ever entering
  (grazing a corner, running along an edge); otherwise it is *clear*, with a
  positive ``clearance`` (:func:`segment_polygon`).

Lengths closer than :data:`EPS` are treated as equal, so results do not flip on
floating-point noise.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.runtime import CORES, in_strides

EPS = 1e-9
"""Inches below which two lengths are the same (contact, not a gap)."""

Point = tuple[float, float]
Array = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
Contact = Literal["crosses", "touches", "clear"]


@dataclass(frozen=True)
class Pose:
    """Where a piece stands: base centre (inches) and the heading of its front (degrees)."""

    x: float
    y: float
    heading: float = 0.0

    @property
    def xy(self) -> Point:
        return (self.x, self.y)

    def front(self, depth: float) -> Point:
        """Front-centre point of a base ``depth`` deep.

        >>> Pose(10, 10, 90).front(3.0)
        (10.0, 11.5)
        """
        return front_point(self.x, self.y, self.heading, depth)


def _round(value: float) -> float:
    # Snap cos(90 deg) = 6e-17 style noise so doctests and JSON read cleanly.
    return float(round(value, 12))


def front_point(x: float, y: float, heading: float, depth: float) -> Point:
    """Centre of the front edge of a base: ``depth / 2`` ahead of its centre.

    >>> front_point(0, 0, 0, 2)
    (1.0, 0.0)
    >>> front_point(5, 5, 180, 3)
    (3.5, 5.0)
    """
    h = math.radians(heading)
    return (_round(x + depth / 2 * math.cos(h)), _round(y + depth / 2 * math.sin(h)))


def base_corners(x: float, y: float, heading: float, base: Sequence[float]) -> Array:
    """The four corners of a base, shape ``(4, 2)``: front-left, front-right, back-right,
    back-left (left/right as seen by the piece looking along its heading).

    >>> base_corners(0, 0, 0, (2, 4)).tolist()
    [[2.0, -1.0], [2.0, 1.0], [-2.0, 1.0], [-2.0, -1.0]]
    """
    return base_corners_many(
        np.array([[x, y]], float), np.array([heading], float), np.array([base], float)
    )[0]


def base_corners_many(xy: ArrayLike, heading: ArrayLike, base: ArrayLike) -> Array:
    """Vectorised :func:`base_corners`: ``xy (n, 2)``, ``heading (n,)``, ``base (n, 2)``
    -> ``(n, 4, 2)``."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    h = np.radians(np.asarray(heading, float).reshape(-1))
    base = np.asarray(base, float).reshape(-1, 2)
    fwd = np.stack([np.cos(h), np.sin(h)], axis=1)
    right = np.stack([-np.sin(h), np.cos(h)], axis=1)
    half_w = base[:, 0:1] / 2
    half_d = base[:, 1:2] / 2
    f = fwd * half_d
    r = right * half_w
    corners = np.stack([xy + f - r, xy + f + r, xy - f + r, xy - f - r], axis=1)
    return np.round(corners, 12) + 0.0  # +0.0 turns -0.0 into 0.0


def centre_distance(a: Sequence[float], b: Sequence[float]) -> float:
    """Straight-line distance between two points.

    >>> centre_distance((0, 0), (3, 4))
    5.0
    """
    return math.hypot(b[0] - a[0], b[1] - a[1])


def point_segment_distance(p: Sequence[float], a: Sequence[float], b: Sequence[float]) -> float:
    """Distance from point ``p`` to the closed segment ``a``-``b`` (a point if ``a == b``).

    >>> point_segment_distance((0, 1), (-1, 0), (1, 0))
    1.0
    >>> point_segment_distance((3, 0), (-1, 0), (1, 0))
    2.0
    """
    return float(_point_seg_dist(np.asarray(p, float), np.asarray(a, float), np.asarray(b, float)))


def _point_seg_dist(p: Array, a: Array, b: Array) -> Array:
    """Broadcasting point-to-segment distance over the last axis (size 2)."""
    abx, aby = b[..., 0] - a[..., 0], b[..., 1] - a[..., 1]
    apx, apy = p[..., 0] - a[..., 0], p[..., 1] - a[..., 1]
    denom = abx * abx + aby * aby
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (apx * abx + apy * aby) / denom
    t = np.where(denom > 0, np.clip(t, 0.0, 1.0), 0.0)
    return np.asarray(np.hypot(apx - t * abx, apy - t * aby))


def _cross(o: Array, a: Array, b: Array) -> Array:
    """z of (a - o) x (b - o), broadcasting over the last axis."""
    return (a[..., 0] - o[..., 0]) * (b[..., 1] - o[..., 1]) - (a[..., 1] - o[..., 1]) * (
        b[..., 0] - o[..., 0]
    )


def _segments_intersect(a: Array, b: Array, c: Array, d: Array) -> BoolArray:
    """Closed segments a-b and c-d share at least one point (touching counts)."""
    o1, o2 = _cross(a, b, c), _cross(a, b, d)
    o3, o4 = _cross(c, d, a), _cross(c, d, b)
    proper = (o1 * o2 < 0) & (o3 * o4 < 0)
    tol = EPS
    touch = (
        ((np.abs(o1) <= tol) & _on_box(a, b, c))
        | ((np.abs(o2) <= tol) & _on_box(a, b, d))
        | ((np.abs(o3) <= tol) & _on_box(c, d, a))
        | ((np.abs(o4) <= tol) & _on_box(c, d, b))
    )
    return np.asarray(proper | touch)


def _on_box(a: Array, b: Array, p: Array) -> BoolArray:
    lo = np.minimum(a, b) - EPS
    hi = np.maximum(a, b) + EPS
    return np.asarray(np.all((p >= lo) & (p <= hi), axis=-1))


def segment_segment_distance(
    a: Sequence[float], b: Sequence[float], c: Sequence[float], d: Sequence[float]
) -> float:
    """Shortest distance between closed segments a-b and c-d; 0 when they meet.

    >>> segment_segment_distance((0, 0), (2, 2), (0, 2), (2, 0))
    0.0
    >>> segment_segment_distance((0, 0), (1, 0), (0, 2), (1, 2))
    2.0
    """
    A, B, C, D = (np.asarray(v, float) for v in (a, b, c, d))
    return float(_seg_seg_dist(A, B, C, D))


def _seg_seg_dist(a: Array, b: Array, c: Array, d: Array) -> Array:
    dist = np.minimum(
        np.minimum(_point_seg_dist(a, c, d), _point_seg_dist(b, c, d)),
        np.minimum(_point_seg_dist(c, a, b), _point_seg_dist(d, a, b)),
    )
    return np.asarray(np.where(_segments_intersect(a, b, c, d), 0.0, dist))


def as_polygon(points: ArrayLike) -> Array:
    """An ``(n, 2)`` float array of vertices, without a repeated closing vertex."""
    poly = np.asarray(points, float).reshape(-1, 2)
    if len(poly) > 1 and poly[0, 0] == poly[-1, 0] and poly[0, 1] == poly[-1, 1]:
        poly = poly[:-1]
    return poly


def polygon_area(points: ArrayLike) -> float:
    """Signed area (shoelace): positive when the vertices run counter-clockwise in
    x-right, y-up terms (clockwise as seen on the table, since y grows like image rows).

    >>> polygon_area([(0, 0), (4, 0), (4, 3), (0, 3)])
    12.0
    """
    p = as_polygon(points)
    q = np.roll(p, -1, axis=0)
    return float(np.sum(p[:, 0] * q[:, 1] - q[:, 0] * p[:, 1]) / 2)


def polygon_is_simple(points: ArrayLike) -> bool:
    """True when the outline has at least 3 vertices, non-zero area and no edge meets
    another edge except its two neighbours at the shared vertex.

    >>> polygon_is_simple([(0, 0), (2, 0), (2, 2), (0, 2)])
    True
    >>> polygon_is_simple([(0, 0), (2, 2), (2, 0), (0, 2)])  # a bow-tie
    False
    """
    p = as_polygon(points)
    n = len(p)
    if n < 3 or not np.all(np.isfinite(p)) or abs(polygon_area(p)) <= EPS:
        return False
    a, b = p, np.roll(p, -1, axis=0)
    if np.any(np.hypot(*(b - a).T) <= EPS):
        return False
    i, j = np.triu_indices(n, k=1)
    hit = _segments_intersect(a[i], b[i], a[j], b[j])
    adjacent = (j == i + 1) | ((i == 0) & (j == n - 1))
    if np.any(hit & ~adjacent):
        return False
    # Neighbours may share only their common vertex, not fold back along each other.
    e1 = b[i[adjacent]] - a[i[adjacent]]
    e2 = b[j[adjacent]] - a[j[adjacent]]
    collinear = np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]) <= EPS
    folded = collinear & (np.sum(e1 * e2, axis=1) < 0)
    return not bool(np.any(folded))


def points_in_polygon(points: ArrayLike, polygon: ArrayLike, *, strict: bool = False) -> NDArray:
    """Vectorised :func:`point_in_polygon` for ``points (n, 2)``; returns ``(n,)`` bool."""
    inside, d = _parity_and_edge_distance(points, polygon)
    on_edge = d <= EPS
    return np.asarray(inside & ~on_edge if strict else inside | on_edge)


def _parity_and_edge_distance(points: ArrayLike, polygon: ArrayLike) -> tuple[BoolArray, Array]:
    """Each point's even-odd parity against ``polygon`` (inside, edges aside) and its
    distance to the nearest edge."""
    pts = np.asarray(points, float).reshape(-1, 2)
    poly = as_polygon(polygon)
    a, b = poly, np.roll(poly, -1, axis=0)
    px, py = pts[:, 0:1], pts[:, 1:2]
    ax, ay, bx, by = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    straddle = (ay > py) != (by > py)
    with np.errstate(invalid="ignore", divide="ignore"):
        x_at = ax + (py - ay) * (bx - ax) / (by - ay)
    inside = np.sum(straddle & (px < x_at), axis=1) % 2 == 1
    return inside, np.min(_point_seg_dist(pts[:, None, :], a[None], b[None]), axis=1)


def point_in_polygon(point: ArrayLike, polygon: ArrayLike, *, strict: bool = False) -> bool:
    """Whether ``point`` lies in the polygon; a point on an edge counts unless ``strict``.

    >>> square = [(0, 0), (4, 0), (4, 4), (0, 4)]
    >>> point_in_polygon((2, 2), square), point_in_polygon((4, 2), square)
    (True, True)
    >>> point_in_polygon((4, 2), square, strict=True), point_in_polygon((5, 2), square)
    (False, False)
    """
    return bool(points_in_polygon(np.asarray(point, float), polygon, strict=strict)[0])


def boundary_distance(point: Sequence[float], polygon: ArrayLike) -> float:
    """Distance from ``point`` to the polygon's outline (0 on an edge), inside or out.

    >>> boundary_distance((1, 2), [(0, 0), (4, 0), (4, 4), (0, 4)])
    1.0
    """
    poly = as_polygon(polygon)
    p = np.asarray(point, float)
    return float(np.min(_point_seg_dist(p, poly, np.roll(poly, -1, axis=0))))


def signed_boundary_distance(points: ArrayLike, polygon: ArrayLike) -> Array:
    """Distance to the outline for ``points (n, 2)``: positive inside, negative outside.

    >>> signed_boundary_distance([(1, 2), (6, 2)], [(0, 0), (4, 0), (4, 4), (0, 4)]).tolist()
    [1.0, -2.0]
    """
    pts = np.asarray(points, float).reshape(-1, 2)
    poly = as_polygon(polygon)
    d = np.min(_point_seg_dist(pts[:, None, :], poly[None], np.roll(poly, -1, axis=0)[None]), 1)
    return np.where(points_in_polygon(pts, poly), d, -d)


def polygon_depths(points: ArrayLike, polygon: ArrayLike) -> tuple[Array, BoolArray, BoolArray]:
    """:func:`signed_boundary_distance`, :func:`points_in_polygon` and its ``strict`` form
    at once, from one table of distances to the edges and one parity count (each of the
    three worked both out again): the very same values.

    >>> polygon_depths([(1, 2), (4, 2)], [(0, 0), (4, 0), (4, 4), (0, 4)])
    (array([1., 0.]), array([ True,  True]), array([ True, False]))
    """
    inside, d = _parity_and_edge_distance(points, polygon)
    on_edge = d <= EPS
    held = inside | on_edge
    return np.where(held, d, -d), held, inside & ~on_edge


def polygon_distance(p: ArrayLike, q: ArrayLike) -> float:
    """Shortest distance between two closed polygons (convex or not); 0 when they touch,
    overlap or one holds the other.

    >>> polygon_distance([(0, 0), (1, 0), (1, 1), (0, 1)], [(3, 0), (4, 0), (4, 1), (3, 1)])
    2.0
    >>> polygon_distance([(0, 0), (2, 0), (2, 2), (0, 2)], [(2, 1), (3, 1), (3, 2), (2, 2)])
    0.0
    """
    P, Q = as_polygon(p), as_polygon(q)
    if points_in_polygon(P[:1], Q)[0] or points_in_polygon(Q[:1], P)[0]:
        return 0.0
    d = _seg_seg_dist(
        P[:, None, :], np.roll(P, -1, 0)[:, None, :], Q[None, :, :], np.roll(Q, -1, 0)[None]
    )
    return float(np.min(d))


def base_distance(a: Pose, base_a: Sequence[float], b: Pose, base_b: Sequence[float]) -> float:
    """Distance between the nearest points of two rectangular bases (0 if they touch).

    >>> base_distance(Pose(0, 0), (2, 2), Pose(5, 0), (2, 2))
    3.0
    >>> round(base_distance(Pose(0, 0), (2, 2), Pose(5, 0, 45), (2, 2)), 4)
    2.5858
    """
    pa = base_corners(a.x, a.y, a.heading, base_a)
    pb = base_corners(b.x, b.y, b.heading, base_b)
    return polygon_distance(pa, pb)


@dataclass(frozen=True)
class SegmentContact:
    """How a segment meets a polygon (see :func:`segment_polygon`)."""

    contact: Contact
    clearance: float
    """Shortest distance from the segment to the outline; 0 when it touches or crosses."""
    depth: float
    """How far inside the segment reaches: the largest distance from the outline of a
    segment point in the open interior (0 unless it crosses)."""


def segment_polygon(a: Sequence[float], b: Sequence[float], polygon: ArrayLike) -> SegmentContact:
    """Classify the closed segment ``a``-``b`` against a closed polygon.

    ``crosses``: some point of the segment lies in the open interior (an endpoint
    strictly inside counts). ``touches``: the segment meets the outline but never
    enters, e.g. it grazes a corner or runs along an edge. ``clear``: no contact.
    ``depth`` is exact for convex polygons and for each convex stretch of others.

    >>> sq = [(0, 0), (4, 0), (4, 4), (0, 4)]
    >>> c = segment_polygon((-1, 2), (5, 2), sq); c.contact, c.depth
    ('crosses', 2.0)
    >>> segment_polygon((-1, 0), (5, 0), sq).contact       # along an edge
    'touches'
    >>> segment_polygon((-1, 5), (5, 3), sq).contact       # clips the corner (4, 4)
    'crosses'
    >>> segment_polygon((-2, 2), (2, 6), sq).contact       # grazes corner (0, 4)
    'touches'
    >>> segment_polygon((-1, 5), (5, 5), sq).clearance
    1.0
    """
    A, B = np.asarray(a, float), np.asarray(b, float)
    poly = as_polygon(polygon)
    C, D = poly, np.roll(poly, -1, axis=0)
    clearance = float(np.min(_seg_seg_dist(A, B, C, D)))
    if clearance > EPS:
        if point_in_polygon(A, poly):  # wholly inside, never near an edge
            depth = _max_depth(A, B, poly, [(0.0, 1.0)])
            return SegmentContact("crosses", 0.0, depth)
        return SegmentContact("clear", clearance, 0.0)
    inner = segment_spans(A, B, poly)
    if not inner:
        return SegmentContact("touches", 0.0, 0.0)
    return SegmentContact("crosses", 0.0, _max_depth(A, B, poly, inner))


def segment_spans(
    a: ArrayLike, b: ArrayLike, polygon: ArrayLike, *, strict: bool = True
) -> list[tuple[float, float]]:
    """Parameter intervals ``(t0, t1)`` (0 at ``a``, 1 at ``b``) where the segment lies in
    the polygon's open interior, or with ``strict=False`` in the closed polygon (stretches
    along an edge count). Adjacent intervals are merged; zero-length contacts are dropped.

    >>> segment_spans((-2, 1), (6, 1), [(0, 0), (4, 0), (4, 4), (0, 4)])
    [(0.25, 0.75)]
    >>> segment_spans((-2, 0), (6, 0), [(0, 0), (4, 0), (4, 4), (0, 4)])
    []
    >>> segment_spans((-2, 0), (6, 0), [(0, 0), (4, 0), (4, 4), (0, 4)], strict=False)
    [(0.25, 0.75)]
    """
    A, B = np.asarray(a, float), np.asarray(b, float)
    poly = as_polygon(polygon)
    C, D = poly, np.roll(poly, -1, axis=0)
    # Split the segment where it meets the outline; each piece is wholly inside,
    # wholly outside or lies along an edge, so its midpoint decides.
    ts = [0.0, 1.0, *_contact_params(A, B, C, D)]
    ts = sorted({round(t, 12) for t in ts if 0.0 <= t <= 1.0})
    pieces = [(t0, t1) for t0, t1 in itertools.pairwise(ts) if t1 - t0 > 1e-12]
    if not pieces:
        return []
    mids = np.array([A + (t0 + t1) / 2 * (B - A) for t0, t1 in pieces]).reshape(-1, 2)
    inside = points_in_polygon(mids, poly, strict=strict)
    spans: list[tuple[float, float]] = []
    for (t0, t1), flag in zip(pieces, inside, strict=True):
        if not flag:
            continue
        if spans and abs(spans[-1][1] - t0) <= 1e-12:
            spans[-1] = (spans[-1][0], t1)
        else:
            spans.append((t0, t1))
    return [(float(t0), float(t1)) for t0, t1 in spans]


def polygons_overlap(p: ArrayLike, q: ArrayLike) -> bool:
    """Whether two simple polygons share area; touching along an edge or at a corner
    does not count.

    >>> sq = [(0, 0), (2, 0), (2, 2), (0, 2)]
    >>> polygons_overlap(sq, [(1, 1), (3, 1), (3, 3), (1, 3)])
    True
    >>> polygons_overlap(sq, [(2, 0), (4, 0), (4, 2), (2, 2)])
    False
    """
    P, Q = as_polygon(p), as_polygon(q)
    if np.any(P.min(axis=0) > Q.max(axis=0)) or np.any(Q.min(axis=0) > P.max(axis=0)):
        return False
    # Quick answers: a vertex strictly inside the other, or two edges properly crossing.
    if points_in_polygon(P, Q, strict=True).any() or points_in_polygon(Q, P, strict=True).any():
        return True
    a, b = P[:, None, :], np.roll(P, -1, axis=0)[:, None, :]
    c, d = Q[None], np.roll(Q, -1, axis=0)[None]
    o1, o2, o3, o4 = _cross(a, b, c), _cross(a, b, d), _cross(c, d, a), _cross(c, d, b)
    if np.any((o1 * o2 < -EPS * EPS) & (o3 * o4 < -EPS * EPS)):
        return True
    if polygon_distance(P, Q) > EPS:
        return False
    # Touching somewhere: decide exactly, edge by edge.
    for X, Y in ((P, Q), (Q, P)):
        for a, b in zip(X, np.roll(X, -1, axis=0), strict=True):
            if segment_spans(a, b, Y):
                return True
    # No edge enters the other's interior: either disjoint/touching, or identical.
    return bool(points_in_polygon(P.mean(axis=0), Q, strict=True)[0]) and bool(
        points_in_polygon(Q.mean(axis=0), P, strict=True)[0]
    )


def _contact_params(A: Array, B: Array, C: Array, D: Array) -> list[float]:
    """Segment parameters t where a-b meets edges c-d, including vertex and overlap ends."""
    ab = B - A
    len2 = float(ab @ ab)
    if len2 <= EPS * EPS:
        return []
    out: list[float] = []
    cd = D - C
    denom = ab[0] * cd[:, 1] - ab[1] * cd[:, 0]
    ac = C - A
    for k in range(len(C)):
        if abs(denom[k]) > EPS * max(1.0, math.sqrt(len2)):
            t = (ac[k, 0] * cd[k, 1] - ac[k, 1] * cd[k, 0]) / denom[k]
            u = (ac[k, 0] * ab[1] - ac[k, 1] * ab[0]) / denom[k]
            if -1e-12 <= u <= 1 + 1e-12:
                out.append(float(t))
    # Vertices on (or at EPS from) the segment, which also cover collinear overlaps.
    t_v = (C - A) @ ab / len2
    d_v = _point_seg_dist(C, A, B)
    out.extend(float(t) for t, d in zip(t_v, d_v, strict=True) if d <= EPS)
    return out


def _max_depth(A: Array, B: Array, poly: Array, spans: list[tuple[float, float]]) -> float:
    """Largest inside distance to the outline over parameter spans (golden section after
    a coarse scan: exact when the distance is unimodal along the span; for convex
    outlines, the exact peak itself)."""
    prep = prepare_polygons([poly])
    if prep.convex[0]:
        lo, hi = np.array(spans, float).reshape(-1, 2).T
        n = len(lo)
        depths = _convex_max_depths(
            np.tile(A, (n, 1)), np.tile(B, (n, 1)), prep, np.zeros(n, np.intp), lo, hi
        )
        return float(depths.max(initial=0.0))
    best = 0.0
    brackets = []
    for t0, t1 in spans:
        grid = np.linspace(t0, t1, 17)
        vals = signed_boundary_distance(A + grid[:, None] * (B - A), poly)
        k = int(np.argmax(vals))
        best = max(best, float(vals[k]))
        brackets.append((grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]))
    # One golden-section search per span, all at once (the search the sparse path uses).
    lo, hi = np.array(brackets).T
    n = len(brackets)
    ends = np.tile(A, (n, 1)), np.tile(B, (n, 1))
    gold = _golden_many(*ends, prep, np.zeros(n, np.intp), lo, hi, iters=40)
    return max(best, float(gold.max()))


def pairwise_centre_distances(xy: ArrayLike) -> Array:
    """All-pairs centre-to-centre distances, ``(n, 2) -> (n, n)``, zero diagonal.

    >>> pairwise_centre_distances([(0, 0), (3, 4)]).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    p = np.asarray(xy, float).reshape(-1, 2)
    x, y = p[:, 0], p[:, 1]
    return _length(x[:, None] - x, y[:, None] - y)


def _length(x: Array, y: Array) -> Array:
    """``hypot(x, y)`` as the square root of the squares, in ``x``'s memory (``x`` and
    ``y`` are overwritten): five times as fast, and table coordinates can neither
    overflow nor underflow (the two differ by an ulp at most)."""
    x *= x
    y *= y
    x += y
    return np.sqrt(x, out=x)


@functools.lru_cache(maxsize=4)
def upper_pairs(n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``np.triu_indices(n, 1)``, kept: a table is measured again and again."""
    iu, ju = np.triu_indices(n, k=1)
    iu.flags.writeable = ju.flags.writeable = False
    return iu, ju


def _vertex_edge_offsets(
    flat: tuple[Array, ...], vert: NDArray[np.intp], edge: NDArray[np.intp]
) -> tuple[Array, Array]:
    """From the nearest point of edge ``edge`` to corner ``vert`` (flat ``piece * 4 + k``
    indices), the offset whose ``hypot`` is their distance: :func:`_point_seg_dist`'s
    arithmetic op for op, so the very floats of the dense form."""
    cx, cy = flat[0], flat[1]
    ax, ay, ex, ey, dd = (a.take(edge) for a in flat)
    apx = cx.take(vert) - ax
    apy = cy.take(vert) - ay
    t = apx * ex
    t += apy * ey
    with np.errstate(invalid="ignore", divide="ignore"):
        t /= dd
    np.clip(t, 0.0, 1.0, out=t)
    t[~(dd > 0)] = 0.0  # a zero-length edge is its start point
    apx -= t * ex
    apy -= t * ey
    return apx, apy


def _dense_separated(corners: Array) -> BoolArray:
    """Separating-axis test for all pairs at once, ``(n, n)``: the bases are apart by
    more than ``EPS`` along an edge normal of one of them."""
    edges = np.roll(corners, -1, axis=1) - corners
    axes = np.stack([edges[:, 0], edges[:, 1]], axis=1)  # two normals' directions per base
    with np.errstate(invalid="ignore", divide="ignore"):
        axes = axes / np.linalg.norm(axes, axis=-1, keepdims=True)
    proj = np.einsum("iad,jkd->ijak", axes, corners)  # axis a of i, corner k of j
    lo = np.minimum(np.minimum(proj[..., 0], proj[..., 1]), np.minimum(proj[..., 2], proj[..., 3]))
    hi = np.maximum(np.maximum(proj[..., 0], proj[..., 1]), np.maximum(proj[..., 2], proj[..., 3]))
    own = np.einsum("iad,ikd->iak", axes, corners)
    own_lo, own_hi = own.min(axis=2), own.max(axis=2)  # (n, 2)
    sep_i = np.any((hi < own_lo[:, None, :] - EPS) | (lo > own_hi[:, None, :] + EPS), axis=2)
    return np.asarray(sep_i | sep_i.T)


def _corner_edge_tables(corners: Array) -> tuple[Array, ...]:
    """Corner x, y, edge x, y and squared edge length, flat by ``piece * 4 + k`` (edge
    ``k`` runs from corner ``k`` to ``k + 1``)."""
    ab = np.roll(corners, -1, axis=1) - corners
    den = ab[..., 0] * ab[..., 0] + ab[..., 1] * ab[..., 1]
    return tuple(a.ravel() for a in (corners[..., 0], corners[..., 1], ab[..., 0], ab[..., 1], den))


def _dense_base_distances(corners: Array) -> Array:
    """Every pair's 32 corner/edge distances, for tables with non-finite or huge corners."""
    n = len(corners)
    flat = _corner_edge_tables(corners)
    piece = np.arange(n)
    d = np.full((n, n), np.inf)
    for k, m in itertools.product(range(4), range(4)):
        ox, oy = _vertex_edge_offsets(flat, np.repeat(piece * 4 + k, n), np.tile(piece * 4 + m, n))
        np.minimum(d, np.hypot(ox, oy).reshape(n, n), out=d)
    d = np.minimum(d, d.T)
    return np.asarray(np.where(_dense_separated(corners), d, 0.0))


def pairwise_base_distances(xy: ArrayLike, heading: ArrayLike, base: ArrayLike) -> Array:
    """All-pairs nearest-edge distances between rectangular bases, ``(n, n)``; 0 for bases
    that touch or overlap (and on the diagonal). Same values as :func:`base_distance`.

    Each pair's distance is the least of its 32 corner-to-edge distances, but only the
    few combinations that can hold the least are computed (the very floats computing all
    32 gives), and bounds settle the separating-axis test except for pairs closer than
    their bases' size or within rounding of ``EPS``: see :func:`referee.base_gaps.base_gaps`.

    >>> pairwise_base_distances([(0, 0), (5, 0)], [0, 45], [(2, 2), (2, 2)]).round(4).tolist()
    [[0.0, 2.5858], [2.5858, 0.0]]
    """
    # Imported here: numba costs a third of a second, which commands that never
    # measure from base edges should not pay.
    from referee.base_gaps import base_gaps

    corners = base_corners_many(xy, heading, base)  # (n, 4, 2)
    n = len(corners)
    out = np.zeros((n, n))
    if n < 2:
        return out
    # Squared lengths must neither overflow nor underflow for the ``hypot`` shortcut.
    if not np.abs(corners).max() < 1e100:  # also catches nan and inf
        return _dense_base_distances(corners)
    # Each base also as a parallelogram ``mid +- fwd +- rgt``: its rounded corners stray
    # from that by less than the tolerances, which also absorb float rounding.
    c0, c1, c2, c3 = corners[:, 0], corners[:, 1], corners[:, 2], corners[:, 3]
    mid = (c0 + c1 + c2 + c3) / 4
    fwd = (c0 + c1 - c2 - c3) / 4
    rgt = (c1 + c2 - c0 - c3) / 4
    defect = np.hypot(*((c0 - c1 + c2 - c3) / 4).T)
    edges = corners[:, 1:3] - corners[:, 0:2]
    with np.errstate(invalid="ignore", divide="ignore"):
        axes = edges / np.linalg.norm(edges, axis=-1, keepdims=True)  # (n, 2, 2)
    square = np.abs((axes[:, 0] * axes[:, 1]).sum(axis=1)) <= 1e-3
    fr = np.abs(fwd[:, 0] * rgt[:, 0] + fwd[:, 1] * rgt[:, 1])
    reach = np.sqrt((fwd * fwd).sum(axis=1) + (rgt * rgt).sum(axis=1) + 2 * fr)
    cols = np.stack([*mid.T, *fwd.T, *rgt.T, np.where(square, reach, np.inf)])
    tol_sat = 4 * float(defect.max()) + 1e-13 * (1.0 + float(np.abs(corners).max()))
    tol = tol_sat + 1e-9 * (1.0 + float(np.abs(corners).max()))  # generous: more combinations
    args = (np.ascontiguousarray(corners), cols, axes, tol_sat, tol, out)
    # Rows shared among the cores, every n-th to each (a row's pairs shrink down the
    # table, so neighbouring rows cost alike); each pair's two entries are its own.
    in_strides(base_gaps, min(len(CORES), n * (n - 1) // 2 // _GAPS_PER_SHARE), *args)
    return out


_GAPS_PER_SHARE = 4000
"""Fewer pairs than this per core are measured in the calling thread alone: handing a
share to another thread and back costs about a tenth of a millisecond, a quarter of
what 4000 pairs take."""


@dataclass(frozen=True)
class SegmentsContact:
    """Many-segment :func:`segment_polygon` results, each array ``(segments, polygons)``."""

    crosses: NDArray[np.bool_]
    touches: NDArray[np.bool_]
    clearance: Array
    """Exact where at most the ``margin`` asked for; ``inf`` where farther."""
    depth: Array
    """Where ``crosses`` and ``depth=True`` was asked: exact where at most ``margin``
    (for convex polygons); where deeper, a depth the segment certainly reaches (> margin)."""


_EdgeRows = tuple[Array, Array, Array, Array, Array, Array, BoolArray, BoolArray]
"""Edge tables ``cx, cy, dy, ex, ey, den, zero-length, padding`` for :func:`_dist_parity`."""


@dataclass(frozen=True)
class PreparedPolygons:
    """Outlines laid out once for the vectorised tests (compare shapely's ``prepare``).

    ``verts``/``ends`` are all edges end to end (polygon ``k`` owns ``starts[k]`` to
    ``starts[k] + counts[k]``); the ``(polygons, max vertices)`` tables ``cx``, ``cy``
    (edge starts) and ``ex``, ``ey`` (edge vectors) repeat each outline's last vertex
    as zero-length padding, which never crosses anything.
    """

    polys: tuple[Array, ...]
    counts: NDArray[np.intp]
    starts: NDArray[np.intp]
    verts: Array
    ends: Array
    cx: Array
    cy: Array
    ex: Array
    ey: Array
    etol: Array
    """``EPS`` scaled to each edge's length (at least ``EPS``)."""
    lo: Array
    hi: Array
    centre: Array
    radius: Array
    rows: _EdgeRows
    """The edge tables again, padded to a multiple of 8 columns (cheap row reductions)."""
    inner: Array
    """Radius of a disc about ``centre`` inside the polygon (0 if the centre is not)."""
    convex: NDArray[np.bool_]
    halfplanes: tuple[Array, Array, Array]
    """Convex outlines' edge lines padded like ``rows``: unit inward normals ``hx, hy``
    and offsets ``ho``, so that an inside point's depth is the least ``hx x + hy y - ho``
    (:func:`referee.contacts.middle_depths`). Padding, zero-length edges and other outlines hold
    ``0, 0, -inf``: never the least."""
    cxT: Array
    """Vertices as ``(max vertices + 1, polygons)`` tables: each outline's vertices, then
    its first vertex again (closing it) down to the bottom row, so that row ``m`` and
    row ``m + 1`` are edge ``m`` (zero-length past the last edge)."""
    cyT: Array
    rooms: dict[tuple[float, bool], Array] = field(default_factory=dict, compare=False, repr=False)
    """:func:`inner_room` by margin, remembered: one all-pairs map asks for it thrice."""

    def subset(self, keep: NDArray[np.intp]) -> PreparedPolygons:
        """:func:`prepare_polygons` of the outlines ``keep`` (in that order), taken from
        these tables: each outline's rows are its own, so they are the same floats (for
        views of one table that see different outlines)."""
        counts = self.counts[keep]
        p_n = len(keep)
        nv = int(counts.max()) if p_n else 1
        w8 = -(-nv // 8) * 8
        starts = np.zeros(p_n, np.intp)
        np.cumsum(counts[:-1], out=starts[1:])
        which = (
            np.concatenate(
                [np.arange(s, s + c) for s, c in zip(self.starts[keep], counts, strict=True)]
            )
            if p_n
            else np.zeros(0, np.intp)
        )
        rows = tuple(r[keep, :w8] for r in self.rows)
        return PreparedPolygons(
            tuple(self.polys[k] for k in keep), counts, starts, self.verts[which],
            self.ends[which], self.cx[keep, :nv], self.cy[keep, :nv], self.ex[keep, :nv],
            self.ey[keep, :nv], self.etol[keep, :nv], self.lo[keep], self.hi[keep],
            self.centre[keep], self.radius[keep], rows,  # type: ignore[arg-type]
            self.inner[keep], self.convex[keep],
            tuple(h[keep, :w8] for h in self.halfplanes),  # type: ignore[arg-type]
            self.cxT[: nv + 1, keep], self.cyT[: nv + 1, keep],
        )  # fmt: skip


def prepare_polygons(polygons: Sequence[ArrayLike] | PreparedPolygons) -> PreparedPolygons:
    """Lay out outlines for :func:`segment_contacts` and :func:`points_polygons`.

    >>> prepare_polygons([[(0, 0), (4, 0), (4, 4)], [(0, 0), (1, 0), (1, 1), (0, 1)]]).cx
    array([[0., 4., 4., 4.],
           [0., 1., 1., 0.]])
    """
    if isinstance(polygons, PreparedPolygons):
        return polygons
    polys = tuple(as_polygon(p) for p in polygons)
    p_n = len(polys)
    counts = np.array([len(p) for p in polys], np.intp)
    starts = np.zeros(p_n, np.intp)
    np.cumsum(counts[:-1], out=starts[1:])
    verts = np.concatenate(polys) if p_n else np.zeros((0, 2))
    nxt = np.arange(len(verts)) + 1
    nxt[starts + counts - 1] = starts
    ends = verts[nxt]
    nv = int(counts.max()) if p_n else 1
    col = np.arange(nv)[None, :]
    last = (counts - 1)[:, None]
    c_idx = starts[:, None] + np.minimum(col, last)
    d_idx = np.where(col < last, c_idx + 1, np.where(col == last, starts[:, None], c_idx))
    cx, cy = verts[c_idx, 0], verts[c_idx, 1]
    ex, ey = verts[d_idx, 0] - cx, verts[d_idx, 1] - cy
    etol = EPS * np.maximum(np.hypot(ex, ey), 1.0)
    if p_n:
        lo = np.minimum.reduceat(verts, starts, axis=0)
        hi = np.maximum.reduceat(verts, starts, axis=0)
        centre = np.add.reduceat(verts, starts, axis=0) / counts[:, None]
        off = verts - np.repeat(centre, counts, axis=0)
        radius = np.sqrt(np.maximum.reduceat(off[:, 0] ** 2 + off[:, 1] ** 2, starts))
    else:
        lo = hi = centre = np.zeros((0, 2))
        radius = np.zeros(0)
    # Zero-length padding edges at the last vertex up to a multiple of 8 columns.
    col8 = np.arange(-(-nv // 8) * 8)[None, :]
    c8 = starts[:, None] + np.minimum(col8, last)
    d8 = np.where(col8 < last, c8 + 1, np.where(col8 == last, starts[:, None], c8))
    cx8, cy8, dy8 = verts[c8, 0], verts[c8, 1], verts[d8, 1]
    ex8, ey8 = verts[d8, 0] - cx8, dy8 - cy8
    den8 = ex8 * ex8 + ey8 * ey8
    rows = (cx8, cy8, dy8, ex8, ey8, den8, ~(den8 > 0), col8 >= counts[:, None])
    d_c, in_c = _dist_parity(centre[:, 0:1], centre[:, 1:2], rows)
    inner = np.where(in_c, d_c, 0.0)
    # Convex: every turn from one edge to the next has the same sense.
    e = ends - verts
    turn = e[:, 0] * e[nxt, 1] - e[:, 1] * e[nxt, 0]
    if p_n:
        convex = (np.minimum.reduceat(turn, starts) >= 0) | (np.maximum.reduceat(turn, starts) <= 0)
    else:
        convex = np.zeros(0, bool)
    sense = np.where(np.add.reduceat(turn, starts) >= 0, 1.0, -1.0) if p_n else np.zeros(0)
    unused = ~(den8 > 0) | (col8 >= counts[:, None]) | ~convex[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):  # zero-length edges: unused
        norm = sense[:, None] / np.sqrt(den8)
        hx, hy = np.where(unused, 0.0, -ey8 * norm), np.where(unused, 0.0, ex8 * norm)
    ho = np.where(unused, -np.inf, hx * cx8 + hy * cy8)
    cyc = np.arange(nv + 1)[:, None]
    cyc = starts[None, :] + np.where(cyc < counts[None, :], cyc, 0)
    return PreparedPolygons(
        polys, counts, starts, verts, ends, cx, cy, ex, ey, etol, lo, hi, centre, radius,
        rows, inner, convex, (hx, hy, ho), verts[cyc, 0], verts[cyc, 1],
    )  # fmt: skip


def _edge_rows(prep: PreparedPolygons, wp: NDArray[np.intp]) -> _EdgeRows:
    """The prepared edge tables of polygons ``wp``, one row each, for :func:`_dist_parity`."""
    cx, cy, dy, ex, ey, den, flat, pad = prep.rows
    return (
        cx.take(wp, 0), cy.take(wp, 0), dy.take(wp, 0), ex.take(wp, 0), ey.take(wp, 0),
        den.take(wp, 0), flat.take(wp, 0), pad.take(wp, 0),
    )  # fmt: skip


def _dist_parity(px: Array, py: Array, rows: _EdgeRows) -> tuple[Array, BoolArray]:
    """For points ``(k, 1)`` and :func:`_edge_rows`: the distance to the outline (the
    arithmetic of :func:`_point_seg_dist`, same rounding) and whether the point is
    inside by crossing number (:func:`_parity`; padding never straddles)."""
    cx, cy, dy, ex, ey, den, flat, pad = rows
    k = len(cx)
    apx = np.subtract(px, cx)
    apy = np.subtract(py, cy)
    t = apx * ex
    tmp = apy * ey
    t += tmp
    with np.errstate(invalid="ignore", divide="ignore"):
        t /= den
    np.clip(t, 0.0, 1.0, out=t)
    t[flat] = 0.0
    np.multiply(t, ex, out=tmp)
    apx -= tmp
    np.multiply(t, ey, out=tmp)
    apy -= tmp
    d = np.hypot(apx, apy, out=apx)
    d[pad] = np.inf
    dist = _row_min8(d)
    straddle = (cy > py) != (dy > py)
    x_at = np.subtract(py, cy, out=apy)
    x_at *= ex
    with np.errstate(invalid="ignore", divide="ignore"):
        x_at /= ey
    x_at += cx
    straddle &= px < x_at
    # Crossing-number parity: each 8 columns are one 64-bit word of 0/1 bytes.
    words = np.bitwise_xor.reduce(straddle.view(np.uint64).reshape(k, d.shape[1] // 8), axis=1)
    return dist, np.asarray(np.bitwise_count(words) & 1 == 1)


def _halfplane_rows(prep: PreparedPolygons, wp: NDArray[np.intp]) -> tuple[Array, Array, Array]:
    """The :attr:`PreparedPolygons.halfplanes` of convex polygons ``wp``, one row each."""
    return tuple(h.take(wp, 0) for h in prep.halfplanes)  # type: ignore[return-value]


def _row_min8(d: Array) -> Array:
    """Row minima of ``(k, 8 j)``: over blocks of 8 columns by halving, then across the
    blocks (numpy's reductions along short rows are slow)."""
    m = d.reshape(len(d), d.shape[1] // 8, 8)
    m = np.minimum(m[..., :4], m[..., 4:])
    m = np.minimum(m[..., :2], m[..., 2:])
    return np.asarray(np.minimum(m[..., 0], m[..., 1]).min(axis=1))


def points_polygons(
    points: ArrayLike, polygons: Sequence[ArrayLike] | PreparedPolygons
) -> tuple[NDArray, Array]:
    """For ``points (n, 2)`` against each polygon: ``(inside, distance)``, both ``(n, p)``:
    whether each point lies in the closed polygon, and its distance to the outline.

    >>> inside, dist = points_polygons([(1, 2), (5, 2)], [[(0, 0), (4, 0), (4, 4), (0, 4)]])
    >>> inside.tolist(), dist.tolist()
    ([[True], [False]], [[1.0], [1.0]])
    """
    pts = np.asarray(points, float).reshape(-1, 2)
    prep = prepare_polygons(polygons)
    p_n = len(prep.polys)
    if not p_n or not len(pts):
        return np.zeros((len(pts), p_n), bool), np.zeros((len(pts), p_n))
    verts, ends, starts = prep.verts, prep.ends, prep.starts
    vx, vy = verts[:, 0], verts[:, 1]
    ex, ey = ends[:, 0] - vx, ends[:, 1] - vy
    den = ex * ex + ey * ey
    px, py = pts[:, 0:1], pts[:, 1:2]
    # _point_seg_dist's arithmetic, in place: (points, all edges) tables.
    apx = px - vx
    apy = py - vy
    t = apx * ex
    tmp = apy * ey
    t += tmp
    with np.errstate(invalid="ignore", divide="ignore"):
        t /= den
    np.clip(t, 0.0, 1.0, out=t)
    if not np.all(den > 0):
        t[:, ~(den > 0)] = 0.0
    np.multiply(t, ex, out=tmp)
    apx -= tmp
    np.multiply(t, ey, out=tmp)
    apy -= tmp
    dist = np.minimum.reduceat(np.hypot(apx, apy, out=apx), starts, 1)
    straddle = (vy > py) != (ends[:, 1] > py)
    x_at = np.subtract(py, vy, out=apy)
    x_at *= ex
    with np.errstate(invalid="ignore", divide="ignore"):
        x_at /= ey
    x_at += vx
    straddle &= px < x_at
    parity = np.add.reduceat(straddle.view(np.int8), starts, axis=1)
    return (parity % 2 == 1) | (dist <= EPS), dist


def points_near_polygons(
    points: ArrayLike, prep: PreparedPolygons, reach: float
) -> tuple[NDArray, Array]:
    """:func:`points_polygons` where it can matter within ``reach`` (> 0) of an outline:
    exact for points in a polygon's bounding box grown by ``reach``; elsewhere a point is
    outside and farther than ``reach``, reported as distance ``inf``.

    >>> inside, dist = points_near_polygons([(1, 2), (9, 2)], prepare_polygons(
    ...     [[(0, 0), (4, 0), (4, 4), (0, 4)]]), 1.0)
    >>> inside.tolist(), dist.tolist()
    ([[True], [False]], [[1.0], [inf]])
    """
    pts = np.asarray(points, float).reshape(-1, 2)
    p_n = len(prep.polys)
    closed = np.zeros((len(pts), p_n), bool)
    dist = np.full((len(pts), p_n), np.inf)
    if not p_n or not len(pts):
        return closed, dist
    px, py = pts[:, 0:1], pts[:, 1:2]
    box = (px >= prep.lo[:, 0] - reach) & (px <= prep.hi[:, 0] + reach)
    box &= (py >= prep.lo[:, 1] - reach) & (py <= prep.hi[:, 1] + reach)
    k, q = np.nonzero(box)
    d, parity = _dist_parity(px[k], py[k], _edge_rows(prep, q))
    closed[k, q] = parity | (d <= EPS)
    dist[k, q] = d
    return closed, dist


@dataclass(frozen=True)
class SegmentContacts:
    """:func:`segment_polygon` results for the (segment, polygon) pairs that can be in
    contact, as flat arrays over those candidate pairs (all other pairs are ``clear``
    and farther than the margin)."""

    seg: NDArray[np.intp]
    poly: NDArray[np.intp]
    crosses: NDArray[np.bool_]
    touches: NDArray[np.bool_]
    clearance: Array
    """Exact where at most the margin; ``inf`` where farther."""
    awkward: NDArray[np.bool_]
    """Knife-edge pairs, decided by :func:`segment_polygon` (``depth`` holds its depth)."""
    depth: Array
    lo: Array
    """Parameter where the segment first enters the polygon (0 if ``a`` is inside)."""
    hi: Array
    """Parameter where it last leaves (1 if ``b`` is inside)."""
    sure: NDArray[np.bool_]
    """Certainly crossing deeper than the margin (see :func:`segment_contacts`)."""


def segment_contacts(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    points: Array,
    ia: NDArray[np.intp],
    ib: NDArray[np.intp],
    closed: NDArray[np.bool_],
    bdist: Array,
    margin: float,
    spans: bool = True,
    certify: bool = False,
    pairs: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
) -> SegmentContacts:
    """The sparse core of :func:`segments_polygons`: segments ``A[s]``-``B[s]`` with
    ``A = points[ia]``, ``B = points[ib]`` and ``(closed, bdist) =``
    :func:`points_polygons` ``(points, prep)`` (or :func:`points_near_polygons` with a
    reach beyond ``margin``). Candidates come in segment order. ``spans=False`` skips
    the crossed stretches (``lo``, ``hi`` are then empty), which only depths need.

    ``certify=True`` settles pairs whose segment passes well inside the polygon's inner
    disc without the edge tests: they cross, and (with ``spans``, for convex polygons)
    they are marked ``sure``: deeper than ``margin`` at the middle of the crossed
    stretch. Their ``awkward``, ``depth``, ``lo`` and ``hi`` are then not computed
    (``False``, 0, 0, 1), so :func:`segments_polygons` never certifies.

    ``pairs`` (segment, polygon indices, in segment order), if given, are the only pairs
    tested (e.g. from :meth:`BearingIndex.near`): every pair in contact must be among
    them; the rest are never looked at."""
    room = None
    if certify:  # the discs for segments with neither end inside, and for the others
        room = np.stack([inner_room(prep, margin), inner_room(prep, margin, ends_inside=True)])
    if pairs is not None:
        # Imported here: numba costs a third of a second, which only maps need.
        from referee.contacts import contacts

        cs, cp = (np.ascontiguousarray(x, np.intp) for x in pairs)
        outline = (prep.cx, prep.cy, prep.ex, prep.ey, prep.etol)
        bounds = (prep.lo, prep.hi, prep.centre, prep.radius)
        keep, cross_k, clear_k, awkward_k, lo, hi, sure = contacts(
            A, B, ia, ib, closed, bdist, cs, cp, outline, prep.counts, bounds,
            np.zeros((2, 0)) if room is None else room, margin, spans, room is not None,
        )  # fmt: skip
        return _settle_awkward(
            A, B, prep, margin, cs[keep], cp[keep], cross_k, clear_k, awkward_k, lo, hi, sure
        )
    # Blocks of segments bound every temporary to a few megabytes (segments x polygons
    # tables would grow with the square of the table).
    step = max(1, _BLOCK // max(len(prep.polys), 1))
    if len(A) <= step:
        return _contacts_block(A, B, prep, points, ia, ib, closed, bdist, margin, spans, room)
    parts = []
    for s in range(0, len(A), step):
        part = slice(s, s + step)
        got = _contacts_block(
            A[part],
            B[part],
            prep,
            points,
            ia[part],
            ib[part],
            closed,
            bdist,
            margin,
            spans,
            room,
        )
        got.seg[:] += s
        parts.append(got)
    return _concat(parts)


def _concat(parts: list[SegmentContacts]) -> SegmentContacts:
    if len(parts) == 1:
        return parts[0]
    return SegmentContacts(
        *(np.concatenate([getattr(q, f.name) for q in parts]) for f in fields(SegmentContacts))
    )


_BLOCK = 1 << 18
"""(segment, polygon) pairs per block in :func:`segment_contacts`' dense layout:
temporaries of a few megabytes, reused from block to block and call to call
(:mod:`referee.runtime`), in few enough blocks that numpy's per-call cost stays small."""


@dataclass(frozen=True)
class Bearings:
    """Every point's bearing to every other, in whole bins (so no rounding matters): what
    segments are looked up by, instead of testing every segment against every disc
    (compare :class:`PreparedPolygons`). A disc wholly covers some bins of bearings from
    each point and meets the bins of its tangent cone."""

    points: Array
    bins: NDArray[np.int16]
    """``(n, n)``: bin of the bearing from point ``i`` to point ``j``."""
    length2: Array
    """``(n, n)``: squared length of segment ``i``-``j``."""

    @classmethod
    def of(cls, points: ArrayLike) -> Bearings:
        pts = np.asarray(points, float).reshape(-1, 2)
        dx = pts[None, :, 0] - pts[:, None, 0]
        dy = pts[None, :, 1] - pts[:, None, 1]
        bearing = np.arctan2(dy, dx)
        bearing += math.pi
        bearing /= _BIN
        bins = np.minimum(bearing, _BINS - 1).astype(np.int16)
        dx *= dx
        dy *= dy
        dx += dy
        return cls(pts, bins, dx)

    def toward(self, centres: ArrayLike) -> tuple[Array, Array]:
        """``(distance, bearing + pi)`` from each point to each centre, ``(n, m)``."""
        c = np.asarray(centres, float).reshape(-1, 2)
        vx = c[None, :, 0] - self.points[:, None, 0]
        vy = c[None, :, 1] - self.points[:, None, 1]
        bearing = np.arctan2(vy, vx)
        bearing += math.pi
        return _length(vx, vy), bearing

    def through(
        self, toward: tuple[Array, Array], radii: ArrayLike, barred: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """``(n, n)``, symmetric: :meth:`through_lines` of every segment.

        >>> b = Bearings.of([(0, 0), (10, 0), (5, 0)])  # a disc on the third point
        >>> b.through(b.toward([(5, 0)]), [1.0], np.array([[0], [0], [1]], bool)).astype(int)
        array([[0, 1, 0],
               [1, 0, 0],
               [0, 0, 0]])
        """
        n = len(self.points)
        i, j = upper_pairs(n)
        got = self.through_lines(toward, radii, barred, i, j)
        out = np.zeros((n, n), bool)
        out[i[got], j[got]] = True
        return out | out.T

    def through_lines(
        self,
        toward: tuple[Array, Array],
        radii: ArrayLike,
        barred: NDArray[np.bool_],
        i: NDArray[np.intp],
        j: NDArray[np.intp],
    ) -> NDArray[np.bool_]:
        """Which segments ``i[c]``-``j[c]`` (``i != j``) are found to pass strictly within
        ``radii[k]`` of disc ``k`` (centres as :meth:`toward` gives them) with neither end
        ``barred[:, k]`` (``(n, m)``: e.g. a base's own unit, a point inside a wood). Not
        every such segment: a certificate, cheap where a table is crowded with discs. Each
        point's nearest disc over each bin of bearings it wholly covers: a segment in that
        bin reaching past the disc's centre passes through it (the centre projects onto
        the segment, nearer than the radius). Only the segments asked about are looked up
        (compiled), not the whole table."""
        dist, centre = toward
        if len(self.points) < 2 or not dist.shape[1] or not len(i):
            return np.zeros(len(i), bool)
        r = np.asarray(radii, float).reshape(-1) * (1 - 1e-8)  # strictly inside, past rounding
        with np.errstate(divide="ignore", invalid="ignore"):  # the points inside: unused
            half = np.arcsin(r / dist)
        # Nearest disc per (point, bin): its distance rounded up to a micro-inch, and which
        # disc, in one integer key (so the nearest is one minimum).
        bits = max(dist.shape[1] - 1, 1).bit_length()
        from referee.contacts import through_lines  # see segment_contacts

        return np.asarray(
            through_lines(
                dist, centre, half, r, np.ascontiguousarray(barred), bits, self.bins,
                self.length2, i, j, (_BIN, _BINS, _CONE_SLACK),
            )
        )  # fmt: skip

    def index(self, open_: NDArray[np.bool_] | None = None) -> BearingIndex:
        """Each point's later points in order of bin (only those ``open_`` marks)."""
        n = len(self.points)
        li, lj = upper_pairs(n)
        if open_ is not None:
            keep = open_[li, lj]
            li, lj = li[keep], lj[keep]
        return self.index_lines(li, lj)

    def index_lines(self, li: NDArray[np.intp], lj: NDArray[np.intp]) -> BearingIndex:
        """The segments ``li[c]``-``lj[c]`` (in order of ``li``) listed from ``li`` by bin
        of bearing: the index :meth:`BearingIndex.near` looks segments up in."""
        from referee.contacts import bin_lines  # see segment_contacts

        order, length2, table, longest2 = bin_lines(self.bins, self.length2, li, lj, _BINS)
        return BearingIndex(self.points, (li, lj), order, length2, table, longest2)


@dataclass(frozen=True)
class BearingIndex:
    """:meth:`Bearings.index`: each point's segments listed by bin of bearing."""

    points: Array
    lines: tuple[NDArray[np.intp], NDArray[np.intp]]
    """The segments listed, ``points[i]``-``points[j]``, listed from ``i``."""
    order: NDArray[np.intp]
    """The segments (positions in ``lines``) by point, then bin of bearing."""
    length2: Array
    """Squared lengths of the segments in the order of ``order``."""
    table: NDArray[np.intp]
    """Where bin ``b`` of point ``i``'s segments starts in ``order``:
    ``table[i * (_BINS + 1) + b]``."""
    longest2: Array
    """Squared length of each point's longest listed segment (0 if none)."""

    def near(
        self,
        toward: tuple[Array, Array],
        radii: ArrayLike,
        skip: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
    ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
        """``(i, j, k)``: every listed segment ``points[i]``-``points[j]`` that comes
        within ``radii[k]`` of disc ``k`` (centres as :meth:`Bearings.toward` gives them),
        and a few that do not (callers test exactly): :meth:`near_lines`.

        >>> b = Bearings.of([(0, 0), (10, 0), (0, 10)])
        >>> b.index().near(b.toward([(5, 0.5)]), [1.0])
        (array([0]), array([1]), array([0]))
        """
        line, disc = self.near_lines(toward, radii, skip)
        return self.lines[0][line], self.lines[1][line], disc

    def near_lines(
        self,
        toward: tuple[Array, Array],
        radii: ArrayLike,
        skip: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
    ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """``(c, k)``: every listed segment ``lines[c]`` that comes within ``radii[k]`` of
        disc ``k``, and a few that do not: a disc's tangent cone is one range of bearings
        from each point, so the segments near it are looked up, not searched for, and
        only from the points whose longest listed segment reaches the disc's near side
        (on a crowded table the first pass leaves few, short segments open). The work
        grows with the answer. ``skip`` (point and disc indices) names pairs whose
        segments are not wanted (e.g. a base and its own piece, whose every segment
        starts inside it). Compiled, but for numpy's arcsin: the very cones it drew."""
        dist, centre = toward
        n, m = dist.shape
        none = np.zeros(0, np.intp)
        if n < 2 or m == 0:
            return none, none
        from referee.contacts import near_gaps, near_lines  # see segment_contacts

        radius = np.ascontiguousarray(np.broadcast_to(np.asarray(radii, float).reshape(-1), m))
        skip_p, skip_k = (none, none) if skip is None else skip
        qv, qk, gap2, ratio = near_gaps(dist, radius, self.longest2, skip_p, skip_k)
        with np.errstate(invalid="ignore"):
            half = np.arcsin(ratio)
        half += _CONE_SLACK
        index = (self.order, self.length2, self.table)
        return near_lines(qv, qk, gap2, half, dist, radius, centre, index, (_BIN, _BINS))


_BINS = 256
"""Bins of bearings per point in :class:`Bearings`."""
_BIN = 2 * math.pi / _BINS
_CONE_SLACK = 1e-7
"""Radians added to each tangent cone: rounding never loses a segment."""


def inner_room(prep: PreparedPolygons, margin: float, *, ends_inside: bool = False) -> Array:
    """Radius of each outline's disc about its centre such that a segment passing strictly
    within it, with neither end strictly inside the outline (or either, with
    ``ends_inside``), certainly crosses deeper than ``margin`` (:func:`segment_contacts`
    marks it ``sure``); 0 where there is none.

    With ``margin > 0`` the depth is measured at the middle of the crossed stretch, from
    the first entry to the last exit. For a convex outline the depth along a chord is
    concave, so at the middle it is at least half the depth anywhere on it. For any
    outline, the entry lies between where the line meets the bounding circle and where
    it meets the inner disc, and so does the exit on the other side: that bounds how far
    the middle can stray from the centre (:func:`_mid_stretch_room`).

    >>> square = prepare_polygons([[(0, 0), (4, 0), (4, 4), (0, 4)]])
    >>> inner_room(square, 0.0).round(6).tolist(), inner_room(square, 0.25).round(6).tolist()
    ([2.0], [1.649871])
    """
    known = prep.rooms.get((margin, ends_inside))
    if known is not None:
        return known
    spans = margin > 0
    room = prep.inner - (2 * margin + 1e-9 if spans else 1e-9 * (1 + prep.inner))
    if spans:
        room = np.where(prep.convex, np.maximum(room, 0.0), 0.0)
        if not ends_inside:  # an end inside starts the stretch there: no bound on its middle
            room = np.maximum(room, _mid_stretch_room(prep.inner, prep.radius, margin))
    room = np.where(room > 0, room, 0.0)
    room.flags.writeable = False
    prep.rooms[(margin, ends_inside)] = room
    return room


def _mid_stretch_room(inner: Array, radius: Array, margin: float) -> Array:
    """The largest offset ``p`` from the centre at which a line crossing the inner disc
    (radius ``inner``, inside the outline) still has its crossed stretch's middle deeper
    than ``margin``, for an outline within ``radius`` of the centre; 0 if none.

    Along the line, with ``hR`` and ``hr`` the half chords of the two circles, the
    stretch starts within ``[-hR, -hr]`` and ends within ``[hr, hR]`` of the foot of
    the centre, so its middle is within ``(hR - hr) / 2`` of it, and the depth there is
    at least ``inner`` minus its distance from the centre. A knife-edge crossing is
    measured instead by a scan of 17 points over its stretch (:func:`_max_depth`): one
    of them is within ``hR / 16`` of the foot."""

    r2, i2 = radius * radius, inner * inner
    depth = inner - margin - 1e-9 * (1 + radius)

    def deep(p: Array) -> NDArray[np.bool_]:
        p2 = p * p
        h_big = np.sqrt(np.maximum(r2 - p2, 0.0))
        along = h_big - np.sqrt(np.maximum(i2 - p2, 0.0))
        along *= 0.5
        np.maximum(along, h_big / 16, out=along)
        return np.asarray(np.hypot(p, along) < depth)

    # Each bound squared is one in p^2: p^2 + (hR - hr)^2 / 4 < depth^2 becomes
    # hR hr > p^2 + c, and p^2 + hR^2 / 256 < depth^2 is linear.
    d2 = np.where(depth > 0, depth * depth, 0.0)
    c = (r2 + i2) / 2 - 2 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        u_a = (r2 * i2 - c * c) / (r2 + i2 + 2 * c)
    u_a = np.where(u_a + c >= 0, u_a, i2)  # no root: hR hr >= 0 > p^2 + c throughout
    u_b = (256 * d2 - r2) / 255
    p = np.sqrt(np.clip(np.minimum(u_a, u_b), 0.0, i2)) * (1 - 1e-9)
    # Checked as the bound itself, past the rounding of the closed form.
    for _ in range(3):
        p = np.where(deep(p), p, p * (1 - 1e-6))
    return np.where(deep(p) & (depth > 0), p, 0.0)


def passes_within(a: Array, b: Array, centres: Array, radii: Array) -> NDArray[np.bool_]:
    """Whether segment ``a[k]``-``b[k]`` comes strictly within ``radii[k]`` of
    ``centres[k]`` (all ``(k, 2)`` or ``(k,)``), a little short of it past rounding.

    >>> passes_within(np.array([[0.0, 0], [0, 0]]), np.array([[4.0, 0], [4, 0]]),
    ...               np.array([[2.0, 0.5], [2, 1.5]]), np.array([1.0, 1.0]))
    array([ True, False])
    """
    qx, qy = centres[:, 0] - a[:, 0], centres[:, 1] - a[:, 1]
    return _through_inner_disc(qx, qy, b[:, 0] - a[:, 0], b[:, 1] - a[:, 1], radii)


def _through_inner_disc(
    qx: Array,
    qy: Array,
    abx: Array,
    aby: Array,
    room: Array,
) -> NDArray[np.bool_]:
    """Which segments pass strictly within ``room`` (each one's :func:`inner_room`) of
    their outline's centre: they surely cross it, deeper than the margin. ``qx, qy`` (the
    outline's centre minus the segment's start) are overwritten."""
    t_c = qx * abx
    t_c += qy * aby
    t_c /= np.maximum(abx * abx + aby * aby, 1e-300)
    np.clip(t_c, 0.0, 1.0, out=t_c)
    qx -= t_c * abx
    qy -= t_c * aby
    qx *= qx
    qy *= qy
    qx += qy  # squared distance, compared with a slightly smaller disc's
    return np.asarray((room > 0) & (qx < room * room * (1 - 1e-9)))


def _contacts_block(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    points: Array,
    ia: NDArray[np.intp],
    ib: NDArray[np.intp],
    closed: NDArray[np.bool_],
    bdist: Array,
    margin: float,
    spans: bool,
    room: Array | None,
) -> SegmentContacts:
    """:func:`segment_contacts` for one block of segments against every polygon (the
    dense layout; listed pairs go to :func:`referee.contacts.contacts`); ``room``
    (:func:`inner_room` without and with an end inside, stacked) when certifying."""
    p_n = len(prep.polys)
    # Bounding boxes by outcodes: a segment misses a box when both endpoints lie beyond
    # the same side of it, a test on distinct endpoints only.
    reach = margin + 1e-6
    plo, phi = prep.lo - reach, prep.hi + reach
    px, py = points[:, 0:1], points[:, 1:2]
    code = (px < plo[:, 0]).view(np.uint8)
    code |= (px > phi[:, 0]).view(np.uint8) << 1
    code |= (py < plo[:, 1]).view(np.uint8) << 2
    code |= (py > phi[:, 1]).view(np.uint8) << 3
    box = code[ia]
    box &= code[ib]
    fa = np.flatnonzero(box == 0)  # flat (segment, polygon) indices: faster than 2-d
    del box
    cs = fa // p_n
    cp = fa - cs * p_n
    # Then the line through the segment must pass within reach of the bounding circle
    # (a superset of the segment doing so: exact tests follow).
    sabx, saby = B[:, 0] - A[:, 0], B[:, 1] - A[:, 1]
    fa += ia[cs] * p_n - cs * p_n  # now (endpoint a, polygon)
    qx = (prep.centre[:, 0] - px).ravel()[fa]
    qy = (prep.centre[:, 1] - py).ravel()[fa]
    abx, aby = sabx[cs], saby[cs]
    qx *= aby
    qy *= abx
    qx -= qy
    qx *= qx
    abx *= abx
    aby *= aby
    abx += aby
    abx *= ((prep.radius + reach) ** 2)[cp]
    keep = np.flatnonzero(qx <= abx)
    cs, cp, fa = cs[keep], cp[keep], fa[keep]
    k_n = len(cs)
    sure = np.zeros(k_n, bool)
    if room is not None:  # certifying: the rooms of segments without and with an end inside
        qx = (prep.centre[:, 0] - px).ravel()[fa]
        qy = (prep.centre[:, 1] - py).ravel()[fa]
        abx, aby = sabx[cs], saby[cs]
        fb = fa + (ib[cs] - ia[cs]) * p_n
        ends_in = (closed.ravel()[fa] & (bdist.ravel()[fa] > EPS)) | (
            closed.ravel()[fb] & (bdist.ravel()[fb] > EPS)
        )
        sure = _through_inner_disc(qx, qy, abx, aby, room[ends_in.view(np.int8), cp])
    del qx, qy, abx, aby, keep
    sub = None
    if sure.any():  # the edge tests run on the others only
        sub = np.flatnonzero(~sure)
        cs_all, cp_all = cs, cp
        cs, cp, fa = cs[sub], cp[sub], fa[sub]
        k_n = len(cs)
    nv = prep.cx.shape[1]
    # Layout (vertex, candidate): long inner loops over candidates.
    ax, ay = A[:, 0][cs][None], A[:, 1][cs][None]
    abx, aby = sabx[cs][None], saby[cs][None]
    cx, cy = np.take(prep.cxT, cp, axis=1), np.take(prep.cyT, cp, axis=1)
    seg_len = np.hypot(abx, aby)
    tol = EPS * np.maximum(seg_len, 1.0)
    o_c = np.subtract(cy, ay)  # becomes the side of each vertex from the segment's line
    o_c *= abx
    tmp2 = cx - ax
    tmp2 *= aby
    o_c -= tmp2
    del tmp2
    pos = o_c > tol
    neg = o_c < -tol
    # Rows m and m + 1 are the ends of edge m (cyclic tables).
    straddle = pos[:-1] & neg[1:]
    straddle |= neg[:-1] & pos[1:]
    f = np.flatnonzero(straddle)
    del straddle
    ke = f // k_n
    ks = f - ke * k_n
    # Sides of the two endpoints from each straddling edge's line.
    fi = cp[ks] * nv + ke
    ex, ey = prep.ex.ravel()[fi], prep.ey.ravel()[fi]
    ax1 = ax[0, ks] - prep.cx.ravel()[fi]
    ay1 = ay[0, ks] - prep.cy.ravel()[fi]
    e_a = ex * ay1 - ey * ax1
    e_b = ex * (ay1 + aby[0, ks]) - ey * (ax1 + abx[0, ks])
    etol = prep.etol.ravel()[fi]
    proper = (np.abs(e_a) > etol) & (np.abs(e_b) > etol) & ((e_a > 0) != (e_b > 0))
    # Everything below works on the candidate pairs only (an endpoint inside a polygon
    # always makes its pair a candidate).
    fb = fa + (ib[cs] - ia[cs]) * p_n
    a_d, b_d = bdist.ravel()[fa], bdist.ravel()[fb]
    a_in = closed.ravel()[fa] & (a_d > EPS)  # strictly inside
    b_in = closed.ravel()[fb] & (b_d > EPS)
    cross_k = a_in | b_in
    kp = ks[proper]
    cross_k[kp] = True
    lo = hi = np.zeros(0)
    if spans:
        # Entry and exit of each crossed stretch: extreme crossing parameters per pair.
        with np.errstate(invalid="ignore", divide="ignore"):
            t_cross = e_a[proper] / (e_a[proper] - e_b[proper])
        lo = np.full(k_n, np.inf)
        hi = np.full(k_n, -np.inf)
        np.minimum.at(lo, kp, t_cross)
        np.maximum.at(hi, kp, t_cross)
        lo[a_in] = 0.0
        hi[b_in] = 1.0
        lo[~np.isfinite(lo)] = 0.0  # wholly inside without crossing an edge
        hi[~np.isfinite(hi)] = 1.0
    # Knife edges: a vertex on the segment, or an endpoint on an outline.
    len2 = np.maximum(seg_len[0] ** 2, 1e-300)
    f = np.flatnonzero(~(pos | neg))
    vv = f // k_n
    vs = f - vv * k_n
    t_v = ((cx[vv, vs] - ax[0, vs]) * abx[0, vs] + (cy[vv, vs] - ay[0, vs]) * aby[0, vs]) / len2[vs]
    awkward_k = (a_d <= EPS) | (b_d <= EPS)
    awkward_k[vs[(t_v >= -EPS) & (t_v <= 1 + EPS)]] = True
    clear_k = np.where(cross_k, 0.0, np.inf)
    if margin > 0:
        # A segment that does not cross comes nearest at an endpoint or at a vertex.
        # Only pairs that do not cross need it.
        near = np.minimum(a_d, b_d)
        nc = np.flatnonzero(~cross_k)
        o_n = np.abs(np.take(o_c, nc, axis=1))
        f = np.flatnonzero(o_n <= (margin + EPS) * seg_len[:, nc])
        nvx = f // len(nc)
        ns = nc[f - nvx * len(nc)]
        t_n = (
            (cx[nvx, ns] - ax[0, ns]) * abx[0, ns] + (cy[nvx, ns] - ay[0, ns]) * aby[0, ns]
        ) / len2[ns]
        within = (t_n >= 0) & (t_n <= 1)
        dv = np.abs(o_c[nvx, ns]) / np.sqrt(len2[ns])
        np.minimum.at(near, ns[within], dv[within])
        clear_k = np.where(cross_k, 0.0, np.where(near <= margin + EPS, near, np.inf))
    if sub is not None:
        cs, cp, k_n = cs_all, cp_all, len(cs_all)
        cross_k, clear_k, awkward_k = _spread(
            sub, k_n, (cross_k, True), (clear_k, 0.0), (awkward_k, False)
        )
        if spans:
            lo, hi = _spread(sub, k_n, (lo, 0.0), (hi, 1.0))
    return _settle_awkward(A, B, prep, margin, cs, cp, cross_k, clear_k, awkward_k, lo, hi, sure)


def _settle_awkward(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    margin: float,
    cs: NDArray[np.intp],
    cp: NDArray[np.intp],
    cross_k: NDArray[np.bool_],
    clear_k: Array,
    awkward_k: NDArray[np.bool_],
    lo: Array,
    hi: Array,
    sure: NDArray[np.bool_],
) -> SegmentContacts:
    """The candidates' contacts, with the knife-edge ones (``awkward_k``) decided by
    :func:`segment_polygon` (``cross_k`` and ``clear_k`` are updated in place)."""
    touch_k = np.zeros(len(cs), bool)
    depth_k = np.zeros(len(cs))
    for k in np.flatnonzero(awkward_k):
        one = segment_polygon(A[cs[k]], B[cs[k]], prep.polys[cp[k]])
        cross_k[k] = one.contact == "crosses"
        touch_k[k] = one.contact == "touches"
        clear_k[k] = one.clearance if one.clearance <= margin + EPS else np.inf
        depth_k[k] = one.depth
    return SegmentContacts(cs, cp, cross_k, touch_k, clear_k, awkward_k, depth_k, lo, hi, sure)


def _spread(sub: NDArray[np.intp], n: int, *parts: tuple[NDArray, object]) -> list[NDArray]:
    """Arrays of length ``n`` holding each ``values`` at ``sub`` and ``fill`` elsewhere."""
    out = []
    for values, fill in parts:
        full = np.full(n, fill, values.dtype)
        full[sub] = values
        out.append(full)
    return out


def stretch_depths(
    A: Array, B: Array, prep: PreparedPolygons, con: SegmentContacts, sel: NDArray[np.intp]
) -> Array:
    """Depth at the middle of the crossed stretch for candidates ``sel`` (crossing, not
    awkward): a depth the segment certainly reaches (0 if the middle is not inside)."""
    from referee.contacts import middle_depths  # see segment_contacts

    mid = (con.lo[sel] + con.hi[sel]) / 2
    return middle_depths(
        A, B, con.seg[sel], con.poly[sel], mid, prep.convex, prep.halfplanes, prep.rows
    )


_ROWS = 2048
"""Rows per block in :func:`stretch_depths` (eight times that in
:func:`stretch_depth_floors`)."""


def stretch_depth_floors(
    A: Array, B: Array, prep: PreparedPolygons, con: SegmentContacts, sel: NDArray[np.intp]
) -> Array:
    """Cheap lower bounds of :func:`stretch_depths` (never above it by more than
    rounding, about 1e-12): the middle of the stretch lies at least ``inner`` minus its
    distance from the polygon's centre inside the polygon."""
    out = np.empty(len(sel))
    for k in range(0, len(sel), 8 * _ROWS):  # blocks: no megabyte temporaries
        part = sel[k : k + 8 * _ROWS]
        ws, wp = con.seg[part], con.poly[part]
        mid = (con.lo[part] + con.hi[part]) / 2
        ax, ay = A[ws, 0], A[ws, 1]
        mx = ax + mid * (B[ws, 0] - ax)
        my = ay + mid * (B[ws, 1] - ay)
        mx -= prep.centre[wp, 0]
        my -= prep.centre[wp, 1]
        np.subtract(prep.inner[wp], _length(mx, my), out=out[k : k + 8 * _ROWS])
    return out


def golden_depths(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    con: SegmentContacts,
    sel: NDArray[np.intp],
    limit: Array | None = None,
) -> Array:
    """Largest inside distance over each crossed stretch, for candidates ``sel``: exact
    in convex outlines (:func:`_convex_max_depths`), elsewhere by golden-section search
    (exact where the distance is unimodal along the stretch). With ``limit`` (per
    candidate), searched rows stop as soon as whether their result exceeds the limit is
    settled; their value then only answers that comparison."""
    out = np.empty(len(sel))
    convex = prep.convex[con.poly[sel]]
    for part in (np.flatnonzero(convex), np.flatnonzero(~convex)):
        if not len(part):
            continue
        ws, wp, lo, hi = (
            con.seg[sel[part]],
            con.poly[sel[part]],
            con.lo[sel[part]],
            con.hi[sel[part]],
        )
        if convex[part[0]]:
            from referee.contacts import convex_max_depths  # see segment_contacts

            out[part] = convex_max_depths(A, B, ws, wp, lo, hi, prep.halfplanes)
        else:
            cut = None if limit is None else limit[part]
            out[part] = _golden_many(A[ws], B[ws], prep, wp, lo, hi, limit=cut)
    return out


def _convex_max_depths(
    A: Array, B: Array, prep: PreparedPolygons, wp: NDArray[np.intp], lo: Array, hi: Array
) -> Array:
    """Exact largest depth along segments ``A[k]``-``B[k]`` over parameters ``lo..hi`` in
    convex polygons ``wp[k]`` (0 if never inside). Along the segment each edge line's
    distance is linear, ``g_e(t) = a_e + b_e t``, and the depth is their least, a concave
    function: its peak is where a rising and a falling line cross, at the crossing of
    least height (a two-variable linear programme), clamped to the span."""
    hx, hy, ho = _halfplane_rows(prep, wp)
    ax, ay = A[:, 0:1], A[:, 1:2]
    a = hx * ax + hy * ay - ho  # (k, 8); unused columns +inf with slope 0
    b = hx * (B[:, 0:1] - ax) + hy * (B[:, 1:2] - ay)
    up, down = b > 0, b < 0
    pair = up[:, :, None] & down[:, None, :]  # (k, rising e, falling f)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        steep = b[:, :, None] - b[:, None, :]
        height = (a[:, :, None] * -b[:, None, :] + a[:, None, :] * b[:, :, None]) / steep
        at = (a[:, None, :] - a[:, :, None]) / steep
    height = np.where(pair, height, np.inf).reshape(len(a), -1)
    best = np.argmin(height, axis=1)
    peak = np.take_along_axis(at.reshape(len(a), -1), best[:, None], axis=1)[:, 0]
    peak = np.where(np.isfinite(height[np.arange(len(a)), best]), peak, lo)
    out = np.zeros(len(a))
    for t in (lo, hi, np.clip(peak, lo, hi)):  # the peak, or the nearer end of the span
        with np.errstate(invalid="ignore"):
            depth = np.min(a + b * t[:, None], axis=1)
        np.fmax(out, depth, out=out)
    return out


def segments_polygons(
    a: ArrayLike,
    b: ArrayLike,
    polygons: Sequence[ArrayLike] | PreparedPolygons,
    *,
    margin: float = 0.0,
    depth: bool = False,
) -> SegmentsContact:
    """Vectorised :func:`segment_polygon` for segments ``a[i]``-``b[i]`` (``(s, 2)`` each)
    against every polygon, built for all-pairs lines of sight between pieces.

    Orientation of every polygon vertex against every segment line finds the
    edges a segment properly crosses; work that depends only on an endpoint (is it
    inside, how far from the outline) is done once per distinct endpoint. Rare
    knife-edge contacts (a vertex exactly on a segment, an endpoint on an outline)
    are decided by :func:`segment_polygon`. ``margin`` bounds the clearances and
    depths reported exactly (see :class:`SegmentsContact`).
    :func:`segment_contacts` is the same test returning only the pairs in contact.

    >>> sq = [(0, 0), (4, 0), (4, 4), (0, 4)]
    >>> r = segments_polygons([(-1, 2), (-1, 0), (-1, 6)], [(5, 2), (5, 0), (5, 6)], [sq],
    ...                       margin=3)
    >>> r.crosses[:, 0].tolist(), r.touches[:, 0].tolist(), r.clearance[:, 0].tolist()
    ([True, False, False], [False, True, False], [0.0, 0.0, 2.0])
    """
    A = np.asarray(a, float).reshape(-1, 2)
    B = np.asarray(b, float).reshape(-1, 2)
    prep = prepare_polygons(polygons)
    s_n, p_n = len(A), len(prep.polys)
    crosses = np.zeros((s_n, p_n), bool)
    touches = np.zeros((s_n, p_n), bool)
    clearance = np.full((s_n, p_n), np.inf)
    depths = np.zeros((s_n, p_n))
    if s_n == 0 or p_n == 0:
        return SegmentsContact(crosses, touches, clearance, depths)
    # Distinct endpoints: inside tests and outline distances once per point.
    pts, inv = np.unique(np.concatenate([A, B]), axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    ia, ib = inv[:s_n], inv[s_n:]
    closed, bdist = points_polygons(pts, prep)
    con = segment_contacts(A, B, prep, pts, ia, ib, closed, bdist, margin, depth)
    cs, cp = con.seg, con.poly
    crosses[cs, cp] = con.crosses
    touches[cs, cp] = con.touches
    clearance[cs, cp] = con.clearance
    depths[cs, cp] = con.depth
    if depth:
        sel = np.flatnonzero(con.crosses & ~con.awkward)
        got = stretch_depths(A, B, prep, con, sel)
        shallow = np.flatnonzero(got <= margin)
        if len(shallow):
            got[shallow] = np.maximum(got[shallow], golden_depths(A, B, prep, con, sel[shallow]))
        depths[cs[sel], cp[sel]] = got
    return SegmentsContact(crosses, touches, clearance, depths)


def _golden_many(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    wp: NDArray[np.intp],
    lo: Array,
    hi: Array,
    iters: int = 30,
    limit: Array | None = None,
) -> Array:
    """Vectorised golden-section maximum of the signed boundary distance along segments
    ``A[k]``-``B[k]`` in polygon ``wp[k]``, over parameters ``lo..hi`` (one new
    evaluation per iteration). With ``limit``, see :func:`golden_depths`: the best value
    so far never decreases, and no later point (all within the bracket) can exceed the
    cap that the two inner values put on the bracket, the distance being 1-Lipschitz
    along the segment."""
    from referee.contacts import golden_search  # see segment_contacts

    cut = np.zeros(0) if limit is None else np.asarray(limit, float)
    return golden_search(A, B, wp, lo, hi, prep.rows, iters, cut)
