"""Bad arguments to the rules' questions (issue 29 items 6 and 7): ``referee check SCENE``
with a malformed query answers (exit 0, the verdict refused or doubtful) or says what is
wrong in one ``referee: error:`` line naming the query's JSON path (exit 2), never a
traceback. Property-based: each question's valid query with 1-3 of its fields replaced
by hostile values, dropped or added, through the real command; then the cases the
properties stand for, as plain regression tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from badinput.harness import FUZZ, VALUES, assert_clean, invoke


def _piece(pid: str, side: str, kind: str, x: float, y: float, **fields: Any) -> dict[str, Any]:
    return {"id": pid, "side": side, "kind": kind, "x": x, "y": y, "heading": 0,
            "base": [1, 1], **fields}  # fmt: skip


def _square(tid: str, kind: str, x: float, y: float, w: float, h: float) -> dict[str, Any]:
    return {"id": tid, "kind": kind, "polygon": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]}


PZ8 = {
    "ruleset": "pz8-ww2",
    "table": {"width": 48, "depth": 36},
    "pieces": [
        _piece("t", "su", "medium tank", 20, 10, weapon="6pdr"),
        _piece("u", "su", "infantry", 23.5, 10),
        _piece("a", "de", "infantry", 9.5, 12),
        _piece("aa", "su", "aa gun", 24, 12),
    ],
    "terrain": [
        _square("house", "building", 10, 10, 4, 4),
        _square("mf", "minefield", 30, 5, 1, 1),
        _square("wr", "wire", 30, 8, 6, 1),
    ],
}
PLASTIC = {
    "ruleset": "plastic-skirmish",
    "table": {"width": 96, "depth": 60},
    "settings": {"sight_limit": 12},
    "pieces": [
        _piece("b1", "brit", "rifle guy", 48, 33.5),
        _piece("g1", "germ", "rifle guy", 10, 10),
        _piece("g2", "germ", "rifle guy", 11, 10),
        _piece("j", "germ", "jeep", 70, 20),
    ],
    "terrain": [
        _square("road", "road", 60, 0, 4, 60),
        _square("hill1", "hill", 20, 20, 12, 6),
        _square("hill2", "hill", 20, 50, 10, 6),
    ],
}
COLONIAL = {
    "ruleset": "pz8-colonial",
    "table": {"width": 72, "depth": 48},
    "pieces": [_piece("rc", "zulu", "foot", 30, 30), _piece("en", "brit", "foot", 28.5, 30)],
    "terrain": [],
}

#: (scene, a valid query of each question this work added or changed).
QUESTIONS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (PZ8, {"ask": "deviation", "target": "t", "roll": 3, "direction": 0}),
    (PZ8, {"ask": "deviation", "at": {"x": 20, "y": 10}, "roll": 2, "direction": 225}),
    (PZ8, {"ask": "section", "terrain": "mf", "uncertainty": 0.02}),
    (PZ8, {"ask": "contact", "from": "a", "to": "t"}),
    (PZ8, {"ask": "air_defence", "target": "t"}),
    (PZ8, {"ask": "range", "from": "t", "to": "u"}),
    (PZ8, {"ask": "move", "piece": "u", "to": {"x": 25, "y": 10, "heading": 0}}),
    (PLASTIC, {"ask": "placement", "terrain": "hill2", "previous": ["hill1"]}),
    (PLASTIC, {"ask": "within", "side": "brit", "of": "centre", "distance": 3, "want": "none"}),
    (PLASTIC, {"ask": "within", "pieces": ["j"], "of": "road", "distance": 6}),
    (PLASTIC, {"ask": "within", "pieces": "b1", "of": {"x": 48, "y": 30}, "distance": 12}),
    (PLASTIC, {"ask": "within", "pieces": ["b1"], "of": "g1", "distance": 40, "want": "any"}),
    (PLASTIC, {"ask": "los", "from": "b1", "to": "g1"}),
    (COLONIAL, {"ask": "recoil", "piece": "rc", "to": {"x": 32, "y": 30}, "enemy": "en"}),
]
EXTRA_KEYS = ["zz", "roll", "direction", "at", "target", "terrain", "previous", "of", "want"]


def _check(tmp: Path, scene: dict[str, Any], query: dict[str, Any]) -> Any:
    path = tmp / "scene.json"
    path.write_text(json.dumps({**scene, "queries": [query]}), encoding="utf-8")
    result = invoke("check", str(path), "--json")
    assert_clean(result)
    return result


@st.composite
def bad_query(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """One question's valid query with 1-3 fields replaced, dropped or added (``ask`` kept,
    so the question itself is what reads the bad arguments)."""
    scene, query = draw(st.sampled_from(QUESTIONS))
    query = copy.deepcopy(query)
    for _ in range(draw(st.integers(1, 3))):
        keys = [k for k in query if k != "ask"]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add", "nested"]))
        if action == "replace" and keys:
            query[draw(st.sampled_from(keys))] = copy.deepcopy(draw(VALUES))
        elif action == "delete" and keys:
            del query[draw(st.sampled_from(keys))]
        elif action == "nested" and any(isinstance(query[k], dict) for k in keys):
            pose = query[draw(st.sampled_from([k for k in keys if isinstance(query[k], dict)]))]
            pose[draw(st.sampled_from(["x", "y", "heading", "zz"]))] = copy.deepcopy(draw(VALUES))
        else:
            query[draw(st.sampled_from(EXTRA_KEYS))] = copy.deepcopy(draw(VALUES))
    return scene, query


@FUZZ
@given(case=bad_query())
def test_any_bad_query_is_an_answer_or_one_line(tmp_path_factory, case):
    scene, query = case
    result = _check(tmp_path_factory.mktemp("q"), scene, query)
    if result.exit_code == 0:
        verdicts = json.loads(result.stdout)["verdicts"]
        assert len(verdicts) == 1 and verdicts[0]["ok"] in (True, False, None)
    else:
        assert "$.queries[0]" in result.stderr, result.stderr


@pytest.mark.parametrize(("scene", "query"), QUESTIONS)
def test_every_valid_query_answers(tmp_path: Path, scene: dict, query: dict) -> None:
    """The properties start from queries that are answered (so what they break is the
    arguments, not the scene)."""
    result = _check(tmp_path, scene, query)
    assert result.exit_code == 0, result.output


# -- regressions: each new question's malformed arguments, one line naming the field ---------


@pytest.mark.parametrize(
    ("scene", "query", "where"),
    [
        (PZ8, {"ask": "deviation", "target": "t", "roll": 7, "direction": 0},
         "$.queries[0].roll: must be the D6 rolled for the distance, 1-6, got 7"),
        (PZ8, {"ask": "deviation", "target": "t", "roll": True, "direction": 0}, ".roll: must"),
        (PZ8, {"ask": "deviation", "target": "t", "roll": 2.5, "direction": 0}, ".roll: must"),
        (PZ8, {"ask": "deviation", "target": "t", "roll": 3}, ".direction: missing field"),
        (PZ8, {"ask": "deviation", "target": "t", "roll": 3, "direction": "north"},
         ".direction: must be a finite number"),
        (PZ8, {"ask": "deviation", "roll": 3, "direction": 0}, '.at: give either "at"'),
        (PZ8, {"ask": "deviation", "at": {"x": 1, "y": 1}, "target": "t", "roll": 3,
               "direction": 0}, '.at: give either "at"'),
        (PZ8, {"ask": "deviation", "at": {"x": 1}, "roll": 3, "direction": 0}, ".at.y: missing"),
        (PZ8, {"ask": "deviation", "target": "zz", "roll": 3, "direction": 0},
         ".target: unknown piece id 'zz'"),
        (PZ8, {"ask": "section", "terrain": "house"},
         ".terrain: house is building: not minefield or wire or smoke"),
        (PZ8, {"ask": "section", "terrain": "nope"}, ".terrain: unknown terrain id 'nope'"),
        (PZ8, {"ask": "section", "terrain": "mf", "uncertainty": -1}, ".uncertainty: must be >= 0"),
        (PLASTIC, {"ask": "placement", "terrain": "hill9"}, ".terrain: unknown terrain id"),
        (PLASTIC, {"ask": "placement", "terrain": "hill2", "previous": 3},
         ".previous: must be a piece id or a list of ids"),
        (PLASTIC, {"ask": "placement", "terrain": "hill2", "previous": "hill2"},
         ".previous: hill2 cannot be its own previous feature"),
        (PLASTIC, {"ask": "placement", "terrain": "hill2", "previous": ["zz"]},
         ".previous: unknown terrain id 'zz'"),
        (PLASTIC, {"ask": "within", "side": "brit", "of": "centre"}, ".distance: missing field"),
        (PLASTIC, {"ask": "within", "side": "brit", "of": "centre", "distance": -3},
         ".distance: must be >= 0"),
        (PLASTIC, {"ask": "within", "side": "usa", "of": "centre", "distance": 3},
         ".side: unknown side 'usa' (sides: brit, germ)"),
        (PLASTIC, {"ask": "within", "of": "centre", "distance": 3}, '.pieces: give either'),
        (PLASTIC, {"ask": "within", "pieces": ["zz"], "of": "centre", "distance": 3},
         ".pieces[0]: unknown piece id 'zz'"),
        (PLASTIC, {"ask": "within", "side": "brit", "of": "moon", "distance": 3},
         '.of: must be "centre", a point'),
        (PLASTIC, {"ask": "within", "side": "brit", "of": {"x": "a", "y": 1}, "distance": 3},
         ".of.x: must be a finite number"),
        (PLASTIC, {"ask": "within", "side": "brit", "of": "centre", "distance": 3, "want": "most"},
         '.want: must be "all", "any" or "none"'),
        (PLASTIC, {"ask": "within", "pieces": ["g2"], "of": "g1", "distance": 3},
         ".of: g2 is in g1's group (g1, g2): measure to another group"),
        (COLONIAL, {"ask": "recoil", "piece": "rc"}, ".to: missing field"),
    ],
)  # fmt: skip
def test_bad_arguments_are_one_line_naming_the_field(
    tmp_path: Path, scene: dict, query: dict, where: str
) -> None:
    result = _check(tmp_path, scene, query)
    assert result.exit_code == 2
    assert where in result.stderr, result.stderr
    assert "$.queries[0]" in result.stderr


def test_a_weapon_name_in_two_rows_is_one_line(tmp_path: Path) -> None:
    scene = copy.deepcopy(PZ8)
    scene["pieces"][0]["weapon"] = "76mm"
    result = _check(tmp_path, scene, {"ask": "range", "from": "t", "to": "u"})
    assert result.exit_code == 2
    assert "$.pieces[0].weapon: weapon '76mm' is in more than one row" in result.stderr


def test_scifi_has_no_section_question_to_answer(tmp_path: Path) -> None:
    scene = {**PZ8, "ruleset": "pz8-scifi", "pieces": []}
    result = _check(tmp_path, scene, {"ask": "section", "terrain": "mf"})
    assert result.exit_code == 2
    assert "Pz8 Sci-Fi has no minefield, wire or smoke counters" in result.stderr
