"""Scene files and ``--set`` settings of every game system: answers or one line, never a crash.

For each of the 15 systems (``referee rulesets``) its example scene (``tests/data/<system>/``)
is mutated (:func:`badinput.harness.mutated_text`) and checked with ``referee check``; and
each setting the system declares (its ``Settings`` dataclass) is set with ``--set`` to a weird
value (:data:`badinput.harness.VALUES`). Every outcome is verdicts or exactly one
``referee: error:`` line with exit code 2 (issue 30 item 5).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import (
    FUZZ,
    ROOT,
    VALUES,
    assert_clean,
    examples,
    invoke,
    mutated_text,
    read_json,
)
from referee.rules import find_ruleset_class, ruleset_names
from referee.rules.__init__ import name_key

DATA = ROOT / "tests" / "data"


def example_scene(system: str) -> Path:
    """The system's example scene: the first scene file of ``tests/data/<system>/`` with
    pieces and questions."""
    folder = DATA / system.replace("-", "_")
    for path in sorted(folder.glob("*.json")):
        data = read_json(path)
        usable = isinstance(data, dict) and data.get("pieces") and data.get("queries")
        if usable and name_key(data.get("ruleset", "")) in _keys(system):
            return path
    raise AssertionError(f"no example scene for {system} in {folder}")


def _keys(system: str) -> set[str]:
    cls = find_ruleset_class(system)
    return {name_key(cls.name), *(name_key(a) for a in cls.aliases)}


SYSTEMS = ruleset_names()
SCENES = {system: read_json(example_scene(system)) for system in SYSTEMS}
SETTINGS = [
    (system, item.name)
    for system in SYSTEMS
    for item in dataclasses.fields(find_ruleset_class(system).Settings)
]


def _check(tmp: Path, text: str, *options: str) -> Any:
    path = tmp / "scene.json"
    path.write_text(text, encoding="utf-8")
    result = invoke("check", str(path), "--json", *options)
    assert_clean(result)
    if result.exit_code == 0:
        json.loads(result.stdout, parse_constant=_refuse_constant)
    return result


def _refuse_constant(name: str) -> None:
    raise AssertionError(f"{name} in a JSON output")


def test_every_system_has_an_example_scene_that_answers():
    assert len(SYSTEMS) == 15
    for system in SCENES:
        result = invoke("check", str(example_scene(system)), "--json")
        assert result.exit_code == 0, (system, result.output)


@settings(FUZZ, max_examples=examples(60))
@given(data=st.data(), system=st.sampled_from(SYSTEMS))
def test_any_mutated_scene_of_any_system_is_answers_or_one_line(tmp_path_factory, data, system):
    text = data.draw(mutated_text(SCENES[system]))
    _check(tmp_path_factory.mktemp("scene"), text)


@settings(FUZZ, max_examples=examples(80))
@given(setting=st.sampled_from(SETTINGS), value=VALUES, raw=st.booleans())
def test_any_setting_of_any_system_set_to_anything_is_answers_or_one_line(
    tmp_path_factory, setting, value, raw
):
    system, name = setting
    tmp = tmp_path_factory.mktemp("set")
    scene = json.dumps(SCENES[system])
    if raw:  # on the command line
        text = json.dumps(value) if not isinstance(value, str) else value
        _check(tmp, scene, "--set", f"{name}={text}")
    else:  # in the scene file's "settings"
        data = json.loads(scene)
        data.setdefault("settings", {})[name] = value
        _check(tmp, json.dumps(data))


QUESTIONS = [
    (system, i) for system in SYSTEMS for i in range(len(SCENES[system].get("queries", [])))
]


@settings(FUZZ, max_examples=examples(80))
@given(data=st.data(), question=st.sampled_from(QUESTIONS), value=VALUES)
def test_any_argument_of_any_question_set_to_anything_is_a_verdict_or_one_line(
    tmp_path_factory, data, question, value
):
    """Each system's own questions, one argument (or a new one) replaced by a weird value:
    a refused verdict or one line naming ``$.queries[i].KEY``, never a crash."""
    system, index = question
    scene = json.loads(json.dumps(SCENES[system]))
    query = scene["queries"][index]
    keys = [k for k in query if k != "ask"] or ["piece"]
    key = data.draw(st.sampled_from([*keys, "from", "to", "piece", "at", "dice"]))
    query[key] = value
    scene["queries"] = [query]
    _check(tmp_path_factory.mktemp("query"), json.dumps(scene))


# -- regressions: the examples of issue 30 item 5 -------------------------------------------------


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_3000_deep_scene_is_one_line_in_every_system(tmp_path, system):
    data = json.loads(json.dumps(SCENES[system]))
    text = json.dumps(data)[:-1] + ', "zz": ' + "[" * 3000 + "]" * 3000 + "}"
    result = _check(tmp_path, text)
    assert result.exit_code == 2 and "nested" in result.stderr, result.stderr


def test_a_300000_point_terrain_polygon_is_refused_at_once(tmp_path):
    data = json.loads(json.dumps(SCENES["paper-tigers"]))
    points = [[10 + 5 * (i % 2), 10 + i * 1e-4] for i in range(300_000)]
    data["terrain"] = [{"id": "big", "kind": "woods", "polygon": points}]
    result = _check(tmp_path, json.dumps(data))
    assert result.exit_code == 2 and "$.terrain[0].polygon: has 300000 points" in result.stderr


@pytest.mark.parametrize(
    ("where", "count", "message"),
    [
        ("pieces", 5000, "$.pieces: has 5000 pieces"),
        ("queries", 20_000, "$.queries: has 20000 questions"),
    ],
)
def test_piece_and_query_counts_are_bounded(tmp_path, where, count, message):
    data = json.loads(json.dumps(SCENES["paper-tigers"]))
    model = data[where][0]
    items = []
    for i in range(count):
        item = dict(model)
        if where == "pieces":
            item.update(id=f"p{i}", x=1 + i % 40, y=1 + (i // 40) % 30)
        items.append(item)
    data[where] = items
    result = _check(tmp_path, json.dumps(data))
    assert result.exit_code == 2 and message in result.stderr, result.stderr


# A container and a bool cost 2-5 s each (every system answers its example scene when a
# value is taken): the README's command keeps a null, a string and an overflow.
_CONTAINERS = pytest.mark.slow(reason="one setting type of six; CI runs it")


@pytest.mark.parametrize(
    "value",
    [
        "null",
        pytest.param("[]", marks=_CONTAINERS),
        '"x"',
        pytest.param("{}", marks=_CONTAINERS),
        pytest.param("true", marks=_CONTAINERS),
        "1e999",
    ],
)
def test_a_setting_of_the_wrong_type_is_one_line_in_every_system(tmp_path, value):
    """``--set boats=null``, ``--set grid_rotation=[]``: the declared type decides."""
    for system, name in SETTINGS:
        result = _check(tmp_path, json.dumps(SCENES[system]), "--set", f"{name}={value}")
        if result.exit_code == 2:
            assert f"setting {name}" in result.stderr, result.stderr


def test_wrong_types_name_what_the_system_declares():
    from referee.rules import find_ruleset

    with pytest.raises(ValueError, match="setting infantry_range must be a number"):
        find_ruleset("paper-tigers", infantry_range=None)
    with pytest.raises(ValueError, match="setting max_cards must be a whole number"):
        find_ruleset("paper-tigers", max_cards=2.5)
    with pytest.raises(ValueError, match="must be true or false"):
        find_ruleset("paper-tigers", wrecks_block="yes")
    assert find_ruleset("paper-tigers", infantry_range=10).settings.infantry_range == 10.0


def test_pz8_ww1_with_a_piece_off_the_table_is_answers_or_one_line(tmp_path):
    data = json.loads(json.dumps(SCENES["pz8-ww1"]))
    data["pieces"][0]["x"] = -500
    data["pieces"][0]["y"] = 9000
    _check(tmp_path, json.dumps(data))


@pytest.mark.parametrize("gun", [[1, 2, 3], 7, {"x": 1}, "nope", True])
def test_a_colonial_blast_with_a_gun_of_the_wrong_type_is_refused(tmp_path, gun):
    data = json.loads(json.dumps(SCENES["pz8-colonial"]))
    blasts = [q for q in data["queries"] if q.get("ask") == "blast"]
    assert blasts, "the colonial example asks a blast question"
    query = dict(blasts[0], gun=gun)
    data["queries"] = [query]
    result = _check(tmp_path, json.dumps(data))
    if result.exit_code == 0:
        assert json.loads(result.stdout)["verdicts"][0]["ok"] is not True
    else:
        assert "$.queries[0].gun" in result.stderr, result.stderr
