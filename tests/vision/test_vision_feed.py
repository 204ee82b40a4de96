"""The annotated frame: tags outlined by kind, the top-down map."""

from __future__ import annotations

import numpy as np

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.markers.roster import Roster, RosterEntry
from referee.scene import Piece, Scene, Table, Terrain
from referee.tags.detect import Detections
from referee.vision.annotate import Annotator
from referee.vision.pipeline import FrameResult
from referee.vision.pose import PiecePose
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


def test_annotated_frame_outlines_tags_and_draws_the_inset(tmp_path):
    image = np.full((360, 640, 3), 90, np.uint8)
    image.setflags(write=False)
    corners = np.array([[[100, 100], [130, 100], [130, 130], [100, 130]]], float)
    r = result([], image=image)
    r = FrameResult(0, 0.0, Detections([1], corners), r.tracks, (), PROFILE, image)
    annotator = Annotator(tmp_path / "out.mp4", ROSTER, scene())
    drawn = annotator.draw(r)
    assert drawn.shape == (360, 640 + 192, 3) and image.mean() == 90  # the input is untouched
    b, g, r_ = (int(v) for v in drawn[100, 115])
    assert g > 150 and b < 60 and r_ < 60  # green outline on the tag's top edge
    inset = drawn[8:150, 640 + 8 : 640 + 192 - 8]
    assert np.abs(inset.astype(int) - 90).sum() > 0  # the map is drawn beside the picture
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
