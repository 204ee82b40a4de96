"""The club page's parts for the people at the club (issue 42): the timeline in log show's
sentences, the dashboard's colours, labels that cover nothing, "live" only while a table
sends, results with their rule, and names no game can have answered in one line (both
back-ends). What a person reads in Chromium is in test_club_browser.py."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.club import create_app
from referee.club.pages import disputes, game_colours, map_view, place_labels
from referee.club.replay import board_at
from referee.club.store import LIVE_SECONDS, MIGRATIONS, ClubGame, ClubStore
from referee.events import GameEvent, timeline
from referee.picture import PALETTE

from .helpers import ROOT, ROSTER, SCENE, events, move, running_club, story, story_log, table_log


@pytest.fixture
def store(club_url):
    with ClubStore(club_url) as opened:
        yield opened


def _story_club(store: ClubStore, name: str = "story") -> ClubGame:
    if "alpha" not in {t.name for t in store.tables()}:
        store.add_table("alpha")
    store.open_game("alpha", name, "paper-tigers", SCENE, ROSTER)
    store.ingest("alpha", name, story())
    return store.game(name)


def test_the_timeline_reads_in_sentences_as_log_show_prints_them(tmp_path):
    story_log(tmp_path / "games.sqlite").close()
    shown = CliRunner().invoke(
        cli, ["log", "show", "story", "--db", str(tmp_path / "games.sqlite")]
    )
    assert shown.exit_code == 0, shown.output
    lines = [line for entry in timeline(story()) for line in entry.lines()]
    assert shown.stdout.splitlines()[1:] == lines
    text = "\n".join(lines)
    assert "{" not in text  # no raw JSON left
    assert "declare follow_me t34a, action move: Follow Me announced by t34a" in text
    assert "declare move sq1 to (19.00, 16.50) facing 300, allowance 6" in text
    assert "correction of #4 (move t34a): did not happen (knocked over)" in text
    assert "correction of #6 (move t34b): came to rest at (20.00, 20.00) facing 45" in text
    assert "verdict los (after correction #8): ok" in text
    assert lines[3].endswith("facing 270  (corrected)")
    assert lines[4] == " " * 18 + "Follow Me by t34a: t34b follows t34a"


def test_disputes_carry_their_reasons_and_corrections_what_was_asked_again():
    found = disputes(timeline(story()))
    by_seq = {d.entry.event.seq: d for d in found}
    assert sorted(by_seq) == [3, 5, 8, 10, 11]  # refused, too close to call, corrections
    assert by_seq[3].reasons == ("the line crosses woods wood1: LOS through it is blocked",)
    assert by_seq[3].entry.text.startswith("verdict los: NOT OK")  # the whole word "verdict"
    assert by_seq[5].corrected_by == 8 and by_seq[5].ok is None
    assert [x.event.seq for x in by_seq[8].asked_again] == [9]
    assert [x.event.seq for x in by_seq[10].asked_again] == [11]


def test_a_correction_puts_the_piece_where_it_says():
    board = board_at(SCENE, ROSTER, story())
    where = {p.id: (p.x, p.y, p.heading) for p in board.pieces}
    start = {p["id"]: (p["x"], p["y"]) for p in SCENE["pieces"]}
    assert where["t34a"][:2] == start["t34a"]  # voided: it never moved
    assert where["t34b"] == (20.0, 20.0, 45.0)  # put where the correction says
    before = {p.id: (p.x, p.y) for p in board_at(SCENE, ROSTER, story(), upto_seq=7).pieces}
    assert before["t34b"] == (12.4, 15.2)  # before the correction: as the camera saw it


def test_side_colours_are_the_dashboards(tmp_path):
    """The club colours a game's sides as the table's dashboard does (its /api/info)."""
    from referee.game import sample_live
    from referee.store import GameLog
    from referee.web import create_app as dashboard

    log = GameLog(tmp_path / "games.sqlite")
    live = sample_live(pace=0, log=log, game="g")
    try:
        info = dashboard(live, {"TESTING": True}).test_client().get("/api/info").json
        logged = log.game("g")
    finally:
        live.stop()
        log.close()
    game = ClubGame(1, "g", "alpha", logged.ruleset, logged.created, logged.scene,
                    logged.roster, 0, 0.0, 0.0)  # fmt: skip
    assert game_colours(game) == info["sides"]
    view = map_view(board_at(game.scene, game.roster, []), game_colours(game))
    for piece in info["pieces"]:
        if any(p.id == piece["id"] for p in view["board"].pieces):
            assert view["side"][piece["side"]] == piece["colour"]


def test_every_terrain_kind_has_the_dashboards_colour_and_a_legend_entry():
    scene = json.loads((ROOT / "sample_footage" / "club" / "scene.json").read_text())
    roster = json.loads((ROOT / "sample_footage" / "club" / "roster.json").read_text())
    board = board_at(scene, roster, [])
    view = map_view(board, {"german": "#d23c3c", "soviet": "#3c78d2"})
    kinds = {t["kind"] for t in scene["terrain"]}
    assert set(view["terrain"]) == kinds
    assert all(view["terrain"][k] == PALETTE["terrain"][k] for k in kinds)
    assert len(set(view["terrain"].values())) == len(kinds)  # one colour per kind


@pytest.mark.parametrize("sample", ["skirmish", "club"])
def test_labels_cover_no_base_and_no_other_label(sample):
    folder = ROOT / "sample_footage" / sample
    scene = json.loads((folder / "scene.json").read_text())
    board = board_at(scene, json.loads((folder / "roster.json").read_text()), [])
    size = 1.2
    labels = place_labels(board, size)
    assert set(labels) == {p.id for p in board.pieces}

    def box(label):
        half = 0.3 * size * len(label.text)
        return (label.x - half, label.y - 0.8 * size, label.x + half, label.y + 0.2 * size)

    def meets(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    boxes = {pid: box(label) for pid, label in labels.items()}
    for p in board.pieces:
        r = max(p.base) / 2
        base = (p.x - r, p.y - r, p.x + r, p.y + r)
        assert not any(meets(base, b) for pid, b in boxes.items() if pid != p.id), p.id
        assert not any(meets(boxes[p.id], b) for pid, b in boxes.items() if pid != p.id), p.id
        b = boxes[p.id]
        assert b[0] >= 0 and b[2] <= board.width and b[1] >= 0 and b[3] <= board.depth, p.id


def test_live_is_an_event_within_the_threshold_and_no_end_since():
    def game(updated, ended=None):
        return ClubGame(1, "g", "t", "pt", "", {}, None, 3, 1.0, updated, ended)

    now = 10_000.0
    assert game(now - 1).live(now)
    assert game(now - LIVE_SECONDS + 1).live(now)
    assert not game(now - LIVE_SECONDS - 1).live(now)  # a table gone quiet (or killed)
    assert not game(now - 5, ended=now - 2).live(now)  # ended after its last event
    assert game(now - 1, ended=now - 5).live(now)  # played on after an end: live again


def test_a_tables_end_makes_its_game_not_live_until_its_next_event(store):
    token = store.add_table("alpha")
    store.add_table("beta")
    client = create_app(store, {"TESTING": True}).test_client()
    auth = {"Authorization": f"Bearer {token}"}
    body = {"ruleset": "paper-tigers", "scene": SCENE, "roster": ROSTER, "created": None}
    assert client.put("/api/games/g1", json=body, headers=auth).status_code == 200
    store.ingest("alpha", "g1", events(1, 3))
    assert client.get("/api/games/g1").json["live"] is True
    ended = client.post("/api/games/g1/end", headers=auth)
    assert ended.status_code == 200 and ended.json["live"] is False
    assert client.get("/api/games/g1").json["live"] is False
    assert client.get("/api/games/g1").json["ended"] is not None
    time.sleep(0.01)
    store.ingest("alpha", "g1", events(4, 4))  # the game resumed
    assert client.get("/api/games/g1").json["live"] is True
    assert client.post("/api/games/g1/end").status_code == 401
    other = {"Authorization": f"Bearer {store.add_table('gamma')}"}
    assert client.post("/api/games/g1/end", headers=other).status_code == 403
    assert client.post("/api/games/nope/end", headers=auth).status_code == 404
    assert client.post("/api/games/a%00b/end", headers=auth).status_code == 404
    assert client.get("/api/games/g1").json["live"] is True  # refused ends changed nothing


def test_a_sender_that_stops_and_a_push_end_the_game_at_the_club(store, tmp_path):
    from referee.club.sender import ClubSender, push

    token = store.add_table("alpha")
    db = tmp_path / "games.sqlite"
    table_log(db, "g1", 12).close()
    table_log(db, "g2", 4).close()
    with running_club(store) as club:
        sender = ClubSender(db, "g1", club.url, token).start()
        deadline = time.monotonic() + 30
        while sender.acked != 12:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert store.game("g1").live(time.time())
        assert sender.stop() == 0
        assert not store.game("g1").live(time.time())
        push(db, club.url, token, ["g2"])
        assert not store.game("g2").live(time.time())


def test_an_older_club_database_is_migrated_and_its_games_kept(tmp_path):
    path = tmp_path / "club.sqlite"
    con = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        con.execute(statement)
    con.executemany(
        "INSERT INTO club_meta (key, value) VALUES (?, ?)",
        [("application", "table-referee-club"), ("schema_version", "1")],
    )
    con.execute(
        "INSERT INTO club_games VALUES (1, 'old', 'alpha', 'paper-tigers', 'then', ?, NULL, 0,"
        " 0.0, 5.0)",
        (json.dumps(SCENE),),
    )
    con.commit()
    con.close()
    with ClubStore(f"sqlite:///{path}") as store:
        old = store.game("old")
        assert old.ended is None and not old.live(time.time())
        assert store.ingest("alpha", "old", events(1, 2)) == (2, 2)
        assert store.end("alpha", "old").ended is not None  # the new column is there


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/games/nope", 404),
        ("/games/a%00b", 404),
        ("/games/%ED%A0%80", 404),
        ("/games/story?at=soon", 400),
        ("/api/games/a%00b", 404),
        ("/api/games/a%00b/events", 404),
        ("/api/games/a%00b/board", 404),
    ],
)
def test_a_name_no_game_has_is_one_line_never_a_500(store, path, status):
    """A NUL in a name made PostgreSQL's club page a 500 (issue 42)."""
    _story_club(store)
    client = create_app(store).test_client()
    answer = client.get(path)
    assert answer.status_code == status, answer.get_data(as_text=True)
    body = answer.get_data(as_text=True).strip()
    assert body and "\n" not in body and "Traceback" not in body
    assert client.get("/api/games?table=a%00b").json == {"games": []}


