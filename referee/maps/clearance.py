"""The shortest straight line between two bases that crosses no other base: Papercraft's
range ("from any edge of the attacker to any edge of the target, not crossing another
unit") and its LOS (such a line exists).

The answer is exact, not sampled. Among all segments from outline ``A`` to outline ``B``
that enter no other base's interior, the shortest is either the nearest-points segment
or one held in place by its constraints: it grazes a corner of another base, or ends at
a corner of ``A`` or ``B``. With two degrees of freedom (a point on each outline) a
shortest segment has two such constraints, or one and is shortest along it. So the
candidates are the lines through two of those points (a corner of ``A`` or ``B``, the
corners of the bases between them), the feet of the perpendiculars from a corner of one
outline to an edge of the other, and for each grazed corner the line through it along
which the gap is shortest. On each candidate line the segment is the gap between the
two outlines' chords. The answer is the shortest candidate that crosses no base; when
every line of the first kind is crossed, no line is clear (the clear segments, if any,
would form a region whose boundary has such a line at each end).

The search runs pair by pair in :mod:`referee.maps.clear_search`, compiled. On a crowded
table most pairs never reach it: :mod:`referee.maps.clear_shields` proves them walled off
by the bases round their ends first, for the whole map at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from referee.maps.kernels import loops, read_only
from referee.maps.pairwise import upper_pairs
from referee.runtime import CORES, in_strides
from referee.scene import Piece


def clear_distance(a: Piece, b: Piece, others: Sequence[Piece]) -> float:
    """Shortest edge-to-edge distance between ``a`` and ``b`` along a straight line that
    crosses no other live unit's base (infinite when every line is blocked). A line may
    touch another base (run along its edge, or past its corner) but not enter it.

    >>> p = Piece("a", "x", "infantry", 0, 0, base=(2, 2))
    >>> q = Piece("b", "y", "infantry", 10, 0, base=(2, 2))
    >>> clear_distance(p, q, [])
    8.0
    >>> post = Piece("c", "z", "infantry", 5, 0.5, base=(1, 1))   # its top edge at y = 1
    >>> round(clear_distance(p, q, [post]), 12)                  # along that top edge
    8.0
    >>> clear_distance(p, q, [Piece("w", "z", "infantry", 5, 0, base=(3, 3))])
    inf
    """
    live = [o.corners() for o in others if o.state != "destroyed"]
    return clear_edge_distance(a.corners(), b.corners(), np.asarray(live, float).reshape(-1, 4, 2))


def clear_edge_distance(pa: np.ndarray, pb: np.ndarray, bases: np.ndarray) -> float:
    """:func:`clear_distance` between outlines ``pa`` and ``pb`` (4 corners each) past the
    live bases ``bases`` (``(m, 4, 2)`` corners)."""
    return clear_segment(pa, pb, bases)[0]


def clear_segment(
    pa: np.ndarray, pb: np.ndarray, bases: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """``(length, p, q)``: the shortest segment from outline ``pa`` to outline ``pb`` that
    enters none of ``bases`` (``(m, 4, 2)`` corners), ``p`` on ``pa`` and ``q`` on
    ``pb``; ``(inf, nan, nan)`` when every one does. Here, over the post's top:

    >>> sq = np.array([[0, 0], [2, 0], [2, 2], [0, 2]], float)
    >>> post = np.array([[[4, -1], [5, -1], [5, 1.5], [4, 1.5]]])
    >>> length, p, q = clear_segment(sq, sq + [7, 0], post)
    >>> round(length, 9), round(float(p[0]), 9), round(float(q[0]), 9), bool(p[1] >= 1.5)
    (5.0, 2.0, 7.0, True)
    """
    bases = np.asarray(bases, float).reshape(-1, 4, 2)
    corners = np.concatenate([np.asarray(pa, float)[None], np.asarray(pb, float)[None], bases])
    live = np.r_[False, False, np.ones(len(bases), bool)]
    length, p, q = _clear_pair_segments(corners, live, np.array([0]), np.array([1]))
    return float(length[0]), p[0], q[0]


def clear_edge_distances(corners: np.ndarray, live: np.ndarray) -> np.ndarray:
    """All pairs :func:`clear_edge_distance` at once, ``(n, n)``: the outlines ``corners``
    (``(n, 4, 2)``) with the bases where ``live`` blocking every pair but their own two.

    >>> sq = np.array([[0, 0], [2, 0], [2, 2], [0, 2]], float)
    >>> wall = np.array([[4, -1], [6, -1], [6, 3], [4, 3]], float)
    >>> clear_edge_distances(np.stack([sq, wall, sq + [8, 0]]), np.ones(3, bool)).tolist()
    [[0.0, 2.0, inf], [2.0, 0.0, 2.0], [inf, 2.0, 0.0]]
    """
    corners = np.asarray(corners, float).reshape(-1, 4, 2)
    n = len(corners)
    dist = np.zeros((n, n))
    if n < 2:
        return dist
    first, second = upper_pairs(n)
    out = _clear_pair_segments(corners, np.asarray(live, bool), first, second)[0]
    dist[first, second] = dist[second, first] = out
    return dist


def segments_cross_rectangles(p: np.ndarray, q: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """``(k, m)``: whether segment ``p[k]``-``q[k]`` enters the open interior of rectangle
    ``rects[m]`` (4 corners in order). Separating axes: the rectangle's two edge normals
    and the segment's normal; touching an edge or a corner does not count.

    >>> sq = np.array([[[0, 0], [2, 0], [2, 2], [0, 2]]], float)
    >>> segments_cross_rectangles(np.array([[-1.0, 1], [-1, 2]]), np.array([[3.0, 1], [3, 2]]), sq)
    array([[ True],
           [False]])
    """
    return _segment_crosses_rectangle(p[:, None], q[:, None], rects[None])


class ClearPairs(NamedTuple):
    """The pairs a clear-line search measures and the table it searches, one value for
    the compiled search (:func:`referee.maps.clear_search.clear_pairs_into`): the bases'
    ``corners``, pair ``k`` of ``corners[first[k]]`` and ``corners[second[k]]``, each
    outline's ``frames`` (:func:`_frames`), the live bases' ``layout``
    (:func:`referee.maps.clear_search.pair_layout`) and the pairs ``proved`` walled off
    beforehand (left unsearched)."""

    corners: np.ndarray
    first: np.ndarray
    second: np.ndarray
    frames: np.ndarray
    layout: tuple[np.ndarray, ...]
    proved: np.ndarray


class ClearLines(NamedTuple):
    """Where the search writes each pair's shortest clear line: its ``length`` (inf where
    every line crosses) and ends ``p``, ``q`` (NaN then)."""

    length: np.ndarray
    p: np.ndarray
    q: np.ndarray


def _clear_pair_segments(
    corners: np.ndarray, live: np.ndarray, first: np.ndarray, second: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`clear_segment` of each pair ``corners[first[k]]``, ``corners[second[k]]``
    past the ``live`` bases but the pair's own: ``(lengths, p, q)``. A map's pairs are
    shared among the cores, every ``n``-th pair to each (neighbouring pairs cost alike);
    the compiled search runs without the GIL."""
    # Imported here: numba costs a third of a second, which only Papercraft's maps need.
    clear_pairs_into, pair_layout = loops("clear_search", "clear_pairs_into", "pair_layout")

    corners = np.ascontiguousarray(corners, float)
    live = np.ascontiguousarray(live, np.bool_)
    first, second = read_only(np.asarray(first, np.intp)), read_only(np.asarray(second, np.intp))
    frames = np.ascontiguousarray(np.stack(_frames(corners)))
    layout = pair_layout(corners, live)
    m = len(first)
    out, p, q = np.full(m, np.inf), np.full((m, 2), np.nan), np.full((m, 2), np.nan)
    shares = min(len(CORES), m // _PAIRS_PER_SHARE) if m else 0
    walled = _walled_off(frames, live, first, second, shares)
    pairs = ClearPairs(corners, first, second, frames, layout, walled)
    in_strides(clear_pairs_into, shares, pairs, ClearLines(out, p, q))
    return out, p, q


def _walled_off(
    frames: np.ndarray, live: np.ndarray, first: np.ndarray, second: np.ndarray, shares: int
) -> np.ndarray:
    """Which pairs :mod:`referee.maps.clear_shields` proves walled off (so left out of
    the search), the shields and then the pairs shared among ``shares`` cores; none
    where shields would not pay: too few pairs for the bases, or too sparse a table."""
    walled = np.zeros(len(first), np.bool_)
    if len(first) < _PAIRS_PER_SHIELD * len(live):
        return walled
    from referee.maps.clear_shields import BINS

    band_extents, shield_reach, shields_into, walled_into = loops(
        "clear_shields", "band_extents", "shield_reach", "shields_into", "walled_into"
    )

    reach = shield_reach(frames, live)
    if reach == 0:
        return walled
    cos, sin, half = band_extents(frames)
    shield = np.empty((len(live), BINS))
    in_strides(shields_into, shares, frames, live, reach, cos, sin, half, shield)
    in_strides(walled_into, shares, first, second, frames, cos, sin, half, shield, walled)
    return walled


_PAIRS_PER_SHIELD = 16
"""Fewer pairs than this per base go without shields: a base's shield costs about ten
searches of a pair, and most pairs need no search with it."""

_PAIRS_PER_SHARE = 200
"""Fewer pairs than this per core run in the calling thread alone: handing a share to
another thread and back costs about a tenth of a millisecond."""


def _segment_crosses_rectangle(p: np.ndarray, q: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """Element by element :func:`segments_cross_rectangles`: whether segment ``p``-``q``
    (``(..., 2)``) enters the open interior of rectangle ``rects`` (``(..., 4, 2)``),
    broadcasting, with that function's arithmetic and tolerances."""
    eps = 1e-9
    px, py, qx, qy = p[..., 0], p[..., 1], q[..., 0], q[..., 1]
    rx, ry = rects[..., 0], rects[..., 1]
    crossing = np.ones(np.broadcast_shapes(px.shape, rx.shape[:-1]), bool)
    for a in range(2):
        ex, ey = rx[..., a + 1] - rx[..., a], ry[..., a + 1] - ry[..., a]
        # The corners' extent along the edge, column by column: a reduction along an
        # axis of four is many times slower (and the floats are the same).
        r = [rx[..., c] * ex + ry[..., c] * ey for c in range(4)]
        r_lo = np.minimum(np.minimum(r[0], r[1]), np.minimum(r[2], r[3]))
        r_hi = np.maximum(np.maximum(r[0], r[1]), np.maximum(r[2], r[3]))
        sp, sq = px * ex + py * ey, qx * ex + qy * ey
        crossing &= np.maximum(sp, sq) > r_lo + eps * (1 + np.abs(r_lo))
        crossing &= np.minimum(sp, sq) < r_hi - eps * (1 + np.abs(r_hi))
    nx, ny = py - qy, qx - px
    s0 = px * nx + py * ny
    tol = eps * (1 + np.abs(s0))
    rr = [nx * rx[..., c] + ny * ry[..., c] for c in range(4)]
    crossing &= np.maximum(np.maximum(rr[0], rr[1]), np.maximum(rr[2], rr[3])) > s0 + tol
    crossing &= np.minimum(np.minimum(rr[0], rr[1]), np.minimum(rr[2], rr[3])) < s0 - tol
    return crossing


def _frames(rects: np.ndarray) -> tuple[np.ndarray, ...]:
    """Rectangles ``rects`` (``(k, 4, 2)`` corners in order) as columns: the centre's x
    and y, then for each of the first two edges its unit direction's x and y and half
    the rectangle's size along it."""
    edges = np.stack([rects[:, 1] - rects[:, 0], rects[:, 2] - rects[:, 1]], axis=1)
    size = np.hypot(edges[..., 0], edges[..., 1])
    axes = edges / np.maximum(size, 1e-300)[..., None]
    centre, half = rects.mean(axis=1), size / 2
    columns: tuple[np.ndarray, ...] = (centre[:, 0], centre[:, 1])
    for k in range(2):
        columns += (axes[:, k, 0], axes[:, k, 1], half[:, k])
    return tuple(np.ascontiguousarray(c) for c in columns)
