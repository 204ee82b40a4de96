"""Pz8 Colonial Wargame Rules (panzer8.weebly.com, 2012): figures, units and dice.

Everything a camera can measure in the Colonial set of ``rule-sources/004_...txt``
(RULES.md section 5). Unlike the other Pz8 eras one piece is one figure (or a
6-10 mm base of 2-3 counted as one), grouped into units of 6-24: foot move 6",
mounted 12", on bad ground 1D6" (foot) or 2D6" (mounted) instead; a unit keeps
cohesion (every figure within 2" of another); charges reach 9"/18" (6"/12" in
bad ground) and must end in contact, mounted troops never charging into
buildings, woods or fortifications; rifles reach 24", native rifles and carbines
16", muskets 12", revolvers and bows 9", spears 6", and over half range only a 6
hits (not revolvers and spears); European cavalry must dismount to fire
(revolvers excepted); machine guns fire as rifles; artillery shells have no
range limit and hit every figure within 2" (light gun) or 3" (medium gun) of
the impact marker, canister reaches 12"; melee losers recoil exactly 2"; camels move 9"
and charge 12" on any ground; native snipers hit any figure in line of sight up
to 24"; a unit that moved may move another 1D6"; a fallen Native rifleman's
place may be taken by a Native with sword or spear within 2"; a routing unit
makes a charge move towards its own side. The distances are for 15 mm figures:
``figure_scale: "28mm"`` doubles every one; 6-10 mm figures count 1" as 1 cm,
which is the table's ``inch_mm: 10``.

Dice: a move whose path meets bad ground (or the extra 1D6" move) is judged
against the roll given in the query (``"roll"``: the dice total) or, without
one, against the possible rolls: legal whatever the roll when within the lowest,
illegal when beyond the highest, otherwise ``ok: null`` with the lowest roll that
makes it legal (``needs_roll``) and its chance. A move partly on good ground is
wholly a bad-ground move (``bad_ground_move: "stretch"`` slows only the stretch
in bad ground).

A piece's ``kind`` is ``foot``, ``mounted`` (cavalry), ``camel``, ``mg``,
``artillery``, ``sniper`` or ``marker`` (a shell's impact marker). Its own fields:
``unit`` (the unit it belongs to), ``weapon`` (a row of the range table),
``native`` (a Native figure; European or Colonial otherwise), ``dismounted``
(a mounted figure on foot) and ``gun`` (``light`` or ``medium`` artillery).

Questions: ``range``, ``los``, ``move`` (shared; ``move`` also takes ``roll``,
``extra`` and ``charged``), ``charge`` (``piece``, ``target``, optional ``to``),
``cohesion`` (``unit`` or ``piece``), ``blast`` (``at``: a marker or a point,
``gun`` or ``from``, optional ``piece``), ``canister`` (``from``, ``to``),
``recoil`` (``piece``, ``to``, optional ``enemy``), ``snipe`` (``from``, ``to``),
``replace`` (``piece``: a fallen Native with a firearm, ``by``: the figure taking
its place), ``rout`` (``piece``, ``to``: towards its side's ``deployment`` edge)
and ``contact`` (``from``, ``to``).
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import numpy as np

from referee.errors import SceneError, at
from referee.geometry import (
    Pose,
    base_corners,
    boundary_distance,
    centre_distance,
    point_in_polygon,
    polygon_distance,
    polygons_overlap,
    segment_polygon,
    segment_spans,
)
from referee.rules.checks import Gap
from referee.rules.core import (
    MEASURE_WORDS,
    Fire,
    Measured,
    MoveLimit,
    TableRuleset,
    fmt,
    footprint,
    from_edge,
    inches,
    judge_at_least,
    number_arg,
    piece_arg,
    pm,
    pose_arg,
    sweep_entry,
    worst,
)
from referee.rules.queries import MoveQuery, RangeQuery
from referee.rules.settings import setting
from referee.rules.values import PieceField, QueryError, Verdict, judge, name_key
from referee.rules.wording import HALF_RANGE, IN_CONTACT, IN_RANGE, LEGAL, WITHIN, Words
from referee.scene import Piece, Scene


@dataclass(frozen=True)
class Figure:
    """One kind of figure: its moves and what it fires (15 mm inches)."""

    move: float
    """Inches on good ground."""
    dice: int
    """D6 rolled for a move on bad ground instead (0: the same move on any ground)."""
    charge: float | None
    """Charge reach on good ground (None: does not charge)."""
    charge_bad: float | None
    """Charge reach when the charge meets bad ground."""
    mounted: bool = False
    weapon: str | None = None
    """Default row of the range table."""
    fires: str = "weapon"
    """``weapon`` (its range-table row), ``shell`` (artillery), ``sniper`` or ``none``."""


F = Figure
FIGURES: dict[str, Figure] = {
    "foot": F(6, 1, 9, 6),
    "mounted": F(12, 2, 18, 12, mounted=True),
    # Camels move 9in and charge 12in on good or bad ground (6).
    "camel": F(9, 0, 12, 12, mounted=True),
    # MG and artillery crews move 6in (3, 4); on bad ground they roll as foot.
    "mg": F(6, 1, None, None, weapon="european rifle"),
    "artillery": F(6, 1, None, None, fires="shell"),
    "sniper": F(6, 1, 9, 6, fires="sniper"),
    "marker": F(0, 0, None, None, fires="none"),
}
ALIASES = {
    "infantry": "foot",
    "warrior": "foot",
    "rifleman": "foot",
    "officer": "foot",
    "nco": "foot",
    "chief": "foot",
    "religious leader": "foot",
    "crew": "foot",
    "cavalry": "mounted",
    "horse": "mounted",
    "horseman": "mounted",
    "lancer": "mounted",
    "camelry": "camel",
    "machine gun": "mg",
    "maxim": "mg",
    "gatling": "mg",
    "gun": "artillery",
    "cannon": "artillery",
    "impact marker": "marker",
    "impact": "marker",
}
KINDS = {**{name_key(k): k for k in FIGURES}, **{name_key(k): v for k, v in ALIASES.items()}}

#: Fire ranges by weapon (2), 15 mm inches.
RANGES: dict[str, float] = {
    "european rifle": 24.0,
    "native rifle": 16.0,
    "carbine": 16.0,
    "musket": 12.0,
    "revolver": 9.0,
    "bow": 9.0,
    "spear": 6.0,
}
WEAPON_ALIASES = {"rifle": "european rifle", "pistol": "revolver", "thrown spear": "spear"}
NO_HALF_RANGE = ("revolver", "spear")
"""Over half range only a 6 hits, "except Revolver and Spear" (2)."""
FIREARMS = ("european rifle", "native rifle", "carbine", "musket", "revolver")
SNIPER_RANGE = 24.0
"""Native snipers target any figure in line of sight up to 24in (10)."""
CANISTER_RANGE = 12.0
BLAST = {"light": 2.0, "medium": 3.0}
"""Figures within this of a shell's impact marker roll to save (4)."""
RECOIL = 2.0
EXTRA_DICE = 1
"""Move, then "move another 1D6in" (2)."""
COHESION = 2.0
REPLACE = 2.0
"""A Native with sword or spear within this of a fallen Native rifleman may take its
place (2)."""


