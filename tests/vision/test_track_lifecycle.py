"""Tracker on scripted pose streams: no move lost before a piece settles, casualties
(``RemovedEvent``) and reinforcements (``EnteredEvent``)."""

from __future__ import annotations

import math

import pytest

from referee.vision.track import (
    EnteredEvent,
    FlagEvent,
    MoveEvent,
    RemovedEvent,
    Tracker,
    TrackerSettings,
)
from tests.vision.test_vision_tracker import FPS, ROSTER, play, pose, still

TABLE = (48.0, 36.0)


def kinds(events):
    return [e.kind for e in events]


def test_a_piece_moved_before_it_first_settled_is_a_move_from_where_it_stood():
    """Seen steady at A for 4 frames (fewer than settle_frames), covered, settled at B."""
    tracker = Tracker(ROSTER, table=TABLE)
    script = still(4, pose("t34", 10, 10, 0))
    script += still(10)  # a hand over it, lifting it
    script += still(20, pose("t34", 16, 12, 30))
    states, events = play(tracker, script)
    (move,) = events
    assert isinstance(move, MoveEvent) and move.piece == "t34"
    assert (move.from_pose.x, move.from_pose.y) == pytest.approx((10, 10))
    assert (move.to_pose.x, move.to_pose.y) == pytest.approx((16, 12))
    assert move.start_frame == 4 and move.start_t == pytest.approx(4 / FPS)
    assert move.end_frame == 14
    assert states[8].piece("t34").state == "new"  # not settled yet, only covered
    assert states[14].piece("t34").state == "moving"  # seen away: moving, never new
    assert states[-1].piece("t34").state == "settled"


def test_a_piece_only_glimpsed_then_settled_elsewhere_is_a_move_flagged_unknown_origin():
    tracker = Tracker(ROSTER, table=TABLE)
    script = [[pose("t34", 10, 10, 0)]]  # one frame through the players' hands
    script += still(10)
    script += still(20, pose("t34", 14, 10, 0))
    _, events = play(tracker, script)
    move, flag = events
    assert isinstance(move, MoveEvent) and move.from_pose.x == pytest.approx(10)
    assert move.front_distance == pytest.approx(4.0)
    assert isinstance(flag, FlagEvent) and flag.kind == "unknown_origin"
    assert flag.piece == "t34" and "t34" in flag.message
    assert flag.to_json()["event"] == "unknown_origin"


def test_a_piece_carried_in_view_before_it_settled_is_one_move_and_moving_all_the_way():
    tracker = Tracker(ROSTER, table=TABLE)
    script = still(5, pose("t34", 10, 10, 0))
    script += [[pose("t34", 10 + 0.2 * i, 10, 0)] for i in range(1, 21)]
    script += still(20, pose("t34", 14, 10, 0))
    states, events = play(tracker, script)
    (move,) = events
    assert isinstance(move, MoveEvent) and move.front_distance == pytest.approx(4.0)
    assert move.path and all(10 < p.x < 14 for p in move.path)
    assert {states[i].piece("t34").state for i in range(6, 26)} == {"moving"}


def test_pieces_on_the_table_at_the_start_are_no_moves():
    tracker = Tracker(ROSTER, table=TABLE)
    script = [[pose("t34", 10.05, 10, 0)]]  # a first sighting a little off (blur)
    script += still(30, pose("t34", 10, 10, 0), pose("sq1", 20, 20, 90))
    states, events = play(tracker, script)
    assert events == []
    assert {p.state for p in states[-1].pieces} == {"settled"}


def test_a_piece_first_seen_after_the_start_enters_and_is_never_a_move():
    tracker = Tracker(ROSTER, table=TABLE)
    script = still(100, pose("t34", 10, 10, 0))  # past start_seconds (3 s)
    assert tracker.settings.start_seconds < 100 / FPS
    # sq1 carried in from the south edge in a hand, then set down.
    script += [[pose("t34", 10, 10, 0), pose("sq1", 20, 35 - 1.5 * i, 90)] for i in range(5)]
    script += still(20, pose("t34", 10, 10, 0), pose("sq1", 20, 28, 90))
    states, events = play(tracker, script)
    (entered,) = events
    assert isinstance(entered, EnteredEvent) and entered.piece == "sq1"
    assert (entered.at.x, entered.at.y) == pytest.approx((20, 28))
    assert entered.start_frame == 100 and entered.end_frame == 105
    assert entered.to_json()["at"]["y"] == pytest.approx(28)
    assert states[102].piece("sq1").state == "new"
    assert states[-1].piece("sq1").state == "settled"


