"""The rules feed (verdicts on settled moves) and the annotated frame."""

from __future__ import annotations

import numpy as np
import pytest

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.markers.roster import Roster, RosterEntry
from referee.rules import find_ruleset
from referee.scene import Piece, Scene, Table, Terrain
from referee.vision.annotate import Annotator
from referee.vision.detect import Detections
from referee.vision.pipeline import FrameResult
from referee.vision.pose import PiecePose
from referee.vision.referee_feed import RulesFeed
from referee.vision.track import MoveEvent, TrackedPiece, TrackerState

ROSTER = Roster(
    "DICT_4X4_100",
    (
        RosterEntry(1, "t34a", "soviet", "tank", (1.5, 3.0)),
        RosterEntry(2, "t34b", "soviet", "tank", (1.5, 3.0)),
        RosterEntry(3, "sq1", "soviet", "infantry", (2.0, 1.0)),
    ),
)
START = {"t34a": (10.0, 20.0), "t34b": (12.5, 20.0), "sq1": (30.0, 20.0)}
PROFILE = CalibrationProfile(
    Intrinsics.from_fov((640, 360), 60), TablePose.looking_down((24, 18), 40), TableSize(48, 36)
)


def scene(queries=()):
    pieces = tuple(
        Piece(e.id, e.side, e.kind, *START[e.id], heading=270, base=e.base) for e in ROSTER
    )
    woods = Terrain("wood1", "woods", ((28, 8), (34, 8), (34, 14), (28, 14)))
    return Scene("paper-tigers", Table(48, 36), pieces, (woods,), tuple(queries))


def pose(pid, x, y, heading=270.0):
    return PiecePose(pid, ROSTER.by_id(pid).tag, x, y, heading, 0.01)


def move(pid, to, t):
    start = pose(pid, *START[pid])
    return MoveEvent(pid, start.tag, start, pose(pid, *to), 0.0, 0.014, t - 1, t, 0, 0)


def result(events, frame=0, image=None):
    pieces = tuple(TrackedPiece(pose(pid, *xy), "settled") for pid, xy in START.items())
    state = TrackerState(frame, float(frame), pieces, tuple(events))
    return FrameResult(frame, float(frame), Detections.empty(), state, state.events, PROFILE, image)


def feed(queries=()):
    return RulesFeed(scene(queries), find_ruleset("paper-tigers"), ROSTER)


def test_settled_move_gets_a_move_verdict_with_the_allowance():
    f = feed([{"ask": "move", "piece": "sq1", "allowance": 4}])
    (ruling,) = f.update(result([move("sq1", (30.0, 14.5), 5.0)]))
    assert ruling.ok is False  # 5.5in with a 4in allowance
    assert any("allowance" in r or "4in" in r for v in ruling.verdicts for r in v.reasons)
    assert f.scene.piece("sq1").y == pytest.approx(14.5)  # the scene follows the move
    assert "NOT OK" in ruling.describe()


def test_entering_woods_and_going_on_is_not_ok():
    (ruling,) = feed().update(result([move("sq1", (31.0, 6.0), 5.0)]))
    assert ruling.ok is False


def test_announced_follow_me_checks_each_follower_after_its_move():
    f = feed([{"ask": "follow_me", "leader": "t34a", "action": "move"}])
    (lead,) = f.update(result([move("t34a", (10.0, 14.0), 2.0)]))
    assert "t34b follows t34a" in lead.describe()
    (follow,) = f.update(result([move("t34b", (18.0, 14.0), 4.0)], frame=1))
    asks = [v.ask for v in follow.verdicts]
    assert asks == ["move", "follow_check"]
    assert follow.verdicts[1].ok is False  # ended more than 3in from the leader
    assert follow.ok is False


def test_a_follower_that_stays_close_is_ok():
    f = feed([{"ask": "follow_me", "leader": "t34a", "action": "move"}])
    f.update(result([move("t34a", (10.0, 14.0), 2.0)]))
    (follow,) = f.update(result([move("t34b", (12.5, 14.5), 4.0)], frame=1))
    assert [v.ok for v in follow.verdicts] == [True, True]


def test_annotated_frame_outlines_tags_and_draws_the_inset(tmp_path):
    image = np.full((360, 640, 3), 90, np.uint8)
    image.setflags(write=False)
    corners = np.array([[[100, 100], [130, 100], [130, 130], [100, 130]]], float)
    r = result([], image=image)
    r = FrameResult(0, 0.0, Detections([1], corners), r.tracks, (), PROFILE, image)
    annotator = Annotator(tmp_path / "out.mp4", ROSTER, scene())
    drawn = annotator.draw(r)
    assert drawn.shape == image.shape and image.mean() == 90  # the input is untouched
    b, g, r_ = (int(v) for v in drawn[100, 115])
    assert g > 150 and b < 60 and r_ < 60  # green outline on the tag's top edge
    inset = drawn[8:150, 640 - 192 - 8 : 640 - 8]
    assert np.abs(inset.astype(int) - 90).sum() > 0  # the map is drawn top right
    annotator.write(r)
    annotator.close()
    assert (tmp_path / "out.mp4").stat().st_size > 0


def test_annotator_colours_tags_by_the_pose_stages_split(tmp_path):
    # Anchors no file lists (the dictionary's defaults) are anchors, not unknown:
    # only the ids the pose stage called unknown are drawn red.
    image = np.full((360, 640, 3), 90, np.uint8)
    square = np.array([[0, 0], [30, 0], [30, 30], [0, 30]], float)
    corners = np.stack([square + np.array([100, 100]), square + np.array([300, 100])])
    tracks = result([]).tracks
    r = FrameResult(0, 0.0, Detections([99, 42], corners), tracks, (), PROFILE, image, (42,))
    drawn = Annotator(tmp_path / "out.mp4", ROSTER, scene()).draw(r)
    anchor_b, anchor_r = int(drawn[100, 115, 0]), int(drawn[100, 115, 2])
    unknown_b, unknown_g, unknown_r = (int(v) for v in drawn[100, 315])
    assert anchor_b > 150 and anchor_r < 60  # the blue anchor outline, not red
    assert unknown_r > 200 and unknown_g < 60 and unknown_b < 60  # red: unknown
