"""Grids laid over the table: hexes, squares and zones, as immutable values.

Some games count in cells, not inches: a hex mat, a squared board, a sea cut
into zones. A :class:`Grid` is laid out in the table frame from the corner of
the mat (``x``, ``y``, inches) turned by ``rotation`` degrees; it maps a
tracked position to its cell, lists the cells a position's doubt circle
reaches (more than one: too close to call), counts cells between cells, and
gives every cell's outline in table inches (for the dashboard map).

Boundary behaviour: a point exactly on a border (within 1e-9 inch) lies in
every cell it touches, so its cell is too close to call even without doubt;
a heading exactly half way between two hex sides faces both.

>>> g = HexGrid(size=1.5)
>>> g.cell_at(0.75, 0.866)
(0, 0)
>>> g.distance((0, 0), (3, -1)), g.distance((3, -1), (0, 0))
(3, 3)
>>> g.place(1.5, 0.866, 0.0).cells     # on the border between two hexes
((0, 0), (1, 0))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from referee.geometry import polygon_depths
from referee.maps import MapTable

Cell = tuple[int, int]
"""Hexes: axial ``(q, r)``; squares: ``(column, row)``; zones: ``(zone index, 0)``."""

EPS = 1e-9
SQRT3 = math.sqrt(3.0)
HEX_STEPS: tuple[Cell, ...] = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
"""Axial step to the neighbour across hex side ``k`` (side ``k`` faces ``rotation + 60k`` deg)."""
DIAGONALS = ("none", "free", "alternate")
HEX_NORMALS = (0.0, math.pi / 3, 2 * math.pi / 3)
"""Radians: the normals of a hex's three pairs of sides in the mat's frame."""
BEARING_BINS = 512
"""Bearing bins per start in :meth:`HexGrid.lines_near`: finer bins look at fewer
segments per hex, at a bigger table of bins."""
SLICE = 16_384
"""(Segment, hex) pairs :meth:`HexGrid.lines_near` tests at once."""
ROUNDING = 1e-12
"""Per inch of the largest coordinate: far more than the compiled and numpy crossing
depths can differ by (a few units in the last place) and far less than any ``touch``;
:meth:`HexGrid.line_codes` asks numpy for the depths this near a threshold."""


@dataclass(frozen=True)
class Placement:
    """Where a position falls on a grid."""

    cell: Cell
    """The cell holding the point itself."""
    cells: tuple[Cell, ...]
    """Every cell the doubt circle reaches, ``cell`` first (one: certain)."""
    margin: float
    """Inches from the point to its cell's border (0 on it)."""

    @property
    def certain(self) -> bool:
        return len(self.cells) == 1


