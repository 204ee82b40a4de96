"""The rules core every table game system shares: measuring, seeing and moving.

:class:`TableRuleset` is the base a game system subclasses (the way
``chess.variant`` subclasses ``Board``): it owns the machinery (distances
centre to centre, front point, base edge to base edge and edge to edge not
crossing another unit; firing arcs, minimum and half range; line of sight
through terrain with through/into blocking and the doubt band; forests of
touching woods; terrain along a move with the swept base footprint,
stop-on-entry and halving/doubling per stretch; what the all-pairs map of
:mod:`referee.maps` is handed: the measure, the obstacles, the forest rule) and
answers the shared questions ``range``, ``los`` and ``move``. Line of sight is
written once for the single question and the all-pairs map alike: a system
names its line (:attr:`TableRuleset.line_rule`), whose bases block it
(:attr:`TableRuleset.units_block`) and the filters laid over it
(:attr:`TableRuleset.los_filters`, :mod:`referee.rules.sight`) as values. A
system is then a module of data tables (piece kinds, weapon ranges, move
allowances) and the few hooks that differ (:meth:`TableRuleset.fire_range`,
:meth:`TableRuleset.move_allowance`, :meth:`TableRuleset.may_enter`...).

Boundary behaviour: a limit is met exactly at the limit (``judge``), a
measurement within its uncertainty of a limit is "too close to call"
(``ok: null``), and a line that touches a blocking outline, clips it by less
than the doubt, or passes within the doubt of it is ``doubtful``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from referee.geometry import (
    Pose,
    base_corners,
    base_corners_many,
    boundary_distance,
    centre_distance,
    front_point,
    point_in_polygon,
    points_in_polygon,
    polygon_distance,
    polygons_overlap,
    segment_polygon,
    segment_spans,
    signed_boundary_distance,
)
from referee.maps import LineReuse, MapTable, Obstacle, PreparedPolygons, Visibility
from referee.rules.forests import forests
from referee.rules.queries import (
    MAX_VIA,
    LosQuery,
    MoveQuery,
    PairQuery,
    RangeQuery,
    allowance_arg,
    number_arg,
    path_arg,
    piece_arg,
    pose_arg,
)
from referee.rules.settings import setting
from referee.rules.sight import Hidden, LosFilter, SeesAll, SightLimit, WhollyInside, WoodsAreas
from referee.rules.targets import (
    ContactBook,
    Targets,
    line_contact,
    line_ends_away,
    map_distance,
)
from referee.rules.values import PieceRange, QueryError, Verdict, judge, name_key
from referee.rules.wording import HALF_RANGE, IN_RANGE, LEGAL, Words
from referee.runtime import CORES, in_shares
from referee.scene import Piece, Scene, Terrain, normalise_edge

__all__ = [  # the query readers, where the systems have always imported them from
    "MAX_VIA",
    "QueryError",
    "allowance_arg",
    "number_arg",
    "path_arg",
    "piece_arg",
    "pose_arg",
]

DIE_ROLL = "if in doubt roll one die: 1-3 blocked, 4-6 clear"
MEASURES = ("centre", "edge", "clear", "front")
"""How a distance between two pieces is measured: base centre to base centre, nearest
base edges, nearest base edges by a line crossing no other unit, front point to centre."""
SIDE_BY_SIDE = 60
"""Pieces from which a map seen from each side (``units_block = "enemies"``) has its sides
seen side by side on the cores (a share handed to another thread and back costs about a
tenth of a millisecond)."""
MEASURE_WORDS = {
    "centre": "centre to centre",
    "edge": "between nearest base edges",
    "clear": "edge to edge, not crossing another unit",
    "front": "from the front of the base",
}


def fmt(x: float) -> str:
    """``4.5`` -> ``'4.50in'``."""
    return f"{x:.2f}in"


def inches(x: float) -> str:
    """A limit as the rules write it: ``12`` -> ``'12in'``."""
    return f"{x:g}in"


def pm(doubt: float) -> str:
    return f" (+/-{doubt:.2f})" if doubt else ""


def judge_at_least(distance: float, floor: float, uncertainty: float) -> bool | None:
    """``distance >= floor`` (a minimum range), None within the uncertainty of it.

    >>> judge_at_least(5, 5, 0), judge_at_least(4.9, 5, 0), judge_at_least(5.01, 5, 0.05)
    (True, False, None)
    """
    if distance >= floor + uncertainty + 1e-9 or (uncertainty == 0 and distance >= floor - 1e-9):
        return True
    if distance < floor - uncertainty - 1e-9:
        return False
    return None


def worst(oks: Sequence[bool | None]) -> bool | None:
    """False if any is False, None if any is None, else True."""
    return False if False in oks else (None if None in oks else True)


@dataclass(frozen=True)
class Finding:
    """A system's extra check of a shared question (a hook's answer): it adds reasons and
    can only make the verdict worse (``ok`` True leaves it as it was)."""

    ok: bool | None = True
    reasons: tuple[str, ...] = ()
    suffix: str = ""
    """Added to the summary."""
    summary: str | None = None
    """The whole summary instead, when the check decides the question."""
    details: Mapping[str, Any] = field(default_factory=dict)
    first: bool = False
    """Its reasons go before the others (the rule that shaped the whole question)."""


def worsen(verdict: Verdict, findings: Sequence[Finding]) -> Verdict:
    """``verdict`` with the findings of a system's extra checks applied, in order."""
    if not findings:
        return verdict
    ok, reasons, summary = verdict.ok, verdict.reasons, verdict.summary
    details = dict(verdict.details)
    for f in findings:
        ok = worst([ok, f.ok])
        reasons = (*f.reasons, *reasons) if f.first else (*reasons, *f.reasons)
        summary = f.summary if f.summary is not None else summary + f.suffix
        details.update(f.details)
    return dataclasses.replace(verdict, ok=ok, reasons=reasons, summary=summary, details=details)


class Fire(NamedTuple):
    """How the system's weapons judged a range (:meth:`TableRuleset.judge_fire`); a
    named tuple, as cheap to build as the microseconds a range question takes."""

    ok: bool | None
    limit: float | None
    reasons: list[str]
    details: dict[str, Any]
    summary: Callable[[bool | None], str]
    """The summary after ``range a -> b: ``, given the final verdict (a firer that may
    not act changes the words)."""
    settled: bool = False
    """The weapons alone decide (a vessel with no guns): whether the firer may act is
    not asked."""


@dataclass(frozen=True)
class Measured:
    """A move's length as the system measures it, between the points ``p0`` and ``p1``."""

    distance: float
    p0: Sequence[float]
    p1: Sequence[float]
    reason: str


@dataclass(frozen=True)
class MoveLimit:
    """How a system judged a move's length (:meth:`TableRuleset.move_limit`)."""

    ok: bool | None
    limit: float | None
    reasons: list[str]
    details: dict[str, Any]
    lead: tuple[str, ...] = ()
    """Reasons before the measurement (what changed the allowance)."""
    over: bool = False
    """The length is over the limit (the summary says so)."""
    label: str = "limit"
    """The summary's word for the limit (``speed`` for a vessel's speed die)."""
    explain: bool = True
    """Whether the summary lists what made the move illegal."""
    doubtful_word: str | None = None
    """The summary's verdict word when the move is too close to call (``needs 7+ on 2D6``)."""


