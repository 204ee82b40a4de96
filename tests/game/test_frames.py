"""What the frame loop logs for each tracker event: the game log's wording and rounding."""

from __future__ import annotations

import threading

from game.test_session import PROFILE, ROSTER, START, ScriptedPipeline, game_script, move_event
from game.test_session import pose as roster_pose
from game.test_session import scene as roster_scene

from referee.game.frames import FrameEvents, entered_data, flag_event, move_data, removed_data
from referee.game.numbering import Numbering
from referee.game.publication import Publication
from referee.game.table import TableState
from referee.geometry import Pose
from referee.rules import find_ruleset
from referee.tags.detect import Detections
from referee.vision.pipeline import FrameResult
from referee.vision.pose import PiecePose
from referee.vision.track import (
    EnteredEvent,
    FlagEvent,
    MoveEvent,
    RemovedEvent,
    TrackedPiece,
    TrackerState,
)


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


def _result(frame, pieces, events):
    state = TrackerState(frame, frame / 30, tuple(pieces), tuple(events))
    return FrameResult(frame, frame / 30, Detections.empty(), state, state.events, PROFILE)


def test_frame_events_judge_a_move_lift_a_casualty_and_place_a_piece_first_settled():
    """The frame loop's part on its own: numbered events in the tracker's order, the move
    judged on the table before it, the table changed as the events say."""
    rules = find_ruleset("paper-tigers")
    table = TableState(roster_scene(), ROSTER)
    table.place("t34", Pose(*START["t34"]), 0.0)
    table.place("pz4", Pose(*START["pz4"]), 0.0)
    numbers = Numbering(Publication(threading.RLock()))
    numbers.seq, numbers.frame = 4, 40
    part = FrameEvents(numbers, table, rules, rules.game_flow(), ScriptedPipeline(game_script()))
    lifted = RemovedEvent("pz4", 2, roster_pose("pz4", 30, 18, 180), "lifted", None, 1, 1, 1, 40)
    unknown = FlagEvent("unknown_tag", "tag 9 is not in the roster", 40, 40 / 30, tag=9)
    settled = TrackedPiece(roster_pose("sq1", *START["sq1"]), "settled")
    told: dict = {}
    seen = part.take(
        _result(40, [settled], [move_event("t34", (16.0, 18.0, 0.0), 40), lifted, unknown]), told
    )
    kinds = [(e.seq, e.type) for e in seen.events]
    assert kinds == [(5, "move"), (6, "verdict"), (7, "removed"), (8, "flag")]
    assert seen.events[1].data["about"] == 5 and seen.events[1].data["verdict"]["ask"] == "move"
    assert [r.seq for r in seen.rulings] == [5] and seen.rulings[0].move.piece == "t34"
    assert sorted(told) == [5, 7]  # the move and the removal: what corrections check against
    assert seen.moved == {"t34", "pz4", "sq1"} and not seen.terrain_changed
    on_table = table.scene()
    assert {p.id for p in on_table} == {"t34", "sq1"}
    assert on_table.piece("t34").x == 16.0
