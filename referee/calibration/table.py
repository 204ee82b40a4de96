"""Where the table is: its plane and its frame, from a flat board, corner anchors and flat tags.

Rules (also in the README):

* **Table plane.** A ChArUco board lying flat on the table (paper: thickness
  0) gives the plane. Anchor tags and flat piece tags seen in the same view
  refine it.
* **Table frame.** From the corner anchor tags when at least two are seen
  (their table positions from the roster's ``anchors`` or
  :func:`default_anchors`); anchors are glued square to the table edges (any
  of the four rotations: the measured facing is snapped to a multiple of 90
  degrees). Otherwise the board defines a provisional frame: the table origin
  is the outer corner of the board's printed grid next to marker 0 (OpenCV's
  board origin), x along the board's columns, y along its rows; push that
  corner of the board into the table's corner, square to the edges, and the
  frame is right. Without either the frame is ``manual`` (set later in the
  dashboard) and the pose is whatever the board gave.

All lengths here are game inches (``inch_mm`` millimetres each).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.calibration.camera import Intrinsics, TablePose, pixels_to_table, project, table_xyz
from referee.calibration.profile import TableSize
from referee.errors import RefereeError
from referee.tags.anchors import AnchorTag
from referee.tags.detect import TagDetector
from referee.tags.layout import (
    ANCHOR_SIZE_IN,
    TagLayout,
    anchor_ids,
    anchor_spots,
    heading_from_corners,
)

FloatArray = NDArray[np.float64]


def default_anchors(dictionary: str, table: TableSize) -> tuple[AnchorTag, ...]:
    """The anchors where the printed anchor sheet says to glue them.

    Ids are the dictionary's last four, in corner order (0, 0), (W, 0), (W, D), (0, D);
    a table with a side over 48 in adds two at the middle of its long edges.

    >>> [(a.tag, a.x, a.y) for a in default_anchors("DICT_4X4_100", TableSize(48, 36))]
    [(96, 1.5, 1.5), (97, 46.5, 1.5), (98, 46.5, 34.5), (99, 1.5, 34.5)]
    >>> [(a.tag, a.x, a.y) for a in default_anchors("DICT_4X4_100", TableSize(72, 48))][4:]
    [(94, 36.0, 1.5), (95, 36.0, 46.5)]
    """
    size = (float(table.width), float(table.depth))
    return tuple(
        AnchorTag(tag, x, y, ANCHOR_SIZE_IN)
        for tag, (x, y) in zip(anchor_ids(dictionary, size), anchor_spots(size), strict=True)
    )


def snap_heading(heading_deg: float) -> float:
    """Nearest multiple of 90 degrees, in [0, 360).

    >>> snap_heading(87.0), snap_heading(-44.0), snap_heading(316.0)
    (90.0, 0.0, 0.0)
    """
    return float((round(heading_deg / 90.0) * 90) % 360)


@dataclass(frozen=True)
class PoseFit:
    """A solved table pose and how well it explains the pixels it came from."""

    pose: TablePose
    rms_px: float
    points: int


def reprojection_rms(
    intrinsics: Intrinsics, pose: TablePose, xyz: ArrayLike, px: ArrayLike
) -> float:
    """RMS pixel distance between projected ``xyz`` and observed ``px`` (0 for no points)."""
    observed = np.asarray(px, dtype=np.float64).reshape(-1, 2)
    if len(observed) == 0:
        return 0.0
    error = project(intrinsics, pose, xyz) - observed
    return float(np.sqrt(np.mean(np.sum(error**2, axis=1))))


def solve_pose(
    intrinsics: Intrinsics,
    xyz: ArrayLike,
    px: ArrayLike,
    initial: TablePose | None = None,
) -> PoseFit:
    """The table pose that projects table points ``xyz`` onto pixels ``px``.

    Needs at least 4 points; coplanar points (the usual case: everything lies
    on the table) are solved with IPPE and both of its mirror solutions
    tried, then refined by Levenberg-Marquardt. With ``initial`` the solver
    starts from that pose instead (re-registration after a small bump).
    """
    objects = np.ascontiguousarray(np.asarray(xyz, dtype=np.float64).reshape(-1, 1, 3))
    images = np.ascontiguousarray(np.asarray(px, dtype=np.float64).reshape(-1, 1, 2))
    if len(objects) < 4 or len(objects) != len(images):
        raise RefereeError(f"a table pose needs at least 4 matched points, got {len(objects)}")
    k, dist = intrinsics.matrix, intrinsics.distortion
    candidates: list[tuple[Any, Any]] = []
    if initial is not None:
        candidates.append((initial.rvec.reshape(3, 1).copy(), initial.tvec.reshape(3, 1).copy()))
    planar = np.ptp(objects[:, 0, 2]) < 1e-9
    if planar:
        # IPPE wants z = 0 exactly; table points share one height, shift it out.
        z0 = float(objects[0, 0, 2])
        flat = objects.copy()
        flat[:, 0, 2] = 0.0
        _, rvecs, tvecs, _ = cv2.solvePnPGeneric(flat, images, k, dist, flags=cv2.SOLVEPNP_IPPE)
        for rvec, tvec in zip(rvecs, tvecs, strict=True):
            rotation, _ = cv2.Rodrigues(rvec)
            candidates.append((rvec, tvec - rotation[:, 2:3] * z0))
    else:
        ok, rvec, tvec = cv2.solvePnP(objects, images, k, dist, flags=cv2.SOLVEPNP_SQPNP)
        if ok:
            candidates.append((rvec, tvec))
    if not candidates:
        # Near-degenerate layouts (almost collinear) can defeat IPPE; fall back.
        ok, rvec, tvec = cv2.solvePnP(objects, images, k, dist, flags=cv2.SOLVEPNP_ITERATIVE)
        if ok:
            candidates.append((rvec, tvec))
    best: PoseFit | None = None
    for rvec, tvec in candidates:
        rvec, tvec = cv2.solvePnPRefineLM(objects, images, k, dist, rvec.copy(), tvec.copy())
        pose = TablePose(np.asarray(rvec, float).ravel(), np.asarray(tvec, float).ravel())
        # The table is in front of the camera: reject mirror solutions behind it.
        depth = (objects.reshape(-1, 3) @ pose.rotation.T + pose.tvec)[:, 2]
        if np.any(depth <= 0):
            continue
        fit = PoseFit(pose, reprojection_rms(intrinsics, pose, objects, images), len(objects))
        if best is None or fit.rms_px < best.rms_px:
            best = fit
    if best is None:
        raise RefereeError(
            "could not solve the table pose from the points seen (too few, in a line, or "
            "behind the camera)"
        )
    return best


def anchor_table_corners(anchor: AnchorTag, heading_deg: float) -> FloatArray:
    """The anchor's four black-square corners in table inches (OpenCV order), at height 0."""
    return TagLayout(anchor.size).corners(anchor.x, anchor.y, heading_deg)


