"""A damaged game log is one line naming the game and the event, and stays byte for byte.

The generator builds a small real log through the store's own API (a game with moves,
flags, a declaration, a terrain edit and positions), damages a copy at the byte level
(bytes flipped in a page, the file cut short, a column rewritten with bad JSON, bad
UTF-8 or text where a number belongs, an unknown event type, tables dropped) and runs
every ``referee log`` command on it, and ``referee run --db`` resuming its game on a
one-frame picture folder (so a run that may proceed stops at once). Every outcome is a
success or one ``referee: error:`` line with exit code 2; a command that fails, and any
command that only reads, leaves the log's bytes as they were (issue 30, items 9-11).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import FUZZ, ROOT, SAMPLE, assert_clean, examples, invoke
from referee.events import GameEvent
from referee.store import MIGRATIONS, SCHEMA_VERSION, GameLog, Position, StoreError

SCENE = json.loads((ROOT / "referee/data/examples/skirmish.json").read_text())
GAME = "g1"


def build_log(path: Path) -> None:
    """A small real log: one game, a few events of every common type, positions."""
    with GameLog(path) as log:
        game = log.create_game(GAME, SCENE["ruleset"], SCENE, source="table")
        pose = {"x": 10.0, "y": 12.0, "heading": 90.0}
        events = [
            GameEvent(1, 0.0, "declare", {"declare": {"ask": "move", "piece": "t34"}}, 0),
            GameEvent(2, 0.5, "flag", {"kind": "jump", "message": "t34 jumped", "piece": "t34"}, 3),
            GameEvent(
                3,
                1.0,
                "move",
                {"piece": "t34", "from": pose, "to": {**pose, "x": 14.0}, "distance": 4.0},
                6,
            ),
            GameEvent(4, 1.5, "camera", {"kind": "lost", "message": "camera lost"}, 9),
            GameEvent(5, 2.0, "edit", {"edit": "terrain", "action": "remove", "id": "wood1"}, 12),
            # Issue 41: a casualty (its last resting pose) and a reinforcement.
            GameEvent(
                6, 2.0, "removed", {"piece": "t34", "at": pose, "reason": "r", "edge": None}, 12
            ),
            GameEvent(7, 2.0, "entered", {"piece": "t34", "at": pose}, 12),
        ]
        positions = [
            Position("t34", "settled", 10.0 + i, 12.0, 90.0, 0.05, True, 3 * i, 0.5 * i)
            for i in range(5)
        ]
        log.append(game, events, positions, (12, 2.0))


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("healthy") / "games.sqlite"
    build_log(path)
    return path.read_bytes()


@pytest.fixture(scope="module")
def one_frame(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A picture folder of one frame of the sample: 'run' on it stops after that frame."""
    import cv2

    folder = tmp_path_factory.mktemp("one-frame")
    capture = cv2.VideoCapture(str(SAMPLE / "video.mp4"))
    ok, frame = capture.read()
    capture.release()
    assert ok
    cv2.imwrite(str(folder / "frame0000.png"), frame)
    return folder


# -- damage at the byte level and in the columns -------------------------------------------------

#: Text the log holds: flips aimed at these land inside the rows readers decode.
MARKERS = (b'"message"', b'"piece"', b'"ruleset"', b"t34", b"paper-tigers", b"settled", b"jump")