def lifted_toward_south():
    """t34 settled near the south edge, lifted and carried off it (y grows southwards)."""
    script = still(20, pose("t34", 10, 33.5, 90), pose("sq1", 20, 20, 90))
    script += [[pose("t34", 10, 33.8 + 0.4 * i, 90), pose("sq1", 20, 20, 90)] for i in range(5)]
    return script


def test_a_piece_carried_off_an_edge_is_removed_and_stays_off():
    tracker = Tracker(ROSTER, table=TABLE)
    script = lifted_toward_south() + still(40, pose("sq1", 20, 20, 90))
    states, events = play(tracker, script)
    (removed,) = events
    assert isinstance(removed, RemovedEvent) and removed.piece == "t34"
    assert removed.edge == "south" and removed.reason == "carried off the south edge"
    assert (removed.at.x, removed.at.y) == pytest.approx((10, 33.5))
    assert removed.start_t == pytest.approx(20 / FPS)
    assert removed.last_seen_t == pytest.approx(24 / FPS)
    # Gone edge_seconds after the last sighting, not before.
    wait = tracker.settings.edge_seconds
    assert removed.t - removed.last_seen_t == pytest.approx(wait, abs=1.5 / FPS)
    last = states[-1].piece("t34")
    assert last.state == "removed" and not last.pose.seen
    assert (last.pose.x, last.pose.y) == pytest.approx((10, 33.5))
    assert "t34" not in tracker.settled_poses
    assert removed.to_json()["edge"] == "south"


def test_a_lifted_piece_gone_from_view_for_a_while_is_removed():
    tracker = Tracker(ROSTER, table=TABLE)
    script = still(20, pose("t34", 20, 18, 0))
    script += [[pose("t34", 20.5 + 0.3 * i, 18, 0)] for i in range(3)]  # in the hand
    gone = int(tracker.settings.removed_after * FPS) + 5
    script += still(gone)
    _, events = play(tracker, script)
    (removed,) = events
    assert isinstance(removed, RemovedEvent) and removed.edge is None
    assert removed.reason.startswith("gone from view 4.0 s after a lift")
    assert removed.at.x == pytest.approx(20)


def test_a_hand_hovering_over_a_settled_piece_never_removes_it():
    tracker = Tracker(ROSTER, table=TABLE)
    script = still(20, pose("t34", 10, 34.5, 90))  # even right at the edge
    script += still(10 * int(FPS))  # ten seconds under a hand
    script += still(20, pose("t34", 10.01, 34.5, 90))
    states, events = play(tracker, script)
    assert events == []
    assert states[200].piece("t34").state == "hidden"
    assert states[-1].piece("t34").state == "settled"


def test_a_one_frame_glitch_then_a_hand_is_no_lift():
    tracker = Tracker(ROSTER, table=TABLE)
    script = [*still(20, pose("t34", 10, 10, 0)), [pose("t34", 10.5, 10, 0)]]
    script += still(6 * int(FPS))
    _, events = play(tracker, script)
    assert not [e for e in events if isinstance(e, RemovedEvent)]


def test_a_piece_moved_inside_the_table_and_lost_briefly_is_a_move_not_a_removal():
    tracker = Tracker(ROSTER, table=TABLE)
    script = still(20, pose("t34", 10, 10, 0))
    script += [[pose("t34", 10 + 0.5 * i, 10, 0)] for i in range(1, 5)]
    script += still(int(FPS))  # a second under the hand
    script += still(20, pose("t34", 14, 10, 0))
    _, events = play(tracker, script)
    assert kinds(events) == ["move"]


def test_a_removed_piece_seen_again_enters():
    tracker = Tracker(ROSTER, table=TABLE)
    script = lifted_toward_south() + still(40, pose("sq1", 20, 20, 90))
    script += still(20, pose("t34", 10, 34, 90), pose("sq1", 20, 20, 90))
    states, events = play(tracker, script)
    removed, entered = events
    assert isinstance(removed, RemovedEvent) and isinstance(entered, EnteredEvent)
    assert entered.piece == "t34" and entered.at.y == pytest.approx(34)
    assert states[-1].piece("t34").state == "settled"


def test_without_a_table_only_the_time_rule_removes():
    tracker = Tracker(ROSTER)
    script = lifted_toward_south() + still(40, pose("sq1", 20, 20, 90))
    _, events = play(tracker, script)
    assert events == []  # 1.3 s gone: not yet removed_after
    script = still(5 * int(FPS), pose("sq1", 20, 20, 90))
    _, later = play(tracker, script, start=65)
    (removed,) = later
    assert isinstance(removed, RemovedEvent) and removed.edge is None


