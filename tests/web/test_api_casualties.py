"""The dashboard's casualty list: ``GET /api/state`` names the pieces removed from the table
(a real session and tracker on scripted poses), which the map lists and does not draw."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.game.live import LiveTable
from referee.web import create_app
from tests.game.test_casualties import frames, start


@pytest.fixture
def client_and_session(tmp_path):
    session, log = start(tmp_path)
    # Only the session is read by /api/state: a live table without a frame thread or camera.
    live = LiveTable.__new__(LiveTable)
    live.session = session
    live.log = log
    yield create_app(live, {"TESTING": True}).test_client(), session
    session.close()


def test_state_lists_the_casualties_and_leaves_them_off_the_table(client_and_session):
    client, session = client_and_session
    list(session.run(frames(100)))
    before = client.get("/api/state").get_json()
    assert before["casualties"] == []
    assert "pz4" in {p["id"] for p in before["pieces"]}
    list(session.run(frames(130, start=100)))  # pz4 carried off the north edge
    after = client.get("/api/state").get_json()
    (casualty,) = after["casualties"]
    assert casualty["id"] == "pz4" and casualty["edge"] == "north"
    assert casualty["reason"] == "carried off the north edge"
    assert casualty["at"] == {"x": 30.0, "y": 2.0, "heading": 270.0}
    ids = {p["id"] for p in after["pieces"]}
    assert "pz4" not in ids and "hq" in ids  # the reinforcement is on the table
    session.correct(casualty["seq"], "it never left", void=True)
    undone = client.get("/api/state").get_json()
    assert undone["casualties"] == [] and "pz4" in {p["id"] for p in undone["pieces"]}


def _function(source: str, name: str) -> str:
    """The text of top-level function ``name`` of the page's script (braces matched)."""
    start = source.index(f"function {name}(")
    depth, i = 0, source.index("{", start)
    while True:
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        i += 1
        if depth == 0:
            return source[start:i]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's script")
def test_the_maps_casualty_list_is_the_sessions(tmp_path):
    """The page's own ``casualties()`` (run in node, no browser) on a logged game's events
    names what ``Session.casualties`` names, at the end and after the correction."""
    session, log = start(tmp_path)
    list(session.run(frames(230)))
    removed = session.casualties()[0]
    session.correct(removed.seq, "it never left", void=True)
    events = [e.to_json() for e in log.events(session.game)]
    app_js = (Path(__file__).parents[2] / "referee/web/static/js/map.js").read_text()
    script = (
        f"const S = {{ events: {json.dumps(events)} }};\n"
        + _function(app_js, "casualties")
        + f"\nconsole.log(JSON.stringify([casualties({removed.seq}).map((e) => e.piece),"
        " casualties(null).map((e) => e.piece)]));"
    )
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    at_removal, now = json.loads(out.stdout)
    assert now == [] and session.casualties() == []
    # Up to the removal, before the correction's seq: the page's scrubber still undoes it
    # (a correction applies whenever it was made), as the replay does.
    assert at_removal == []
    events_before_fix = [e for e in events if e["type"] != "correction"]
    script = script.replace(json.dumps(events), json.dumps(events_before_fix))
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [["pz4"], ["pz4"]]
    page = (Path(__file__).parents[2] / "referee/web/templates/index.html").read_text()
    assert 'id="casualties"' in page
