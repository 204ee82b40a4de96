"""ChArUco calibration boards: the spec string, and the OpenCV board it describes.

A board is named by one string, typed by the user (``--board``) or read from
the QR code printed on the sheet::

    charuco:5x7:0.04m:0.02m:DICT_6X6_250
            |   |     |     +-- dictionary of the markers (OpenCV's name or a .yml file)
            |   |     +-------- marker side (the black square inside a white square)
            |   +-------------- chessboard square side
            +------------------ columns x rows of squares

Lengths take a unit: ``in``, ``mm``, ``cm`` or ``m`` (``"`` is accepted for
inches). A trailing ``:legacy`` selects OpenCV's pre-4.6 pattern, which only
differs from the current one for boards with an even number of rows.

Lengths are kept in metres (``square_m``), whatever unit was typed, so the
string written back by :meth:`BoardSpec.to_string` is canonical; convert to
game inches with :meth:`BoardSpec.square_in` (a game inch may differ from
25.4 mm).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import cv2

from referee.tags.layout import canonical_dictionary, get_dictionary

PREFIX = "charuco"

#: Metres per unit.
UNITS: dict[str, float] = {"m": 1.0, "cm": 0.01, "mm": 0.001, "in": 0.0254, '"': 0.0254}

_LENGTH = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(mm|cm|m|in|\")\s*$")
_NUMBER = r"([0-9]+\.?[0-9]*|\.[0-9]+)"
_PAIR = re.compile(rf"^\s*{_NUMBER}\s*[xX]\s*{_NUMBER}\s*$")
_GRID = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")

#: The board ``referee board`` prints on Letter paper (``calibration/board-letter.pdf``).
EXAMPLE = "charuco:5x7:0.03m:0.021m:DICT_6X6_250"


def split_length(text: str) -> tuple[float, str]:
    """(number, unit) of a length like ``25mm``: the one grammar of every length option.

    ``--square`` here and the tag ``--size`` of ``referee markers``/``cards`` read
    lengths through this, so they accept the same spellings.

    >>> split_length(" 0.8 in"), split_length('2"'), split_length("1.5e1mm")
    ((0.8, 'in'), (2.0, '"'), (15.0, 'mm'))
    """
    match = _LENGTH.match(text)
    if not match:
        if re.fullmatch(r"\s*[0-9]*\.?[0-9]+\s*", text):
            raise ValueError(f"length {text!r} needs a unit: in, mm, cm or m (e.g. 25mm)")
        raise ValueError(f"cannot read length {text!r}; write a number and a unit, e.g. 25mm")
    return float(match.group(1)), match.group(2)


def parse_length(text: str) -> float:
    """A length with its unit -> metres.

    >>> parse_length("25mm"), parse_length("1in"), parse_length("0.04m")
    (0.025, 0.0254, 0.04)
    >>> parse_length("12")
    Traceback (most recent call last):
    ...
    ValueError: length '12' needs a unit: in, mm, cm or m (e.g. 25mm)
    """
    value, unit = split_length(text)
    return value * UNITS[unit]


def parse_pair(text: str) -> tuple[float, float]:
    """Two numbers written ``AxB``: a table's ``48x36`` inches, a camera's ``1920x1080``.

    The one reader of ``--table`` (``referee calibrate``, ``referee markers``) and
    ``--camera``; raises ``ValueError`` for anything else (callers name the option).

    >>> parse_pair("48x36"), parse_pair(" 22.5 X 30. ")
    ((48.0, 36.0), (22.5, 30.0))
    """
    match = _PAIR.match(text)
    if not match:
        raise ValueError(f"cannot read {text!r} as WIDTHxHEIGHT")
    return float(match.group(1)), float(match.group(2))


def _format_m(metres: float) -> str:
    return f"{metres:.9f}".rstrip("0").rstrip(".") + "m"


@dataclass(frozen=True)
class BoardSpec:
    """A ChArUco board: grid, square and marker sizes (metres), marker dictionary.

    >>> spec = BoardSpec.parse("charuco:5x7:40mm:20mm:dict_6x6_250")
    >>> spec.to_string()
    'charuco:5x7:0.04m:0.02m:DICT_6X6_250'
    >>> spec.corner_count, round(spec.square_in(), 4)
    (24, 1.5748)
    """

    columns: int
    rows: int
    square_m: float
    marker_m: float
    dictionary: str
    legacy: bool = False
    """OpenCV's pre-4.6 pattern (differs only for an even number of rows)."""

    def __post_init__(self) -> None:
        if self.columns < 2 or self.rows < 2 or self.columns * self.rows < 6:
            raise ValueError(
                f"a charuco board needs at least 2x3 squares, got {self.columns}x{self.rows}"
            )
        for name in ("square_m", "marker_m"):
            value = float(getattr(self, name))
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"board {name[:-2]} size must be positive, got {value!r}")
            # Nanometre rounding makes the spec string round-trip exactly.
            object.__setattr__(self, name, round(value, 9))
        if self.marker_m >= self.square_m:
            raise ValueError(
                f"board marker ({_format_m(self.marker_m)}) must be smaller than its square "
                f"({_format_m(self.square_m)})"
            )
        try:
            key = canonical_dictionary(self.dictionary)
        except ValueError as error:
            raise ValueError(f"board spec dictionary: {error}") from None
        object.__setattr__(self, "dictionary", key)
        markers_needed = (self.columns * self.rows) // 2
        available = int(get_dictionary(key).bytesList.shape[0])
        if markers_needed > available:
            raise ValueError(
                f"a {self.columns}x{self.rows} board needs {markers_needed} markers but "
                f"{key} has only {available}"
            )

    @classmethod
    def parse(cls, text: str) -> BoardSpec:
        """Read ``charuco:COLSxROWS:SQUARE:MARKER:DICTIONARY[:legacy]``.

        Every problem is a ``ValueError`` whose message quotes the bad part
        and shows an example of a good spec.

        >>> BoardSpec.parse("charuco:5x7:0.04m:DICT_6X6_250")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: board spec 'charuco:5x7:0.04m:DICT_6X6_250' needs 5 fields separated by ':'...
        """
        parts = [p.strip() for p in str(text).strip().split(":")]
        legacy = False
        if len(parts) == 6 and parts[5].lower() == "legacy":
            legacy = True
            parts = parts[:5]
        if len(parts) != 5:
            raise ValueError(f"board spec {text!r} needs 5 fields separated by ':', e.g. {EXAMPLE}")
        kind, grid, square, marker, dictionary = parts
        if kind.lower() != PREFIX:
            raise ValueError(
                f"board spec {text!r} must start with 'charuco:' (only ChArUco boards are "
                f"supported), e.g. {EXAMPLE}"
            )
        match = _GRID.match(grid)
        if not match:
            raise ValueError(f"board spec {text!r}: grid {grid!r} must be COLUMNSxROWS, e.g. 5x7")
        try:
            square_m = parse_length(square)
            marker_m = parse_length(marker)
        except ValueError as error:
            raise ValueError(f"board spec {text!r}: {error}") from None
        try:
            return cls(
                int(match.group(1)), int(match.group(2)), square_m, marker_m, dictionary, legacy
            )
        except ValueError as error:
            raise ValueError(f"board spec {text!r}: {error}") from None

    def to_string(self) -> str:
        """The canonical spec (lengths in metres); ``parse(to_string())`` round-trips."""
        text = (
            f"{PREFIX}:{self.columns}x{self.rows}:{_format_m(self.square_m)}:"
            f"{_format_m(self.marker_m)}:{self.dictionary}"
        )
        return text + (":legacy" if self.legacy else "")

    def __str__(self) -> str:
        return self.to_string()

    def with_square(self, square_m: float) -> BoardSpec:
        """The same board printed at a different scale (a measured square size).

        >>> BoardSpec.parse(EXAMPLE).with_square(0.0294).to_string()
        'charuco:5x7:0.0294m:0.02058m:DICT_6X6_250'
        """
        ratio = square_m / self.square_m
        return BoardSpec(
            self.columns, self.rows, square_m, self.marker_m * ratio, self.dictionary, self.legacy
        )

    @property
    def corner_count(self) -> int:
        """Inner chessboard corners (the points calibration uses)."""
        return (self.columns - 1) * (self.rows - 1)

    @property
    def marker_count(self) -> int:
        return (self.columns * self.rows) // 2

    def square_in(self, inch_mm: float = 25.4) -> float:
        """Square side in game inches (``inch_mm`` millimetres to the inch)."""
        return self.square_m * 1000.0 / inch_mm

    def marker_in(self, inch_mm: float = 25.4) -> float:
        """Marker side in game inches."""
        return self.marker_m * 1000.0 / inch_mm

    def size_m(self) -> tuple[float, float]:
        """Printed board extent (width, height) in metres, without margins."""
        return self.columns * self.square_m, self.rows * self.square_m

    def cv_board(self) -> cv2.aruco.CharucoBoard:
        """The OpenCV board; object points are in metres, origin at the board's top-left corner."""
        board = cv2.aruco.CharucoBoard(
            (self.columns, self.rows), self.square_m, self.marker_m, get_dictionary(self.dictionary)
        )
        board.setLegacyPattern(self.legacy)
        return board
