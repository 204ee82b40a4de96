"""The game log: one SQLite file of games and their append-only event streams.

A :class:`GameLog` is opened by one writer (the session) and any number of
readers (``referee log``, the dashboard, another process). The file is in
WAL mode, so readers never wait for the writer and never see "database is
locked"; the writer groups one frame's events and position changes in one
transaction, so an event is either wholly logged or not at all, and nothing
reports an event as logged before its transaction commits.

Events are never updated (a correction is a new event that points at the
one it supersedes); the only removal is :meth:`GameLog.delete_game`, a whole
game at a time, on the player's word (``referee log delete``). Positions
are kept in their own table, one row per piece whenever its pose changes
beyond the noise or its state changes, so a long game stays small and any
past moment can be rebuilt.

A game is written by one :class:`GameLog` at a time: the writer holds an exclusive
advisory lock on ``<log>.<game id>.lock`` beside the log (``fcntl.flock``, taken without
waiting) from its first write, or from :meth:`GameLog.hold`, until it closes; the kernel
drops it if the process dies. So ``referee log correct``/``delete`` or a second ``run
--game`` on a game a running referee plays is refused, the log unchanged, instead of
colliding with the session's next ``seq``. Lock order: ``GameLog._lock`` is taken
around the file lock, never the other way. Without ``fcntl`` (Windows), or on a file
system that cannot lock, games are not locked.

Only SQL and column types that PostgreSQL accepts too are used (no
AUTOINCREMENT, no INSERT OR ..., no SQLite-only types), so a club server can
later collect many tables' logs; the ``PRAGMA`` lines are SQLite's
connection settings, not part of the schema.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import math
import os
import sqlite3
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from referee.errors import MAX_DEPTH, RefereeError, json_depth, parse_json
from referee.events import GameEvent

SCHEMA_VERSION = 3
READABLE_SINCE = 2
"""The oldest schema a reader takes as it is: schema 3 only added the evidence table, so a
schema 2 log reads unchanged (with no evidence) and is migrated at its first write."""
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
    (
        # What the camera saw when a verdict was logged: compact JPEGs by the event's seq.
        "CREATE TABLE evidence ("
        " game_id INTEGER NOT NULL REFERENCES games (id),"
        " seq BIGINT NOT NULL,"
        " kind VARCHAR(16) NOT NULL,"
        " data BYTEA NOT NULL,"
        " PRIMARY KEY (game_id, seq, kind))",
    ),
)

DEFAULT_EVIDENCE_CAP = 60 * 1024 * 1024
"""Bytes of evidence one game keeps at most (``--evidence off`` keeps none): a 3-hour
game's log stays under 100 MB; verdicts past the cap are logged without pictures."""

EVIDENCE_KINDS = ("camera", "top")
"""``camera``: a crop of the camera frame around the verdict's pieces; ``top``: the same
region seen from straight above (the rectified table)."""


class StoreError(RefereeError):
    """A game log that cannot be opened, read or written."""


class EvidenceError(StoreError):
    """One evidence picture that cannot be read: a note, never a lost game."""


@dataclass(frozen=True)
class Evidence:
    """One picture kept with a verdict: what the camera saw when it was logged."""

    seq: int
    kind: str
    """One of :data:`EVIDENCE_KINDS`."""
    data: bytes
    """A JPEG."""


def is_jpeg(data: bytes) -> bool:
    """Whether ``data`` starts and ends as a JPEG does (start and end of image markers): a
    truncated or overwritten blob is caught without decoding it."""
    return len(data) > 4 and data[:3] == b"\xff\xd8\xff" and data[-2:] == b"\xff\xd9"