@dataclass(frozen=True)
class AnchorMatch:
    """Seen anchors paired with where they are on the table."""

    tags: tuple[int, ...]
    table_xy: FloatArray
    """(4n, 2) table corners, inches, in the order of ``pixels``."""
    pixels: FloatArray
    """(4n, 2) detected corners."""


def match_anchors(
    intrinsics: Intrinsics,
    rough_pose: TablePose,
    ids: ArrayLike,
    corners_px: ArrayLike,
    anchors: Sequence[AnchorTag],
) -> AnchorMatch:
    """Pair detected anchor tags with their table corners.

    Which way each anchor was glued (its printed top towards +x, +y, -x or
    -y) is read from the detection mapped through ``rough_pose``, snapped to
    the nearest multiple of 90 degrees, so a pose off by up to ~40 degrees of
    yaw still matches. Ids that are not anchors are ignored; a duplicated
    anchor id (a copy on the table?) uses the first detection only.
    """
    id_list = [int(i) for i in np.asarray(ids).ravel()]
    corners = np.asarray(corners_px, dtype=np.float64).reshape(-1, 4, 2)
    by_tag = {a.tag: a for a in anchors}
    tags: list[int] = []
    table_xy: list[FloatArray] = []
    pixels: list[FloatArray] = []
    for tag, quad in zip(id_list, corners, strict=True):
        anchor = by_tag.get(tag)
        if anchor is None or tag in tags:
            continue
        on_table = pixels_to_table(intrinsics, rough_pose, quad, 0.0)
        if not np.all(np.isfinite(on_table)):
            continue
        heading = snap_heading(float(heading_from_corners(on_table)[0]))
        tags.append(tag)
        table_xy.append(anchor_table_corners(anchor, heading))
        pixels.append(quad)
    if not tags:
        return AnchorMatch((), np.zeros((0, 2)), np.zeros((0, 2)))
    return AnchorMatch(tuple(tags), np.vstack(table_xy), np.vstack(pixels))


