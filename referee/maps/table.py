"""The values the all-pairs map reads and answers with: the table laid out once
(:class:`MapTable`), what may block a line (:class:`Obstacle`, as the ruleset decides it)
and every pair's range and line of sight (:class:`Visibility`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from referee.geometry import base_corners_many
from referee.maps.bearings import Bearings
from referee.maps.clearance import clear_distance
from referee.maps.pairwise import pairwise_base_distances, pairwise_centre_distances
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


@dataclass(frozen=True)
class Visibility:
    """All-pairs range and LOS (:func:`referee.maps.visibility`)."""

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
