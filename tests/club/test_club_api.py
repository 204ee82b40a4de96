"""The club's JSON API and pages through Flask's test client, on both back-ends: who may write
what, batches refused whole, and the reads the club page makes."""

from __future__ import annotations

import json

import pytest

from referee.club import create_app
from referee.club.batch import MAX_EVENTS
from referee.club.store import ClubStore

from .helpers import ROSTER, SCENE, events, move, verdict


@pytest.fixture
def club(club_url):
    with ClubStore(club_url) as store:
        tokens = {name: store.add_table(name) for name in ("alpha", "beta")}
        app = create_app(store, {"TESTING": True})
        yield app.test_client(), store, tokens


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


REGISTRATION = {"ruleset": "paper-tigers", "scene": SCENE, "roster": ROSTER, "created": None}


def _register(client, token, name="g1"):
    return client.put(f"/api/games/{name}", json=REGISTRATION, headers=_auth(token))


def _send(client, token, batch, name="g1"):
    lines = [e.to_json() for e in batch]
    return client.post(f"/api/games/{name}/events", json={"events": lines}, headers=_auth(token))


def test_a_table_registers_its_game_and_sends_batches(club):
    client, _store, tokens = club
    answer = _register(client, tokens["alpha"])
    assert answer.status_code == 200 and answer.json["last_seq"] == 0
    assert _send(client, tokens["alpha"], events(1, 20)).json == {"added": 20, "last_seq": 20}
    assert _send(client, tokens["alpha"], events(15, 25)).json == {"added": 5, "last_seq": 25}
    assert _register(client, tokens["alpha"]).json["last_seq"] == 25
    read = client.get("/api/games/g1/events?after=20").json
    assert [e["seq"] for e in read["events"]] == [21, 22, 23, 24, 25]
    assert read["table"] == "alpha" and read["last_seq"] == 25


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}, {"Authorization": ""}],
)
def test_a_missing_or_wrong_token_is_401_and_nothing_is_written(club, headers):
    client, store, tokens = club
    _register(client, tokens["alpha"])
    assert client.put("/api/games/g2", json=REGISTRATION, headers=headers).status_code == 401
    sent = client.post(
        "/api/games/g1/events", json={"events": [move(1).to_json()]}, headers=headers
    )
    assert sent.status_code == 401 and "token" in sent.json["error"]
    assert [g.name for g in store.games()] == ["g1"] and store.game("g1").last_seq == 0


def test_another_tables_game_is_403_and_a_name_collision_409(club):
    client, store, tokens = club
    _register(client, tokens["alpha"])
    _send(client, tokens["alpha"], events(1, 3))
    assert _send(client, tokens["beta"], events(4, 6)).status_code == 403
    collision = _register(client, tokens["beta"])
    assert collision.status_code == 409 and "another table" in collision.json["error"]
    assert store.game("g1").last_seq == 3 and store.games("beta") == []


def test_a_gap_is_409_with_the_clubs_high_water_mark(club):
    client, store, tokens = club
    _register(client, tokens["alpha"])
    _send(client, tokens["alpha"], events(1, 3))
    gap = _send(client, tokens["alpha"], events(6, 8))
    assert gap.status_code == 409 and gap.json["last_seq"] == 3
    backwards = _send(client, tokens["alpha"], [move(5), move(4)])
    assert backwards.status_code == 409
    assert store.game("g1").last_seq == 3


def test_events_for_an_unregistered_game_are_404(club):
    client, _, tokens = club
    assert _send(client, tokens["alpha"], events(1, 2), name="nope").status_code == 404


BAD_LINES = [
    "not an object",
    {"seq": 0, "t": 0, "type": "flag", "kind": "jump"},
    {"seq": True, "t": 0, "type": "flag", "kind": "jump"},
    {"seq": 1, "t": -1, "type": "flag", "kind": "jump"},
    {"seq": 1, "t": "soon", "type": "flag", "kind": "jump"},
    {"seq": 1, "t": 0, "type": "shout", "kind": "jump"},
    {"seq": 1, "t": 0, "type": "flag"},
    {"seq": 1, "t": 0, "type": "flag", "kind": "jump", "frame": -3},
    {"seq": 1, "t": 0, "type": "move", "piece": "t34a", "from": {}, "to": {}},
    {"seq": 1, "t": 0, "type": "verdict", "verdict": "ok"},
    {"seq": 1, "t": 0, "type": "removed", "piece": "t34a"},
    {"seq": 1, "t": 0, "type": "entered", "piece": "t34a", "at": {"x": "a", "y": 1, "heading": 0}},
    {"seq": 1, "t": 0, "type": "correction", "supersedes": "3"},
    {"seq": 1, "t": 0, "type": "flag", "kind": "jump", "message": "x" * 300_000},
]


