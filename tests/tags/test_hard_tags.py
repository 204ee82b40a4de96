"""Small, washed-out and steep tags on renders: recall at least stock OpenCV's (and AprilTag
3's on its families), never a wrong id, corners in the project's order."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from render_tags import render, stock, tally

from referee.tags import apriltag
from referee.tags.detect import Detections, DetectorSettings, TagDetector

APRIL = "DICT_APRILTAG_36H11"
ARUCO = "DICT_4X4_100"
needs_pupil = pytest.mark.skipif(not apriltag.available(), reason="pupil-apriltags missing")


@pytest.mark.parametrize(
    ("case", "options"),
    [
        ("14 px", {}),
        ("washed out", {"washed": 0.6}),
        ("turned 70 deg", {"tag_in": 1.0, "tilt_deg": 70.0, "height": 8.0}),
    ],
)
def test_aruco_hard_tags_found_as_often_as_stock_and_never_misread(case, options):
    scene = render(ARUCO, **{"tag_in": 0.55, **options})
    ours_right, ours_wrong, worst = tally(TagDetector(ARUCO).detect_full(scene.gray), scene)
    stock_right, _, _ = tally(stock(scene.gray, ARUCO), scene)
    assert ours_wrong == 0
    assert ours_right >= stock_right
    assert ours_right >= len(scene.truth) - 1, case
    assert worst < 1.0


def test_second_look_at_twice_the_resolution_reads_tags_the_first_pass_cannot():
    scene = render(ARUCO, 0.45, seed=1)  # ~11 px: 1.9 px a cell
    with_look = tally(TagDetector(ARUCO).detect_full(scene.gray), scene)
    without = TagDetector(ARUCO, DetectorSettings(upscale_rejects=False)).detect_full(scene.gray)
    assert with_look[1] == 0
    assert with_look[0] > tally(without, scene)[0]
    # Corners mapped back from the enlarged crop, not offset by the enlargement.
    assert with_look[2] < 1.0


@needs_pupil
def test_apriltag3_corners_and_ids_map_to_the_project_convention():
    scene = render(APRIL, 0.8)
    ids, quads = apriltag.detect_apriltag(scene.gray, "tag36h11")
    assert sorted(ids.tolist()) == sorted(scene.truth)
    for tag, quad in zip(ids.tolist(), quads, strict=True):
        # Same order (TL, TR, BR, BL of the printed tag) and pixel centres as OpenCV's.
        assert np.linalg.norm(quad - scene.truth[tag], axis=1).max() < 0.8


@needs_pupil
@pytest.mark.parametrize("options", [{}, {"washed": 0.6}])
def test_apriltag_family_small_tags_found_with_the_backend(options):
    scene = render(APRIL, 0.55, **options)  # ~14 px, 1.7 px a cell
    ours = tally(TagDetector(APRIL).detect_full(scene.gray), scene)
    april = tally(Detections(*apriltag.detect_apriltag(scene.gray, "tag36h11")), scene)
    opencv_only = TagDetector(APRIL, DetectorSettings(apriltag_backend=False))
    assert ours[1] == 0
    assert ours[0] >= april[0]
    assert ours[0] > tally(opencv_only.detect_full(scene.gray), scene)[0]
    # AprilTag 3's corners are refined like OpenCV's: closer to the truth than its own.
    assert ours[2] <= april[2] + 0.1


def test_without_pupil_apriltags_the_detector_falls_back_to_opencv(monkeypatch):
    monkeypatch.setitem(sys.modules, "pupil_apriltags", None)
    assert not apriltag.available()
    scene = render(APRIL, 0.8)
    found = tally(TagDetector(APRIL).detect_full(scene.gray), scene)
    assert found[1] == 0
    assert found[0] == len(scene.truth)


def test_families_apriltag3_does_not_have_stay_with_opencv():
    assert apriltag.family_of(ARUCO) is None
    assert apriltag.family_of("DICT_APRILTAG_36h10") is None
    assert TagDetector(ARUCO)._april_family is None


@needs_pupil
def test_small_family_corrects_no_bits():
    # 16h5 codes differ in only 5 bits: a corrected bit could make one tag another.
    assert apriltag.MAX_CORRECTED["tag16h5"] == 0
    scene = render("DICT_APRILTAG_16H5", 0.8, pieces=12)
    found = tally(TagDetector("DICT_APRILTAG_16H5").detect_full(scene.gray), scene)
    assert found[1] == 0
    assert found[0] == len(scene.truth)


REAL = Path(__file__).resolve().parents[1] / "data" / "calibration" / "real-images"


@pytest.mark.parametrize("photo", sorted(REAL.rglob("*.jpg")), ids=lambda p: p.name)
def test_real_photos_give_no_wrong_ids(photo):
    gray = cv2.imread(str(photo), cv2.IMREAD_GRAYSCALE)
    found = set(TagDetector("DICT_6X6_250").detect_full(gray).ids.tolist())
    if photo.parent.name == "charuco-calibration":
        assert found <= set(range(17))  # the 5x7 board's markers, nothing else
    else:
        assert found == set(stock(gray, "DICT_6X6_250").ids.tolist())


@pytest.mark.slow
@pytest.mark.parametrize("dictionary", [ARUCO, APRIL])
@pytest.mark.parametrize(
    "options",
    [
        {"tag_in": 0.5},
        {"tag_in": 0.55, "washed": 0.65, "blur": 0.9},
        {"tag_in": 1.0, "tilt_deg": 70.0, "height": 8.0},
        {"tag_in": 0.8, "blur": 1.4},
    ],
    ids=["12px", "washed", "70deg", "blurred"],
)
def test_sweep_hard_tags_never_misread_and_beat_stock(dictionary, options):
    for seed in range(4):
        scene = render(dictionary, seed=seed, **options)
        ours = tally(TagDetector(dictionary).detect_full(scene.gray), scene)
        assert ours[1] == 0
        assert ours[0] >= tally(stock(scene.gray, dictionary), scene)[0]
        family = apriltag.family_of(dictionary)
        if family and apriltag.available():
            april = tally(Detections(*apriltag.detect_apriltag(scene.gray, family)), scene)
            assert ours[0] >= april[0]


@needs_pupil
def test_per_frame_detection_keeps_the_tags_only_apriltag3_finds():
    scene = render(APRIL, 0.55)
    detector = TagDetector(APRIL)  # per-frame use: full passes and region passes
    april = tally(Detections(*apriltag.detect_apriltag(scene.gray, "tag36h11")), scene)[0]
    for _ in range(10):
        right, wrong, _ = tally(detector.detect(scene.gray), scene)
        assert wrong == 0
        assert right >= april
