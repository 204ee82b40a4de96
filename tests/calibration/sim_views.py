"""Simulated calibration footage with exact ground truth (shared by tests and the benchmark).

Loaded by file path (``conftest.py`` and ``benchmarks/bench_calibration.py``), not
imported as a package module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import Intrinsics, TablePose, pixels_to_table, project, table_xyz
from referee.calibration.profile import TableSize
from referee.calibration.table import default_anchors
from referee.sim.warp import PlanePose, RayMap, draw_charuco, draw_plane
from referee.tags.anchors import AnchorTag
from referee.tags.board import BoardSpec
from referee.tags.layout import QUIET_ZONE_CELLS, marker_cells

Image = NDArray[np.uint8]

BOARD = BoardSpec.parse("charuco:7x9:1.1in:0.8in:DICT_6X6_250")
TABLE = TableSize(48.0, 36.0)


@dataclass(frozen=True)
class Rig:
    intrinsics: Intrinsics
    pose: TablePose
    table: TableSize = TABLE


def rig(
    width: int = 1920,
    height: int = 1080,
    k1: float = -0.2,
    hfov: float = 70.0,
    camera_height: float = 49.0,
    yaw_deg: float = 0.0,
    distortion: tuple[float, float, float, float, float] | None = None,
) -> Rig:
    """A webcam square over the middle of a 48 x 36 table.

    ``distortion`` (k1, k2, p1, p2, k3) replaces the default lens (``k1``, 0.03,
    a slight decentring, no k3).
    """
    lens = (k1, 0.03, 0.0005, -0.0003, 0.0) if distortion is None else distortion
    intr = Intrinsics.from_fov((width, height), hfov, lens)
    pose = TablePose.looking_down((TABLE.width / 2, TABLE.depth / 2), camera_height, 0.0, yaw_deg)
    return Rig(intr, pose)


def tag_texture(dictionary: str, tag: int, px_per_cell: int = 12) -> Image:
    cells = marker_cells(dictionary, tag)
    n = cells.shape[0] + 2 * QUIET_ZONE_CELLS
    grid = np.ones((n, n), dtype=bool)
    grid[QUIET_ZONE_CELLS:-QUIET_ZONE_CELLS, QUIET_ZONE_CELLS:-QUIET_ZONE_CELLS] = cells
    image = np.where(grid, 255, 0).astype(np.uint8)
    return np.asarray(
        cv2.resize(image, (n * px_per_cell, n * px_per_cell), interpolation=cv2.INTER_NEAREST)
    )


def draw_tag(
    frame: Image,
    ray_map: RayMap,
    table_pose: TablePose,
    dictionary: str,
    tag: int,
    x: float,
    y: float,
    heading: float,
    size: float,
    height: float = 0.0,
) -> None:
    """A printed tag (black square ``size``) on the table, printed top facing ``heading``."""
    bits = marker_cells(dictionary, tag).shape[0]
    cell = size / bits
    outer = size + 2 * QUIET_ZONE_CELLS * cell
    h = math.radians(heading)
    forward = np.array([math.cos(h), math.sin(h), 0.0])
    right = np.array([-math.sin(h), math.cos(h), 0.0])
    origin = np.array([x, y, -height]) + outer / 2 * (forward - right)
    texture = tag_texture(dictionary, tag)
    plane = PlanePose.on_table(table_pose, origin, right, -forward)
    draw_plane(frame, ray_map, plane, texture, texture.shape[1] / outer, supersample=3)


def blank(r: Rig, level: int = 140) -> Image:
    w, h = r.intrinsics.image_size
    rng = np.random.default_rng(0)
    cloth = rng.normal(level, 6, (h, w)).clip(0, 255).astype(np.uint8)
    return np.asarray(cv2.cvtColor(cloth, cv2.COLOR_GRAY2BGR))


def held_board_poses(
    r: Rig, count: int, seed: int = 1, board: BoardSpec = BOARD, reach: float = 0.4
) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Board poses (camera frame, inches) held at varied angles, spread over the image.

    Board centres aim at a 3 x 3 grid reaching ``reach`` of the image size from
    the centre (0.4: boards reach into the image corners, as the collector's
    guidance asks; 0.33: a lazier user who never fills the corners).
    """
    rng = np.random.default_rng(seed)
    intr = r.intrinsics
    w, h = intr.image_size
    bw, bh = board.columns * board.square_in(), board.rows * board.square_in()
    poses = []
    targets = [(0.5 + a * reach, 0.5 + b * reach * 0.9) for b in (-1, 0, 1) for a in (-1, 0, 1)]
    for i in range(count):
        u, v = targets[i % len(targets)]
        u += rng.uniform(-0.05, 0.05)
        v += rng.uniform(-0.05, 0.05)
        depth = rng.uniform(24.0, 40.0)
        angles = np.radians(rng.uniform(-35, 35, 3)) * np.array([1.0, 1.0, 0.5])
        angles[i % 2] = math.copysign(max(abs(angles[i % 2]), math.radians(20)), angles[i % 2])
        rotation, _ = cv2.Rodrigues(angles)
        ray = intr.undistort_normalized([[u * w, v * h]])[0]
        centre = np.array([ray[0], ray[1], 1.0]) * depth
        # Board object origin is its top-left corner; centre it on the target ray.
        tvec = centre - rotation @ np.array([bw / 2, bh / 2, 0.0])
        rvec, _ = cv2.Rodrigues(rotation)
        poses.append((rvec.ravel(), tvec))
    return poses


