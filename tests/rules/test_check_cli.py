"""`referee check`: readable and JSON output, and one-line errors (exit 2) for bad files."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import cli

DATA = Path(__file__).resolve().parents[1] / "data" / "paper_tigers"

GOOD: dict[str, Any] = {
    "ruleset": "paper-tigers",
    "table": {"width": 48, "depth": 36},
    "pieces": [
        {
            "id": "t34",
            "side": "soviet",
            "kind": "tank",
            "x": 20,
            "y": 18,
            "heading": 0,
            "base": [1.5, 3.0],
            "cards": 2,
        },
        {
            "id": "sq1",
            "side": "soviet",
            "kind": "infantry",
            "x": 20,
            "y": 22.5,
            "heading": 0,
            "base": [2.0, 1.0],
            "cards": 0,
        },
    ],
    "terrain": [
        {"id": "wood1", "kind": "woods", "polygon": [[30, 10], [36, 10], [36, 16], [30, 16]]}
    ],
    "queries": [
        {"ask": "range", "from": "t34", "to": "sq1"},
        {"ask": "los", "from": "t34", "to": "sq1"},
        {"ask": "follow_me", "leader": "t34", "action": "fire"},
        {"ask": "move", "piece": "sq1", "to": {"x": 24, "y": 22.5, "heading": 0}, "allowance": 5},
    ],
}


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["check", *args])


def write(tmp_path: Path, data: Any, name: str = "scene.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_design_md_example_answers_every_query_in_order(tmp_path: Path) -> None:
    result = run(str(write(tmp_path, GOOD)), "--json")
    assert result.exit_code == 0, result.output
    verdicts = json.loads(result.output)["verdicts"]
    assert [v["ask"] for v in verdicts] == ["range", "los", "follow_me", "move"]
    for v in verdicts:
        assert {"ask", "ok", "reasons"} <= v.keys()
    assert verdicts[0]["distance"] == 4.5 and verdicts[0]["ok"] is True
    assert verdicts[1]["los"] == "clear"
    assert verdicts[2]["chains"] == [["t34", "sq1"]] and verdicts[2]["followers"] == ["sq1"]
    assert verdicts[3]["distance"] == 4.0 and verdicts[3]["ok"] is True


def test_readable_output_has_one_line_per_verdict(tmp_path: Path) -> None:
    result = run(str(write(tmp_path, GOOD)), "--no-why")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert len(lines) == 4
    assert lines[0] == "[ok] range t34 -> sq1: 4.50in, in range (no limit)"
    assert "los t34 -> sq1: clear" in lines[1]


def test_without_a_file_it_checks_the_bundled_example() -> None:
    result = run("--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["verdicts"]) >= 8


def test_set_overrides_a_convention(tmp_path: Path) -> None:
    data = copy.deepcopy(GOOD)
    data["queries"] = [{"ask": "follow_me", "leader": "t34"}]
    # Bases are 1.5in apart edge to edge but 4.5in centre to centre.
    edge = json.loads(run(str(write(tmp_path, data)), "--json").output)["verdicts"][0]
    centre = json.loads(
        run(str(write(tmp_path, data)), "--json", "--set", "follow_distance=centre").output
    )["verdicts"][0]
    assert edge["followers"] == ["sq1"] and centre["followers"] == []
    bad = run(str(write(tmp_path, data)), "--set", "follow_distance=banana")
    assert bad.exit_code == 2 and "follow_distance" in bad.output


def test_scene_settings_switch_conventions(tmp_path: Path) -> None:
    data = copy.deepcopy(GOOD)
    data["settings"] = {"follow_distance": "centre"}
    data["queries"] = [{"ask": "follow_me", "leader": "t34"}]
    verdict = json.loads(run(str(write(tmp_path, data)), "--json").output)["verdicts"][0]
    assert verdict["followers"] == []


def _broken(mutate: Any) -> dict[str, Any]:
    data = copy.deepcopy(GOOD)
    mutate(data)
    return data


BAD: list[tuple[str, Any, str]] = [
    ("missing field", _broken(lambda d: d["pieces"][0].pop("x")), "$.pieces[0].x: missing field"),
    ("missing table", _broken(lambda d: d.pop("table")), "$.table: missing field"),
    (
        "unknown piece",
        _broken(lambda d: d["queries"][1].update({"to": "tiger"})),
        "$.queries[1].to: unknown piece id 'tiger'",
    ),
    (
        "2-point polygon",
        _broken(lambda d: d["terrain"][0].update({"polygon": [[0, 0], [1, 1]]})),
        "$.terrain[0].polygon: needs at least 3",
    ),
    (
        "bow-tie polygon",
        _broken(lambda d: d["terrain"][0].update({"polygon": [[0, 0], [2, 2], [2, 0], [0, 2]]})),
        "$.terrain[0].polygon: outline crosses itself",
    ),
    (
        "zero base",
        _broken(lambda d: d["pieces"][1].update({"base": [0, 1]})),
        "$.pieces[1].base[0]: must be positive",
    ),
    (
        "NaN",
        json.dumps(GOOD).replace('"x": 20', '"x": NaN', 1),
        "$.pieces[0].x: must be a finite number",
    ),
    (
        "unknown ruleset",
        _broken(lambda d: d.update({"ruleset": "warhammer"})),
        "$.ruleset: unknown ruleset 'warhammer' (known: paper-tigers",
    ),
    ("invalid JSON", '{"ruleset": "pt", ', "invalid JSON at line 1"),
    ("not an object", "[1, 2]", "$: a scene must be a JSON object"),
    (
        "duplicate id",
        _broken(lambda d: d["pieces"][1].update({"id": "t34"})),
        "$.pieces[1].id: duplicate id 't34'",
    ),
    (
        "bad state",
        _broken(lambda d: d["pieces"][1].update({"state": "sleepy"})),
        "$.pieces[1].state: must be one of ok, damaged, destroyed",
    ),
    (
        "unknown kind",
        _broken(lambda d: d["pieces"][1].update({"kind": "dragon"})),
        "$.pieces[1].kind: unknown piece kind 'dragon'",
    ),
    (
        "unknown terrain kind",
        _broken(lambda d: d["terrain"][0].update({"kind": "lava"})),
        "$.terrain[0].kind: unknown terrain kind 'lava'",
    ),
    (
        "unknown question",
        _broken(lambda d: d["queries"].append({"ask": "teleport"})),
        "$.queries[4].ask: unknown question 'teleport'",
    ),
    (
        "bad allowance",
        _broken(lambda d: d["queries"][3].update({"allowance": "five"})),
        "$.queries[3].allowance: must be a number",
    ),
    (
        "move without to",
        _broken(lambda d: d["queries"][3].pop("to")),
        "$.queries[3].to: missing field",
    ),
    (
        "bad card",
        _broken(lambda d: d["queries"].append({"ask": "initiative", "cards": ["QS", "ZZ"]})),
        "$.queries[4].cards[1]: not a card: 'ZZ'",
    ),
    (
        "unknown setting",
        _broken(lambda d: d.update({"settings": {"frobs": 1}})),
        "$.settings: unknown paper-tigers setting 'frobs'",
    ),
    (
        "bad deployment edge",
        _broken(lambda d: d.update({"deployment": {"soviet": "up"}})),
        "$.deployment.soviet: unknown table edge 'up'",
    ),
]


@pytest.mark.parametrize(("name", "data", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_scene_is_one_line_naming_file_and_path(
    tmp_path: Path, name: str, data: Any, message: str
) -> None:
    path = write(tmp_path, data, "bad.json")
    result = run(str(path))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"referee: error: {path}: "), lines[0]
    assert message in lines[0]
    assert "Traceback" not in result.output


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nope.json"))
    assert result.exit_code == 2
    assert result.output.strip() == f"referee: error: {tmp_path / 'nope.json'}: no such scene file"


def test_real_command_has_no_traceback(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = write(tmp_path, _broken(lambda d: d["pieces"][0].update({"base": [1]})), "b.json")
    proc = subprocess.run(
        [sys.executable, "-m", "referee", "check", str(path)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == f"referee: error: {path}: $.pieces[0].base: must be [width, depth], got [1]"
    )
    assert proc.stdout == ""


@pytest.mark.parametrize("path", sorted(DATA.glob("*.json")), ids=lambda p: p.stem)
def test_golden_files_check_cleanly(path: Path) -> None:
    result = run(str(path), "--json")
    assert result.exit_code == 0, result.output
