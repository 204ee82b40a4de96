"""Bad input to the dashboard's newer endpoints (issue 31): ``/api/doubt`` and the
``live_source`` field of ``/api/info``. A malformed or out-of-range request is a 400 with a
one-line JSON error in the referee's words, never a 500 or a traceback, and changes
nothing in the game log."""

from __future__ import annotations

import math
from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from badinput.harness import FUZZ, PYTHON_TEXT, VALUES
from referee.game import sample_live
from referee.store import GameLog
from referee.web import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("dash") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="bad-dashboard")
    live.step(3)
    yield create_app(live, {"TESTING": True}).test_client(), live
    live.stop()
    log.close()


def _assert_refused(response) -> None:
    assert response.status_code == 400, (response.status_code, response.get_data(as_text=True))
    error = response.get_json()["error"]
    assert "\n" not in error and len(error) < 500, error
    assert not PYTHON_TEXT.search(error), error
    assert error.split(":")[0] in ("x", "y", "give both x and y (inches on the table), or neither")


def _is_on_table(text: str, limit: float) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return math.isfinite(value) and 0 <= value <= limit


ARG = st.one_of(VALUES.map(str), st.text(max_size=8), st.sampled_from(["", " ", "1e999", "-0"]))


@FUZZ
@given(x=ARG, y=ARG, keep=st.sampled_from(["both", "x", "y"]))
def test_doubt_answers_any_point_or_refuses_it(client, x, y, keep):
    test, live = client
    table = live.session.initial_scene.table
    args = {"both": {"x": x, "y": y}, "x": {"x": x}, "y": {"y": y}}[keep]
    before = live.session.last_seq
    response = test.get("/api/doubt?" + urlencode(args))
    if keep == "both" and _is_on_table(x, table.width) and _is_on_table(y, table.depth):
        assert response.status_code == 200
        at = response.get_json()["at"]
        assert at is None or (math.isfinite(at) and at >= 0)
    else:
        _assert_refused(response)
    assert live.session.last_seq == before  # asking for the doubt logs nothing


def test_doubt_without_a_point_is_the_table_and_its_grid(client):
    test, live = client
    answer = test.get("/api/doubt").get_json()
    table = live.session.initial_scene.table
    grid = answer["grid"]
    assert len(grid["values"]) == math.ceil(table.depth / grid["step"]) + 1
    assert len(grid["values"][0]) == math.ceil(table.width / grid["step"]) + 1
    seen = [v for row in grid["values"] for v in row if v is not None]
    assert answer["table"] == max(seen) and 0 < answer["table"] < 0.5


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_doubt_is_read_only(client, method):
    test, _ = client
    response = getattr(test, method)("/api/doubt", json={"x": 1, "y": 2})
    assert response.status_code == 405 and "not allowed" in response.get_json()["error"]


def test_info_says_whether_the_source_can_end(client):
    test, _ = client
    assert test.get("/api/info").get_json()["live_source"] is False  # the sample is a recording
