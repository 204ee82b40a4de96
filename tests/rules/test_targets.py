"""`targets` ("what can this piece hit?"): every entry is exactly the pair's single `range`
and `los` verdicts, in every system that has both, as `referee check --json` prints them."""

from __future__ import annotations

import dataclasses
import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.rules import RULESETS, QueryError, find_ruleset, ruleset_for
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


def _agree_direct(scene: Scene, firers: list[str]) -> int:
    """``targets`` of each of ``firers`` against the single questions, asked of one
    ruleset (the map and the contact book kept between them, as the dashboard does)."""
    rules = ruleset_for(scene)
    fresh = ruleset_for(scene)  # the single questions on a ruleset that never answered it
    compared = 0
    for firer in firers:
        got = rules.answer(scene, {"ask": "targets", "from": firer}).to_json()
        for entry in got["targets"]:
            pair = {"from": firer, "to": entry["to"]}
            assert entry["los"] == _single(fresh, scene, {"ask": "los", **pair}), pair
            assert entry["range"] == _single(fresh, scene, {"ask": "range", **pair}), pair
            compared += 1
    return compared


def _random_case(system: str, seed: int) -> Scene:
    """A 40-piece table with a random doubt: none, a hair, or enough that many lines
    are too close to call (the contacts the book leaves to the single measure)."""
    rng = random.Random(f"{system}/{seed}")
    u = rng.choice((0.0, 0.02, 0.1, 0.25))
    return random_table(40, rng.randint(8, 30), u, seed=seed, ruleset=system)


@pytest.mark.slow  # a sweep of random tables; test_targets_entries_are_the_single_questions stays
@pytest.mark.parametrize("system", SYSTEMS)
def test_targets_random_40_piece_table(system: str) -> None:
    """One random 40-piece table per system, three firers: the entries are the single
    questions' verdicts, field for field."""
    scene = _random_case(system, 11)
    firers = random.Random(system).sample([p.id for p in scene.pieces], 3)
    assert _agree_direct(scene, firers) > 0


@pytest.mark.slow
@pytest.mark.parametrize("system", SYSTEMS)
def test_targets_random_40_piece_tables_sweep(system: str) -> None:
    for seed in range(20, 26):
        scene = _random_case(system, seed)
        assert _agree_direct(scene, [p.id for p in scene.pieces]) > 0


def test_targets_map_follows_a_live_table() -> None:
    """Frames of a live table are new scene objects: an unchanged table answers from the
    last map; a piece that settled gets the map made again for its lines only, and the
    entries stay the single questions'."""
    scene = random_table(30, 8, 0.05, seed=8)
    rules = ruleset_for(scene)
    assert isinstance(rules, Targets)
    first = rules.targets_map(scene)
    assert rules.targets_map(dataclasses.replace(scene)) is first  # the next frame, unchanged
    p = scene.pieces[3]
    settled = dataclasses.replace(
        scene, pieces=(*scene.pieces[:3], p.moved(p.x + 2.0, p.y - 1.0), *scene.pieces[4:])
    )
    fresh = ruleset_for(settled)
    assert isinstance(fresh, Targets)
    again = rules.targets_map(settled)
    want = fresh.visibility(settled)
    assert (again.los == want.los).all() and (again.distance == want.distance).all()
    assert rules.__dict__["_map_cache"].reused == 1
    firer = settled.pieces[5].id
    got = rules.answer(settled, {"ask": "targets", "from": firer}).to_json()
    for entry in got["targets"]:
        pair = {"from": firer, "to": entry["to"]}
        assert entry["los"] == _single(fresh, settled, {"ask": "los", **pair})
        assert entry["range"] == _single(fresh, settled, {"ask": "range", **pair})


def test_targets_from_threads_on_one_ruleset() -> None:
    """The dashboard's request threads and the frame loop share one ruleset: threads
    asking about two frames of the table at once each get their own frame's answer."""
    scene = random_table(24, 10, 0.05, seed=12)
    p = scene.pieces[2]
    frames = [
        scene,
        dataclasses.replace(
            scene, pieces=(*scene.pieces[:2], p.moved(p.x + 5.0, p.y), *scene.pieces[3:])
        ),
    ]
    firer = scene.pieces[0].id
    want = [ruleset_for(f).answer(f, {"ask": "targets", "from": firer}).to_json() for f in frames]
    rules = ruleset_for(scene)
    wrong: list[int] = []

    def run(k: int) -> None:
        for step in range(12):
            s = (k + step) % 2
            got = rules.answer(frames[s], {"ask": "targets", "from": firer}).to_json()
            if got != want[s]:
                wrong.append(s)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_targets_of_a_piece_not_on_the_table_name_it() -> None:
    """Moved from tests/maps when the engine's own ``targets`` went (issue 37: one
    ``targets``): the product's question refuses an unknown firer in one line, naming it."""
    scene = random_table(5, 0, 0.0)
    with pytest.raises(QueryError, match="from: unknown piece id 'nobody'"):
        find_ruleset("paper-tigers").answer(scene, {"ask": "targets", "from": "nobody"})
