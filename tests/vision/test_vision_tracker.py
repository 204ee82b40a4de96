"""Tracker behaviour on scripted pose streams (no images): moves, hands, flags."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from referee.errors import RosterError
from referee.markers.roster import Roster, RosterEntry
from referee.tags.detect import Detections
from referee.vision.pose import FramePoses, PiecePose
from referee.vision.track import FlagEvent, MoveEvent, Tracker, TrackerSettings

ROSTER = Roster(
    "DICT_4X4_100",
    (
        RosterEntry(1, "t34", "soviet", "tank", (1.5, 3.0)),
        RosterEntry(2, "sq1", "soviet", "infantry", (2.0, 1.0)),
    ),
)
FPS = 30.0


def frame(poses, unknown=()):
    return FramePoses(tuple(poses), Detections.empty(), tuple(unknown))


def pose(pid, x, y, heading=0.0, noise=0.0, rng=None):
    tag = ROSTER.by_id(pid).tag
    if noise and rng is not None:
        x += rng.normal(0, noise)
        y += rng.normal(0, noise)
    return PiecePose(pid, tag, x, y, heading, 0.01)


def play(tracker, script, start=0):
    """script: list of lists of PiecePose (or FramePoses). Returns (states, events)."""
    states, events = [], []
    for i, poses in enumerate(script, start):
        fp = poses if isinstance(poses, FramePoses) else frame(poses)
        state = tracker.update(i, i / FPS, fp)
        states.append(state)
        events.extend(state.events)
    return states, events


def still(n, *poses):
    return [list(poses) for _ in range(n)]


def test_stationary_piece_settles_and_is_smoothed():
    rng = np.random.default_rng(0)
    tracker = Tracker(ROSTER)
    script = [[pose("t34", 10, 10, 0, 0.01, rng)] for _ in range(60)]
    states, events = play(tracker, script)
    assert events == []
    assert states[3].pieces[0].state == "new"
    last = states[-1].pieces[0]
    assert last.state == "settled" and last.pose.seen
    assert math.hypot(last.pose.x - 10, last.pose.y - 10) < 0.005


def test_a_move_gives_exactly_one_event_with_front_point_distance():
    tracker = Tracker(ROSTER)
    script = still(20, pose("t34", 10, 10, 0), pose("sq1", 20, 20, 90))
    script += still(6, pose("sq1", 20, 20, 90))  # t34 lifted: tag gone
    script += [[pose("t34", 10 + i, 10 + i, 20 * i), pose("sq1", 20, 20, 90)] for i in range(1, 5)]
    script += still(20, pose("t34", 14, 13, 45), pose("sq1", 20, 20, 90))
    states, events = play(tracker, script)
    moves = [e for e in events if isinstance(e, MoveEvent)]
    assert len(moves) == 1 and len(events) == 1
    move = moves[0]
    assert move.piece == "t34"
    front_from = (10 + 1.5, 10)
    front_to = (14 + 1.5 * math.cos(math.radians(45)), 13 + 1.5 * math.sin(math.radians(45)))
    assert move.front_distance == pytest.approx(math.dist(front_from, front_to), abs=1e-6)
    assert move.start_frame == 20 and move.end_frame == 30
    assert move.duration == pytest.approx(10 / FPS)
    assert move.from_pose.x == pytest.approx(10) and move.to_pose.heading == pytest.approx(45)
    assert move.uncertainty > 0
    assert states[-1].piece("t34").state == "settled"
    assert states[22].piece("t34").state == "hidden"
    assert states[28].piece("t34").state == "moving"


def test_covered_piece_stays_at_its_settled_pose_and_is_no_move():
    tracker = Tracker(ROSTER)
    script = still(20, pose("t34", 10, 10, 0))
    script += still(
        30,
    )  # a hand over it for a second
    script += still(20, pose("t34", 10.01, 9.99, 0.5))
    states, events = play(tracker, script)
    assert events == []
    hidden = states[35].piece("t34")
    assert hidden.state == "hidden" and not hidden.pose.seen
    assert (hidden.pose.x, hidden.pose.y) == pytest.approx((10, 10), abs=1e-9)
    assert states[-1].piece("t34").state == "settled"


def test_lifted_and_put_back_nearly_in_place_is_no_move():
    tracker = Tracker(ROSTER)
    script = still(20, pose("t34", 10, 10, 0))
    script += [[pose("t34", 10, 10.5 + 0.5 * i, 0)] for i in range(5)]  # carried around
    script += still(5)  # under the hand while put down
    script += still(20, pose("t34", 10.05, 10.02, 1.0))
    _, events = play(tracker, script)
    assert events == []


def test_turning_on_the_spot_is_a_move():
    tracker = Tracker(ROSTER)
    script = still(20, pose("t34", 10, 10, 0)) + still(5) + still(20, pose("t34", 10, 10, 90))
    _, events = play(tracker, script)
    (move,) = events
    assert isinstance(move, MoveEvent)
    assert move.front_distance == pytest.approx(1.5 * math.sqrt(2), abs=1e-6)


def test_unknown_tag_is_flagged_once():
    tracker = Tracker(ROSTER)
    script = [frame([pose("t34", 10, 10)], unknown=[42]) for _ in range(40)]
    _, events = play(tracker, script)
    flags = [e for e in events if isinstance(e, FlagEvent)]
    assert [(f.kind, f.tag) for f in flags] == [("unknown_tag", 42)]
    assert "42" in flags[0].message


def test_duplicate_tag_is_flagged_and_ignored():
    tracker = Tracker(ROSTER)
    script = still(20, pose("t34", 10, 10))
    script += still(10, pose("t34", 10, 10), pose("t34", 30, 30))
    script += still(20, pose("t34", 10, 10))
    states, events = play(tracker, script)
    assert [e.kind for e in events] == ["duplicate_tag"]
    assert states[25].piece("t34").pose.x == pytest.approx(10)


def test_implausible_jump_is_flagged_and_a_one_frame_glitch_is_no_move():
    tracker = Tracker(ROSTER)
    script = [
        *still(20, pose("t34", 10, 10)),
        [pose("t34", 40, 30)],
        *still(20, pose("t34", 10, 10)),
    ]
    _, events = play(tracker, script)
    assert [e.kind for e in events] == ["jump", "jump"]
    assert not any(isinstance(e, MoveEvent) for e in events)


def test_roster_that_matches_nothing_seen_is_an_error():
    tracker = Tracker(ROSTER, TrackerSettings(mismatch_frames=10))
    with pytest.raises(RosterError, match="does not match"):
        play(tracker, [frame([], unknown=[7, 8]) for _ in range(10)])


def test_update_returns_new_values_and_reset_forgets():
    tracker = Tracker(ROSTER)
    states, _ = play(tracker, still(20, pose("t34", 10, 10)))
    before = states[-1]
    play(tracker, still(20, pose("t34", 15, 10)), start=20)
    assert before.piece("t34").pose.x == pytest.approx(10)  # old value untouched
    tracker.reset()
    assert tracker.update(0, 0.0, frame([])).pieces == ()


def test_tracks_line_matches_the_design_contract():
    tracker = Tracker(ROSTER)
    states, _ = play(tracker, still(20, pose("t34", 10, 10, 30)))
    line = states[-1].to_json()
    assert set(line) == {"frame", "t", "pieces"}
    (piece,) = line["pieces"]
    assert {"id", "tag", "x", "y", "heading", "seen"} <= set(piece)
    assert piece["id"] == "t34" and piece["tag"] == 1 and piece["state"] == "settled"


def test_a_move_carries_its_path_thinned_to_steps_and_turns():
    """A piece pivoted on the spot and slid on: the move event keeps the poses on the way,
    at least 0.25in or 5 degrees apart, without the resting frames at either end."""
    tracker = Tracker(ROSTER)
    script = still(20, pose("t34", 10, 10, 0))
    script += [[pose("t34", 10, 10, 3 * i)] for i in range(1, 31)]  # 90 deg on the spot
    script += [[pose("t34", 10, 10 + 0.05 * i, 90)] for i in range(1, 61)]  # 3in on
    script += still(20, pose("t34", 10, 13, 90))
    _, events = play(tracker, script)
    (move,) = events
    assert isinstance(move, MoveEvent)
    path = move.path
    assert 20 <= len(path) <= 40  # 90 frames seen on the way, a pose per step or turn kept
    steps = [move.from_pose, *path, move.to_pose]
    for a, b in itertools.pairwise(steps):
        turn = abs((b.heading - a.heading + 180) % 360 - 180)
        assert math.hypot(b.x - a.x, b.y - a.y) > 0.25 - 1e-9 or turn > 5 - 1e-9
    # The pivot is on the path: a pose at the start point turned most of the way round.
    assert any(math.hypot(p.x - 10, p.y - 10) < 1e-9 and p.heading > 80 for p in path)
    assert path[-1].y < 13 - 0.25 + 1e-9
    assert move.to_json()["via"][0] == {"x": 10.0, "y": 10.0, "heading": 6.0, "uncertainty": 0.01}


def test_a_piece_carried_out_of_sight_has_no_path():
    tracker = Tracker(ROSTER)
    script = still(20, pose("t34", 10, 10, 0)) + still(10) + still(20, pose("t34", 14, 10, 0))
    _, events = play(tracker, script)
    (move,) = events
    assert move.path == () and "via" not in move.to_json()