@dataclass(frozen=True)
class Grid:
    """The frame shared by every grid: the mat's corner and turn in the table frame."""

    size: float = 1.0
    """Inches: hex across the flats, square side, zone depth."""
    x: float = 0.0
    """Table x of the mat's corner, inches."""
    y: float = 0.0
    """Table y of the mat's corner, inches."""
    rotation: float = 0.0
    """Degrees the mat is turned (its local x axis in the table frame)."""

    kind = "grid"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.size) and self.size > 0):
            raise ValueError(f"grid cell size must be a positive number, got {self.size!r}")

    # -- frames -----------------------------------------------------------------------------

    def _rot(self) -> tuple[float, float]:
        a = math.radians(self.rotation)
        return math.cos(a), math.sin(a)

    def to_local(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        """Table inches ``(n, 2)`` -> the mat's own frame."""
        c, s = self._rot()
        d = np.asarray(points, float).reshape(-1, 2) - (self.x, self.y)
        return np.stack([d[:, 0] * c + d[:, 1] * s, -d[:, 0] * s + d[:, 1] * c], axis=1)

    def to_table(self, points: NDArray[np.float64]) -> NDArray[np.float64]:
        c, s = self._rot()
        p = np.asarray(points, float).reshape(-1, 2)
        turned = np.stack([p[:, 0] * c - p[:, 1] * s, p[:, 0] * s + p[:, 1] * c], axis=1)
        return turned + np.array([self.x, self.y])

    # -- what a grid defines -----------------------------------------------------------------

    def cells_at(self, points: NDArray[np.float64]) -> NDArray[np.int64]:
        """The cell of each point ``(n, 2)`` (table inches) as ``(n, 2)`` integers."""
        return self._local_cells(self.to_local(points))

    def _local_cells(self, local: NDArray[np.float64]) -> NDArray[np.int64]:
        raise NotImplementedError

    def _local_outline(self, cell: Cell) -> NDArray[np.float64]:
        raise NotImplementedError

    def _local_centre(self, cell: Cell) -> tuple[float, float]:
        raise NotImplementedError

    def distance(self, a: Cell, b: Cell) -> int:
        """Cells from ``a`` to ``b`` (0 for the same cell)."""
        raise NotImplementedError

    def distances(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.int64]:
        """:meth:`distance` for arrays of cells ``(..., 2)``, broadcast."""
        raise NotImplementedError

    def _around(self, cell: Cell, reach: int) -> Iterable[Cell]:
        """Cells within ``reach`` steps of ``cell`` (a superset is fine)."""
        q, r = cell
        for dq in range(-reach, reach + 1):
            for dr in range(-reach, reach + 1):
                yield (q + dq, r + dr)

    def label(self, cell: Cell) -> str:
        return f"{cell[0]},{cell[1]}"

    def cover(self, width: float, depth: float) -> list[Cell]:
        """The cells whose centre lies on a ``width`` x ``depth`` table (inclusive)."""
        corners = self.to_local(np.array([[0, 0], [width, 0], [width, depth], [0, depth]], float))
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        span = math.ceil(float(np.max(hi - lo)) / self.size) + 2
        seed = self._local_cells(((lo + hi) / 2)[None])[0]
        found = []
        for cell in self._around((int(seed[0]), int(seed[1])), span):
            cx, cy = self.centre(cell)
            if -EPS <= cx <= width + EPS and -EPS <= cy <= depth + EPS:
                found.append(cell)
        return sorted(found)

    # -- built on those ------------------------------------------------------------------------

    def cell_at(self, x: float, y: float) -> Cell:
        q, r = self.cells_at(np.array([[x, y]], float))[0]
        return (int(q), int(r))

    def centre(self, cell: Cell) -> tuple[float, float]:
        """The cell's centre in table inches."""
        p = self.to_table(np.array([self._local_centre(cell)], float))[0]
        return (float(p[0]), float(p[1]))

    def outline(self, cell: Cell) -> NDArray[np.float64]:
        """The cell's corners in table inches, in order."""
        return self.to_table(self._local_outline(cell))

    def place(self, x: float, y: float, doubt: float = 0.0) -> Placement:
        """The cell of table point ``(x, y)`` and every cell within ``doubt`` inches of it
        (a point on a border touches both cells: too close to call)."""
        return self.place_many(np.array([[x, y]], float), np.array([doubt], float))[0]

    def place_many(
        self, points: NDArray[np.float64], doubts: NDArray[np.float64]
    ) -> list[Placement]:
        """:meth:`place` for every point ``(n, 2)`` with its doubt ``(n,)``; only points
        within their doubt of a border look further than their own cell."""
        local = self.to_local(points)
        cells = self._local_cells(local)
        margins = self._margins(local, cells)
        doubts = np.asarray(doubts, float)
        out = [
            Placement(cell, (cell,), margin)
            for cell, margin in zip(
                map(tuple, cells.tolist()), np.maximum(margins, 0.0).tolist(), strict=True
            )
        ]
        for k in np.flatnonzero(margins <= doubts + EPS).tolist():
            cell, doubt = out[k].cell, float(doubts[k])
            near = []
            reach = math.ceil((doubt + EPS) / self.size) + 1
            for other in self._around(cell, reach):
                # A cell whose centre is farther than its corners reach plus the doubt
                # cannot be within the doubt: only the others need the exact gap.
                centre = self._local_centre(other)
                far = math.dist(local[k], centre) > self._corner_reach + doubt + EPS
                if other != cell and not far and self._gap(local[k], other) <= doubt + EPS:
                    near.append(other)
            out[k] = Placement(cell, (cell, *sorted(near)), out[k].margin)
        return out

    def _margins(self, local: NDArray[np.float64], cells: NDArray[np.int64]) -> NDArray[np.float64]:
        """Inches from each point (mat frame) to the border of its cell."""
        raise NotImplementedError

    @property
    def _corner_reach(self) -> float:
        """Farthest a cell's outline lies from its centre (no bound: infinity)."""
        return math.inf

    def _gap(self, local: NDArray[np.float64], cell: Cell) -> float:
        """Inches from a point (mat frame) to ``cell`` (0 inside it or on its outline):
        the parity and the edge distances worked out once, not once for each."""
        depth, held, _ = polygon_depths(local[None], self._local_outline(cell))
        return 0.0 if held[0] else float(-depth[0])


_CORNER_COS = np.cos(np.radians(30.0 + 60.0 * np.arange(6)))
_CORNER_SIN = np.sin(np.radians(30.0 + 60.0 * np.arange(6)))
"""A hex's corners from its centre, per inch of radius (pointed tops)."""


@dataclass(frozen=True)
class HexGrid(Grid):
    """Hexes ``size`` inches across the flats. Side ``k`` of every hex faces ``rotation +
    60k`` degrees (rotation 0: rows of hexes along the table's x axis, pointed tops);
    hex ``(0, 0)`` is the whole hex in the mat's corner, ``q`` counts along side 0 and
    ``r`` along side 1."""

    size: float = 1.5
    kind = "hex"

    @property
    def radius(self) -> float:
        """Centre to corner, inches."""
        return self.size / SQRT3

    @property
    def _corner_reach(self) -> float:
        return self.radius * (1 + 1e-9)

    def _local_centre(self, cell: Cell) -> tuple[float, float]:
        q, r = cell
        s = self.size
        return (s / 2 + s * (q + r / 2), self.radius + s * SQRT3 / 2 * r)

    def _local_outline(self, cell: Cell) -> NDArray[np.float64]:
        cx, cy = self._local_centre(cell)
        return np.stack([cx + self.radius * _CORNER_COS, cy + self.radius * _CORNER_SIN], axis=1)

    def _margins(self, local: NDArray[np.float64], cells: NDArray[np.int64]) -> NDArray[np.float64]:
        d = local - self.local_centres(cells)
        angles = np.radians([0.0, 60.0, 120.0])
        reach = np.abs(d[:, :1] * np.cos(angles) + d[:, 1:] * np.sin(angles)).max(axis=1)
        return np.asarray(self.size / 2 - reach)

    def _local_cells(self, local: NDArray[np.float64]) -> NDArray[np.int64]:
        s = self.size
        r = (local[:, 1] - self.radius) / (s * SQRT3 / 2)
        q = (local[:, 0] - s / 2) / s - r / 2
        return cube_round(q, r)

    def distance(self, a: Cell, b: Cell) -> int:
        dq, dr = b[0] - a[0], b[1] - a[1]
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def distances(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.int64]:
        a, b = np.asarray(a), np.asarray(b)
        # Each axis apart (not a (..., 2) difference): half the memory to walk.
        dq, dr = b[..., 0] - a[..., 0], b[..., 1] - a[..., 1]
        out = np.abs(dq)
        out += np.abs(dr)
        out += np.abs(dq + dr)
        out >>= 1
        return out

    def _around(self, cell: Cell, reach: int) -> Iterable[Cell]:
        q, r = cell
        for dq in range(-reach, reach + 1):
            for dr in range(max(-reach, -dq - reach), min(reach, -dq + reach) + 1):
                yield (q + dq, r + dr)

    def neighbour(self, cell: Cell, side: int) -> Cell:
        dq, dr = HEX_STEPS[side % 6]
        return (cell[0] + dq, cell[1] + dr)

    def sides(self, heading: float, doubt: float = 0.0) -> tuple[int, ...]:
        """The hex side(s) a heading (table degrees) faces: the nearest first, then any
        other within ``doubt`` degrees of as near (exactly half way: both)."""
        local = (heading - self.rotation) % 360.0
        best = round(local / 60.0) % 6
        out = [best]
        for k in range(6):
            off = abs((local - 60.0 * k + 180.0) % 360.0 - 180.0)
            if k != best and off <= 30.0 + doubt + 1e-9:
                out.append(k)
        return tuple(out)

    def side_heading(self, side: int) -> float:
        """The table heading, degrees, of hex side ``side``."""
        return (self.rotation + 60.0 * side) % 360.0

    def ahead(self, a: Cell, side: int, b: Cell) -> int | None:
        """How many hexes ``b`` lies straight ahead of ``a`` along side ``side`` (the
        row of hexes through that side), or None when it is not on that row."""
        dq, dr = b[0] - a[0], b[1] - a[1]
        sq, sr = HEX_STEPS[side % 6]
        n = self.distance(a, b)
        if n > 0 and (dq, dr) == (n * sq, n * sr):
            return n
        return None

    def bearing(self, a: Cell, b: Cell) -> float:
        """Degrees from side 0 of the mat to the line from centre ``a`` to centre ``b``."""
        (ax, ay), (bx, by) = self._local_centre(a), self._local_centre(b)
        return math.degrees(math.atan2(by - ay, bx - ax)) % 360.0

    def in_arc(self, a: Cell, side: int, b: Cell, width: float) -> bool:
        """Whether hex ``b``'s centre is within ``width / 2`` degrees either side of side
        ``side`` seen from ``a``'s centre (on the arc's edge counts; ``a`` itself not)."""
        if a == b:
            return False
        off = abs((self.bearing(a, b) - 60.0 * side + 180.0) % 360.0 - 180.0)
        return off <= width / 2 + 1e-6

    def local_centres(self, cells: NDArray[np.int64]) -> NDArray[np.float64]:
        """Centres of hexes ``(..., 2)`` in the mat's frame."""
        c = np.asarray(cells, float)
        s = self.size
        x = s / 2 + s * (c[..., 0] + c[..., 1] / 2)
        y = self.radius + s * SQRT3 / 2 * c[..., 1]
        return np.stack([x, y], axis=-1)

    def crossing_depth(
        self, a: NDArray[np.int64], b: NDArray[np.int64], c: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """``(P, M)``: how far the segment between the centres of hexes ``a[p]`` and
        ``b[p]`` reaches into hex ``c[m]``, inches (separating axes: the hex's three side
        normals and the segment's normal). Positive: it crosses the hex's interior; 0: it
        runs along an edge or through a corner; negative: it misses by that much.

        >>> g = HexGrid(1.5)
        >>> d = g.crossing_depth(np.array([[0, 0]]), np.array([[3, 0]]), np.array([[1, 0], [1, 1]]))
        >>> np.round(d, 3).tolist()      # through the middle of one, clear of the next row
        [[0.866, -0.433]]
        >>> g.crossing_depth(np.array([[0, 0]]), np.array([[2, -1]]), np.array([[1, 0]])).round(9)
        array([[0.]])
        """
        A, B = self.local_centres(a)[:, None, :], self.local_centres(b)[:, None, :]
        return self.local_depths(A, B, self.local_centres(c)[None, :, :])

    def local_depths(
        self, A: NDArray[np.float64], B: NDArray[np.float64], C: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """:meth:`crossing_depth` from centres in the mat's frame ``(..., 2)``, broadcast."""
        depth = np.full(np.broadcast_shapes(A.shape[:-1], B.shape[:-1], C.shape[:-1]), np.inf)
        half = self.size / 2
        for k in range(3):
            n = np.array([math.cos(math.radians(60 * k)), math.sin(math.radians(60 * k))])
            pa, pb, pc = A @ n, B @ n, C @ n
            lo, hi = np.minimum(pa, pb), np.maximum(pa, pb)
            depth = np.minimum(depth, np.minimum(hi, pc + half) - np.maximum(lo, pc - half))
        d = B - A
        length = np.hypot(d[..., 0], d[..., 1])
        unit = np.where(length > 0, length, 1.0)[..., None]
        m = np.stack([-d[..., 1], d[..., 0]], axis=-1) / unit
        # The hex's half-width across the segment: its corners (30 + 60i deg) on the normal.
        angle = np.arctan2(m[..., 1], m[..., 0])
        corners = np.radians(30.0 + 60.0 * np.arange(6))
        extent = self.radius * np.max(np.abs(np.cos(angle[..., None] - corners)), axis=-1)
        across = extent - np.abs(((C - A) * m).sum(axis=-1))
        depth = np.minimum(depth, across)
        return np.asarray(np.where(length > 0, depth, -np.inf))

    def lines_near(
        self,
        A: NDArray[np.float64],
        B: NDArray[np.float64],
        group: NDArray[np.int64],
        C: NDArray[np.float64],
        ends: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
        owner: NDArray[np.int64] | None = None,
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
        """The (segment, hex) pairs :meth:`local_depths` may find meeting: segments from
        ``A[k]`` to ``B[k]`` ``(L, 2)`` and hexes centred on ``C[m]`` ``(M, 2)``, all in
        the mat's frame. Returns ``(k, m, deep)``: every pair whose crossing depth is at
        least -1e-7 (the rest miss by more) and some a little farther; ``deep`` marks the
        pairs whose depth is certainly above 1e-7, the others need :meth:`local_depths`.
        With ``ends`` (who is at each segment's start and end, ``(L,)`` each) and ``owner``
        ``(M,)``, a hex is left out of the segments that have its owner at either end.

        Segments of the same ``group`` (an integer >= 0) must share their start: each
        start sorts its segments into bearing bins and looks up, for a hex ``D`` away, only
        the bins within ``asin(reach / D)`` of its bearing, instead of every segment and
        hex; the segments found are tested a slice at a time, small enough to stay in the
        processor's cache.

        >>> g = HexGrid(1.5)
        >>> A = g.local_centres(np.array([[0, 0], [0, 0], [0, 0]]))
        >>> B = g.local_centres(np.array([[3, 0], [2, -1], [0, 3]]))
        >>> C = g.local_centres(np.array([[1, 0], [1, 1], [5, 5]]))
        >>> k, m, deep = g.lines_near(A, B, np.zeros(3, np.int64), C)
        >>> sorted(zip(k.tolist(), m.tolist(), deep.tolist()))   # through (1, 0), by its corner
        [(0, 0, True), (1, 0, False)]
        """
        none = np.zeros(0, np.int64)
        if len(A) == 0 or len(C) == 0:
            return none, none, np.zeros(0, bool)
        # A segment whose depth into a hex is -e or more comes within 2e of it (separating
        # axes part a hex and a segment by at least half their gap).
        inner, slack = self.size / 2, 1e-7
        reach = self.radius + 1e-6
        key, lo, hi, rx, ry = self._bearing_windows(A, B, group, C, ends, owner)
        bins = BEARING_BINS
        order = np.argsort(key, kind="stable")
        first = np.zeros(len(lo) // len(C) * bins + 1, np.int64)
        np.cumsum(np.bincount(key, minlength=len(first) - 1), out=first[1:])
        # What the tests read of each segment, in the sorted order.
        dx, dy = B[order, 0] - A[order, 0], B[order, 1] - A[order, 1]
        length = np.sqrt(dx * dx + dy * dy)
        ux, uy = dx / np.maximum(length, 1e-300), dy / np.maximum(length, 1e-300)
        # How squarely the segment cuts the hex sides: its chord through a hex projects
        # onto each side's normal at least this much per inch (0: along a side).
        slant = np.abs(ux)
        for angle in HEX_NORMALS[1:]:
            np.minimum(slant, np.abs(ux * math.cos(angle) + uy * math.sin(angle)), out=slant)
        # A window across bearing 0 also looks a turn further round.
        under, over = np.flatnonzero(lo < 0), np.flatnonzero(hi >= bins)
        window = np.concatenate([np.arange(len(lo)), under, over])
        row = (window // len(C)) * bins
        lo = np.concatenate([np.maximum(lo, 0), lo[under] + bins, np.zeros(len(over), np.int64)])
        hi = np.concatenate(
            [np.minimum(hi, bins - 1), np.full(len(under), bins - 1), hi[over] - bins]
        )
        begin = first[row + lo]
        count = np.maximum(first[row + np.maximum(hi, lo - 1) + 1] - begin, 0)
        rx, ry, hexes = rx[window], ry[window], window % len(C)
        last = None if ends is None or owner is None else ends[1][order]
        found: list[tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]] = []
        total = np.cumsum(count)
        cuts = np.searchsorted(total, np.arange(SLICE, int(total[-1]), SLICE), "right")
        for w0, w1 in zip([0, *cuts.tolist()], [*cuts.tolist(), len(window)], strict=True):
            n = count[w0:w1]
            which = np.repeat(np.arange(w0, w1), n)
            at = np.arange(len(which)) + np.repeat(begin[w0:w1] - (np.cumsum(n) - n), n)
            # Where each hex centre lies along (t) and off (h) the segment.
            wx, wy, kx, ky, far_end = rx[which], ry[which], ux[at], uy[at], length[at]
            t = wx * kx + wy * ky
            h = np.abs(wx * ky - wy * kx)
            near = (h <= reach) & (t >= -reach) & (t <= far_end + reach)
            if last is not None and owner is not None:
                near &= owner[hexes[which]] != last[at]
            keep = np.flatnonzero(near)
            at, which, t, h, far_end = at[keep], which[keep], t[keep], h[keep], far_end[keep]
            # Deep: the segment runs on past the hex both ways and its chord through the
            # inscribed circle cuts every side's normal, and the line, by more than the slack.
            chord = 2 * np.sqrt(np.maximum(inner * inner - h * h, 0.0))
            deep = (inner - h > slack) & (chord * slant[at] > slack)
            deep &= (t >= reach) & (t <= far_end - reach)
            found.append((order[at], hexes[which], deep))
        k, m, deep = (np.concatenate(part) for part in zip(*found, strict=True))
        return k, m, deep

    def _bearing_windows(
        self,
        A: NDArray[np.float64],
        B: NDArray[np.float64],
        group: NDArray[np.int64],
        C: NDArray[np.float64],
        ends: tuple[NDArray[np.int64], NDArray[np.int64]] | None,
        owner: NDArray[np.int64] | None,
    ) -> tuple[
        NDArray[np.int64],
        NDArray[np.int64],
        NDArray[np.int64],
        NDArray[np.float64],
        NDArray[np.float64],
    ]:
        """The bearing bins of :meth:`lines_near`: ``(key, lo, hi, rx, ry)``, each
        segment's key (its start's rank among the groups times :data:`BEARING_BINS` plus
        its bearing bin) and for every (start rank, hex), flat, the bins from ``lo`` to
        ``hi`` (past 0 or the last bin: a turn further round; none where ``hi < lo``)
        whose bearings pass within reach of the hex, which lies ``(rx, ry)`` from the
        start."""
        reach = self.radius + 1e-6
        dx, dy = B[:, 0] - A[:, 0], B[:, 1] - A[:, 1]
        used = np.flatnonzero(np.bincount(group))
        rank = np.zeros(int(group.max()) + 1, np.int64)
        rank[used] = np.arange(len(used))
        bins = BEARING_BINS
        per_bin = bins / (2 * math.pi)
        turn = ((np.arctan2(dy, dx) + math.pi) * per_bin).astype(np.int64)
        key = rank[group] * bins + np.minimum(turn, bins - 1)
        # One segment of each start (they share it).
        starts = np.zeros(len(used), np.int64)
        starts[rank[group]] = np.arange(len(group))
        # Every (start, hex): the bins of bearings that pass within reach of the hex.
        rx = (C[None, :, 0] - A[starts, None, 0]).ravel()
        ry = (C[None, :, 1] - A[starts, None, 1]).ravel()
        gap = np.sqrt(rx * rx + ry * ry)
        bearing = (np.arctan2(ry, rx) + math.pi) * per_bin
        spread = (np.arcsin(reach / np.maximum(gap, reach)) + 1e-9) * per_bin
        by_start = gap <= reach  # a hex on the start is near every bearing from it
        lo = np.where(by_start, 0, np.floor(bearing - spread)).astype(np.int64)
        hi = np.where(by_start, bins - 1, np.floor(bearing + spread)).astype(np.int64)
        if ends is not None and owner is not None:
            # A hex of the start's own piece: no window.
            ours = (owner[None, :] == ends[0][starts][:, None]).ravel()
            lo[ours], hi[ours] = 0, -1
        return key, lo, hi, rx, ry

    def line_codes(
        self,
        A: NDArray[np.float64],
        B: NDArray[np.float64],
        group: NDArray[np.int64],
        C: NDArray[np.float64],
        certain: NDArray[np.bool_],
        touch: float,
        ends: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
        owner: NDArray[np.int64] | None = None,
        *,
        compiled: bool = True,
    ) -> NDArray[np.int8]:
        """Each segment's worst meeting with the hexes ``C`` (arguments as
        :meth:`lines_near`'s): 2 when it crosses a ``certain`` hex's interior by more
        than ``touch`` inches (:meth:`local_depths`), 1 when it crosses another hex or
        runs within ``touch`` of one's edge or corner (depth ``>= -touch``), else 0.

        ``compiled`` (the default): one loop over the bins of :meth:`lines_near`
        (:mod:`referee.maps.grid_lines`), numpy's exact depth only for pairs within
        rounding of ``touch`` either way; False: :meth:`lines_near` and
        :meth:`local_depths` (the tests' oracle). The same codes.

        >>> g = HexGrid(1.5)
        >>> A = g.local_centres(np.array([[0, 0], [0, 0], [0, 0]]))
        >>> B = g.local_centres(np.array([[3, 0], [2, -1], [0, 3]]))
        >>> C = g.local_centres(np.array([[1, 0], [5, 5]]))
        >>> g.line_codes(A, B, np.zeros(3, np.int64), C, np.array([True, True]), 1e-9).tolist()
        [2, 1, 0]
        """
        codes = np.zeros(len(A), np.int8)
        if len(A) == 0 or len(C) == 0:
            return codes
        if compiled:
            line_codes = MapTable.grid_line_codes()  # numba: 0.3 s to load

            windows = self._bearing_windows(A, B, group, C, ends, owner)
            scale = 1.0 + max(float(np.abs(A).max()), float(np.abs(B).max()))
            scale += float(np.abs(C).max()) + self.size
            if ends is None or owner is None:
                last, owner = np.full(len(A), -1, np.int64), np.zeros(len(C), np.int64)
            else:
                last = ends[1]
            segments = (np.ascontiguousarray(A), np.ascontiguousarray(B), last)
            hexes = (np.ascontiguousarray(C), np.asarray(certain, bool), owner, self.size)
            codes, k, m = line_codes(
                windows, BEARING_BINS, segments, hexes, touch, ROUNDING * scale
            )
        else:
            k, m, _ = self.lines_near(A, B, group, C, ends, owner)
        depth = self.local_depths(A[k], B[k], C[m])
        code = (depth >= -touch).astype(np.int8) + ((depth > touch) & certain[m])
        np.maximum.at(codes, k, code.astype(np.int8))
        return codes


def cube_round(q: NDArray[np.float64], r: NDArray[np.float64]) -> NDArray[np.int64]:
    """Nearest hex ``(n, 2)`` to fractional axial coordinates."""
    s = -q - r
    rq, rr, rs = np.round(q), np.round(r), np.round(s)
    dq, dr, ds = np.abs(rq - q), np.abs(rr - r), np.abs(rs - s)
    fix_q = (dq > dr) & (dq > ds)
    fix_r = ~fix_q & (dr > ds)
    rq = np.where(fix_q, -rr - rs, rq)
    rr = np.where(fix_r, -rq - rs, rr)
    return np.stack([rq, rr], axis=1).astype(np.int64)


@dataclass(frozen=True)
class SquareGrid(Grid):
    """Squares ``size`` inches a side; square ``(0, 0)`` in the mat's corner. ``diagonal``
    is how a diagonal step counts: ``none`` (not allowed: orthogonal steps only),
    ``free`` (one step, like a king) or ``alternate`` (1, 2, 1, 2...)."""

    diagonal: str = "none"
    kind = "square"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.diagonal not in DIAGONALS:
            raise ValueError(f"diagonal must be one of {', '.join(DIAGONALS)}")

    def _local_centre(self, cell: Cell) -> tuple[float, float]:
        return ((cell[0] + 0.5) * self.size, (cell[1] + 0.5) * self.size)

    def _local_outline(self, cell: Cell) -> NDArray[np.float64]:
        x0, y0 = cell[0] * self.size, cell[1] * self.size
        s = self.size
        return np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]], float)

    def _local_cells(self, local: NDArray[np.float64]) -> NDArray[np.int64]:
        return np.floor(local / self.size).astype(np.int64)

    def _margins(self, local: NDArray[np.float64], cells: NDArray[np.int64]) -> NDArray[np.float64]:
        d = np.abs(local - (cells + 0.5) * self.size)
        return np.asarray(self.size / 2 - d.max(axis=1))

    def distance(self, a: Cell, b: Cell) -> int:
        return int(self.distances(np.array(a), np.array(b)))

    def distances(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.int64]:
        d = np.abs(np.asarray(b) - np.asarray(a))
        lo, hi = np.minimum(d[..., 0], d[..., 1]), np.maximum(d[..., 0], d[..., 1])
        if self.diagonal == "none":
            return np.asarray(d[..., 0] + d[..., 1])
        if self.diagonal == "free":
            return np.asarray(hi)
        return np.asarray(hi + lo // 2)


@dataclass(frozen=True)
class ZoneGrid(Grid):
    """``count`` bands ``size`` inches deep along the mat's x axis, each ``across``
    inches wide; zone ``(k, 0)`` is the ``k``-th from the mat's corner (0-based)."""

    count: int = 8
    across: float = 1.0
    kind = "zone"

    def _local_centre(self, cell: Cell) -> tuple[float, float]:
        return ((cell[0] + 0.5) * self.size, self.across / 2)

    def _local_outline(self, cell: Cell) -> NDArray[np.float64]:
        x0, x1 = cell[0] * self.size, (cell[0] + 1) * self.size
        w = self.across
        return np.array([[x0, 0], [x1, 0], [x1, w], [x0, w]], float)

    def _local_cells(self, local: NDArray[np.float64]) -> NDArray[np.int64]:
        k = np.floor(local[:, 0] / self.size).astype(np.int64)
        return np.stack([k, np.zeros_like(k)], axis=1)

    def _around(self, cell: Cell, reach: int) -> Iterable[Cell]:
        return ((cell[0] + d, 0) for d in range(-reach, reach + 1))

    def distance(self, a: Cell, b: Cell) -> int:
        return abs(b[0] - a[0])

    def distances(self, a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.int64]:
        return np.asarray(np.abs(np.asarray(b)[..., 0] - np.asarray(a)[..., 0]))

    def label(self, cell: Cell) -> str:
        return f"zone {cell[0] + 1}"

    # A zone is every point between its two borders, however far across (or off) the table.
    def _margins(self, local: NDArray[np.float64], cells: NDArray[np.int64]) -> NDArray[np.float64]:
        x0 = cells[:, 0] * self.size
        return np.asarray(np.minimum(local[:, 0] - x0, x0 + self.size - local[:, 0]))

    @property
    def _corner_reach(self) -> float:
        """Farthest a cell's outline lies from its centre (no bound: infinity)."""
        return math.inf

    def _gap(self, local: NDArray[np.float64], cell: Cell) -> float:
        x0 = cell[0] * self.size
        return float(max(x0 - local[0], local[0] - x0 - self.size, 0.0))

    def cover(self, width: float, depth: float) -> list[Cell]:
        return [(k, 0) for k in range(self.count)]


def outlines(grid: Grid, width: float, depth: float) -> list[dict[str, object]]:
    """Every cell on the table with its label and outline (table inches, 3 decimals)."""
    return [
        {
            "cell": list(cell),
            "label": grid.label(cell),
            "outline": [[round(float(x), 3), round(float(y), 3)] for x, y in grid.outline(cell)],
        }
        for cell in grid.cover(width, depth)
    ]


def spread(values: Sequence[int], likely: int) -> int:
    """How far the candidates' values reach from the likely one (a distance's doubt)."""
    return max((abs(v - likely) for v in values), default=0)


def square_gaps(
    xy: NDArray[np.float64], doubt: NDArray[np.float64], size: float, shape: tuple[int, int]
) -> NDArray[np.float64]:
    """``(n, n)``: the fewest squares forward, back, left or right between any square
    each pair of points may be in, on squares of ``size`` laid from the table's corner,
    ``shape`` (columns, rows); a point within its ``doubt`` (per point) of a line may be
    in the squares either side, one off the squares is in the edge square.

    >>> square_gaps(np.array([[0.5, 0.5], [2.5, 1.5]]), np.zeros(2), 1.0, (3, 2)).tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    """
    u = doubt[:, None]
    top = np.array([shape[0] - 1, shape[1] - 1])
    # The squares each centre may be in, per axis: the nearest two such sets are the
    # per-axis gaps between them, added.
    lo = np.clip(np.floor((xy - u - EPS) / size), 0, top)
    hi = np.clip(np.floor((xy + u + EPS) / size), 0, top)
    gap = np.maximum(0, np.maximum(lo[None] - hi[:, None], lo[:, None] - hi[None]))
    result: NDArray[np.float64] = gap.sum(axis=2)
    return result
