"""`referee rulesets`: every system with its names, questions, kinds and conventions."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.rules import RULESETS, find_ruleset, find_ruleset_class


def run(*args: str) -> object:
    return CliRunner().invoke(cli, ["rulesets", *args])


def test_lists_every_system_with_aliases_questions_kinds_and_conventions() -> None:
    result = run("--json")
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)["rulesets"]
    assert [r["name"] for r in listed] == [cls.name for cls in RULESETS]
    for entry in listed:
        # Every alias listed is one the scene file and `referee check` accept.
        for alias in entry["aliases"]:
            assert find_ruleset_class(alias).name == entry["name"]
        assert {"range", "los", "move"} <= set(entry["questions"])
        assert entry["kinds"], entry["name"]
        for conv in entry["conventions"]:
            # Documented, and the default listed is the one the ruleset really uses.
            assert conv["doc"], f"{entry['name']}.{conv['setting']} has no description"
            default = getattr(find_ruleset(entry["name"]).settings, conv["setting"])
            assert conv["default"] == (list(default) if isinstance(default, tuple) else default)


def test_text_output_says_how_to_switch_a_convention() -> None:
    result = run("pt")
    assert result.exit_code == 0
    assert result.output.startswith("paper-tigers: Paper Tigers")
    assert "--set NAME=VALUE" in result.output
    assert 'follow_distance = "edge"' in result.output


@pytest.mark.parametrize("name", ["chess", "pz9"])
def test_unknown_name_is_one_line_with_the_known_names(name: str) -> None:
    result = run(name)
    assert result.exit_code == 2
    assert f"unknown ruleset {name!r} (known: paper-tigers" in result.output


@pytest.mark.parametrize("cls", RULESETS, ids=lambda c: c.name)
def test_unknown_questions_and_kinds_list_what_the_system_knows(cls: type) -> None:
    from referee.rules import QueryError
    from referee.scene import Piece, Scene, Table

    kind = sorted(cls.kinds)[0]
    scene = Scene(cls.name, Table(48, 36), (Piece("a", "x", kind, 1, 1),))
    with pytest.raises(QueryError, match=r"unknown question 'parley' for .* \(known: .*los.*move"):
        cls().answer(scene, {"ask": "parley"})
    problem = cls.kind_problem("dragon")
    assert problem is not None and f"(known: {', '.join(sorted(cls.kinds))})" in problem