@pytest.mark.parametrize("line", BAD_LINES)
def test_an_event_not_in_the_export_format_is_400_and_the_batch_is_refused_whole(club, line):
    client, store, tokens = club
    _register(client, tokens["alpha"])
    batch = [move(1).to_json(), line] if isinstance(line, dict) and line.get("seq") != 1 else [line]
    answer = client.post(
        "/api/games/g1/events", json={"events": batch}, headers=_auth(tokens["alpha"])
    )
    assert answer.status_code == 400, answer.json
    assert answer.json["error"].startswith("$.events[")
    assert store.game("g1").last_seq == 0


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{not json",
        b"[]",
        b'{"events": []}',
        b'{"events": {}}',
        b'{"event": [1]}',
        b'{"events": [{"seq": 1, "t": NaN, "type": "flag", "kind": "j"}]}',
    ],
)
def test_a_malformed_batch_is_400(club, body):
    client, store, tokens = club
    _register(client, tokens["alpha"])
    answer = client.post(
        "/api/games/g1/events",
        data=body,
        headers={**_auth(tokens["alpha"]), "Content-Type": "application/json"},
    )
    assert answer.status_code == 400 and answer.json["error"]
    assert store.game("g1").last_seq == 0


def test_an_oversized_batch_is_400(club):
    client, store, tokens = club
    _register(client, tokens["alpha"])
    too_many = _send(client, tokens["alpha"], events(1, MAX_EVENTS + 1))
    assert too_many.status_code == 400 and "more than" in too_many.json["error"]
    huge = json.dumps({"events": [move(1).to_json()], "pad": "x" * (9 * 1024 * 1024)})
    answer = client.post(
        "/api/games/g1/events",
        data=huge,
        headers={**_auth(tokens["alpha"]), "Content-Type": "application/json"},
    )
    assert answer.status_code == 400 and "larger than" in answer.json["error"]
    assert store.game("g1").last_seq == 0


@pytest.mark.parametrize(
    "registration",
    [
        {},
        [],
        {"ruleset": "", "scene": {}},
        {"ruleset": "paper-tigers", "scene": []},
        {"ruleset": "paper-tigers", "scene": {}, "roster": "x"},
        {"ruleset": "paper-tigers", "scene": {}, "created": 5},
    ],
)
def test_a_malformed_registration_is_400_and_registers_nothing(club, registration):
    client, store, tokens = club
    answer = client.put("/api/games/g1", json=registration, headers=_auth(tokens["alpha"]))
    assert answer.status_code == 400
    assert store.games() == []


def test_the_reads_of_the_club_page(club):
    client, _store, tokens = club
    _register(client, tokens["alpha"])
    _send(client, tokens["alpha"], [move(1, "t34a", 11.0, 12.0), verdict(2, False, about=1)])
    tables = client.get("/api/tables").json["tables"]
    assert [t["name"] for t in tables] == ["alpha", "beta"]
    assert [g["name"] for g in tables[0]["games"]] == ["g1"] and tables[1]["games"] == []
    board = client.get("/api/games/g1/board").json
    t34a = next(p for p in board["pieces"] if p["id"] == "t34a")
    assert (t34a["x"], t34a["y"]) == (11.0, 12.0)
    before = client.get("/api/games/g1/board?at=0").json
    t34a = next(p for p in before["pieces"] if p["id"] == "t34a")
    assert (t34a["x"], t34a["y"]) == (10.0, 12.0)  # where its first move started
    assert client.get("/api/games/g1/board?at=x").status_code == 400
    assert client.get("/api/games/nope").status_code == 404
    page = client.get("/").get_data(as_text=True)
    assert 'data-table="alpha"' in page and 'data-id="t34a"' in page
    game = client.get("/games/g1").get_data(as_text=True)
    assert "NOT OK" in game and 'id="disputes"' in game and "reason 2" in game
    assert client.get("/games/g1?at=1").status_code == 200
    assert client.get("/games/nope").status_code == 404


