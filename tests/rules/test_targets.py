"""`targets` ("what can this piece hit?"): every entry is exactly the pair's single `range`
and `los` verdicts, in every system that has both, as `referee check --json` prints them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.rules import RULESETS, QueryError, ruleset_for
from referee.rules.targets import Targets
from referee.scene import Scene, save_scene
from referee.sim.tables import SYSTEM_KINDS, random_table


def _systems() -> list[str]:
    out = []
    for system in SYSTEM_KINDS:
        rules = ruleset_for(random_table(2, 0, 0.0, ruleset=system))
        if {"range", "los", "targets"} <= set(rules.questions()):
            out.append(system)
    return out


SYSTEMS = _systems()


def _single(rules: Any, scene: Scene, query: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return dict(rules.answer(scene, query).to_json())
    except QueryError:
        return None


def _check_json(scene: Scene, tmp_path: Path) -> list[dict[str, Any]]:
    """``referee check --json`` on the scene with a ``targets`` question from every piece."""
    asked = tuple({"ask": "targets", "from": p.id} for p in scene.pieces)
    path = tmp_path / f"{scene.ruleset}.json"
    save_scene(dataclasses.replace(scene, queries=asked), path)
    result = CliRunner().invoke(cli, ["check", "--json", str(path)])
    assert result.exit_code in (0, 1), result.output
    verdicts: list[dict[str, Any]] = json.loads(result.output)["verdicts"]
    assert len(verdicts) == len(scene.pieces)
    return verdicts


def _agree(scene: Scene, tmp_path: Path) -> int:
    """Compare every entry with the single questions; the number of entries compared."""
    rules = ruleset_for(scene)
    compared = 0
    for piece, verdict in zip(scene.pieces, _check_json(scene, tmp_path), strict=True):
        entries = verdict["targets"]
        enemies = {p.id for p in scene.pieces if p.side != piece.side}
        assert len(entries) == len(enemies)  # one entry per enemy piece
        assert {e["to"] for e in entries} == enemies
        for entry in entries:
            pair = {"from": piece.id, "to": entry["to"]}
            assert entry["los"] == _single(rules, scene, {"ask": "los", **pair}), pair
            assert entry["range"] == _single(rules, scene, {"ask": "range", **pair}), pair
            compared += 1
    return compared


def _nearest_first(scene: Scene, tmp_path: Path) -> None:
    rules = ruleset_for(scene)
    assert isinstance(rules, Targets)
    vis = rules.visibility(scene)
    for piece, verdict in zip(scene.pieces, _check_json(scene, tmp_path), strict=True):
        row = vis.ids.index(piece.id)
        d = [vis.distance[row, vis.ids.index(e["to"])] for e in verdict["targets"]]
        assert d == sorted(d)


@pytest.mark.parametrize("system", SYSTEMS)
def test_targets_entries_are_the_single_questions(system: str, tmp_path: Path) -> None:
    """A small table per system: fast enough for every run."""
    scene = random_table(12, 8, 0.1, seed=7, ruleset=system)
    assert _agree(scene, tmp_path) > 0


@pytest.mark.slow
@pytest.mark.parametrize("system", SYSTEMS)
def test_targets_on_40_piece_tables(system: str, tmp_path: Path) -> None:
    """The issue's check: 40 pieces, every entry against the single questions."""
    for seed in (1, 2):
        scene = random_table(40, 15, 0.05 * seed, seed=seed, ruleset=system)
        assert _agree(scene, tmp_path) > 0


@pytest.mark.parametrize("system", ["paper-tigers", "pz8-ww2", "pz8-divisional"])
def test_targets_nearest_first(system: str, tmp_path: Path) -> None:
    _nearest_first(random_table(15, 6, 0.1, seed=3, ruleset=system), tmp_path)


def test_every_table_system_has_targets() -> None:
    """Every system with both `range` and `los` answers `targets` (the grader's list)."""
    for cls in RULESETS:
        qs = set(cls.questions())
        if {"range", "los"} <= qs:
            assert "targets" in qs, cls.name


def test_targets_map_is_kept_per_scene() -> None:
    """One map per scene object: the next scene (a piece moved) gets a new map."""
    scene = random_table(10, 4, 0.1, seed=5)
    rules = ruleset_for(scene)
    assert isinstance(rules, Targets)
    first = rules.targets_map(scene)
    assert rules.targets_map(scene) is first
    moved = dataclasses.replace(
        scene, pieces=(dataclasses.replace(scene.pieces[0], x=1.0), *scene.pieces[1:])
    )
    again = rules.targets_map(moved)
    assert again is not first
    assert again.distance[0, 1] != first.distance[0, 1]


@pytest.mark.parametrize(
    ("system", "weapon"), [("pz8-aerial-1965", "hs"), ("pz8-aerial", "rear"), ("pz8-naval", "main")]
)
def test_targets_passes_the_weapon_to_range(system: str, weapon: str) -> None:
    """A system whose range question takes a ``weapon``: `targets` judges every pair with
    it, exactly as the single question with that weapon."""
    scene = random_table(12, 4, 0.1, seed=2, ruleset=system)
    rules = ruleset_for(scene)
    firer = scene.pieces[1]
    got = rules.answer(scene, {"ask": "targets", "from": firer.id, "weapon": weapon})
    assert got.to_json()["targets"]
    for entry in got.to_json()["targets"]:
        single = _single(
            rules, scene, {"ask": "range", "from": firer.id, "to": entry["to"], "weapon": weapon}
        )
        assert entry["range"] == single
