"""Bad arguments to the ``targets`` question (issue 31 item 2) through ``referee check``:
an answer (exit 0) or one ``referee: error:`` line naming the field (exit 2), never a
traceback; the scene file is unchanged. Property-based over hostile values in ``from``
and a range option, then the cases they stand for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from badinput.harness import FUZZ, VALUES, assert_clean, invoke


def _piece(pid: str, side: str, kind: str, x: float, y: float) -> dict[str, Any]:
    return {"id": pid, "side": side, "kind": kind, "x": x, "y": y, "heading": 0, "base": [1, 1]}


TIGERS = {
    "ruleset": "paper-tigers",
    "table": {"width": 48, "depth": 36},
    "pieces": [
        _piece("t34a", "su", "tank", 10, 10),
        _piece("sq1", "su", "infantry", 12, 10),
        _piece("pz", "de", "tank", 30, 20),
    ],
    "terrain": [
        {"id": "wood", "kind": "woods", "polygon": [[18, 12], [22, 12], [22, 18], [18, 18]]}
    ],
}
AERIAL = {
    "ruleset": "pz8-aerial",
    "table": {"width": 48, "depth": 36},
    "pieces": [_piece("sp", "raf", "spitfire", 10, 10), _piece("me", "lw", "me 109", 14, 10)],
}


def _check(tmp: Path, scene: dict[str, Any], query: dict[str, Any]) -> Any:
    path = tmp / "scene.json"
    text = json.dumps({**scene, "queries": [query]})
    path.write_text(text)
    result = invoke("check", str(path), "--json")
    assert_clean(result)
    assert path.read_text() == text  # nothing already written changed
    return result


@FUZZ
@given(
    scene=st.sampled_from([TIGERS, AERIAL]),
    key=st.sampled_from(["from", "weapon", "to", "roll"]),
    value=VALUES,
    drop_from=st.booleans(),
)
def test_any_bad_targets_query_is_an_answer_or_one_line(
    tmp_path_factory: pytest.TempPathFactory, scene: dict, key: str, value: Any, drop_from: bool
) -> None:
    query: dict[str, Any] = {"ask": "targets", "from": scene["pieces"][0]["id"], key: value}
    if drop_from and key != "from":
        del query["from"]
    _check(tmp_path_factory.mktemp("targets"), scene, query)


@pytest.mark.parametrize(
    ("scene", "query", "path", "words"),
    [
        (TIGERS, {"ask": "targets"}, "$.queries[0].from", "missing field"),
        (TIGERS, {"ask": "targets", "from": "nobody"}, "$.queries[0].from", "unknown piece"),
        (TIGERS, {"ask": "targets", "from": 3}, "$.queries[0].from", "unknown piece"),
        (TIGERS, {"ask": "targets", "from": ["t34a"]}, "$.queries[0].from", "unknown piece"),
        (TIGERS, {"ask": "targets", "from": "wood"}, "$.queries[0].from", "unknown piece"),
        (TIGERS, {"ask": "targets", "from": "t34a", "to": "pz"}, "$.queries[0].to", "no 'to'"),
        (AERIAL, {"ask": "targets", "from": "sp", "weapon": "laser"}, "weapon", "front or rear"),
        (AERIAL, {"ask": "targets", "from": "sp", "weapon": ["rear"]}, "weapon", "front or rear"),
    ],
)
def test_bad_targets_arguments_are_one_line_naming_the_field(
    tmp_path: Path, scene: dict, query: dict, path: str, words: str
) -> None:
    result = _check(tmp_path, scene, query)
    assert result.exit_code == 2
    assert path in result.stderr and words in result.stderr, result.stderr


def test_a_good_targets_query_answers(tmp_path: Path) -> None:
    result = _check(tmp_path, AERIAL, {"ask": "targets", "from": "sp", "weapon": "front"})
    assert result.exit_code == 0
    (verdict,) = json.loads(result.output)["verdicts"]
    assert [t["to"] for t in verdict["targets"]] == ["me"]