def render_held(
    r: Rig, rvec: NDArray[np.float64], tvec: NDArray[np.float64], board: BoardSpec = BOARD
) -> Image:
    frame = blank(r)
    ray_map = RayMap.for_camera(r.intrinsics)
    draw_charuco(
        frame, ray_map, PlanePose.from_rvec_tvec(rvec, tvec), board.cv_board(), board.square_in()
    )
    return frame


def render_table(
    r: Rig,
    board_at: tuple[float, float, float] | None = (20.0, 12.0, 0.0),
    anchors: tuple[AnchorTag, ...] | None = None,
    dictionary: str = "DICT_4X4_100",
    flat_tags: tuple[tuple[int, float, float, float, float], ...] = (),
    board: BoardSpec = BOARD,
) -> Image:
    """The table view: the board flat at (x, y, rotation deg) of its origin, anchors, flat tags.

    ``flat_tags`` are (tag, x, y, heading, size).
    """
    frame = blank(r)
    ray_map = RayMap.for_camera(r.intrinsics)
    for a in anchors if anchors is not None else default_anchors(dictionary, r.table):
        draw_tag(frame, ray_map, r.pose, dictionary, a.tag, a.x, a.y, 0.0, a.size)
    for tag, x, y, heading, size in flat_tags:
        draw_tag(frame, ray_map, r.pose, dictionary, tag, x, y, heading, size)
    if board_at is not None:
        x, y, rot = board_at
        c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
        plane = PlanePose.on_table(r.pose, (x, y, 0.0), (c, s, 0.0), (-s, c, 0.0))
        draw_charuco(frame, ray_map, plane, board.cv_board(), board.square_in())
    return frame


def board_table_transform(
    board_at: tuple[float, float, float],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Board frame -> table frame (R, t) for a board placed by :func:`render_table`."""
    x, y, rot = board_at
    c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
    return np.array([[c, -s], [s, c]]), np.array([x, y])


def table_error(
    true: Rig,
    intr: Intrinsics,
    pose: TablePose,
    height: float,
    frame_to_table: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    step: float = 2.0,
) -> NDArray[np.float64]:
    """Per-point table error (inches) over a grid covering the table at ``height``.

    Pixels are made by the true camera; the estimate maps them back. With
    ``frame_to_table`` (R, t) the estimate's provisional frame (the board's)
    is first re-expressed in the true table frame.
    """
    xs = np.arange(1.0, true.table.width - 0.99, step)
    ys = np.arange(1.0, true.table.depth - 0.99, step)
    grid = np.array([(x, y) for y in ys for x in xs])
    px = project(true.intrinsics, true.pose, table_xyz(grid, height))
    got = pixels_to_table(intr, pose, px, height)
    if frame_to_table is not None:
        rotation, shift = frame_to_table
        got = got @ rotation.T + shift
    return np.asarray(np.linalg.norm(got - grid, axis=1))