#: The columns of each table of the current schema, and the version that added the table:
#: a log whose ``referee_meta`` is there but whose tables are not is damaged, and is said so.
TABLES: dict[str, tuple[str, ...]] = {
    "games": (
        "id",
        "name",
        "created",
        "ruleset",
        "source",
        "scene",
        "roster",
        "profile",
        "last_frame",
        "last_t",
    ),
    "events": ("game_id", "seq", "t", "frame", "type", "piece", "supersedes", "data"),
    "positions": (
        "game_id",
        "n",
        "frame",
        "t",
        "piece",
        "state",
        "x",
        "y",
        "heading",
        "uncertainty",
        "seen",
    ),
    "evidence": ("game_id", "seq", "kind", "data"),
}
TABLE_SINCE = {"games": 1, "events": 1, "positions": 2, "evidence": 3}


if sys.platform != "win32":
    import fcntl

_NO_LOCK = -1
"""A held game whose file lock could not be taken (no ``fcntl``, or a file system without
locks): written unlocked, as before the lock existed."""


def _take_lock(path: Path) -> int | None:
    """A descriptor holding ``path``'s exclusive lock (its file says our pid), ``None`` when
    another process (or another :class:`GameLog`) holds it."""
    if sys.platform == "win32":
        return _NO_LOCK
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                return _NO_LOCK
            raise
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)  # its holder removed it as we opened it: lock the file there now


def _lock_holder(path: Path) -> str:
    """`` (pid N)`` of the process named in the lock file, or nothing when it says none."""
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""


def _folder_writable(path: Path) -> bool:
    return os.access(path.parent if str(path.parent) else Path("."), os.W_OK)


class _Damaged(Exception):
    """One value of a row that is not what the schema says (turned into a StoreError
    naming the game and the event by the reader that met it)."""


def _text(value: Any, column: str = "text") -> str:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise _Damaged(f"its {column} is not UTF-8 text") from None
    if isinstance(value, str):
        return value
    raise _Damaged(f"its {column} holds {_shown(value)} where text belongs")


def _opt_text(value: Any, column: str) -> str | None:
    return None if value is None else _text(value, column)


