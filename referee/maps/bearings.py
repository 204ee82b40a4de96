"""Every point's bearing to every other, in bins: what the all-pairs map looks lines up
by, instead of testing every line against every outline (:class:`Bearings`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.geometry import Array
from referee.maps.kernels import loop, loops, read_only
from referee.maps.pairwise import _length, upper_pairs


class DiscsSeen(NamedTuple):
    """Discs as each point sees them, one value for the compiled bin loop
    (:func:`referee.maps.contacts.through_lines`): ``(points, discs)`` tables of the
    distance to each centre, its bearing (``centre``) and the tangent cone's half angle
    (``half``), with the discs' radii ``r``, the (point, disc) pairs ``barred`` from
    blocking, and the ``bits`` a disc's index takes in a bin's key."""

    dist: Array
    centre: Array
    half: Array
    r: Array
    barred: NDArray[np.bool_]
    bits: int


@dataclass(frozen=True)
class Bearings:
    """Every point's bearing to every other, in whole bins (so no rounding matters): what
    segments are looked up by, instead of testing every segment against every disc
    (compare :class:`PreparedPolygons`). A disc wholly covers some bins of bearings from
    each point and meets the bins of its tangent cone."""

    points: Array
    bins: NDArray[np.int16]
    """``(n, n)``: bin of the bearing from point ``i`` to point ``j``."""
    length2: Array
    """``(n, n)``: squared length of segment ``i``-``j``."""

    @classmethod
    def of(cls, points: ArrayLike) -> Bearings:
        pts = np.asarray(points, float).reshape(-1, 2)
        dx = pts[None, :, 0] - pts[:, None, 0]
        dy = pts[None, :, 1] - pts[:, None, 1]
        bearing = np.arctan2(dy, dx)
        bearing += math.pi
        bearing /= _BIN
        bins = np.minimum(bearing, _BINS - 1).astype(np.int16)
        dx *= dx
        dy *= dy
        dx += dy
        return cls(pts, bins, dx)

    def toward(self, centres: ArrayLike) -> tuple[Array, Array]:
        """``(distance, bearing + pi)`` from each point to each centre, ``(n, m)``."""
        c = np.asarray(centres, float).reshape(-1, 2)
        vx = c[None, :, 0] - self.points[:, None, 0]
        vy = c[None, :, 1] - self.points[:, None, 1]
        bearing = np.arctan2(vy, vx)
        bearing += math.pi
        return _length(vx, vy), bearing

    def through(
        self, toward: tuple[Array, Array], radii: ArrayLike, barred: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """``(n, n)``, symmetric: :meth:`through_lines` of every segment.

        >>> b = Bearings.of([(0, 0), (10, 0), (5, 0)])  # a disc on the third point
        >>> b.through(b.toward([(5, 0)]), [1.0], np.array([[0], [0], [1]], bool)).astype(int)
        array([[0, 1, 0],
               [1, 0, 0],
               [0, 0, 0]])
        """
        n = len(self.points)
        i, j = upper_pairs(n)
        got = self.through_lines(toward, radii, barred, i, j)
        out = np.zeros((n, n), bool)
        out[i[got], j[got]] = True
        return out | out.T

    def through_lines(
        self,
        toward: tuple[Array, Array],
        radii: ArrayLike,
        barred: NDArray[np.bool_],
        i: NDArray[np.intp],
        j: NDArray[np.intp],
    ) -> NDArray[np.bool_]:
        """Which segments ``i[c]``-``j[c]`` (``i != j``) are found to pass strictly within
        ``radii[k]`` of disc ``k`` (centres as :meth:`toward` gives them) with neither end
        ``barred[:, k]`` (``(n, m)``: e.g. a base's own unit, a point inside a wood). Not
        every such segment: a certificate, cheap where a table is crowded with discs. Each
        point's nearest disc over each bin of bearings it wholly covers: a segment in that
        bin reaching past the disc's centre passes through it (the centre projects onto
        the segment, nearer than the radius). Only the segments asked about are looked up
        (compiled), not the whole table."""
        dist, centre = toward
        if len(self.points) < 2 or not dist.shape[1] or not len(i):
            return np.zeros(len(i), bool)
        r = np.asarray(radii, float).reshape(-1) * (1 - 1e-8)  # strictly inside, past rounding
        with np.errstate(divide="ignore", invalid="ignore"):  # the points inside: unused
            half = np.arcsin(r / dist)
        # Nearest disc per (point, bin): its distance rounded up to a micro-inch, and which
        # disc, in one integer key (so the nearest is one minimum).
        bits = max(dist.shape[1] - 1, 1).bit_length()
        through_lines = loop("contacts", "through_lines")

        return np.asarray(
            through_lines(
                DiscsSeen(dist, centre, half, r, np.ascontiguousarray(barred), bits),
                self.bins, self.length2, read_only(i), read_only(j), (_BIN, _BINS, _CONE_SLACK),
            )
        )  # fmt: skip

    def index(self, open_: NDArray[np.bool_] | None = None) -> BearingIndex:
        """Each point's later points in order of bin (only those ``open_`` marks)."""
        n = len(self.points)
        li, lj = upper_pairs(n)
        if open_ is not None:
            keep = open_[li, lj]
            li, lj = li[keep], lj[keep]
        return self.index_lines(li, lj)

    def index_lines(self, li: NDArray[np.intp], lj: NDArray[np.intp]) -> BearingIndex:
        """The segments ``li[c]``-``lj[c]`` (in order of ``li``) listed from ``li`` by bin
        of bearing: the index :meth:`BearingIndex.near` looks segments up in."""
        bin_lines = loop("contacts", "bin_lines")

        order, length2, table, longest2 = bin_lines(self.bins, self.length2, li, lj, _BINS)
        return BearingIndex(self.points, (li, lj), order, length2, table, longest2)


