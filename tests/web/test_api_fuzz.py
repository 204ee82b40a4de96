"""Hostile bodies for every endpoint that takes input: one-line JSON errors, never a 500."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)
IDS = st.sampled_from(["t34a", "t34b", "sq1", "pz1", "gs1", "ghost", "", "wood1"])
QUESTION = st.fixed_dictionaries(
    {"ask": st.sampled_from(["range", "los", "move", "follow_me", "action", "objective", "x"])},
    optional={
        "from": IDS | JSON,
        "to": IDS | JSON,
        "piece": IDS | JSON,
        "leader": IDS | JSON,
        "card": st.sampled_from(["QS", "10H", "1X", ""]) | JSON,
        "action": st.sampled_from(["move", "fire", "recover"]) | JSON,
        "dice": st.lists(st.integers(-2, 9), max_size=4) | JSON,
        "allowance": JSON,
        "objective": IDS | JSON,
    },
)
TERRAIN = st.fixed_dictionaries(
    {"action": st.sampled_from(["add", "replace", "remove", "paint"]) | JSON},
    optional={
        "id": IDS | JSON,
        "terrain": st.fixed_dictionaries(
            {},
            optional={
                "id": IDS | JSON,
                "kind": st.sampled_from(["woods", "hill", "lava"]) | JSON,
                "polygon": st.lists(st.lists(st.floats(-1e9, 1e9) | JSON, max_size=3), max_size=6)
                | JSON,
                "objective": JSON,
            },
        )
        | JSON,
    },
)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _one_line_or_ok(response):
    assert response.status_code in (200, 400, 409, 413), response.get_data(as_text=True)[:300]
    data = json.loads(response.get_data(as_text=True))  # strict JSON either way
    if response.status_code != 200:
        assert isinstance(data["error"], str) and "\n" not in data["error"]
        assert "Traceback" not in data["error"] and "NoneType" not in data["error"]


@SETTINGS
@given(body=QUESTION | JSON)
def test_ask_never_fails_with_a_server_error(client, body):
    _one_line_or_ok(client.post("/api/ask", json=body))


@SETTINGS
@given(body=QUESTION | JSON)
def test_declare_never_fails_with_a_server_error(client, body):
    _one_line_or_ok(client.post("/api/declare", json=body))


@SETTINGS
@given(body=TERRAIN | JSON)
def test_terrain_never_fails_with_a_server_error(client, body):
    _one_line_or_ok(client.post("/api/terrain", json=body))


@SETTINGS
@given(seq=st.text(max_size=12), t=st.text(max_size=12))
def test_replay_never_fails_with_a_server_error(client, seq, t):
    _one_line_or_ok(client.get("/api/replay", query_string={"seq": seq}))
    _one_line_or_ok(client.get("/api/replay", query_string={"t": t}))


def test_a_body_that_is_not_json_is_one_line(client):
    response = client.post("/api/ask", data=b"\xff{not json", content_type="application/json")
    _one_line_or_ok(response)
    assert response.status_code == 400
