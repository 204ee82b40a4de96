"""Many segments against many outlines at once: the all-pairs map's contacts (crossing,
touching, within a margin), the crossed stretches and their depths.

:func:`segments_polygons` is the vectorised :func:`referee.geometry.segment_polygon`
(the same answers, pair by pair); :func:`segment_contacts` its sparse core, returning
only the pairs in contact. The edge tests of listed pairs and the depth searches are
compiled (:mod:`referee.maps.contacts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.geometry import EPS, Array, segment_polygon
from referee.maps.kernels import loop
from referee.maps.pairwise import _length
from referee.maps.prepared import (
    PreparedPolygons,
    _halfplane_rows,
    inner_room,
    points_polygons,
    prepare_polygons,
)


class SegmentEnds(NamedTuple):
    """Segments ``A[s]``-``B[s]`` between points ``ia[s]``, ``ib[s]``, and where those
    points stand against the outlines (``closed``, ``bdist``, ``(points, polygons)``: in or
    on each outline, distance to it): one value for the compiled contact loop."""

    A: Array
    B: Array
    ia: NDArray[np.intp]
    ib: NDArray[np.intp]
    closed: NDArray[np.bool_]
    bdist: Array


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


@dataclass(frozen=True)
class SegmentContacts:
    """:func:`segment_polygon` results for the (segment, polygon) pairs that can be in
    contact, as flat arrays over those candidate pairs (all other pairs are ``clear``
    and farther than the margin)."""

    seg: NDArray[np.intp]
    poly: NDArray[np.intp]
    crosses: NDArray[np.bool_]
    touches: NDArray[np.bool_]
    clearance: Array
    """Exact where at most the margin; ``inf`` where farther."""
    awkward: NDArray[np.bool_]
    """Knife-edge pairs, decided by :func:`segment_polygon` (``depth`` holds its depth)."""
    depth: Array
    lo: Array
    """Parameter where the segment first enters the polygon (0 if ``a`` is inside)."""
    hi: Array
    """Parameter where it last leaves (1 if ``b`` is inside)."""
    sure: NDArray[np.bool_]
    """Certainly crossing deeper than the margin (see :func:`segment_contacts`)."""


def segment_contacts(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    points: Array,
    ia: NDArray[np.intp],
    ib: NDArray[np.intp],
    closed: NDArray[np.bool_],
    bdist: Array,
    margin: float,
    spans: bool = True,
    certify: bool = False,
    pairs: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
) -> SegmentContacts:
    """The sparse core of :func:`segments_polygons`: segments ``A[s]``-``B[s]`` with
    ``A = points[ia]``, ``B = points[ib]`` and ``(closed, bdist) =``
    :func:`points_polygons` ``(points, prep)`` (or :func:`points_near_polygons` with a
    reach beyond ``margin``). Candidates come in segment order. ``spans=False`` skips
    the crossed stretches (``lo``, ``hi`` are then empty), which only depths need.

    ``certify=True`` settles pairs whose segment passes well inside the polygon's inner
    disc without the edge tests: they cross, and (with ``spans``, for convex polygons)
    they are marked ``sure``: deeper than ``margin`` at the middle of the crossed
    stretch. Their ``awkward``, ``depth``, ``lo`` and ``hi`` are then not computed
    (``False``, 0, 0, 1), so :func:`segments_polygons` never certifies.

    ``pairs`` (segment, polygon indices, in segment order), if given, are the only pairs
    tested (e.g. from :meth:`BearingIndex.near`): every pair in contact must be among
    them; the rest are never looked at."""
    room = None
    if certify:  # the discs for segments with neither end inside, and for the others
        room = np.stack([inner_room(prep, margin), inner_room(prep, margin, ends_inside=True)])
    if pairs is not None:
        # Imported here: numba costs a third of a second, which only maps need.
        contacts = loop("contacts", "contacts")

        cs, cp = (np.ascontiguousarray(x, np.intp) for x in pairs)
        keep, cross_k, clear_k, awkward_k, lo, hi, sure = contacts(
            SegmentEnds(A, B, ia, ib, closed, bdist), prep.layout, cs, cp,
            np.zeros((2, 0)) if room is None else room, margin, spans, room is not None,
        )  # fmt: skip
        return _settle_awkward(
            A, B, prep, margin, cs[keep], cp[keep], cross_k, clear_k, awkward_k, lo, hi, sure
        )
    # Blocks of segments bound every temporary to a few megabytes (segments x polygons
    # tables would grow with the square of the table).
    step = max(1, _BLOCK // max(len(prep.polys), 1))
    if len(A) <= step:
        return _contacts_block(A, B, prep, points, ia, ib, closed, bdist, margin, spans, room)
    parts = []
    for s in range(0, len(A), step):
        part = slice(s, s + step)
        got = _contacts_block(
            A[part],
            B[part],
            prep,
            points,
            ia[part],
            ib[part],
            closed,
            bdist,
            margin,
            spans,
            room,
        )
        got.seg[:] += s
        parts.append(got)
    return _concat(parts)


def _concat(parts: list[SegmentContacts]) -> SegmentContacts:
    if len(parts) == 1:
        return parts[0]
    return SegmentContacts(
        *(np.concatenate([getattr(q, f.name) for q in parts]) for f in fields(SegmentContacts))
    )


_BLOCK = 1 << 18
"""(segment, polygon) pairs per block in :func:`segment_contacts`' dense layout:
temporaries of a few megabytes, reused from block to block and call to call
(:mod:`referee.runtime`), in few enough blocks that numpy's per-call cost stays small."""


