"""The printable ChArUco calibration board.

One page: a header with the board's spec string in text and in a QR code (so
``referee calibrate`` recognises the board without typing), print instructions
and scale bars, then the board itself centred below at exact physical size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from referee.errors import RefereeError
from referee.markers.pdf import (
    MARGIN,
    PT_PER_MM,
    Fill,
    Page,
    Polygon,
    Shape,
    Text,
    cell_rects,
    page_size,
    scale_bars,
    text_width,
)
from referee.markers.qr import QUIET_ZONE_MODULES, encode_qr
from referee.tags.board import BoardSpec
from referee.tags.layout import marker_cells

#: The default board: 5 columns x 7 rows of squares, OpenCV's common calibration dictionary.
DEFAULT_COLUMNS = 5
DEFAULT_ROWS = 7
DEFAULT_BOARD_DICTIONARY = "DICT_6X6_250"

#: Marker side as a fraction of the square: big markers are found from further away,
#: while the white rim around them keeps the chessboard corners sharp.
MARKER_RATIO = 0.7

#: Height reserved above the board for title, spec, instructions, scale bars and QR code.
HEADER_HEIGHT = 104.0
#: QR module side, points (1.16 mm): as large as the header allows, so the spec still
#: reads when the board fills only part of a webcam picture.
_QR_MODULE = 3.3
_GAP = 8.0


@dataclass(frozen=True)
class BoardSheet:
    """A board page and where the board's top-left corner is on it (points)."""

    page: Page
    spec: BoardSpec
    origin: tuple[float, float]
    page_name: str
    qr_box: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """The QR code's top-left corner and module side, points (without its quiet zone)."""

    @property
    def title(self) -> str:
        return f"referee calibration board, {self.page_name}: {self.spec.to_string()}"


def board_area(page: str) -> tuple[float, float]:
    """Room for the board itself on ``page`` (points), below the header."""
    width, height = page_size(page)
    return width - 2 * MARGIN, height - 2 * MARGIN - HEADER_HEIGHT - _GAP


def default_board(page: str = "letter") -> BoardSpec:
    """The 5x7 board with the largest whole-millimetre square that fits ``page``.

    >>> default_board("letter").to_string()
    'charuco:5x7:0.03m:0.021m:DICT_6X6_250'
    >>> default_board("a4").to_string()
    'charuco:5x7:0.033m:0.0231m:DICT_6X6_250'
    """
    avail_w, avail_h = board_area(page)
    square_mm = math.floor(min(avail_w / DEFAULT_COLUMNS, avail_h / DEFAULT_ROWS) / PT_PER_MM)
    return BoardSpec(
        DEFAULT_COLUMNS,
        DEFAULT_ROWS,
        square_mm / 1000,
        round(square_mm * MARKER_RATIO, 1) / 1000,
        DEFAULT_BOARD_DICTIONARY,
    )


def board_shapes(spec: BoardSpec, x: float, y: float) -> tuple[Fill, ...]:
    """Black squares and markers of the board with its top-left corner at (x, y), points.

    Square (column c, row r) is white exactly when OpenCV's board puts a marker
    in it, so the drawing follows the board's own pattern (legacy or not).
    """
    board = spec.cv_board()
    square = spec.square_m * 1000 * PT_PER_MM
    marker = spec.marker_m * 1000 * PT_PER_MM
    white: dict[tuple[int, int], int] = {}
    for tag, corners in zip(np.asarray(board.getIds()).ravel(), board.getObjPoints(), strict=True):
        center = np.asarray(corners, dtype=np.float64)[:, :2].mean(axis=0) / spec.square_m
        white[(int(center[0]), int(center[1]))] = int(tag)
    squares = tuple(
        (x + c * square, y + r * square, square, square)
        for r in range(spec.rows)
        for c in range(spec.columns)
        if (c, r) not in white
    )
    rects: list[tuple[float, float, float, float]] = list(squares)
    for (c, r), tag in sorted(white.items(), key=lambda item: (item[0][1], item[0][0])):
        cells = marker_cells(spec.dictionary, tag)
        inset = (square - marker) / 2
        rects.extend(
            cell_rects(
                ~cells, x + c * square + inset, y + r * square + inset, marker / cells.shape[0]
            )
        )
    return (Fill(tuple(rects)),)


