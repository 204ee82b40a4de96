"""The game log file: append-only events, crash safety, concurrent readers, refusals."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.events import GameEvent
from referee.store import SCHEMA_VERSION, GameLog, Position, StoreError

SCENE = {"ruleset": "paper-tigers", "table": {"width": 48, "depth": 36}}


def flag(seq, t=0.0, frame=0, message="x"):
    return GameEvent(seq, t, "flag", {"kind": "jump", "message": message}, frame)


def new_log(path):
    log = GameLog(path)
    return log, log.create_game("g", "paper-tigers", SCENE)


def test_events_and_positions_round_trip(tmp_path):
    log, game = new_log(tmp_path / "log.sqlite")
    move = GameEvent(
        1,
        2.5,
        "move",
        {
            "piece": "t34",
            "from": {"x": 1, "y": 2, "heading": 0},
            "to": {"x": 3, "y": 2, "heading": 0},
            "distance": 2.0,
            "uncertainty": 0.01,
        },
        75,
    )
    where = Position("t34", "settled", 3.0, 2.0, 0.0, 0.01, True, 75, 2.5)
    log.append(game, [move, flag(2, 2.5, 75)], [where], progress=(75, 2.5))
    log.close()
    reader = GameLog(tmp_path / "log.sqlite", readonly=True)
    (info,) = reader.games()
    assert (info.name, info.events, info.moves, info.last_seq, info.last_frame) == (
        "g",
        2,
        1,
        2,
        75,
    )
    events = reader.events(info)
    assert [e.seq for e in events] == [1, 2] and events[0] == move
    assert events[0].to_json()["piece"] == "t34" and events[0].to_json()["type"] == "move"
    assert reader.positions_at(info)["t34"] == where
    assert reader.positions_at(info, 74) == {}


def test_a_game_name_is_unique(tmp_path):
    log, _ = new_log(tmp_path / "log.sqlite")
    with pytest.raises(StoreError, match="already exists"):
        log.create_game("g", "paper-tigers", SCENE)


def test_a_sequence_number_is_never_logged_twice(tmp_path):
    log, game = new_log(tmp_path / "log.sqlite")
    log.append(game, [flag(1)])
    with pytest.raises(StoreError, match="another referee is writing"):
        log.append(game, [flag(2), flag(1)])
    assert [e.seq for e in log.events(game)] == [1]  # the failed frame left nothing


def test_one_writer_per_game_until_it_closes(tmp_path):
    path = tmp_path / "log.sqlite"
    log, game = new_log(path)
    other = GameLog(path)
    other_game = other.create_game("h", "paper-tigers", SCENE)  # another game: its own lock
    with pytest.raises(StoreError, match=r"game 'g' is being played by a running referee"):
        other.append(game, [flag(1)])
    with pytest.raises(StoreError, match="being played"):
        other.delete_game(game)
    log.append(game, [flag(1)])  # the holder writes on, its seq untouched
    with pytest.raises(StoreError, match="being played"):
        log.append(other_game, [flag(1)])
    assert [e.seq for e in log.events(game)] == [1]
    log.close()  # released, and its lock file goes with it
    assert not (tmp_path / f"log.sqlite.{game.id}.lock").exists()
    other.append(game, [flag(2)])
    assert [e.seq for e in other.events(game)] == [1, 2]
    other.close()
    assert sorted(p.name for p in tmp_path.glob("*.lock")) == []


def test_a_finished_game_gives_its_lock_back_while_its_log_stays_open(tmp_path):
    """A serve looping the footage logs a game a pass on one open log: each game's lock
    (and its open file) goes when its session ends, not when serve stops."""
    path = tmp_path / "log.sqlite"
    log, game = new_log(path)
    log.append(game, [flag(1)])
    log.release(game)
    assert not (tmp_path / f"log.sqlite.{game.id}.lock").exists()
    other = GameLog(path)
    other.append(game, [flag(2)])  # a correction from another terminal now goes through
    with pytest.raises(StoreError, match="being played"):
        log.append(game, [flag(3)])
    other.close()
    log.append(game, [flag(3)])  # the first log takes it again for a later write
    assert [e.seq for e in log.events(game)] == [1, 2, 3]
    log.close()


def test_the_schema_uses_only_portable_types(tmp_path):
    _log, _ = new_log(tmp_path / "log.sqlite")
    con = sqlite3.connect(tmp_path / "log.sqlite")
    sql = " ".join(r[0] for r in con.execute("SELECT sql FROM sqlite_master") if r[0])
    assert "AUTOINCREMENT" not in sql.upper() and "WITHOUT ROWID" not in sql.upper()
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_older_log_is_migrated_and_keeps_its_games(tmp_path):
    from referee.store import MIGRATIONS

    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        con.execute(statement)
    con.execute("INSERT INTO referee_meta VALUES ('application', 'table-referee')")
    con.execute("INSERT INTO referee_meta VALUES ('schema_version', '1')")
    con.execute(
        "INSERT INTO games VALUES (1, 'old', 'then', 'paper-tigers', NULL, ?, NULL, NULL, 3, 0.1)",
        (json.dumps(SCENE),),
    )
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="older game log"):
        GameLog(path, readonly=True)  # a reader never changes the file
    before = path.read_bytes()
    log = GameLog(path)
    assert [g.name for g in log.games()] == ["old"]
    assert log.positions_at(log.game("old")) == {}
    assert path.read_bytes() == before  # opened and read, not yet written: not yet changed
    log.append(log.game("old"), [flag(1)], [], (4, 0.2))  # the first write migrates
    meta = dict(sqlite3.connect(path).execute("SELECT key, value FROM referee_meta").fetchall())
    assert meta["schema_version"] == str(SCHEMA_VERSION)
    assert [e.seq for e in log.events(log.game("old"))] == [1]


def _foreign(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE photos (id INTEGER, name TEXT)")
    con.commit()
    con.close()


def _newer(path):
    GameLog(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE referee_meta SET value = '99' WHERE key = 'schema_version'")
    con.commit()
    con.execute("PRAGMA journal_mode = DELETE")
    con.close()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_bytes(os.urandom(3000)), "not a readable game log"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\x07" * 5000), "not a readable"),
        (_foreign, "another program"),
        (_newer, "newer table referee"),
    ],
    ids=["random-bytes", "broken-header", "foreign-sqlite", "newer-schema"],
)
def test_a_file_it_cannot_use_is_one_line_and_stays_byte_for_byte(tmp_path, make, message):
    path = tmp_path / "games.sqlite"
    make(path)
    before = path.read_bytes()
    with pytest.raises(StoreError, match=message):
        GameLog(path)
    result = CliRunner().invoke(cli, ["log", "list", "--db", str(path)])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith("referee: error: ") and str(path) in result.output
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite"]


def test_an_unwritable_location_is_a_clear_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create the folder"):
        GameLog(blocker / "games.sqlite")
    # /proc refuses new files even to root, as a read-only mount would.
    with pytest.raises(StoreError, match="cannot"):
        GameLog("/proc/referee-test/games.sqlite")


def test_a_full_disk_keeps_every_earlier_event_and_no_half_frame(tmp_path):
    path = tmp_path / "full.sqlite"
    log, game = new_log(path)
    (pages,) = log._con.execute("PRAGMA page_count").fetchone()
    log._con.execute(f"PRAGMA max_page_count = {pages + 8}")
    seq, logged = 0, []
    with pytest.raises(StoreError, match="disk is full"):
        for frame in range(10_000):
            batch = [flag(seq + i + 1, frame / 30, frame, "m" * 400) for i in range(5)]
            log.append(game, batch, progress=(frame, frame / 30))
            seq += 5
            logged.extend(batch)
    assert log.events(game) == logged  # all reported events, none of the failed frame
    assert log.integrity() == "ok"
    log.close()
    assert GameLog(path, readonly=True).events(game) == logged


WRITER = textwrap.dedent(
    """
    import sys
    from referee.events import GameEvent
    from referee.store import GameLog, Position
    log = GameLog(sys.argv[1])
    game = log.find("g") or log.create_game("g", "paper-tigers", {"ruleset": "paper-tigers",
        "table": {"width": 48, "depth": 36}})
    seq = game.last_seq
    for frame in range(game.last_frame + 1, 10**9):
        batch = [GameEvent(seq + i + 1, frame / 30, "flag", {"kind": "jump", "message": "m"},
                 frame) for i in range(4)]
        where = [Position("p", "moving", frame * 0.1, 1.0, 0.0, 0.01, True, frame, frame / 30)]
        log.append(game, batch, where, progress=(frame, frame / 30))
        seq += 4
        print(seq, flush=True)  # reported as logged only after the commit
    """
)


def _writer(path):
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )


def test_sigkill_mid_burst_loses_nothing_reported_and_resumes_the_sequence(tmp_path):
    path = tmp_path / "crash.sqlite"
    writer = _writer(path)
    assert writer.stdout is not None
    reported = 0
    for line in writer.stdout:
        reported = int(line)
        if reported >= 400:
            break
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    log = GameLog(path)
    assert log.integrity() == "ok"
    game = log.game("g")
    seqs = [e.seq for e in log.events(game)]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) >= reported
    log.close()
    again = _writer(path)  # resumes after the last logged frame and sequence number
    assert again.stdout is not None
    first = int(again.stdout.readline())
    again.send_signal(signal.SIGKILL)
    again.wait()
    assert first == len(seqs) + 4
    log = GameLog(path, readonly=True)
    seqs = [e.seq for e in log.events(log.game("g"))]
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_reader_in_another_process_never_sees_an_error(tmp_path):
    path = tmp_path / "busy.sqlite"
    writer = _writer(path)
    assert writer.stdout is not None
    writer.stdout.readline()
    reader = textwrap.dedent(
        """
        import sys, time
        from referee.store import GameLog
        end, reads, last = time.monotonic() + 2.0, 0, 0
        while time.monotonic() < end:
            log = GameLog(sys.argv[1], readonly=True)
            game = log.game("g")
            events = log.events(game)
            assert [e.seq for e in events] == list(range(1, len(events) + 1))
            assert len(events) >= last
            last = len(events)
            log.positions_at(game)
            log.close()
            reads += 1
        print(reads, last)
        """
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", reader, str(path)], capture_output=True, text=True, timeout=60
        )
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert done.returncode == 0, done.stderr
    reads, seen = map(int, done.stdout.split())
    assert reads > 5 and seen > 0


def test_log_commands_on_a_missing_file_are_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["log", "show", "g", "--db", str(tmp_path / "none.sqlite")])
    assert result.exit_code == 2 and "no game log here" in result.output
    assert not (tmp_path / "none.sqlite").exists()


def test_a_reader_waits_out_a_long_write_instead_of_failing(tmp_path):
    path = tmp_path / "lock.sqlite"
    log, game = new_log(path)
    log.append(game, [flag(1)])
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    blocker.execute("INSERT INTO referee_meta VALUES ('k', 'v')")
    started = time.monotonic()
    reader = GameLog(path, readonly=True)
    assert [e.seq for e in reader.events(reader.game("g"))] == [1]
    blocker.execute("ROLLBACK")
    assert time.monotonic() - started < 5
