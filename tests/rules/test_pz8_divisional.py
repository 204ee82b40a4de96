"""Pz8 WW2 Divisional and WW1 Divisional beyond the golden files: properties of the
conventions (the whole table moved, turned or mirrored), switches, bad questions, the CLI."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cli import cli
from referee.rules import QueryError, find_ruleset, ruleset_for
from referee.rules.pz8_divisional import Grid, steps
from referee.scene import Piece, Scene, Table, Terrain, load_scene

from .fuzz import ask_random_questions

DATA = Path(__file__).resolve().parents[1] / "data"
DIV = sorted((DATA / "pz8_divisional").glob("*.json"))
WW1 = sorted((DATA / "pz8_ww1").glob("*.json"))


def _turn(x: float, y: float, dx: float, dy: float, turn: float) -> tuple[float, float]:
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    return c * x - s * y + dx, s * x + c * y + dy


def _moved(scene: Scene, dx: float, dy: float, turn: float) -> Scene:
    pieces = tuple(
        dataclasses.replace(
            p,
            x=_turn(p.x, p.y, dx, dy, turn)[0],
            y=_turn(p.x, p.y, dx, dy, turn)[1],
            heading=(p.heading + turn) % 360,
        )
        for p in scene.pieces
    )
    terrain = tuple(
        dataclasses.replace(t, polygon=tuple(_turn(x, y, dx, dy, turn) for x, y in t.polygon))
        for t in scene.terrain
    )
    return dataclasses.replace(scene, pieces=pieces, terrain=terrain)


def _moved_query(q: dict[str, Any], dx: float, dy: float, turn: float) -> dict[str, Any]:
    out = dict(q)
    for key in ("from", "to"):
        pose = q.get(key)
        if isinstance(pose, dict):
            x, y = _turn(pose["x"], pose["y"], dx, dy, turn)
            out[key] = {**pose, "x": x, "y": y}
            if "heading" in pose:
                out[key]["heading"] = pose["heading"] + turn
    return out


# -- WW2 Divisional ------------------------------------------------------------------------


#: A shift of the whole table in x and y, and a turn of it, degrees.
SHIFTS = (
    st.floats(-60, 60, allow_nan=False),
    st.floats(-60, 60, allow_nan=False),
    st.floats(0, 360, allow_nan=False),
)


@pytest.mark.slow  # every question again on the table turned and mirrored: ~9 s of CPU
@settings(max_examples=3, deadline=None, derandomize=True)
@given(*SHIFTS)
def test_divisional_verdicts_do_not_depend_on_the_table_axes(
    dx: float, dy: float, turn: float
) -> None:
    """Every question of every golden file (spotting, fire, withdrawals, sections...) gives
    the same verdict and distance when the whole table is shifted and turned (a few shifts
    here; the long run below takes twelve)."""
    _same_verdicts_when_shifted(dx, dy, turn)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, derandomize=True)
@given(*SHIFTS)
def test_divisional_verdicts_do_not_depend_on_the_table_axes_long_run(
    dx: float, dy: float, turn: float
) -> None:
    _same_verdicts_when_shifted(dx, dy, turn)


def _same_verdicts_when_shifted(dx: float, dy: float, turn: float) -> None:
    for path in DIV:
        scene = load_scene(path)
        rules = ruleset_for(scene)
        moved = _moved(scene, dx, dy, turn)
        for q in scene.queries:
            a = rules.answer(scene, q)
            b = rules.answer(moved, _moved_query(dict(q), dx, dy, turn))
            assert (a.ok, a.los) == (b.ok, b.los), (path.name, q, a.summary, b.summary)
            if a.distance is not None:
                assert b.distance == pytest.approx(a.distance, abs=1e-6)


def _pair(rnd: random.Random, side: str = "b", kind: str = "leg infantry") -> Piece:
    return Piece(
        f"p{rnd.random()}",
        side,
        kind,
        rnd.uniform(5, 65),
        rnd.uniform(5, 40),
        rnd.uniform(0, 360),
        uncertainty=rnd.choice([0.0, 0.02]),
    )


@pytest.mark.parametrize("seed", range(8))
def test_contact_and_spotting_distances_are_symmetric(seed: int) -> None:
    rnd = random.Random(seed)
    a, b = _pair(rnd, "a", "recon"), _pair(rnd, "b", "recon")
    scene = Scene("pz8-divisional", Table(72, 48), (a, b))
    rules = ruleset_for(scene)
    for ask in ("contact", "spot"):
        ab = rules.answer(scene, {"ask": ask, "from": a.id, "to": b.id})
        ba = rules.answer(scene, {"ask": ask, "from": b.id, "to": a.id})
        assert ab.distance == pytest.approx(ba.distance) and ab.ok == ba.ok


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.floats(0, 360, allow_nan=False),
    st.floats(-89, 89, allow_nan=False),
    st.integers(1, 5),
    st.sampled_from([0.0, 0.01, 0.03]),
)
def test_a_withdrawal_of_the_difference_within_the_arc_is_legal(
    bearing: float, turn: float, diff: int, doubt: float
) -> None:
    """Winner anywhere around the loser, the loser moving the difference in inches at up to
    89 degrees off straight away: legal; 0.05in more or less: illegal (beyond the doubt)."""
    loser = Piece("L", "b", "leg infantry", 36, 24, uncertainty=doubt / 2)
    wx, wy = 36 - math.cos(math.radians(bearing)), 24 - math.sin(math.radians(bearing))
    winner = Piece("W", "a", "tanks", wx, wy)
    scene = Scene("pz8-divisional", Table(72, 48), (loser, winner))
    rules = ruleset_for(scene)
    way = math.radians(bearing + turn)
    verdicts = []
    for extra in (0.0, 0.05, -0.05):
        d = diff + 0 + extra
        to = {"x": 36 + d * math.cos(way), "y": 24 + d * math.sin(way)}
        q = {"ask": "withdraw", "piece": "L", "enemy": "W", "difference": diff, "to": to}
        verdicts.append(rules.answer(scene, q).ok)
    assert verdicts == [True if doubt == 0 else None, False, False]


def test_switches_change_what_they_say() -> None:
    scene = load_scene(DATA / "pz8_divisional" / "spotting.json")
    blocked = {"ask": "los", "from": "rL", "to": "tL"}
    assert ruleset_for(scene).answer(scene, blocked).los == "blocked"
    assert ruleset_for(scene, enemy_units_block=False).answer(scene, blocked).los == "clear"
    vis = ruleset_for(scene, enemy_units_block=False).visibility(scene)
    assert vis.los_of("rL", "tL") == "clear"
    combat = load_scene(DATA / "pz8_divisional" / "combat.json")
    q = {"ask": "withdraw", "piece": "L1", "enemy": "W1", "scores": [5, 3]}
    near = {**q, "to": {"x": 12.2, "y": 20}}
    assert ruleset_for(combat).answer(combat, near).ok is False
    assert ruleset_for(combat, withdraw_tolerance=0.25).answer(combat, near).ok is True
    assert (
        ruleset_for(combat, advance=3)
        .answer(
            combat, {**q, "piece": "W2", "enemy": "L3", "ask": "advance", "to": {"x": 11, "y": 25}}
        )
        .ok
    )
    with pytest.raises(ValueError, match="direction_arc"):
        find_ruleset("pz8-divisional", direction_arc=200)
    with pytest.raises(ValueError, match="setting hills must be a list"):
        find_ruleset("pz8-divisional", hills="hill")


def test_the_all_pairs_map_is_seen_from_each_side() -> None:
    """An enemy base between blocks the line for the other side only (friends never
    block), so the map is not symmetric."""
    a = Piece("a", "x", "recon", 2, 2)
    wall = Piece("w", "y", "tanks", 6, 2)
    b = Piece("b", "y", "recon", 10, 2)
    scene = Scene("pz8-divisional", Table(20, 10), (a, wall, b))
    vis = ruleset_for(scene).visibility(scene)
    assert vis.los_of("a", "b") == "blocked" and vis.los_of("b", "a") == "clear"


def test_a_big_map_seen_side_by_side_on_two_cores_is_the_one_core_map(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From 60 pieces the sides' passes run on the cores at once; the map is the one a
    single core makes, line for line, also for three sides and with several callers at
    once."""
    import concurrent.futures

    from referee.rules import core
    from referee.sim.tables import random_table

    rules = find_ruleset("pz8-divisional")
    two = random_table(120, 30, 0.02, seed=4, ruleset="pz8-divisional")
    three = dataclasses.replace(
        two,
        pieces=tuple(dataclasses.replace(p, side="xyz"[k % 3]) for k, p in enumerate(two.pieces)),
    )
    monkeypatch.setattr(core, "CORES", range(1))
    alone = [rules.visibility(s) for s in (two, three)]
    handed: list[int] = []
    real = core.in_shares

    def counted(shares: list[Any]) -> list[Any]:
        handed.append(len(shares))
        return real(shares)

    monkeypatch.setattr(core, "CORES", range(2))
    monkeypatch.setattr(core, "in_shares", counted)
    for scene, want in zip((two, three), alone, strict=True):
        got = rules.visibility(scene)
        assert (got.los == want.los).all() and (got.distance == want.distance).all()
        assert (got.los != got.los.T).any()  # seen from each side: not symmetric
    assert handed == [2, 3]
    with concurrent.futures.ThreadPoolExecutor(3) as callers:
        maps = list(callers.map(rules.visibility, [two, three, two]))
    assert all((m.los == w.los).all() for m, w in zip(maps, [*alone, alone[0]], strict=True))


