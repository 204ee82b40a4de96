"""Segments against Papercraft's base rectangles as compiled loops (numba): each segment
stops at the first base it crosses, where numpy had to run every segment through round
after round of the same test.

The test is :func:`referee.rules.clearance.segments_cross_rectangles`' (separating axes:
the rectangle's two edge directions and the segment's normal; touching does not count),
with its arithmetic op for op, so every answer is the same (the tests compare them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_EPS = 1e-9


@njit(cache=True, inline="always", error_model="numpy")
def _crosses(px: float, py: float, qx: float, qy: float, rect: np.ndarray) -> bool:
    """Whether segment ``p``-``q`` enters the open interior of rectangle ``rect``
    (``(4, 2)`` corners in order)."""
    for a in range(2):
        ex = rect[a + 1, 0] - rect[a, 0]
        ey = rect[a + 1, 1] - rect[a, 1]
        r0 = rect[0, 0] * ex + rect[0, 1] * ey
        r1 = rect[1, 0] * ex + rect[1, 1] * ey
        r2 = rect[2, 0] * ex + rect[2, 1] * ey
        r3 = rect[3, 0] * ex + rect[3, 1] * ey
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
    rr0 = nx * rect[0, 0] + ny * rect[0, 1]
    rr1 = nx * rect[1, 0] + ny * rect[1, 1]
    rr2 = nx * rect[2, 0] + ny * rect[2, 1]
    rr3 = nx * rect[3, 0] + ny * rect[3, 1]
    if not np.maximum(np.maximum(rr0, rr1), np.maximum(rr2, rr3)) > s0 + tol:
        return False
    return bool(np.minimum(np.minimum(rr0, rr1), np.minimum(rr2, rr3)) < s0 - tol)


@njit(cache=True, error_model="numpy")
def crosses_any(
    p: np.ndarray, q: np.ndarray, counts: np.ndarray, starts: np.ndarray, rects: np.ndarray
) -> np.ndarray:
    """Whether segment ``p[k]``-``q[k]`` crosses any of its ``counts[k]`` rectangles
    from ``rects[starts[k]]`` on (the likeliest first: most stop at the first or
    second)."""
    out = np.zeros(len(p), np.bool_)
    for k in range(len(p)):
        for r in range(starts[k], starts[k] + counts[k]):
            if _crosses(p[k, 0], p[k, 1], q[k, 0], q[k, 1], rects[r]):
                out[k] = True
                break
    return out


@njit(cache=True, error_model="numpy")
def crosses_every(a: np.ndarray, b: np.ndarray, which: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """Whether every segment ``a[which[k], s]``-``b[which[k], s]`` (``a``, ``b``:
    ``(groups, lines, 2)``) crosses rectangle ``rects[k]``."""
    out = np.zeros(len(which), np.bool_)
    for k in range(len(which)):
        g = which[k]
        out[k] = True
        for s in range(a.shape[1]):
            if not _crosses(a[g, s, 0], a[g, s, 1], b[g, s, 0], b[g, s, 1], rects[k]):
                out[k] = False
                break
    return out


_TOL = 1e-9  # referee.rules.clearance._TOL


@njit(cache=True, inline="always", error_model="numpy")
def _chord(
    sx: float, sy: float, vx: float, vy: float, frame: np.ndarray, k: int
) -> tuple[float, float]:
    """``(t0, t1)`` where line ``s + t v`` enters and leaves rectangle ``k`` of ``frame``
    (:func:`referee.rules.clearance._frames`' columns as rows); ``t0 > t1`` when it
    misses: :func:`referee.rules.clearance._chord`'s arithmetic."""
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


@njit(cache=True, error_model="numpy")
def gaps(
    pair: np.ndarray,
    start: np.ndarray,
    through: np.ndarray,
    anchors: np.ndarray,
    frame_a: np.ndarray,
    frame_b: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`referee.rules.clearance._gaps`, line by line (``anchors``: ``(2, k, 2)``)."""
    n = len(pair)
    p = np.empty((n, 2))
    q = np.empty((n, 2))
    ok = np.empty(n, np.bool_)
    for k in range(n):
        sx, sy = start[k, 0], start[k, 1]
        vx, vy = through[k, 0] - sx, through[k, 1] - sy
        vv = vx * vx + vy * vy
        a0, a1 = _chord(sx, sy, vx, vy, frame_a, pair[k])
        b0, b1 = _chord(sx, sy, vx, vy, frame_b, pair[k])
        good = vv > 1e-24 and a0 <= a1 + _TOL and b0 <= b1 + _TOL
        a_first = a1 <= b0 + _TOL
        good = good and (a_first or b1 <= a0 + _TOL)
        ta = a1 if a_first else a0
        tb = b0 if a_first else b1
        lo, hi = np.minimum(ta, tb) - _TOL, np.maximum(ta, tb) + _TOL
        for m in range(2):
            t = (anchors[m, k, 0] - sx) * vx + (anchors[m, k, 1] - sy) * vy
            t /= vv
            good = good and (np.isnan(t) or (t >= lo and t <= hi))
        good = good and np.isfinite(ta) and np.isfinite(tb)
        ok[k] = good
        ta, tb = (ta, tb) if good else (0.0, 0.0)
        p[k, 0], p[k, 1] = sx + ta * vx, sy + ta * vy
        q[k, 0], q[k, 1] = sx + tb * vx, sy + tb * vy
    return p, q, ok


@njit(cache=True, error_model="numpy")
def covered_slices(
    cell: np.ndarray,
    f1: np.ndarray,
    f2: np.ndarray,
    fan_ref: np.ndarray,
    corners: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    radii: tuple[np.ndarray, np.ndarray, np.ndarray],
    counts: np.ndarray,
    starts: np.ndarray,
    arcs: np.ndarray,
    tau: float,
) -> np.ndarray:
    """Whether the bases of pair ``cell[k]`` surely cover every line from A to B along the
    directions ``f1[k]..f2[k]`` from its ``fan_ref``: the inner test of
    :func:`referee.rules.clearance._walled_off` (which see), slice by slice, with its
    arithmetic. ``corners``: x and y of A's, B's and the bases' corners about the pair's
    origin; ``radii``: their farthest corners' distances; ``arcs``: ``(4, bases)``, the
    two fans (least, greatest) where a base may come before A or after B."""
    ax, ay, bx, by, ox, oy = corners
    out = np.zeros(len(cell), np.bool_)
    width = counts.max() if len(counts) else 0
    los = np.empty(width)
    his = np.empty(width)
    two_pi = 2 * np.pi
    for k in range(len(cell)):
        c = cell[k]
        half = (f2[k] - f1[k]) / 2
        bend = half * half / 2
        t1, t2 = fan_ref[c] + f1[k], fan_ref[c] + f2[k]
        n1x, n1y, n2x, n2y = -np.sin(t1), np.cos(t1), -np.sin(t2), np.cos(t2)
        low, high = -np.inf, np.inf
        for px, py, r in ((ax, ay, radii[0]), (bx, by, radii[1])):
            least, most = np.inf, -np.inf
            for v in range(px.shape[1]):
                e1 = px[c, v] * n1x + py[c, v] * n1y
                e2 = px[c, v] * n2x + py[c, v] * n2y
                least = np.minimum(least, np.minimum(e1, e2))
                most = np.maximum(most, np.maximum(e1, e2))
            low = np.maximum(low, least - r[c] * bend)
            high = np.minimum(high, most + r[c] * bend)
        n = 0
        for row in range(starts[c], starts[c] + counts[c]):
            sure = True
            for a in range(2):
                lo, hi = arcs[2 * a, row], arcs[2 * a + 1, row]
                for turn in (-two_pi, 0.0, two_pi):
                    sure = sure and (f2[k] < lo + turn or f1[k] > hi + turn)
            if not sure:
                continue
            least, most = np.inf, -np.inf
            for v in range(ox.shape[1]):
                e1 = ox[row, v] * n1x + oy[row, v] * n1y
                e2 = ox[row, v] * n2x + oy[row, v] * n2y
                least = np.minimum(least, np.maximum(e1, e2))
                most = np.maximum(most, np.minimum(e1, e2))
            lo = least + radii[2][row] * bend + tau
            hi = most - radii[2][row] * bend - tau
            if hi > lo:  # insertion by lo: a base's sure interval of offsets
                at = n
                while at > 0 and los[at - 1] > lo:
                    los[at], his[at] = los[at - 1], his[at - 1]
                    at -= 1
                los[at], his[at] = lo, hi
                n += 1
        reach = low - tau
        for s in range(n):  # a sweep up the offsets, base by base from the lowest
            if los[s] < reach:
                reach = np.maximum(reach, his[s])
        out[k] = reach > high + tau
    return out
