"""The club's log: every table's games and events in one database, PostgreSQL or SQLite.

A :class:`ClubStore` is opened from a URL: ``postgresql://USER@HOST:PORT/DB``
for a club (psycopg 3 with its connection pool), ``sqlite:///FILE`` for a
try-out on one laptop. Both run the same SQL (written with ``?`` and turned
into psycopg's ``%s``), the same versioned schema and the same migrations,
as the table's own game log does.

Events are keyed by (game, seq) and a game belongs to one table. A batch is
one transaction: it is wholly stored or not at all, a seq the club holds
already is skipped (a retry never duplicates), and a batch that would leave
a gap is refused with the club's high-water mark, which is the truth a
table's sender resumes from.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import unquote, urlsplit

from referee.club.replay import SHAPING
from referee.errors import RefereeError
from referee.events import GameEvent
from referee.outputs import usable_path
from referee.store import EVIDENCE_KINDS, is_jpeg

SCHEMA_VERSION = 3
APPLICATION = "table-referee-club"

#: Step ``i`` brings a club database from schema version ``i`` to ``i + 1``.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE club_meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)",
        "CREATE TABLE club_tables ("
        " name VARCHAR(64) PRIMARY KEY,"
        " token_hash VARCHAR(64) NOT NULL UNIQUE,"
        " created VARCHAR(40) NOT NULL)",
        # A game keeps its table's name, not a reference: removing a table revokes its
        # token and keeps its games (the club's record of the night).
        "CREATE TABLE club_games ("
        " id INTEGER PRIMARY KEY,"
        " name VARCHAR(200) NOT NULL UNIQUE,"
        " table_name VARCHAR(64) NOT NULL,"
        " ruleset VARCHAR(64) NOT NULL,"
        " created VARCHAR(40) NOT NULL,"
        " scene TEXT NOT NULL,"
        " roster TEXT,"
        " last_seq BIGINT NOT NULL,"
        " last_t DOUBLE PRECISION NOT NULL,"
        " updated DOUBLE PRECISION NOT NULL)",
        "CREATE INDEX club_games_by_table ON club_games (table_name)",
        "CREATE TABLE club_events ("
        " game_id INTEGER NOT NULL REFERENCES club_games (id),"
        " seq BIGINT NOT NULL,"
        " t DOUBLE PRECISION NOT NULL,"
        " frame BIGINT,"
        " type VARCHAR(16) NOT NULL,"
        " piece VARCHAR(200),"
        " data TEXT NOT NULL,"
        " PRIMARY KEY (game_id, seq))",
    ),
    # When the table said it stopped sending (the game's end, for "live" on the club page).
    ("ALTER TABLE club_games ADD COLUMN ended DOUBLE PRECISION",),
    # The pictures a table kept with its verdicts (referee.store.EVIDENCE_KINDS). BYTEA is
    # PostgreSQL's binary type; SQLite takes the name as is and keeps the bytes untouched.
    (
        "CREATE TABLE club_evidence ("
        " game_id INTEGER NOT NULL REFERENCES club_games (id),"
        " seq BIGINT NOT NULL,"
        " kind VARCHAR(16) NOT NULL,"
        " data BYTEA NOT NULL,"
        " PRIMARY KEY (game_id, seq, kind))",
    ),
)

LIVE_SECONDS = 120.0
"""A game is live while its table sends: its last event arrived less than this ago and its
table has not said the game ended since. A table that stops without saying so (killed,
unplugged) stops being live this long after its last event; so does one whose players
have made no move for as long."""

EVIDENCE_MAX = 64 * 1024
"""Bytes one evidence picture may have on the club (a table keeps at most 40 KB a verdict)."""

TABLE_NAME_MAX = 64
GAME_NAME_MAX = 200


class ClubError(RefereeError):
    """A club database that cannot be opened, read or written."""


class ClubUnavailable(ClubError):
    """The database is down or unreachable: try again later (HTTP 503)."""


class ClubConflict(ClubError):
    """A batch the club cannot take as it stands (HTTP 409); ``last_seq`` is what it holds."""

    def __init__(self, message: str, last_seq: int | None = None) -> None:
        super().__init__(message)
        self.last_seq = last_seq


class ClubMismatch(ClubConflict):
    """A batch whose event under a seq the club holds differs from the one held (HTTP 409):
    two histories of one game. ``seq`` is the first that differs."""

    def __init__(self, message: str, seq: int, last_seq: int) -> None:
        super().__init__(message, last_seq)
        self.seq = seq


class ClubCollision(ClubConflict):
    """A game name another table holds already (HTTP 409)."""


class ClubForbidden(ClubError):
    """Another table's game (HTTP 403)."""


