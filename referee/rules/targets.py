"""The ``targets`` question, "what can this piece hit?" (issue 31): one template for
every system with an all-pairs map, defined once here and inherited by the table core
(:class:`~referee.rules.core.TableRuleset`) and the grid games.

Each entry is exactly the pair's single ``range`` and ``los`` verdicts. The all-pairs
map (``visibility``, kept per live table by a :class:`~referee.maps.MapCache`) orders
the enemy pieces (nearest first) and gives each range its distance. Each line of sight
is judged by the system's own ``los``, on the scene trimmed to the terrain and bases
near that line, and with a :class:`ContactBook` beside it: every line of the firer
measured against every obstacle at once, from which the single question reads what
cannot change its verdict (a crossing deeper than the doubt, an obstacle farther than
it, ends far outside; a line the map found walled off), measuring alone only the
contacts whose floats its reasons print.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from referee.errors import counted
from referee.geometry import SegmentContact, centre_distance
from referee.maps import (
    LineReuse,
    MapCache,
    MapTable,
    Obstacle,
    PreparedPolygons,
    Visibility,
)
from referee.rules.base import Ruleset
from referee.rules.forests import forests
from referee.rules.queries import RangeQuery, piece_arg
from referee.rules.values import QueryError, Verdict
from referee.scene import Piece, Scene, Terrain

_TOLERANCE = 1e-7
"""How far past the doubt a measured depth or clearance must be for the book to answer:
nearer, the single question's own measure decides (its floats print in the reasons)."""


def live_visibility(rules: Targets, cache: MapCache, scene: Scene) -> Visibility:
    """``rules``' map of ``scene`` through the live table's ``cache``: the last map when
    the table is the same, else a map made again from what the last one may give
    (:meth:`MapCache.lookup`), kept for the next frame."""
    found = cache.lookup(scene)
    if isinstance(found, Visibility):
        return found
    vis = rules.visibility(scene, found)
    cache.keep(scene, vis, found)
    return vis


class _Contacts(NamedTuple):
    """Every line of a :class:`ContactBook` against every obstacle, ``(lines, obstacles)``."""

    crosses: NDArray[np.bool_]
    touches: NDArray[np.bool_]
    clearance: NDArray[np.float64]
    depth: NDArray[np.float64]
    away: NDArray[np.bool_]
    """Both ends of the line outside the obstacle by more than the doubt (neither seen
    into nor near its edge)."""


@dataclass(frozen=True)
class ContactBook:
    """What ``targets`` knows of every line from one firer to its enemies before it asks
    each line's single ``los``: the map's measure of each pair (:func:`map_distance`) and,
    measured at once when first read (:meth:`referee.maps.MapTable.segments`), each line's
    contacts with every obstacle (:func:`line_contact`), so the single question reads
    them instead of measuring that line alone."""

    firer: Piece
    targets: tuple[Piece, ...]
    obstacles: tuple[Obstacle, ...]
    measured: Mapping[str, float]
    """Target id -> the map's measure of the pair (``range_measure``)."""

    @functools.cached_property
    def rows(self) -> dict[str, int]:
        """Target id -> line."""
        return {t.id: k for k, t in enumerate(self.targets)}

    @functools.cached_property
    def cols(self) -> dict[tuple[str, str], int]:
        """(kind, id) of an obstacle -> its column."""
        return {(o.kind, o.id): k for k, o in enumerate(self.obstacles)}

    @functools.cached_property
    def doubt(self) -> NDArray[np.float64]:
        return self.firer.uncertainty + np.array([t.uncertainty for t in self.targets], float)

    @functools.cached_property
    def contacts(self) -> _Contacts:
        """The contacts, measured for all lines at once when first read (a system whose
        line of sight reads none never pays for them)."""
        a = np.repeat(np.asarray(self.firer.xy, float)[None, :], len(self.targets), axis=0)
        b = np.array([t.xy for t in self.targets], float).reshape(-1, 2)
        doubt = self.doubt
        margin = float(doubt.max(initial=0.0)) + 1e-6
        prep = PreparedPolygons.of([o.polygon for o in self.obstacles])
        met = MapTable.segments(a, b, prep, margin=margin, depth=True)
        inside, edge = prep.points(np.concatenate([a[:1], b]))
        out = ~inside & (edge > doubt.max(initial=0.0) + _TOLERANCE)
        away = out[:1] & out[1:]  # the firer's and each target's
        return _Contacts(met.crosses, met.touches, met.clearance, met.depth, away)

    def _cell(self, target: str, ob: Obstacle) -> tuple[int, int] | None:
        """The book's (line, obstacle) for ``ob`` on the line to ``target``, if it holds
        that very outline."""
        row, col = self.rows.get(target), self.cols.get((ob.kind, ob.id))
        if row is None or col is None:
            return None
        poly = self.obstacles[col].polygon
        if poly is not ob.polygon and not np.array_equal(poly, ob.polygon):
            return None  # a system's own outline for it: not the one measured
        return row, col

    def ends_away(self, target: str, ob: Obstacle) -> bool:
        """Whether both ends of the line are surely outside ``ob`` by more than the doubt."""
        cell = self._cell(target, ob)
        return cell is not None and bool(self.contacts.away[cell])

    def contact(self, target: str, ob: Obstacle) -> SegmentContact | None:
        """The line's contact with ``ob`` where the single question's verdict cannot
        depend on the exact float: a crossing deeper than the doubt (blocks), or no
        contact farther than it (nothing); otherwise None (measure it alone)."""
        cell = self._cell(target, ob)
        if cell is None:
            return None
        row, col = cell
        con = self.contacts
        doubt = float(self.doubt[row]) + _TOLERANCE
        if con.crosses[row, col]:
            depth = float(con.depth[row, col])
            return SegmentContact("crosses", 0.0, depth) if depth > doubt else None
        clearance = float(con.clearance[row, col])
        if not con.touches[row, col] and clearance > doubt:
            return SegmentContact("clear", clearance, 0.0)
        return None


