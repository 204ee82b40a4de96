"""Papercraft: fantasy armies of paper squares (``rule-sources/002_...txt``, RULES.md 3).

Each unit is a paper template whose size its secondary type fixes: Character
1"x1", Infantry 4"x3", Large Unit 2"x2", Small Building 5"x5", Titan 6"x6".
Moves are "front to front": the front of the piece may not go past the
measured distance. Range runs from any edge of the attacker to any edge of the
target without crossing another unit. Dead living or mechanical units stay on
the table flipped over (``state: destroyed``) and can be moved over, except
large-unit corpses. Each player's start zone is 10" from its own edge.

The unit stats live on the army's stat pages, not in the rules: each piece
carries its own ``move`` and ``range`` (inches) and ``melee`` (its attack is a
melee attack), and ``moved`` (it moved this turn: a ranged unit may not then
attack).

Questions: ``range``, ``los``, ``move`` (shared), ``deployment`` (start zones),
``templates`` (each base is its type's template size).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.geometry import base_corners, base_corners_many
from referee.maps import Visibility
from referee.maps.clearance import clear_edge_distances, clear_segment
from referee.rules import PieceField, QueryError, Verdict, judge, name_key, register
from referee.rules.core import (
    TableRuleset,
    fmt,
    from_edge,
    inches,
    piece_arg,
    sweep_entry,
    worst,
)
from referee.scene import Piece, Scene, normalise_edge

TEMPLATES: dict[str, tuple[float, float]] = {
    "character": (1.0, 1.0),
    "infantry": (4.0, 3.0),
    "large unit": (2.0, 2.0),
    "small building": (5.0, 5.0),
    "titan": (6.0, 6.0),
}
"""Template size (width, depth) of each secondary unit type, inches."""
KINDS = {name_key(k): k for k in TEMPLATES}


@register
class Papercraft(TableRuleset):
    name = "papercraft"
    aliases = ("paper craft", "pc")
    title = "Papercraft"
    source = "002_55e0c335368a37b3.txt"
    kinds = KINDS
    piece_fields = (
        PieceField("move", "number", None, "the unit's movement stat, inches"),
        PieceField("range", "number", None, "the attack's range stat, inches"),
        PieceField("melee", "flag", False, "the attack is a melee attack"),
        PieceField("moved", "flag", False, "moved this turn (a ranged unit may not attack)"),
    )

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        """Conventions where Papercraft is silent. Distances are inches."""

        range_measure: str = "clear"
        """From any edge of the attacker to any edge of the target without crossing another
        unit (``edge`` ignores other units, ``centre`` measures centres)."""
        move_measure: str = "front"
        """Front to front: the front of the piece may not pass the measured distance."""
        blocking: tuple[str, ...] = ()
        """The rules have no terrain yet: no terrain blocks by default."""
        difficult: tuple[str, ...] = ()
        """No terrain stops a move by default."""
        wrecks_block: bool = False
        """Flipped corpses are moved over, and do not block range lines."""
        start_zone: float = 10.0
        """Each player's start zone: this far from its own edge."""
        template_tolerance: float = 0.1
        """How far a base may differ from its template size (hand-cut paper)."""
        melee_reach: float = 0.0
        """A melee attack (its Range stat says "melee", the piece has ``melee`` and no
        ``range``) reaches this far edge to edge: 0 is base contact."""

    settings: Papercraft.Settings

    def unit_blocks(self, piece: Piece) -> bool:
        return True  # another (live) unit blocks a range line

    def fire_range(self, piece: Piece) -> float | None:
        value = self.field(piece, "range")
        if value is None and self.field(piece, "melee"):
            return float(self.settings.melee_reach)
        if value is None:
            raise QueryError(".from", f'{piece.id} has no "range" (its attack stat, inches)')
        return float(value)

    def range_rule(self, piece: Piece, limit: float) -> str:
        if self.field(piece, "range") is None and self.field(piece, "melee"):
            touch = " (base contact)" if limit == 0 else ""
            return f"{piece.id}'s attack is melee: it reaches {inches(limit)}{touch}"
        return f"{piece.id}'s attack reaches {inches(limit)}"

    def move_allowance(self, piece: Piece) -> float | None:
        value = self.field(piece, "move")
        return None if value is None else float(value)

    def is_vehicle(self, piece: Piece) -> bool:
        return False

    def ask_range(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        verdict = super().ask_range(scene, query)
        firer = scene.piece(str(query["from"]))
        if self.field(firer, "moved") and not self.field(firer, "melee"):
            reasons = (
                *verdict.reasons,
                f"{firer.id} moved this turn: a ranged unit may not attack",
            )
            return Verdict(
                "range",
                False,
                reasons,
                distance=verdict.distance,
                uncertainty=verdict.uncertainty,
                limit=verdict.limit,
                details=verdict.details,
                summary=verdict.summary + "; moved this turn",
            )
        return verdict

    def ask_los(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Not blocked by other units: some edge-to-edge line crosses no other live unit.
        The shortest such line is given (``line``: its two ends), for the tape."""
        firer = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        live = [
            p.corners()
            for p in scene.pieces
            if p.id not in (firer.id, target.id) and p.state != "destroyed"
        ]
        bases = np.asarray(live, float).reshape(-1, 4, 2)
        d, start, end = clear_segment(firer.corners(), target.corners(), bases)
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
            uncertainty=firer.uncertainty + target.uncertainty,
            los=los,
            details={"blocking": [], "line": line},
            summary=f"los {firer.id} -> {target.id}: {los}",
        )

    def ask_move(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        verdict = super().ask_move(scene, query)
        piece = scene.piece(str(query["piece"]))
        end = verdict.details["to"]
        start = verdict.details["from"]
        step = np.array([end["x"] - start["x"], end["y"] - start["y"]], float)
        w, d = piece.base
        crossed: list[str] = []
        maybe: list[str] = []
        for p in scene.pieces:
            if p.id == piece.id or p.state != "destroyed" or self.category(p) != "large unit":
                continue
            # The mover's base shrunk by the doubt surely crosses; grown by it, may cross.
            g = (verdict.uncertainty or 0.0) / 2 + p.uncertainty
            inner = base_corners(
                start["x"],
                start["y"],
                start["heading"],
                (max(w - 2 * g, 1e-6), max(d - 2 * g, 1e-6)),
            )
            outer = base_corners(start["x"], start["y"], start["heading"], (w + 2 * g, d + 2 * g))
            if sweep_entry(inner, step, p.corners()) is not None:
                crossed.append(p.id)
            elif g > 0 and sweep_entry(outer, step, p.corners()) is not None:
                maybe.append(p.id)
        if crossed:
            return Verdict(
                "move",
                False,
                (*verdict.reasons, f"moves over the large-unit corpse {', '.join(crossed)}"),
                distance=verdict.distance,
                uncertainty=verdict.uncertainty,
                limit=verdict.limit,
                details=verdict.details,
                summary=f"move {piece.id}: illegal: large-unit corpses cannot be moved over",
            )
        if maybe and verdict.ok is not False:
            return Verdict(
                "move",
                None,
                (
                    *verdict.reasons,
                    f"too close to call whether it moves over the large-unit corpse "
                    f"{', '.join(maybe)}",
                ),
                distance=verdict.distance,
                uncertainty=verdict.uncertainty,
                limit=verdict.limit,
                details=verdict.details,
                summary=f"move {piece.id}: too close to call (large-unit corpse)",
            )
        return verdict

    def visibility(self, scene: Scene) -> Visibility:
        """All pairs: the edge-to-edge distance crossing no other unit, and LOS clear exactly
        when such a line exists (as ``range`` and ``los`` answer them)."""
        pieces = list(scene.pieces)
        corners = base_corners_many(  # Piece.corners, all at once
            [p.xy for p in pieces], [p.heading for p in pieces], [p.base for p in pieces]
        )
        live = np.array([p.state != "destroyed" for p in pieces], bool)
        dist = clear_edge_distances(corners, live)
        los = np.where(np.isinf(dist), 2, 0).astype(np.int8)
        return Visibility(tuple(p.id for p in pieces), dist, los)

    def ask_deployment(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        zone = self.settings.start_zone
        pieces = [
            p
            for p in scene.pieces
            if p.state != "destroyed" and ("side" not in query or p.side == query["side"])
        ]
        edges = dict(scene.deployment)
        if "edge" in query:
            try:
                edges.update({p.side: normalise_edge(str(query["edge"])) for p in pieces})
            except ValueError as error:
                raise QueryError(".edge", str(error)) from None
        oks: list[bool | None] = []
        reasons: list[str] = []
        outside: list[str] = []
        for p in pieces:
            if p.side not in edges:
                raise QueryError(
                    ".edge", f'no start edge for side {p.side!r}: add "deployment" to the scene'
                )
            depth = float(np.max(from_edge(p.corners(), edges[p.side], scene)))
            ok = judge(depth, zone, p.uncertainty)
            oks.append(ok)
            if ok is not True:
                outside.append(p.id)
                reasons.append(
                    f"{p.id} reaches {fmt(depth)} in from the {edges[p.side]} edge: "
                    + ("too close to call against" if ok is None else "outside")
                    + f" the {inches(zone)} start zone"
                )
        ok_all = worst(oks)
        if ok_all:
            reasons.append(f"all {len(pieces)} units are inside their {inches(zone)} start zone")
        return Verdict(
            "deployment",
            ok_all,
            tuple(reasons),
            limit=zone,
            details={"outside": outside},
            summary="deployment: " + ("all inside" if ok_all else f"outside: {', '.join(outside)}"),
        )

    def ask_templates(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        tol = self.settings.template_tolerance
        wrong: dict[str, Any] = {}
        for p in scene.pieces:
            want = TEMPLATES[self.category(p)]
            if max(abs(a - b) for a, b in zip(sorted(p.base), sorted(want), strict=True)) > tol:
                wrong[p.id] = {"base": list(p.base), "template": list(want)}
        reasons = [
            f"{pid}'s base {v['base'][0]:g}x{v['base'][1]:g} is not the "
            f"{v['template'][0]:g}x{v['template'][1]:g} template"
            for pid, v in wrong.items()
        ] or ["every base is its type's template"]
        return Verdict(
            "templates",
            not wrong,
            tuple(reasons),
            details={"wrong": wrong},
            summary="templates: " + ("all match" if not wrong else f"wrong: {', '.join(wrong)}"),
        )
