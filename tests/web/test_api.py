"""Every /api endpoint through Flask's test client, with bad input and the token rules."""

from __future__ import annotations

import json
from html import escape

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.game import sample_live
from referee.picture import PALETTE
from referee.scene import Scene
from referee.store import GameLog
from referee.web import create_app

POST = {"Content-Type": "application/json"}


def post(client, path, body, **headers):
    data = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post(path, data=data, headers={**POST, **headers})


def check_json(tmp_path, scene: dict) -> dict:
    """What ``referee check --json`` prints for this scene file."""
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    result = CliRunner().invoke(cli, ["check", str(path), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


# -- the table ---------------------------------------------------------------------------------


def test_state_is_a_scene_file_that_check_answers(client, tmp_path):
    state = client.get("/api/state").get_json()
    scene = Scene.from_json(state)
    assert {"t34a", "pz1", "sq1"} <= {p.id for p in scene}
    t34a = scene.piece("t34a")
    assert t34a.y == pytest.approx(14.5, abs=0.05)  # moved from 20.5 in the first 3 s
    assert t34a.uncertainty > 0
    assert {t.id for t in scene.terrain} >= {"wood1", "house1", "road1"}
    # its standing questions are answerable by check as they stand
    assert len(check_json(tmp_path, state)["verdicts"]) == len(state["queries"])


def test_ask_answers_as_check_json_does(client, tmp_path):
    query = {"ask": "range", "from": "sq1", "to": "gs2"}
    answer = post(client, "/api/ask", query)
    assert answer.status_code == 200
    scene = client.get("/api/state").get_json()
    scene["queries"] = [query]
    assert answer.get_json() == check_json(tmp_path, scene)
    verdict = answer.get_json()["verdicts"][0]
    assert verdict["distance"] > 12 and verdict["ok"] is False  # infantry range 12in
    # the dispute was logged
    events = client.get("/api/events").get_json()["events"]
    assert events[-1]["type"] == "verdict" and events[-1]["verdict"] == verdict


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("not json", "send one JSON object"),
        ("[1, 2]", "body: send one JSON object"),
        ({"ask": "range", "from": "t34a", "to": "nobody"}, "nobody"),
        ({"ask": "teleport", "piece": "t34a"}, "teleport"),
        ({"ask": "range", "from": "t34a"}, "$.queries[0]"),
        ({"ask": "move", "piece": "sq1", "to": {"x": "far"}}, "$.queries[0]"),
    ],
)
def test_ask_bad_input_is_400_with_one_line(client, body, needle):
    answer = post(client, "/api/ask", body)
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert needle in error and "\n" not in error


def test_bodies_are_size_limited(client):
    huge = {"ask": "range", "from": "t34a", "to": "pz1", "pad": "x" * 100_000}
    answer = post(client, "/api/ask", huge)
    assert answer.status_code == 413
    assert "too large" in answer.get_json()["error"]


def test_unknown_endpoint_and_method_are_json(client):
    assert client.get("/api/nothing").status_code == 404
    assert "no such endpoint" in client.get("/api/nothing").get_json()["error"]
    assert client.get("/api/ask").status_code == 405


def test_info_gives_pieces_colours_and_the_rulesets_ranges(client):
    info = client.get("/api/info").get_json()
    assert info["ruleset"]["name"] == "paper-tigers" and "los" in info["ruleset"]["questions"]
    pieces = {p["id"]: p for p in info["pieces"]}
    assert pieces["sq1"]["ranges"] == {"fire": 12.0, "move": 6.0, "follow me": 3.0}
    assert "fire" not in pieces["t34a"]["ranges"]  # a tank fires at any distance
    assert pieces["t34a"]["colour"] != pieces["pz1"]["colour"]  # sides differ
    assert info["rings"] == [3.0, 6.0, 12.0]
    assert info["grid"] is None  # measured in inches: no mat to draw


# -- terrain, declarations, pictures -------------------------------------------------------------


def square(cx, cy, half=1.0):
    return [[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half],
            [cx - half, cy + half]]  # fmt: skip