class TableRuleset(Targets):
    """A game played with pieces on a table: the shared core of every such system.

    Subclasses set :attr:`kinds` (piece kind -> category), override the
    ``Settings`` defaults and the hooks below, and add ``ask_<question>`` methods.
    """

    half_range: ClassVar[bool] = False
    """Whether the system penalises fire over half range (then ``range`` reports it)."""
    vehicles: tuple[str, ...] = ()
    """Categories that are vehicles (never enter buildings; burning wrecks when destroyed)."""

    @dataclass(frozen=True)
    class Settings:
        """Conventions every table system has; a system overrides the defaults.

        Distances are inches.
        """

        range_measure: str = setting(
            "centre",
            (
                "How range is measured: ``centre`` (base centre to base centre), ``edge`` "
                "(nearest base edges) or ``clear`` (edge to edge by a line crossing no other "
                "unit)."
            ),
        )
        move_measure: str = setting(
            "front", "``front``: displacement of the front-centre point of the base; ``centre``."
        )
        move_path: str = setting(
            "swept",
            (
                "``swept``: the move's path is the base swept along the straight line between "
                "the start and end centres; ``centre``: only that centre line."
            ),
        )
        blocking: tuple[str, ...] = setting(
            ("woods", "building", "hill"),
            "Terrain kinds that block LOS through (not into or out of) them.",
        )
        difficult: tuple[str, ...] = setting(
            ("woods", "building", "hill", "difficult", "rough"),
            "Terrain kinds that end a move when entered (systems that halve instead say so).",
        )
        impassable: tuple[str, ...] = setting(
            ("river", "water"),
            "Terrain kinds no unit may cross, except where a crossing lies over them.",
        )
        crossings: tuple[str, ...] = setting(
            ("bridge",),
            "Terrain kinds that carry units over impassable terrain (the base centre on it).",
        )
        wrecks_block: bool = setting(
            True, "Destroyed vehicles left on the table are burning wrecks that block LOS."
        )
        forests: bool = setting(
            True,
            (
                "Woods pieces that touch or overlap form one forest: a line along the seam "
                "between two runs through the forest, and a unit in one sees out of the whole "
                "forest."
            ),
        )

        def __post_init__(self) -> None:
            for key in ("blocking", "difficult", "impassable", "crossings"):
                value = getattr(self, key)
                if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                    raise ValueError(f"setting {key} must be a list of terrain kinds")
                object.__setattr__(self, key, tuple(v.lower() for v in value))

        def check(self) -> None:
            if self.range_measure not in ("centre", "edge", "clear"):
                raise ValueError('setting range_measure must be "centre", "edge" or "clear"')
            if self.move_measure not in ("front", "centre"):
                raise ValueError('setting move_measure must be "front" or "centre"')
            if self.move_path not in ("swept", "centre"):
                raise ValueError('setting move_path must be "swept" or "centre"')

    settings: Any

    # -- hooks: what kind of piece is it, what may it do ---------------------------------

    @classmethod
    def category(cls, piece: Piece) -> str:
        """The piece's category from its kind (the kind itself when no table maps it)."""
        return cls.kinds.get(name_key(piece.kind), name_key(piece.kind))

    def is_vehicle(self, piece: Piece) -> bool:
        return self.category(piece) in self.vehicles

    def is_wreck(self, piece: Piece) -> bool:
        return piece.state == "destroyed" and self.is_vehicle(piece)

    move_stat: ClassVar[str | None] = None
    """The piece field holding each piece's own move allowance (a stat card's), if any."""
    range_stat: ClassVar[str | None] = None
    """The piece field holding each piece's own fire range, if any (then it must be set)."""

    def fire_range(self, piece: Piece) -> float | None:
        """Longest range the piece may fire at, inches (None: any distance)."""
        if self.range_stat is None:
            return None
        value = self.field(piece, self.range_stat)
        if value is None:
            stat = self.range_stat
            raise QueryError(".from", f'{piece.id} has no "{stat}" (its attack stat, inches)')
        return float(value)

    def min_range(self, piece: Piece) -> float | None:
        """Shortest range the piece may fire at, inches (None: none)."""
        return None

    def fire_arc(self, piece: Piece) -> float | None:
        """Width of the forward firing arc, degrees (None: all round)."""
        return None

    def range_rule(self, piece: Piece, limit: float) -> str:
        """The sentence naming the range rule that applied."""
        return f"{piece.id} ({self.category(piece)}) fires at most {inches(limit)}"

    def move_allowance(self, piece: Piece) -> float | None:
        """The piece's own move allowance by type, inches (None: given by the query)."""
        value = None if self.move_stat is None else self.field(piece, self.move_stat)
        return None if value is None else float(value)

    def move_cap(self, piece: Piece) -> float | None:
        """A cap on one move whatever the allowance (None: no cap)."""
        return None

    def piece_ranges(self, piece: Piece) -> tuple[PieceRange, ...]:
        """The fire range and the move cap, where the piece has them (a positive distance);
        none for a kind the system does not know (a roster made for another game)."""
        if self.kind_problem(piece.kind) is not None:
            return ()
        try:
            fire = self.fire_range(piece)
        except QueryError:  # no weapon, no range stat: no ring (asking it to fire says why)
            fire = None
        found = (("fire", fire), ("move", self.move_cap(piece)))
        return tuple(
            PieceRange(label, float(value)) for label, value in found if value and value > 0
        )

    def terrain_factor(self, piece: Piece, terrain: Terrain) -> float:
        """How far a move inside this terrain counts per inch: 2 where the rules halve the
        move (rough ground), 0.5 where they double it (roads), 1 otherwise."""
        return 1.0

    def may_enter(self, piece: Piece, terrain: Terrain) -> str | None:
        """Why the piece may not enter this terrain at all, or None."""
        if terrain.kind == "building" and self.is_vehicle(piece):
            return f"vehicles may not enter buildings: {piece.id} enters {terrain.id}"
        return None

    def can_act(self, piece: Piece, ok: bool | None, reasons: list[str]) -> bool | None:
        """``ok``, or False (with a reason) when the piece may not act at all."""
        if piece.state == "destroyed":
            reasons.append(f"{piece.id} is destroyed and may take no actions")
            return False
        return ok

    def unit_blocks(self, piece: Piece) -> bool:
        """Whether this (live) piece's base blocks lines of sight between others."""
        return False

    # -- measuring ------------------------------------------------------------------------

    def piece_distance(self, a: Piece, b: Piece, measure: str, scene: Scene | None = None) -> float:
        """Distance from ``a`` to ``b`` as ``measure`` (:data:`MEASURES`) says. ``clear``
        needs the scene: the shortest edge-to-edge line that crosses no other live unit's
        base (infinite when every such line is blocked)."""
        if measure == "centre":
            return centre_distance(a.xy, b.xy)
        if measure == "front":
            return centre_distance(a.front, b.xy)
        if measure == "clear" and scene is not None:
            return MapTable.clear_distance(
                a, b, [p for p in scene.pieces if p.id not in (a.id, b.id)]
            )
        return polygon_distance(a.corners(), b.corners())

    def bearing_off(self, firer: Piece, target: Piece) -> float:
        """Degrees between the firer's facing and the line to the target's centre (0-180)."""
        dx, dy = target.x - firer.x, target.y - firer.y
        if dx == 0 and dy == 0:
            return 0.0
        off = (math.degrees(math.atan2(dy, dx)) - firer.heading + 180.0) % 360.0 - 180.0
        return abs(off)

    def facing_side(self, target: Piece, attacker: Piece) -> str:
        """Which face of ``target`` the attacker's centre is off: ``front``, ``side`` or
        ``rear``, by the lines through the target's base diagonals (a centre exactly on a
        diagonal counts as the front or rear face, not the side)."""
        dx, dy = attacker.x - target.x, attacker.y - target.y
        h = math.radians(target.heading)
        fwd = dx * math.cos(h) + dy * math.sin(h)
        right = -dx * math.sin(h) + dy * math.cos(h)
        w, d = target.base
        # Compare the angle with the diagonal's: |right| / (w/2) vs |fwd| / (d/2).
        if abs(fwd) * w >= abs(right) * d:
            return "front" if fwd >= 0 else "rear"
        return "side"

    def facing_sides(self, target: Piece, attacker: Piece, doubt: float) -> tuple[str, ...]:
        """Every face of ``target`` (:meth:`facing_side`) the attacker's centre may be off
        when either centre may lie ``doubt`` from where it is measured: the face measured,
        and the one across a diagonal line within ``doubt`` of the attacker's centre
        (every face when the two centres are within ``doubt``)."""
        faces = {self.facing_side(target, attacker)}
        if not doubt > 0:  # exactly on a diagonal, the rule decides (front or rear)
            return tuple(faces)
        dx, dy = attacker.x - target.x, attacker.y - target.y
        h = math.radians(target.heading)
        fwd = dx * math.cos(h) + dy * math.sin(h)
        right = -dx * math.sin(h) + dy * math.cos(h)
        w, d = target.base
        if math.hypot(fwd, right) <= doubt:
            return ("front", "rear", "side")
        for sign in (1.0, -1.0):  # the diagonal lines fwd * w = +-right * d
            if abs(fwd * w - sign * right * d) <= doubt * math.hypot(w, d):
                faces |= {"front" if fwd >= 0 else "rear", "side"}
        return tuple(sorted(faces))

    # -- questions ------------------------------------------------------------------------

    def judge_range(self, scene: Scene, query: RangeQuery) -> Verdict:
        """The range template: measure ``from`` to ``to`` as ``range_measure`` says, judge
        it by the system's weapons (:meth:`judge_fire`), then whether the firer may act
        (:meth:`can_act`) and the system's extra checks (:meth:`range_findings`), which
        add reasons and can only make the verdict worse."""
        return self.judge_range_measured(scene, query, None)

    def judge_range_measured(
        self, scene: Scene, query: RangeQuery, measured: float | None
    ) -> Verdict:
        """:meth:`judge_range` with the distance ``range_measure`` gives already measured
        (by the all-pairs map, for ``targets``; None: measure it here). Centre distances
        are cheap and measured here always, so the floats are the single question's. A
        system with its own ``judge_range`` (WW1's squares) is asked that instead."""
        if measured is not None and type(self).judge_range is not TableRuleset.judge_range:
            return self.judge_range(scene, query)
        firer, target = query.firer, query.target
        doubt = query.doubt
        touch = self.touch_only(firer, target)
        if touch is not None:  # fire only in base contact: the bases' gap against 0
            distance = polygon_distance(firer.corners(), target.corners())
            ok = judge(distance, 0.0, doubt)
            word = Words("touching", "not touching")(ok)
            fire = Fire(
                ok,
                0.0,
                [f"bases {fmt(distance)} apart: {word}", touch],
                {"touch": True},
                lambda ok: f"{word} (touch only)",
            )
        else:
            measure = self.settings.range_measure
            if measured is None or measure == "centre":
                distance = self.piece_distance(firer, target, measure, scene)
            else:
                distance = measured
            reasons = [self.measure_words(distance, measure)]
            fire = self.judge_fire(scene, query, distance, reasons)
        reasons = list(fire.reasons)
        ok_all = fire.ok if fire.settled else self.can_fire(firer, fire.ok, reasons)
        verdict = Verdict(
            "range",
            ok_all,
            tuple(reasons),
            distance=distance if math.isfinite(distance) else None,
            uncertainty=doubt,
            limit=fire.limit,
            details=fire.details,
            summary=f"range {firer.id} -> {target.id}: {fire.summary(ok_all)}",
        )
        return worsen(verdict, self.range_findings(scene, query, verdict))

    def can_fire(self, firer: Piece, ok: bool | None, reasons: list[str]) -> bool | None:
        """:meth:`can_act` for a firer (a system may not say why a wreck cannot fire)."""
        return self.can_act(firer, ok, reasons)

    def measure_words(self, distance: float, measure: str) -> str:
        """The first reason of a range: what was measured, and how."""
        if not math.isfinite(distance):
            return "every edge-to-edge line crosses another unit"
        return f"{fmt(distance)} {MEASURE_WORDS[measure]}"

    def range_limit(self, firer: Piece, target: Piece) -> tuple[float | None, str]:
        """The longest range ``firer`` may fire at ``target`` (None: any distance) and the
        rule's sentence: :meth:`fire_range` and :meth:`range_rule` unless the target
        matters (a sniper at figures)."""
        limit = self.fire_range(firer)
        return limit, "" if limit is None else self.range_rule(firer, limit)

    def touch_only(self, firer: Piece, target: Piece) -> str | None:
        """The rule's sentence when ``firer`` may fire at ``target`` only in base contact
        (then ``range`` judges the gap between the bases against 0), or None."""
        return None

    def judge_fire(
        self, scene: Scene, query: RangeQuery, distance: float, reasons: list[str]
    ) -> Fire:
        """The distance against the firer's weapon: :meth:`fire_range` (with
        :meth:`range_rule`), :meth:`min_range`, :meth:`fire_arc` and, where the system
        has it, half range. ``reasons`` holds the measurement's sentence."""
        firer, target, doubt = query.firer, query.target, query.doubt
        limit, rule = self.range_limit(firer, target)
        if not math.isfinite(distance):
            summary_d = "no line free of other units"
        else:
            summary_d = f"{fmt(distance)}{pm(doubt)}"
        details: dict[str, Any] = {}
        oks: list[bool | None] = []
        if limit is None:
            oks.append(True)
            reasons.append(f"{firer.id} is a {self.category(firer)}: may fire at any distance")
            summary = f"{summary_d}, in range (no limit)"
        else:
            ok = judge(distance, limit, doubt) if math.isfinite(distance) else False
            oks.append(ok)
            word = IN_RANGE(ok)
            reasons.append(rule)
            summary = f"{summary_d}, {word} (limit {inches(limit)})"
            if ok is not False and self.half_range:
                half = judge(distance, limit / 2, doubt)
                details["half_range"] = HALF_RANGE(half)
                if half is not True:
                    reasons.append(
                        f"over half range ({inches(limit / 2)})"
                        if half is False
                        else f"half range ({inches(limit / 2)}) is too close to call"
                    )
        shortest = self.min_range(firer)
        if shortest is not None:
            ok_min = judge_at_least(distance, shortest, doubt)
            oks.append(ok_min)
            details["min_range"] = shortest
            if ok_min is False:
                reasons.append(f"{fmt(distance)} is inside the minimum range of {inches(shortest)}")
                summary += f"; inside minimum range {inches(shortest)}"
            elif ok_min is None:
                reasons.append(f"the minimum range of {inches(shortest)} is too close to call")
        arc = self.fire_arc(firer)
        if arc is not None:
            off = self.bearing_off(firer, target)
            half_arc = arc / 2
            # The doubt in the bearing: the two pieces' position doubt seen from the firer.
            spread = math.degrees(
                math.atan2(doubt, max(centre_distance(firer.xy, target.xy), 1e-9))
            )
            in_arc = judge(off, half_arc, spread)
            oks.append(in_arc)
            details["arc"] = {"width": arc, "off_facing": round(off, 3)}
            side = Words("inside", "outside", "too close to call at the edge of")
            reasons.append(
                f"{target.id} is {off:.1f} deg off {firer.id}'s facing: {side(in_arc)} its "
                f"{arc:g} deg forward arc"
            )
            if in_arc is False:
                summary += f"; outside the {arc:g} deg arc"
        return Fire(worst(oks), limit, reasons, details, lambda ok: summary)

    def range_findings(
        self, scene: Scene, query: RangeQuery, verdict: Verdict
    ) -> Sequence[Finding]:
        """The system's extra checks of a range question (a target only some weapons may
        fire at, a unit that moved): each adds reasons and can only make it worse."""
        return ()

    def los_findings(self, scene: Scene, query: LosQuery, verdict: Verdict) -> Sequence[Finding]:
        """The system's extra checks of a ``los`` question, as :meth:`range_findings`."""
        return ()

    line_rule: ClassVar[str] = "centre"
    """How the core draws a line of sight: ``centre``, the centre-to-centre line through
    the obstacles of :meth:`los_obstacles` with the doubt band (:meth:`line_of_sight`);
    ``clear``, some edge-to-edge line crossing no other live unit (Papercraft), the
    shortest one given for the tape."""
    los_filters: ClassVar[tuple[LosFilter, ...]] = ()
    """The per-pair rules laid over the line (:mod:`referee.rules.sight`), as values: units
    that see all settle a pair first; a sight limit or a base wholly inside a feature may
    settle it blocked, or make the line doubtful (:meth:`_filtered_line`); hidden units
    can only make the line worse."""
    units_block: ClassVar[str] = "all"
    """Whose bases (of the units :meth:`unit_blocks` says block) may stand in a line:
    ``all``, or ``enemies``, only the firer's enemies' (Pz8 Divisional: friendly units
    never block), so the map is not symmetric and is drawn side by side
    (:meth:`_enemies_map`)."""
    clear_words: ClassVar[str] = "nothing blocks the line from centre to centre"
    """The last reason of a clear centre line (:meth:`line_of_sight`): a system whose text
    says why its lines are clear words it here."""

    def ask_los(
        self, scene: Scene, query: Mapping[str, Any], book: ContactBook | None = None
    ) -> Verdict:
        """The line of :attr:`line_rule`, with the :attr:`los_filters` on it: the same
        rules, in the same order, as :meth:`visibility` applies to every pair."""
        q = LosQuery.parse(scene, query)
        filters = self.los_filters
        for flt in filters:
            if isinstance(flt, SeesAll):
                settled = self._sees_all_verdict(q, flt)
                if settled is not None:
                    return settled
        if self.line_rule == "clear":
            verdict = self._clear_line_verdict(scene, q, book)
        else:
            verdict = self._centre_line_verdict(scene, q, book)
        for flt in filters:
            if isinstance(flt, Hidden):
                verdict = self._hidden_verdict(scene, q, flt, verdict)
        return verdict

    def _centre_line_verdict(self, scene: Scene, q: LosQuery, book: ContactBook | None) -> Verdict:
        """``line_rule = "centre"``: :meth:`line_of_sight`, worded, with the system's
        :meth:`los_findings`."""
        firer, target = q.firer, q.target
        los, reasons, blockers = self._filtered_line(scene, firer, target, book)
        ok = {"clear": True, "blocked": False, "doubtful": None}[los]
        doubt = q.doubt
        distance = centre_distance(firer.xy, target.xy)
        details: dict[str, Any] = {"blocking": blockers["blocked"]}
        if blockers["doubtful"]:
            details["doubtful_by"] = blockers["doubtful"]
        ok = self.can_act(firer, ok, reasons)
        summary = f"los {firer.id} -> {target.id}: {los}"
        if blockers["blocked"]:
            summary += f" by {', '.join(blockers['blocked'])}"
        elif los == "doubtful":
            summary += f" ({', '.join(blockers['doubtful'])}): {self.doubt_rule()}"
        verdict = Verdict(
            "los",
            ok,
            tuple(reasons),
            distance=distance,
            uncertainty=doubt,
            los=los,
            details=details,
            summary=summary,
        )
        return worsen(verdict, self.los_findings(scene, q, verdict))

    def _filtered_line(
        self, scene: Scene, firer: Piece, target: Piece, book: ContactBook | None
    ) -> tuple[str, list[str], dict[str, list[str]]]:
        """:meth:`line_of_sight` inside the :class:`~referee.rules.sight.SightLimit` and
        :class:`~referee.rules.sight.WhollyInside` filters, each one asked about this pair
        as :meth:`_filtered` asks it about every pair, in the order declared: a filter
        that blocks settles the pair (the first one's words); a doubtful one makes a line
        not blocked doubtful, its words after the line's (the last declared first)."""
        doubts: list[tuple[str, str]] = []
        for flt in self.los_filters:
            if isinstance(flt, SightLimit):
                found = self._sight_limit_line(scene, flt, firer, target)
            elif isinstance(flt, WhollyInside):
                found = self._wholly_inside_line(scene, flt, firer, target)
            else:
                continue
            if found is None:
                continue
            code, why, blocker = found
            if code == 2:
                return "blocked", [why], {"blocked": [blocker], "doubtful": []}
            doubts.append((why, blocker))
        los, reasons, parts = self.line_of_sight(scene, firer, target, book)
        for why, blocker in reversed(doubts):
            if los != "blocked":
                reasons.append(why)
                parts = {**parts, "doubtful": [*parts.get("doubtful", []), blocker]}
                los = "doubtful"
        return los, reasons, parts

    def _sight_limit_line(
        self, scene: Scene, flt: SightLimit, firer: Piece, target: Piece
    ) -> tuple[int, str, str] | None:
        """:class:`~referee.rules.sight.SightLimit` on one pair: (code, words, blocker), or
        None where it leaves the line as it is."""
        limit = getattr(self.settings, flt.limit_setting)
        if limit is None:
            return None
        measure = self.settings.range_measure
        d = self.piece_distance(firer, target, measure, scene)
        doubt = firer.uncertainty + target.uncertainty
        code = int(SightLimit.codes(np.array([d]), np.array([doubt]), float(limit))[0])
        if code == 0:
            return None
        word = {2: "beyond", 1: "too close to call at"}[code]
        return (
            code,
            (
                f"{flt.cause}: nobody sees farther than {inches(limit)}; {fmt(d)} "
                f"{MEASURE_WORDS[measure]} is {word} it"
            ),
            flt.blocker,
        )

    def _wholly_inside_line(
        self, scene: Scene, flt: WhollyInside, firer: Piece, target: Piece
    ) -> tuple[int, str, str] | None:
        """:class:`~referee.rules.sight.WhollyInside` on one pair: (code, words, the
        feature's id), or None where it leaves the line as it is."""
        kinds = getattr(self.settings, flt.kinds_setting)
        terrain = [t for t in scene.terrain if t.kind in kinds]
        if not terrain:
            return None
        pair = (firer, target)
        xy = np.array([p.xy for p in pair], float)
        unc = np.array([p.uncertainty for p in pair], float)
        corners = np.array([p.corners() for p in pair], float).reshape(2, 4, 2)
        depths = WhollyInside.depths(xy, corners, unc, [t.outline() for t in terrain])
        codes, reasons, features = WhollyInside.codes(depths, unc, np.array([0]), np.array([1]))
        code, reason = int(codes[0]), int(reasons[0])
        if code == 0:
            return None
        t = terrain[int(features[0])]
        who = firer if reason in (WhollyInside.FIRER_INSIDE, WhollyInside.FIRER_MAYBE) else target
        if code == 2:
            why = f"{who.id} is wholly inside {t.kind} {t.id}: only figures at its edge are seen"
        else:
            why = (
                f"{who.id} may be wholly inside {t.kind} {t.id} (within the measurement "
                f"doubt), where only figures at its edge are seen: {self.doubt_rule()}"
            )
        return code, why, t.id

    def _base_corners(self, scene: Scene) -> dict[str, NDArray[np.float64]]:
        """Every piece's base corners, kept for the pieces last read: each clear line reads
        every base, and a table is asked about pair after pair."""
        kept = self.__dict__.get("_base_corners_kept")
        if kept is None or kept[0] is not scene.pieces:
            kept = self.__dict__["_base_corners_kept"] = (
                scene.pieces,
                {p.id: p.corners() for p in scene.pieces},
            )
        corners: dict[str, NDArray[np.float64]] = kept[1]
        return corners

    def _clear_line_verdict(self, scene: Scene, q: LosQuery, book: ContactBook | None) -> Verdict:
        """``line_rule = "clear"``: not blocked by other units, some edge-to-edge line
        crosses no other live unit (:meth:`referee.maps.MapTable.clear_segment`). The
        shortest such line is given (``line``: its two ends), for the tape."""
        firer, target = q.firer, q.target
        if map_distance(book, firer.id, target.id) == float("inf"):
            # ``targets``: the map found every line walled off; no line to search for.
            d, start, end = float("inf"), np.full(2, np.nan), np.full(2, np.nan)
        else:
            corners = self._base_corners(scene)
            live = [
                corners[p.id]
                for p in scene.pieces
                if p.id not in (firer.id, target.id) and p.state != "destroyed"
            ]
            bases = np.asarray(live, float).reshape(-1, 4, 2)
            d, start, end = MapTable.clear_segment(corners[firer.id], corners[target.id], bases)
        ok = d != float("inf")
        where = f" (from ({start[0]:.2f}, {start[1]:.2f}) to ({end[0]:.2f}, {end[1]:.2f}))"
        reasons = [
            f"a line from edge to edge of {fmt(d)} crosses no other unit" + where
            if ok
            else "every edge-to-edge line crosses another unit"
        ]
        line = [start.tolist(), end.tolist()] if ok else None
        los = "clear" if ok else "blocked"
        return Verdict(
            "los",
            self.can_act(firer, ok, reasons),
            tuple(reasons),
            distance=d if ok else None,
            uncertainty=q.doubt,
            los=los,
            details={"blocking": [], "line": line},
            summary=f"los {firer.id} -> {target.id}: {los}",
        )

    def _sees_all_verdict(self, q: LosQuery, flt: SeesAll) -> Verdict | None:
        """:class:`~referee.rules.sight.SeesAll` on one pair: the clear verdict it settles,
        or None (the line decides)."""
        firer, target = q.firer, q.target
        sees = np.array([self.category(p) in flt.categories for p in (firer, target)])
        reason = int(SeesAll.codes(sees, np.array([0]), np.array([1]))[0])
        if reason == SeesAll.NO:
            return None
        who = firer if reason == SeesAll.FIRER else target
        return Verdict(
            "los",
            self.can_act(firer, True, []),
            (f"{who.id} ({self.category(who)}) can always see and be seen",),
            distance=centre_distance(firer.xy, target.xy),
            uncertainty=q.doubt,
            los="clear",
            details={"blocking": []},
            summary=f"los {firer.id} -> {target.id}: clear ({who.id} sees and is seen)",
        )

    def _hidden_verdict(self, scene: Scene, q: LosQuery, flt: Hidden, verdict: Verdict) -> Verdict:
        """:class:`~referee.rules.sight.Hidden` on one pair, over the line's ``verdict``."""
        firer, target = q.firer, q.target
        hides = self.category(target) in flt.categories
        gave_away = hides and bool(self.field(target, flt.unless))
        cover = None
        if hides and not gave_away:
            cover = next(
                (
                    t
                    for t in scene.terrain
                    if t.kind in flt.cover and point_in_polygon(target.xy, t.outline())
                ),
                None,
            )
        # The target alone decides most pairs (Hidden.may_hide, one piece at a time).
        code, reason = 0, Hidden.GAVE_AWAY if gave_away else Hidden.IN_OPEN
        if not hides:
            reason = Hidden.NO
        d, radius = 0.0, float(getattr(self.settings, flt.radius_setting))
        if cover is not None:
            d = centre_distance(firer.xy, target.xy)
            codes, reasons = Hidden.codes(np.array([d]), np.array([q.doubt]), radius)
            code, reason = int(codes[0]), int(reasons[0])
        why = self._hidden_reason(reason, target, cover, d, radius)
        hidden = {0: False, 1: None, 2: True}[code]
        if hidden is False or verdict.los == "blocked":
            return dataclasses.replace(verdict, reasons=verdict.reasons + why)
        ok = worst([verdict.ok, None if hidden is None else False])
        # The line and the hiding rule, whether or not the firer may act on it (a wreck).
        los = "blocked" if hidden else "doubtful"
        return Verdict(
            "los",
            ok,
            verdict.reasons + why,
            distance=verdict.distance,
            uncertainty=verdict.uncertainty,
            los=los,
            details={**verdict.details, "hidden": hidden},
            summary=f"los {firer.id} -> {target.id}: {los} (hidden unit)",
        )

    @staticmethod
    def _hidden_reason(
        reason: int, target: Piece, cover: Terrain | None, d: float, radius: float
    ) -> tuple[str, ...]:
        """The words of a :class:`~referee.rules.sight.Hidden` reason code."""
        r = inches(radius)
        if reason == Hidden.GAVE_AWAY:
            return (f"{target.id} fired this turn: seen",)
        if cover is None or reason in (Hidden.NO, Hidden.IN_OPEN):
            return ()
        if reason == Hidden.WITHIN:
            return (f"{target.id} is in {cover.id} but within {r}: seen",)
        word = "too close to call at" if reason == Hidden.CLOSE_CALL else "beyond"
        return (
            f"{target.id} is in {cover.kind} {cover.id} and has not fired: visible only "
            f"within {r}; it is {fmt(d)} away, {word} {r}",
        )

    def doubt_rule(self) -> str:
        """What the players do with a doubtful line (Paper Tigers rolls a die)."""
        return "too close to call"

    # -- line of sight --------------------------------------------------------------------

    def los_obstacles(self, scene: Scene, table: MapTable | None = None) -> list[Obstacle]:
        """What may block a line of sight, for the single question and the all-pairs map
        alike: terrain of the ``blocking`` kinds (seen into and out of, not through),
        grouped into forests, and bases: burning wrecks (``wrecks_block``) and, where the
        system says units block, live units (never their own line). ``table``: the
        scene's :meth:`map_table`, whose base corners the map's views share."""
        terrain = [t for t in scene.terrain if t.kind in self.settings.blocking]
        groups = forests(terrain) if self.settings.forests else [[k] for k in range(len(terrain))]
        forest_of = {}
        for g, members in enumerate(groups):
            for k in members:
                forest_of[k] = g if len(members) > 1 else -1
        out = [
            Obstacle(t.id, t.kind, t.outline(), True, forest=forest_of[k])
            for k, t in enumerate(terrain)
        ]
        pieces = scene.pieces
        wrecks = (
            [k for k, p in enumerate(pieces) if self.is_wreck(p)]
            if self.settings.wrecks_block
            else []
        )
        units = [
            k
            for k, p in enumerate(pieces)
            if p.state != "destroyed" and self.unit_blocks(p) and not self.is_wreck(p)
        ]
        bases = wrecks + units
        if bases:  # every base's corners at once
            if table is None:
                corners = base_corners_many(
                    [pieces[k].xy for k in bases],
                    [pieces[k].heading for k in bases],
                    [pieces[k].base for k in bases],
                )
            else:
                corners = table.corners[bases]
            kinds = ["burning wreck"] * len(wrecks) + ["unit"] * len(units)
            out += [
                Obstacle(pieces[k].id, kind, corners[c], False, pieces[k].id)
                for c, (k, kind) in enumerate(zip(bases, kinds, strict=True))
            ]
        return out

    def line_of_sight(
        self, scene: Scene, firer: Piece, target: Piece, book: ContactBook | None = None
    ) -> tuple[str, list[str], dict[str, list[str]]]:
        """(``clear``/``blocked``/``doubtful``, reasons, ids that block or may block): the
        centre-to-centre line (:meth:`_centre_line`), or, where a
        :class:`~referee.rules.sight.WoodsAreas` filter is on and the table has a forest of
        several woods, that line read woods area by woods area (:meth:`_woods_areas_line`)."""
        groups = self._woods_areas(scene)
        if groups:
            return self._woods_areas_line(scene, groups, firer, target, book)
        return self._centre_line(scene, firer, target, book)

    def _woods_areas_on(self) -> bool:
        """A :class:`~referee.rules.sight.WoodsAreas` filter is declared and its setting on."""
        return any(
            isinstance(flt, WoodsAreas) and getattr(self.settings, flt.setting)
            for flt in self.los_filters
        )

    def _woods_areas(self, scene: Scene) -> list[list[int]]:
        """Indices into ``scene.terrain`` of each forest of two or more touching woods, where
        :meth:`_woods_areas_on` (else none)."""
        if not self._woods_areas_on():
            return []
        idx = [k for k, t in enumerate(scene.terrain) if t.kind in self.settings.blocking]
        groups = forests([scene.terrain[k] for k in idx])
        return [[idx[m] for m in g] for g in groups if len(g) > 1]

    def _woods_areas_line(
        self,
        scene: Scene,
        groups: list[list[int]],
        firer: Piece,
        target: Piece,
        book: ContactBook | None,
    ) -> tuple[str, list[str], dict[str, list[str]]]:
        """:class:`~referee.rules.sight.WoodsAreas`' line: the core's line through the terrain
        outside the forests ``groups`` (:meth:`_woods_areas`), then each forest read as
        :func:`woods_view` reads it: the forest blocks as one area (a line along a seam
        runs through it), but a unit sees out of only the woods area its centre is in, as
        far as the next one, which blocks LOS through it (D.2 designer's note: "each
        separate woods area ... blocks LOS through it. A unit in one ... woods area will
        only be able to see and fire as far as the next"); worded per woods."""
        in_forest = {k for g in groups for k in g}
        rest = dataclasses.replace(
            scene, terrain=tuple(t for k, t in enumerate(scene.terrain) if k not in in_forest)
        )
        los, reasons, found = self._centre_line(rest, firer, target, book)
        if los != "blocked":
            reasons = reasons[:-1]  # the closing line, said again below
        blocked, doubtful = list(found["blocked"]), list(found["doubtful"])
        a, b = firer.xy, target.xy
        doubt = firer.uncertainty + target.uncertainty
        order = {t.id: k for k, t in enumerate(scene.terrain)}
        for g in groups:
            polys = [scene.terrain[k].outline() for k in g]
            why, sure, maybe, hit = woods_view(a, b, polys, doubt)
            ids = [scene.terrain[g[m]].id for m in hit]
            fid = "+".join(ids)
            area = f"forest {fid}" if len(ids) > 1 else f"woods {fid}"
            for m in sure:
                who = [p.id for p in (firer, target) if _signed_depth(p.xy, polys[m]) > doubt]
                verb = "is" if len(who) == 1 else "are"
                reasons.append(
                    f"{' and '.join(who)} {verb} in woods {scene.terrain[g[m]].id}: seen "
                    "into/out of, not through (as far as the next woods area)"
                )
            if why == "clear":
                continue
            if why == "doubtful" and maybe:
                near = [
                    p.id
                    for p in (firer, target)
                    if any(abs(_signed_depth(p.xy, polys[m])) <= doubt for m in maybe)
                ]
                edges = "+".join(scene.terrain[g[m]].id for m in maybe)
                reasons.append(
                    f"{' and '.join(near)} within {fmt(doubt)} of the edge of woods {edges}: "
                    f"in it (seen into/out of) or behind {area} is too close to call"
                )
            elif why == "blocked":
                reasons.append(f"the line crosses {area}: LOS through it is blocked")
            else:
                reasons.append(
                    f"the line meets the edge of {area} within the measurement "
                    f"doubt of {fmt(doubt)}"
                )
            (blocked if why == "blocked" else doubtful).append(fid)
        last = len(scene.terrain)

        def key(oid: str) -> int:
            return order.get(oid.split("+")[0], last)

        blocked.sort(key=key)
        doubtful.sort(key=key)
        out = {"blocked": blocked, "doubtful": doubtful}
        if blocked:
            return "blocked", reasons, out
        if doubtful:
            reasons.append(f"LOS is doubtful: {self.doubt_rule()}")
            return "doubtful", reasons, out
        reasons.append(self.clear_words)
        return "clear", reasons, out

    def _centre_line(
        self, scene: Scene, firer: Piece, target: Piece, book: ContactBook | None = None
    ) -> tuple[str, list[str], dict[str, list[str]]]:
        """(``clear``/``blocked``/``doubtful``, reasons, ids that block or may block).

        The centre-to-centre segment is blocked by a blocking feature whose interior
        it crosses deeper than the measurement doubt (the two pieces' uncertainties
        added), unless the firer's or target's centre lies inside that feature by more
        than the doubt (seen into or out of it). It is doubtful when it only touches,
        clips or passes within the doubt of one, or when a centre is within the doubt
        of the outline of a feature it crosses. A forest (touching woods) counts as one
        feature.
        """
        a, b = firer.xy, target.xy
        doubt = firer.uncertainty + target.uncertainty
        reasons: list[str] = []
        blocked: list[str] = []
        doubtful: list[str] = []
        obstacles = [o for o in self.los_obstacles(scene) if o.piece not in (firer.id, target.id)]
        if self.units_block == "enemies":  # the firer's friends never block (as each side's map)
            friends = {p.id for p in scene.pieces if p.side == firer.side}
            obstacles = [o for o in obstacles if o.kind != "unit" or o.piece not in friends]
        lo = np.minimum(a, b) - doubt - 1e-6
        hi = np.maximum(a, b) + doubt + 1e-6
        done_forests: set[int] = set()
        for ob in obstacles:
            oid, kind, poly = ob.id, ob.kind, ob.polygon
            if ob.forest >= 0:
                if ob.forest in done_forests:
                    continue
                done_forests.add(ob.forest)
                members = [o for o in obstacles if o.forest == ob.forest]
                status, why = forest_contact(a, b, [m.polygon for m in members], doubt)
                fid = "+".join(m.id for m in members)
                inside = [p for p in (firer, target) if status.inside(p.xy) > doubt]
                if inside:
                    who = " and ".join(p.id for p in inside)
                    verb = "is" if len(inside) == 1 else "are"
                    reasons.append(f"{who} {verb} in forest {fid}: seen into/out of, not through")
                    continue
                near = [p.id for p in (firer, target) if abs(status.inside(p.xy)) <= doubt]
                if why == "blocked" and near:
                    why = "doubtful"
                    reasons.append(
                        f"{near[0]} is within {fmt(doubt)} of the edge of forest {fid}: "
                        "in it (seen into/out of) or behind it is too close to call"
                    )
                elif why == "blocked":
                    reasons.append(f"the line crosses forest {fid}: LOS through it is blocked")
                elif why == "doubtful":
                    reasons.append(
                        f"the line meets the edge of forest {fid} within the measurement "
                        f"doubt of {fmt(doubt)}"
                    )
                if why == "blocked":
                    blocked.append(fid)
                elif why == "doubtful":
                    doubtful.append(fid)
                continue
            if np.any(poly.min(axis=0) > hi) or np.any(poly.max(axis=0) < lo):
                continue  # nowhere near the line (nor, then, around either centre)
            # ``targets`` measured every line of the firer at once (its contact book).
            contact = line_contact(book, firer.id, target.id, ob) or segment_polygon(a, b, poly)
            if contact.contact == "clear" and contact.clearance > doubt:
                continue  # as far as the bounds (an end inside would be a crossing)
            edge_doubt = False
            if ob.see_into and not line_ends_away(book, firer.id, target.id, ob):
                inside_ = [
                    (p, boundary_distance(p.xy, poly))
                    for p in (firer, target)
                    if point_in_polygon(p.xy, poly)
                ]
                if any(d > doubt for _, d in inside_):
                    who = " and ".join(p.id for p, _ in inside_)
                    verb = "is" if len(inside_) == 1 else "are"
                    reasons.append(f"{who} {verb} in {kind} {oid}: seen into/out of, not through")
                    continue
                if contact.contact == "crosses" and contact.depth > doubt:
                    near = [p.id for p in (firer, target) if boundary_distance(p.xy, poly) <= doubt]
                    if near:
                        edge_doubt = True
                        reasons.append(
                            f"{near[0]} is within {fmt(doubt)} of the edge of {kind} {oid}: "
                            "in it (seen into/out of) or behind it is too close to call"
                        )
            if contact.contact == "crosses" and contact.depth > doubt and not edge_doubt:
                blocked.append(oid)
                reasons.append(f"the line crosses {kind} {oid}: LOS through it is blocked")
            elif contact.contact == "crosses":
                doubtful.append(oid)
                if not edge_doubt:
                    reasons.append(
                        f"the line clips {kind} {oid} by only {fmt(contact.depth)}, "
                        f"within the measurement doubt of {fmt(doubt)}"
                    )
            elif contact.contact == "touches":
                doubtful.append(oid)
                reasons.append(f"the line touches the edge of {kind} {oid}")
            elif contact.clearance <= doubt:
                doubtful.append(oid)
                reasons.append(
                    f"the line passes {fmt(contact.clearance)} from {kind} {oid}, "
                    f"within the measurement doubt of {fmt(doubt)}"
                )
        if blocked:
            return "blocked", reasons, {"blocked": blocked, "doubtful": doubtful}
        if doubtful:
            reasons.append(f"LOS is doubtful: {self.doubt_rule()}")
            return "doubtful", reasons, {"blocked": blocked, "doubtful": doubtful}
        reasons.append(self.clear_words)
        return "clear", reasons, {"blocked": blocked, "doubtful": doubtful}

    def visibility(self, scene: Scene, reuse: LineReuse | None = None) -> Visibility:
        """All-pairs range and LOS for every piece on the table, by the engine: the lines of
        :attr:`line_rule` (``centre``: :meth:`referee.maps.LineReuse.line_map`; ``clear``:
        :meth:`referee.maps.MapTable.clear_edge_distances`, LOS clear exactly when such a
        line exists), then the :attr:`los_filters` on every pair (row = firer, column =
        target: not symmetric).

        Same answers as ``ask_range``/``ask_los`` for each pair (the dashboard's
        who-sees-whom map); destroyed pieces are included as rows but a wreck never
        blocks its own line. Lines that meet a forest of several woods are settled by
        the forest rule (:meth:`_forest_levels`), one line at a time. Where only enemies
        block (:attr:`units_block`) each side's rows are its own map
        (:meth:`_enemies_map`); where range counts cells (:meth:`cell_distances`) the
        distances are those cells.
        """
        if self.line_rule == "clear":
            pieces = list(scene.pieces)
            corners = base_corners_many(  # Piece.corners, all at once
                [p.xy for p in pieces], [p.heading for p in pieces], [p.base for p in pieces]
            )
            live = np.array([p.state != "destroyed" for p in pieces], bool)
            dist = MapTable.clear_edge_distances(corners, live)
            los = np.where(np.isinf(dist), 2, 0).astype(np.int8)
            vis = Visibility(tuple(p.id for p in pieces), dist, los)
        elif self.units_block == "enemies":
            vis = self._enemies_map(scene, reuse)
        else:
            vis = self.visibility_of(scene, None, reuse=reuse)
        if len(scene.pieces) < 2:
            return vis
        filters = self.los_filters
        if filters:
            vis = self._filtered(scene, vis, filters)
        cells = self.cell_distances(scene)
        return vis if cells is None else Visibility(vis.ids, cells, vis.los)

    def cell_distances(self, scene: Scene) -> NDArray[np.float64] | None:
        """The all-pairs distances as ``range`` counts them where it counts cells, not
        inches (WW1's squares, :func:`referee.rules.grid.square_gaps`): the map then
        gives them in place of the table's; None (the default): inches, as measured."""
        return None

    def _enemies_map(self, scene: Scene, reuse: LineReuse | None) -> Visibility:
        """The centre-line map where only the firer's enemies' bases block
        (:attr:`units_block`): each side's rows are the map drawn without its own units,
        so the map is not symmetric. Distances, bearings and every obstacle are laid out
        once, and each side's pass takes all but its own units."""
        pieces = list(scene.pieces)
        sides = sorted({p.side for p in pieces})
        table = self.map_table(scene, bearings=True)
        shared = self.los_obstacles(scene, table)
        if len(sides) < 2:  # one side alone: no enemy, so no unit's base is in the way
            terrain = [o for o in shared if o.kind != "unit"]
            return self.visibility_of(scene, None, table, (terrain, None), reuse)
        if not any(o.kind == "unit" for o in shared):  # no unit in the way: one map
            return self.visibility_of(scene, None, table, (shared, None), reuse)
        single = [o for o in shared if o.forest < 0]
        prep = PreparedPolygons.of([o.polygon for o in single])  # terrain first, as each pass
        table.bearings  # noqa: B018 (cached here, before the threads read it)
        passes = []
        for side in sides:
            own = {p.id for p in pieces if p.side == side}
            sees = [o.kind != "unit" or o.piece not in own for o in shared]
            kept = [o for o, ok in zip(shared, sees, strict=True) if ok]
            keep = np.flatnonzero([ok for o, ok in zip(shared, sees, strict=True) if o.forest < 0])
            rows = np.array([p.side == side for p in pieces])
            passes.append((rows, (kept, prep.subset(keep))))

        def one_side(
            rows: NDArray[np.bool_], seen: tuple[list[Obstacle], PreparedPolygons]
        ) -> NDArray[np.int8]:
            """This side's rows of the map: only the lines it fires along."""
            return self.visibility_of(scene, rows, table, seen, reuse).los[rows]

        # The sides' passes are independent and their compiled stages release the GIL:
        # side by side on the cores once a map is big enough to repay the handing over.
        shares = [functools.partial(one_side, *side_pass) for side_pass in passes]
        if len(CORES) > 1 and len(pieces) >= SIDE_BY_SIDE:
            parts = in_shares(shares)
        else:
            parts = [share() for share in shares]
        los = np.zeros((len(pieces), len(pieces)), np.int8)
        for (rows, _), part in zip(passes, parts, strict=True):
            los[rows] = part
        return Visibility(tuple(p.id for p in pieces), table.distance, los)

    def _filtered(
        self, scene: Scene, vis: Visibility, filters: tuple[LosFilter, ...]
    ) -> Visibility:
        """``vis`` with the :attr:`los_filters` applied to every pair, as :meth:`ask_los`
        applies them to one: hidden units, sight limits and bases wholly inside a feature
        first (they only make a line worse), then the units that see all (clear whatever
        the rest says)."""
        pieces = scene.pieces
        n = len(pieces)
        los = vis.los.copy()
        xy = np.array([p.xy for p in pieces], float)
        unc = np.array([p.uncertainty for p in pieces], float)
        rows = np.arange(n)[:, None]
        for flt in filters:
            if not isinstance(flt, Hidden):
                continue
            centre = (
                vis.distance  # the same table, already made
                if self.settings.range_measure == "centre" and self.line_rule == "centre"
                else MapTable.centre_distances(xy)
            )
            outlines = [t.outline() for t in scene.terrain if t.kind in flt.cover]
            # Only centres in an outline's box get the exact test.
            covered = np.asarray(PreparedPolygons.of(outlines).near(xy, 1e-6)[0].any(axis=1), bool)
            hides = np.array([self.category(p) in flt.categories for p in pieces], bool)
            gave_away = np.zeros(n, bool)  # read only where it can matter: a flag costs
            for k in np.flatnonzero(hides & covered):
                gave_away[k] = bool(self.field(pieces[k], flt.unless))
            # Only the columns of targets that may be hidden can change.
            cols = np.flatnonzero(Hidden.may_hide(hides, gave_away, covered))[None, :]
            radius = float(getattr(self.settings, flt.radius_setting))
            code, _ = Hidden.codes(centre[rows, cols], unc[:, None] + unc[cols], radius)
            los[rows, cols] = np.maximum(los[rows, cols], code)
        for flt in filters:
            if isinstance(flt, SightLimit):
                limit = getattr(self.settings, flt.limit_setting)
                if limit is not None:  # ``distance`` is measured as range is
                    code = SightLimit.codes(vis.distance, unc[:, None] + unc, float(limit))
                    los = np.maximum(los, code)
            elif isinstance(flt, WhollyInside):
                kinds = getattr(self.settings, flt.kinds_setting)
                features = [t.outline() for t in scene.terrain if t.kind in kinds]
                corners = base_corners_many(
                    xy, [p.heading for p in pieces], [p.base for p in pieces]
                )
                depths = WhollyInside.depths(xy, corners, unc, features)
                near = np.zeros(n, bool)
                for fd in depths:
                    near |= fd.candidate
                # Only the lines from or to a base that may be wholly inside can change.
                cand = np.flatnonzero(near)
                if len(cand):
                    code, _, _ = WhollyInside.codes(depths, unc, cand[:, None], rows.T)
                    los[cand] = np.maximum(los[cand], code)
                    los[:, cand] = np.maximum(los[:, cand], code.T)
        for flt in filters:
            if not isinstance(flt, SeesAll):
                continue
            sees = np.array([self.category(p) in flt.categories for p in pieces], bool)
            if sees.any():  # most tables have none (no WW2 unit sees all)
                los[SeesAll.codes(sees, rows, np.arange(n)[None, :]) != SeesAll.NO] = 0
        np.fill_diagonal(los, 0)
        return Visibility(vis.ids, vis.distance, los)

    def map_table(self, scene: Scene, bearings: bool = False) -> MapTable:
        """The table as the all-pairs map reads it (:meth:`referee.maps.MapTable.of`):
        centres, doubts and the distances measured as ``range_measure`` says.
        ``bearings``: the map will read them (it has obstacles)."""
        return MapTable.of(scene.pieces, self.settings.range_measure, bearings)

    def visibility_of(
        self,
        scene: Scene,
        rows: NDArray[np.bool_] | None,
        table: MapTable | None = None,
        seen: tuple[Sequence[Obstacle], PreparedPolygons | None] | None = None,
        reuse: LineReuse | None = None,
    ) -> Visibility:
        """:meth:`visibility` with LOS worked out only for the lines of the pieces
        ``rows`` marks (all if None); the other lines are left clear. ``table``: the
        scene's :meth:`map_table`, when several views of one table share it; ``seen``:
        this view's :meth:`los_obstacles` and their outlines outside forests prepared
        (:meth:`referee.maps.PreparedPolygons.of`, terrain first; None: prepared here),
        when taken from a shared set. The map itself is
        :meth:`referee.maps.LineReuse.line_map`'s: this ruleset says what blocks and how a
        line meets a forest (:meth:`_forest_levels`)."""
        table = self.map_table(scene) if table is None else table
        obstacles, prep = (self.los_obstacles(scene, table), None) if seen is None else seen
        return LineReuse.line_map(table, obstacles, self._forest_levels, rows, prep, reuse)

    def _forest_levels(
        self, xy: np.ndarray, i: np.ndarray, j: np.ndarray, u: np.ndarray, polys: list[np.ndarray]
    ) -> NDArray[np.int8]:
        """Each line's verdict on a forest as a code (0 clear, 1 doubtful, 2 blocked), line
        by line as :meth:`line_of_sight` reads it: a line from inside the forest (deeper
        than the doubt) sees out of it; one within the doubt of its edge is doubtful at
        most. Where :meth:`_woods_areas_on`, each woods area is seen out of instead
        (:meth:`_woods_areas_levels`)."""
        if self._woods_areas_on():
            return self._woods_areas_levels(xy, i, j, u, polys)
        boundary = union_boundary(polys)
        levels = np.zeros(len(i), np.int8)
        for k, (a, b, doubt) in enumerate(zip(xy[i], xy[j], u, strict=True)):
            status, why = forest_contact(a, b, polys, float(doubt), boundary)
            depth_a, depth_b = status.inside(a), status.inside(b)
            if depth_a > doubt or depth_b > doubt:
                continue
            if why == "blocked" and min(abs(depth_a), abs(depth_b)) <= doubt:
                why = "doubtful"
            levels[k] = Visibility.CODES[why]
        return levels

    def _woods_areas_levels(
        self, xy: np.ndarray, i: np.ndarray, j: np.ndarray, u: np.ndarray, polys: list[np.ndarray]
    ) -> NDArray[np.int8]:
        """The all-pairs map's forest verdicts, read as :meth:`_woods_areas_line` reads them
        (each woods area seen out of, :func:`woods_view`)."""
        outlines: dict[tuple[int, ...], np.ndarray] = {}
        # Each piece's signed distance to each woods' outline, for every line at once.
        table = np.stack([signed_boundary_distance(xy, poly) for poly in polys], axis=1)
        levels = np.zeros(len(i), np.int8)
        for k, (a, b, doubt) in enumerate(zip(xy[i], xy[j], u, strict=True)):
            ends = (float(a[0]), float(a[1])), (float(b[0]), float(b[1]))
            depths = (table[i[k]].tolist(), table[j[k]].tolist())
            why = woods_view(*ends, polys, float(doubt), outlines, depths, False)[0]
            levels[k] = Visibility.CODES[why]
        return levels

    # -- moving ---------------------------------------------------------------------------

    tracks_path: ClassVar[bool] = False
    """Whether a move is judged along its tracked path (``via``), step by step (Coastal),
    rather than as the straight line from start to end."""

    def judge_move(self, scene: Scene, move: MoveQuery) -> Verdict:
        """The move template: measure the move (:meth:`measure_move`), judge its length
        against the system's limit (:meth:`move_limit`), its path (:meth:`path_checks`)
        and the terrain along it (:meth:`move_terrain`), whether the piece (and what it
        moves with, :meth:`moving_piece`) may act, then the system's extra checks
        (:meth:`move_findings`), which add reasons and can only make it worse."""
        piece, start, end = move.piece, move.start, move.end
        placed = self.placed_freely(piece)
        if placed is not None:
            d = centre_distance(start.xy, end.xy)
            return Verdict(
                "move",
                True,
                (placed[0],),
                distance=d,
                uncertainty=2 * piece.uncertainty,
                summary=f"move {piece.id}: {fmt(d)}, {placed[1]} (no limit)",
            )
        mover = self.moving_piece(scene, piece)
        doubt = move.doubt
        measured = self.measure_move(move)
        judged = self.move_limit(scene, move, mover, measured)
        reasons = [*judged.lead, measured.reason, *judged.reasons]
        oks: list[bool | None] = [judged.ok]
        details: dict[str, Any] = {
            "from": {"x": start.x, "y": start.y, "heading": start.heading},
            "to": {"x": end.x, "y": end.y, "heading": end.heading},
            **judged.details,
        }
        path_ok, path_reasons, path_details = self.path_checks(move)
        if path_ok is not True or path_reasons:
            oks.append(path_ok)
            reasons += path_reasons
            details.update(path_details)
        terrain_ok, terrain_reasons, stopped = self.terrain_along(scene, move, reasons)
        oks.append(terrain_ok)
        acting = self.can_act(piece, True, reasons)
        if mover is not piece:
            reasons.append(f"{piece.id} moves with {mover.id}")
            acting = worst([acting, self.can_act(mover, True, reasons)])
        oks.append(acting)
        ok = worst(oks)
        causes = []
        if judged.over:
            causes.append("over the limit")
        if terrain_ok is False:
            bad = [r for r in terrain_reasons if not r.startswith(("entered", "too close"))]
            bad += [r for r in terrain_reasons if "went on" in r]
            causes.append((bad or terrain_reasons)[0].split(":")[0])
        if acting is False:
            causes.append(f"{piece.id} may not act")
        if mover is not piece:
            details["moved_with"] = mover.id
        if stopped:
            details["stopped_in"] = stopped
        word = LEGAL(ok)
        if ok is None and judged.doubtful_word:
            word = judged.doubtful_word
        limit = judged.limit
        limit_text = f" ({judged.label} {inches(limit)})" if limit is not None else ""
        if causes and judged.explain:
            limit_text += ": " + "; ".join(causes)
        verdict = Verdict(
            "move",
            ok,
            tuple(reasons),
            distance=measured.distance,
            uncertainty=doubt,
            limit=limit,
            details=details,
            summary=f"move {piece.id}: {fmt(measured.distance)}{pm(doubt)}, {word}{limit_text}",
        )
        findings = [
            *self.moved_over(scene, move, verdict),
            *self.move_findings(scene, move, verdict),
        ]
        return worsen(verdict, findings)

    def placed_freely(self, piece: Piece) -> tuple[str, str] | None:
        """(reason, what) when the piece is placed anywhere, not moved (an impact marker):
        then any move is legal."""
        return None

    def measure_move(self, move: MoveQuery) -> Measured:
        """The move's length as the system measures it: the displacement of the front of
        the base or of its centre (``move_measure``)."""
        start, end = move.start, move.end
        if self.settings.move_measure == "front":
            depth = move.piece.base[1]
            p0 = front_point(start.x, start.y, start.heading, depth)
            p1 = front_point(end.x, end.y, end.heading, depth)
            how = "front of the base"
        else:
            p0, p1, how = start.xy, end.xy, "base centre"
        distance = centre_distance(p0, p1)
        return Measured(distance, p0, p1, f"moved {fmt(distance)} measured at the {how}")

    def move_limit(
        self, scene: Scene, move: MoveQuery, mover: Piece, measured: Measured
    ) -> MoveLimit:
        """The length against the limit: the query's allowance, else the mover's own
        (:meth:`move_allowance`), under its cap (:meth:`move_cap`), with stretches in rough
        ground or on roads counted at :meth:`terrain_factor` (:meth:`move_cost`)."""
        allowance = move.allowance
        distance = measured.distance
        reasons: list[str] = []
        details: dict[str, Any] = {}
        own = self.move_allowance(mover) if allowance is None else None
        cost, stretches = self.move_cost(scene, mover, measured.p0, measured.p1)
        if abs(cost - distance) > 1e-9:
            reasons.append(
                "counted "
                + ", ".join(f"{fmt(s)} x{f:g} ({why})" for s, f, why in stretches if f != 1)
                + f": {fmt(cost)} of allowance"
            )
        cap = self.move_cap(mover)
        base_allowance = float(allowance) if allowance is not None else own
        limits = [x for x in (base_allowance, cap) if x is not None]
        limit = min(limits) if limits else None
        ok: bool | None = True
        if limit is not None:
            ok = judge(cost, limit, move.doubt * max(1.0, cost / max(distance, 1e-9)))
            if cap is not None and (base_allowance is None or cap < base_allowance):
                source = self.cap_rule(mover, cap)
            elif allowance is None and own is not None:
                source = f"{mover.id} ({self.category(mover)}) moves {inches(own)}"
            else:
                source = f"allowance {inches(float(limit))}"
            word = Words("within", "exceeds", "too close to call against")(ok)
            reasons.append(f"{fmt(cost)} {word} the limit: {source}")
        if allowance is not None:
            details["allowance"] = float(allowance)
        elif own is not None:
            details["allowance"] = own
        if abs(cost - distance) > 1e-9:
            details["counted"] = cost
        return MoveLimit(ok, limit, reasons, details, over=ok is False)

    def path_checks(self, move: MoveQuery) -> tuple[bool | None, list[str], dict[str, Any]]:
        """Checks of the path's shape (a vessel's turns): (ok, reasons, details)."""
        return True, [], {}

    def terrain_along(
        self, scene: Scene, move: MoveQuery, reasons: list[str]
    ) -> tuple[bool | None, list[str], str | None]:
        """:meth:`move_terrain` along the move (each step of the tracked path where the
        system judges it, :attr:`tracks_path`), its reasons added to ``reasons``."""
        piece, doubt = move.piece, move.doubt
        if not self.tracks_path:
            ok, why, stopped = self.move_terrain(scene, piece, move.start, move.end, doubt / 2)
            reasons += why
            return ok, why, stopped
        poses = [move.start, *move.via, move.end]
        # Only terrain near the whole path can matter to any of its steps.
        pts = np.array([p.xy for p in poses])
        reach = max(piece.base) + doubt + 1e-6
        lo, hi = pts.min(axis=0) - reach, pts.max(axis=0) + reach
        near = tuple(
            t
            for t in scene.terrain
            if np.all(t.outline().min(axis=0) <= hi) and np.all(t.outline().max(axis=0) >= lo)
        )
        nearby = dataclasses.replace(scene, terrain=near)
        oks: list[bool | None] = []
        said: list[str] = []
        first: str | None = None
        for a, b in itertools.pairwise(poses):
            ok_t, why, stopped = self.move_terrain(nearby, piece, a, b, doubt / 2)
            oks.append(ok_t)
            new = [r for r in why if r not in reasons]
            reasons += new
            said += new
            first = first or stopped
        return worst(oks), said, first

    uncrossable: ClassVar[str | None] = None
    """What the pieces a move may not cross are called (:meth:`cannot_cross`), e.g.
    ``"large-unit corpse"``; None when a move may cross any piece."""

    def cannot_cross(self, piece: Piece) -> bool:
        """Whether a move may not pass over ``piece`` (with :attr:`uncrossable` set)."""
        return False

    def moved_over(self, scene: Scene, move: MoveQuery, verdict: Verdict) -> list[Finding]:
        """A move whose base, swept from start to end, crosses a piece it may not cross is
        illegal; too close to call when only the doubt makes it cross."""
        if self.uncrossable is None:
            return []
        piece, start = move.piece, move.start
        step = np.array([move.end.x - start.x, move.end.y - start.y], float)
        w, d = piece.base
        crossed: list[str] = []
        maybe: list[str] = []
        for p in scene.pieces:
            if p.id == piece.id or not self.cannot_cross(p):
                continue
            # The mover's base shrunk by the doubt surely crosses; grown by it, may cross.
            g = (verdict.uncertainty or 0.0) / 2 + p.uncertainty
            inner = base_corners(
                start.x, start.y, start.heading, (max(w - 2 * g, 1e-6), max(d - 2 * g, 1e-6))
            )
            outer = base_corners(start.x, start.y, start.heading, (w + 2 * g, d + 2 * g))
            if sweep_entry(inner, step, p.corners()) is not None:
                crossed.append(p.id)
            elif g > 0 and sweep_entry(outer, step, p.corners()) is not None:
                maybe.append(p.id)
        what = self.uncrossable
        if crossed:
            why = f"moves over the {what} {', '.join(crossed)}"
            summary = f"move {piece.id}: illegal: {what}s cannot be moved over"
            return [Finding(False, (why,), summary=summary)]
        if maybe and verdict.ok is not False:
            why = f"too close to call whether it moves over the {what} " + ", ".join(maybe)
            summary = f"move {piece.id}: too close to call ({what})"
            return [Finding(None, (why,), summary=summary)]
        return []

    def move_findings(self, scene: Scene, move: MoveQuery, verdict: Verdict) -> Sequence[Finding]:
        """The system's extra checks of a move (a corpse moved over, an enemy touched on
        the way): each adds reasons and can only make the verdict worse."""
        return ()

    def moving_piece(self, scene: Scene, piece: Piece) -> Piece:
        """Whose allowance and caps a move uses (a towed gun moves as its vehicle)."""
        return piece

    def cap_rule(self, piece: Piece, cap: float) -> str:
        return f"{piece.id} is {self.category(piece)}: at most {inches(cap)} per move"

    def move_cost(
        self, scene: Scene, piece: Piece, a: Sequence[float], b: Sequence[float]
    ) -> tuple[float, list[tuple[float, float, str]]]:
        """Inches of allowance a straight move from ``a`` to ``b`` uses, and its stretches
        ``(inches, factor, terrain)``: each stretch inside terrain counts at the
        :meth:`terrain_factor` of the terrain it lies in; where several overlap, the
        factor that helps the mover most applies (a road through woods is a road)."""
        length = centre_distance(a, b)
        factored = [(t, self.terrain_factor(piece, t)) for t in scene.terrain]
        factored = [(t, f) for t, f in factored if f != 1.0]
        if length <= 1e-12 or not factored:
            return length, [(length, 1.0, "open")]
        cuts = {0.0, 1.0}
        spans_of = []
        for t, f in factored:
            spans = segment_spans(a, b, t.outline(), strict=False)
            spans_of.append((t, f, spans))
            for s0, s1 in spans:
                cuts.update((s0, s1))
        ts = sorted(cuts)
        total = 0.0
        stretches: list[tuple[float, float, str]] = []
        for t0, t1 in itertools.pairwise(ts):
            if t1 - t0 <= 1e-12:
                continue
            mid = (t0 + t1) / 2
            here = [
                (f, t.id) for t, f, spans in spans_of if any(s0 <= mid <= s1 for s0, s1 in spans)
            ]
            factor, name = min(here) if here else (1.0, "open")
            inch = (t1 - t0) * length
            total += inch * factor
            if stretches and stretches[-1][1] == factor and stretches[-1][2] == name:
                stretches[-1] = (stretches[-1][0] + inch, factor, name)
            else:
                stretches.append((inch, factor, name))
        return total, stretches

    def move_terrain(
        self, scene: Scene, piece: Piece, start: Pose, end: Pose, doubt: float = 0.0
    ) -> tuple[bool | None, list[str], str | None]:
        """Terrain checks of a move. The path is the base swept along the straight line
        between the start and end centres (``move_path: swept``; ``centre``: that line
        only), plus the base where it ends. A piece is *in* a feature at the start when
        its base centre is inside it, and leaving that is free; the first other difficult
        feature the path enters ends the move (the base must end overlapping it); terrain
        the piece may not enter at all (:meth:`may_enter`) makes the move illegal;
        impassable terrain is crossed by the centre only on a crossing (a bridge).

        With a position ``doubt``, the base shrunk by it decides what is certainly
        entered or overlapped and the base grown by it what possibly is; a contact only
        possible makes the verdict too close to call (None) instead of a no.
        """
        ok: bool | None = True
        reasons: list[str] = []
        a, b = np.array(start.xy), np.array(end.xy)
        base = piece.base
        inner = [footprint(start, base, -doubt), footprint(end, base, -doubt)]
        outer = [footprint(start, base, doubt), footprint(end, base, doubt)]
        swept = self.settings.move_path == "swept"
        entered: list[tuple[float, Terrain, bool]] = []
        reach = np.concatenate(outer)
        lo, hi = reach.min(axis=0) - 1e-6, reach.max(axis=0) + 1e-6
        for t in scene.terrain:
            poly = t.outline()
            if np.any(poly.min(axis=0) > hi) or np.any(poly.max(axis=0) < lo):
                continue  # the move's footprint never comes near it
            overlapping = polygons_overlap(outer[0], poly)
            if swept and not overlapping:
                sure_at = sweep_entry(inner[0], b - a, poly)
                maybe_at = sure_at if doubt == 0 else sweep_entry(outer[0], b - a, poly)
            else:
                # A base that already overlaps a feature (its centre outside) enters it
                # when its centre does, as does every move on the centre-line switch.
                spans = segment_spans(a, b, poly) if a.tolist() != b.tolist() else []
                sure_at = maybe_at = spans[0][0] if spans else None
            ends_sure = polygons_overlap(inner[1], poly)
            ends_maybe = ends_sure or (doubt > 0 and polygons_overlap(outer[1], poly))
            if overlapping and not swept:
                pass
            elif overlapping:  # entering means the centre goes in, not staying put
                ends_sure = ends_maybe = point_in_polygon(end.xy, poly, strict=True)
            sure = sure_at is not None or ends_sure
            maybe = maybe_at is not None or ends_maybe
            started_in = point_in_polygon(start.xy, poly)
            forbidden = self.may_enter(piece, t)
            if forbidden and sure:
                ok = False
                reasons.append(forbidden)
            elif forbidden and maybe:
                ok = worst([ok, None])
                reasons.append(f"too close to call: {forbidden} (within {fmt(doubt)})")
            if t.kind in self.settings.difficult and not started_in and maybe:
                at_ = maybe_at if maybe_at is not None else 1.0
                entered.append((at_, t, sure))
            if t.kind in self.settings.impassable:
                spans = segment_spans(a, b, poly) if a.tolist() != b.tolist() else []
                wet = subtract(
                    spans,
                    [
                        s
                        for c in scene.terrain
                        if c.kind in self.settings.crossings
                        for s in segment_spans(a, b, c.outline(), strict=False)
                    ],
                )
                on_crossing = any(
                    point_in_polygon(end.xy, c.outline())
                    for c in scene.terrain
                    if c.kind in self.settings.crossings
                )
                if wet or (point_in_polygon(end.xy, poly, strict=True) and not on_crossing):
                    ok = False
                    reasons.append(
                        f"{t.kind} {t.id} is impassable except at a "
                        f"{' or '.join(self.settings.crossings) or 'crossing'}"
                    )
        stopped = None
        if entered:
            entered.sort(key=lambda e: e[0])
            _, first_t, certain = entered[0]
            stopped = first_t.id
            poly = first_t.outline()
            ends_sure = polygons_overlap(footprint(end, base, -doubt), poly)
            ends_maybe = ends_sure or polygons_overlap(footprint(end, base, doubt), poly)
            if ends_sure or (ends_maybe and not certain):
                reasons.append(f"entered {first_t.kind} {first_t.id}: the move ends there")
            elif not certain:
                ok = worst([ok, None])
                reasons.append(
                    f"too close to call whether the move enters {first_t.kind} {first_t.id} "
                    f"(within {fmt(doubt)}): if it does, the move ends there"
                )
            elif ends_maybe:
                ok = worst([ok, None])
                reasons.append(
                    f"entered {first_t.kind} {first_t.id}: too close to call whether the base "
                    f"ends overlapping it (within {fmt(doubt)})"
                )
            else:
                ok = False
                reasons.append(
                    f"entered {first_t.kind} {first_t.id} and went on: entering difficult "
                    "terrain ends the move (continue with a later action)"
                )
        return ok, reasons, stopped