class ClubNotFound(ClubError):
    """No such table or game (HTTP 404)."""


@dataclass(frozen=True)
class ClubTable:
    name: str
    created: str
    games: int = 0
    events: int = 0


@dataclass(frozen=True)
class ClubGame:
    id: int
    name: str
    table: str
    ruleset: str
    created: str
    scene: dict[str, Any]
    roster: dict[str, Any] | None
    last_seq: int
    last_t: float
    updated: float
    """Unix time the last event arrived (or the game was registered)."""
    ended: float | None = None
    """Unix time its table said it stopped sending (None: never)."""

    def live(self, now: float) -> bool:
        """Whether the table is sending this game at ``now`` (see :data:`LIVE_SECONDS`)."""
        ended = self.ended is not None and self.ended >= self.updated
        return not ended and now - self.updated < LIVE_SECONDS

    def to_json(self, now: float | None = None) -> dict[str, Any]:
        return {
            "name": self.name,
            "table": self.table,
            "ruleset": self.ruleset,
            "created": self.created,
            "last_seq": self.last_seq,
            "last_t": round(self.last_t, 4),
            "updated": round(self.updated, 3),
            "ended": round(self.ended, 3) if self.ended is not None else None,
            "live": self.live(time.time() if now is None else now),
        }


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _problem(error: BaseException) -> str:
    return str(error).strip().split("\n")[0] or type(error).__name__


def unstorable(text: str) -> str | None:
    """What in ``text`` PostgreSQL's text cannot hold (None: nothing): a NUL character, or a
    lone surrogate (no UTF-8 for it). Refused on SQLite too, so both back-ends agree.

    >>> unstorable("t34a"), unstorable("a" + chr(0) + "b"), unstorable(chr(0xD800))
    (None, 'a NUL character', 'a lone surrogate (not UTF-8)')
    """
    for c in text:
        if c == "\x00":
            return "a NUL character"
        if "\ud800" <= c <= "\udfff":
            return "a lone surrogate (not UTF-8)"
    return None


def _storable(text: str, what: str) -> str:
    problem = unstorable(text)
    if problem is not None:
        raise ClubError(f"{what} {text[:40]!r} contains {problem}; use plain text")
    return text


def check_table_name(name: str) -> str:
    if not name or len(name) > TABLE_NAME_MAX or not name.isprintable() or name != name.strip():
        raise ClubError(
            f"table name {name[:40]!r}: use 1 to {TABLE_NAME_MAX} printable characters "
            "without leading or trailing spaces"
        )
    return name


class _Tx(Protocol):
    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def rowcount(self) -> int: ...


T = TypeVar("T")


class _Backend(Protocol):
    where: str

    def run(self, work: Callable[[_Tx], T]) -> T: ...

    def close(self) -> None: ...


# -- SQLite ------------------------------------------------------------------------------------


class _SqliteTx:
    def __init__(self, con: sqlite3.Connection) -> None:
        self._con = con
        self._count = 0

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self._con.execute(sql, tuple(args))
        self._count = cursor.rowcount
        return cursor.fetchall()

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._con.executemany(sql, rows)

    def rowcount(self) -> int:
        return self._count