#: Column rewrites: (table, column, the bad value's SQL), all applied to one row.
REWRITES = [
    ("events", "data", "'{bad'"),
    ("events", "data", "CAST(x'7b22ff22' AS TEXT)"),
    ("events", "data", "'[1, 2]'"),
    ("events", "data", "'" + "[" * 3000 + "'"),
    ("events", "data", "'{\"seq\": 1}'"),
    ("events", "data", '\'{"kind": "moved", "message": "m", "table_pose": {}}\''),
    ("events", "data", '\'{"kind": "moved", "message": "m", "camera": 0}\''),
    ("events", "data", '\'{"kind": "moved", "message": "m", "camera": "2"}\''),
    ("events", "data", '\'{"piece": "t34", "to": 5, "from": []}\''),
    ("events", "data", '\'{"verdict": 3, "question": 0}\''),
    ("events", "data", '\'{"piece": "t34", "at": [1, 2]}\''),
    ("events", "data", '\'{"piece": "t34", "at": {"x": "a", "y": 1, "heading": 0}}\''),
    ("events", "data", '\'{"edit": "terrain", "action": "add", "terrain": 7}\''),
    ("events", "data", '\'{"edit": "roster", "action": "zz"}\''),
    ("events", "data", '\'{"declare": {"ask": [1]}}\''),
    ("events", "t", "'abc'"),
    ("events", "t", "x'00ff'"),
    ("events", "frame", "'x'"),
    ("events", "frame", "2.5"),
    ("events", "seq", "'seven'"),
    ("events", "type", "'zap'"),
    ("events", "type", "CAST(x'ff' AS TEXT)"),
    ("events", "type", "NULL"),
    ("games", "scene", "'[1'"),
    ("games", "scene", "'7'"),
    ("games", "scene", "CAST(x'ff' AS TEXT)"),
    ("games", "roster", "'{'"),
    ("games", "name", "CAST(x'ff' AS TEXT)"),
    ("games", "last_frame", "'x'"),
    ("games", "last_t", "'nan'"),
    ("games", "created", "x'00'"),
    ("positions", "x", "'left'"),
    ("positions", "piece", "CAST(x'c3' AS TEXT)"),
    ("positions", "seen", "'yes'"),
    ("positions", "frame", "NULL"),
    ("referee_meta", "value", "CAST(x'ff' AS TEXT)"),
]

DROPS = ["games", "events", "positions", "referee_meta"]


def _sql(path: Path, *statements: str) -> None:
    con = sqlite3.connect(path)
    con.execute("PRAGMA foreign_keys = OFF")
    for statement in statements:
        con.execute(statement)
    con.commit()
    con.close()