@dataclass(frozen=True)
class BearingIndex:
    """:meth:`Bearings.index`: each point's segments listed by bin of bearing."""

    points: Array
    lines: tuple[NDArray[np.intp], NDArray[np.intp]]
    """The segments listed, ``points[i]``-``points[j]``, listed from ``i``."""
    order: NDArray[np.intp]
    """The segments (positions in ``lines``) by point, then bin of bearing."""
    length2: Array
    """Squared lengths of the segments in the order of ``order``."""
    table: NDArray[np.intp]
    """Where bin ``b`` of point ``i``'s segments starts in ``order``:
    ``table[i * (_BINS + 1) + b]``."""
    longest2: Array
    """Squared length of each point's longest listed segment (0 if none)."""

    def near(
        self,
        toward: tuple[Array, Array],
        radii: ArrayLike,
        skip: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
    ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
        """``(i, j, k)``: every listed segment ``points[i]``-``points[j]`` that comes
        within ``radii[k]`` of disc ``k`` (centres as :meth:`Bearings.toward` gives them),
        and a few that do not (callers test exactly): :meth:`near_lines`.

        >>> b = Bearings.of([(0, 0), (10, 0), (0, 10)])
        >>> b.index().near(b.toward([(5, 0.5)]), [1.0])
        (array([0]), array([1]), array([0]))
        """
        line, disc = self.near_lines(toward, radii, skip)
        return self.lines[0][line], self.lines[1][line], disc

    def near_lines(
        self,
        toward: tuple[Array, Array],
        radii: ArrayLike,
        skip: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
    ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """``(c, k)``: every listed segment ``lines[c]`` that comes within ``radii[k]`` of
        disc ``k``, and a few that do not: a disc's tangent cone is one range of bearings
        from each point, so the segments near it are looked up, not searched for, and
        only from the points whose longest listed segment reaches the disc's near side
        (on a crowded table the first pass leaves few, short segments open). The work
        grows with the answer. ``skip`` (point and disc indices) names pairs whose
        segments are not wanted (e.g. a base and its own piece, whose every segment
        starts inside it). Compiled, but for numpy's arcsin: the very cones it drew."""
        dist, centre = toward
        n, m = dist.shape
        none = np.zeros(0, np.intp)
        if n < 2 or m == 0:
            return none, none
        near_gaps, near_lines = loops("contacts", "near_gaps", "near_lines")

        radius = np.ascontiguousarray(np.broadcast_to(np.asarray(radii, float).reshape(-1), m))
        skip_p, skip_k = (none, none) if skip is None else skip
        qv, qk, gap2, ratio = near_gaps(dist, radius, self.longest2, skip_p, skip_k)
        with np.errstate(invalid="ignore"):
            half = np.arcsin(ratio)
        half += _CONE_SLACK
        index = (self.order, self.length2, self.table)
        return near_lines(qv, qk, gap2, half, dist, radius, centre, index, (_BIN, _BINS))


_BINS = 256
"""Bins of bearings per point in :class:`Bearings`."""
_BIN = 2 * math.pi / _BINS
_CONE_SLACK = 1e-7
"""Radians added to each tangent cone: rounding never loses a segment."""