class _Sqlite:
    """One connection guarded by a lock, WAL and full sync: a laptop's try-out club."""

    def __init__(self, path: Path) -> None:
        self.where = str(path)
        if path.exists() and not path.is_file():
            raise ClubError(f"{path}: is not a file; give --db sqlite:///FILE")
        if path.is_file() and path.stat().st_size > 0:
            self._refuse_foreign(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ClubError(f"{path}: cannot create the folder ({error.strerror})") from None
        self._lock = threading.RLock()
        try:
            self._con = sqlite3.connect(
                path, timeout=10.0, isolation_level=None, check_same_thread=False
            )
            self._con.execute("PRAGMA busy_timeout = 10000")
            self._con.execute("PRAGMA journal_mode = WAL")
            self._con.execute("PRAGMA synchronous = FULL")
            self._con.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            raise ClubError(f"{path}: cannot open ({_problem(error)})") from None

    @staticmethod
    def _refuse_foreign(path: Path) -> None:
        """Files that are not a club database are refused before anything writes to them."""
        try:
            # immutable: a sniff of the table names leaves no -wal or -shm file beside it.
            con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            try:
                names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
            finally:
                con.close()
        except sqlite3.Error as error:
            raise ClubError(
                f"{path}: not a readable club database ({_problem(error)}); give --db a new file"
            ) from None
        if "referee_meta" in names:
            raise ClubError(
                f"{path}: a table's game log, not a club database; 'referee club push --db "
                f"{path}' sends it to a club, and --db sqlite:///NEW-FILE starts a club"
            )
        if names and "club_meta" not in names:
            raise ClubError(
                f"{path}: an SQLite file of another program, not a club database; give --db "
                "a new file"
            )

    def run(self, work: Callable[[_Tx], T]) -> T:
        with self._lock:
            try:
                self._con.execute("BEGIN IMMEDIATE")
                try:
                    result = work(_SqliteTx(self._con))
                except BaseException:
                    if self._con.in_transaction:
                        self._con.execute("ROLLBACK")
                    raise
                self._con.execute("COMMIT")
                return result
            except sqlite3.IntegrityError as error:
                raise ClubConflict(f"{self.where}: {_problem(error)}") from None
            except sqlite3.Error as error:
                raise ClubError(f"{self.where}: {_problem(error)}") from None

    def close(self) -> None:
        with self._lock:
            self._con.close()


# -- PostgreSQL --------------------------------------------------------------------------------


class _PgTx:
    def __init__(self, cursor: Any) -> None:
        self._cur = cursor

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self._cur.execute(sql.replace("?", "%s"), tuple(args))
        return list(self._cur.fetchall()) if self._cur.description is not None else []

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        # psycopg 3 pipelines executemany: one round trip for the whole batch.
        self._cur.executemany(sql.replace("?", "%s"), rows)

    def rowcount(self) -> int:
        return int(self._cur.rowcount)


class _Postgres:
    """A psycopg 3 connection pool; connections broken by a restart are replaced."""

    def __init__(self, url: str, wait: float) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool

        self._psycopg = psycopg
        parts = urlsplit(url)
        # The password never goes into a message.
        self.where = (
            f"postgresql://{parts.hostname or 'localhost'}"
            + (f":{parts.port}" if parts.port else "")
            + (parts.path or "")
        )
        # One direct attempt first: a server that is down or a wrong password is said at once,
        # in PostgreSQL's words, rather than after the pool's timeout.
        try:
            psycopg.connect(url, connect_timeout=max(1, int(wait))).close()
        except Exception as error:
            raise ClubUnavailable(
                f"{self.where}: cannot connect to PostgreSQL ({_problem(error)}); is the server "
                "running, and are the user, password and database right?"
            ) from None
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=8,
            timeout=wait,
            open=False,
            check=ConnectionPool.check_connection,
            kwargs={"connect_timeout": max(1, int(wait))},
        )
        self._pool.open(wait=False)

    def run(self, work: Callable[[_Tx], T]) -> T:
        psycopg = self._psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as con, con.transaction(), con.cursor() as cursor:
                return work(_PgTx(cursor))
        except psycopg.errors.IntegrityError as error:
            raise ClubConflict(f"{self.where}: {_problem(error)}") from None
        except (PoolTimeout, psycopg.OperationalError) as error:
            raise ClubUnavailable(
                f"{self.where}: the database is unavailable ({_problem(error)})"
            ) from None
        except psycopg.Error as error:
            raise ClubError(f"{self.where}: {_problem(error)}") from None

    def close(self) -> None:
        self._pool.close()


