"""The club's store on both back-ends (real PostgreSQL and SQLite), the same tests for each:
schema, tables and tokens, games, and batches that are idempotent, in order and whole."""

from __future__ import annotations

import contextlib
import sqlite3
import threading

import pytest

from referee.club.store import (
    SCHEMA_VERSION,
    ClubConflict,
    ClubError,
    ClubForbidden,
    ClubNotFound,
    ClubStore,
)
from referee.store import GameLog

from .conftest import new_club_url
from .helpers import ROSTER, SCENE, events, move


@pytest.fixture(params=["sqlite", "postgresql"])
def club_url(request, tmp_path):
    """Both back-ends in the README's command: the store is where they differ."""
    return new_club_url(request, tmp_path)


@pytest.fixture
def store(club_url):
    with ClubStore(club_url) as opened:
        yield opened


def _game(store: ClubStore, table: str = "alpha", name: str = "g1"):
    if table not in {t.name for t in store.tables()}:
        store.add_table(table)
    return store.open_game(table, name, "paper-tigers", SCENE, ROSTER)


def test_schema_is_created_once_and_reopened(club_url):
    with ClubStore(club_url) as first:
        token = first.add_table("alpha")
    with ClubStore(club_url) as again:  # the second opening migrates nothing, keeps everything
        assert [t.name for t in again.tables()] == ["alpha"]
        assert again.table_for_token(token) == "alpha"


def test_tokens_are_kept_only_as_hashes(store):
    token = store.add_table("alpha")
    assert store.table_for_token(token) == "alpha"
    assert store.table_for_token(token + "x") is None
    assert store.table_for_token("") is None
    with pytest.raises(ClubError, match="exists already"):
        store.add_table("alpha")
    store.remove_table("alpha")
    assert store.table_for_token(token) is None
    with pytest.raises(ClubNotFound, match="no table 'alpha'"):
        store.remove_table("alpha")


@pytest.mark.parametrize("name", ["", " lead", "x" * 65, "tab\tle"])
def test_unusable_table_names_are_refused(store, name):
    with pytest.raises(ClubError, match="table name"):
        store.add_table(name)
    assert store.tables() == []


def test_a_batch_is_stored_in_order_and_a_retry_never_duplicates(store):
    _game(store)
    assert store.ingest("alpha", "g1", events(1, 10)) == (10, 10)
    assert store.ingest("alpha", "g1", events(1, 10)) == (0, 10)  # the same batch again
    assert store.ingest("alpha", "g1", events(6, 15)) == (5, 15)  # overlapping: the new part
    stored = store.events(store.game("g1"))
    assert [e.seq for e in stored] == list(range(1, 16))
    assert [e.to_json() for e in stored] == [e.to_json() for e in events(1, 15)]
    assert store.game("g1").last_seq == 15


def test_a_gap_or_a_disordered_batch_is_a_conflict_and_nothing_is_written(store):
    _game(store)
    store.ingest("alpha", "g1", events(1, 5))
    with pytest.raises(ClubConflict, match="gap") as gap:
        store.ingest("alpha", "g1", events(8, 9))
    assert gap.value.last_seq == 5
    with pytest.raises(ClubConflict, match="not consecutive"):
        store.ingest("alpha", "g1", [*events(6, 7), move(9)])
    with pytest.raises(ClubConflict, match="not consecutive"):
        store.ingest("alpha", "g1", [move(7), move(6)])
    assert [e.seq for e in store.events(store.game("g1"))] == [1, 2, 3, 4, 5]


def test_a_table_writes_only_its_own_games(store):
    _game(store, "alpha", "g1")
    store.add_table("beta")
    with pytest.raises(ClubForbidden):
        store.ingest("beta", "g1", events(1, 3))
    with pytest.raises(ClubConflict, match="another table"):
        store.open_game("beta", "g1", "paper-tigers", SCENE)
    with pytest.raises(ClubNotFound):
        store.ingest("beta", "nope", events(1, 3))
    assert store.game("g1").last_seq == 0 and store.games("beta") == []


def test_registering_again_returns_the_high_water_mark(store):
    _game(store)
    store.ingest("alpha", "g1", events(1, 7))
    again = store.open_game("alpha", "g1", "paper-tigers", SCENE, ROSTER)
    assert again.last_seq == 7 and again.scene == SCENE and again.roster == ROSTER