def _whole(value: Any, column: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise _Damaged(f"its {column} holds {_shown(value)} where a whole number belongs")


def _opt_whole(value: Any, column: str) -> int | None:
    return None if value is None else _whole(value, column)


def _real(value: Any, column: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise _Damaged(f"its {column} holds {_shown(value)} where a number belongs")


def _json(value: Any, column: str) -> Any:
    text = _text(value, column)
    try:  # parse_json: a column nested 5,000 deep is refused before the parser recurses
        return parse_json(text, f"its {column}")
    except RefereeError as error:
        deep = json_depth(text) > MAX_DEPTH
        raise _Damaged(str(error) if deep else f"its {column} is not valid JSON") from None


def _object(value: Any, column: str) -> dict[str, Any]:
    data = _json(value, column)
    if not isinstance(data, dict):
        raise _Damaged(f"its {column} is not a JSON object")
    return data


_NUMBERS = (int, float)


def _is_num(value: Any) -> bool:
    return type(value) in _NUMBERS and math.isfinite(value)


def _is_whole(value: Any) -> bool:
    return type(value) is int


def _is_pose(value: Any) -> bool:
    # Every move carries two and its path a few more: kept cheap, it runs on every read.
    if type(value) is not dict:
        return False
    x: Any = value.get("x")
    y: Any = value.get("y")
    heading: Any = value.get("heading")
    numbers = _NUMBERS
    return (
        type(x) in numbers
        and type(y) in numbers
        and type(heading) in numbers
        and math.isfinite(x + y + heading)
    )


def _is_vector(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 3 and all(_is_num(v) for v in value)


#: What each key of an event's data holds when present (README, "Export format"): what the
#: session and the timeline index into, so a row that decodes as JSON yet holds, say, a
#: number where a pose belongs is damage named by its event, never a crash on resume.
DATA_SHAPES: dict[str, tuple[str, Any]] = {
    "from": ("a pose {x, y, heading}", _is_pose),
    "to": ("a pose {x, y, heading}", _is_pose),
    "at": ("a pose {x, y, heading}", _is_pose),
    "via": ("a list of poses", lambda v: type(v) is list and all(map(_is_pose, v))),
    "distance": ("a number", lambda v: v is None or _is_num(v)),
    "uncertainty": ("a number", _is_num),
    "start_t": ("a number", lambda v: v is None or _is_num(v)),
    "end_t": ("a number", lambda v: v is None or _is_num(v)),
    "verdict": ("a verdict object", lambda v: isinstance(v, dict)),
    "declare": ("a question object", lambda v: isinstance(v, dict)),
    "terrain": ("a terrain object or id", lambda v: isinstance(v, (dict, str))),
    "table_pose": (
        "a table pose {rvec, tvec}",
        lambda v: isinstance(v, dict) and _is_vector(v.get("rvec")) and _is_vector(v.get("tvec")),
    ),
    "camera": ("a camera number from 1", lambda v: _is_whole(v) and v >= 1),
    "about": ("an event number", lambda v: v is None or _is_whole(v)),
    "question": ("a question number", lambda v: v is None or _is_whole(v)),
    "supersedes": ("an event number", lambda v: v is None or _is_whole(v)),
    "notes": ("a list", lambda v: isinstance(v, list)),
    "pieces": ("a list", lambda v: isinstance(v, list)),
}


def _check_shapes(data: dict[str, Any]) -> None:
    for key, value in data.items():
        shape = DATA_SHAPES.get(key)
        if shape is not None and not shape[1](value):
            raise _Damaged(f"its {key!r} holds {_shown(value)} where {shape[0]} belongs")


def _shown(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Position:
    """Where a piece was from one frame on (until its next row)."""

    piece: str
    state: str
    """The tracker's state: ``settled``, ``hidden``, ``moving``, ``new`` or ``removed``."""
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
        evidence_cap: int = DEFAULT_EVIDENCE_CAP,
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.evidence_cap = evidence_cap
        """Bytes of evidence a game of this log may hold; 0 keeps none (``--evidence off``)."""
        self._lock = threading.RLock()
        self._next_n: dict[int, int] = {}
        self._held: dict[int, int] = {}
        """Game id -> the descriptor holding its lock file (see the module's docstring)."""
        self._prepared = False
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"{self.path}: is not a file; give --db a file name")
        exists = self.path.is_file() and self.path.stat().st_size > 0
        if readonly and not exists:
            raise StoreError(
                f"{self.path}: no game log here; 'referee run' or 'referee demo' writes one "
                "(or give --db the file they wrote)"
            )
        self._version = self._inspect() if exists else 0
        if not readonly:
            self._check_writable(exists)
        try:
            if readonly:
                self._con = sqlite3.connect(
                    self._uri(),
                    uri=True,
                    timeout=10.0,
                    isolation_level=None,
                    check_same_thread=False,
                )
            else:
                self._con = sqlite3.connect(
                    self.path, timeout=10.0, isolation_level=None, check_same_thread=False
                )
            # Text comes back as bytes and is decoded row by row, so damaged text names its row.
            self._con.text_factory = bytes
            self._con.execute("PRAGMA busy_timeout = 10000")
            if readonly:
                self._con.execute("PRAGMA query_only = ON")
            else:
                self._con.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
                self._con.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            raise self._error(error, "open") from None
        if not readonly and not exists:
            try:
                self._prepare_writing()  # a new file: nothing earlier to keep as it was
            except sqlite3.Error as error:
                self._con.close()
                raise self._error(error, "create") from None
        if not readonly and exists:
            # A writer reads the whole log before it may change a byte of it: a damaged
            # game or event is refused now, with the file as it was (issue 30).
            try:
                self.verify()
            except StoreError:
                self._con.close()
                raise

    # -- opening -------------------------------------------------------------------------------

    def _uri(self) -> str:
        """The read-only address of the file. In a folder nobody may write, a log in WAL mode
        cannot get its shared-memory file, so it is read as immutable: no writer can be
        changing it there either (it would need the folder for its own WAL file)."""
        uri = f"{self.path.resolve().as_uri()}?mode=ro"
        wal = Path(f"{self.path}-wal")
        if not _folder_writable(self.path) and not (wal.exists() and wal.stat().st_size > 0):
            uri += "&immutable=1"
        return uri

    def _inspect(self) -> int:
        """The schema version of an existing file; foreign, corrupt or newer files are refused
        before anything writes to them, so they stay byte-for-byte as they were."""
        damaged = "restore it from a backup or give --db a new file name"
        try:
            con = sqlite3.connect(self._uri(), uri=True)
        except sqlite3.Error as error:
            raise StoreError(f"{self.path}: cannot open ({_problem(error)})") from None
        try:
            con.text_factory = bytes
            tables = {_text(r[0]) for r in con.execute("SELECT name FROM sqlite_master")}
            if "referee_meta" not in tables:
                raise StoreError(
                    f"{self.path}: an SQLite file of another program, not a table referee game "
                    "log; give --db a new file name"
                )
            meta = {
                _text(k): _text(v)
                for k, v in con.execute("SELECT key, value FROM referee_meta").fetchall()
            }
            ok = con.execute("PRAGMA quick_check").fetchone()
            columns = {
                table: {_text(r[1]) for r in con.execute(f"PRAGMA table_info({table})")}
                for table in TABLES
                if table in tables
            }
        except _Damaged as damage:
            raise StoreError(f"{self.path}: its referee_meta table: {damage}; {damaged}") from None
        except sqlite3.DatabaseError as error:
            text = _problem(error)
            if "unable to open" in text and not _folder_writable(self.path):
                raise StoreError(
                    f"{self.path}: cannot read it: its folder is read-only and the log has "
                    "unfinished writes (its -wal file); copy the log with its -wal file to a "
                    "writable folder and give --db that copy"
                ) from None
            raise StoreError(f"{self.path}: not a readable game log ({text}); {damaged}") from None
        finally:
            con.close()
        if not ok or ok[0] != b"ok":
            found = _text(ok[0]) if ok else "no answer"
            raise StoreError(f"{self.path}: the game log is damaged ({found}); {damaged}")
        if meta.get("application") != APPLICATION:
            raise StoreError(f"{self.path}: not a table referee game log; give --db a new file")
        try:
            version = int(meta.get("schema_version") or "0")
        except ValueError:
            version = SCHEMA_VERSION + 1
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: written by a newer table referee (log schema {version}, this one "
                f"reads up to {SCHEMA_VERSION}); upgrade table-referee to read it"
            )
        for table, expected in TABLES.items():
            if version < TABLE_SINCE[table]:
                continue
            if table not in columns:
                raise StoreError(
                    f"{self.path}: the game log is damaged (its table {table!r} is missing); "
                    f"{damaged}"
                )
            missing = [c for c in expected if c not in columns[table]]
            if missing:
                raise StoreError(
                    f"{self.path}: the game log is damaged (table {table!r} has no column "
                    f"{missing[0]!r}); {damaged}"
                )
        if self.readonly and version < READABLE_SINCE:
            raise StoreError(
                f"{self.path}: an older game log (schema {version}, this version reads "
                f"{SCHEMA_VERSION}); bring it up to date with 'referee log upgrade --db "
                f"{self.path}' (or resume a game in it with 'referee run --db')"
            )
        return version

    def _check_writable(self, exists: bool) -> None:
        """Refuse a log this process cannot write before anything is created or changed."""
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(
                f"{self.path}: cannot create the folder ({error.strerror}); choose another --db"
            ) from None
        if not _folder_writable(self.path):
            read = "; 'referee log' reads the games in it" if exists else ""
            raise StoreError(
                f"{self.path}: its folder {folder} is read-only, and a game log needs to write "
                f"beside itself; give --db a file in a writable folder{read}"
            )
        if exists and not os.access(self.path, os.W_OK):
            raise StoreError(
                f"{self.path}: the file is read-only; give --db a file you may write, or "
                "'referee log' to read it"
            )

    def _prepare_writing(self) -> None:
        """The first write switches the file to WAL and migrates an older schema: only a log
        every check has passed, and only once something is really written, is changed."""
        if self._prepared:
            return
        with self._lock:
            if self._version < SCHEMA_VERSION:  # first: a failed migration rolls back whole
                self._migrate(self._version)
                self._version = SCHEMA_VERSION
            self._con.execute("PRAGMA journal_mode = WAL")
            self._prepared = True

    def upgrade(self) -> int:
        """Bring an older log to the current schema (``referee log upgrade``); the version
        it had. A current log is left as it is, byte for byte."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened for reading only")
        before = self._version
        if before < SCHEMA_VERSION:
            try:
                self._prepare_writing()
            except sqlite3.Error as error:
                raise self._error(error, "upgrade") from None
        return before

    def verify(self) -> int:
        """Read every game, event and position row; the first damaged one is one
        :class:`StoreError` naming its game and event. The number of events read."""
        count = 0
        for game in self.games():
            count += len(self.events(game))
            self.positions_at(game)
        return count

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

    def _error(self, error: sqlite3.Error, doing: str, game: GameInfo | None = None) -> StoreError:
        text = _problem(error)
        if game is not None and isinstance(error, sqlite3.DatabaseError) and doing == "read":
            where = f"game {game.name!r}"
            if "malformed" in text or "not a database" in text or "no such" in text:
                return StoreError(
                    f"{self.path}: {where}: a page of the file cannot be read: the game log is "
                    "damaged; restore it from a backup or give --db a new file name"
                )
        if "full" in text:
            return StoreError(
                f"{self.path}: the disk is full; nothing of the last {doing} was logged and "
                "every earlier event is kept; free some space and resume with the same --game"
            )
        if "malformed" in text or "not a database" in text:
            return StoreError(
                f"{self.path}: the game log is damaged (a page of the file cannot be read); "
                "restore it from a backup or give --db a new file name"
            )
        if ("readonly" in text or "unable to open" in text) and not _folder_writable(self.path):
            return StoreError(
                f"{self.path}: its folder {self.path.parent} is read-only; give --db a file in "
                "a writable folder, or 'referee log' to read it"
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
        if "no such" in text:
            return StoreError(
                f"{self.path}: the game log is damaged ({text}); restore it from a backup or "
                "give --db a new file name"
            )
        return StoreError(f"{self.path}: cannot {doing} the game log: {text}")

    def close(self) -> None:
        with self._lock:
            for game_id in list(self._held):
                self._release(game_id)
            self._con.close()

    # -- the writer's lock on a game ---------------------------------------------------------

    def _lock_path(self, game_id: int) -> Path:
        return Path(f"{self.path}.{game_id}.lock")

    def hold(self, game: GameInfo, hint: str = "stop it first") -> None:
        """Make this log the only writer of ``game`` until it closes (every write does it
        first); refused with one line, nothing written, while another referee holds it."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened for reading only")
        with self._lock:
            if game.id in self._held:
                return
            path = self._lock_path(game.id)
            try:
                fd = _take_lock(path)
            except OSError as error:
                raise StoreError(
                    f"{self.path}: cannot lock game {game.name!r} ({path.name}: "
                    f"{error.strerror}); choose another --db"
                ) from None
            if fd is None:
                raise StoreError(
                    f"{self.path}: game {game.name!r} is being played by a running referee"
                    f"{_lock_holder(path)}; {hint}"
                )
            self._held[game.id] = fd

    def release(self, game: GameInfo) -> None:
        """Give up the writer lock on ``game`` (its session is over); a later write takes it
        again."""
        with self._lock:
            self._release(game.id)

    def holds(self, game: GameInfo) -> bool:
        with self._lock:
            return game.id in self._held

    def _release(self, game_id: int) -> None:
        """Drop the lock; its file goes first (a process opening it meanwhile sees that)."""
        fd = self._held.pop(game_id, _NO_LOCK)
        if fd == _NO_LOCK:
            return
        with suppress(OSError):  # a lock file left behind is unlocked: the next writer takes it
            os.unlink(self._lock_path(game_id))
        os.close(fd)

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- games ---------------------------------------------------------------------------------

    def games(self) -> list[GameInfo]:
        """Every game, oldest first, with its event and move counts."""
        try:
            with self._lock:
                rows = self._con.execute(
                    "SELECT g.id, g.name, g.created, g.ruleset, g.source, g.scene, g.roster,"
                    " g.profile, g.last_frame, g.last_t,"
                    " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id),"
                    " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id"
                    " AND e.type = 'move'),"
                    " (SELECT MAX(seq) FROM events e WHERE e.game_id = g.id)"
                    " FROM games g ORDER BY g.id"
                ).fetchall()
        except sqlite3.Error as error:
            raise self._error(error, "read") from None
        return [self._info(row) for row in rows]

    def _info(self, row: Sequence[Any]) -> GameInfo:
        try:
            name = _text(row[1], "name")
        except _Damaged as damage:
            raise self._damaged(f"game number {row[0]!r}", damage) from None
        try:
            return GameInfo(
                _whole(row[0], "id"),
                name,
                _text(row[2], "start time"),
                _text(row[3], "ruleset"),
                _opt_text(row[4], "source"),
                _object(row[5], "scene"),
                _object(row[6], "roster") if row[6] else None,
                _object(row[7], "profile") if row[7] else None,
                _whole(row[8], "last frame"),
                _real(row[9], "last time"),
                int(row[10]),
                int(row[11]),
                _opt_whole(row[12], "last event number") or 0,
            )
        except _Damaged as damage:
            raise self._damaged(f"game {name!r}", damage) from None

    def _damaged(self, where: str, damage: _Damaged) -> StoreError:
        return StoreError(
            f"{self.path}: {where}: {damage}: the game log is damaged; restore it from a "
            "backup or give --db a new file name"
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
            self._prepare_writing()
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
        created = self.game(name)
        self.hold(created)  # nobody else knows it yet: this takes its lock
        return created

    def delete_game(self, game: GameInfo) -> None:
        """Remove ``game`` with all its events and positions, in one transaction: the only
        operation that removes events (``referee log delete``)."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened for reading only")
        self.hold(game)
        try:
            self._prepare_writing()
            with self._transaction():
                self._con.execute("DELETE FROM events WHERE game_id = ?", (game.id,))
                if self._version >= TABLE_SINCE["evidence"]:
                    self._con.execute("DELETE FROM evidence WHERE game_id = ?", (game.id,))
                if self._version >= TABLE_SINCE["positions"]:
                    self._con.execute("DELETE FROM positions WHERE game_id = ?", (game.id,))
                self._con.execute("DELETE FROM games WHERE id = ?", (game.id,))
        except sqlite3.Error as error:
            raise self._error(error, "write") from None
        self._next_n.pop(game.id, None)
        with self._lock:
            self._release(game.id)

    # -- writing -------------------------------------------------------------------------------

    def append(
        self,
        game: GameInfo,
        events: Sequence[GameEvent],
        positions: Sequence[Position] = (),
        progress: tuple[int, float] | None = None,
        evidence: Sequence[Evidence] = (),
    ) -> None:
        """Log one frame's events, position changes and evidence in one transaction.

        ``progress`` is ``(frame, t)`` of the last frame processed. When this
        returns, everything is committed; on any error nothing of it is.
        """
        if self.readonly:
            raise StoreError(f"{self.path}: opened for reading only")
        self.hold(game)
        try:
            self._prepare_writing()
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
                if evidence:
                    self._con.executemany(
                        "INSERT INTO evidence (game_id, seq, kind, data) VALUES (?, ?, ?, ?)",
                        [(game.id, e.seq, e.kind, e.data) for e in evidence],
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
            raise self._error(error, "read", game) from None
        return [self._event(game, row) for row in rows]

    def _event(self, game: GameInfo, row: Sequence[Any]) -> GameEvent:
        seq, t, frame, kind, data = row
        try:
            number = _whole(seq, "event number")
        except _Damaged as damage:
            raise self._damaged(f"game {game.name!r}, an event", damage) from None
        try:
            content = _object(data, "data")
            _check_shapes(content)
            return GameEvent(
                number, _real(t, "time"), _text(kind, "type"), content, _opt_whole(frame, "frame")
            )
        except _Damaged as damage:
            raise self._damaged(f"game {game.name!r}, event #{number}", damage) from None
        except ValueError as error:  # an unknown type, a reserved key in the data
            raise self._damaged(
                f"game {game.name!r}, event #{number}", _Damaged(str(error))
            ) from None

    def positions_at(
        self, game: GameInfo, frame: int | None = None, *, resting: bool = False
    ) -> dict[str, Position]:
        """Each piece's last logged position up to ``frame`` (all frames when None).

        ``resting`` keeps only settled or hidden rows: where the rules measure from; a
        piece whose last such row says it was ``removed`` (a casualty) is left out.
        """
        where = "game_id = ?"
        args: list[Any] = [game.id]
        if frame is not None:
            where += " AND frame <= ?"
            args.append(frame)
        if resting:
            where += " AND state IN ('settled', 'hidden', 'removed')"
        if self._version < TABLE_SINCE["positions"]:
            return {}  # an older log, not migrated until its first write, has none
        sql = (
            "SELECT p.piece, p.state, p.x, p.y, p.heading, p.uncertainty, p.seen, p.frame, p.t,"
            " p.n"
            " FROM positions p JOIN (SELECT piece, MAX(n) AS n FROM positions"
            f" WHERE {where} GROUP BY piece) last"
            " ON p.game_id = ? AND p.n = last.n ORDER BY p.n"
        )
        try:
            with self._lock:
                rows = self._con.execute(sql, [*args, game.id]).fetchall()
        except sqlite3.Error as error:
            raise self._error(error, "read", game) from None
        out = {}
        for r in rows:
            try:
                position = Position(
                    _text(r[0], "piece"),
                    _text(r[1], "state"),
                    _real(r[2], "x"),
                    _real(r[3], "y"),
                    _real(r[4], "heading"),
                    _real(r[5], "uncertainty"),
                    bool(_whole(r[6], "seen flag")),
                    _whole(r[7], "frame"),
                    _real(r[8], "time"),
                )
            except _Damaged as damage:
                where = f"game {game.name!r}, position row {r[9]!r}"
                raise self._damaged(where, damage) from None
            if resting and position.state == "removed":
                continue  # off the table since (until it enters again)
            out[position.piece] = position
        return out

    def frame_at(self, game: GameInfo, t: float) -> int:
        """The last frame logged at or before ``t`` seconds (-1 if none)."""
        try:
            with self._lock:
                a = None
                if self._version >= TABLE_SINCE["positions"]:
                    (a,) = self._con.execute(
                        "SELECT MAX(frame) FROM positions WHERE game_id = ? AND t <= ?",
                        (game.id, t),
                    ).fetchone()
                (b,) = self._con.execute(
                    "SELECT MAX(frame) FROM events WHERE game_id = ? AND t <= ?", (game.id, t)
                ).fetchone()
            first, second = _opt_whole(a, "frame"), _opt_whole(b, "frame")
        except sqlite3.Error as error:
            raise self._error(error, "read", game) from None
        except _Damaged as damage:
            raise self._damaged(f"game {game.name!r}", damage) from None
        return max(first if first is not None else -1, second if second is not None else -1)

    # -- evidence ------------------------------------------------------------------------------

    def evidence_index(
        self, game: GameInfo, seq: int | None = None
    ) -> dict[int, list[tuple[str, int]]]:
        """Each event's evidence (only event ``seq``'s when given) as ``seq -> [(kind,
        bytes)]``; empty for a log from before evidence was kept. A row with a damaged key
        is left out (its blob is unreadable)."""
        if self._version < TABLE_SINCE["evidence"]:
            return {}
        sql = "SELECT seq, kind, LENGTH(data) FROM evidence WHERE game_id = ?"
        args: list[Any] = [game.id]
        if seq is not None:
            sql += " AND seq = ?"
            args.append(seq)
        try:
            with self._lock:
                rows = self._con.execute(sql + " ORDER BY seq, kind", args).fetchall()
        except sqlite3.Error as error:
            raise self._error(error, "read", game) from None
        out: dict[int, list[tuple[str, int]]] = {}
        for seq, kind, size in rows:
            with suppress(_Damaged):
                out.setdefault(_whole(seq, "seq"), []).append(
                    (_text(kind, "kind"), _whole(size, "size"))
                )
        return out

    def evidence_bytes(self, game: GameInfo) -> int:
        """Bytes of evidence ``game`` holds (what its cap is counted against)."""
        if self._version < TABLE_SINCE["evidence"]:
            return 0
        try:
            with self._lock:
                (total,) = self._con.execute(
                    "SELECT SUM(LENGTH(data)) FROM evidence WHERE game_id = ?", (game.id,)
                ).fetchone()
        except sqlite3.Error as error:
            raise self._error(error, "read", game) from None
        return total if isinstance(total, int) else 0

    def evidence(self, game: GameInfo, seq: int, kind: str) -> bytes | None:
        """The JPEG kept for event ``seq`` of ``kind``; None when there is none.

        A blob that is not a whole JPEG is a :class:`EvidenceError` naming the event (one
        line for the caller to show): the rest of the game reads as ever.
        """
        if self._version < TABLE_SINCE["evidence"]:
            return None
        try:
            with self._lock:
                row = self._con.execute(
                    "SELECT data FROM evidence WHERE game_id = ? AND seq = ? AND kind = ?",
                    (game.id, seq, kind),
                ).fetchone()
        except sqlite3.Error as error:
            raise self._error(error, "read", game) from None
        if row is None:
            return None
        data = row[0]
        if not isinstance(data, bytes) or not is_jpeg(data):
            raise EvidenceError(
                f"game {game.name!r}, event #{seq}: its {kind} evidence is damaged (not a "
                "JPEG picture); the verdict itself is kept"
            )
        return data

    def integrity(self) -> str:
        with self._lock:
            (answer,) = self._con.execute("PRAGMA integrity_check").fetchone()
        return answer.decode("utf-8", "replace") if isinstance(answer, bytes) else str(answer)


CSV_COLUMNS = ("seq", "t", "type", "frame", "piece", "supersedes", "summary", "data")


def export_text(
    events: Sequence[GameEvent],
    fmt: str,
    evidence: dict[int, list[tuple[str, int]]] | None = None,
) -> str:
    """Events as the export file: JSONL (the README's export format) or CSV. ``evidence``
    (:meth:`GameLog.evidence_index`) adds an ``evidence`` field, ``[{kind, bytes}]``, to
    each JSONL line whose event has pictures; the CSV columns stay as they are."""
    if fmt == "jsonl":
        lines = []
        for e in events:
            line = e.to_json()
            kept = (evidence or {}).get(e.seq)
            if kept:
                line["evidence"] = [{"kind": kind, "bytes": size} for kind, size in kept]
            lines.append(json.dumps(line, separators=(",", ":"), allow_nan=False) + "\n")
        return "".join(lines)
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
    "DEFAULT_EVIDENCE_CAP",
    "EVIDENCE_KINDS",
    "SCHEMA_VERSION",
    "Evidence",
    "EvidenceError",
    "GameInfo",
    "GameLog",
    "Position",
    "StoreError",
    "default_db_path",
    "export_text",
    "is_jpeg",
]