def test_woods_drawn_across_a_sight_line_block_it_and_are_logged(client):
    los = {"ask": "los", "from": "t34a", "to": "gs2"}
    assert post(client, "/api/ask", los).get_json()["verdicts"][0]["los"] == "clear"
    pieces = {p["id"]: p for p in client.get("/api/state").get_json()["pieces"]}
    mid = [(pieces["t34a"][k] + pieces["gs2"][k]) / 2 for k in ("x", "y")]
    woods = {"id": "drawn1", "kind": "woods", "polygon": square(*mid)}
    added = post(client, "/api/terrain", {"action": "add", "terrain": woods})
    assert added.status_code == 200
    assert "drawn1" in {t["id"] for t in added.get_json()["terrain"]}
    blocked = post(client, "/api/ask", los).get_json()["verdicts"][0]
    assert blocked["los"] == "blocked" and blocked["blocking"] == ["drawn1"]
    edit = [e for e in client.get("/api/events").get_json()["events"] if e["type"] == "edit"]
    assert edit[-1]["action"] == "add" and edit[-1]["terrain"]["id"] == "drawn1"
    # a hill instead of the woods still blocks; removing it clears the line again
    hill = {**woods, "kind": "hill"}
    assert post(client, "/api/terrain", {"action": "replace", "terrain": hill}).status_code == 200
    assert post(client, "/api/ask", los).get_json()["verdicts"][0]["los"] == "blocked"
    assert post(client, "/api/terrain", {"action": "remove", "id": "drawn1"}).status_code == 200
    assert post(client, "/api/ask", los).get_json()["verdicts"][0]["los"] == "clear"


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"action": "paint"}, "action"),
        ({"action": "add"}, "terrain"),
        ({"action": "add", "terrain": {"id": "x", "kind": "woods", "polygon": [[0, 0], [1, 1]]}},
         "polygon"),
        ({"action": "add", "terrain": {"id": "wood1", "kind": "woods",
                                       "polygon": [[0, 0], [1, 0], [1, 1]]}}, "exists already"),
        ({"action": "remove", "id": "nowhere"}, "nowhere"),
    ],
)  # fmt: skip
def test_bad_terrain_edits_are_400(client, body, needle):
    answer = post(client, "/api/terrain", body)
    assert answer.status_code == 400
    assert needle in answer.get_json()["error"]


def test_declarations_feed_the_turn(client):
    answer = post(
        client, "/api/declare", {"ask": "initiative", "cards": {"t34a": "QS", "pz1": "10H"}}
    )
    assert answer.status_code == 200
    verdict = answer.get_json()["verdicts"][0]
    assert verdict["order"] == ["QS", "10H"] and verdict["pieces"][0] == "t34a"  # queen first
    bad = post(client, "/api/declare", {"ask": "initiative", "cards": "lots"})
    assert bad.status_code == 400 and "cards" in bad.get_json()["error"]
    unknown = post(client, "/api/declare", {"ask": "follow_me", "leader": "ghost"})
    assert unknown.status_code == 400 and "ghost" in unknown.get_json()["error"]