def passes_within(a: Array, b: Array, centres: Array, radii: Array) -> NDArray[np.bool_]:
    """Whether segment ``a[k]``-``b[k]`` comes strictly within ``radii[k]`` of
    ``centres[k]`` (all ``(k, 2)`` or ``(k,)``), a little short of it past rounding.

    >>> passes_within(np.array([[0.0, 0], [0, 0]]), np.array([[4.0, 0], [4, 0]]),
    ...               np.array([[2.0, 0.5], [2, 1.5]]), np.array([1.0, 1.0]))
    array([ True, False])
    """
    qx, qy = centres[:, 0] - a[:, 0], centres[:, 1] - a[:, 1]
    return _through_inner_disc(qx, qy, b[:, 0] - a[:, 0], b[:, 1] - a[:, 1], radii)


def _through_inner_disc(
    qx: Array,
    qy: Array,
    abx: Array,
    aby: Array,
    room: Array,
) -> NDArray[np.bool_]:
    """Which segments pass strictly within ``room`` (each one's :func:`inner_room`) of
    their outline's centre: they surely cross it, deeper than the margin. ``qx, qy`` (the
    outline's centre minus the segment's start) are overwritten."""
    t_c = qx * abx
    t_c += qy * aby
    t_c /= np.maximum(abx * abx + aby * aby, 1e-300)
    np.clip(t_c, 0.0, 1.0, out=t_c)
    qx -= t_c * abx
    qy -= t_c * aby
    qx *= qx
    qy *= qy
    qx += qy  # squared distance, compared with a slightly smaller disc's
    return np.asarray((room > 0) & (qx < room * room * (1 - 1e-9)))