def origin_marks(spec: BoardSpec, x: float, y: float) -> tuple[Shape, ...]:
    """Outside the board at (x, y): marker 0 named, and its grid corner marked as the origin.

    Without anchors, calibration puts the table origin at the outer grid
    corner next to marker 0 (OpenCV's board origin: the top-left corner as
    printed), x along the columns and y along the rows. Nothing is drawn on
    the board itself, so detection is untouched.
    """
    board = spec.cv_board()
    ids = np.asarray(board.getIds()).ravel().tolist()
    corners = np.asarray(board.getObjPoints()[ids.index(0)], dtype=np.float64)[:, :2]
    scale = 1000 * PT_PER_MM
    marker_x = x + float(corners[:, 0].mean()) * scale
    size, room = 6.0, x - MARGIN - 11
    shapes: list[Shape] = [
        Text(marker_x, y - 2, "marker 0", size, "center", bold=True),
        Text(x, y - 2, "table origin (0, 0)", size, bold=True),
        # An arrow pointing right, at the grid's top-left corner.
        Polygon(((x - 2, y), (x - 9, y - 4), (x - 9, y + 4))),
    ]
    lines = ("push this", "corner into", "the table's", "corner")
    if all(text_width(line, size) <= room for line in lines):
        shapes.extend(
            Text(x - 11, y + 2 + size * (i + 0.2), line, size, "right")
            for i, line in enumerate(lines)
        )
    return tuple(shapes)


def board_sheet(spec: BoardSpec, page: str = "letter") -> BoardSheet:
    """Lay out ``spec`` on ``page``; refuses a board that does not fit below the header."""
    width, height = page_size(page)
    board_w, board_h = (side_m * 1000 * PT_PER_MM for side_m in spec.size_m())
    avail_w, avail_h = board_area(page)
    if board_w > avail_w + 1e-6 or board_h > avail_h + 1e-6:
        best = min(avail_w / spec.columns, avail_h / spec.rows) / PT_PER_MM
        raise RefereeError(
            f"a {spec.columns}x{spec.rows} board of {spec.square_m * 1000:g} mm squares "
            f"({board_w / PT_PER_MM:.0f} x {board_h / PT_PER_MM:.0f} mm) does not fit a "
            f"{page} page; use --square {math.floor(best)}mm or less"
        )
    text = spec.to_string()
    grid = encode_qr(text)
    # Flush with the top and right margins: the blank page margin is the QR's quiet zone there.
    # Below it, the quiet zone must fit above the board: longer specs get smaller modules.
    module = min(_QR_MODULE, (HEADER_HEIGHT + _GAP) / (grid.shape[0] + QUIET_ZONE_MODULES))
    qr_side = grid.shape[0] * module
    qr_x, qr_y = width - MARGIN - qr_side, MARGIN
    text_limit = qr_x - QUIET_ZONE_MODULES * module
    square_mm = spec.square_m * 1000
    marker_mm = spec.marker_m * 1000
    left = MARGIN
    header: list[Shape] = [
        Text(left, MARGIN + 12, f"referee calibration board ({page})", 12, bold=True),
        Text(left, MARGIN + 26, f"board: {text}", 9, bold=True),
        Text(
            left,
            MARGIN + 38,
            f"{spec.columns} x {spec.rows} squares of {square_mm:g} mm "
            f"({spec.square_in():.3f} in), markers {marker_mm:g} mm, {spec.dictionary}.",
            7,
        ),
        Text(
            left,
            MARGIN + 47,
            "Print at 100% (actual size); glue flat on card. Measure a square: if it is not "
            f"{square_mm:g} mm, run",
            7,
        ),
        Text(
            left,
            MARGIN + 56,
            "referee board --square <measured, e.g. 29.5mm> and give the spec it prints "
            "to referee calibrate --board.",
            7,
        ),
    ]
    bars, _ = scale_bars(left, MARGIN + 64)
    if any(
        isinstance(t, Text) and t.x + text_width(t.text, t.size, t.bold) > text_limit
        for t in (*header, *bars)
    ):
        raise RefereeError(f"board spec {text!r} is too long for the QR code in the sheet header")
    qr = Fill(cell_rects(grid, qr_x, qr_y, module))
    board_x = (width - board_w) / 2
    board_y = MARGIN + HEADER_HEIGHT + _GAP + (avail_h - board_h) / 2
    shapes = (
        *header,
        *bars,
        qr,
        *board_shapes(spec, board_x, board_y),
        *origin_marks(spec, board_x, board_y),
    )
    return BoardSheet(
        Page((width, height), shapes), spec, (board_x, board_y), page, (qr_x, qr_y, module)
    )