def test_picture_of_a_verdict_is_a_png_or_svg(client):
    body = {"queries": [{"ask": "los", "from": "t34a", "to": "pz1"}], "selected": "t34a"}
    png = post(client, "/api/picture", body)
    assert png.status_code == 200 and png.mimetype == "image/png"
    image = cv2.imdecode(np.frombuffer(png.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[1] == (36 + 1) * 30  # table width plus margins at 30 px/in
    svg = post(client, "/api/picture?format=svg", body).get_data(as_text=True)
    verdict = post(client, "/api/ask", body["queries"][0]).get_json()["verdicts"][0]
    assert svg.startswith("<svg") and escape(verdict["summary"]) in svg
    line = f'stroke="{PALETTE["verdict"][verdict["los"]]}" stroke-width="0.14"'
    assert line in svg  # the sight line in its verdict's colour
    bad = post(client, "/api/picture", {"queries": [{"ask": "los", "from": "t34a"}]})
    assert bad.status_code == 400


# -- live view and health ----------------------------------------------------------------------


def test_live_frame_images_and_health(client, stepped):
    frame = client.get("/api/live").get_json()
    assert frame["frame"] == stepped.session.latest.frame
    ids = {p["id"] for p in frame["pieces"]}
    assert {"t34a", "pz1"} <= ids
    kinds = {t["kind"] for t in frame["tags"]}
    assert {"piece", "anchor"} <= kinds
    assert all(len(t["corners"]) == 4 for t in frame["tags"])
    camera = client.get("/api/camera.jpg")
    assert camera.mimetype == "image/jpeg" and camera.headers["X-Frame"] == str(frame["frame"])
    image = cv2.imdecode(np.frombuffer(camera.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[:2] == (540, 960)
    table = cv2.imdecode(
        np.frombuffer(client.get("/api/table.jpg").data, np.uint8), cv2.IMREAD_COLOR
    )
    assert table.shape[:2] == (24 * 20, 36 * 20)
    health = client.get("/api/health").get_json()
    assert health["calibration"]["frame_source"] == "simulated"
    assert "t34a" in health["pieces"]["seen"]
    assert health["frames"] >= 60 and health["error"] is None


def test_top_down_image_puts_the_anchors_at_their_table_places(stepped):
    """The rectified picture is the table seen from above: an anchor tag centred at (1.5, 1.5)
    inches lands at pixel (30, 30) at 20 px/in."""
    from referee.game import top_down
    from referee.tags.detect import TagDetector

    result = stepped.session.latest
    image = top_down(np.asarray(result.image), result.profile, 20.0)
    found = TagDetector(stepped.pipeline.roster.dictionary).detect(image)
    centres = {int(i): c.mean(axis=0) for i, c in zip(found.ids, found.corners_px, strict=True)}
    for anchor in stepped.pipeline.anchors:
        assert np.allclose(
            centres[anchor.tag], [anchor.x * 20 - 0.5, anchor.y * 20 - 0.5], atol=1.5
        )


def test_no_frame_yet_is_503(tmp_path):
    live = sample_live(pace=0)
    client = create_app(live, {"TESTING": True}).test_client()
    assert client.get("/api/live").status_code == 503
    assert client.get("/api/camera.jpg").status_code == 503
    replay = client.get("/api/replay?seq=1")
    assert replay.status_code == 409  # not logged
    live.stop()


# -- the log -----------------------------------------------------------------------------------


def test_replay_rebuilds_the_table_before_and_after_a_move(client):
    events = client.get("/api/events").get_json()["events"]
    move = next(e for e in events if e["type"] == "move" and e["piece"] == "t34a")
    before = client.get(f"/api/replay?seq={move['seq'] - 1}").get_json()
    after = client.get(f"/api/replay?seq={move['seq']}").get_json()
    y = {name: {p["id"]: p["y"] for p in r["scene"]["pieces"]} for name, r in
         (("before", before), ("after", after))}  # fmt: skip
    assert y["before"]["t34a"] == pytest.approx(20.5, abs=0.05)
    assert y["after"]["t34a"] == pytest.approx(14.5, abs=0.05)
    assert after["event"]["seq"] == move["seq"]
    by_time = client.get(f"/api/replay?t={move['t'] + 0.01}").get_json()
    assert by_time["event"]["seq"] >= move["seq"]


@pytest.mark.parametrize(
    ("query", "needle"),
    [("", "give one of"), ("?seq=1&t=2", "give one of"), ("?seq=abc", "seq"),
     ("?seq=99999", "has events 1 to"), ("?t=soon", "t: must be seconds")],
)  # fmt: skip
def test_replay_bad_input(client, query, needle):
    answer = client.get("/api/replay" + query)
    assert answer.status_code == 400 and needle in answer.get_json()["error"]


def test_export_is_what_referee_log_export_writes(client, stepped):
    runner = CliRunner()
    db = str(stepped.log.path)
    for fmt in ("jsonl", "csv"):
        web = client.get(f"/api/export?format={fmt}")
        assert web.status_code == 200
        assert "attachment" in web.headers["Content-Disposition"]
        cli_out = runner.invoke(cli, ["log", "export", "web-test", "--db", db, "--format", fmt])
        assert cli_out.exit_code == 0
        assert web.get_data(as_text=True) == cli_out.output
    lines = client.get("/api/export").get_data(as_text=True).splitlines()
    assert [json.loads(line)["seq"] for line in lines] == list(range(1, len(lines) + 1))
    assert client.get("/api/export?format=xml").status_code == 400


# -- the stream --------------------------------------------------------------------------------


def test_stream_sends_hello_frames_and_new_events(app, stepped):
    app.config["SSE_KEEPALIVE"] = 0.2
    response = app.test_client().get("/api/stream", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = iter(response.response)
    text = ""
    while "event: frame" not in text:
        text += next(chunks).decode()
    assert "retry: 1000" in text and "event: hello" in text
    stepped.session.ask({"ask": "range", "from": "t34a", "to": "pz1"})
    text = ""
    while "event: events" not in text:
        text += next(chunks).decode()
    data = json.loads(text.split("event: events\ndata: ", 1)[1].split("\n", 1)[0])
    assert data[-1]["type"] == "verdict" and data[-1]["verdict"]["ask"] == "range"
    stepped.step(1)
    text = ""
    while "event: frame" not in text:
        text += next(chunks).decode()
    frame = json.loads(text.split("event: frame\ndata: ", 1)[1].split("\n", 1)[0])
    assert frame["frame"] == stepped.session.latest.frame
    response.close()


# -- who may ask -------------------------------------------------------------------------------


@pytest.fixture
def exposed(stepped):
    return create_app(stepped, {"TESTING": True, "TOKEN": "s3cret"}).test_client()


def test_exposed_server_needs_the_token_on_every_request(exposed):
    for path in ("/", "/api/state", "/api/stream", "/static/app.js"):
        answer = exposed.get(path)
        assert answer.status_code == 401, path
        assert "access token" in answer.get_json()["error"]
    assert exposed.get("/api/state?token=wrong").status_code == 401
    assert exposed.get("/api/state", headers={"X-Referee-Token": "s3cret"}).status_code == 200
    first = exposed.get("/?token=s3cret")
    assert first.status_code == 200 and "referee_token=s3cret" in first.headers["Set-Cookie"]
    assert "HttpOnly" in first.headers["Set-Cookie"]
    # the cookie now carries the token for the page's own requests
    assert exposed.get("/static/app.js").status_code == 200


def test_exposed_server_needs_the_same_origin_to_change_anything(exposed):
    query = {"ask": "range", "from": "t34a", "to": "pz1"}
    token = {"X-Referee-Token": "s3cret"}
    assert post(exposed, "/api/ask", query, **token).status_code == 403  # no Origin
    evil = post(exposed, "/api/ask", query, Origin="http://evil.example", **token)
    assert evil.status_code == 403 and "this dashboard" in evil.get_json()["error"]
    same = post(exposed, "/api/ask", query, Origin="http://localhost", **token)
    assert same.status_code == 200
    assert post(exposed, "/api/ask", query, Origin="http://localhost").status_code == 401


def test_local_server_refuses_other_sites_but_not_scripts(client):
    query = {"ask": "range", "from": "t34a", "to": "pz1"}
    assert post(client, "/api/ask", query, Origin="http://evil.example").status_code == 403
    assert post(client, "/api/ask", query).status_code == 200  # curl sends no Origin
    assert post(client, "/api/ask", query, Origin="http://localhost").status_code == 200


def test_the_page_and_its_assets_need_no_network(client):
    page = client.get("/").get_data(as_text=True)
    script = client.get("/static/app.js").get_data(as_text=True)
    style = client.get("/static/style.css").get_data(as_text=True)
    for text in (page, script, style):
        for scheme in ("http://", "https://", "//cdn"):
            assert scheme not in text.replace("http://www.w3.org/2000/svg", "")


def test_what_browsers_are_sent_is_what_the_log_keeps(stepped, client):
    with GameLog(stepped.log.path, readonly=True) as reader:
        logged = [e.to_json() for e in reader.events(reader.game("web-test"))]
    kept, _ = stepped.events_since(0)
    assert kept == logged_events(stepped)  # the live table's typed events are the log's
    sent = client.get("/api/events").get_json()["events"]
    assert sent == logged and any(e["type"] == "move" for e in sent)


def logged_events(live):
    with GameLog(live.log.path, readonly=True) as reader:
        return reader.events(reader.game(live.game_name))


def test_a_stream_ends_after_its_age_and_gives_its_place_back(app, stepped):
    """The browser reconnects to a stream that ended (the page's EventSource does), so a
    stream never holds a server thread for good; beyond the limit, 503 with Retry-After."""
    app.config.update(SSE_MAX_AGE=0.5, SSE_KEEPALIVE=0.1, SSE_MAX_STREAMS=1)
    client = app.test_client()
    first = client.get("/api/stream", buffered=False)
    chunks = iter(first.response)
    assert "retry: 1000" in next(chunks).decode()
    busy = client.get("/api/stream")
    assert busy.status_code == 503 and int(busy.headers["Retry-After"]) > 0
    assert "error" in busy.get_json()
    text = "".join(chunk.decode() for chunk in chunks)  # ends by itself after SSE_MAX_AGE
    assert "event: hello" in text
    first.close()
    again = client.get("/api/stream", buffered=False)
    assert again.status_code == 200
    again.close()
