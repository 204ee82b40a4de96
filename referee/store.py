"""The game log: one SQLite file of games and their append-only event streams.

A :class:`GameLog` is opened by one writer (the session) and any number of
readers (``referee log``, the dashboard, another process). The file is in
WAL mode, so readers never wait for the writer and never see "database is
locked"; the writer groups one frame's events and position changes in one
transaction, so an event is either wholly logged or not at all, and nothing
reports an event as logged before its transaction commits.

Events are never updated or deleted (a correction is a new event that
points at the one it supersedes). Positions are kept in their own table,
one row per piece whenever its pose changes beyond the noise or its state
changes, so a long game stays small and any past moment can be rebuilt.

Only SQL and column types that PostgreSQL accepts too are used (no
AUTOINCREMENT, no INSERT OR ..., no SQLite-only types), so a club server can
later collect many tables' logs; the ``PRAGMA`` lines are SQLite's
connection settings, not part of the schema.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from referee.errors import RefereeError
from referee.events import GameEvent

SCHEMA_VERSION = 2
APPLICATION = "table-referee"

#: Step ``i`` brings a log from schema version ``i`` to ``i + 1``.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE referee_meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE games ("
        " id INTEGER PRIMARY KEY,"
        " name VARCHAR(200) NOT NULL UNIQUE,"
        " created VARCHAR(40) NOT NULL,"
        " ruleset VARCHAR(64) NOT NULL,"
        " source TEXT,"
        " scene TEXT NOT NULL,"
        " roster TEXT,"
        " profile TEXT,"
        " last_frame BIGINT NOT NULL,"
        " last_t DOUBLE PRECISION NOT NULL)",
        "CREATE TABLE events ("
        " game_id INTEGER NOT NULL REFERENCES games (id),"
        " seq BIGINT NOT NULL,"
        " t DOUBLE PRECISION NOT NULL,"
        " frame BIGINT,"
        " type VARCHAR(16) NOT NULL,"
        " piece VARCHAR(200),"
        " supersedes BIGINT,"
        " data TEXT NOT NULL,"
        " PRIMARY KEY (game_id, seq))",
    ),
    (
        "CREATE TABLE positions ("
        " game_id INTEGER NOT NULL REFERENCES games (id),"
        " n BIGINT NOT NULL,"
        " frame BIGINT NOT NULL,"
        " t DOUBLE PRECISION NOT NULL,"
        " piece VARCHAR(200) NOT NULL,"
        " state VARCHAR(16) NOT NULL,"
        " x DOUBLE PRECISION NOT NULL,"
        " y DOUBLE PRECISION NOT NULL,"
        " heading DOUBLE PRECISION NOT NULL,"
        " uncertainty DOUBLE PRECISION NOT NULL,"
        " seen SMALLINT NOT NULL,"
        " PRIMARY KEY (game_id, n))",
        "CREATE INDEX positions_by_frame ON positions (game_id, frame)",
        "CREATE INDEX events_by_time ON events (game_id, t)",
    ),
)


class StoreError(RefereeError):
    """A game log that cannot be opened, read or written."""


@dataclass(frozen=True)
class Position:
    """Where a piece was from one frame on (until its next row)."""

    piece: str
    state: str
    """The tracker's state: ``settled``, ``hidden``, ``moving`` or ``new``."""
    x: float
    y: float
    heading: float
    uncertainty: float
    seen: bool
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.piece,
            "x": round(self.x, 4),
            "y": round(self.y, 4),
            "heading": round(self.heading, 2),
            "uncertainty": round(self.uncertainty, 4),
            "seen": self.seen,
            "state": self.state,
        }


@dataclass(frozen=True)
class GameInfo:
    """One game of the log, as the list shows it."""

    id: int
    name: str
    created: str
    ruleset: str
    source: str | None
    scene: dict[str, Any]
    """The scene the game started from (table, terrain, settings, queries)."""
    roster: dict[str, Any] | None
    profile: dict[str, Any] | None
    last_frame: int
    """The last session frame processed and logged (-1 before the first)."""
    last_t: float
    events: int = 0
    moves: int = 0
    last_seq: int = 0


def default_db_path() -> Path:
    """``games.sqlite`` in the user's data directory (``REFEREE_DB`` overrides it)."""
    override = os.environ.get("REFEREE_DB")
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "table-referee" / "games.sqlite"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _problem(error: BaseException) -> str:
    return str(error).split("\n")[0] or type(error).__name__