def _centre_pose(
    intrinsics: Intrinsics,
    ids: list[int],
    corners: FloatArray,
    anchors: Sequence[AnchorTag],
) -> TablePose:
    """A rough pose from anchor centres alone (no facing needed); >= 4 anchors, or 3 + tag shape."""
    by_tag = {a.tag: a for a in anchors}
    centres_xyz = []
    centres_px = []
    for tag, quad in zip(ids, corners, strict=True):
        if tag in by_tag:
            centres_xyz.append([by_tag[tag].x, by_tag[tag].y, 0.0])
            centres_px.append(quad.mean(axis=0))
    if len(centres_xyz) >= 4:
        return solve_pose(intrinsics, centres_xyz, centres_px).pose
    # Three anchors: give each a facing from the image (anchors are square to the
    # table, and three centres fix the rotation well enough to snap them).
    xyz = np.array(centres_xyz)
    ok, rvec, tvec = cv2.solvePnP(
        xyz,
        np.array(centres_px),
        intrinsics.matrix,
        intrinsics.distortion,
        flags=cv2.SOLVEPNP_SQPNP,
    )
    if not ok:
        raise RefereeError("could not solve the table pose from the anchor tags")
    return TablePose(np.asarray(rvec, float).ravel(), np.asarray(tvec, float).ravel())


def pose_from_anchors(
    intrinsics: Intrinsics,
    ids: ArrayLike,
    corners_px: ArrayLike,
    anchors: Sequence[AnchorTag],
    initial: TablePose | None = None,
    min_anchors: int = 2,
) -> PoseFit:
    """The table pose from the corner anchor tags seen in one frame.

    With ``initial`` (the pose before a bump) at least ``min_anchors``
    anchors are needed; from scratch at least 3. Raises :class:`RefereeError`
    saying how many anchors were seen and which are missing.
    """
    id_list = [int(i) for i in np.asarray(ids).ravel()]
    corners = np.asarray(corners_px, dtype=np.float64).reshape(-1, 4, 2)
    wanted = {a.tag for a in anchors}
    seen = sorted(set(id_list) & wanted)
    needed = min_anchors if initial is not None else max(3, min_anchors)
    if len(seen) < needed:
        missing = sorted(wanted - set(seen))
        raise RefereeError(
            f"only {len(seen)} of the {len(wanted)} anchor tags are visible "
            f"(missing ids {', '.join(map(str, missing))}); at least {needed} are needed to "
            "place the table: uncover the table corners"
        )
    rough = initial if initial is not None else _centre_pose(intrinsics, id_list, corners, anchors)
    match = match_anchors(intrinsics, rough, id_list, corners, anchors)
    xyz = np.column_stack([match.table_xy, np.zeros(len(match.table_xy))])
    return solve_pose(intrinsics, xyz, match.pixels, initial=rough)


