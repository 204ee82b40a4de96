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

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.geometry import base_corners
from referee.rules.core import (
    Deployment,
    Finding,
    Placed,
    TableRuleset,
    fmt,
    inches,
    sweep_entry,
)
from referee.rules.queries import MoveQuery, RangeQuery
from referee.rules.values import PieceField, QueryError, Verdict, name_key
from referee.scene import Piece, Scene

TEMPLATES: dict[str, tuple[float, float]] = {
    "character": (1.0, 1.0),
    "infantry": (4.0, 3.0),
    "large unit": (2.0, 2.0),
    "small building": (5.0, 5.0),
    "titan": (6.0, 6.0),
}
"""Template size (width, depth) of each secondary unit type, inches."""
KINDS = {name_key(k): k for k in TEMPLATES}


class Papercraft(Deployment):
    name = "papercraft"
    aliases = ("paper craft", "pc")
    title = "Papercraft"
    source = "002_55e0c335368a37b3.txt"
    kinds = KINDS
    line_rule = "clear"  # range runs edge to edge without crossing another unit
    targets_trim_pieces = False  # its line of sight goes round other units' bases
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

    def range_findings(self, scene: Scene, query: RangeQuery, verdict: Verdict) -> list[Finding]:
        firer = query.firer
        if self.field(firer, "moved") and not self.field(firer, "melee"):
            why = f"{firer.id} moved this turn: a ranged unit may not attack"
            return [Finding(False, (why,), "; moved this turn")]
        return []

    def move_findings(self, scene: Scene, move: MoveQuery, verdict: Verdict) -> list[Finding]:
        """Large-unit corpses cannot be moved over: the base swept from start to end."""
        piece, start = move.piece, move.start
        step = np.array([move.end.x - start.x, move.end.y - start.y], float)
        w, d = piece.base
        crossed: list[str] = []
        maybe: list[str] = []
        for p in scene.pieces:
            if p.id == piece.id or p.state != "destroyed" or self.category(p) != "large unit":
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
        if crossed:
            why = f"moves over the large-unit corpse {', '.join(crossed)}"
            summary = f"move {piece.id}: illegal: large-unit corpses cannot be moved over"
            return [Finding(False, (why,), summary=summary)]
        if maybe and verdict.ok is not False:
            why = "too close to call whether it moves over the large-unit corpse " + ", ".join(
                maybe
            )
            summary = f"move {piece.id}: too close to call (large-unit corpse)"
            return [Finding(None, (why,), summary=summary)]
        return []

    deploy_edge_problem = 'no start edge for side {side!r}: add "deployment" to the scene'

    def deploy_zone(self, scene: Scene, piece: Piece, edge: str, query: Mapping[str, Any]) -> float:
        return self.settings.start_zone

    def outside_reason(self, row: Placed) -> str:
        word = "too close to call against" if row.ok is None else "outside"
        return (
            f"{row.piece.id} reaches {fmt(row.depth)} in from the {row.edge} edge: {word} "
            f"the {inches(row.zone)} start zone"
        )

    def deployment_verdict(
        self, scene: Scene, rows: list[Placed], reasons: list[str], ok: bool | None
    ) -> Verdict:
        zone = self.settings.start_zone
        if ok:
            reasons.append(f"all {len(rows)} units are inside their {inches(zone)} start zone")
        return dataclasses.replace(super().deployment_verdict(scene, rows, reasons, ok), limit=zone)

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
