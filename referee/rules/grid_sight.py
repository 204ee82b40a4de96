"""Line of sight on a grid, written once (issue 37): the engine and the grid games' base.

A grid game declares what blocks a line as data (:class:`CellBlockers`: the piece
categories whose hexes block, and the words); :func:`sight_codes` judges any pairs of
pieces at once over pair index arrays, and both the all-pairs map
(:meth:`GridSight.visibility`) and the single ``los`` question (:meth:`GridSight.ask_los`,
one pair, then worded) are that function. So the threat view and the single question
cannot disagree: they run the same lines.

A line runs between the centres of the two pieces' cells; where a piece's doubt reaches
several cells, every way its cells may lie is a line, and the pair is blocked only when
every way is, doubtful when any way is not clear. Codes are
:class:`referee.maps.Visibility`'s (0 clear, 1 doubtful, 2 blocked).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from referee.maps import LineReuse, Visibility
from referee.rules.grid import Cell, Grid, HexGrid, Placement, spread
from referee.rules.queries import piece_arg
from referee.rules.targets import ContactBook, Targets
from referee.rules.values import Verdict, name_key
from referee.scene import Piece, Scene, Table

Index = NDArray[np.intp]
"""Pair indexes into per-piece arrays (firers ``i``, targets ``j``)."""

TOUCH = 1e-9
"""Inches within which a line meets a hex's edge or corner rather than crossing or missing."""


def meeting_codes(depth: NDArray[np.float64], certain: NDArray[np.bool_]) -> NDArray[np.int64]:
    """0 clear, 1 doubtful, 2 blocked per (line, blocking hex) from the crossing depth
    (:meth:`HexGrid.local_depths`): a line along an edge, or into a hex a blocker only may
    be in (not ``certain``), is doubtful."""
    crosses = depth > TOUCH
    out = np.where(crosses & certain, 2, np.where(depth >= -TOUCH, 1, 0))
    return np.asarray(out)


@dataclass(frozen=True)
class CellBlockers:
    """Pieces that block lines of sight where they stand (Pz8 Space's asteroids): a line
    crossing a hex a live one of ``categories`` is in is blocked, one along its edge or
    through its corner, or into a hex it only may be in, doubtful. A blocker never blocks
    a line it is an end of. The words name the blockers (``{}``: their ids)."""

    categories: frozenset[str]
    """The piece categories that block."""
    blocked: str
    """Reason of a blocked line (``{}``: the blockers crossed on every way)."""
    doubtful: str
    """Reason of a doubtful line (``{}``: every blocker met on some way)."""
    clear: str
    """Reason of a clear line when there are blockers on the table."""


@dataclass(frozen=True)
class BlockingCells:
    """The hexes blockers may be in, one row each, a blocker's rows adjacent (made once
    per table: every line of it reads them)."""

    pieces: NDArray[np.intp]
    """The blockers (piece indexes), in the order of the per-blocker answers."""
    rows: NDArray[np.int64]
    """``(M, 2)``: every hex a blocker may be in."""
    owner: NDArray[np.int64]
    """``(M,)``: the piece index of each row's blocker."""
    certain: NDArray[np.bool_]
    """``(M,)``: the blocker is certainly in its hex (else only a doubtful meeting)."""
    first: NDArray[np.intp]
    """``(blockers,)``: each blocker's first row."""

    @staticmethod
    def of(places: Sequence[Placement], blockers: Sequence[int]) -> BlockingCells:
        """The cells of the pieces ``blockers`` (indexes into ``places``)."""
        count = [len(places[k].cells) for k in blockers]
        sure = [places[k].certain for k in blockers]
        return BlockingCells(
            np.array(blockers, np.intp),
            np.array([c for k in blockers for c in places[k].cells], np.int64).reshape(-1, 2),
            np.repeat(np.array(blockers, np.int64), count),
            np.repeat(np.array(sure, bool), count),
            np.cumsum([0, *count[:-1]]).astype(np.intp),
        )