def map_distance(book: ContactBook | None, firer: str, target: str) -> float | None:
    """The map's measure of the pair ``firer`` -> ``target`` from the book of the
    ``targets`` question answering for ``firer`` (a system's single question may take
    what the map settled), else None."""
    if book is None or book.firer.id != firer:
        return None
    return book.measured.get(target)


def line_ends_away(book: ContactBook | None, firer: str, target: str, ob: Obstacle) -> bool:
    """Whether the book of the ``targets`` question being answered knows both ends of
    the line ``firer`` -> ``target`` lie outside ``ob`` by more than the doubt."""
    return book is not None and book.firer.id == firer and book.ends_away(target, ob)


def line_contact(
    book: ContactBook | None, firer: str, target: str, ob: Obstacle
) -> SegmentContact | None:
    """The contact of the line ``firer`` -> ``target`` with ``ob`` from the book of the
    ``targets`` question being answered, where it settles the single question's verdict;
    None otherwise (the single question measures it)."""
    if book is None or book.firer.id != firer:
        return None
    return book.contact(target, ob)


class Targets(Ruleset):
    """The ``targets`` question ("what can this piece hit?"), one template for every system
    with an all-pairs map (:meth:`visibility`) and single ``range`` and ``los`` questions.

    Each entry is exactly the pair's single ``range`` and ``los`` verdicts, but worked
    out from the map, measured once per scene (:meth:`targets_map`): the order (nearest
    first) and the range distance come from it, and each line of sight is judged against
    only the terrain near that line (:meth:`near_terrain`), which the single question
    would have read and dropped, on a scene trimmed to it."""

    targets_trim: ClassVar[bool] = True
    """Whether ``targets`` may judge each line of sight on the scene trimmed to the terrain
    near the line. A system whose line of sight reads terrain away from the line, or
    costs less than trimming the scene for it (the grid games, WW1), sets it False and
    gets the single question per pair on the whole scene."""
    targets_trim_pieces: ClassVar[bool] = True
    """Whether the trimmed scene also keeps only the pieces whose bases come near the line
    (with the two ends). False where a line of sight reads bases away from the centre
    line (Papercraft's edge-to-edge line around other units)."""

    def visibility(self, scene: Scene, reuse: LineReuse | None = None) -> Visibility:
        raise QueryError(".ask", f"{self.name} has no targets question (no all-pairs map)")

    def ask_los(
        self, scene: Scene, query: Mapping[str, Any], book: ContactBook | None = None
    ) -> Verdict:
        """The ``los`` question. ``book``: what ``targets`` already measured of the
        firer's lines (it asks this of every target), so the answer need not measure
        again; the answer is the same with or without it."""
        raise QueryError(".ask", f"{self.name} has no los question")

    def judge_range_measured(
        self, scene: Scene, query: RangeQuery, measured: float | None
    ) -> Verdict:
        """:meth:`judge_range` given the distance the map measured for the pair; the
        table core's template uses it (:class:`~referee.rules.core.TableRuleset`), a
        system judging range its own way (in cells) measures again."""
        return self.judge_range(scene, query)

    def targets_map(self, scene: Scene) -> Visibility:
        """:meth:`visibility` of ``scene``, kept for the scene object last asked about: a
        ``check`` run or a dashboard frame asks ``targets`` of many pieces of one scene.
        A new scene object (the next frame) goes to the ruleset's :class:`MapCache`: the
        same table answers from the last map, a table where only some pieces changed
        gets the map made again for their lines only. One scene is kept, so memory
        stays flat."""
        return self._targets_entry(scene)[0]

    def _targets_entry(self, scene: Scene) -> tuple[Visibility, dict[Any, Scene]]:
        """:meth:`targets_map` with the trimmed scenes kept for that scene: read as one
        tuple, so a request thread asking about another scene meanwhile never hands
        this one its trimmed scenes."""
        cached = self.__dict__.get("_targets_cache")
        if cached is not None and cached[0] is scene:
            return cached[1], cached[2]
        cache = self.__dict__.get("_map_cache")
        if cache is None:
            cache = self.__dict__["_map_cache"] = MapCache()
        vis = live_visibility(self, cache, scene)
        trims: dict[Any, Scene] = {}
        self.__dict__["_targets_cache"] = (scene, vis, trims)
        return vis, trims

    @staticmethod
    def _trimmed(
        scene: Scene,
        keep: tuple[int, ...],
        pieces: tuple[Piece, ...] | None,
        cache: dict[Any, Scene],
    ) -> Scene:
        """``scene`` with only the terrain ``keep`` indexes and the ``pieces`` (None: all);
        the terrain-only ones are shared by the lines that keep the same terrain
        (``cache``, kept with the scene's map)."""
        if pieces is not None:
            return dataclasses.replace(
                scene, pieces=pieces, terrain=tuple(scene.terrain[k] for k in keep)
            )
        if len(keep) == len(scene.terrain):
            return scene
        out = cache.get(keep)
        if out is None:
            out = cache[keep] = dataclasses.replace(
                scene, terrain=tuple(scene.terrain[k] for k in keep)
            )
        return out

    def near_pieces(
        self, scene: Scene, firer: Piece, targets: Sequence[Piece]
    ) -> list[tuple[Piece, ...]]:
        """For each line from ``firer`` to a target, the pieces (in the scene's order) whose
        base's circle comes within the line's doubt of it, with the two ends: only those
        bases may block it or cast doubt on it (:meth:`los_obstacles`)."""
        pieces = scene.pieces
        xy = np.array([p.xy for p in pieces], float).reshape(-1, 2)
        radius = np.array([math.hypot(*p.base) / 2 for p in pieces], float)
        gap = _line_gaps(firer, targets, xy)
        u = firer.uncertainty + np.array([t.uncertainty for t in targets], float)
        near = gap <= radius[None, :] + u[:, None] + 1e-3
        index = {p.id: k for k, p in enumerate(pieces)}
        near[:, index[firer.id]] = True
        near[np.arange(len(targets)), [index[t.id] for t in targets]] = True
        return [tuple(pieces[k] for k in np.flatnonzero(row)) for row in near]

    def near_terrain(
        self, scene: Scene, firer: Piece, targets: Sequence[Piece]
    ) -> list[tuple[int, ...]]:
        """For each line from ``firer`` to a target, the terrain that may touch it: every
        piece whose bounding circle comes within the line's doubt of the line (a line that
        misses it by more gets no reason, no blocker and no doubt from it, in the single
        question too), with every piece it touches (woods form forests as one; a forest's
        name lists its members), in the scene's order."""
        terrain = scene.terrain
        if not terrain or not targets:
            return [tuple(range(len(terrain)))] * len(targets)
        centre, radius, group = _terrain_circles(terrain)
        u = firer.uncertainty + np.array([t.uncertainty for t in targets], float)
        gap = _line_gaps(firer, targets, centre)
        near = gap <= radius[None, :] + u[:, None] + 1e-3
        # A forest is kept whole: each line's forests met, then every member of them.
        met = np.zeros((len(targets), int(group.max()) + 1), bool)
        rows, cols = np.nonzero(near)
        met[rows, group[cols]] = True
        keep = met[:, group]
        return [tuple(np.flatnonzero(row).tolist()) for row in keep]

    def contact_book(
        self, scene: Scene, firer: Piece, targets: Sequence[Piece], measured: NDArray[np.float64]
    ) -> ContactBook:
        """What the single ``los`` of each line from ``firer`` may read instead of
        measuring: the map's measure of each pair (``measured``) and the lines' contacts
        with the obstacles of the table core's line of sight (:meth:`los_obstacles`; none
        in a system without them)."""
        obstacles = getattr(self, "los_obstacles", None)
        return ContactBook(
            firer,
            tuple(targets),
            tuple(obstacles(scene)) if obstacles is not None else (),
            {t.id: float(d) for t, d in zip(targets, measured, strict=True)},
        )

    def ask_targets(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """What ``from`` can hit: every piece of another side, nearest first (by the
        map's range measure), with the single ``range`` and ``los`` verdicts of the pair.
        Options of the range question (a ``weapon``) are passed to each range judgement.
        A pair the range question refuses (an unarmed firer, a target it may not be asked
        about) gets ``"range": null`` and the refusal as ``range_error``."""
        firer = piece_arg(scene, query, "from")
        if "to" in query:
            raise QueryError(".to", "targets takes no 'to' (it answers for every enemy piece)")
        vis, trims = self._targets_entry(scene)
        row = vis.ids.index(firer.id)
        others = [p for p in scene.pieces if p.side != firer.side]
        col = [vis.ids.index(p.id) for p in others]
        dist = vis.distance[row, col] if col else np.zeros(0)
        order = sorted(
            range(len(others)),
            key=lambda k: (dist[k], centre_distance(firer.xy, others[k].xy), others[k].id),
        )
        others = [others[k] for k in order]
        dist = dist[order]
        trim = self.targets_trim and bool(others)
        near = (
            self.near_terrain(scene, firer, others)
            if trim
            else [tuple(range(len(scene.terrain)))] * len(others)
        )
        bases = (
            self.near_pieces(scene, firer, others)
            if trim and self.targets_trim_pieces
            else [None] * len(others)
        )
        options = {k: v for k, v in query.items() if k not in ("ask", "from")}
        entries: list[dict[str, Any]] = []
        counts = {"hit": 0, "maybe": 0, "no": 0}
        book = self.contact_book(scene, firer, others, dist)
        los_vs = [
            self.ask_los(
                self._trimmed(scene, near[k], bases[k], trims),
                {"ask": "los", "from": firer.id, "to": target.id},
                book,
            )
            for k, target in enumerate(others)
        ]
        for k, target in enumerate(others):
            los_q = {"ask": "los", "from": firer.id, "to": target.id}
            los_v = los_vs[k].asked(los_q)
            range_q = {"ask": "range", "from": firer.id, "to": target.id, **options}
            entry: dict[str, Any] = {"to": target.id}
            try:
                rq = RangeQuery.parse(scene, range_q, self.check_firer)
                range_v = self.judge_range_measured(scene, rq, float(dist[k]))
                entry["range"] = range_v.asked(range_q).to_json()
            except QueryError as error:
                if error.path not in (".from", ".to"):
                    raise  # a bad option: the question is wrong, not the pair
                entry["range"] = None
                entry["range_error"] = str(error)
                range_v = None
            entry["los"] = los_v.to_json()
            entries.append(entry)
            oks = (False if range_v is None else range_v.ok, los_v.ok)
            counts["no" if False in oks else "maybe" if None in oks else "hit"] += 1
        ok = True if counts["hit"] else None if counts["maybe"] else False
        reasons = (
            f"{counted(len(entries), 'piece')} of other sides: {counts['hit']} in range and in "
            f"sight, {counts['maybe']} too close to call, {counts['no']} not",
        )
        summary = f"targets {firer.id}: {counts['hit']} of {len(entries)} in range and sight" + (
            f", {counts['maybe']} too close to call" if counts["maybe"] else ""
        )
        return Verdict("targets", ok, reasons, details={"targets": entries}, summary=summary)


def _line_gaps(firer: Piece, targets: Sequence[Piece], points: NDArray[np.float64]) -> Any:
    """``(targets, points)``: each point's distance to the segment from ``firer``'s centre
    to each target's."""
    a = np.asarray(firer.xy, float)
    d = np.array([t.xy for t in targets], float).reshape(-1, 2) - a  # (m, 2)
    w = points[None, :, :] - a  # (1, p, 2)
    den = np.maximum((d * d).sum(axis=1), 1e-300)[:, None]
    s = np.clip((w * d[:, None, :]).sum(axis=2) / den, 0.0, 1.0)  # (m, p)
    return np.hypot(*(w - s[:, :, None] * d[:, None, :]).transpose(2, 0, 1))


@functools.lru_cache(maxsize=8)
def _terrain_circles(
    terrain: tuple[Terrain, ...],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp]]:
    """Each terrain piece's bounding circle (vertex mean, farthest vertex) and the index of
    its forest (:func:`forests`: touching woods), so a forest is kept or dropped whole."""
    centre = np.array([t.outline().mean(axis=0) for t in terrain], float).reshape(-1, 2)
    radius = np.array(
        [np.hypot(*(t.outline() - c).T).max() for t, c in zip(terrain, centre, strict=True)]
    )
    group = np.zeros(len(terrain), np.intp)
    for g, members in enumerate(forests(terrain)):
        group[list(members)] = g
    return centre, radius, group
