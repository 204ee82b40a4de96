"""All-pairs distances of a table: centre to centre and base edge to base edge, every
pair at once (the same floats as :mod:`referee.geometry`'s single distances).

The base-edge table's hot loop is compiled (:mod:`referee.maps.base_gaps`) and its rows
are shared among the cores (:func:`referee.runtime.in_strides`).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.geometry import EPS, Array, BoolArray, base_corners_many
from referee.maps.kernels import loop
from referee.runtime import CORES, in_strides


def pairwise_centre_distances(xy: ArrayLike) -> Array:
    """All-pairs centre-to-centre distances, ``(n, 2) -> (n, n)``, zero diagonal.

    >>> pairwise_centre_distances([(0, 0), (3, 4)]).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    p = np.asarray(xy, float).reshape(-1, 2)
    x, y = p[:, 0], p[:, 1]
    return _length(x[:, None] - x, y[:, None] - y)


def _length(x: Array, y: Array) -> Array:
    """``hypot(x, y)`` as the square root of the squares, in ``x``'s memory (``x`` and
    ``y`` are overwritten): five times as fast, and table coordinates can neither
    overflow nor underflow (the two differ by an ulp at most)."""
    x *= x
    y *= y
    x += y
    return np.sqrt(x, out=x)


@functools.lru_cache(maxsize=4)
def upper_pairs(n: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``np.triu_indices(n, 1)``, kept: a table is measured again and again."""
    iu, ju = np.triu_indices(n, k=1)
    iu.flags.writeable = ju.flags.writeable = False
    return iu, ju


def _vertex_edge_offsets(
    flat: tuple[Array, ...], vert: NDArray[np.intp], edge: NDArray[np.intp]
) -> tuple[Array, Array]:
    """From the nearest point of edge ``edge`` to corner ``vert`` (flat ``piece * 4 + k``
    indices), the offset whose ``hypot`` is their distance: the arithmetic of
    :func:`referee.geometry._point_seg_dist` op for op, so the very floats of the dense
    form."""
    cx, cy = flat[0], flat[1]
    ax, ay, ex, ey, dd = (a.take(edge) for a in flat)
    apx = cx.take(vert) - ax
    apy = cy.take(vert) - ay
    t = apx * ex
    t += apy * ey
    with np.errstate(invalid="ignore", divide="ignore"):
        t /= dd
    np.clip(t, 0.0, 1.0, out=t)
    t[~(dd > 0)] = 0.0  # a zero-length edge is its start point
    apx -= t * ex
    apy -= t * ey
    return apx, apy


def _dense_separated(corners: Array) -> BoolArray:
    """Separating-axis test for all pairs at once, ``(n, n)``: the bases are apart by
    more than ``EPS`` along an edge normal of one of them."""
    edges = np.roll(corners, -1, axis=1) - corners
    axes = np.stack([edges[:, 0], edges[:, 1]], axis=1)  # two normals' directions per base
    with np.errstate(invalid="ignore", divide="ignore"):
        axes = axes / np.linalg.norm(axes, axis=-1, keepdims=True)
    proj = np.einsum("iad,jkd->ijak", axes, corners)  # axis a of i, corner k of j
    lo = np.minimum(np.minimum(proj[..., 0], proj[..., 1]), np.minimum(proj[..., 2], proj[..., 3]))
    hi = np.maximum(np.maximum(proj[..., 0], proj[..., 1]), np.maximum(proj[..., 2], proj[..., 3]))
    own = np.einsum("iad,ikd->iak", axes, corners)
    own_lo, own_hi = own.min(axis=2), own.max(axis=2)  # (n, 2)
    sep_i = np.any((hi < own_lo[:, None, :] - EPS) | (lo > own_hi[:, None, :] + EPS), axis=2)
    return np.asarray(sep_i | sep_i.T)


def _corner_edge_tables(corners: Array) -> tuple[Array, ...]:
    """Corner x, y, edge x, y and squared edge length, flat by ``piece * 4 + k`` (edge
    ``k`` runs from corner ``k`` to ``k + 1``)."""
    ab = np.roll(corners, -1, axis=1) - corners
    den = ab[..., 0] * ab[..., 0] + ab[..., 1] * ab[..., 1]
    return tuple(a.ravel() for a in (corners[..., 0], corners[..., 1], ab[..., 0], ab[..., 1], den))


def _dense_base_distances(corners: Array) -> Array:
    """Every pair's 32 corner/edge distances, for tables with non-finite or huge corners."""
    n = len(corners)
    flat = _corner_edge_tables(corners)
    piece = np.arange(n)
    d = np.full((n, n), np.inf)
    for k, m in itertools.product(range(4), range(4)):
        ox, oy = _vertex_edge_offsets(flat, np.repeat(piece * 4 + k, n), np.tile(piece * 4 + m, n))
        np.minimum(d, np.hypot(ox, oy).reshape(n, n), out=d)
    d = np.minimum(d, d.T)
    return np.asarray(np.where(_dense_separated(corners), d, 0.0))


def pairwise_base_distances(xy: ArrayLike, heading: ArrayLike, base: ArrayLike) -> Array:
    """All-pairs nearest-edge distances between rectangular bases, ``(n, n)``; 0 for bases
    that touch or overlap (and on the diagonal). Same values as :func:`base_distance`.

    Each pair's distance is the least of its 32 corner-to-edge distances, but only the
    few combinations that can hold the least are computed (the very floats computing all
    32 gives), and bounds settle the separating-axis test except for pairs closer than
    their bases' size or within rounding of ``EPS``: see :func:`referee.maps.base_gaps.base_gaps`.

    >>> pairwise_base_distances([(0, 0), (5, 0)], [0, 45], [(2, 2), (2, 2)]).round(4).tolist()
    [[0.0, 2.5858], [2.5858, 0.0]]
    """
    # Imported here: numba costs a third of a second, which commands that never
    # measure from base edges should not pay.
    base_gaps = loop("base_gaps", "base_gaps")

    corners = base_corners_many(xy, heading, base)  # (n, 4, 2)
    n = len(corners)
    out = np.zeros((n, n))
    if n < 2:
        return out
    # Squared lengths must neither overflow nor underflow for the ``hypot`` shortcut.
    if not np.abs(corners).max() < 1e100:  # also catches nan and inf
        return _dense_base_distances(corners)
    # Each base also as a parallelogram ``mid +- fwd +- rgt``: its rounded corners stray
    # from that by less than the tolerances, which also absorb float rounding.
    c0, c1, c2, c3 = corners[:, 0], corners[:, 1], corners[:, 2], corners[:, 3]
    mid = (c0 + c1 + c2 + c3) / 4
    fwd = (c0 + c1 - c2 - c3) / 4
    rgt = (c1 + c2 - c0 - c3) / 4
    defect = np.hypot(*((c0 - c1 + c2 - c3) / 4).T)
    edges = corners[:, 1:3] - corners[:, 0:2]
    with np.errstate(invalid="ignore", divide="ignore"):
        axes = edges / np.linalg.norm(edges, axis=-1, keepdims=True)  # (n, 2, 2)
    square = np.abs((axes[:, 0] * axes[:, 1]).sum(axis=1)) <= 1e-3
    fr = np.abs(fwd[:, 0] * rgt[:, 0] + fwd[:, 1] * rgt[:, 1])
    reach = np.sqrt((fwd * fwd).sum(axis=1) + (rgt * rgt).sum(axis=1) + 2 * fr)
    cols = np.stack([*mid.T, *fwd.T, *rgt.T, np.where(square, reach, np.inf)])
    tol_sat = 4 * float(defect.max()) + 1e-13 * (1.0 + float(np.abs(corners).max()))
    tol = tol_sat + 1e-9 * (1.0 + float(np.abs(corners).max()))  # generous: more combinations
    args = (np.ascontiguousarray(corners), cols, axes, tol_sat, tol, out)
    # Rows shared among the cores, every n-th to each (a row's pairs shrink down the
    # table, so neighbouring rows cost alike); each pair's two entries are its own.
    in_strides(base_gaps, min(len(CORES), n * (n - 1) // 2 // _GAPS_PER_SHARE), *args)
    return out


_GAPS_PER_SHARE = 4000
"""Fewer pairs than this per core are measured in the calling thread alone: handing a
share to another thread and back costs about a tenth of a millisecond, a quarter of
what 4000 pairs take."""
