"""Paper Tigers (Don Bailey): WWII skirmish with paper miniatures and playing cards.

Everything positions and cards decide, per RULES.md section 1. Questions
(``"ask"`` values) and their fields:

- ``range``: ``from``, ``to``. Infantry fire at most 12", others at any range.
- ``los``: ``from``, ``to``. Centre to centre; woods, buildings and hills block
  through but not into or out of; burning wrecks block with their base.
- ``move``: ``piece``, ``to`` (pose), optional ``from`` (pose; default the
  piece's pose in the scene) and ``allowance`` (the dice total).
- ``follow_me``: ``leader``, optional ``action``; every legal chain.
- ``follow_check``: ``follower`` and ``follows`` (or ``chain``: ids leader
  first): after a follow-move, is each follower within 3" of the unit it follows.
- ``objective``: ``objective`` (terrain id; default every objective): controller.
- ``initiative``: ``cards`` (a list, or piece id -> card): acting order.
- ``action``: ``card``, ``action`` (``move``/``fire``/``recover``), optional
  ``dice`` and ``piece``: dice count, difficulty, total, success, allowance.
- ``cards``: ``dice`` (side -> the two dice rolled): cards dealt this turn;
  also checks that no model holds more than two cards.
- ``deployment``: optional ``side``/``pieces``/``edge``: inside the own third.
- ``victory``: victory points for destroyed units and controlled objectives.

A pose is ``{"x": .., "y": .., "heading": ..}`` (heading optional). Distances
within their combined measurement uncertainty of a limit give ``ok: null``.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.errors import SceneError, at, counted
from referee.geometry import (
    boundary_distance,
    point_in_polygon,
    polygon_distance,
)
from referee.rules.base import Ruleset
from referee.rules.cards import Card
from referee.rules.core import (
    DIE_ROLL,
    Deployment,
    Finding,
    Placed,
    TableRuleset,
    fmt,
    from_edge,
    inches,
    piece_arg,
)
from referee.rules.flow import Declared, GameFlow, Judgement, SettledMove
from referee.rules.queries import LosQuery, PairQuery, RangeQuery
from referee.rules.settings import setting
from referee.rules.sight import WoodsAreas
from referee.rules.values import (
    PieceField,
    PieceRange,
    QueryError,
    Verdict,
    as_ids,
    judge,
    name_key,
)
from referee.rules.wording import Words
from referee.scene import Piece, Scene, Terrain
from referee.validate import is_number

#: Piece kind (lowercase, letters and digits only) -> category.
KINDS: dict[str, str] = {
    "infantry": "infantry",
    "squad": "infantry",
    "gun": "gun",
    "atgun": "gun",
    "antitankgun": "gun",
    "fieldgun": "gun",
    "artillery": "gun",
    "tank": "tank",
    "assaultgun": "tank",
    "tankdestroyer": "tank",
    "armouredcar": "armoured car",
    "armoredcar": "armoured car",
    "halftrack": "halftrack",
    "truck": "truck",
    "jeep": "jeep",
    "weaponscarrier": "weapons carrier",
    "vehicle": "vehicle",
}
VEHICLES = ("tank", "armoured car", "halftrack", "truck", "jeep", "weapons carrier", "vehicle")


class PaperTigers(Deployment):
    name = "paper-tigers"
    aliases = ("papertigers", "pt", "paper tigers")
    title = "Paper Tigers"
    source = "000_5e0c892317a2d06e.txt"
    kinds = KINDS
    vehicles = VEHICLES
    piece_fields = (
        PieceField("cards", "count", 0, "cards assigned at the start of this turn"),
        PieceField("followed", "piece", None, "the unit it already followed this turn"),
        PieceField("actions", "count", 0, "actions taken this turn (own cards and following)"),
        PieceField("towed_by", "piece", None, "the vehicle towing this gun (limbered, F.6)"),
        PieceField("carried_by", "piece", None, "the vehicle this squad rides (F.1)"),
    )

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        """Conventions where the rule book is silent or leaves numbers to the table.

        Distances are inches. Measure switches take ``"centre"`` (base centre to
        base centre) or ``"edge"`` (nearest points of the two bases).
        """

        range_measure: str = setting(
            "centre", 'How the 12" infantry range is measured (the rules use centres for LOS).'
        )
        forests: bool = setting(
            True,
            (
                "Woods pieces that touch or overlap form one forest: a line along the seam "
                "between two runs through the forest and is blocked. A unit sees out of only "
                "the woods area its centre is in, as far as the next one, which blocks LOS "
                "through it (D.2 designer's note); ``false``: every woods piece blocks on its "
                "own."
            ),
        )
        infantry_range: float = setting(
            12.0, "Infantry may fire only at targets within this (D.2); others at any distance."
        )
        follow_distance: str = setting("edge", 'How "within 3 inches" is measured for Follow Me.')
        follow_radius: float = setting(
            3.0, "Follow Me reach: each follower within this of the unit it follows (E)."
        )
        chain_length: int = setting(
            3, "Most models acting on one card by Follow Me, leader included."
        )
        max_actions: int = setting(
            2, "Most actions per model per turn, own cards and following together."
        )
        max_cards: int = setting(2, "Most cards assigned to one model.")
        move_cap: float = setting(6.0, "Most inches infantry and unlimbered guns move on one card.")
        objective_radius: float = setting(
            3.0, "No enemy within this of an objective for a side to control it."
        )
        objective_measure: str = setting(
            "edge",
            (
                "Enemy distance to an objective: from the nearest point of its base "
                '(``"edge"``) or its centre (``"centre"``) to the feature\'s outline (0 inside).'
            ),
        )
        deployment_fraction: float = setting(
            1 / 3, "Set-up depth as a fraction of the table from the own edge."
        )
        deployment_measure: str = setting(
            "base", '``"base"``: the whole base must be inside the zone; ``"centre"``: its centre.'
        )
        halftrack_points: int = setting(
            3,
            (
                "Victory points for a halftrack: the book names squads and unarmoured vehicles "
                "(1), guns and armoured cars (3) and tanks (5); a halftrack gets an armour roll "
                "like an armoured car, so it counts as one by default."
            ),
        )
        marginal_margin: float = setting(
            3.0, "A win by fewer victory points than this is only marginal."
        )
        towing: tuple[str, ...] = setting(
            ("truck", "halftrack", "weapons carrier", "jeep"),
            "Vehicle categories that may tow a gun (not tanks or armoured cars, F.6).",
        )
        carriers: tuple[str, ...] = setting(
            ("truck", "halftrack", "tank"), "Vehicle categories a squad may ride (F.1)."
        )

        def check(self) -> None:
            super().check()
            for key in ("range_measure", "follow_distance", "objective_measure"):
                if getattr(self, key) not in ("centre", "edge"):
                    raise ValueError(f'setting {key} must be "centre" or "edge"')
            if self.deployment_measure not in ("base", "centre"):
                raise ValueError('setting deployment_measure must be "base" or "centre"')
            for key in ("infantry_range", "follow_radius", "move_cap", "objective_radius"):
                value = getattr(self, key)
                if not is_number(value) or not 0 < value <= 1e5:
                    raise ValueError(f"setting {key} must be a positive number of inches")
            if not is_number(self.marginal_margin) or self.marginal_margin < 0:
                raise ValueError("setting marginal_margin must be a number of points >= 0")
            if not isinstance(self.wrecks_block, bool):
                raise ValueError("setting wrecks_block must be true or false")
            points = self.halftrack_points
            if not isinstance(points, int) or isinstance(points, bool) or points < 0:
                raise ValueError("setting halftrack_points must be a whole number >= 0")
            if not is_number(self.deployment_fraction) or not 0 < self.deployment_fraction <= 1:
                raise ValueError("setting deployment_fraction must be between 0 and 1")
            for key in ("chain_length", "max_actions", "max_cards"):
                value = getattr(self, key)
                if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 1000:
                    raise ValueError(f"setting {key} must be a whole number from 1 to 1000")
            for key in ("towing", "carriers"):
                value = getattr(self, key)
                if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                    raise ValueError(f"setting {key} must be a list of vehicle categories")
                object.__setattr__(self, key, tuple(value))

    settings: PaperTigers.Settings

    los_filters = (WoodsAreas("forests"),)
    """Each woods area of a forest is seen out of, as far as the next (D.2 designer's note)."""

    # -- hooks: what kind of piece is it ---------------------------------------------

    @classmethod
    def category(cls, piece: Piece) -> str:
        """``infantry``, ``gun``, ``tank``, ``armoured car``... from the piece's kind."""
        return cls.kinds.get(name_key(piece.kind), "vehicle")

    @classmethod
    def validate(cls, scene: Scene) -> None:
        """Also: only a gun is towed, by a towing vehicle; only a squad rides, on a carrier;
        a vehicle carries one squad or tows one gun (whose crew rides in it) (F.1, F.6)."""
        super().validate(scene)
        defaults = cls.Settings()
        rules = cls(**dict(scene.settings)) if scene.settings else None
        towing = rules.settings.towing if rules else defaults.towing
        carriers = rules.settings.carriers if rules else defaults.carriers
        aboard: dict[str, str] = {}
        for i, p in enumerate(scene.pieces):
            for key, who, allowed in (
                ("towed_by", "gun", towing),
                ("carried_by", "infantry", carriers),
            ):
                vid = p.get(key)
                if vid is None:
                    continue
                path = f"$.pieces[{i}].{key}"
                if cls.category(p) != who:
                    raise SceneError(at(scene.source, path, f"only a {who} piece has {key}"))
                vehicle = scene.piece(vid)
                if vid in aboard:
                    raise SceneError(
                        at(
                            scene.source,
                            path,
                            f"{vid} already carries {aboard[vid]}: a vehicle carries one squad "
                            "or tows one gun, whose crew rides in it (F.1, F.6)",
                        )
                    )
                aboard[vid] = p.id
                if cls.category(vehicle) not in allowed:
                    raise SceneError(
                        at(
                            scene.source,
                            path,
                            f"{vid} is a {cls.category(vehicle)}: {key} names one of "
                            f"{', '.join(allowed)}",
                        )
                    )

    def moving_piece(self, scene: Scene, piece: Piece) -> Piece:
        """A limbered gun or a riding squad moves with its vehicle: no 6in cap, the
        vehicle's allowance (F.1, F.6)."""
        vid = self.field(piece, "towed_by") or self.field(piece, "carried_by")
        return scene.get(vid) or piece if vid else piece

    def piece_ranges(self, piece: Piece) -> tuple[PieceRange, ...]:
        """The table's own distances and the Follow Me radius every piece leads within."""
        follow = self.settings.follow_radius
        extra = (PieceRange("follow me", float(follow)),) if follow > 0 else ()
        return (*super().piece_ranges(piece), *extra)

    def move_cap(self, piece: Piece) -> float | None:
        """The per-card move cap: infantry and (unlimbered) guns only."""
        return self.settings.move_cap if self.category(piece) in ("infantry", "gun") else None

    def cap_rule(self, piece: Piece, cap: float) -> str:
        return f"{piece.id} is {self.category(piece)}: at most {inches(cap)} per card"

    def fire_range(self, piece: Piece) -> float | None:
        return self.settings.infantry_range if self.category(piece) == "infantry" else None

    def range_rule(self, piece: Piece, limit: float) -> str:
        return f"{piece.id} is infantry: may fire only at targets within {inches(limit)}"

    def may_enter(self, piece: Piece, terrain: Terrain) -> str | None:
        """Vehicles never enter buildings (D.1.d), nor does a limbered gun or a riding
        squad, which moves with its vehicle (F.1, F.6)."""
        why = super().may_enter(piece, terrain)
        vid = self.field(piece, "towed_by") or self.field(piece, "carried_by")
        if why is None and vid and terrain.kind == "building":
            why = (
                f"vehicles may not enter buildings: {piece.id} moves with {vid}, "
                f"which would enter {terrain.id}"
            )
        return why

    def range_findings(self, scene: Scene, query: RangeQuery, verdict: Verdict) -> list[Finding]:
        return self._passengers(query)

    def los_findings(self, scene: Scene, query: LosQuery, verdict: Verdict) -> list[Finding]:
        return self._passengers(query)

    def _passengers(self, query: PairQuery) -> list[Finding]:
        """Passengers may not fire until they dismount (F.2) and are not fired upon, only
        the vehicle carrying them (F.3): the line is measured, the fire is not allowed."""
        firer, target = query.firer, query.target
        why = []
        if self.field(firer, "carried_by"):
            why.append(
                f"{firer.id} rides {self.field(firer, 'carried_by')}: passengers may not "
                "fire until they dismount (F.2)"
            )
        if self.field(target, "carried_by"):
            why.append(
                f"{target.id} rides {self.field(target, 'carried_by')}: passengers are not "
                "fired upon, only the vehicle carrying them (F.3)"
            )
        if not why:
            return []
        return [Finding(False, tuple(why), "; passenger: may not fire or be fired upon")]

    def doubt_rule(self) -> str:
        return DIE_ROLL

    def can_act(self, piece: Piece, ok: bool | None, reasons: list[str]) -> bool | None:
        if piece.state == "destroyed":
            reasons.append(f"{piece.id} is destroyed and may take no actions")
            return False
        if piece.state == "damaged":
            reasons.append(f"{piece.id} is damaged (shell-shocked) and may take no actions")
            return False
        return ok

    # -- questions --------------------------------------------------------------------

    def game_flow(self) -> GameFlow:
        """Allowances from the dice and Follow Me obligations on top of the move question."""
        return PaperTigersFlow(self)

    def ask_follow_me(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        leader = piece_arg(scene, query, "leader")
        action = query.get("action")
        if action is not None and action not in ("move", "fire"):
            raise QueryError(".action", f'must be "move" or "fire", got {action!r}')
        s = self.settings
        reasons: list[str] = []
        illegal: dict[str, str] = {}
        ok: bool | None = self.can_act(leader, True, reasons)
        if self.field(leader, "cards") == 0:
            reasons.append(f"note: {leader.id} has no card assigned to lead with")
        eligible: list[Piece] = []
        for p in scene.pieces:
            if p.id == leader.id or p.side != leader.side:
                continue
            why = self._follow_problem(p, leader)
            if why:
                illegal[p.id] = why
            else:
                eligible.append(p)

        def link(a: Piece, b: Piece) -> bool | None:
            d = self.piece_distance(a, b, s.follow_distance)
            return judge(d, s.follow_radius, a.uncertainty + b.uncertainty)

        links = {
            (a.id, b.id): link(a, b)
            for a, b in itertools.permutations([leader, *eligible], 2)
            if b.id != leader.id
        }
        chains: list[tuple[str, ...]] = []
        doubtful: set[str] = set()

        def extend(chain: tuple[str, ...]) -> None:
            grown = False
            if len(chain) < s.chain_length:
                for p in eligible:
                    if p.id not in chain and links[(chain[-1], p.id)] is not False:
                        if links[(chain[-1], p.id)] is None:
                            doubtful.add(p.id)
                        grown = True
                        extend((*chain, p.id))
            if not grown and len(chain) > 1:
                chains.append(chain)

        extend((leader.id,))
        followers = tuple(dict.fromkeys(pid for c in chains for pid in c[1:]))
        how = "base edge to base edge" if s.follow_distance == "edge" else "centre to centre"
        hops = _hops(leader.id, [p.id for p in eligible], links)
        for p in eligible:
            if p.id in followers:
                continue
            if p.id in hops:
                illegal[p.id] = (
                    f"it would be model {hops[p.id] + 1} of the chain: a chain holds at most "
                    f"{s.chain_length} models, leader included"
                )
                continue
            nearest = min(
                self.piece_distance(p, q, s.follow_distance)
                for q in [leader, *eligible]
                if q.id != p.id
            )
            illegal[p.id] = (
                f"more than {inches(s.follow_radius)} from the leader and every model that "
                f"could follow it (nearest {fmt(nearest)} {how})"
            )
        for pid in sorted(doubtful):
            reasons.append(
                f"{pid} is within measurement doubt of {inches(s.follow_radius)}: too close to call"
            )
        for c in chains:
            reasons.append("chain: " + " -> ".join(c))
        for pid, why in illegal.items():
            reasons.append(f"{pid} may not follow: {why}")
        if ok is True and doubtful:
            ok = None
        details: dict[str, Any] = {"illegal": illegal}
        if action:
            details["action"] = action
        if doubtful:
            details["doubtful"] = sorted(doubtful)
        summary = f"follow_me {leader.id}: " + (
            "; ".join(" -> ".join(c) for c in chains) if chains else "no unit may follow"
        )
        return Verdict(
            "follow_me",
            ok,
            tuple(reasons),
            limit=s.follow_radius,
            chains=tuple(chains),
            followers=followers,
            details=details,
            summary=summary,
        )

    def _follow_problem(self, p: Piece, leader: Piece) -> str | None:
        s = self.settings
        if p.state == "destroyed":
            return "destroyed"
        if p.state == "damaged":
            return "damaged (shell-shocked): may take no actions"
        cards, followed, actions = (self.field(p, k) for k in ("cards", "followed", "actions"))
        if cards > 0:
            return f"had {cards} card{'s' if cards > 1 else ''} assigned at the start of the turn"
        if followed is not None and followed != leader.id:
            return f"already followed {followed} this turn (one unit per turn)"
        if actions >= s.max_actions:
            return f"already took {counted(actions, 'action')} this turn (at most {s.max_actions})"
        return None

    def ask_follow_check(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        s = self.settings
        if "chain" in query:
            ids = as_ids(query["chain"], ".chain")
            if len(ids) < 2:
                raise QueryError(".chain", "needs the leader and at least one follower")
            for j, pid in enumerate(ids):
                if pid not in scene:
                    raise QueryError(f".chain[{j}]", f"unknown piece id {pid!r}")
            pairs = [(scene.piece(x), scene.piece(y)) for x, y in itertools.pairwise(ids)]
        else:
            pairs = [(piece_arg(scene, query, "follows"), piece_arg(scene, query, "follower"))]
        reasons: list[str] = []
        oks: list[bool | None] = []
        worst = (-1.0, 0.0)
        how = "base edge to base edge" if s.follow_distance == "edge" else "centre to centre"
        for lead, follower in pairs:
            d = self.piece_distance(lead, follower, s.follow_distance)
            doubt = lead.uncertainty + follower.uncertainty
            verdict = judge(d, s.follow_radius, doubt)
            oks.append(verdict)
            worst = max(worst, (d, doubt))
            word = Words("within", "more than", "too close to call at")(verdict)
            reasons.append(
                f"{follower.id} ended {fmt(d)} from {lead.id} ({how}): {word} "
                f"{inches(s.follow_radius)}"
            )
        ok = False if False in oks else (None if None in oks else True)
        word = Words("kept within", "left", "too close to call for")(ok)
        return Verdict(
            "follow_check",
            ok,
            tuple(reasons),
            distance=worst[0],
            uncertainty=worst[1],
            limit=s.follow_radius,
            summary=f"follow_check {' -> '.join([pairs[0][0].id, *(f.id for _, f in pairs)])}: "
            f"{word} the {inches(s.follow_radius)} chain",
        )

    def ask_objective(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        if "objective" in query:
            oid = query["objective"]
            try:
                features = [scene.terrain_piece(str(oid))]
            except KeyError:
                raise QueryError(".objective", f"unknown terrain id {oid!r}") from None
        else:
            features = [t for t in scene.terrain if t.objective > 0]
            if not features:
                raise QueryError(".objective", "the scene has no objectives (give one by id)")
        reasons: list[str] = []
        controllers: dict[str, str | None] = {}
        oks: list[bool | None] = []
        for t in features:
            controller, ok, why = self._control(scene, t)
            controllers[t.id] = controller
            oks.append(ok)
            reasons += why
        ok = None if None in oks else (all(oks) if oks else False)
        details: dict[str, Any] = {}
        if len(features) == 1:
            details["controller"] = controllers[features[0].id]
            details["value"] = features[0].objective
            if "objective" not in query:
                details["objective"] = features[0].id
        else:
            details["controllers"] = controllers
            totals: dict[str, float] = {}
            for t in features:
                side = controllers[t.id]
                if side is not None:
                    totals[side] = totals.get(side, 0.0) + t.objective
            details["points"] = totals
        summary = "objective " + ", ".join(
            f"{tid}: {side or 'nobody'}" for tid, side in controllers.items()
        )
        return Verdict(
            "objective",
            ok,
            tuple(reasons),
            limit=self.settings.objective_radius,
            details=details,
            summary=summary,
        )

    def _control(self, scene: Scene, feature: Terrain) -> tuple[str | None, bool | None, list[str]]:
        """(controlling side or None, ok, reasons). ok is None when measurement doubt could
        change who controls, False when certainly nobody does."""
        controller, ok, reasons, _ = self._control_options(scene, feature)
        return controller, ok, reasons

    def _control_options(
        self, scene: Scene, feature: Terrain
    ) -> tuple[str | None, bool | None, list[str], list[str | None]]:
        """:meth:`_control` plus who may control it as far as measurement doubt allows
        (None for nobody).

        Three-valued: a side holds the feature if one of its units certainly stands in it
        (base centre inside by more than its doubt), maybe if one stands within its doubt
        of the outline; an enemy denies it if certainly within the radius, maybe if too
        close to call. So a unit deep inside holds it whatever a friend near the edge
        does, and an enemy certainly within reach denies it whatever the doubt elsewhere.
        """
        s = self.settings
        poly = feature.outline()
        units = [p for p in scene.pieces if p.state != "destroyed"]
        reasons: list[str] = []
        presence: dict[str, list[tuple[Piece, bool | None]]] = {}
        nominal: dict[str, bool] = {}
        """Who controls it as measured, doubt aside: the verdict's best reading."""
        for p in units:
            inside = point_in_polygon(p.xy, poly)
            edge = boundary_distance(p.xy, poly)
            status: bool | None = inside if edge > p.uncertainty or p.uncertainty == 0 else None
            if status is None:
                reasons.append(f"{p.id} is within {fmt(p.uncertainty)} of the edge of {feature.id}")
            if status is not False:
                presence.setdefault(p.side, []).append((p, status))
            if inside:
                nominal[p.side] = True
        sides = list(presence)
        if not sides:
            reasons.append(f"no unit is on/in {feature.id}: nobody controls it")
            return None, False, reasons, [None]
        controls: dict[str, bool | None] = {}
        for side in sides:
            holders = presence[side]
            held = _any(v for _, v in holders)
            names = ", ".join(p.id for p, _ in holders)
            denials: list[bool | None] = []
            for e in units:
                if e.side == side:
                    continue
                d = self._objective_distance(e, poly)
                verdict = judge(d, s.objective_radius, e.uncertainty)
                denials.append(verdict)
                if d <= s.objective_radius + 1e-9:
                    nominal[side] = False
                if verdict is not False:
                    reasons.append(
                        f"{side} holds {feature.id} with {names} but enemy {e.id} is "
                        f"{fmt(d)} from it" + (" (too close to call)" if verdict is None else "")
                    )
            denied = _any(denials)
            controls[side] = _and(held, _not(denied))
            if denied is False:
                reasons.append(
                    f"{side} holds {feature.id} with {names} and no enemy is within "
                    f"{inches(s.objective_radius)}" + ("" if held else " (if its unit is inside)")
                )
        sure = [side for side, c in controls.items() if c is True]
        maybe = [side for side, c in controls.items() if c is None]
        if len(sure) == 1 and not maybe:
            return sure[0], True, reasons, [sure[0]]
        if not sure and not maybe:
            reasons.append(f"nobody controls {feature.id}")
            return None, False, reasons, [None]
        options: list[str | None] = [*sure, *maybe, None]
        measured = [side for side, held in nominal.items() if held]
        reasons.append(
            f"control of {feature.id} is too close to call: "
            + " or ".join(str(o) if o else "nobody" for o in options)
            + " depending on the measurement"
        )
        return (measured[0] if len(measured) == 1 else None), None, reasons, options

    def _objective_distance(self, piece: Piece, poly: np.ndarray) -> float:
        if self.settings.objective_measure == "centre":
            return 0.0 if point_in_polygon(piece.xy, poly) else boundary_distance(piece.xy, poly)
        return polygon_distance(piece.corners(), poly)

    def ask_initiative(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        raw = query.get("cards")
        if isinstance(raw, list):
            labelled = [(None, _card(c, f".cards[{i}]")) for i, c in enumerate(raw)]
        elif isinstance(raw, dict):
            labelled = []
            for pid, c in raw.items():
                if pid not in scene:
                    raise QueryError(f".cards.{pid}", f"unknown piece id {pid!r}")
                labelled.append((pid, _card(c, f".cards.{pid}")))
        else:
            raise QueryError(
                ".cards", 'must list cards like ["QS", "10H"] or map piece ids to cards'
            )
        if not labelled:
            raise QueryError(".cards", "needs at least one card")
        ordered = sorted(labelled, key=lambda lc: lc[1].initiative, reverse=True)
        reasons = []
        for (_, c1), (_, c2) in itertools.pairwise(ordered):
            if c1.initiative == c2.initiative:
                reasons.append(
                    f"{c1.code} ties {c2.code}: with several decks each side rolls two dice, "
                    "the higher acts first"
                )
            elif c1.value == c2.value and c1.red != c2.red:
                reasons.append(f"{c1.code} acts before {c2.code}: red before black")
            elif c1.value == c2.value:
                reasons.append(
                    f"{c1.code} acts before {c2.code}: "
                    + ("spade beats club" if not c1.red else "heart beats diamond")
                )
        order = [c.code for _, c in ordered]
        details: dict[str, Any] = {"order": order}
        if isinstance(raw, dict):
            details["pieces"] = [pid for pid, _ in ordered]
        details["difficulty"] = {c.code: c.difficulty for _, c in ordered}
        ties = any("ties" in r for r in reasons)
        names = [f"{pid} ({c.code})" if pid else c.code for pid, c in ordered]
        # C.4.b: a damaged model cannot have cards assigned until it recovers.
        barred: list[str] = []
        for pid, _ in ordered:
            if pid is not None and scene.piece(pid).state != "ok":
                barred.append(pid)
        for pid in barred:
            reasons.append(
                f"{pid} is {scene.piece(pid).state}: may not have cards assigned "
                "(a damaged model recovers first)"
            )
        return Verdict(
            "initiative",
            False if barred else (None if ties else True),
            tuple(reasons) or ("highest initiative acts first",),
            details=details,
            summary="initiative: " + ", ".join(names),
        )

    def ask_action(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        card = _card(query.get("card"), ".card")
        action = query.get("action")
        if action not in ("move", "fire", "recover"):
            raise QueryError(".action", f'must be "move", "fire" or "recover", got {action!r}')
        piece = piece_arg(scene, query, "piece") if "piece" in query else None
        if action == "recover":
            need = 2
            rule = "recovery rolls 2 dice"
        elif (action == "fire") == card.red:
            need = 3
            colour, verb = ("red", "fires") if card.red else ("black", "moves")
            rule = f"a {colour} card {verb} with 3 dice"
        else:
            need = 2
            rule = f"a {'red' if card.red else 'black'} card {action}s with 2 dice"
        difficulty = card.difficulty
        details: dict[str, Any] = {
            "card": card.code,
            "action": action,
            "dice": need,
            "difficulty": difficulty,
        }
        reasons = [f"{card.name()}: {rule}, difficulty {difficulty}"]
        ok: bool | None = None
        if piece is not None:
            if action == "recover" and piece.state != "damaged":
                reasons.append(f"{piece.id} is not damaged: nothing to recover")
                ok = False
            elif action != "recover":
                ok = self.can_act(piece, None, reasons)
                carrier = self.moving_piece(scene, piece)
                if action == "move" and carrier is not piece:
                    ok = self.can_act(carrier, ok, reasons)
        rolled = query.get("dice")
        if rolled is not None:
            if not isinstance(rolled, list) or not all(
                isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in rolled
            ):
                raise QueryError(".dice", f"must be a list of die results 1-6, got {rolled!r}")
            total = sum(rolled)
            details["rolled"] = list(rolled)
            details["total"] = total
            if len(rolled) != need:
                reasons.append(f"rolled {len(rolled)} dice but {rule}")
                ok = False
            elif ok is not False:
                success = total >= difficulty
                ok = success
                reasons.append(
                    f"total {total} {'>=' if success else '<'} difficulty {difficulty}: "
                    + ("success" if success else "failure")
                )
                if action == "move" and success:
                    allowance = float(total)
                    # A limbered gun or riding squad moves as its vehicle: no 6in cap.
                    mover = self.moving_piece(scene, piece) if piece is not None else None
                    cap = self.move_cap(mover) if mover is not None else None
                    if cap is not None and cap < allowance:
                        allowance = cap
                        reasons.append(
                            f"{piece.id if piece else ''} may move at most {inches(cap)}"
                        )
                    elif piece is not None and mover is not piece and mover is not None:
                        reasons.append(f"{piece.id} moves with {mover.id}: no 6in cap")
                    details["allowance"] = allowance
                    reasons.append(f"may move up to {inches(allowance)} measured from the front")
        else:
            reasons.append(f"roll {need} dice: {difficulty} or more succeeds")
        word = Words("success", "failure", f"roll {need} dice, need {difficulty}")(ok)
        if rolled is not None and len(rolled) != need:
            word = f"wrong number of dice ({need} needed)"
        return Verdict(
            "action",
            ok,
            tuple(reasons),
            details=details,
            summary=f"action {card.code} {action}: {word}",
        )

    def ask_cards(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        s = self.settings
        reasons: list[str] = []
        ok: bool | None = True
        details: dict[str, Any] = {}
        for p in scene.pieces:
            cards = self.field(p, "cards")
            if cards > s.max_cards:
                ok = False
                reasons.append(f"{p.id} has {cards} cards: at most {s.max_cards} per model")
            if cards and p.state != "ok":
                ok = False
                reasons.append(f"{p.id} is {p.state}: may not have cards assigned")
        rolled = query.get("dice")
        summary = "cards: assignments legal" if ok else "cards: illegal assignments"
        if rolled is not None:
            if not isinstance(rolled, dict) or not rolled:
                raise QueryError(
                    ".dice", 'must map each side to its two dice, like {"soviet": [5, 2]}'
                )
            units_raw = query.get("units", {})
            if not isinstance(units_raw, dict):
                raise QueryError(".units", "must map each side to its number of units")
            units: dict[str, int] = {}
            for side in rolled:
                count = units_raw.get(side)
                if count is None:
                    count = sum(
                        1 for p in scene.pieces if p.side == side and p.state != "destroyed"
                    )
                if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                    raise QueryError(f".units.{side}", f"must be a whole number, got {count!r}")
                units[side] = count
            small = all(n < 5 for n in units.values())
            dealt: dict[str, int] = {}
            for side, dice in rolled.items():
                if (
                    not isinstance(dice, list)
                    or len(dice) != 2
                    or not all(
                        isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice
                    )
                ):
                    raise QueryError(f".dice.{side}", f"must be two die results 1-6, got {dice!r}")
                dealt[side] = max(dice) if small else sum(dice)
                reasons.append(
                    f"{side} rolled {dice[0]} and {dice[1]}: "
                    + (f"counts only the higher, {max(dice)}" if small else f"{sum(dice)} cards")
                )
            if small:
                reasons.insert(
                    0,
                    "both sides have fewer than 5 units ("
                    + ", ".join(f"{k} {v}" for k, v in units.items())
                    + "): each counts only the higher die",
                )
            best = max(dealt.values())
            first = [side for side, n in dealt.items() if n == best]
            details["cards"] = dealt
            details["units"] = units
            details["deal_first"] = first[0] if len(first) == 1 else None
            if len(first) > 1:
                reasons.append("tied roll: deal the first card to the attacker")
            summary = "cards: " + ", ".join(f"{k} {v}" for k, v in dealt.items())
        return Verdict("cards", ok, tuple(reasons), details=details, summary=summary)

    def deploy_pieces(self, scene: Scene, query: Mapping[str, Any]) -> list[Piece]:
        if "pieces" in query:
            ids = as_ids(query["pieces"], ".pieces")
            for k, pid in enumerate(ids):
                if pid not in scene:
                    raise QueryError(f".pieces[{k}]", f"unknown piece id {pid!r}")
            return [scene.piece(pid) for pid in ids]
        if "side" in query:
            pieces = [p for p in scene.pieces if p.side == query["side"]]
            if not pieces:
                raise QueryError(".side", f"no pieces of side {query['side']!r}")
            return pieces
        return list(scene.pieces)

    def deploy_edges(
        self, scene: Scene, query: Mapping[str, Any], pieces: Sequence[Piece]
    ) -> dict[str, str]:
        if "edge" in query and "side" not in query and len({p.side for p in pieces}) > 1:
            raise QueryError(".edge", "give a side too: one edge cannot serve both sides")
        return super().deploy_edges(scene, query, pieces)

    deploy_edge_problem = (
        'no deployment edge for side {side!r}: add "deployment": '
        '{{"{side}": "bottom"}} to the scene or "edge" to the query'
    )

    def deploy_zone(self, scene: Scene, piece: Piece, edge: str, query: Mapping[str, Any]) -> float:
        span = scene.table.depth if edge in ("top", "bottom") else scene.table.width
        return self.settings.deployment_fraction * span

    def _deploy_points(self, piece: Piece) -> np.ndarray:
        base = self.settings.deployment_measure == "base"
        return piece.corners() if base else np.array([piece.xy])

    def deploy_depth(self, scene: Scene, piece: Piece, edge: str) -> float:
        return float(np.max(from_edge(self._deploy_points(piece), edge, scene)))

    def deploy_check(
        self, scene: Scene, piece: Piece, edge: str, ok: bool | None, reasons: list[str]
    ) -> bool | None:
        near = float(np.min(from_edge(self._deploy_points(piece), edge, scene)))
        if near < -piece.uncertainty - 1e-9:
            reasons.append(f"{piece.id} is off the table beyond the {edge} edge")
            return False
        return ok

    def outside_reason(self, row: Placed) -> str:
        word = "too close to call" if row.ok is None else "outside"
        return (
            f"{row.piece.id} reaches {fmt(row.depth)} in from the {row.edge} edge: {word} its "
            f"zone of {fmt(row.zone)}"
        )

    def deployment_verdict(
        self, scene: Scene, rows: list[Placed], reasons: list[str], ok: bool | None
    ) -> Verdict:
        if ok:
            reasons.append(f"all {len(rows)} pieces are inside their side's set-up zone")
        per_piece = {
            r.piece.id: {
                "edge": r.edge,
                "depth": round(r.depth, 4),
                "limit": round(r.zone, 4),
                "ok": r.ok,
            }
            for r in rows
        }
        verdict = super().deployment_verdict(scene, rows, reasons, ok)
        return dataclasses.replace(verdict, details={"pieces": per_piece, **verdict.details})

    def unit_points(self, piece: Piece) -> float:
        """Victory points the enemy scores for destroying ``piece``."""
        category = self.category(piece)
        if category == "tank":
            return 5
        if category in ("gun", "armoured car"):
            return 3
        if category == "halftrack":
            return self.settings.halftrack_points
        return 1

    def ask_victory(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Victory points at the end of a deck: destroyed enemy units (every piece with
        ``state: destroyed``) plus objectives controlled; ok is None when an objective's
        control is too close to call."""
        sides = list(scene.sides())
        extra = query.get("sides")
        if isinstance(extra, list):
            sides += [str(x) for x in extra if str(x) not in sides]
        if len(sides) < 2:
            raise QueryError(".sides", 'victory needs two sides (list them in "sides")')
        points = dict.fromkeys(sides, 0.0)
        reasons: list[str] = []
        for p in scene.pieces:
            if p.state != "destroyed":
                continue
            vp = self.unit_points(p)
            for side in sides:
                if side != p.side:
                    points[side] += vp
            reasons.append(f"{p.id} ({self.category(p)}, {p.side}) destroyed: {vp:g} VP")
        doubtful: list[tuple[Terrain, list[str | None]]] = []
        for t in scene.terrain:
            if t.objective <= 0:
                continue
            holder, ok, _, options = self._control_options(scene, t)
            if ok is None:
                doubtful.append((t, options))
                reasons.append(
                    f"control of {t.id} is too close to call ("
                    + " or ".join(o or "nobody" for o in options)
                    + "): not counted"
                )
            elif holder is not None:
                points[holder] = points.get(holder, 0.0) + t.objective
                reasons.append(f"{holder} controls {t.id}: {t.objective:g} VP")
        result, winner, best, second = self._result(points)
        reasons.append(
            f"{result}" + (f" for {winner}" if winner else "") + f" ({best:g} to {second:g} VP)"
        )
        # The verdict stands unless some reading of the doubtful objectives changes it.
        unsure = False
        for combo in itertools.islice(itertools.product(*(o for _, o in doubtful)), 4096):
            alt = dict(points)
            for (t, _), owner in zip(doubtful, combo, strict=True):
                if owner is not None:
                    alt[owner] = alt.get(owner, 0.0) + t.objective
            if self._result(alt)[:2] != (result, winner):
                unsure = True
                reasons.append("the objectives too close to call could change the result")
                break
        return Verdict(
            "victory",
            None if unsure else True,
            tuple(reasons),
            details={"points": points, "winner": winner, "result": result},
            summary="victory: "
            + ", ".join(f"{k} {v:g}" for k, v in points.items())
            + f" -> {result}"
            + (f" for {winner}" if winner else ""),
        )

    def _result(self, points: Mapping[str, float]) -> tuple[str, str | None, float, float]:
        """(result, winner, best, second) from victory points per side."""
        ranked = sorted(points.items(), key=lambda kv: kv[1], reverse=True)
        (top, best), (_, second) = ranked[0], ranked[1]
        margin = best - second
        if margin == 0:
            return "tied", None, best, second
        if margin < self.settings.marginal_margin:
            return "marginal victory", top, best, second
        return "victory", top, best, second


# ----------------------------------------------------------------------------------------


class PaperTigersFlow(GameFlow):
    """Paper Tigers: allowances from the dice, and Follow Me obligations (RULES.md D.1, E).

    A ``move`` declaration with an ``allowance`` (or a successful ``action``
    move roll for a piece) sets that piece's next move's allowance, in order,
    and marks it as acting on its own card. A ``follow_me`` declared with
    action ``move`` makes the leader's next move open a follow action: the
    chains are worked out from where everyone stood before it, and each
    follower that moves next is checked to end within reach of the unit it
    follows, until a piece outside the chains moves.
    """

    def __init__(self, ruleset: Ruleset) -> None:
        super().__init__(ruleset)
        self._allowances: dict[str, list[float]] = {}
        self._announced: list[Mapping[str, Any]] = []
        self._own_moves: set[str] = set()
        self._following: dict[str, str] = {}
        """follower id -> id of the unit it follows, during a Follow Me move action."""

    def declare(self, scene: Scene, query: Mapping[str, Any]) -> Declared:
        ask = query.get("ask")
        if ask == "move":
            piece = str(query.get("piece"))
            self._own_moves.add(piece)
            allowance = query.get("allowance")
            if isinstance(allowance, (int, float)) and not isinstance(allowance, bool):
                self._allowances.setdefault(piece, []).append(float(allowance))
                return Declared(True, notes=(f"{piece} may move up to {allowance:g}in next",))
            return Declared(True)
        if ask == "follow_me" and query.get("action", "move") == "move":
            self._announced.append(dict(query))
            return Declared(True, notes=(f"Follow Me announced by {query.get('leader')}",))
        if ask == "action" and query.get("action") == "move" and "piece" in query:
            verdict = self.answer(scene, query)
            allowance = verdict.details.get("allowance")
            piece = str(query["piece"])
            if isinstance(allowance, (int, float)):
                self._own_moves.add(piece)
                self._allowances.setdefault(piece, []).append(float(allowance))
                return Declared(True, verdict, (f"{piece} may move up to {allowance:g}in next",))
            return Declared(False, verdict)
        return Declared(False)

    def judge(self, scene: Scene, move: SettledMove) -> Judgement:
        queue = self._allowances.get(move.piece)
        verdicts = [self.answer_move(scene, move, queue.pop(0) if queue else None)]
        notes: list[str] = []
        piece = scene.get(move.piece)
        follows = self._following.pop(move.piece, None)
        if follows is None:
            self._following = {}
            notes.extend(self._open_follow_action(scene, move.piece))
        if follows is None and piece is not None and piece.followed:
            follows = piece.followed
        if follows is not None and piece is not None:
            after = scene.with_pieces(piece.moved(move.end.x, move.end.y, move.end.heading))
            check = {"ask": "follow_check", "follower": move.piece, "follows": follows}
            verdicts.append(self.answer(after, check))
        return Judgement(tuple(verdicts), tuple(notes))

    def _open_follow_action(self, scene: Scene, leader: str) -> list[str]:
        """If a Follow Me was announced for ``leader``, work out who may follow whom."""
        announced = next((q for q in self._announced if q.get("leader") == leader), None)
        if announced is None or leader not in scene:
            return []
        self._announced.remove(announced)
        verdict = self.answer(scene, announced)
        for chain in sorted(verdict.chains or (), key=len, reverse=True):
            for before, after in itertools.pairwise(chain):
                # A unit with its own announced move acts on its own card, not as a follower.
                if after in self._own_moves:
                    break
                self._following[after] = before
        if not self._following:
            return [f"Follow Me by {leader}: no unit may follow"]
        pairs = ", ".join(f"{f} follows {lead}" for f, lead in self._following.items())
        return [f"Follow Me by {leader}: {pairs}"]


def _any(values: Any) -> bool | None:
    """Kleene OR: True if any is True, None if any is None, else False."""
    seen = list(values)
    return True if True in seen else (None if None in seen else False)


def _not(value: bool | None) -> bool | None:
    return None if value is None else not value


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def _hops(
    start: str, ids: Sequence[str], links: Mapping[tuple[str, str], bool | None]
) -> dict[str, int]:
    """Fewest links from ``start`` to each id reachable through possible links."""
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for a in frontier:
            for b in ids:
                if b not in dist and links.get((a, b)) is not False:
                    dist[b] = dist[a] + 1
                    nxt.append(b)
        frontier = nxt
    del dist[start]
    return dist


def _card(raw: Any, path: str) -> Card:
    try:
        return Card.parse(raw)
    except ValueError as error:
        raise QueryError(path, str(error)) from None
