"""Bad input of the club server (issue 33): malformed batches and registrations, tokens that
are not a table's, URLs that are not databases or clubs, option values. Every batch is taken
whole or refused whole with a 400/401/403/409 (never a 500); every command succeeds or says
one ``referee: error:`` line with exit 2, and nothing already written changes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from badinput.harness import FUZZ, SAMPLE, VALUES, assert_clean, invoke, mutated_text, snapshot
from referee.club import create_app
from referee.club.store import ClubStore
from referee.events import GameEvent
from referee.store import GameLog

SCENE = json.loads((SAMPLE / "scene.json").read_text())
MOVE = GameEvent(
    1,
    0.5,
    "move",
    {
        "piece": "t34a",
        "from": {"x": 10, "y": 20.5, "heading": 270},
        "to": {"x": 10, "y": 14.5, "heading": 270},
        "distance": 6.0,
        "uncertainty": 0.006,
    },
    frame=6,
).to_json()
FLAG = {"seq": 2, "t": 0.6, "type": "flag", "frame": 7, "kind": "jump", "message": "m"}
REMOVED = {
    "seq": 3,
    "t": 0.7,
    "type": "removed",
    "frame": 8,
    "piece": "t34a",
    "at": {"x": 10, "y": 14.5, "heading": 270},
    "reason": "carried off the south edge",
    "edge": "south",
}
BATCH = {"events": [MOVE, FLAG, REMOVED]}
REGISTRATION = {"ruleset": "paper-tigers", "scene": SCENE, "roster": None, "created": None}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    store = ClubStore(f"sqlite:///{tmp_path_factory.mktemp('club') / 'club.sqlite'}")
    token = store.add_table("alpha")
    other = store.add_table("beta")
    client = create_app(store, {"TESTING": True}).test_client()
    yield client, store, token, other
    store.close()


def _files_of(files: dict[str, bytes]) -> dict[str, bytes]:
    """Files by name without SQLite's -wal and -shm beside a log (a WAL reader makes them)."""
    return {k: v for k, v in files.items() if not k.endswith(("-wal", "-shm"))}


def _files(folder) -> dict[str, bytes]:
    return _files_of(snapshot(folder))


def _state(store: ClubStore) -> list[tuple[str, int]]:
    return [(g.name, g.last_seq) for g in store.games()]


