"""The map of a live table, made again only when it changed and then only for the lines
a changed piece may affect (:class:`MapCache`, :func:`changed_lines`). The cache holds
values only (scenes and the maps made of them): the ruleset makes each map, so the
engine never calls back into the rules. What one piece can hit is the ``targets``
question of :mod:`referee.rules.targets` (the one ``targets``, issue 37)."""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from referee.maps.kernels import use_compiled, use_twins
from referee.maps.los import LineReuse
from referee.maps.pairwise import upper_pairs
from referee.maps.table import Visibility
from referee.scene import Scene


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
    """The map of one live table under one ruleset, kept between frames. The ruleset
    asks :meth:`lookup` first: for a table that has not changed (no piece moved,
    appeared or went, no terrain edited, the same settings) it is the map it made last;
    otherwise it is what a new map may reuse (:class:`LineReuse`: when only some pieces
    changed, the line maps of the lines those pieces cannot affect, :func:`changed_lines`;
    nothing when terrain was edited or a piece came or went). The ruleset makes the map
    with it (its own rules on top are applied again whole, they are cheap) and hands it
    back to :meth:`keep`. Shared by threads (the frame loop, the dashboard's requests):
    the map is made outside the lock, so a slow map never holds a reader up."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: _Made | None = None
        self.made = 0
        """Maps kept so far (a test reads it: the cache is used)."""
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

    def lookup(self, scene: Scene) -> Visibility | LineReuse:
        """The last map if ``scene`` is the same table, else what its new map may take
        from the last one (hand the map made with it to :meth:`keep`)."""
        key = self._key_of(scene)
        with self._lock:
            last = self._last
        if last is not None and key == last.key:
            return last.vis
        if last is None or not last.lines:  # nothing to reuse (a map without line maps)
            return LineReuse({}, lambda: None)
        before = last.scene

        def dirty() -> NDArray[np.bool_] | None:
            moved = changed_pieces(before, scene)
            return None if moved is None else changed_lines(before, scene, moved)

        return LineReuse(last.lines, dirty)

    def keep(self, scene: Scene, vis: Visibility, reuse: LineReuse) -> None:
        """Keep ``vis``, the map of ``scene`` made with ``reuse`` (from :meth:`lookup`),
        for the next frame."""
        with self._lock:
            self._last = _Made(self._key_of(scene), scene, vis, dict(reuse.made))
            self.made += 1
            self.reused += reuse.used

    # The warm-up's switch between compiled loops and their twins (referee.maps.kernels),
    # here because the live map is what a serving process asks while a warm-up runs.
    use_twins = staticmethod(use_twins)
    use_compiled = staticmethod(use_compiled)
