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

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

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
    pts = np.asarray(points, float).reshape(-1, 2)
    poly = as_polygon(polygon)
    a, b = poly, np.roll(poly, -1, axis=0)
    px, py = pts[:, 0:1], pts[:, 1:2]
    ax, ay, bx, by = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    straddle = (ay > py) != (by > py)
    with np.errstate(invalid="ignore", divide="ignore"):
        x_at = ax + (py - ay) * (bx - ax) / (by - ay)
    inside = np.sum(straddle & (px < x_at), axis=1) % 2 == 1
    on_edge = np.min(_point_seg_dist(pts[:, None, :], a[None], b[None]), axis=1) <= EPS
    return np.asarray(inside & ~on_edge if strict else inside | on_edge)


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
    a coarse scan: exact when the distance is unimodal along the span, as for convex)."""
    best = 0.0
    for t0, t1 in spans:
        grid = np.linspace(t0, t1, 17)
        vals = signed_boundary_distance(A + grid[:, None] * (B - A), poly)
        k = int(np.argmax(vals))
        lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
        best = max(best, float(vals[k]), _golden(A, B, poly, lo, hi))
    return best


def _golden(A: Array, B: Array, poly: Array, lo: float, hi: float, iters: int = 40) -> float:
    g = (math.sqrt(5) - 1) / 2

    def f(t: float) -> float:
        return float(signed_boundary_distance([A + t * (B - A)], poly)[0])

    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(iters):
        if f1 < f2:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = f(x2)
        else:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = f(x1)
    return max(f1, f2, 0.0)


def pairwise_centre_distances(xy: ArrayLike) -> Array:
    """All-pairs centre-to-centre distances, ``(n, 2) -> (n, n)``, zero diagonal.

    >>> pairwise_centre_distances([(0, 0), (3, 4)]).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    p = np.asarray(xy, float).reshape(-1, 2)
    diff = p[:, None, :] - p[None, :, :]
    return np.asarray(np.hypot(diff[..., 0], diff[..., 1]))


def pairwise_base_distances(xy: ArrayLike, heading: ArrayLike, base: ArrayLike) -> Array:
    """All-pairs nearest-edge distances between rectangular bases, ``(n, n)``; 0 for bases
    that touch or overlap (and on the diagonal). Same values as :func:`base_distance`.

    >>> pairwise_base_distances([(0, 0), (5, 0)], [0, 45], [(2, 2), (2, 2)]).round(4).tolist()
    [[0.0, 2.5858], [2.5858, 0.0]]
    """
    corners = base_corners_many(xy, heading, base)  # (n, 4, 2)
    n = len(corners)
    if n == 0:
        return np.zeros((0, 0))
    nxt = np.roll(corners, -1, axis=1)
    # Vertex k of base i against edge m of base j: (n, n, 4, 4).
    p = corners[:, None, :, None, :]
    d_ij = _point_seg_dist(p, corners[None, :, None, :, :], nxt[None, :, None, :, :])
    d = np.min(d_ij, axis=(2, 3))
    d = np.minimum(d, d.T)
    # Separating-axis test: rectangles overlap unless some edge normal separates them.
    edges = nxt - corners  # (n, 4, 2)
    axes = np.stack([edges[:, 0], edges[:, 1]], axis=1)  # two normals' directions per base
    axes = axes / np.linalg.norm(axes, axis=-1, keepdims=True)
    proj = np.einsum("iad,jkd->ijak", axes, corners)  # axis a of i, corner k of j
    lo, hi = proj.min(axis=3), proj.max(axis=3)  # (n_axis_owner, n_corner_owner, 2)
    own = np.einsum("iad,ikd->iak", axes, corners)
    own_lo, own_hi = own.min(axis=2), own.max(axis=2)  # (n, 2)
    sep_i = np.any((hi < own_lo[:, None, :] - EPS) | (lo > own_hi[:, None, :] + EPS), axis=2)
    separated = sep_i | sep_i.T
    return np.asarray(np.where(separated, d, 0.0))


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
    point_inside: NDArray[np.bool_] | None = None
    """With ``endpoints=(points, i, j)``: :func:`points_polygons` of those points."""
    point_distance: Array | None = None


