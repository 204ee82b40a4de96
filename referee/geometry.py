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
    ab = b - a
    ap = p - a
    denom = np.sum(ab * ab, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(denom > 0, np.sum(ap * ab, axis=-1) / np.where(denom > 0, denom, 1), 0.0)
    t = np.clip(t, 0.0, 1.0)
    closest = a + t[..., None] * ab
    return np.asarray(np.hypot(*np.moveaxis(p - closest, -1, 0)))


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
    if len(poly) > 1 and np.allclose(poly[0], poly[-1]):
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
    """All-pairs :func:`segment_polygon` results, each array ``(segments, polygons)``."""

    crosses: NDArray[np.bool_]
    touches: NDArray[np.bool_]
    clearance: Array
    """Exact up to the ``margin`` asked for; beyond it a lower bound (bounding-box gap)."""
    depth: Array
    """As :attr:`SegmentContact.depth` where ``crosses``, computed only when asked."""


def segments_polygons(
    a: ArrayLike,
    b: ArrayLike,
    polygons: Sequence[ArrayLike],
    *,
    margin: float = 0.0,
    depth: bool = False,
) -> SegmentsContact:
    """Vectorised :func:`segment_polygon` for segments ``a[i]``-``b[i]`` (``(s, 2)`` each)
    against every polygon. Bounding boxes farther apart than ``margin`` are skipped
    (reported clear); rare degenerate contacts (through a vertex, along an edge) fall
    back to :func:`segment_polygon`. ``depth=True`` also fills ``depth`` (golden-section
    search of the signed distance along the segment: exact for convex polygons).

    >>> sq = [(0, 0), (4, 0), (4, 4), (0, 4)]
    >>> r = segments_polygons([(-1, 2), (-1, 0), (-1, 6)], [(5, 2), (5, 0), (5, 6)], [sq])
    >>> r.crosses[:, 0].tolist(), r.touches[:, 0].tolist(), r.clearance[:, 0].tolist()
    ([True, False, False], [False, True, False], [0.0, 0.0, 2.0])
    """
    A = np.asarray(a, float).reshape(-1, 2)
    B = np.asarray(b, float).reshape(-1, 2)
    polys = [as_polygon(p) for p in polygons]
    s, n_poly = len(A), len(polys)
    crosses = np.zeros((s, n_poly), bool)
    touches = np.zeros((s, n_poly), bool)
    clearance = np.full((s, n_poly), np.inf)
    depths = np.zeros((s, n_poly))
    if s == 0 or n_poly == 0:
        return SegmentsContact(crosses, touches, clearance, depths)
    nv = max(len(p) for p in polys)
    C = np.zeros((n_poly, nv, 2))
    valid = np.zeros((n_poly, nv), bool)
    for k, p in enumerate(polys):
        C[k, : len(p)] = p
        C[k, len(p) :] = p[-1]
        valid[k, : len(p)] = True
    D = np.array([np.roll(c, -1, axis=0) for c in C])
    for k, p in enumerate(polys):
        D[k, len(p) - 1] = p[0]
        D[k, len(p) :] = p[-1]
    plo = np.array([p.min(axis=0) for p in polys])
    phi = np.array([p.max(axis=0) for p in polys])
    slo, shi = np.minimum(A, B), np.maximum(A, B)
    gap = np.maximum(
        np.maximum(plo[None] - shi[:, None], slo[:, None] - phi[None]), 0.0
    )  # (s, p, 2)
    box_gap = np.hypot(gap[..., 0], gap[..., 1])
    clearance[:] = box_gap
    si, pi = np.nonzero(box_gap <= margin + EPS)
    if len(si) == 0:
        return SegmentsContact(crosses, touches, clearance, depths)
    a_k, b_k = A[si][:, None, :], B[si][:, None, :]
    c_k, d_k, v_k = C[pi], D[pi], valid[pi]
    dist = np.where(v_k, _seg_seg_dist(a_k, b_k, c_k, d_k), np.inf)
    clear_k = dist.min(axis=1)
    o1, o2 = _cross(a_k, b_k, c_k), _cross(a_k, b_k, d_k)
    o3, o4 = _cross(c_k, d_k, a_k), _cross(c_k, d_k, b_k)
    tol = EPS
    strict = (np.abs(o1) > tol) & (np.abs(o2) > tol) & (np.abs(o3) > tol) & (np.abs(o4) > tol)
    proper = np.any(v_k & strict & (o1 * o2 < 0) & (o3 * o4 < 0), axis=1)
    a_in = _parity(A[si], c_k, d_k, v_k)
    b_in = _parity(B[si], c_k, d_k, v_k)
    met = clear_k <= EPS
    cross_k = proper | (a_in & ~met) | (b_in & ~met)
    # Contacts at a vertex or along an edge without a clean crossing: decide exactly.
    awkward = np.nonzero(met & ~proper)[0]
    touch_k = np.zeros(len(si), bool)
    for k in map(int, awkward):
        res = segment_polygon(A[si[k]], B[si[k]], polys[pi[k]])
        cross_k[k] = res.contact == "crosses"
        touch_k[k] = res.contact == "touches"
    clear_k = np.where(cross_k | touch_k, 0.0, clear_k)
    crosses[si, pi] = cross_k
    touches[si, pi] = touch_k
    clearance[si, pi] = clear_k
    if depth and np.any(cross_k):
        sel = np.nonzero(cross_k)[0]
        depths[si[sel], pi[sel]] = _golden_many(
            A[si[sel]], B[si[sel]], c_k[sel], d_k[sel], v_k[sel]
        )
    return SegmentsContact(crosses, touches, clearance, depths)


def _parity(p: Array, c: Array, d: Array, valid: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Crossing-number inside test of points ``p (k, 2)`` against padded edges ``(k, v, 2)``."""
    px, py = p[:, 0:1], p[:, 1:2]
    ay, by = c[..., 1], d[..., 1]
    straddle = valid & ((ay > py) != (by > py))
    with np.errstate(invalid="ignore", divide="ignore"):
        x_at = c[..., 0] + (py - ay) * (d[..., 0] - c[..., 0]) / (by - ay)
    return np.asarray(np.sum(straddle & (px < x_at), axis=1) % 2 == 1)


def _golden_many(
    A: Array, B: Array, C: Array, D: Array, valid: NDArray[np.bool_], iters: int = 30
) -> Array:
    """Vectorised golden-section maximum of the signed boundary distance along segments."""
    g = (math.sqrt(5) - 1) / 2

    def f(t: Array) -> Array:
        p = A + t[:, None] * (B - A)
        dist = np.where(valid, _point_seg_dist(p[:, None, :], C, D), np.inf).min(axis=1)
        return np.where(_parity(p, C, D, valid), dist, -dist)

    lo, hi = np.zeros(len(A)), np.ones(len(A))
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(iters):
        left = f1 < f2  # the maximum lies right of x1
        lo = np.where(left, x1, lo)
        hi = np.where(left, hi, x2)
        nx1 = np.where(left, x2, hi - g * (hi - lo))
        nx2 = np.where(left, lo + g * (hi - lo), x1)
        nf1 = np.where(left, f2, f(nx1))
        nf2 = np.where(left, f(nx2), f1)
        x1, x2, f1, f2 = nx1, nx2, nf1, nf2
    return np.maximum(np.maximum(f1, f2), 0.0)
