"""``targets`` through ``POST /api/ask`` (issue 31 item 2), as the threat view asks it: every
entry is exactly the pair's single ``range`` and ``los`` answers, nearest first, one per
piece of another side; ``?log=0`` answers without logging; a bad request is a 400 with one
line and leaves the game log as it was."""

from __future__ import annotations

import pytest

from referee.calibration.profile import load_profile
from referee.game import LiveTable, repo_footage
from referee.markers.roster import load_roster
from referee.scene import Scene
from referee.vision.pipeline import Pipeline
from referee.web import create_app


def _piece(pid: str, side: str, kind: str, x: float, y: float) -> dict:
    return {"id": pid, "side": side, "kind": kind, "x": x, "y": y, "heading": 0, "base": [1, 1]}


AERIAL = {
    "ruleset": "pz8-aerial",
    "table": {"width": 36, "depth": 24},
    "pieces": [
        _piece("sp", "raf", "spitfire", 10, 10),
        _piece("me", "lw", "me 109", 14, 10),
        _piece("me2", "lw", "me 109", 30, 20),
    ],
}


@pytest.fixture(scope="module")
def aerial():
    """A dashboard over a Pz8 Aerial table whose aircraft stand in the scene (no camera
    needed): its range question takes a ``weapon`` (front or rear guns)."""
    folder = repo_footage()
    profile = load_profile(folder / "camera.json")
    live = LiveTable(
        Pipeline(profile, load_roster(folder / "roster.json")), Scene.from_json(AERIAL, "test")
    )
    return create_app(live, {"TESTING": True}).test_client(), live


def _ask(client, query: dict, log: str | None = "0"):
    return client.post("/api/ask" + (f"?log={log}" if log is not None else ""), json=query)


def _answer(client, query: dict) -> dict:
    response = _ask(client, query)
    assert response.status_code == 200, response.get_json()
    (verdict,) = response.get_json()["verdicts"]
    return verdict


def test_each_entry_is_the_single_range_and_los_answer(client):
    pieces = client.get("/api/state").get_json()["pieces"]
    side = {p["id"]: p["side"] for p in pieces}
    assert len(pieces) == 7
    for firer in side:
        verdict = _answer(client, {"ask": "targets", "from": firer})
        assert verdict["ask"] == "targets" and verdict["from"] == firer
        targets = verdict["targets"]
        assert sorted(t["to"] for t in targets) == sorted(p for p in side if side[p] != side[firer])
        distances = [t["range"]["distance"] for t in targets]
        assert distances == sorted(distances)  # nearest first
        for t in targets:
            pair = {"from": firer, "to": t["to"]}
            assert t["range"] == _answer(client, {"ask": "range", **pair}), pair
            assert t["los"] == _answer(client, {"ask": "los", **pair}), pair


def test_an_option_of_the_range_question_is_taken_the_same_way(aerial):
    client, _ = aerial
    verdict = _answer(client, {"ask": "targets", "from": "sp", "weapon": "front"})
    assert [t["to"] for t in verdict["targets"]] == ["me", "me2"]
    for t in verdict["targets"]:
        pair = {"from": "sp", "to": t["to"], "weapon": "front"}
        assert t["range"] == _answer(client, {"ask": "range", **pair})
        assert t["los"] == _answer(client, {"ask": "los", **pair})
    assert [t["range"]["ok"] for t in verdict["targets"]] == [True, False]  # 4 in, 20 in


def test_asked_with_log_0_nothing_is_logged_and_without_it_the_answer_is(client, stepped):
    before = stepped.session.last_seq
    quiet = _ask(client, {"ask": "targets", "from": "t34a"})
    assert quiet.status_code == 200 and stepped.session.last_seq == before
    logged = _ask(client, {"ask": "targets", "from": "t34a"}, log=None)
    assert logged.status_code == 200 and stepped.session.last_seq == before + 1
    (event,) = client.get(f"/api/events?after={before}").get_json()["events"]
    assert event["type"] == "verdict" and event["verdict"] == logged.get_json()["verdicts"][0]
    assert event["verdict"] == quiet.get_json()["verdicts"][0]  # the same answer


BAD = [
    ({"ask": "targets"}, "0", "$.queries[0].from: missing field"),
    ({"ask": "targets", "from": "nobody"}, "0", "unknown piece id 'nobody'"),
    ({"ask": "targets", "from": "nobody"}, "1", "unknown piece id 'nobody'"),
    ({"ask": "targets", "from": 3}, "0", "$.queries[0].from: unknown piece"),
    ({"ask": "targets", "from": None}, "1", "$.queries[0].from: unknown piece"),
    ({"ask": "targets", "from": ["t34a"]}, "0", "$.queries[0].from: unknown piece"),
    ({"ask": "targets", "from": {"id": "t34a"}}, "0", "$.queries[0].from: unknown piece"),
    ({"ask": "targets", "from": "wood1"}, "0", "unknown piece id 'wood1'"),
    ({"ask": "targets", "from": "t34a", "to": "pz1"}, "1", "targets takes no 'to'"),
    ({"ask": "targets", "from": "t34a"}, "2", "log: must be 0"),
    ({"ask": "targets", "from": "t34a"}, "yes", "log: must be 0"),
    ({"ask": "targets", "from": "t34a"}, "", "log: must be 0"),
]


@pytest.mark.parametrize(("query", "log", "words"), BAD)
def test_a_bad_targets_request_is_one_line_and_changes_nothing(client, stepped, query, log, words):
    before = client.get("/api/events").get_json()["events"]
    response = _ask(client, query, log)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert words in error and "\n" not in error and "Traceback" not in error, error
    assert client.get("/api/events").get_json()["events"] == before


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"ask": "targets", "from": "sp", "weapon": "laser"}, "weapon: must be front or rear"),
        ({"ask": "targets", "from": "sp", "weapon": ["rear"]}, "weapon: must be front or rear"),
        ({"ask": "targets", "from": "sp", "weapon": "rear"}, "sp (spitfire) has no rear guns"),
    ],
)
def test_a_weapon_the_system_refuses_is_one_line(aerial, query, words):
    client, live = aerial
    before = live.session.last_seq
    for log in ("0", "1"):
        response = _ask(client, query, log)
        assert response.status_code == 400
        error = response.get_json()["error"]
        assert words in error and "\n" not in error, error
    assert live.session.last_seq == before