def segments_polygons(
    a: ArrayLike,
    b: ArrayLike,
    polygons: Sequence[ArrayLike],
    *,
    margin: float = 0.0,
    depth: bool = False,
    endpoints: tuple[Array, NDArray[np.intp], NDArray[np.intp]] | None = None,
) -> SegmentsContact:
    """Vectorised :func:`segment_polygon` for segments ``a[i]``-``b[i]`` (``(s, 2)`` each)
    against every polygon, built for all-pairs lines of sight between pieces.
    ``endpoints=(points, i, j)``, with ``a = points[i]`` and ``b = points[j]``, saves
    finding the distinct endpoints.

    Orientation of every polygon vertex against every segment line finds the
    edges a segment properly crosses; work that depends only on an endpoint (is it
    inside, how far from the outline) is done once per distinct endpoint. Rare
    knife-edge contacts (a vertex exactly on a segment, an endpoint on an outline)
    are decided by :func:`segment_polygon`. ``margin`` bounds the clearances and
    depths reported exactly (see :class:`SegmentsContact`).

    >>> sq = [(0, 0), (4, 0), (4, 4), (0, 4)]
    >>> r = segments_polygons([(-1, 2), (-1, 0), (-1, 6)], [(5, 2), (5, 0), (5, 6)], [sq],
    ...                       margin=3)
    >>> r.crosses[:, 0].tolist(), r.touches[:, 0].tolist(), r.clearance[:, 0].tolist()
    ([True, False, False], [False, True, False], [0.0, 0.0, 2.0])
    """
    A = np.asarray(a, float).reshape(-1, 2)
    B = np.asarray(b, float).reshape(-1, 2)
    polys = [as_polygon(p) for p in polygons]
    s_n, p_n = len(A), len(polys)
    crosses = np.zeros((s_n, p_n), bool)
    touches = np.zeros((s_n, p_n), bool)
    clearance = np.full((s_n, p_n), np.inf)
    depths = np.zeros((s_n, p_n))
    if s_n == 0 or p_n == 0:
        return SegmentsContact(crosses, touches, clearance, depths)
    # Distinct endpoints: inside tests and outline distances once per point.
    if endpoints is None:
        pts, inv = np.unique(np.concatenate([A, B]), axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        ia, ib = inv[:s_n], inv[s_n:]
    else:
        pts, ia, ib = endpoints
    closed, bdist = points_polygons(pts, polys)
    inside = closed & (bdist > EPS)  # strictly inside
    on_outline = bdist <= EPS
    # Candidates: segments passing within margin of a polygon's bounding circle.
    centre = np.array([p.mean(axis=0) for p in polys])
    radius = np.array([np.max(np.hypot(*(p - c).T)) for p, c in zip(polys, centre, strict=True)])
    # Bounding boxes first (cheap booleans), then the circle test on the survivors.
    reach = margin + 1e-6
    plo = np.array([p.min(axis=0) for p in polys]) - reach
    phi = np.array([p.max(axis=0) for p in polys]) + reach
    slo, shi = np.minimum(A, B), np.maximum(A, B)
    box = (slo[:, 0:1] <= phi[None, :, 0]) & (shi[:, 0:1] >= plo[None, :, 0])
    box &= (slo[:, 1:2] <= phi[None, :, 1]) & (shi[:, 1:2] >= plo[None, :, 1])
    cs, cp = np.nonzero(box)
    abx, aby = B[cs, 0] - A[cs, 0], B[cs, 1] - A[cs, 1]
    apx, apy = centre[cp, 0] - A[cs, 0], centre[cp, 1] - A[cs, 1]
    denom = np.maximum(abx * abx + aby * aby, 1e-300)
    t_c = np.clip((apx * abx + apy * aby) / denom, 0.0, 1.0)
    keep = (apx - t_c * abx) ** 2 + (apy - t_c * aby) ** 2 <= (radius[cp] + reach) ** 2
    cs, cp = cs[keep], cp[keep]
    # Padded outlines as contiguous x/y tables; padding repeats the last vertex, so
    # padded edges have zero length and never cross anything.
    counts = np.array([len(p) for p in polys])
    nv = int(counts.max())
    cx_t, cy_t = np.empty((p_n, nv)), np.empty((p_n, nv))
    dx_t, dy_t = np.empty((p_n, nv)), np.empty((p_n, nv))
    for k, p in enumerate(polys):
        m = len(p)
        cx_t[k, :m], cy_t[k, :m] = p[:, 0], p[:, 1]
        dx_t[k, : m - 1], dy_t[k, : m - 1] = p[1:, 0], p[1:, 1]
        dx_t[k, m - 1], dy_t[k, m - 1] = p[0, 0], p[0, 1]
        cx_t[k, m:] = dx_t[k, m:] = p[-1, 0]
        cy_t[k, m:] = dy_t[k, m:] = p[-1, 1]
    # Layout (vertex, candidate): long inner loops over candidates. Operations are done
    # in place where possible: fresh megabyte temporaries cost page faults.
    ax, ay = A[cs, 0][None], A[cs, 1][None]
    abx, aby = B[cs, 0][None] - ax, B[cs, 1][None] - ay
    cx, cy = np.take(cx_t.T, cp, axis=1), np.take(cy_t.T, cp, axis=1)
    seg_len = np.hypot(abx, aby)
    tol = EPS * np.maximum(seg_len, 1.0)
    o_c = cy - ay  # becomes the side of each vertex from the segment's line
    o_c *= abx
    tmp = cx - ax
    tmp *= aby
    o_c -= tmp
    # The next vertex's side is the same table shifted by one row, except at each
    # outline's last real vertex (next is row 0) and on padding (itself).
    o_d = np.empty_like(o_c)
    o_d[:-1] = o_c[1:]
    o_d[-1] = o_c[-1]
    last = counts[cp] - 1
    cols = np.arange(len(cp))
    o_d[last, cols] = o_c[0, cols]
    straddle = ((o_c > tol) & (o_d < -tol)) | ((o_c < -tol) & (o_d > tol))
    ke, ks = np.nonzero(straddle)
    # Sides of the two endpoints from each straddling edge's line.
    ex, ey = dx_t[cp[ks], ke] - cx[ke, ks], dy_t[cp[ks], ke] - cy[ke, ks]
    ax1, ay1 = ax[0, ks] - cx[ke, ks], ay[0, ks] - cy[ke, ks]
    e_a = ex * ay1 - ey * ax1
    e_b = ex * (ay1 + aby[0, ks]) - ey * (ax1 + abx[0, ks])
    etol = EPS * np.maximum(np.hypot(ex, ey), 1.0)
    proper = (np.abs(e_a) > etol) & (np.abs(e_b) > etol) & ((e_a > 0) != (e_b > 0))
    # Everything below works on the candidate pairs only (an endpoint inside a polygon
    # always makes its pair a candidate), then lands in the dense results.
    ca, cb = ia[cs], ib[cs]
    cross_k = inside[ca, cp] | inside[cb, cp]
    cross_k[ks[proper]] = True
    # Knife edges: a vertex on the segment, or an endpoint on an outline.
    len2 = np.maximum(seg_len[0] ** 2, 1e-300)
    vv, vs = np.nonzero(np.abs(o_c) <= tol)
    t_v = ((cx[vv, vs] - ax[0, vs]) * abx[0, vs] + (cy[vv, vs] - ay[0, vs]) * aby[0, vs]) / len2[vs]
    awkward_k = on_outline[ca, cp] | on_outline[cb, cp]
    awkward_k[vs[(t_v >= -EPS) & (t_v <= 1 + EPS)]] = True
    clear_k = np.where(cross_k, 0.0, np.inf)
    if margin > 0:
        # A segment that does not cross comes nearest at an endpoint or at a vertex.
        near = np.minimum(bdist[ca, cp], bdist[cb, cp])
        nvx, ns = np.nonzero(np.abs(o_c) <= (margin + EPS) * seg_len)
        t_n = (
            (cx[nvx, ns] - ax[0, ns]) * abx[0, ns] + (cy[nvx, ns] - ay[0, ns]) * aby[0, ns]
        ) / len2[ns]
        within = (t_n >= 0) & (t_n <= 1)
        dv = np.abs(o_c[nvx, ns]) / np.sqrt(len2[ns])
        np.minimum.at(near, ns[within], dv[within])
        clear_k = np.where(cross_k, 0.0, np.where(near <= margin + EPS, near, np.inf))
    crosses[cs, cp] = cross_k
    clearance[cs, cp] = clear_k
    awkward = np.zeros((s_n, p_n), bool)
    awkward[cs[awkward_k], cp[awkward_k]] = True
    for s_k, p_k in zip(*np.nonzero(awkward), strict=True):
        one = segment_polygon(A[s_k], B[s_k], polys[p_k])
        crosses[s_k, p_k] = one.contact == "crosses"
        touches[s_k, p_k] = one.contact == "touches"
        clearance[s_k, p_k] = one.clearance if one.clearance <= margin + EPS else np.inf
        depths[s_k, p_k] = one.depth
    extra = (closed, bdist) if endpoints is not None else (None, None)
    if depth:
        with np.errstate(invalid="ignore", divide="ignore"):
            t_cross = e_a[proper] / (e_a[proper] - e_b[proper])
        _fill_depths(
            A,
            B,
            polys,
            crosses & ~awkward,
            cs[ks[proper]],
            cp[ks[proper]],
            t_cross,
            inside[ia],
            inside[ib],
            margin,
            depths,
        )
    return SegmentsContact(crosses, touches, clearance, depths, *extra)


def points_polygons(points: ArrayLike, polygons: Sequence[ArrayLike]) -> tuple[NDArray, Array]:
    """For ``points (n, 2)`` against each polygon: ``(inside, distance)``, both ``(n, p)``:
    whether each point lies in the closed polygon, and its distance to the outline.

    >>> inside, dist = points_polygons([(1, 2), (5, 2)], [[(0, 0), (4, 0), (4, 4), (0, 4)]])
    >>> inside.tolist(), dist.tolist()
    ([[True], [False]], [[1.0], [1.0]])
    """
    pts = np.asarray(points, float).reshape(-1, 2)
    polys = [as_polygon(p) for p in polygons]
    if not polys or not len(pts):
        return np.zeros((len(pts), len(polys)), bool), np.zeros((len(pts), len(polys)))
    counts = np.array([len(p) for p in polys])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    verts = np.concatenate(polys)
    nxt = np.arange(len(verts)) + 1
    nxt[starts + counts - 1] = starts
    ends = verts[nxt]
    dist = np.minimum.reduceat(_point_seg_dist(pts[:, None, :], verts[None], ends[None]), starts, 1)
    vy, ey, py = verts[:, 1], ends[:, 1], pts[:, 1:2]
    straddle = (vy > py) != (ey > py)
    with np.errstate(invalid="ignore", divide="ignore"):
        x_at = verts[:, 0] + (py - vy) * (ends[:, 0] - verts[:, 0]) / (ey - vy)
    parity = np.add.reduceat((straddle & (pts[:, 0:1] < x_at)).astype(np.int32), starts, axis=1)
    return (parity % 2 == 1) | (dist <= EPS), dist


def _fill_depths(
    A: Array,
    B: Array,
    polys: list[Array],
    want: NDArray[np.bool_],
    cs: NDArray[np.intp],
    cp: NDArray[np.intp],
    ct: Array,
    a_in: NDArray[np.bool_],
    b_in: NDArray[np.bool_],
    margin: float,
    out: Array,
) -> None:
    """Depth of crossing pairs: the midpoint of the crossed stretch first, a golden-section
    search where that is not already deeper than ``margin``."""
    ws, wp = np.nonzero(want)
    if len(ws) == 0:
        return
    p_n = want.shape[1]
    # Entry and exit of each crossed stretch: extreme crossing parameters per pair.
    key = cs.astype(np.int64) * p_n + cp
    order = np.argsort(key, kind="stable")
    key, ct = key[order], ct[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, int)
    group_key = key[first]
    t_min = np.minimum.reduceat(ct, first) if len(key) else np.zeros(0)
    t_max = np.maximum.reduceat(ct, first) if len(key) else np.zeros(0)
    wkey = ws.astype(np.int64) * p_n + wp
    g = np.searchsorted(group_key, wkey)
    g_ok = g < len(group_key)
    found = np.zeros(len(ws), bool)
    found[g_ok] = group_key[g[g_ok]] == wkey[g_ok]
    gi = np.where(found, g, 0)
    lo = np.where(found, t_min[gi] if len(t_min) else 0.0, np.inf)
    hi = np.where(found, t_max[gi] if len(t_max) else 1.0, -np.inf)
    lo = np.where(a_in[ws, wp], 0.0, lo)
    hi = np.where(b_in[ws, wp], 1.0, hi)
    lo = np.where(np.isfinite(lo), lo, 0.0)  # wholly inside without crossing an edge
    hi = np.where(np.isfinite(hi), hi, 1.0)
    nv = max(len(p) for p in polys)
    C = np.zeros((p_n, nv, 2))
    D = np.zeros((p_n, nv, 2))
    valid = np.zeros((p_n, nv), bool)
    for k, p in enumerate(polys):
        C[k, : len(p)] = p
        D[k, : len(p)] = np.roll(p, -1, axis=0)
        valid[k, : len(p)] = True
    a_k, b_k = A[ws], B[ws]
    c_k, d_k, v_k = C[wp], D[wp], valid[wp]
    mid = (lo + hi) / 2
    mp = a_k + mid[:, None] * (b_k - a_k)
    dist = np.where(v_k, _point_seg_dist(mp[:, None, :], c_k, d_k), np.inf).min(axis=1)
    got = np.where(_parity(mp, c_k, d_k, v_k), dist, 0.0)
    shallow = np.nonzero(got <= margin)[0]
    if len(shallow):
        gold = _golden_many(
            a_k[shallow],
            b_k[shallow],
            c_k[shallow],
            d_k[shallow],
            v_k[shallow],
            lo[shallow],
            hi[shallow],
        )
        got[shallow] = np.maximum(got[shallow], gold)
    out[ws, wp] = got


def _parity(p: Array, c: Array, d: Array, valid: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Crossing-number inside test of points ``p (k, 2)`` against padded edges ``(k, v, 2)``."""
    px, py = p[:, 0:1], p[:, 1:2]
    ay, by = c[..., 1], d[..., 1]
    straddle = valid & ((ay > py) != (by > py))
    with np.errstate(invalid="ignore", divide="ignore"):
        x_at = c[..., 0] + (py - ay) * (d[..., 0] - c[..., 0]) / (by - ay)
    return np.asarray(np.sum(straddle & (px < x_at), axis=1) % 2 == 1)


def _golden_many(
    A: Array,
    B: Array,
    C: Array,
    D: Array,
    valid: NDArray[np.bool_],
    lo: Array,
    hi: Array,
    iters: int = 30,
) -> Array:
    """Vectorised golden-section maximum of the signed boundary distance along segments,
    over parameters ``lo..hi`` (one new evaluation per iteration)."""
    g = (math.sqrt(5) - 1) / 2

    def f(t: Array) -> Array:
        p = A + t[:, None] * (B - A)
        dist = np.where(valid, _point_seg_dist(p[:, None, :], C, D), np.inf).min(axis=1)
        return np.where(_parity(p, C, D, valid), dist, -dist)

    lo, hi = lo.copy(), hi.copy()
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(iters):
        right = f1 < f2  # the maximum lies right of x1
        lo = np.where(right, x1, lo)
        hi = np.where(right, hi, x2)
        new_x = np.where(right, lo + g * (hi - lo), hi - g * (hi - lo))
        new_f = f(new_x)
        x1, x2, f1, f2 = (
            np.where(right, x2, new_x),
            np.where(right, new_x, x1),
            np.where(right, f2, new_f),
            np.where(right, new_f, f1),
        )
    return np.maximum(np.maximum(f1, f2), 0.0)