def _contacts_block(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    points: Array,
    ia: NDArray[np.intp],
    ib: NDArray[np.intp],
    closed: NDArray[np.bool_],
    bdist: Array,
    margin: float,
    spans: bool,
    room: Array | None,
) -> SegmentContacts:
    """:func:`segment_contacts` for one block of segments against every polygon (the
    dense layout; listed pairs go to :func:`referee.maps.contacts.contacts`); ``room``
    (:func:`inner_room` without and with an end inside, stacked) when certifying."""
    p_n = len(prep.polys)
    # Bounding boxes by outcodes: a segment misses a box when both endpoints lie beyond
    # the same side of it, a test on distinct endpoints only.
    reach = margin + 1e-6
    plo, phi = prep.lo - reach, prep.hi + reach
    px, py = points[:, 0:1], points[:, 1:2]
    code = (px < plo[:, 0]).view(np.uint8)
    code |= (px > phi[:, 0]).view(np.uint8) << 1
    code |= (py < plo[:, 1]).view(np.uint8) << 2
    code |= (py > phi[:, 1]).view(np.uint8) << 3
    box = code[ia]
    box &= code[ib]
    fa = np.flatnonzero(box == 0)  # flat (segment, polygon) indices: faster than 2-d
    del box
    cs = fa // p_n
    cp = fa - cs * p_n
    # Then the line through the segment must pass within reach of the bounding circle
    # (a superset of the segment doing so: exact tests follow).
    sabx, saby = B[:, 0] - A[:, 0], B[:, 1] - A[:, 1]
    fa += ia[cs] * p_n - cs * p_n  # now (endpoint a, polygon)
    qx = (prep.centre[:, 0] - px).ravel()[fa]
    qy = (prep.centre[:, 1] - py).ravel()[fa]
    abx, aby = sabx[cs], saby[cs]
    qx *= aby
    qy *= abx
    qx -= qy
    qx *= qx
    abx *= abx
    aby *= aby
    abx += aby
    abx *= ((prep.radius + reach) ** 2)[cp]
    keep = np.flatnonzero(qx <= abx)
    cs, cp, fa = cs[keep], cp[keep], fa[keep]
    k_n = len(cs)
    sure = np.zeros(k_n, bool)
    if room is not None:  # certifying: the rooms of segments without and with an end inside
        qx = (prep.centre[:, 0] - px).ravel()[fa]
        qy = (prep.centre[:, 1] - py).ravel()[fa]
        abx, aby = sabx[cs], saby[cs]
        fb = fa + (ib[cs] - ia[cs]) * p_n
        ends_in = (closed.ravel()[fa] & (bdist.ravel()[fa] > EPS)) | (
            closed.ravel()[fb] & (bdist.ravel()[fb] > EPS)
        )
        sure = _through_inner_disc(qx, qy, abx, aby, room[ends_in.view(np.int8), cp])
    del qx, qy, abx, aby, keep
    sub = None
    if sure.any():  # the edge tests run on the others only
        sub = np.flatnonzero(~sure)
        cs_all, cp_all = cs, cp
        cs, cp, fa = cs[sub], cp[sub], fa[sub]
        k_n = len(cs)
    nv = prep.cx.shape[1]
    # Layout (vertex, candidate): long inner loops over candidates.
    ax, ay = A[:, 0][cs][None], A[:, 1][cs][None]
    abx, aby = sabx[cs][None], saby[cs][None]
    cx, cy = np.take(prep.cxT, cp, axis=1), np.take(prep.cyT, cp, axis=1)
    seg_len = np.hypot(abx, aby)
    tol = EPS * np.maximum(seg_len, 1.0)
    o_c = np.subtract(cy, ay)  # becomes the side of each vertex from the segment's line
    o_c *= abx
    tmp2 = cx - ax
    tmp2 *= aby
    o_c -= tmp2
    del tmp2
    pos = o_c > tol
    neg = o_c < -tol
    # Rows m and m + 1 are the ends of edge m (cyclic tables).
    straddle = pos[:-1] & neg[1:]
    straddle |= neg[:-1] & pos[1:]
    f = np.flatnonzero(straddle)
    del straddle
    ke = f // k_n
    ks = f - ke * k_n
    # Sides of the two endpoints from each straddling edge's line.
    fi = cp[ks] * nv + ke
    ex, ey = prep.ex.ravel()[fi], prep.ey.ravel()[fi]
    ax1 = ax[0, ks] - prep.cx.ravel()[fi]
    ay1 = ay[0, ks] - prep.cy.ravel()[fi]
    e_a = ex * ay1 - ey * ax1
    e_b = ex * (ay1 + aby[0, ks]) - ey * (ax1 + abx[0, ks])
    etol = prep.etol.ravel()[fi]
    proper = (np.abs(e_a) > etol) & (np.abs(e_b) > etol) & ((e_a > 0) != (e_b > 0))
    # Everything below works on the candidate pairs only (an endpoint inside a polygon
    # always makes its pair a candidate).
    fb = fa + (ib[cs] - ia[cs]) * p_n
    a_d, b_d = bdist.ravel()[fa], bdist.ravel()[fb]
    a_in = closed.ravel()[fa] & (a_d > EPS)  # strictly inside
    b_in = closed.ravel()[fb] & (b_d > EPS)
    cross_k = a_in | b_in
    kp = ks[proper]
    cross_k[kp] = True
    lo = hi = np.zeros(0)
    if spans:
        # Entry and exit of each crossed stretch: extreme crossing parameters per pair.
        with np.errstate(invalid="ignore", divide="ignore"):
            t_cross = e_a[proper] / (e_a[proper] - e_b[proper])
        lo = np.full(k_n, np.inf)
        hi = np.full(k_n, -np.inf)
        np.minimum.at(lo, kp, t_cross)
        np.maximum.at(hi, kp, t_cross)
        lo[a_in] = 0.0
        hi[b_in] = 1.0
        lo[~np.isfinite(lo)] = 0.0  # wholly inside without crossing an edge
        hi[~np.isfinite(hi)] = 1.0
    # Knife edges: a vertex on the segment, or an endpoint on an outline.
    len2 = np.maximum(seg_len[0] ** 2, 1e-300)
    f = np.flatnonzero(~(pos | neg))
    vv = f // k_n
    vs = f - vv * k_n
    t_v = ((cx[vv, vs] - ax[0, vs]) * abx[0, vs] + (cy[vv, vs] - ay[0, vs]) * aby[0, vs]) / len2[vs]
    awkward_k = (a_d <= EPS) | (b_d <= EPS)
    awkward_k[vs[(t_v >= -EPS) & (t_v <= 1 + EPS)]] = True
    clear_k = np.where(cross_k, 0.0, np.inf)
    if margin > 0:
        # A segment that does not cross comes nearest at an endpoint or at a vertex.
        # Only pairs that do not cross need it.
        near = np.minimum(a_d, b_d)
        nc = np.flatnonzero(~cross_k)
        o_n = np.abs(np.take(o_c, nc, axis=1))
        f = np.flatnonzero(o_n <= (margin + EPS) * seg_len[:, nc])
        nvx = f // len(nc)
        ns = nc[f - nvx * len(nc)]
        t_n = (
            (cx[nvx, ns] - ax[0, ns]) * abx[0, ns] + (cy[nvx, ns] - ay[0, ns]) * aby[0, ns]
        ) / len2[ns]
        within = (t_n >= 0) & (t_n <= 1)
        dv = np.abs(o_c[nvx, ns]) / np.sqrt(len2[ns])
        np.minimum.at(near, ns[within], dv[within])
        clear_k = np.where(cross_k, 0.0, np.where(near <= margin + EPS, near, np.inf))
    if sub is not None:
        cs, cp, k_n = cs_all, cp_all, len(cs_all)
        cross_k, clear_k, awkward_k = _spread(
            sub, k_n, (cross_k, True), (clear_k, 0.0), (awkward_k, False)
        )
        if spans:
            lo, hi = _spread(sub, k_n, (lo, 0.0), (hi, 1.0))
    return _settle_awkward(A, B, prep, margin, cs, cp, cross_k, clear_k, awkward_k, lo, hi, sure)


