"""Casualties carried off and reinforcements set down (issue 41's scenario contract)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from referee.sim.scenario import OFF_TABLE_IN, ScenarioError, parse_scenario
from referee.sim.video import simulate

GAME: dict[str, Any] = {
    "table": {"width": 24, "depth": 18},
    "pieces": [
        {"id": "a", "side": "soviet", "kind": "tank", "x": 6, "y": 12, "heading": 0,
         "base": [1.5, 3.0], "tag": 1, "tag_height": 0.9},
        {"id": "b", "side": "german", "kind": "infantry", "x": 18, "y": 6, "heading": 180,
         "base": [2.0, 1.0], "tag": 2},
        {"id": "r", "side": "german", "kind": "infantry", "x": 12, "y": 4, "heading": 90,
         "base": [2.0, 1.0], "tag": 3, "enters": 3.0},
    ],
    "camera": {"resolution": [320, 180], "fov": 70, "height": 20},
    "fps": 4,
    "duration": 8,
    "imaging": {"blur": 0, "noise": 0, "vignetting": 0, "light": 0, "motion_blur": False},
    "calibration": {"views": 1},
    "timeline": [
        {"t": 1.0, "remove": "a", "edge": "south", "duration": 2.0},
        {"t": 6.0, "move": "r", "to": {"x": 12, "y": 8}, "duration": 1.0},
    ],
}  # fmt: skip


def test_a_removed_piece_is_carried_past_its_edge_and_gone() -> None:
    game = parse_scenario(GAME)
    assert "a" in game.state_at(0.9).poses
    halfway = game.state_at(2.0)
    assert "a" in halfway.moving and halfway.poses["a"].y > 12  # on its way south
    assert halfway.poses["a"].lift > 0 and halfway.hands  # lifted by a hand
    assert "a" not in game.state_at(3.01).poses
    assert "a" not in game.state_at(7.9).poses
    assert game.removals[0].to.y == 18 + OFF_TABLE_IN


def test_a_reinforcement_is_off_the_table_until_a_hand_sets_it_down() -> None:
    game = parse_scenario(GAME)
    assert "r" not in game.state_at(2.9).poses
    coming = game.state_at(3.5)
    assert "r" in coming.moving and coming.poses["r"].y < 4  # from the north edge
    settled = game.state_at(4.6).poses["r"]
    assert (settled.x, settled.y, settled.heading) == (12, 4, 90)
    assert "r" not in {p.id for p in game.start_scene.pieces}
    assert "r" in {p.id for p in game.scene.pieces}


def test_truth_events_follow_the_contract(tmp_path: Path) -> None:
    simulate(parse_scenario(GAME), tmp_path, video=False, progress=False)
    events = json.loads((tmp_path / "truth-events.json").read_text())
    assert [(e["type"], e["piece"], e["t"]) for e in events] == [
        ("removed", "a", 1.0),
        ("entered", "r", 3.0),
    ]
    assert events[0]["edge"] == "south"
    assert (events[1]["x"], events[1]["y"], events[1]["heading"]) == (12, 4, 90)
    scene = json.loads((tmp_path / "scene.json").read_text())
    assert [p["id"] for p in scene["pieces"]] == ["a", "b"]
    moves = json.loads((tmp_path / "truth-moves.json").read_text())["moves"]
    assert [m["piece"] for m in moves] == ["r"]  # removals and entries are not moves
    lines = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    gone = next(p for p in lines[20]["pieces"] if p["id"] == "a")
    assert gone["on_table"] is False and gone["visible"] is False
    early = next(p for p in lines[0]["pieces"] if p["id"] == "r")
    assert early["on_table"] is False
    seen = next(p for p in lines[0]["pieces"] if p["id"] == "a")
    assert "on_table" not in seen  # the lines of pieces on the table are as they were


def test_a_removed_piece_is_not_drawn(tmp_path: Path) -> None:
    import cv2

    simulate(parse_scenario(GAME), tmp_path, progress=False, calibration=False, jpeg_quality=95)
    frames = sorted((tmp_path / "video").glob("*.jpg"))
    first = cv2.imread(str(frames[0])).astype(float)
    late = cv2.imread(str(frames[16])).astype(float)  # t = 4 s: 'a' gone, 'r' set down
    assert abs(first - late).max() > 60


def _with(change: dict[str, Any] | None = None, event: dict[str, Any] | None = None) -> Any:
    data = copy.deepcopy(GAME)
    if change:
        data["pieces"][2].update(change)
    if event:
        data["timeline"].append(event)
    return data


@pytest.mark.parametrize(
    ("change", "event", "message"),
    [
        ({"enters": -1}, None, "$.pieces[2].enters: must be"),
        ({"enters": "soon"}, None, "$.pieces[2].enters: must be"),
        ({"enters": 7.5}, None, "$.pieces[2].enters: a piece entering at t=7.5"),
        (None, {"t": 2.0, "move": "r", "to": {"x": 1, "y": 1}}, "not on the table until"),
        (None, {"t": 4.0, "move": "a", "to": {"x": 3, "y": 3}}, "was carried off at t=1"),
        (None, {"t": 4.0, "remove": "a"}, "was carried off at t=1"),
        (None, {"t": 4.0, "remove": "ghost"}, "$.timeline[2].remove: unknown piece"),
        (None, {"t": 4.0, "remove": "b", "edge": "up"}, "$.timeline[2].edge: unknown table"),
        (None, {"t": 4.0, "remove": "b", "duration": 0}, "$.timeline[2].duration"),
        (None, {"t": 4.0, "remove": "b", "to": 1}, "$.timeline[2].to: unknown field"),
        (None, {"t": 1.5, "remove": "b", "duration": 1}, None),
        (None, {"t": 1.5, "move": "b", "to": {"x": 9, "y": 9}}, None),
    ],
)
def test_bad_removals_and_entries_name_the_json_path(change, event, message) -> None:
    if message is None:
        parse_scenario(_with(change, event), "s.json")  # a second piece may be handled at once
        return
    with pytest.raises(ScenarioError) as error:
        parse_scenario(_with(change, event), "s.json")
    assert str(error.value).startswith("s.json: ")
    assert message in str(error.value)


def test_a_removal_while_the_piece_moves_is_refused() -> None:
    data = _with(event={"t": 6.2, "remove": "r"})
    with pytest.raises(ScenarioError, match=r"\$\.timeline\[2\]\.t: 'r' is still moving"):
        parse_scenario(data, "s.json")


def test_a_query_about_a_reinforcement_is_refused() -> None:
    data = _with()
    data["queries"] = [{"ask": "range", "from": "a", "to": "r"}]
    with pytest.raises(ScenarioError, match=r"\$\.queries\[0\]: 'r' enters mid-game"):
        parse_scenario(data, "s.json")
