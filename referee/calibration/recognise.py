"""The project's own printed boards, recognised without reading their QR code.

``referee board`` prints a 5x7 ``DICT_6X6_250`` ChArUco board on Letter (30 mm
squares) or A4 (33 mm). Calibration needs the board's spec; it is printed in
a QR code, but reading a QR code with OpenCV alone (no libzbar) is slow and
fails at the distances calibration works at. Two things identify a printed
board without decoding anything:

* **The QR pattern where it is printed.** The board's own corners give the
  homography from the sheet to the image, so the QR code's modules can be
  sampled exactly where each candidate sheet prints them and compared with the
  code that candidate would carry (:func:`match_printed_board`). A wrong
  candidate, a board without a QR code in view, or one printed at another
  size correlates near zero.
* **A tag of known size on the table.** When the QR code is never in view
  (or the sheet is not one of ours), both printed sizes share one pattern and
  differ only in scale. An anchor (or any flat tag of known size) lying on the
  table beside the flat board fixes that scale (:func:`square_from_tags`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import Intrinsics, pixels_to_table
from referee.calibration.table import solve_pose
from referee.tags.board import BoardSpec

FloatArray = NDArray[np.float64]

#: Correlation between the sampled and the expected QR modules that identifies a sheet.
MIN_QR_CORRELATION = 0.6
#: Smallest QR module, in pixels, worth sampling.
MIN_MODULE_PX = 1.3
#: How far a tag-measured square may be from a printed size and still be that board.
SCALE_TOLERANCE = 0.04


@dataclass(frozen=True)
class PrintedBoard:
    """One board sheet ``referee board`` prints, and where its QR modules are."""

    spec: BoardSpec
    page: str
    module_centres_m: FloatArray
    """(n, 2) centres of the QR modules plus a one-module quiet ring, board frame, metres."""
    dark: NDArray[np.bool_]
    """(n,) which of those modules are dark."""
    module_m: float


@cache
def printed_boards() -> tuple[PrintedBoard, ...]:
    """The default Letter and A4 boards, as ``referee board`` prints them."""
    from referee.markers.board_sheet import board_sheet, default_board
    from referee.markers.pdf import PT_PER_MM
    from referee.markers.qr import encode_qr

    boards = []
    for page in ("letter", "a4"):
        spec = default_board(page)
        sheet = board_sheet(spec, page)
        qr_x, qr_y, module = sheet.qr_box
        grid = np.pad(encode_qr(spec.to_string()), 1, constant_values=False)
        rows, cols = np.indices(grid.shape)
        # Page points -> board frame metres (origin at the grid's top-left corner, y down).
        x_pt = qr_x + (cols.ravel() - 1 + 0.5) * module - sheet.origin[0]
        y_pt = qr_y + (rows.ravel() - 1 + 0.5) * module - sheet.origin[1]
        centres = np.column_stack([x_pt, y_pt]) / (PT_PER_MM * 1000.0)
        boards.append(
            PrintedBoard(spec, page, centres, grid.ravel(), module / (PT_PER_MM * 1000.0))
        )
    return tuple(boards)


def same_layout(boards: Sequence[PrintedBoard]) -> bool:
    """True when the boards differ only in scale (one detector finds them all)."""
    first = boards[0].spec
    return all(
        (b.spec.columns, b.spec.rows, b.spec.dictionary, b.spec.legacy)
        == (first.columns, first.rows, first.dictionary, first.legacy)
        and abs(b.spec.marker_m / b.spec.square_m - first.marker_m / first.square_m) < 1e-6
        for b in boards
    )


def match_printed_board(
    gray: NDArray[np.uint8],
    corners_px: FloatArray,
    squares: FloatArray,
    boards: Sequence[PrintedBoard] | None = None,
) -> BoardSpec | None:
    """The printed board whose QR code is where the board's corners say it should be.

    ``corners_px`` (n, 2) are chessboard corners seen in ``gray`` and
    ``squares`` (n, 2) the same corners in board squares (column, row). The
    homography between them (the lens is ignored: the QR code sits close to
    the board) predicts each candidate's module centres in the image; the
    candidate whose samples correlate best with its own code wins when the
    correlation reaches :data:`MIN_QR_CORRELATION`. None when no candidate
    does or the code is too small in the picture to sample.
    """
    boards = printed_boards() if boards is None else boards
    if len(corners_px) < 6:
        return None
    homography, _ = cv2.findHomography(
        np.asarray(squares, np.float64), np.asarray(corners_px, np.float64), 0
    )
    if homography is None:
        return None
    height, width = gray.shape[:2]
    best: tuple[float, BoardSpec] | None = None
    for board in boards:
        in_squares = board.module_centres_m / board.spec.square_m
        points = np.asarray(
            cv2.perspectiveTransform(in_squares.reshape(-1, 1, 2), homography), np.float64
        ).reshape(-1, 2)
        inside = (
            (points[:, 0] >= 0)
            & (points[:, 0] <= width - 1)
            & (points[:, 1] >= 0)
            & (points[:, 1] <= height - 1)
        )
        if inside.mean() < 0.95:
            continue
        step = board.module_m / board.spec.square_m
        neighbour = (in_squares[0] + np.array([step, 0.0])).reshape(1, 1, 2)
        side = cv2.perspectiveTransform(neighbour, homography).reshape(2)
        module_px = float(np.hypot(*(side - points[0])))
        if module_px < MIN_MODULE_PX:
            continue
        score = _best_shifted_correlation(gray, points, ~board.dark, module_px)
        if score >= MIN_QR_CORRELATION and (best is None or score > best[0]):
            best = (score, board.spec)
    return None if best is None else best[1]


def _best_shifted_correlation(
    gray: NDArray[np.uint8], points: FloatArray, light: NDArray[np.bool_], module_px: float
) -> float:
    """Correlation of the grey levels at ``points`` with ``light``, best over small shifts.

    The homography ignores the lens, and the QR code lies outside the board
    it was fitted to: barrel distortion moves it by up to a couple of modules.
    Shifts of up to two modules, in half-module steps, absorb that; a random
    pattern of hundreds of modules never correlates at :data:`MIN_QR_CORRELATION`.
    """
    expected = light.astype(np.float64)
    steps = np.arange(-2.0, 2.01, 0.5) * module_px
    best = -1.0
    for dx in steps:
        for dy in steps:
            values = cv2.remap(
                gray,
                (points[:, 0] + dx).astype(np.float32).reshape(1, -1),
                (points[:, 1] + dy).astype(np.float32).reshape(1, -1),
                cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            ).ravel()
            if np.std(values) > 1e-6:
                best = max(best, float(np.corrcoef(values.astype(np.float64), expected)[0, 1]))
    return best


def square_from_tags(
    intrinsics: Intrinsics,
    board_px: FloatArray,
    board_squares: FloatArray,
    tag_corners_px: FloatArray,
    tag_sizes_m: Sequence[float],
) -> float | None:
    """The board's square side (metres) from flat tags of known size beside the flat board.

    The board's pose is solved with a square of 1 (lengths in squares); the
    tags' corners are put on that plane and their sides measured in squares.
    A tag of ``s`` metres measuring ``k`` squares gives a square of ``s / k``;
    the median over the tags is returned (None without tags).
    """
    if len(tag_sizes_m) == 0 or len(board_px) < 6:
        return None
    xyz = np.column_stack([board_squares, np.zeros(len(board_squares))])
    pose = solve_pose(intrinsics, xyz, board_px).pose
    squares = []
    for quad, size_m in zip(np.asarray(tag_corners_px), tag_sizes_m, strict=True):
        on_plane = pixels_to_table(intrinsics, pose, quad)
        sides = np.linalg.norm(on_plane - np.roll(on_plane, -1, axis=0), axis=1)
        if np.all(np.isfinite(sides)) and sides.mean() > 0:
            squares.append(size_m / float(sides.mean()))
    return float(np.median(squares)) if squares else None


def choose_by_scale(square_m: float, boards: Sequence[PrintedBoard]) -> BoardSpec | None:
    """The printed board whose square is within :data:`SCALE_TOLERANCE` of ``square_m``."""
    best = min(boards, key=lambda b: abs(b.spec.square_m / square_m - 1.0))
    if abs(best.spec.square_m / square_m - 1.0) <= SCALE_TOLERANCE:
        return best.spec
    return None
