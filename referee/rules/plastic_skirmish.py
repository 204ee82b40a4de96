"""WWII Plastic Skirmish (Brett Drake, 2005): plastic army men, weapon tables, op-fire.

Everything a camera can measure in ``rule-sources/001_...txt`` (RULES.md 2):
the weapon and vehicle table (move, range; "touch" entries fire at armour only
when touching, as do the models that "fire as Machinegun Guy" only), op-fire
after more than 2" of movement, repeat fire (only weapons marked "Repeat", at a
new target) within 6" of the original (MG: the last) target, touching figures
as groups, the exact target at 3" or less, cover when even partly in woods or a
building or behind a wall (against bullets), hull-down, the rear-armour line
(cannon fire at tanks), loading (within 3", what each vehicle carries, never a
sniper) and unloading within 3" (half the vehicle's move, on road too), barbed
wire (1" for figures, never for jeeps and trucks), snipers never touching a
friend, only figures in woods, boats on water (an amphib 6" there, 12" on land),
set-up zones and the exit through the centre 4" of an enemy's edge. Measurement
doubt (the pieces' ``uncertainty``) within a limit gives "too close to call".

A piece's ``kind`` is its row of the table (``rifle guy``, ``mg guy``,
``bazooka guy``, ``tank``, ``halftrack``, ``small pillbox``...). Its own fields:
``unloading`` (the vehicle unloads this move: half its move). Questions:
``range``, ``los``, ``move`` (shared), ``opfire`` (``piece``, ``to``),
``repeat_fire`` (``from``, ``original``, ``to``, optional ``last``),
``groups``, ``exact_target`` (``from``, ``to``), ``cover`` (``from``, ``to``),
``hull_down`` (``from``, ``to``), ``rear_armor`` (``from``, ``to``), ``load``
(``vehicle``, ``pieces``), ``unload`` (``vehicle``, ``pieces``), ``snipers``,
``deployment`` (``first``: the side that set up first), ``exit`` (``piece``,
``edge``), ``placement`` (``terrain``, optional ``previous``: a terrain piece is 6in-2ft
a side and at least 2ft from the same player's previous piece) and ``within`` (the
scenarios' distance conditions: ``pieces`` or ``side``, ``distance``, ``of``: ``centre``,
a point, a terrain id or a piece's group, ``want``: all/any/none).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from referee.errors import counted
from referee.geometry import (
    Pose,
    base_corners,
    centre_distance,
    min_rectangle,
    point_in_polygon,
    points_in_polygon,
    polygon_distance,
    polygons_overlap,
    segment_polygon,
    segment_spans,
    signed_boundary_distance,
)
from referee.rules.core import (
    Deployment,
    Measured,
    MoveLimit,
    TableRuleset,
    fmt,
    from_edge,
    inches,
    judge_at_least,
    number_arg,
    piece_arg,
    pm,
    pose_arg,
    worst,
)
from referee.rules.queries import MoveQuery
from referee.rules.settings import setting
from referee.rules.sight import SightLimit, WhollyInside
from referee.rules.values import PieceField, QueryError, Verdict, as_ids, judge, name_key
from referee.rules.wording import HOLDS, INSIDE, LEGAL, WITHIN, YES, Words
from referee.scene import Piece, Scene, Terrain, normalise_edge

TOUCH = "touch"


@dataclass(frozen=True)
class Row:
    """One row of the weapon and vehicle table."""

    move: float
    """Inches (0: does not move)."""
    kind: str
    """``guy`` (a figure), ``armored`` or ``unarmored`` (models)."""
    range: float | None = None
    """Inches against figures and unarmoured models (None: does not fire)."""
    vs_armor: str = "range"
    """``range`` or ``touch`` (fires at armoured targets only when touching)."""
    mg: bool = False
    """Fires as a machinegun (repeat fire from the last target, bullets)."""
    bullets: bool = False
    """Shoots bullets (MG or rifle): cover counts against it."""
    cannon: bool = False
    """Fires as a cannon (the rear-armour kill number applies to its shots at tanks)."""
    repeat: bool = False
    """The table marks the weapon "Repeat": a hit may be followed by a repeat shot."""
    carry: int = 0
    """How many guys it carries (0: no carrying ability)."""
    carry_cannon: bool = False
    """It also carries a cannon."""


R = Row
#: The source's table, in inches (1ft = 12in).
TABLE: dict[str, Row] = {
    "rifle guy": R(6, "guy", 12, TOUCH, bullets=True),
    "engineer guy": R(6, "guy", 12, TOUCH, bullets=True),
    "sniper guy": R(6, "guy", 12, TOUCH, bullets=True),
    "mg guy": R(6, "guy", 24, TOUCH, mg=True, bullets=True, repeat=True),
    "bazooka guy": R(6, "guy", 12, repeat=True),
    "mortar guy": R(6, "guy", 36, TOUCH, repeat=True),
    "grenade guy": R(6, "guy", 6, TOUCH, repeat=True),
    "flamethrower guy": R(6, "guy", 6, repeat=True),
    "cannon": R(0, "unarmored", 36, cannon=True, repeat=True),
    "jeep": R(24, "unarmored", carry=4),
    # "Fire as Machinegun Guy": 2ft, and at armour only when touching, like the MG guy.
    "mg jeep": R(24, "unarmored", 24, TOUCH, mg=True, bullets=True, repeat=True),
    "truck": R(12, "unarmored", carry=10, carry_cannon=True),
    "assault raft": R(6, "unarmored", carry=6),
    "small pillbox": R(0, "armored", 24, TOUCH, mg=True, bullets=True, repeat=True),
    "large pillbox": R(0, "armored", 36, mg=True, bullets=True, cannon=True, repeat=True),
    "tank": R(12, "armored", 36, mg=True, bullets=True, cannon=True, repeat=True),
    "tiger tank": R(12, "armored", 36, mg=True, bullets=True, cannon=True, repeat=True),
    "aa tank": R(12, "armored", 24, TOUCH, mg=True, bullets=True, repeat=True),
    "armored car": R(24, "armored", 24, TOUCH, mg=True, bullets=True, repeat=True),
    "halftrack": R(
        12, "armored", 24, TOUCH, mg=True, bullets=True, repeat=True, carry=10, carry_cannon=True
    ),
    "landing craft": R(6, "unarmored", carry=15),
    "amphib": R(12, "armored", 24, TOUCH, mg=True, bullets=True, repeat=True, carry=10),
}
ALIASES = {
    "regular guy": "rifle guy",
    "rguy": "rifle guy",
    "infantry": "rifle guy",
    "engineer": "engineer guy",
    "sniper": "sniper guy",
    "machinegun guy": "mg guy",
    "mgguy": "mg guy",
    "bazooka": "bazooka guy",
    "mortar": "mortar guy",
    "grenade": "grenade guy",
    "flamethrower": "flamethrower guy",
    "88": "cannon",
    "tiger": "tiger tank",
    "armoured car": "armored car",
    "raft": "assault raft",
}
KINDS = {**{name_key(k): k for k in TABLE}, **{name_key(k): v for k, v in ALIASES.items()}}


class PlasticSkirmish(Deployment):
    name = "plastic-skirmish"
    aliases = ("wwii plastic skirmish", "plastic skirmish", "ps")
    title = "WWII Plastic Skirmish"
    source = "001_f688ba0b9e6f6f61.txt"
    kinds = KINDS
    vehicles = ("armored", "unarmored")
    piece_fields = (
        PieceField("unloading", "flag", False, "unloads this move: costs half its move"),
    )
    table: ClassVar[Mapping[str, Row]] = TABLE

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        """Conventions where the text is silent. Distances are inches."""

        range_measure: str = setting(
            "edge", "Range between the nearest points of the two bases (the text names none)."
        )
        move_measure: str = setting(
            "centre", "Figures have no front: moves are measured at the base centre."
        )
        blocking: tuple[str, ...] = setting(
            ("woods", "building"),
            "No seeing through woods or buildings; figures at their edges are visible.",
        )
        difficult: tuple[str, ...] = setting(
            (), "Nothing stops a move on entry: only figures may enter woods at all."
        )
        impassable: tuple[str, ...] = setting(
            ("water", "river"),
            "Nothing crosses these, except that boats (``boats``) move on ``water`` kinds.",
        )
        water: tuple[str, ...] = setting(
            ("water", "river"),
            "Water: assault rafts, landing craft and amphibs move on it (6in a turn).",
        )
        boats: tuple[str, ...] = setting(
            ("assault raft", "landing craft", "amphib"), "Kinds that may move on water."
        )
        amphib_water_move: float = setting(
            6.0,
            (
                "An amphib moves 6in on water, 12in on land: 6in when any of the move's centre "
                "line is in water (or it starts or ends there)."
            ),
        )
        walls: tuple[str, ...] = setting(
            ("wall", "fortification"),
            "Terrain that gives cover (figures) and hull-down (vehicles) behind it.",
        )
        opfire_move: float = setting(2.0, "Moving more than this may trigger opportunity fire.")
        repeat_radius: float = setting(
            6.0, "A repeat shot needs a new target within this of the original (MG: last) one."
        )
        exact_range: float = setting(3.0, "At this range or less the exact target dies.")
        load_radius: float = setting(
            3.0,
            "Passengers start within this of the vehicle; unloaded figures are placed within.",
        )
        wire_move: float = setting(1.0, "Figures crossing barbed wire move at most this far.")
        road_move: float = setting(24.0, "A truck moving entirely on road moves this far (2ft).")
        tiger_range: float = setting(
            36.0, "Tiger tanks fire as tanks (36in); one scenario gives them 4ft (48)."
        )
        sight_limit: float | None = setting(
            None,
            (
                "Dust clouds: nobody sees farther than this (12 in that scenario), so both "
                "range and LOS stop there (measured as range is); None: no dust."
            ),
        )
        first_zone: float = setting(
            3.0, "The side setting up first places its units within this of its edge."
        )
        pillbox_zone: float = setting(12.0, "...its pillboxes within this.")
        second_zone: float = setting(
            12.0, "The other side places its units within this of the opposite edge."
        )
        rear_armor_kinds: tuple[str, ...] = setting(
            ("tank", "tiger tank", "aa tank"),
            "The tanks whose rear armour cannon fire from behind the rear-edge line hits.",
        )
        terrain_min_side: float = setting(
            6.0, "Terrain pieces are 6in to 2ft on a side (the basic game's set-up)..."
        )
        terrain_max_side: float = setting(
            24.0, "...measured as the sides of the smallest rectangle around the piece."
        )
        terrain_spacing: float = setting(
            24.0,
            (
                "No player places a feature within 2ft of one he placed before (outline to "
                "outline: at least this far apart)."
            ),
        )
        exit_width: float = setting(
            4.0,
            (
                "Units leaving through the centre this-wide stretch of an enemy's edge count: "
                "the base reaches the edge with its centre within the stretch (never one's own "
                "edge)."
            ),
        )

    settings: PlasticSkirmish.Settings

    # -- tables ---------------------------------------------------------------------------

    def row(self, piece: Piece) -> Row:
        return self.table[self.category(piece)]

    def is_guy(self, piece: Piece) -> bool:
        return self.row(piece).kind == "guy"

    def is_vehicle(self, piece: Piece) -> bool:
        return not self.is_guy(piece)

    def move_allowance(self, piece: Piece) -> float | None:
        move = self.row(piece).move
        return move / 2 if self.field(piece, "unloading") else move

    def may_enter(self, piece: Piece, terrain: Terrain) -> str | None:
        if terrain.kind == "woods" and not self.is_guy(piece):
            return f"only figures may enter woods: {piece.id} enters {terrain.id}"
        if terrain.kind == "wire" and self.category(piece) in ("jeep", "mg jeep", "truck"):
            return f"jeeps and trucks cannot cross barbed wire: {piece.id} crosses {terrain.id}"
        return None

    def weapon_range(self, firer: Piece, target: Piece) -> tuple[float | str, str]:
        """(inches, or ``touch``) and the rule's sentence, for this firer at this target."""
        row = self.row(firer)
        if row.range is None:
            raise QueryError(".from", f"{firer.id} ({self.category(firer)}) does not fire")
        what = self.row(target).kind
        if what == "armored" and row.vs_armor == TOUCH:
            return TOUCH, (
                f"{firer.id} ({self.category(firer)}) fires at armoured targets only when "
                "touching them (phases 3-4)"
            )
        limit = float(row.range)
        rule = f"{firer.id} ({self.category(firer)}) fires {inches(limit)}"
        if self.category(firer) == "sniper guy" and what == "guy":
            limit, rule = 24.0, f"{firer.id} is a sniper: 2ft at figures"
        if self.category(firer) == "tiger tank":
            limit, rule = self.settings.tiger_range, f"{firer.id} is a Tiger: {inches(limit)}"
        if self.settings.sight_limit is not None and self.settings.sight_limit < limit:
            limit = self.settings.sight_limit
            rule += f"; dust clouds: nobody sees farther than {inches(limit)}"
        return limit, rule

    # -- shared questions -----------------------------------------------------------------

    def touch_only(self, firer: Piece, target: Piece) -> str | None:
        limit, rule = self.weapon_range(firer, target)
        return rule if limit == TOUCH else None

    def can_fire(self, firer: Piece, ok: bool | None, reasons: list[str]) -> bool | None:
        return self.can_act(firer, ok, [])  # a wreck's range says only the measurement

    def range_limit(self, firer: Piece, target: Piece) -> tuple[float | None, str]:
        limit, rule = self.weapon_range(firer, target)
        return float(limit), rule

    los_filters = (
        SightLimit("sight_limit", "dust clouds", "dust"),
        WhollyInside("blocking"),
    )
    """The shared line, except that in dust clouds (``sight_limit``) nobody sees farther
    than the limit, whatever lies between, and a figure wholly inside woods or a building
    is seen only from inside the same feature: figures are seen at the edges (base partly
    in and partly out); doubtful where the measurement doubt could put the base wholly
    inside or the other centre inside the same feature."""

    move_needs_end = False  # a move without "to" stays put

    def move_limit(
        self, scene: Scene, move: MoveQuery, mover: Piece, measured: Measured
    ) -> MoveLimit:
        """The shared limit, on the allowance the ground gives: a truck entirely on road,
        an amphib in water, a figure crossing barbed wire (said before the measurement)."""
        piece, start, end = move.piece, move.start, move.end
        extra: list[str] = []
        allowance = move.allowance
        unloading = bool(self.field(piece, "unloading"))
        half = " (half: unloading)" if unloading else ""
        own = allowance is None
        truck = self.category(piece) == "truck" and own
        if truck and self._on_road(scene, start.xy, end.xy):
            road = self.settings.road_move
            allowance = road / 2 if unloading else road
            extra.append(f"entirely on road: a truck moves {inches(road)}{half}")
        amphib = self.category(piece) == "amphib" and own
        if amphib and self._in_water(scene, start.xy, end.xy):
            wet = self.settings.amphib_water_move
            allowance = wet / 2 if unloading else wet
            extra.append(f"in water: an amphib moves {inches(wet)}{half}")
        if self.is_guy(piece):
            wire = [
                t.id
                for t in scene.terrain
                if t.kind == "wire" and segment_spans(start.xy, end.xy, t.outline(), strict=False)
            ]
            if wire:
                allowance = min(
                    float(allowance if allowance is not None else self.row(piece).move),
                    self.settings.wire_move,
                )
                extra.append(
                    f"crosses barbed wire {', '.join(wire)}: figures move at most "
                    f"{inches(self.settings.wire_move)}"
                )
        if allowance != move.allowance:
            move = dataclasses.replace(move, allowance=allowance)
        judged = super().move_limit(scene, move, mover, measured)
        return dataclasses.replace(judged, lead=tuple(extra)) if extra else judged

    def _in_water(self, scene: Scene, a: Sequence[float], b: Sequence[float]) -> bool:
        """Whether the centre line of a move from ``a`` to ``b`` is anywhere in water."""
        for t in scene.terrain:
            if t.kind not in self.settings.water:
                continue
            poly = t.outline()
            if point_in_polygon(a, poly, strict=True) or point_in_polygon(b, poly, strict=True):
                return True
            if tuple(a) != tuple(b) and segment_spans(a, b, poly):
                return True
        return False

    def move_terrain(
        self, scene: Scene, piece: Piece, start: Pose, end: Pose, doubt: float = 0.0
    ) -> tuple[bool | None, list[str], str | None]:
        """The shared checks, except that boats (rafts, landing craft, amphibs) move on
        water: for them the ``water`` kinds are not impassable."""
        if self.category(piece) not in self.settings.boats:
            return super().move_terrain(scene, piece, start, end, doubt)
        afloat = copy.copy(self)
        afloat.settings = dataclasses.replace(
            self.settings,
            impassable=tuple(k for k in self.settings.impassable if k not in self.settings.water),
        )
        return TableRuleset.move_terrain(afloat, scene, piece, start, end, doubt)

    def _on_road(self, scene: Scene, a: Sequence[float], b: Sequence[float]) -> bool:
        roads = [t.outline() for t in scene.terrain if t.kind == "road"]
        if not roads or not any(point_in_polygon(a, r) for r in roads):
            return False
        if tuple(a) == tuple(b):
            return True
        cover = sorted(s for r in roads for s in segment_spans(a, b, r, strict=False))
        reach = 0.0
        for s0, s1 in cover:
            if s0 > reach + 1e-9:
                return False
            reach = max(reach, s1)
        return reach >= 1 - 1e-9

    # -- the skirmish's own questions -----------------------------------------------------

    def ask_opfire(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        piece = piece_arg(scene, query, "piece")
        start = pose_arg(query["from"], ".from", piece.pose) if "from" in query else piece.pose
        if "to" not in query:
            raise QueryError(".to", "missing field (the pose moved to)")
        end = pose_arg(query["to"], ".to", start)
        d = centre_distance(start.xy, end.xy)
        doubt = 2 * piece.uncertainty
        limit = self.settings.opfire_move
        within = judge(d, limit, doubt)
        ok = {True: False, False: True, None: None}[within]
        word = Words("may be op-fired", "no op-fire")(ok)
        return Verdict(
            "opfire",
            ok,
            (f"{piece.id} moved {fmt(d)}: over {inches(limit)} may trigger op-fire",),
            distance=d,
            uncertainty=doubt,
            limit=limit,
            summary=f"opfire {piece.id}: {fmt(d)}{pm(doubt)}, {word}",
        )

    def ask_repeat_fire(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        firer = piece_arg(scene, query, "from")
        new = piece_arg(scene, query, "to")
        original = piece_arg(scene, query, "original")
        row = self.row(firer)
        anchor = piece_arg(scene, query, "last") if row.mg and "last" in query else original
        d = polygon_distance(anchor.corners(), new.corners())
        doubt = anchor.uncertainty + new.uncertainty
        near = judge(d, self.settings.repeat_radius, doubt)
        rng = self.ask_range(scene, {"from": firer.id, "to": new.id})
        los = self.ask_los(scene, {"from": firer.id, "to": new.id})
        which = "last" if anchor is not original else "original"
        reasons = []
        oks: list[bool | None] = [near, rng.ok, los.ok]
        if not row.repeat:
            oks.append(False)
            reasons.append(
                f"{firer.id} ({self.category(firer)}) has no repeat fire: only weapons the "
                'table marks "Repeat" fire again after a hit'
            )
        fired_at = {original.id, anchor.id}
        if new.id in fired_at:
            oks.append(False)
            reasons.append(f"{new.id} was already fired at: a repeat shot needs a new target")
        reasons += [
            f"{new.id} is {fmt(d)} from the {which} target {anchor.id}: "
            + WITHIN(near)
            + f" {inches(self.settings.repeat_radius)}",
            *rng.reasons,
            *los.reasons,
        ]
        ok = worst(oks)
        return Verdict(
            "repeat_fire",
            ok,
            tuple(reasons),
            distance=d,
            uncertainty=doubt,
            limit=self.settings.repeat_radius,
            summary=f"repeat_fire {firer.id} -> {new.id}: " + Words("allowed", "not allowed")(ok),
        )

    def groups(self, scene: Scene) -> tuple[list[list[str]], list[tuple[str, str]]]:
        """Figures of one side that touch (directly or through others) form a group; also
        the pairs whose contact is too close to call."""
        guys = [p for p in scene.pieces if self.is_guy(p) and p.state != "destroyed"]
        parent = {p.id: p.id for p in guys}

        def root(k: str) -> str:
            while parent[k] != k:
                k = parent[k]
            return k

        unsure: list[tuple[str, str]] = []
        for a, b in itertools.combinations(guys, 2):
            if a.side != b.side:
                continue
            touch = judge(
                polygon_distance(a.corners(), b.corners()), 0.0, a.uncertainty + b.uncertainty
            )
            if touch:
                parent[root(b.id)] = root(a.id)
            elif touch is None:
                unsure.append((a.id, b.id))
        out: dict[str, list[str]] = {}
        for p in guys:
            out.setdefault(root(p.id), []).append(p.id)
        return [g for g in out.values() if len(g) > 1], unsure

    def ask_groups(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        groups, unsure = self.groups(scene)
        reasons = [f"group: {', '.join(g)}" for g in groups] + [
            f"{a} and {b} may or may not touch: too close to call" for a, b in unsure
        ]
        return Verdict(
            "groups",
            None if unsure else True,
            tuple(reasons) or ("no figures touch",),
            details={"groups": groups},
            summary="groups: " + ("; ".join(", ".join(g) for g in groups) or "none"),
        )

    def ask_exact_target(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        firer = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        groups, unsure = self.groups(scene)
        grouped = any(target.id in g for g in groups)
        # Whether the target touches a friend may itself be too close to call.
        maybe = not grouped and any(target.id in pair for pair in unsure)
        d = self.piece_distance(firer, target, self.settings.range_measure, scene)
        doubt = firer.uncertainty + target.uncertainty
        close = judge(d, self.settings.exact_range, doubt)
        sniper = self.category(firer) == "sniper guy"
        ok: bool | None
        if sniper or close is True or not (grouped or maybe):
            ok = True
        elif grouped:
            ok = close
        else:
            ok = None
        group_word = (
            "is in a group"
            if grouped
            else "may or may not be in a group (too close to call)"
            if maybe
            else "is not in a group"
        )
        reasons = [
            f"{target.id} {group_word}",
            f"range {fmt(d)}: "
            + Words("within", "over", "too close to call at")(close)
            + f" {inches(self.settings.exact_range)}",
        ]
        if sniper:
            reasons.append("a sniper always kills the specified target")
        word = {
            True: "the exact target dies",
            False: "the defender may remove another of the group",
            None: "too close to call",
        }
        return Verdict(
            "exact_target",
            ok,
            tuple(reasons),
            distance=d,
            uncertainty=doubt,
            limit=self.settings.exact_range,
            summary=f"exact_target {firer.id} -> {target.id}: {word[ok]}",
        )

    def _behind_wall(
        self, firer: Piece, target: Piece, scene: Scene
    ) -> tuple[list[str], list[str]]:
        """(walls the target is surely behind, walls it may be behind): the centre-to-centre
        line meets the wall (a firer inside the wall shoots over it). Within the two pieces'
        doubt of merely meeting it, too close to call."""
        doubt = firer.uncertainty + target.uncertainty
        sure: list[str] = []
        maybe: list[str] = []
        for t in scene.terrain:
            if t.kind not in self.settings.walls:
                continue
            poly = t.outline()
            if point_in_polygon(firer.xy, poly):
                continue
            c = segment_polygon(firer.xy, target.xy, poly)
            if doubt == 0:
                if c.contact != "clear":
                    sure.append(t.id)
            elif c.contact == "crosses" and c.depth > doubt:
                sure.append(t.id)
            elif c.contact != "clear" or c.clearance <= doubt:
                maybe.append(t.id)
        return sure, maybe

    def _partly_in(self, target: Piece, scene: Scene) -> tuple[list[str], list[str]]:
        """(woods and buildings the target's base surely overlaps, ones it may overlap within
        its position doubt)."""
        u = target.uncertainty
        w, d = target.base
        inner = base_corners(
            target.x, target.y, target.heading, (max(w - 2 * u, 1e-6), max(d - 2 * u, 1e-6))
        )
        outer = base_corners(target.x, target.y, target.heading, (w + 2 * u, d + 2 * u))
        sure: list[str] = []
        maybe: list[str] = []
        for t in scene.terrain:
            if t.kind not in ("woods", "building"):
                continue
            if polygons_overlap(inner, t.outline()):
                sure.append(t.id)
            elif u > 0 and polygons_overlap(outer, t.outline()):
                maybe.append(t.id)
        return sure, maybe

    def ask_cover(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Cover against bullets when the target (a guy or cannon) is even partly in woods
        or a building, or behind a wall; too close to call within the measurement doubt."""
        firer = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        inside, maybe_in = self._partly_in(target, scene)
        walls, maybe_walls = self._behind_wall(firer, target, scene)
        covered: bool | None = (
            True if (inside or walls) else None if (maybe_in or maybe_walls) else False
        )
        bullets = self.row(firer).bullets
        coverable = self.is_guy(target) or self.row(target).cannon
        reasons = []
        if inside:
            reasons.append(f"{target.id} is at least partly in {', '.join(inside)}")
        if walls:
            reasons.append(f"{target.id} is behind {', '.join(walls)} as seen from {firer.id}")
        if covered is None:
            reasons.append(
                f"whether {target.id} is partly in or behind "
                f"{', '.join(maybe_in + maybe_walls)} is too close to call"
            )
        if covered is False:
            reasons.append(f"{target.id} is in the open")
        if covered is not False and not bullets:
            reasons.append(f"{firer.id} does not fire bullets: cover does not count")
        if covered is not False and not coverable:
            reasons.append(f"{target.id} is not a guy or a cannon: cover does not count")
        ok = covered if (bullets and coverable) else False
        return Verdict(
            "cover",
            ok,
            tuple(reasons),
            details={"in": inside, "behind": walls},
            summary=f"cover {firer.id} -> {target.id}: " + Words("in cover", "no cover")(ok),
        )

    def ask_hull_down(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        firer = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        walls, maybe_walls = self._behind_wall(firer, target, scene)
        crest = [
            t.id
            for t in scene.terrain
            if t.kind == "hill"
            and polygons_overlap(target.corners(), t.outline())
            and not points_in_polygon(target.corners(), t.outline()).all()
        ]
        down: bool | None = True if (walls or crest) else None if maybe_walls else False
        ok = down if (self.is_vehicle(target) or self.row(target).cannon) else False
        reasons = [f"behind {w}" for w in walls] + [f"peeking over the crest of {c}" for c in crest]
        if down is None:
            reasons.append(f"whether behind {', '.join(maybe_walls)} is too close to call")
        return Verdict(
            "hull_down",
            ok,
            tuple(reasons) or (f"{target.id} is not behind a fortification, wall or crest",),
            summary=f"hull_down {target.id}: " + YES(ok),
        )

    def ask_rear_armor(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        firer = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        h = np.radians(target.heading)
        fwd = (firer.x - target.x) * np.cos(h) + (firer.y - target.y) * np.sin(h)
        behind = float(-fwd - target.base[1] / 2)
        doubt = firer.uncertainty + target.uncertainty
        # Strictly behind the line (on it is not behind); within the doubt: too close.
        ok: bool | None
        if behind > doubt + 1e-9:
            ok = True
        elif behind < -doubt - 1e-9 or (doubt == 0 and behind <= 1e-9):
            ok = False
        else:
            ok = None
        reasons = [
            f"{firer.id}'s centre is {fmt(abs(behind))} "
            + ("behind" if behind > 0 else "in front of")
            + f" the line extending {target.id}'s rear edge"
        ]
        # "Tanks shot at by cannon from behind a line extending their rear edge".
        if not self.row(firer).cannon:
            ok = False
            reasons.append(
                f"{firer.id} ({self.category(firer)}) does not fire as a cannon: "
                "the rear-armour number is for cannon fire"
            )
        if self.category(target) not in self.settings.rear_armor_kinds:
            ok = False
            reasons.append(
                f"{target.id} ({self.category(target)}) is not a tank: "
                "the rear-armour number is for tanks"
            )
        return Verdict(
            "rear_armor",
            ok,
            tuple(reasons),
            distance=behind,
            uncertainty=doubt,
            summary=f"rear_armor {firer.id} -> {target.id}: "
            + Words("rear hit", "no rear hit")(ok),
        )

    def _within(self, scene: Scene, query: Mapping[str, Any], ask: str, verb: str) -> Verdict:
        vehicle = piece_arg(scene, query, "vehicle")
        if "pieces" not in query:
            raise QueryError(".pieces", "missing field (the figures loading or unloading)")
        ids = as_ids(query["pieces"], ".pieces")
        r = self.settings.load_radius
        oks: list[bool | None] = []
        reasons = []
        for k, pid in enumerate(ids):
            if pid not in scene:
                raise QueryError(f".pieces[{k}]", f"unknown piece id {pid!r}")
            p = scene.piece(pid)
            d = polygon_distance(p.corners(), vehicle.corners())
            ok = judge(d, r, p.uncertainty + vehicle.uncertainty)
            oks.append(ok)
            reasons.append(f"{pid} is {fmt(d)} from {vehicle.id}: " + WITHIN(ok) + f" {inches(r)}")
            if ask == "unload":
                touching = [
                    e.id
                    for e in scene.pieces
                    if e.side != p.side
                    and e.state != "destroyed"
                    and polygon_distance(p.corners(), e.corners()) <= 1e-9
                ]
                if touching:
                    oks.append(False)
                    reasons.append(f"{pid} touches enemy {', '.join(touching)}")
        if ask == "load":
            oks += self._capacity(vehicle, [scene.piece(pid) for pid in ids], reasons)
        ok_all = worst(oks)
        return Verdict(
            ask,
            ok_all,
            tuple(reasons),
            limit=r,
            summary=f"{ask} {vehicle.id}: " + Words(f"all {verb}", "not allowed")(ok_all),
        )

    def _capacity(self, vehicle: Piece, loading: Sequence[Piece], reasons: list[str]) -> list[bool]:
        """What the table lets ``vehicle`` carry: its number of guys (trucks and halftracks
        a cannon too, a truck a raft instead of 4 guys); snipers are never loaded."""
        row = self.row(vehicle)
        what = f"{vehicle.id} ({self.category(vehicle)})"
        if self.is_guy(vehicle) or row.carry == 0:
            reasons.append(f"{what} has no carrying ability")
            return [False]
        oks: list[bool] = []
        guys = [p for p in loading if self.is_guy(p)]
        cannons = [p for p in loading if self.category(p) == "cannon"]
        rafts = [p for p in loading if self.category(p) == "assault raft"]
        others = [p for p in loading if p not in guys and p not in cannons and p not in rafts]
        snipers = [p.id for p in guys if self.category(p) == "sniper guy"]
        if snipers:
            oks.append(False)
            reasons.append(f"snipers may never be loaded: {', '.join(snipers)}")
        room = row.carry
        if rafts and self.category(vehicle) == "truck" and len(rafts) == 1:
            room -= 4  # "Trucks can carry a raft instead of 4 guys."
        elif rafts:
            others += rafts
        if cannons and not (row.carry_cannon and len(cannons) == 1):
            others += cannons if not row.carry_cannon else cannons[1:]
        if others:
            oks.append(False)
            reasons.append(f"{what} cannot carry {', '.join(p.id for p in others)}")
        if len(guys) > room:
            oks.append(False)
            reasons.append(f"{what} carries {counted(room, 'guy')}: {len(guys)} load")
        return oks

    def ask_load(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Loadees must start the turn within 3in of the (unmoving) vehicle."""
        return self._within(scene, query, "load", "within reach")

    def ask_unload(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Unloaded figures are placed within 3in, not touching an enemy."""
        return self._within(scene, query, "unload", "placed within reach")

    def ask_snipers(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        snipers = [p for p in scene.pieces if self.category(p) == "sniper guy"]
        oks: list[bool | None] = []
        reasons = []
        for s in snipers:
            for f in scene.pieces:
                if f.side != s.side or f.id == s.id or not self.is_guy(f):
                    continue
                touch = judge(
                    polygon_distance(s.corners(), f.corners()), 0.0, s.uncertainty + f.uncertainty
                )
                if touch is not False:
                    oks.append(False if touch else None)
                    reasons.append(
                        f"sniper {s.id} touches friendly {f.id}"
                        + ("" if touch else " (too close to call)")
                    )
        ok = worst(oks)
        return Verdict(
            "snipers",
            ok,
            tuple(reasons) or ("no sniper touches a friendly figure",),
            summary="snipers: " + Words("alone", "touching friends", "doubtful")(ok),
        )

    deploy_edge_problem = 'no edge for side {side!r}: add "deployment"'
    deploy_outside = "{piece} reaches {depth} from the {edge} edge: {word} its {zone} zone"
    deploy_edge_path = ".first"

    def deploy_pieces(self, scene: Scene, query: Mapping[str, Any]) -> list[Piece]:
        first = query.get("first")
        if not isinstance(first, str) or first not in scene.sides():
            raise QueryError(".first", f"must name the side that set up first, got {first!r}")
        return list(scene.pieces)

    def deploy_edges(
        self, scene: Scene, query: Mapping[str, Any], pieces: Sequence[Piece]
    ) -> dict[str, str]:
        return super().deploy_edges(scene, {}, pieces)  # the scene's edges only

    def deploy_zone(self, scene: Scene, piece: Piece, edge: str, query: Mapping[str, Any]) -> float:
        s = self.settings
        if piece.side == query["first"]:
            return s.pillbox_zone if "pillbox" in self.category(piece) else s.first_zone
        return s.second_zone

    def ask_placement(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A terrain piece placed before the game: 6in to 2ft on a side (the sides of the
        smallest rectangle around it) and no nearer than 2ft to the feature(s) the same
        player placed before (``previous``: an id or a list; outline to outline).
        ``uncertainty``: inches of doubt in the measured outlines."""
        t = self.terrain_arg(scene, query, "terrain")
        previous = [
            self.terrain_arg(scene, {"previous": tid}, "previous")
            for tid in (as_ids(query["previous"], ".previous") if "previous" in query else ())
        ]
        if any(q.id == t.id for q in previous):
            raise QueryError(".previous", f"{t.id} cannot be its own previous feature")
        doubt = number_arg(query.get("uncertainty", 0.0), ".uncertainty")
        if doubt < 0:
            raise QueryError(".uncertainty", f"must be >= 0 inches, got {doubt!r}")
        s = self.settings
        long, short, _ = min_rectangle(t.outline())
        lo, hi = s.terrain_min_side, s.terrain_max_side
        oks = [
            worst([judge_at_least(x, lo, 2 * doubt), judge(x, hi, 2 * doubt)])
            for x in (long, short)
        ]
        word = Words("within", "outside", "too close to call against")
        reasons = [
            f"{t.id} is {fmt(long)} by {fmt(short)}: {word(worst(oks))} "
            f"{inches(lo)}-{inches(hi)} a side"
        ]
        gaps = {}
        for q in previous:
            gap = polygon_distance(t.outline(), q.outline())
            gaps[q.id] = gap
            apart = judge_at_least(gap, s.terrain_spacing, 2 * doubt)
            oks.append(apart)
            reasons.append(
                f"{fmt(gap)} from {q.id}, placed before by the same player: "
                + Words("at least", "within", "too close to call at")(apart)
                + f" {inches(s.terrain_spacing)}"
            )
        ok = worst(oks)
        verdict = LEGAL(ok)
        return Verdict(
            "placement",
            ok,
            tuple(reasons),
            distance=min(gaps.values()) if gaps else None,
            uncertainty=doubt,
            limit=s.terrain_spacing if gaps else None,
            details={"length": long, "width": short, "gaps": gaps},
            summary=f"placement {t.id}: {fmt(long)} x {fmt(short)}, {verdict}",
        )

    def ask_within(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A scenario's distance condition: are the pieces (``pieces``: ids, or ``side``)
        within ``distance`` inches of ``of`` (``centre``: the table's centre; a point
        ``{"x", "y"}``; a terrain id: a road, bridge or building, 0 inside it; a piece id:
        that piece's group of touching figures)? Measured from the nearest point of each
        base; ``want`` is ``all`` (default), ``any`` or ``none`` ("no Brits within 3in of
        the centre": ``side``, ``want: none``). Destroyed pieces are off the table."""
        if ("pieces" in query) == ("side" in query):
            raise QueryError(".pieces", 'give either "pieces" (ids) or "side" (a side)')
        if "pieces" in query:
            ids = as_ids(query["pieces"], ".pieces")
            for pid in ids:
                if pid not in scene:
                    raise QueryError(".pieces", f"unknown piece id {pid!r}")
            chosen = [scene.piece(pid) for pid in ids]
        else:
            side = query["side"]
            if not isinstance(side, str) or side not in scene.sides():
                known = ", ".join(sorted(scene.sides())) or "none"
                raise QueryError(".side", f"unknown side {side!r} (sides: {known})")
            chosen = [p for p in scene.pieces if p.side == side]
        chosen = [p for p in chosen if p.state != "destroyed"]
        if "distance" not in query:
            raise QueryError(".distance", "missing field (inches)")
        limit = number_arg(query["distance"], ".distance")
        if limit < 0:
            raise QueryError(".distance", f"must be >= 0 inches, got {limit!r}")
        want = query.get("want", "all")
        if want not in ("all", "any", "none"):
            raise QueryError(".want", f'must be "all", "any" or "none", got {want!r}')
        extra = number_arg(query.get("uncertainty", 0.0), ".uncertainty")
        if extra < 0:
            raise QueryError(".uncertainty", f"must be >= 0 inches, got {extra!r}")
        ref = query.get("of")
        w, h = scene.table.width, scene.table.depth
        group: list[Piece] = []
        if isinstance(ref, str) and name_key(ref) in ("centre", "center"):
            shape, name = np.array([[w / 2, h / 2]]), "the table's centre"
        elif isinstance(ref, dict):
            point = pose_arg(ref, ".of", Pose(0.0, 0.0, 0.0))
            shape, name = np.array([point.xy]), f"({fmt(point.x)}, {fmt(point.y)})"
        elif isinstance(ref, str) and any(t.id == ref for t in scene.terrain):
            t = next(t for t in scene.terrain if t.id == ref)
            shape, name = t.outline(), f"{t.kind} {t.id}"
        elif isinstance(ref, str) and ref in scene:
            members = next((g for g in self.groups(scene)[0] if ref in g), [ref])
            group = [scene.piece(pid) for pid in members]
            shape, name = np.empty((0, 2)), f"{ref}'s group ({', '.join(members)})"
        else:
            raise QueryError(
                ".of",
                'must be "centre", a point {"x": .., "y": ..}, a terrain id or a piece id, '
                f"got {ref!r}",
            )
        gaps: dict[str, float] = {}
        marks: dict[str, bool | None] = {}
        for p in chosen:
            if group:
                if any(g.id == p.id for g in group):
                    raise QueryError(".of", f"{p.id} is in {name}: measure to another group")
                gap = min(polygon_distance(p.corners(), g.corners()) for g in group)
                u = extra + p.uncertainty + max(g.uncertainty for g in group)
            elif len(shape) == 1:
                # A point: 0 on or inside the base, else its distance to the outline.
                gap = max(0.0, -float(signed_boundary_distance(shape, p.corners())[0]))
                u = extra + p.uncertainty
            else:
                gap = polygon_distance(p.corners(), shape)
                u = extra + p.uncertainty
            gaps[p.id] = gap
            marks[p.id] = judge(gap, limit, u)
        within = [k for k, v in marks.items() if v is True]
        beyond = [k for k, v in marks.items() if v is False]
        doubtful = [k for k, v in marks.items() if v is None]
        ok: bool | None
        if want == "all":
            ok = False if beyond else None if doubtful else True
        elif want == "any":
            ok = True if within else None if doubtful else False
        else:
            ok = False if within else None if doubtful else True
        reasons = [
            f"{pid} is {fmt(gap)} from {name} (nearest point of its base): "
            + WITHIN(marks[pid])
            + f" {inches(limit)}"
            for pid, gap in gaps.items()
        ] or [f"no piece to measure: {want} holds" if ok else "no piece to measure"]
        verdict = HOLDS(ok)
        return Verdict(
            "within",
            ok,
            tuple(reasons),
            distance=min(gaps.values()) if gaps else None,
            limit=limit,
            details={"want": want, "within": within, "beyond": beyond, "doubtful": doubtful},
            summary=f"within {inches(limit)} of {name}, {want}: {verdict}",
        )

    def terrain_arg(self, scene: Scene, query: Mapping[str, Any], key: str) -> Terrain:
        """The terrain feature a query field names; :class:`QueryError` when unknown."""
        tid = query.get(key)
        for t in scene.terrain:
            if t.id == tid:
                return t
        known = ", ".join(t.id for t in scene.terrain) or "none"
        raise QueryError(f".{key}", f"unknown terrain id {tid!r} (known: {known})")

    def ask_exit(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        piece = piece_arg(scene, query, "piece")
        try:
            edge = normalise_edge(str(query.get("edge")))
        except ValueError as error:
            raise QueryError(".edge", str(error)) from None
        corners = piece.corners()
        reach = float(np.min(from_edge(corners, edge, scene)))
        along = piece.x if edge in ("top", "bottom") else piece.y
        mid = (scene.table.width if edge in ("top", "bottom") else scene.table.depth) / 2
        off = abs(along - mid)
        half = self.settings.exit_width / 2
        at_edge = judge(reach, 0.0, piece.uncertainty)
        centred = judge(off, half, piece.uncertainty)
        oks = [at_edge, centred]
        reasons = [
            f"{piece.id}'s base reaches {fmt(max(reach, 0))} from the {edge} edge",
            f"its centre is {fmt(off)} from the middle of that edge: "
            + INSIDE(centred)
            + f" the centre {inches(self.settings.exit_width)}",
        ]
        # Only units exiting the enemy's edge count (as losses for the enemy).
        enemy_edges = {e for side, e in scene.deployment.items() if side != piece.side}
        own_edge = scene.deployment.get(piece.side)
        if edge == own_edge or (enemy_edges and edge not in enemy_edges):
            oks.append(False)
            reasons.append(f"the {edge} edge is not an enemy's edge")
        ok = worst(oks)
        return Verdict(
            "exit",
            ok,
            tuple(reasons),
            distance=off,
            uncertainty=piece.uncertainty,
            limit=half,
            summary=f"exit {piece.id}: "
            + Words("exits through the centre", "does not count", "too close")(ok),
        )
