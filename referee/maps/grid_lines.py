"""The worst hex on each line (:meth:`referee.rules.grid.HexGrid.line_codes`) as one
compiled loop (numba).

numpy found the (segment, hex) pairs near each other (``HexGrid.lines_near``), gathered
each pair's ends into fresh arrays and took its crossing depth (``HexGrid.local_depths``)
through a dozen temporaries: two thirds of the Pz8 Space LOS map. The loop sorts the
segments into the same bearing bins, reads each segment and hex once and keeps one code
per segment. Its depths are not numpy's to the last bit (numpy projects through BLAS,
whose fused multiply-adds round otherwise), so a pair whose depth lies within ``margin``
of either threshold goes back to numpy for the exact depth: every code is the one
numpy's depths give. The pair loop has no data-dependent branch. Imported lazily (numba
takes 0.3 s to load).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from referee.runtime import compiled_loops

compiled_loops(__name__, "the hex games' lines")

HALF_TURN = np.pi

Windows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Each segment's bearing key and each (start, hex) window: ``(key, lo, hi, rx, ry)``
(:meth:`referee.rules.grid.HexGrid.line_codes`)."""
Segments = tuple[np.ndarray, np.ndarray, np.ndarray]
"""The lines: ``(A, B, last)``, their ends and the piece at each one's far end."""
Hexes = tuple[np.ndarray, np.ndarray, np.ndarray, float]
"""The hexes that may block: ``(C, certain, owner, size)``."""


@njit(cache=True, error_model="numpy")
def _bin_order(key: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """``argsort(key, kind="stable")`` as a counting sort, and where each key's run starts
    in that order (``n_keys + 1`` entries)."""
    first = np.zeros(n_keys + 1, np.int64)
    for k in range(len(key)):
        first[key[k] + 1] += 1
    for b in range(n_keys):
        first[b + 1] += first[b]
    at = first[:-1].copy()
    order = np.empty(len(key), np.int64)
    for k in range(len(key)):
        b = key[k]
        order[at[b]] = k
        at[b] += 1
    return order, first


@njit(cache=True, error_model="numpy")
def line_codes(
    windows: Windows,
    n_bins: int,
    segments: Segments,
    hexes: Hexes,
    touch: float,
    margin: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(codes, k, m)``: each segment's worst code over the hexes its windows list, and
    the (segment, hex) pairs whose depth is too near a threshold to tell (for numpy).

    ``windows`` (:data:`Windows`): ``key`` is each segment's ``start rank * n_bins +
    bearing bin``; window ``s * M + m`` (start rank ``s``, hex ``m`` of ``M``, at
    ``(rx, ry)`` from the start) looks at the start's bins ``lo`` to ``hi`` (a turn
    further round where they pass 0 or ``n_bins``; none where ``hi < lo``).
    ``segments`` (:data:`Segments`): from ``A`` to ``B``; a hex whose ``owner`` is at a
    segment's end (``last``) is left out of it. ``hexes`` (:data:`Hexes`): centres ``C``
    in the mat's frame, ``certain`` where the asteroid surely is, ``owner``, and the
    hexes' ``size`` across the flats.
    """
    key, lo, hi, rx, ry = windows
    A, B, last = segments
    C, certain, owner, size = hexes
    L, M = len(key), len(C)
    order, first = _bin_order(key, len(lo) // M * n_bins)
    half = size / 2
    radius = size / math.sqrt(3.0)
    # The hex side normals (0, 60, 120 deg) and corners (30, 90, 150 deg; the other
    # three are these turned half round).
    nx = np.cos(np.arange(3) * HALF_TURN / 3)
    ny = np.sin(np.arange(3) * HALF_TURN / 3)
    cx = np.cos(HALF_TURN / 6 + np.arange(3) * HALF_TURN / 3)
    cy = np.sin(HALF_TURN / 6 + np.arange(3) * HALF_TURN / 3)
    # Per segment in sorted order: its span along each hex side normal, its unit normal
    # and the hex's half-width across it (its farthest corner from the centre).
    span = np.empty((L, 6))
    across = np.empty((L, 3))
    for p in range(L):
        k = order[p]
        ax, ay, bx, by = A[k, 0], A[k, 1], B[k, 0], B[k, 1]
        for s in range(3):
            pa, pb = ax * nx[s] + ay * ny[s], bx * nx[s] + by * ny[s]
            span[p, 2 * s] = min(pa, pb)
            span[p, 2 * s + 1] = max(pa, pb)
        dx, dy = bx - ax, by - ay
        length = math.sqrt(dx * dx + dy * dy)
        unit = length if length > 0 else 1.0
        mx, my = -dy / unit, dx / unit
        extent = 0.0
        for c in range(3):
            extent = max(extent, abs(mx * cx[c] + my * cy[c]))
        # A segment of no length meets nothing (depth -inf): no half-width reaches it.
        across[p, 0] = radius * extent if length > 0 else -np.inf
        across[p, 1] = mx
        across[p, 2] = my
    side = np.empty((M, 3))
    for m in range(M):
        for s in range(3):
            side[m, s] = C[m, 0] * nx[s] + C[m, 1] * ny[s]
    # Each window's runs of sorted segments (two where it passes bearing 0).
    runs = np.zeros((len(lo), 4), np.int64)
    total = 0
    for w in range(len(lo)):
        a, b = lo[w], hi[w]
        if b < a:
            continue
        row = (w // M) * n_bins
        if a < 0:
            runs[w, 0], runs[w, 1] = first[row + a + n_bins], first[row + n_bins]
            a = 0
        elif b >= n_bins:
            runs[w, 0], runs[w, 1] = first[row], first[row + b - n_bins + 1]
            b = n_bins - 1
        runs[w, 2], runs[w, 3] = first[row + a], first[row + b + 1]
        total += runs[w, 1] - runs[w, 0] + runs[w, 3] - runs[w, 2]
    lasts = last[order]
    worst = np.zeros(L, np.int8)
    k_out = np.empty(total, np.int64)
    m_out = np.empty(total, np.int64)
    got = 0
    for w in range(len(lo)):
        m = w % M
        wx, wy, own, sure = rx[w], ry[w], owner[m], certain[m]
        c0, c1, c2 = side[m, 0], side[m, 1], side[m, 2]
        for r in range(2):
            for p in range(runs[w, 2 * r], runs[w, 2 * r + 1]):
                depth = min(
                    min(span[p, 1], c0 + half) - max(span[p, 0], c0 - half),
                    min(span[p, 3], c1 + half) - max(span[p, 2], c1 - half),
                    min(span[p, 5], c2 + half) - max(span[p, 4], c2 - half),
                    across[p, 0] - abs(wx * across[p, 1] + wy * across[p, 2]),
                )
                ours = own == lasts[p]
                unsure = (abs(depth - touch) <= margin) | (abs(depth + touch) <= margin)
                code = np.int8((depth >= -touch) + ((depth > touch) & sure))
                keep = ~(ours | unsure)
                worst[p] = max(worst[p], code * keep)
                k_out[got] = order[p]
                m_out[got] = m
                got += unsure & ~ours
    codes = np.empty(L, np.int8)
    for p in range(L):
        codes[order[p]] = worst[p]
    return codes, k_out[:got].copy(), m_out[:got].copy()
