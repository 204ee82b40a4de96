"""Tag dictionaries and the physical layout of a printed tag.

One definition shared by the printer (``referee markers``), the simulator
(which must draw tags exactly as printed) and the detector.

A printed tag, seen from above::

    +-------------------------+   <- cut line: white quiet zone all round
    |   +-----------------+   |
    |   |  black border   |   |   <- ``size`` is the side of this black square:
    |   |   data cells    |   |      the four corners the detector reports
    |   +-----------------+   |
    +-------------------------+

The marker's top edge (corners 0 -> 1 in OpenCV's order: top-left,
top-right, bottom-right, bottom-left) is the printed "up" and points to the
model's front.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from referee.errors import RefereeError

DEFAULT_DICTIONARY = "DICT_4X4_100"

#: White margin around the black square, in marker cells, on every side; the cut line
#: is its outer edge. One cell is what the detector needs to close the black square's
#: outline, and keeps the cut tag small: a tag fits a base of its size plus two cells
#: (0.8 in -> 1.07 in).
QUIET_ZONE_CELLS = 1

#: Number of corner anchor tags; they take the last ids of the dictionary so
#: piece tags can number up from 0.
ANCHOR_COUNT = 4

#: Side of a corner anchor's black square, inches: bigger than piece tags so the
#: table frame is found reliably at the far edge of the picture.
ANCHOR_SIZE_IN = 2.0

#: Distance of an anchor's centre from both table edges at its corner, inches.
ANCHOR_INSET_IN = 1.5

#: A table whose longer side is over this many inches also gets an anchor at the middle of
#: each long edge: a camera seeing half of a 72x48 table still sees 3-4 anchors.
EDGE_ANCHOR_OVER_IN = 48.0

#: Ids reserved for anchors (corners plus the two edge anchors of a big table); pieces
#: avoid all of them whatever the table, so one roster serves every table size.
RESERVED_ANCHOR_COUNT = 6

#: Direction each anchor's arrow (its printed top) points on the table: +x, along the width.
ANCHOR_HEADING_DEG = 0.0


#: File suffixes of a custom dictionary written by OpenCV (``Dictionary.writeDictionary``).
DICTIONARY_FILE_SUFFIXES = (".yml", ".yaml")


def dictionary_names() -> list[str]:
    """Every OpenCV predefined dictionary name, e.g. ``DICT_4X4_100`` (AprilTag families too)."""
    return sorted(
        name
        for name in dir(cv2.aruco)
        if name.startswith("DICT_") and isinstance(getattr(cv2.aruco, name), int)
    )


def is_dictionary_file(name: str) -> bool:
    """True when ``name`` names a custom dictionary file rather than a built-in one."""
    return name.lower().endswith(DICTIONARY_FILE_SUFFIXES)


def canonical_dictionary(name: str) -> str:
    """The spelling stored in rosters and specs: OpenCV's name, or the file path as given.

    Raises ``ValueError`` (with what to do) for a name that is neither.

    >>> canonical_dictionary("dict_4x4_100"), canonical_dictionary("DICT_APRILTAG_36h11")
    ('DICT_4X4_100', 'DICT_APRILTAG_36H11')
    """
    if is_dictionary_file(name):
        get_dictionary(name)
        return name
    key = name.upper()
    if not key.startswith("DICT_") or key not in dictionary_names():
        raise ValueError(
            f"unknown tag dictionary {name!r}; use one of OpenCV's (e.g. {DEFAULT_DICTIONARY}, "
            "DICT_APRILTAG_36H11) or a .yml file written by OpenCV's writeDictionary"
        )
    return key


@cache
def get_dictionary(name: str) -> cv2.aruco.Dictionary:
    """The dictionary called ``name``: an OpenCV predefined one (case-insensitive) or a .yml file.

    A file is OpenCV's own format (``cv2.aruco.Dictionary.writeDictionary``:
    ``nmarkers``, ``markersize``, ``maxCorrectionBits``, ``marker_0``...).

    >>> get_dictionary("dict_4x4_100").bytesList.shape[0]
    100
    >>> get_dictionary("/no/such/tags.yml")
    Traceback (most recent call last):
    ...
    ValueError: tag dictionary file '/no/such/tags.yml' does not exist
    """
    if is_dictionary_file(name):
        return _read_dictionary_file(name)
    key = canonical_dictionary(name)
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, key))


#: Bounds of a custom dictionary file, checked before OpenCV builds anything from it: a
#: marker's side in data cells (OpenCV's own dictionaries use 4 to 7), how many markers,
#: and the file's size (a 10,000-marker 16x16 dictionary is under 3 MB).
DICTIONARY_MARKER_SIZES = (2, 16)
MAX_DICTIONARY_MARKERS = 10_000
MAX_DICTIONARY_FILE_BYTES = 4 * 1024 * 1024


def _read_dictionary_file(name: str) -> cv2.aruco.Dictionary:
    """A dictionary file, fully checked in Python first: OpenCV's reader trusts every field
    (a negative marker size or a 1,000-bit marker corrupts its memory)."""
    path = Path(name)
    hint = "write it with OpenCV's cv2.aruco.Dictionary.writeDictionary"
    try:
        if not path.is_file():
            raise ValueError(f"tag dictionary file {name!r} does not exist")
        if path.stat().st_size > MAX_DICTIONARY_FILE_BYTES:
            raise ValueError(
                f"tag dictionary file {name!r} is over {MAX_DICTIONARY_FILE_BYTES // 2**20} MB; "
                f"no dictionary is that big; {hint}"
            )
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"tag dictionary file {name!r} is not OpenCV YAML; {hint}") from None
    except OSError as error:
        raise ValueError(f"tag dictionary file {name!r}: cannot read ({error.strerror})") from None
    fields = _dictionary_fields(text, name, hint)
    size, count, correction, markers = _dictionary_values(fields, name, hint)
    bits = np.array([[c == "1" for c in m] for m in markers], dtype=np.uint8)
    bytes_list = np.concatenate(
        [cv2.aruco.Dictionary.getByteListFromBits(b.reshape(size, size)) for b in bits]
    )
    assert bytes_list.shape[0] == count
    return cv2.aruco.Dictionary(bytes_list, size, correction)


def _dictionary_fields(text: str, name: str, hint: str) -> dict[str, str]:
    """``key: value`` lines of the YAML OpenCV writes, quotes taken off; nothing else."""
    fields: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", "%YAML", "---", "...")):
            continue
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep or not key or raw[:1].isspace() or not key.replace("_", "").isalnum():
            raise ValueError(
                f"tag dictionary file {name!r} is not OpenCV YAML (line {number}); {hint}"
            )
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        if key in fields:
            raise ValueError(f"tag dictionary file {name!r}: {key} is given twice; {hint}")
        fields[key] = value
    return fields


def _dictionary_values(
    fields: dict[str, str], name: str, hint: str
) -> tuple[int, int, int, list[str]]:
    """(marker size, count, max correction bits, markers as bit strings), each in bounds."""

    def whole(key: str, low: int, high: int) -> int:
        value = fields.get(key)
        if value is None:
            raise ValueError(
                f"tag dictionary file {name!r} has no markers (needs nmarkers, markersize, "
                f"marker_0...); {hint}"
            )
        digits = value[1:] if value[:1] in "+-" else value
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 9:
            raise ValueError(
                f"tag dictionary file {name!r}: {key} {value[:20]!r} must be a "
                f"whole number from {low} to {high}"
            )
        number = int(value)
        if not low <= number <= high:
            raise ValueError(
                f"tag dictionary file {name!r}: {key} {number} must be from {low} to {high}"
            )
        return number

    count = whole("nmarkers", 1, MAX_DICTIONARY_MARKERS)
    size = whole("markersize", *DICTIONARY_MARKER_SIZES)
    cells = size * size
    correction = whole("maxCorrectionBits", 0, cells) if "maxCorrectionBits" in fields else 0
    markers = []
    for index in range(count):
        marker = fields.get(f"marker_{index}")
        if marker is None:
            raise ValueError(
                f"tag dictionary file {name!r}: nmarkers is {count} but marker_{index} is "
                f"missing; {hint}"
            )
        if len(marker) != cells or marker.strip("01"):
            raise ValueError(
                f"tag dictionary file {name!r}: marker_{index} must be {cells} characters of "
                f"0 and 1 (markersize {size} squared), got {len(marker)} characters"
                + ("" if not marker.strip("01") else " with others than 0 and 1")
            )
        markers.append(marker)
    known = {"nmarkers", "markersize", "maxCorrectionBits"} | {f"marker_{i}" for i in range(count)}
    extra = sorted(set(fields) - known)
    if extra:
        raise ValueError(
            f"tag dictionary file {name!r}: unexpected field {extra[0]!r} (nmarkers is "
            f"{count}); {hint}"
        )
    return size, count, correction, markers


def dictionary_size(name: str) -> int:
    """How many tag ids the dictionary has."""
    return int(get_dictionary(name).bytesList.shape[0])


def marker_bits(name: str) -> int:
    """Data cells per side (4 for DICT_4X4_*)."""
    return int(get_dictionary(name).markerSize)


def anchor_ids(name: str, table: tuple[float, float] | None = None) -> tuple[int, ...]:
    """Ids of the table's anchors: the four corners, then (big table) the two edge anchors.

    Corner order: table origin (0, 0), then (width, 0), (width, depth), (0, depth). A
    table whose longer side is over 48 in adds the dictionary's two ids before the corner
    ones: the middle of the first long edge (y = 0, or x = 0 when depth is the long
    side), then the opposite edge (CLUB-CONTRACT.md).

    >>> anchor_ids("DICT_4X4_100")
    (96, 97, 98, 99)
    >>> anchor_ids("DICT_4X4_100", (72, 48))
    (96, 97, 98, 99, 94, 95)
    """
    n = dictionary_size(name)
    count = ANCHOR_COUNT + (2 if needs_edge_anchors(table) else 0)
    if n < count:
        # A RefereeError (a ValueError too): one line wherever anchors are asked of it.
        raise RefereeError(
            f"tag dictionary {name} has {n} marker{'s' if n != 1 else ''}; the table's "
            f"{count} anchors take its last {count} ids, so it needs at least {count}"
        )
    corners = tuple(range(n - ANCHOR_COUNT, n))
    if count == ANCHOR_COUNT:
        return corners
    return (*corners, n - ANCHOR_COUNT - 2, n - ANCHOR_COUNT - 1)


def needs_edge_anchors(table: tuple[float, float] | None) -> bool:
    """True for a table whose longer side is over 48 in (it gets six anchors)."""
    return table is not None and max(table) > EDGE_ANCHOR_OVER_IN


def reserved_anchor_ids(name: str) -> tuple[int, ...]:
    """Every id an anchor may take (the dictionary's last six): never a piece's tag.

    >>> reserved_anchor_ids("DICT_4X4_100")
    (94, 95, 96, 97, 98, 99)
    """
    anchor_ids(name)  # a dictionary too small for the corner anchors is one line here too
    n = dictionary_size(name)
    return tuple(range(max(n - RESERVED_ANCHOR_COUNT, 0), n))


def anchor_spots(
    table: tuple[float, float], inset: float | None = None
) -> tuple[tuple[float, float], ...]:
    """Where each of :func:`anchor_ids` goes (centre, table inches), in the same order.

    >>> anchor_spots((72, 48))
    ((1.5, 1.5), (70.5, 1.5), (70.5, 46.5), (1.5, 46.5), (36.0, 1.5), (36.0, 46.5))
    """
    w, d = float(table[0]), float(table[1])
    m = ANCHOR_INSET_IN if inset is None else inset
    spots: list[tuple[float, float]] = [(m, m), (w - m, m), (w - m, d - m), (m, d - m)]
    if needs_edge_anchors(table):
        if w >= d:
            spots += [(w / 2, m), (w / 2, d - m)]
        else:
            spots += [(m, d / 2), (w - m, d / 2)]
    return tuple(spots)


def check_tag_id(name: str, tag_id: int) -> None:
    """Raise ``ValueError`` if the id is not in the dictionary."""
    n = dictionary_size(name)
    if not 0 <= tag_id < n:
        raise ValueError(f"tag id {tag_id} is outside {name} (ids 0-{n - 1})")


def marker_cells(name: str, tag_id: int) -> NDArray[np.bool_]:
    """The marker as a grid of cells, True = white, including its black border.

    Shape is ``(bits + 2, bits + 2)``; row 0 is the printed top (the front).

    >>> cells = marker_cells("DICT_4X4_100", 0)
    >>> cells.shape, bool(cells[0].any()), bool(cells[:, 0].any())
    ((6, 6), False, False)
    """
    check_tag_id(name, tag_id)
    cells = marker_bits(name) + 2
    image = cv2.aruco.generateImageMarker(get_dictionary(name), tag_id, cells, borderBits=1)
    return np.asarray(image > 127)


@dataclass(frozen=True)
class TagLayout:
    """Physical dimensions of one printed tag, inches."""

    size: float
    """Side of the black square (what the detector measures)."""
    bits: int = 4
    """Data cells per side."""

    @property
    def cell(self) -> float:
        return self.size / (self.bits + 2)

    @property
    def quiet_zone(self) -> float:
        """White margin on each side of the black square."""
        return QUIET_ZONE_CELLS * self.cell

    @property
    def outer(self) -> float:
        """Side of the white square to cut out."""
        return self.size + 2 * self.quiet_zone

    def corners(self, x: float, y: float, heading_deg: float) -> NDArray[np.float64]:
        """Black-square corners in table inches for a tag centred at (x, y) facing ``heading_deg``.

        Order is OpenCV's (top-left, top-right, bottom-right, bottom-left) where
        "top" is the front. Heading 0 faces +x.

        >>> TagLayout(1.0).corners(0, 0, 0).round(3).tolist()
        [[0.5, -0.5], [0.5, 0.5], [-0.5, 0.5], [-0.5, -0.5]]
        """
        h = math.radians(heading_deg)
        forward = np.array([math.cos(h), math.sin(h)])
        # Table y grows like image rows, so the tag's right-hand side is +90 degrees.
        right = np.array([-math.sin(h), math.cos(h)])
        half = self.size / 2
        offsets = [(+1, -1), (+1, +1), (-1, +1), (-1, -1)]  # (forward, right)
        center = np.array([x, y], dtype=float)
        return np.array([center + half * (f * forward + r * right) for f, r in offsets])


def heading_from_corners(corners: ArrayLike) -> NDArray[np.float64]:
    """Facing of tags from their four corners in table inches (OpenCV order), degrees in [0, 360).

    Uses all four edges: the two side edges point forward, the front and back
    edges point to the right (turned back by 90 degrees). Averaging four edges
    instead of two cuts the heading noise by about a quarter (measured on
    simulated 1080p footage: p95 1.08 -> 0.75 degrees).

    >>> float(heading_from_corners(TagLayout(1.0).corners(3, 4, 30))[0].round(9))
    30.0
    """
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    forward = (c[:, 0] - c[:, 3]) + (c[:, 1] - c[:, 2])
    right = (c[:, 1] - c[:, 0]) + (c[:, 2] - c[:, 3])
    # Table y grows like image rows: forward is right turned by -90 degrees.
    total = forward + np.column_stack([right[:, 1], -right[:, 0]])
    return np.asarray(np.degrees(np.arctan2(total[:, 1], total[:, 0])) % 360.0)