def test_concurrent_writers_of_one_game_never_leave_a_gap_or_a_duplicate(club_url):
    with ClubStore(club_url) as setup:
        _game(setup)
    stores = [ClubStore(club_url) for _ in range(3)]
    try:

        def writer(store: ClubStore) -> None:
            # Each writer resends from where the club says it stands, like a sender does.
            while True:
                last = store.game("g1").last_seq
                if last >= 120:
                    return
                with contextlib.suppress(ClubConflict):
                    store.ingest("alpha", "g1", events(last + 1, min(last + 7, 120)))

        threads = [threading.Thread(target=writer, args=(s,)) for s in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert [e.seq for e in stores[0].events(stores[0].game("g1"))] == list(range(1, 121))
    finally:
        for s in stores:
            s.close()


def test_many_tables_games_are_listed_per_table(store):
    _game(store, "alpha", "a1")
    _game(store, "beta", "b1")
    _game(store, "alpha", "a2")
    store.ingest("alpha", "a2", events(1, 4))
    assert [g.name for g in store.games()] == ["a1", "b1", "a2"]
    assert [g.name for g in store.games("alpha")] == ["a1", "a2"]
    assert {t.name: (t.games, t.events) for t in store.tables()} == {
        "alpha": (2, 4),
        "beta": (1, 0),
    }


# -- SQLite files that are not a club ----------------------------------------------------------


def test_a_table_game_log_is_not_a_club(tmp_path):
    path = tmp_path / "games.sqlite"
    GameLog(path).close()
    before = path.read_bytes()
    with pytest.raises(ClubError, match="a table's game log, not a club database"):
        ClubStore(f"sqlite:///{path}")
    assert path.read_bytes() == before


def test_another_programs_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (x TEXT)")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(ClubError, match="another program"):
        ClubStore(f"sqlite:///{path}")
    assert path.read_bytes() == before


def test_a_newer_club_schema_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'club.sqlite'}"
    ClubStore(url).close()
    con = sqlite3.connect(tmp_path / "club.sqlite")
    con.execute(
        "UPDATE club_meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),)
    )
    con.commit()
    con.close()
    with pytest.raises(ClubError, match="newer table referee"):
        ClubStore(url)


@pytest.mark.parametrize(
    "url", ["", "games.sqlite", "mysql://x@y/z", "sqlite://rel", "sqlite:///", "http://x/"]
)
def test_urls_that_are_not_databases_are_one_line_errors(url):
    with pytest.raises(ClubError, match="--db") as error:
        ClubStore(url)
    assert "\n" not in str(error.value)


def test_an_unreachable_postgresql_is_a_one_line_error():
    from .postgres import free_port, postgres_missing

    if postgres_missing() is not None:
        pytest.skip(str(postgres_missing()))
    with pytest.raises(ClubError, match="cannot connect to PostgreSQL") as error:
        ClubStore(f"postgresql://postgres@127.0.0.1:{free_port()}/club", wait=1.0)
    assert "\n" not in str(error.value)


def test_tables_registering_games_at_once_all_get_theirs(club_url):
    """Found by the benchmark: 20 tables registering at the same moment raced for an id."""
    stores = [ClubStore(club_url) for _ in range(4)]
    try:
        tables = [f"t{i}" for i in range(12)]
        for name in tables:
            stores[0].add_table(name)
        errors: list[BaseException] = []

        def register(i: int, name: str) -> None:
            try:
                stores[i % 4].open_game(name, f"{name}-game", "paper-tigers", SCENE, ROSTER)
            except BaseException as error:
                errors.append(error)

        threads = [threading.Thread(target=register, args=(i, n)) for i, n in enumerate(tables)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors
        assert sorted(g.name for g in stores[0].games()) == sorted(f"{n}-game" for n in tables)
    finally:
        for s in stores:
            s.close()


def _changed(event, **data):
    from referee.events import GameEvent

    return GameEvent(event.seq, event.t, event.type, {**event.data, **data}, event.frame)


@pytest.mark.parametrize("where", [0, 3, 6])
def test_a_different_event_under_a_held_seq_is_refused_naming_it(store, where):
    """Issue 42: a table pushing other events under seqs the club holds got 200, added 0."""
    from referee.club.store import ClubMismatch

    _game(store)
    store.ingest("alpha", "g1", events(1, 7))
    other = events(1, 10)
    other[where] = _changed(other[where], piece="pz1")
    with pytest.raises(ClubMismatch, match=f"event #{where + 1} differs") as refused:
        store.ingest("alpha", "g1", other)
    assert (refused.value.seq, refused.value.last_seq) == (where + 1, 7)
    # Nothing written: not even the fresh seqs 8-10 that followed.
    assert [e.to_json() for e in store.events(store.game("g1"))] == [
        e.to_json() for e in events(1, 7)
    ]
    assert store.game("g1").last_seq == 7


def test_a_resent_event_differing_only_in_time_frame_or_type_is_refused(store):
    from referee.club.store import ClubMismatch
    from referee.events import GameEvent

    _game(store)
    store.ingest("alpha", "g1", events(1, 2))
    first = events(1, 1)[0]
    for other in (
        GameEvent(1, first.t + 0.001, first.type, first.data, first.frame),
        GameEvent(1, first.t, first.type, first.data, (first.frame or 0) + 1),
        GameEvent(1, first.t, "flag", {"kind": "jump", "message": "m"}, first.frame),
    ):
        with pytest.raises(ClubMismatch, match="event #1 differs"):
            store.ingest("alpha", "g1", [other])
    # The same events again stay a no-op, whole or in part.
    assert store.ingest("alpha", "g1", events(1, 2)) == (0, 2)
    assert store.ingest("alpha", "g1", events(2, 2)) == (0, 2)