def test_sections_are_measured_on_their_long_side() -> None:
    scene = Scene(
        "pz8-divisional",
        Table(20, 10),
        (Piece("a", "x", "tanks", 2, 2, base=(1.5, 1.5)),),
        (Terrain("f", "fortification", ((5, 5), (8, 5), (8, 6), (5, 6))),),
    )
    v = ruleset_for(scene).answer(scene, {"ask": "section", "terrain": "f"})
    assert v.ok is True and v.limit == 3.0  # two 1.5in bases
    v = ruleset_for(scene).answer(scene, {"ask": "section", "terrain": "f", "base": 1})
    assert v.ok is False and v.limit == 2.0


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"ask": "withdraw", "piece": "L1", "enemy": "W1", "to": {"x": 12, "y": 20}}, "scores"),
        (
            {
                "ask": "withdraw",
                "piece": "L1",
                "enemy": "W1",
                "scores": [3, 3],
                "to": {"x": 1, "y": 1},
            },
            "no win",
        ),
        (
            {
                "ask": "withdraw",
                "piece": "L1",
                "enemy": "B1",
                "scores": [5, 3],
                "to": {"x": 1, "y": 1},
            },
            "on L1's side",
        ),
        ({"ask": "advance", "piece": "W2", "enemy": "L3", "difference": -1, "to": {}}, "to.x"),
        ({"ask": "section", "terrain": "zz"}, "unknown terrain id 'zz'"),
        ({"ask": "spot", "from": "A1"}, "to: missing"),
    ],
)
def test_bad_questions_are_one_line(query: dict[str, Any], message: str) -> None:
    scene = load_scene(DATA / "pz8_divisional" / "combat.json")
    with pytest.raises(QueryError, match=message):
        ruleset_for(scene).answer(scene, query)


