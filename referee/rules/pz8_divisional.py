"""Pz8 Divisional games: WW2 Divisional (one base a battalion) and WW1 Divisional (squares).

Both come from ``rule-sources/004_...txt`` ("Pz8 - WW2 Divisional Wargame
Rules" and "Pz8 - WW1 Divisional Wargame Rules", RULES.md section 5) and share
troop quality (``quality``: elite, average or green, a piece field) and how the
size of a unit's base is read off the table (:func:`unit_base_width`).

**WW2 Divisional** (``pz8-divisional``): moves by type from the text's table
(3"-9", halved per stretch in rough ground, doubled on roads); only artillery
fires at a distance, 18", at a target spotted by an unengaged unit of its own
division; spotting reaches 9" (recon, artillery, HQ) or 6", +3" when the
spotter is on a hill, -3" when the target is in woods, buildings or
fortifications; friendly units and ground features do not block LOS (enemy
units do, by convention); moving into contact with an enemy forces combat (the
move stops there; HQs and artillery may not move into contact); the loser of a
combat withdraws the difference in inches (4" when beaten by double) straight
away from the winner and the winner may advance 1" (2") toward it; rally within
12" of the divisional HQ (9" for green units); minefield sections are one base
wide (crossing one stops the unit), fortification sections two.

Questions: ``range``, ``los``, ``move`` (shared), ``spot`` (``from`` spotter,
``to`` target), ``fire`` (``from`` artillery, ``to`` target: range and a
spotter), ``contact`` (``from``, ``to``), ``engaged`` (``piece``),
``withdraw`` and ``advance`` (``piece``, ``to`` pose, optional ``from`` pose,
``enemy``, and ``scores`` [winner, loser] or ``difference`` / ``double``),
``rally`` (``piece``) and ``section`` (``terrain``: a minefield or
fortification).

**WW1 Divisional** (``pz8-ww1``): a game on squares. The squares are laid out
from the table's corner (x = 0, y = 0), each side three times a unit's base;
infantry and tanks move one square forward, back, left or right, stormtroopers
one square in any direction, MG units are static and tanks never enter
difficult ground (woods, towns, craters); a square holds at most 4 units and
field defences together, at most 2 field defences and 1 bunker; units assault
an orthogonally adjacent square (never corner to corner) and only from one
square; each side deploys and places its field defences in its own half; the
attacker wins by holding every square of the first, second or third row past
the half line with no enemy left in its own half.

Questions: ``range`` and ``los`` (shared: range is the assault reach, one
square orthogonally; the rules have no line of sight, so nothing blocks),
``move``, ``square`` (``piece``), ``assault`` (``from``: a piece or list of
pieces, ``to``: a piece in the target square), ``stack`` (``piece``: the
square it is in, or ``square``: ``"C4"``), ``bombard`` (``square``,
``damage``), ``deployment`` (optional ``side``) and ``victory`` (``side``:
the attacker). Grid answers count squares: ``distance``, ``uncertainty`` and
``limit`` are in squares (``details.unit``), the inches moved in ``details``.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from referee.errors import SceneError, at, counted
from referee.geometry import (
    Pose,
    base_corners,
    boundary_distance,
    centre_distance,
    min_rectangle,
    point_in_polygon,
    polygon_distance,
)
from referee.rules.core import (
    Deployment,
    Finding,
    Placed,
    Reach,
    Spotting,
    TableRuleset,
    fmt,
    inches,
    judge_at_least,
    number_arg,
    piece_arg,
    pm,
    pose_arg,
    sweep_entry,
    worst,
)
from referee.rules.grid import square_gaps
from referee.rules.pz8 import ROUGH
from referee.rules.queries import MoveQuery, PairQuery, RangeQuery
from referee.rules.settings import setting
from referee.rules.values import PieceField, QueryError, Verdict, judge, name_key
from referee.rules.wording import LEGAL, MAY_FIRE, WITHIN, Words
from referee.scene import Piece, Scene, Terrain, normalise_edge

QUALITIES = ("elite", "average", "green")


def unit_base_width(pieces: Iterable[Piece]) -> float | None:
    """The width of a unit's base on this table: the most common base width among the
    pieces (the wider on a tie), None when there are none.

    >>> unit_base_width([Piece("a", "x", "tanks", 0, 0, base=(1, 1))])
    1.0
    """
    widths = Counter(round(float(p.base[0]), 6) for p in pieces)
    if not widths:
        return None
    return max(widths, key=lambda w: (widths[w], w))


def _terrain_kinds(settings: Any, keys: Sequence[str]) -> None:
    """Settings that list terrain kinds: a list of strings, kept lowercase."""
    for key in keys:
        value = getattr(settings, key)
        if isinstance(value, str) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"setting {key} must be a list of terrain kinds")
        object.__setattr__(settings, key, tuple(v.lower() for v in value))


def _turn_off(move: np.ndarray, ideal: np.ndarray) -> float:
    """Degrees between a move and the ideal direction (0-180)."""
    a = math.atan2(move[1], move[0]) - math.atan2(ideal[1], ideal[0])
    return abs((math.degrees(a) + 180.0) % 360.0 - 180.0)


class DivisionalBase(TableRuleset):
    """What the two Divisional games share: troop quality and reading the unit base."""

    source = "004_6d86763d460ce231.txt"
    quality_field = PieceField(
        "quality", "text", "average", "troop quality: elite, average or green"
    )

    @classmethod
    def validate(cls, scene: Scene) -> None:
        super().validate(scene)
        for i, p in enumerate(scene.pieces):
            raw = p.get("quality")
            if raw is not None and str(raw).strip().lower() not in QUALITIES:
                raise SceneError(
                    at(
                        scene.source,
                        f"$.pieces[{i}].quality",
                        f"unknown quality {raw!r} (known: {', '.join(QUALITIES)})",
                    )
                )

    def quality(self, piece: Piece) -> str:
        return str(self.field(piece, "quality")).strip().lower()


# -- WW2 Divisional ------------------------------------------------------------------------


@dataclass(frozen=True)
class DivUnit:
    """One row of the WW2 Divisional movement list (4)."""

    move: float | None
    """Inches on open ground (None: a setting, see ``engineer_move``)."""
    role: str
    """``hq``, ``artillery``, ``recon`` or ``line`` (every other unit)."""

    @property
    def far_spotter(self) -> bool:
        """Spots 9in, not 6in: reconnaissance, artillery and HQ units (5)."""
        return self.role in ("hq", "artillery", "recon")


DIV_UNITS = {
    "leg infantry": DivUnit(3, "line"),
    "cavalry": DivUnit(4, "line"),
    "motor infantry": DivUnit(6, "line"),
    "divisional hq": DivUnit(6, "hq"),
    "artillery": DivUnit(6, "artillery"),
    "slow tanks": DivUnit(4, "line"),
    "tanks": DivUnit(6, "line"),
    "fast tanks": DivUnit(9, "line"),
    "recon": DivUnit(9, "recon"),
    "engineers": DivUnit(None, "line"),
}
FORT_HOLDERS = ("leg infantry", "motor infantry", "artillery")
"""Who a fortification section may hold: one base of infantry or artillery (10)."""
DIV_ALIASES = {
    "infantry": "leg infantry",
    "motor inf": "motor infantry",
    "motorised infantry": "motor infantry",
    "motorized infantry": "motor infantry",
    "hq": "divisional hq",
    "slow tank": "slow tanks",
    "tank": "tanks",
    "light tank": "tanks",
    "medium tank": "tanks",
    "heavy tank": "tanks",
    "fast tank": "fast tanks",
    "reconnaissance": "recon",
    "engineer": "engineers",
    "art": "artillery",
}


class Pz8Divisional(DivisionalBase, Spotting):
    """Pz8 WW2 Divisional: battalions and divisional HQs, artillery fire on spotted targets."""

    name = "pz8-divisional"
    units_block = "enemies"  # friendly units and ground features never block (5)
    clear_words = "friendly units and ground features do not block (5): the line is clear"
    aliases = ("pz8 divisional", "pz8 ww2 divisional", "pz8-div", "pz8 div")
    title = "Pz8 WW2 Divisional"
    kinds: ClassVar[Mapping[str, str]] = {
        **{name_key(k): k for k in DIV_UNITS},
        **{name_key(k): v for k, v in DIV_ALIASES.items()},
    }
    piece_fields = (
        DivisionalBase.quality_field,
        PieceField(
            "division",
            "text",
            None,
            "the division the unit belongs to (default: one division per side)",
        ),
    )

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        """Conventions where the WW2 Divisional text is silent. Distances are inches."""

        range_measure: str = setting(
            "centre",
            (
                "Spotting and artillery range are measured from the base centre, as every Pz8 "
                "range is (the Divisional text does not say)."
            ),
        )
        move_measure: str = setting(
            "centre",
            (
                "Moves, withdrawals and advances are measured at the base centre (``front`` "
                "switches to the front-centre point)."
            ),
        )
        blocking: tuple[str, ...] = setting(
            (), "Ground features do not block line of sight for spotting and firing (5)."
        )
        difficult: tuple[str, ...] = setting(
            ("minefield",),
            "Units crossing a minefield section must stop (9); rough ground halves instead.",
        )
        wrecks_block: bool = setting(
            False, "Destroyed battalions leave the table: nothing burns in the way."
        )
        forests: bool = setting(
            False, "No terrain blocks, so woods need not be joined into forests."
        )
        enemy_units_block: bool = setting(
            True,
            (
                "The text exempts friendly units and ground features from blocking (5), not the "
                "enemy: another enemy base on the line blocks it (false: nothing blocks)."
            ),
        )
        rough_factor: float = setting(
            2.0, "Each inch in rough ground (woods, hills, buildings...) costs this many (4)."
        )
        road_factor: float = setting(
            0.5, "Each inch on a road costs this many (doubled movement, 4)."
        )
        engineer_move: float = setting(
            3.0, "Engineers are not in the movement list (4): they move as leg infantry."
        )
        artillery_range: float = setting(18.0, "Firing distance of artillery (5).")
        spot_far: float = setting(
            9.0, "Spotting distance of reconnaissance, artillery and HQ units (5)."
        )
        spot_near: float = setting(6.0, "Spotting distance of every other unit (5).")
        hill_bonus: float = setting(3.0, "Added when the spotter's base centre is on a hill (5).")
        hills: tuple[str, ...] = setting(("hill",), "Terrain kinds a spotter is 'over hills' in.")
        cover_malus: float = setting(
            3.0,
            "Taken off when the target's centre is in woods, buildings or fortifications (5).",
        )
        concealing: tuple[str, ...] = setting(
            ("woods", "building", "fortification"),
            "Terrain kinds that shorten spotting into them (5).",
        )
        withdraw_double: float = setting(
            4.0, "A loser beaten by double or more withdraws this far (6)."
        )
        advance: float = setting(1.0, "How far the winner may advance (6).")
        advance_double: float = setting(
            2.0, "How far the winner may advance after winning by double or more (6)."
        )
        withdraw_tolerance: float = setting(
            0.0,
            (
                "The loser withdraws the difference in inches (6): exactly that by default; a "
                "table that accepts a hand-placed withdrawal within some slack sets it (inches "
                "either way)."
            ),
        )
        direction_arc: float = setting(
            90.0,
            (
                "How far a withdrawal may turn from straight away from the enemy's centre, and "
                "an advance from straight toward it, degrees: 90 means every step of a straight "
                "withdrawal takes it farther from the enemy (the text says only 'withdraws')."
            ),
        )
        rally_radius: float = setting(
            12.0, "Units within this of their divisional HQ roll to rally (7), centre to centre."
        )
        green_rally_radius: float = setting(9.0, "The same for green units (7).")
        minefield_bases: float = setting(1.0, "Minefield sections are this many bases wide (9).")
        fortification_bases: float = setting(
            2.0, "Fortification sections are this many bases wide (10)."
        )
        section_base: float = setting(
            0.0,
            (
                "The base width sections are measured in, inches; 0: the most common base width "
                "of the units on the table (the text allows 1in or 30mm squares, 2)."
            ),
        )
        section_tolerance: float = setting(
            0.0, "Slack either way on a section's width (0: exactly so many bases wide)."
        )

        def __post_init__(self) -> None:
            super().__post_init__()
            _terrain_kinds(self, ("hills", "concealing"))

        def check(self) -> None:
            super().check()
            for key in (
                "rough_factor",
                "road_factor",
                "engineer_move",
                "artillery_range",
                "spot_far",
                "spot_near",
                "hill_bonus",
                "cover_malus",
                "withdraw_double",
                "advance",
                "advance_double",
                "withdraw_tolerance",
                "rally_radius",
                "green_rally_radius",
                "minefield_bases",
                "fortification_bases",
                "section_base",
                "section_tolerance",
            ):
                if getattr(self, key) < 0:
                    raise ValueError(f"setting {key} must be >= 0")
            if not 0 <= self.direction_arc <= 180:
                raise ValueError("setting direction_arc must be between 0 and 180 degrees")

    settings: Pz8Divisional.Settings

    # -- tables and hooks -----------------------------------------------------------------

    @classmethod
    def unit(cls, piece: Piece) -> DivUnit:
        return DIV_UNITS[cls.kinds[name_key(piece.kind)]]

    def division(self, piece: Piece) -> tuple[str, str]:
        """(side, division): pieces with no ``division`` form their side's one division."""
        raw = self.field(piece, "division")
        return piece.side, "" if raw is None else str(raw).strip()

    def move_allowance(self, piece: Piece) -> float | None:
        move = self.unit(piece).move
        return self.settings.engineer_move if move is None else move

    def terrain_factor(self, piece: Piece, terrain: Terrain) -> float:
        if terrain.kind in ROUGH:
            return self.settings.rough_factor
        if terrain.kind == "road":
            return self.settings.road_factor
        return 1.0

    def fire_range(self, piece: Piece) -> float | None:
        if self.unit(piece).role != "artillery":
            return 0.0
        return self.settings.artillery_range

    def range_rule(self, piece: Piece, limit: float) -> str:
        if self.unit(piece).role != "artillery":
            return (
                f"only artillery fires at a distance (5): {piece.id} ({self.category(piece)}) "
                "fights in contact"
            )
        return f"artillery {piece.id} fires at most {inches(limit)} (from the base centre)"

    def unit_blocks(self, piece: Piece) -> bool:
        return self.settings.enemy_units_block

    def can_act(self, piece: Piece, ok: bool | None, reasons: list[str]) -> bool | None:
        if piece.state == "destroyed":
            reasons.append(f"{piece.id} is destroyed")
            return False
        return ok

    def enemies(self, scene: Scene, piece: Piece) -> list[Piece]:
        return [p for p in scene.pieces if p.side != piece.side and p.state != "destroyed"]

    # -- contact and engagement -----------------------------------------------------------

    def contact_distance(self, scene: Scene, a: Piece, b: Piece) -> tuple[float, str | None]:
        """Base edge to base edge; a unit touching a fortification section that holds the
        other is in contact with it (10). Returns (inches, fortification id or None)."""
        d = polygon_distance(a.corners(), b.corners())
        via = None
        for t in scene.terrain:
            if t.kind == "fortification" and point_in_polygon(b.xy, t.outline()):
                df = polygon_distance(a.corners(), t.outline())
                if df < d:
                    d, via = df, t.id
        return d, via

    def ask_contact(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        a = piece_arg(scene, query, "from")
        b = piece_arg(scene, query, "to")
        d, via = self.contact_distance(scene, a, b)
        doubt = a.uncertainty + b.uncertainty
        ok = judge(d, 0.0, doubt)
        enemy = a.side != b.side
        word = {
            True: "in contact" + (": close combat (6)" if enemy else " (friends)"),
            False: "not in contact",
            None: "too close to call",
        }[ok]
        reasons = [f"bases {fmt(d)} apart: {word}"]
        if via:
            reasons.append(f"{a.id} is measured to fortification {via} holding {b.id} (10)")
        return Verdict(
            "contact",
            ok,
            tuple(reasons),
            distance=d,
            uncertainty=doubt,
            limit=0.0,
            details={"combat": bool(ok and enemy), "fortification": via},
            summary=f"contact {a.id} -> {b.id}: {fmt(d)}{pm(doubt)}, {word}",
        )

    def engaged(self, scene: Scene, piece: Piece) -> tuple[bool | None, list[str]]:
        """Whether the piece is in contact with an enemy (None: too close to call)."""
        state, why, _ = self._engagement(scene, piece)
        return state, why

    def _engagement(
        self, scene: Scene, piece: Piece
    ) -> tuple[bool | None, list[str], tuple[float, float] | None]:
        """(engaged, reasons, (inches to the nearest enemy, doubt) or None)."""
        state: bool | None = False
        why: list[str] = []
        nearest: tuple[float, float] | None = None
        for e in self.enemies(scene, piece):
            d, _ = self.contact_distance(scene, piece, e)
            doubt = piece.uncertainty + e.uncertainty
            if nearest is None or d < nearest[0]:
                nearest = (d, doubt)
            ok = judge(d, 0.0, doubt)
            if ok:
                return True, [f"{piece.id} is in contact with {e.id}: engaged"], (d, doubt)
            if ok is None:
                state = None
                why.append(f"{piece.id} is {fmt(d)} from {e.id}: engaged is too close to call")
        return state, why, nearest

    def ask_engaged(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """In contact with an enemy unit (or the fortification section holding one, 10):
        engaged units do not spot for the artillery (5)."""
        piece = piece_arg(scene, query, "piece")
        state, why, nearest = self._engagement(scene, piece)
        if state is False:
            why = [
                f"{piece.id} touches no enemy unit: unengaged"
                + (f" (nearest {fmt(nearest[0])} away)" if nearest else "")
            ]
        word = Words("engaged", "unengaged")(state)
        return Verdict(
            "engaged",
            state,
            tuple(why),
            distance=None if nearest is None else nearest[0],
            uncertainty=None if nearest is None else nearest[1],
            limit=0.0,
            details={"engaged": state},
            summary=f"engaged {piece.id}: {word}",
        )

    # -- spotting and artillery -----------------------------------------------------------

    def _inside(self, piece: Piece, kinds: Sequence[str], scene: Scene) -> tuple[bool | None, str]:
        """Whether the piece's centre is in terrain of these kinds (None: within its doubt
        of an outline that decides it), and that terrain's id."""
        doubtful = ""
        for t in scene.terrain:
            if t.kind not in kinds:
                continue
            poly = t.outline()
            inside = point_in_polygon(piece.xy, poly)
            edge = boundary_distance(piece.xy, poly)
            if inside and (edge > piece.uncertainty or piece.uncertainty == 0):
                return True, t.id  # exactly on the outline with no doubt counts as in
            if edge <= piece.uncertainty and piece.uncertainty > 0:
                doubtful = doubtful or t.id
        return (None, doubtful) if doubtful else (False, "")

    def spot(self, scene: Scene, spotter: Piece, target: Piece) -> Verdict:
        return self.judge_spot(scene, PairQuery(spotter, target))

    def spot_reach(self, scene: Scene, query: PairQuery) -> Reach:
        """The spotting distance (with the hill and cover modifiers) from the base centre."""
        spotter, target = query.firer, query.target
        s = self.settings
        unit = self.unit(spotter)
        base = s.spot_far if unit.far_spotter else s.spot_near
        reasons = [
            f"{spotter.id} ({self.category(spotter)}) spots {inches(base)}"
            + (" (recon, artillery and HQ units 9in)" if unit.far_spotter else "")
        ]
        hill, hill_id = self._inside(spotter, s.hills, scene)
        cover, cover_id = self._inside(target, s.concealing, scene)
        limits = set()
        for h in (True, False) if hill is None else (hill,):
            for c in (True, False) if cover is None else (cover,):
                limits.add(base + (s.hill_bonus if h else 0.0) - (s.cover_malus if c else 0.0))
        if hill:
            reasons.append(f"{spotter.id} is on hill {hill_id}: +{inches(s.hill_bonus)}")
        elif hill is None:
            reasons.append(f"whether {spotter.id} is on hill {hill_id} is too close to call")
        if cover:
            reasons.append(f"{target.id} is in {cover_id}: -{inches(s.cover_malus)}")
        elif cover is None:
            reasons.append(f"whether {target.id} is in {cover_id} is too close to call")
        distance = self.piece_distance(spotter, target, s.range_measure, scene)
        verdicts = {judge(distance, lim, query.doubt) for lim in limits}
        in_reach = verdicts.pop() if len(verdicts) == 1 else None
        limit = base + (s.hill_bonus if hill else 0.0) - (s.cover_malus if cover else 0.0)
        reasons.append(f"{fmt(distance)} from the base centre: {WITHIN(in_reach)} {inches(limit)}")
        details = {"on_hill": hill, "in_cover": cover}
        return Reach(in_reach, distance, limit, reasons, details)

    def ask_fire(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Artillery fire: the target within 18in and spotted by at least one unengaged unit
        of the artillery's own division (the artillery itself may spot)."""
        gun = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        rng = self.ask_range(scene, query)
        reasons = list(rng.reasons)
        if self.unit(gun).role != "artillery":
            return dataclasses.replace(rng, ask="fire", summary=f"fire {gun.id}: not artillery")
        spotted: list[str] = []
        maybe: list[str] = []
        for p in scene.pieces:
            if self.division(p) != self.division(gun) or p.state == "destroyed":
                continue
            free, _ = self.engaged(scene, p)
            if free is True:
                continue
            seen = self.spot(scene, p, target).ok
            if seen and free is False:
                spotted.append(p.id)
            elif seen is not False:
                maybe.append(p.id)
        if spotted:
            sighted: bool | None = True
            reasons.append(f"spotted by {', '.join(spotted)} (unengaged, same division)")
        elif maybe:
            sighted = None
            reasons.append(f"whether {', '.join(maybe)} spot {target.id} is too close to call")
        else:
            sighted = False
            reasons.append(f"no unengaged unit of {gun.id}'s division spots {target.id}")
        ok = worst([rng.ok, sighted])
        word = MAY_FIRE(ok)
        return Verdict(
            "fire",
            ok,
            tuple(reasons),
            distance=rng.distance,
            uncertainty=rng.uncertainty,
            limit=rng.limit,
            details={"spotters": spotted, "doubtful_spotters": maybe},
            summary=f"fire {gun.id} -> {target.id}: {fmt(rng.distance or 0)}"
            f"{pm(rng.uncertainty or 0)}, {word}",
        )

    # -- moving into contact --------------------------------------------------------------

    def move_findings(self, scene: Scene, move: MoveQuery, verdict: Verdict) -> list[Finding]:
        """Contact on the way: a unit that touches an enemy must stop there (6), and HQs
        and artillery may not move into contact at all."""
        piece, start, end = move.piece, move.start, move.end
        doubt = verdict.uncertainty or 0.0
        exact = self.first_contact(scene, piece, start, end, ())
        maybe = self.first_contact(scene, piece, start, end, (), doubt, +1)
        first = exact or maybe
        if first is None:
            return []
        enemy, at_inch, length = first
        role = self.unit(piece).role
        if role in ("hq", "artillery"):
            sure = self.first_contact(scene, piece, start, end, (), doubt, -1)
            ok: bool | None = False if sure else None
            why = (
                f"{piece.id} ({self.category(piece)}) may not move into contact with an enemy "
                f"(6): it touches {enemy.id} after {fmt(at_inch)}"
                + ("" if sure else " (too close to call)")
            )
        else:
            if exact:
                ok = judge(
                    length, at_inch + 1e-6, doubt + enemy.uncertainty
                )  # the hair the base was grown by
            else:
                ok = None if length - at_inch > doubt + enemy.uncertainty + 1e-9 else True
            why = (
                f"{piece.id} touches {enemy.id} after {fmt(at_inch)} and must stop there to "
                "fight (6): " + Words("it does", "it went on")(ok)
            )
        final = worst([verdict.ok, ok])
        word = LEGAL(final)
        summary = (
            f"move {piece.id}: {fmt(verdict.distance or 0)}{pm(doubt)}, {word} "
            f"(contact with {enemy.id})"
        )
        return [Finding(ok, (why,), summary=summary, details={"contact": enemy.id})]

    def first_contact(
        self,
        scene: Scene,
        piece: Piece,
        start: Pose,
        end: Pose,
        exclude: Sequence[str],
        doubt: float = 0.0,
        sign: int = 0,
    ) -> tuple[Piece, float, float] | None:
        """The first enemy base the moving base touches (not one it starts touching), the
        inches moved when it does, and the move's length (at the base centre). ``sign``
        +1 widens (-1 narrows) every enemy base on each side by the mover's ``doubt`` and
        the enemy's own uncertainty: what possibly (certainly) touches."""
        base = base_corners(start.x, start.y, start.heading, piece.base)
        d = np.array(end.xy) - np.array(start.xy)
        length = float(np.hypot(*d))
        best: tuple[Piece, float, float] | None = None
        for e in self.enemies(scene, piece):
            if e.id in exclude:
                continue
            if polygon_distance(base, e.corners()) <= 1e-9:
                continue  # already in contact at the start: fighting, not moving into it
            # Grown by a hair more: touching counts as contact, not only sharing area.
            # The enemy's own doubt widens (or narrows) it further.
            g = sign * (doubt + e.uncertainty)
            size = [max(v + 2 * g + 2e-7, 1e-6) for v in e.base]
            outlines = [base_corners(e.x, e.y, e.heading, size)]
            for t in scene.terrain:
                # Touching the fortification section that holds it engages the unit (10);
                # the outline is scaled about its middle by the doubt (exact when convex).
                poly = t.outline()
                if t.kind == "fortification" and point_in_polygon(e.xy, poly):
                    mid = poly.mean(axis=0)
                    reach = float(np.max(np.hypot(*(poly - mid).T)))
                    outlines.append(mid + (poly - mid) * (1 + (g + 1e-7) / max(reach, 1e-9)))
            for outline in outlines:
                if polygon_distance(base, outline) <= 1e-9 and outline is not outlines[0]:
                    continue  # starts touching the fortification: already engaged
                t_hit = sweep_entry(base, d, outline)
                if t_hit is not None and (best is None or t_hit * length < best[1]):
                    best = (e, t_hit * length, length)
        return best

    # -- the loser's withdrawal and the winner's advance ----------------------------------

    def _combat_result(self, query: Mapping[str, Any]) -> tuple[float, bool, str]:
        """(difference, beaten by double, how it was given) from ``scores`` [winner,
        loser], ``difference`` or ``double``."""
        if "scores" in query:
            raw = query["scores"]
            if (
                not isinstance(raw, list)
                or len(raw) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw)
            ):
                raise QueryError(".scores", f"must be [winner, loser] totals, got {raw!r}")
            win, lose = number_arg(raw[0], ".scores[0]"), number_arg(raw[1], ".scores[1]")
            if win <= lose:
                raise QueryError(
                    ".scores", f"the winner's total must be higher: {raw!r} is no win (no effect)"
                )
            double = win >= 2 * lose
            return win - lose, double, f"{win:g} against {lose:g}"
        if query.get("double") is True:
            return math.inf, True, "won by double or more"
        if "difference" in query:
            diff = number_arg(query["difference"], ".difference")
            if diff <= 0:
                raise QueryError(".difference", f"must be > 0 inches, got {diff!r}")
            return diff, False, f"won by {diff:g}"
        raise QueryError(
            ".scores", 'missing: give "scores": [winner, loser], "difference" or "double": true'
        )

    def _step(self, scene: Scene, query: Mapping[str, Any]) -> tuple[Piece, Pose, Pose, Piece]:
        piece = piece_arg(scene, query, "piece")
        enemy = piece_arg(scene, query, "enemy")
        if enemy.side == piece.side:
            raise QueryError(".enemy", f"{enemy.id} is on {piece.id}'s side ({piece.side})")
        start = pose_arg(query.get("from"), ".from", piece.pose) if "from" in query else piece.pose
        if "to" not in query:
            raise QueryError(".to", "missing field (the pose moved to)")
        return piece, start, pose_arg(query["to"], ".to", start), enemy

    def _doubt(self, query: Mapping[str, Any], piece: Piece) -> float:
        """A move's doubt: the query's ``uncertainty``, else the piece's at both ends."""
        doubt = number_arg(query.get("uncertainty", 2 * piece.uncertainty), ".uncertainty")
        if doubt < 0:
            raise QueryError(".uncertainty", f"must be >= 0 inches, got {doubt!r}")
        return doubt

    def _points(self, piece: Piece, start: Pose, end: Pose) -> tuple[np.ndarray, np.ndarray]:
        if self.settings.move_measure == "front":
            return np.array(start.front(piece.base[1])), np.array(end.front(piece.base[1]))
        return np.array(start.xy), np.array(end.xy)

    def _direction(
        self, piece: Piece, start: Pose, end: Pose, enemy: Piece, away: bool, doubt: float
    ) -> tuple[bool | None, float, str]:
        p0, p1 = self._points(piece, start, end)
        move = p1 - p0
        ideal = (p0 - np.array(enemy.xy)) * (1 if away else -1)
        arc = self.settings.direction_arc
        if float(np.hypot(*move)) <= 1e-9:
            return True, 0.0, "no move"
        off = _turn_off(move, ideal)
        spread = math.degrees(
            math.atan2(doubt, max(min(float(np.hypot(*move)), float(np.hypot(*ideal))), 1e-9))
        )
        ok = judge(off, arc, spread)
        word = "away from" if away else "toward"
        return (
            ok,
            off,
            f"{off:.1f} deg off straight {word} {enemy.id}: " + WITHIN(ok) + f" {arc:g} deg",
        )

    def ask_withdraw(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """The loser of a combat withdraws the difference in inches (4in when beaten by
        double or more) away from the winner (``enemy``); touching another enemy unit on
        the way destroys it (6)."""
        piece, start, end, enemy = self._step(scene, query)
        diff, double, how = self._combat_result(query)
        s = self.settings
        need = s.withdraw_double if double else diff
        p0, p1 = self._points(piece, start, end)
        distance = float(np.hypot(*(p1 - p0)))
        doubt = self._doubt(query, piece)
        tol = s.withdraw_tolerance
        far = judge_at_least(distance, need - tol, doubt)
        near = judge(distance, need + tol, doubt)
        reasons = [
            f"{how}: the loser withdraws "
            + (f"{inches(need)} (beaten by double or more)" if double else f"{inches(need)}")
            + " (6)",
            f"withdrew {fmt(distance)}{pm(doubt)}: "
            + (
                "the distance"
                if far and near
                else "short of it"
                if far is False
                else "too far"
                if near is False
                else "too close to call against it"
            ),
        ]
        direction, off, why = self._direction(piece, start, end, enemy, True, doubt)
        reasons.append(why)
        others = (enemy.id,)
        hit = self.first_contact(scene, piece, start, end, others, doubt, +1)
        destroyed: bool | None = False
        if hit is not None:
            sure = self.first_contact(scene, piece, start, end, others, doubt, -1)
            destroyed = True if sure else None
            reasons.append(
                f"the withdrawal touches {hit[0].id} after {fmt(hit[1])}: "
                + ("the unit is destroyed (6)" if sure else "destroyed if it does (6)")
            )
        terrain_ok, terrain_why, _ = self.move_terrain(scene, piece, start, end, doubt / 2)
        if terrain_ok is False:
            reasons += [r for r in terrain_why if "impassable" in r or "may not" in r]
        ok = worst([far, near, direction, terrain_ok if terrain_ok is not True else True])
        ok = self.can_act(piece, ok, reasons)
        word = LEGAL(ok)
        return Verdict(
            "withdraw",
            ok,
            tuple(reasons),
            distance=distance,
            uncertainty=doubt,
            limit=need,
            details={"off_straight": round(off, 3), "destroyed": destroyed, "double": double},
            summary=f"withdraw {piece.id}: {fmt(distance)}{pm(doubt)}, {word} "
            f"(withdraws {inches(need)} from {enemy.id})",
        )

    def ask_advance(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """The winner of a combat may advance 1in (2in after winning by double or more)
        toward the loser (``enemy``)."""
        piece, start, end, enemy = self._step(scene, query)
        _, double, how = self._combat_result(query)
        s = self.settings
        limit = s.advance_double if double else s.advance
        p0, p1 = self._points(piece, start, end)
        distance = float(np.hypot(*(p1 - p0)))
        doubt = self._doubt(query, piece)
        far = judge(distance, limit, doubt)
        reasons = [
            f"{how}: the winner may advance {inches(limit)} (6)",
            f"advanced {fmt(distance)}{pm(doubt)}: {WITHIN(far)} {inches(limit)}",
        ]
        direction, off, why = self._direction(piece, start, end, enemy, False, doubt)
        reasons.append(why)
        terrain_ok, terrain_why, _ = self.move_terrain(scene, piece, start, end, doubt / 2)
        if terrain_ok is False:
            reasons += [r for r in terrain_why if "impassable" in r or "may not" in r]
        ok = worst([far, direction, terrain_ok if terrain_ok is not True else True])
        ok = self.can_act(piece, ok, reasons)
        word = LEGAL(ok)
        return Verdict(
            "advance",
            ok,
            tuple(reasons),
            distance=distance,
            uncertainty=doubt,
            limit=limit,
            details={"off_straight": round(off, 3), "double": double},
            summary=f"advance {piece.id}: {fmt(distance)}{pm(doubt)}, {word} "
            f"(limit {inches(limit)})",
        )

    # -- rally and sections ---------------------------------------------------------------

    def ask_rally(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Within 12in (green units 9in) of the divisional HQ of its own division (7)."""
        piece = piece_arg(scene, query, "piece")
        s = self.settings
        green = self.quality(piece) == "green"
        radius = s.green_rally_radius if green else s.rally_radius
        modifier = {"elite": 1, "green": -1}.get(self.quality(piece), 0)
        hqs = [
            p
            for p in scene.pieces
            if self.unit(p).role == "hq"
            and self.division(p) == self.division(piece)
            and p.state != "destroyed"
            and p.id != piece.id
        ]
        if not hqs:
            return Verdict(
                "rally",
                False,
                (f"{piece.id}'s division has no divisional HQ on the table",),
                limit=radius,
                summary=f"rally {piece.id}: no HQ",
            )
        best = min(hqs, key=lambda h: centre_distance(h.xy, piece.xy))
        d = centre_distance(best.xy, piece.xy)
        doubt = best.uncertainty + piece.uncertainty
        ok = judge(d, radius, doubt)
        rule = f"{inches(radius)}" + (" (green unit)" if green else "")
        return Verdict(
            "rally",
            self.can_act(piece, ok, []),
            (
                f"{piece.id} is {fmt(d)} from divisional HQ {best.id} (centre to centre): "
                f"{WITHIN(ok)} {rule}",
                f"rally roll {modifier:+d} for a {self.quality(piece)} unit (7)",
            ),
            distance=d,
            uncertainty=doubt,
            limit=radius,
            details={"hq": best.id, "modifier": modifier},
            summary=f"rally {piece.id}: {fmt(d)}{pm(doubt)} from {best.id}, {WITHIN(ok)} {rule}",
        )

    def ask_section(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A minefield section is one base wide (9), a fortification section two (10): the
        long side of the smallest rectangle around the terrain against so many bases."""
        tid = query.get("terrain")
        found = [t for t in scene.terrain if t.id == tid]
        if not found:
            known = ", ".join(
                t.id for t in scene.terrain if t.kind in ("minefield", "fortification")
            )
            raise QueryError(
                ".terrain", f"unknown terrain id {tid!r} (minefields and fortifications: {known})"
            )
        t = found[0]
        s = self.settings
        bases = {"minefield": s.minefield_bases, "fortification": s.fortification_bases}.get(t.kind)
        if bases is None:
            raise QueryError(".terrain", f"{t.id} is {t.kind}: not a minefield or fortification")
        base = s.section_base or unit_base_width(p for p in scene.pieces) or 1.0
        if "base" in query:
            base = number_arg(query["base"], ".base")
            if base <= 0:
                raise QueryError(".base", f"must be > 0 inches, got {base!r}")
        need = bases * base
        width, depth, _ = min_rectangle(t.outline())
        doubt = number_arg(query.get("uncertainty", 0.0), ".uncertainty")
        if doubt < 0:
            raise QueryError(".uncertainty", f"must be >= 0 inches, got {doubt!r}")
        tol = s.section_tolerance
        ok = worst([judge_at_least(width, need - tol, doubt), judge(width, need + tol, doubt)])
        word = Words("the right width", "the wrong width")(ok)
        reasons = [
            f"{t.kind} {t.id} is {fmt(width)} wide and {fmt(depth)} deep",
            f"{t.kind} sections are {bases:g} base{'s' if bases != 1 else ''} wide "
            f"({fmt(base)} bases): {inches(need)}: {word}",
        ]
        holds = [
            p
            for p in scene.pieces
            if p.state != "destroyed" and point_in_polygon(p.xy, t.outline())
        ]
        if t.kind == "fortification" and holds:
            # A section holds one base of infantry or artillery (10).
            wrong = [p.id for p in holds if self.category(p) not in FORT_HOLDERS]
            if len(holds) > 1 or wrong:
                ok = worst([ok, False])
                word = "holding the wrong units"
            reasons.append(
                f"{t.id} holds {', '.join(p.id for p in holds)}: "
                + (f"{', '.join(wrong)} may not hold it; " if wrong else "")
                + "a section holds one base of infantry or artillery (10)"
            )
        return Verdict(
            "section",
            ok,
            tuple(reasons),
            distance=width,
            uncertainty=doubt,
            limit=need,
            details={
                "depth": depth,
                "base": base,
                "bases": round(width / base, 4),
                "holds": [p.id for p in holds],
            },
            summary=f"section {t.id}: {fmt(width)}{pm(doubt)} wide, {word} (limit {inches(need)})",
        )


# -- WW1 Divisional: a game on squares -----------------------------------------------------


@dataclass(frozen=True)
class WW1Unit:
    """One WW1 Divisional piece kind."""

    role: str
    """``unit`` (a battalion or company), ``defence`` (a field defence) or ``crater``."""
    steps: int = 0
    """Squares per move: 1, or 0 for static MG units (4)."""
    diagonal: bool = False
    """Moves in all directions (stormtroopers), not only forward, back, left or right (4)."""
    attack: int = 0
    """Assault factor of the attacker (5c): +1 infantry, +2 tank."""
    defence: int = 0
    """Assault factor of the defender (5d): +1 infantry or MG, +2 tank; a field defence's
    own factor (+1 barbed wire, +2 trench, +3 bunker)."""
    tank: bool = False
    """Never enters difficult ground; may be stuck."""
    cost: int = 0
    """Damage points of the preliminary bombardment that remove this field defence (2b)."""


WW1_UNITS = {
    "infantry": WW1Unit("unit", 1, attack=1, defence=1),
    "stormtroopers": WW1Unit("unit", 1, diagonal=True, attack=1, defence=1),
    "mg": WW1Unit("unit", 0, defence=1),
    "tank": WW1Unit("unit", 1, attack=2, defence=2, tank=True),
    "barbed wire": WW1Unit("defence", defence=1, cost=1),
    "trench": WW1Unit("defence", defence=2, cost=2),
    "bunker": WW1Unit("defence", defence=3, cost=3),
    "crater": WW1Unit("crater"),
}
WW1_ALIASES = {
    "stormtrooper": "stormtroopers",
    "machine gun": "mg",
    "hmg": "mg",
    "tanks": "tank",
    "wire": "barbed wire",
    "trenches": "trench",
}
Square = tuple[int, int]
"""(column along x, row along y) counted from the table corner, from 0."""


@dataclass(frozen=True)
class Grid:
    """The squares laid out from the table's corner (x = 0, y = 0)."""

    size: float
    cols: int
    rows: int

    def label(self, sq: Square) -> str:
        """``(2, 3)`` -> ``'C4'``: column letter (A along x), row number (1 along y)."""
        c, r = sq
        letters = ""
        c += 1
        while c:
            c, k = divmod(c - 1, 26)
            letters = chr(65 + k) + letters
        return f"{letters}{r + 1}"

    def parse(self, text: str, path: str) -> Square:
        raw = text.strip().upper()
        letters = "".join(ch for ch in raw if ch.isalpha())
        digits = raw[len(letters) :]
        if not letters or not digits.isdigit() or raw[: len(letters)] != letters:
            raise QueryError(path, f'must be a square like "C4" (column letter, row), got {text!r}')
        col = 0
        for ch in letters:
            col = col * 26 + ord(ch) - 64
        sq = (col - 1, int(digits) - 1)
        if not (0 <= sq[0] < self.cols and 0 <= sq[1] < self.rows):
            last = self.label((self.cols - 1, self.rows - 1))
            raise QueryError(path, f"square {text!r} is off the table (A1 to {last})")
        return sq

    def at(self, x: float, y: float) -> Square:
        """The square holding a point (one on a line: the one beyond it)."""
        c = min(max(math.floor(x / self.size), 0), self.cols - 1)
        r = min(max(math.floor(y / self.size), 0), self.rows - 1)
        return c, r

    def candidates(self, x: float, y: float, doubt: float) -> set[Square]:
        """Every square within ``doubt`` of the point along x and y (closed squares: a
        point exactly on a line is in both squares)."""
        eps = 1e-9

        def span(v: float, n: int) -> range:
            lo = math.floor((v - doubt - eps) / self.size)
            hi = math.floor((v + doubt + eps) / self.size)
            # Clamped as at() clamps: a point off the table is in the edge square.
            lo = min(max(lo, 0), n - 1)
            return range(lo, max(min(hi, n - 1), lo) + 1)

        return {(c, r) for c in span(x, self.cols) for r in span(y, self.rows)}

    def polygon(self, sq: Square) -> np.ndarray:
        s, (c, r) = self.size, sq
        return np.array(
            [[c * s, r * s], [(c + 1) * s, r * s], [(c + 1) * s, (r + 1) * s], [c * s, (r + 1) * s]]
        )


def nearest_steps(a: Iterable[Square], b: Iterable[Square], diagonal: bool) -> int:
    """The fewest squares between any square of ``a`` and any of ``b`` (the squares a
    piece may be in): a distance that does not depend on which way the table's axes run."""
    return min(steps(x, y, diagonal) for x in a for y in b)


def steps(a: Square, b: Square, diagonal: bool) -> int:
    """Squares between two squares: forward/back/left/right steps, or king steps."""
    dc, dr = abs(a[0] - b[0]), abs(a[1] - b[1])
    return max(dc, dr) if diagonal else dc + dr


def _verdicts(outcomes: Iterable[bool]) -> bool | None:
    seen = set(outcomes)
    return seen.pop() if len(seen) == 1 else None


class Pz8WW1(DivisionalBase, Deployment):
    """Pz8 WW1 Divisional: battalions, MG and tank companies and field defences on squares."""

    name = "pz8-ww1"
    targets_trim = False  # its lines of sight cost less than trimming the scene for them
    table_framed: ClassVar[bool] = True
    """The squares are laid out from the table's corner: a verdict changes when the pieces
    move and the table does not (property tests move the table with them)."""
    aliases = ("pz8 ww1", "pz8 ww1 divisional", "pz8-ww1-divisional")
    title = "Pz8 WW1 Divisional"
    kinds: ClassVar[Mapping[str, str]] = {
        **{name_key(k): k for k in WW1_UNITS},
        **{name_key(k): v for k, v in WW1_ALIASES.items()},
    }
    piece_fields = (
        DivisionalBase.quality_field,
        PieceField("stuck", "flag", False, "a tank that rolled 1 when moving: stuck (4)"),
    )

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        """Conventions where the WW1 Divisional text is silent. Distances are inches."""

        blocking: tuple[str, ...] = setting(
            (),
            (
                "The WW1 rules have no line of sight: nothing blocks (assaults reach the next "
                "square whatever stands between)."
            ),
        )
        wrecks_block: bool = setting(False, "Nothing burns on a square map.")
        forests: bool = setting(
            False, "No terrain blocks, so woods need not be joined into forests."
        )
        difficult: tuple[str, ...] = setting(
            (), "Difficult ground stops nothing inside a square: it only keeps tanks out (4)."
        )
        square: float = setting(
            0.0,
            (
                "Side of a square, inches; 0: three times the most common base width of the "
                "units on the table (1: 'each side = three times the size of a unit')."
            ),
        )
        difficult_ground: tuple[str, ...] = setting(
            ("woods", "building", "difficult", "rough"),
            (
                "Terrain kinds that make a square difficult ground (2a: wood, town...) when "
                "they cover the square's centre; a crater counter in a square does too (2b)."
            ),
        )
        capacity: int = setting(4, "Units and field defences one square holds at most (2c).")
        max_defences: int = setting(2, "Field defences one square holds at most (2a).")
        max_bunkers: int = setting(1, "Bunkers one square holds at most (2a).")

        def __post_init__(self) -> None:
            super().__post_init__()
            _terrain_kinds(self, ("difficult_ground",))

        def check(self) -> None:
            super().check()
            if self.square < 0:
                raise ValueError("setting square must be >= 0 (0: three unit bases)")
            for key in ("capacity", "max_defences", "max_bunkers"):
                value = getattr(self, key)
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"setting {key} must be a whole number >= 0")

    settings: Pz8WW1.Settings

    @classmethod
    def unit(cls, piece: Piece) -> WW1Unit:
        return WW1_UNITS[cls.kinds[name_key(piece.kind)]]

    def is_unit(self, piece: Piece) -> bool:
        return self.unit(piece).role == "unit" and piece.state != "destroyed"

    def grid(self, scene: Scene) -> Grid:
        size = self.settings.square
        if not size:
            # Kept for the pieces last sized: every range question of a table asks again.
            kept = self.__dict__.get("_unit_width")
            if kept is not None and kept[0] is scene.pieces:
                width = kept[1]
            else:
                width = unit_base_width(p for p in scene.pieces if self.unit(p).role == "unit")
                self.__dict__["_unit_width"] = (scene.pieces, width)
            if width is None or width <= 0:
                raise QueryError(
                    ".ask", 'no units on the table to size the squares: set "square" (inches)'
                )
            size = 3 * width
        cols = max(1, math.ceil(scene.table.width / size - 1e-9))
        rows = max(1, math.ceil(scene.table.depth / size - 1e-9))
        return Grid(size, cols, rows)

    def _unit_arg(self, scene: Scene, query: Mapping[str, Any], key: str) -> Piece:
        piece = piece_arg(scene, query, key)
        self._unit_problem(piece, f".{key}")
        return piece

    def _unit_problem(self, piece: Piece, path: str) -> None:
        if self.unit(piece).role != "unit":
            raise QueryError(
                path, f"{piece.id} is a {self.category(piece)}, not a unit (it does not act)"
            )

    def difficult_square(self, scene: Scene, grid: Grid, sq: Square) -> str | None:
        """Why the square is difficult ground (the terrain or crater id), or None."""
        c, r = sq
        centre = ((c + 0.5) * grid.size, (r + 0.5) * grid.size)
        for t in scene.terrain:
            if t.kind in self.settings.difficult_ground and point_in_polygon(centre, t.outline()):
                return t.id
        for p in scene.pieces:
            if self.unit(p).role == "crater" and grid.at(p.x, p.y) == sq:
                return p.id
        return None

    def occupants(
        self, scene: Scene, grid: Grid, sq: Square, skip: Sequence[str] = ()
    ) -> tuple[list[Piece], list[Piece]]:
        """(pieces surely in the square, pieces maybe in it): units and field defences."""
        sure, maybe = [], []
        for p in scene.pieces:
            if p.id in skip or p.state == "destroyed" or self.unit(p).role == "crater":
                continue
            cands = grid.candidates(p.x, p.y, p.uncertainty)
            if cands == {sq}:
                sure.append(p)
            elif sq in cands:
                maybe.append(p)
        return sure, maybe

    # -- shared questions on squares ------------------------------------------------------

    def ask_square(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """The square a piece's base centre is in (too close to call on a line)."""
        piece = piece_arg(scene, query, "piece")
        grid = self.grid(scene)
        sq = grid.at(piece.x, piece.y)
        cands = sorted(grid.candidates(piece.x, piece.y, piece.uncertainty))
        c, r = sq
        margin = min(
            piece.x - c * grid.size,
            (c + 1) * grid.size - piece.x,
            piece.y - r * grid.size,
            (r + 1) * grid.size - piece.y,
        )
        ok = True if len(cands) == 1 else None
        labels = [grid.label(s) for s in cands]
        return Verdict(
            "square",
            ok,
            (
                f"{piece.id}'s centre is {fmt(margin)} inside square {grid.label(sq)} "
                f"({fmt(grid.size)} squares from the table corner)",
                *([] if ok else [f"it could be in {', '.join(labels)}: too close to call"]),
            ),
            distance=margin,
            uncertainty=piece.uncertainty,
            limit=0.0,
            details={"square": grid.label(sq), "candidates": labels, "size": grid.size},
            summary=f"square {piece.id}: {grid.label(sq)}"
            + ("" if ok else f" (or {', '.join(x for x in labels if x != grid.label(sq))})"),
        )

    def check_firer(self, piece: Piece) -> None:
        self._unit_problem(piece, ".from")

    def judge_range(self, scene: Scene, query: RangeQuery) -> Verdict:
        """The squares' range (the grid's geometry in place of the table core's): assault
        reach, the target's square next to the firer's, forward, back, left or right,
        never corner to corner (5a)."""
        firer, target = query.firer, query.target
        grid = self.grid(scene)
        a, b = grid.at(firer.x, firer.y), grid.at(target.x, target.y)
        ca = grid.candidates(firer.x, firer.y, firer.uncertainty)
        cb = grid.candidates(target.x, target.y, target.uncertainty)
        n = nearest_steps(ca, cb, False)
        outcomes = [steps(x, y, False) == 1 for x in ca for y in cb]
        ok = self.can_act(firer, _verdicts(outcomes), [])
        where = "the same square" if n == 0 else f"{n} square{'s' if n > 1 else ''} apart"
        if n == 2 and a[0] != b[0] and a[1] != b[1]:
            where = "corner to corner"
        doubt = (firer.uncertainty + target.uncertainty) / grid.size
        word = Words("in reach", "out of reach")(ok)
        return Verdict(
            "range",
            ok,
            (
                f"{firer.id} in {grid.label(a)}, {target.id} in {grid.label(b)}: {where}",
                "units assault only the next square forward, back, left or right (5a)",
            ),
            distance=float(n),
            uncertainty=doubt,
            limit=1.0,
            details={"unit": "squares", "from_square": grid.label(a), "to_square": grid.label(b)},
            summary=f"range {firer.id} -> {target.id}: {where}, {word}",
        )

    def cell_distances(self, scene: Scene) -> NDArray[np.float64]:
        """The map counts squares as ``range`` does (forward, back, left, right); nothing
        blocks (the rules have no line of sight)."""
        grid = self.grid(scene)
        xy = np.array([p.xy for p in scene.pieces], float)
        u = np.array([p.uncertainty for p in scene.pieces], float)
        return square_gaps(xy, u, grid.size, (grid.cols, grid.rows))

    def judge_move(self, scene: Scene, move: MoveQuery) -> Verdict:
        """The squares' move (the grid's geometry in place of the table core's): one square
        forward, back, left or right (stormtroopers: any direction; MG units static; tanks
        never into difficult ground, nor once stuck), into a square that still has room
        (4, 2c)."""
        piece, start, end = move.piece, move.start, move.end
        grid = self.grid(scene)
        unit = self.unit(piece)
        reach = unit.steps
        reasons: list[str] = []
        if unit.role != "unit":
            reasons.append(f"{piece.id} is a {self.category(piece)}: it stays where it was put")
        elif unit.tank and self.field(piece, "stuck"):
            reach = 0
            reasons.append(f"{piece.id} is stuck: it moves no more this game (4)")
        elif reach == 0:
            reasons.append(f"{piece.id} ({self.category(piece)}) is static (4)")
        a, b = grid.at(start.x, start.y), grid.at(end.x, end.y)
        froms = grid.candidates(start.x, start.y, piece.uncertainty)
        tos = grid.candidates(end.x, end.y, piece.uncertainty)
        n = nearest_steps(froms, tos, unit.diagonal)
        cap = self.settings.capacity

        def legal(x: Square, y: Square) -> bool:
            if steps(x, y, unit.diagonal) > reach:
                return False
            if x == y:
                return True
            if unit.tank and self.difficult_square(scene, grid, y):
                return False
            sure, _ = self.occupants(scene, grid, y, skip=(piece.id,))
            return len(sure) < cap

        ok = _verdicts(legal(x, y) for x in froms for y in tos)
        how = "any direction" if unit.diagonal else "forward, back, left or right"
        reasons.append(
            f"{grid.label(a)} to {grid.label(b)}: {n} square{'s' if n != 1 else ''} "
            f"({self.category(piece)} moves {reach} square{'s' if reach != 1 else ''}, {how})"
        )
        rough = self.difficult_square(scene, grid, b)
        if unit.tank and rough and a != b:
            reasons.append(f"tanks cannot move into difficult ground: {grid.label(b)} ({rough})")
        if a != b:
            sure, _ = self.occupants(scene, grid, b, skip=(piece.id,))
            if len(sure) >= cap:
                reasons.append(
                    f"{grid.label(b)} already holds {counted(len(sure), 'unit')} and field "
                    f"defences (at most {cap}, 2c)"
                )
        if len(froms) > 1 or len(tos) > 1:
            reasons.append("a centre lies within its doubt of a square's edge")
        ok = self.can_act(piece, ok, reasons)
        word = LEGAL(ok)
        moved = centre_distance(start.xy, end.xy)
        return Verdict(
            "move",
            ok,
            tuple(reasons),
            distance=float(n),
            uncertainty=2 * piece.uncertainty / grid.size,
            limit=float(reach),
            details={
                "unit": "squares",
                "from_square": grid.label(a),
                "to_square": grid.label(b),
                "inches": moved,
            },
            summary=f"move {piece.id}: {grid.label(a)} -> {grid.label(b)}, {word}",
        )

    # -- WW1 questions --------------------------------------------------------------------

    def ask_assault(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Units in one square assault the enemy units of an orthogonally adjacent square
        (5a, 5b); the factors the positions decide (5c, 5d) come with the answer."""
        raw = query.get("from")
        ids = [raw] if isinstance(raw, str) else raw
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise QueryError(".from", f"must be a unit id or a list of ids, got {raw!r}")
        attackers = [self._unit_arg(scene, {"from": i}, "from") for i in ids]
        target = self._unit_arg(scene, query, "to")
        side = attackers[0].side
        if any(p.side != side for p in attackers) or target.side == side:
            raise QueryError(".to", "attackers must be one side and the target the other")
        grid = self.grid(scene)
        squares = {grid.at(p.x, p.y) for p in attackers}
        b = grid.at(target.x, target.y)
        reasons: list[str] = []
        oks: list[bool | None] = []
        if len(squares) > 1:
            oks.append(False)
            reasons.append(
                "units in different squares cannot assault one square together (5b): "
                + ", ".join(grid.label(s) for s in sorted(squares))
            )
        a = min(squares)
        outcomes = [
            steps(x, y, False) == 1
            for p in attackers
            for x in grid.candidates(p.x, p.y, p.uncertainty)
            for y in grid.candidates(target.x, target.y, target.uncertainty)
        ]
        oks.append(_verdicts(outcomes))
        n = nearest_steps(
            {x for p in attackers for x in grid.candidates(p.x, p.y, p.uncertainty)},
            grid.candidates(target.x, target.y, target.uncertainty),
            False,
        )
        reasons.append(
            f"{grid.label(a)} assaults {grid.label(b)}: "
            + (
                "adjacent"
                if n == 1
                else "corner to corner"
                if n == 2 and a[0] != b[0] and a[1] != b[1]
                else f"{n} squares apart"
            )
            + " (only forward, back, left or right, 5a)"
        )
        inside, _ = self.occupants(scene, grid, a)
        held, _ = self.occupants(scene, grid, b)
        att = [*attackers, *(p for p in inside if p.side == side and self.is_unit(p))]
        att = list({p.id: p for p in att}.values())  # the named ones, then the rest
        deff = [p for p in held if p.side != side and self.is_unit(p)]
        attack = sum(self.unit(p).attack for p in att) + self._quality_bonus(att)
        defence = sum(self.unit(p).defence for p in deff) + self._quality_bonus(deff)
        for p in held:
            u = self.unit(p)
            if u.role != "defence":
                continue
            # Own field defences count; the enemy's too, except barbed wire (5).
            if p.side != side or u.cost != 1:
                defence += u.defence
        rough = self.difficult_square(scene, grid, b)
        if rough:
            defence += 1
        mgs = sum(1 for p in deff if self.category(p) == "mg")
        reasons.append(
            f"attacker +{attack} ({counted(len(att), 'unit')}), defender +{defence} "
            f"({counted(len(deff), 'unit')}, field defences"
            + (", difficult ground" if rough else "")
            + f"){f', plus 1 D3 per MG ({mgs})' if mgs else ''}, before dice (5c, 5d)"
        )
        ok = worst(oks)
        for p in attackers:
            ok = self.can_act(p, ok, reasons)
        word = Words("may assault", "may not assault")(ok)
        return Verdict(
            "assault",
            ok,
            tuple(reasons),
            distance=float(n),
            uncertainty=max(p.uncertainty for p in (*attackers, target)) * 2 / grid.size,
            limit=1.0,
            details={
                "unit": "squares",
                "from_square": grid.label(a),
                "to_square": grid.label(b),
                "attackers": [p.id for p in att],
                "defenders": [p.id for p in deff],
                "attack_factor": attack,
                "defence_factor": defence,
                "mg_d3": mgs,
            },
            summary=f"assault {grid.label(a)} -> {grid.label(b)}: {word} "
            f"(+{attack} against +{defence})",
        )

    def _quality_bonus(self, units: Sequence[Piece]) -> int:
        quals = {self.quality(p) for p in units}
        return ("elite" in quals) - ("green" in quals)

    def _square_arg(self, scene: Scene, query: Mapping[str, Any], grid: Grid) -> Square:
        if "square" in query:
            raw = query["square"]
            if not isinstance(raw, str):
                raise QueryError(".square", f'must be a square like "C4", got {raw!r}')
            return grid.parse(raw, ".square")
        piece = piece_arg(scene, query, "piece")
        return grid.at(piece.x, piece.y)

    def ask_stack(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A square holds at most 4 units and field defences together, at most 2 field
        defences and 1 bunker (2a, 2c)."""
        grid = self.grid(scene)
        sq = self._square_arg(scene, query, grid)
        sure, maybe = self.occupants(scene, grid, sq)
        s = self.settings

        def count(ps: Sequence[Piece], test: Any) -> int:
            return sum(1 for p in ps if test(self.unit(p)))

        checks = [
            ("units and field defences", lambda u: True, s.capacity),
            ("field defences", lambda u: u.role == "defence", s.max_defences),
            ("bunkers", lambda u: u.cost == 3, s.max_bunkers),
        ]
        reasons: list[str] = []
        oks: list[bool | None] = []
        for what, test, most in checks:
            lo, extra = count(sure, test), count(maybe, test)
            ok = True if lo + extra <= most else False if lo > most else None
            oks.append(ok)
            reasons.append(
                f"{lo} {what}" + (f" (+{extra} maybe)" if extra else "") + f": at most {most}"
            )
        ok = worst(oks)
        word = Words("within the limits", "over a limit")(ok)
        return Verdict(
            "stack",
            ok,
            tuple(reasons),
            distance=float(len(sure)),
            uncertainty=float(len(maybe)),
            limit=float(s.capacity),
            details={
                "unit": "pieces",
                "square": grid.label(sq),
                "pieces": [p.id for p in sure],
                "maybe": [p.id for p in maybe],
            },
            summary=f"stack {grid.label(sq)}: {len(sure)} pieces, {word}",
        )

    def _edges(
        self, scene: Scene, query: Mapping[str, Any], sides: Iterable[str]
    ) -> dict[str, str]:
        edges = dict(scene.deployment)
        if "edge" in query:
            try:
                edge = normalise_edge(str(query["edge"]))
            except ValueError as error:
                raise QueryError(".edge", str(error)) from None
            edges.update({s: edge for s in sides})
        for s in sides:
            if s not in edges:
                raise QueryError(
                    ".edge", f'no table edge for side {s!r}: add "deployment" to the scene'
                )
        return edges

    def _depth(self, scene: Scene, p: Piece, edge: str) -> tuple[float, float]:
        """(how far in from the edge the centre is, the table's extent that way)."""
        if edge in ("top", "bottom"):
            extent = scene.table.depth
            d = p.y if edge == "top" else extent - p.y
        else:
            extent = scene.table.width
            d = p.x if edge == "left" else extent - p.x
        return d, extent

    def deploy_pieces(self, scene: Scene, query: Mapping[str, Any]) -> list[Piece]:
        """Units and field defences (not craters) start in their own half (2a, 2c)."""
        pieces = super().deploy_pieces(scene, query)
        return [p for p in pieces if self.unit(p).role != "crater"]

    def deploy_edges(
        self, scene: Scene, query: Mapping[str, Any], pieces: Sequence[Piece]
    ) -> dict[str, str]:
        return self._edges(scene, query, {p.side for p in pieces})

    def deploy_zone(self, scene: Scene, piece: Piece, edge: str, query: Mapping[str, Any]) -> float:
        return self._depth(scene, piece, edge)[1] / 2  # the half line

    def deploy_depth(self, scene: Scene, piece: Piece, edge: str) -> float:
        return self._depth(scene, piece, edge)[0]  # the base centre

    deploy_outside = "{piece} is {depth} in from the {edge} edge: {word} the half line at {zone}"
    deploy_words = Words("inside", "beyond", "too close to call against")

    def deployment_verdict(
        self, scene: Scene, rows: list[Placed], reasons: list[str], ok: bool | None
    ) -> Verdict:
        if ok:
            reasons.append(f"all {len(rows)} pieces are in their own half (2a, 2c)")
        deepest = None
        for r in rows:  # the piece deepest past (or least short of) its half line
            if deepest is None or r.depth - r.zone > deepest.depth - deepest.zone:
                deepest = r
        outside = [r.piece.id for r in rows if r.ok is not True]
        return Verdict(
            "deployment",
            ok,
            tuple(reasons),
            distance=None if deepest is None else deepest.depth,
            uncertainty=None if deepest is None else deepest.piece.uncertainty,
            limit=None if deepest is None else deepest.zone,
            details={"outside": outside},
            summary="deployment: "
            + ("all in their half" if ok else f"outside: {', '.join(outside)}"),
        )

    def ask_victory(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """The attacker (``side``) wins when no enemy unit is left in its half and its units
        hold every square of the first (indecisive), second (marginal) or third (decisive)
        row past the half line; otherwise the defender wins (8)."""
        side = query.get("side")
        if not isinstance(side, str) or not any(p.side == side for p in scene.pieces):
            sides = sorted({p.side for p in scene.pieces})
            raise QueryError(".side", f"must be the attacking side, one of {sides}, got {side!r}")
        edge = self._edges(scene, query, [side])[side]
        grid = self.grid(scene)
        along = grid.rows if edge in ("top", "bottom") else grid.cols
        across = grid.cols if edge in ("top", "bottom") else grid.rows

        def line_of(sq: Square) -> int:
            k = sq[1] if edge in ("top", "bottom") else sq[0]
            return k if edge in ("top", "left") else along - 1 - k

        units = [p for p in scene.pieces if self.is_unit(p)]
        half = along // 2

        def held(line: int, sure: bool) -> bool:
            got: set[int] = set()
            for p in units:
                if p.side != side:
                    continue
                cands = grid.candidates(p.x, p.y, p.uncertainty)
                if sure and len(cands) > 1:
                    continue
                for sq in cands:
                    if line_of(sq) == line:
                        got.add(sq[0] if edge in ("top", "bottom") else sq[1])
            return len(got) == across

        def intruders(sure: bool) -> list[str]:
            out = []
            for p in units:
                if p.side == side:
                    continue
                lines = {line_of(sq) for sq in grid.candidates(p.x, p.y, p.uncertainty)}
                if all(k < half for k in lines) if sure else any(k < half for k in lines):
                    out.append(p.id)
            return out

        names = ("indecisive", "marginal", "decisive")
        best_sure = max((k for k in (1, 2, 3) if held(half + k - 1, True)), default=0)
        best_maybe = max((k for k in (1, 2, 3) if held(half + k - 1, False)), default=0)
        sure_in, maybe_in = intruders(True), intruders(False)
        reasons = []
        if sure_in:
            level = 0
            reasons.append(f"enemy units in {side}'s half: {', '.join(sure_in)}")
            ok: bool | None = False
        elif best_sure == best_maybe and (not maybe_in or best_sure == 0):
            level = best_sure
            ok = level > 0
        else:
            level = best_sure
            ok = None
            reasons.append("a unit within its doubt of a square's edge decides the result")
        if maybe_in and not sure_in:
            reasons.append(f"maybe in {side}'s half: {', '.join(maybe_in)}")
        result = f"{names[level - 1]} victory for {side}" if level else "the defender wins"
        reasons.append(
            f"{side} holds every square of {level} row{'s' if level != 1 else ''} past the half "
            f"line ({result})"
            if level
            else f"{side} holds no full row past the half line"
        )
        return Verdict(
            "victory",
            ok,
            tuple(reasons),
            distance=float(level),
            uncertainty=float(best_maybe - best_sure),
            limit=1.0,
            details={"unit": "rows", "result": result, "level": level},
            summary=f"victory: {result}" + (" (too close to call)" if ok is None else ""),
        )
