"""Papercraft: fantasy armies of paper squares (``rule-sources/002_...txt``, RULES.md 3).

Each unit is a paper template of its type's size; dead units stay flipped over
(``state: destroyed``) and are moved over, except large-unit corpses. The unit stats
live on the army's stat pages: each piece carries its own ``move``, ``range``, ``melee``
and ``moved`` (moved this turn: a ranged unit may not then attack).
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.rules.checks import BaseSizes
from referee.rules.core import Deployment, Finding, TableRuleset, inches
from referee.rules.queries import RangeQuery
from referee.rules.settings import setting
from referee.rules.values import PieceField, Verdict, name_key
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
    uncrossable = "large-unit corpse"
    deploy_zone_setting = "start_zone"
    deploy_edge_problem = 'no start edge for side {side!r}: add "deployment" to the scene'
    deploy_outside = "{piece} reaches {depth} in from the {edge} edge: {word} the {zone} start zone"
    deploy_all_inside = "all {n} units are inside their {zone} start zone"
    checks = (BaseSizes("templates", TEMPLATES, "template_tolerance"),)
    move_stat, range_stat = "move", "range"  # each unit's own, from its army's stat page
    piece_fields = (
        PieceField("move", "number", None, "the unit's movement stat, inches"),
        PieceField("range", "number", None, "the attack's range stat, inches"),
        PieceField("melee", "flag", False, "the attack is a melee attack"),
        PieceField("moved", "flag", False, "moved this turn (a ranged unit may not attack)"),
    )

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        """Conventions where Papercraft is silent. Distances are inches."""

        range_measure: str = setting(
            "clear", "Edge to edge, crossing no other unit (``edge`` ignores units; ``centre``)."
        )
        blocking: tuple[str, ...] = setting(
            (), "The rules have no terrain yet: no terrain blocks by default."
        )
        difficult: tuple[str, ...] = setting((), "No terrain stops a move by default.")
        wrecks_block: bool = setting(
            False, "Flipped corpses are moved over, and do not block range lines."
        )
        start_zone: float = setting(10.0, "Each player's start zone: this far from its own edge.")
        template_tolerance: float = setting(
            0.1, "How far a base may differ from its template size (hand-cut paper)."
        )
        melee_reach: float = setting(
            0.0, "How far a melee attack (``melee``, no ``range``) reaches: 0 is base contact."
        )

    settings: Papercraft.Settings

    def unit_blocks(self, piece: Piece) -> bool:
        return True  # another (live) unit blocks a range line

    def cannot_cross(self, piece: Piece) -> bool:
        return piece.state == "destroyed" and self.category(piece) == "large unit"

    def is_melee(self, piece: Piece) -> bool:
        return self.field(piece, "range") is None and bool(self.field(piece, "melee"))

    def fire_range(self, piece: Piece) -> float | None:
        melee = self.is_melee(piece)
        return float(self.settings.melee_reach) if melee else super().fire_range(piece)

    def range_rule(self, piece: Piece, limit: float) -> str:
        if self.is_melee(piece):
            touch = " (base contact)" if limit == 0 else ""
            return f"{piece.id}'s attack is melee: it reaches {inches(limit)}{touch}"
        return f"{piece.id}'s attack reaches {inches(limit)}"

    def range_findings(self, scene: Scene, query: RangeQuery, verdict: Verdict) -> list[Finding]:
        if self.field(query.firer, "moved") and not self.field(query.firer, "melee"):
            why = f"{query.firer.id} moved this turn: a ranged unit may not attack"
            return [Finding(False, (why,), "; moved this turn")]
        return []
