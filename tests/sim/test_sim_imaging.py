"""Camera imperfections: deterministic, bounded, and a clean imager changes nothing."""

from __future__ import annotations

import cv2
import numpy as np

from referee.calibration.camera import Intrinsics
from referee.sim.imaging import Imager
from referee.sim.warp import PlanePose, RayMap, draw_board
from referee.tags.board import BoardSpec


def _frame() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(60, 200, (120, 160, 3)).astype(np.uint8)


def test_clean_imager_returns_an_equal_copy() -> None:
    frame = _frame()
    out = Imager((160, 120), blur=0, noise=0, vignetting=0, light=0).apply(frame)
    assert out is not frame and np.array_equal(out, frame)


def test_imaging_is_deterministic_per_seed_and_darkens_corners() -> None:
    flat = np.full((120, 160, 3), 150, np.uint8)
    a = Imager((160, 120), blur=0.8, noise=2, vignetting=0.3, light=0, seed=4)
    b = Imager((160, 120), blur=0.8, noise=2, vignetting=0.3, light=0, seed=4)
    first, second = a.apply(flat), b.apply(flat)
    assert np.array_equal(first, second)
    assert first[:10, :10].mean() < first[55:65, 75:85].mean() - 20
    assert np.array_equal(flat, np.full((120, 160, 3), 150, np.uint8))  # input untouched


def test_board_from_spec_is_detected_at_its_corners() -> None:
    spec = BoardSpec.parse("charuco:5x7:0.03m:0.021m:DICT_6X6_250")
    intrinsics = Intrinsics.from_fov((1280, 720), 55, (-0.15, 0.02, 0, 0, 0))
    ray_map = RayMap.for_camera(intrinsics)
    rvec, tvec = np.array([0.25, -0.3, 0.05]), np.array([-2.5, -3.5, 16.0])
    frame = np.full((720, 1280, 3), 100, np.uint8)
    draw_board(frame, ray_map, PlanePose.from_rvec_tvec(rvec, tvec), spec)
    board = spec.cv_board()
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(frame)
    assert ids is not None and len(ids) == spec.corner_count
    objects = board.getChessboardCorners()[ids.ravel()] * (spec.square_in() / spec.square_m)
    expected, _ = cv2.projectPoints(objects, rvec, tvec, intrinsics.matrix, intrinsics.distortion)
    error = np.linalg.norm(expected.reshape(-1, 2) - corners.reshape(-1, 2), axis=1)
    assert np.median(error) < 0.1 and error.max() < 0.3
