"""Bad ``targets`` requests to the dashboard (issue 31 item 2: the threat view asks
``POST /api/ask?log=0`` with ``{"ask": "targets", "from": ...}``). Generated over two
tables: the sample (Paper Tigers, logged, mid-game) and a Pz8 Aerial table whose range
question takes a ``weapon``. Every answer is a 200 (an answer) or a 400/413 with one line
in the referee's words, never a 500; a refused request, or one asked with ``log=0``, leaves
the game log as it was; an answered one with ``log=1`` adds exactly its verdict. Then raw
requests of the same shapes over sockets to a real server, several at once: below 500,
and the server keeps answering."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from web.browser import dashboard

from badinput.harness import FUZZ, PYTHON_TEXT, VALUES, WEIRD
from badinput.test_http import HTTP, NASTY, health, send
from referee.calibration.profile import load_profile
from referee.game import LiveTable, repo_footage, sample_live
from referee.markers.roster import load_roster
from referee.scene import Scene
from referee.store import GameLog
from referee.vision.pipeline import Pipeline
from referee.web import create_app


def _piece(pid: str, side: str, kind: str, x: float, y: float) -> dict[str, Any]:
    return {"id": pid, "side": side, "kind": kind, "x": x, "y": y, "heading": 0, "base": [1, 1]}


AERIAL = {
    "ruleset": "pz8-aerial",
    "table": {"width": 36, "depth": 24},
    "pieces": [_piece("sp", "raf", "spitfire", 10, 10), _piece("me", "lw", "me 109", 14, 10)],
}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """name -> (Flask test client, live table): the sample 40 frames in, logged, and Aerial."""
    log = GameLog(tmp_path_factory.mktemp("targets") / "games.sqlite")
    sample = sample_live(pace=0, log=log, game="bad-targets")
    sample.step(40)
    folder = repo_footage()
    pipeline = Pipeline(load_profile(folder / "camera.json"), load_roster(folder / "roster.json"))
    aerial = LiveTable(pipeline, Scene.from_json(AERIAL, "test"))
    yield {
        name: (create_app(live, {"TESTING": True}).test_client(), live)
        for name, live in (("sample", sample), ("aerial", aerial))
    }
    sample.stop()
    log.close()


FROM = st.sampled_from(["t34a", "pz1", "sp", "me", "wood1", "ghost", "T34A", " t34a"]) | VALUES
#: Options a range question might take, and keys no targets question takes.
OPTION = st.sampled_from(["weapon", "to", "roll", "mode", "range", "from"])
OPTION_VALUE = st.sampled_from(["front", "rear", "laser", "88mm", "pz1", "me"]) | VALUES
LOG = st.sampled_from(["0", "1", None, "", "2", "true", "0 ", "-0", "01"]) | NASTY


@st.composite
def targets_requests(draw: st.DrawFn) -> tuple[Any, str | None]:
    """A body for ``/api/ask`` (mostly a targets question, sometimes not an object at all)
    and the ``log`` argument (None: left out)."""
    query: dict[str, Any] = {"ask": draw(st.sampled_from(["targets"] * 5 + ["Targets", ""]))}
    if draw(st.integers(0, 5)):
        query["from"] = draw(FROM)
    for key in draw(st.lists(OPTION, max_size=2, unique=True)):
        query[key] = draw(OPTION_VALUE)
    body = draw(st.one_of(st.just(query), st.just(query), st.just(query), st.sampled_from(WEIRD)))
    return body, draw(LOG)


def _events(client) -> list[dict]:
    return client.get("/api/events").get_json()["events"]


@FUZZ
@given(table=st.sampled_from(["sample", "aerial"]), request=targets_requests())
def test_any_targets_request_is_an_answer_or_one_line_and_logs_only_what_it_should(
    tables, table, request
):
    client, live = tables[table]
    body, log = request
    before = live.session.last_seq
    events = _events(client) if table == "sample" else None
    url = "/api/ask" + (
        "" if log is None else "?log=" + quote(log, safe="", errors="surrogatepass")
    )
    try:
        data = json.dumps(body)
    except ValueError:
        data = "{not json"
    response = client.post(url, data=data, content_type="application/json")
    # 409: a roster piece that is not on this table now (the sample's roster over Aerial)
    assert response.status_code in (200, 400, 409, 413), (response.status_code, response.data[:300])
    if response.status_code != 200:
        error = response.get_json()["error"]
        assert "\n" not in error and len(error) < 2000, error
        assert "Traceback" not in error and not PYTHON_TEXT.search(error), error
    logged = response.status_code == 200 and log in (None, "1")
    assert live.session.last_seq == before + (1 if logged else 0), (body, log)
    if events is not None and not logged:
        assert _events(client) == events  # nothing already written changed, nothing added
    if response.status_code == 200:
        (verdict,) = response.get_json()["verdicts"]
        if verdict["ask"] == "targets":
            assert all({"to", "range", "los"} <= set(t) for t in verdict["targets"])


@pytest.mark.parametrize(
    ("table", "query", "words"),
    [
        ("sample", {"ask": "targets"}, "$.queries[0].from: missing field"),
        ("sample", {"ask": "targets", "from": "ghost"}, "unknown piece id 'ghost'"),
        ("sample", {"ask": "targets", "from": 7}, "unknown piece id 7"),
        ("sample", {"ask": "targets", "from": "wood1"}, "unknown piece id 'wood1'"),
        ("sample", {"ask": "targets", "from": "t34a", "to": "pz1"}, "takes no 'to'"),
        ("aerial", {"ask": "targets", "from": "sp", "weapon": "laser"}, "must be front or rear"),
        ("aerial", {"ask": "targets", "from": "sp", "weapon": 2}, "must be front or rear"),
        ("aerial", {"ask": "targets", "from": "sp", "weapon": "rear"}, "has no rear guns"),
    ],
)
def test_the_cases_it_stands_for(tables, table, query, words):
    client, live = tables[table]
    for log in ("0", "1"):
        before = live.session.last_seq
        response = client.post(f"/api/ask?log={log}", json=query)
        assert response.status_code == 400
        assert words in response.get_json()["error"], response.get_json()
        assert live.session.last_seq == before


# -- the same shapes as raw requests to a real server ------------------------------------------


@pytest.fixture(scope="module")
def server():
    live = sample_live(pace=0)
    live.step(40)
    with dashboard(live) as running:
        yield running.url
    live.stop()


@st.composite
def raw_targets(draw: st.DrawFn) -> bytes:
    body, log = draw(targets_requests())
    try:
        data = json.dumps(body).encode()
    except ValueError:
        data = b"{not json"
    if draw(st.integers(0, 4)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    target = "/api/ask" + (
        "" if log is None else "?log=" + quote(log, safe="%", errors="surrogatepass")
    )
    head = [
        f"POST {target} HTTP/1.1",
        "Host: HOST",
        "Origin: http://HOST",
        "Content-Type: application/json",
        f"Content-Length: {len(data)}",
        "Connection: close",
    ]
    return "\r\n".join(head).encode("utf-8", "surrogateescape") + b"\r\n\r\n" + data


@HTTP
@given(batch=st.lists(raw_targets(), min_size=1, max_size=4))
def test_raw_targets_requests_are_answered_below_500(server, batch):
    with ThreadPoolExecutor(len(batch)) as pool:
        statuses = list(pool.map(lambda raw: send(server, raw), batch))
    for raw, status in zip(batch, statuses, strict=True):
        assert status < 500, f"{status} for {raw[:300]!r}"
    assert health(server) == 200, "the server stopped answering"