@FUZZ
@given(text=mutated_text(BATCH), n=st.integers(0, 10**9))
def test_any_batch_is_taken_whole_or_refused_whole(club, text, n):
    client, store, token, _ = club
    name = f"g{n}"
    client.put(
        f"/api/games/{name}", json=REGISTRATION, headers={"Authorization": f"Bearer {token}"}
    )
    before = _state(store)
    answer = client.post(
        f"/api/games/{name}/events",
        data=text,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert answer.status_code in (200, 400, 409), answer.get_data(as_text=True)
    assert isinstance(answer.json, dict)
    if answer.status_code != 200:
        assert answer.json["error"] and "\n" not in answer.json["error"]
        assert _state(store) == before
    else:
        stored = store.events(store.game(name))
        assert [e.seq for e in stored] == list(range(1, len(stored) + 1))


@FUZZ
@given(text=mutated_text(REGISTRATION))
def test_any_registration_registers_or_is_400(club, text):
    client, store, token, _ = club
    before = _state(store)
    answer = client.put(
        "/api/games/reg",
        data=text,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert answer.status_code in (200, 400), answer.get_data(as_text=True)
    if answer.status_code == 400:
        assert _state(store) == before


@FUZZ
@given(header=st.one_of(st.text(max_size=60), st.sampled_from(["Bearer", "Bearer ", "bearer x"])))
def test_any_token_but_a_tables_own_is_401(club, header):
    client, store, token, other = club
    if token in header or other in header:
        return
    before = _state(store)
    for method, path, body in (
        ("put", "/api/games/t", REGISTRATION),
        ("post", "/api/games/t/events", BATCH),
    ):
        try:
            answer = getattr(client, method)(path, json=body, headers={"Authorization": header})
        except ValueError:  # a header werkzeug itself refuses to send (a newline in it)
            continue
        assert answer.status_code == 401
    assert _state(store) == before


def test_another_tables_game_is_403_and_the_same_name_409(club):
    client, store, token, other = club
    auth = {"Authorization": f"Bearer {token}"}
    client.put("/api/games/mine", json=REGISTRATION, headers=auth)
    before = _state(store)
    theirs = {"Authorization": f"Bearer {other}"}
    assert client.post("/api/games/mine/events", json=BATCH, headers=theirs).status_code == 403
    assert client.put("/api/games/mine", json=REGISTRATION, headers=theirs).status_code == 409
    assert _state(store) == before


@FUZZ
@given(value=VALUES)
def test_any_db_url_is_a_club_or_one_line(tmp_path_factory, value):
    folder = tmp_path_factory.mktemp("url")
    log = folder / "games.sqlite"
    GameLog(log).close()
    before = snapshot(folder)
    text = str(value) if not isinstance(value, str) else value
    # A random user and database, never a random host: nothing here reaches the network.
    pg = f"postgresql://{quote(text[:60], safe='')}@127.0.0.1:1/{quote(text[:60], safe='')}"
    for url in (text, f"sqlite:///{log}", pg):
        if "\x00" in url:
            continue
        result = invoke("club", "table", "list", "--db", url)
        assert_clean(result)
    assert snapshot(folder) == before  # a game log given as a club is never touched


@pytest.mark.parametrize(
    "url",
    [
        "games.sqlite",
        "sqlite://games.sqlite",
        "sqlite:///",
        "mysql://root@localhost/club",
        "http://127.0.0.1:8780/",
        "postgresql://nobody@127.0.0.1:1/club?connect_timeout=1",
        "postgresql://bad url with spaces",
    ],
)
def test_urls_that_are_not_databases_are_one_line(url):
    result = invoke("club", "table", "add", "alpha", "--db", url)
    assert_clean(result)
    assert result.exit_code == 2
    assert "--db" in result.stderr or "PostgreSQL" in result.stderr


def test_another_programs_sqlite_file_is_left_as_it_was(tmp_path):
    path = tmp_path / "other.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (x TEXT)")
    con.commit()
    con.close()
    before = snapshot(tmp_path)
    for args in (["table", "add", "x"], ["table", "list"], ["export"]):
        result = invoke("club", *args, "--db", f"sqlite:///{path}")
        assert_clean(result)
        assert result.exit_code == 2
    assert snapshot(tmp_path) == before


@FUZZ
@given(
    option=st.sampled_from(["--club", "--club-token", "--db", "--game"]),
    value=VALUES,
)
def test_push_options_are_accepted_or_one_line(tmp_path_factory, option, value):
    folder = tmp_path_factory.mktemp("push")
    log = GameLog(folder / "games.sqlite")
    log.create_game("g", "paper-tigers", SCENE)
    log.close()
    before = snapshot(folder)
    args = {
        "--db": str(folder / "games.sqlite"),
        "--club": "http://127.0.0.1:9/",
        "--club-token": "t",
        "--wait": "0",
    }
    args[option] = str(value)
    if "\x00" in str(value):
        return
    flat = [x for pair in args.items() for x in pair]
    result = invoke("club", "push", *flat)
    assert_clean(result)
    assert result.exit_code == 2  # nothing listens on port 9: never a success
    assert _files(folder) == _files_of(before)


@pytest.mark.parametrize("wait", ["-1", "nan", "inf", "3601", "soon", "x" * 100_000])
def test_push_wait_out_of_range_is_one_line(tmp_path, wait):
    result = invoke(
        "club",
        "push",
        "--db",
        str(tmp_path / "g.sqlite"),
        "--club",
        "http://127.0.0.1:9/",
        "--club-token",
        "t",
        "--wait",
        wait,
    )
    assert_clean(result)
    assert result.exit_code == 2 and "--wait" in result.stderr
    assert not (tmp_path / "g.sqlite").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--club", "http://127.0.0.1:9/"], "--club and --club-token go together"),
        (["--club-token", "t"], "--club and --club-token go together"),
        (["--club", "ftp://x/", "--club-token", "t"], "--club: 'ftp://x/' is not a club"),
        (["--club", "http://h/", "--club-token", " "], "--club-token"),
        (["--club", "http://h/", "--club-token", "t", "--no-log"], "cannot go with --no-log"),
    ],
)
@pytest.mark.parametrize("command", ["run", "demo", "serve"])
def test_club_options_of_a_table_are_checked_before_anything_is_written(
    tmp_path, args, message, command
):
    base = {
        "run": [
            "run",
            "--video",
            str(SAMPLE / "video.mp4"),
            "-c",
            str(SAMPLE / "camera.json"),
            "-r",
            str(SAMPLE / "roster.json"),
        ],
        "demo": ["demo", "--use-true-camera"],
        "serve": ["serve"],
    }[command]
    db = [] if "--no-log" in args else ["--db", str(tmp_path / "games.sqlite")]
    result = invoke(*base, *db, *args)
    assert_clean(result)
    assert result.exit_code == 2 and message in result.stderr
    assert snapshot(tmp_path) == {}