@pytest.mark.parametrize(
    "registration",
    [
        {"ruleset": "paper\x00tigers"},
        {"ruleset": "paper\ud800tigers"},
        {"created": "2026\x00"},
        {"created": "\udfff"},
    ],
)
def test_registration_text_no_database_can_hold_is_400(store, registration):
    token = store.add_table("alpha")
    client = create_app(store).test_client()
    body = {"ruleset": "paper-tigers", "scene": SCENE, "roster": None, "created": None}
    body.update(registration)
    text = json.dumps(body)  # \u0000 and \ud800 as JSON escapes
    for name in ("g1", "a%00b"):
        answer = client.put(
            f"/api/games/{name}",
            data=text,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        assert answer.status_code == 400 and "\n" not in answer.json["error"]
    assert store.games() == []


@pytest.mark.parametrize("piece", ["t34\x00a", "t34\ud800"])
def test_an_event_whose_piece_no_database_can_hold_is_400(store, piece):
    token = store.add_table("alpha")
    store.open_game("alpha", "g1", "paper-tigers", SCENE, ROSTER)
    client = create_app(store).test_client()
    line = move(1, piece="x").to_json()
    line["piece"] = piece
    answer = client.post(
        "/api/games/g1/events",
        data=json.dumps({"events": [line]}),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert answer.status_code == 400 and "piece" in answer.json["error"]
    assert store.game("g1").last_seq == 0


def test_the_victory_result_names_the_rule_that_scored_it(store):
    _story_club(store)
    client = create_app(store).test_client()
    page = client.get("/").get_data(as_text=True)
    assert "the Paper Tigers victory rule" in page
    assert "pz1 (tank, german) destroyed: 5 VP" in page and "soviet 5 VP, german 1 VP" in page


def test_an_event_not_yet_of_any_known_shape_still_reads(store):
    """A newer table's event the page does not know (or a damaged one) is drawn, not a 500."""
    store.add_table("alpha")
    store.open_game("alpha", "g1", "paper-tigers", SCENE, ROSTER)
    odd = [
        GameEvent(1, 0.0, "declare", {"declare": "not an object"}),
        GameEvent(2, 0.1, "correction", {"supersedes": 1, "what": [1, 2]}),
        GameEvent(3, 0.2, "verdict", {"verdict": {"ask": "victory", "points": 3, "reasons": 2}}),
    ]
    store.ingest("alpha", "g1", odd)
    client = create_app(store).test_client()
    assert client.get("/games/g1").status_code == 200
    assert client.get("/").status_code == 200
