"""The dashboard with two cameras (issue 32 item 1): the health JSON lists each camera,
the camera picture is picked by ``?camera=N``, the frame message carries each camera's
tags, and a camera whose recording ends is shown as ended while the other goes on."""

from __future__ import annotations

import time

import cv2
import numpy as np
import pytest

from referee.game.live import CAMERA_RATE
from referee.web import create_app

from .twocam_live import two_camera_live


@pytest.fixture(scope="module")
def table():
    live = two_camera_live(both=16, alone=16)
    client = create_app(live, {"TESTING": True}).test_client()
    assert live.step(16) == 16  # both cameras
    both = client.get("/api/health").get_json()
    both_live = client.get("/api/live").get_json()
    pictures = {n: client.get(f"/api/camera.jpg?camera={n}") for n in (1, 2)}
    assert live.step(16) == 16  # camera 2's recording has ended; camera 1 goes on
    yield live, client, both, both_live, pictures
    live.stop()


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_health_lists_each_camera_with_what_it_sees_this_tick(table):
    _, _, health, _, _ = table
    first, second = health["cameras"]
    assert (first["camera"], first["name"], second["camera"], second["name"]) == (
        1,
        "cam1",
        2,
        "cam2",
    )
    for camera in (first, second):
        assert camera["state"] == "live" and camera["frames"] == 16 and camera["frame"] == 15
        assert camera["rms_px"] == pytest.approx(0.1)
        assert camera["re_registered"] is False and camera["moved"] == 0
        assert camera["image_size"] == [1280, 960]
    # Each sees its own part of the table and the piece in the overlap; four anchors each.
    assert sorted(first["pieces"]) == ["sq1", "t34"] and first["tags"] == 6
    assert sorted(second["pieces"]) == ["pz4", "sq1"] and second["tags"] == 6
    assert health["calibration"]["rms_px"] == pytest.approx(0.1)  # the first camera's, as before


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_a_camera_whose_recording_ended_is_shown_ended_while_the_other_goes_on(table):
    _, client, _, _, _ = table
    health = client.get("/api/health").get_json()
    first, second = health["cameras"]
    assert first["state"] == "live" and first["frames"] == 32 and first["tags"] == 6
    assert second["state"] == "ended" and second["frames"] == 16 and second["frame"] == 15
    assert second["tags"] is None and second["pieces"] == []
    assert sorted(health["pieces"]["seen"]) == ["sq1", "t34"]  # pz4 is only in camera 2's view
    assert sorted(health["pieces"]["hidden"]) == ["pz4"]


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_info_names_the_cameras_for_the_picker(table):
    _, client, _, _, _ = table
    info = client.get("/api/info").get_json()
    assert info["cameras"] == [{"camera": 1, "name": "cam1"}, {"camera": 2, "name": "cam2"}]


@pytest.mark.slow  # ~5 s of CPU; tests/web/test_serve_club.py shows both cameras in the default run
@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_the_camera_picture_is_each_camera_s_own(table):
    _, client, _, _, pictures = table
    decoded = {}
    for n, response in pictures.items():
        assert response.status_code == 200 and response.mimetype == "image/jpeg"
        assert response.headers["X-Frame"] == "15"
        decoded[n] = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
        assert decoded[n].shape == (720, 960, 3)  # 1280x960 scaled to 960 across
    assert np.abs(decoded[1].astype(int) - decoded[2].astype(int)).mean() > 5
    # Camera 2 ended: its last picture stays on show. Pictures are encoded at most
    # CAMERA_RATE times a second, so ask after that much time (else the tick-15 one is
    # served again, rightly, when the 16 ticks since were faster than that).
    time.sleep(1.0 / CAMERA_RATE)
    ended = client.get("/api/camera.jpg?camera=2")
    assert ended.status_code == 200 and ended.headers["X-Frame"] == "31"


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_the_frame_message_carries_each_camera_s_tags(table):
    _, _, _, message, _ = table
    cams = message["cameras"]
    assert [(c["camera"], c["name"], c["seen"]) for c in cams] == [
        (1, "cam1", True),
        (2, "cam2", True),
    ]
    labels = [{t["label"] for t in c["tags"] if t["kind"] == "piece"} for c in cams]
    assert labels == [{"t34", "sq1"}, {"pz4", "sq1"}]
    assert message["tags"] == cams[0]["tags"]  # the top-level tags are the first camera's
    assert all(c["image_size"] == [1280, 960] for c in cams)


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_the_top_down_picture_joins_both_cameras(table):
    _, client, _, _, _ = table
    response = client.get("/api/table.jpg")
    assert response.status_code == 200
    image = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[:2] == (24 * 20, 56 * 20)
    # Both ends of the table come from a camera (camera 1 sees x < 35, camera 2 x > 21).
    assert image[:, : 10 * 20].mean() > 60 and image[:, -10 * 20 :].mean() > 60


@pytest.mark.parametrize(
    "value", ["0", "3", "-1", "x", "1.5", "", " 2", "99999999999999999999", "x" * 9000, "9" * 5000]
)
@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_a_bad_camera_number_is_a_one_line_400(table, value):
    _, client, _, _, _ = table
    response = client.get(f"/api/camera.jpg?camera={value}")
    if value in ("", " 2"):  # empty: the default camera; int(" 2") reads 2
        assert response.status_code == 200
        return
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error.startswith("camera: ") and "\n" not in error and len(error) < 120


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_one_camera_still_answers_camera_1_and_refuses_2():
    from referee.game import sample_live

    live = sample_live(pace=0)
    client = create_app(live, {"TESTING": True}).test_client()
    live.step(2)
    assert client.get("/api/camera.jpg?camera=1").status_code == 200
    refused = client.get("/api/camera.jpg?camera=2")
    assert refused.status_code == 400
    assert refused.get_json()["error"] == "camera: no camera 2; this table has one camera (1)"
    (only,) = client.get("/api/health").get_json()["cameras"]
    assert only["camera"] == 1 and only["state"] == "live" and only["frames"] == 2
    assert "cameras" not in client.get("/api/live").get_json()
    live.stop()


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_a_lost_camera_is_dropped_at_once_and_live_again_when_reopened():
    live = two_camera_live(both=3, alone=0)
    client = create_app(live, {"TESTING": True}).test_client()
    live.step(3)
    live.session.camera_event("lost", "cam2: the camera stopped sending frames", 1)
    health = client.get("/api/health").get_json()
    assert [c["state"] for c in health["cameras"]] == ["live", "dropped"]
    assert health["camera"][-1]["camera"] == 2 and health["camera"][-1]["kind"] == "lost"
    live.session.camera_event("reopened", "cam2: reopened", 1)
    health = client.get("/api/health").get_json()
    assert [c["state"] for c in health["cameras"]] == ["live", "live"]
    live.stop()
