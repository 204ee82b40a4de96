"""The shared harness of the generated bad-input suite (``tests/badinput/``).

One generator module per surface (``test_files.py``: profile, roster, scenario and scene
files and command options; each later surface its own ``test_<surface>.py``) uses these
assertions, so every surface is held to the same promise (README: "Bad input"): exit 0,
or exactly one ``referee: error:`` line and exit 2; never a traceback or a library's own
exception text; every file that existed before a failure byte for byte as it was.

The suite's size is set by ``BADINPUT_EXAMPLES`` (examples per property, default the
bounded sample the README's test command runs); ``.ci/run`` runs it again with a larger
number after the README's command.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from referee.cli import cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_footage" / "skirmish"
SCENARIO = ROOT / "sample_footage" / "skirmish.scenario.json"

#: Scale of every property's example count: 1 in the README's command, more in the long run.
SCALE = max(1, int(os.environ.get("BADINPUT_SCALE", "1")))


def examples(n: int) -> int:
    """``n`` examples in the bounded run, ``n * BADINPUT_SCALE`` in the long one."""
    return n * SCALE


#: Values a hostile or careless user puts where something else belongs.
WEIRD: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2.5,
    1e308,
    -1e308,
    float("nan"),
    float("inf"),
    float("-inf"),
    10**30,
    "",
    "t34a",
    "x" * 100_000,
    [],
    [1],
    [1, 2],
    [[0, 0], [1, 1]],
    ["t34a"],
    {},
    {"x": 1},
]

VALUES = st.one_of(
    st.sampled_from(WEIRD),
    st.sampled_from(WEIRD),
    st.sampled_from(WEIRD),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=12),
)

#: Hang guard per example (ms): a normal example takes well under a second.
DEADLINE_MS = 20_000

FUZZ = settings(
    max_examples=examples(40),
    deadline=DEADLINE_MS,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)


def paths_of(doc: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from paths_of(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from paths_of(value, (*prefix, index))


def get_at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def set_at(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return doc


def delete_at(doc: Any, path: tuple[Any, ...]) -> Any:
    if not path:
        return doc
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    return doc


@st.composite
def mutated_text(draw: st.DrawFn, doc: Any) -> str:
    """``doc`` with 1-3 random changes (a value replaced, a field dropped or added), as JSON
    text; sometimes cut short, so the file is not JSON at all."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        paths = list(paths_of(doc))
        leaves = [p for p in paths if not isinstance(get_at(doc, p), (dict, list))] or paths
        # Mostly one value (where the classes of bug hide), sometimes a whole object or list.
        path = draw(st.sampled_from(leaves if draw(st.integers(0, 3)) else paths))
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "replace":
            doc = set_at(doc, path, copy.deepcopy(draw(VALUES)))
        elif action == "delete":
            doc = delete_at(doc, path)
        else:
            target = get_at(doc, path)
            if isinstance(target, dict):
                target[draw(st.sampled_from(["zz", "id", "x", "tag"]))] = copy.deepcopy(
                    draw(VALUES)
                )
            elif isinstance(target, list):
                target.append(copy.deepcopy(draw(VALUES)))
    text = json.dumps(doc)
    if draw(st.integers(0, 9)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


#: Python's own wording: a message with it was an exception nobody translated for the user.
PYTHON_TEXT = re.compile(
    r"NoneType|object is not|subscriptable|invalid literal|unhashable|could not convert|"
    r"not iterable|takes \d+ positional|unexpected keyword|Errno"
)


def assert_message(message: str, source: Path) -> None:
    """One line, starting with the file it is about, in the referee's words, readable length."""
    assert "\n" not in message and message.startswith(str(source)), message
    assert not PYTHON_TEXT.search(message), message
    assert len(message) < 2000


def assert_clean(result: Result) -> None:
    """Success, or one ``referee: error:`` line and exit code 2; never a traceback."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {result.exception!r}\n{result.output}") from (
            result.exception
        )
    assert result.exit_code in (0, 2), result.output
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("referee: error: ")]
        assert len(errors) == 1 and lines[-1] == errors[0], result.stderr
        assert len(errors[0]) < 2000, "an error line must stay readable"
        assert not PYTHON_TEXT.search(errors[0]), errors[0]


def assert_roster_loads_or_one_error(path: Path) -> None:
    """A roster file loads (and strict JSON of it reads back as itself) or is one
    ``RosterError`` line naming the file."""
    from referee.errors import RosterError
    from referee.markers.roster import Roster, load_roster

    try:
        roster = load_roster(path)
    except RosterError as error:
        assert_message(str(error), path)
        return
    out = json.dumps(roster.to_json(), allow_nan=False)
    assert Roster.from_json(json.loads(out)) == roster


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
