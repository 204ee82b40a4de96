"""Pz8 games played on zones and hexes: 1939/41 Naval, Space, 1935/65 and 1965-75 Aerial.

These four texts (``rule-sources/004_...txt``) count in cells, not inches:
the Naval sea is cut into 8 zones across the long side of the table, the
Space and Aerial games are played on a hex mat. A ruleset lays its grid out
from the table frame (:mod:`referee.rules.grid`; the mat's corner, turn and
cell size are conventions), puts every tracked piece on the cell under its
base centre, and answers in cells: ``distance`` is cells (hexes or zones,
``units`` says which), ``uncertainty`` is how many cells the measurement doubt
could change it by, and a piece whose doubt circle crosses a cell border
makes any answer that depends on which cell it is in "too close to call".

Every system answers ``cell`` (``piece``: which cell, which hex side it
faces), ``range``, ``los`` and ``move``; Naval adds ``torpedo``, Space
``torpedo`` (the nearest enemy a torpedo counter runs at), both Aerial sets
``tailing`` and the 1935/65 set ``ground_attack``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from referee.rules.core import (
    fmt,
    piece_arg,
    worst,
)
from referee.rules.grid import Cell, HexGrid, Placement, ZoneGrid, outlines, spread
from referee.rules.grid_sight import CellBlockers, GridSight
from referee.rules.queries import MoveQuery, PairQuery, RangeQuery
from referee.rules.settings import setting
from referee.rules.values import PieceField, QueryError, Verdict, name_key
from referee.rules.wording import LEGAL, MAY_FIRE, WITHIN, YES, Words
from referee.scene import Piece, Scene, Table, normalise_edge

SOURCE = "004_6d86763d460ce231.txt"


def over(values: Iterable[bool | None]) -> bool | None:
    """One verdict over every way the doubt could fall: True when all say yes, False when
    all say no, else None (too close to call)."""
    seen = set(values)
    if seen <= {True}:
        return True
    if seen == {False}:
        return False
    return None


class GridGame(GridSight):
    """The shared engine: a grid from the table, pieces on cells, answers in cells (line
    of sight: :class:`GridSight`'s, from the declared :attr:`sight_blockers`)."""

    source = SOURCE
    targets_trim = False  # a line of cells costs less than trimming the scene for it
    edge_questions: ClassVar[tuple[str, ...]] = ()
    """Questions whose answer depends on the table edges (where each side deploys)."""

    @dataclass(frozen=True)
    class Settings:
        """Grid conventions. Distances are inches."""

        grid_x: float = setting(
            0.0, "Table x of the corner of the mat (hex mat or zone plan), inches."
        )
        grid_y: float = setting(0.0, "Table y of the corner of the mat, inches.")
        grid_rotation: float = setting(
            0.0, "Degrees the mat is turned on the table (0: its rows run along the x axis)."
        )

    settings: Any

    # -- the grid ---------------------------------------------------------------------------

    def grid_json(self, table: Table) -> dict[str, Any]:
        """The grid for the dashboard map: kind, cell size and every cell's outline."""
        g = self.grid(table)
        return {
            "kind": g.kind,
            "units": self.unit_word,
            "size": g.size,
            "cells": outlines(g, table.width, table.depth),
        }

    def label(self, scene: Scene, cell: Cell) -> str:
        return self.grid(scene.table).label(cell)

    def live(self, scene: Scene, *skip: str) -> list[Piece]:
        return [p for p in scene.pieces if p.state != "destroyed" and p.id not in skip]

    def where(self, scene: Scene, piece: Piece, place: Placement) -> str:
        """``'in hex 3,-1'`` or ``'in hex 3,-1 or 4,-1 (too close to call)'``."""
        word = self.grid(scene.table).kind
        names = " or ".join(self.label(scene, c) for c in place.cells)
        names = names.replace("zone ", "") if word == "zone" else names
        tail = " (too close to call)" if not place.certain else ""
        return f"{piece.id} is in {word} {names}{tail}"

    # -- shared questions -------------------------------------------------------------------

    def ask_cell(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Which cell ``piece`` is in: certain when its doubt circle stays inside the cell
        (``distance`` is inches from its centre to the cell's border)."""
        piece = piece_arg(scene, query, "piece")
        place = self.place(scene, piece)
        g = self.grid(scene.table)
        ok = True if place.certain else None
        reasons = [
            self.where(scene, piece, place),
            f"its centre is {fmt(place.margin)} from the border"
            + (f", doubt {fmt(piece.uncertainty)}" if piece.uncertainty else ""),
        ]
        details: dict[str, Any] = {
            "cell": self.label(scene, place.cell),
            "cells": [self.label(scene, c) for c in place.cells],
            "grid": g.kind,
        }
        if isinstance(g, HexGrid):
            sides = g.sides(piece.heading, heading_doubt(piece))
            details["facing"] = list(sides)
            if len(sides) > 1:
                ok = None
                reasons.append(f"heading {piece.heading:g} deg is too close to call between sides")
        return Verdict(
            "cell",
            ok,
            tuple(reasons),
            distance=place.margin,
            uncertainty=piece.uncertainty,
            details=details,
            summary=f"cell {piece.id}: {', '.join(details['cells'])}"
            + ("" if ok else " (too close to call)"),
        )

    def occupied(
        self, scene: Scene, piece: Piece, cell: Cell, kinds: Callable[[Piece], bool] | None = None
    ) -> tuple[bool | None, list[str]]:
        """Whether another live piece is in ``cell``: True when one certainly is, None
        when one's doubt reaches it."""
        sure: list[str] = []
        maybe: list[str] = []
        for other in self.live(scene, piece.id):
            if kinds is not None and not kinds(other):
                continue
            place = self.place(scene, other)
            if cell in place.cells:
                (sure if place.certain else maybe).append(other.id)
        if sure:
            return True, sure
        return (None, maybe) if maybe else (False, [])


def heading_doubt(piece: Piece) -> float:
    """Degrees of doubt in a piece's heading: its position doubt seen across half its
    base (the tag's corners give the heading; 0 without doubt)."""
    if piece.uncertainty <= 0:
        return 0.0
    half = max(max(piece.base) / 2, 1e-6)
    return math.degrees(math.atan2(piece.uncertainty, half))


# -- hex movement ---------------------------------------------------------------------------

State = tuple[Cell, int, int | None]
"""(hex, side faced, altitude level or None when not recorded)."""


@dataclass(frozen=True)
class Manoeuvre:
    """One entry of a movement-point table."""

    name: str
    cost: int
    step: int | None
    """Hex side (relative to the facing) moved into: 0 forward, +1/-1 slip; None: stay."""
    turn: int
    """Sides turned after moving (+1 = 60 deg)."""
    climb: int = 0


def reachable(
    grid: HexGrid,
    start: State,
    moves: Sequence[Manoeuvre],
    budget: int,
    blocked: set[Cell],
    first_forward: bool,
    max_alt: int | None,
) -> list[set[State]]:
    """``out[c]``: the states reachable by spending exactly ``c`` movement points."""
    out: list[set[State]] = [set() for _ in range(budget + 1)]
    out[0].add(start)
    for c in range(budget):
        for cell, side, alt in out[c]:
            for m in moves:
                if c + m.cost > budget or (first_forward and c == 0 and m.step != 0):
                    continue
                new_alt: int | None = alt
                if alt is not None and m.climb:
                    new_alt = alt + m.climb
                    if new_alt < 1 or (max_alt is not None and new_alt > max_alt):
                        continue
                nxt = cell if m.step is None else grid.neighbour(cell, side + m.step)
                if nxt in blocked:
                    continue
                out[c + m.cost].add((nxt, (side + m.turn) % 6, new_alt))
    return out


# -- Space ------------------------------------------------------------------------------------


SPACE_MOVES = (
    Manoeuvre("move forward one hex", 1, 0, 0),
    Manoeuvre("change direction 60 deg left", 1, None, -1),
    Manoeuvre("change direction 60 deg right", 1, None, 1),
)
SPACE_TO_HIT = ((3, "4-6"), (6, "5-6"), (9, "6"))
"""Distance band (up to hexes) -> D6 to hit (4)."""


OVER = 3
"""MPs past a piece's most that a move's cost is still worked out for (to report it)."""


class HexGame(GridGame):
    """A game on a hex mat: pieces on hexes, facing hex sides, moving by MPs."""

    @dataclass(frozen=True)
    class Settings(GridGame.Settings):
        """Hex mat conventions. Distances are inches."""

        hex_size: float = setting(
            1.5,
            (
                "Hexes across the flats, inches: the texts name no size (a printed hex mat and "
                "hexagonal flying bases); 1.5in is the common mat."
            ),
        )

        def check(self) -> None:
            if not self.hex_size > 0:
                raise ValueError("setting hex_size must be a positive number of inches")

    def grid(self, table: Table) -> HexGrid:
        s = self.settings
        return HexGrid(s.hex_size, s.grid_x, s.grid_y, s.grid_rotation)

    def sides(self, scene: Scene, piece: Piece, heading: float | None = None) -> tuple[int, ...]:
        h = piece.heading if heading is None else heading
        return self.grid(scene.table).sides(h, heading_doubt(piece))

    def moves(self, piece: Piece) -> Sequence[Manoeuvre]:
        raise NotImplementedError

    def mp_window(self, piece: Piece) -> tuple[int, int]:
        """(least, most) movement points the piece must/may spend."""
        raise NotImplementedError

    def max_altitude(self, piece: Piece) -> int | None:
        return None

    def altitude(self, piece: Piece) -> int | None:
        return None

    first_forward: ClassVar[bool] = False

    def blocked_cells(self, scene: Scene, piece: Piece) -> set[Cell]:
        """Hexes no move may enter (asteroids)."""
        return set()

    def occupies(self, piece: Piece) -> bool:
        """Whether a move may not end on this piece's hex."""
        return True

    def judge_move(self, scene: Scene, move: MoveQuery) -> Verdict:
        """The hex grid's move (the grid's geometry in place of the table core's): the
        fewest MPs of the text's manoeuvres that take the piece from its hex and facing to
        the end hex and facing, within the least and most it may spend, not ending on
        another piece's hex. Every hex and facing the position doubt allows is tried."""
        piece, start, end = move.piece, move.start, move.end
        g = self.grid(scene.table)
        doubt = piece.uncertainty if move.uncertainty is None else move.uncertainty / 2
        alt0 = self.altitude(piece)
        alt1: int | None = None
        if "altitude" in move.extra:
            raw = move.extra["altitude"]
            if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
                raise QueryError(".altitude", f"must be a whole altitude level, got {raw!r}")
            alt1 = raw
        p0, p1 = g.place(start.x, start.y, doubt), g.place(end.x, end.y, doubt)
        probe = piece.moved(start.x, start.y, start.heading)
        s0 = g.sides(start.heading, heading_doubt(probe))
        s1 = g.sides(end.heading, heading_doubt(probe))
        least, most = self.mp_window(piece)
        moves = self.moves(piece)
        blocked = self.blocked_cells(scene, piece)
        reasons: list[str] = [
            f"from {'/'.join(g.label(c) for c in p0.cells)} facing side "
            f"{'/'.join(map(str, s0))} to {'/'.join(g.label(c) for c in p1.cells)} facing "
            f"side {'/'.join(map(str, s1))}"
        ]
        outcomes: list[bool | None] = []
        costs: dict[tuple[Cell, int, Cell, int], int | None] = {}
        for c0 in p0.cells:
            for a in s0:
                # A few MPs past the most, to say by how much a move is over.
                reach = reachable(
                    g,
                    (c0, a, alt0),
                    moves,
                    most + OVER,
                    blocked,
                    self.first_forward,
                    self.max_altitude(piece),
                )
                for c1 in p1.cells:
                    for b in s1:
                        spent = [
                            c
                            for c in range(most + OVER + 1)
                            if any(
                                st[:2] == (c1, b) and (alt1 is None or st[2] in (alt1, None))
                                for st in reach[c]
                            )
                        ]
                        legal = [c for c in spent if least <= c <= most]
                        costs[(c0, a, c1, b)] = (legal or spent)[0] if spent else None
                        outcomes.append(bool(legal))
        ok_mp = over(outcomes)
        likely = costs.get((p0.cell, s0[0], p1.cell, s1[0]))
        known = [c for c in costs.values() if c is not None]
        if likely is None:
            reasons.append(
                f"no sequence of the {self.title} manoeuvres of at most {most + OVER} MPs "
                "reaches it" + (" (asteroids in the way)" if blocked else "")
            )
        else:
            reasons.append(
                f"reached with {likely} MPs (it must spend {least} to {most}): "
                + ("legal" if ok_mp else "too close to call" if ok_mp is None else "illegal")
            )
        occ, who = self.occupied(scene, piece, p1.cell, self.occupies)
        for c in p1.cells[1:]:
            more, extra = self.occupied(scene, piece, c, self.occupies)
            if more is not False:
                occ = None if occ is not True else occ
                who += [w for w in extra if w not in who]
        if occ is True and p1.certain:
            reasons.append(f"ends in a hex already occupied by {', '.join(who)}")
            occ_ok: bool | None = False
        elif occ is not False:
            reasons.append(f"may end in a hex occupied by {', '.join(who)} (too close to call)")
            occ_ok = None
        else:
            occ_ok = True
        acting = self.can_act(piece, reasons)
        ok = False if not acting else worst([ok_mp, occ_ok])
        word = LEGAL(ok)
        spread_mp = max((abs(c - likely) for c in known), default=0) if likely is not None else 0
        return Verdict(
            "move",
            ok,
            tuple(reasons),
            distance=float(likely) if likely is not None else None,
            uncertainty=float(spread_mp),
            limit=float(most),
            details={
                "units": "MPs",
                "least": least,
                "from_cell": g.label(p0.cell),
                "to_cell": g.label(p1.cell),
                "hexes": g.distance(p0.cell, p1.cell),
            },
            summary=f"move {piece.id}: "
            + (f"{likely} MPs" if likely is not None else "unreachable")
            + f", {word} (limit {most} MPs)",
        )

    def fire_check(
        self,
        scene: Scene,
        firer: Piece,
        target: Piece,
        test: Callable[[Cell, int, Cell, int], bool | None],
    ) -> bool | None:
        """``test(firer hex, firer side, target hex, hex distance)`` over every hex and
        facing the doubt allows."""
        g = self.grid(scene.table)
        pa, pb = self.place(scene, firer), self.place(scene, target)
        return over(
            test(ca, side, cb, g.distance(ca, cb))
            for ca in pa.cells
            for side in self.sides(scene, firer)
            for cb in pb.cells
        )


SPACE_KINDS = {"spaceship": "spaceship", "ship": "spaceship", "torpedo": "torpedo"}
SPACE_KINDS.update({"asteroid": "asteroid"})


class Pz8Space(HexGame):
    """Pz8 Space: six MPs, fire straight forward, torpedoes, asteroids."""

    name = "pz8-space"
    aliases = ("pz8 space", "pz8 spaceship", "pz8-sf-space")
    title = "Pz8 Space"
    kinds = SPACE_KINDS
    sight_blockers = CellBlockers(
        frozenset({"asteroid"}),
        blocked="the line crosses asteroid {}'s hex: blocked (8)",
        doubtful="the line runs along the edge of asteroid {}'s hex "
        "(or a hex is too close to call): doubtful",
        clear="no asteroid on the line; spaceships do not block (4)",
    )
    """Asteroids block LOS (8): the line between the two hex centres crosses an
    asteroid's hex (blocked), runs along its edge or through its corner, or may cross it
    where a hex is too close to call (doubtful)."""
    first_forward = True
    open_sight = "spaceships do not block line of sight (4)"

    @dataclass(frozen=True)
    class Settings(HexGame.Settings):
        """Pz8 Space conventions. Distances are inches."""

        max_range: int = setting(9, "Hexes: the to-hit table stops at 7-9 hexes (4).")

    settings: Pz8Space.Settings

    def moves(self, piece: Piece) -> Sequence[Manoeuvre]:
        return SPACE_MOVES

    def mp_window(self, piece: Piece) -> tuple[int, int]:
        # A Damaged spaceship reduces its MPs to 3 (4); at least 2 MPs either way (3).
        return 2, 3 if piece.state == "damaged" else 6

    def blocked_cells(self, scene: Scene, piece: Piece) -> set[Cell]:
        out: set[Cell] = set()
        for p in self.live(scene, piece.id):
            if self.category(p) == "asteroid":
                out.update(self.place(scene, p).cells)
        return out

    def check_mover(self, piece: Piece) -> None:
        if self.category(piece) != "spaceship":
            raise QueryError(
                ".piece",
                f"{piece.id} is a {self.category(piece)}: only spaceships move by MPs "
                "(torpedoes run at the nearest enemy: ask torpedo; asteroids shift one hex)",
            )

    def occupies(self, piece: Piece) -> bool:
        return self.category(piece) == "spaceship"

    def judge_range(self, scene: Scene, query: RangeQuery) -> Verdict:
        """Fire from ``from`` at ``to`` in hexes: straight forward (the row of hexes ahead
        of the side it faces), 1 to 9 hexes, with the to-hit band."""
        firer, target = query.firer, query.target
        if self.category(firer) != "spaceship":
            raise QueryError(".from", f"{firer.id} is a {self.category(firer)}: it does not fire")
        g = self.grid(scene.table)
        pa, pb = self.place(scene, firer), self.place(scene, target)
        d, doubt, _ = self.cell_distance(scene, pa, pb)
        limit = self.settings.max_range
        sides = self.sides(scene, firer)
        reasons = [self.where(scene, firer, pa), self.where(scene, target, pb)]
        in_range = over(1 <= dd <= limit for _, _, dd in self.cell_distance(scene, pa, pb)[2])
        ahead = self.fire_check(
            scene, firer, target, lambda ca, side, cb, dd: g.ahead(ca, side, cb) is not None
        )
        facing = "/".join(f"{s} ({g.side_heading(s):g} deg)" for s in sides)
        reasons.append(
            f"{d} hexes{' (+/-' + str(doubt) + ')' if doubt else ''}: "
            + WITHIN(in_range)
            + f" {limit} hexes"
        )
        reasons.append(
            f"{firer.id} faces side {facing}: {target.id} is "
            + Words("straight ahead", "not straight ahead", "maybe straight ahead")(ahead)
            + " (spaceships fire straight forward, 4)"
        )
        details: dict[str, Any] = {
            "units": "hexes",
            "ahead": ahead,
            "from_cell": g.label(pa.cell),
            "to_cell": g.label(pb.cell),
        }
        band = next((hit for top, hit in SPACE_TO_HIT if 1 <= d <= top), None)
        if band and in_range is not False:
            mods = []
            if firer.state == "damaged":
                mods.append("-1 firer Damaged")
            if self.category(target) == "torpedo":
                mods.append("-1 firing at a torpedo")
            details["to_hit"] = band
            details["modifiers"] = mods
            reasons.append(f"to hit: {band} on a D6" + (f" ({', '.join(mods)})" if mods else ""))
        ok = worst([in_range, ahead])
        if not self.can_act(firer, reasons):
            ok = False
        word = MAY_FIRE(ok)
        return Verdict(
            "range",
            ok,
            tuple(reasons),
            distance=float(d),
            uncertainty=float(doubt),
            limit=float(limit),
            details=details,
            summary=f"range {firer.id} -> {target.id}: {d} hexes, {word} (limit {limit} hexes"
            + (", straight forward)" if ahead is not False else "; not straight forward)"),
        )

    def ask_torpedo(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """The enemy spaceship a torpedo counter (``piece``) runs at: the nearest in hexes
        (5); a tie is settled by a die, a doubtful hex is too close to call."""
        torp = piece_arg(scene, query, "piece")
        if self.category(torp) != "torpedo":
            raise QueryError(".piece", f"{torp.id} is a {self.category(torp)}, not a torpedo")
        pt = self.place(scene, torp)
        ranges: dict[str, tuple[int, int, int]] = {}
        for p in self.live(scene, torp.id):
            if p.side == torp.side or self.category(p) != "spaceship":
                continue
            d, doubt, pairs = self.cell_distance(scene, pt, self.place(scene, p))
            ds = [x for _, _, x in pairs]
            ranges[p.id] = (d, min(ds), max(ds))
        if not ranges:
            return Verdict(
                "torpedo", False, ("no enemy spaceship on the table",), summary="torpedo: no target"
            )
        nearest = min(r[0] for r in ranges.values())
        best_hi = min(r[2] for r in ranges.values())
        sure = sorted(k for k, r in ranges.items() if r[0] == nearest)
        maybe = sorted(k for k, r in ranges.items() if r[1] <= best_hi)
        reasons = [f"{k}: {r[0]} hexes" for k, r in sorted(ranges.items())]
        if len(maybe) == 1:
            ok: bool | None = True
            reasons.append(f"{maybe[0]} is the nearest enemy spaceship: the torpedo runs at it")
        elif set(maybe) == set(sure) and all(ranges[k][1] == ranges[k][2] for k in maybe):
            ok = None
            reasons.append(f"{', '.join(sure)} are equally near: determine randomly (5)")
        else:
            ok = None
            reasons.append(f"which of {', '.join(maybe)} is nearest is too close to call")
        doubt = max(max(r[2] - r[0], r[0] - r[1]) for k, r in ranges.items() if k in maybe)
        return Verdict(
            "torpedo",
            ok,
            tuple(reasons),
            distance=float(nearest),
            uncertainty=float(doubt),
            details={"target": maybe[0] if ok else None, "candidates": maybe, "units": "hexes"},
            summary=f"torpedo {torp.id}: "
            + (f"runs at {maybe[0]}" if ok else f"one of {', '.join(maybe)}")
            + f" ({nearest} hexes)",
        )


# -- Aerial ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Aircraft:
    """One row of a sample data table."""

    mp: int
    att: int
    defence: int
    alt: int
    rear: int = 0
    """Attack factor of rear (flexible) guns, 0: none."""
    biplane: bool = False
    ww1: bool = False
    """The WW1 appendix applies (120 deg turn for 3 MPs)."""
    hs: int = 0
    """Heat-seeking missiles carried (1965-75)."""
    rh: int = 0
    """Radar-homing missiles carried (1965-75)."""


A = Aircraft
AERIAL_TYPES = {
    "cr42": A(4, 2, 1, 3, biplane=True),
    "gladiator": A(4, 2, 1, 3, biplane=True),
    "hurricane": A(5, 3, 2, 3),
    "spitfire": A(6, 3, 2, 4),
    "mosquito": A(6, 4, 2, 3),
    "me 109": A(6, 3, 2, 3),
    "bf 110": A(5, 3, 2, 3, rear=1),
    "ju 87 stuka": A(4, 2, 2, 2, rear=1),
    "yak 9": A(6, 3, 2, 3),
    "il-2 shturmovik": A(4, 4, 3, 2),
    "a6m zero": A(5, 3, 2, 3),
    "f4u corsair": A(7, 3, 2, 4),
    "p51 mustang": A(6, 2, 2, 4),
    "me262": A(8, 4, 3, 4),
    "meteor": A(9, 4, 3, 4),
    "mig 15": A(10, 4, 3, 5),
    "f-86 sabre": A(11, 3, 3, 5),
    # WW1 appendix (12); the Fokker Dr.I is a triplane, counted with the biplanes.
    "sopwith camel": A(3, 2, 1, 3, biplane=True, ww1=True),
    "re8": A(3, 1, 2, 2, rear=2, biplane=True, ww1=True),
    "se5a": A(4, 2, 1, 3, biplane=True, ww1=True),
    "fokker dr1": A(3, 2, 1, 3, biplane=True, ww1=True),
    "fokker dvii": A(3, 2, 1, 4, biplane=True, ww1=True),
    "albatros d.iii": A(3, 2, 1, 3, biplane=True, ww1=True),
    "spad 7": A(4, 1, 1, 3, biplane=True, ww1=True),
    "nieuport 27": A(3, 1, 1, 3, biplane=True, ww1=True),
    "aviatik d.i": A(3, 2, 1, 4, biplane=True, ww1=True),
}
AERIAL_ALIASES = {
    "bf 109": "me 109",
    "stuka": "ju 87 stuka",
    "ju 87": "ju 87 stuka",
    "zero": "a6m zero",
    "corsair": "f4u corsair",
    "mustang": "p51 mustang",
    "p-51": "p51 mustang",
    "sabre": "f-86 sabre",
    "camel": "sopwith camel",
    "dr1": "fokker dr1",
    "dvii": "fokker dvii",
    "il2": "il-2 shturmovik",
    "yak": "yak 9",
}
JET_TYPES = {
    "mig 19": A(4, 4, 3, 5, hs=4),
    "mig 21": A(7, 4, 3, 5, hs=2),
    "f 100": A(4, 4, 3, 5, hs=4),
    "f 104": A(7, 4, 3, 5, hs=2),
    "f4e phantom": A(7, 4, 3, 6, hs=4, rh=4),
    "f5": A(6, 4, 3, 5, rh=4),
    "a4 skyhawk": A(3, 4, 3, 4, hs=4),
    "super mystere": A(4, 4, 3, 5, hs=2),
    "mirage iii": A(7, 4, 3, 5, hs=2),
    "saab 35 draken": A(7, 4, 3, 6, hs=4),
}
JET_ALIASES = {
    "phantom": "f4e phantom",
    "f-4": "f4e phantom",
    "skyhawk": "a4 skyhawk",
    "mirage": "mirage iii",
    "draken": "saab 35 draken",
    "f-100": "f 100",
    "f-104": "f 104",
}
AERIAL_TO_HIT = {1: "4-6", 2: "5-6", 3: "5-6", 4: "6"}
JET_CANNON_TO_HIT = {1: "4-6", 2: "5-6"}


def _kinds_of(
    types: Mapping[str, Any], aliases: Mapping[str, str], extra: Mapping[str, str]
) -> dict[str, str]:
    out = {name_key(k): k for k in types}
    out.update({name_key(k): v for k, v in aliases.items()})
    out.update({name_key(k): v for k, v in extra.items()})
    return out


class AerialGame(HexGame):
    """The engine both Aerial sets share: aircraft by type, MPs with altitude, tailing."""

    types: ClassVar[Mapping[str, Aircraft]] = {}
    turn_cost: ClassVar[int] = 2
    """MPs for move forward one hex and change direction 60 deg."""
    loop_cost: ClassVar[int] = 4
    """MPs for move forward, climb one level and change direction 180 deg."""
    open_sight = "aircraft do not block line of sight (5)"
    piece_fields: ClassVar[tuple[PieceField, ...]] = (
        PieceField("altitude", "count", None, "altitude level (the small D6 by the base)"),
        PieceField("bombs", "flag", False, "carrying bombs or rockets: -1 MP and max altitude"),
    )

    @dataclass(frozen=True)
    class Settings(HexGame.Settings):
        """Aerial conventions (the firing arc diagrams did not survive in the text).
        Distances are inches."""

        front_arc: float = setting(
            60.0,
            (
                "Degrees: frontal (fixed) weapons fire at hexes whose centre is within half "
                "this of the facing (the diagram is lost; 60 deg is the hex side's own cone)."
            ),
        )
        rear_arc: float = setting(60.0, "Degrees: rear (flexible) weapons, around the tail.")

    settings: Any

    def aircraft(self, piece: Piece) -> Aircraft | None:
        return self.types.get(self.category(piece))

    def plane(self, piece: Piece, path: str) -> Aircraft:
        t = self.aircraft(piece)
        if t is None:
            raise QueryError(path, f"{piece.id} is a {self.category(piece)}, not an aircraft")
        return t

    def altitude(self, piece: Piece) -> int | None:
        value = self.field(piece, "altitude")
        return int(value) if value is not None else None

    def max_altitude(self, piece: Piece) -> int | None:
        t = self.aircraft(piece)
        if t is None:
            return None
        cut = (piece.state == "damaged") + bool(self.field(piece, "bombs"))
        return t.alt - cut

    def mp_window(self, piece: Piece) -> tuple[int, int]:
        t = self.plane(piece, ".piece")
        mp = t.mp - (1 if self.field(piece, "bombs") else 0)
        if piece.state == "damaged":
            mp = math.ceil(mp / 2)  # Damaged: halves its MPs, rounded up (5)
        return math.ceil(mp / 3), mp  # at least 1/3 (rounded up) of its MPs (3)

    def moves(self, piece: Piece) -> Sequence[Manoeuvre]:
        t = self.plane(piece, ".piece")
        out = [
            Manoeuvre("move forward one hex", 1, 0, 0),
            Manoeuvre("move forward one hex, dive one level", 1, 0, 0, -1),
            Manoeuvre("move forward one hex, climb one level", 2, 0, 0, 1),
            Manoeuvre("slip one hex left, dive one level", 2, -1, 0, -1),
            Manoeuvre("slip one hex right, dive one level", 2, 1, 0, -1),
            Manoeuvre("move forward one hex, change direction 60 deg left", self.turn_cost, 0, -1),
            Manoeuvre("move forward one hex, change direction 60 deg right", self.turn_cost, 0, 1),
        ]
        if not self.field(piece, "bombs"):  # no 180 deg turn until bombs are delivered (9)
            loop = self.loop_cost - (1 if t.biplane and self.name == "pz8-aerial" else 0)
            out.append(Manoeuvre("move forward, climb one level, turn 180 deg", loop, 0, 3, 1))
        if t.ww1:  # WW1 appendix: move forward one hex, change direction 120 deg = 3 MPs
            out += [
                Manoeuvre("move forward one hex, change direction 120 deg left", 3, 0, -2),
                Manoeuvre("move forward one hex, change direction 120 deg right", 3, 0, 2),
            ]
        return out

    def occupies(self, piece: Piece) -> bool:
        return self.aircraft(piece) is not None

    def check_mover(self, piece: Piece) -> None:
        self.plane(piece, ".piece")  # only aircraft move by MPs

    def judge_range(self, scene: Scene, query: RangeQuery) -> Verdict:
        """Fire from ``from`` at ``to`` with the era's ``weapon`` (:meth:`fire_weapon`):
        in its arc, within its hexes, at the level it allows, with the era's own checks
        (:meth:`weapon_checks`) and to-hit table (:meth:`to_hit_table`)."""
        firer, target = query.firer, query.target
        plane = self.plane(firer, ".from")
        weapon, low, high, rear = self.fire_weapon(firer, plane, query)
        reasons: list[str] = []
        details: dict[str, Any] = {}
        oks = self.weapon_checks(scene, query, plane, weapon, reasons, details)
        arc = self.arc_test(scene, firer, target, rear)
        alt = self.altitude_test(firer, target, rear, reasons)
        verdict = self.fire_verdict(
            scene,
            firer,
            target,
            weapon,
            low,
            high,
            arc,
            alt,
            reasons,
            details,
            self.to_hit_table(weapon),
        )
        modifiers = self.fire_modifiers(weapon, verdict.distance)
        if modifiers:
            details["modifiers"] = modifiers
        ok = worst([verdict.ok, *oks])
        word = MAY_FIRE(ok)
        summary = verdict.summary.replace(MAY_FIRE(verdict.ok), word)
        return dataclasses.replace(
            verdict, ok=ok, reasons=tuple(reasons), details=details, summary=summary
        )

    def fire_weapon(
        self, firer: Piece, plane: Aircraft, query: RangeQuery
    ) -> tuple[str, int, int, bool]:
        """(weapon, fewest hexes, most hexes, fires to the rear) for the asked ``weapon``."""
        raise NotImplementedError

    def weapon_checks(
        self,
        scene: Scene,
        query: RangeQuery,
        plane: Aircraft,
        weapon: str,
        reasons: list[str],
        details: dict[str, Any],
    ) -> list[bool | None]:
        """The era's own conditions on the weapon (missiles left, a target flying the same
        way), their reasons and details added."""
        return []

    def to_hit_table(self, weapon: str) -> Mapping[int, str]:
        """Hexes -> the D6 roll that hits."""
        return AERIAL_TO_HIT

    def fire_modifiers(self, weapon: str, distance: float | None) -> list[str]:
        """To-hit modifiers the distance brings."""
        return []

    def ask_tailing(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Whether ``piece`` is tailed: an enemy aircraft on its rear hex flying in the
        same direction (4); a tailed aircraft must be activated first."""
        piece = piece_arg(scene, query, "piece")
        self.plane(piece, ".piece")
        g = self.grid(scene.table)
        place = self.place(scene, piece)
        mine = self.sides(scene, piece)
        found: dict[str, bool | None] = {}
        for other in self.live(scene, piece.id):
            if other.side == piece.side or self.aircraft(other) is None:
                continue
            po = self.place(scene, other)
            theirs = self.sides(scene, other)
            res = over(
                g.neighbour(c, s + 3) == co and t == s
                for c in place.cells
                for s in mine
                for co in po.cells
                for t in theirs
            )
            if res is not False:
                found[other.id] = res
        sure = sorted(k for k, v in found.items() if v)
        ok: bool | None = True if sure else (None if found else False)
        who = sure or sorted(found)
        reasons = [
            f"{', '.join(who)} on {piece.id}'s rear hex flying the same way: "
            + ("tailed, activate it first" if ok else "too close to call")
            if who
            else f"no enemy aircraft on {piece.id}'s rear hex flying the same way"
        ]
        return Verdict(
            "tailing",
            ok,
            tuple(reasons),
            details={"tailed_by": who},
            summary=f"tailing {piece.id}: "
            + (Words(f"tailed by {', '.join(who)}", "not tailed", "doubtful")(ok)),
        )

    def arc_test(self, scene: Scene, firer: Piece, target: Piece, rear: bool) -> bool | None:
        g = self.grid(scene.table)
        width = self.settings.rear_arc if rear else self.settings.front_arc
        return self.fire_check(
            scene,
            firer,
            target,
            lambda ca, side, cb, dd: g.in_arc(ca, side + (3 if rear else 0), cb, width),
        )

    def altitude_test(self, firer: Piece, target: Piece, higher: bool, reasons: list[str]) -> bool:
        a, b = self.altitude(firer), self.altitude(target)
        if a is None or b is None:
            reasons.append("altitude not recorded for both: check the altitude dice yourselves")
            return True
        ok = b == a or (higher and b == a + 1)
        need = "the same or one higher" if higher else "the same"
        reasons.append(
            f"altitudes {a} and {b}: target must be at {need} level: {'yes' if ok else 'no'}"
        )
        return ok

    def fire_verdict(
        self,
        scene: Scene,
        firer: Piece,
        target: Piece,
        weapon: str,
        low: int,
        high: int,
        arc: bool | None,
        alt_ok: bool,
        reasons: list[str],
        details: dict[str, Any],
        to_hit: Mapping[int, str],
    ) -> Verdict:
        g = self.grid(scene.table)
        pa, pb = self.place(scene, firer), self.place(scene, target)
        d, doubt, pairs = self.cell_distance(scene, pa, pb)
        in_range = over(low <= dd <= high for _, _, dd in pairs)
        reasons[:0] = [self.where(scene, firer, pa), self.where(scene, target, pb)]
        reasons.append(
            f"{d} hexes{' (+/-' + str(doubt) + ')' if doubt else ''}: "
            + Words("within", "outside", "too close to call at")(in_range)
            + f" {weapon} range {low}-{high} hexes"
        )
        word_arc = Words("inside", "outside", "too close to call at the edge of")
        reasons.append(f"{target.id} is {word_arc(arc)} {firer.id}'s {weapon} arc")
        details.update({"units": "hexes", "weapon": weapon, "arc": arc, "min_range": low})
        details["from_cell"], details["to_cell"] = g.label(pa.cell), g.label(pb.cell)
        if in_range is not False and d in to_hit:
            details["to_hit"] = to_hit[d]
            reasons.append(f"to hit: {to_hit[d]} on a D6")
        ok = worst([in_range, arc, alt_ok])
        if not self.can_act(firer, reasons):
            ok = False
        word = MAY_FIRE(ok)
        return Verdict(
            "range",
            ok,
            tuple(reasons),
            distance=float(d),
            uncertainty=float(doubt),
            limit=float(high),
            details=details,
            summary=f"range {firer.id} -> {target.id}: {d} hexes, {word} ({weapon}, "
            f"{low}-{high} hexes)",
        )


class Pz8Aerial(AerialGame):
    """Pz8 1935/65 Aerial (with the WW1 appendix)."""

    name = "pz8-aerial"
    aliases = ("pz8 aerial", "pz8-aerial-1935", "pz8 1935/65 aerial", "pz8-ww1-aerial")
    title = "Pz8 1935/65 Aerial"
    types = AERIAL_TYPES
    kinds = _kinds_of(AERIAL_TYPES, AERIAL_ALIASES, {"ground target": "target"})
    turn_cost = 2
    loop_cost = 4

    settings: AerialGame.Settings

    def fire_weapon(
        self, firer: Piece, plane: Aircraft, query: RangeQuery
    ) -> tuple[str, int, int, bool]:
        """``weapon``: ``front``, the fixed guns, or ``rear``, the flexible ones: 1-4
        hexes, in the arc, at the same level (rear: or one higher)."""
        weapon = str(query.extra.get("weapon", "front")).lower()
        if weapon not in ("front", "rear"):
            raise QueryError(".weapon", f"must be front or rear, got {query.extra.get('weapon')!r}")
        if weapon == "rear" and not plane.rear:
            raise QueryError(".weapon", f"{firer.id} ({self.category(firer)}) has no rear guns")
        return weapon, 1, 4, weapon == "rear"

    def ask_ground_attack(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A ground attack by ``from`` on ``to``: the aircraft ends its move in a hex
        adjacent to the target (9)."""
        plane = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        self.plane(plane, ".from")
        pa, pb = self.place(scene, plane), self.place(scene, target)
        d, doubt, pairs = self.cell_distance(scene, pa, pb)
        ok = over(dd == 1 for _, _, dd in pairs)
        reasons = [self.where(scene, plane, pa), self.where(scene, target, pb)]
        reasons.append(f"{d} hexes apart: " + Words("adjacent", "not adjacent", "doubtful")(ok))
        if not self.can_act(plane, reasons):
            ok = False
        return Verdict(
            "ground_attack",
            ok,
            tuple(reasons),
            distance=float(d),
            uncertainty=float(doubt),
            limit=1.0,
            details={"units": "hexes"},
            summary=f"ground_attack {plane.id} -> {target.id}: {d} hexes, {YES(ok)}",
        )


class Pz8Aerial1965(AerialGame):
    """Pz8 1965-75 Aerial: jets, cannon 2 hexes, heat-seeking and radar-homing missiles."""

    name = "pz8-aerial-1965"
    aliases = ("pz8 aerial 1965", "pz8-1965-aerial", "pz8 1965-75 aerial", "pz8-jets")
    title = "Pz8 1965-75 Aerial"
    types = JET_TYPES
    kinds = _kinds_of(JET_TYPES, JET_ALIASES, {})
    turn_cost = 1
    loop_cost = 3
    piece_fields = (
        *AerialGame.piece_fields,
        PieceField("hs", "count", None, "heat-seeking missiles left (default: the sample data)"),
        PieceField("rh", "count", None, "radar-homing missiles left (default: the sample data)"),
    )
    weapons: ClassVar[Mapping[str, tuple[int, int]]] = {
        "cannon": (1, 2),
        "hs": (4, 12),
        "rh": (7, 24),
    }

    settings: AerialGame.Settings

    def fire_weapon(
        self, firer: Piece, plane: Aircraft, query: RangeQuery
    ) -> tuple[str, int, int, bool]:
        """``weapon``: ``cannon``, ``hs`` or ``rh``: in the forward arc at the same level;
        cannon 1-2 hexes, heat-seeking missiles 4-12 hexes at a target flying the same
        direction, radar-homing 7-24 (-1 over 12)."""
        weapon = str(query.extra.get("weapon", "cannon")).lower()
        if weapon not in self.weapons:
            raise QueryError(
                ".weapon", f"must be cannon, hs or rh, got {query.extra.get('weapon')!r}"
            )
        low, high = self.weapons[weapon]
        return weapon, low, high, False

    def weapon_checks(
        self,
        scene: Scene,
        query: RangeQuery,
        plane: Aircraft,
        weapon: str,
        reasons: list[str],
        details: dict[str, Any],
    ) -> list[bool | None]:
        firer, target = query.firer, query.target
        oks: list[bool | None] = []
        if weapon != "cannon":
            left = self.field(firer, weapon)
            left = getattr(plane, weapon) if left is None else left
            if not left:
                reasons.append(f"{firer.id} has no {weapon.upper()} missiles")
                oks.append(False)
            details["missiles"] = left
        if weapon == "hs":
            same = over(a == b for a in self.sides(scene, firer) for b in self.sides(scene, target))
            reasons.append(
                f"{target.id} flying the same direction: {YES(same)} (heat-seeking missiles)"
            )
            oks.append(same)
        return oks

    def to_hit_table(self, weapon: str) -> Mapping[int, str]:
        return JET_CANNON_TO_HIT if weapon == "cannon" else {}

    def fire_modifiers(self, weapon: str, distance: float | None) -> list[str]:
        if weapon == "rh" and distance is not None and distance > 12:
            return ["-1 target over 12 hexes"]
        return []


# -- Naval --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ship:
    """A ship type or one of the text's sample ships."""

    defence: int
    attack: int
    range: int
    """Zones the main battery reaches (the to-straddle table's columns)."""
    secondary: int = 0
    """Zones the secondary battery reaches (battlecruisers, 11)."""
    torpedoes: int = 0
    """Torpedo salvos (one per 2 torpedoes, 11)."""


NAVAL_TYPES = {
    # Ship types by main battery: 18"-14" guns reach 4 zones, 12"-8" guns 3 (4);
    # in the battlecruiser / light cruiser rules 11"-12" reach 4, 8"-6" 3 (11).
    # Generic types: the Defence comes from the ship's tonnage (7), so it is the piece's
    # own "defence" field (0: not given); the Attack factor is not a distance.
    "battleship": Ship(0, 4, 4),
    "battlecruiser": Ship(0, 3, 4, secondary=3),
    "heavy cruiser": Ship(0, 2, 3),
    "light cruiser": Ship(0, 1, 3),
    "carrier": Ship(0, 0, 0),
    # The sample ships (9, 11): Def, Att, Range.
    "hood": Ship(5, 4, 4),
    "prince of wales": Ship(5, 4, 4),
    "bismarck": Ship(4, 4, 4),
    "prinz eugen": Ship(1, 1, 3),
    "barham": Ship(3, 4, 4),
    "valiant": Ship(3, 4, 4),
    "warspite": Ship(3, 4, 4),
    "vittorio veneto": Ship(5, 5, 4),
    "zara": Ship(1, 1, 3),
    "fiume": Ship(1, 1, 3),
    "pola": Ship(1, 1, 3),
    "trieste": Ship(1, 1, 3),
    "trento": Ship(1, 1, 3),
    "bolzano": Ship(1, 1, 3),
    "graf spee": Ship(3, 2, 4, secondary=3, torpedoes=3),
    "exeter": Ship(2, 1, 3, torpedoes=3),
    "ajax": Ship(2, 1, 3, torpedoes=4),
    "achilles": Ship(2, 1, 3, torpedoes=4),
    "formidable": Ship(2, 0, 0),
}
NAVAL_ALIASES = {
    "bb": "battleship",
    "bc": "battlecruiser",
    "pocket battleship": "battlecruiser",
    "ca": "heavy cruiser",
    "cl": "light cruiser",
    "cv": "carrier",
    "admiral graf spee": "graf spee",
}
STRADDLE = {4: {1: "4,5,6", 2: "5,6", 3: "5,6", 4: "6"}, 3: {1: "4,5,6", 2: "5,6", 3: "6"}}
"""Range of the battery (zones) -> zones -> D6 to straddle (4, 11)."""


class Pz8Naval(GridGame):
    """Pz8 1939/41 Naval: 8 zones, one zone a move, range in zones."""

    name = "pz8-naval"
    aliases = ("pz8 naval", "pz8-naval-1939", "pz8 1939/41 naval", "pz8 ww2 naval")
    title = "Pz8 1939/41 Naval"
    unit_word = "zones"
    edge_questions = ("move",)
    types = NAVAL_TYPES
    kinds = _kinds_of(NAVAL_TYPES, NAVAL_ALIASES, {})
    open_sight = "ships do not block line of sight (4)"
    piece_fields = (
        PieceField("hull", "count", 0, "H damages: half the Defence stops zone moves (5)"),
        PieceField("smoke", "flag", False, "protected by its smoke screen: may not fire (4)"),
        PieceField("torpedoes", "count", None, "torpedo salvos left (default: the sample ship)"),
        PieceField("defence", "count", None, "Defence factor (default: the sample ship's)"),
    )

    @dataclass(frozen=True)
    class Settings(GridGame.Settings):
        """Naval conventions. Distances are inches."""

        zones: int = setting(
            8,
            (
                "The playing area is divided into 8 zones (1), across the table's long side; "
                "each side has the 4 zones at its end."
            ),
        )
        zone_depth: float = setting(
            0.0,
            (
                "Inches per zone along the long side; 0: the long side / zones (the text's 100 "
                "cm table in 12.5 cm zones)."
            ),
        )
        facing_margin: float = setting(
            45.0,
            (
                "Degrees: a ship within this of pointing at the central line faces it (moving "
                "forward), within this of pointing home faces home (moving backward), otherwise "
                "it lies broadside (parallel to the central line); exactly at it: too close to "
                "call."
            ),
        )

        def check(self) -> None:
            if isinstance(self.zones, bool) or not isinstance(self.zones, int):
                raise ValueError("setting zones must be a whole, even number")
            if self.zones < 2 or self.zones % 2:
                raise ValueError("setting zones must be a whole, even number >= 2")
            if self.zone_depth < 0:
                raise ValueError("setting zone_depth must be >= 0 (0: the long side / zones)")
            if not 0 < self.facing_margin < 90:
                raise ValueError("setting facing_margin must be between 0 and 90 degrees")

    settings: Pz8Naval.Settings

    def grid(self, table: Table) -> ZoneGrid:
        s = self.settings
        along_x = table.width >= table.depth
        long_side, short = (table.width, table.depth) if along_x else (table.depth, table.width)
        depth = s.zone_depth or long_side / s.zones
        if along_x:
            return ZoneGrid(depth, s.grid_x, s.grid_y, s.grid_rotation, s.zones, short)
        # Zones stacked along y: the mat turned 90 deg, its corner at the table's (width, 0).
        return ZoneGrid(
            depth, s.grid_x + table.width, s.grid_y, s.grid_rotation + 90.0, s.zones, short
        )

    def ship(self, piece: Piece) -> Ship:
        return self.types[self.category(piece)]

    def defence(self, piece: Piece) -> int:
        """The Defence factor: the piece's ``defence`` field, else the sample ship's; a
        ship with H damages and no Defence is a question that cannot be answered."""
        value = self.field(piece, "defence")
        defence = int(value) if value is not None else self.ship(piece).defence
        if not defence and int(self.field(piece, "hull") or 0):
            raise QueryError(
                "",
                f"{piece.id} ({self.category(piece)}) has H damages but no Defence factor: "
                'give it "defence" (+1 per 10,000 t, +1 for armour over 350mm)',
            )
        return defence

    def home(self, scene: Scene, side: str) -> tuple[int, str]:
        """The zone index (0-based, from the mat's corner) of ``side``'s home edge and how
        that was decided: the scene's ``deployment`` edge, else the end its ships are
        nearer on average."""
        g = self.grid(scene.table)
        edge = scene.deployment.get(side)
        if edge is not None:
            edge = normalise_edge(edge)
            mid = {
                "top": (scene.table.width / 2, 0.0),
                "bottom": (scene.table.width / 2, scene.table.depth),
                "left": (0.0, scene.table.depth / 2),
                "right": (scene.table.width, scene.table.depth / 2),
            }[edge]
            local = g.to_local(np.array([mid], float))[0]
            if abs(local[0]) > 1e-6 and abs(local[0] - g.size * g.count) > 1e-6:
                raise QueryError(
                    "",
                    f"side {side} deploys on the {edge} edge, a long edge: fleets deploy on "
                    "the shorter edges (1); fix the scene's deployment",
                )
            return (0 if abs(local[0]) <= 1e-6 else g.count - 1), f"deploys on the {edge} edge"
        xs = [
            float(g.to_local(np.array([p.xy], float))[0][0]) for p in scene.pieces if p.side == side
        ]
        others = [
            float(g.to_local(np.array([p.xy], float))[0][0]) for p in scene.pieces if p.side != side
        ]
        mine = sum(xs) / len(xs) if xs else 0.0
        theirs = sum(others) / len(others) if others else g.size * g.count - mine
        near = mine <= theirs
        return (0 if near else g.count - 1), "no deployment given: the end its ships are nearer"

    def own_zone(self, scene: Scene, side: str, cell: Cell) -> int:
        """1 (the home zone) to ``zones`` counted from the side's own edge."""
        h, _ = self.home(scene, side)
        return cell[0] + 1 if h == 0 else self.settings.zones - cell[0]

    def aspect(
        self, scene: Scene, piece: Piece, heading: float, home: int | None = None
    ) -> tuple[str, ...]:
        """``forward`` (facing the central line), ``backward`` (facing home) or
        ``broadside``: every one within the heading doubt. Without ``home`` (the zone
        index of the side's edge) only ``broadside`` or ``not broadside``."""
        g = self.grid(scene.table)
        towards_centre = g.rotation + (180.0 if home else 0.0)
        off = abs((heading - towards_centre + 180.0) % 360.0 - 180.0)
        m, dh = self.settings.facing_margin, heading_doubt(piece)
        ends = [off <= m + dh + 1e-9, off >= 180 - m - dh - 1e-9]
        out = []
        if home is None and any(ends):
            out.append("not broadside")
        elif home is not None:
            out += [name for name, on in zip(("forward", "backward"), ends, strict=True) if on]
        if m - dh - 1e-9 <= off <= 180 - m + dh + 1e-9:
            out.append("broadside")
        return tuple(out)

    def judge_move(self, scene: Scene, move: MoveQuery) -> Verdict:
        """The zones' move (the zone plan's geometry in place of the table core's): one
        zone forward or backward, or stay (1, 3): never across the central line
        (a ship backing out of its home zone leaves the table); moving forward it must
        face the central line, backward its own edge, staying it lies broadside. A ship
        with H damages of half its Defence may not change zone, a Crippled one not move."""
        piece, start, end = move.piece, move.start, move.end
        g = self.grid(scene.table)
        n = self.settings.zones
        doubt = piece.uncertainty
        p0, p1 = g.place(start.x, start.y, doubt), g.place(end.x, end.y, doubt)
        aspects = self.aspect(scene, piece, end.heading, self.home(scene, piece.side)[0])
        hull = int(self.field(piece, "hull") or 0)
        reasons = [
            f"from zone {'/'.join(str(self.own_zone(scene, piece.side, c)) for c in p0.cells)} "
            f"to zone {'/'.join(str(self.own_zone(scene, piece.side, c)) for c in p1.cells)} "
            f"(counted from {piece.side}'s edge: {self.home(scene, piece.side)[1]})",
            f"ends {' or '.join(aspects)}",
        ]
        defence = self.defence(piece)
        crippled = defence > 0 and hull >= defence
        stuck = hull > 0 and hull >= math.ceil(defence / 2)
        outcomes: list[bool | None] = []
        steps: list[int] = []
        for c0 in p0.cells:
            for c1 in p1.cells:
                z0 = self.own_zone(scene, piece.side, c0)
                z1 = self.own_zone(scene, piece.side, c1)
                step = z1 - z0
                steps.append(step)
                legal = abs(step) <= 1 and z1 <= n // 2 and 1 <= z0 <= n // 2
                need = "forward" if step > 0 else "backward" if step < 0 else "broadside"
                facing = over(a == need for a in aspects)
                if stuck and step != 0:
                    legal = False
                outcomes.append(worst([legal, facing]))
        ok = over(outcomes)
        likely = self.own_zone(scene, piece.side, p1.cell) - self.own_zone(
            scene, piece.side, p0.cell
        )
        if any(abs(s) > 1 for s in steps):
            reasons.append("ships move one zone forward or backward at most (3)")
        if any(self.own_zone(scene, piece.side, c) > n // 2 for c in p1.cells):
            reasons.append("ships can't cross the central line (1)")
        if any(self.own_zone(scene, piece.side, c) < 1 for c in p1.cells):
            reasons.append(f"{piece.id} backs out of its home zone: it leaves the table")
        need = "forward" if likely > 0 else "backward" if likely < 0 else "broadside"
        want = {
            "forward": "face the central line",
            "backward": "face its own edge",
            "broadside": "stay parallel to the central line (broadside)",
        }[need]
        reasons.append(f"moving {need if likely else 'within its zone'} it must {want} (3)")
        if stuck and not crippled:
            reasons.append(
                f"{hull} H damages >= half its Defence {defence}: may not change zone (5)"
            )
        if crippled:
            reasons.append(f"{hull} H damages = its Defence {defence}: Crippled, can't move")
            ok = False
        if not self.can_act(piece, reasons):
            ok = False
        word = LEGAL(ok)
        return Verdict(
            "move",
            ok,
            tuple(reasons),
            distance=float(abs(likely)),
            uncertainty=float(spread([abs(s) for s in steps], abs(likely))),
            limit=0.0 if stuck else 1.0,
            details={"units": "zones", "zones_moved": likely, "aspect": list(aspects)},
            summary=f"move {piece.id}: {likely:+d} zones, {word} (limit {0 if stuck else 1} zone"
            + ("s)" if stuck else ")"),
        )

    def _fire(
        self, scene: Scene, query: Mapping[str, Any] | PairQuery, ask: str
    ) -> tuple[Piece, Piece, Placement, Placement, list[str]]:
        pair = query if isinstance(query, PairQuery) else PairQuery.parse(scene, query)
        firer, target = pair.firer, pair.target
        pa, pb = self.place(scene, firer), self.place(scene, target)
        reasons = [self.where(scene, firer, pa), self.where(scene, target, pb)]
        return firer, target, pa, pb, reasons

    def judge_range(self, scene: Scene, query: RangeQuery) -> Verdict:
        """Fire from ``from`` at ``to`` in zones (``weapon``: ``main`` or ``secondary``):
        within the battery's range (4 zones for 18"-14" guns, 3 for 12"-8"), the
        to-straddle number and the broadside modifier from the firer's heading."""
        firer, target, pa, pb, reasons = self._fire(scene, query, "range")
        ship = self.ship(firer)
        raw = query.extra.get("weapon", "main")
        weapon = str(raw).lower()
        if weapon not in ("main", "secondary"):
            raise QueryError(".weapon", f"must be main or secondary, got {raw!r}")
        limit = ship.secondary if weapon == "secondary" else ship.range
        if limit <= 0:
            raise QueryError(
                ".from" if weapon == "main" else ".weapon",
                f"{firer.id} ({self.category(firer)}) has no {weapon} battery"
                + (" (carriers launch air raids)" if ship.attack == 0 else ""),
            )
        d, doubt, pairs = self.cell_distance(scene, pa, pb)
        ok = over(1 <= dd <= limit for _, _, dd in pairs)
        reasons.append(
            f"{d} zones{' (+/-' + str(doubt) + ')' if doubt else ''}: "
            + WITHIN(ok)
            + f" the {weapon} battery's {limit} zones"
        )
        details: dict[str, Any] = {"units": "zones", "weapon": weapon}
        row = STRADDLE[4 if limit >= 4 else 3]
        if ok is not False and d in row:
            details["to_straddle"] = row[d]
            mods = []
            aspects = self.aspect(scene, firer, firer.heading)
            if "broadside" not in aspects:
                mods.append("-1 not broadside")
            elif len(aspects) > 1:
                mods.append("-1 if not broadside (too close to call)")
            if self.field(target, "smoke"):
                mods.append("-1 target behind a smoke screen")
            d_t = self.defence(target)
            if d_t and int(self.field(target, "hull") or 0) >= d_t:
                mods.append("+1 target Crippled")
            details["modifiers"] = mods
            reasons.append(
                f"to straddle: {row[d]} on a D6" + (f" ({', '.join(mods)})" if mods else "")
            )
        if self.field(firer, "smoke"):
            reasons.append(f"{firer.id} is protected by a smoke screen: it can't fire (4)")
            ok = False
        ok = self._fit(firer, ok, reasons)
        word = Words("in range", "may not fire")(ok)
        return Verdict(
            "range",
            ok,
            tuple(reasons),
            distance=float(d),
            uncertainty=float(doubt),
            limit=float(limit),
            details=details,
            summary=f"range {firer.id} -> {target.id}: {d} zones, {word} (limit {limit} zones)",
        )

    def _fit(self, piece: Piece, ok: bool | None, reasons: list[str]) -> bool | None:
        defence = self.defence(piece)
        if defence and int(self.field(piece, "hull") or 0) >= defence:
            reasons.append(f"{piece.id} is Crippled: it can't fire (5)")
            return False
        return ok if self.can_act(piece, reasons) else False

    def ask_torpedo(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A torpedo salvo from ``from`` at ``to``: range one zone (11)."""
        firer, target, pa, pb, reasons = self._fire(scene, query, "torpedo")
        left = self.field(firer, "torpedoes")
        left = self.ship(firer).torpedoes if left is None else left
        d, doubt, pairs = self.cell_distance(scene, pa, pb)
        ok = over(dd <= 1 for _, _, dd in pairs)
        reasons.append(f"{d} zones: " + WITHIN(ok) + " torpedo range of 1 zone; hit on 1-3 (11)")
        if not left:
            reasons.append(f"{firer.id} has no torpedo salvos")
            ok = False
        ok = self._fit(firer, ok, reasons)
        return Verdict(
            "torpedo",
            ok,
            tuple(reasons),
            distance=float(d),
            uncertainty=float(doubt),
            limit=1.0,
            details={"units": "zones", "salvos": left},
            summary=f"torpedo {firer.id} -> {target.id}: {d} zones, {YES(ok)}",
        )
