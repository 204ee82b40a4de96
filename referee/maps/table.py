"""The values the all-pairs map reads and answers with: the table laid out once
(:class:`MapTable`), what may block a line (:class:`Obstacle`, as the ruleset decides it)
and every pair's range and line of sight (:class:`Visibility`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from referee.geometry import base_corners_many
from referee.maps.bearings import Bearings
from referee.maps.clearance import clear_distance, clear_edge_distances, clear_segment
from referee.maps.pairwise import pairwise_base_distances, pairwise_centre_distances
from referee.maps.segments import segments_polygons
from referee.scene import Piece

LOS_NAMES = ("clear", "doubtful", "blocked")
"""A line of sight's verdict by its map code (:attr:`Visibility.los`)."""
LOS_CODES = {"clear": 0, "doubtful": 1, "blocked": 2}
"""A line-of-sight verdict as the all-pairs map's code."""


@dataclass(frozen=True)
class Obstacle:
    """Something a line of sight may not pass through: terrain (seen into and out of when
    ``see_into``) or a piece's base (a wreck, a unit), never blocking its own line."""

    id: str
    kind: str
    polygon: NDArray[np.float64]
    see_into: bool
    piece: str | None = None
    """The piece whose base this is, if any."""
    forest: int = -1
    """Index of the forest (touching woods) it belongs to when that has 2+ members."""


@dataclass(frozen=True)
class MapTable:
    """The pieces of one table as the all-pairs map reads them (:func:`map_table`),
    worked out once for every view of the table (Divisional maps each side's lines in
    turn)."""

    pieces: tuple[Piece, ...]
    xy: NDArray[np.float64]
    """``(n, 2)`` base centres."""
    unc: NDArray[np.float64]
    """Each piece's position doubt."""
    distance: NDArray[np.float64]
    """``(n, n)`` inches, measured as the ruleset's ``range_measure`` says."""
    known_bearings: Bearings | None = None
    """:attr:`bearings`, when the centre distances were taken from them."""

    @functools.cached_property
    def bearings(self) -> Bearings:
        """Every centre's bearing bin and squared distance to every other."""
        return Bearings.of(self.xy) if self.known_bearings is None else self.known_bearings

    @functools.cached_property
    def corners(self) -> NDArray[np.float64]:
        """``(n, 4, 2)``: every piece's base corners (those that block are looked up)."""
        pieces = self.pieces
        return base_corners_many(
            self.xy, [p.heading for p in pieces], [p.base for p in pieces]
        ).reshape(-1, 4, 2)

    # The constructor and the measures as this value's methods: the public face of
    # table.py, pairwise.py, segments.py, clearance.py and grid_lines.py (the map itself:
    # LineReuse.line_map, los.py imports this module), so
    # nothing outside referee/maps imports those modules (they are called as they are).

    @classmethod
    def of(cls, pieces: Sequence[Piece], measure: str, bearings: bool = False) -> MapTable:
        """The table as the all-pairs map reads it (:func:`map_table`)."""
        return map_table(pieces, measure, bearings)

    centre_distances: ClassVar[Callable[..., NDArray[np.float64]]] = staticmethod(
        pairwise_centre_distances
    )
    """``(n, n)`` centre-to-centre distances of ``xy (n, 2)``."""
    base_distances: ClassVar[Callable[..., NDArray[np.float64]]] = staticmethod(
        pairwise_base_distances
    )
    """``(n, n)`` nearest base-edge distances (``xy``, headings, bases)."""
    segments: ClassVar[Callable[..., Any]] = staticmethod(segments_polygons)
    """Segments ``a[i]``-``b[i]`` against every outline (polygons or
    :class:`~referee.maps.prepared.PreparedPolygons`): crossings, touches, depth."""
    clear_distance: ClassVar[Callable[..., float]] = staticmethod(clear_distance)
    """Edge to edge of two pieces by a line entering no other live base."""
    clear_segment: ClassVar[Callable[..., Any]] = staticmethod(clear_segment)
    """The shortest segment between two outlines entering none of the bases."""
    clear_edge_distances: ClassVar[Callable[..., np.ndarray]] = staticmethod(clear_edge_distances)
    """All pairs' clear edge distances at once."""

    @staticmethod
    def grid_line_codes() -> Callable[..., Any]:
        """The hex games' worst-hex loop (``grid_lines.line_codes``), compiled or its
        pure-Python twin while a warm-up compiles it (:mod:`referee.maps.kernels`)."""
        from referee.maps.kernels import loop  # numba: 0.3 s to load

        return loop("grid_lines", "line_codes")


@dataclass(frozen=True)
class Visibility:
    """All-pairs range and LOS (a ruleset's ``visibility``)."""

    CLEAR: ClassVar[int] = 0
    DOUBTFUL: ClassVar[int] = 1
    BLOCKED: ClassVar[int] = 2
    CODES: ClassVar[dict[str, int]] = LOS_CODES
    """A line-of-sight verdict as its code in :attr:`los` (:data:`LOS_CODES`)."""
    NAMES: ClassVar[tuple[str, ...]] = LOS_NAMES
    """A code of :attr:`los` as its verdict (:data:`LOS_NAMES`)."""

    ids: tuple[str, ...]
    distance: NDArray[np.float64]
    """``(n, n)`` inches, measured as the ruleset's ``range_measure`` says."""
    los: NDArray[np.int8]
    """``(n, n)``: 0 clear, 1 doubtful, 2 blocked (:data:`LOS_NAMES`); diagonal 0. Row
    the firer, column the target (a system's rules may make it not symmetric)."""

    def los_of(self, a: str, b: str) -> str:
        return LOS_NAMES[int(self.los[self.ids.index(a), self.ids.index(b)])]


def map_table(pieces: Sequence[Piece], measure: str, bearings: bool = False) -> MapTable:
    """The table as the all-pairs map reads it: centres, doubts and the distances
    ``measure`` says (``centre``: base centre to base centre; ``edge``: nearest base
    edges; ``clear``: edge to edge by a line crossing no other live base,
    :func:`referee.maps.clearance.clear_distance`). ``bearings``: the map will read them
    (it has obstacles), so centre distances come from their squared lengths (the same
    floats as :func:`pairwise_centre_distances`)."""
    pieces = tuple(pieces)
    n = len(pieces)
    xy = np.array([p.xy for p in pieces], float).reshape(-1, 2)
    unc = np.array([p.uncertainty for p in pieces], float)
    if measure == "centre" and bearings:
        known = Bearings.of(xy)
        return MapTable(pieces, xy, unc, np.sqrt(known.length2), known)
    if measure == "centre":
        dist = pairwise_centre_distances(xy)
    elif measure == "edge" or n < 2:
        dist = pairwise_base_distances(xy, [p.heading for p in pieces], [p.base for p in pieces])
    else:
        dist = np.array(
            [
                [
                    clear_distance(p, q, [o for o in pieces if o.id not in (p.id, q.id)])
                    if p is not q
                    else 0.0
                    for q in pieces
                ]
                for p in pieces
            ]
        )
    return MapTable(pieces, xy, unc, dist)
