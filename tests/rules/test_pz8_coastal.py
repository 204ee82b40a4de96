"""Pz8 Coastal beyond the golden files: properties of the pivot rule along a path, the
scale doubling, bad input, and the `move` question's path in every system."""

from __future__ import annotations

import dataclasses
import itertools
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
from referee.errors import SceneError
from referee.geometry import Pose
from referee.rules import QueryError, find_ruleset, ruleset_for
from referee.rules.pz8_coastal import Pz8Coastal, parse_guns, split_turns
from referee.scene import Piece, Scene, Table, load_scene

from .fuzz import ask_random_questions
from .scaled import doubled

DATA = Path(__file__).resolve().parents[1] / "data" / "pz8_coastal"


def _scene(*pieces: Piece, ruleset: str = "pz8-coastal", **settings: Any) -> Scene:
    return Scene(ruleset, Table(72, 48), tuple(pieces), settings=settings)


def _mtb(pid: str = "m", x: float = 10, y: float = 10, h: float = 0, **fields: Any) -> Piece:
    return Piece(pid, "uk", "vosper mtb", x, y, h, (0.25, 1.0), fields=fields)


def _pose(p: Pose) -> dict[str, float]:
    return {"x": p.x, "y": p.y, "heading": p.heading}


def _walk(start: Pose, legs: list[tuple[float, float]]) -> list[Pose]:
    """Poses of a path of (pivot degrees, then straight inches) legs."""
    out = [start]
    for turn, run in legs:
        p = out[-1]
        if turn:
            out.append(Pose(p.x, p.y, (p.heading + turn) % 360))
            p = out[-1]
        h = math.radians(p.heading)
        out.append(Pose(p.x + run * math.cos(h), p.y + run * math.sin(h), p.heading))
    return out


def _move(poses: list[Pose], piece: str = "m") -> dict[str, Any]:
    return {
        "ask": "move",
        "piece": piece,
        "from": _pose(poses[0]),
        "via": [_pose(p) for p in poses[1:-1]],
        "to": _pose(poses[-1]),
    }


