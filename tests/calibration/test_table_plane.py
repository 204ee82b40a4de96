"""The table plane from a small flat board, refined jointly with flat tags of known size.

Exact geometry (no rendering): the board's corners carry a small systematic
error that tilts the plane a board alone gives; tags of known size lying flat
across the table, wherever they are, bring the plane back.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from referee.calibration.camera import Intrinsics, TablePose, pixels_to_table, project, table_xyz
from referee.calibration.profile import TableSize
from referee.calibration.table import FlatTag, default_anchors, locate_table
from referee.tags.layout import TagLayout

TABLE = TableSize(48.0, 36.0)
INTR = Intrinsics.from_fov((1920, 1080), 70.0, (-0.2, 0.03, 0.0, 0.0, 0.0))
TRUE = TablePose.looking_down((24.0, 18.0), 49.0, 4.0, 0.0)
SPOTS = [(x, y) for y in (4.0, 12.0, 24.0, 32.0) for x in (4.0, 14.0, 34.0, 44.0)]


def board() -> tuple[np.ndarray, np.ndarray]:
    """A 6 x 8 in board at the table's centre (its frame is the table's), pixels skewed."""
    xy = np.array([(x, y) for y in np.arange(14.0, 22.1, 1.0) for x in np.arange(21.0, 27.1, 1.0)])
    px = project(INTR, TRUE, table_xyz(xy, 0.0))
    centre = px.mean(axis=0)
    # 0.15% more pixels along x on the board's right: a board-sized error a lens fit leaves.
    px[:, 0] += 0.0015 * np.clip(px[:, 0] - centre[0], 0, None)
    return table_xyz(xy, 0.0), px


def tag_corners(x: float, y: float, heading: float, size: float, rng: np.random.Generator):
    quad = TagLayout(size).corners(x, y, heading)
    return project(INTR, TRUE, table_xyz(quad, 0.0)) + rng.normal(0.0, 0.03, (4, 2))


def tilt_deg(pose: TablePose) -> float:
    cos = float(pose.rotation[:, 2] @ TRUE.rotation[:, 2])
    return math.degrees(math.acos(min(1.0, cos)))


def pairwise_p95(pose: TablePose) -> float:
    rng = np.random.default_rng(3)
    points = np.column_stack([rng.uniform(2, 46, 30), rng.uniform(2, 34, 30)])
    got = pixels_to_table(INTR, pose, project(INTR, TRUE, table_xyz(points, 0.0)), 0.0)
    errors = [
        abs(np.linalg.norm(got[i] - got[j]) - np.linalg.norm(points[i] - points[j]))
        for i, j in itertools.combinations(range(len(points)), 2)
    ]
    return float(np.percentile(errors, 95))


def test_flat_tags_straighten_a_tilted_board_plane() -> None:
    rng = np.random.default_rng(1)
    xyz, px = board()
    flats = [
        FlatTag(10 + i, 0.8, tag_corners(x, y, 37.0 * i, 0.8, rng))
        for i, (x, y) in enumerate(SPOTS)
    ]
    ids = [t.tag for t in flats]
    quads = np.array([t.corners_px for t in flats])
    alone = locate_table(INTR, xyz, px, ids, quads, (), ())
    joint = locate_table(INTR, xyz, px, ids, quads, (), flats)
    assert alone.frame_source == joint.frame_source == "board"
    assert joint.flat_tags_used == len(flats)
    assert tilt_deg(alone.pose) > 0.1  # the skewed board alone tilts the plane measurably
    assert tilt_deg(joint.pose) < 0.6 * tilt_deg(alone.pose)
    assert pairwise_p95(alone.pose) > 0.03
    assert pairwise_p95(joint.pose) < 0.65 * pairwise_p95(alone.pose)


def test_a_lone_anchor_refines_the_plane_as_a_tag_of_known_size() -> None:
    """One anchor cannot set the frame, but its known size still pins the plane."""
    rng = np.random.default_rng(2)
    xyz, px = board()
    anchors = default_anchors("DICT_4X4_100", TABLE)
    lone = anchors[1]
    quad = tag_corners(lone.x, lone.y, 0.0, lone.size, rng)
    with_anchor = locate_table(INTR, xyz, px, [lone.tag], quad[None], anchors)
    alone = locate_table(INTR, xyz, px, [], np.zeros((0, 4, 2)), anchors)
    assert with_anchor.frame_source == "board"  # one anchor: the board still gives the frame
    assert with_anchor.flat_tags_used == 1
    assert pairwise_p95(with_anchor.pose) < 0.7 * pairwise_p95(alone.pose)
    assert tilt_deg(with_anchor.pose) < 0.6 * tilt_deg(alone.pose)
    assert with_anchor.rms_px < 0.1  # the fit explains every pixel to within the noise


def test_corners_beyond_a_folding_lens_are_out_of_view() -> None:
    """Far outside the image a barrel polynomial folds back: the lens model puts the far
    corners of a too-long table inside the picture, yet the camera cannot see them."""
    from referee.calibration.table import corners_out_of_view

    cam = Intrinsics.from_fov((640, 480), 60, (-0.3, 0.0, 0.0, 0.0, 0.0))
    pose = TablePose.looking_down((12.0, 9.0), 30.0)
    far = table_xyz([(72.0, 0.0), (72.0, 18.0)])
    px = project(cam, pose, far)
    assert np.all((px >= 0) & (px < (640, 480)))  # folded into the picture
    assert corners_out_of_view(cam, pose, TableSize(72.0, 18.0)) == ((72.0, 0.0), (72.0, 18.0))
    assert corners_out_of_view(cam, pose, TableSize(24.0, 18.0)) == ()


def table_error_max(pose: TablePose) -> float:
    """The largest error, inches, of a table point located through ``pose`` (absolute: a
    template or a zone edge is placed by it, not only measured against another piece)."""
    xy = np.array([(x, y) for y in np.linspace(0, 36, 7) for x in np.linspace(0, 48, 9)])
    got = pixels_to_table(INTR, pose, project(INTR, TRUE, table_xyz(xy, 0.0)), 0.0)
    return float(np.abs(got - xy).max())


def test_corner_anchors_pin_the_plane_a_small_board_would_tilt() -> None:
    """The board lying flat in the middle with the four corner anchors in view (the
    calibration clip's last frame): the board's place on the table is fitted with the
    plane, so its small error does not bend the plane the anchors span. Placing the board
    where the anchors put it on its own tilted plane left the table 0.05 in out half a
    table away, on a render with a true lens (issue 41's random games)."""
    rng = np.random.default_rng(4)
    xyz, px = board()
    anchors = default_anchors("DICT_4X4_100", TABLE)
    quads = np.array([tag_corners(a.x, a.y, 0.0, a.size, rng) for a in anchors])
    ids = [a.tag for a in anchors]
    alone = locate_table(INTR, xyz, px, [], np.zeros((0, 4, 2)), ())
    fix = locate_table(INTR, xyz, px, ids, quads, anchors)
    assert fix.frame_source == "anchors" and fix.anchors_seen == tuple(sorted(ids))
    assert tilt_deg(alone.pose) > 0.1  # the skewed board alone tilts the plane
    assert tilt_deg(fix.pose) < 0.02
    assert table_error_max(fix.pose) < 0.01
