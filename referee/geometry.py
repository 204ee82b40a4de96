"""Plane geometry in table inches: bases, distances, polygons, lines of sight, one
question at a time (the all-pairs forms of a whole table are :mod:`referee.maps`').

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

TERRAIN_KINDS = (
    "woods",
    "building",
    "hill",
    "difficult",
    "road",
    "river",
    "bridge",
    "water",
    "rough",
    "wall",
    "open",
    "objective",
    "wire",
    "minefield",
    "smoke",
    "fortification",
)
"""Known terrain kinds (the scene file's and a roster template's): here, below both, as a
roster is read below the scene; what each does is the ruleset's business."""


def unknown_terrain_kind(kind: str) -> str | None:
    """What is wrong with ``kind`` as a terrain kind (lower case), or None when it is one.

    >>> unknown_terrain_kind("woods") is None, unknown_terrain_kind("lava")[:27]
    (True, "unknown terrain kind 'lava'")
    """
    if kind in TERRAIN_KINDS:
        return None
    return f"unknown terrain kind {kind!r} (known: {', '.join(TERRAIN_KINDS)})"


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


def min_rectangle(polygon: ArrayLike) -> tuple[float, float, float]:
    """``(long side, short side, heading of the long side in degrees)`` of the smallest
    rectangle around a polygon: the width and depth of a terrain section.

    >>> min_rectangle(np.array([[0, 0], [2, 0], [2, 1], [0, 1]], float))
    (2.0, 1.0, 0.0)
    """
    pts = np.asarray(polygon, float)
    best: tuple[float, float, float] | None = None
    for p, q in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        edge = q - p
        length = float(np.hypot(*edge))
        if length <= 1e-12:
            continue
        u = edge / length
        v = np.array([-u[1], u[0]])
        a, b = pts @ u, pts @ v
        da, db = float(a.max() - a.min()), float(b.max() - b.min())
        area = da * db
        if best is None or area < best[0] * best[1] - 1e-12:
            heading = math.degrees(math.atan2(u[1], u[0])) % 180.0
            if db > da:
                da, db, heading = db, da, (heading + 90.0) % 180.0
            best = (round(da, 6), round(db, 6), round(heading, 6))  # typed corners: 1e-6in
    return best if best is not None else (0.0, 0.0, 0.0)


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
    outlines, the exact peak itself). The all-pairs map's depths for one outline
    (:mod:`referee.maps.segments`), op for op, so the very same floats."""
    lo, hi = np.array(spans, float).reshape(-1, 2).T
    halfplanes = _convex_halfplanes(poly)
    if halfplanes is not None:
        return float(_convex_max_depths(A, B, halfplanes, lo, hi).max(initial=0.0))
    best = 0.0
    brackets = []
    for t0, t1 in spans:
        grid = np.linspace(t0, t1, 17)
        vals = signed_boundary_distance(A + grid[:, None] * (B - A), poly)
        k = int(np.argmax(vals))
        best = max(best, float(vals[k]))
        brackets.append((grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]))
    # One golden-section search per span, all at once.
    lo, hi = np.array(brackets).T
    return max(best, float(_golden_search(A, B, poly, lo, hi, iters=40).max()))


def _convex_halfplanes(poly: Array) -> tuple[Array, Array, Array] | None:
    """A convex outline's edge lines as unit inward normals ``hx, hy`` and offsets
    ``ho``, so that an inside point's depth is the least ``hx x + hy y - ho`` (a
    zero-length edge holds ``0, 0, -inf``, never the least); None if not convex."""
    e = np.roll(poly, -1, axis=0) - poly
    ex, ey = e[:, 0], e[:, 1]
    turn = ex * np.roll(ey, -1) - ey * np.roll(ex, -1)
    if not (turn.min() >= 0 or turn.max() <= 0):
        return None
    sense = 1.0 if np.add.reduceat(turn, [0])[0] >= 0 else -1.0
    den = ex * ex + ey * ey
    unused = ~(den > 0)
    with np.errstate(invalid="ignore", divide="ignore"):  # zero-length edges: unused
        norm = sense / np.sqrt(den)
        hx, hy = np.where(unused, 0.0, -ey * norm), np.where(unused, 0.0, ex * norm)
    return hx, hy, np.where(unused, -np.inf, hx * poly[:, 0] + hy * poly[:, 1])


def _convex_max_depths(
    A: Array, B: Array, halfplanes: tuple[Array, Array, Array], lo: Array, hi: Array
) -> Array:
    """Exact largest depth along segment ``A``-``B`` over each span ``lo[k]..hi[k]`` in a
    convex outline (0 if never inside). Along the segment each edge line's distance is
    linear, ``g_e(t) = a_e + b_e t``, and the depth is their least, a concave function:
    its peak is where a rising and a falling line cross, at the crossing of least height
    (a two-variable linear programme), clamped to the span."""
    hx, hy, ho = (h[None, :] for h in halfplanes)
    n = len(lo)
    ax, ay = np.full((n, 1), A[0]), np.full((n, 1), A[1])
    a = hx * ax + hy * ay - ho  # (k, edges)
    b = hx * (B[0] - ax) + hy * (B[1] - ay)
    up, down = b > 0, b < 0
    pair = up[:, :, None] & down[:, None, :]  # (k, rising e, falling f)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        steep = b[:, :, None] - b[:, None, :]
        height = (a[:, :, None] * -b[:, None, :] + a[:, None, :] * b[:, :, None]) / steep
        at = (a[:, None, :] - a[:, :, None]) / steep
    height = np.where(pair, height, np.inf).reshape(n, -1)
    best = np.argmin(height, axis=1)
    peak = np.take_along_axis(at.reshape(n, -1), best[:, None], axis=1)[:, 0]
    peak = np.where(np.isfinite(height[np.arange(n), best]), peak, lo)
    out = np.zeros(n)
    for t in (lo, hi, np.clip(peak, lo, hi)):  # the peak, or the nearer end of the span
        with np.errstate(invalid="ignore"):
            depth = np.min(a + b * t[:, None], axis=1)
        np.fmax(out, depth, out=out)
    return out


def _golden_search(A: Array, B: Array, poly: Array, lo: Array, hi: Array, iters: int) -> Array:
    """Golden-section maximum of the signed distance to the outline (inside by crossing
    number) along segment ``A``-``B`` over each bracket ``lo[k]..hi[k]`` (one new
    evaluation per iteration), at least 0."""
    g = (math.sqrt(5) - 1) / 2
    ab = B - A

    def f(t: Array) -> Array:
        inside, dist = _parity_and_edge_distance(A + t[:, None] * ab, poly)
        return np.where(inside, dist, -dist)

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
    return np.asarray(np.maximum(np.maximum(f1, f2), 0.0))