def weapon_row(raw: Any) -> str | None:
    """The range-table row a weapon name means, or None."""
    key = name_key(str(raw))
    for row in RANGES:
        if name_key(row) == key:
            return row
    for alias, row in WEAPON_ALIASES.items():
        if name_key(alias) == key:
            return row
    return None


def sum_at_least(dice: int, total: int) -> float:
    """Chance that ``dice`` D6 total at least ``total``.

    >>> sum_at_least(1, 5), round(sum_at_least(2, 7), 4)
    (0.3333333333333333, 0.5833)
    """
    rolls = itertools.product(range(1, 7), repeat=dice)
    return sum(1 for r in rolls if sum(r) >= total) / 6**dice


def point_to_base(point: Sequence[float], piece: Piece) -> float:
    """Distance from a point to the nearest point of the piece's base (0 on or inside)."""
    corners = piece.corners()
    return 0.0 if point_in_polygon(point, corners) else boundary_distance(point, corners)


class Pz8Colonial(TableRuleset):
    name = "pz8-colonial"
    aliases = ("pz8 colonial", "colonial", "panzer8 colonial")
    title = "Pz8 Colonial"
    source = "004_6d86763d460ce231.txt"
    kinds = KINDS
    half_range = True
    figures: ClassVar[Mapping[str, Figure]] = FIGURES
    checks = (
        Gap(
            "contact",
            "Whether two figures' bases touch (melee: each figure in contact rolls).",
            0.0,
            IN_CONTACT,
        ),
        Gap(
            "replace",
            "A Native with a firearm is eliminated (``piece``): may the Native figure "
            "``by``, armed with sword or spear, take its place? It must be within 2in (base "
            "edge to base edge) of the fallen figure (2).",
            lambda rules: REPLACE * rules.k,
            Words("may take its place", "may not"),
            pieces=("piece", "by"),
            reason="{b} is {d} from {a}: {near} {limit}",
            summary="{ask} {a} by {b}: {d}{pm}, {word}",
            needs="replacement",
        ),
    )
    piece_fields = (
        PieceField("unit", "text", None, "the unit the figure belongs to (cohesion)"),
        PieceField("weapon", "text", None, "row of the range table (e.g. rifle, musket, spear)"),
        PieceField("native", "flag", False, "a Native figure (European or Colonial otherwise)"),
        PieceField("dismounted", "flag", False, "a mounted figure on foot: moves, fires as foot"),
        PieceField("gun", "text", None, "artillery: light or medium (shell blast 2in or 3in)"),
    )

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        """Conventions where the Colonial text is silent. Distances are inches."""

        range_measure: str = setting(
            "edge",
            (
                "Figures are individually based and the text names no point: range is measured "
                "between the nearest base edges (``centre`` switches to base centres)."
            ),
        )
        move_measure: str = setting(
            "centre",
            (
                "Figures have no front that matters for a move: moves are measured at the base "
                "centre (``front`` switches to the front-centre point)."
            ),
        )
        difficult: tuple[str, ...] = setting(
            (), "Nothing ends a move on entry: bad ground changes the move to a dice roll."
        )
        figure_scale: str = setting(
            "15mm",
            (
                "The rules' distances are for 15mm figures; ``28mm`` doubles every distance. "
                'For 6-10mm figures (1in counts as 1cm) give the table ``"inch_mm": 10`` '
                "instead."
            ),
        )
        bad_ground: tuple[str, ...] = setting(
            ("woods", "rough", "difficult", "building"),
            "Terrain kinds that are bad ground (move by the dice, shorter charges).",
        )
        bad_ground_move: str = setting(
            "whole",
            (
                "The text gives no rule for a move partly on good ground. ``whole``: a move "
                "whose path (the swept base, see ``move_path``) meets bad ground anywhere, "
                "start and end included, is wholly a bad-ground move of 1D6/2D6in (a charge: "
                "6/12in). ``stretch``: only the stretch of the measured line inside bad ground "
                "is slowed, each inch there using up (good move / roll) inches of the "
                "good-ground move (a charge: good reach / bad reach)."
            ),
        )
        no_mounted_charge: tuple[str, ...] = setting(
            ("building", "woods", "fortification"),
            "Mounted troops cannot charge into these (2): a charge whose path meets one.",
        )
        cohesion: str = setting(
            "chain",
            (
                "``chain``: the unit's figures link up into one group by gaps of at most 2in; "
                "``neighbour``: each figure is within 2in of some other figure of its unit (the "
                "text's literal words, which two far-apart pairs would also satisfy)."
            ),
        )
        cohesion_measure: str = setting(
            "edge", "The 2in between two figures of a unit: nearest base edges (``centre``)."
        )
        blast_measure: str = setting(
            "edge",
            (
                "A figure is within a shell's blast when the nearest point of its base is "
                "(``centre``: its base centre)."
            ),
        )
        recoil_tolerance: float = setting(
            0.0,
            (
                "A melee loser recoils 2in (2): exactly that by default, as Divisional "
                "withdrawals are; a table that accepts a hand-placed recoil within some slack "
                "sets it (inches either way)."
            ),
        )
        units_block: bool = setting(
            False,
            (
                "Figures do not block lines of sight (the text is silent; ``true`` switches to "
                "every live figure's base blocking, as in the other Pz8 eras)."
            ),
        )

        def __post_init__(self) -> None:
            super().__post_init__()
            for key in ("bad_ground", "no_mounted_charge"):
                value = getattr(self, key)
                if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                    raise ValueError(f"setting {key} must be a list of terrain kinds")
                object.__setattr__(self, key, tuple(v.lower() for v in value))

        def check(self) -> None:
            super().check()
            if self.figure_scale not in ("15mm", "28mm"):
                raise ValueError(
                    'setting figure_scale must be "15mm" or "28mm" (6-10mm figures: give the '
                    'table "inch_mm": 10)'
                )
            if self.bad_ground_move not in ("whole", "stretch"):
                raise ValueError('setting bad_ground_move must be "whole" or "stretch"')
            if self.cohesion not in ("chain", "neighbour"):
                raise ValueError('setting cohesion must be "chain" or "neighbour"')
            for key in ("cohesion_measure", "blast_measure"):
                if getattr(self, key) not in ("edge", "centre"):
                    raise ValueError(f'setting {key} must be "edge" or "centre"')
            if not 0 <= self.recoil_tolerance <= RECOIL:
                raise ValueError("setting recoil_tolerance must be 0-2 inches")
            if not isinstance(self.units_block, bool):
                raise ValueError("setting units_block must be true or false")

    settings: Pz8Colonial.Settings

    # -- tables ---------------------------------------------------------------------------

    @property
    def k(self) -> float:
        """Every distance of the rules is multiplied by this (2 for 28mm figures)."""
        return 2.0 if self.settings.figure_scale == "28mm" else 1.0

    def figure(self, piece: Piece) -> Figure:
        """The piece's row; a dismounted mounted figure is foot."""
        row = self.figures[self.category(piece)]
        if row.mounted and self.field(piece, "dismounted"):
            return self.figures["foot"]
        return row

    def figure_arg(self, scene: Scene, query: Mapping[str, Any], key: str) -> Piece:
        """A query's piece that must be a figure (not an impact marker)."""
        piece = piece_arg(scene, query, key)
        if self.category(piece) == "marker":
            raise QueryError(f".{key}", f"{piece.id} is an impact marker, not a figure")
        return piece

    def weapon(self, piece: Piece) -> str | None:
        raw = self.field(piece, "weapon")
        return weapon_row(raw) if raw is not None else self.figure(piece).weapon

    @classmethod
    def validate(cls, scene: Scene) -> None:
        super().validate(scene)
        for i, p in enumerate(scene.pieces):
            raw = p.get("weapon")
            if raw is not None and weapon_row(raw) is None:
                known = ", ".join([*RANGES, *WEAPON_ALIASES])
                raise SceneError(
                    at(
                        scene.source,
                        f"$.pieces[{i}].weapon",
                        f"unknown weapon {raw!r} for {cls.name} (known: {known})",
                    )
                )
            gun = p.get("gun")
            if gun is not None and gun not in BLAST:
                raise SceneError(
                    at(scene.source, f"$.pieces[{i}].gun", f"must be light or medium, got {gun!r}")
                )

    # -- hooks ----------------------------------------------------------------------------

    def move_allowance(self, piece: Piece) -> float | None:
        return self.figure(piece).move * self.k

    def unit_blocks(self, piece: Piece) -> bool:
        return self.settings.units_block and self.category(piece) != "marker"

    def can_act(self, piece: Piece, ok: bool | None, reasons: list[str]) -> bool | None:
        if piece.state == "destroyed":
            reasons.append(f"{piece.id} is eliminated")
            return False
        return ok

    def met(
        self,
        scene: Scene,
        piece: Piece,
        start: Pose,
        end: Pose,
        doubt: float,
        kinds: tuple[str, ...],
        leaving_free: bool = False,
    ) -> tuple[list[str], list[str]]:
        """Terrain of ``kinds`` a move's path meets: (certainly, possibly). The path is the
        base swept from the start to the end centre plus the base at the end
        (``move_path: centre``: the centre line); a base touching an outline without
        sharing area does not meet it. With a position ``doubt`` the base shrunk by it
        decides what is certainly met, the base grown by it what possibly is. With
        ``leaving_free``, terrain holding the start centre is left, not met."""
        sure: list[str] = []
        maybe: list[str] = []
        a, b = np.array(start.xy), np.array(end.xy)
        base = piece.base
        swept = self.settings.move_path == "swept"
        for t in scene.terrain:
            if t.kind not in kinds:
                continue
            poly = t.outline()
            if leaving_free and point_in_polygon(start.xy, poly):
                continue
            if swept:
                # A hair of shrink: a base ending flush against an outline touches it, even
                # after rounding (a table turned by 37 degrees).
                hair = max(doubt, 1e-7)
                certain = sweep_entry(footprint(start, base, -hair), b - a, poly) is not None
                certain = certain or polygons_overlap(footprint(end, base, -hair), poly)
                possible = certain or (
                    doubt > 0
                    and (
                        sweep_entry(footprint(start, base, doubt), b - a, poly) is not None
                        or polygons_overlap(footprint(end, base, doubt), poly)
                    )
                )
            else:
                if a.tolist() == b.tolist():
                    certain = point_in_polygon(start.xy, poly, strict=True)
                else:
                    certain = bool(segment_spans(a, b, poly))
                possible = certain or segment_polygon(start.xy, end.xy, poly).clearance <= doubt
            if certain:
                sure.append(t.id)
            elif possible:
                maybe.append(t.id)
        return sure, maybe

    def bad_stretch(
        self, scene: Scene, a: Sequence[float], b: Sequence[float]
    ) -> tuple[float, list[str]]:
        """Inches of the segment ``a``-``b`` inside bad ground (overlaps counted once) and
        the features it runs through."""
        length = centre_distance(a, b)
        spans: list[tuple[float, float]] = []
        ids: list[str] = []
        for t in scene.terrain:
            if t.kind in self.settings.bad_ground and length > 1e-12:
                got = segment_spans(a, b, t.outline(), strict=False)
                if got:
                    spans += got
                    ids.append(t.id)
        total, reach = 0.0, 0.0
        for s0, s1 in sorted(spans):
            total += max(0.0, s1 - max(s0, reach))
            reach = max(reach, s1)
        return total * length, ids

    # -- dice -----------------------------------------------------------------------------

    def dice_limit(
        self,
        distance: float,
        doubt: float,
        dice: int,
        limit_of: Callable[[int], float],
        roll: int | None,
    ) -> tuple[bool | None, float, dict[str, Any], str]:
        """Judge ``distance`` against a dice move of ``dice`` D6 that allows ``limit_of(r)``
        inches on a roll of ``r``: against the declared ``roll``, or over every possible
        roll. Returns (ok, limit, details, sentence)."""
        name = f"{dice}D6"
        if roll is not None:
            limit = limit_of(roll)
            ok = judge(distance, limit, doubt)
            return ok, limit, {"dice": name, "roll": roll}, f"rolled {roll} on {name}"
        lo, hi = dice, 6 * dice
        verdicts = {r: judge(distance, limit_of(r), doubt) for r in range(lo, hi + 1)}
        details: dict[str, Any] = {"dice": name}
        if verdicts[lo] is True:
            return True, limit_of(lo), details, f"within the lowest roll of {name} ({lo})"
        if verdicts[hi] is False:
            return False, limit_of(hi), details, f"beyond the highest roll of {name} ({hi})"
        needs = next((r for r in range(lo, hi + 1) if verdicts[r] is True), None)
        close = [r for r, v in verdicts.items() if v is None]
        if needs is None:
            details["needs_roll"] = hi
            return None, limit_of(hi), details, f"too close to call even on {name} = {hi}"
        details["needs_roll"] = needs
        details["chance"] = round(sum_at_least(dice, needs), 4)
        text = f"needs a roll of at least {needs} on {name}"
        if close:
            text += f" ({', '.join(map(str, close))} too close to call)"
        return None, limit_of(needs), details, text

    def roll_arg(self, query: Mapping[str, Any], dice: int) -> int | None:
        if "roll" not in query or query["roll"] is None:
            return None
        roll = query["roll"]
        if isinstance(roll, bool) or not isinstance(roll, int) or not dice <= roll <= 6 * dice:
            raise QueryError(
                ".roll",
                f"must be the {dice}D6 total, a whole number from {dice} to {6 * dice}, "
                f"got {roll!r}",
            )
        return roll

    # -- shared questions -----------------------------------------------------------------

    def placed_freely(self, piece: Piece) -> tuple[str, str] | None:
        if self.category(piece) != "marker":
            return None
        why = f"{piece.id} is an impact marker: placed where the shot is estimated, no limit"
        return why, "impact marker placed"

    def move_limit(
        self, scene: Scene, move: MoveQuery, mover: Piece, measured: Measured
    ) -> MoveLimit:
        """A figure's move: 6in foot, 12in mounted, 9in camel (doubled for 28mm), 1D6in
        or 2D6in when the path meets bad ground; ``extra: true`` judges the extra 1D6in
        move, ``charged: true`` the charged unit's half move; ``roll`` the dice total;
        ``allowance`` replaces it all."""
        piece, start, end, doubt = move.piece, move.start, move.end, move.doubt
        query = move.extra
        flags = {}
        for key in ("extra", "charged"):
            value = query.get(key, False)
            if not isinstance(value, bool):
                raise QueryError(f".{key}", f"must be true or false, got {value!r}")
            flags[key] = value
        allowance = move.allowance
        row = self.figure(piece)
        distance, p0, p1 = measured.distance, measured.p0, measured.p1
        reasons: list[str] = []
        details: dict[str, Any] = {}
        stretch = self.settings.bad_ground_move == "stretch"
        if stretch:  # only the measured line's stretch in bad ground counts
            inside, sure = self.bad_stretch(scene, p0, p1)
            maybe: list[str] = []
        else:
            sure, maybe = self.met(scene, piece, start, end, doubt / 2, self.settings.bad_ground)
        half = 0.5 if flags["charged"] else 1.0
        what = self.category(piece) + (" (dismounted)" if row is not self.figure_of(piece) else "")
        good = row.move * self.k * half
        good_rule = f"{piece.id} ({what}) moves {inches(good)}" + (
            " (charged: half its move)" if flags["charged"] else ""
        )
        dice = 0
        if allowance is not None:
            limit: float = float(allowance)
            ok = judge(distance, limit, doubt)
            reasons.append(f"{fmt(distance)} {WITHIN(ok)} the allowance of {inches(limit)}")
            details["allowance"] = limit
        else:
            if flags["extra"]:
                dice, why = EXTRA_DICE, "the extra move after a move"
            elif row.dice and (sure or maybe):
                dice = row.dice
                why = (
                    f"the path meets bad ground {', '.join(sure)}"
                    if sure
                    else f"if the path meets bad ground {', '.join(maybe)}"
                )
            roll = self.roll_arg(query, dice) if dice else None
            if "roll" in query and not dice:
                self.roll_arg(query, max(row.dice, 1))  # a bad roll is still an error
                reasons.append("not a bad-ground or extra move: the roll does not apply")
            if dice:
                pip = self.k * half
                limit_of: Callable[[int], float] = partial(operator.mul, pip)
                if stretch and not flags["extra"]:
                    why += f" for {fmt(inside)}, each inch costing {inches(good)}/roll"
                    limit_of = partial(_stretched, distance, inside, good, pip)
                ok, limit, more, text = self.dice_limit(distance, doubt, dice, limit_of, roll)
                details.update(more)
                reasons.append(f"{why}: {dice}D6in" + (" halved" if half < 1 else ""))
                reasons.append(f"{fmt(distance)}: {text}")
                if not sure and not flags["extra"]:
                    # Only possibly on bad ground: the good-ground answer must agree.
                    ok_good = judge(distance, good, doubt)
                    if ok_good != ok:
                        ok = None
                        reasons.append(
                            f"too close to call whether the path meets "
                            f"{', '.join(maybe)} (within {fmt(doubt / 2)}): on good ground "
                            f"{WITHIN(ok_good)} {inches(good)}"
                        )
            else:
                limit = good
                ok = judge(distance, good, doubt)
                reasons.append(f"{fmt(distance)} {WITHIN(ok)} the limit: {good_rule}")
            details["allowance"] = limit
        needs = details.get("needs_roll")
        word = None
        if needs is not None and (sure or flags["extra"]):
            word = f"needs {needs}+ on {details['dice']}"
        return MoveLimit(ok, limit, reasons, details, explain=False, doubtful_word=word)

    def ask_rout(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A routing figure's move (``piece``, ``to``, optional ``from``): a charge move
        towards its own side of the table (7), so its charge reach along the path, and
        not away from its side's table edge (the scene's ``deployment``)."""
        piece = self.figure_arg(scene, query, "piece")
        row = self.figure(piece)
        if row.charge is None or row.charge_bad is None:
            raise QueryError(
                ".piece", f"{piece.id} ({self.category(piece)}) does not rout: its crew do"
            )
        start = pose_arg(query["from"], ".from", piece.pose) if "from" in query else piece.pose
        if "to" not in query:
            raise QueryError(".to", "missing field (the pose routed to)")
        end = pose_arg(query["to"], ".to", start)
        doubt = 2 * piece.uncertainty
        distance = centre_distance(start.xy, end.xy)
        reasons = [
            f"routed {fmt(distance)} (base centre): a rout is a charge move towards its own "
            "side of the table"
        ]
        ok, limit = self.reach(
            scene,
            piece,
            start,
            end,
            distance,
            doubt,
            reasons,
            row.charge * self.k,
            row.charge_bad * self.k,
        )
        toward = self.towards_own_edge(scene, piece, start, end, doubt, reasons)
        terrain_ok, terrain_reasons, _ = self.move_terrain(scene, piece, start, end, doubt / 2)
        reasons += terrain_reasons
        ok_all = self.can_act(piece, worst([ok, toward, terrain_ok]), reasons)
        word = LEGAL(ok_all)
        return Verdict(
            "rout",
            ok_all,
            tuple(reasons),
            distance=distance,
            uncertainty=doubt,
            limit=limit,
            summary=f"rout {piece.id}: {fmt(distance)}{pm(doubt)}, {word} (limit {inches(limit)})",
        )

    def towards_own_edge(
        self, scene: Scene, piece: Piece, start: Pose, end: Pose, doubt: float, reasons: list[str]
    ) -> bool | None:
        """Whether a move does not take the base centre away from its side's table edge
        (the scene's ``deployment``); True, with a note, when the side has no edge."""
        edge = scene.deployment.get(piece.side)
        if edge is None:
            reasons.append(
                f'side {piece.side} has no table edge ("deployment"): direction not checked'
            )
            return True
        pts = np.array([start.xy, end.xy], float)
        before, after = from_edge(pts, edge, scene)
        gain = float(before - after)
        ok = judge_at_least(gain, 0.0, doubt)
        reasons.append(
            f"ends {fmt(abs(gain))} {'nearer' if gain >= 0 else 'farther from'} its {edge} edge"
            + Words("", ": a rout runs towards it", ": too close to call")(ok)
        )
        return ok

    def figure_of(self, piece: Piece) -> Figure:
        """The piece's own row, mounted or not."""
        return self.figures[self.category(piece)]

    def check_firer(self, piece: Piece) -> None:
        if self.category(piece) == "marker":
            raise QueryError(".from", f"{piece.id} is an impact marker, not a figure")

    def judge_fire(
        self, scene: Scene, query: RangeQuery, distance: float, reasons: list[str]
    ) -> Fire:
        """Fire range by the firer's weapon (snipers 24in, shells unlimited), with the
        over-half-range rule (only a 6 hits, not revolvers and spears) and the
        mounted-fire rules."""
        firer, doubt, d = query.firer, query.doubt, distance
        row = self.figure(firer)
        details: dict[str, Any] = {}
        oks: list[bool | None] = []
        limit: float | None
        if row.fires == "shell":
            limit = None
            oks.append(True)
            reasons.append(
                f"{firer.id} is artillery: shell range is unlimited (estimate the distance and "
                f"place the impact marker; ask blast); canister reaches "
                f"{inches(CANISTER_RANGE * self.k)} (ask canister)"
            )
            summary = f"{fmt(d)}{pm(doubt)}, in range (shell: no limit)"
        else:
            weapon = "sniper" if row.fires == "sniper" else self.weapon(firer)
            if weapon is None:
                raise QueryError(
                    ".from",
                    f"{firer.id} ({self.category(firer)}) has no missile weapon: give it "
                    f'"weapon": one of {", ".join(RANGES)}',
                )
            base = SNIPER_RANGE if weapon == "sniper" else RANGES[weapon]
            limit = base * self.k
            ok = judge(d, limit, doubt)
            oks.append(ok)
            if weapon == "sniper":
                reasons.append(
                    f"{firer.id} is a sniper: any figure in line of sight up to "
                    f"{inches(limit)}; hits on 5-6 in the open, 6 in cover, no modifiers"
                )
            else:
                reasons.append(f"{firer.id} fires {weapon} at most {inches(limit)}")
            if ok is not False and weapon not in ("sniper", *NO_HALF_RANGE):
                half = judge(d, limit / 2, doubt)
                details["half_range"] = HALF_RANGE(half)
                details["to_hit"] = Words("5-6", "6", "5-6 or 6")(half)
                if half is False:
                    reasons.append(f"over half range ({inches(limit / 2)}): only a 6 hits")
                elif half is None:
                    reasons.append(f"half range ({inches(limit / 2)}) is too close to call")
            elif ok is not False and weapon in NO_HALF_RANGE:
                details["to_hit"] = "5-6"
                reasons.append(f"{weapon}: hits on 5-6 at any range")
            if row.mounted:
                if not self.field(firer, "native") and weapon != "revolver":
                    oks.append(False)
                    reasons.append(
                        f"{firer.id} is European/Colonial cavalry: must dismount to fire "
                        "(revolvers excepted)"
                    )
                elif self.field(firer, "native") and weapon in FIREARMS:
                    details["modifier"] = -1
                    reasons.append(f"{firer.id} is Native cavalry firing mounted: -1 to hit")
            word = IN_RANGE(ok)
            summary = f"{fmt(d)}{pm(doubt)}, {word} (limit {inches(limit)})"
            if details.get("half_range") == "over":
                summary += ", over half range: 6 to hit"
        measured_ok = oks[0]

        def summary_of(ok_all: bool | None) -> str:
            may_not = ok_all is False and measured_ok is not False
            return summary + (": may not fire" if may_not else "")

        return Fire(worst(oks), limit, reasons, details, summary_of)

    # -- the Colonial questions -----------------------------------------------------------

    def ask_charge(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Charge of ``piece`` at the enemy ``target``: infantry 9in, cavalry 18in (6in/12in
        when the path meets bad ground), camels 12in; the charge must end in contact and
        mounted troops cannot charge into buildings, woods or fortifications. Without
        ``to``: is the target within charge distance (the gap between the bases)?"""
        piece = self.figure_arg(scene, query, "piece")
        target = self.figure_arg(scene, query, "target")
        row = self.figure(piece)
        if row.charge is None or row.charge_bad is None:
            raise QueryError(
                ".piece",
                f"{piece.id} ({self.category(piece)}) does not charge: foot, mounted "
                "and camel figures do",
            )
        reasons: list[str] = []
        oks: list[bool | None] = []
        if target.side == piece.side:
            oks.append(False)
            reasons.append(f"{target.id} is on {piece.id}'s own side: charges are at the enemy")
        if target.state == "destroyed":
            oks.append(False)
            reasons.append(f"{target.id} is eliminated: no charge target")
        # A charge made (``to``) is measured at its start and end; one asked about, once.
        doubt = (2 if "to" in query else 1) * piece.uncertainty + target.uncertainty
        start = pose_arg(query["from"], ".from", piece.pose) if "from" in query else piece.pose
        if "to" in query:
            end = pose_arg(query["to"], ".to", start)
            distance = centre_distance(start.xy, end.xy)
            reasons.append(f"charged {fmt(distance)} measured at the base centre")
            end_corners = base_corners(end.x, end.y, end.heading, piece.base)
            gap = polygon_distance(end_corners, target.corners())
            touch = judge(gap, 0.0, doubt)
            oks.append(touch)
            reasons.append(
                f"ends {fmt(gap)} from {target.id}: "
                + Words("in contact", "not in contact", "contact too close to call")(touch)
                + " (a charge must end in contact)"
            )
            terrain_ok, terrain_reasons, _ = self.move_terrain(scene, piece, start, end, doubt / 2)
            oks.append(terrain_ok)
            reasons += terrain_reasons
            details: dict[str, Any] = {"contact": touch}
        else:
            # The gap the charger must close, along the line between the centres.
            distance = polygon_distance(piece.corners(), target.corners())
            reasons.append(f"{target.id} is {fmt(distance)} away, base edge to base edge")
            dx, dy = target.x - piece.x, target.y - piece.y
            norm = math.hypot(dx, dy) or 1.0
            end = Pose(
                piece.x + dx / norm * distance, piece.y + dy / norm * distance, piece.heading
            )
            details = {}
        good, bad = row.charge * self.k, row.charge_bad * self.k
        ok, limit = self.reach(scene, piece, start, end, distance, doubt, reasons, good, bad)
        oks.append(ok)
        if row.mounted:
            no_sure, no_maybe = self.met(
                scene, piece, start, end, doubt / 2, self.settings.no_mounted_charge, True
            )
            if no_sure:
                oks.append(False)
                reasons.append(f"mounted troops cannot charge into {', '.join(no_sure)}")
            elif no_maybe:
                oks.append(None)
                reasons.append(
                    f"too close to call whether the charge goes into {', '.join(no_maybe)}, "
                    "where mounted troops cannot charge"
                )
        ok_all = self.can_act(piece, worst(oks), reasons)
        word = Words("may charge", "cannot charge")(ok_all)
        if "to" in query:
            word = Words("legal charge", "illegal charge")(ok_all)
        return Verdict(
            "charge",
            ok_all,
            tuple(reasons),
            distance=distance,
            uncertainty=doubt,
            limit=limit,
            details={**details, "target": target.id},
            summary=f"charge {piece.id} -> {target.id}: {fmt(distance)}{pm(doubt)}, {word} "
            f"(reach {inches(limit)})",
        )

    def reach(
        self,
        scene: Scene,
        piece: Piece,
        start: Pose,
        end: Pose,
        distance: float,
        doubt: float,
        reasons: list[str],
        good: float,
        bad: float,
    ) -> tuple[bool | None, float]:
        """``distance`` judged against a charge reach along the path from ``start`` to
        ``end``: the ``good``-ground reach, the ``bad``-ground one when the path meets
        bad ground (``bad_ground_move``), too close to call when only possibly and the
        two disagree. Appends its sentences to ``reasons``; returns (ok, limit)."""
        if self.settings.bad_ground_move == "stretch":
            inside, sure = self.bad_stretch(scene, start.xy, end.xy)
            maybe: list[str] = []
            if sure and distance > 1e-12:  # each inch in bad ground costs good/bad inches
                bad = _stretched(distance, min(inside, distance), good, 1.0, bad)
                reasons.append(f"{fmt(inside)} of the path in bad ground")
        else:
            sure, maybe = self.met(scene, piece, start, end, doubt / 2, self.settings.bad_ground)
        ok_good, ok_bad = judge(distance, good, doubt), judge(distance, bad, doubt)
        if sure:
            limit, ok = bad, ok_bad
            reasons.append(f"the path meets bad ground {', '.join(sure)}: charge {inches(bad)}")
        elif maybe and ok_good != ok_bad:
            limit, ok = bad, None
            reasons.append(
                f"too close to call whether the path meets bad ground {', '.join(maybe)}: "
                f"charge {inches(bad)} there, {inches(good)} on good ground"
            )
        else:
            limit, ok = good, ok_good
            if maybe:
                reasons.append(f"the path may meet {', '.join(maybe)}: the same either way")
        reasons.append(
            f"{fmt(distance)} {WITHIN(ok)} the charge reach of {inches(limit)} "
            f"({self.category(piece)})"
        )
        return ok, limit

    def unit_figures(self, scene: Scene, query: Mapping[str, Any]) -> tuple[str, list[Piece]]:
        if "unit" in query:
            unit = query["unit"]
            if not isinstance(unit, str) or not unit.strip():
                raise QueryError(".unit", f"must be a unit name, got {unit!r}")
            path = ".unit"
        elif "piece" in query:
            piece = self.figure_arg(scene, query, "piece")
            unit = self.field(piece, "unit")
            if unit is None:
                raise QueryError(".piece", f'{piece.id} has no "unit" field: name its unit')
            path = ".piece"
        else:
            raise QueryError(".unit", "missing field (a unit name, or piece: one of its figures)")
        members = [
            p
            for p in scene.pieces
            if self.field(p, "unit") == unit
            and p.state != "destroyed"
            and self.category(p) != "marker"
        ]
        if not members:
            known = sorted({str(self.field(p, "unit")) for p in scene.pieces} - {"None"})
            raise QueryError(
                path, f"no live figure of unit {unit!r} (units: {', '.join(known) or 'none'})"
            )
        return unit, members

    def ask_cohesion(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Unit cohesion: every figure within 2in of another of its unit (``cohesion``:
        linked into one group, or each with a neighbour), as ``cohesion_measure`` says."""
        unit, members = self.unit_figures(scene, query)
        limit = COHESION * self.k
        n = len(members)
        measure = self.settings.cohesion_measure
        dist = np.zeros((n, n))
        doubt = np.zeros((n, n))
        for i, j in itertools.combinations(range(n), 2):
            a, b = members[i], members[j]
            dist[i, j] = dist[j, i] = self.piece_distance(a, b, measure)
            doubt[i, j] = doubt[j, i] = a.uncertainty + b.uncertainty
        links = {
            (i, j): judge(float(dist[i, j]), limit, float(doubt[i, j]))
            for i, j in itertools.combinations(range(n), 2)
        }
        ids = [p.id for p in members]
        reasons: list[str] = []
        if n == 1:
            ok: bool | None = True
            worst_d, worst_u = 0.0, 0.0
            reasons.append(f"unit {unit} has one figure left")
            groups = [ids]
        elif self.settings.cohesion == "chain":
            sure_groups = _components(n, [e for e, v in links.items() if v is True])
            maybe_groups = _components(n, [e for e, v in links.items() if v is not False])
            ok = True if len(sure_groups) == 1 else (False if len(maybe_groups) > 1 else None)
            # The longest gap the chain needs: the largest link of a minimum spanning tree.
            i, j = _bottleneck(dist)
            worst_d, worst_u = float(dist[i, j]), float(doubt[i, j])
            groups = [[ids[k] for k in g] for g in sure_groups]
            reasons.append(
                f"the longest gap linking unit {unit} is {fmt(worst_d)} "
                f"({ids[i]} to {ids[j]}, {MEASURE_WORDS[measure]}): {WITHIN(ok)} {inches(limit)}"
            )
            if len(groups) > 1:
                reasons.append(
                    "certainly linked groups: " + "; ".join(", ".join(g) for g in groups)
                )
        else:
            oks = []
            nearest = []
            for i in range(n):
                others = [k for k in range(n) if k != i]
                near = [links[(min(i, k), max(i, k))] for k in others]
                fig_ok = True if True in near else (None if None in near else False)
                oks.append(fig_ok)
                k = min(others, key=lambda k: dist[i, k])
                nearest.append((float(dist[i, k]), float(doubt[i, k]), i, k))
                if fig_ok is not True:
                    reasons.append(
                        f"{ids[i]}'s nearest figure {ids[k]} is {fmt(dist[i, k])} away: "
                        f"{WITHIN(fig_ok)} {inches(limit)}"
                    )
            ok = worst(oks)
            worst_d, worst_u, _, _ = max(nearest)
            groups = [ids]
            if ok is True:
                reasons.append(f"every figure of unit {unit} is within {inches(limit)} of another")
        word = Words("in cohesion", "out of cohesion")(ok)
        return Verdict(
            "cohesion",
            ok,
            tuple(reasons),
            distance=worst_d,
            uncertainty=worst_u,
            limit=limit,
            details={"unit": unit, "figures": ids, "groups": groups},
            summary=f"cohesion {unit}: {fmt(worst_d)}{pm(worst_u)}, {word} (limit {inches(limit)})",
        )

    def ask_blast(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Which figures a shell hits: every figure within 2in (light gun) or 3in (medium)
        of the impact point ``at`` (a marker piece or ``{"x", "y"}``), measured to the
        base (``blast_measure``). With ``piece``: is that figure hit?"""
        point, marker_doubt, where = self.impact_arg(scene, query)
        gun = query.get("gun")
        source = "query"
        if gun is None and "from" in query:
            firer = self.figure_arg(scene, query, "from")
            if self.figure(firer).fires != "shell":
                raise QueryError(".from", f"{firer.id} is not artillery: only guns fire shells")
            gun, source = self.field(firer, "gun"), firer.id
            if gun is None:
                raise QueryError(".from", f'{firer.id} has no "gun" field: light or medium')
        if gun not in BLAST:
            raise QueryError(".gun", f"must be light or medium (or from: the gun), got {gun!r}")
        radius = BLAST[gun] * self.k
        hit: list[str] = []
        doubtful: list[str] = []
        distances: dict[str, float] = {}
        reasons = [f"{gun} gun ({source}): figures within {inches(radius)} of {where} save or die"]
        for p in scene.pieces:
            if self.category(p) == "marker" or p.state == "destroyed":
                continue
            d = (
                point_to_base(point, p)
                if self.settings.blast_measure == "edge"
                else centre_distance(point, p.xy)
            )
            u = p.uncertainty + marker_doubt
            ok = judge(d, radius, u)
            if ok is not False:
                distances[p.id] = d
                (hit if ok else doubtful).append(p.id)
                reasons.append(f"{p.id} is {fmt(d)}{pm(u)} from the impact: {WITHIN(ok)} the blast")
        details: dict[str, Any] = {"hit": hit, "doubtful": doubtful, "distances": distances}
        if "piece" in query:
            one = self.figure_arg(scene, query, "piece")
            d = (
                point_to_base(point, one)
                if self.settings.blast_measure == "edge"
                else centre_distance(point, one.xy)
            )
            u = one.uncertainty + marker_doubt
            ok1 = judge(d, radius, u) if one.state != "destroyed" else False
            word = Words("hit", "not hit")(ok1)
            return Verdict(
                "blast",
                ok1,
                (*reasons[:1], f"{one.id} is {fmt(d)}{pm(u)} from the impact: {word}"),
                distance=d,
                uncertainty=u,
                limit=radius,
                details=details,
                summary=f"blast at {where}: {one.id} {fmt(d)}{pm(u)}, {word} "
                f"(limit {inches(radius)})",
            )
        ok = None if doubtful else True
        if not hit and not doubtful:
            reasons.append("no figure within the blast")
        return Verdict(
            "blast",
            ok,
            tuple(reasons),
            uncertainty=marker_doubt,
            limit=radius,
            details=details,
            summary=f"blast at {where}: hits {', '.join(hit) or 'nobody'}"
            + (f"; too close to call: {', '.join(doubtful)}" if doubtful else "")
            + f" (radius {inches(radius)})",
        )

    def impact_arg(
        self, scene: Scene, query: Mapping[str, Any]
    ) -> tuple[tuple[float, float], float, str]:
        """(point, its doubt, words) of a blast's ``at``: a marker piece or a point."""
        raw = query.get("at")
        if isinstance(raw, str):
            marker = piece_arg(scene, query, "at")
            return marker.xy, marker.uncertainty, f"marker {marker.id}"
        if isinstance(raw, dict):
            for key in ("x", "y"):
                if key not in raw:
                    raise QueryError(f".at.{key}", "missing field")
            x, y = number_arg(raw["x"], ".at.x"), number_arg(raw["y"], ".at.y")
            u = number_arg(query.get("uncertainty", 0.0), ".uncertainty")
            if u < 0:
                raise QueryError(".uncertainty", f"must be >= 0, got {u!r}")
            return (x, y), u, f"({x:g}, {y:g})"
        raise QueryError(
            ".at",
            f'must be the impact marker\'s id or a point like {{"x": 10, "y": 4}}, got {raw!r}',
        )

    def ask_canister(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Canister from an artillery piece: 12in, measured as ``range_measure`` says."""
        gun = self.figure_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        if self.figure(gun).fires != "shell":
            raise QueryError(".from", f"{gun.id} is not artillery: only guns fire canister")
        measure = self.settings.range_measure
        d = self.piece_distance(gun, target, measure, scene)
        doubt = gun.uncertainty + target.uncertainty
        limit = CANISTER_RANGE * self.k
        ok = judge(d, limit, doubt)
        reasons = [f"{fmt(d)} {MEASURE_WORDS[measure]}", f"canister reaches {inches(limit)}"]
        g = self.field(gun, "gun")
        if g is not None:
            reasons.append(f"{g} gun: {12 if g == 'medium' else 8} D6, hits on 5-6")
        ok = self.can_act(gun, ok, reasons)
        word = IN_RANGE(ok)
        return Verdict(
            "canister",
            ok,
            tuple(reasons),
            distance=d,
            uncertainty=doubt,
            limit=limit,
            summary=f"canister {gun.id} -> {target.id}: {fmt(d)}{pm(doubt)}, {word} "
            f"(limit {inches(limit)})",
        )

    def ask_recoil(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A melee recoil: exactly 2in (at the base centre; ``recoil_tolerance`` either
        way, as Divisional withdrawals are exact) and, with ``enemy``, not ending nearer
        that figure than it started."""
        piece = self.figure_arg(scene, query, "piece")
        start = pose_arg(query["from"], ".from", piece.pose) if "from" in query else piece.pose
        if "to" not in query:
            raise QueryError(".to", "missing field (the pose recoiled to)")
        end = pose_arg(query["to"], ".to", start)
        d = centre_distance(start.xy, end.xy)
        doubt = 2 * piece.uncertainty
        limit = RECOIL * self.k
        tol = self.settings.recoil_tolerance
        far = judge_at_least(d, limit - tol, doubt)
        near = judge(d, limit + tol, doubt)
        ok = worst([far, near])
        oks = [ok]
        how = (
            "the distance"
            if ok
            else "short of it"
            if far is False
            else "too far"
            if near is False
            else "too close to call against it"
        )
        reasons = [f"recoiled {fmt(d)} (base centre): {how}: a recoil is exactly {inches(limit)}"]
        if "enemy" in query:
            enemy = self.figure_arg(scene, query, "enemy")
            gain = centre_distance(end.xy, enemy.xy) - centre_distance(start.xy, enemy.xy)
            u = doubt + enemy.uncertainty
            away = judge_at_least(gain, 0.0, u)
            oks.append(away)
            reasons.append(
                f"ends {fmt(abs(gain))} {'farther from' if gain >= 0 else 'nearer'} {enemy.id}"
                + Words("", ": a recoil moves away", ": too close to call")(away)
            )
        ok_all = self.can_act(piece, worst(oks), reasons)
        word = LEGAL(ok_all)
        return Verdict(
            "recoil",
            ok_all,
            tuple(reasons),
            distance=d,
            uncertainty=doubt,
            limit=limit,
            summary=f"recoil {piece.id}: {fmt(d)}{pm(doubt)}, {word} (exactly {inches(limit)})",
        )

    def ask_snipe(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A native sniper's shot: any figure in line of sight up to 24in."""
        sniper = self.figure_arg(scene, query, "from")
        target = self.figure_arg(scene, query, "to")
        if self.figure(sniper).fires != "sniper":
            raise QueryError(".from", f"{sniper.id} is not a sniper (kind sniper)")
        rng = self.ask_range(scene, query)
        los = self.ask_los(scene, query)
        ok = worst([rng.ok, los.ok])
        word = Words("may snipe", "cannot snipe")(ok)
        return Verdict(
            "snipe",
            ok,
            (*rng.reasons, *los.reasons),
            distance=rng.distance,
            uncertainty=rng.uncertainty,
            limit=rng.limit,
            los=los.los,
            details={"blocking": los.details.get("blocking", [])},
            summary=f"snipe {sniper.id} -> {target.id}: {fmt(rng.distance or 0)}"
            f"{pm(rng.uncertainty or 0)}, LOS {los.los}, {word}",
        )

    def replacement(self, scene: Scene, fallen: Piece, by: Piece) -> list[tuple[bool, str]]:
        """Who may take a fallen Native's place (2): the rule's conditions that are not
        the 2in."""
        why: list[str] = []
        if not self.field(fallen, "native") or self.weapon(fallen) not in FIREARMS:
            why.append(f"{fallen.id} is not a Native armed with a firearm")
        if not self.field(by, "native") or by.side != fallen.side:
            why.append(f"{by.id} is not a Native figure of {fallen.id}'s side")
        if self.weapon(by) not in (None, "spear"):
            why.append(f"{by.id} is armed with {self.weapon(by)}, not sword or spear")
        if by.state == "destroyed":
            why.append(f"{by.id} is eliminated")
        return [(False, w) for w in why]

    def question_piece(self, scene: Scene, query: Mapping[str, Any], key: str) -> Piece:
        return self.figure_arg(scene, query, key)


def _stretched(distance: float, inside: float, good: float, pip: float, roll: float) -> float:
    """How far a move along this line may go on ``roll`` when its ``inside`` inches of bad
    ground each use up ``good / (pip * roll)`` inches of the ``good`` move: the distance
    scaled so the cost is exactly ``good``.

    >>> _stretched(6, 3, 6, 1, 3)   # 3in open + 3in bad at 6/3 = 9in of a 6in move
    4.0
    """
    return distance * good / ((distance - inside) + inside * good / (pip * roll))


def _components(n: int, edges: Sequence[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, j in edges:
        parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for k in range(n):
        groups.setdefault(root(k), []).append(k)
    return list(groups.values())


def _bottleneck(dist: np.ndarray) -> tuple[int, int]:
    """The longest link of a minimum spanning tree (Prim): the smallest gap that still
    must be bridged to join every figure into one group."""
    n = len(dist)
    best = dist[0].copy()
    src = np.zeros(n, int)
    done = np.zeros(n, bool)
    done[0] = True
    worst_link = (0, 0)
    worst_d = -1.0
    for _ in range(n - 1):
        k = int(np.argmin(np.where(done, np.inf, best)))
        if best[k] > worst_d:
            worst_d, worst_link = float(best[k]), (int(src[k]), k)
        done[k] = True
        closer = dist[k] < best
        src[closer] = k
        best = np.minimum(best, dist[k])
    return worst_link