def _settle_awkward(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    margin: float,
    cs: NDArray[np.intp],
    cp: NDArray[np.intp],
    cross_k: NDArray[np.bool_],
    clear_k: Array,
    awkward_k: NDArray[np.bool_],
    lo: Array,
    hi: Array,
    sure: NDArray[np.bool_],
) -> SegmentContacts:
    """The candidates' contacts, with the knife-edge ones (``awkward_k``) decided by
    :func:`segment_polygon` (``cross_k`` and ``clear_k`` are updated in place)."""
    touch_k = np.zeros(len(cs), bool)
    depth_k = np.zeros(len(cs))
    for k in np.flatnonzero(awkward_k):
        one = segment_polygon(A[cs[k]], B[cs[k]], prep.polys[cp[k]])
        cross_k[k] = one.contact == "crosses"
        touch_k[k] = one.contact == "touches"
        clear_k[k] = one.clearance if one.clearance <= margin + EPS else np.inf
        depth_k[k] = one.depth
    return SegmentContacts(cs, cp, cross_k, touch_k, clear_k, awkward_k, depth_k, lo, hi, sure)


def _spread(sub: NDArray[np.intp], n: int, *parts: tuple[NDArray, object]) -> list[NDArray]:
    """Arrays of length ``n`` holding each ``values`` at ``sub`` and ``fill`` elsewhere."""
    out = []
    for values, fill in parts:
        full = np.full(n, fill, values.dtype)
        full[sub] = values
        out.append(full)
    return out