def open_backend(url: str, wait: float = 10.0) -> _Backend:
    """The back-end ``url`` names; anything else is a one-line error."""
    text = url.strip()
    scheme = text.split(":", 1)[0].lower() if ":" in text else ""
    if scheme in ("postgresql", "postgres"):
        try:
            from psycopg.conninfo import conninfo_to_dict

            conninfo_to_dict(text)
        except Exception as error:
            raise ClubError(
                f"--db: {url[:80]!r} is not a PostgreSQL URL ({_problem(error)})"
            ) from None
        return _Postgres(text, wait)
    if scheme == "sqlite":
        rest = text[len("sqlite:") :]
        if not rest.startswith("///") or len(rest) <= 3:
            raise ClubError(
                f"--db: {url[:80]!r}: an SQLite club is sqlite:///FILE (sqlite:////abs/path "
                "for an absolute path)"
            )
        return _Sqlite(usable_path(unquote(rest[3:]), "--db"))
    raise ClubError(
        f"--db: {url[:80]!r} is not a database URL; give postgresql://USER@HOST:PORT/DATABASE "
        "or sqlite:///FILE"
    )


class ClubStore:
    """The club's database behind ``url`` (created and migrated on first use)."""

    def __init__(self, url: str, *, wait: float = 10.0) -> None:
        self._db = open_backend(url, wait)
        self.where = self._db.where
        try:
            self._db.run(self._migrate)
        except ClubConflict:
            # Another club server created the schema at the same moment: it is there now.
            self._db.run(self._migrate)
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ClubStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema --------------------------------------------------------------------------------

    def _version(self, tx: _Tx) -> int:
        try:
            rows = tx.execute("SELECT key, value FROM club_meta")
        except Exception:
            return 0
        meta = dict(rows)
        if meta.get("application") != APPLICATION:
            raise ClubError(f"{self.where}: not a table referee club database")
        try:
            return int(meta.get("schema_version", "0"))
        except ValueError:
            return SCHEMA_VERSION + 1

    def _migrate(self, tx: _Tx) -> None:
        version = self._probe(tx)
        if version > SCHEMA_VERSION:
            raise ClubError(
                f"{self.where}: written by a newer table referee (club schema {version}, this "
                f"one reads up to {SCHEMA_VERSION}); upgrade table-referee"
            )
        for step in MIGRATIONS[version:]:
            for statement in step:
                tx.execute(statement)
        if version == 0:
            tx.execute(
                "INSERT INTO club_meta (key, value) VALUES (?, ?)", ("application", APPLICATION)
            )
            tx.execute(
                "INSERT INTO club_meta (key, value) VALUES (?, ?)",
                ("schema_version", str(SCHEMA_VERSION)),
            )
        elif version < SCHEMA_VERSION:
            tx.execute(
                "UPDATE club_meta SET value = ? WHERE key = ?",
                (str(SCHEMA_VERSION), "schema_version"),
            )

    def _probe(self, tx: _Tx) -> int:
        """The schema version, looked up without an error that would abort PostgreSQL's
        transaction: the catalogue says whether ``club_meta`` exists."""
        if isinstance(tx, _SqliteTx):
            found = tx.execute("SELECT name FROM sqlite_master WHERE name = 'club_meta'")
        else:
            found = tx.execute("SELECT to_regclass('club_meta')")
            found = [r for r in found if r[0] is not None]
        return self._version(tx) if found else 0

    # -- tables --------------------------------------------------------------------------------

    def add_table(self, name: str) -> str:
        """Register table ``name``; returns its token (only its hash is kept)."""
        check_table_name(name)
        token = secrets.token_urlsafe(24)

        def work(tx: _Tx) -> None:
            if tx.execute("SELECT name FROM club_tables WHERE name = ?", (name,)):
                raise ClubError(
                    f"{self.where}: table {name!r} exists already; 'referee club table remove "
                    f"{name}' first to give it a new token"
                )
            tx.execute(
                "INSERT INTO club_tables (name, token_hash, created) VALUES (?, ?, ?)",
                (name, token_hash(token), _now()),
            )

        self._db.run(work)
        return token

    def remove_table(self, name: str) -> None:
        """Revoke table ``name``'s token; its games stay in the club's record."""

        def work(tx: _Tx) -> None:
            tx.execute("DELETE FROM club_tables WHERE name = ?", (name,))
            if tx.rowcount() == 0:
                known = [r[0] for r in tx.execute("SELECT name FROM club_tables ORDER BY name")]
                raise ClubNotFound(
                    f"{self.where}: no table {name!r} (tables: {', '.join(known) or 'none yet'})"
                )

        self._db.run(work)

    def tables(self) -> list[ClubTable]:
        rows = self._db.run(
            lambda tx: tx.execute(
                "SELECT t.name, t.created,"
                " (SELECT COUNT(*) FROM club_games g WHERE g.table_name = t.name),"
                " (SELECT COALESCE(SUM(g.last_seq), 0) FROM club_games g"
                " WHERE g.table_name = t.name)"
                " FROM club_tables t ORDER BY t.name"
            )
        )
        return [ClubTable(r[0], r[1], int(r[2]), int(r[3])) for r in rows]

    def table_for_token(self, token: str) -> str | None:
        rows = self._db.run(
            lambda tx: tx.execute(
                "SELECT name FROM club_tables WHERE token_hash = ?", (token_hash(token),)
            )
        )
        return str(rows[0][0]) if rows else None

    # -- games ---------------------------------------------------------------------------------

    _GAME = (
        "SELECT id, name, table_name, ruleset, created, scene, roster, last_seq, last_t, updated,"
        " ended FROM club_games"
    )

    @staticmethod
    def _game(row: Sequence[Any]) -> ClubGame:
        return ClubGame(
            int(row[0]),
            row[1],
            row[2],
            row[3],
            row[4],
            json.loads(row[5]),
            json.loads(row[6]) if row[6] else None,
            int(row[7]),
            float(row[8]),
            float(row[9]),
            float(row[10]) if row[10] is not None else None,
        )

    def open_game(
        self,
        table: str,
        name: str,
        ruleset: str,
        scene: dict[str, Any],
        roster: dict[str, Any] | None = None,
        created: str | None = None,
    ) -> ClubGame:
        """Table ``table``'s game ``name``, registered on first call; the same game again is
        returned as the club holds it (with its high-water mark)."""
        if not name.strip() or len(name) > GAME_NAME_MAX:
            raise ClubError(f"game name {name[:40]!r}: use 1 to {GAME_NAME_MAX} characters")
        _storable(name, "game name")
        _storable(ruleset, "ruleset")
        if created is not None:
            _storable(created, "created")

        def work(tx: _Tx) -> ClubGame:
            rows = tx.execute(self._GAME + " WHERE name = ?", (name,))
            if not rows:
                (last,) = tx.execute("SELECT MAX(id) FROM club_games")[0]
                tx.execute(
                    "INSERT INTO club_games (id, name, table_name, ruleset, created, scene,"
                    " roster, last_seq, last_t, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        (last or 0) + 1,
                        name,
                        table,
                        ruleset,
                        created or _now(),
                        json.dumps(scene),
                        json.dumps(roster) if roster is not None else None,
                        0,
                        0.0,
                        time.time(),
                    ),
                )
                rows = tx.execute(self._GAME + " WHERE name = ?", (name,))
            game = self._game(rows[0])
            if game.table != table:
                raise ClubCollision(
                    f"game {name!r} belongs to another table of this club; give this table's "
                    "game another name (--game)"
                )
            return game

        for attempt in range(50):
            try:
                return self._db.run(work)
            except ClubCollision:
                raise
            except ClubConflict:
                # Two tables registered games at once and took the same id: the loser
                # tries again (the game it wants may exist by now).
                if attempt == 49:
                    raise
                time.sleep(random.uniform(0.001, 0.02))
        raise AssertionError("unreachable")

    def games(self, table: str | None = None) -> list[ClubGame]:
        """Every game (of ``table``), oldest first."""
        if table is None:
            rows = self._db.run(lambda tx: tx.execute(self._GAME + " ORDER BY id"))
        elif unstorable(table):
            return []  # no table has such a name (PostgreSQL could not even be asked)
        else:
            rows = self._db.run(
                lambda tx: tx.execute(self._GAME + " WHERE table_name = ? ORDER BY id", (table,))
            )
        return [self._game(r) for r in rows]

    def game(self, name: str) -> ClubGame:
        if unstorable(name):
            raise ClubNotFound(f"{self.where}: no game {_shown(name)}")
        rows = self._db.run(lambda tx: tx.execute(self._GAME + " WHERE name = ?", (name,)))
        if not rows:
            raise ClubNotFound(f"{self.where}: no game {name!r}")
        return self._game(rows[0])

    # -- events --------------------------------------------------------------------------------

    def ingest(self, table: str, name: str, events: Sequence[GameEvent]) -> tuple[int, int]:
        """Store table ``table``'s batch of game ``name``: ``(added, last_seq)``.

        Seqs the club holds already are compared with what it holds: the same event
        again is skipped (a retry never duplicates), a different one is a
        :class:`ClubMismatch` naming the first seq that differs. The rest must
        continue the game's stream without a gap, in order. Refused: nothing is stored.
        """
        if unstorable(name):
            raise ClubNotFound(f"no game {_shown(name)} on this club; register it first")
        for e in events:
            if e.piece is not None:
                _storable(e.piece, f"event #{e.seq}: piece")
        seqs = [e.seq for e in events]
        if any(b != a + 1 for a, b in itertools.pairwise(seqs)):
            raise ClubConflict(
                f"game {name!r}: the batch's seqs are not consecutive ({_span(seqs)})"
            )

        def work(tx: _Tx) -> tuple[int, int]:
            rows = tx.execute(
                "SELECT id, table_name, last_seq FROM club_games WHERE name = ?", (name,)
            )
            if not rows:
                raise ClubNotFound(f"no game {name!r} on this club; register it first")
            game_id, owner, last_seq = int(rows[0][0]), rows[0][1], int(rows[0][2])
            if owner != table:
                raise ClubForbidden(f"game {name!r} belongs to another table")
            again = [e for e in events if e.seq <= last_seq]
            if again:
                self._compare(tx, game_id, name, again, last_seq)
            fresh = [e for e in events if e.seq > last_seq]
            if not fresh:
                return 0, last_seq
            if fresh[0].seq != last_seq + 1:
                raise ClubConflict(
                    f"game {name!r}: the club holds events up to #{last_seq}; a batch from "
                    f"#{fresh[0].seq} would leave a gap",
                    last_seq,
                )
            tx.executemany(
                "INSERT INTO club_events (game_id, seq, t, frame, type, piece, data)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game_id, e.seq, e.t, e.frame, e.type, e.piece, e.data_text()) for e in fresh],
            )
            # The high-water mark moves only from where this batch found it: a second writer
            # of the same game in between makes this batch a conflict, never a gap.
            tx.execute(
                "UPDATE club_games SET last_seq = ?, last_t = ?, updated = ?"
                " WHERE id = ? AND last_seq = ?",
                (fresh[-1].seq, fresh[-1].t, time.time(), game_id, last_seq),
            )
            if tx.rowcount() != 1:
                raise ClubConflict(f"game {name!r}: another batch was stored meanwhile")
            return len(fresh), fresh[-1].seq

        try:
            return self._db.run(work)
        except ClubConflict as error:
            if error.last_seq is None:  # a concurrent batch: say where the club stands now
                raise ClubConflict(str(error), self.game(name).last_seq) from None
            raise

    @staticmethod
    def _compare(
        tx: _Tx, game_id: int, name: str, again: Sequence[GameEvent], last_seq: int
    ) -> None:
        """Refuse a batch whose events under held seqs are not the ones held: compared in
        the export format (what the table sent, as the club gives it back)."""
        rows = tx.execute(
            "SELECT seq, t, frame, type, data FROM club_events"
            " WHERE game_id = ? AND seq >= ? AND seq <= ? ORDER BY seq",
            (game_id, again[0].seq, again[-1].seq),
        )
        held = {
            int(seq): GameEvent(int(seq), float(t), str(kind), json.loads(data), frame)
            for seq, t, frame, kind, data in rows
        }
        for event in again:
            kept = held.get(event.seq)
            if kept is None or kept.to_json() != event.to_json():
                raise ClubMismatch(
                    f"game {name!r}: event #{event.seq} differs from the one the club holds "
                    "under that seq (two histories of one game); nothing was stored",
                    event.seq,
                    last_seq,
                )

    def end(self, table: str, name: str) -> ClubGame:
        """Table ``table`` says it stopped sending game ``name`` (its game ended, or the table
        stopped): no longer live until its next event arrives."""
        if unstorable(name):
            raise ClubNotFound(f"no game {_shown(name)} on this club; register it first")

        def work(tx: _Tx) -> None:
            rows = tx.execute("SELECT table_name FROM club_games WHERE name = ?", (name,))
            if not rows:
                raise ClubNotFound(f"no game {_shown(name)} on this club; register it first")
            if rows[0][0] != table:
                raise ClubForbidden(f"game {_shown(name)} belongs to another table")
            tx.execute("UPDATE club_games SET ended = ? WHERE name = ?", (time.time(), name))

        self._db.run(work)
        return self.game(name)

    def events(
        self,
        game: ClubGame,
        after: int = 0,
        upto_seq: int | None = None,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[GameEvent]:
        """Game ``game``'s events with ``after < seq (<= upto_seq)``, in order."""
        sql = "SELECT seq, t, frame, type, data FROM club_events WHERE game_id = ? AND seq > ?"
        args: list[Any] = [game.id, after]
        if upto_seq is not None:
            sql += " AND seq <= ?"
            args.append(upto_seq)
        if types is not None:
            sql += f" AND type IN ({', '.join('?' for _ in types)})"
            args.extend(types)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = self._db.run(lambda tx: tx.execute(sql, args))
        return [
            GameEvent(int(seq), float(t), str(kind), json.loads(data), frame)
            for seq, t, frame, kind, data in rows
        ]

    def events_of(
        self, games: Sequence[ClubGame], types: Sequence[str], contains: str | None = None
    ) -> dict[int, list[GameEvent]]:
        """Several games' events of ``types`` in one query (the club page's cards), by game id;
        ``contains`` keeps only events whose stored JSON holds that text."""
        if not games:
            return {}
        sql = (
            "SELECT game_id, seq, t, frame, type, data FROM club_events"
            f" WHERE game_id IN ({', '.join('?' for _ in games)})"
            f" AND type IN ({', '.join('?' for _ in types)})"
        )
        args: list[Any] = [g.id for g in games] + list(types)
        if contains is not None:
            sql += " AND data LIKE ?"
            args.append("%" + contains.replace("%", "").replace("_", "") + "%")
        sql += " ORDER BY game_id, seq"
        rows = self._db.run(lambda tx: tx.execute(sql, args))
        found: dict[int, list[GameEvent]] = {g.id: [] for g in games}
        for game_id, seq, t, frame, kind, data in rows:
            found[int(game_id)].append(
                GameEvent(int(seq), float(t), str(kind), json.loads(data), frame)
            )
        return found

    def shaping_events(self, games: Sequence[ClubGame]) -> dict[int, list[GameEvent]]:
        """What draws each game's table now, in one query: every piece's last move (removal,
        entry), and every
        edit and correction (a correction may void a last move: then read the game whole)."""
        if not games:
            return {}
        ids = ", ".join("?" for _ in games)
        sql = (
            "SELECT e.game_id, e.seq, e.t, e.frame, e.type, e.data FROM club_events e"
            " JOIN (SELECT game_id, piece, MAX(seq) AS seq FROM club_events"
            f" WHERE game_id IN ({ids}) AND type IN ('move', 'removed', 'entered')"
            " GROUP BY game_id, piece) last"
            " ON e.game_id = last.game_id AND e.seq = last.seq"
            " UNION ALL SELECT game_id, seq, t, frame, type, data FROM club_events"
            f" WHERE game_id IN ({ids}) AND type IN ('edit', 'correction')"
        )
        args = [g.id for g in games] * 2
        rows = self._db.run(lambda tx: tx.execute(sql, args))
        found: dict[int, list[GameEvent]] = {g.id: [] for g in games}
        for game_id, seq, t, frame, kind, data in rows:
            event = GameEvent(int(seq), float(t), str(kind), json.loads(data), frame)
            found[int(game_id)].append(event)
        for game in games:
            events = sorted(found[game.id], key=lambda e: e.seq)
            if any(e.type == "correction" for e in events):
                events = self.events(game, types=SHAPING)
            found[game.id] = events
        return found

    # -- evidence ------------------------------------------------------------------------------

    def put_evidence(self, table: str, name: str, seq: int, kind: str, data: bytes) -> None:
        """Keep table ``table``'s picture ``kind`` of event ``seq`` of game ``name``. The
        event must be held already (pictures follow their batch); the same picture again is
        a no-op, so a resend after a lost answer is harmless."""
        if kind not in EVIDENCE_KINDS:
            raise ClubError(f"evidence kind {kind[:20]!r}: use one of {', '.join(EVIDENCE_KINDS)}")
        if len(data) > EVIDENCE_MAX:
            raise ClubError(
                f"evidence of #{seq}: {len(data)} bytes; a picture may have {EVIDENCE_MAX} at most"
            )
        if not is_jpeg(data):
            raise ClubError(f"evidence of #{seq}: the body must be a JPEG picture")
        if unstorable(name):
            raise ClubNotFound(f"no game {_shown(name)} on this club; register it first")

        def work(tx: _Tx) -> None:
            rows = tx.execute(
                "SELECT id, table_name, last_seq FROM club_games WHERE name = ?", (name,)
            )
            if not rows:
                raise ClubNotFound(f"no game {_shown(name)} on this club; register it first")
            game_id, owner, last_seq = int(rows[0][0]), rows[0][1], int(rows[0][2])
            if owner != table:
                raise ClubForbidden(f"game {_shown(name)} belongs to another table")
            if not 1 <= seq <= last_seq:
                raise ClubNotFound(
                    f"game {_shown(name)}: the club holds no event #{seq}; send its batch first"
                )
            tx.execute(
                "INSERT INTO club_evidence (game_id, seq, kind, data) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (game_id, seq, kind) DO NOTHING",
                (game_id, seq, kind, data),
            )

        self._db.run(work)

    def evidence_index(self, game: ClubGame) -> dict[int, list[str]]:
        """The kinds of picture the club holds for each event of ``game``."""
        rows = self._db.run(
            lambda tx: tx.execute(
                "SELECT seq, kind FROM club_evidence WHERE game_id = ? ORDER BY seq, kind",
                (game.id,),
            )
        )
        found: dict[int, list[str]] = {}
        for seq, kind in rows:
            found.setdefault(int(seq), []).append(str(kind))
        return found

    def evidence_sizes(self, game: ClubGame) -> dict[int, list[tuple[str, int]]]:
        """Each event's pictures as ``seq -> [(kind, bytes)]``, as the table's own log
        lists them (:meth:`referee.store.GameLog.evidence_index`): the club's export then
        says of each verdict what the table's says."""
        rows = self._db.run(
            lambda tx: tx.execute(
                "SELECT seq, kind, LENGTH(data) FROM club_evidence WHERE game_id = ? "
                "ORDER BY seq, kind",
                (game.id,),
            )
        )
        found: dict[int, list[tuple[str, int]]] = {}
        for seq, kind, size in rows:
            found.setdefault(int(seq), []).append((str(kind), int(size)))
        return found

    def evidence(self, game: ClubGame, seq: int, kind: str) -> bytes | None:
        """The JPEG ``kind`` of event ``seq``, as the table sent it; None when not held."""
        rows = self._db.run(
            lambda tx: tx.execute(
                "SELECT data FROM club_evidence WHERE game_id = ? AND seq = ? AND kind = ?",
                (game.id, seq, kind),
            )
        )
        return bytes(rows[0][0]) if rows else None  # PostgreSQL may answer a memoryview

    def iter_events(self, game: ClubGame, page: int = 5000) -> Iterator[GameEvent]:
        """All of a game's events, read a page at a time (an export of a long game)."""
        after = 0
        while True:
            chunk = self.events(game, after, limit=page)
            yield from chunk
            if len(chunk) < page:
                return
            after = chunk[-1].seq


def _shown(name: str) -> str:
    """``name`` quoted for a message (repr escapes a NUL and a lone surrogate)."""
    return repr(name[:80])


def _span(seqs: Sequence[int]) -> str:
    shown = ", ".join(str(s) for s in seqs[:6])
    return shown + (", ..." if len(seqs) > 6 else "")


@contextmanager
def open_club(url: str, wait: float = 10.0) -> Iterator[ClubStore]:
    store = ClubStore(url, wait=wait)
    try:
        yield store
    finally:
        store.close()


__all__ = [
    "EVIDENCE_MAX",
    "LIVE_SECONDS",
    "SCHEMA_VERSION",
    "ClubConflict",
    "ClubError",
    "ClubForbidden",
    "ClubGame",
    "ClubMismatch",
    "ClubNotFound",
    "ClubStore",
    "ClubTable",
    "ClubUnavailable",
    "open_club",
]