def sight_codes(
    grid: HexGrid,
    places: Sequence[Placement],
    blocking: BlockingCells,
    i: Index,
    j: Index,
    *,
    who: bool = False,
) -> tuple[NDArray[np.int8], NDArray[np.int8] | None]:
    """(LOS code per pair, and with ``who`` the worst meeting per (pair, blocker)) of the
    pairs ``i[p]``, ``j[p]`` (``(P,)`` each) of pieces with ``places`` (only the pairs'
    are read), the ``blocking`` cells blocking.

    Without ``who`` (the all-pairs map) each line is judged by the compiled broad phase
    (:meth:`HexGrid.line_codes`); with ``who`` (a few pairs: the single question, which
    names what blocks) against every blocking hex, by the exact depths the broad phase
    falls back on: the same codes."""
    rows, owner, certain = blocking.rows, blocking.owner, blocking.certain
    # Only the pairs' pieces, renumbered in order (the map: all of them, as they are).
    held = np.zeros(len(places), bool)
    held[i] = held[j] = True
    used = np.flatnonzero(held)
    rank = np.cumsum(held) - 1
    i, j = rank[i], rank[j]
    ours = [places[k] for k in used.tolist()]
    sure = np.array([place.certain for place in ours], bool)
    both = sure[i] & sure[j]
    # The ways each pair's hexes may lie: the likely ones, then the doubtful pairs' others.
    # Each piece's cells in a padded table (its likely one first): every combination
    # of two pieces' cells at once, the padding masked out.
    width = max(len(place.cells) for place in ours)
    table = np.zeros((len(ours), width, 2), np.int64)
    table[:, 0] = [place.cell for place in ours]
    filled = np.zeros((len(ours), width), bool)
    filled[:, 0] = True
    for k in np.flatnonzero(~sure).tolist():
        table[k, : len(ours[k].cells)] = ours[k].cells
        filled[k, : len(ours[k].cells)] = True
    dp = np.flatnonzero(~both)
    combo = filled[i[dp]][:, :, None] & filled[j[dp]][:, None, :]
    pair = np.broadcast_to(dp[:, None, None], combo.shape)[combo]
    slot_a = np.broadcast_to(np.arange(width)[None, :, None], combo.shape)[combo]
    slot_b = np.broadcast_to(np.arange(width)[None, None, :], combo.shape)[combo]
    sure_pairs = np.flatnonzero(both)
    at = np.concatenate([sure_pairs, pair])
    # Each line by its two ends in the padded table: lines from the same hex of the
    # same piece share their start.
    start = np.concatenate([i[sure_pairs] * width, i[pair] * width + slot_a])
    end = np.concatenate([j[sure_pairs] * width, j[pair] * width + slot_b])
    centres = grid.local_centres(table).reshape(-1, 2)
    A, B, C = centres[start], centres[end], grid.local_centres(rows)
    ends = (used[start // width], used[end // width])
    worst: NDArray[np.int8] | None = None
    if who:
        # Every line against every blocking hex; a blocker is no obstacle to its own lines.
        depth = grid.local_depths(A[:, None, :], B[:, None, :], C[None, :, :])
        meet = meeting_codes(depth, certain[None, :])
        meet[(owner[None, :] == ends[0][:, None]) | (owner[None, :] == ends[1][:, None])] = 0
        # Each blocker's hexes are adjacent rows: its worst meeting with each line.
        per = np.maximum.reduceat(meet, blocking.first, axis=1).astype(np.int8)
        best = per.max(axis=1).astype(np.int8)
        worst = np.zeros((len(i), len(blocking.pieces)), np.int8)
        np.maximum.at(worst, at, per)
    else:
        # The worst blocking hex on each line, looking only at the hexes near the line.
        best = grid.line_codes(A, B, start, C, certain, TOUCH, ends, owner)
    # Over the ways each pair's hexes may lie: blocked only when every way is,
    # doubtful when any way is not clear.
    lo_code = np.full(len(i), 2, np.int8)
    lo_code[at[best <= 1]] = 1
    lo_code[at[best == 0]] = 0
    hi_code = np.zeros(len(i), np.int8)
    hi_code[at[best >= 1]] = 1
    final = np.where(lo_code == 2, 2, np.where(hi_code >= 1, 1, 0)).astype(np.int8)
    return final, worst


class GridSight(Targets):
    """The grid games' base: pieces placed on a grid's cells, distances in cells, and line
    of sight from the declared :attr:`sight_blockers` (none: nothing blocks)."""

    unit_word: ClassVar[str] = "hexes"
    sight_blockers: ClassVar[CellBlockers | None] = None
    """What blocks lines of sight (and the words); None: nothing does."""
    open_sight: ClassVar[str] = "nothing on the table blocks line of sight"
    """Reason of a clear line when nothing on the table may block it."""

    settings: Any

    def grid(self, table: Table) -> Grid:
        raise NotImplementedError

    def place(self, scene: Scene, piece: Piece) -> Placement:
        # Kept per table (a question places each of its pieces several times, and
        # ``targets`` every enemy); bounded, so a live table's memory stays flat.
        kept = self.__dict__.get("_places")
        if (
            kept is None
            or kept[0] is not self.settings
            or kept[1] != scene.table
            or len(kept[2]) > 4096
        ):
            kept = self.__dict__["_places"] = (self.settings, scene.table, {})
        memo: dict[tuple[float, float, float], Placement] = kept[2]
        key = (piece.x, piece.y, piece.uncertainty)
        out = memo.get(key)
        if out is None:
            out = memo[key] = self.grid(scene.table).place(*key)
        return out

    @classmethod
    def category(cls, piece: Piece) -> str:
        return cls.kinds.get(name_key(piece.kind), name_key(piece.kind))

    def can_act(self, piece: Piece, reasons: list[str]) -> bool:
        if piece.state == "destroyed":
            reasons.append(f"{piece.id} is destroyed and may take no actions")
            return False
        return True

    def cell_distance(
        self, scene: Scene, a: Placement, b: Placement
    ) -> tuple[int, int, list[tuple[Cell, Cell, int]]]:
        """(distance of the likely cells, its doubt in cells, every candidate pair)."""
        g = self.grid(scene.table)
        pairs = [(ca, cb, g.distance(ca, cb)) for ca in a.cells for cb in b.cells]
        likely = g.distance(a.cell, b.cell)
        return likely, spread([d for _, _, d in pairs], likely), pairs

    def blockers(self, pieces: Sequence[Piece]) -> list[int]:
        """Indexes of the live pieces that block lines of sight."""
        rule = self.sight_blockers
        if rule is None:
            return []
        return [
            k
            for k, p in enumerate(pieces)
            if p.state != "destroyed" and self.category(p) in rule.categories
        ]

    def _sight_layout(
        self, scene: Scene
    ) -> tuple[list[Placement], dict[str, int], BlockingCells | None]:
        """(every piece's placement, index by id, the blockers' cells or None) of the
        pieces last read: every line of sight of a table (``targets`` asks one per
        enemy) reads them."""
        kept = self.__dict__.get("_sight")
        key = (scene.pieces, scene.table, self.settings)
        if kept is None or any(a is not b for a, b in zip(kept[0], key, strict=True)):
            pieces = scene.pieces
            blockers = self.blockers(pieces)
            places = [self.place(scene, p) for p in pieces] if blockers else []
            index = {p.id: k for k, p in enumerate(pieces)}
            cells = BlockingCells.of(places, blockers) if blockers else None
            kept = self.__dict__["_sight"] = (key, (places, index, cells))
        return kept[1]

    def ask_los(
        self, scene: Scene, query: Mapping[str, Any], book: ContactBook | None = None
    ) -> Verdict:
        """Line of sight: nothing but the :attr:`sight_blockers` blocks (the texts: ships
        and aircraft do not block), between the cells' centres: :func:`sight_codes`
        asked about one pair."""
        firer = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        pa, pb = self.place(scene, firer), self.place(scene, target)
        d, doubt, _ = self.cell_distance(scene, pa, pb)
        reasons: list[str] = []
        code, blocking = 0, []
        rule = self.sight_blockers
        cells = None
        if rule is not None:  # else nothing may block (Naval, Aerial): no table to lay out
            places, index, cells = self._sight_layout(scene)
            a, b = index[firer.id], index[target.id]
        if rule is None or cells is None or not set(cells.pieces.tolist()) - {a, b}:
            reasons.append(self.open_sight)
        else:
            g = self.grid(scene.table)
            assert isinstance(g, HexGrid)  # blockers stand on hexes
            codes, worst = sight_codes(g, places, cells, np.array([a]), np.array([b]), who=True)
            assert worst is not None
            code = int(codes[0])
            ids = [scene.pieces[k].id for k in cells.pieces.tolist()]
            if code == 2:
                blocking = sorted(ids[n] for n in np.flatnonzero(worst[0] == 2).tolist())
                reasons.append(rule.blocked.format(", ".join(blocking)))
            elif code == 1:
                met = sorted(ids[n] for n in np.flatnonzero(worst[0] >= 1).tolist())
                reasons.append(rule.doubtful.format(", ".join(met)))
            else:
                reasons.append(rule.clear)
        los = ("clear", "doubtful", "blocked")[code]
        ok = {"clear": True, "doubtful": None, "blocked": False}[los]
        if not self.can_act(firer, reasons):
            ok = False
        return Verdict(
            "los",
            ok,
            tuple(reasons),
            distance=float(d),
            uncertainty=float(doubt),
            los=los,
            details={"blocking": blocking, "units": self.unit_word},
            summary=f"los {firer.id} -> {target.id}: {los}"
            + (f" by {', '.join(blocking)}" if blocking else ""),
        )

    def visibility(self, scene: Scene, reuse: LineReuse | None = None) -> Visibility:
        """All-pairs distance in cells (the likely cells) and LOS: :func:`sight_codes`
        over every pair, as the single questions."""
        pieces = list(scene.pieces)
        g = self.grid(scene.table)
        xy = np.array([p.xy for p in pieces], float).reshape(-1, 2)
        cells = g.cells_at(xy)
        dist = g.distances(cells[:, None, :], cells[None, :, :]).astype(float)
        los = np.zeros((len(pieces), len(pieces)), np.int8)
        blockers = self.blockers(pieces)
        if blockers:
            assert isinstance(g, HexGrid)  # blockers stand on hexes
            places = g.place_many(xy, np.array([p.uncertainty for p in pieces], float))
            i, j = np.triu_indices(len(pieces), k=1)
            final, _ = sight_codes(g, places, BlockingCells.of(places, blockers), i, j)
            los[i, j] = final
            los[j, i] = final
        return Visibility(tuple(p.id for p in pieces), dist, los)
