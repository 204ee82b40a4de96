"""Pz8 Colonial beyond the golden files: properties of its conventions, bad input, the CLI."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cli import cli
from referee.errors import RefereeError, SceneError
from referee.rules import QueryError, find_ruleset, ruleset_for
from referee.rules.pz8_colonial import Pz8Colonial, sum_at_least
from referee.scene import Piece, Scene, Table, Terrain, load_scene

from .scaled import doubled

DATA = Path(__file__).resolve().parents[1] / "data" / "pz8_colonial"
WOOD = Terrain("wood", "woods", ((20, 10), (30, 10), (30, 20), (20, 20)))


def _scene(*pieces: Piece, terrain: tuple[Terrain, ...] = (WOOD,), **kw: Any) -> Scene:
    return Scene("pz8-colonial", Table(72, 48), tuple(pieces), terrain, **kw)


def _fig(pid: str, x: float, y: float, kind: str = "foot", **fields: Any) -> Piece:
    unc = fields.pop("uncertainty", 0.0)
    side = fields.pop("side", "brit")
    return Piece(pid, side, kind, x, y, base=(1, 1), uncertainty=unc, fields=fields)


# -- properties ---------------------------------------------------------------------------

coord = st.floats(2, 40, allow_nan=False)
small = st.floats(0, 0.05, allow_nan=False)


def _doubled(scene: Scene) -> Scene:
    """The same table at twice the size: what 28mm figures stand on."""
    return dataclasses.replace(doubled(scene), table=Table(144, 96))


def _double_query(q: dict[str, Any]) -> dict[str, Any]:
    out = dict(q)
    for key in ("to", "at"):
        if isinstance(q.get(key), dict):
            out[key] = {k: 2 * v for k, v in q[key].items()}
    return out


@pytest.mark.slow  # a whole doubled table
@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    st.lists(st.tuples(coord, coord, small), min_size=4, max_size=4),
    st.tuples(coord, coord),
    st.integers(1, 6),
)
def test_28mm_figures_on_a_doubled_table_get_the_same_verdicts(
    spots: list[tuple[float, float, float]], point: tuple[float, float], roll: int
) -> None:
    """'Double them for 28mm': every verdict of a 15mm table holds on the same table at
    twice the size with figure_scale 28mm, with every distance and limit doubled."""
    (ax, ay, au), (bx, by, bu), (cx, cy, cu), (dx, dy, du) = spots
    scene = _scene(
        _fig("a", ax, ay, weapon="musket", unit="U", uncertainty=au),
        _fig("b", bx, by, "mounted", unit="U", uncertainty=bu, side="zulu"),
        _fig("c", cx, cy, "sniper", unit="U", uncertainty=cu, side="zulu"),
        _fig("d", dx, dy, "artillery", gun="light", uncertainty=du),
    )
    to = {"x": point[0], "y": point[1]}
    queries: list[dict[str, Any]] = [
        {"ask": "range", "from": "a", "to": "b"},
        {"ask": "range", "from": "c", "to": "a"},
        {"ask": "move", "piece": "b", "to": to},
        {"ask": "move", "piece": "a", "to": to},
        {"ask": "move", "piece": "a", "to": to, "extra": True, "roll": roll},
        {"ask": "charge", "piece": "b", "target": "a"},
        {"ask": "charge", "piece": "b", "target": "a", "to": to},
        {"ask": "cohesion", "unit": "U"},
        {"ask": "blast", "at": to, "from": "d"},
        {"ask": "blast", "at": to, "gun": "medium", "piece": "c"},
        {"ask": "canister", "from": "d", "to": "a"},
        {"ask": "recoil", "piece": "a", "to": to, "enemy": "b"},
        {"ask": "snipe", "from": "c", "to": "a"},
        {"ask": "contact", "from": "a", "to": "b"},
    ]
    small_rules = find_ruleset("pz8-colonial")
    big_rules = find_ruleset("pz8-colonial", figure_scale="28mm")
    big = _doubled(scene)
    for q in queries:
        v15 = small_rules.answer(scene, q).to_json()
        v28 = big_rules.answer(big, _double_query(q)).to_json()
        assert v28["ok"] == v15["ok"], (q, v15["summary"], v28["summary"])
        for key in ("distance", "limit", "uncertainty"):
            if key in v15:
                assert v28[key] == pytest.approx(2 * v15[key], abs=1e-3), (q, key)
        for key in ("needs_roll", "hit", "doubtful", "half_range", "groups", "los"):
            assert v28.get(key) == v15.get(key), (q, key)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.floats(0, 14, allow_nan=False), st.floats(0, 14, allow_nan=False), st.integers(2, 12))
def test_a_declared_roll_agrees_with_the_roll_needed(d1: float, d2: float, roll: int) -> None:
    """Without doubt, a move judged against a declared roll is legal exactly when the roll
    reaches the 'needs N' of the same move asked without one; farther needs no less."""
    rules = Pz8Colonial()
    scene = _scene(_fig("h", 21, 15, "mounted"))

    def ask(d: float, **extra: Any) -> Any:
        return rules.answer(
            scene, {"ask": "move", "piece": "h", "to": {"x": 21 + d, "y": 15}, **extra}
        )

    free = ask(d1)
    rolled = ask(d1, roll=roll)
    if free.ok is True:
        assert rolled.ok is True
    elif free.ok is False:
        assert rolled.ok is False
    else:
        need = free.details["needs_roll"]
        assert rolled.ok is (roll >= need)
        assert free.details["chance"] == pytest.approx(sum_at_least(2, need), abs=1e-4)
    lo, hi = sorted((d1, d2))
    n_lo, n_hi = ask(lo), ask(hi)

    def needed(v: Any) -> int:
        return {True: 2, False: 13}.get(v.ok, v.details.get("needs_roll", 0))

    assert needed(n_lo) <= needed(n_hi)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.lists(st.tuples(coord, coord, small), min_size=2, max_size=7), st.randoms())
def test_cohesion_and_blast_are_orderless_and_nested(
    spots: list[tuple[float, float, float]], rnd: random.Random
) -> None:
    """Cohesion does not depend on the order of the figures in the file; a unit linked into
    one group has every figure near another; a medium gun hits whom a light one hits;
    range and contact are the same both ways."""
    figs = [
        _fig(f"f{k}", x, y, weapon="rifle", unit="U", uncertainty=u)
        for k, (x, y, u) in enumerate(spots)
    ]
    shuffled = figs[:]
    rnd.shuffle(shuffled)
    chain, neigh = Pz8Colonial(), Pz8Colonial(cohesion="neighbour")
    q = {"ask": "cohesion", "unit": "U"}
    a = chain.answer(_scene(*figs), q)
    b = chain.answer(_scene(*shuffled), q)
    assert a.ok == b.ok and a.distance == pytest.approx(b.distance)
    n = neigh.answer(_scene(*figs), q)
    if a.ok is True:
        assert n.ok is True
    if n.ok is False:
        assert a.ok is False
    scene = _scene(*figs)
    at = {"x": spots[0][0] + 1.3, "y": spots[0][1] - 0.7}
    light = chain.answer(scene, {"ask": "blast", "at": at, "gun": "light"}).details
    medium = chain.answer(scene, {"ask": "blast", "at": at, "gun": "medium"}).details
    assert set(light["hit"]) <= set(medium["hit"])
    assert set(light["hit"]) | set(light["doubtful"]) <= set(medium["hit"]) | set(
        medium["doubtful"]
    )
    there = chain.answer(scene, {"ask": "range", "from": "f0", "to": "f1"})
    back = chain.answer(scene, {"ask": "range", "from": "f1", "to": "f0"})
    assert there.distance == pytest.approx(back.distance) and there.ok == back.ok
    touch = chain.answer(scene, {"ask": "contact", "from": "f0", "to": "f1"})
    assert touch.ok == chain.answer(scene, {"ask": "contact", "from": "f1", "to": "f0"}).ok


# -- bad input ----------------------------------------------------------------------------


def _table() -> Scene:
    return _scene(
        _fig("f", 5, 5, weapon="rifle", unit="A"),
        _fig("bare", 8, 5),
        _fig("mg", 5, 30, "mg"),
        _fig("gun", 5, 40, "artillery"),
        _fig("m", 10, 40, "marker"),
        _fig("z", 12, 5, side="zulu"),
    )


@pytest.mark.parametrize(
    ("query", "path", "message"),
    [
        ({"ask": "move", "piece": "f", "to": {"x": 25, "y": 15}, "roll": 7}, ".roll", "1 to 6"),
        ({"ask": "move", "piece": "f", "to": {"x": 25, "y": 15}, "roll": True}, ".roll", "1D6"),
        ({"ask": "move", "piece": "f", "to": {"x": 6, "y": 5}, "roll": 0}, ".roll", "from 1"),
        ({"ask": "move", "piece": "f", "to": {"x": 6, "y": 5}, "extra": "yes"}, ".extra", "true"),
        ({"ask": "charge", "piece": "mg", "target": "z"}, ".piece", "does not charge"),
        ({"ask": "snipe", "from": "f", "to": "z"}, ".from", "not a sniper"),
        ({"ask": "blast", "at": "m"}, ".gun", "light or medium"),
        ({"ask": "blast", "at": "m", "from": "gun"}, ".from", 'no "gun" field'),
        ({"ask": "blast", "at": "m", "from": "f"}, ".from", "not artillery"),
        ({"ask": "blast", "at": [1, 2], "gun": "light"}, ".at", "impact marker's id"),
        ({"ask": "canister", "from": "mg", "to": "z"}, ".from", "not artillery"),
        ({"ask": "cohesion", "unit": "Z"}, ".unit", "(units: A)"),
        ({"ask": "cohesion", "piece": "bare"}, ".piece", 'no "unit" field'),
        ({"ask": "range", "from": "bare", "to": "z"}, ".from", "european rifle, native rifle"),
        ({"ask": "recoil", "piece": "f"}, ".to", "missing field"),
        ({"ask": "replace", "piece": "f"}, ".by", "missing field"),
        ({"ask": "rout", "piece": "mg", "to": {"x": 1, "y": 30}}, ".piece", "does not rout"),
        ({"ask": "replace", "piece": "f", "by": "m"}, ".by", "impact marker"),
    ],
)
def test_bad_questions_name_the_field(query: dict[str, Any], path: str, message: str) -> None:
    with pytest.raises(QueryError) as err:
        Pz8Colonial().answer(_table(), query)
    assert err.value.path.startswith(path) and message in str(err.value), str(err.value)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("weapon", "laser", r"\$\.pieces\[0\]\.weapon: unknown weapon 'laser'"),
        ("gun", "heavy", r"\$\.pieces\[0\]\.gun: must be light or medium"),
        ("native", "yes", r"\$\.pieces\[0\]\.native: must be true or false"),
    ],
)
def test_bad_piece_fields_name_the_json_path(field: str, value: Any, message: str) -> None:
    data = {
        "ruleset": "colonial",
        "table": {"width": 48, "depth": 36},
        "pieces": [
            {"id": "a", "side": "x", "kind": "foot", "x": 1, "y": 1, "base": [1, 1], field: value}
        ],
    }
    with pytest.raises(SceneError, match=message):
        ruleset_for(Scene.from_json(data, "s.json"))


def test_an_impact_marker_moves_freely_but_is_no_figure() -> None:
    """The gunner places the marker where he estimates: a camera sees it move, no rule
    limits that; it is never a firer, a charger or a blast victim."""
    rules = Pz8Colonial()
    moved = rules.answer(_table(), {"ask": "move", "piece": "m", "to": {"x": 60, "y": 40}})
    assert moved.ok is True and moved.distance == pytest.approx(50.0)
    with pytest.raises(QueryError, match="impact marker, not a figure"):
        rules.answer(_table(), {"ask": "range", "from": "m", "to": "f"})
    blast = rules.answer(_table(), {"ask": "blast", "at": "m", "gun": "medium"})
    assert "m" not in blast.details["hit"] and blast.details["hit"] == []


def test_settings_are_checked_and_6_10mm_points_at_the_table_inch() -> None:
    with pytest.raises(ValueError, match='"inch_mm": 10'):
        find_ruleset("colonial", figure_scale="10mm")
    with pytest.raises(ValueError, match="cohesion"):
        find_ruleset("colonial", cohesion="loose")
    with pytest.raises(ValueError, match="bad_ground"):
        find_ruleset("colonial", bad_ground="woods")
    assert find_ruleset("colonial", bad_ground=["Hill"]).settings.bad_ground == ("hill",)


def test_random_questions_fail_cleanly() -> None:
    scene = load_scene(DATA / "blast_recoil_snipe.json")
    rules = ruleset_for(scene)
    rnd = random.Random(13)
    ids = [p.id for p in scene.pieces]
    weird: list[Any] = [None, 0, -1, 2.5, 7, True, "x", "m1", [], {}, {"x": 1}, {"x": "a", "y": 1}]
    weird += [{"x": 1, "y": 2}, "light", "medium", float("nan"), 1e308]
    keys = ["piece", "target", "from", "to", "at", "gun", "unit", "roll", "extra", "charged"]
    keys += ["enemy", "uncertainty", "allowance", "by"]
    for _ in range(2000):
        query: dict[str, Any] = {"ask": rnd.choice(rules.questions())}
        for key in rnd.sample(keys, rnd.randint(0, 5)):
            query[key] = rnd.choice([*weird, *ids])
        with contextlib.suppress(RefereeError):
            rules.answer(scene, query)


# -- the CLI ------------------------------------------------------------------------------


def test_check_answers_every_question_and_set_doubles_for_28mm() -> None:
    path = DATA / "charge_cohesion.json"
    runner = CliRunner()
    plain = runner.invoke(cli, ["check", str(path), "--json"])
    assert plain.exit_code == 0, plain.output
    verdicts = json.loads(plain.output)["verdicts"]
    assert len(verdicts) == len(load_scene(path).queries)
    assert verdicts[0]["summary"] == "charge cf -> e9: 9.00in, may charge (reach 9in)"
    big = runner.invoke(cli, ["check", str(path), "--json", "--set", "figure_scale=28mm"])
    assert json.loads(big.output)["verdicts"][0]["limit"] == 18.0
    bad = runner.invoke(cli, ["check", str(path), "--set", "figure_scale=6mm"])
    assert bad.exit_code == 2 and bad.output.count("\n") == 1
    assert bad.output.startswith("referee: error:") and "figure_scale" in bad.output


def test_readable_check_says_which_roll_a_move_needs() -> None:
    result = CliRunner().invoke(cli, ["check", str(DATA / "moves.json"), "--no-why"])
    assert result.exit_code == 0
    assert "[??] move fw: 3.50in, needs 4+ on 1D6 (limit 4in)" in result.output.splitlines()


def test_rulesets_lists_the_colonial_questions_kinds_and_conventions() -> None:
    result = CliRunner().invoke(cli, ["rulesets", "colonial"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("pz8-colonial: Pz8 Colonial")
    for question in ("blast", "canister", "charge", "cohesion", "recoil", "snipe"):
        assert question in result.output
    assert 'figure_scale = "15mm": The rules\' distances are for 15mm figures' in result.output
    assert "piece kinds: " in result.output and "camel" in result.output
    assert "unit (text, default null)" in result.output


# -- recoil is exactly 2in (issue 29 item 6) ------------------------------------------------


@pytest.mark.parametrize(
    ("to_x", "doubt", "tolerance", "ok"),
    [
        (32.0, 0.0, 0.0, True),  # exactly 2in away from the enemy
        (31.0, 0.0, 0.0, False),  # 1in: short (it was ruled legal)
        (31.99, 0.0, 0.0, False),
        (32.01, 0.0, 0.0, False),  # too far
        (31.99, 0.01, 0.0, None),  # within the doubt of 2in either way
        (32.01, 0.01, 0.0, None),
        (31.9, 0.0, 0.1, True),  # a table's slack of 0.1in either way
        (31.89, 0.0, 0.1, False),
    ],
)
def test_recoil_is_exactly_2in(
    to_x: float, doubt: float, tolerance: float, ok: bool | None
) -> None:
    loser = _fig("l", 30, 30, side="zulu", uncertainty=doubt)
    winner = _fig("w", 28.5, 30)
    scene = _scene(loser, winner, terrain=(), settings={"recoil_tolerance": tolerance})
    query = {"ask": "recoil", "piece": "l", "to": {"x": to_x, "y": 30}, "enemy": "w"}
    verdict = ruleset_for(scene).answer(scene, query)
    assert verdict.ok is ok
    if ok is False:
        assert "a recoil is exactly 2in" in verdict.reasons[0]


@pytest.mark.parametrize("value", [-0.1, 2.5])
def test_recoil_tolerance_is_checked(value: float) -> None:
    with pytest.raises(ValueError, match="recoil_tolerance must be 0-2 inches"):
        find_ruleset("pz8-colonial", recoil_tolerance=value)