#: The divisional games' own odd values and keys (squares, scores) for the fuzz loop.
WEIRD: list[Any] = [
    None,
    0,
    -1,
    1.5,
    1e308,
    "A1",
    "zz",
    "C4",
    True,
    float("nan"),
    [],
    [5, 3],
    [1, "a"],
    {},
    {"x": 1},
    {"x": 1, "y": 2},
    {"x": "a", "y": 2},
    "top",
]
KEYS = [
    "from",
    "to",
    "piece",
    "enemy",
    "scores",
    "difference",
    "double",
    "terrain",
    "base",
    "uncertainty",
    "side",
    "square",
    "edge",
    "allowance",
]


@pytest.mark.parametrize("path", [DIV[0], WW1[0]], ids=lambda p: p.parent.name)
def test_random_questions_fail_cleanly(path: Path) -> None:
    scene = load_scene(path)
    values = [*WEIRD, *(p.id for p in scene.pieces)]
    ask_random_questions(ruleset_for(scene), scene, random.Random(13), 1500, KEYS, values)


# -- WW1 Divisional ------------------------------------------------------------------------

EDGE_TURN = {"top": "right", "right": "bottom", "bottom": "left", "left": "top"}


def _quarter_turn(scene: Scene) -> Scene:
    """The whole table turned 90 degrees, frame and all: (x, y) -> (depth - y, x)."""
    d = scene.table.depth
    pieces = tuple(
        dataclasses.replace(p, x=d - p.y, y=p.x, heading=(p.heading + 90) % 360)
        for p in scene.pieces
    )
    terrain = tuple(
        dataclasses.replace(t, polygon=tuple((d - y, x) for x, y in t.polygon))
        for t in scene.terrain
    )
    return dataclasses.replace(
        scene,
        table=Table(scene.table.depth, scene.table.width),
        pieces=pieces,
        terrain=terrain,
        deployment={k: EDGE_TURN[v] for k, v in scene.deployment.items()},
    )