def stretch_depths(
    A: Array, B: Array, prep: PreparedPolygons, con: SegmentContacts, sel: NDArray[np.intp]
) -> Array:
    """Depth at the middle of the crossed stretch for candidates ``sel`` (crossing, not
    awkward): a depth the segment certainly reaches (0 if the middle is not inside)."""
    middle_depths = loop("contacts", "middle_depths")

    mid = (con.lo[sel] + con.hi[sel]) / 2
    return middle_depths(
        A, B, con.seg[sel], con.poly[sel], mid, prep.convex, prep.halfplanes, prep.rows
    )


_ROWS = 2048
"""Rows per block in :func:`stretch_depths` (eight times that in
:func:`stretch_depth_floors`)."""


def stretch_depth_floors(
    A: Array, B: Array, prep: PreparedPolygons, con: SegmentContacts, sel: NDArray[np.intp]
) -> Array:
    """Cheap lower bounds of :func:`stretch_depths` (never above it by more than
    rounding, about 1e-12): the middle of the stretch lies at least ``inner`` minus its
    distance from the polygon's centre inside the polygon."""
    out = np.empty(len(sel))
    for k in range(0, len(sel), 8 * _ROWS):  # blocks: no megabyte temporaries
        part = sel[k : k + 8 * _ROWS]
        ws, wp = con.seg[part], con.poly[part]
        mid = (con.lo[part] + con.hi[part]) / 2
        ax, ay = A[ws, 0], A[ws, 1]
        mx = ax + mid * (B[ws, 0] - ax)
        my = ay + mid * (B[ws, 1] - ay)
        mx -= prep.centre[wp, 0]
        my -= prep.centre[wp, 1]
        np.subtract(prep.inner[wp], _length(mx, my), out=out[k : k + 8 * _ROWS])
    return out


def golden_depths(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    con: SegmentContacts,
    sel: NDArray[np.intp],
    limit: Array | None = None,
) -> Array:
    """Largest inside distance over each crossed stretch, for candidates ``sel``: exact
    in convex outlines (:func:`_convex_max_depths`), elsewhere by golden-section search
    (exact where the distance is unimodal along the stretch). With ``limit`` (per
    candidate), searched rows stop as soon as whether their result exceeds the limit is
    settled; their value then only answers that comparison."""
    out = np.empty(len(sel))
    convex = prep.convex[con.poly[sel]]
    for part in (np.flatnonzero(convex), np.flatnonzero(~convex)):
        if not len(part):
            continue
        ws, wp, lo, hi = (
            con.seg[sel[part]],
            con.poly[sel[part]],
            con.lo[sel[part]],
            con.hi[sel[part]],
        )
        if convex[part[0]]:
            convex_max_depths = loop("contacts", "convex_max_depths")

            out[part] = convex_max_depths(A, B, ws, wp, lo, hi, prep.halfplanes)
        else:
            cut = None if limit is None else limit[part]
            out[part] = _golden_many(A[ws], B[ws], prep, wp, lo, hi, limit=cut)
    return out


def _convex_max_depths(
    A: Array, B: Array, prep: PreparedPolygons, wp: NDArray[np.intp], lo: Array, hi: Array
) -> Array:
    """Exact largest depth along segments ``A[k]``-``B[k]`` over parameters ``lo..hi`` in
    convex polygons ``wp[k]`` (0 if never inside). Along the segment each edge line's
    distance is linear, ``g_e(t) = a_e + b_e t``, and the depth is their least, a concave
    function: its peak is where a rising and a falling line cross, at the crossing of
    least height (a two-variable linear programme), clamped to the span."""
    hx, hy, ho = _halfplane_rows(prep, wp)
    ax, ay = A[:, 0:1], A[:, 1:2]
    a = hx * ax + hy * ay - ho  # (k, 8); unused columns +inf with slope 0
    b = hx * (B[:, 0:1] - ax) + hy * (B[:, 1:2] - ay)
    up, down = b > 0, b < 0
    pair = up[:, :, None] & down[:, None, :]  # (k, rising e, falling f)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        steep = b[:, :, None] - b[:, None, :]
        height = (a[:, :, None] * -b[:, None, :] + a[:, None, :] * b[:, :, None]) / steep
        at = (a[:, None, :] - a[:, :, None]) / steep
    height = np.where(pair, height, np.inf).reshape(len(a), -1)
    best = np.argmin(height, axis=1)
    peak = np.take_along_axis(at.reshape(len(a), -1), best[:, None], axis=1)[:, 0]
    peak = np.where(np.isfinite(height[np.arange(len(a)), best]), peak, lo)
    out = np.zeros(len(a))
    for t in (lo, hi, np.clip(peak, lo, hi)):  # the peak, or the nearer end of the span
        with np.errstate(invalid="ignore"):
            depth = np.min(a + b * t[:, None], axis=1)
        np.fmax(out, depth, out=out)
    return out


