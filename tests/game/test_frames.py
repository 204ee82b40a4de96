"""What the frame loop logs for each tracker event: the game log's wording and rounding."""

from __future__ import annotations

from referee.game.frames import entered_data, flag_event, move_data, removed_data
from referee.vision.pose import PiecePose
from referee.vision.track import EnteredEvent, FlagEvent, MoveEvent, RemovedEvent


def pose(x: float, y: float, heading: float) -> PiecePose:
    return PiecePose("t34", 1, x, y, heading, 0.01)


def test_a_move_is_logged_rounded_with_its_path_when_it_has_one():
    move = MoveEvent(
        "t34", 1, pose(10.123456, 18, 0.123), pose(14.5, 18, 90), 4.123456, 0.0312345,
        1.0, 2.5, 30, 75, path=(pose(12, 18, 45),),
    )  # fmt: skip
    data = move_data(move)
    assert data["from"] == {"x": 10.1235, "y": 18, "heading": 0.12}
    assert data["distance"] == 4.1235 and data["uncertainty"] == 0.0312
    assert data["via"] == [{"x": 12, "y": 18, "heading": 45}]
    assert "via" not in move_data(MoveEvent(
        "t34", 1, pose(10, 18, 0), pose(14, 18, 0), 4, 0.03, 1.0, 2.5, 30, 75
    ))  # fmt: skip


def test_a_removal_and_an_entry_say_where_and_when():
    removal = RemovedEvent("t34", 1, pose(2, 3, 4), "lifted", None, 5.0, 4.5, 6.0, 180)
    removed = removed_data(removal)
    assert removed["at"] == {"x": 2, "y": 3, "heading": 4} and removed["reason"] == "lifted"
    entered = entered_data(EnteredEvent("t34", 1, pose(0.5, 3, 0), 6.0, 7.0, 180, 210), None)
    assert entered["at"]["x"] == 0.5 and "verdict" not in entered


def test_a_camera_flag_is_a_camera_event_numbered_from_one():
    lost = FlagEvent("camera_lost", "camera 2 lost", 10, 1.0, camera=1)
    kind, data = flag_event(lost, None, None)  # type: ignore[arg-type]
    assert (kind, data) == ("camera", {"message": "camera 2 lost", "kind": "lost", "camera": 2})
    jump = FlagEvent("jump", "t34 jumped", 10, 1.0, tag=1, piece="t34")
    assert flag_event(jump, None, None) == (  # type: ignore[arg-type]
        "flag",
        {"message": "t34 jumped", "kind": "jump", "tag": 1, "piece": "t34"},
    )
