"""The warp renderer puts texture features exactly where the camera model projects them."""

from __future__ import annotations

import tracemalloc

import cv2
import numpy as np
import pytest

from referee.calibration.camera import Intrinsics
from referee.sim import warp
from referee.sim.warp import (
    PlanePose,
    RayMap,
    draw_board,
    draw_charuco,
    draw_plane,
    project_camera_points,
)
from referee.tags.board import BoardSpec

LENS = (-0.2, 0.05, 0.001, -0.0005, 0.0)


@pytest.fixture(scope="module")
def ray_map() -> RayMap:
    return RayMap.for_camera(Intrinsics.from_fov((1280, 720), 60, LENS))


def test_ray_map_inverts_projection(ray_map: RayMap) -> None:
    points = np.array([[3.0, -2.0, 20.0], [-9.0, 5.0, 18.0], [0.5, 0.5, 30.0]])
    pixels = project_camera_points(ray_map.intrinsics, points)
    for (px, py), point in zip(pixels, points, strict=True):
        x0, y0 = int(np.floor(px)), int(np.floor(py))
        # One sample per pixel: sample at pixel centre (x0, y0); compare with the ray there.
        ray = ray_map.sample(x0, y0, 1, 1, 1)[0, 0]
        expected = ray_map.intrinsics.undistort_normalized([[x0, y0]])[0]
        assert np.allclose(ray, expected, atol=1e-6)
        assert point[0] / point[2] == pytest.approx(
            ray_map.intrinsics.undistort_normalized([[px, py]])[0][0], abs=1e-9
        )


def test_ray_map_of_a_lens_free_camera_agrees_with_projection() -> None:
    """Also for a camera matrix with skew, which OpenCV's projection does not apply."""
    matrix = np.array([[700.0, 40.0, 319.5], [0.0, 690.0, 239.5], [0.0, 0.0, 1.0]])
    ray_map = RayMap.for_camera(Intrinsics((640, 480), matrix, np.zeros(5)))
    rays = ray_map.sample(100, 50, 3, 2, 1).reshape(-1, 2)
    pixels = project_camera_points(ray_map.intrinsics, np.column_stack([rays, np.ones(len(rays))]))
    expected = np.array([[x, y] for y in (50, 51) for x in (100, 101, 102)], float)
    assert np.abs(pixels - expected).max() < 1e-3


@pytest.mark.parametrize(
    "rvec, tvec",
    [((0.3, -0.2, 0.1), (-3.0, -4.0, 30.0)), ((-0.4, 0.5, 2.0), (2.0, 1.0, 26.0))],
)
def test_charuco_corners_land_where_projected(ray_map: RayMap, rvec, tvec) -> None:
    board = cv2.aruco.CharucoBoard(
        (5, 7), 0.04, 0.02, cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_6X6_250)
    )
    square_in = 1.0
    frame = np.full((720, 1280, 3), 128, np.uint8)
    draw_charuco(frame, ray_map, PlanePose.from_rvec_tvec(rvec, tvec), board, square_in)
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(frame)
    assert ids is not None and len(ids) >= 20
    objects = board.getChessboardCorners()[ids.ravel()] * (square_in / 0.04)
    expected, _ = cv2.projectPoints(
        objects, np.array(rvec), np.array(tvec), ray_map.intrinsics.matrix, LENS_ARRAY
    )
    error = np.linalg.norm(expected.reshape(-1, 2) - corners.reshape(-1, 2), axis=1)
    # cornerSubPix itself is biased by up to ~0.2 px on saddle corners; the
    # renderer's edges are exact (see the tag tests for the 0.1 px check).
    assert error.max() < 0.3
    assert error.mean() < 0.12


LENS_ARRAY = np.array(LENS)


def test_draw_plane_leaves_outside_untouched(ray_map: RayMap) -> None:
    frame = np.full((720, 1280, 3), 50, np.uint8)
    plane = PlanePose(np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0, 20.0]))
    box = draw_plane(frame, ray_map, plane, np.full((10, 10), 255, np.uint8), 10.0)
    assert box is not None
    x0, y0, w, h = box
    assert frame[y0 + h // 2, x0 + w // 2].tolist() == [255, 255, 255]
    outside = frame.copy()
    outside[y0 : y0 + h, x0 : x0 + w] = 50
    assert (outside == 50).all()


def test_plane_behind_camera_draws_nothing(ray_map: RayMap) -> None:
    frame = np.zeros((720, 1280, 3), np.uint8)
    plane = PlanePose(np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0, -5.0]))
    assert draw_plane(frame, ray_map, plane, np.full((4, 4), 255, np.uint8), 1.0) is None
    assert not frame.any()


def test_resampled_textures_are_remembered_within_a_byte_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A texture drawn again at the same size is resampled once; textures made afresh each
    frame (a board held at a new angle) do not pile up past the budget."""
    monkeypatch.setattr(warp, "_RESAMPLED", {})
    monkeypatch.setattr(warp, "_RESAMPLED_BYTES", 2 << 20)
    tex = np.random.default_rng(1).random((64, 64, 4), dtype=np.float32)
    first = warp._resample_cached(tex, (100, 90))
    assert warp._resample_cached(tex, (100, 90)) is first
    for k in range(40):
        fresh = np.full((64, 64, 4), k / 40, np.float32)
        warp._resample_cached(fresh, (200, 180))
        held = sum(t.nbytes + o.nbytes for t, _, o in warp._RESAMPLED.values())
        assert held <= 2 << 20 or len(warp._RESAMPLED) == 1
    assert len(warp._RESAMPLED) < 10


def test_a_board_carried_across_the_view_keeps_little_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The calibration clip draws its board at a new pose every frame. The board's texture
    is made once (80 texels a square, not 400: a float tie once picked 25 times the texels)
    and only its latest resampled copy is kept; before, each frame built a 117 MB texture
    and the cache held it (21 GB over a full clip, ~1 GB even with the cache bounded)."""
    monkeypatch.setattr(warp, "_RESAMPLED", {})
    warp._board_paper.cache_clear()
    spec = BoardSpec.parse("charuco:5x7:0.03m:0.021m:DICT_6X6_250")
    ray_map = RayMap.for_camera(Intrinsics.from_fov((320, 240), 55, LENS))
    frame = np.full((240, 320, 3), 100, np.uint8)
    tracemalloc.start()
    try:
        for k in range(6):
            rvec, tvec = (0.2 + 0.03 * k, -0.3, 0.05 * k), (-3.0 + 0.2 * k, -4.0, 18.0 + k)
            assert draw_board(frame, ray_map, PlanePose.from_rvec_tvec(rvec, tvec), spec)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20, f"peak {peak / 2**20:.0f} MB"
    assert held < 16 << 20, f"held {held / 2**20:.0f} MB"
    assert len(warp._RESAMPLED) == 1
