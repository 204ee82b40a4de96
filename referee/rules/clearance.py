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
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from referee.geometry import EPS, _point_seg_dist, _seg_seg_dist, upper_pairs
from referee.scene import Piece

_TOL = 1e-9
"""Slack on line parameters (fractions of a candidate line's defining span)."""
_FIRST = 8
"""Candidates per pair tested before the rest: a clear pair is usually settled by them."""
_BATCH_LINES = 1 << 18
"""Roughly how many candidate lines are worked out at once."""


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
    ``pb``; ``(inf, nan, nan)`` when every one does.

    >>> sq = np.array([[0, 0], [2, 0], [2, 2], [0, 2]], float)
    >>> post = np.array([[[4, -1], [5, -1], [5, 1.5], [4, 1.5]]])
    >>> length, p, q = clear_segment(sq, sq + [7, 0], post)
    >>> round(length, 9), float(p[0]), float(q[0]), bool(p[1] >= 1.5)   # over the post's top
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


def _clear_pair_segments(
    corners: np.ndarray, live: np.ndarray, first: np.ndarray, second: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`clear_segment` of each pair ``corners[first[k]]``, ``corners[second[k]]``
    past the ``live`` bases but the pair's own: ``(lengths, p, q)``."""
    # Imported here: numba costs a third of a second, which only Papercraft's maps need.
    from referee.rules.crossings import crosses_every

    pa, pb = corners[first], corners[second]
    m = len(first)
    out = np.full(m, math.inf)
    cand_pair, cand_base = _pair_blockers(corners, live, first, second)
    rects = corners[cand_base]
    p, q = _nearest_points_many(pa, pb)
    crossed = _segment_crosses_rectangle(p[cand_pair], q[cand_pair], rects)
    blocked = np.bincount(cand_pair[crossed], minlength=m) > 0
    nearest = _polygon_distances(pa, pb)
    blocked &= nearest > 0  # overlapping outlines are 0 apart whatever lies about them
    out[~blocked] = nearest[~blocked]
    touching = np.flatnonzero(out == 0)
    p[touching] = q[touching] = _common_points(pa[touching], pb[touching])
    p[blocked] = q[blocked] = np.nan
    # One base that every corner-to-corner line crosses blocks every line: the bases are
    # convex, so a line between two crossed ones crosses too (inf as is).
    lines = np.repeat(pa, 4, axis=1), np.tile(pb, (1, 4, 1))  # (pairs, 16, 2) each
    keep = blocked[cand_pair]
    cand_pair, rects = cand_pair[keep], rects[keep]
    walls = crosses_every(*lines, cand_pair, rects)
    walled = np.bincount(cand_pair[walls], minlength=m) > 0
    search = blocked & ~walled
    keep = search[cand_pair]
    # Each pair's bases nearest the line between its centres first: the likeliest to cut.
    mid_a, mid_b = pa.mean(axis=1)[cand_pair], pb.mean(axis=1)[cand_pair]
    key = _point_seg_dist(rects.mean(axis=1), mid_a, mid_b)
    order = np.lexsort((key, cand_pair))
    cand_pair, rects = cand_pair[order][keep[order]], rects[order][keep[order]]
    # Several bases that between them cover every line: blocked without the search.
    sure = _walled_off(pa, pb, cand_pair, rects, np.flatnonzero(search))
    search[sure] = False
    keep = search[cand_pair]
    cand_pair, rects = cand_pair[keep], rects[keep]
    # A pair with k bases between has ~8 k^2 candidate lines: pairs in batches of about a
    # quarter million lines, so that a crowded table does not hold them all at once.
    rows = np.flatnonzero(search)
    counts = np.bincount(cand_pair, minlength=m)[rows]
    batch = np.cumsum(8 * counts * counts + 64 * counts + 64) // _BATCH_LINES
    for b in np.unique(batch):
        sel = rows[batch == b]
        mine = slice(*np.searchsorted(cand_pair, [sel[0], sel[-1] + 1]))  # sorted by pair
        out[sel], p[sel], q[sel] = _shortest_clear_lines(
            pa[sel], pb[sel], np.searchsorted(sel, cand_pair[mine]), rects[mine]
        )
    return out, p, q


# -- a certificate for "blocked" -------------------------------------------------------


_SLICES = 6
"""Slices each pair's fan of directions is first cut into by :func:`_walled_off`."""
_HALVINGS = 4
"""Times a slice the bases do not surely cover is halved before the search takes over."""
_MOST_OPEN = 2
"""Slices of a pair left uncovered, at most, for them to be halved again."""
_WALL_TEST_PAIRS = 500
"""Pairs worth :func:`_walled_off`: its hundred-odd array operations cost as much as the
search on a few hundred pairs (at 40 pieces it saved nothing; at 100, a third)."""


def _walled_off(
    pa: np.ndarray, pb: np.ndarray, cand_pair: np.ndarray, rects: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """The pairs among ``rows`` of which every segment from outline ``pa[k]`` to ``pb[k]``
    certainly crosses one of the pair's bases ``rects[cand_pair == k]`` (sorted by pair):
    a sufficient test, for several bases that only together block every line.

    A line is a direction and an offset across it. A segment from A to B runs along a
    direction of the fan from A to B, and at each such direction the lines meeting both
    have offsets in one interval (between the two outlines' extents across it). A base
    covers the offsets strictly inside its own extent, as long as on those lines it
    comes after A and before B: the direction is outside the fan from the base to A and
    outside the fan from B to the base. The fan is cut into slices; on a slice each
    extent is bounded from its ends (an offset is a sinusoid of the direction: across a
    slice ``2 h`` wide it strays from its chord by at most ``r h^2 / 2``, ``r`` the
    corner's distance from the origin), and the slice is covered when the bases' sure
    intervals cover the pair's widest one. Uncovered slices are halved a few times; a
    pair with one still uncovered is left to the exact search. Every margin is far
    wider than the search's own tolerances, so it never contradicts it."""
    from referee.rules.crossings import covered_slices  # see _clear_pair_segments

    m = len(pa)
    out = np.zeros(m, bool)
    counts = np.bincount(cand_pair, minlength=m)
    rows = rows[counts[rows] >= 2]  # one base alone blocking every line is found before
    if not len(rows) or len(rows) < _WALL_TEST_PAIRS:
        return out
    starts = np.cumsum(counts) - counts
    origin = (pa.mean(axis=1) + pb.mean(axis=1)) / 2  # keeps every radius small
    a, b = pa - origin[:, None], pb - origin[:, None]
    o = rects - origin[cand_pair][:, None]
    scale = 1.0 + float(np.abs(origin).max()) + float(np.abs(o).max()) + float(np.abs(a).max())
    tau = 1e-6 * scale  # offsets: how far inside a base a line must pass
    # Directions: corners closer than ``near`` count as meeting, so that no angle in a fan
    # is off by more than ~4e-16 scale / near (4e-12 rad), far inside the 1e-9 rad margins.
    near = 1e-4 * scale
    fan_ref, fan_lo, fan_hi = _fan(a, b, near)
    rows = rows[fan_hi[rows] - fan_lo[rows] < math.pi - 1e-6]  # apart: a fan under half a turn
    # Where each base may come before A or after B: two fans of directions (from the base
    # to A, from B to the base). A base wholly between the two along the line joining
    # their centres has both within the half turn facing back along that line, taken
    # as they are (no angles to work out); the others' are worked out.
    along = (np.cos(fan_ref), np.sin(fan_ref))
    reach_a = _most(a[..., 0] * along[0][:, None] + a[..., 1] * along[1][:, None])
    start_b = _least(b[..., 0] * along[0][:, None] + b[..., 1] * along[1][:, None])
    at_o = o[..., 0] * along[0][cand_pair, None] + o[..., 1] * along[1][cand_pair, None]
    between = (_least(at_o) > reach_a[cand_pair] + near) & (_most(at_o) < start_b[cand_pair] - near)
    fans, wide = [], []
    worked = np.flatnonzero(~between)
    for src, dst in ((o, a[cand_pair]), (b[cand_pair], o)):
        ref = fan_ref[cand_pair] + math.pi
        lo, hi = np.full(len(o), -math.pi / 2), np.full(len(o), math.pi / 2)
        ref[worked], lo[worked], hi[worked] = _fan(src[worked], dst[worked], near)
        fans.append((ref, lo, hi))
        wide.append(~between & (hi - lo >= math.pi - 1e-6))
    # A base touching or overlapping A or B (units in contact) counts by its part between
    # the two, clear of both; a sliver or nothing is left out (a fan of the whole turn).
    meets = np.flatnonzero(wide[0] | wide[1])
    if len(meets):
        part, ok = _part_between(o[meets], a[cand_pair[meets]], b[cand_pair[meets]], 2 * near)
        k = meets[ok]
        o[k] = part[ok]
        for f, w, (src, dst) in zip(
            fans, wide, ((o[k], a[cand_pair[k]]), (b[cand_pair[k]], o[k])), strict=True
        ):
            for whole, new in zip(f, _fan(src, dst, near), strict=True):
                whole[k] = new
            w[k] = f[2][k] - f[1][k] >= math.pi - 1e-6
    radius = [_most(np.sqrt(_dot(x, x))) for x in (a, b, o)]
    (ax, ay), (bx, by), (ox, oy) = ((x[..., 0].copy(), x[..., 1].copy()) for x in (a, b, o))
    # The two fans as arcs measured like the pair's fan from its reference (everywhere
    # where the base and A or B meet).
    arcs = []
    for (ref, lo, hi), w in zip(fans, wide, strict=True):
        at = (ref - fan_ref[cand_pair] + math.pi) % (2 * math.pi) - math.pi
        arcs.append((np.where(w, -np.inf, at + lo - 1e-9), np.where(w, np.inf, at + hi + 1e-9)))

    corners = (ax, ay, bx, by, ox, oy)
    arc_table = np.stack([x for arc in arcs for x in arc])

    def covered(cell: np.ndarray, f1: np.ndarray, f2: np.ndarray) -> NDArray[np.bool_]:
        """Whether each slice f1..f2 of pair ``cell`` is covered: on each line along it,
        the offsets between A and B (each outline's extent across the slice's two end
        directions, widened by the bend) lie within the union of the sure intervals of
        the bases that come after A and before B on every line of the slice."""
        radii = (radius[0], radius[1], radius[2])
        return covered_slices(cell, f1, f2, fan_ref, corners, radii, counts, starts, arc_table, tau)

    cell = np.repeat(rows, _SLICES)
    step = np.tile(np.arange(_SLICES), len(rows))
    lo_f, span = fan_lo[cell] - 1e-9, fan_hi[cell] - fan_lo[cell] + 2e-9
    f1, f2 = lo_f + span * step / _SLICES, lo_f + span * (step + 1) / _SLICES
    f2[step == _SLICES - 1] = (lo_f + span)[step == _SLICES - 1]
    failed = np.zeros(m, bool)
    for halving in range(_HALVINGS + 1):
        if not len(cell):
            break
        bad = ~covered(cell, f1, f2)
        if halving == _HALVINGS:
            failed[cell[bad]] = True
            break
        # A pair with many slices uncovered most likely has clear lines: the search's.
        many = np.bincount(cell[bad], minlength=m) > _MOST_OPEN
        failed |= many
        bad &= ~many[cell]
        cell, f1, f2 = cell[bad], f1[bad], f2[bad]
        mid = (f1 + f2) / 2
        cell = np.repeat(cell, 2)
        f1, f2 = np.stack([f1, mid], axis=1).ravel(), np.stack([mid, f2], axis=1).ravel()
    out[rows] = ~failed[rows]
    return out


def _part_between(
    o: np.ndarray, a: np.ndarray, b: np.ndarray, margin: float
) -> tuple[np.ndarray, NDArray[np.bool_]]:
    """A quadrilateral inside each outline ``o[k]`` and inside the band between ``a[k]``
    and ``b[k]`` (``margin`` clear of both along the line between their centres), as 4
    corners in order; and whether it is one (not a sliver, a segment or nothing)."""
    d = b.mean(axis=1) - a.mean(axis=1)
    d /= np.maximum(np.sqrt(_dot(d, d)), 1e-300)[:, None]
    across = np.stack([-d[:, 1], d[:, 0]], axis=1)
    h = _most(_dot(d[:, None], a)) + margin
    g = _least(_dot(d[:, None], b)) - margin
    s, t = _dot(d[:, None], o), _dot(across[:, None], o)  # (k, 4): along and across
    # The part's corners: the outline's corners in the band, and where its edges cross
    # the band's two sides; its extremes along and across are the quadrilateral's.
    ss, ts, valid = [s], [t], [(s >= h[:, None]) & (s <= g[:, None])]
    s2, t2 = np.roll(s, -1, axis=1), np.roll(t, -1, axis=1)
    for level in (h, g):
        lv = level[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            f = (lv - s) / (s2 - s)
        ss.append(np.broadcast_to(lv, s.shape))
        ts.append(t + f * (t2 - t))
        valid.append(((s - lv) * (s2 - lv) < 0) & (h <= g)[:, None])
    s_all, t_all, ok = (np.concatenate(x, axis=1) for x in (ss, ts, valid))
    rows = np.arange(len(o))
    picks = []
    for key, sign in ((s_all, 1.0), (t_all, 1.0), (s_all, -1.0), (t_all, -1.0)):
        at = np.argmin(np.where(ok, sign * key, np.inf), axis=1)
        picks.append((s_all[rows, at], t_all[rows, at]))
    ps = np.stack([x for x, _ in picks], axis=1)
    pt = np.stack([y for _, y in picks], axis=1)
    area = 0.5 * np.abs(
        _cross(np.stack([ps, pt], axis=2), np.roll(np.stack([ps, pt], axis=2), -1, axis=1)).sum(
            axis=1
        )
    )
    size = np.maximum(_most(ps) - _least(ps), _most(pt) - _least(pt))
    solid = ok.any(axis=1) & (area > margin * size)  # on average wider than the margin
    part = ps[..., None] * d[:, None] + pt[..., None] * across[:, None]
    return part, solid


def _fan(
    src: np.ndarray, dst: np.ndarray, near: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The directions from a point of each convex outline ``src[k]`` to one of ``dst[k]``
    (``(k, v, 2)`` each), as a reference angle (centre to centre) and the least and
    greatest angle from it; the whole turn where two corners are within ``near`` (the
    outlines meet, or nearly: a short vector's angle is mostly rounding)."""
    ref = dst.mean(axis=1) - src.mean(axis=1)
    # Along and across ref, corner to corner: differences of the corners' own.
    along = _dot(ref[:, None], dst)[:, :, None] - _dot(ref[:, None], src)[:, None]
    across = _cross(ref[:, None], dst)[:, :, None] - _cross(ref[:, None], src)[:, None]
    ang = np.arctan2(across, along).reshape(len(src), src.shape[1] * dst.shape[1])
    lo, hi = _least(ang), _most(ang)
    # Farther apart (by the 1-norm) than both outlines are wide, no two corners are close.
    wide = [_most(x[..., k]) - _least(x[..., k]) for x in (src, dst) for k in (0, 1)]
    meet = np.zeros(len(src), bool)
    close = np.flatnonzero(_norm1(ref) <= wide[0] + wide[1] + wide[2] + wide[3] + 4 * near)
    span = (along[close] ** 2 + across[close] ** 2).reshape(len(close), ang.shape[1])
    meet[close] = _least(span) <= near * near * _dot(ref[close], ref[close])
    return (
        np.arctan2(ref[:, 1], ref[:, 0]),
        np.where(meet, -math.pi, lo),
        np.where(meet, math.pi, hi),
    )


def _least(x: np.ndarray) -> np.ndarray:
    """``x.min(axis=1)`` column by column (the same floats, many times faster for few;
    for booleans, ``x.all(axis=1)``)."""
    out = x[:, 0].copy()
    for c in range(1, x.shape[1]):
        np.minimum(out, x[:, c], out=out)
    return out


def _most(x: np.ndarray) -> np.ndarray:
    """``x.max(axis=1)`` column by column."""
    out = x[:, 0].copy()
    for c in range(1, x.shape[1]):
        np.maximum(out, x[:, c], out=out)
    return out


def _common_points(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """A point of both outlines of each touching or overlapping pair (``(k, 2)``): a
    corner of one in or on the other, else where two edges cross."""
    found = np.full((len(pa), 2), np.nan)
    for src, dst in ((pa, pb), (pb, pa)):
        held = _holds(src.reshape(-1, 2), np.repeat(dst, 4, axis=0)).reshape(-1, 4)
        rows = np.flatnonzero(held.any(axis=1) & np.isnan(found[:, 0]))
        found[rows] = src[rows, np.argmax(held[rows], axis=1)]
    rows = np.flatnonzero(np.isnan(found[:, 0]))
    g, point, _, _ = _edge_crossings(pa[rows], pb[rows])
    found[rows[g[::-1]]] = point[::-1]  # the first crossing of each row last: it stays
    return found


def _pair_blockers(
    corners: np.ndarray, live: np.ndarray, first: np.ndarray, second: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Flat ``(pair, base)`` index arrays, sorted by pair: the live bases (not the pair's
    own) that can cut a line between ``corners[first]`` and ``corners[second]``. Every
    such line lies in the box around the two and in the band they span along the normal
    of the line joining their centres, so a base outside either cannot cut one."""
    lo_b, hi_b = corners.min(axis=1), corners.max(axis=1)
    both = np.concatenate([corners[first], corners[second]], axis=1)  # (pairs, 8, 2)
    lo = np.stack([_least(both[..., 0]), _least(both[..., 1])], axis=1)
    hi = np.stack([_most(both[..., 0]), _most(both[..., 1])], axis=1)
    axis = corners[second].mean(axis=1) - corners[first].mean(axis=1)
    normal = np.stack([-axis[:, 1], axis[:, 0]], axis=1)
    band = np.einsum("pkd,pd->pk", both, normal)
    slack = 1e-9 * (1.0 + np.abs(band).max(axis=1))
    b_lo, b_hi = band.min(axis=1) - slack, band.max(axis=1) + slack
    bases = np.flatnonzero(live)
    cx, cy = np.ascontiguousarray(corners[..., 0]), np.ascontiguousarray(corners[..., 1])
    pairs_out, bases_out = [], []
    step = max(1, (1 << 18) // max(len(bases), 1))
    for start in range(0, len(first), step):
        rows = slice(start, start + step)
        near = (
            (hi_b[None, bases, 0] >= lo[rows, None, 0])
            & (hi_b[None, bases, 1] >= lo[rows, None, 1])
            & (lo_b[None, bases, 0] <= hi[rows, None, 0])
            & (lo_b[None, bases, 1] <= hi[rows, None, 1])
        )
        r, c = np.nonzero(near)
        r += start
        k = bases[c]
        other = (k != first[r]) & (k != second[r])
        r, k = r[other], k[other]
        nx, ny = normal[r, 0, None], normal[r, 1, None]
        side = cx[k] * nx + cy[k] * ny  # each corner across the pair's line
        across = (_most(side) > b_lo[r]) & (_least(side) < b_hi[r])
        pairs_out.append(r[across])
        bases_out.append(k[across])
    return np.concatenate(pairs_out), np.concatenate(bases_out)


def _nearest_points_many(pa: np.ndarray, pb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A point of each outline ``pa[k]`` and one of ``pb[k]`` (``(m, 4, 2)`` each) nearest
    each other, as ``(m, 2)`` arrays: a vertex of one and its foot on an edge of the
    other."""
    found = []
    for src, dst in ((pa, pb), (pb, pa)):
        foot = _feet(src, dst)
        gap = np.hypot(*(src[:, :, None, :] - foot).transpose(3, 0, 1, 2)).reshape(len(src), 16)
        best = np.argmin(gap, axis=1)
        rows = np.arange(len(src))
        found.append((gap[rows, best], src[rows, best // 4], foot.reshape(-1, 16, 2)[rows, best]))
    (gap_a, vertex_a, foot_a), (gap_b, vertex_b, foot_b) = found
    swap = (gap_b < gap_a)[:, None]
    return np.where(swap, foot_b, vertex_a), np.where(swap, vertex_b, foot_a)


def _polygon_distances(pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """:func:`~referee.geometry.polygon_distance` of each pair of outlines ``pa[k]``,
    ``pb[k]`` (``(m, 4, 2)`` each), with its arithmetic: 0 when a first corner lies in or
    on the other outline."""

    def holds(point: np.ndarray, poly: np.ndarray) -> np.ndarray:
        # points_in_polygon's even-odd rule and on-edge test, one point per outline.
        a, b = poly, np.roll(poly, -1, axis=1)
        px, py = point[:, 0:1], point[:, 1:2]
        ax, ay, bx, by = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
        straddle = (ay > py) != (by > py)
        with np.errstate(invalid="ignore", divide="ignore"):
            x_at = ax + (py - ay) * (bx - ax) / (by - ay)
        inside = np.sum(straddle & (px < x_at), axis=1) % 2 == 1
        on_edge = np.min(_point_seg_dist(point[:, None, :], a, b), axis=1) <= EPS
        return np.asarray(inside | on_edge)

    # Edges of outlines whose boxes are apart never meet: the least of the 32 corner-to-
    # edge distances is the least of the 16 edge-to-edge ones (the same floats).
    na, nb = np.roll(pa, -1, 1), np.roll(pb, -1, 1)
    d = np.minimum(
        _least(_point_seg_dist(pa[:, :, None], pb[:, None], nb[:, None]).reshape(len(pa), 16)),
        _least(_point_seg_dist(pb[:, :, None], pa[:, None], na[:, None]).reshape(len(pa), 16)),
    )
    near = np.flatnonzero(
        (_least(pa[..., 0]) <= _most(pb[..., 0]))
        & (_least(pb[..., 0]) <= _most(pa[..., 0]))
        & (_least(pa[..., 1]) <= _most(pb[..., 1]))
        & (_least(pb[..., 1]) <= _most(pa[..., 1]))
    )
    gaps = _seg_seg_dist(pa[near, :, None, :], na[near, :, None, :], pb[near, None], nb[near, None])
    d[near] = gaps.reshape(len(near), 16).min(axis=1)
    return np.where(holds(pa[:, 0], pb) | holds(pb[:, 0], pa), 0.0, d)


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


def _expand(counts: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Item ``i`` repeated ``counts[i]`` times, beside the indices ``starts[i] + 0, 1, ...``
    (each item against each of its candidates)."""
    item = np.repeat(np.arange(len(counts)), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    return item, np.repeat(starts, counts) + np.arange(len(item)) - first


# -- the exact search ------------------------------------------------------------------


class _Lines:
    """Candidate lines, flat over pairs: line ``k`` of pair ``pair[k]`` runs through
    ``start[k]`` and ``through[k]``; the segment it stands for must pass the ``anchor``
    points (the corners it grazes; NaN where none) to be a candidate at all."""

    def __init__(self) -> None:
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def add(
        self,
        pair: np.ndarray,
        start: np.ndarray,
        through: np.ndarray,
        anchor: np.ndarray | None = None,
        anchor2: np.ndarray | None = None,
    ) -> None:
        none = np.full((len(pair), 2), np.nan)
        a1 = none if anchor is None else anchor
        a2 = a1 if anchor2 is None else anchor2
        self.parts.append((pair, start, through, a1, a2))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if not self.parts:
            z = np.zeros((0, 2))
            return np.zeros(0, np.intp), z, z, z, z
        pair, start, through, a1, a2 = (np.concatenate(x) for x in zip(*self.parts, strict=True))
        return pair, start, through, a1, a2


def _shortest_clear_lines(
    pa: np.ndarray, pb: np.ndarray, cand_pair: np.ndarray, rects: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each pair ``pa[k]``, ``pb[k]`` whose nearest line is crossed: the length and
    ends of the shortest segment between them crossing none of its candidate bases
    ``rects[cand_pair == k]`` (sorted by pair), inf when there is none."""
    m = len(pa)
    counts = np.bincount(cand_pair, minlength=m)
    starts = np.cumsum(counts) - counts
    # The corners a clear line can graze: those lying between the two outlines.
    kp = np.repeat(cand_pair, 4)
    kc = rects.reshape(-1, 2)
    k_next = np.roll(rects, -1, axis=1).reshape(-1, 2)
    k_prev = np.roll(rects, 1, axis=1).reshape(-1, 2)
    hull = np.concatenate([pa, pb], axis=1)
    between = _may_graze(kc, k_prev, k_next, pa[kp], pb[kp])
    kp, kc, k_next, k_prev = kp[between], kc[between], k_next[between], k_prev[between]
    # A base overlapping one of the two: a clear line may start where their edges cross.
    for outline in (pa, pb):
        g, point, e0, e1 = _edge_crossings(rects, outline[cand_pair])
        kp, kc = np.r_[kp, cand_pair[g]], np.concatenate([kc, point])
        k_next, k_prev = np.concatenate([k_next, e1]), np.concatenate([k_prev, e0])
    order = np.argsort(kp, kind="stable")  # by pair, as the corner pairs below need
    kp, kc, k_next, k_prev = kp[order], kc[order], k_next[order], k_prev[order]
    # A line can only graze a corner it leaves the base at (the base on one side of it),
    # unless the corner is in or on one of the two outlines, where the segment may start.
    touching = np.r_[
        np.zeros(int(between.sum()), bool), np.ones(len(kp) - int(between.sum()), bool)
    ][order]
    touching |= _holds(kc, pa[kp]) | _holds(kc, pb[kp])

    def grazes(g: np.ndarray, d: np.ndarray) -> NDArray[np.bool_]:
        return touching[g] | _one_side(kc[g], k_prev[g], k_next[g], d)

    # The outlines' own corners, then each one's neighbours: (m, 8, 2).
    ends = hull
    ends_prev = np.concatenate([np.roll(pa, 1, axis=1), np.roll(pb, 1, axis=1)], axis=1)
    ends_next = np.concatenate([np.roll(pa, -1, axis=1), np.roll(pb, -1, axis=1)], axis=1)

    def leaves(pair: np.ndarray, v: np.ndarray, d: np.ndarray) -> NDArray[np.bool_]:
        return _leaves(ends[pair, v], ends_prev[pair, v], ends_next[pair, v], d)

    # Lines of the first kind: two constraints. A line from a corner of A (or B) only
    # stands for a segment ending there if it leaves the outline at that corner.
    lines = _Lines()
    pair, i, j = (
        x.reshape(-1)
        for x in np.meshgrid(np.arange(m), np.arange(4), np.arange(4) + 4, indexing="ij")
    )
    d = ends[pair, j] - ends[pair, i]
    keep = leaves(pair, i, d) & leaves(pair, j, -d)
    lines.add(pair[keep], ends[pair[keep], i[keep]], ends[pair[keep], j[keep]])
    g, v = (x.reshape(-1) for x in np.meshgrid(np.arange(len(kp)), np.arange(8), indexing="ij"))
    d = kc[g] - ends[kp[g], v]
    keep = leaves(kp[g], v, d) & grazes(g, d)
    g, v = g[keep], v[keep]
    lines.add(kp[g], ends[kp[g], v], kc[g], kc[g])
    lines.add(kp, kc, k_next)
    lines.add(kp, kc, k_prev)
    per = np.bincount(kp, minlength=m)
    last = (np.cumsum(per) - 1)[kp]  # the pair's last corner
    g, h = _expand(last - np.arange(len(kp)), np.arange(len(kp)) + 1)
    d = kc[h] - kc[g]
    keep = grazes(g, d) & grazes(h, d)
    g, h = g[keep], h[keep]
    lines.add(kp[g], kc[g], kc[h], kc[g], kc[h])
    nowhere = np.full((m, 2), np.nan)
    best = _shortest_free(
        lines, pa, pb, counts, starts, rects, (np.full(m, math.inf), nowhere, nowhere)
    )
    clear = np.flatnonzero(np.isfinite(best[0]))
    if not len(clear):
        return best
    # Lines of the second kind, for the pairs with a clear line: one constraint, and
    # shortest along it (a corner of one outline to its foot on an edge of the other,
    # or through a grazed corner at the turning angle).
    lines = _Lines()
    pair16 = np.repeat(clear, 16)
    for src, dst in ((pa, pb), (pb, pa)):
        corner = np.repeat(src[clear], 4, axis=1).reshape(-1, 2)
        lines.add(pair16, corner, _feet(src[clear], dst[clear]).reshape(-1, 2))
    sel = np.flatnonzero(np.isfinite(best[0])[kp])
    # Through corner c the gap is at least c's distances to the two outlines: a corner
    # that far cannot better the line found (a hair of room for rounding).
    reach = sum(_outline_distances(kc[sel], x[kp[sel]]) for x in (pa, pb))
    sel = sel[reach * (1 - 1e-12) - 1e-12 < best[0][kp[sel]]]
    g, start, through = _grazing_lines(kp[sel], kc[sel], pa, pb)
    keep = grazes(sel[g], through - start)
    lines.add(kp[sel[g[keep]]], start[keep], through[keep], start[keep])
    return _shortest_free(lines, pa, pb, counts, starts, rects, best)


def _shortest_free(
    lines: _Lines,
    pa: np.ndarray,
    pb: np.ndarray,
    counts: np.ndarray,
    starts: np.ndarray,
    rects: np.ndarray,
    best: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair, the shortest of ``best`` (lengths and ends) and the candidate segments
    of ``lines`` that cross none of the pair's candidate bases. Shortest first, so that
    a pair stops at its first clear one; the first few of every pair go together."""
    from referee.rules.crossings import crosses_any  # see _clear_pair_segments

    out, out_p, out_q = (x.copy() for x in best)
    pair, start, through, a1, a2 = lines.arrays()
    p, q, ok = _gaps(pair, start, through, a1, a2, pa, pb)
    length = np.hypot(*(q - p).T)
    ok &= length < out[pair]
    order = np.flatnonzero(ok)[np.lexsort((length[ok], pair[ok]))]
    pair, p, q, length = pair[order], p[order], q[order], length[order]
    group = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]])
    rank = np.arange(len(pair)) - np.repeat(group, np.diff(np.r_[group, len(pair)]))
    for first in (True, False):
        k = np.flatnonzero(((rank < _FIRST) == first) & (length < out[pair]))
        if not len(k):
            continue
        k = k[~crosses_any(p[k], q[k], counts[pair[k]], starts[pair[k]], rects)]
        _, at = np.unique(pair[k], return_index=True)  # the shortest clear one per pair
        k = k[at]
        k = k[length[k] < out[pair[k]]]
        out[pair[k]], out_p[pair[k]], out_q[pair[k]] = length[k], p[k], q[k]
    return out, out_p, out_q


def _gaps(
    pair: np.ndarray,
    start: np.ndarray,
    through: np.ndarray,
    a1: np.ndarray,
    a2: np.ndarray,
    pa: np.ndarray,
    pb: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, NDArray[np.bool_]]:
    """On each line ``start + t (through - start)``: the gap between outline ``pa[pair]``'s
    chord and ``pb[pair]``'s, as its ends ``(p on A, q on B)``, and whether it is a
    candidate: the line meets both outlines apart, and the anchors lie on the gap."""
    from referee.rules.crossings import gaps  # see _clear_pair_segments

    frames = [np.stack(_frames(x)) for x in (pa, pb)]
    return gaps(pair, start, through, np.stack([a1, a2]), *frames)


def _halfplanes(poly: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Convex outlines ``poly`` (``(k, v, 2)``, either winding) as half-planes: unit
    inward normals ``n`` (``(k, v, 2)``) and offsets ``o``, inside where ``n . x >= o``
    for every edge."""
    nxt = np.roll(poly, -1, axis=1)
    e = nxt - poly
    sign = np.where(_cross(poly, nxt).sum(axis=1) < 0, -1.0, 1.0)[:, None, None]
    n = sign * np.stack([-e[..., 1], e[..., 0]], axis=2)
    n /= np.maximum(np.hypot(n[..., 0], n[..., 1]), 1e-300)[..., None]
    return n, _dot(n, poly)


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


def _feet(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """``(m, 4, 4, 2)``: the point of each edge of ``dst[k]`` nearest each corner of
    ``src[k]``."""
    start, step = dst[:, None], (np.roll(dst, -1, axis=1) - dst)[:, None]
    rel = src[:, :, None, :] - start
    t = np.clip(_dot(rel, step) / np.maximum(_dot(step, step), 1e-300), 0.0, 1.0)
    return start + t[..., None] * step


def _may_graze(
    c: np.ndarray, prev: np.ndarray, nxt: np.ndarray, pa: np.ndarray, pb: np.ndarray
) -> NDArray[np.bool_]:
    """Whether a segment from outline ``pa[k]`` to ``pb[k]`` can pass base corner
    ``c[k]`` (neighbours ``prev``, ``nxt``) with the base on one side, or start at it:
    the corner lies between the two (in their hull), and the directions from ``pa``
    through it to ``pb`` (an arc) are not all inside the corner's angle or its
    opposite, where the line would enter the base."""
    between = _in_hull(c, np.concatenate([pa, pb], axis=1))
    rows = np.flatnonzero(between)
    c, prev, nxt, pa, pb = c[rows], prev[rows], nxt[rows], pa[rows], pb[rows]
    w = pb.mean(axis=1) - c

    def angles(v: np.ndarray) -> np.ndarray:  # of vectors v (k, 4, 2), from w
        return np.arctan2(_cross(w[:, None], v), _dot(w[:, None], v))

    to_b, from_a = angles(pb - c[:, None]), angles(c[:, None] - pa)
    lo = np.maximum(_least(to_b), _least(from_a))
    hi = np.minimum(_most(to_b), _most(from_a))
    # Arcs far from w may wrap: judge only the plain ones.
    plain = (_most(np.abs(to_b)) < 2.8) & (_most(np.abs(from_a)) < 2.8) & (lo <= hi)
    e1, e2 = nxt - c, prev - c
    turn = np.sign(_cross(e1, e2))
    size1, size2 = np.hypot(e1[:, 0], e1[:, 1]), np.hypot(e2[:, 0], e2[:, 1])
    base = np.arctan2(w[:, 1], w[:, 0])
    within = []
    for end in (lo, hi):
        u = np.stack([np.cos(base + end), np.sin(base + end)], axis=1)
        s1, s2 = turn * _cross(e1, u) / size1, turn * _cross(u, e2) / size2
        within.append(((s1 > 1e-9) & (s2 > 1e-9), (s1 < -1e-9) & (s2 < -1e-9)))
    (ahead_lo, behind_lo), (ahead_hi, behind_hi) = within
    enters = np.flatnonzero(plain & ((ahead_lo & ahead_hi) | (behind_lo & behind_hi)))
    starts = _holds(c[enters], pa[enters]) | _holds(c[enters], pb[enters])
    between[rows[enters[~starts]]] = False
    return between


def _in_hull(points: np.ndarray, hulls: np.ndarray) -> NDArray[np.bool_]:
    """Whether each point lies in (or on) the convex hull of its ``hulls`` row
    (``(k, v, 2)``): no gap of more than half a turn between the directions to them."""
    rel = hulls - points[:, None]
    ang = np.sort(np.arctan2(rel[..., 1], rel[..., 0]), axis=1)
    gaps = np.diff(ang, axis=1, append=ang[:, :1] + 2 * math.pi)
    at = _most((np.abs(rel[..., 0]) <= 1e-12) & (np.abs(rel[..., 1]) <= 1e-12))  # on a corner
    return np.asarray((_most(gaps) <= math.pi + 1e-9) | at)


def _grazing_lines(
    kp: np.ndarray, kc: np.ndarray, pa: np.ndarray, pb: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each corner ``kc[g]`` (of pair ``kp[g]``) and each edge of ``pa`` and of ``pb``
    facing it: the line through the corner along which the gap between those two edges'
    lines is shortest, as ``(g, start, through)``.

    With unit outward normals ``n1``, ``n2`` and the corner at heights ``h1``, ``h2``
    above the two edges' lines, the gap along direction ``u`` is
    ``h1 / (n1 . u) + h2 / (-n2 . u)``: a sum of two secants of the angle, convex, so the
    one turning point is found by Newton's method kept inside its bracket."""
    # Outward normals and offsets of every edge, and each corner's height above them.
    (n_a, o_a), (n_b, o_b) = _halfplanes(pa), _halfplanes(pb)
    h_a = o_a[kp] - _dot(n_a[kp], kc[:, None])
    h_b = o_b[kp] - _dot(n_b[kp], kc[:, None])
    g, ea, eb = np.nonzero((h_a >= -1e-12)[:, :, None] & (h_b >= -1e-12)[:, None, :])
    c = kc[g]
    n1, n2 = -n_a[kp[g], ea], -n_b[kp[g], eb]
    h1, h2 = np.maximum(h_a[g, ea], 0.0), np.maximum(h_b[g, eb], 0.0)
    phi = np.arctan2(n1[:, 1], n1[:, 0])
    delta = (np.arctan2(-n2[:, 1], -n2[:, 0]) - phi + math.pi) % (2 * math.pi) - math.pi
    keep = np.abs(delta) < math.pi - 1e-6
    g, c, h1, h2, phi, delta = g[keep], c[keep], h1[keep], h2[keep], phi[keep], delta[keep]
    # Both secants finite: alpha in (max(0, delta) - pi/2, min(0, delta) + pi/2); the
    # turning point lies between 0 (h2 = 0) and delta (h1 = 0).
    lo = np.maximum(np.minimum(0.0, delta), np.maximum(0.0, delta) - math.pi / 2 + 1e-9)
    hi = np.minimum(np.maximum(0.0, delta), np.minimum(0.0, delta) + math.pi / 2 - 1e-9)
    total = h1 + h2
    alpha = np.where(total > 0, delta * h2 / np.where(total > 0, total, 1.0), 0.0)
    # A guess outside the bracket starts from its middle: clipped, it would sit by a pole
    # of a secant, where each Newton step only moves half as far again (45 steps).
    alpha = np.where((alpha >= lo) & (alpha <= hi), alpha, (lo + hi) / 2)
    # With the corner on one edge's line (a height 0) the gap is one secant: least at
    # the bracket's point nearest its centre, no search needed.
    one = (h1 == 0) | (h2 == 0)
    alpha[one] = np.clip(np.where(h2 == 0, 0.0, delta), lo, hi)[one]
    todo = np.flatnonzero(~one)
    for _ in range(60):  # Newton converges in a few steps; halving where it would leave
        if not len(todo):
            break
        al, de, k1, k2 = alpha[todo], delta[todo], h1[todo], h2[todo]
        s1, s2 = 1 / np.cos(al), 1 / np.cos(al - de)
        t1, t2 = np.tan(al), np.tan(al - de)
        slope = k1 * s1 * t1 + k2 * s2 * t2
        bend = k1 * s1 * (t1 * t1 + s1 * s1) + k2 * s2 * (t2 * t2 + s2 * s2)
        lo[todo] = np.where(slope < 0, al, lo[todo])
        hi[todo] = np.where(slope > 0, al, hi[todo])
        step = al - slope / np.where(bend > 0, bend, 1.0)
        inside = ((step >= lo[todo]) & (step <= hi[todo])) | (slope == 0)
        alpha[todo] = np.where(inside, step, (lo[todo] + hi[todo]) / 2)
        moved = np.abs(alpha[todo] - al)
        todo = todo[(moved > 1e-14) & (hi[todo] - lo[todo] > 1e-14) & (slope != 0)]
    theta = phi + alpha
    u = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    return g, c, c + u


def _edge_crossings(
    rects: np.ndarray, outlines: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where an edge of ``rects[g]`` properly crosses an edge of ``outlines[g]`` (both
    ``(k, 4, 2)``): ``(g, point, edge start, edge end)``, the edge being the rectangle's."""
    r0, o0 = rects[:, :, None], outlines[:, None]
    d1 = np.roll(rects, -1, axis=1)[:, :, None] - r0
    d2 = np.roll(outlines, -1, axis=1)[:, None] - o0
    w = o0 - r0
    den = d1[..., 0] * d2[..., 1] - d1[..., 1] * d2[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (w[..., 0] * d2[..., 1] - w[..., 1] * d2[..., 0]) / den
        s = (w[..., 0] * d1[..., 1] - w[..., 1] * d1[..., 0]) / den
    inner = 1e-9
    g, edge, other = np.nonzero((t > inner) & (t < 1 - inner) & (s > inner) & (s < 1 - inner))
    start = rects[g, edge]
    end = rects[g, (edge + 1) % 4]
    point = start + t[g, edge, other][:, None] * (end - start)
    return g, point, start, end


def _cross(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.asarray(u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0])


def _dot(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``(u * v).sum(-1)`` over 2-vectors, the same floats without a short reduction
    (numpy's reductions along an axis of two or four are many times slower)."""
    return np.asarray(u[..., 0] * v[..., 0] + u[..., 1] * v[..., 1])


def _norm1(u: np.ndarray) -> np.ndarray:
    """``np.abs(u).sum(-1)`` over 2-vectors."""
    return np.asarray(np.abs(u[..., 0]) + np.abs(u[..., 1]))


def _one_side(c: np.ndarray, prev: np.ndarray, nxt: np.ndarray, d: np.ndarray) -> NDArray[np.bool_]:
    """Whether the line through corner ``c`` along ``d`` has both neighbouring corners
    ``prev`` and ``nxt`` on one side (or on it): it touches the convex base at ``c``
    without entering it."""
    s1, s2 = _cross(d, nxt - c), _cross(d, prev - c)
    tol = 1e-12 * np.hypot(d[:, 0], d[:, 1]) * (_norm1(nxt - c) + _norm1(prev - c))
    return np.asarray(((s1 >= -tol) & (s2 >= -tol)) | ((s1 <= tol) & (s2 <= tol)))


def _leaves(v: np.ndarray, prev: np.ndarray, nxt: np.ndarray, d: np.ndarray) -> NDArray[np.bool_]:
    """Whether direction ``d`` from corner ``v`` of a convex outline (neighbours ``prev``,
    ``nxt``) points out of it or along an edge: not strictly inside the corner's angle."""
    e1, e2 = nxt - v, prev - v
    w = _cross(e1, e2)
    return np.asarray(~((_cross(e1, d) * w > 0) & (_cross(d, e2) * w > 0)))


def _outline_distances(points: np.ndarray, polys: np.ndarray) -> np.ndarray:
    """Each point's distance to its convex outline ``polys[k]``: 0 inside or on it."""
    edge = _point_seg_dist(points[:, None], polys, np.roll(polys, -1, axis=1))
    return np.where(_holds(points, polys), 0.0, _least(edge))


def _holds(points: np.ndarray, polys: np.ndarray) -> NDArray[np.bool_]:
    """Whether each point lies in or within a hair of its convex outline ``polys``."""
    n, o = _halfplanes(polys)
    inside = _dot(n, points[:, None]) - o >= -1e-9
    return _least(inside)