class GameLog:
    """One game log file. ``readonly`` opens it for reading only (never creates or migrates).

    Thread-safe: one connection guarded by a lock, so the session's frame
    thread and the dashboard's request threads can share a writer.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        readonly: bool = False,
        durable: bool = True,
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._lock = threading.RLock()
        self._next_n: dict[int, int] = {}
        exists = self.path.is_file() and self.path.stat().st_size > 0
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"{self.path}: is not a file; give --db a file name")
        if readonly and not exists:
            raise StoreError(
                f"{self.path}: no game log here; 'referee run' or 'referee demo' writes one "
                "(or give --db the file they wrote)"
            )
        version = self._inspect() if exists else 0
        if not readonly:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreError(
                    f"{self.path}: cannot create the folder ({error.strerror}); choose another --db"
                ) from None
        try:
            self._con = sqlite3.connect(
                self.path, timeout=10.0, isolation_level=None, check_same_thread=False
            )
            self._con.execute("PRAGMA busy_timeout = 10000")
            if readonly:
                self._con.execute("PRAGMA query_only = ON")
            else:
                self._con.execute("PRAGMA journal_mode = WAL")
                self._con.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
                self._con.execute("PRAGMA foreign_keys = ON")
                if version < SCHEMA_VERSION:
                    self._migrate(version)
        except sqlite3.Error as error:
            raise self._error(error, "open") from None

    # -- opening -------------------------------------------------------------------------------

    def _inspect(self) -> int:
        """The schema version of an existing file; foreign, corrupt or newer files are refused
        before anything writes to them, so they stay byte-for-byte as they were."""
        try:
            con = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: cannot open ({_problem(error)})") from None
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
            if "referee_meta" not in tables:
                raise StoreError(
                    f"{self.path}: an SQLite file of another program, not a table referee game "
                    "log; give --db a new file name"
                )
            meta = dict(con.execute("SELECT key, value FROM referee_meta").fetchall())
            ok = con.execute("PRAGMA quick_check").fetchone()
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{self.path}: not a readable game log ({_problem(error)}); restore it from a "
                "backup or give --db a new file name"
            ) from None
        finally:
            con.close()
        if not ok or ok[0] != "ok":
            raise StoreError(
                f"{self.path}: the game log is damaged ({ok[0] if ok else 'no answer'}); restore "
                "it from a backup or give --db a new file name"
            )
        if meta.get("application") != APPLICATION:
            raise StoreError(f"{self.path}: not a table referee game log; give --db a new file")
        try:
            version = int(meta.get("schema_version", "0"))
        except ValueError:
            version = SCHEMA_VERSION + 1
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: written by a newer table referee (log schema {version}, this one "
                f"reads up to {SCHEMA_VERSION}); upgrade table-referee to read it"
            )
        if self.readonly and version < SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: an older game log (schema {version}); open it once with "
                "'referee run' or 'referee log upgrade' to bring it up to date"
            )
        return version

    def _migrate(self, version: int) -> None:
        with self._transaction():
            for step in MIGRATIONS[version:]:
                for statement in step:
                    self._con.execute(statement)
            if version == 0:
                self._con.execute(
                    "INSERT INTO referee_meta (key, value) VALUES (?, ?)",
                    ("application", APPLICATION),
                )
                self._con.execute(
                    "INSERT INTO referee_meta (key, value) VALUES (?, ?)",
                    ("schema_version", str(SCHEMA_VERSION)),
                )
            else:
                self._con.execute(
                    "UPDATE referee_meta SET value = ? WHERE key = ?",
                    (str(SCHEMA_VERSION), "schema_version"),
                )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self._lock:
            self._con.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                if self._con.in_transaction:  # SQLite already rolled back a full-disk write
                    self._con.execute("ROLLBACK")
                raise
            self._con.execute("COMMIT")

    def _error(self, error: sqlite3.Error, doing: str) -> StoreError:
        text = _problem(error)
        if "full" in text:
            return StoreError(
                f"{self.path}: the disk is full; nothing of the last {doing} was logged and "
                "every earlier event is kept; free some space and resume with the same --game"
            )
        if "readonly" in text or "read-only" in text:
            return StoreError(
                f"{self.path}: cannot write here (read-only); choose another --db, or "
                "'referee log' to read it"
            )
        if "unable to open" in text:
            return StoreError(f"{self.path}: cannot open ({text}); choose another --db")
        if "UNIQUE" in text or "PRIMARY KEY" in text:
            return StoreError(
                f"{self.path}: another referee is writing this game; stop it first, or give "
                "--game another name"
            )
        return StoreError(f"{self.path}: cannot {doing} the game log: {text}")

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- games ---------------------------------------------------------------------------------

    def games(self) -> list[GameInfo]:
        """Every game, oldest first, with its event and move counts."""
        with self._lock:
            rows = self._con.execute(
                "SELECT g.id, g.name, g.created, g.ruleset, g.source, g.scene, g.roster,"
                " g.profile, g.last_frame, g.last_t,"
                " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id),"
                " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id AND e.type = 'move'),"
                " (SELECT MAX(seq) FROM events e WHERE e.game_id = g.id)"
                " FROM games g ORDER BY g.id"
            ).fetchall()
        return [self._info(row) for row in rows]

    @staticmethod
    def _info(row: Sequence[Any]) -> GameInfo:
        return GameInfo(
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            json.loads(row[5]),
            json.loads(row[6]) if row[6] else None,
            json.loads(row[7]) if row[7] else None,
            int(row[8]),
            float(row[9]),
            int(row[10]),
            int(row[11]),
            int(row[12] or 0),
        )

    def find(self, name: str) -> GameInfo | None:
        return next((g for g in self.games() if g.name == name), None)

    def game(self, name: str) -> GameInfo:
        """The game called ``name``; a one-line error listing the games there are."""
        found = self.find(name)
        if found is None:
            names = [g.name for g in self.games()]
            known = ", ".join(names[-8:]) if names else "none yet"
            raise StoreError(f"{self.path}: no game {name!r} (games: {known})")
        return found

    def create_game(
        self,
        name: str,
        ruleset: str,
        scene: dict[str, Any],
        *,
        source: str | None = None,
        roster: dict[str, Any] | None = None,
        profile: dict[str, Any] | None = None,
    ) -> GameInfo:
        if not name.strip() or len(name) > 200:
            raise StoreError(f"--game: {name[:40]!r} is not a usable name (1 to 200 characters)")
        try:
            with self._transaction():
                (last,) = self._con.execute("SELECT MAX(id) FROM games").fetchone()
                self._con.execute(
                    "INSERT INTO games (id, name, created, ruleset, source, scene, roster,"
                    " profile, last_frame, last_t) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        (last or 0) + 1,
                        name,
                        _now(),
                        ruleset,
                        source,
                        json.dumps(scene),
                        json.dumps(roster) if roster is not None else None,
                        json.dumps(profile) if profile is not None else None,
                        -1,
                        0.0,
                    ),
                )
        except sqlite3.IntegrityError:
            raise StoreError(f"{self.path}: a game called {name!r} already exists") from None
        except sqlite3.Error as error:
            raise self._error(error, "write") from None
        return self.game(name)

    # -- writing -------------------------------------------------------------------------------

    def append(
        self,
        game: GameInfo,
        events: Sequence[GameEvent],
        positions: Sequence[Position] = (),
        progress: tuple[int, float] | None = None,
    ) -> None:
        """Log one frame's events and position changes in one transaction.

        ``progress`` is ``(frame, t)`` of the last frame processed. When this
        returns, everything is committed; on any error nothing of it is.
        """
        if self.readonly:
            raise StoreError(f"{self.path}: opened for reading only")
        try:
            with self._transaction():
                if events:
                    self._con.executemany(
                        "INSERT INTO events (game_id, seq, t, frame, type, piece, supersedes, data)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [
                            (
                                game.id,
                                e.seq,
                                e.t,
                                e.frame,
                                e.type,
                                e.piece,
                                e.supersedes,
                                e.data_text(),
                            )
                            for e in events
                        ],
                    )
                if positions:
                    start = self._next_position(game.id)
                    self._con.executemany(
                        "INSERT INTO positions (game_id, n, frame, t, piece, state, x, y,"
                        " heading, uncertainty, seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [
                            (
                                game.id,
                                start + i,
                                p.frame,
                                p.t,
                                p.piece,
                                p.state,
                                p.x,
                                p.y,
                                p.heading,
                                p.uncertainty,
                                int(p.seen),
                            )
                            for i, p in enumerate(positions)
                        ],
                    )
                if progress is not None:
                    self._con.execute(
                        "UPDATE games SET last_frame = ?, last_t = ? WHERE id = ?",
                        (progress[0], progress[1], game.id),
                    )
        except sqlite3.Error as error:
            self._next_n.pop(game.id, None)  # re-read after a rollback
            raise self._error(error, "write") from None
        if positions:
            self._next_n[game.id] = self._next_n[game.id] + len(positions)

    def _next_position(self, game_id: int) -> int:
        if game_id not in self._next_n:
            (last,) = self._con.execute(
                "SELECT MAX(n) FROM positions WHERE game_id = ?", (game_id,)
            ).fetchone()
            self._next_n[game_id] = (last or 0) + 1
        return self._next_n[game_id]

    # -- reading -------------------------------------------------------------------------------

    def events(
        self,
        game: GameInfo,
        after: int = 0,
        upto_seq: int | None = None,
        upto_t: float | None = None,
        *,
        types: Sequence[str] | None = None,
        last: bool = False,
    ) -> list[GameEvent]:
        """The game's events with ``after < seq`` (``<= upto_seq``, ``t <= upto_t``), in order.

        ``types`` keeps only those types; ``last`` only the last event that matches.
        """
        sql = "SELECT seq, t, frame, type, data FROM events WHERE game_id = ? AND seq > ?"
        args: list[Any] = [game.id, after]
        if upto_seq is not None:
            sql += " AND seq <= ?"
            args.append(upto_seq)
        if upto_t is not None:
            sql += " AND t <= ?"
            args.append(upto_t)
        if types is not None:
            sql += f" AND type IN ({', '.join('?' for _ in types)})"
            args.extend(types)
        sql += " ORDER BY seq DESC LIMIT 1" if last else " ORDER BY seq"
        try:
            with self._lock:
                rows = self._con.execute(sql, args).fetchall()
        except sqlite3.Error as error:
            raise self._error(error, "read") from None
        return [
            GameEvent(int(seq), float(t), str(kind), json.loads(data), frame)
            for seq, t, frame, kind, data in rows
        ]

    def positions_at(
        self, game: GameInfo, frame: int | None = None, *, resting: bool = False
    ) -> dict[str, Position]:
        """Each piece's last logged position up to ``frame`` (all frames when None).

        ``resting`` keeps only settled or hidden rows: where the rules measure from.
        """
        where = "game_id = ?"
        args: list[Any] = [game.id]
        if frame is not None:
            where += " AND frame <= ?"
            args.append(frame)
        if resting:
            where += " AND state IN ('settled', 'hidden')"
        sql = (
            "SELECT p.piece, p.state, p.x, p.y, p.heading, p.uncertainty, p.seen, p.frame, p.t"
            " FROM positions p JOIN (SELECT piece, MAX(n) AS n FROM positions"
            f" WHERE {where} GROUP BY piece) last"
            " ON p.game_id = ? AND p.n = last.n ORDER BY p.n"
        )
        try:
            with self._lock:
                rows = self._con.execute(sql, [*args, game.id]).fetchall()
        except sqlite3.Error as error:
            raise self._error(error, "read") from None
        return {
            r[0]: Position(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), int(r[7]), r[8])
            for r in rows
        }

    def frame_at(self, game: GameInfo, t: float) -> int:
        """The last frame logged at or before ``t`` seconds (-1 if none)."""
        with self._lock:
            (a,) = self._con.execute(
                "SELECT MAX(frame) FROM positions WHERE game_id = ? AND t <= ?", (game.id, t)
            ).fetchone()
            (b,) = self._con.execute(
                "SELECT MAX(frame) FROM events WHERE game_id = ? AND t <= ?", (game.id, t)
            ).fetchone()
        return max(a if a is not None else -1, b if b is not None else -1)

    def integrity(self) -> str:
        with self._lock:
            (answer,) = self._con.execute("PRAGMA integrity_check").fetchone()
        return str(answer)


CSV_COLUMNS = ("seq", "t", "type", "frame", "piece", "supersedes", "summary", "data")


def export_text(events: Sequence[GameEvent], fmt: str) -> str:
    """Events as the export file: JSONL (the README's export format) or CSV."""
    if fmt == "jsonl":
        return "".join(
            json.dumps(e.to_json(), separators=(",", ":"), allow_nan=False) + "\n" for e in events
        )
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for e in events:
        line = e.to_json()
        data = {k: v for k, v in line.items() if k not in ("seq", "t", "type", "frame")}
        summary = e.describe().split(f"#{e.seq}", 1)[1].strip()
        frame = e.frame if e.frame is not None else ""
        extra = (e.piece or "", e.supersedes or "", summary, json.dumps(data))
        writer.writerow((e.seq, line["t"], e.type, frame, *extra))
    return buffer.getvalue()


__all__ = [
    "CSV_COLUMNS",
    "SCHEMA_VERSION",
    "GameInfo",
    "GameLog",
    "Position",
    "StoreError",
    "default_db_path",
    "export_text",
]
