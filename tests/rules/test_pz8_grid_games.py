"""Pz8 Naval, Space and Aerial beyond the golden files: laying out the mat, deployment,
settings, the game flow, all-pairs agreement on random tables and malformed questions."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.errors import SceneError
from referee.geometry import Pose
from referee.rules import QueryError, find_ruleset, ruleset_for
from referee.rules.flow import SettledMove
from referee.scene import Piece, Scene, Table, load_scene

from .fuzz import KEYS, WEIRD, ask_random_questions

DATA = Path(__file__).resolve().parents[1] / "data"
SYSTEMS = ("pz8-naval", "pz8-space", "pz8-aerial", "pz8-aerial-1965")


def _ship(pid: str, side: str, x: float, y: float, heading: float = 90.0, **f: Any) -> Piece:
    return Piece(pid, side, "bismarck", x, y, heading, (0.5, 2.0), fields=f)


def test_naval_zones_run_along_the_long_side_whichever_it_is() -> None:
    rules = find_ruleset("pz8-naval")
    wide = rules.grid(Table(40, 28))
    assert wide.cell_at(4.9, 27) == (0, 0) and wide.cell_at(35.1, 1) == (7, 0)
    tall = rules.grid(Table(28, 40))  # the long side along y: zones stacked down the table
    assert tall.cell_at(1, 4.9) == (0, 0) and tall.cell_at(27, 35.1) == (7, 0)
    assert find_ruleset("pz8-naval", zone_depth=4.0).grid(Table(40, 28)).cell_at(4.1, 1) == (1, 0)


def test_naval_home_edge_from_deployment_or_from_where_the_fleets_are() -> None:
    a, b = _ship("a", "uk", 12.5, 5), _ship("b", "de", 27.5, 5)
    move = {"ask": "move", "piece": "a", "to": {"x": 17.5, "y": 5, "heading": 0}}
    for deployment in ({"uk": "left", "de": "right"}, {}):
        scene = Scene("pz8-naval", Table(40, 28), (a, b), deployment=deployment)
        verdict = find_ruleset("pz8-naval").answer(scene, move)
        assert verdict.ok is True and verdict.details["zones_moved"] == 1
    # Deployed at the other end, the same move is backwards and faces the wrong way.
    scene = Scene("pz8-naval", Table(40, 28), (a, b), deployment={"uk": "right", "de": "left"})
    verdict = find_ruleset("pz8-naval").answer(scene, move)
    assert verdict.ok is False and verdict.details["zones_moved"] == -1
    # A long edge is not where fleets deploy: one line naming the fix.
    scene = Scene("pz8-naval", Table(40, 28), (a, b), deployment={"uk": "top", "de": "bottom"})
    with pytest.raises(QueryError, match="deploys on the top edge, a long edge"):
        find_ruleset("pz8-naval").answer(scene, move)


@pytest.mark.parametrize(
    ("name", "setting", "value", "message"),
    [
        ("pz8-naval", "zones", 7, "zones must be a whole, even number"),
        ("pz8-naval", "zone_depth", -1.0, "zone_depth"),
        ("pz8-naval", "facing_margin", 90.0, "facing_margin"),
        ("pz8-space", "hex_size", 0.0, "hex_size"),
        ("pz8-aerial", "hex_size", -2.0, "hex_size"),
    ],
)
def test_bad_settings_are_refused(name: str, setting: str, value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_ruleset(name, **{setting: value})


def test_wrong_pieces_and_weapons_are_one_line_query_errors() -> None:
    scene = load_scene(DATA / "pz8_space" / "space_moves.json")
    space = ruleset_for(scene)
    with pytest.raises(QueryError, match="rock is a asteroid: only spaceships move"):
        space.answer(scene, {"ask": "move", "piece": "rock", "to": {"x": 1, "y": 1}})
    with pytest.raises(QueryError, match="not a torpedo"):
        space.answer(scene, {"ask": "torpedo", "piece": "s"})
    jets = load_scene(DATA / "pz8_aerial_1965" / "jets.json")
    with pytest.raises(QueryError, match="must be cannon, hs or rh"):
        ruleset_for(jets).answer(jets, {"ask": "range", "from": "mig", "to": "c2", "weapon": "gun"})
    planes = load_scene(DATA / "pz8_aerial" / "aerial_fire.json")
    with pytest.raises(QueryError, match="has no rear guns"):
        ruleset_for(planes).answer(
            planes, {"ask": "range", "from": "spit", "to": "four", "weapon": "rear"}
        )
    with pytest.raises(QueryError, match="tank is a target, not an aircraft"):
        ruleset_for(planes).answer(planes, {"ask": "tailing", "piece": "tank"})


def test_the_game_flow_judges_a_settled_move_in_movement_points() -> None:
    scene = load_scene(DATA / "pz8_space" / "space_moves.json")
    flow = ruleset_for(scene).game_flow()
    s = scene.piece("s")
    x, y = ruleset_for(scene).grid(scene.table).centre((6, 2))
    good = flow.judge(scene, SettledMove("s", s.pose, Pose(x, y, 0.0)))
    assert good.ok is True and good.verdicts[0].details["units"] == "MPs"
    x, y = ruleset_for(scene).grid(scene.table).centre((7, 2))
    assert flow.judge(scene, SettledMove("s", s.pose, Pose(x, y, 0.0))).ok is False


def _random_space(seed: int) -> Scene:
    rnd = random.Random(seed)
    pieces = [
        Piece(
            f"p{k}",
            rnd.choice(["a", "b", "rocks"]),
            "asteroid" if k % 3 == 0 else "spaceship",
            rnd.uniform(0, 18),
            rnd.uniform(0, 12),
            rnd.uniform(0, 360),
            (1.0, 1.0),
            state=rnd.choice(["ok", "ok", "destroyed"]),
            uncertainty=rnd.choice([0.0, 0.0, 0.0, 0.1, 0.5]),
        )
        for k in range(24)
    ]
    return Scene("pz8-space", Table(18, 12), tuple(pieces))


@pytest.mark.parametrize("seed", [0, 1, *(pytest.param(s, marks=pytest.mark.slow) for s in (2, 3))])
def test_all_pairs_map_agrees_with_the_single_questions_on_random_tables(seed: int) -> None:
    scene = _random_space(seed)
    rules = ruleset_for(scene)
    vis = rules.visibility(scene)
    for a, b in itertools.permutations(scene.pieces, 2):
        los = rules.answer(scene, {"ask": "los", "from": a.id, "to": b.id})
        assert vis.los_of(a.id, b.id) == los.los, (a.id, b.id)
        assert vis.distance[vis.ids.index(a.id), vis.ids.index(b.id)] == los.distance
    assert (vis.los == 2).any()  # some asteroid is in the way on these tables


@pytest.mark.parametrize("name", SYSTEMS)
def test_random_questions_fail_cleanly(name: str) -> None:
    path = sorted((DATA / name.replace("-", "_")).glob("*.json"))[0]
    scene = load_scene(path)
    keys = [*KEYS, "weapon", "altitude"]
    values = [*WEIRD, *(p.id for p in scene.pieces), "rear", "hs", "secondary"]
    ask_random_questions(ruleset_for(scene), scene, random.Random(name), 600, keys, values)


@pytest.mark.parametrize("name", SYSTEMS)
def test_check_answers_every_golden_question_and_rulesets_lists_the_system(name: str) -> None:
    for path in sorted((DATA / name.replace("-", "_")).glob("*.json")):
        result = CliRunner().invoke(cli, ["check", str(path), "--json"])
        assert result.exit_code == 0, result.output
        assert len(json.loads(result.output)["verdicts"]) == len(load_scene(path).queries)
    listed = CliRunner().invoke(cli, ["rulesets", name])
    assert listed.exit_code == 0, listed.output
    assert listed.output.startswith(f"{name}: Pz8")
    for word in ("range", "los", "move", "cell", "grid_rotation"):
        assert word in listed.output


def test_check_points_at_a_bad_deployment_in_the_scene_file(tmp_path: Path) -> None:
    data = json.loads((DATA / "pz8_naval" / "naval_moves.json").read_text())
    data["deployment"] = {"uk": "top", "de": "bottom"}
    path = tmp_path / "naval.json"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 2
    assert "$.queries[0]" in result.output and "a long edge" in result.output
    with pytest.raises(SceneError, match="long edge"):
        scene = load_scene(path)
        ruleset_for(scene).answer_all(scene, str(path))


def test_a_generic_ship_takes_its_defence_from_the_scene_file() -> None:
    """The Defence factor comes from tonnage (7): a generic battleship's is its own field,
    and H damages of half of it stop zone moves (5)."""
    move = {"ask": "move", "piece": "bb", "to": {"x": 17.5, "y": 5, "heading": 0}}
    other = _ship("de1", "de", 27.5, 5)
    deploy = {"uk": "left", "de": "right"}

    def scene(**fields: Any) -> Scene:
        bb = Piece("bb", "uk", "battleship", 12.5, 5, 90, (0.5, 2.0), fields=fields)
        return Scene("pz8-naval", Table(40, 28), (bb, other), deployment=deploy)

    rules = find_ruleset("pz8-naval")
    assert rules.answer(scene(), move).ok is True
    assert rules.answer(scene(hull=1, defence=4), move).ok is True
    stuck = rules.answer(scene(hull=2, defence=4), move)
    assert stuck.ok is False and stuck.limit == 0.0
    with pytest.raises(QueryError, match='has H damages but no Defence factor: give it "defence"'):
        rules.answer(scene(hull=2), move)
