"""The simulated projector: light lands where its homography says, dimmed, clipped (issue 39)."""

from __future__ import annotations

import numpy as np
import pytest

from referee.calibration.camera import Intrinsics, TablePose, project, table_xyz
from referee.sim.projector import Projector, RaisedTop, add_light, line_overlay

LENS = (-0.2, 0.05, 0.0008, -0.0005, 0.0)
CAMERA = Intrinsics.from_fov((960, 540), 62, LENS)
POSE = TablePose.looking_down((18, 12), 36, tilt_deg=5, yaw_deg=0.7)
PROJECTOR = Projector.overhead((640, 400), (-1, -1, 37, 25), rotation_deg=2.0, keystone=0.04)


def _dot(at: tuple[int, int], projector: Projector = PROJECTOR) -> np.ndarray:
    width, height = projector.resolution
    picture = np.zeros((height, width, 3), np.uint8)
    x, y = at
    picture[y - 1 : y + 2, x - 1 : x + 2] = 255
    return picture


def _centroid(light: np.ndarray) -> np.ndarray:
    weight = light[..., 1].astype(float)
    rows, cols = np.nonzero(weight)
    w = weight[rows, cols]
    return np.array([np.sum(cols * w), np.sum(rows * w)]) / w.sum()


def _light(picture: np.ndarray, projector: Projector = PROJECTOR, **kw) -> np.ndarray:
    black = np.zeros((540, 960, 3), np.uint8)
    return add_light(black, picture, projector, CAMERA, POSE, ambient=0.0, **kw)


def test_light_lands_where_the_homography_says():
    spot = PROJECTOR.picture_to_table([[300, 180]])
    expected = project(CAMERA, POSE, table_xyz(spot, 0.0))[0]
    assert np.hypot(*(_centroid(_light(_dot((300, 180)))) - expected)) < 0.3


def test_a_raised_top_is_lit_by_the_pixel_straight_above():
    spot = PROJECTOR.picture_to_table([[420, 240]])[0]
    top = RaisedTop(
        (
            (spot[0] - 1, spot[1] - 1),
            (spot[0] + 1, spot[1] - 1),
            (spot[0] + 1, spot[1] + 1),
            (spot[0] - 1, spot[1] + 1),
        ),
        0.9,
    )
    lit = _light(_dot((420, 240)), tops=[top])
    on_top = project(CAMERA, POSE, table_xyz([spot], 0.9))[0]
    on_cloth = project(CAMERA, POSE, table_xyz([spot], 0.0))[0]
    assert np.hypot(*(on_top - on_cloth)) > 2  # the two are told apart
    assert np.hypot(*(_centroid(lit) - on_top)) < 0.3


def test_lens_distortion_moves_the_light_as_the_lens_model_says():
    bent = Projector(PROJECTOR.resolution, PROJECTOR.homography, k1=0.08)
    # The picture pixel (600, 60) lands where the undistorted pixel whose image it is lands.
    target = np.array([600.0, 60.0])
    grid = np.stack(np.meshgrid(np.arange(520, 640.0, 0.25), np.arange(0, 120.0, 0.25)), -1)
    grid = grid.reshape(-1, 2)
    source = grid[np.argmin(np.hypot(*(bent.distort(grid) - target).T))]
    expected = project(CAMERA, POSE, table_xyz(bent.picture_to_table([source]), 0.0))[0]
    straight = project(CAMERA, POSE, table_xyz(PROJECTOR.picture_to_table([target]), 0.0))[0]
    found = _centroid(_light(_dot((600, 60), bent), bent))
    assert np.hypot(*(expected - straight)) > 3
    assert np.hypot(*(found - expected)) < 0.5


def test_black_adds_nothing_white_clips_and_the_room_dims_it():
    frame = np.full((540, 960, 3), 200, np.uint8)
    width, height = PROJECTOR.resolution
    black = np.zeros((height, width, 3), np.uint8)
    white = np.full((height, width, 3), 255, np.uint8)
    assert np.array_equal(add_light(frame, black, PROJECTOR, CAMERA, POSE), frame)
    centre = (270, 480)
    assert (
        add_light(frame, white, PROJECTOR, CAMERA, POSE, ambient=0.0)[centre].tolist() == [255] * 3
    )
    grey = np.full((height, width, 3), 100, np.uint8)
    dark = np.zeros_like(frame)
    full = add_light(dark, grey, PROJECTOR, CAMERA, POSE, ambient=0.0)[centre]
    half = add_light(dark, grey, PROJECTOR, CAMERA, POSE, ambient=0.5)[centre]
    assert full.tolist() == [100] * 3 and half.tolist() == [50] * 3
    # Off the projector's picture (the frame's corner sees the floor past it) nothing is added.
    assert add_light(dark, white, PROJECTOR, CAMERA, POSE, ambient=0.0)[0, 0].tolist() == [0] * 3


def test_line_overlay_joins_every_pair():
    image = line_overlay(
        (200, 100), np.array([[10.0, 10.0], [190.0, 10.0], [100.0, 90.0]]), thickness_px=3
    )
    for x, y in ((100, 10), (55, 50), (145, 50)):
        assert image[y, x].max() == 255
    assert image[80, 20].max() == 0


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (
            lambda: add_light(
                np.zeros((540, 960, 3), np.uint8),
                np.zeros((10, 10, 3), np.uint8),
                PROJECTOR,
                CAMERA,
                POSE,
            ),
            "projector picture must be",
        ),
        (
            lambda: add_light(
                np.zeros((540, 960, 3), np.uint8),
                np.zeros((400, 640, 3), np.uint8),
                PROJECTOR,
                CAMERA,
                POSE,
                ambient=1.0,
            ),
            "ambient must be in",
        ),
        (lambda: Projector((640, 400), np.zeros((3, 3))), "finite and invertible"),
        (lambda: Projector((0, 400), np.eye(3)), "resolution must be positive"),
    ],
)
def test_bad_arguments_are_refused(call, words):
    with pytest.raises(ValueError, match=words):
        call()
