"""Edge-to-edge gaps between rectangular bases, all pairs, as one compiled loop (numba).

Each pair's gap is the least of its 32 corner-to-edge distances. A loop settles most pairs
from four of them, where numpy had to carry every pair through every step in lock step
(three times the time at 400 bases). The arithmetic of each distance is
:func:`referee.geometry._point_seg_dist`'s, op for op and without fused multiply-adds,
so every value is the very float the dense form gives (the tests compare them bit for
bit). The common path has no data-dependent branches: a mispredicted branch per pair
cost more than all of its arithmetic.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from referee.runtime import compiled_loops

compiled_loops(__name__, "the base-edge range table")

EPS = 1e-9  # referee.geometry.EPS; not imported, so this module stands below geometry
KAPPA = math.sqrt((1 - 1e-3) / 2)
"""Along one of two unit axes at most 1e-3 from square, any vector reaches at least
this share of its length."""
TIE = 1 + 1e-10
"""Squared lengths farther apart than this ratio keep their order through ``hypot``."""
FRONT = np.array([3, 2, 0, 1], np.int64)
"""Corner of a base farthest along a direction, by (F . w > 0, R . w > 0) as 2 bits."""
BEFORE_FRONT = (FRONT + 3) % 4
"""The corner before each :data:`FRONT` one: its edge ends at the front corner."""


@njit(cache=True, inline="always", error_model="numpy")
def _offset(
    cx: np.ndarray, cy: np.ndarray, ex: np.ndarray, ey: np.ndarray, dd: np.ndarray, v: int, e: int
) -> tuple[float, float]:
    """From the nearest point of edge ``e`` to corner ``v`` (flat ``base * 4 + k``), the
    offset whose ``hypot`` is their distance."""
    apx = cx[v] - cx[e]
    apy = cy[v] - cy[e]
    t = apx * ex[e]
    t += apy * ey[e]
    t /= dd[e]
    t = min(max(t, 0.0), 1.0)
    if not dd[e] > 0:
        t = 0.0  # a zero-length edge is its start point
    return apx - t * ex[e], apy - t * ey[e]


@njit(cache=True, inline="always", error_model="numpy")
def _least(
    cx: np.ndarray,
    cy: np.ndarray,
    ex: np.ndarray,
    ey: np.ndarray,
    dd: np.ndarray,
    vs: np.ndarray,
    es: np.ndarray,
    m: int,
) -> float:
    """The least distance over combinations ``vs[:m]`` (corners) against ``es[:m]``
    (edges): ``hypot`` only for squared lengths within :data:`TIE` of the least."""
    ox = np.empty(m)
    oy = np.empty(m)
    sq = np.empty(m)
    least = np.inf
    for k in range(m):
        ox[k], oy[k] = _offset(cx, cy, ex, ey, dd, vs[k], es[k])
        sq[k] = ox[k] * ox[k] + oy[k] * oy[k]
        least = min(least, sq[k])
    d = np.inf
    for k in range(m):
        if sq[k] <= least * TIE:
            d = min(d, math.hypot(ox[k], oy[k]))
    return d


@njit(cache=True, error_model="numpy")
def _separated(corners: np.ndarray, i: int, j: int) -> bool:
    """The dense separating-axis test for one pair: apart by more than ``EPS`` along an
    edge normal of either base."""
    for own, other in ((i, j), (j, i)):
        for k in range(2):
            ax = corners[own, k + 1, 0] - corners[own, k, 0]
            ay = corners[own, k + 1, 1] - corners[own, k, 1]
            norm = math.sqrt(ax * ax + ay * ay)
            ax, ay = ax / norm, ay / norm
            lo, hi, own_lo, own_hi = np.inf, -np.inf, np.inf, -np.inf
            for c in range(4):
                p = ax * corners[other, c, 0] + ay * corners[other, c, 1]
                q = ax * corners[own, c, 0] + ay * corners[own, c, 1]
                lo, hi = min(lo, p), max(hi, p)
                own_lo, own_hi = min(own_lo, q), max(own_hi, q)
            if hi < own_lo - EPS or lo > own_hi + EPS:  # False for a nan axis
                return True
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def base_gaps(
    start: int,
    step: int,
    corners: np.ndarray,
    cols: np.ndarray,
    axes: np.ndarray,
    tol_sat: float,
    tol: float,
    out: np.ndarray,
) -> None:
    """Fill ``out`` (``(n, n)``, zeros) with the gap of every pair ``i < j`` for rows
    ``i = start, start + step, ...`` (and its mirror ``out[j, i]``); 0 for bases that
    touch or overlap. Without the GIL: threads may each take every ``step``-th row.

    ``corners`` ``(n, 4, 2)``; ``cols`` ``(7, n)``: each base as a parallelogram ``mid
    +- fwd +- rgt`` (mid x, y, fwd x, y, rgt x, y) and the reach from mid to any corner
    (``inf`` where the edges are not square); ``axes`` ``(n, 2, 2)`` its two unit edge
    directions; ``tol_sat`` how far the parallelogram may stray from the corners and
    ``tol`` that plus rounding.

    A pair farther apart than its bases' size meets front to front: along w, the unit
    vector from centre to centre, the bases are ``gap`` apart, so a corner ``x`` behind
    its base's front and an edge ``y`` behind the other's are at least ``gap + x + y``
    apart. Each front corner against the two edges at the other's front corner gives a
    first least; a combination behind by more than ``least - gap`` cannot beat it. A
    nearer pair takes the separating-axis test on the parallelogram model (the dense
    test where that is within rounding of ``EPS``) and all 32 combinations.
    """
    n = len(corners)
    cx = corners[:, :, 0].copy().ravel()
    cy = corners[:, :, 1].copy().ravel()
    nxt = np.array([1, 2, 3, 0])
    ex = np.empty(4 * n)
    ey = np.empty(4 * n)
    for p in range(n):
        for k in range(4):
            ex[p * 4 + k] = cx[p * 4 + nxt[k]] - cx[p * 4 + k]
            ey[p * 4 + k] = cy[p * 4 + nxt[k]] - cy[p * 4 + k]
    dd = ex * ex + ey * ey
    mx, my, fx, fy, rx, ry, reach = cols
    vs = np.empty(32, np.int64)
    es = np.empty(32, np.int64)
    behind = np.empty((2, 4))  # corners of i, of j: how far behind their base's front
    behind_edge = np.empty((2, 4))  # edges (their nearer end)
    for i in range(start, n, step):
        for j in range(i + 1, n):
            dx, dy = mx[j] - mx[i], my[j] - my[i]
            dist = math.sqrt(dx * dx + dy * dy)
            if KAPPA * dist > reach[i] + reach[j] + (EPS + tol_sat):
                wx, wy = dx / dist, dy / dist
                a_i = fx[i] * wx + fy[i] * wy
                b_i = rx[i] * wx + ry[i] * wy
                a_j = -(fx[j] * wx + fy[j] * wy)
                b_j = -(rx[j] * wx + ry[j] * wy)
                side_i = (a_i > 0) * 2 + (b_i > 0)
                side_j = (a_j > 0) * 2 + (b_j > 0)
                vi, vj = i * 4 + FRONT[side_i], j * 4 + FRONT[side_j]
                ei, ej = i * 4 + BEFORE_FRONT[side_i], j * 4 + BEFORE_FRONT[side_j]
                ox0, oy0 = _offset(cx, cy, ex, ey, dd, vi, vj)
                ox1, oy1 = _offset(cx, cy, ex, ey, dd, vi, ej)
                ox2, oy2 = _offset(cx, cy, ex, ey, dd, vj, vi)
                ox3, oy3 = _offset(cx, cy, ex, ey, dd, vj, ei)
                ox0, oy0, ox1, oy1 = abs(ox0), abs(oy0), abs(ox1), abs(oy1)
                ox2, oy2, ox3, oy3 = abs(ox2), abs(oy2), abs(ox3), abs(oy3)
                sq0, sq1 = ox0 * ox0 + oy0 * oy0, ox1 * ox1 + oy1 * oy1
                sq2, sq3 = ox2 * ox2 + oy2 * oy2, ox3 * ox3 + oy3 * oy3
                four = ((sq0, ox0, oy0), (sq1, ox1, oy1), (sq2, ox2, oy2), (sq3, ox3, oy3))
                # The least, the first on a tie, by selects rather than branches.
                least, lx, ly = four[0]
                for sq, ox, oy in four:
                    better = sq < least
                    least, lx, ly = (
                        (sq if better else least),
                        (ox if better else lx),
                        (oy if better else ly),
                    )
                d = math.hypot(lx, ly)
                # Corner to corner, all four reach the same point: only offsets differing
                # (by rounding) from the least's need their own ``hypot``.
                for sq, ox, oy in four:
                    if sq <= least * TIE and (ox != lx or oy != ly):
                        d = min(d, math.hypot(ox, oy))
                abs_ai, abs_bi, abs_aj, abs_bj = abs(a_i), abs(b_i), abs(a_j), abs(b_j)
                gap = dist - (abs_ai + abs_bi) - (abs_aj + abs_bj)
                slack = math.sqrt(least) - gap + tol
                if not 2 * min(min(abs_ai, abs_bi), min(abs_aj, abs_bj)) > slack:
                    for s, (a, b) in enumerate(((a_i, b_i), (a_j, b_j))):
                        ap, am = abs(a) + a, abs(a) - a  # 2 max(a, 0), 2 max(-a, 0)
                        bp, bm = abs(b) + b, abs(b) - b
                        behind[s, 0], behind[s, 1] = am + bp, am + bm
                        behind[s, 2], behind[s, 3] = ap + bm, ap + bp
                        behind_edge[s, 0], behind_edge[s, 1] = am, bm
                        behind_edge[s, 2], behind_edge[s, 3] = ap, bp
                    m = 0
                    for s, (own, other) in enumerate(((i, j), (j, i))):
                        for k in range(4):
                            for q in range(4):
                                if behind[s, k] + behind_edge[1 - s, q] <= slack:
                                    vs[m], es[m] = own * 4 + k, other * 4 + q
                                    m += 1
                    d = _least(cx, cy, ex, ey, dd, vs, es, m)
            else:
                best = -np.inf
                for own, other in ((i, j), (j, i)):
                    for k in range(2):
                        nx, ny = axes[own, k, 0], axes[own, k, 1]
                        g = abs(dx * nx + dy * ny)
                        for p in (own, other):  # less each base's reach along the axis
                            g -= abs(fx[p] * nx + fy[p] * ny) + abs(rx[p] * nx + ry[p] * ny)
                        if g > best:  # a nan axis (zero-length edge) never separates
                            best = g
                separated = best > EPS - tol_sat
                if separated and not best > EPS + tol_sat:  # within rounding of EPS
                    separated = _separated(corners, i, j)
                d = 0.0
                if separated:
                    m = 0
                    for k in range(4):
                        for q in range(4):
                            vs[m], es[m] = i * 4 + k, j * 4 + q
                            vs[m + 1], es[m + 1] = j * 4 + k, i * 4 + q
                            m += 2
                    d = _least(cx, cy, ex, ey, dd, vs, es, 32)
            out[i, j] = d
            out[j, i] = d
