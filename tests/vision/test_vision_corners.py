"""Tag corners from lines fitted to the black-to-white edges (shared by detection and table fit)."""

from __future__ import annotations

import cv2
import numpy as np
from synth_vision import Tag, camera_1080p, render, tag_corners_px

from referee.tags.corners import refine_tag_corners
from referee.tags.detect import TagDetector
from referee.tags.layout import get_dictionary


def warped_tag(dictionary: str, tag: int, cells: int, corners: np.ndarray) -> np.ndarray:
    """A grey image (160x120) of one tag whose black square has exactly ``corners``.

    Drawn 4x larger and averaged down (area sampling, like a sensor), then a
    little lens blur; pixel centres are at whole coordinates.
    """
    scale, cell_px = 4, 40
    marker = cv2.aruco.generateImageMarker(get_dictionary(dictionary), tag, cells * cell_px)
    pad = 2 * cell_px
    sheet = cv2.copyMakeBorder(marker, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
    side = cells * cell_px
    src = np.float32([[0, 0], [side, 0], [side, side], [0, side]]) + pad - 0.5
    dst = np.float32((corners + 0.5) * scale - 0.5)
    big = cv2.warpPerspective(
        sheet, cv2.getPerspectiveTransform(src, dst), (160 * scale, 120 * scale), borderValue=140
    )
    small = cv2.resize(big, (160, 120), interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(small, (0, 0), 0.6))


def worst_corner(found: np.ndarray, truth: np.ndarray) -> np.ndarray:
    return np.asarray(np.linalg.norm(found - truth, axis=-1).max(axis=-1))


def test_6x6_tag_corners_to_a_few_hundredths_of_a_pixel():
    truth = np.array([[52.3, 31.7], [93.1, 40.2], [85.6, 80.9], [44.8, 72.4]])
    image = warped_tag("DICT_6X6_250", 7, 8, truth)
    start = truth + np.random.default_rng(0).uniform(-0.5, 0.5, (4, 2))
    refined = refine_tag_corners(image, start[None], cells=8)[0]
    assert worst_corner(start, truth) > 0.5
    assert worst_corner(refined, truth) < 0.05


def test_lens_removed_before_fitting_big_tags_in_the_image_corners():
    """Barrel distortion bends a 3 in tag's sides near the corners; the lens-free fit does not."""
    intr, pose = camera_1080p()
    tags = [Tag(1, 3.5, 3.5, 20, 0.0, 3.0), Tag(2, 44.5, 32.5, 200, 0.0, 3.0)]
    image = cv2.GaussianBlur(render(intr, pose, tags, noise=1.0), (0, 0), 0.6)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    truth = np.array([tag_corners_px(intr, pose, t) for t in tags])
    start = truth + np.random.default_rng(1).uniform(-0.5, 0.5, truth.shape)
    straight = worst_corner(refine_tag_corners(gray, start), truth)
    lens_free = worst_corner(refine_tag_corners(gray, start, intrinsics=intr), truth)
    assert np.all(lens_free < 0.12)
    assert np.all(lens_free < 0.5 * straight)


def test_a_crop_with_its_origin_gives_the_full_image_result():
    intr, pose = camera_1080p()
    tag = Tag(1, 3.5, 3.5, 20, 0.0, 3.0)
    gray = cv2.cvtColor(render(intr, pose, [tag]), cv2.COLOR_BGR2GRAY)
    start = tag_corners_px(intr, pose, tag)[None] + 0.3
    full = refine_tag_corners(gray, start, intrinsics=intr)
    x0, y0 = 150, 5
    shift = np.array([x0, y0], float)
    crop = gray[y0:300, x0:500]
    local = refine_tag_corners(crop, start - shift, intrinsics=intr, origin=(x0, y0))
    unplaced = refine_tag_corners(crop, start - shift, intrinsics=intr)
    np.testing.assert_allclose(local + shift, full, atol=1e-6)
    assert np.abs(unplaced + shift - full).max() > 0.02  # the origin matters


def test_a_quad_without_edges_keeps_its_corners():
    flat = np.full((100, 100), 128, np.uint8)
    quad = np.array([[[20.0, 20.0], [60.0, 20.0], [60.0, 60.0], [20.0, 60.0]]])
    np.testing.assert_array_equal(refine_tag_corners(flat, quad), quad)


def test_region_passes_with_a_lens_agree_with_the_full_pass():
    intr, pose = camera_1080p()
    tags = [Tag(1, 3.5, 3.5, 20, 0.0, 3.0), Tag(2, 24, 18, 100, 0.0, 0.8)]
    image = cv2.GaussianBlur(render(intr, pose, tags, noise=1.0), (0, 0), 0.6)
    detector = TagDetector(intrinsics=intr)
    full = detector.detect(image)
    regions = detector.detect(image)  # searches only around the tags it knows
    assert sorted(full.ids.tolist()) == sorted(regions.ids.tolist()) == [1, 2]
    order_full, order_regions = np.argsort(full.ids), np.argsort(regions.ids)
    diff = full.corners_px[order_full] - regions.corners_px[order_regions]
    assert np.abs(diff).max() < 0.02
