"""Every bundled sample on the dashboard (issue 42 item 2): the two-camera club sample
through /api/info, /api/state and /api/health, an unarmed piece drawn and answered like any
other, and every game system's every piece kind answering /api/info."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from referee.calibration.profile import load_profile
from referee.game import LiveTable, repo_footage, sample_live
from referee.game.sources import read_footage
from referee.markers.roster import load_roster
from referee.rules import RULESETS, QueryError, find_ruleset
from referee.scene import Piece, Scene, Table
from referee.vision.pipeline import Pipeline
from referee.web import create_app

CLUB = Path(__file__).resolve().parents[2] / "sample_footage" / "club"
FRAMES = 30
"""Ticks of the club sample stepped: every piece and template has been seen by then."""


@pytest.fixture(scope="module")
def club():
    live = sample_live(pace=0, footage=read_footage(CLUB))
    client = create_app(live, {"TESTING": True}).test_client()
    assert live.step(FRAMES) == FRAMES
    yield live, client
    live.stop()


def _roster() -> dict:
    return json.loads((CLUB / "roster.json").read_text())


def test_info_lists_every_piece_and_both_cameras(club):
    _, client = club
    answer = client.get("/api/info")
    assert answer.status_code == 200, answer.get_json()
    info = answer.get_json()
    roster = [p for p in _roster()["pieces"] if p.get("kind")]
    assert len(roster) == 26
    assert sorted(p["id"] for p in info["pieces"]) == sorted(p["id"] for p in roster)
    assert [c["camera"] for c in info["cameras"]] == [1, 2]
    assert [Path(c["name"]).name for c in info["cameras"]] == ["video-1.mp4", "video-2.mp4"]
    assert info["ruleset"]["name"] == "pz8-ww2"
    pieces = {p["id"]: p for p in info["pieces"]}
    # the unarmed half-track has no fire ring, and is listed like any other piece
    assert pieces["sdkfz"]["ranges"] == {}
    assert pieces["sdkfz"]["colour"] == pieces["pz4a"]["colour"]
    rules = find_ruleset("pz8-ww2")
    scene = Scene.from_json(json.loads((CLUB / "scene.json").read_text()), "scene")
    armed = [p for p in scene if p.id != "sdkfz"]
    assert armed
    for piece in armed:  # every other piece's ring is the range its weapon fires
        assert pieces[piece.id]["ranges"]["fire"] == pytest.approx(rules.fire_range(piece))
    with pytest.raises(QueryError, match=r"sdkfz .* has no weapon"):
        rules.fire_range(scene.piece("sdkfz"))


def test_state_has_all_26_pieces_and_the_4_terrain_templates(club):
    _, client = club
    state = client.get("/api/state").get_json()
    roster = _roster()
    pieces = {p["id"] for p in roster["pieces"] if p.get("kind")}
    templates = {p["id"] for p in roster["pieces"] if not p.get("kind")}
    assert len(pieces) == 26 and len(templates) == 4
    assert {p["id"] for p in state["pieces"]} == pieces
    assert templates <= {t["id"] for t in state["terrain"]}


def test_health_shows_both_cameras_live(club):
    _, client = club
    health = client.get("/api/health").get_json()
    assert [c["camera"] for c in health["cameras"]] == [1, 2]
    for camera in health["cameras"]:
        assert camera["state"] == "live" and camera["frames"] == FRAMES
        assert camera["tags"] > 0 and camera["pieces"]
    pieces = {p["id"] for p in _roster()["pieces"] if p.get("kind")}
    # every piece is tracked (seen this tick, or covered and held where it was seen)
    tracked = health["pieces"]
    assert pieces <= set(tracked["seen"]) | set(tracked["hidden"]) and not tracked["missing"]
    seen = {p for c in health["cameras"] for p in c["pieces"]}
    assert set(tracked["seen"]) <= seen  # between them the two cameras see what is seen


def test_an_unarmed_piece_is_answered_and_says_so_for_a_question_needing_a_weapon(club):
    _, client = club
    fire = client.post("/api/ask?log=0", json={"ask": "range", "from": "sdkfz", "to": "t34a"})
    assert fire.status_code == 400
    assert "sdkfz (half-track) has no weapon" in fire.get_json()["error"]
    assert "\n" not in fire.get_json()["error"]
    # the same piece is a target, moves and looks like any other
    for query in (
        {"ask": "range", "from": "t34a", "to": "sdkfz"},
        {"ask": "los", "from": "sdkfz", "to": "t34a"},
        {"ask": "targets", "from": "sdkfz"},
    ):
        answer = client.post("/api/ask?log=0", json=query)
        assert answer.status_code == 200, (query, answer.get_json())
    targets = client.post("/api/ask?log=0", json={"ask": "targets", "from": "sdkfz"}).get_json()
    lines = targets["verdicts"][0]["targets"]
    assert lines and all(t["range"] is None and "no weapon" in t["range_error"] for t in lines)
    picture = client.post("/api/picture", json={"queries": [], "selected": "sdkfz"})
    assert picture.status_code == 200 and picture.mimetype == "image/png"


def _every_kind(cls: type, table: Table) -> Scene:
    """One piece of each of the system's kinds, in a row, sides taking turns."""
    pieces = tuple(
        Piece(f"k{i}", "red" if i % 2 else "blue", kind, 2.0 + i % 30 * 2, 6.0 + i // 30 * 6, 0.0,
              (1.0, 1.0))
        for i, kind in enumerate(sorted(cls.kinds))
    )  # fmt: skip
    return Scene(cls.name, table, pieces)


@pytest.mark.parametrize("cls", RULESETS, ids=[c.name for c in RULESETS])
def test_every_piece_kind_of_every_system_answers_info(cls):
    """No piece, armed or not, of any system breaks the page's start: each has the rings
    its rules give it (a positive number of inches each), none for what it lacks."""
    folder = repo_footage()
    profile = load_profile(folder / "camera.json")
    scene = _every_kind(cls, Table(profile.table.width, profile.table.depth))
    # the sample's roster is another system's (Paper Tigers kinds): listed, with no rings
    live = LiveTable(Pipeline(profile, load_roster(folder / "roster.json")), scene)
    try:
        answer = create_app(live, {"TESTING": True}).test_client().get("/api/info")
    finally:
        live.stop()
    assert answer.status_code == 200, answer.get_json()
    info = answer.get_json()
    assert info["ruleset"]["name"] == cls.name
    shown = {p["id"]: p for p in info["pieces"]}
    rules = live.session.ruleset
    assert {p.id for p in scene} <= set(shown)
    for piece in scene:
        ranges = shown[piece.id]["ranges"]
        assert set(ranges) <= {"fire", "move", "follow me"}
        assert all(math.isfinite(v) and v > 0 for v in ranges.values())
        assert ranges == {r.label: r.inches for r in rules.piece_ranges(piece)}
        try:
            fire = rules.fire_range(piece) if hasattr(rules, "fire_range") else None
        except QueryError:
            fire = None  # an unarmed piece: no ring, and a fire question says why
        assert ranges.get("fire") == (fire if fire else None)
