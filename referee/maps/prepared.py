"""Outlines laid out once for the batched polygon queries of the all-pairs map (compare
shapely's ``prepare``): which points lie in which outlines and how far from them, the
discs inside each outline that certify a crossing.

The arithmetic of each distance is :func:`referee.geometry.point_segment_distance`'s, op
for op, so every float is the one the single questions get.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.geometry import EPS, Array, BoolArray, as_polygon

_EdgeRows = tuple[Array, Array, Array, Array, Array, Array, BoolArray, BoolArray]
"""Edge tables ``cx, cy, dy, ex, ey, den, zero-length, padding`` for :func:`_dist_parity`."""


class OutlineLayout(NamedTuple):
    """The outlines as the compiled loops read them (:attr:`PreparedPolygons.layout`):
    one value instead of a dozen arrays a call. numba takes a named tuple of arrays as
    cheaply as the arrays one by one; the fields are :class:`PreparedPolygons`'."""

    cx: Array
    cy: Array
    ex: Array
    ey: Array
    etol: Array
    counts: NDArray[np.intp]
    lo: Array
    hi: Array
    centre: Array
    radius: Array
    convex: NDArray[np.bool_]
    hx: Array
    hy: Array
    ho: Array


@dataclass(frozen=True)
class PreparedPolygons:
    """Outlines laid out once for the vectorised tests (compare shapely's ``prepare``).

    ``verts``/``ends`` are all edges end to end (polygon ``k`` owns ``starts[k]`` to
    ``starts[k] + counts[k]``); the ``(polygons, max vertices)`` tables ``cx``, ``cy``
    (edge starts) and ``ex``, ``ey`` (edge vectors) repeat each outline's last vertex
    as zero-length padding, which never crosses anything.
    """

    polys: tuple[Array, ...]
    counts: NDArray[np.intp]
    starts: NDArray[np.intp]
    verts: Array
    ends: Array
    cx: Array
    cy: Array
    ex: Array
    ey: Array
    etol: Array
    """``EPS`` scaled to each edge's length (at least ``EPS``)."""
    lo: Array
    hi: Array
    centre: Array
    radius: Array
    rows: _EdgeRows
    """The edge tables again, padded to a multiple of 8 columns (cheap row reductions)."""
    inner: Array
    """Radius of a disc about ``centre`` inside the polygon (0 if the centre is not)."""
    convex: NDArray[np.bool_]
    halfplanes: tuple[Array, Array, Array]
    """Convex outlines' edge lines padded like ``rows``: unit inward normals ``hx, hy``
    and offsets ``ho``, so that an inside point's depth is the least ``hx x + hy y - ho``
    (:func:`referee.maps.contacts.middle_depths`). Padding, zero-length edges and other
    outlines hold ``0, 0, -inf``: never the least."""
    cxT: Array
    """Vertices as ``(max vertices + 1, polygons)`` tables: each outline's vertices, then
    its first vertex again (closing it) down to the bottom row, so that row ``m`` and
    row ``m + 1`` are edge ``m`` (zero-length past the last edge)."""
    cyT: Array
    rooms: dict[tuple[float, bool], Array] = field(default_factory=dict, compare=False, repr=False)
    """:func:`inner_room` by margin, remembered: one all-pairs map asks for it thrice."""

    @functools.cached_property
    def layout(self) -> OutlineLayout:
        """These outlines as the compiled loops take them (:class:`OutlineLayout`)."""
        hx, hy, ho = self.halfplanes
        return OutlineLayout(
            self.cx, self.cy, self.ex, self.ey, self.etol, self.counts,
            self.lo, self.hi, self.centre, self.radius, self.convex, hx, hy, ho,
        )  # fmt: skip

    def subset(self, keep: NDArray[np.intp]) -> PreparedPolygons:
        """:func:`prepare_polygons` of the outlines ``keep`` (in that order), taken from
        these tables: each outline's rows are its own, so they are the same floats (for
        views of one table that see different outlines)."""
        counts = self.counts[keep]
        p_n = len(keep)
        nv = int(counts.max()) if p_n else 1
        w8 = -(-nv // 8) * 8
        starts = np.zeros(p_n, np.intp)
        np.cumsum(counts[:-1], out=starts[1:])
        which = (
            np.concatenate(
                [np.arange(s, s + c) for s, c in zip(self.starts[keep], counts, strict=True)]
            )
            if p_n
            else np.zeros(0, np.intp)
        )
        rows = tuple(r[keep, :w8] for r in self.rows)
        return PreparedPolygons(
            tuple(self.polys[k] for k in keep), counts, starts, self.verts[which],
            self.ends[which], self.cx[keep, :nv], self.cy[keep, :nv], self.ex[keep, :nv],
            self.ey[keep, :nv], self.etol[keep, :nv], self.lo[keep], self.hi[keep],
            self.centre[keep], self.radius[keep], rows,  # type: ignore[arg-type]
            self.inner[keep], self.convex[keep],
            tuple(h[keep, :w8] for h in self.halfplanes),  # type: ignore[arg-type]
            self.cxT[: nv + 1, keep], self.cyT[: nv + 1, keep],
        )  # fmt: skip

    # The methods are the public face of this module's functions (the only way code
    # outside referee/maps reaches them; segments crossing outlines: MapTable.segments);
    # they call those functions as they are, so the floats and the loops' caches stay.

    @classmethod
    def of(cls, polygons: Sequence[ArrayLike] | PreparedPolygons) -> PreparedPolygons:
        """``polygons`` laid out once (:func:`prepare_polygons`)."""
        return prepare_polygons(polygons)

    def points(self, points: ArrayLike) -> tuple[NDArray, Array]:
        """``(inside, distance)`` of ``points (n, 2)`` against every outline, ``(n, p)``
        each (:func:`points_polygons`)."""
        return points_polygons(points, self)

    def near(self, points: ArrayLike, reach: float) -> tuple[NDArray, Array]:
        """:meth:`points` where it can matter within ``reach`` of an outline
        (:func:`points_near_polygons`)."""
        return points_near_polygons(points, self, reach)


def prepare_polygons(polygons: Sequence[ArrayLike] | PreparedPolygons) -> PreparedPolygons:
    """Lay out outlines for :func:`segment_contacts` and :func:`points_polygons`.

    >>> prepare_polygons([[(0, 0), (4, 0), (4, 4)], [(0, 0), (1, 0), (1, 1), (0, 1)]]).cx
    array([[0., 4., 4., 4.],
           [0., 1., 1., 0.]])
    """
    if isinstance(polygons, PreparedPolygons):
        return polygons
    polys = tuple(as_polygon(p) for p in polygons)
    p_n = len(polys)
    counts = np.array([len(p) for p in polys], np.intp)
    starts = np.zeros(p_n, np.intp)
    np.cumsum(counts[:-1], out=starts[1:])
    verts = np.concatenate(polys) if p_n else np.zeros((0, 2))
    nxt = np.arange(len(verts)) + 1
    nxt[starts + counts - 1] = starts
    ends = verts[nxt]
    nv = int(counts.max()) if p_n else 1
    col = np.arange(nv)[None, :]
    last = (counts - 1)[:, None]
    c_idx = starts[:, None] + np.minimum(col, last)
    d_idx = np.where(col < last, c_idx + 1, np.where(col == last, starts[:, None], c_idx))
    cx, cy = verts[c_idx, 0], verts[c_idx, 1]
    ex, ey = verts[d_idx, 0] - cx, verts[d_idx, 1] - cy
    etol = EPS * np.maximum(np.hypot(ex, ey), 1.0)
    if p_n:
        lo = np.minimum.reduceat(verts, starts, axis=0)
        hi = np.maximum.reduceat(verts, starts, axis=0)
        centre = np.add.reduceat(verts, starts, axis=0) / counts[:, None]
        off = verts - np.repeat(centre, counts, axis=0)
        radius = np.sqrt(np.maximum.reduceat(off[:, 0] ** 2 + off[:, 1] ** 2, starts))
    else:
        lo = hi = centre = np.zeros((0, 2))
        radius = np.zeros(0)
    # Zero-length padding edges at the last vertex up to a multiple of 8 columns.
    col8 = np.arange(-(-nv // 8) * 8)[None, :]
    c8 = starts[:, None] + np.minimum(col8, last)
    d8 = np.where(col8 < last, c8 + 1, np.where(col8 == last, starts[:, None], c8))
    cx8, cy8, dy8 = verts[c8, 0], verts[c8, 1], verts[d8, 1]
    ex8, ey8 = verts[d8, 0] - cx8, dy8 - cy8
    den8 = ex8 * ex8 + ey8 * ey8
    rows = (cx8, cy8, dy8, ex8, ey8, den8, ~(den8 > 0), col8 >= counts[:, None])
    d_c, in_c = _dist_parity(centre[:, 0:1], centre[:, 1:2], rows)
    inner = np.where(in_c, d_c, 0.0)
    # Convex: every turn from one edge to the next has the same sense.
    e = ends - verts
    turn = e[:, 0] * e[nxt, 1] - e[:, 1] * e[nxt, 0]
    if p_n:
        convex = (np.minimum.reduceat(turn, starts) >= 0) | (np.maximum.reduceat(turn, starts) <= 0)
    else:
        convex = np.zeros(0, bool)
    sense = np.where(np.add.reduceat(turn, starts) >= 0, 1.0, -1.0) if p_n else np.zeros(0)
    unused = ~(den8 > 0) | (col8 >= counts[:, None]) | ~convex[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):  # zero-length edges: unused
        norm = sense[:, None] / np.sqrt(den8)
        hx, hy = np.where(unused, 0.0, -ey8 * norm), np.where(unused, 0.0, ex8 * norm)
    ho = np.where(unused, -np.inf, hx * cx8 + hy * cy8)
    cyc = np.arange(nv + 1)[:, None]
    cyc = starts[None, :] + np.where(cyc < counts[None, :], cyc, 0)
    return PreparedPolygons(
        polys, counts, starts, verts, ends, cx, cy, ex, ey, etol, lo, hi, centre, radius,
        rows, inner, convex, (hx, hy, ho), verts[cyc, 0], verts[cyc, 1],
    )  # fmt: skip


def _edge_rows(prep: PreparedPolygons, wp: NDArray[np.intp]) -> _EdgeRows:
    """The prepared edge tables of polygons ``wp``, one row each, for :func:`_dist_parity`."""
    cx, cy, dy, ex, ey, den, flat, pad = prep.rows
    return (
        cx.take(wp, 0), cy.take(wp, 0), dy.take(wp, 0), ex.take(wp, 0), ey.take(wp, 0),
        den.take(wp, 0), flat.take(wp, 0), pad.take(wp, 0),
    )  # fmt: skip


def _dist_parity(px: Array, py: Array, rows: _EdgeRows) -> tuple[Array, BoolArray]:
    """For points ``(k, 1)`` and :func:`_edge_rows`: the distance to the outline (the
    arithmetic of :func:`referee.geometry._point_seg_dist`, same rounding) and whether the point is
    inside by crossing number (:func:`_parity`; padding never straddles)."""
    cx, cy, dy, ex, ey, den, flat, pad = rows
    k = len(cx)
    apx = np.subtract(px, cx)
    apy = np.subtract(py, cy)
    t = apx * ex
    tmp = apy * ey
    t += tmp
    with np.errstate(invalid="ignore", divide="ignore"):
        t /= den
    np.clip(t, 0.0, 1.0, out=t)
    t[flat] = 0.0
    np.multiply(t, ex, out=tmp)
    apx -= tmp
    np.multiply(t, ey, out=tmp)
    apy -= tmp
    d = np.hypot(apx, apy, out=apx)
    d[pad] = np.inf
    dist = _row_min8(d)
    straddle = (cy > py) != (dy > py)
    x_at = np.subtract(py, cy, out=apy)
    x_at *= ex
    with np.errstate(invalid="ignore", divide="ignore"):
        x_at /= ey
    x_at += cx
    straddle &= px < x_at
    # Crossing-number parity: each 8 columns are one 64-bit word of 0/1 bytes.
    words = np.bitwise_xor.reduce(straddle.view(np.uint64).reshape(k, d.shape[1] // 8), axis=1)
    return dist, np.asarray(np.bitwise_count(words) & 1 == 1)


def _halfplane_rows(prep: PreparedPolygons, wp: NDArray[np.intp]) -> tuple[Array, Array, Array]:
    """The :attr:`PreparedPolygons.halfplanes` of convex polygons ``wp``, one row each."""
    return tuple(h.take(wp, 0) for h in prep.halfplanes)  # type: ignore[return-value]


def _row_min8(d: Array) -> Array:
    """Row minima of ``(k, 8 j)``: over blocks of 8 columns by halving, then across the
    blocks (numpy's reductions along short rows are slow)."""
    m = d.reshape(len(d), d.shape[1] // 8, 8)
    m = np.minimum(m[..., :4], m[..., 4:])
    m = np.minimum(m[..., :2], m[..., 2:])
    return np.asarray(np.minimum(m[..., 0], m[..., 1]).min(axis=1))


def points_polygons(
    points: ArrayLike, polygons: Sequence[ArrayLike] | PreparedPolygons
) -> tuple[NDArray, Array]:
    """For ``points (n, 2)`` against each polygon: ``(inside, distance)``, both ``(n, p)``:
    whether each point lies in the closed polygon, and its distance to the outline.

    >>> inside, dist = points_polygons([(1, 2), (5, 2)], [[(0, 0), (4, 0), (4, 4), (0, 4)]])
    >>> inside.tolist(), dist.tolist()
    ([[True], [False]], [[1.0], [1.0]])
    """
    pts = np.asarray(points, float).reshape(-1, 2)
    prep = prepare_polygons(polygons)
    p_n = len(prep.polys)
    if not p_n or not len(pts):
        return np.zeros((len(pts), p_n), bool), np.zeros((len(pts), p_n))
    verts, ends, starts = prep.verts, prep.ends, prep.starts
    vx, vy = verts[:, 0], verts[:, 1]
    ex, ey = ends[:, 0] - vx, ends[:, 1] - vy
    den = ex * ex + ey * ey
    px, py = pts[:, 0:1], pts[:, 1:2]
    # _point_seg_dist's arithmetic, in place: (points, all edges) tables.
    apx = px - vx
    apy = py - vy
    t = apx * ex
    tmp = apy * ey
    t += tmp
    with np.errstate(invalid="ignore", divide="ignore"):
        t /= den
    np.clip(t, 0.0, 1.0, out=t)
    if not np.all(den > 0):
        t[:, ~(den > 0)] = 0.0
    np.multiply(t, ex, out=tmp)
    apx -= tmp
    np.multiply(t, ey, out=tmp)
    apy -= tmp
    dist = np.minimum.reduceat(np.hypot(apx, apy, out=apx), starts, 1)
    straddle = (vy > py) != (ends[:, 1] > py)
    x_at = np.subtract(py, vy, out=apy)
    x_at *= ex
    with np.errstate(invalid="ignore", divide="ignore"):
        x_at /= ey
    x_at += vx
    straddle &= px < x_at
    parity = np.add.reduceat(straddle.view(np.int8), starts, axis=1)
    return (parity % 2 == 1) | (dist <= EPS), dist


def points_near_polygons(
    points: ArrayLike, prep: PreparedPolygons, reach: float
) -> tuple[NDArray, Array]:
    """:func:`points_polygons` where it can matter within ``reach`` (> 0) of an outline:
    exact for points in a polygon's bounding box grown by ``reach``; elsewhere a point is
    outside and farther than ``reach``, reported as distance ``inf``.

    >>> inside, dist = points_near_polygons([(1, 2), (9, 2)], prepare_polygons(
    ...     [[(0, 0), (4, 0), (4, 4), (0, 4)]]), 1.0)
    >>> inside.tolist(), dist.tolist()
    ([[True], [False]], [[1.0], [inf]])
    """
    pts = np.asarray(points, float).reshape(-1, 2)
    p_n = len(prep.polys)
    closed = np.zeros((len(pts), p_n), bool)
    dist = np.full((len(pts), p_n), np.inf)
    if not p_n or not len(pts):
        return closed, dist
    px, py = pts[:, 0:1], pts[:, 1:2]
    box = (px >= prep.lo[:, 0] - reach) & (px <= prep.hi[:, 0] + reach)
    box &= (py >= prep.lo[:, 1] - reach) & (py <= prep.hi[:, 1] + reach)
    k, q = np.nonzero(box)
    d, parity = _dist_parity(px[k], py[k], _edge_rows(prep, q))
    closed[k, q] = parity | (d <= EPS)
    dist[k, q] = d
    return closed, dist


def inner_room(prep: PreparedPolygons, margin: float, *, ends_inside: bool = False) -> Array:
    """Radius of each outline's disc about its centre such that a segment passing strictly
    within it, with neither end strictly inside the outline (or either, with
    ``ends_inside``), certainly crosses deeper than ``margin`` (:func:`segment_contacts`
    marks it ``sure``); 0 where there is none.

    With ``margin > 0`` the depth is measured at the middle of the crossed stretch, from
    the first entry to the last exit. For a convex outline the depth along a chord is
    concave, so at the middle it is at least half the depth anywhere on it. For any
    outline, the entry lies between where the line meets the bounding circle and where
    it meets the inner disc, and so does the exit on the other side: that bounds how far
    the middle can stray from the centre (:func:`_mid_stretch_room`).

    >>> square = prepare_polygons([[(0, 0), (4, 0), (4, 4), (0, 4)]])
    >>> inner_room(square, 0.0).round(6).tolist(), inner_room(square, 0.25).round(6).tolist()
    ([2.0], [1.649871])
    """
    known = prep.rooms.get((margin, ends_inside))
    if known is not None:
        return known
    spans = margin > 0
    room = prep.inner - (2 * margin + 1e-9 if spans else 1e-9 * (1 + prep.inner))
    if spans:
        room = np.where(prep.convex, np.maximum(room, 0.0), 0.0)
        if not ends_inside:  # an end inside starts the stretch there: no bound on its middle
            room = np.maximum(room, _mid_stretch_room(prep.inner, prep.radius, margin))
    room = np.where(room > 0, room, 0.0)
    room.flags.writeable = False
    prep.rooms[(margin, ends_inside)] = room
    return room


def _mid_stretch_room(inner: Array, radius: Array, margin: float) -> Array:
    """The largest offset ``p`` from the centre at which a line crossing the inner disc
    (radius ``inner``, inside the outline) still has its crossed stretch's middle deeper
    than ``margin``, for an outline within ``radius`` of the centre; 0 if none.

    Along the line, with ``hR`` and ``hr`` the half chords of the two circles, the
    stretch starts within ``[-hR, -hr]`` and ends within ``[hr, hR]`` of the foot of
    the centre, so its middle is within ``(hR - hr) / 2`` of it, and the depth there is
    at least ``inner`` minus its distance from the centre. A knife-edge crossing is
    measured instead by a scan of 17 points over its stretch
    (:func:`referee.geometry._max_depth`): one of them is within ``hR / 16`` of the foot."""

    r2, i2 = radius * radius, inner * inner
    depth = inner - margin - 1e-9 * (1 + radius)

    def deep(p: Array) -> NDArray[np.bool_]:
        p2 = p * p
        h_big = np.sqrt(np.maximum(r2 - p2, 0.0))
        along = h_big - np.sqrt(np.maximum(i2 - p2, 0.0))
        along *= 0.5
        np.maximum(along, h_big / 16, out=along)
        return np.asarray(np.hypot(p, along) < depth)

    # Each bound squared is one in p^2: p^2 + (hR - hr)^2 / 4 < depth^2 becomes
    # hR hr > p^2 + c, and p^2 + hR^2 / 256 < depth^2 is linear.
    d2 = np.where(depth > 0, depth * depth, 0.0)
    c = (r2 + i2) / 2 - 2 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        u_a = (r2 * i2 - c * c) / (r2 + i2 + 2 * c)
    u_a = np.where(u_a + c >= 0, u_a, i2)  # no root: hR hr >= 0 > p^2 + c throughout
    u_b = (256 * d2 - r2) / 255
    p = np.sqrt(np.clip(np.minimum(u_a, u_b), 0.0, i2)) * (1 - 1e-9)
    # Checked as the bound itself, past the rounding of the closed form.
    for _ in range(3):
        p = np.where(deep(p), p, p * (1 - 1e-6))
    return np.where(deep(p) & (depth > 0), p, 0.0)