@dataclass(frozen=True)
class Reach:
    """How far a spotter sees a target, as a system reckons it (:meth:`Spotting.spot_reach`)."""

    within: bool | None
    """The target is within the spotting distance (None: too close to call)."""
    distance: float
    limit: float
    reasons: list[str]
    details: dict[str, Any]


class Spotting(TableRuleset):
    """A system with a ``spot`` question (Coastal at night, Divisional): the target
    within the spotting distance the system reckons (:meth:`spot_reach`) and a clear
    line of sight; the system may add checks after the line (:meth:`spot_after_line`)."""

    spot_limit_word: ClassVar[str] = "limit"
    """The summary's name for the spotting distance."""
    spot_doubtful_word: ClassVar[str] = "too close to call"

    def spot_reach(self, scene: Scene, query: PairQuery) -> Reach:
        raise NotImplementedError

    def spot_after_line(
        self,
        query: PairQuery,
        reach: Reach,
        los: str,
        seen: bool | None,
        reasons: list[str],
        details: dict[str, Any],
    ) -> tuple[list[bool | None], str | None]:
        """Checks after the line of sight (oks, and the summary's word in place of the
        verdict's), adding reasons and details: a submarine is then spotted on a die."""
        return [], None

    def ask_spot(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        return self.judge_spot(scene, PairQuery.parse(scene, query))

    def judge_spot(self, scene: Scene, query: PairQuery) -> Verdict:
        """Can ``from`` spot ``to``: within reach and a clear line of sight."""
        spotter, target, doubt = query.firer, query.target, query.doubt
        reach = self.spot_reach(scene, query)
        reasons = list(reach.reasons)
        los, why, blockers = self.line_of_sight(scene, spotter, target)
        seen = {"clear": True, "blocked": False, "doubtful": None}[los]
        if los != "clear":
            reasons += why
        details = {**reach.details, "blocking": blockers["blocked"]}
        more, word = self.spot_after_line(query, reach, los, seen, reasons, details)
        ok = self.can_act(spotter, worst([reach.within, seen, *more]), reasons)
        if word is None:
            word = Words("spotted", "not spotted", self.spot_doubtful_word)(ok)
        return Verdict(
            "spot",
            ok,
            tuple(reasons),
            distance=reach.distance,
            uncertainty=doubt,
            limit=reach.limit,
            los=los,
            details=details,
            summary=f"spot {spotter.id} -> {target.id}: {fmt(reach.distance)}{pm(doubt)}, "
            f"{word} ({self.spot_limit_word} {inches(reach.limit)})",
        )


@dataclass(frozen=True)
class Placed:
    """One piece's set-up check (:class:`Deployment`): how far in from its side's edge it
    reaches against its zone."""

    piece: Piece
    edge: str
    depth: float
    zone: float
    ok: bool | None


class Deployment(TableRuleset):
    """A system with a ``deployment`` question: every piece asked about reaches no deeper
    from its side's table edge than its set-up zone (:meth:`deploy_zone`), measured as
    :meth:`deploy_depth` says; the system words the answer (:meth:`outside_reason`,
    :meth:`deployment_verdict`)."""

    deploy_edge_problem: ClassVar[str] = 'no deployment edge for side {side!r}: add "deployment"'
    """The one-line error for a side with no edge (``{side}`` is filled in)."""
    deploy_edge_path: ClassVar[str] = ".edge"

    def deploy_pieces(self, scene: Scene, query: Mapping[str, Any]) -> list[Piece]:
        """The pieces asked about: every live one, or the ``side``'s."""
        side = query.get("side")
        return [
            p for p in scene.pieces if p.state != "destroyed" and (side is None or p.side == side)
        ]

    def deploy_edges(
        self, scene: Scene, query: Mapping[str, Any], pieces: Sequence[Piece]
    ) -> dict[str, str]:
        """Each side's edge: the scene's ``deployment``, or the query's ``edge`` for the
        sides asked about."""
        edges = dict(scene.deployment)
        if "edge" in query:
            try:
                edge = normalise_edge(str(query["edge"]))
            except ValueError as error:
                raise QueryError(".edge", str(error)) from None
            edges.update({p.side: edge for p in pieces})
        for p in pieces:
            if p.side not in edges:
                raise QueryError(
                    self.deploy_edge_path, self.deploy_edge_problem.format(side=p.side)
                )
        return edges

    deploy_zone_setting: ClassVar[str | None] = None
    """The setting that is every piece's zone depth, when one is (then the verdict's limit)."""
    deploy_outside: ClassVar[str] = "{piece} reaches {depth} from the {edge} edge: {word} its zone"
    """The sentence for a piece not surely inside its zone, over ``piece``, ``depth``,
    ``edge``, ``zone`` (as the rules write it), ``zone_in`` (to the hundredth) and ``word``
    (:attr:`deploy_words`)."""
    deploy_words: ClassVar[Words] = Words("inside", "outside", "too close to call against")
    deploy_all_inside: ClassVar[str | None] = None
    """Said when every piece is inside, over ``n`` and ``zone`` (:attr:`deploy_zone_setting`)."""

    def deploy_zone(self, scene: Scene, piece: Piece, edge: str, query: Mapping[str, Any]) -> float:
        """How deep the piece's set-up zone reaches from its edge, inches."""
        if self.deploy_zone_setting is None:
            raise NotImplementedError
        return float(getattr(self.settings, self.deploy_zone_setting))

    def deploy_depth(self, scene: Scene, piece: Piece, edge: str) -> float:
        """How far in from the edge the piece reaches: its base's farthest corner."""
        return float(np.max(from_edge(piece.corners(), edge, scene)))

    def deploy_check(
        self, scene: Scene, piece: Piece, edge: str, ok: bool | None, reasons: list[str]
    ) -> bool | None:
        """Further checks of one piece (off the table), which can only make ``ok`` worse."""
        return ok

    def outside_reason(self, row: Placed) -> str:
        """The sentence for a piece not surely inside its zone."""
        return self.deploy_outside.format(
            piece=row.piece.id,
            depth=fmt(row.depth),
            edge=row.edge,
            zone=inches(row.zone),
            zone_in=fmt(row.zone),
            word=self.deploy_words(row.ok),
        )

    def deployment_verdict(
        self, scene: Scene, rows: list[Placed], reasons: list[str], ok: bool | None
    ) -> Verdict:
        zone = None
        if self.deploy_zone_setting is not None:
            zone = float(getattr(self.settings, self.deploy_zone_setting))
        if ok and self.deploy_all_inside is not None:
            reasons.append(self.deploy_all_inside.format(n=len(rows), zone=inches(zone or 0.0)))
        outside = [r.piece.id for r in rows if r.ok is not True]
        return Verdict(
            "deployment",
            ok,
            tuple(reasons) or ("every unit is inside its set-up zone",),
            limit=zone,
            details={"outside": outside},
            summary="deployment: " + ("all inside" if ok else f"outside: {', '.join(outside)}"),
        )

    def ask_deployment(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        pieces = self.deploy_pieces(scene, query)
        edges = self.deploy_edges(scene, query, pieces)
        rows: list[Placed] = []
        reasons: list[str] = []
        for p in pieces:
            edge = edges[p.side]
            zone = self.deploy_zone(scene, p, edge, query)
            depth = self.deploy_depth(scene, p, edge)
            ok = self.deploy_check(scene, p, edge, judge(depth, zone, p.uncertainty), reasons)
            rows.append(Placed(p, edge, depth, zone, ok))
            if ok is not True:
                reasons.append(self.outside_reason(rows[-1]))
        return self.deployment_verdict(scene, rows, reasons, worst([r.ok for r in rows]))


# -- shared geometry of the rules ----------------------------------------------------------


def footprint(pose: Pose, base: tuple[float, float], grow: float) -> np.ndarray:
    """The corners of a base of size ``base`` at ``pose``, grown on every side by
    ``grow`` (shrunk when negative, never below a hair): a move's footprint with the
    position doubt added or taken away."""
    w, d = base
    size = (max(w + 2 * grow, 1e-6), max(d + 2 * grow, 1e-6))
    return base_corners(pose.x, pose.y, pose.heading, size)


def sweep_entry(base: np.ndarray, d: np.ndarray, poly: np.ndarray) -> float | None:
    """The first fraction ``t`` in [0, 1] at which the polygon ``base`` moved by ``t * d``
    shares area with ``poly`` (0 if it already does), or None if it never does. Touching
    without overlap does not count, like :func:`~referee.geometry.polygons_overlap`.

    >>> sq = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    >>> wood = [(3, -5), (5, -5), (5, 5), (3, 5)]
    >>> sweep_entry(sq, np.array([4.0, 0.0]), wood)
    0.5
    >>> sweep_entry(sq, np.array([2.0, 0.0]), wood) is None   # stops touching it
    True
    >>> mine = [(2, 0), (3, 0), (3, 1), (2, 1)]                  # sides lined up with sq's
    >>> round(sweep_entry(sq, np.array([8.0, 0.0]), mine), 6)    # passes over it
    0.125
    >>> sweep_entry(sq + [0, 1], np.array([8.0, 0.0]), mine) is None   # slides past beside
    True
    """
    poly = np.asarray(poly, float)
    # Most outlines lie clear of the swept box: none of the corner searches below can meet them.
    swept_lo = np.minimum(base.min(axis=0), base.min(axis=0) + d)
    swept_hi = np.maximum(base.max(axis=0), base.max(axis=0) + d)
    if np.any(swept_lo > poly.max(axis=0)) or np.any(swept_hi < poly.min(axis=0)):
        return None
    if polygons_overlap(base, poly):
        return 0.0
    if float(d @ d) <= 1e-18:
        return None
    best: float | None = None
    # Contact starts where a base corner meets the outline or an outline corner meets
    # the base: the spans of those corners' paths inside the other polygon.
    # A corner sliding along an edge (rounding puts it a hair inside) is not entering.
    for starts, step, other in ((base, d, poly), (poly, -d, base)):
        for v in starts:
            for s0, s1 in segment_spans(v, v + step, other):
                if boundary_distance(v + (s0 + s1) / 2 * step, other) > 1e-9:
                    best = s0 if best is None else min(best, s0)
                    break
    if best is None:
        # Sides lined up exactly with the outline's (a 1in base over a 1in minefield
        # square): every corner slides along an edge, yet the two share area wherever
        # they meet. A base a hair smaller tells sharing area from touching along an
        # edge: its corners run just inside the lined-up sides, so their paths find
        # where the overlap starts, wherever along the move that is.
        centre = base.mean(axis=0)
        size = float(np.max(np.linalg.norm(base - centre, axis=1)))
        small = centre + (base - centre) * (1 - 1e-7 / max(size, 1e-9))
        for starts, step, other in ((small, d, poly), (poly, -d, small)):
            for v in starts:
                spans = segment_spans(v, v + step, other)
                if spans:
                    best = spans[0][0] if best is None else min(best, spans[0][0])
        return best
    return float(best)


def union_boundary(polys: Sequence[np.ndarray]) -> np.ndarray:
    """The outline of a union of polygons as segments ``(m, 2, 2)``: each member's edges
    minus the stretches lying inside or on another member (a shared seam is interior)."""
    segs = []
    for k, poly in enumerate(polys):
        nxt = np.roll(poly, -1, axis=0)
        for p, q in zip(poly, nxt, strict=True):
            cover = [
                s
                for m, other in enumerate(polys)
                if m != k
                for s in segment_spans(p, q, other, strict=False)
            ]
            for t0, t1 in subtract([(0.0, 1.0)], cover):
                segs.append((p + t0 * (q - p), p + t1 * (q - p)))
    return np.array(segs, float).reshape(-1, 2, 2)


@dataclass(frozen=True)
class ForestStatus:
    polys: tuple[np.ndarray, ...]
    boundary: np.ndarray

    def inside(self, point: Sequence[float]) -> float:
        """Signed distance to the forest's outline: positive inside, negative outside."""
        return float(self.inside_many(np.asarray(point, float).reshape(1, 2))[0])

    def inside_many(self, points: np.ndarray) -> np.ndarray:
        """:meth:`inside` of each of ``points`` (``(k, 2)``), at once."""
        d = _seg_distances(points, self.boundary)
        held = np.zeros(len(points), bool)
        for poly in self.polys:
            held |= points_in_polygon(points, poly)
        return np.where(held, d, -d)


def _seg_distances(p: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """Each point's distance to the nearest of segments ``segs`` (``(m, 2, 2)``)."""
    if not len(segs):
        return np.full(len(p), math.inf)
    a, b = segs[:, 0], segs[:, 1]
    ab = b - a
    L = np.einsum("ij,ij->i", ab, ab)
    t = np.clip(np.einsum("kij,ij->ki", p[:, None] - a, ab) / np.where(L > 0, L, 1), 0, 1)
    return np.asarray(np.min(np.linalg.norm(a + t[..., None] * ab - p[:, None], axis=2), axis=1))


def forest_contact(
    a: Sequence[float],
    b: Sequence[float],
    polys: Sequence[np.ndarray],
    doubt: float,
    boundary: np.ndarray | None = None,
) -> tuple[ForestStatus, str]:
    """How the segment ``a``-``b`` meets a forest (several touching woods as one area):
    ``blocked`` when some point of it lies inside the forest deeper than ``doubt``,
    ``doubtful`` when it meets the forest or passes within the doubt of it, else
    ``clear``. Depth is the distance to the forest's own outline, so a line along the
    seam between two woods is deep inside."""
    status = ForestStatus(tuple(polys), union_boundary(polys) if boundary is None else boundary)
    A, B = np.asarray(a, float), np.asarray(b, float)
    spans: list[tuple[float, float]] = []
    lo, hi = np.minimum(A, B) - 1e-6, np.maximum(A, B) + 1e-6
    for poly in polys:
        if np.all(poly.min(axis=0) <= hi) and np.all(poly.max(axis=0) >= lo):  # boxes meet
            spans += segment_spans(A, B, poly, strict=False)
    if spans:
        ts = np.concatenate([np.linspace(s0, s1, 33) for s0, s1 in spans])
        depth = float(status.inside_many(A + ts[:, None] * (B - A)).max())
        if depth > doubt:
            return status, "blocked"
        return status, "doubtful"
    touching = any(segment_polygon(a, b, poly).clearance <= doubt for poly in polys)
    return status, "doubtful" if touching else "clear"


def _signed_depth(point: Sequence[float], poly: np.ndarray) -> float:
    """Distance from ``point`` to the outline: positive inside, negative outside."""
    d = boundary_distance(point, poly)
    return d if point_in_polygon(point, poly) else -d


def woods_view(
    a: Sequence[float],
    b: Sequence[float],
    polys: Sequence[np.ndarray],
    doubt: float,
    outlines: dict[tuple[int, ...], np.ndarray] | None = None,
    depths: tuple[Sequence[float], Sequence[float]] | None = None,
    name_members: bool = True,
) -> tuple[str, list[int], list[int], list[int]]:
    """How the segment ``a``-``b`` meets a forest of touching woods ``polys`` when each
    woods area is seen into and out of but not through (D.2 designer's note):
    ``(clear/doubtful/blocked, members an end is certainly in, members an end is within
    the doubt of the edge of, members the verdict is about)``.

    The members an end is certainly in are seen out of (or into); the others block as
    one area (so a line along a seam between two of them is blocked). An end within
    the doubt of a member's edge may be in it or not: blocked only if the line is
    blocked without that member, clear only if it is clear with it. ``outlines`` keeps
    the outline of each union of members worked out, for the next line; ``depths``, if
    given, are each end's signed distance to each member's outline (positive inside).
    Without ``name_members`` the members the verdict is about are not worked out (the
    all-pairs map only needs the verdict).
    """
    depth = depths or tuple([_signed_depth(p, poly) for poly in polys] for p in (a, b))
    every = range(len(polys))
    sure = [m for m in every if depth[0][m] > doubt or depth[1][m] > doubt]
    maybe = [
        m
        for m in every
        if m not in sure and (abs(depth[0][m]) <= doubt or abs(depth[1][m]) <= doubt)
    ]
    wide = [m for m in every if m not in sure]
    narrow = [m for m in wide if m not in maybe]

    def verdict(members: list[int]) -> str:
        if not members:
            return "clear"
        key = tuple(members)
        cache = {} if outlines is None else outlines
        chosen = [polys[m] for m in members]
        if key not in cache:
            cache[key] = union_boundary(chosen)
        return forest_contact(a, b, chosen, doubt, cache[key])[1]

    def met(members: list[int]) -> list[int]:
        """The members the line crosses, touches or passes within the doubt of."""
        if not name_members:
            return []
        return [m for m in members if segment_polygon(a, b, polys[m]).clearance <= doubt]

    wide_why = verdict(wide)
    if not sure and not maybe:  # the whole forest, named as one
        return wide_why, sure, maybe, wide
    if not maybe:
        return wide_why, sure, maybe, met(wide)
    if verdict(narrow) == "blocked":
        return "blocked", sure, maybe, met(narrow)
    if wide_why == "clear":
        return "clear", sure, maybe, met(wide)
    return "doubtful", sure, maybe, met(wide)


def subtract(
    spans: Sequence[tuple[float, float]], cover: Sequence[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Parts of ``spans`` not covered by ``cover`` (longer than a hair).

    >>> subtract([(0.0, 1.0)], [(0.25, 0.5)])
    [(0.0, 0.25), (0.5, 1.0)]
    """
    out = list(spans)
    for c0, c1 in cover:
        nxt = []
        for s0, s1 in out:
            if c1 <= s0 or c0 >= s1:
                nxt.append((s0, s1))
                continue
            if c0 > s0:
                nxt.append((s0, c0))
            if c1 < s1:
                nxt.append((c1, s1))
        out = nxt
    return [(a, b) for a, b in out if b - a > 1e-9]


def from_edge(points: np.ndarray, edge: str, scene: Scene) -> np.ndarray:
    """How far each point is in from a table edge (negative: off the table)."""
    if edge == "top":
        return points[:, 1]
    if edge == "bottom":
        return scene.table.depth - points[:, 1]
    if edge == "left":
        return points[:, 0]
    return scene.table.width - points[:, 0]