@st.composite
def damage(draw: st.DrawFn, data: bytes) -> tuple[str, Any]:
    """One way a log gets damaged, as (kind, parameters)."""
    kind = draw(
        st.sampled_from(["flip", "flip", "flip", "truncate", "rewrite", "rewrite", "drop", "meta"])
    )
    if kind == "flip":
        count = draw(st.sampled_from([1, 2, 8, 8, 32]))
        marker = draw(st.sampled_from([None, *MARKERS]))
        starts = [i for i in range(len(data)) if data.startswith(marker, i)] if marker else []
        if starts:
            where = draw(st.sampled_from(starts)) + draw(st.integers(-4, len(marker or b"") + 4))
        else:
            where = draw(st.integers(100, len(data) - count))
        where = min(max(where, 0), len(data) - count)
        xor = draw(st.lists(st.integers(1, 255), min_size=count, max_size=count))
        return kind, (where, xor)
    if kind == "truncate":
        return kind, draw(st.sampled_from([1, 2, 100, 4096, 4097, len(data) // 2]))
    if kind == "rewrite":
        return kind, draw(st.sampled_from(REWRITES))
    if kind == "drop":
        return kind, draw(st.sampled_from(DROPS))
    return kind, draw(
        st.sampled_from(
            [
                "DELETE FROM referee_meta WHERE key = 'schema_version'",
                "UPDATE referee_meta SET value = 'x' WHERE key = 'schema_version'",
                "UPDATE referee_meta SET value = '1' WHERE key = 'schema_version'",
                "UPDATE referee_meta SET value = '0' WHERE key = 'schema_version'",
                "UPDATE referee_meta SET value = 'other' WHERE key = 'application'",
                "ALTER TABLE events DROP COLUMN piece",
                "ALTER TABLE games RENAME COLUMN scene TO scenery",
                "PRAGMA journal_mode = DELETE",
            ]
        )
    )


def apply(path: Path, data: bytes, kind: str, what: Any) -> None:
    if kind == "flip":
        where, xor = what
        damaged = bytearray(data)
        for i, x in enumerate(xor):
            damaged[where + i] ^= x
        path.write_bytes(bytes(damaged))
    elif kind == "truncate":
        path.write_bytes(data[: len(data) - what])
    else:
        path.write_bytes(data)
        if kind == "rewrite":
            table, column, value = what
            _sql(
                path,
                f"UPDATE {table} SET {column} = {value}"
                f" WHERE rowid = (SELECT MIN(rowid) FROM {table})",
            )
        elif kind == "drop":
            _sql(path, f"DROP TABLE {what}")
        else:
            _sql(path, what)


READS = [
    ["log", "list"],
    ["log", "show", GAME],
    ["log", "export", GAME],
    ["log", "export", GAME, "--format", "csv"],
    ["log", "replay", GAME, "--at", "3"],
    ["log", "replay", GAME, "--at", "1.2s"],
]


def check_log_commands(path: Path, one_frame: Path) -> None:
    """Every 'referee log' command and a resuming 'run --db' on ``path``: clean outcomes, and
    the file's bytes as they were after every read and every failure."""
    before = path.read_bytes()
    for args in READS:
        result = invoke(*args, "--db", str(path))
        assert_clean(result)
        assert path.read_bytes() == before, args
    with tempfile.TemporaryDirectory() as folder:  # the battle report reads the whole game
        for name in ("report.html", "report.mp4"):
            result = invoke("log", "report", GAME, "--out", f"{folder}/{name}", "--db", str(path))
            assert_clean(result)
            assert path.read_bytes() == before, name
    result = invoke("log", "upgrade", "--db", str(path))
    assert_clean(result)
    if result.exit_code == 2:
        assert path.read_bytes() == before
    before = path.read_bytes()
    result = invoke(
        "run",
        "--video",
        str(one_frame),
        "-c",
        str(SAMPLE / "camera.json"),
        "-r",
        str(SAMPLE / "roster.json"),
        "--db",
        str(path),
        "--game",
        GAME,
        "-q",
    )
    assert_clean(result)
    if result.exit_code == 2:
        assert path.read_bytes() == before, result.stderr


@settings(FUZZ, max_examples=examples(40))
@given(data=st.data())
def test_any_damaged_log_is_one_line_and_keeps_its_bytes(
    tmp_path_factory, healthy, one_frame, data
):
    kind, what = data.draw(damage(healthy))
    path = tmp_path_factory.mktemp("damaged") / "games.sqlite"
    try:
        apply(path, healthy, kind, what)
    except sqlite3.Error:
        return  # the damage itself could not be made (e.g. a column SQLite will not drop)
    check_log_commands(path, one_frame)


# -- regressions: the examples of issue 30 -------------------------------------------------------


def _damaged(tmp_path: Path, healthy: bytes, kind: str, what: Any) -> Path:
    path = tmp_path / "games.sqlite"
    apply(path, healthy, kind, what)
    return path


@pytest.mark.parametrize(
    ("kind", "what", "message"),
    [
        (
            "rewrite",
            ("events", "data", "'{bad'"),
            "game 'g1', event #1: its data is not valid JSON",
        ),
        (
            "rewrite",
            ("events", "data", "CAST(x'7b22ff22' AS TEXT)"),
            "game 'g1', event #1: its data is not UTF-8 text",
        ),
        (
            "rewrite",
            ("events", "t", "'abc'"),
            "game 'g1', event #1: its time holds 'abc' where a number belongs",
        ),
        ("rewrite", ("events", "type", "'zap'"), "game 'g1', event #1: unknown event type 'zap'"),
        ("rewrite", ("games", "scene", "'[1'"), "game 'g1': its scene is not valid JSON"),
        (
            "rewrite",
            ("events", "data", '\'{"kind": "moved", "message": "m", "table_pose": {}}\''),
            "game 'g1', event #1: its 'table_pose' holds {} where a table pose",
        ),
        (
            "rewrite",
            ("events", "data", '\'{"kind": "moved", "message": "m", "camera": 0}\''),
            "game 'g1', event #1: its 'camera' holds 0 where a camera number from 1 belongs",
        ),
        (
            "rewrite",
            ("events", "data", '\'{"piece": "t34", "to": 5}\''),
            "game 'g1', event #1: its 'to' holds 5 where a pose {x, y, heading} belongs",
        ),
        (
            "rewrite",
            ("games", "last_frame", "'x'"),
            "game 'g1': its last frame holds 'x' where a whole number belongs",
        ),
        ("drop", "games", "the game log is damaged (its table 'games' is missing)"),
        ("drop", "events", "the game log is damaged (its table 'events' is missing)"),
    ],
)
def test_damage_that_passes_the_open_checks_names_the_game_and_event(
    tmp_path, healthy, kind, what, message
):
    path = _damaged(tmp_path, healthy, kind, what)
    before = path.read_bytes()
    for args in READS[1:4]:
        result = invoke(*args, "--db", str(path))
        assert_clean(result)
        assert result.exit_code == 2 and message in result.stderr, result.stderr
        assert "restore it from a backup" in result.stderr
    assert path.read_bytes() == before
    with pytest.raises(StoreError, match="damaged"):
        GameLog(path)  # a writer reads the whole log first and refuses it: no byte written
    assert path.read_bytes() == before


def test_a_page_with_flipped_bytes_is_one_line_for_every_reader(tmp_path, healthy, one_frame):
    """8 bytes flipped inside the page that holds the events' text."""
    where = healthy.index(b'"message"') + 2
    path = _damaged(tmp_path, healthy, "flip", (where, [0x80] * 8))
    check_log_commands(path, one_frame)
    result = invoke("log", "show", GAME, "--db", str(path))
    assert result.exit_code == 2 and "game 'g1', event #" in result.stderr


def test_a_file_one_byte_short_is_one_line(tmp_path, healthy, one_frame):
    path = _damaged(tmp_path, healthy, "truncate", 1)
    check_log_commands(path, one_frame)


@pytest.mark.parametrize("command", ["run", "demo", "serve"])
def test_writers_refuse_a_damaged_log_before_changing_it(tmp_path, healthy, one_frame, command):
    path = _damaged(tmp_path, healthy, "rewrite", ("events", "data", "'{bad'"))
    _sql(path, "PRAGMA journal_mode = DELETE")  # a rollback-journal log: WAL would change it
    before = path.read_bytes()
    args = {
        "run": [
            "run",
            "--video",
            str(one_frame),
            "-c",
            str(SAMPLE / "camera.json"),
            "-r",
            str(SAMPLE / "roster.json"),
            "--game",
            GAME,
            "-q",
        ],
        "demo": ["demo", "--use-true-camera", "--game", GAME],
        "serve": ["serve", "--port", "0"],
    }[command]
    result = invoke(*args, "--db", str(path))
    assert_clean(result)
    assert result.exit_code == 2 and "event #1" in result.stderr, result.stderr
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]


def test_a_refused_serve_leaves_a_rollback_journal_log_as_it_was(tmp_path, healthy):
    """Issue 30 item 10: the refusal came after the log was switched to WAL."""
    path = tmp_path / "games.sqlite"
    path.write_bytes(healthy)
    _sql(path, "PRAGMA journal_mode = DELETE")
    before = path.read_bytes()
    result = invoke("serve", "--db", str(path), "--ruleset", "nope", "--port", "0")
    assert_clean(result)
    assert result.exit_code == 2
    assert path.read_bytes() == before


def test_a_refused_run_leaves_a_rollback_journal_log_as_it_was(tmp_path, healthy, one_frame):
    path = tmp_path / "games.sqlite"
    path.write_bytes(healthy)
    _sql(path, "PRAGMA journal_mode = DELETE")
    before = path.read_bytes()
    result = invoke(
        "run",
        "--video",
        str(one_frame),
        "-c",
        str(SAMPLE / "camera.json"),
        "-r",
        str(SAMPLE / "roster.json"),
        "--db",
        str(path),
        "--ruleset",
        "nope",
        "-q",
    )
    assert_clean(result)
    assert result.exit_code == 2
    assert path.read_bytes() == before
    assert path.read_bytes()[18:20] == b"\x01\x01"  # still a rollback-journal file


def _older(path: Path) -> None:
    con = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        con.execute(statement)
    con.execute("INSERT INTO referee_meta VALUES ('application', 'table-referee')")
    con.execute("INSERT INTO referee_meta VALUES ('schema_version', '1')")
    con.execute(
        "INSERT INTO games VALUES (1, 'old', 'then', 'paper-tigers', NULL, ?, NULL, NULL, 3, 0.1)",
        (json.dumps(SCENE),),
    )
    con.execute(
        "INSERT INTO events VALUES (1, 1, 0.5, 2, 'flag', NULL, NULL, ?)",
        (json.dumps({"kind": "jump", "message": "m"}),),
    )
    con.commit()
    con.close()


def test_an_older_log_names_a_command_that_exists_and_it_upgrades(tmp_path):
    path = tmp_path / "old.sqlite"
    _older(path)
    before = path.read_bytes()
    result = invoke("log", "show", "old", "--db", str(path))
    assert_clean(result)
    assert result.exit_code == 2 and f"referee log upgrade --db {path}" in result.stderr
    assert path.read_bytes() == before
    result = invoke("log", "upgrade", "--db", str(path))
    assert result.exit_code == 0, result.output
    assert f"upgraded from log schema 1 to {SCHEMA_VERSION}" in result.output
    result = invoke("log", "show", "old", "--db", str(path))
    assert result.exit_code == 0 and "#1" in result.output
    current = path.read_bytes()
    result = invoke("log", "upgrade", "--db", str(path))
    assert result.exit_code == 0 and "nothing to do" in result.output
    assert path.read_bytes() == current
    result = invoke("log", "upgrade", "--db", str(tmp_path / "none.sqlite"))
    assert_clean(result)
    assert result.exit_code == 2 and "no game log here" in result.stderr
    assert not (tmp_path / "none.sqlite").exists()


READ_ONLY_CHECK = """
import sys
from click.testing import CliRunner
from referee.cli import cli
db, frames, sample = sys.argv[1:4]
for args in (["log", "list"], ["log", "show", "g1"], ["log", "export", "g1"]):
    result = CliRunner().invoke(cli, [*args, "--db", db])
    assert result.exit_code == 0, result.output
result = CliRunner().invoke(cli, ["run", "--video", frames, "-c", sample + "/camera.json",
    "-r", sample + "/roster.json", "--db", db, "-q"])
print(result.exit_code, result.stderr.strip(), repr(result.exception)[:200])
"""


def test_a_healthy_log_in_a_read_only_folder_is_read_and_not_called_damaged(healthy, one_frame):
    """Readers read it; a writer says the folder is read-only (not "restore from a backup")."""
    # Outside pytest's own temporary folder: other pytest runs of the same user reset its
    # permissions, and an unprivileged user must reach this one.
    base = Path(tempfile.mkdtemp(prefix="referee-read-only-"))
    try:
        _check_read_only_folder(base, healthy, one_frame)
    finally:
        if (base / "log").exists():
            (base / "log").chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


def _check_read_only_folder(base: Path, healthy: bytes, one_frame: Path) -> None:
    folder = base / "log"
    folder.mkdir()
    path = folder / "games.sqlite"
    path.write_bytes(healthy)
    frames = base / "frames"
    shutil.copytree(one_frame, frames)
    before = path.read_bytes()
    command = [sys.executable, "-c", READ_ONLY_CHECK, str(path), str(frames), str(SAMPLE)]
    if os.geteuid() == 0:
        # root may write anywhere: the check runs as an unprivileged user.
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: no user for whom a folder is read-only")
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
        for item in [base, path, frames, *frames.iterdir()]:
            item.chmod(item.stat().st_mode | 0o005)
    folder.chmod(0o555)
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=str(ROOT / "tests"),
        env={**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(base)},
        timeout=120,
    )
    folder.chmod(0o755)
    assert done.returncode == 0 and not done.stderr, done.stderr
    code, _, message = done.stdout.strip().partition(" ")
    assert code == "2", done.stdout
    # The shared output check (--db) or the store itself: either way the folder, not damage.
    assert "is read-only" in message or "cannot write in" in message, message
    assert str(folder) in message
    assert "backup" not in message
    assert path.read_bytes() == before
