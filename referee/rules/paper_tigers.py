"""Paper Tigers (Don Bailey): WWII skirmish with paper miniatures and playing cards."""

from __future__ import annotations

from dataclasses import dataclass

from referee.rules import Ruleset, register


@register
class PaperTigers(Ruleset):
    name = "paper-tigers"
    aliases = ("papertigers", "pt", "paper tigers")
    title = "Paper Tigers"

    @dataclass(frozen=True)
    class Settings:
        """Conventions where the rule book is silent."""