def test_club_export_and_table_options(tmp_path):
    url = f"sqlite:///{tmp_path / 'club.sqlite'}"
    for args in (
        ["table", "add", "", "--db", url],
        ["table", "add", "x" * 65, "--db", url],
        ["table", "remove", "nobody", "--db", url],
        ["export", "--db", url, "--format", "xml"],
        ["export", "--db", url, "--game", "nope"],
        ["serve", "--db", url, "--port", "70000"],
        ["export", "--db", url, "--out", str(tmp_path)],
    ):
        result = invoke("club", *args)
        assert_clean(result)
        assert result.exit_code == 2, args


def test_a_club_port_in_use_is_one_line(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = invoke(
            "club", "serve", "--db", f"sqlite:///{tmp_path / 'c.sqlite'}", "--port", str(port)
        )
    assert_clean(result)
    assert result.exit_code == 2 and f"--port {port}" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["push", "--db", "x" * 5000, "--club", "http://127.0.0.1:9/", "--club-token", "t"],
        ["table", "list", "--db", "sqlite:///" + "x" * 5000],
        ["table", "list", "--db", "sqlite:///a/" + "x" * 300],
        ["export", "--out", "x" * 5000],
    ],
)
def test_names_too_long_for_the_system_are_one_line(args):
    result = invoke("club", *args)
    assert_clean(result)
    assert result.exit_code == 2 and "--" in result.stderr


# -- the club's scripts (issue 38): club.js and the dashboard's modules, nothing else --------------

SHARED_JS = Path(__file__).resolve().parents[2] / "referee" / "web" / "static" / "js"
SCRIPTS = {"club.js"} | {f"js/{p.name}" for p in SHARED_JS.glob("*.js")}
_SEGMENTS = st.sampled_from(
    ["js", "..", ".", "", "club.js", "colours.js", "draw.js", "app.js", "pages.py", "%2e%2e",
     "..%2f", "%00", "\\", "COLOURS.JS", "templates", "static", "~", "colours.js%00.py"]
)  # fmt: skip
_NAMES = st.one_of(
    st.lists(_SEGMENTS, min_size=1, max_size=5).map("/".join),
    st.text(max_size=40).map(lambda t: quote(t.encode("utf-8", "surrogatepass"), safe="/")),
)


@FUZZ
@given(name=_NAMES)
def test_a_static_path_is_a_script_or_a_one_line_404(club, name):
    """Only club.js and js/NAME.js of the dashboard's modules are served; any other path
    (``..`` among its parts, escaped or not, a NUL, a folder) is one line, never a file."""
    client = club[0]
    answer = client.get(f"/static/{name}")
    if name in SCRIPTS:
        assert answer.status_code == 200 and answer.mimetype == "text/javascript"
        return
    assert answer.status_code == 404, (name, answer.status_code)
    body = answer.get_data(as_text=True)
    assert body.count("\n") == 1 and "Traceback" not in body, body
    assert body.startswith(("no such script: ", "no such page or endpoint: ")), body
    assert "def " not in body and "import" not in body  # no file's text