def _quarter_query(q: dict[str, Any], depth: float) -> dict[str, Any]:
    out = dict(q)
    for key in ("from", "to"):
        pose = q.get(key)
        if isinstance(pose, dict):
            out[key] = {**pose, "x": depth - pose["y"], "y": pose["x"]}
    if "edge" in q:
        out["edge"] = EDGE_TURN[q["edge"]]
    return out


@pytest.mark.parametrize("path", WW1, ids=lambda p: p.stem)
def test_ww1_verdicts_turn_with_the_whole_table(path: Path) -> None:
    """Turning the table with its squares (and the players' edges) changes no verdict."""
    scene = load_scene(path)
    rules = ruleset_for(scene)
    turned = _quarter_turn(scene)
    for q in scene.queries:
        if "square" in q:  # a square's name changes with the turn
            continue
        a = rules.answer(scene, q)
        b = rules.answer(turned, _quarter_query(dict(q), scene.table.depth))
        assert (a.ok, a.distance, a.limit) == (b.ok, b.distance, b.limit), (q, a.summary, b.summary)


@pytest.mark.parametrize("path", WW1, ids=lambda p: p.stem)
@pytest.mark.parametrize(("cols", "rows"), [(1, 0), (2, 3), (0, 5)])
def test_ww1_verdicts_shift_with_whole_squares(path: Path, cols: int, rows: int) -> None:
    """Pieces moved by whole squares on a table grown by as much: every square question
    (not the half-table ones) gives the same verdict."""
    scene = load_scene(path)
    size = 3.0
    dx, dy = cols * size, rows * size
    shifted = dataclasses.replace(
        _moved(scene, dx, dy, 0.0), table=Table(scene.table.width + dx, scene.table.depth + dy)
    )
    rules = ruleset_for(scene)
    for q in scene.queries:
        if q["ask"] in ("deployment", "victory") or "square" in q:
            continue
        a = rules.answer(scene, q)
        b = rules.answer(shifted, _moved_query(dict(q), dx, dy, 0.0))
        assert (a.ok, a.distance) == (b.ok, b.distance), (q, a.summary, b.summary)


def test_the_grid_names_and_finds_squares() -> None:
    grid = Grid(3.0, 30, 8)
    assert grid.label((0, 0)) == "A1" and grid.label((27, 7)) == "AB8"
    assert grid.parse("ab8", ".square") == (27, 7)
    assert grid.candidates(3.0, 1.5, 0.0) == {(0, 0), (1, 0)}  # on a line: both
    assert grid.candidates(2.98, 1.5, 0.01) == {(0, 0)}
    assert grid.candidates(2.995, 1.5, 0.01) == {(0, 0), (1, 0)}
    assert steps((0, 0), (1, 1), False) == 2 and steps((0, 0), (1, 1), True) == 1
    with pytest.raises(QueryError, match="off the table"):
        grid.parse("A9", ".square")
    with pytest.raises(QueryError, match='like "C4"'):
        grid.parse("4C", ".square")


