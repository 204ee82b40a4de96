"""The map of a table under a ruleset (:func:`visibility`), and of a live table, made
again only when it changed and then only for the lines a changed piece may affect
(:class:`MapCache`, :func:`changed_lines`). What one piece can hit is the ``targets``
question of :mod:`referee.rules.targets` (the one ``targets``, issue 37)."""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from referee.maps.kernels import use_compiled, use_twins
from referee.maps.los import LineReuse
from referee.maps.pairwise import upper_pairs
from referee.maps.table import Visibility
from referee.scene import Scene


class MapRules(Protocol):
    """What the engine asks of a ruleset (a :class:`referee.rules.core.TableRuleset`):
    its map of a table, and, for what blocks a line, its single ``los`` question."""

    def visibility(self, scene: Scene, reuse: LineReuse | None = None) -> Visibility: ...

    def answer(self, scene: Scene, query: Mapping[str, Any]) -> Any: ...


def visibility(rules: MapRules, scene: Scene, reuse: LineReuse | None = None) -> Visibility:
    """All-pairs range and LOS of ``scene`` under ``rules``: each pair's distance as the
    system's ``range`` question measures it and its line of sight as its ``los``
    question judges it (with the system's own rules on top: hidden units, a grid, the
    lines only enemies block)."""
    return rules.visibility(scene, reuse)


def changed_pieces(before: Scene, after: Scene) -> list[int] | None:
    """The pieces of ``after`` that changed (moved, turned, settled, changed state) when
    nothing else did and the same pieces are on the table in the same order; None
    otherwise (the map is made whole)."""
    if (
        before.ruleset != after.ruleset
        or before.table != after.table
        or before.terrain != after.terrain
        or before.settings != after.settings
        or tuple(p.id for p in before.pieces) != tuple(p.id for p in after.pieces)
    ):
        return None
    return [k for k, (p, q) in enumerate(zip(before.pieces, after.pieces, strict=True)) if p != q]


def changed_lines(before: Scene, after: Scene, moved: Sequence[int]) -> NDArray[np.bool_] | None:
    """``(n, n)``: the lines of ``after`` whose line of sight may differ from ``before``'s
    when only the pieces ``moved`` changed (:func:`changed_pieces`): their own lines, and
    every line passing within the pair's doubt of the circle round a changed base, where
    it was or where it is now (a base may block). None where a base is not finite."""
    n = len(after.pieces)
    dirty = np.zeros((n, n), bool)
    if not moved:
        return dirty
    dirty[moved, :] = True
    dirty[:, moved] = True
    x = np.array([p.x for p in after.pieces], float)
    y = np.array([p.y for p in after.pieces], float)
    unc = np.array([p.uncertainty for p in after.pieces], float)
    i, j = upper_pairs(n)
    ax, ay, bx, by = x[i], y[i], x[j], y[j]
    lox, hix = np.minimum(ax, bx), np.maximum(ax, bx)
    loy, hiy = np.minimum(ay, by), np.maximum(ay, by)
    doubt = unc[i] + unc[j]
    pad = float(unc.max(initial=0.0)) * 2
    for k in moved:
        for p in (before.pieces[k], after.pieces[k]):
            reach = math.hypot(*p.base) / 2 + 1e-6
            if not (math.isfinite(reach) and math.isfinite(p.x) and math.isfinite(p.y)):
                return None
            r = reach + pad
            # Only lines whose box, grown by the reach, holds the centre may pass near it.
            c = np.flatnonzero(
                (lox <= p.x + r) & (hix >= p.x - r) & (loy <= p.y + r) & (hiy >= p.y - r)
            )
            dx, dy = bx[c] - ax[c], by[c] - ay[c]
            wx, wy = p.x - ax[c], p.y - ay[c]
            t = np.clip((wx * dx + wy * dy) / np.maximum(dx * dx + dy * dy, 1e-300), 0.0, 1.0)
            near = c[np.hypot(wx - t * dx, wy - t * dy) <= reach + doubt[c]]
            dirty[i[near], j[near]] = True
            dirty[j[near], i[near]] = True
    return dirty


@dataclass(frozen=True)
class _Made:
    """One map :class:`MapCache` made, with what the next one may reuse."""

    key: tuple[Any, ...]
    scene: Scene
    vis: Visibility
    lines: Mapping[tuple[object, ...], NDArray[np.int8]]


class MapCache:
    """The map of one live table under one ruleset, kept between frames: asked again
    for a table that has not changed (no piece moved, appeared or went, no terrain
    edited, the same settings), it answers at once from the map it made. When only some
    pieces changed (a piece settled), the map is made again with the lines of sight of
    the lines those pieces may affect (:func:`changed_lines`) and the others taken from
    the last map (the system's own rules on top are applied again whole, they are cheap);
    otherwise (terrain edited, a piece came or went) it is made again whole. Shared by
    threads (the frame loop, the dashboard's requests): the map is made outside the lock,
    so a slow map never holds a reader up."""

    def __init__(self, rules: MapRules) -> None:
        self.rules = rules
        self._lock = threading.Lock()
        self._last: _Made | None = None
        self.made = 0
        """Maps made so far (a test reads it: the cache is used)."""
        self.reused = 0
        """Of those, maps made again from the last one's clean lines."""

    @staticmethod
    def _key_of(scene: Scene) -> tuple[Any, ...]:
        return (
            scene.ruleset,
            scene.table,
            scene.pieces,
            scene.terrain,
            repr(sorted(scene.settings.items())),
        )

    def visibility(self, scene: Scene) -> Visibility:
        """:func:`visibility` of ``scene``, from the last map if the table is the same,
        from its clean lines if only some pieces changed."""
        key = self._key_of(scene)
        with self._lock:
            last = self._last
        if last is not None and key == last.key:
            return last.vis
        if last is None or not last.lines:  # nothing to reuse (a map without line maps)
            reuse = LineReuse({}, lambda: None)
        else:
            before = last.scene

            def dirty() -> NDArray[np.bool_] | None:
                moved = changed_pieces(before, scene)
                return None if moved is None else changed_lines(before, scene, moved)

            reuse = LineReuse(last.lines, dirty)
        vis = visibility(self.rules, scene, reuse)
        with self._lock:
            self._last = _Made(key, scene, vis, dict(reuse.made))
            self.made += 1
            self.reused += reuse.used
        return vis

    # The warm-up's switch between compiled loops and their twins (referee.maps.kernels),
    # here because the live map is what a serving process asks while a warm-up runs.
    use_twins = staticmethod(use_twins)
    use_compiled = staticmethod(use_compiled)
