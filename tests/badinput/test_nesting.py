"""JSON nested deep, on every JSON surface (issue 42 item 7): never a 500, never a traceback.

Python's parser recurses: near 1,000 levels it raises ``RecursionError`` (which werkzeug's
``get_json(silent=True)`` lets out as a 500), and a text it did parse breaks the recursive
code that walks it later. Every JSON text a user gives goes through one parse,
:func:`referee.errors.parse_json`, which refuses more than ``MAX_DEPTH`` levels before
parsing. Here generated nesting of a random depth (far too deep, just over and just under
the limit) and shape (objects and lists mixed, brackets inside strings) is put at a random
place of a valid input and sent to every JSON surface:

- the dashboard's request bodies (``/api/ask``, ``/api/declare``, ``/api/terrain``,
  ``/api/correct``, ``/api/picture``) and the club's (``PUT /api/games/NAME``,
  ``POST /api/games/NAME/events``): a 400 naming the nesting when it is too deep, never a
  500 however deep;
- every file a command reads (scene, roster, profile, scenario, terrain outline, a game
  log's JSON columns, the demo's truth file), ``check --set`` values and a unit card's QR
  payload: one ``referee: error:`` line and exit 2 naming the nesting when it is too deep,
  success or one line otherwise.

How deep the result is nested is counted here from where the nesting was put (the
containers above it plus its own levels), not by the code under test.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import (
    FUZZ,
    SAMPLE,
    SCENARIO,
    assert_clean,
    examples,
    get_at,
    invoke,
    paths_of,
    read_json,
    set_at,
)
from referee.errors import MAX_DEPTH, RosterError
from referee.events import GameEvent
from referee.store import GameLog

NESTING = settings(FUZZ, max_examples=examples(20))

#: Stands where the nesting goes until the document is JSON text (no input holds it).
SPOT = "\u2063nesting goes here\u2063"

#: Innermost values: brackets inside a string are text, not nesting.
LEAVES = ["0", '"x"', "null", "true", "-2.5", '"]]}}[[{{"', '"\\"[["']


@st.composite
def nested_text(draw: st.DrawFn) -> tuple[str, int]:
    """JSON text of objects and lists nested to a drawn depth, and that depth."""
    depth = draw(
        st.one_of(
            st.integers(1, MAX_DEPTH),
            st.integers(MAX_DEPTH + 1, 5000),
            st.sampled_from([MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 900, 5000]),
        )
    )
    shape = draw(st.lists(st.sampled_from(["[", "{"]), min_size=1, max_size=4))
    opens = [shape[i % len(shape)] for i in range(depth)]
    head = "".join('{"k": ' if o == "{" else "[" for o in opens)
    tail = "".join("}" if o == "{" else "]" for o in reversed(opens))
    return head + draw(st.sampled_from(LEAVES)) + tail, depth


@st.composite
def nested_into(draw: st.DrawFn, doc: Any) -> tuple[str, int]:
    """``doc`` as JSON text with generated nesting put in place of one of its values (or
    added to one of its objects or lists), and how deep the result is nested."""
    doc = copy.deepcopy(doc)
    path = draw(st.sampled_from(list(paths_of(doc))))
    target = get_at(doc, path)
    above = len(path)  # each step of the path enters one object or list
    if isinstance(target, dict) and draw(st.booleans()):
        target["zz"] = SPOT
        above += 1
    elif isinstance(target, list) and draw(st.booleans()):
        target.insert(draw(st.integers(0, len(target))), SPOT)
        above += 1
    else:
        doc = set_at(doc, path, SPOT)
    text, depth = draw(nested_text())
    whole = json.dumps(doc).replace(json.dumps(SPOT), text, 1)
    return whole, max(above + depth, _depth_of(doc))


def _depth_of(value: Any) -> int:
    """Nesting of the (shallow) valid document itself."""
    if isinstance(value, dict):
        return 1 + max((_depth_of(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth_of(v) for v in value), default=0)
    return 0


def _assert_refused_or_clean(result: Any, depth: int) -> None:
    assert_clean(result)
    if depth > MAX_DEPTH:
        assert result.exit_code == 2, result.output
        assert "nested" in result.stderr, result.stderr


def _assert_answered(answer: Any, depth: int) -> None:
    """Below 500 with a one-line JSON error; a 400 naming the nesting when it is too deep."""
    assert answer.status_code < 500, answer.get_data(as_text=True)[:300]
    if answer.status_code >= 400:
        error = answer.get_json()["error"]
        assert error and "\n" not in error and len(error) < 500, error
    if depth > MAX_DEPTH:
        assert answer.status_code == 400, answer.get_data(as_text=True)[:300]
        assert "nested" in answer.get_json()["error"]


# -- the dashboard's request bodies -----------------------------------------------------------

BODIES: dict[str, Any] = {
    "/api/ask": {"ask": "range", "from": "t34a", "to": "pz1"},
    "/api/declare": {"ask": "follow_me", "leader": "t34a", "action": "move"},
    "/api/terrain": {
        "action": "add",
        "terrain": {"id": "w9", "kind": "woods", "polygon": [[1, 1], [5, 1], [5, 5]]},
    },
    "/api/correct": {"seq": 3, "void": True, "why": "knocked over"},
    "/api/picture": {"queries": [{"ask": "range", "from": "t34a", "to": "pz1"}]},
}


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    from referee.game import sample_live
    from referee.web import create_app

    log = GameLog(tmp_path_factory.mktemp("nesting") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="nesting")
    live.step(3)
    # TESTING: an exception the app does not answer reaches the test as itself, not a 500.
    yield create_app(live, {"TESTING": True}).test_client()
    live.stop()
    log.close()


@pytest.mark.parametrize("path", sorted(BODIES))
@NESTING
@given(data=st.data())
def test_a_dashboard_body_nested_anywhere_is_answered_or_400(dashboard, path, data):
    body, depth = data.draw(nested_into(BODIES[path]))
    answer = dashboard.post(path, data=body, content_type="application/json")
    _assert_answered(answer, depth)


# -- the club's request bodies ----------------------------------------------------------------

SCENE = read_json(SAMPLE / "scene.json")
REGISTRATION = {"ruleset": "paper-tigers", "scene": SCENE, "roster": None, "created": None}
MOVE = GameEvent(
    1,
    0.5,
    "move",
    {
        "piece": "t34a",
        "from": {"x": 10, "y": 20.5, "heading": 270},
        "to": {"x": 10, "y": 14.5, "heading": 270},
        "distance": 6.0,
    },
    frame=6,
).to_json()
BATCH = {"events": [MOVE, {"seq": 2, "t": 0.6, "type": "flag", "frame": 7, "kind": "jump"}]}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    from referee.club import create_app
    from referee.club.store import ClubStore

    store = ClubStore(f"sqlite:///{tmp_path_factory.mktemp('club') / 'club.sqlite'}")
    token = store.add_table("alpha")
    yield create_app(store, {"TESTING": True}).test_client(), token
    store.close()


@pytest.mark.parametrize("what", ["registration", "batch"])
@NESTING
@given(data=st.data(), n=st.integers(0, 10**9))
def test_a_club_body_nested_anywhere_is_answered_or_400(club, what, data, n):
    client, token = club
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    name = quote(f"nest{n}", safe="")
    if what == "registration":
        body, depth = data.draw(nested_into(REGISTRATION))
        answer = client.put(f"/api/games/{name}", data=body, headers=headers)
    else:
        client.put(f"/api/games/{name}", data=json.dumps(REGISTRATION), headers=headers)
        body, depth = data.draw(nested_into(BATCH))
        answer = client.post(f"/api/games/{name}/events", data=body, headers=headers)
    _assert_answered(answer, depth)


# -- every file a command reads ---------------------------------------------------------------


def _scenario() -> dict[str, Any]:
    data = read_json(SCENARIO)
    data.update(duration=2, fps=4)  # a run that succeeds takes a moment
    return data


OUTLINE = {"outline": [[-2, -1.5], [2, -1.5], [2, 1.5], [-2, 1.5]]}


def _command(kind: str, file: Path, work: Path) -> list[str]:
    """The command that reads ``file`` as a ``kind`` file."""
    if kind == "scene":
        return ["check", str(file), "--json"]
    if kind == "roster":
        return ["markers", "--roster", str(file), "--out", str(work / "tags.pdf")]
    if kind == "profile":
        return [
            "track",
            str(SAMPLE / "video.mp4"),
            "-c",
            str(file),
            "-r",
            str(SAMPLE / "roster.json"),
            "--out",
            str(work / "tracks.jsonl"),
            "--max-frames",
            "2",
            "-q",
        ]
    if kind == "scenario":
        return ["simulate", str(file), "--out", str(work / "out"), "--no-video", "--quiet"]
    assert kind == "outline"
    return ["markers", "terrain", "--kind", "woods", "--outline", str(file), "--out",
            str(work / "terrain.pdf")]  # fmt: skip


FILES: dict[str, Any] = {
    "scene": SCENE,
    "roster": read_json(SAMPLE / "roster.json"),
    "profile": read_json(SAMPLE / "camera.json"),
    "scenario": _scenario(),
    "outline": OUTLINE,
}


@pytest.mark.parametrize("kind", sorted(FILES))
@NESTING
@given(data=st.data())
def test_a_file_nested_anywhere_is_read_or_one_line(tmp_path_factory, kind, data):
    work = tmp_path_factory.mktemp(kind)
    text, depth = data.draw(nested_into(FILES[kind]))
    file = work / f"{kind}.json"
    file.write_text(text, encoding="utf-8")
    result = invoke(*_command(kind, file, work))
    _assert_refused_or_clean(result, depth)
    if depth > MAX_DEPTH:
        assert str(file) in result.stderr  # the message names the file


@NESTING
@given(value=nested_text(), name=st.sampled_from(["follow_distance", "follow_radius", "zz"]))
def test_a_check_setting_nested_deep_is_one_line(value, name):
    text, depth = value
    result = invoke("check", "--set", f"{name}={text}")
    _assert_refused_or_clean(result, depth)
    assert result.exit_code == 2  # no setting of any system is a list of lists


# -- a game log's JSON columns ----------------------------------------------------------------

LOG_SCENE = read_json(Path(__file__).resolve().parents[2] / "referee/data/examples/skirmish.json")
POSE = {"x": 10.0, "y": 12.0, "heading": 90.0}
MOVE_DATA = {"piece": "t34", "from": POSE, "to": {**POSE, "x": 14.0}, "distance": 4.0}


@pytest.fixture(scope="module")
def healthy_log(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("log") / "games.sqlite"
    with GameLog(path) as log:
        game = log.create_game("g1", LOG_SCENE["ruleset"], LOG_SCENE, source="table")
        log.append(game, [GameEvent(1, 1.0, "move", MOVE_DATA, 6)], [], (6, 1.0))
    return path.read_bytes()


@pytest.mark.parametrize(
    ("column", "doc"), [("events.data", MOVE_DATA), ("games.scene", LOG_SCENE)]
)
@NESTING
@given(data=st.data(), command=st.sampled_from(["show", "export", "replay"]))
def test_a_game_log_column_nested_anywhere_is_read_or_one_line(
    tmp_path_factory, healthy_log, column, doc, data, command
):
    path = tmp_path_factory.mktemp("nested-log") / "games.sqlite"
    path.write_bytes(healthy_log)
    text, depth = data.draw(nested_into(doc))
    table, field = column.split(".")
    con = sqlite3.connect(path)
    con.execute(f"UPDATE {table} SET {field} = ?", (text,))
    con.commit()
    con.close()
    args = ["log", command, "g1", "--db", str(path)]
    result = invoke(*args, *(["--at", "end"] if command == "replay" else []))
    _assert_refused_or_clean(result, depth)


# -- the demo's truth file and a unit card's QR payload ---------------------------------------


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 5000])
def test_a_demo_truth_file_nested_deep_is_one_line_before_calibrating(tmp_path, depth):
    folder = tmp_path / "footage"
    folder.mkdir()
    for name in ("video.mp4", "calibration.mp4", "camera.json", "roster.json", "scene.json"):
        (folder / name).symlink_to(SAMPLE / name)
    (folder / "truth-moves.json").write_text('{"moves": ' + "[" * depth + "]" * depth + "}")
    result = invoke("demo", "--footage", str(folder), "--no-log")
    _assert_refused_or_clean(result, depth + 1)
    assert "calibrating" not in result.output  # refused before any work


CARD = {
    "dictionary": "DICT_4X4_100",
    "tag": 12,
    "id": "t34",
    "side": "soviet",
    "kind": "tank",
    "base": [1.5, 3.0],
}


@NESTING
@given(data=st.data())
def test_a_card_payload_nested_anywhere_is_a_card_or_one_roster_error(data):
    from referee.markers.cards import parse_card

    text, _ = data.draw(nested_into(CARD))
    try:
        parse_card(text, "photo.png")
    except RosterError as error:
        assert "\n" not in str(error) and str(error).startswith("photo.png")


def test_a_card_whose_qr_holds_1000_levels_is_skipped_by_roster_scan(tmp_path):
    import cv2

    from referee.markers.qr import render_qr

    image = tmp_path / "card.png"
    cv2.imwrite(str(image), render_qr("[" * 1000 + "]" * 1000, 3, error_correction="L"))
    result = invoke("roster", "scan", str(image), "--out", str(tmp_path / "roster.json"))
    _assert_refused_or_clean(result, 0)
    assert result.exit_code == 2 and "no unit cards found in 1 image;" in result.stderr
    assert "not a referee unit card" in result.stderr  # the skipped line says what it was
    assert not (tmp_path / "roster.json").exists()
