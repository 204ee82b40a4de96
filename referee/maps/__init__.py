"""The all-pairs engine: every piece of a table against every other at once (range and
line of sight), as the single questions of :mod:`referee.rules` answer them pair by
pair, and the same floats. It never imports :mod:`referee.rules`: a ruleset hands its
decisions (what a map measures, what blocks, its forest rule) in as plain values.

It exports six names, and nothing outside ``referee/maps`` imports its submodules
(``tests/test_layering.py`` holds it):

- :class:`MapTable`: the table laid out once (``MapTable.of``), and the measures as its
  static methods (``centre_distances``, ``base_distances``, ``segments``: segments
  crossing outlines, ``clear_distance``, ``clear_segment``, ``clear_edge_distances``,
  ``grid_line_codes``).
- :class:`Obstacle`: something a line of sight may not pass through.
- :class:`PreparedPolygons`: outlines laid out once (``PreparedPolygons.of``), asked
  about points inside (``points``) and points near (``near``).
- :class:`Visibility`: the answer, every pair's range and LOS; the LOS codes are its
  class constants (``CLEAR``, ``DOUBTFUL``, ``BLOCKED``, ``CODES``, ``NAMES``).
- :class:`LineReuse`: the line-map entry: ``LineReuse.line_map`` (range and LOS of every
  pair against the obstacles) and what a new map may take from the last one.
- :class:`MapCache`: the map of a live table, made again only when the table changed;
  its ``use_twins``/``use_compiled`` switch the compiled loops while a warm-up runs.

Modules, from the bottom: ``pairwise`` (all-pairs distances), ``prepared`` (outlines laid
out for batched point queries), ``segments`` (many segments against many outlines),
``bearings`` (lines looked up by bearing), ``table`` (the values a map reads and answers
with), ``los`` (the LOS map), ``targets`` (the live cache); the compiled loops (numba)
beside them: ``contacts``, ``base_gaps``, ``clearance`` with ``clear_search`` and
``clear_shields`` (Papercraft's clear lines) and ``grid_lines`` (the hex games' lines),
called through ``kernels``. They are imported where first used: numba costs a third of
a second to load.
"""

from __future__ import annotations

from referee.maps.los import LineReuse
from referee.maps.prepared import PreparedPolygons
from referee.maps.table import MapTable, Obstacle, Visibility
from referee.maps.targets import MapCache

__all__ = ["LineReuse", "MapCache", "MapTable", "Obstacle", "PreparedPolygons", "Visibility"]
