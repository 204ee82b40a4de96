"""The engine's public questions: the map of a table under a ruleset (:func:`visibility`),
what one piece can hit (:func:`targets`), and both for a live table, made again only
when it changed (:class:`MapCache`)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from referee.maps.table import LOS_NAMES, Visibility
from referee.scene import Scene


class MapRules(Protocol):
    """What the engine asks of a ruleset (a :class:`referee.rules.core.TableRuleset`):
    its map of a table, and, for what blocks a line, its single ``los`` question."""

    def visibility(self, scene: Scene) -> Visibility: ...

    def answer(self, scene: Scene, query: Mapping[str, Any]) -> Any: ...


def visibility(rules: MapRules, scene: Scene) -> Visibility:
    """All-pairs range and LOS of ``scene`` under ``rules``: each pair's distance as the
    system's ``range`` question measures it and its line of sight as its ``los``
    question judges it (with the system's own rules on top: hidden units, a grid, the
    lines only enemies block)."""
    return rules.visibility(scene)


@dataclass(frozen=True)
class Target:
    """One line of a threat view (:func:`targets`): from the source to piece ``id``."""

    id: str
    distance: float
    """Inches (or cells on a grid) as the system's ``range`` question measures them;
    infinite where no line may be drawn (Papercraft's clear lines)."""
    uncertainty: float
    """The pair's doubt: both pieces' position doubts added."""
    los: str
    """``clear``, ``doubtful`` or ``blocked``, as the ``los`` question judges it."""
    blocking: tuple[str, ...] = ()
    """What blocks the line, as the ``los`` question names it (only when asked for)."""
    doubtful_by: tuple[str, ...] = ()
    """What makes it doubtful, as the ``los`` question names it (only when asked for)."""


def targets(
    rules: MapRules,
    scene: Scene,
    source: str,
    *,
    blockers: bool = False,
    vis: Visibility | None = None,
) -> tuple[Target, ...]:
    """From piece ``source`` to every piece of another side, nearest first (ties in the
    scene's order): distance, uncertainty and LOS from the map (``vis``, made if not
    given). ``blockers``: each line that is not clear also names what blocks it or
    casts doubt on it, as the single ``los`` question does (asked for those lines only).

    ``KeyError`` naming the id when ``source`` is not on the table."""
    vis = visibility(rules, scene) if vis is None else vis
    firer = scene.piece(source)
    row = vis.ids.index(source)
    side = {p.id: p.side for p in scene.pieces}
    cols = [k for k, pid in enumerate(vis.ids) if side.get(pid, firer.side) != firer.side]
    dist = vis.distance[row, cols]
    order = np.argsort(dist, kind="stable")
    unc = {p.id: p.uncertainty for p in scene.pieces}
    out = []
    for k in order:
        col = cols[int(k)]
        tid = vis.ids[col]
        los = LOS_NAMES[int(vis.los[row, col])]
        blocking: tuple[str, ...] = ()
        doubtful_by: tuple[str, ...] = ()
        if blockers and los != "clear":
            details = rules.answer(scene, {"ask": "los", "from": source, "to": tid}).details
            blocking = tuple(details.get("blocking", ()))
            doubtful_by = tuple(details.get("doubtful_by", ()))
        doubt = firer.uncertainty + unc[tid]
        out.append(Target(tid, float(dist[k]), doubt, los, blocking, doubtful_by))
    return tuple(out)


class MapCache:
    """The map of one live table under one ruleset, kept between frames: asked again
    for a table that has not changed (no piece moved, appeared or went, no terrain
    edited, the same settings), it answers at once from the map it made; otherwise it
    makes the map again. Shared by threads (the frame loop, the dashboard's requests):
    the map is made outside the lock, so a slow map never holds a reader up."""

    def __init__(self, rules: MapRules) -> None:
        self.rules = rules
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._vis: Visibility | None = None
        self.made = 0
        """Maps made so far (a test reads it: the cache is used)."""

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
        """:func:`visibility` of ``scene``, from the last map if the table is the same."""
        key = self._key_of(scene)
        with self._lock:
            if key == self._key and self._vis is not None:
                return self._vis
        vis = visibility(self.rules, scene)
        with self._lock:
            self._key, self._vis = key, vis
            self.made += 1
        return vis

    def targets(self, scene: Scene, source: str, *, blockers: bool = False) -> tuple[Target, ...]:
        """:func:`targets` of ``source`` read from :meth:`visibility`."""
        return targets(self.rules, scene, source, blockers=blockers, vis=self.visibility(scene))
