"""Detection and pose on exact synthetic renders (lens distortion, raised tags)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from synth_vision import Tag, camera_1080p, render, tag_corners_px

from referee.calibration.profile import CalibrationProfile, TableSize
from referee.markers.roster import Roster, RosterEntry
from referee.tags.detect import Detections, DetectorSettings, TagDetector
from referee.tags.layout import get_dictionary
from referee.vision.pose import PoseEstimator


@pytest.fixture(scope="module")
def scene():
    intr, pose = camera_1080p()
    rng = np.random.default_rng(7)
    tags = [
        Tag(i, rng.uniform(4, 44), rng.uniform(4, 32), rng.uniform(0, 360), 0.9 if i % 3 else 0.0)
        for i in range(12)
    ]
    return intr, pose, tags, render(intr, pose, tags, noise=2.0)


def test_detections_value_is_validated_and_immutable():
    d = Detections([1, 2, 3], np.arange(24, dtype=float).reshape(3, 4, 2))
    assert len(d[d.ids > 1]) == 2
    assert d[[2]].ids.tolist() == [3]
    assert d[1:].corners_px.shape == (2, 4, 2)
    with pytest.raises(ValueError):
        d.ids[0] = 5
    with pytest.raises(ValueError, match="one id per corner quad"):
        Detections([1], np.zeros((1, 3, 2)))
    assert len(Detections.empty()) == 0


def test_every_tag_found_with_subpixel_centres(scene):
    intr, pose, tags, image = scene
    found = TagDetector(settings=DetectorSettings(full_every=1)).detect(image)
    assert sorted(found.ids.tolist()) == [t.id for t in tags]
    assert found.corners_px.dtype == np.float64
    # Corners are not whole pixels.
    assert np.any(np.abs(found.corners_px - np.round(found.corners_px)) > 0.01)
    for tag in tags:
        corners = found.corners_px[found.ids == tag.id][0]
        error = np.linalg.norm(corners.mean(axis=0) - tag_corners_px(intr, pose, tag).mean(axis=0))
        assert error < 0.1, (tag, error)


def test_tags_smaller_than_opencv_default_minimum_are_found():
    intr, pose = camera_1080p()
    tags = [Tag(5, 24, 18, 20, 0.0, 0.38), Tag(6, 30, 20, 70, 0.0, 0.38)]
    image = render(intr, pose, tags)
    found = TagDetector().detect(image)
    assert sorted(found.ids.tolist()) == [5, 6]
    assert found.side_px.max() < 13.5
    default = cv2.aruco.ArucoDetector(get_dictionary("DICT_4X4_100"))
    _, ids, _ = default.detectMarkers(image)
    # OpenCV's defaults drop tags this small (4.x answers None, 5.x an empty array)
    assert ids is None or len(ids) == 0


def test_region_redetection_finds_the_same_tags_and_picks_up_new_ones(scene):
    intr, pose, tags, image = scene
    detector = TagDetector(settings=DetectorSettings(full_every=4))
    first = detector.detect(image)
    second = detector.detect(image)  # region pass
    assert sorted(second.ids.tolist()) == sorted(first.ids.tolist())
    assert np.allclose(
        second.corners_px[np.argsort(second.ids)],
        first.corners_px[np.argsort(first.ids)],
        atol=0.05,
    )
    extra = render(intr, pose, [*tags, Tag(40, 10, 30, 0)], noise=2.0)
    # Where the picture changed is searched at once (the tag was put down there)...
    assert 40 in detector.detect(extra).ids
    # ...and without that search, the next full pass finds it, not before.
    blind = TagDetector(settings=DetectorSettings(full_every=4, motion_search=False))
    blind.detect(image)
    seen_new = [40 in blind.detect(extra).ids for _ in range(4)]
    assert seen_new[-1] and not seen_new[0]
    blind.reset()
    assert 40 in blind.detect(extra).ids  # reset: full pass at once


def test_a_piece_carried_under_a_hand_is_read_the_frame_the_hand_leaves(scene):
    """Between full passes, a tag put down away from where it was (carried under a hand)
    is searched where the picture changed, so it is not lost until the next full pass."""
    intr, pose, tags, image = scene
    detector = TagDetector(settings=DetectorSettings(full_every=50))
    assert sorted(detector.detect(image).ids.tolist()) == [t.id for t in tags]
    carried = tags[4]
    gone = [t for t in tags if t is not carried]
    hand = render(intr, pose, gone, noise=2.0)
    cv2.circle(hand, (960, 540), 120, (120, 150, 210), -1)  # a hand over the middle
    for _ in range(3):
        found = detector.detect(hand)
        assert carried.id not in found.ids
    put = Tag(carried.id, 24.0, 18.0, carried.heading + 40, carried.height)
    down = render(intr, pose, [*gone, put], noise=2.0)
    found = detector.detect(down)  # the hand left the middle, the piece is there
    assert carried.id in found.ids
    corners = found.corners_px[found.ids == carried.id][0]
    assert np.linalg.norm(corners.mean(axis=0) - tag_corners_px(intr, pose, put).mean(axis=0)) < 0.1
    # Once the table is still (two frames on), nothing but the known tags' regions is
    # searched: a settled table costs what it did.
    detector.detect(down)
    assert detector._motion_boxes(down) == []


def test_pose_undoes_height_offset_and_lens(scene):
    intr, pose, tags, image = scene
    profile = CalibrationProfile(intr, pose, TableSize(48, 36), frame_source="simulated")
    entries = []
    for t in tags:
        # Put the tag 0.5in forward of the base centre, so the estimator must undo it.
        entries.append(RosterEntry(t.id, f"p{t.id}", "a", "tank", (1.5, 3.0), (0.5, 0.0), t.height))
    roster = Roster("DICT_4X4_100", tuple(entries))
    found = TagDetector().detect(image)
    poses = PoseEstimator(profile, roster).estimate(found)
    assert len(poses.pieces) == len(tags) and poses.unknown == ()
    for p in poses.pieces:
        tag = next(t for t in tags if t.id == p.tag)
        h = np.radians(tag.heading)
        true = np.array([tag.x, tag.y]) - 0.5 * np.array([np.cos(h), np.sin(h)])
        assert np.hypot(p.x - true[0], p.y - true[1]) < 0.02
        assert abs((p.heading - tag.heading + 180) % 360 - 180) < 0.5
        assert 0 < p.uncertainty < 0.05


def test_pose_ignoring_height_would_be_far_off(scene):
    """The reason tag_height is in the roster: a roof tag mapped to the table top is wrong."""
    intr, pose, tags, image = scene
    profile = CalibrationProfile(intr, pose, TableSize(48, 36), frame_source="simulated")
    flat = Roster(
        "DICT_4X4_100", tuple(RosterEntry(t.id, f"p{t.id}", "a", "x", (1, 1)) for t in tags)
    )
    poses = PoseEstimator(profile, flat).estimate(TagDetector().detect(image))
    errors = [
        np.hypot(p.x - t.x, p.y - t.y)
        for p in poses.pieces
        for t in tags
        if t.id == p.tag and t.height > 0
    ]
    assert max(errors) > 0.2


def test_anchors_and_unknown_ids_are_separated(scene):
    intr, pose, tags, _ = scene
    image = render(intr, pose, [*tags[:2], Tag(97, 42, 6, 0, 0, 1.5), Tag(50, 20, 20, 0)])
    profile = CalibrationProfile(intr, pose, TableSize(48, 36), frame_source="simulated")
    roster = Roster(
        "DICT_4X4_100", (RosterEntry(tags[0].id, "a", "s", "k", (1, 1), (0, 0), tags[0].height),)
    )
    out = PoseEstimator(profile, roster).estimate(TagDetector().detect(image))
    assert [p.id for p in out.pieces] == ["a"]
    assert out.anchors.ids.tolist() == [97]
    assert out.unknown == tuple(sorted({tags[1].id, 50}))


def test_edge_refinement_beats_opencv_contour_corners(scene):
    """The default ``edges`` refinement gives steadier facings than OpenCV's own corners."""
    intr, pose, tags, sharp = scene
    image = cv2.GaussianBlur(sharp, (0, 0), 0.6)  # a real lens is never perfectly sharp

    def heading_errors(refine):
        found = TagDetector(settings=DetectorSettings(refine=refine)).detect_full(image)
        out = []
        for tag in tags:
            px = found.corners_px[found.ids == tag.id][0]
            expected = tag_corners_px(intr, pose, tag)
            edge = (px[0] - px[3]) + (px[1] - px[2])
            true = (expected[0] - expected[3]) + (expected[1] - expected[2])
            angle = np.degrees(np.arctan2(edge[1], edge[0]) - np.arctan2(true[1], true[0]))
            out.append(abs((angle + 180) % 360 - 180))
        return np.array(out)

    edges, contour = heading_errors("edges"), heading_errors("contour")
    assert edges.max() < 0.2 and edges.max() < 0.5 * contour.max()


def test_cells_are_reread_at_the_refined_corners_to_reject_misreads():
    intr, pose = camera_1080p()
    tag = Tag(5, 24, 18, 30)
    gray = cv2.cvtColor(render(intr, pose, [tag]), cv2.COLOR_BGR2GRAY)
    quad = tag_corners_px(intr, pose, tag)[None]
    detector = TagDetector()
    assert detector._cells_agree(gray, quad, np.array([5])).tolist() == [True]
    assert detector._cells_agree(gray, quad, np.array([6])).tolist() == [False]
