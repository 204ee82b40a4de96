"""The camera model is the one place pixels meet inches: its inverse must be exact."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.calibration.camera import (
    Intrinsics,
    TablePose,
    inches_per_pixel,
    pixels_to_table,
    project,
    table_xyz,
)

WEBCAM = Intrinsics.from_fov((1920, 1080), 70, (-0.22, 0.05, 0.001, -0.0005, 0.0))


@settings(max_examples=60, deadline=None)
@given(
    x=st.floats(2, 46),
    y=st.floats(2, 34),
    height=st.floats(0, 2),
    tilt=st.floats(0, 20),
    yaw=st.floats(-180, 180),
)
def test_pixels_to_table_inverts_project_through_a_distorting_lens(x, y, height, tilt, yaw):
    pose = TablePose.looking_down((24, 18), 45, tilt_deg=tilt, yaw_deg=yaw)
    pixel = project(WEBCAM, pose, table_xyz([[x, y]], height))
    back = pixels_to_table(WEBCAM, pose, pixel, height)
    assert np.allclose(back, [[x, y]], atol=1e-9)


def test_ignoring_tag_height_misplaces_a_roof_tag_near_the_edge():
    # The reason roster tag heights exist: a 0.9in roof tag mapped as if flat
    # lands well away from the tank near the table edge.
    pose = TablePose.looking_down((24, 18), 40)
    pixel = project(WEBCAM, pose, table_xyz([[46, 34]], 0.9))
    flat = pixels_to_table(WEBCAM, pose, pixel, 0.0)
    raised = pixels_to_table(WEBCAM, pose, pixel, 0.9)
    assert np.hypot(*(flat[0] - [46, 34])) > 0.5
    assert np.allclose(raised, [[46, 34]], atol=1e-9)


def test_looking_down_puts_the_camera_above_the_table_on_the_near_side_when_tilted():
    straight = TablePose.looking_down((24, 18), 40)
    tilted = TablePose.looking_down((24, 18), 40, tilt_deg=20)
    assert straight.camera_center.tolist() == pytest.approx([24, 18, -40])
    assert tilted.camera_center[2] == pytest.approx(-40)
    assert tilted.camera_center[1] < 18  # leaning back from the -y edge
    # The target stays at the image centre either way.
    for pose in (straight, tilted):
        centre = project(Intrinsics.from_fov((640, 480), 60), pose, table_xyz([[24, 18]]))
        assert centre[0] == pytest.approx([319.5, 239.5], abs=1e-9)


def test_rays_above_the_horizon_give_nan_not_a_point_behind_the_camera():
    # Image rows grow along +y, so with the camera leaning back from the -y
    # edge the horizon is towards the bottom of the image.
    pose = TablePose.looking_down((24, 18), 40, tilt_deg=80)
    far_corner = np.array([[0.0, 479.0]])
    assert np.isnan(pixels_to_table(Intrinsics.from_fov((640, 480), 60), pose, far_corner)).all()


def test_inches_per_pixel_matches_the_pinhole_scale_at_the_centre():
    camera = Intrinsics.from_fov((1000, 1000), 60)
    pose = TablePose.looking_down((10, 10), 50)
    scale = inches_per_pixel(camera, pose, [[499.5, 499.5]])
    assert scale[0] == pytest.approx(50 / camera.fx, rel=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"image_size": (0, 480), "matrix": np.eye(3)}, "image size"),
        (
            {"image_size": (640, 480), "matrix": np.eye(3), "distortion": [0.1, 0.2, 0.3]},
            "distortion",
        ),
        ({"image_size": (640, 480), "matrix": np.full((3, 3), math.nan)}, "finite"),
    ],
)
def test_bad_intrinsics_are_refused_with_a_reason(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Intrinsics(**kwargs)


def test_values_are_immutable():
    with pytest.raises(ValueError):
        WEBCAM.matrix[0, 0] = 1.0
