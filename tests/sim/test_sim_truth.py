"""Ground truth is exact: tags land in a clean render where the camera model projects them.

OpenCV's corner refinement has its own bias on a tag's convex corners (it
pulls them about 0.1 px towards the tag centre even on a perfectly
area-sampled image), so exactness is checked two ways: an unbiased edge fit
(sub-pixel edge points along each side by the area method, lines intersected) must agree
with the projected corners to a few hundredths of a pixel, and the stock
detector must find every tag with the right id within its own accuracy.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from referee.calibration.camera import Intrinsics, TablePose, project, table_xyz
from referee.calibration.profile import TableSize
from referee.calibration.table import anchor_table_corners, default_anchors
from referee.markers.roster import RosterEntry
from referee.sim.measure import edge_fit_corners
from referee.sim.render import Hand, PiecePose, TableRenderer
from referee.tags.layout import ANCHOR_HEADING_DEG

DICT = "DICT_4X4_100"
LENS = (-0.2, 0.05, 0.0008, -0.0005, 0.0)
TABLE = TableSize(36, 24)


def _scene() -> tuple[TableRenderer, dict[str, PiecePose]]:
    rng = np.random.default_rng(3)
    entries, poses = [], {}
    for i in range(16):
        raised = i % 2 == 1
        entries.append(
            RosterEntry(
                i,
                f"p{i}",
                "soviet" if i < 8 else "german",
                "tank" if raised else "infantry",
                (1.5, 3.0) if raised else (2.0, 1.0),
                (0.2, 0.0) if raised else (0.0, 0.0),
                0.9 if raised else 0.0,
            )
        )
        col, row = i % 4, i // 4
        poses[f"p{i}"] = PiecePose(
            5 + col * 8.5 + rng.uniform(-1, 1),
            4 + row * 5.3 + rng.uniform(-0.8, 0.8),
            rng.uniform(0, 360),
        )
    intrinsics = Intrinsics.from_fov((1920, 1080), 62, LENS)
    pose = TablePose.looking_down((18, 12), 36, tilt_deg=5, yaw_deg=0.7)
    renderer = TableRenderer(
        intrinsics, pose, TABLE, entries, (), default_anchors(DICT, TABLE), DICT
    )
    return renderer, poses


@pytest.fixture(scope="module")
def clean() -> tuple[TableRenderer, dict[str, PiecePose], np.ndarray, dict]:
    renderer, poses = _scene()
    frame, truth = renderer.render(poses)
    return renderer, poses, frame, truth


def _detector(method: int) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = method
    params.cornerRefinementMinAccuracy = 0.001
    params.cornerRefinementMaxIterations = 100
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100)
    return cv2.aruco.ArucoDetector(dictionary, params)


def test_every_tag_is_detected_with_its_id(clean) -> None:
    renderer, _poses, frame, _truth = clean
    _, ids, _ = _detector(cv2.aruco.CORNER_REFINE_SUBPIX).detectMarkers(frame)
    assert ids is not None
    expected = {e.tag for e in renderer.pieces} | {a.tag for a in renderer.anchors}
    assert sorted(ids.ravel().tolist()) == sorted(expected)


def test_edge_fit_corners_match_projected_truth(clean) -> None:
    renderer, _poses, frame, truth = clean
    corners, ids, _ = _detector(cv2.aruco.CORNER_REFINE_SUBPIX).detectMarkers(frame)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    by_tag = {e.tag: e.id for e in renderer.pieces}
    errors = {"flat": [], "raised": []}
    for c, tag in zip(corners, ids.ravel(), strict=True):
        if tag not in by_tag:
            continue
        pid = by_tag[int(tag)]
        fitted = edge_fit_corners(grey, c.reshape(4, 2), renderer.intrinsics)
        error = np.linalg.norm(fitted - truth[pid].corners_px, axis=1)
        raised = renderer.pieces[int(tag)].tag_height > 0
        errors["raised" if raised else "flat"].extend(error.tolist())
    for kind, values in errors.items():
        assert len(values) == 32, kind
        # Axis-aligned tags agree to ~0.005 px; tags near 45 degrees to ~0.07 px
        # (a 4x4 supersample of a diagonal edge).
        assert max(values) < 0.1, (kind, max(values))
        assert float(np.median(values)) < 0.03, (kind, float(np.median(values)))


def test_anchor_corners_match_projected_truth(clean) -> None:
    renderer, _, frame, _ = clean
    corners, ids, _ = _detector(cv2.aruco.CORNER_REFINE_SUBPIX).detectMarkers(frame)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found = dict(zip(ids.ravel().tolist(), corners, strict=True))
    for anchor in renderer.anchors:
        expected = project(
            renderer.intrinsics,
            renderer.pose,
            table_xyz(anchor_table_corners(anchor, ANCHOR_HEADING_DEG), 0.0),
        )
        fitted = edge_fit_corners(grey, found[anchor.tag].reshape(4, 2), renderer.intrinsics)
        assert np.linalg.norm(fitted - expected, axis=1).max() < 0.02


@pytest.mark.parametrize("method", [cv2.aruco.CORNER_REFINE_SUBPIX], ids=["subpix"])
def test_stock_detector_agrees_within_its_own_accuracy(clean, method) -> None:
    renderer, _, frame, truth = clean
    corners, ids, _ = _detector(method).detectMarkers(frame)
    by_tag = {e.tag: e.id for e in renderer.pieces}
    errors = [
        np.linalg.norm(c.reshape(4, 2) - truth[by_tag[int(tag)]].corners_px, axis=1)
        for c, tag in zip(corners, ids.ravel(), strict=True)
        if int(tag) in by_tag
    ]
    values = np.concatenate(errors)
    # cornerSubPix pulls convex corners ~0.1-0.25 px towards the tag centre.
    assert np.median(values) < 0.3
    assert values.max() < 0.5


def test_hand_over_a_tag_is_reported_covered(clean) -> None:
    renderer, poses, _, _ = clean
    target = poses["p5"]
    hand = Hand((target.x, 30.0), (target.x, target.y + 0.5), 3.0)
    _frame, truth = renderer.render(poses, [hand])
    assert truth["p5"].covered > 0.3 and not truth["p5"].visible
    assert truth["p0"].visible and truth["p0"].covered == 0.0
    fast = renderer.truth(poses, [hand])
    assert {k: t.covered for k, t in fast.items()} == {k: t.covered for k, t in truth.items()}


def test_raised_tag_is_seen_in_perspective(clean) -> None:
    """A 0.9 in roof tag projects away from where the same tag at table level would."""
    renderer, poses, _, truth = clean
    entry = renderer.pieces[1]
    flat = renderer.tag_corners_px(
        RosterEntry(entry.tag, entry.id, entry.side, entry.kind, entry.base, entry.tag_offset, 0.0),
        poses[entry.id],
    )
    shift = np.linalg.norm(truth[entry.id].corners_px - flat, axis=1).max()
    assert shift > 1.0
    assert math.isfinite(shift)