def test_a_piece_seen_once_on_its_way_off_an_edge_is_removed():
    """Fingers over the tag until the piece is at the edge: one sighting, heading out."""
    tracker = Tracker(ROSTER, table=TABLE)
    script = still(20, pose("t34", 10, 33.5, 90)) + still(10)
    script += [[pose("t34", 10, 35.2, 90)], *still(40)]
    _, events = play(tracker, script)
    (removed,) = events
    assert isinstance(removed, RemovedEvent) and removed.edge == "south"
    assert removed.start_t == pytest.approx(20 / FPS)  # when the hand first hid it


def test_a_piece_slid_along_its_edge_and_covered_is_no_casualty():
    """Near the south edge but going east along it (deployed pieces stand there): a hand
    over it for two seconds is a move once it settles, not a removal and an entry."""
    tracker = Tracker(ROSTER, table=TABLE)
    script = still(20, pose("t34", 10, 34.5, 0))
    script += [[pose("t34", 10 + 0.3 * i, 34.5, 0)] for i in range(1, 6)]
    script += still(2 * int(FPS))
    script += still(20, pose("t34", 13, 34.5, 0))
    _, events = play(tracker, script)
    assert kinds(events) == ["move"]


def test_a_resumed_game_has_started_so_an_unknown_piece_enters():
    tracker = Tracker(ROSTER, table=TABLE)
    tracker.restore({"t34": pose("t34", 10, 10, 0)})
    assert tracker.started
    _, events = play(tracker, still(20, pose("t34", 10, 10, 0), pose("sq1", 30, 30, 0)))
    assert kinds(events) == ["entered"]


def test_thresholds_are_settings():
    quick = TrackerSettings(removed_after=1.0, edge_margin=0.5, start_seconds=0.5)
    tracker = Tracker(ROSTER, quick, table=TABLE)
    script = still(20, pose("t34", 20, 18, 0))
    script += [[pose("t34", 20.5 + 0.3 * i, 18, 0)] for i in range(3)]
    script += still(int(1.2 * FPS))
    script += still(20, pose("sq1", 30, 30, 0))
    _, events = play(tracker, script)
    removed, entered = events
    assert isinstance(removed, RemovedEvent) and math.isclose(removed.at.x, 20)
    assert isinstance(entered, EnteredEvent) and entered.piece == "sq1"


def test_a_piece_hidden_by_the_lifting_hand_from_the_first_instant_is_removed_after_8_s():
    """No lift seen at all (the hand covered the tag, then carried the piece away): out
    of sight for vanished_after while the rest of the table is in view is a casualty."""
    tracker = Tracker(ROSTER, table=TABLE)
    other = pose("sq1", 30, 20, 0)
    script = still(20, pose("t34", 10, 10, 90), other)
    script += still(int(9 * FPS), other)  # t34 gone, sq1 in view all along
    script += still(20, pose("t34", 10, 10, 90), other)  # the same piece put back later
    states, events = play(tracker, script)
    removed, entered = events
    assert isinstance(removed, RemovedEvent) and removed.piece == "t34"
    assert removed.edge is None and "gone from view 8.0 s" in removed.reason
    assert removed.t == pytest.approx(20 / FPS + 8.0, abs=1.5 / FPS)
    assert (removed.at.x, removed.at.y) == pytest.approx((10, 10))
    assert states[20 + int(7 * FPS)].piece("t34").state == "hidden"  # a long hover: not yet
    assert isinstance(entered, EnteredEvent) and entered.piece == "t34"


def test_a_hover_of_three_seconds_beside_pieces_in_view_is_no_casualty():
    tracker = Tracker(ROSTER, table=TABLE)
    other = pose("sq1", 30, 20, 0)
    script = still(20, pose("t34", 10, 10, 90), other)
    script += still(int(3 * FPS), other)
    script += still(20, pose("t34", 10.01, 10, 90), other)
    states, events = play(tracker, script)
    assert events == [] and states[-1].piece("t34").state == "settled"


def test_a_covered_camera_hides_every_piece_and_removes_none():
    tracker = Tracker(ROSTER, table=TABLE)
    both = [pose("t34", 10, 10, 90), pose("sq1", 30, 20, 0)]
    script = still(20, *both) + still(int(12 * FPS)) + still(20, *both)
    states, events = play(tracker, script)
    assert events == []
    assert {states[-1].piece(p).state for p in ("t34", "sq1")} == {"settled"}