def test_square_size_follows_the_bases_or_the_setting() -> None:
    units = tuple(Piece(f"u{k}", "a", "infantry", 1 + 2 * k, 1, base=(1.0, 0.5)) for k in range(3))
    scene = Scene("pz8-ww1", Table(24, 24), (*units, Piece("t", "a", "trench", 5, 5, base=(3, 3))))
    rules = ruleset_for(scene)
    assert rules.answer(scene, {"ask": "square", "piece": "u2"}).details["size"] == 3.0
    big = ruleset_for(scene, square=6)
    assert big.answer(scene, {"ask": "square", "piece": "u2"}).details["square"] == "A1"
    empty = Scene("pz8-ww1", Table(24, 24), (Piece("t", "a", "trench", 5, 5),))
    with pytest.raises(QueryError, match='set "square"'):
        ruleset_for(empty).answer(empty, {"ask": "square", "piece": "t"})


# -- the command line ----------------------------------------------------------------------


@pytest.mark.parametrize("path", [*DIV, *WW1], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_referee_check_answers_every_question(path: Path) -> None:
    result = CliRunner().invoke(cli, ["check", str(path), "--json"])
    assert result.exit_code == 0, result.output
    verdicts = json.loads(result.output)["verdicts"]
    expected = json.loads(path.read_text())["expected"]
    assert [v["ok"] for v in verdicts] == [e["ok"] for e in expected]
    for v in verdicts:  # every answer carries its measurement (a missing HQ has none)
        if v["ask"] != "los" and "no HQ" not in v["summary"]:
            assert {"distance", "uncertainty", "limit"} <= v.keys(), v


def test_referee_rulesets_lists_both_with_conventions() -> None:
    result = CliRunner().invoke(cli, ["rulesets", "pz8-div"])
    assert result.exit_code == 0
    assert result.output.startswith("pz8-divisional: Pz8 WW2 Divisional")
    assert "enemy_units_block = true" in result.output
    assert "withdraw" in result.output and "green_rally_radius = 9.0" in result.output
    result = CliRunner().invoke(cli, ["rulesets", "pz8 ww1", "--json"])
    (entry,) = json.loads(result.output)["rulesets"]
    assert entry["name"] == "pz8-ww1"
    assert {"assault", "stack", "victory", "square"} <= set(entry["questions"])
    assert "square" in {c["setting"] for c in entry["conventions"]}


def test_referee_check_bad_input_is_one_line(tmp_path: Path) -> None:
    data = json.loads((DATA / "pz8_divisional" / "combat.json").read_text())
    data["pieces"][0]["quality"] = "veteran"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = CliRunner().invoke(cli, ["check", str(bad)])
    assert result.exit_code == 2
    assert "$.pieces[0].quality: unknown quality 'veteran'" in result.output
    data = json.loads((DATA / "pz8_divisional" / "combat.json").read_text())
    data["queries"] = [{**data["queries"][6], "scores": [2, 5]}]
    bad.write_text(json.dumps(data))
    result = CliRunner().invoke(cli, ["check", str(bad)])
    assert result.exit_code == 2 and "$.queries[0].scores" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_picture_labels_square_counts_as_squares() -> None:
    from referee.picture import draw

    scene = load_scene(DATA / "pz8_ww1" / "assault.json")
    verdict = ruleset_for(scene).answer(scene, {"ask": "range", "from": "i1", "to": "d1"})
    texts = {s.text for s in draw(scene, [verdict.to_json()]).shapes if s.kind == "text"}
    assert "1 squares" in texts and not any(str(t).endswith("in") and "1.00" in t for t in texts)