LEGS = st.lists(
    st.tuples(st.sampled_from([0.0, 30.0, -30.0, 45.0, -45.0, 60.0, -90.0]), st.floats(0.2, 2.0)),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(LEGS, st.integers(2, 6))
def test_more_poses_along_a_straight_stretch_change_no_turn(legs, parts) -> None:
    """The tracker keeps a pose every quarter inch or so: splitting a straight leg into
    more poses must not change what the turns are judged against."""
    coarse = _walk(Pose(10, 10, 0), legs)
    fine = [coarse[0]]
    for a, b in itertools.pairwise(coarse):
        if a.heading == b.heading:
            fine += [
                Pose(a.x + (b.x - a.x) * k / parts, a.y + (b.y - a.y) * k / parts, a.heading)
                for k in range(1, parts)
            ]
        fine.append(b)
    want = [(round(t.turn, 6), round(t.run, 6)) for t in split_turns(coarse, 3.0)]
    assert [(round(t.turn, 6), round(t.run, 6)) for t in split_turns(fine, 3.0)] == want


@settings(max_examples=40, deadline=None, derandomize=True)
@given(LEGS)
def test_a_mirrored_course_is_judged_alike(legs) -> None:
    """Turning to port or to starboard is the same pivot."""
    rules = find_ruleset("pz8-coastal")
    path = _walk(Pose(20, 20, 0), legs)
    mirror = [Pose(p.x, 40 - p.y, -p.heading % 360) for p in path]
    scene = _scene(_mtb())
    a, b = rules.answer(scene, _move(path)), rules.answer(scene, _move(mirror))
    assert (a.ok, round(a.distance or 0, 9)) == (b.ok, round(b.distance or 0, 9))


@pytest.mark.parametrize("radius", [0.8, 1.0, 1.6, 2.0, 3.0])
@pytest.mark.parametrize("step", [5.0, 10.0, 15.0, 30.0])
@pytest.mark.parametrize("kind", ["vosper mtb", "flower corvette"])
def test_an_arc_is_judged_by_its_curvature_however_finely_it_was_tracked(
    radius: float, step: float, kind: str
) -> None:
    """A quarter circle turns 90 deg in (about) pi r / 2 inches: legal when 45 deg per 1in
    (MTB) or 2in (others) allows it, whatever spacing the poses have."""
    ship = Piece("s", "uk", kind, 10, 10, 0, (0.25, 1.0))
    poses = [
        Pose(
            10 + radius * math.sin(math.radians(a)),
            10 + radius - radius * math.cos(math.radians(a)),
            a,
        )
        for a in [*list(range(0, 90, int(step))), 90]
    ]
    verdict = find_ruleset("pz8-coastal").answer(_scene(ship), _move(poses, "s"))
    per = 1.0 if kind == "vosper mtb" else 2.0
    allowed = 45 * (math.pi * radius / 2) / per
    assert abs(allowed - 90) > 5  # the cases are clear of the limit
    (turn,) = verdict.details["turns"]  # one turn, however many poses
    assert turn["ok"] is (allowed > 90), verdict.reasons


def _double(scene: Scene) -> Scene:
    return dataclasses.replace(doubled(scene), settings={**scene.settings, "scale": "1/600"})


def _double_query(q: dict[str, Any]) -> dict[str, Any]:
    out = dict(q)
    for key in ("from", "to"):
        if isinstance(q.get(key), dict):
            out[key] = {**q[key], "x": 2 * q[key]["x"], "y": 2 * q[key]["y"]}
    if "via" in q:
        out["via"] = [{**p, "x": 2 * p["x"], "y": 2 * p["y"]} for p in q["via"]]
    return out


@pytest.mark.parametrize(
    "path", [p for p in sorted(DATA.glob("*.json")) if "scale" not in p.stem], ids=lambda p: p.stem
)
def test_1600_models_on_a_table_twice_the_size_get_the_same_verdicts(path: Path) -> None:
    """'If using 1/600 or 1/700 models, double all distances in the rules': the same game
    with every length doubled and the scale switched is judged alike, at twice the inches."""
    scene = load_scene(path)
    big = _double(scene)
    small_rules, big_rules = ruleset_for(scene), ruleset_for(big)
    for q in scene.queries:
        a, b = small_rules.answer(scene, q), big_rules.answer(big, _double_query(q))
        assert (a.ok, a.los) == (b.ok, b.los), (q, a.summary, b.summary)
        for key in ("distance", "limit"):
            if getattr(a, key) is not None:
                assert getattr(b, key) == pytest.approx(2 * getattr(a, key), abs=1e-9)


def test_guns_are_read_as_the_sample_list_writes_them() -> None:
    mounts = parse_guns("88mm (FPS), 4 x 21in (F), 1 x 21in (A), 8 x 20mm")
    assert [(m.weapon, m.count, m.arcs) for m in mounts] == [
        ("30mm or smaller", 8, ""),
        ("88mm", 1, "FPS"),
        ("21in torpedo", 4, "F"),
        ("21in torpedo", 1, "A"),
    ]
    with pytest.raises(ValueError, match=r"give the arcs of '6pdr'"):
        parse_guns("6pdr")
    with pytest.raises(ValueError, match=r"unknown weapon 'phaser'"):
        parse_guns("2 x phaser")
    with pytest.raises(ValueError, match="torpedo tubes fire forward"):
        parse_guns("2 x 21in (P)")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"guns": "6pdr"}, r"\$\.pieces\[0\]\.guns: give the arcs of '6pdr'"),
        ({"guns": "1 x laser (F)"}, r"\$\.pieces\[0\]\.guns: unknown weapon 'laser'"),
        ({"speed": 7}, r"\$\.pieces\[0\]\.speed: must be 0-6"),
        ({"speed": 2.5}, r"\$\.pieces\[0\]\.speed: must be a whole number"),
        ({"wrecked": "yes"}, r"\$\.pieces\[0\]\.wrecked: must be true or false"),
    ],
)
def test_bad_piece_fields_name_their_json_path(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(SceneError, match=message):
        ruleset_for(_scene(_mtb(**fields)))


@pytest.mark.parametrize(
    ("query", "path", "problem"),
    [
        (
            {"ask": "move", "piece": "m", "to": {"x": 1, "y": 1}, "via": [{"x": 1}]},
            ".via[0].y",
            "missing",
        ),
        ({"ask": "move", "piece": "m", "to": {"x": 1, "y": 1}, "via": {"x": 1}}, ".via", "list"),
        ({"ask": "move", "piece": "m", "to": {"x": 1, "y": 1}, "speed": 7}, ".speed", "0-6"),
        (
            {"ask": "move", "piece": "m", "to": {"x": 1, "y": 1}, "allowance": 4},
            ".allowance",
            "speed",
        ),
        (
            {"ask": "range", "from": "m", "to": "t", "weapon": "4in"},
            ".weapon",
            "carries no 4in gun",
        ),
        ({"ask": "range", "from": "m", "to": "t", "weapon": "ray"}, ".weapon", "unknown weapon"),
        ({"ask": "torpedo", "from": "t", "to": "m"}, ".from", "no such torpedoes"),
        ({"ask": "torpedo", "from": "m", "to": "t", "course": "n"}, ".course", "finite number"),
        ({"ask": "spot", "from": "m", "to": "t"}, ".roll", "visibility D3"),
        ({"ask": "spot", "from": "m", "to": "t", "roll": 4}, ".roll", "1-3"),
        ({"ask": "speed", "piece": "m"}, ".speed", "missing"),
        ({"ask": "speed", "piece": "m", "speed": 3, "last": -1}, ".last", "0-6"),
    ],
)
def test_bad_questions_say_which_field_and_why(query: dict, path: str, problem: str) -> None:
    scene = _scene(_mtb(), Piece("t", "de", "trawler", 20, 10, 90, (0.25, 1.0)))
    with pytest.raises(QueryError) as err:
        find_ruleset("pz8-coastal").answer(scene, query)
    assert err.value.path == path and problem in err.value.problem


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"scale": "1/300"}, "scale must be one of 1/1250, 1/600, 1/700"),
        ({"visibility_roll": 4}, "visibility_roll must be 0"),
        ({"torpedo_origin": "stern"}, "torpedo_origin"),
        ({"pivot_run": 0.0}, "pivot_run must be > 0"),
    ],
)
def test_bad_settings_are_refused(setting: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_ruleset("pz8-coastal", **setting)


@pytest.mark.parametrize("system", ["paper-tigers", "pz8-ww2", "plastic-skirmish", "papercraft"])
def test_every_system_takes_a_path_in_the_move_question(system: str) -> None:
    """`via` is part of the shared move question: checked everywhere, used where a system
    judges the course (the others answer as for start and end)."""
    kind = {"paper-tigers": "tank", "pz8-ww2": "medium tank", "plastic-skirmish": "tank"}
    scene = _scene(Piece("a", "x", kind.get(system, "infantry"), 10, 10, 0, (1, 1)), ruleset=system)
    rules = ruleset_for(scene)
    plain = {"ask": "move", "piece": "a", "to": {"x": 12, "y": 10, "heading": 0}}
    with_path = {**plain, "via": [{"x": 11, "y": 10.5}]}
    assert rules.answer(scene, with_path).ok == rules.answer(scene, plain).ok
    with pytest.raises(QueryError) as err:
        rules.answer(scene, {**plain, "via": [{"x": 11, "y": "north"}]})
    assert err.value.path == ".via[0].y"


#: Coastal's own odd values and keys for the shared fuzz loop (speeds, courses, paths).
WEIRD: list[Any] = [
    None,
    0,
    -1,
    1.5,
    7,
    1e308,
    True,
    "m",
    "21in",
    "zz",
    float("nan"),
    [],
    [{}],
    [{"x": 1, "y": 2}],
    {"x": 1, "y": 2},
    {},
]
KEYS = [
    "from",
    "to",
    "piece",
    "via",
    "speed",
    "last",
    "weapon",
    "course",
    "roll",
    "target_speed",
    "uncertainty",
]


@pytest.mark.slow  # the fuzz; tests/rules/test_questions_fuzz.py runs it for every system
def test_random_questions_fail_cleanly() -> None:
    scene = load_scene(DATA / "torpedoes.json")
    rules, rnd = ruleset_for(scene), random.Random(13)
    pieces = ("from", "to", "piece")
    ask_random_questions(rules, scene, rnd, 1500, KEYS, WEIRD, most=4, pieces=pieces)


def test_check_answers_every_coastal_question_and_rulesets_lists_the_system() -> None:
    runner = CliRunner()
    for path in sorted(DATA.glob("*.json")):
        result = runner.invoke(cli, ["check", str(path), "--json"])
        assert result.exit_code == 0, result.output
        asks = {v["ask"] for v in json.loads(result.output)["verdicts"]}
        assert asks
    listed = runner.invoke(cli, ["rulesets", "coastal"])
    assert listed.exit_code == 0, listed.output
    text = listed.output
    assert text.startswith("pz8-coastal: Pz8 WW2 Coastal")
    for word in ("arc", "torpedo", "spot", "speed", "vospermtb", "uboat", 'scale = "1/1250"'):
        assert word in text, word
    assert set(Pz8Coastal.questions()) >= {
        "range",
        "los",
        "move",
        "arc",
        "torpedo",
        "spot",
        "speed",
    }


def test_check_reports_a_bad_gun_list_on_one_line(tmp_path: Path) -> None:
    data = json.loads((DATA / "guns.json").read_text())
    data["pieces"][0]["guns"] = "6pdr, 2 x 20mm"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 2
    line = result.output.strip()
    assert "\n" not in line and "$.pieces[0].guns: give the arcs of '6pdr'" in line
    result = CliRunner().invoke(cli, ["check", str(DATA / "moves.json"), "--set", "scale=1/300"])
    assert result.exit_code == 2 and "scale must be one of" in result.output
