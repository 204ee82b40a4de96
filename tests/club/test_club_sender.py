"""A table sending its log to the club: in order, in batches, idempotent, through an outage,
after its own restart, and once more with ``push`` (a real waitress server in a thread)."""

from __future__ import annotations

import time

import pytest

from referee.club.sender import ClubSender, ClubUnreachable, push
from referee.club.store import ClubStore
from referee.errors import RefereeError

from .helpers import append, lines, running_club, start_club, table_log
from .postgres import free_port


@pytest.fixture
def store(club_url):
    with ClubStore(club_url) as opened:
        yield opened


def _wait(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _local(path, game):
    from referee.store import GameLog

    with GameLog(path, readonly=True) as log:
        return [e.to_json() for e in log.events(log.game(game))]


def test_a_sender_sends_a_live_game_in_order(store, tmp_path):
    token = store.add_table("alpha")
    db = tmp_path / "games.sqlite"
    log = table_log(db, "g1", 30)
    said: list[str] = []
    with running_club(store) as club:
        sender = ClubSender(db, "g1", club.url, token, say=said.append).start()
        for _ in range(20):  # the game goes on while the sender works
            append(log, "g1", 7)
            sender.notify()
        _wait(lambda: sender.acked == 170)
        assert sender.stop() == 0
    log.close()
    assert lines(store, "g1") == _local(db, "g1")
    assert said == []  # nothing to say when all goes well


def test_an_unreachable_club_is_said_once_and_the_sender_catches_up(store, tmp_path):
    token = store.add_table("alpha")
    db = tmp_path / "games.sqlite"
    log = table_log(db, "g1", 10)
    port = free_port()
    said: list[str] = []
    sender = ClubSender(db, "g1", f"http://127.0.0.1:{port}/", token, say=said.append).start()
    _wait(lambda: len(said) == 1)
    append(log, "g1", 600)  # played on while the club was away: more than one batch
    time.sleep(0.5)
    assert len(said) == 1 and "unreachable" in said[0] and "logged locally" in said[0]
    club = start_club(store, port)
    try:
        _wait(lambda: sender.acked == 610)
        _wait(lambda: len(said) == 2)
        assert "caught up" in said[1] and "#610" in said[1]
        # Away again: said once more, then caught up once more.
        club.stop()
        append(log, "g1", 5)
        _wait(lambda: len(said) == 3)
        club = start_club(store, port)
        _wait(lambda: sender.acked == 615)
        _wait(lambda: len(said) == 4)
    finally:
        assert sender.stop() == 0
        club.stop()
        log.close()
    assert lines(store, "g1") == _local(db, "g1")


def test_a_restarted_table_asks_the_club_where_it_stands(store, tmp_path):
    token = store.add_table("alpha")
    db = tmp_path / "games.sqlite"
    log = table_log(db, "g1", 40)
    with running_club(store) as club:
        first = ClubSender(db, "g1", club.url, token).start()
        _wait(lambda: first.acked == 40)
        first.stop()
        append(log, "g1", 25)  # logged while no sender ran (the table was restarting)
        second = ClubSender(db, "g1", club.url, token).start()
        _wait(lambda: second.acked == 65)
        assert second.stop() == 0
    log.close()
    assert [e["seq"] for e in lines(store, "g1")] == list(range(1, 66))


def test_a_wrong_token_is_said_once_and_sending_stops(store, tmp_path):
    store.add_table("alpha")
    db = tmp_path / "games.sqlite"
    table_log(db, "g1", 5).close()
    said: list[str] = []
    with running_club(store) as club:
        sender = ClubSender(db, "g1", club.url, "wrong-token", say=said.append).start()
        _wait(lambda: sender.error is not None)
        sender.stop()
    assert len(said) == 1 and "HTTP 401" in said[0]
    assert store.games() == []


def test_push_sends_what_is_owed_and_exits_only_when_the_club_has_it(store, tmp_path):
    token = store.add_table("alpha")
    db = tmp_path / "games.sqlite"
    log = table_log(db, "g1", 1234)
    table_log(db, "g2", 3).close()
    log.close()
    with running_club(store) as club:
        said: list[str] = []
        assert push(db, club.url, token, say=said.append) == {"g1": 1234, "g2": 3}
        assert push(db, club.url, token, ["g2"]) == {"g2": 3}  # nothing owed: still fine
    assert lines(store, "g1") == _local(db, "g1")
    with pytest.raises(ClubUnreachable, match="still owed"):
        push(db, f"http://127.0.0.1:{free_port()}/", token, wait=0.5)


@pytest.mark.parametrize("url", ["", "ftp://x/", "127.0.0.1:8780", "http://", "http://h:99999/"])
def test_a_club_url_that_is_not_one_is_a_one_line_error(tmp_path, url):
    with pytest.raises(RefereeError, match="--club"):
        ClubSender(tmp_path / "x.sqlite", "g", url, "token")


def test_two_tables_sharing_one_log_each_push_it_all(store, tmp_path):
    """Two tables that keep one log file (the default one): each push finds the other's game
    at the club, event for event, and exits fine; a different game by that name is refused."""
    from referee.club.sender import ClubRefused

    tokens = {name: store.add_table(name) for name in ("alpha", "beta")}
    shared = tmp_path / "games.sqlite"
    table_log(shared, "alpha-game", 12).close()
    table_log(shared, "beta-game", 9).close()
    with running_club(store) as club:
        assert push(shared, club.url, tokens["alpha"], ["alpha-game"]) == {"alpha-game": 12}
        assert push(shared, club.url, tokens["beta"], ["beta-game"]) == {"beta-game": 9}
        said: list[str] = []
        assert push(shared, club.url, tokens["alpha"], say=said.append) == {
            "alpha-game": 12,
            "beta-game": 9,
        }
        assert "sent by another table" in said[1]
        other = tmp_path / "other.sqlite"
        table_log(other, "beta-game", 3).close()
        with pytest.raises(ClubRefused, match="HTTP 409"):
            push(other, club.url, tokens["alpha"])
    assert [g.table for g in store.games()] == ["alpha", "beta"]


def _other_history(path, game, count, differ_at):
    """A table log of ``game`` whose events are the helpers' own except event ``differ_at``."""
    from referee.events import GameEvent

    from .helpers import events

    log = table_log(path, game)
    batch = events(1, count)
    e = batch[differ_at - 1]
    batch[differ_at - 1] = GameEvent(e.seq, e.t, e.type, {**e.data, "piece": "pz1"}, e.frame)
    log.append(log.game(game), batch)
    log.close()


def test_push_of_another_history_is_refused_naming_the_seq(store, tmp_path):
    """Issue 42: a log with other events under the club's seqs was told "the club has it all"."""
    from referee.club.sender import ClubRefused

    token = store.add_table("alpha")
    table_log(tmp_path / "first.sqlite", "g1", 10).close()
    _other_history(tmp_path / "other.sqlite", "g1", 3, differ_at=2)  # fewer events, one differs
    _other_history(tmp_path / "longer.sqlite", "g1", 14, differ_at=7)  # more, one differs
    table_log(tmp_path / "older.sqlite", "g1", 6).close()  # the club's first six, exactly
    with running_club(store) as club:
        assert push(tmp_path / "first.sqlite", club.url, token) == {"g1": 10}
        before = lines(store, "g1")
        for name, seq in (("other", 2), ("longer", 7)):
            with pytest.raises(ClubRefused, match=f"different event #{seq}") as refused:
                push(tmp_path / f"{name}.sqlite", club.url, token, wait=1)
            assert refused.value.differs == seq and "\n" not in str(refused.value)
            assert lines(store, "g1") == before  # nothing of it stored, not even #11-14
        said: list[str] = []
        assert push(tmp_path / "older.sqlite", club.url, token, say=said.append) == {"g1": 6}
        assert said == [
            "game 'g1': the club has events 1 to #6, and #7 to #10 that this log does not hold"
        ]
    assert lines(store, "g1") == before


def test_a_live_sender_of_another_history_says_so_once_and_stops(store, tmp_path):
    token = store.add_table("alpha")
    table_log(tmp_path / "first.sqlite", "g1", 10).close()
    db = tmp_path / "games.sqlite"
    _other_history(db, "g1", 4, differ_at=3)
    said: list[str] = []
    with running_club(store) as club:
        assert push(tmp_path / "first.sqlite", club.url, token) == {"g1": 10}
        before = lines(store, "g1")
        sender = ClubSender(db, "g1", club.url, token, say=said.append).start()
        _wait(lambda: sender.error is not None)
        log = table_log(db, "g1")
        append(log, "g1", 12)  # the game plays on past the club's seqs: none of it is sent
        sender.notify()
        time.sleep(0.5)
        sender.stop()
        log.close()
    assert len(said) == 1 and "different event #3" in said[0] and "not sending" in said[0]
    assert lines(store, "g1") == before
