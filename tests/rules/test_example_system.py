"""Adding a game system (README, "Adding a game system"): the complete example below is
a system of its own, registered, answering ``range``, ``los``, ``move`` and ``targets``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import pytest

from referee.rules import find_ruleset, register, ruleset_for, ruleset_names, unregister
from referee.rules.core import TableRuleset
from referee.rules.settings import setting
from referee.scene import Piece, Scene, Table, Terrain

# -- the example system ------------------------------------------------------------------


class Skirmish(TableRuleset):
    """Infantry move 6in and fire 12in, tanks 12in and 24in; rough ground halves a move;
    woods block line of sight (centre to centre, as the core measures by default)."""

    name = "example-skirmish"
    title = "Example Skirmish"
    kinds: ClassVar[Mapping[str, str]] = {"infantry": "infantry", "tank": "vehicle"}
    vehicles = ("vehicle",)
    MOVES: ClassVar[Mapping[str, float]] = {"infantry": 6.0, "vehicle": 12.0}
    RANGES: ClassVar[Mapping[str, float]] = {"infantry": 12.0, "vehicle": 24.0}

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        blocking: tuple[str, ...] = setting(("woods",), "Only woods block line of sight.")

    def fire_range(self, piece: Piece) -> float:
        return self.RANGES[self.category(piece)]

    def move_cap(self, piece: Piece) -> float:
        return self.MOVES[self.category(piece)]

    def terrain_factor(self, piece: Piece, terrain: Terrain) -> float:
        return 2.0 if terrain.kind == "rough" else 1.0


# -- what a user gets from it -------------------------------------------------------------


@pytest.fixture(autouse=True)
def registered():
    """``register(Skirmish)`` as a module of one's own would do on import (a decorator),
    taken back after each test so no other test sees a sixteenth system."""
    register(Skirmish)
    yield
    unregister(Skirmish)


def _scene() -> Scene:
    return Scene(
        "example-skirmish",
        Table(36, 24),
        pieces=(
            Piece("rifles", "red", "infantry", 4, 12, 0, (1, 1)),
            Piece("panzer", "blue", "tank", 14, 12, 180, (1.5, 2.5)),
            Piece("scouts", "blue", "infantry", 4, 22, 0, (1, 1)),
            Piece("sherman", "red", "tank", 30, 12, 180, (1.5, 2.5)),
        ),
        terrain=(
            Terrain("wood", "woods", ((20, 8), (24, 8), (24, 16), (20, 16))),
            Terrain("marsh", "rough", ((4, 0), (8, 0), (8, 8), (4, 8))),
        ),
    )


def test_the_example_registers_and_is_found_by_name_and_scene():
    assert "example-skirmish" in ruleset_names()
    assert ruleset_names()[0] == "paper-tigers"  # added after the bundled systems
    assert isinstance(find_ruleset("Example Skirmish"), Skirmish)
    assert isinstance(ruleset_for(_scene()), Skirmish)
    assert register(Skirmish) is Skirmish and ruleset_names().count("example-skirmish") == 1
    unregister(Skirmish)
    assert "example-skirmish" not in ruleset_names()


def test_range_and_line_of_sight():
    scene = _scene()
    rules = ruleset_for(scene)
    near = rules.answer(scene, {"ask": "range", "from": "rifles", "to": "panzer"})
    assert near.ok is True and near.distance == 10.0
    far = rules.answer(scene, {"ask": "range", "from": "rifles", "to": "sherman"})
    assert far.ok is False  # 26in: beyond the rifles' 12in
    blocked = rules.answer(scene, {"ask": "los", "from": "panzer", "to": "sherman"})
    assert blocked.los == "blocked" and blocked.ok is False and "wood" in blocked.summary
    clear = rules.answer(scene, {"ask": "los", "from": "rifles", "to": "panzer"})
    assert clear.los == "clear" and clear.ok is True


def test_moves_with_a_cap_and_rough_ground():
    scene = _scene()
    rules = ruleset_for(scene)
    open_ground = {"ask": "move", "piece": "panzer", "to": {"x": 14, "y": 22, "heading": 180}}
    assert rules.answer(scene, open_ground).ok is True  # 10in of a tank's 12in
    too_far = {"ask": "move", "piece": "rifles", "to": {"x": 4, "y": 19.5, "heading": 0}}
    assert rules.answer(scene, too_far).ok is False  # 7.5in of an infantry 6in
    # 4in straight through the marsh counts double: 8in of 6in.
    marsh = {"ask": "move", "piece": "rifles", "to": {"x": 6, "y": 3, "heading": 0}}
    scene = scene.with_pieces(scene.piece("rifles").moved(6, 7))
    assert rules.answer(scene, marsh).ok is False


def test_targets_lists_the_enemy_nearest_first_with_the_pairs_verdicts():
    scene = _scene()
    rules = ruleset_for(scene)
    verdict = rules.answer(scene, {"ask": "targets", "from": "panzer"})
    listed = verdict.details["targets"]
    assert [entry["to"] for entry in listed] == ["rifles", "sherman"]  # 10in, then 16in
    assert verdict.summary == "targets panzer: 1 of 2 in range and sight"  # the wood
    for entry in listed:
        for ask in ("range", "los"):
            pair = rules.answer(scene, {"ask": ask, "from": "panzer", "to": entry["to"]})
            assert entry[ask] == pair.to_json()


def test_a_setting_says_what_it_switches_from_the_class_itself():
    """``setting(default, doc)`` keeps the words in the field (no source is read), and a
    setting the system does not declare again keeps the core's words."""
    words = {name: doc for name, _, doc in Skirmish.conventions()}
    assert words["blocking"] == "Only woods block line of sight."
    assert words["difficult"].startswith("Terrain kinds that end a move when entered")
