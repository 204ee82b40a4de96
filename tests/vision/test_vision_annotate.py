"""Annotated video: the map beside the camera's picture, verdicts shown for ~3 s of video."""

from __future__ import annotations

import cv2
import numpy as np

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.markers.roster import Roster, RosterEntry
from referee.tags.detect import Detections
from referee.vision.annotate import ANNOUNCE_SECONDS, Annotator
from referee.vision.pipeline import FrameResult
from referee.vision.pose import PiecePose
from referee.vision.track import TrackedPiece, TrackerState

ROSTER = Roster("DICT_4X4_100", (RosterEntry(1, "t34a", "soviet", "tank", (1.5, 3.0)),))
PROFILE = CalibrationProfile(
    Intrinsics.from_fov((640, 360), 60), TablePose.looking_down((18, 12), 30), TableSize(36, 24)
)
QUAD = np.array([[[560.0, 20.0], [600.0, 20.0], [600.0, 60.0], [560.0, 60.0]]])


def frame_result(t: float, fps: float = 12.0) -> FrameResult:
    image = np.full((360, 640, 3), 90, np.uint8)
    image[::7] = 60  # some texture, so any overdraw shows
    image.setflags(write=False)
    piece = TrackedPiece(PiecePose("t34a", 1, 33.0, 2.0, 0.0, 0.01), "settled")
    state = TrackerState(round(t * fps), t, (piece,), ())
    return FrameResult(round(t * fps), t, Detections([1], QUAD), state, (), PROFILE, image)


def test_map_is_beside_the_picture_never_over_it(tmp_path):
    r = frame_result(0.0)
    drawn = Annotator(tmp_path / "a.mp4", ROSTER).draw(r)
    assert drawn.shape[0] == 360 and drawn.shape[1] > 640
    camera = drawn[:, :640].astype(int)
    changed = np.abs(camera - r.image).max(axis=2) > 0
    # Only the tag's outline and label touch the picture, even in its top-right corner
    # (where the tag and the piece are).
    near_tag = np.zeros((360, 640), np.uint8)
    cv2.rectangle(near_tag, (550, 10), (639, 75), 1, -1)
    assert changed[20, 580] and not (changed & (near_tag == 0)).any()
    # The map (table green, the piece near its top-right corner) is in the panel.
    panel = drawn[:, 640:]
    green = (panel[..., 1] > panel[..., 0] + 20) & (panel[..., 1] > panel[..., 2] + 10)
    assert green.sum() > 1000


def test_announced_verdict_shows_for_about_three_seconds(tmp_path):
    annotator = Annotator(tmp_path / "a.mp4", ROSTER, fps=12.0)
    annotator.announce(["[NO] move sq1 5.50in (+/-0.01): over the 4in allowance", "woods"])
    times = [1.0 + k / 12 for k in range(0, 60)]
    shown = []
    for t in times:
        drawn = annotator.draw(frame_result(t))
        below_map = np.s_[155:, 640:]  # under the map and the frame/time line
        reference = annotator.__class__(tmp_path / "b.mp4", ROSTER).draw(frame_result(t))
        shown.append(bool(np.abs(drawn[below_map].astype(int) - reference[below_map]).max() > 0))
    first_gone = shown.index(False)
    assert all(shown[:first_gone]) and not any(shown[first_gone:])
    assert abs(times[first_gone] - 1.0 - ANNOUNCE_SECONDS) <= 1 / 12 + 1e-9
    # The picture itself never carries the verdict.
    drawn = Annotator(tmp_path / "c.mp4", ROSTER)
    drawn.announce(["[ok] range"])
    with_verdict = drawn.draw(frame_result(2.0))
    without = Annotator(tmp_path / "d.mp4", ROSTER).draw(frame_result(2.0))
    assert np.array_equal(with_verdict[:, :640], without[:, :640])


def test_written_video_has_the_panel(tmp_path):
    annotator = Annotator(tmp_path / "a.mp4", ROSTER, fps=12.0)
    for t in (0.0, 1 / 12):
        annotator.write(frame_result(t))
    annotator.close()
    video = cv2.VideoCapture(str(tmp_path / "a.mp4"))
    ok, first = video.read()
    assert ok and first.shape[1] > 640 and first.shape[0] == 360
