"""Papercraft's clear line (:mod:`referee.maps.clearance`, which explains the candidates)
pair by pair, as one compiled loop (numba).

numpy had to carry every pair through every step of the search in lock step (the bases
near each pair, its nearest segment, the corners a line may graze, every candidate
line's gap, sorted by length), and index and gather at each. Here each pair stops as
soon as it is settled: its nearest segment is clear, one base crosses every corner-to-
corner line, or the shortest candidate left crosses no base.

Each search runs past only a few of the bases near the pair, adding a base only when it
crosses the answer (rarely more than one or two: a blocked pair is most often blocked
by two bases together), and lines are left out wherever a bound shows they cannot
better the best so far: through a grazed corner, a gap is at least the corner's
distances to the two outlines; a line of the second kind is one only where it leaves
and meets the edges it was drawn for. What a pair's earlier steps found is not found
again: the corner-to-corner lines the masks show crossed are left out, and so are the
lines from a corner of A or B that one base hides from the other outline, and those
through a grazed corner a base hides.

The table is laid out once per map (:func:`pair_layout`: boxes, a bitset index of them
strip by strip, from which each pair reads the cells its corridor crosses, every base's
slabs for the crossing test), and threads may each take every n-th pair
(:func:`clear_pairs_into` runs without the GIL).

Small fixed-size values (an outline's corners, its half-planes, a corner's neighbours)
travel as tuples, and the loops that write candidates do so themselves: a view of an
array, choosing between two arrays in a loop, or passing one to a helper each time
cost a pair of atomic reference counts, which cost more than the tests themselves. The
search now runs without reference counts at all (:func:`clear_pairs_into` says why), so
it allocates nothing: its work arrays come from outside it.

Only the mid-sized helpers of the inner loops are inlined by numba; the small ones are
left to LLVM. numba's own inlining retypes a function at every call site, and the first
map after installing compiled for 40 s with everything inlined (under half a minute
now, then cached).

The tests and tolerances are those of the numpy search this replaced. Whether a corner
may be grazed is now judged without angles (cross products: the trigonometry cost more
than the rest of the search), with margins that keep a corner when in doubt: a corner
too many only adds candidate lines, each a real segment tested like the others.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from referee.runtime import compiled_loops

if TYPE_CHECKING:
    from referee.maps.clearance import ClearLines, ClearPairs

compiled_loops(__name__, "Papercraft's line search")

_UNCOUNTED: dict[str, Any] = {"_nrt": False}
"""numba's option (private, but there since its runtime was) to compile a function
without reference counts, so without allocating: see :func:`clear_pairs_into`."""

_EPS = 1e-9  # referee.geometry.EPS: touching, for the overlap test of the distance
_TOL = 1e-9  # slack on line parameters (fractions of a candidate line's defining span)

Quad = tuple[float, float, float, float]
"""The x (or y) of an outline's four corners."""
Ends = tuple[float, float, float, float, float, float, float, float]
"""The x (or y) of A's four corners, then B's."""


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _crosses(px: float, py: float, qx: float, qy: float, rx: Quad, ry: Quad) -> bool:
    """Whether segment ``p``-``q`` enters the open interior of the rectangle with corners
    ``rx``, ``ry`` (in order): :func:`referee.maps.clearance.segments_cross_rectangles`'
    test (separating axes; touching does not count), with its arithmetic."""
    return _enters(px, py, qx, qy, rx, ry, _slabs(rx, ry))


Slabs = tuple[float, float, float, float, float, float, float, float]
"""A base's first two edge vectors (x, y each), then the extent of its corners along each,
shrunk by the crossing test's tolerance (low, high): what :func:`_crosses` works out
from the base alone, for many segments at once."""


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _slabs(rx: Quad, ry: Quad) -> Slabs:
    """The base with corners ``rx``, ``ry`` as :data:`Slabs`, with :func:`_crosses`'
    arithmetic."""
    ex0, ey0, ex1, ey1 = rx[1] - rx[0], ry[1] - ry[0], rx[2] - rx[1], ry[2] - ry[1]
    lo0, hi0, lo1, hi1 = np.inf, -np.inf, np.inf, -np.inf
    for c in range(4):
        r = rx[c] * ex0 + ry[c] * ey0
        lo0, hi0 = min(lo0, r), max(hi0, r)
        r = rx[c] * ex1 + ry[c] * ey1
        lo1, hi1 = min(lo1, r), max(hi1, r)
    lo0, hi0 = lo0 + _EPS * (1 + abs(lo0)), hi0 - _EPS * (1 + abs(hi0))
    lo1, hi1 = lo1 + _EPS * (1 + abs(lo1)), hi1 - _EPS * (1 + abs(hi1))
    return ex0, ey0, ex1, ey1, lo0, hi0, lo1, hi1


@njit(cache=True, error_model="numpy")
def base_slabs(corners: np.ndarray) -> np.ndarray:
    """Every base's :data:`Slabs` as a row (``(k, 8)``), for a whole map at once: they
    depend on the base alone, and every crossing test of a pair reads them."""
    slabs = np.empty((len(corners), 8))
    for k in range(len(corners)):
        rx, ry = _quad_at(corners, k)
        row = _slabs(rx, ry)
        for c in range(8):
            slabs[k, c] = row[c]
    return slabs


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _slab_at(slabs: np.ndarray, k: int) -> Slabs:
    """Row ``k`` of :func:`base_slabs` as a tuple (no view of the array)."""
    return (
        slabs[k, 0],
        slabs[k, 1],
        slabs[k, 2],
        slabs[k, 3],
        slabs[k, 4],
        slabs[k, 5],
        slabs[k, 6],
        slabs[k, 7],
    )


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _enters(px: float, py: float, qx: float, qy: float, rx: Quad, ry: Quad, slabs: Slabs) -> bool:
    """:func:`_crosses` of segment ``p``-``q`` and the base with corners ``rx``, ``ry``
    (its :data:`Slabs` worked out once), with its arithmetic."""
    ex0, ey0, ex1, ey1, lo0, hi0, lo1, hi1 = slabs
    # Every test taken and combined, not returned from one by one: where a test fails is
    # a coin toss, and the branches mispredicted more than the tests cost.
    sp0, sq0 = px * ex0 + py * ey0, qx * ex0 + qy * ey0
    sp1, sq1 = px * ex1 + py * ey1, qx * ex1 + qy * ey1
    ok = (max(sp0, sq0) > lo0) & (min(sp0, sq0) < hi0)
    ok &= (max(sp1, sq1) > lo1) & (min(sp1, sq1) < hi1)
    nx, ny = py - qy, qx - px
    s0 = px * nx + py * ny
    tol = _EPS * (1 + abs(s0))
    rr0 = nx * rx[0] + ny * ry[0]
    rr1 = nx * rx[1] + ny * ry[1]
    rr2 = nx * rx[2] + ny * ry[2]
    rr3 = nx * rx[3] + ny * ry[3]
    ok &= max(max(rr0, rr1), max(rr2, rr3)) > s0 + tol
    ok &= min(min(rr0, rr1), min(rr2, rr3)) < s0 - tol
    return bool(ok)


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _corner_lines_crossed(corners: np.ndarray, slabs: np.ndarray, i: int, j: int, b: int) -> int:
    """Which of the 16 segments from a corner of outline ``i`` to one of ``j`` (bit ``4 u
    + w``: corner ``u`` to corner ``w``) enter base ``b``: :func:`_crosses` of each, with
    its arithmetic, from the base's :data:`Slabs` (``slabs``: :func:`base_slabs`)."""
    rx, ry = _quad_at(corners, b)
    slab = _slab_at(slabs, b)
    mask = 0
    for u in range(4):
        px, py = corners[i, u, 0], corners[i, u, 1]
        for w in range(4):
            crossed = _enters(px, py, corners[j, w, 0], corners[j, w, 1], rx, ry, slab)
            mask |= int(crossed) << (4 * u + w)
    return mask