def detect_markers(
    gray: NDArray[np.uint8], dictionary: str, intrinsics: Intrinsics | None = None
) -> tuple[NDArray[np.int32], FloatArray]:
    """ArUco markers of one dictionary with edge-fitted corners: (ids (n,), corners (n, 4, 2)).

    Found by the per-frame detector (:class:`referee.tags.detect.TagDetector`:
    the same detection, cell check and edge-fitted corners), full-frame and
    without memory; with ``intrinsics`` the tag sides are fitted with the lens
    removed, since the table fit uses the tags' sizes.
    """
    found = TagDetector(dictionary, intrinsics=intrinsics).detect_full(gray)
    return found.ids.astype(np.int32), np.array(found.corners_px, dtype=np.float64)


def rigid_fit_2d(src: ArrayLike, dst: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Rotation R (2x2) and shift t with ``dst ~ R @ src + t`` (least squares, no scaling).

    >>> r, t = rigid_fit_2d([[0, 0], [1, 0]], [[5, 5], [5, 6]])
    >>> r.round(9).tolist(), t.round(9).tolist()
    ([[0.0, -1.0], [1.0, 0.0]], [5.0, 5.0])
    """
    a = np.asarray(src, dtype=np.float64).reshape(-1, 2)
    b = np.asarray(dst, dtype=np.float64).reshape(-1, 2)
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    u, _, vt = np.linalg.svd((a - ca).T @ (b - cb))
    d = np.sign(np.linalg.det(vt.T @ u.T)) or 1.0
    rotation = vt.T @ np.diag([1.0, d]) @ u.T
    return rotation, cb - rotation @ ca


def reframe(pose: TablePose, rotation_2d: FloatArray, shift: FloatArray) -> TablePose:
    """Re-express a pose whose frame maps to the table frame by ``table = R @ plane + t``."""
    r3 = np.eye(3)
    r3[:2, :2] = rotation_2d
    t3 = np.array([shift[0], shift[1], 0.0])
    # X_cam = R_p X_plane + t_p and X_plane = r3^T (X_table - t3).
    rotation = pose.rotation @ r3.T
    tvec = pose.tvec - rotation @ t3
    rvec, _ = cv2.Rodrigues(rotation)
    return TablePose(np.asarray(rvec, float).ravel(), tvec)


@dataclass(frozen=True)
class FlatTag:
    """A tag of known size lying flat on the table somewhere (a piece with tag_height 0)."""

    tag: int
    size: float
    corners_px: FloatArray


@dataclass(frozen=True)
class FlatBoard:
    """The calibration board lying flat on the table, its place there unknown: its corners
    in its own frame (inches, z = 0) and where they were seen."""

    points_xy: FloatArray
    corners_px: FloatArray


@dataclass(frozen=True)
class TableFix:
    """The table located in one view: pose, where the frame came from, fit quality."""

    pose: TablePose
    frame_source: str
    """"anchors", "board" or "manual" (see the module rules)."""
    rms_px: float
    anchors_seen: tuple[int, ...] = ()
    flat_tags_used: int = 0


def locate_table(
    intrinsics: Intrinsics,
    board_xyz: FloatArray | None,
    board_px: FloatArray | None,
    marker_ids: ArrayLike,
    marker_corners: ArrayLike,
    anchors: Sequence[AnchorTag],
    flat_tags: Sequence[FlatTag] = (),
) -> TableFix:
    """Locate the table in one view with the board lying flat and/or anchors in sight.

    ``board_xyz`` are the seen board corners in board-frame inches (z = 0),
    ``board_px`` where they were seen. Raises :class:`RefereeError` when
    neither a board (>= 4 corners) nor three anchors are seen.
    """
    ids = np.asarray(marker_ids, dtype=np.int64).ravel()
    corners = np.asarray(marker_corners, dtype=np.float64).reshape(-1, 4, 2)
    has_board = board_xyz is not None and board_px is not None and len(board_xyz) >= 4
    anchor_tags = {a.tag for a in anchors}
    seen = sorted(set(int(i) for i in ids) & anchor_tags)
    if not has_board:
        if len(seen) < 3:
            raise RefereeError(
                "the table view shows neither the calibration board lying flat nor three "
                f"corner anchor tags (anchors seen: {len(seen)}); lay the board flat on the "
                "table for the last seconds of the clip, or pass --table-image"
            )
        fit = pose_from_anchors(intrinsics, ids, corners, anchors)
        refined = refine_with_flat_tags(
            intrinsics, fit.pose, [], [], flat_tags, anchors, ids, corners
        )
        return TableFix(refined[0], "anchors", refined[1], tuple(seen), refined[2])
    assert board_xyz is not None and board_px is not None
    board_fit = solve_pose(intrinsics, board_xyz, board_px)
    pose = board_fit.pose
    if len(seen) >= 2:
        # Anchors give the frame. The board lying in the middle is a small target: alone it
        # tilts the plane by a few tenths of a degree, which is 0.05 in half a table away.
        # Its place on the table is then not known from the anchors but fitted with the
        # plane (as a flat tag's is), so the anchors at the corners pin the tilt and the
        # board adds its many corners without bending the plane toward its own error.
        by_tag = {a.tag: a for a in anchors}
        plane_centres, table_centres = [], []
        for tag, quad in zip(ids, corners, strict=True):
            if int(tag) in by_tag:
                plane_centres.append(pixels_to_table(intrinsics, pose, quad, 0.0).mean(axis=0))
                table_centres.append([by_tag[int(tag)].x, by_tag[int(tag)].y])
        rotation_2d, shift = rigid_fit_2d(plane_centres, table_centres)
        pose = reframe(pose, rotation_2d, shift)
        match = match_anchors(intrinsics, pose, ids, corners, anchors)
        board_table = board_xyz[:, :2] @ rotation_2d.T + shift
        points_xyz = np.vstack(
            [
                np.column_stack([board_table, np.zeros(len(board_table))]),
                np.column_stack([match.table_xy, np.zeros(len(match.table_xy))]),
            ]
        )
        points_px = np.vstack([board_px, match.pixels])
        # The board held where the anchors put it: a start close to the answer, not it.
        pose = solve_pose(intrinsics, points_xyz, points_px, initial=pose).pose
        board = FlatBoard(np.asarray(board_xyz, float)[:, :2], np.asarray(board_px, float))
        final, rms, used = refine_with_flat_tags(
            intrinsics, pose, [], [], flat_tags, anchors, ids, corners, board=board
        )
        return TableFix(final, "anchors", rms, tuple(seen), used)
    # Too few anchors to set the frame: still flat tags of known size, they pin the plane.
    flat_tags = [*flat_tags, *anchors_as_flat_tags(ids, corners, anchors)]
    final, rms, used = refine_with_flat_tags(
        intrinsics, pose, board_xyz, board_px, flat_tags, (), ids, corners
    )
    return TableFix(final, "board", rms, (), used)


def anchor_misfits(
    intrinsics: Intrinsics,
    pose: TablePose,
    ids: ArrayLike,
    corners: ArrayLike,
    anchors: Sequence[AnchorTag],
) -> dict[int, float]:
    """How far (inches) each seen anchor's centre lies, by the located table, from where
    it should be glued. Anchors placed by hand are off by a fraction of an inch; anchors
    placed for another table size are off by inches however the pose compromises."""
    by_tag = {a.tag: a for a in anchors}
    quads = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    out: dict[int, float] = {}
    for tag, quad in zip(np.asarray(ids).ravel(), quads, strict=True):
        anchor = by_tag.get(int(tag))
        if anchor is None or anchor.tag in out:
            continue
        centre = pixels_to_table(intrinsics, pose, quad, 0.0).mean(axis=0)
        out[anchor.tag] = float(np.hypot(centre[0] - anchor.x, centre[1] - anchor.y))
    return out


def anchors_as_flat_tags(
    ids: ArrayLike, corners: ArrayLike, anchors: Sequence[AnchorTag]
) -> list[FlatTag]:
    """Seen anchors as flat tags of known size whose table positions are not used."""
    by_tag = {a.tag: a for a in anchors}
    quads = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    out: list[FlatTag] = []
    for tag, quad in zip(np.asarray(ids).ravel(), quads, strict=True):
        anchor = by_tag.get(int(tag))
        if anchor is not None and all(t.tag != anchor.tag for t in out):
            out.append(FlatTag(anchor.tag, anchor.size, quad))
    return out


def refine_with_flat_tags(
    intrinsics: Intrinsics,
    pose: TablePose,
    fixed_xyz: ArrayLike,
    fixed_px: ArrayLike,
    flat_tags: Sequence[FlatTag],
    anchors: Sequence[AnchorTag],
    ids: ArrayLike,
    corners: ArrayLike,
    iterations: int = 20,
    board: FlatBoard | None = None,
) -> tuple[TablePose, float, int]:
    """Refine the table pose with flat tags of known size whose positions are unknown.

    Joint Gauss-Newton over the pose (6 numbers) and each flat tag's place
    and facing on the table (3 each), minimising the pixel error of the fixed
    points (board corners or anchors) and all flat-tag corners. Flat tags
    spread across the table pin down the plane's tilt far from the board.
    ``board``: the calibration board lying flat, its place fitted like a tag's.
    Returns (pose, rms px over all points, flat tags used); with no flat tags
    and no board the pose is returned unchanged.
    """
    fixed = np.asarray(fixed_xyz, dtype=np.float64).reshape(-1, 3)
    fixed_obs = np.asarray(fixed_px, dtype=np.float64).reshape(-1, 2)
    if anchors:
        match = match_anchors(intrinsics, pose, ids, corners, anchors)
        fixed = np.vstack([fixed, np.column_stack([match.table_xy, np.zeros(len(match.table_xy))])])
        fixed_obs = np.vstack([fixed_obs, match.pixels])
    tags = [
        t
        for t in flat_tags
        if np.all(np.isfinite(pixels_to_table(intrinsics, pose, t.corners_px, 0.0)))
    ]
    if not tags and board is None:
        return pose, reprojection_rms(intrinsics, pose, fixed, fixed_obs), 0
    # Start each tag (and the board) where the current pose puts it.
    params = [pose.rvec, pose.tvec]
    for tag in tags:
        quad = pixels_to_table(intrinsics, pose, tag.corners_px, 0.0)
        centre = quad.mean(axis=0)
        heading = math.radians(float(heading_from_corners(quad)[0]))
        params.append(np.array([centre[0], centre[1], heading]))
    observed_parts = [fixed_obs] + [t.corners_px.reshape(4, 2) for t in tags]
    if board is not None:
        seen_at = pixels_to_table(intrinsics, pose, board.corners_px, 0.0)
        turn, shift = rigid_fit_2d(board.points_xy, seen_at)
        params.append(np.array([shift[0], shift[1], math.atan2(turn[1, 0], turn[0, 0])]))
        observed_parts.append(board.corners_px)
    x = np.concatenate(params)
    observed = np.vstack(observed_parts).ravel()

    def residuals(v: FloatArray) -> FloatArray:
        p = TablePose(v[:3], v[3:6])
        pts = [fixed]
        for i, tag in enumerate(tags):
            cx, cy, h = v[6 + 3 * i : 9 + 3 * i]
            quad = TagLayout(tag.size).corners(cx, cy, math.degrees(h))
            pts.append(np.column_stack([quad, np.zeros(4)]))
        if board is not None:
            bx, by, bh = v[-3:]
            c, s = math.cos(bh), math.sin(bh)
            placed = board.points_xy @ np.array([[c, s], [-s, c]]) + [bx, by]
            pts.append(np.column_stack([placed, np.zeros(len(placed))]))
        return np.asarray(project(intrinsics, p, np.vstack(pts)).ravel() - observed)

    damping = 1e-3
    r = residuals(x)
    cost = float(r @ r)
    for _ in range(iterations):
        jac = np.empty((len(r), len(x)))
        for j in range(len(x)):
            step = 1e-6 * max(1.0, abs(x[j]))
            probe = x.copy()
            probe[j] += step
            jac[:, j] = (residuals(probe) - r) / step
        jtj = jac.T @ jac
        grad = jac.T @ r
        improved = False
        for _ in range(8):
            delta = np.linalg.solve(jtj + damping * np.diag(np.diag(jtj) + 1e-12), -grad)
            candidate = x + delta
            r_new = residuals(candidate)
            cost_new = float(r_new @ r_new)
            if cost_new < cost:
                x, r, improved = candidate, r_new, cost - cost_new > 1e-12 * cost
                cost = cost_new
                damping = max(damping / 3, 1e-9)
                break
            damping *= 4
        if not improved:
            break
    refined = TablePose(x[:3], x[3:6])
    return refined, float(np.sqrt(cost / (len(r) / 2))), len(tags)


# --- does the --table given match the table? -------------------------------------------

#: Common wargames tables, inches (width x depth), smallest first: what a refusal suggests
#: when the roster's anchors do not fit the table given (2x2 ft, Kill Team, 3x2 ft, 3x3 ft,
#: Combat Patrol, 4x3 ft, 4x4 ft, Strike Force, 6x4 ft, Onslaught).
COMMON_TABLES_IN: tuple[tuple[float, float], ...] = (
    (24.0, 24.0),
    (30.0, 22.0),
    (36.0, 24.0),
    (36.0, 36.0),
    (44.0, 30.0),
    (48.0, 36.0),
    (48.0, 48.0),
    (60.0, 44.0),
    (72.0, 48.0),
    (90.0, 44.0),
)


def _outside_by(anchor: AnchorTag, table: TableSize) -> float:
    """How far (inches) an anchor's centre lies outside the table; 0 when on it."""
    dx = max(-anchor.x, anchor.x - table.width, 0.0)
    dy = max(-anchor.y, anchor.y - table.depth, 0.0)
    return math.hypot(dx, dy)


def table_holding(anchors: Sequence[AnchorTag]) -> tuple[float, float] | None:
    """The smallest common table (either way round) with every anchor's centre on it.

    >>> table_holding([AnchorTag(96, 1.5, 1.5, 2.0), AnchorTag(98, 34.5, 22.5, 2.0)])
    (36.0, 24.0)
    >>> table_holding([AnchorTag(96, 1.5, 40.0, 2.0)])
    (30.0, 44.0)
    """
    for long_side, short_side in COMMON_TABLES_IN:
        for width, depth in ((long_side, short_side), (short_side, long_side)):
            size = TableSize(width, depth)
            if all(_outside_by(a, size) == 0.0 for a in anchors):
                return width, depth
    return None


def check_anchors_on_table(anchors: Sequence[AnchorTag], table: TableSize) -> None:
    """Refuse anchors lying outside the table: the table given (``--table``) is wrong.

    Anchors are glued on the table, so one whose centre is more than its own
    size beyond an edge is certain evidence of a wrong table size (or a wrong
    roster); the profile's table frame would be wrong. Raises :class:`RefereeError`
    naming the farthest such anchor and the size to give instead.

    >>> check_anchors_on_table([AnchorTag(97, 34.5, 1.5, 2.0)], TableSize(36, 24))
    >>> check_anchors_on_table([AnchorTag(97, 34.5, 1.5, 2.0)], TableSize(24, 18))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    referee.errors.RefereeError: anchor 97 at (34.5, 1.5) lies outside a 24x18in table; ...
    """
    off = [a for a in anchors if _outside_by(a, table) > a.size]
    if not off:
        return
    worst = max(off, key=lambda a: _outside_by(a, table))
    problem = (
        f"anchor {worst.tag} at ({worst.x:g}, {worst.y:g}) lies outside a "
        f"{table.width:g}x{table.depth:g}in table"
        + (f" (and {len(off) - 1} more)" if len(off) > 1 else "")
    )
    if min(min(a.x, a.y) for a in off) < 0:
        # No table size puts a negative position on the table: the roster is at fault.
        raise RefereeError(
            f"{problem}, whose corners are (0, 0) and ({table.width:g}, {table.depth:g}); "
            "check the roster's anchors (table inches from the origin corner)"
        )
    holding = table_holding(anchors)
    if holding is not None:
        size = f"{holding[0]:g}x{holding[1]:g}"
        fix = f"the anchors fit a {size} table (--table {size})"
    else:
        fix = (
            f"the anchors need a table of at least "
            f"{max(math.ceil(max(a.x for a in anchors)), table.width):g}x"
            f"{max(math.ceil(max(a.y for a in anchors)), table.depth):g}in"
        )
    raise RefereeError(f"{problem}; check --table (the table's size in game inches): {fix}")


#: How far beyond the image border (a fraction of the image's width or height) a table
#: corner may lie before the table counts as larger than the view: a table edge may well
#: be cut off a little.
VIEW_MARGIN = 0.1


def corners_out_of_view(
    intrinsics: Intrinsics, pose: TablePose, table: TableSize, margin: float = VIEW_MARGIN
) -> tuple[tuple[float, float], ...]:
    """The table's corners lying more than ``margin`` beyond the image, farthest first.

    A located table whose corners fall far outside the picture is larger than
    what the camera sees: usually a wrong ``--table``, though a camera may
    also see only part of a big table. Judged with the lens removed: the image
    border is undistorted (exact inside the picture) and widened about the
    principal point, since the lens model extrapolated far outside the image
    folds back (barrel k1 < 0 maps large radii inwards again) and would put
    unseen corners in the picture.

    >>> cam = Intrinsics.from_fov((640, 480), 60, (-0.3, 0.0, 0.0, 0.0, 0.0))
    >>> pose = TablePose.looking_down((12, 9), 30)
    >>> corners_out_of_view(cam, pose, TableSize(24, 18))
    ()
    >>> corners_out_of_view(cam, pose, TableSize(400, 18))
    ((400.0, 0.0), (400.0, 18.0))
    """
    width, height = intrinsics.image_size
    steps = np.linspace(0.0, 1.0, 32, endpoint=False)
    right, bottom = width - 1.0, height - 1.0
    border_px = np.vstack(
        [
            np.column_stack([steps * right, np.zeros_like(steps)]),
            np.column_stack([np.full_like(steps, right), steps * bottom]),
            np.column_stack([right - steps * right, np.full_like(steps, bottom)]),
            np.column_stack([np.zeros_like(steps), bottom - steps * bottom]),
        ]
    )
    border = intrinsics.undistort_normalized(border_px)
    centre = intrinsics.undistort_normalized([[intrinsics.cx, intrinsics.cy]])[0]
    # Each side moves out by ``margin`` of the image's size when the principal point is central.
    reach = (centre + (border - centre) * (1.0 + 2.0 * margin)).astype(np.float32)
    w, d = float(table.width), float(table.depth)
    corners = [(0.0, 0.0), (w, 0.0), (w, d), (0.0, d)]
    points_cam = table_xyz(corners) @ pose.rotation.T + pose.tvec
    outside: list[tuple[float, tuple[float, float]]] = []
    for corner, point in zip(corners, points_cam, strict=True):
        if point[2] <= 1e-9:
            outside.append((math.inf, corner))  # behind the camera
            continue
        normalized = (float(point[0] / point[2]), float(point[1] / point[2]))
        inside_by = cv2.pointPolygonTest(reach.reshape(-1, 1, 2), normalized, True)
        if inside_by < 0:
            outside.append((-inside_by, corner))
    return tuple(corner for _, corner in sorted(outside, key=lambda item: -item[0]))
