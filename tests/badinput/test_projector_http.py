"""Bad input to the projector's endpoints (issue 39): ``POST /api/selection`` (the piece
shared across screens), ``GET /api/projector/pattern.png?width=&height=``,
``POST /api/projector/calibrate`` and ``POST /api/projector/check``. Whatever is sent: an
answer, or one JSON error line with
400 (bad input), 404 (a piece not in the roster) or 409, never a 500; and nothing logged."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from badinput.harness import FUZZ, VALUES, WEIRD
from referee.game import sample_live
from referee.web import create_app


@pytest.fixture(scope="module")
def client():
    live = sample_live(pace=0)
    live.step(3)
    yield create_app(live, {"TESTING": True}).test_client(), live
    live.stop()


def _one_line(response, allowed: tuple[int, ...]) -> None:
    # 413: a body over the server's limit, refused before it is read (every endpoint)
    assert response.status_code in (*allowed, 413), response.status_code
    if response.status_code >= 400:
        message = response.get_json()["error"]
        assert "\n" not in message and 0 < len(message) < 300, message


BODIES = st.one_of(
    st.fixed_dictionaries({"piece": st.sampled_from(["t34a", "ghost", None]) | VALUES}),
    st.dictionaries(st.sampled_from(["piece", "pieces", "width", ""]), VALUES, max_size=3),
    st.sampled_from(WEIRD),
)


@FUZZ
@given(body=BODIES)
def test_any_selection_body_is_answered_or_refused_in_one_line(client, body):
    test_client, live = client
    seq = live.session.last_seq
    response = test_client.post("/api/selection", json=body)
    _one_line(response, (200, 400, 404))
    if response.status_code == 200:
        assert response.get_json() == {"piece": body["piece"]}
    assert live.session.last_seq == seq  # a selection is no game event


SIDES = st.one_of(
    st.integers(-10, 10_000).map(str), VALUES.map(str), st.sampled_from(["", "1e3", "720px"])
)


@FUZZ
@given(width=SIDES, height=SIDES)
def test_any_pattern_size_is_answered_or_refused_in_one_line(client, width, height):
    test_client, _ = client
    response = test_client.get(
        "/api/projector/pattern.png", query_string={"width": width, "height": height}
    )
    _one_line(response, (200, 400))


@FUZZ
@given(body=st.dictionaries(st.sampled_from(["width", "height", "size"]), VALUES, max_size=3))
def test_any_calibrate_body_is_refused_in_one_line(client, body):
    # the sample's frames show no pattern: every calibration is refused, each in one line
    test_client, _ = client
    _one_line(test_client.post("/api/projector/calibrate", json=body), (400,))


@FUZZ
@given(body=st.dictionaries(st.sampled_from(["width", "height", "size"]), VALUES, max_size=3))
def test_any_check_body_is_refused_in_one_line(client, body):
    # no projector fitted (404), or a body that is no pattern size (400): one line each
    test_client, live = client
    seq = live.session.last_seq
    _one_line(test_client.post("/api/projector/check", json=body), (400, 404))
    assert live.session.last_seq == seq


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"piece": "ghost"}, 404, "piece: no piece 'ghost' in the roster"),
        ({"piece": 7}, 400, "piece: must be a piece id (text, 1 to 200 characters) or null"),
        (
            {"piece": "x" * 201},
            400,
            "piece: must be a piece id (text, 1 to 200 characters) or null",
        ),
        ({"who": "t34a"}, 400, 'body: send {"piece": "<piece id>"} or {"piece": null}'),
    ],
)
def test_the_named_mistakes(client, body, status, message):
    test_client, _ = client
    response = test_client.post("/api/selection", json=body)
    assert response.status_code == status
    assert response.get_json() == {"error": message}
