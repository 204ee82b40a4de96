"""A bumped camera among several: its move is logged with its number and table pose, and a
resumed game puts each camera's table back where its last move put it (issue 32 item 1)."""

from __future__ import annotations

import numpy as np
import pytest
import twocam_vision as tv

from referee.calibration.camera import TablePose
from referee.game import Session
from referee.scene import Scene, Table
from referee.store import GameLog
from referee.vision.pipeline import Pipeline
from referee.vision.sources import Frame

PLACE = {"pz4": (46.0, 12.0, 180.0), "t34": (8.0, 12.0, 0.0)}
MOVED = TablePose.looking_down((39.3, 12.2), 31.0, tilt_deg=2.0, yaw_deg=-0.5)


def _pipeline() -> Pipeline:
    return Pipeline(tv.profiles(), tv.roster(), source_name=("cam1", "cam2"))


def _bumped(k: int) -> Frame:
    """Both cameras' tick ``k``, camera 2 knocked to ``MOVED``."""
    intr, _ = tv.cameras()[1]
    image = tv.render(intr, MOVED, tv.piece_tags(PLACE) + tv.anchor_tag_list())
    frame = tv.frame_set(k, PLACE)
    return Frame(k, frame.t, frame.views[0].image, (frame.views[0], Frame(k, frame.t, image)))


def _same(a: TablePose, b: TablePose) -> bool:
    return bool(np.allclose(a.rvec, b.rvec, atol=1e-6) and np.allclose(a.tvec, b.tvec, atol=1e-4))


def _start(log: GameLog) -> Session:
    return Session.start(_pipeline(), Scene("paper-tigers", Table(*tv.TABLE)), log=log, game="g")


@pytest.mark.slow  # two camera runs of a bumped game and its resume: ~9 s of CPU
def test_a_bumped_second_camera_is_logged_as_camera_2_and_restored_on_resume(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    session = _start(log)
    events = [e for k in range(8) for e in session.process(_bumped(k)).events]
    bumped = session.pipeline.cameras[1].profile.table_pose
    session.close()
    (moved,) = [e for e in events if e.type == "camera"]
    assert moved.data["kind"] == "moved" and moved.data["camera"] == 2
    assert moved.data["message"].startswith("cam2: ")
    assert np.allclose(moved.data["table_pose"]["tvec"], bumped.tvec, atol=1e-3)

    resumed = _start(log)
    assert resumed.resumed
    first, second = resumed.pipeline.cameras
    # Camera 2 starts where its move put it; camera 1 was never bumped and keeps its profile.
    assert np.allclose(second.profile.table_pose.tvec, bumped.tvec, atol=1e-3)
    assert np.allclose(second.profile.table_pose.rvec, bumped.rvec, atol=1e-5)
    assert _same(first.profile.table_pose, tv.profiles()[0].table_pose)
    # Its frames place the pieces at once, with no new camera move to find.
    results = [resumed.process(_bumped(k)) for k in range(8, 12)]
    assert not [e for r in results for e in r.events if e.type == "camera"]
    pz4 = results[-1].result.tracks.piece("pz4")
    assert (pz4.pose.x, pz4.pose.y) == pytest.approx((46.0, 12.0), abs=0.05)
    resumed.close()


def test_a_logged_camera_move_without_a_camera_number_is_camera_1s():
    # A log written before several cameras: its camera event names no camera.
    pipeline = _pipeline()
    pipeline.resume({}, {0: MOVED})
    assert _same(pipeline.cameras[0].profile.table_pose, MOVED)
    assert _same(pipeline.cameras[1].profile.table_pose, tv.profiles()[1].table_pose)
    pipeline = _pipeline()
    pipeline.resume({}, MOVED)  # one pose is the first camera's
    assert _same(pipeline.cameras[0].profile.table_pose, MOVED)
    pipeline.resume({}, {5: MOVED})  # a camera this set-up does not have is ignored
    assert len(pipeline.cameras) == 2


def test_an_old_log_s_camera_move_restores_camera_1_on_resume(tmp_path):
    from referee.events import GameEvent
    from referee.game.session import table_pose_json

    log = GameLog(tmp_path / "games.sqlite")
    session = _start(log)
    session.process(tv.frame_set(0, PLACE))
    session.close()
    game = log.game("g")
    old = {"kind": "moved", "message": "the camera moved", "table_pose": table_pose_json(MOVED)}
    last = max((e.seq for e in log.events(game)), default=0)
    log.append(game, [GameEvent(last + 1, 0.0, "camera", old, 0)])
    log.release(game)
    resumed = _start(log)
    assert np.allclose(resumed.pipeline.cameras[0].profile.table_pose.tvec, MOVED.tvec)
    assert _same(resumed.pipeline.cameras[1].profile.table_pose, tv.profiles()[1].table_pose)
    resumed.close()