def segments_polygons(
    a: ArrayLike,
    b: ArrayLike,
    polygons: Sequence[ArrayLike] | PreparedPolygons,
    *,
    margin: float = 0.0,
    depth: bool = False,
) -> SegmentsContact:
    """Vectorised :func:`segment_polygon` for segments ``a[i]``-``b[i]`` (``(s, 2)`` each)
    against every polygon, built for all-pairs lines of sight between pieces.

    Orientation of every polygon vertex against every segment line finds the
    edges a segment properly crosses; work that depends only on an endpoint (is it
    inside, how far from the outline) is done once per distinct endpoint. Rare
    knife-edge contacts (a vertex exactly on a segment, an endpoint on an outline)
    are decided by :func:`segment_polygon`. ``margin`` bounds the clearances and
    depths reported exactly (see :class:`SegmentsContact`).
    :func:`segment_contacts` is the same test returning only the pairs in contact.

    >>> sq = [(0, 0), (4, 0), (4, 4), (0, 4)]
    >>> r = segments_polygons([(-1, 2), (-1, 0), (-1, 6)], [(5, 2), (5, 0), (5, 6)], [sq],
    ...                       margin=3)
    >>> r.crosses[:, 0].tolist(), r.touches[:, 0].tolist(), r.clearance[:, 0].tolist()
    ([True, False, False], [False, True, False], [0.0, 0.0, 2.0])
    """
    A = np.asarray(a, float).reshape(-1, 2)
    B = np.asarray(b, float).reshape(-1, 2)
    prep = prepare_polygons(polygons)
    s_n, p_n = len(A), len(prep.polys)
    crosses = np.zeros((s_n, p_n), bool)
    touches = np.zeros((s_n, p_n), bool)
    clearance = np.full((s_n, p_n), np.inf)
    depths = np.zeros((s_n, p_n))
    if s_n == 0 or p_n == 0:
        return SegmentsContact(crosses, touches, clearance, depths)
    # Distinct endpoints: inside tests and outline distances once per point.
    pts, inv = np.unique(np.concatenate([A, B]), axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    ia, ib = inv[:s_n], inv[s_n:]
    closed, bdist = points_polygons(pts, prep)
    con = segment_contacts(A, B, prep, pts, ia, ib, closed, bdist, margin, depth)
    cs, cp = con.seg, con.poly
    crosses[cs, cp] = con.crosses
    touches[cs, cp] = con.touches
    clearance[cs, cp] = con.clearance
    depths[cs, cp] = con.depth
    if depth:
        sel = np.flatnonzero(con.crosses & ~con.awkward)
        got = stretch_depths(A, B, prep, con, sel)
        shallow = np.flatnonzero(got <= margin)
        if len(shallow):
            got[shallow] = np.maximum(got[shallow], golden_depths(A, B, prep, con, sel[shallow]))
        depths[cs[sel], cp[sel]] = got
    return SegmentsContact(crosses, touches, clearance, depths)


def _golden_many(
    A: Array,
    B: Array,
    prep: PreparedPolygons,
    wp: NDArray[np.intp],
    lo: Array,
    hi: Array,
    iters: int = 30,
    limit: Array | None = None,
) -> Array:
    """Vectorised golden-section maximum of the signed boundary distance along segments
    ``A[k]``-``B[k]`` in polygon ``wp[k]``, over parameters ``lo..hi`` (one new
    evaluation per iteration). With ``limit``, see :func:`golden_depths`: the best value
    so far never decreases, and no later point (all within the bracket) can exceed the
    cap that the two inner values put on the bracket, the distance being 1-Lipschitz
    along the segment."""
    golden_search = loop("contacts", "golden_search")

    cut = np.zeros(0) if limit is None else np.asarray(limit, float)
    return golden_search(A, B, wp, lo, hi, prep.rows, iters, cut)
