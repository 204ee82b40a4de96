"""Evidence with every ruling (issue 40 item 1): ``--evidence on|off`` on the commands that
record a game, ``referee log show --evidence DIR``, ``GET /api/evidence/<seq>/<kind>.jpg``
and ``POST /api/ask?evidence=``, and damaged evidence rows in a game log.

Every refusal is one ``referee: error:`` line (an endpoint: one JSON error below 500), and
the game log and an earlier folder stay byte for byte as they were.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import FUZZ, assert_clean, examples, invoke, snapshot
from referee.events import GameEvent
from referee.game import sample_live
from referee.store import Evidence, GameLog
from referee.web import create_app

SCENE = {"ruleset": "paper-tigers", "table": {"width": 48, "depth": 36}}
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 20 + b"\xff\xd9"


def _log(path: Path) -> None:
    with GameLog(path) as log:
        game = log.create_game("g", "paper-tigers", SCENE)
        verdict = {"verdict": {"ask": "range", "ok": True}, "pieces": ["a", "b"]}
        log.append(
            game,
            [GameEvent(1, 0.1, "verdict", verdict, 3)],
            evidence=[Evidence(1, "camera", JPEG), Evidence(1, "top", JPEG)],
        )


OPTION_VALUES = st.one_of(
    st.sampled_from(["", "ON", "no", "false", "0", "1", "of", "on ", "\u2603", "a" * 5000]),
    st.text(max_size=30),
).filter(lambda v: v not in ("on", "off"))


@pytest.mark.parametrize("command", ["run", "demo", "serve"])
@settings(FUZZ, max_examples=examples(10))
@given(value=OPTION_VALUES)
def test_evidence_takes_on_or_off_and_nothing_else(tmp_path_factory, command, value):
    folder = tmp_path_factory.mktemp("opt")
    db = folder / "games.sqlite"
    result = invoke(command, "--evidence", value, "--db", str(db))
    assert_clean(result)
    assert result.exit_code == 2 and "--evidence" in result.stderr
    assert not db.exists()  # refused before the log is opened


DIRS = st.one_of(
    st.sampled_from(["", "a" * 300, "x/" + "b" * 300, "\x00", "log.sqlite", "log.sqlite/sub"]),
    st.text(max_size=20).filter(lambda t: "\x00" not in t and t.strip() not in ("", ".")),
)


@settings(FUZZ, max_examples=examples(25))
@given(where=DIRS)
def test_log_show_evidence_writes_the_pictures_or_refuses_in_one_line(tmp_path_factory, where):
    folder = tmp_path_factory.mktemp("show")
    db = folder / "log.sqlite"
    _log(db)
    before = db.read_bytes()
    target = where if where in ("", "\x00") else str(folder / where)
    result = invoke("log", "show", "g", "--db", str(db), "--evidence", target)
    assert_clean(result)
    assert db.read_bytes() == before
    if result.exit_code == 0:
        written = sorted(p.name for p in Path(target).iterdir())
        assert written == ["1-camera.jpg", "1-top.jpg"]


def test_log_show_evidence_into_a_file_is_one_line_naming_the_option(tmp_path):
    db = tmp_path / "log.sqlite"
    _log(db)
    here = tmp_path / "file.txt"
    here.write_text("keep")
    before = snapshot(tmp_path)
    result = invoke("log", "show", "g", "--db", str(db), "--evidence", str(here))
    assert_clean(result)
    assert result.exit_code == 2
    assert "--evidence" in result.stderr and "is a file" in result.stderr
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE evidence SET data = 'text, not a picture'",
        "UPDATE evidence SET data = X'00'",
        "UPDATE evidence SET data = 12",
        "UPDATE evidence SET kind = '../../escape' WHERE kind = 'top'",
        "UPDATE evidence SET seq = 'x' WHERE kind = 'top'",
        "DELETE FROM evidence",
    ],
)
def test_damaged_evidence_rows_are_notes_and_the_game_still_reads(tmp_path, damage):
    db = tmp_path / "log.sqlite"
    _log(db)
    con = sqlite3.connect(db)
    con.execute(damage)
    con.commit()
    con.close()
    before = db.read_bytes()
    out = tmp_path / "out"
    shown = invoke("log", "show", "g", "--db", str(db), "--evidence", str(out))
    assert shown.exit_code == 0, shown.output
    assert "#1" in shown.stdout  # the verdict is shown whatever its pictures
    assert all(line.startswith("note: ") for line in shown.stderr.splitlines())
    assert all(p.parent == out for p in out.rglob("*"))  # nothing written outside DIR
    exported = invoke("log", "export", "g", "--db", str(db))
    assert exported.exit_code == 0 and exported.stdout.count("\n") == 1
    assert db.read_bytes() == before


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("web") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="bad-evidence")
    assert live.step(40) == 40
    yield create_app(live, {"TESTING": True}).test_client()
    live.stop()
    log.close()


@settings(FUZZ, max_examples=examples(40))
@given(seq=st.text(max_size=30) | st.integers().map(str), kind=st.text(max_size=30))
def test_any_evidence_address_is_a_picture_or_one_json_error(client, seq, kind):
    response = client.get(f"/api/evidence/{seq}/{kind}.jpg")
    assert response.status_code in (200, 404, 405), response.status_code
    if response.status_code == 200:
        assert response.mimetype == "image/jpeg" and response.data[:2] == b"\xff\xd8"
    else:
        error = response.get_json()["error"]
        assert "\n" not in error and len(error) < 300


@settings(FUZZ, max_examples=examples(20))
@given(value=OPTION_VALUES)
def test_ask_evidence_takes_0_or_1(client, value):
    body = {"ask": "range", "from": "t34a", "to": "pz1"}
    response = client.post("/api/ask", query_string={"evidence": value}, json=body)
    if value in ("0", "1"):
        assert response.status_code == 200
    else:
        assert response.status_code == 400
        assert response.get_json()["error"].startswith("evidence: must be 0 or 1")
