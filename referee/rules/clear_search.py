"""Papercraft's clear line (:mod:`referee.rules.clearance`, which explains the candidates)
pair by pair, as one compiled loop (numba).

numpy had to carry every pair through every step of the search in lock step (the bases
near each pair, its nearest segment, the corners a line may graze, every candidate
line's gap, sorted by length), and index and gather at each. Here each pair stops as
soon as it is settled: its nearest segment is clear, one base crosses every corner-to-
corner line, or the shortest candidate left crosses no base; and no array is built
per candidate (a view of an array costs a reference count, more than a test).

The tests and tolerances are those of the numpy search this replaced. Whether a corner
may be grazed is now judged without angles (cross products: the trigonometry cost more
than the rest of the search), with margins that keep a corner when in doubt: a corner
too many only adds candidate lines, each a real segment tested like the others.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_EPS = 1e-9  # referee.geometry.EPS: touching, for the overlap test of the distance
_TOL = 1e-9  # slack on line parameters (fractions of a candidate line's defining span)


@njit(cache=True, inline="always", error_model="numpy")
def _crosses(px: float, py: float, qx: float, qy: float, rects: np.ndarray, r: int) -> bool:
    """Whether segment ``p``-``q`` enters the open interior of rectangle ``rects[r]``
    (4 corners in order): :func:`referee.rules.clearance.segments_cross_rectangles`'
    test (separating axes; touching does not count), with its arithmetic."""
    for a in range(2):
        ex = rects[r, a + 1, 0] - rects[r, a, 0]
        ey = rects[r, a + 1, 1] - rects[r, a, 1]
        r0 = rects[r, 0, 0] * ex + rects[r, 0, 1] * ey
        r1 = rects[r, 1, 0] * ex + rects[r, 1, 1] * ey
        r2 = rects[r, 2, 0] * ex + rects[r, 2, 1] * ey
        r3 = rects[r, 3, 0] * ex + rects[r, 3, 1] * ey
        r_lo = np.minimum(np.minimum(r0, r1), np.minimum(r2, r3))
        r_hi = np.maximum(np.maximum(r0, r1), np.maximum(r2, r3))
        sp, sq = px * ex + py * ey, qx * ex + qy * ey
        if not np.maximum(sp, sq) > r_lo + _EPS * (1 + np.abs(r_lo)):
            return False
        if not np.minimum(sp, sq) < r_hi - _EPS * (1 + np.abs(r_hi)):
            return False
    nx, ny = py - qy, qx - px
    s0 = px * nx + py * ny
    tol = _EPS * (1 + np.abs(s0))
    rr0 = nx * rects[r, 0, 0] + ny * rects[r, 0, 1]
    rr1 = nx * rects[r, 1, 0] + ny * rects[r, 1, 1]
    rr2 = nx * rects[r, 2, 0] + ny * rects[r, 2, 1]
    rr3 = nx * rects[r, 3, 0] + ny * rects[r, 3, 1]
    if not np.maximum(np.maximum(rr0, rr1), np.maximum(rr2, rr3)) > s0 + tol:
        return False
    return bool(np.minimum(np.minimum(rr0, rr1), np.minimum(rr2, rr3)) < s0 - tol)


@njit(cache=True, inline="always", error_model="numpy")
def _chord(
    sx: float, sy: float, vx: float, vy: float, frame: np.ndarray, k: int
) -> tuple[float, float]:
    """``(t0, t1)`` where line ``s + t v`` enters and leaves rectangle ``k`` of ``frame``
    (:func:`referee.rules.clearance._frames`' columns as rows: slabs about the centre);
    ``t0 > t1`` when it misses."""
    t0, t1 = -np.inf, np.inf
    rx, ry = sx - frame[0, k], sy - frame[1, k]
    speed = np.sqrt(vx * vx + vy * vy)
    for a in range(2):
        ux, uy, half = frame[2 + 3 * a, k], frame[3 + 3 * a, k], frame[4 + 3 * a, k]
        s = rx * ux + ry * uy
        w = vx * ux + vy * uy
        if np.abs(w) <= 1e-12 * speed:  # along the slab: all of the line or none of it
            if np.abs(s) > half + 1e-9:
                t0, t1 = np.maximum(t0, np.inf), np.minimum(t1, -np.inf)
        else:
            lo, hi = (-half - s) / w, (half - s) / w
            t0 = np.maximum(t0, np.minimum(lo, hi))
            t1 = np.minimum(t1, np.maximum(lo, hi))
    return t0, t1


@njit(cache=True, inline="always", error_model="numpy")
def _gap(
    sx: float,
    sy: float,
    tx: float,
    ty: float,
    a1x: float,
    a1y: float,
    a2x: float,
    a2y: float,
    frames: np.ndarray,
    ia: int,
    ib: int,
) -> tuple[bool, float, float, float, float]:
    """On the line from ``s`` through ``t``: the gap between outline ``ia``'s chord and
    ``ib``'s (rectangles of ``frames``), as ``(candidate, p on A, q on B)``; a candidate
    when the line meets both outlines apart and the anchors ``a1``, ``a2`` (NaN: none)
    lie on the gap."""
    vx, vy = tx - sx, ty - sy
    vv = vx * vx + vy * vy
    a0, a1 = _chord(sx, sy, vx, vy, frames, ia)
    b0, b1 = _chord(sx, sy, vx, vy, frames, ib)
    good = vv > 1e-24 and a0 <= a1 + _TOL and b0 <= b1 + _TOL
    a_first = a1 <= b0 + _TOL
    good = good and (a_first or b1 <= a0 + _TOL)
    ta = a1 if a_first else a0
    tb = b0 if a_first else b1
    lo, hi = np.minimum(ta, tb) - _TOL, np.maximum(ta, tb) + _TOL
    for ax, ay in ((a1x, a1y), (a2x, a2y)):
        t = (ax - sx) * vx + (ay - sy) * vy
        t /= vv
        good = good and (np.isnan(t) or (t >= lo and t <= hi))
    good = good and np.isfinite(ta) and np.isfinite(tb)
    ta, tb = (ta, tb) if good else (0.0, 0.0)
    return good, sx + ta * vx, sy + ta * vy, sx + tb * vx, sy + tb * vy


@njit(cache=True, inline="always", error_model="numpy")
def _cross(ux: float, uy: float, vx: float, vy: float) -> float:
    return ux * vy - uy * vx


@njit(cache=True, inline="always", error_model="numpy")
def _point_seg(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """:func:`referee.geometry._point_seg_dist` of one point and segment."""
    abx, aby = bx - ax, by - ay
    apx, apy = px - ax, py - ay
    denom = abx * abx + aby * aby
    t = 0.0
    if denom > 0:
        t = min(max((apx * abx + apy * aby) / denom, 0.0), 1.0)
    return math.sqrt((apx - t * abx) ** 2 + (apy - t * aby) ** 2)


@njit(cache=True, inline="always", error_model="numpy")
def _orient(ox: float, oy: float, ax: float, ay: float, bx: float, by: float) -> float:
    """z of (a - o) x (b - o): :func:`referee.geometry._cross`."""
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@njit(cache=True, inline="always", error_model="numpy")
def _on_box(ax: float, ay: float, bx: float, by: float, px: float, py: float) -> bool:
    return (
        min(ax, bx) - _EPS <= px <= max(ax, bx) + _EPS
        and min(ay, by) - _EPS <= py <= max(ay, by) + _EPS
    )


@njit(cache=True, error_model="numpy")
def _seg_seg(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> float:
    """:func:`referee.geometry._seg_seg_dist` of two segments: 0 when they meet."""
    o1 = _orient(a[0], a[1], b[0], b[1], c[0], c[1])
    o2 = _orient(a[0], a[1], b[0], b[1], d[0], d[1])
    o3 = _orient(c[0], c[1], d[0], d[1], a[0], a[1])
    o4 = _orient(c[0], c[1], d[0], d[1], b[0], b[1])
    if (o1 * o2 < 0) and (o3 * o4 < 0):
        return 0.0
    if (
        (abs(o1) <= _EPS and _on_box(a[0], a[1], b[0], b[1], c[0], c[1]))
        or (abs(o2) <= _EPS and _on_box(a[0], a[1], b[0], b[1], d[0], d[1]))
        or (abs(o3) <= _EPS and _on_box(c[0], c[1], d[0], d[1], a[0], a[1]))
        or (abs(o4) <= _EPS and _on_box(c[0], c[1], d[0], d[1], b[0], b[1]))
    ):
        return 0.0
    return min(
        min(
            _point_seg(a[0], a[1], c[0], c[1], d[0], d[1]),
            _point_seg(b[0], b[1], c[0], c[1], d[0], d[1]),
        ),
        min(
            _point_seg(c[0], c[1], a[0], a[1], b[0], b[1]),
            _point_seg(d[0], d[1], a[0], a[1], b[0], b[1]),
        ),
    )


@njit(cache=True, error_model="numpy")
def _in_or_on(px: float, py: float, poly: np.ndarray) -> bool:
    """:func:`referee.geometry.points_in_polygon`'s even-odd rule and on-edge test."""
    inside = False
    near = np.inf
    for e in range(4):
        ax, ay = poly[e, 0], poly[e, 1]
        bx, by = poly[(e + 1) % 4, 0], poly[(e + 1) % 4, 1]
        if (ay > py) != (by > py) and px < ax + (py - ay) * (bx - ax) / (by - ay):
            inside = not inside
        near = min(near, _point_seg(px, py, ax, ay, bx, by))
    return inside or near <= _EPS


@njit(cache=True, error_model="numpy")
def _distance(pa: np.ndarray, pb: np.ndarray) -> float:
    """:func:`referee.geometry.polygon_distance` of two outlines of four corners."""
    if _in_or_on(pa[0, 0], pa[0, 1], pb) or _in_or_on(pb[0, 0], pb[0, 1], pa):
        return 0.0
    apart = (
        pa[:, 0].min() > pb[:, 0].max()
        or pb[:, 0].min() > pa[:, 0].max()
        or pa[:, 1].min() > pb[:, 1].max()
        or pb[:, 1].min() > pa[:, 1].max()
    )
    d = np.inf
    for i in range(4):
        for e in range(4):
            if apart:  # edges of outlines whose boxes are apart never meet
                a, b = pb[e], pb[(e + 1) % 4]
                d = min(d, _point_seg(pa[i, 0], pa[i, 1], a[0], a[1], b[0], b[1]))
                a, b = pa[e], pa[(e + 1) % 4]
                d = min(d, _point_seg(pb[i, 0], pb[i, 1], a[0], a[1], b[0], b[1]))
            else:
                d = min(d, _seg_seg(pa[i], pa[(i + 1) % 4], pb[e], pb[(e + 1) % 4]))
    return d


@njit(cache=True, error_model="numpy")
def _nearest_points(pa: np.ndarray, pb: np.ndarray, pq: np.ndarray) -> float:
    """A point of each outline nearest the other, into ``pq`` (p's x, y, q's x, y): a
    corner of one and its foot on an edge of the other (the first such, corner by
    corner, from ``pa``'s first); their distance, the outlines' if they do not meet."""
    best = np.inf
    for side in range(2):
        src, dst = (pa, pb) if side == 0 else (pb, pa)
        gap, vx, vy, fx, fy = np.inf, 0.0, 0.0, 0.0, 0.0
        for i in range(4):
            for e in range(4):
                sx, sy = dst[e, 0], dst[e, 1]
                tx, ty = dst[(e + 1) % 4, 0] - sx, dst[(e + 1) % 4, 1] - sy
                rx, ry = src[i, 0] - sx, src[i, 1] - sy
                t = min(max((rx * tx + ry * ty) / max(tx * tx + ty * ty, 1e-300), 0.0), 1.0)
                footx, footy = sx + t * tx, sy + t * ty
                g = math.sqrt((src[i, 0] - footx) ** 2 + (src[i, 1] - footy) ** 2)
                if g < gap:
                    gap, vx, vy, fx, fy = g, src[i, 0], src[i, 1], footx, footy
        if side == 0:
            best = gap
            pq[0], pq[1], pq[2], pq[3] = vx, vy, fx, fy
        elif gap < best:
            best = gap
            pq[0], pq[1], pq[2], pq[3] = fx, fy, vx, vy
    return best


@njit(cache=True, error_model="numpy")
def _halfplanes(poly: np.ndarray) -> np.ndarray:
    """A convex outline as half-planes, ``(4, 3)``: unit inward normal and offset of each
    edge, inside where ``n . x >= o`` for all four."""
    out = np.empty((4, 3))
    area = 0.0
    for v in range(4):
        area += _cross(poly[v, 0], poly[v, 1], poly[(v + 1) % 4, 0], poly[(v + 1) % 4, 1])
    sign = -1.0 if area < 0 else 1.0
    for v in range(4):
        ex = poly[(v + 1) % 4, 0] - poly[v, 0]
        ey = poly[(v + 1) % 4, 1] - poly[v, 1]
        nx, ny = sign * -ey, sign * ex
        size = max(math.hypot(nx, ny), 1e-300)
        nx, ny = nx / size, ny / size
        out[v, 0], out[v, 1], out[v, 2] = nx, ny, nx * poly[v, 0] + ny * poly[v, 1]
    return out


@njit(cache=True, inline="always", error_model="numpy")
def _holds(px: float, py: float, planes: np.ndarray) -> bool:
    """Whether the point lies in or within a hair of the outline of ``planes``."""
    inside = True
    for v in range(4):
        inside = inside and planes[v, 0] * px + planes[v, 1] * py - planes[v, 2] >= -1e-9
    return inside


@njit(cache=True, error_model="numpy")
def _outline_distance(px: float, py: float, poly: np.ndarray, planes: np.ndarray) -> float:
    if _holds(px, py, planes):
        return 0.0
    d = np.inf
    for e in range(4):
        a, b = poly[e], poly[(e + 1) % 4]
        d = min(d, _point_seg(px, py, a[0], a[1], b[0], b[1]))
    return d


@njit(cache=True, error_model="numpy")
def _common_point(pa: np.ndarray, pb: np.ndarray, pq: np.ndarray) -> None:
    """A point of two touching or overlapping outlines into ``pq`` (both ends): a corner
    of one in or on the other, else where two edges cross (NaN if none)."""
    for side in range(2):
        src, dst = (pa, pb) if side == 0 else (pb, pa)
        planes = _halfplanes(dst)
        for v in range(4):
            if _holds(src[v, 0], src[v, 1], planes):
                pq[0] = pq[2] = src[v, 0]
                pq[1] = pq[3] = src[v, 1]
                return
    for e in range(4):
        for o in range(4):
            t = _edge_crossing(pa, e, pb, o)
            if not np.isnan(t):
                x = pa[e, 0] + t * (pa[(e + 1) % 4, 0] - pa[e, 0])
                y = pa[e, 1] + t * (pa[(e + 1) % 4, 1] - pa[e, 1])
                pq[0], pq[1], pq[2], pq[3] = x, y, x, y
                return
    pq[:] = np.nan


@njit(cache=True, inline="always", error_model="numpy")
def _boxes_apart(p: np.ndarray, q: np.ndarray) -> bool:
    """Whether the bounding boxes of outlines ``p`` and ``q`` are apart: no edges meet."""
    for a in range(2):
        if max(max(p[0, a], p[1, a]), max(p[2, a], p[3, a])) < min(
            min(q[0, a], q[1, a]), min(q[2, a], q[3, a])
        ):
            return True
        if max(max(q[0, a], q[1, a]), max(q[2, a], q[3, a])) < min(
            min(p[0, a], p[1, a]), min(p[2, a], p[3, a])
        ):
            return True
    return False


@njit(cache=True, inline="always", error_model="numpy")
def _edge_crossing(rect: np.ndarray, e: int, outline: np.ndarray, o: int) -> float:
    """Where edge ``e`` of ``rect`` properly crosses edge ``o`` of ``outline``, as the
    fraction along the first; NaN where they do not."""
    d1x, d1y = rect[(e + 1) % 4, 0] - rect[e, 0], rect[(e + 1) % 4, 1] - rect[e, 1]
    d2x = outline[(o + 1) % 4, 0] - outline[o, 0]
    d2y = outline[(o + 1) % 4, 1] - outline[o, 1]
    wx, wy = outline[o, 0] - rect[e, 0], outline[o, 1] - rect[e, 1]
    den = d1x * d2y - d1y * d2x
    t = (wx * d2y - wy * d2x) / den
    s = (wx * d1y - wy * d1x) / den
    inner = 1e-9
    if t > inner and t < 1 - inner and s > inner and s < 1 - inner:
        return t
    return np.nan


@njit(cache=True, error_model="numpy")
def _in_hull(px: float, py: float, pa: np.ndarray, pb: np.ndarray) -> bool:
    """Whether the point lies in (or on, or within a hair of) the hull of both outlines:
    no direction to a corner has every other within the half turn counter-clockwise of
    it (where a line through the point would have them all on one side)."""
    for i in range(8):
        poly = pa if i < 4 else pb
        dx, dy = poly[i % 4, 0] - px, poly[i % 4, 1] - py
        size = abs(dx) + abs(dy)
        if size <= 2e-12:  # on a corner
            return True
        clear_of_all = True
        for j in range(8):
            other = pa if j < 4 else pb
            ex, ey = other[j % 4, 0] - px, other[j % 4, 1] - py
            side = _cross(dx, dy, ex, ey)
            tol = 1e-9 * size * (abs(ex) + abs(ey))
            if not (side > tol or (side >= -tol and dx * ex + dy * ey > 0)):
                clear_of_all = False
                break
        if clear_of_all:
            return False
    return True


@njit(cache=True, inline="always", error_model="numpy")
def _cone(poly: np.ndarray, cx: float, cy: float, sign: float) -> tuple[float, float, float, float]:
    """The clockwise-most and counter-clockwise-most of the directions ``sign (corner -
    c)`` to the four corners of ``poly`` (c outside it: they lie within less than a half
    turn), as ``(lo x, lo y, hi x, hi y)``."""
    lox, loy = sign * (poly[0, 0] - cx), sign * (poly[0, 1] - cy)
    hix, hiy = lox, loy
    for v in range(1, 4):
        vx, vy = sign * (poly[v, 0] - cx), sign * (poly[v, 1] - cy)
        if _cross(lox, loy, vx, vy) < 0:
            lox, loy = vx, vy
        if _cross(hix, hiy, vx, vy) > 0:
            hix, hiy = vx, vy
    return lox, loy, hix, hiy


@njit(cache=True, inline="always", error_model="numpy")
def _within(ux: float, uy: float, lox: float, loy: float, hix: float, hiy: float) -> bool:
    """Whether direction ``u`` lies in the cone from ``lo`` counter-clockwise to ``hi``
    (less than a half turn), edges included."""
    return _cross(lox, loy, ux, uy) >= 0 and _cross(ux, uy, hix, hiy) >= 0


@njit(cache=True, inline="always", error_model="numpy")
def _strictly_inside(
    ux: float, uy: float, e1x: float, e1y: float, e2x: float, e2y: float, turn: float
) -> int:
    """+1 where direction ``u`` from a corner (edges ``e1``, ``e2`` out of it) runs
    strictly inside its angle, -1 strictly inside the opposite angle, else 0 (margins of
    1e-9 of the lengths)."""
    scale = math.sqrt(ux * ux + uy * uy)
    s1 = turn * _cross(e1x, e1y, ux, uy) / (math.sqrt(e1x * e1x + e1y * e1y) * scale)
    s2 = turn * _cross(ux, uy, e2x, e2y) / (math.sqrt(e2x * e2x + e2y * e2y) * scale)
    if s1 > 1e-9 and s2 > 1e-9:
        return 1
    if s1 < -1e-9 and s2 < -1e-9:
        return -1
    return 0


@njit(cache=True, error_model="numpy")
def _may_graze(
    rect: np.ndarray,
    k: int,
    pa: np.ndarray,
    pb: np.ndarray,
    planes_a: np.ndarray,
    planes_b: np.ndarray,
) -> bool:
    """Whether a segment from ``pa`` to ``pb`` can pass corner ``k`` of base ``rect``
    with the base on one side, or start at it: the corner lies between the two, and the
    directions from ``pa`` through it to ``pb`` (a cone) are not all inside the corner's
    angle or its opposite, where the line would enter the base. Where in doubt it may:
    a corner too many only adds candidate lines."""
    cx, cy = rect[k, 0], rect[k, 1]
    if not _in_hull(cx, cy, pa, pb):
        return False
    if _holds(cx, cy, planes_a) or _holds(cx, cy, planes_b):
        return True  # a line may start there
    # c outside both convex outlines: the directions to B's corners, and from A's, each
    # span less than a half turn; a line through c runs along both cones.
    b_lox, b_loy, b_hix, b_hiy = _cone(pb, cx, cy, 1.0)
    a_lox, a_loy, a_hix, a_hiy = _cone(pa, cx, cy, -1.0)
    if _within(b_lox, b_loy, a_lox, a_loy, a_hix, a_hiy):
        lox, loy = b_lox, b_loy
    elif _within(a_lox, a_loy, b_lox, b_loy, b_hix, b_hiy):
        lox, loy = a_lox, a_loy
    else:
        return True  # no such line, or the cones are too wide to judge
    if _within(b_hix, b_hiy, a_lox, a_loy, a_hix, a_hiy):
        hix, hiy = b_hix, b_hiy
    elif _within(a_hix, a_hiy, b_lox, b_loy, b_hix, b_hiy):
        hix, hiy = a_hix, a_hiy
    else:
        return True
    nxt, prev = (k + 1) % 4, (k + 3) % 4
    e1x, e1y = rect[nxt, 0] - cx, rect[nxt, 1] - cy
    e2x, e2y = rect[prev, 0] - cx, rect[prev, 1] - cy
    turn = np.sign(_cross(e1x, e1y, e2x, e2y))
    at_lo = _strictly_inside(lox, loy, e1x, e1y, e2x, e2y, turn)
    return at_lo == 0 or at_lo != _strictly_inside(hix, hiy, e1x, e1y, e2x, e2y, turn)


@njit(cache=True, inline="always", error_model="numpy")
def _one_side(kk: np.ndarray, g: int, dx: float, dy: float) -> bool:
    """Whether a line along ``d`` may pass grazed corner ``kk[g]``: it starts there, or
    has both neighbouring corners on one side (or on it), touching the convex base
    there without entering it."""
    if kk[g, 6] != 0:
        return True
    nx, ny = kk[g, 4] - kk[g, 0], kk[g, 5] - kk[g, 1]
    px, py = kk[g, 2] - kk[g, 0], kk[g, 3] - kk[g, 1]
    s1, s2 = _cross(dx, dy, nx, ny), _cross(dx, dy, px, py)
    # The 1-norm for the length: a wider margin (a candidate too many does no harm).
    tol = 1e-12 * (abs(dx) + abs(dy)) * ((abs(nx) + abs(ny)) + (abs(px) + abs(py)))
    return (s1 >= -tol and s2 >= -tol) or (s1 <= tol and s2 <= tol)


@njit(cache=True, inline="always", error_model="numpy")
def _leaves(ends: np.ndarray, v: int, dx: float, dy: float) -> bool:
    """Whether direction ``d`` from corner ``v`` of the two outlines ``ends`` (``(8, 2)``,
    four each) points out of its outline or along an edge: not strictly inside the
    corner's angle."""
    first = v - v % 4
    nxt, prev = first + (v + 1) % 4, first + (v + 3) % 4
    e1x, e1y = ends[nxt, 0] - ends[v, 0], ends[nxt, 1] - ends[v, 1]
    e2x, e2y = ends[prev, 0] - ends[v, 0], ends[prev, 1] - ends[v, 1]
    w = _cross(e1x, e1y, e2x, e2y)
    return not (_cross(e1x, e1y, dx, dy) * w > 0 and _cross(dx, dy, e2x, e2y) * w > 0)


@njit(cache=True, error_model="numpy")
def _turning_point(h1: float, h2: float, phi: float, delta: float) -> tuple[float, float]:
    """The direction (unit vector) through a corner at heights ``h1``, ``h2`` above two
    edges' lines (outward normals at ``phi`` and ``phi + delta``) along which the gap
    between the lines is shortest: :func:`referee.rules.clearance._grazing_lines`."""
    lo = max(min(0.0, delta), max(0.0, delta) - math.pi / 2 + 1e-9)
    hi = min(max(0.0, delta), min(0.0, delta) + math.pi / 2 - 1e-9)
    total = h1 + h2
    alpha = delta * h2 / total if total > 0 else 0.0
    if not (alpha >= lo and alpha <= hi):
        alpha = (lo + hi) / 2
    if h1 == 0 or h2 == 0:
        alpha = min(max(0.0 if h2 == 0 else delta, lo), hi)
    else:
        for _ in range(60):
            al = alpha
            s1, s2 = 1 / math.cos(al), 1 / math.cos(al - delta)
            t1, t2 = math.tan(al), math.tan(al - delta)
            slope = h1 * s1 * t1 + h2 * s2 * t2
            bend = h1 * s1 * (t1 * t1 + s1 * s1) + h2 * s2 * (t2 * t2 + s2 * s2)
            if slope < 0:
                lo = al
            if slope > 0:
                hi = al
            step = al - slope / (bend if bend > 0 else 1.0)
            inside = (step >= lo and step <= hi) or slope == 0
            alpha = step if inside else (lo + hi) / 2
            if not (abs(alpha - al) > 1e-14 and hi - lo > 1e-14 and slope != 0):
                break
    return math.cos(phi + alpha), math.sin(phi + alpha)


@njit(cache=True, error_model="numpy")
def _shortest_clear(
    length: np.ndarray,
    seg: np.ndarray,
    count: int,
    corners: np.ndarray,
    blockers: np.ndarray,
    pq: np.ndarray,
) -> float:
    """The shortest of the first ``count`` candidate segments (``length``; ``seg``: p's
    x, y, q's x, y) that crosses none of ``corners[blockers]``, the earliest of equal
    ones, into ``pq``; inf when every one crosses. One pass, testing only candidates
    shorter than the best clear one so far: no sort (a blocked pair tests them all)."""
    best = np.inf
    last = blockers[0]  # the base that crossed the last line, likeliest to cross the next
    for k in range(count):
        if not length[k] < best:
            continue
        px, py, qx, qy = seg[k, 0], seg[k, 1], seg[k, 2], seg[k, 3]
        clear = not _crosses(px, py, qx, qy, corners, last)
        if clear:
            for b in blockers:
                if b != last and _crosses(px, py, qx, qy, corners, b):
                    clear, last = False, b
                    break
        if clear:
            best = length[k]
            pq[0], pq[1], pq[2], pq[3] = px, py, qx, qy
    return best


@njit(cache=True, inline="always", error_model="numpy")
def _add(
    length: np.ndarray,
    seg: np.ndarray,
    n: int,
    sx: float,
    sy: float,
    tx: float,
    ty: float,
    a1x: float,
    a1y: float,
    a2x: float,
    a2y: float,
    frames: np.ndarray,
    ia: int,
    ib: int,
    limit: float,
) -> int:
    """Add the gap on the line from ``s`` through ``t`` as candidate ``n`` if it is one
    (the line meets both outlines apart, past the anchors) shorter than ``limit``."""
    good, px, py, qx, qy = _gap(sx, sy, tx, ty, a1x, a1y, a2x, a2y, frames, ia, ib)
    if not good:
        return n
    d = math.sqrt((qx - px) ** 2 + (qy - py) ** 2)
    if not d < limit:
        return n
    length[n] = d
    seg[n, 0], seg[n, 1], seg[n, 2], seg[n, 3] = px, py, qx, qy
    return n + 1


@njit(cache=True, error_model="numpy")
def _search(
    ia: int,
    ib: int,
    blockers: np.ndarray,
    corners: np.ndarray,
    frames: np.ndarray,
    kk: np.ndarray,
    pq: np.ndarray,
) -> float:
    """The shortest segment from outline ``ia`` to ``ib`` crossing none of ``blockers``,
    its nearest segment being crossed: its length (inf if none), its ends into ``pq``.
    ``kk``: room for the corners a line may graze."""
    pa, pb = corners[ia], corners[ib]
    planes_a, planes_b = _halfplanes(pa), _halfplanes(pb)
    ends = np.empty((8, 2))
    ends[:4], ends[4:] = pa, pb
    # The corners a line may graze, as rows of kk (x, y, the previous corner's x, y, the
    # next one's, whether a line may start there): the bases' own, then where their
    # edges cross A's or B's.
    nc = 0
    for b in blockers:
        rect = corners[b]
        for c in range(4):
            if _may_graze(rect, c, pa, pb, planes_a, planes_b):
                prev, nxt = (c + 3) % 4, (c + 1) % 4
                kk[nc, 0], kk[nc, 1] = rect[c, 0], rect[c, 1]
                kk[nc, 2], kk[nc, 3] = rect[prev, 0], rect[prev, 1]
                kk[nc, 4], kk[nc, 5] = rect[nxt, 0], rect[nxt, 1]
                kk[nc, 6] = 0.0
                nc += 1
    for side in range(2):
        outline = pa if side == 0 else pb
        for b in blockers:
            rect = corners[b]
            if _boxes_apart(rect, outline):
                continue
            for e in range(4):
                for o in range(4):
                    t = _edge_crossing(rect, e, outline, o)
                    if not np.isnan(t):
                        f = (e + 1) % 4
                        kk[nc, 0] = rect[e, 0] + t * (rect[f, 0] - rect[e, 0])
                        kk[nc, 1] = rect[e, 1] + t * (rect[f, 1] - rect[e, 1])
                        kk[nc, 2], kk[nc, 3] = rect[e, 0], rect[e, 1]
                        kk[nc, 4], kk[nc, 5] = rect[f, 0], rect[f, 1]
                        kk[nc, 6] = 1.0
                        nc += 1
    for g in range(nc):
        if _holds(kk[g, 0], kk[g, 1], planes_a) or _holds(kk[g, 0], kk[g, 1], planes_b):
            kk[g, 6] = 1.0
    # Lines of the first kind (two constraints): corner to corner of A and B, an end's
    # corner through a grazed corner, along a base's edges, through two grazed corners.
    size = 16 + 10 * nc + nc * (nc - 1) // 2
    length, seg = np.empty(size), np.empty((size, 4))
    nan, inf = np.nan, np.inf
    n = 0
    for i in range(4):
        for j in range(4, 8):
            dx, dy = ends[j, 0] - ends[i, 0], ends[j, 1] - ends[i, 1]
            if _leaves(ends, i, dx, dy) and _leaves(ends, j, -dx, -dy):
                sx, sy, tx, ty = ends[i, 0], ends[i, 1], ends[j, 0], ends[j, 1]
                n = _add(length, seg, n, sx, sy, tx, ty, nan, nan, nan, nan, frames, ia, ib, inf)
    for g in range(nc):
        cx, cy = kk[g, 0], kk[g, 1]
        for v in range(8):
            dx, dy = cx - ends[v, 0], cy - ends[v, 1]
            if _leaves(ends, v, dx, dy) and _one_side(kk, g, dx, dy):
                sx, sy = ends[v, 0], ends[v, 1]
                n = _add(length, seg, n, sx, sy, cx, cy, cx, cy, cx, cy, frames, ia, ib, inf)
    for col in (4, 2):  # along the edge to the next corner, then to the previous one
        for g in range(nc):
            cx, cy, tx, ty = kk[g, 0], kk[g, 1], kk[g, col], kk[g, col + 1]
            n = _add(length, seg, n, cx, cy, tx, ty, nan, nan, nan, nan, frames, ia, ib, inf)
    for g in range(nc):
        cx, cy = kk[g, 0], kk[g, 1]
        for h in range(g + 1, nc):
            dx, dy = kk[h, 0] - cx, kk[h, 1] - cy
            if _one_side(kk, g, dx, dy) and _one_side(kk, h, dx, dy):
                tx, ty = kk[h, 0], kk[h, 1]
                n = _add(length, seg, n, cx, cy, tx, ty, cx, cy, tx, ty, frames, ia, ib, inf)
    best = _shortest_clear(length, seg, n, corners, blockers, pq)
    if best == np.inf:
        return best
    # Lines of the second kind (one constraint, shortest along it), only those shorter
    # than the best: a corner to its foot on an edge of the other outline, or through a
    # grazed corner at the angle where the gap is least.
    size = 32 + 16 * nc
    length, seg = np.empty(size), np.empty((size, 4))
    n = 0
    for side in range(2):
        src, dst = (pa, pb) if side == 0 else (pb, pa)
        for i in range(4):
            for e in range(4):
                sx, sy = dst[e, 0], dst[e, 1]
                tx, ty = dst[(e + 1) % 4, 0] - sx, dst[(e + 1) % 4, 1] - sy
                rx, ry = src[i, 0] - sx, src[i, 1] - sy
                t = min(max((rx * tx + ry * ty) / max(tx * tx + ty * ty, 1e-300), 0.0), 1.0)
                fx, fy = sx + t * tx, sy + t * ty
                cx, cy = src[i, 0], src[i, 1]
                n = _add(length, seg, n, cx, cy, fx, fy, nan, nan, nan, nan, frames, ia, ib, best)
    for g in range(nc):
        cx, cy = kk[g, 0], kk[g, 1]
        # Through c the gap is at least c's distances to the two outlines: a corner that
        # far cannot better the best (a hair of room for rounding).
        reach = _outline_distance(cx, cy, pa, planes_a) + _outline_distance(cx, cy, pb, planes_b)
        if not reach * (1 - 1e-12) - 1e-12 < best:
            continue
        for ea in range(4):
            h_a = planes_a[ea, 2] - (planes_a[ea, 0] * cx + planes_a[ea, 1] * cy)
            if not h_a >= -1e-12:
                continue
            phi = math.atan2(-planes_a[ea, 1], -planes_a[ea, 0])
            for eb in range(4):
                h_b = planes_b[eb, 2] - (planes_b[eb, 0] * cx + planes_b[eb, 1] * cy)
                if not h_b >= -1e-12:
                    continue
                # Along any direction the gap between the two edges' lines is at least
                # the sum of c's heights above them (secants are at least 1): the line
                # cannot better the best unless that sum does.
                h1, h2 = max(h_a, 0.0), max(h_b, 0.0)
                if not (h1 + h2) * (1 - 1e-12) - 1e-12 < best:
                    continue
                delta = (math.atan2(planes_b[eb, 1], planes_b[eb, 0]) - phi + math.pi) % (
                    2 * math.pi
                ) - math.pi
                if not abs(delta) < math.pi - 1e-6:
                    continue
                ux, uy = _turning_point(h1, h2, phi, delta)
                tx, ty = cx + ux, cy + uy
                if _one_side(kk, g, tx - cx, ty - cy):
                    n = _add(length, seg, n, cx, cy, tx, ty, cx, cy, cx, cy, frames, ia, ib, best)
    pq2 = np.empty(4)
    better = _shortest_clear(length, seg, n, corners, blockers, pq2)
    if better < best:
        pq[:] = pq2
        return better
    return best


@njit(cache=True, inline="always", error_model="numpy")
def _boxes_meet(lo: np.ndarray, hi: np.ndarray, i: int, j: int) -> bool:
    """Whether the bounding boxes of outlines ``i`` and ``j`` meet (else the outlines are
    apart, and a corner and its foot are their nearest points)."""
    x = lo[i, 0] <= hi[j, 0] and lo[j, 0] <= hi[i, 0]
    return x and lo[i, 1] <= hi[j, 1] and lo[j, 1] <= hi[i, 1]


@njit(cache=True, error_model="numpy")
def clear_pairs(
    corners: np.ndarray,
    live: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    frames: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`referee.rules.clearance._clear_pair_segments`: for each pair
    ``corners[first[k]]``, ``corners[second[k]]`` the shortest segment between them
    that crosses none of the ``live`` bases but their own, as ``(lengths, p, q)``
    (inf and NaN where every one crosses). ``frames``: each outline's
    :func:`referee.rules.clearance._frames` as rows."""
    m, count = len(first), len(corners)
    out = np.full(m, np.inf)
    p, q = np.full((m, 2), np.nan), np.full((m, 2), np.nan)
    lo, hi, mid = np.empty((count, 2)), np.empty((count, 2)), np.empty((count, 2))
    for k in range(count):
        for a in range(2):
            lo[k, a], hi[k, a] = corners[k, :, a].min(), corners[k, :, a].max()
            c = corners[k, :, a]
            mid[k, a] = (((c[0] + c[1]) + c[2]) + c[3]) / 4
    pool, key = np.empty(count, np.intp), np.empty(count)
    pq = np.empty(4)
    kk = np.empty((20 * count, 7))  # a base's 4 corners, and 8 crossings with each outline
    for k in range(m):
        i, j = first[k], second[k]
        pa, pb = corners[i], corners[j]
        # The bases that can cut a line between the two: in the box around both, and
        # across the band they span along the normal of the line joining their centres.
        nx, ny = -(mid[j, 1] - mid[i, 1]), mid[j, 0] - mid[i, 0]
        b_lo, b_hi, big = np.inf, -np.inf, 0.0
        for poly in (pa, pb):
            for v in range(4):
                s = poly[v, 0] * nx + poly[v, 1] * ny
                b_lo, b_hi, big = min(b_lo, s), max(b_hi, s), max(big, abs(s))
        slack = 1e-9 * (1.0 + big)
        b_lo, b_hi = b_lo - slack, b_hi + slack
        box_lo = np.minimum(lo[i], lo[j])
        box_hi = np.maximum(hi[i], hi[j])
        nb = 0
        for b in range(count):
            if not live[b] or b in (i, j):
                continue
            if hi[b, 0] < box_lo[0] or hi[b, 1] < box_lo[1]:
                continue
            if lo[b, 0] > box_hi[0] or lo[b, 1] > box_hi[1]:
                continue
            s_lo, s_hi = np.inf, -np.inf
            for v in range(4):
                s = corners[b, v, 0] * nx + corners[b, v, 1] * ny
                s_lo, s_hi = min(s_lo, s), max(s_hi, s)
            if s_hi > b_lo and s_lo < b_hi:
                # Nearest the line between the centres first: the likeliest to cut.
                d = _point_seg(mid[b, 0], mid[b, 1], mid[i, 0], mid[i, 1], mid[j, 0], mid[j, 1])
                at = nb
                while at > 0 and key[at - 1] > d:
                    pool[at], key[at] = pool[at - 1], key[at - 1]
                    at -= 1
                pool[at], key[at] = b, d
                nb += 1
        blockers = pool[:nb]
        nearest = _nearest_points(pa, pb, pq)
        crossed = False
        for b in blockers:
            if _crosses(pq[0], pq[1], pq[2], pq[3], corners, b):
                crossed = True
                break
        nearest = _distance(pa, pb) if _boxes_meet(lo, hi, i, j) else nearest
        if not crossed or nearest == 0:  # overlapping outlines are 0 apart, whatever lies about
            out[k] = nearest
            if nearest == 0:
                _common_point(pa, pb, pq)
            p[k, 0], p[k, 1], q[k, 0], q[k, 1] = pq[0], pq[1], pq[2], pq[3]
            continue
        # One base that every corner-to-corner line crosses blocks every line: the bases
        # are convex, so a line between two crossed ones crosses too.
        walled = False
        for b in blockers:
            walled = True
            for line in range(16):
                u, w = line // 4, line % 4
                if not _crosses(pa[u, 0], pa[u, 1], pb[w, 0], pb[w, 1], corners, b):
                    walled = False
                    break
            if walled:
                break
        if walled:
            continue
        out[k] = _search(i, j, blockers, corners, frames, kk, pq)
        if out[k] < np.inf:
            p[k, 0], p[k, 1], q[k, 0], q[k, 1] = pq[0], pq[1], pq[2], pq[3]
    return out, p, q