# -- text no database can hold, on both back-ends (issue 42) -------------------------------------


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def both(request, tmp_path_factory):
    """A club on each back-end with one game of seven events (PostgreSQL is the one that
    cannot store a NUL: a game name holding one was a 500 on its club page)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('club') / 'club.sqlite'}"
        server = None
    else:
        from club.postgres import PostgresServer, postgres_missing

        if postgres_missing() is not None:
            pytest.skip(str(postgres_missing()))
        server = PostgresServer()
        server.start()
        url = server.new_database("badinput_club")
    store = ClubStore(url)
    token = store.add_table("alpha")
    client = create_app(store).test_client()  # as served: errors answered, never raised
    auth = {"Authorization": f"Bearer {token}"}
    client.put("/api/games/g", json=REGISTRATION, headers=auth)
    client.post("/api/games/g/events", json=BATCH, headers=auth)
    yield client, store, auth
    store.close()
    if server is not None:
        server.destroy()


# Around the unstorable character, text a game name in a URL can carry: no control
# characters, no surrogate and no "/" (a newline never routes, so it is a one-line 404
# from the app, tested on its own; werkzeug reads a lone surrogate's bytes as U+FFFD).
_AROUND = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="/\ufffd"),
    max_size=8,
)
UNSTORABLE = st.builds(
    lambda a, bad, b: a + bad + b,
    _AROUND,
    st.sampled_from(["\x00", "\ud800", "\udbff", "\udfff"]),
    _AROUND,
)


def _url(text: str) -> str:
    # A lone surrogate has no UTF-8: sent as the bytes a client would send, which the
    # server reads as U+FFFD; a NUL arrives as it is.
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def _one_line(answer) -> str:
    body = answer.get_data(as_text=True).strip()
    assert body and "\n" not in body and "Traceback" not in body, body
    return body


@FUZZ
@given(name=UNSTORABLE, where=st.sampled_from(["page", "replay", "api", "events", "board"]))
def test_a_name_no_database_can_hold_is_read_as_no_game(both, name, where):
    client = both[0]
    path = {
        "page": "/games/{}",
        "replay": "/games/{}?at=3",
        "api": "/api/games/{}",
        "events": "/api/games/{}/events?after=1",
        "board": "/api/games/{}/board",
    }[where].format(_url(name))
    answer = client.get(path)
    assert answer.status_code == 404, (path, answer.get_data(as_text=True))
    _one_line(answer)
    listed = client.get(f"/api/games?table={_url(name)}")
    assert listed.status_code == 200 and listed.json == {"games": []}
    assert client.get(f"/?fragment={_url(name)}").status_code == 200


@FUZZ
@given(text=UNSTORABLE, key=st.sampled_from(["name", "ruleset", "created", "piece", "end"]))
def test_text_no_database_can_hold_is_refused_in_one_line_and_nothing_written(both, text, key):
    client, store, auth = both
    before = _state(store)
    headers = {**auth, "Content-Type": "application/json"}
    if key == "name":
        answer = client.put(f"/api/games/{_url(text)}", json=REGISTRATION, headers=auth)
    elif key in ("ruleset", "created"):
        body = json.dumps({**REGISTRATION, key: text})  # \u0000 and \ud800 as JSON escapes
        answer = client.put("/api/games/fresh", data=body, headers=headers)
    elif key == "piece":
        line = {**FLAG, "seq": 3, "piece": text}
        answer = client.post("/api/games/g/events", data=json.dumps({"events": [line]}),
                             headers=headers)  # fmt: skip
    else:
        answer = client.post(f"/api/games/{_url(text)}/end", headers=auth)
    if "\x00" not in text and key == "name":
        # A surrogate in a URL arrives as U+FFFD, which a game name may hold: registered.
        assert answer.status_code == 200, answer.get_data(as_text=True)
        return
    if key == "end":
        # A surrogate arrives as U+FFFD too: that name's game, if an earlier example
        # registered it (200, its end), else none (404); a NUL never routes to a game.
        allowed = (404,) if "\x00" in text else (200, 404)
        assert answer.status_code in allowed, answer.get_data(as_text=True)
        if answer.status_code == 200:
            return
    else:
        assert answer.status_code == 400, answer.get_data(as_text=True)
    assert answer.json["error"] and "\n" not in answer.json["error"]
    assert _state(store) == before


def test_a_games_end_is_the_tables_own_and_one_line_otherwise(both):
    client, store, auth = both
    before = _state(store)
    for headers, status in (({}, 401), ({"Authorization": "Bearer nope"}, 401)):
        assert client.post("/api/games/g/end", headers=headers).status_code == status
    other = {"Authorization": f"Bearer {store.add_table(f'other{len(store.tables())}')}"}
    assert client.post("/api/games/g/end", headers=other).status_code == 403
    assert client.post("/api/games/nope/end", headers=auth).status_code == 404
    assert client.get("/api/games/g/end").status_code == 404  # a read of a game "g/end"
    assert _state(store) == before
    answer = client.post("/api/games/g/end", headers=auth, data="not json at all")
    assert answer.status_code == 200 and answer.json["live"] is False  # the body is not read


@FUZZ
@given(text=mutated_text(BATCH))
def test_a_changed_resend_of_held_events_is_refused_never_taken_as_held(club, text):
    """Issue 42: other events under seqs the club holds were 200 {"added": 0}. A re-send of
    the held batch, changed anywhere, is the same events again (200, nothing added), new
    events after them, or refused (400/409) with the held events exactly as they were."""
    client, store, token, _ = club
    auth = {"Authorization": f"Bearer {token}"}
    client.put("/api/games/held", json=REGISTRATION, headers=auth)
    client.post("/api/games/held/events", json=BATCH, headers=auth)
    held = [e.to_json() for e in store.events(store.game("held"))]
    assert held == BATCH["events"]
    answer = client.post(
        "/api/games/held/events",
        data=text,
        headers={**auth, "Content-Type": "application/json"},
    )
    assert answer.status_code in (200, 400, 409), answer.get_data(as_text=True)
    now = [e.to_json() for e in store.events(store.game("held"))]
    assert now[: len(held)] == held  # what the club held is never changed
    if answer.status_code == 409 and "differs" in answer.json:
        assert 1 <= answer.json["differs"] <= len(held) and now == held
    if answer.status_code == 200:
        sent = json.loads(text)["events"]
        for line in sent:
            if line["seq"] <= len(held):
                assert GameEvent.from_json(line).to_json() == held[line["seq"] - 1]


@pytest.mark.parametrize(
    "path", ["/games/a%0Ab", "/api/games/a%0Ab", "/api/games/a%0Ab/events", "/nope"]
)
def test_a_path_no_route_takes_is_one_line(both, path):
    """A name with a newline takes no route (werkzeug's path converter stops at one): the
    app's own one-line 404, JSON under /api, never werkzeug's HTML page."""
    answer = both[0].get(path)
    assert answer.status_code == 404
    _one_line(answer)


# -- evidence pictures (PUT /api/games/NAME/evidence/SEQ/KIND.jpg) ----------------------------

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 60 + b"\xff\xd9"
"""Starts and ends as a JPEG does: what the club checks (it stores, it does not decode)."""


@pytest.fixture(scope="module")
def pictured(club):
    """Club game ``ev`` of alpha holding three events, ready for pictures."""
    client, store, token, other = club
    auth = {"Authorization": f"Bearer {token}"}
    client.put("/api/games/ev", json=REGISTRATION, headers=auth)
    assert client.post("/api/games/ev/events", json=BATCH, headers=auth).status_code == 200
    return client, store, auth, {"Authorization": f"Bearer {other}"}


def _pictures(store: ClubStore) -> dict[int, list[str]]:
    return store.evidence_index(store.game("ev"))


@pytest.mark.parametrize(
    ("path", "body", "status", "said"),
    [
        ("1/sky.jpg", JPEG, 400, "evidence kind 'sky': use one of camera, top"),
        ("1/Camera.jpg", JPEG, 400, "use one of camera, top"),
        ("1/camera.jpg", JPEG[:-2] + b"\x00" * (64 * 1024), 400, "at most"),
        ("1/camera.jpg", b"GIF89a not a jpeg", 400, "the body must be a JPEG picture"),
        ("1/camera.jpg", b"", 400, "the body must be a JPEG picture"),
        ("9/camera.jpg", JPEG, 404, "the club holds no event #9; send its batch first"),
        ("0/top.jpg", JPEG, 404, "no event #0"),
        # No event number: not this route, so the game registration's, which a JPEG is not.
        ("-1/top.jpg", JPEG, 400, "the body must be JSON"),
        ("x/top.jpg", JPEG, 400, "the body must be JSON"),
    ],
)
def test_a_bad_picture_is_one_line_and_nothing_kept(pictured, path, body, status, said):
    client, store, auth, _ = pictured
    before = _pictures(store)
    answer = client.put(
        f"/api/games/ev/evidence/{path}",
        data=body,
        headers={**auth, "Content-Type": "image/jpeg"},
    )
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert said in answer.json["error"] and "\n" not in answer.json["error"]
    assert _pictures(store) == before


def test_a_picture_needs_the_games_own_tables_token(pictured):
    client, store, _auth, other = pictured
    before = _pictures(store)
    url = "/api/games/ev/evidence/1/top.jpg"
    assert client.put(url, data=JPEG).status_code == 401
    assert client.put(url, data=JPEG, headers=other).status_code == 403
    assert (
        client.put("/api/games/nogame/evidence/1/top.jpg", data=JPEG, headers=other)
        .json["error"]
        .startswith("no game 'nogame'")
    )
    assert _pictures(store) == before
    missing = client.get("/api/games/ev/evidence/3/sky.jpg")
    assert missing.status_code == 404 and "\n" not in missing.json["error"]


@FUZZ
@given(kind=st.text(max_size=20), body=st.binary(max_size=200), seq=st.integers(-5, 10**12))
def test_any_picture_is_kept_or_refused_in_one_line(pictured, kind, body, seq):
    client, store, auth, _ = pictured
    before = _pictures(store)
    answer = client.put(
        f"/api/games/ev/evidence/{seq}/{quote(kind, safe='')}.jpg",
        data=body,
        headers={**auth, "Content-Type": "image/jpeg"},
    )
    assert answer.status_code in (200, 400, 404), answer.get_data(as_text=True)
    assert isinstance(answer.json, dict)
    if answer.status_code != 200:
        assert answer.json["error"] and "\n" not in answer.json["error"]
        assert _pictures(store) == before
    else:
        assert kind in ("camera", "top") and 1 <= seq <= 3
        assert store.evidence(store.game("ev"), seq, kind) in (body, JPEG)
