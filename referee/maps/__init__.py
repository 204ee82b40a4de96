"""The all-pairs engine: every piece of a table against every other at once (range and
line of sight), as the single questions of :mod:`referee.rules` answer them pair by
pair, and the same floats.

The public API is small: :func:`visibility` (the whole map of a table under a
ruleset), :func:`targets` (from one piece to every piece of another side: what a threat
view draws) and :class:`MapCache` (the map of a live table, made again only when the
table changed, and then only for the lines a changed piece may affect). The ruleset
decides what a map measures and what blocks (its ``range_measure``, its obstacles, its
forest rule); the engine only measures, so it never imports :mod:`referee.rules`: a
ruleset hands its decisions in as plain values (:func:`map_table`, :class:`Obstacle`,
:func:`line_map`).

Modules, from the bottom: :mod:`~referee.maps.pairwise` (all-pairs distances),
:mod:`~referee.maps.prepared` (outlines laid out for batched point queries),
:mod:`~referee.maps.segments` (many segments against many outlines),
:mod:`~referee.maps.bearings` (lines looked up by bearing), :mod:`~referee.maps.table`
(the values a map reads and answers with), :mod:`~referee.maps.los` (the LOS map); the
compiled loops (numba) beside them: :mod:`~referee.maps.contacts`,
:mod:`~referee.maps.base_gaps`, :mod:`~referee.maps.clearance` with
:mod:`~referee.maps.clear_search` and :mod:`~referee.maps.clear_shields`
(Papercraft's clear lines) and :mod:`~referee.maps.grid_lines` (the hex games' lines).
They are imported where first used: numba costs a third of a second to load.
"""

from __future__ import annotations

from referee.maps.bearings import Bearings
from referee.maps.los import ForestLevels, LineReuse, line_map
from referee.maps.pairwise import pairwise_base_distances, pairwise_centre_distances, upper_pairs
from referee.maps.prepared import (
    PreparedPolygons,
    points_near_polygons,
    points_polygons,
    prepare_polygons,
)
from referee.maps.segments import segments_polygons
from referee.maps.table import (
    LOS_CODES,
    LOS_NAMES,
    MapTable,
    Obstacle,
    Visibility,
    map_table,
)
from referee.maps.targets import MapCache, MapRules, Target, targets, visibility

__all__ = [
    "LOS_CODES",
    "LOS_NAMES",
    "Bearings",
    "ForestLevels",
    "LineReuse",
    "MapCache",
    "MapRules",
    "MapTable",
    "Obstacle",
    "PreparedPolygons",
    "Target",
    "Visibility",
    "line_map",
    "map_table",
    "pairwise_base_distances",
    "pairwise_centre_distances",
    "points_near_polygons",
    "points_polygons",
    "prepare_polygons",
    "segments_polygons",
    "targets",
    "upper_pairs",
    "visibility",
]