def test_standings_come_from_each_games_last_victory_verdict(club):
    from referee.events import GameEvent

    client, _, tokens = club
    _register(client, tokens["alpha"])
    victory = {
        "ask": "victory",
        "ok": True,
        "reasons": ["soviet controls hill: 4 VP"],
        "points": {"soviet": 4.0, "german": 1.0},
        "result": "win",
        "winner": "soviet",
        "summary": "victory: soviet 4, german 1 -> win for soviet",
    }
    _send(client, tokens["alpha"], [move(1), GameEvent(2, 9.0, "verdict", {"verdict": victory})])
    page = client.get("/").get_data(as_text=True)
    standings = page[page.index('id="standings"') :]
    assert "soviet 4 VP, german 1 VP" in standings and "win for soviet" in standings
    assert "win for soviet" in client.get("/games/g1").get_data(as_text=True)


def test_a_voided_last_move_is_not_drawn_on_the_card(club):
    from referee.events import GameEvent

    client, _, tokens = club
    _register(client, tokens["alpha"])
    void = GameEvent(3, 2.0, "correction", {"supersedes": 2, "void": True, "reason": "lifted"})
    _send(client, tokens["alpha"], [move(1, "t34a", 11.0, 12.0), move(2, "t34a", 20.0, 12.0), void])
    page = client.get("/").get_data(as_text=True)
    card = page[page.index('data-table="alpha"') :]
    piece = card[card.index('data-id="t34a"') :]
    assert 'data-x="11.00"' in piece[:80]
    board = client.get("/api/games/g1/board").json
    assert next(p for p in board["pieces"] if p["id"] == "t34a")["x"] == 11.0


def test_a_casualty_is_off_the_card_and_a_reinforcement_on_it(club):
    """Issue 41: a table's removed and entered events shape the club's board too (and a
    correction voiding the removal puts the piece back)."""
    from referee.events import GameEvent

    client, _, tokens = club
    _register(client, tokens["alpha"])
    at = {"x": 11.0, "y": 12.0, "heading": 270.0}
    removed = GameEvent(
        2, 1.0, "removed", {"piece": "t34a", "at": at, "reason": "carried off", "edge": "south"}
    )
    hq_at = {"x": 30.0, "y": 2.0, "heading": 90.0}
    entered = GameEvent(3, 2.0, "entered", {"piece": "t34b", "at": hq_at})
    sent = _send(client, tokens["alpha"], [move(1, "t34a", 11.0, 12.0), removed, entered])
    assert sent.status_code == 200, sent.json
    board = client.get("/api/games/g1/board").json
    where = {p["id"]: (p["x"], p["y"]) for p in board["pieces"]}
    assert "t34a" not in where and where["t34b"] == (30.0, 2.0)
    early = client.get("/api/games/g1/board?at=1").json
    early_where = {p["id"]: (p["x"], p["y"]) for p in early["pieces"]}
    assert early_where["t34a"] == (11.0, 12.0) and "t34b" not in early_where
    void = GameEvent(4, 3.0, "correction", {"supersedes": 2, "void": True, "reason": "no"})
    assert _send(client, tokens["alpha"], [void]).json["last_seq"] == 4
    back = client.get("/api/games/g1/board").json
    assert next((p["x"], p["y"]) for p in back["pieces"] if p["id"] == "t34a") == (11.0, 12.0)


def test_other_events_under_held_seqs_are_409_naming_the_first_that_differs(club):
    """Issue 42: two histories of one game were 200 {"added": 0}; now 409, nothing written."""
    client, store, tokens = club
    _register(client, tokens["alpha"])
    _send(client, tokens["alpha"], events(1, 6))
    other = [e.to_json() for e in events(1, 9)]
    other[3] = {**other[3], "verdict": {**other[3]["verdict"], "ok": False}}  # seq 4
    answer = client.post(
        "/api/games/g1/events", json={"events": other}, headers=_auth(tokens["alpha"])
    )
    assert answer.status_code == 409
    assert answer.json["differs"] == 4 and answer.json["last_seq"] == 6
    assert "event #4 differs" in answer.json["error"] and "\n" not in answer.json["error"]
    assert store.game("g1").last_seq == 6
    assert client.get("/api/games/g1/events").json["events"] == [e.to_json() for e in events(1, 6)]
    again = _send(client, tokens["alpha"], events(1, 6))  # the same again: still idempotent
    assert again.status_code == 200 and again.json == {"added": 0, "last_seq": 6}