Frame = tuple[float, float, float, float, float, float, float, float]
"""A rectangle as a tuple (no array, so no reference counts in the loops that pass it):
its centre's x and y, then for each of its first two edges its unit direction's x and y
and half the rectangle's size along it."""


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _frame(frames: np.ndarray, k: int) -> Frame:
    """Column ``k`` of :func:`referee.maps.clearance._frames`' columns as rows."""
    return (
        frames[0, k],
        frames[1, k],
        frames[2, k],
        frames[3, k],
        frames[4, k],
        frames[5, k],
        frames[6, k],
        frames[7, k],
    )


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _chord(
    sx: float, sy: float, vx: float, vy: float, vv: float, frame: Frame
) -> tuple[float, float]:
    """``(t0, t1)`` where line ``s + t v`` (``vv``: the square of the length of ``v``)
    enters and leaves the rectangle of ``frame`` (:func:`_frame`); ``t0 > t1`` when it
    misses."""
    t0, t1 = -np.inf, np.inf
    rx, ry = sx - frame[0], sy - frame[1]
    for a in range(2):
        ux, uy, half = frame[2 + 3 * a], frame[3 + 3 * a], frame[4 + 3 * a]
        s = rx * ux + ry * uy
        w = vx * ux + vy * uy
        if w * w <= 1e-24 * vv:  # along the slab: all of the line or none of it
            if abs(s) > half + 1e-9:
                return np.inf, -np.inf
        else:
            per = 1 / w  # one division, not two
            lo, hi = (-half - s) * per, (half - s) * per
            t0 = max(t0, min(lo, hi))
            t1 = min(t1, max(lo, hi))
    return t0, t1


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _cross(ux: float, uy: float, vx: float, vy: float) -> float:
    return ux * vy - uy * vx


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _point_seg(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """:func:`referee.geometry._point_seg_dist` of one point and segment."""
    abx, aby = bx - ax, by - ay
    apx, apy = px - ax, py - ay
    denom = abx * abx + aby * aby
    t = 0.0
    if denom > 0:
        t = min(max((apx * abx + apy * aby) / denom, 0.0), 1.0)
    return math.sqrt((apx - t * abx) ** 2 + (apy - t * aby) ** 2)


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _orient(ox: float, oy: float, ax: float, ay: float, bx: float, by: float) -> float:
    """z of (a - o) x (b - o): :func:`referee.geometry._cross`."""
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _on_box(ax: float, ay: float, bx: float, by: float, px: float, py: float) -> bool:
    return (
        min(ax, bx) - _EPS <= px <= max(ax, bx) + _EPS
        and min(ay, by) - _EPS <= py <= max(ay, by) + _EPS
    )


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
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


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
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


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
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


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _nearest_points(
    ax: Quad, ay: Quad, bx: Quad, by: Quad, frame_a: Frame, frame_b: Frame
) -> tuple[float, float, float, float, float]:
    """``(distance, p's x, y, q's x, y)``: a point of each of two rectangles apart
    (corners ``ax``, ``ay`` and ``bx``, ``by``; frames ``frame_a``, ``frame_b``)
    nearest the other, a corner of one and the nearest point of the other to it (the
    first such, corner by corner, from A's first). A corner's nearest point of a
    rectangle is the corner clamped to it in the rectangle's own frame: one clamp per
    corner, not a foot on each of four edges."""
    best, px, py, qx, qy = np.inf, 0.0, 0.0, 0.0, 0.0
    for side in range(2):
        src_x, src_y, frame = (ax, ay, frame_b) if side == 0 else (bx, by, frame_a)
        mx, my, ux, uy, hu, vx, vy, hv = frame
        gap, cx, cy, fx, fy = np.inf, 0.0, 0.0, 0.0, 0.0
        for i in range(4):
            rx, ry = src_x[i] - mx, src_y[i] - my
            su, sv = rx * ux + ry * uy, rx * vx + ry * vy
            tu, tv = min(max(su, -hu), hu), min(max(sv, -hv), hv)
            g = (su - tu) ** 2 + (sv - tv) ** 2  # squared, to choose the nearest
            if g < gap:
                gap, cx, cy = g, src_x[i], src_y[i]
                fx, fy = mx + tu * ux + tv * vx, my + tu * uy + tv * vy
        gap = math.sqrt((fx - cx) ** 2 + (fy - cy) ** 2)  # the distance of the very ends
        if side == 0:
            best, px, py, qx, qy = gap, cx, cy, fx, fy
        elif gap < best:
            best, px, py, qx, qy = gap, fx, fy, cx, cy
    return best, px, py, qx, qy


Planes = tuple[float, float, float, float, float, float, float, float, float, float, float, float]
"""A convex outline of four corners as half-planes: for each edge its unit inward
normal's x and y and its offset, inside where ``n . x >= o`` for all four."""


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _plane(ax: float, ay: float, bx: float, by: float, sign: float) -> tuple[float, float, float]:
    nx, ny = sign * -(by - ay), sign * (bx - ax)
    size = max(math.sqrt(nx * nx + ny * ny), 1e-300)
    nx, ny = nx / size, ny / size
    return nx, ny, nx * ax + ny * ay


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _halfplanes(xs: Quad, ys: Quad) -> Planes:
    """The outline with corners ``xs``, ``ys`` (either winding) as :data:`Planes`."""
    area = 0.0
    for v in range(4):
        area += _cross(xs[v], ys[v], xs[(v + 1) % 4], ys[(v + 1) % 4])
    sign = -1.0 if area < 0 else 1.0
    n0x, n0y, o0 = _plane(xs[0], ys[0], xs[1], ys[1], sign)
    n1x, n1y, o1 = _plane(xs[1], ys[1], xs[2], ys[2], sign)
    n2x, n2y, o2 = _plane(xs[2], ys[2], xs[3], ys[3], sign)
    n3x, n3y, o3 = _plane(xs[3], ys[3], xs[0], ys[0], sign)
    return (n0x, n0y, o0, n1x, n1y, o1, n2x, n2y, o2, n3x, n3y, o3)


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _holds(px: float, py: float, planes: Planes) -> bool:
    """Whether the point lies in or within a hair of the outline of ``planes``."""
    inside = True
    for v in range(4):
        nx, ny, o = planes[3 * v], planes[3 * v + 1], planes[3 * v + 2]
        inside = inside and nx * px + ny * py - o >= -1e-9
    return inside


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _outside(px: float, py: float, planes: Planes) -> float:
    """How far the point lies beyond the farthest of the outline's edge lines (at most 0
    inside): at most its distance to the outline, and cheaper (no roots). Within a hair
    of 0 or below it, :func:`_holds` (the same floats, the other way round)."""
    far = -np.inf
    for v in range(4):
        far = max(far, planes[3 * v + 2] - (planes[3 * v] * px + planes[3 * v + 1] * py))
    return far


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _quad_at(corners: np.ndarray, k: int) -> tuple[Quad, Quad]:
    """Outline ``k``'s corners as tuples of x and of y (no view of the array)."""
    return (
        (corners[k, 0, 0], corners[k, 1, 0], corners[k, 2, 0], corners[k, 3, 0]),
        (corners[k, 0, 1], corners[k, 1, 1], corners[k, 2, 1], corners[k, 3, 1]),
    )


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _common_point(corners: np.ndarray, i: int, j: int, pq: np.ndarray) -> None:
    """A point of touching or overlapping outlines ``i`` and ``j`` into ``pq`` (both
    ends): a corner of one in or on the other, else where two edges cross (NaN if
    none)."""
    (ax, ay), (bx, by) = _quad_at(corners, i), _quad_at(corners, j)
    for side in range(2):
        sx, sy, planes = (
            (ax, ay, _halfplanes(bx, by)) if side == 0 else (bx, by, _halfplanes(ax, ay))
        )
        for v in range(4):
            if _holds(sx[v], sy[v], planes):
                pq[0] = pq[2] = sx[v]
                pq[1] = pq[3] = sy[v]
                return
    for e in range(4):
        for o in range(4):
            t = _edge_crossing(ax, ay, e, bx, by, o)
            if not math.isnan(t):
                x = ax[e] + t * (ax[(e + 1) % 4] - ax[e])
                y = ay[e] + t * (ay[(e + 1) % 4] - ay[e])
                pq[0], pq[1], pq[2], pq[3] = x, y, x, y
                return
    pq[:] = np.nan


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _boxes_apart(px: Quad, py: Quad, qx: Quad, qy: Quad) -> bool:
    """Whether the bounding boxes of two outlines are apart: no edges meet."""
    for xs, ys in ((px, qx), (py, qy)):
        p_lo, p_hi = (
            min(min(xs[0], xs[1]), min(xs[2], xs[3])),
            max(max(xs[0], xs[1]), max(xs[2], xs[3])),
        )
        q_lo, q_hi = (
            min(min(ys[0], ys[1]), min(ys[2], ys[3])),
            max(max(ys[0], ys[1]), max(ys[2], ys[3])),
        )
        if p_hi < q_lo or q_hi < p_lo:
            return True
    return False


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _edge_crossing(rx: Quad, ry: Quad, e: int, ox: Quad, oy: Quad, o: int) -> float:
    """Where edge ``e`` of outline ``rx``, ``ry`` properly crosses edge ``o`` of outline
    ``ox``, ``oy``, as the fraction along the first; NaN where they do not."""
    f, g = (e + 1) % 4, (o + 1) % 4
    d1x, d1y = rx[f] - rx[e], ry[f] - ry[e]
    d2x, d2y = ox[g] - ox[o], oy[g] - oy[o]
    wx, wy = ox[o] - rx[e], oy[o] - ry[e]
    den = d1x * d2y - d1y * d2x
    t = (wx * d2y - wy * d2x) / den
    s = (wx * d1y - wy * d1x) / den
    inner = 1e-9
    if t > inner and t < 1 - inner and s > inner and s < 1 - inner:
        return t
    return np.nan


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _cone(xs: Quad, ys: Quad, cx: float, cy: float, sign: float) -> Quad:
    """The clockwise-most and counter-clockwise-most of the directions ``sign (corner -
    c)`` to the four corners ``xs``, ``ys`` (c outside them: they lie within less than
    a half turn), as ``(lo x, lo y, hi x, hi y)``."""
    lox, loy = sign * (xs[0] - cx), sign * (ys[0] - cy)
    hix, hiy = lox, loy
    for v in range(1, 4):
        vx, vy = sign * (xs[v] - cx), sign * (ys[v] - cy)
        if _cross(lox, loy, vx, vy) < 0:
            lox, loy = vx, vy
        if _cross(hix, hiy, vx, vy) > 0:
            hix, hiy = vx, vy
    return lox, loy, hix, hiy


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _within(ux: float, uy: float, lox: float, loy: float, hix: float, hiy: float) -> bool:
    """Whether direction ``u`` lies in the cone from ``lo`` counter-clockwise to ``hi``
    (less than a half turn), edges included."""
    return _cross(lox, loy, ux, uy) >= 0 and _cross(ux, uy, hix, hiy) >= 0


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _cones_meet(first: Quad, second: Quad) -> bool:
    """Whether two cones of directions, each spanned by two (``(x, y, x, y)``) less than a
    half turn apart, share a direction; true when in doubt (a cone of a half turn or
    more, or within a hair of meeting)."""
    lox, loy, hix, hiy = first
    if _cross(lox, loy, hix, hiy) < 0:
        lox, loy, hix, hiy = hix, hiy, lox, loy
    mox, moy, nix, niy = second
    if _cross(mox, moy, nix, niy) < 0:
        mox, moy, nix, niy = nix, niy, mox, moy
    for ux, uy, vx, vy in ((lox, loy, hix, hiy), (mox, moy, nix, niy)):
        size = math.sqrt(ux * ux + uy * uy) * math.sqrt(vx * vx + vy * vy)
        if not _cross(ux, uy, vx, vy) > 1e-9 * size:
            return True  # too wide (or too thin) to judge
    return _within_roughly(mox, moy, lox, loy, hix, hiy) or _within_roughly(
        lox, loy, mox, moy, nix, niy
    )


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _within_roughly(ux: float, uy: float, lox: float, loy: float, hix: float, hiy: float) -> bool:
    """:func:`_within` with a margin of 1e-9 of the lengths: in doubt, within."""
    size = math.sqrt(ux * ux + uy * uy)
    tol_lo = 1e-9 * size * math.sqrt(lox * lox + loy * loy)
    tol_hi = 1e-9 * size * math.sqrt(hix * hix + hiy * hiy)
    return _cross(lox, loy, ux, uy) >= -tol_lo and _cross(ux, uy, hix, hiy) >= -tol_hi


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
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


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _may_graze(
    rx: Quad,
    ry: Quad,
    k: int,
    ends: tuple[Quad, Quad, Quad, Quad],
) -> bool:
    """Whether a segment from A to B (``ends``: A's x, y, B's x, y) can pass corner ``k``
    of base ``rx``, ``ry``, outside both, with the base on one side: the corner lies
    between the two (some direction from it to B is opposite one to A: it is in their
    hull), and the directions from A through it to B (a cone) are not all inside the
    corner's angle or its opposite, where the line would enter the base.
    Where in doubt it may: a corner too many only adds candidate lines."""
    cx, cy = rx[k], ry[k]
    # c outside both convex outlines: the directions to B's corners, and from A's, each
    # span less than a half turn; a line through c runs along both cones.
    b_lox, b_loy, b_hix, b_hiy = _cone(ends[2], ends[3], cx, cy, 1.0)
    a_lox, a_loy, a_hix, a_hiy = _cone(ends[0], ends[1], cx, cy, -1.0)
    if _within(b_lox, b_loy, a_lox, a_loy, a_hix, a_hiy):
        lox, loy = b_lox, b_loy
    elif _within(a_lox, a_loy, b_lox, b_loy, b_hix, b_hiy):
        lox, loy = a_lox, a_loy
    else:
        # The cones share no direction: no segment from A to B passes c (c is off
        # their hull), unless they are within a hair of one or too wide to judge.
        return _cones_meet((a_lox, a_loy, a_hix, a_hiy), (b_lox, b_loy, b_hix, b_hiy))
    if _within(b_hix, b_hiy, a_lox, a_loy, a_hix, a_hiy):
        hix, hiy = b_hix, b_hiy
    elif _within(a_hix, a_hiy, b_lox, b_loy, b_hix, b_hiy):
        hix, hiy = a_hix, a_hiy
    else:
        return True
    nxt, prev = (k + 1) % 4, (k + 3) % 4
    e1x, e1y = rx[nxt] - cx, ry[nxt] - cy
    e2x, e2y = rx[prev] - cx, ry[prev] - cy
    z = _cross(e1x, e1y, e2x, e2y)
    turn = 1.0 if z > 0 else (-1.0 if z < 0 else 0.0)
    at_lo = _strictly_inside(lox, loy, e1x, e1y, e2x, e2y, turn)
    return at_lo == 0 or at_lo != _strictly_inside(hix, hiy, e1x, e1y, e2x, e2y, turn)


Corner = tuple[float, float, float, float, float, float, float]
"""A corner a line may graze: its x and y, its neighbours' (the previous, the next), and
whether a line may start there (1.0) as it touches A or B."""


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _one_side(c: Corner, dx: float, dy: float) -> bool:
    """Whether a line along ``d`` may pass grazed corner ``c``: it starts there, or has
    both neighbouring corners on one side (or on it), touching the convex base there
    without entering it."""
    if c[6] != 0:
        return True
    px, py, nx, ny = c[2] - c[0], c[3] - c[1], c[4] - c[0], c[5] - c[1]
    s1, s2 = _cross(dx, dy, nx, ny), _cross(dx, dy, px, py)
    # The 1-norm for the length: a wider margin (a candidate too many does no harm).
    tol = 1e-12 * (abs(dx) + abs(dy)) * ((abs(nx) + abs(ny)) + (abs(px) + abs(py)))
    return (s1 >= -tol and s2 >= -tol) or (s1 <= tol and s2 <= tol)


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _leaves(ex: Ends, ey: Ends, v: int, dx: float, dy: float) -> bool:
    """Whether direction ``d`` from corner ``v`` of A and B's corners (``ex``, ``ey``)
    points out of its outline or along an edge: not strictly inside the corner's
    angle."""
    first = v - v % 4
    nxt, prev = first + (v + 1) % 4, first + (v + 3) % 4
    e1x, e1y = ex[nxt] - ex[v], ey[nxt] - ey[v]
    e2x, e2y = ex[prev] - ex[v], ey[prev] - ey[v]
    w = _cross(e1x, e1y, e2x, e2y)
    return not (_cross(e1x, e1y, dx, dy) * w > 0 and _cross(dx, dy, e2x, e2y) * w > 0)


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _mid_turn(lo: float, hi: float) -> float:
    """The tangent of the turn halfway between the turns whose tangents are ``lo`` and
    ``hi`` (each within a quarter turn): bisecting the angle, where halving the span of
    the tangents took some sixty steps from a bound near a quarter turn."""
    a, b = math.sqrt(1 + lo * lo), math.sqrt(1 + hi * hi)
    return (lo * b + hi * a) / (a + b)


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _turning_direction(
    h1: float, h2: float, n1x: float, n1y: float, c: float, s: float
) -> tuple[float, float]:
    """The direction (unit vector) through a corner at heights ``h1``, ``h2`` above two
    edges' lines along which the gap between the lines is shortest. ``n1``: the first
    line's outward unit normal; ``c``, ``s``: the cosine and sine of the turn from it to
    the second's.

    With ``t`` the tangent of the turn from ``n1``, the gap is ``sqrt(1 + t^2) (h1 + h2 /
    (c + t s))``, convex between the two normals (within a quarter turn of each), and
    least where the cubic ``h1 s^2 t^3 + 2 h1 c s t^2 + (h1 c^2 + h2 c) t - h2 s``
    (its slope, times a positive factor) is 0: a safeguarded Newton search for that root
    (falling back on bisecting the angle), without trigonometry (which cost more than
    the rest of the search)."""
    # Between the normals, and a hair (1e-9 of a turn) within a quarter turn of each,
    # where a secant is infinite.
    big = 1e9
    if s > 0:
        edge = -c / s + 1e-9 * (1 + (c / s) ** 2)
        lo, hi = (0.0 if c >= 0 else edge), (min(s / c, big) if c > 0 else big)
    elif s < 0:
        edge = -c / s - 1e-9 * (1 + (c / s) ** 2)
        lo, hi = (max(s / c, -big) if c > 0 else -big), (0.0 if c >= 0 else edge)
    else:
        lo = hi = 0.0
    if h2 == 0:
        t = min(max(0.0, lo), hi)
    elif h1 == 0:
        t = hi if s > 0 else lo
    else:
        a3, a2, a1, a0 = h1 * s * s, 2 * h1 * c * s, h1 * c * c + h2 * c, -h2 * s
        # Start along the normals' mean weighted by the heights (the turn h2 / (h1 + h2)
        # of the way, roughly), or halfway where that mean is past a quarter turn.
        mx, my = h1 + h2 * c, h2 * s  # in the frame of n1
        t = my / mx if mx > 0 else s / (1 + c)
        if not (t >= lo and t <= hi):
            t = _mid_turn(lo, hi)
        # The slope changes sign once: least at a bound where it does not change there
        # (a height of a hair: Newton's steps would creep up on the bound).
        if not ((a3 * hi + a2) * hi + a1) * hi + a0 > 0:
            lo = t = hi
        elif not ((a3 * lo + a2) * lo + a1) * lo + a0 < 0:
            hi = t = lo
        moved = before = hi - lo  # the last two steps' sizes
        for _ in range(100 if lo < hi else 0):
            g = ((a3 * t + a2) * t + a1) * t + a0
            if g < 0:
                lo = t
            elif g > 0:
                hi = t
            else:
                break
            slope = (3 * a3 * t + 2 * a2) * t + a1
            step = t - g / slope if slope > 0 else np.nan
            if abs(step - t) <= 1e-15 * (1 + abs(t)):  # settled (perhaps a hair past a bound)
                t = step if step >= lo and step <= hi else t
                break
            # Bisect where Newton leaves the bracket or the steps shrink slower than
            # bisection would (near a double root by a quarter turn: a height of a hair).
            if not (step > lo and step < hi and 2 * abs(step - t) <= abs(before)):
                step = _mid_turn(lo, hi)
            before, moved = moved, step - t
            if not abs(moved) > 1e-15 * (1 + abs(t)):
                t = step
                break
            t = step
    norm = math.sqrt(1 + t * t)
    return (n1x - t * n1y) / norm, (n1y + t * n1x) / norm


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _least_elsewhere(
    h1: float, h2: float, n1x: float, n1y: float, c: float, s: float, cone_a: Quad, cone_b: Quad
) -> bool:
    """Whether :func:`_turning_direction`'s direction (same arguments) lies beyond doubt
    outside the directions that leave A through its edge and meet B at its edge
    (``cone_a``: from the edge's ends to the corner, ``cone_b``: from the corner to the
    other edge's ends, each ``(x, y, x, y)``). There the line is no candidate of this
    kind, and the best along these two edges is a corner line: so the root need not be
    found. The slope's cubic changes sign once, so its signs at the ends of the
    directions shared by both cones say on which side the root lies."""
    if not (h1 > 0 and h2 > 0 and s != 0):
        return False
    lo, hi = -np.inf, np.inf  # the shared directions, as tangents of the turn from n1
    for d1x, d1y, d2x, d2y in (cone_a, cone_b):
        dot1, dot2 = n1x * d1x + n1y * d1y, n1x * d2x + n1y * d2y
        z1, z2 = n1x * d1y - n1y * d1x, n1x * d2y - n1y * d2x
        if dot1 > 0 and dot2 > 0:
            t1, t2 = z1 / dot1, z2 / dot2
            lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
        elif dot1 > 0 or dot2 > 0:  # past a quarter turn of n1 at one end
            inside = z1 / dot1 if dot1 > 0 else z2 / dot2
            ccw = _cross(d1x, d1y, d2x, d2y) > 0  # the cone turns from its first to second
            if ccw == (dot1 > 0):
                lo = max(lo, inside)
            else:
                hi = min(hi, inside)
        else:
            return False  # in doubt (the cones' own test rules this out)
    lo, hi = lo - 1e-9 * (1 + abs(lo)), hi + 1e-9 * (1 + abs(hi))
    if not lo <= hi:
        return True
    a3, a2, a1, a0 = h1 * s * s, 2 * h1 * c * s, h1 * c * c + h2 * c, -h2 * s
    if math.isfinite(hi) and ((a3 * hi + a2) * hi + a1) * hi + a0 < 0:
        return True  # still falling at the last shared direction
    return math.isfinite(lo) and ((a3 * lo + a2) * lo + a1) * lo + a0 > 0


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _shortest_clear(
    length: np.ndarray,
    seg: np.ndarray,
    count: int,
    corners: np.ndarray,
    slabs: np.ndarray,
    blockers: np.ndarray,
    best: float,
    pq: np.ndarray,
) -> float:
    """The shortest of the first ``count`` candidate segments (``length``; ``seg``: p's
    x, y, q's x, y) shorter than ``best`` that crosses none of ``corners[blockers]``
    (``slabs``: :func:`base_slabs`), the
    earliest of equal ones, into ``pq``; ``best`` when every one crosses. One pass,
    testing only candidates shorter than the best clear one so far: no sort (a blocked
    pair tests them all)."""
    last = blockers[0]  # the base that crossed the last line, likeliest to cross the next
    for k in range(count):
        if not length[k] < best:
            continue
        px, py, qx, qy = seg[k, 0], seg[k, 1], seg[k, 2], seg[k, 3]
        rx, ry = _quad_at(corners, last)
        clear = not _enters(px, py, qx, qy, rx, ry, _slab_at(slabs, last))
        if clear:
            for r in range(len(blockers)):  # by index: an array's iterator costs reference counts
                b = blockers[r]
                rx, ry = _quad_at(corners, b)
                if b != last and _enters(px, py, qx, qy, rx, ry, _slab_at(slabs, b)):
                    clear, last = False, b
                    break
        if clear:
            best = length[k]
            pq[0], pq[1], pq[2], pq[3] = px, py, qx, qy
    return best


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _candidate(
    sx: float,
    sy: float,
    tx: float,
    ty: float,
    a1x: float,
    a1y: float,
    a2x: float,
    a2y: float,
    frame_a: Frame,
    frame_b: Frame,
    limit: float,
) -> tuple[float, float, float, float, float]:
    """On the line from ``s`` through ``t``: the gap between outline A's chord and B's
    (rectangles of ``frame_a``, ``frame_b``) as ``(length, p on A, q on B)`` if it is a
    candidate shorter than ``limit``, else a length of inf. A candidate when the line
    meets both outlines apart and the anchors ``a1``, ``a2`` (NaN: none) lie on the gap.
    Scalars only: the callers write the candidates, as a helper passed the arrays would
    count references on every one."""
    vx, vy = tx - sx, ty - sy
    vv = vx * vx + vy * vy
    if not vv > 1e-24:
        return np.inf, sx, sy, sx, sy
    a0, a1 = _chord(sx, sy, vx, vy, vv, frame_a)
    if not (a0 <= a1 + _TOL and math.isfinite(a0) and math.isfinite(a1)):
        return np.inf, sx, sy, sx, sy
    b0, b1 = _chord(sx, sy, vx, vy, vv, frame_b)
    if not (b0 <= b1 + _TOL and math.isfinite(b0) and math.isfinite(b1)):
        return np.inf, sx, sy, sx, sy
    a_first = a1 <= b0 + _TOL
    if not (a_first or b1 <= a0 + _TOL):  # the chords overlap
        return np.inf, sx, sy, sx, sy
    ta = a1 if a_first else a0
    tb = b0 if a_first else b1
    lo, hi = min(ta, tb) - _TOL, max(ta, tb) + _TOL
    for ax, ay in ((a1x, a1y), (a2x, a2y)):
        if ax == ax:  # not NaN: an anchor
            t = ((ax - sx) * vx + (ay - sy) * vy) / vv
            if not (t >= lo and t <= hi):
                return np.inf, sx, sy, sx, sy
    px, py, qx, qy = sx + ta * vx, sy + ta * vy, sx + tb * vx, sy + tb * vy
    d = math.sqrt((qx - px) ** 2 + (qy - py) ** 2)
    if not d < limit:
        return np.inf, px, py, qx, qy
    return d, px, py, qx, qy


Outline = tuple[Quad, Quad, Quad, Quad, Ends, Ends, Planes, Planes, Frame, Frame]
"""The two outlines of a pair, A then B, in the forms the search reads: A's corners' x
and y, B's, both's x and both's y (:data:`Ends`), A's and B's half-planes and frames."""


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _hidden(
    cx: float,
    cy: float,
    ends: tuple[Quad, Quad, Quad, Quad],
    blockers: np.ndarray,
    corners: np.ndarray,
    slabs: np.ndarray,
) -> bool:
    """Whether one of ``blockers`` crosses each segment from ``c`` to a corner of A, or
    each to a corner of B (``ends``: A's x, y, B's x, y). Then it crosses every segment
    from ``c`` to that outline (the base is convex: it crosses a segment between two of
    its crossings, nearer ``c`` than the outline), so every gap through ``c``, which
    runs from A to ``c`` to B. Only for a corner off both outlines: from one on A, a
    gap may start at ``c``. :func:`_crosses`' test and arithmetic, from the bases'
    :data:`Slabs` (``slabs``: :func:`base_slabs`)."""
    for r in range(len(blockers)):
        rx, ry = _quad_at(corners, blockers[r])
        slab = _slab_at(slabs, blockers[r])
        for side in range(2):
            ox, oy = ends[2 * side], ends[2 * side + 1]
            every = True
            for v in range(4):
                if not _enters(cx, cy, ox[v], oy[v], rx, ry, slab):
                    every = False
                    break
            if every:
                return True
    return False


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _grazed(pair: Outline, blockers: np.ndarray, corners: np.ndarray, kk: np.ndarray) -> int:
    """Into the rows of ``kk``, the corners a line from A to B may graze (x, y, the
    previous corner's x, y, the next one's, whether a line may start there, and a lower
    bound of its distances to A and B summed, so of any gap through it): the bases' own,
    then where their edges cross A's or B's. Their count."""
    ax, ay, bx, by = pair[:4]
    planes_a, planes_b = pair[6], pair[7]
    ends = (ax, ay, bx, by)
    nc = 0
    for r in range(len(blockers)):
        rx, ry = _quad_at(corners, blockers[r])
        for c in range(4):
            far_a, far_b = _outside(rx[c], ry[c], planes_a), _outside(rx[c], ry[c], planes_b)
            starts = far_a <= 1e-9 or far_b <= 1e-9  # in or on A or B: a line may start there
            if starts or _may_graze(rx, ry, c, ends):
                prev, nxt = (c + 3) % 4, (c + 1) % 4
                kk[nc, 0], kk[nc, 1] = rx[c], ry[c]
                kk[nc, 2], kk[nc, 3] = rx[prev], ry[prev]
                kk[nc, 4], kk[nc, 5] = rx[nxt], ry[nxt]
                kk[nc, 6] = 1.0 if starts else 0.0
                # A gap through c is at least c's distances to the two outlines.
                kk[nc, 7] = max(far_a, 0.0) + max(far_b, 0.0)
                nc += 1
    for side in range(2):
        ox, oy = (ax, ay) if side == 0 else (bx, by)
        for r in range(len(blockers)):
            rx, ry = _quad_at(corners, blockers[r])
            if _boxes_apart(rx, ry, ox, oy):
                continue
            for e in range(4):
                for o in range(4):
                    t = _edge_crossing(rx, ry, e, ox, oy, o)
                    if not math.isnan(t):
                        f = (e + 1) % 4
                        ex, ey, fx, fy = rx[e], ry[e], rx[f], ry[f]
                        kk[nc, 0], kk[nc, 1] = ex + t * (fx - ex), ey + t * (fy - ey)
                        kk[nc, 2], kk[nc, 3], kk[nc, 4], kk[nc, 5] = ex, ey, fx, fy
                        kk[nc, 6] = 1.0
                        cx, cy = kk[nc, 0], kk[nc, 1]
                        far_a, far_b = _outside(cx, cy, planes_a), _outside(cx, cy, planes_b)
                        kk[nc, 7] = max(far_a, 0.0) + max(far_b, 0.0)
                        nc += 1
    return nc


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _free_lines(
    pair: Outline,
    kk: np.ndarray,
    nc: int,
    length: np.ndarray,
    seg: np.ndarray,
    crossed: int,
) -> int:
    """Into ``length`` and ``seg`` (p's x, y, q's x, y), the lines of the first kind (two
    constraints) that need not pass a grazed corner: corner to corner of A and B (but
    those ``crossed`` already names as crossed by the bases searched past: bit ``4 u +
    w`` for corner ``u`` of A to corner ``w`` of B), and along the edges of the grazed
    corners (``kk[:nc]``). Their count."""
    end_x, end_y, fa, fb = pair[4], pair[5], pair[8], pair[9]
    nan, inf = np.nan, np.inf
    n = 0
    for i in range(4):
        for j in range(4, 8):
            if crossed >> (4 * i + j - 4) & 1:
                continue
            dx, dy = end_x[j] - end_x[i], end_y[j] - end_y[i]
            if _leaves(end_x, end_y, i, dx, dy) and _leaves(end_x, end_y, j, -dx, -dy):
                sx, sy, tx, ty = end_x[i], end_y[i], end_x[j], end_y[j]
                d, px, py, qx, qy = _candidate(sx, sy, tx, ty, nan, nan, nan, nan, fa, fb, inf)
                if d < inf:
                    length[n], seg[n, 0], seg[n, 1], seg[n, 2], seg[n, 3] = d, px, py, qx, qy
                    n += 1
    for col in (4, 2):  # along the edge to the next corner, then to the previous one
        for g in range(nc):
            cx, cy, tx, ty = kk[g, 0], kk[g, 1], kk[g, col], kk[g, col + 1]
            d, px, py, qx, qy = _candidate(cx, cy, tx, ty, nan, nan, nan, nan, fa, fb, inf)
            if d < inf:
                length[n], seg[n, 0], seg[n, 1], seg[n, 2], seg[n, 3] = d, px, py, qx, qy
                n += 1
    return n


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _through_grazed(
    pair: Outline,
    kk: np.ndarray,
    nc: int,
    corners: np.ndarray,
    slabs: np.ndarray,
    blockers: np.ndarray,
    best: float,
    pq: np.ndarray,
    length: np.ndarray,
    seg: np.ndarray,
    hidden_ends: int,
) -> float:
    """The rest of the first kind, through grazed corners (an end's corner through one,
    through two), corner by corner: the shortest clear one shorter than ``best`` (else
    ``best``), its ends into ``pq``. A gap through a corner is no shorter than its
    distances to A and B, so the corners farther than the best found so far, and the
    lines through them, are left out; so are the corners a base hides from A or B,
    marked so (a bound of inf) for the search's later steps, and the lines from the
    corners of A and B that ``hidden_ends`` names (bit ``v``: corner ``v`` of A's and
    B's, a base crossing each line from it to the other outline's corners)."""
    end_x, end_y, fa, fb = pair[4], pair[5], pair[8], pair[9]
    ends = pair[:4]
    for g in range(nc):
        if not kk[g, 7] * (1 - 1e-9) - 1e-9 < best:
            continue
        cx, cy = kk[g, 0], kk[g, 1]
        if kk[g, 6] == 0 and _hidden(cx, cy, ends, blockers, corners, slabs):
            kk[g, 7] = np.inf
            continue
        cg = (cx, cy, kk[g, 2], kk[g, 3], kk[g, 4], kk[g, 5], kk[g, 6])
        n = 0
        for v in range(8):
            if hidden_ends >> v & 1:  # the gap would start there: crossed
                continue
            dx, dy = cx - end_x[v], cy - end_y[v]
            if _leaves(end_x, end_y, v, dx, dy) and _one_side(cg, dx, dy):
                sx, sy = end_x[v], end_y[v]
                d, px, py, qx, qy = _candidate(sx, sy, cx, cy, cx, cy, cx, cy, fa, fb, best)
                if d < best:
                    length[n], seg[n, 0], seg[n, 1], seg[n, 2], seg[n, 3] = d, px, py, qx, qy
                    n += 1
        for h in range(g):  # each pair once
            if kk[h, 7] == np.inf:  # hidden: no gap passes it
                continue
            dx, dy = kk[h, 0] - cx, kk[h, 1] - cy
            ch = (kk[h, 0], kk[h, 1], kk[h, 2], kk[h, 3], kk[h, 4], kk[h, 5], kk[h, 6])
            if _one_side(cg, dx, dy) and _one_side(ch, dx, dy):
                tx, ty = kk[h, 0], kk[h, 1]
                d, px, py, qx, qy = _candidate(cx, cy, tx, ty, cx, cy, tx, ty, fa, fb, best)
                if d < best:
                    length[n], seg[n, 0], seg[n, 1], seg[n, 2], seg[n, 3] = d, px, py, qx, qy
                    n += 1
        best = _shortest_clear(length, seg, n, corners, slabs, blockers, best, pq)
    return best


@njit(cache=True, inline="always", error_model="numpy", **_UNCOUNTED)
def _second_kind(
    pair: Outline, kk: np.ndarray, nc: int, best: float, length: np.ndarray, seg: np.ndarray
) -> int:
    """Into ``length`` and ``seg``, the lines of the second kind (one constraint, shortest
    along it) shorter than ``best``: a corner to its foot on an edge of the other
    outline, or through a grazed corner at the angle where the gap is least."""
    ax, ay, bx, by, _, _, planes_a, planes_b, fa, fb = pair
    nan, inf = np.nan, np.inf
    n = 0
    for side in range(2):
        src_x, src_y, dst_x, dst_y = (ax, ay, bx, by) if side == 0 else (bx, by, ax, ay)
        for i in range(4):
            for e in range(4):
                sx, sy = dst_x[e], dst_y[e]
                tx, ty = dst_x[(e + 1) % 4] - sx, dst_y[(e + 1) % 4] - sy
                wx, wy = src_x[i] - sx, src_y[i] - sy
                t = (wx * tx + wy * ty) / max(tx * tx + ty * ty, 1e-300)
                # Such a line is a candidate of its own only where the gap is the corner
                # to its foot inside the edge (one at an end is a corner-to-corner line),
                # so only where the corner is that close.
                if not (t > 0 and t < 1):
                    continue
                fx, fy = sx + t * tx, sy + t * ty
                cx, cy = src_x[i], src_y[i]
                if math.sqrt((fx - cx) ** 2 + (fy - cy) ** 2) * (1 - 1e-9) >= best:
                    continue
                d, px, py, qx, qy = _candidate(cx, cy, fx, fy, nan, nan, nan, nan, fa, fb, best)
                if d < inf:
                    length[n], seg[n, 0], seg[n, 1], seg[n, 2], seg[n, 3] = d, px, py, qx, qy
                    n += 1
    for g in range(nc):
        cx, cy = kk[g, 0], kk[g, 1]
        if not kk[g, 7] * (1 - 1e-12) - 1e-12 < best:
            continue  # no gap through it can better the best (a hair of room for rounding)
        cg = (cx, cy, kk[g, 2], kk[g, 3], kk[g, 4], kk[g, 5], kk[g, 6])
        for ea in range(4):
            h_a = planes_a[3 * ea + 2] - (planes_a[3 * ea] * cx + planes_a[3 * ea + 1] * cy)
            if not h_a >= -1e-12:
                continue
            n1x, n1y = -planes_a[3 * ea], -planes_a[3 * ea + 1]  # A's edge's outward normal
            for eb in range(4):
                h_b = planes_b[3 * eb + 2] - (planes_b[3 * eb] * cx + planes_b[3 * eb + 1] * cy)
                if not h_b >= -1e-12:
                    continue
                # Along any direction the gap between the two edges' lines is at least
                # the sum of c's heights above them (secants are at least 1): the line
                # cannot better the best unless that sum does.
                h1, h2 = max(h_a, 0.0), max(h_b, 0.0)
                if not (h1 + h2) * (1 - 1e-12) - 1e-12 < best:
                    continue
                # Only a line that leaves A through edge ea and meets B at edge eb is a
                # candidate of this kind (others are corner lines of the first kind).
                fa_, fb_ = (ea + 1) % 4, (eb + 1) % 4
                if not _cones_meet(
                    (cx - ax[ea], cy - ay[ea], cx - ax[fa_], cy - ay[fa_]),
                    (bx[eb] - cx, by[eb] - cy, bx[fb_] - cx, by[fb_] - cy),
                ):
                    continue
                n2x, n2y = planes_b[3 * eb], planes_b[3 * eb + 1]
                c, s = n1x * n2x + n1y * n2y, _cross(n1x, n1y, n2x, n2y)
                if c < 0 and abs(s) < 1e-6:  # the normals a half turn apart, give or take
                    continue
                if _least_elsewhere(
                    h1,
                    h2,
                    n1x,
                    n1y,
                    c,
                    s,
                    (cx - ax[ea], cy - ay[ea], cx - ax[fa_], cy - ay[fa_]),
                    (bx[eb] - cx, by[eb] - cy, bx[fb_] - cx, by[fb_] - cy),
                ):
                    continue
                ux, uy = _turning_direction(h1, h2, n1x, n1y, c, s)
                tx, ty = cx + ux, cy + uy
                if _one_side(cg, tx - cx, ty - cy):
                    d, px, py, qx, qy = _candidate(cx, cy, tx, ty, cx, cy, cx, cy, fa, fb, best)
                    if d < inf:
                        length[n], seg[n, 0], seg[n, 1], seg[n, 2], seg[n, 3] = d, px, py, qx, qy
                        n += 1
    return n


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _search(
    ia: int,
    ib: int,
    blockers: np.ndarray,
    corners: np.ndarray,
    slabs: np.ndarray,
    frames: np.ndarray,
    kk: np.ndarray,
    scratch: tuple[np.ndarray, np.ndarray],
    pq: np.ndarray,
    crossed: int,
    hidden_ends: int,
) -> float:
    """The shortest segment from outline ``ia`` to ``ib`` (apart) crossing none of
    ``blockers`` (``crossed``: the corner-to-corner lines they are known to cross, left
    out, as :func:`_corner_lines_crossed`'s bits; ``hidden_ends``: the corners of A and
    B one of them hides from the other outline, as :func:`_hidden_ends`' bits): its
    length (inf if none), its ends into ``pq``. ``kk``: room for the corners a line may
    graze; ``scratch``: room for candidate lengths and segments, reused from pair to pair
    (allocating them per search cost a few percent); minus the room needed where it is
    too short."""
    (ax, ay), (bx, by) = _quad_at(corners, ia), _quad_at(corners, ib)
    end_x = (ax[0], ax[1], ax[2], ax[3], bx[0], bx[1], bx[2], bx[3])
    end_y = (ay[0], ay[1], ay[2], ay[3], by[0], by[1], by[2], by[3])
    planes_a, planes_b = _halfplanes(ax, ay), _halfplanes(bx, by)
    pair = (
        ax,
        ay,
        bx,
        by,
        end_x,
        end_y,
        planes_a,
        planes_b,
        _frame(frames, ia),
        _frame(frames, ib),
    )
    nc = _grazed(pair, blockers, corners, kk)
    # Room for any kind's lines.
    size = max(16 + 10 * nc + nc * (nc - 1) // 2, 32 + 16 * nc)
    length, seg = scratch
    if size > len(length):
        return -float(size)
    # The lines free of grazed corners first: their best rules out the corners farther.
    n = _free_lines(pair, kk, nc, length, seg, crossed)
    best = _shortest_clear(length, seg, n, corners, slabs, blockers, np.inf, pq)
    best = _through_grazed(
        pair, kk, nc, corners, slabs, blockers, best, pq, length, seg, hidden_ends
    )
    if best == np.inf:
        return best
    n = _second_kind(pair, kk, nc, best, length, seg)
    return _shortest_clear(length, seg, n, corners, slabs, blockers, best, pq)


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _hidden_ends(mask: int) -> int:
    """The corners of A (bits 0-3) and of B (bits 4-7) from which one base crosses every
    corner-to-corner line (``mask``: that base's :func:`_corner_lines_crossed`), so
    every segment to the other outline (:func:`_hidden`'s reasoning)."""
    ends = 0
    for u in range(4):
        if mask >> (4 * u) & 15 == 15:  # corner u of A to each of B's
            ends |= 1 << u
        if mask >> u & 0x1111 == 0x1111:  # each of A's to corner u of B
            ends |= 1 << (4 + u)
    return ends


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _bits(m: int) -> int:
    """How many bits of ``m`` are set."""
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


_CELLS = 64
"""Cells along each axis of the index of bases' boxes (:func:`_strip_index`)."""
_DE_BRUIJN = 0x03F79D71B4CB0A89
_LOW_BIT = np.zeros(64, np.intp)
for _k in range(64):
    _LOW_BIT[(((1 << _k) * _DE_BRUIJN) % (1 << 64)) >> 58] = _k
_LOW_BIT.setflags(write=False)


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _low_bit(word: int) -> int:
    """The index of the lowest set bit of ``word`` (not 0): its de Bruijn product's top
    six bits name it (numba has no count of trailing zeros)."""
    low = word & -word
    return _LOW_BIT[((low * _DE_BRUIJN) >> 58) & 63]


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _cell(x: float, origin: float, scale: float) -> int:
    """The index cell of coordinate ``x``: monotone in ``x``, so a box's cells bound it."""
    return min(max(int((x - origin) * scale), 0), _CELLS - 1)


@njit(cache=True, error_model="numpy")
def _strip_index(
    lo: np.ndarray, hi: np.ndarray, live: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bitsets of the live bases (bit ``b % 64`` of word ``b // 64``) by the cells their
    boxes span, strip by strip: ``(started, unended, origin, scale)``, where
    ``started[a, r, c]`` holds the bases whose box meets strip ``r`` across axis ``a``
    (cell ``r`` along the other axis) and starts in cell ``c`` or before along axis
    ``a``, and ``unended[a, r, c]`` those meeting it that end in cell ``c`` or after.
    The bases whose boxes meet cells ``c0`` to ``c1`` of strip ``r`` are among
    ``started[a, r, c1] & unended[a, r, c0]``: a long diagonal pair reads the few cells
    of each strip its corridor crosses, not the whole box around it, which at 400 pieces
    held ten times the bases the corridor does."""
    count = len(lo)
    words = (count + 63) // 64
    started = np.zeros((2, _CELLS, _CELLS, words), np.int64)
    unended = np.zeros((2, _CELLS, _CELLS, words), np.int64)
    origin, scale = np.zeros(2), np.ones(2)
    for a in range(2):
        first, last = np.inf, -np.inf
        for b in range(count):
            first, last = min(first, lo[b, a]), max(last, hi[b, a])
        if last > first:
            origin[a], scale[a] = first, _CELLS / (last - first)
    for a in range(2):
        across = 1 - a
        for b in range(count):
            if live[b]:
                bit = np.int64(1) << (b % 64)
                c0, c1 = _cell(lo[b, a], origin[a], scale[a]), _cell(hi[b, a], origin[a], scale[a])
                r0 = _cell(lo[b, across], origin[across], scale[across])
                r1 = _cell(hi[b, across], origin[across], scale[across])
                for r in range(r0, r1 + 1):
                    started[a, r, c0, b // 64] |= bit
                    unended[a, r, c1, b // 64] |= bit
        for r in range(_CELLS):
            for c in range(1, _CELLS):
                for w in range(words):
                    started[a, r, c, w] |= started[a, r, c - 1, w]
                    unended[a, r, _CELLS - 1 - c, w] |= unended[a, r, _CELLS - c, w]
    return started, unended, origin, scale


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _corridor(
    near: np.ndarray,
    band: tuple[float, float, float, float],
    box: tuple[float, float, float, float],
    started: np.ndarray,
    unended: np.ndarray,
    origin: np.ndarray,
    scale: np.ndarray,
) -> None:
    """Into the words ``near``: the live bases (:func:`_strip_index`) whose boxes meet
    the part of the band ``band`` (``nx, ny, low, high``: the points whose projection
    on ``(nx, ny)`` lies between) inside the box ``box`` (``x_lo, y_lo, x_hi, y_hi``),
    among others: a base with a point there is held. Strips run across the band's
    longer extent, and each strip's cells span where the band crosses it, widened by a
    margin far above rounding."""
    nx, ny, b_lo, b_hi = band
    # u along the strips, v across them: strips across the longer way (|n_v| >= |n_u|).
    a = 0 if abs(ny) >= abs(nx) else 1
    n_u, n_v = (nx, ny) if a == 0 else (ny, nx)
    u_lo, u_hi = (box[0], box[2]) if a == 0 else (box[1], box[3])
    v_lo, v_hi = (box[1], box[3]) if a == 0 else (box[0], box[2])
    v = 1 - a
    for w in range(len(near)):
        near[w] = 0
    r0, r1 = _cell(v_lo, origin[v], scale[v]), _cell(v_hi, origin[v], scale[v])
    # Where the band's edges cross the line at v: u = edge + slope * v.
    slope = -n_v / n_u if n_u != 0 else 0.0
    edge_lo, edge_hi = (b_lo / n_u, b_hi / n_u) if n_u != 0 else (-np.inf, np.inf)
    if edge_lo > edge_hi:
        edge_lo, edge_hi = edge_hi, edge_lo
    size = max(abs(edge_lo), abs(edge_hi))
    step = 1 / scale[v]
    for r in range(r0, r1 + 1):
        s0 = v_lo if r == r0 else origin[v] + r * step
        s1 = v_hi if r == r1 else origin[v] + (r + 1) * step
        s0, s1 = s0 - 1e-9 * (1 + abs(s0)), s1 + 1e-9 * (1 + abs(s1))
        w0, w1 = slope * s0, slope * s1
        if w0 > w1:
            w0, w1 = w1, w0
        pad = 1e-9 * (1 + abs(w0) + abs(w1) + size)  # above rounding in the sums
        w0, w1 = max(u_lo, w0 + edge_lo - pad), min(u_hi, w1 + edge_hi + pad)
        if w0 > w1:
            continue
        c0, c1 = _cell(w0, origin[a], scale[a]), _cell(w1, origin[a], scale[a])
        for w in range(len(near)):
            near[w] |= started[a, r, c1, w] & unended[a, r, c0, w]


@njit(cache=True, error_model="numpy", **_UNCOUNTED)
def _boxes_meet(lo: np.ndarray, hi: np.ndarray, i: int, j: int) -> bool:
    """Whether the bounding boxes of outlines ``i`` and ``j`` meet (else the outlines are
    apart, and a corner and its foot are their nearest points)."""
    x = lo[i, 0] <= hi[j, 0] and lo[j, 0] <= hi[i, 0]
    return x and lo[i, 1] <= hi[j, 1] and lo[j, 1] <= hi[i, 1]


Layout = tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
]
"""What every pair's search reads of the table, worked out once (:func:`pair_layout`)."""


@njit(cache=True, error_model="numpy")
def pair_layout(corners: np.ndarray, live: np.ndarray) -> Layout:
    """The outlines' bounding boxes (``lo``, ``hi``), centres (``mid``),
    :func:`base_slabs` and :func:`_strip_index`, as :func:`clear_pairs_into` reads them."""
    count = len(corners)
    lo, hi, mid = np.empty((count, 2)), np.empty((count, 2)), np.empty((count, 2))
    for k in range(count):
        for a in range(2):
            lo[k, a], hi[k, a] = corners[k, :, a].min(), corners[k, :, a].max()
            c = corners[k, :, a]
            mid[k, a] = (((c[0] + c[1]) + c[2]) + c[3]) / 4
    started, unended, origin, scale = _strip_index(lo, hi, live)
    return lo, hi, mid, base_slabs(corners), started, unended, origin, scale


@njit(cache=True, nogil=True, error_model="numpy")
def clear_pairs_into(start: int, step: int, pairs: ClearPairs, answers: ClearLines) -> None:
    """:func:`referee.maps.clearance._clear_pair_segments` of the pairs ``start``,
    ``start + step``, ... of ``pairs`` (:class:`referee.maps.clearance.ClearPairs`): for
    pair ``k``, ``corners[first[k]]`` and ``corners[second[k]]``, the shortest segment
    between them that crosses none of the live bases (``layout``: :func:`pair_layout`)
    but their own, into ``answers`` (:class:`referee.maps.clearance.ClearLines`):
    ``length[k]`` (left inf where every one crosses), ``p[k]`` and ``q[k]`` (its ends,
    left NaN). ``frames``: each outline's :func:`referee.maps.clearance._frames` as
    rows; the pairs ``proved`` walled off beforehand (:mod:`referee.maps.clear_shields`)
    are left as they are, unsearched. Without the GIL: threads may each take every
    ``step``-th pair of one map.

    The search itself runs without numba's reference counts (:data:`_UNCOUNTED`: it may
    not allocate), as do its helpers: on two threads each count of a shared array (the
    corners, the index, passed to a helper) bounced that array's counter between the
    cores, 3-5% of the map's time. Its work arrays are made here, and the room for
    candidate lines grown here when a pair needs more."""
    count = len(pairs.corners)
    work = (
        np.empty(count, np.intp),  # the bases near a pair, nearest the centres' line first
        np.empty(count),  # their distances from that line
        np.empty(count, np.intp),  # as found
        np.empty(count, np.intp),  # the bases a search runs past
        np.empty(count, np.int64),  # the corner-to-corner lines each crosses
        np.empty(pairs.layout[4].shape[3], np.int64),  # a corridor's bitset
        np.empty(4),  # a segment's ends
        np.empty((20 * count, 8)),  # a base's 4 corners, and 8 crossings with each outline
    )
    k, room = start, 1024
    while k < len(pairs.first):
        scratch = (np.empty(room), np.empty((room, 4)))
        k, room = _pairs_from(k, step, pairs, answers, work, scratch)


@njit(cache=True, nogil=True, error_model="numpy", **_UNCOUNTED)
def _pairs_from(
    start: int,
    step: int,
    pairs: ClearPairs,
    answers: ClearLines,
    work: tuple[
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
        np.ndarray,
    ],
    scratch: tuple[np.ndarray, np.ndarray],
) -> tuple[int, int]:
    """:func:`clear_pairs_into`'s loop, with its work arrays: ``(len(first), room)`` when
    done, or the pair it stopped at for lack of room in ``scratch`` and the room it needs
    (at least twice as much): that pair is taken again from the start."""
    corners, first, second, frames = pairs.corners, pairs.first, pairs.second, pairs.frames
    proved, out, p, q = pairs.proved, answers.length, answers.p, answers.q
    lo, hi, mid, slabs, started, unended, origin, scale = pairs.layout
    m = len(first)
    pool, key, found, chosen, mask, near, pq, kk = work
    words = len(near)
    for k in range(start, m, step):
        if proved[k]:
            continue  # out[k] stays inf, p[k] and q[k] NaN
        i, j = first[k], second[k]
        # The bases that can cut a line between the two: in the box around both, and
        # across the band they span along the normal of the line joining their centres.
        nx, ny = -(mid[j, 1] - mid[i, 1]), mid[j, 0] - mid[i, 0]
        b_lo, b_hi, big = np.inf, -np.inf, 0.0
        for end in (i, j):
            for v in range(4):
                s = corners[end, v, 0] * nx + corners[end, v, 1] * ny
                b_lo, b_hi, big = min(b_lo, s), max(b_hi, s), max(big, abs(s))
        slack = 1e-9 * (1.0 + big)
        b_lo, b_hi = b_lo - slack, b_hi + slack
        x_lo, y_lo = min(lo[i, 0], lo[j, 0]), min(lo[i, 1], lo[j, 1])
        x_hi, y_hi = max(hi[i, 0], hi[j, 0]), max(hi[i, 1], hi[j, 1])
        nb = 0
        _corridor(
            near, (nx, ny, b_lo, b_hi), (x_lo, y_lo, x_hi, y_hi), started, unended, origin, scale
        )
        for w in range(words):  # the live bases whose boxes may meet the corridor
            bits = near[w]
            while bits != 0:
                b = 64 * w + _low_bit(bits)
                bits &= bits - 1
                # In the box, and across the band by its corners' projections: kept or
                # not without a branch (the tests' outcomes are a coin toss).
                ok = (b != i) & (b != j)
                ok &= (hi[b, 0] >= x_lo) & (hi[b, 1] >= y_lo) & (lo[b, 0] <= x_hi)
                ok &= lo[b, 1] <= y_hi
                s_lo, s_hi = np.inf, -np.inf
                for v in range(4):
                    s = corners[b, v, 0] * nx + corners[b, v, 1] * ny
                    s_lo, s_hi = min(s_lo, s), max(s_hi, s)
                ok &= (s_hi > b_lo) & (s_lo < b_hi)
                # Off the line through the centres: the nearest are likeliest to cut.
                d = abs((mid[b, 0] - mid[i, 0]) * nx + (mid[b, 1] - mid[i, 1]) * ny)
                found[nb], key[nb] = b, d
                nb += ok
        # The nearest that line first, equals in the order found: each base's place
        # counted, without branches (sorting by insertion mispredicted its shifts).
        for x in range(nb):
            dx, rank = key[x], 0
            for y in range(nb):
                rank += (key[y] < dx) | ((key[y] == dx) & (y < x))
            pool[rank] = found[x]
        blockers = pool[:nb]
        (ax, ay), (bx, by) = _quad_at(corners, i), _quad_at(corners, j)
        fa, fb = _frame(frames, i), _frame(frames, j)
        nearest, pq[0], pq[1], pq[2], pq[3] = _nearest_points(ax, ay, bx, by, fa, fb)
        crossed = False
        for r in range(len(blockers)):
            b = blockers[r]
            rx, ry = _quad_at(corners, b)
            if _enters(pq[0], pq[1], pq[2], pq[3], rx, ry, _slab_at(slabs, b)):
                crossed = True
                break
        if _boxes_meet(lo, hi, i, j):
            nearest = _distance(corners[i], corners[j])
        if not crossed or nearest == 0:  # overlapping outlines are 0 apart, whatever lies about
            out[k] = nearest
            if nearest == 0:
                _common_point(corners, i, j, pq)
            p[k, 0], p[k, 1], q[k, 0], q[k, 1] = pq[0], pq[1], pq[2], pq[3]
            continue
        # The corner-to-corner lines each base crosses. One base that crosses them all
        # blocks every line (the bases are convex, so a line between two crossed ones
        # crosses too); where some line is crossed by none, a clear line exists.
        full = (1 << 16) - 1
        union, walled, counted = 0, False, 0
        for r in range(len(blockers)):  # nearest the centres' line first
            m = _corner_lines_crossed(corners, slabs, i, j, blockers[r])
            mask[r] = m
            union |= m
            counted += 1
            if m == full:
                walled = True
            if union == full:  # enough for a cover (the rest could only wall it off)
                break
        if walled:
            continue
        # The search runs past a few of the bases, and adds any base that crosses its
        # answer before running again: fewer bases only shorten the answer or clear a
        # line, so an answer no other base crosses is the answer, and a pair blocked by
        # some of the bases is blocked. Most pairs settle at the first run.
        ns, known, hidden = 0, 0, 0  # the corner-to-corner lines the chosen bases cross,
        # and the corners of A and B one of them hides from the other outline
        if union == full:
            # Perhaps blocked: the few bases that between them cross every corner-to-
            # corner line (greedily, the most lines first), most often a blocking set.
            covered = 0
            while covered != full:
                top, pick = -1, -1
                for r in range(counted):
                    gain = _bits(mask[r] & ~covered)
                    if gain > top:
                        top, pick = gain, r
                chosen[ns] = blockers[pick]
                ns += 1
                covered |= mask[pick]
                hidden |= _hidden_ends(mask[pick])
            known = full
        else:  # not blocked: the bases that cross the nearest segment
            for r in range(len(blockers)):
                b = blockers[r]
                rx, ry = _quad_at(corners, b)
                if _enters(pq[0], pq[1], pq[2], pq[3], rx, ry, _slab_at(slabs, b)):
                    chosen[ns] = b
                    ns += 1
                    known |= mask[r]  # every base has its mask here (no cover)
                    hidden |= _hidden_ends(mask[r])
        while True:
            length = _search(
                i, j, chosen[:ns], corners, slabs, frames, kk, scratch, pq, known, hidden
            )
            if length < 0:  # no room for its candidates
                return k, max(int(-length), 2 * len(scratch[0]))
            if length == np.inf:
                break
            added = ns
            for r in range(len(blockers)):  # the first base that crosses the answer
                b = blockers[r]
                rx, ry = _quad_at(corners, b)
                if _enters(pq[0], pq[1], pq[2], pq[3], rx, ry, _slab_at(slabs, b)):
                    chosen[ns] = b
                    ns += 1
                    if r < counted:  # its mask is known
                        known |= mask[r]
                        hidden |= _hidden_ends(mask[r])
                    break
            if ns == added:
                break
        out[k] = length
        if out[k] < np.inf:
            p[k, 0], p[k, 1], q[k, 0], q[k, 1] = pq[0], pq[1], pq[2], pq[3]
    return len(first), len(scratch[0])
