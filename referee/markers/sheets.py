"""Tag sheets: piece tags and corner anchors laid out for printing.

Each printed tag is a white square (the quiet zone of :class:`TagLayout`)
bounded by a solid grey cut line, with the black marker centred in it, its
printed top towards the top of the page. Above the cut square sits a tab,
bounded by a dashed line, with an arrow pointing to the model's front and the
tag's label. Glue the tag with the arrow to the front, then trim the tab off.

Anchor tags go on the table corners. Their id order follows
:func:`~referee.tags.layout.anchor_ids` (table origin first), their centre
sits :data:`ANCHOR_INSET_IN` from both edges of their corner and their arrow
points along the table's +x axis (:data:`ANCHOR_HEADING_DEG`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from referee.errors import RefereeError
from referee.markers.pdf import (
    CUT_GRAY,
    MARGIN,
    PT_PER_IN,
    Fill,
    Page,
    Polygon,
    Shape,
    Shelf,
    Text,
    cell_rects,
    fit_text,
    page_size,
    rect_outline,
    scale_bars,
    up_arrow,
)
from referee.tags.board import split_length
from referee.tags.layout import (
    ANCHOR_INSET_IN,
    ANCHOR_SIZE_IN,
    DEFAULT_DICTIONARY,
    TagLayout,
    anchor_ids,
    anchor_spots,
    check_tag_id,
    marker_bits,
    marker_cells,
    reserved_anchor_ids,
)
from referee.validate import shown

#: Side of a piece tag's black square when no size is given, inches.
DEFAULT_TAG_SIZE_IN = 0.8

#: Pixels per marker cell ``--size auto`` aims for: below about 5, detection drops.
MIN_PX_PER_CELL = 5.0

#: Assumed camera framing for ``--size auto``: the table fills the picture with this
#: fraction of margin on each side, camera looking straight down.
AUTO_MARGIN = 0.05

#: ``--size auto`` rounds up to a multiple of this, inches.
AUTO_STEP_IN = 0.05

_GAP = 0.12 * PT_PER_IN
_TAB_H = 22.0
_HEADER_GAP = 10.0

#: Smallest and largest tag side :func:`parse_size` accepts, inches: below 0.1 in
#: (2.5 mm) a 4x4 tag's cells are under half a millimetre, beyond what a printer and a
#: camera over a table resolve; above 20 in no page holds it.
MIN_TAG_SIZE_IN = 0.1
MAX_TAG_SIZE_IN = 20.0

#: Units of :func:`parse_size` per inch.
_UNITS_PER_INCH = {"in": 1.0, '"': 1.0, "mm": 25.4, "cm": 2.54, "m": 0.0254}

CORNER_NAMES = (
    "origin corner (0, 0)",
    "corner (width, 0)",
    "corner (width, depth)",
    "corner (0, depth)",
)


@dataclass(frozen=True)
class TagPrint:
    """One tag to print."""

    tag: int
    size_in: float
    """Side of the black square, inches."""
    label: str = ""
    """Printed after the id in the tab (a piece id or name)."""
    notes: tuple[str, ...] = ()
    """Further lines of small print in the tab (anchor placement)."""


@dataclass(frozen=True)
class PlacedTag:
    """Where a tag landed: page index and its black square's centre and side, points."""

    page: int
    tag: int
    center: tuple[float, float]
    size: float


@dataclass(frozen=True)
class TagSheet:
    """Pages ready for :func:`~referee.markers.pdf.write_pdf`, and where each tag is."""

    pages: tuple[Page, ...]
    placed: tuple[PlacedTag, ...]
    title: str


def parse_ids(text: str, dictionary: str | None = None) -> tuple[int, ...]:
    """Read an id list like ``10-40`` or ``1,3,5-9``: sorted, each once.

    ``dictionary`` bounds the ids before any range is
    expanded, so ``0-99999999`` is an error, not gigabytes of ids.

    >>> parse_ids("5-7, 1,3,6")
    (1, 3, 5, 6, 7)
    >>> parse_ids("9-5")
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: --ids: range '9-5' runs backwards; write 5-9
    """
    ids: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        match = re.fullmatch(r"(\d{1,9})\s*-\s*(\d{1,9})|(\d{1,9})", part)
        if not match:
            raise RefereeError(f"--ids: cannot read {shown(part)}; write ids like 10-40 or 1,3,5-9")
        low = int(match.group(1) or match.group(3))
        high = int(match.group(2) or match.group(3))
        if dictionary is not None:
            try:
                check_tag_id(dictionary, high)
            except ValueError as error:
                raise RefereeError(f"--ids: {error}") from None
        if match.group(3) is not None:
            ids.add(low)
            continue
        if low > high:
            raise RefereeError(f"--ids: range {part!r} runs backwards; write {high}-{low}")
        ids.update(range(low, high + 1))
    if not ids:
        raise RefereeError("--ids: no ids given; write ids like 10-40 or 1,3,5-9")
    return tuple(sorted(ids))


def check_piece_tag(dictionary: str, tag: int) -> None:
    """Refuse ids outside the dictionary and the ids reserved for the corner anchors."""
    try:
        check_tag_id(dictionary, tag)
    except ValueError as error:
        raise RefereeError(str(error)) from None
    reserved = reserved_anchor_ids(dictionary)
    if tag in reserved:
        where = "corner" if tag in anchor_ids(dictionary) else "big table's edge"
        raise RefereeError(
            f"tag {tag} is reserved for the {where} anchors of {dictionary} "
            f"(ids {reserved[0]}-{reserved[-1]}); print them with --anchors, "
            f"and use ids 0-{reserved[0] - 1} for pieces"
        )


def camera_px_per_inch(
    table_in: tuple[float, float], camera_px: tuple[int, int], margin: float = AUTO_MARGIN
) -> float:
    """Pixels per table inch of a camera looking straight down, the table filling the picture.

    >>> round(camera_px_per_inch((48, 36), (1920, 1080)), 2)
    27.27
    """
    (table_w, table_d), (cam_w, cam_h) = table_in, camera_px
    # The table may be seen either way round; use the orientation that fills more pixels.
    return max(
        min(cam_w / (table_w * (1 + 2 * margin)), cam_h / (table_d * (1 + 2 * margin))),
        min(cam_w / (table_d * (1 + 2 * margin)), cam_h / (table_w * (1 + 2 * margin))),
    )


def auto_tag_size(
    table_in: tuple[float, float],
    camera_px: tuple[int, int],
    dictionary: str = DEFAULT_DICTIONARY,
    *,
    min_px_per_cell: float = MIN_PX_PER_CELL,
    margin: float = AUTO_MARGIN,
) -> tuple[float, float]:
    """Smallest tag (multiple of 0.05 in) giving ``min_px_per_cell`` pixels per marker cell.

    Assumes a camera looking straight down with the table filling the picture
    plus ``margin`` on every side; returns (tag size in inches, pixels per cell
    it gets). A tilted camera or a wide-angle lens sees the far edge smaller:
    print one step bigger then.

    >>> auto_tag_size((48, 36), (1920, 1080))
    (1.1, 5.0)
    >>> auto_tag_size((48, 36), (3840, 2160))
    (0.55, 5.0)
    """
    if min(*table_in, *camera_px) <= 0:
        raise RefereeError("--table and --camera need positive sizes, e.g. 48x36 and 1920x1080")
    px_per_in = camera_px_per_inch(table_in, camera_px, margin)
    cells = marker_bits(dictionary) + 2
    exact = cells * min_px_per_cell / px_per_in
    size = math.ceil(round(exact / AUTO_STEP_IN, 6)) * AUTO_STEP_IN
    size = round(size, 4)
    return size, round(size / cells * px_per_in, 2)


#: The most favourable setup a tag size is checked against when table and camera are not
#: given: a 4K camera over a small 24 x 24 in table. Smaller tags are unreadable anywhere.
BEST_CASE_TABLE_IN = (24.0, 24.0)
BEST_CASE_CAMERA_PX = (3840, 2160)


def size_warning(
    size_in: float,
    dictionary: str,
    table_in: tuple[float, float] | None = None,
    camera_px: tuple[int, int] | None = None,
) -> str | None:
    """Why a tag of ``size_in`` will not be read, or None when it will.

    With the table and camera known, the tag must give :data:`MIN_PX_PER_CELL`
    pixels per cell (same framing as ``--size auto``); without them, it must
    at least be readable in the most favourable setup (:data:`BEST_CASE_CAMERA_PX`
    over :data:`BEST_CASE_TABLE_IN`).

    >>> size_warning(0.8, "DICT_4X4_100", (48, 36), (1920, 1080)) is None
    False
    >>> size_warning(1.2, "DICT_4X4_100", (48, 36), (1920, 1080)) is None
    True
    >>> print(size_warning(0.1, "DICT_4X4_100"))  # doctest: +ELLIPSIS
    0.1 in (2.5 mm) tags are too small for any camera to read: even a 3840x2160 camera ...
    """
    known = table_in is not None and camera_px is not None
    table = table_in if table_in is not None else BEST_CASE_TABLE_IN
    camera = camera_px if camera_px is not None else BEST_CASE_CAMERA_PX
    needed, _ = auto_tag_size(table, camera, dictionary)
    if size_in >= needed - 1e-9:
        return None
    setup = f"a {camera[0]}x{camera[1]} camera over a {table[0]:g}x{table[1]:g} in table"
    if known:
        px = size_in / (marker_bits(dictionary) + 2) * camera_px_per_inch(table, camera)
        return (
            f"{describe_size(size_in)} tags give about {px:.1f} px per tag cell with {setup}; "
            f"the detector needs {MIN_PX_PER_CELL:g}: print {needed:g} in or larger (--size auto)"
        )
    return (
        f"{describe_size(size_in)} tags are too small for any camera to read: even {setup} "
        f"needs {needed:g} in; give --table and --camera to check your setup, or use --size auto"
    )


def piece_tags(
    ids: Sequence[int], size_in: float, dictionary: str, labels: Sequence[str] = ()
) -> tuple[TagPrint, ...]:
    """Piece tags for ``ids``, validated (anchor ids refused)."""
    for tag in ids:
        check_piece_tag(dictionary, tag)
    names = list(labels) + [""] * (len(ids) - len(labels))
    return tuple(TagPrint(tag, size_in, name) for tag, name in zip(ids, names, strict=True))


def anchor_tags(
    dictionary: str, size_in: float = ANCHOR_SIZE_IN, table: tuple[float, float] | None = None
) -> tuple[TagPrint, ...]:
    """The table's anchors (four corners; six on a big ``table``), labelled with their place."""
    inset = ANCHOR_INSET_IN
    corners = tuple(
        TagPrint(
            tag,
            size_in,
            f"anchor, {corner}",
            (
                f"centre {inset:g} in from both table edges at this corner;",
                "arrow along the table's width (+x), away from the (0, y) edge",
            ),
        )
        for tag, corner in zip(anchor_ids(dictionary), CORNER_NAMES, strict=True)
    )
    if table is None or len(anchor_ids(dictionary, table)) == len(corners):
        return corners
    edges = tuple(
        TagPrint(
            tag,
            size_in,
            f"anchor, edge ({x:g}, {y:g})",
            (
                f"centre at the middle of a long edge, {inset:g} in in from it;",
                "arrow along the table's width (+x), like the corner anchors",
            ),
        )
        for tag, (x, y) in zip(
            anchor_ids(dictionary, table)[4:], anchor_spots(table)[4:], strict=True
        )
    )
    return corners + edges


def tag_shapes(dictionary: str, tag: int, size_pt: float, cx: float, cy: float) -> tuple[Fill]:
    """The black cells of a marker whose black square (side ``size_pt``) is centred at (cx, cy).

    The page layout and the tests both draw tags through this one function.
    """
    cells = marker_cells(dictionary, tag)
    cell = size_pt / cells.shape[0]
    half = size_pt / 2
    return (Fill(cell_rects(~cells, cx - half, cy - half, cell)),)


def _tab_height(item: TagPrint) -> float:
    return _TAB_H + 8.0 * len(item.notes)


def _item_shapes(
    item: TagPrint, dictionary: str, x: float, y: float
) -> tuple[list[Shape], tuple[float, float], float]:
    """Shapes of one tag with its tab, top-left of the tab at (x, y)."""
    layout = TagLayout(item.size_in * PT_PER_IN, marker_bits(dictionary))
    outer = layout.outer
    tab = _tab_height(item)
    cx, cy = x + outer / 2, y + tab + outer / 2
    shapes: list[Shape] = []
    # Dashed: tag + tab, cut first. Solid: the quiet zone square, cut after gluing.
    shapes.append(rect_outline(x, y, outer, tab + outer, width=0.4, gray=CUT_GRAY, dash=(2, 2)))
    shapes.append(rect_outline(x, y + tab, outer, outer, width=0.4, gray=CUT_GRAY))
    shapes.extend(tag_shapes(dictionary, item.tag, layout.size, cx, cy))
    shapes.append(up_arrow(cx, y + 3, 8))
    label = f"{item.tag}  {item.label}".strip()
    size = 7.0 if outer >= 60 else 6.0
    shapes.append(Text(cx, y + 18, fit_text(label, outer - 4, size, True), size, "center", True))
    for i, note in enumerate(item.notes):
        shapes.append(Text(cx, y + 18 + 8 * (i + 1), fit_text(note, outer - 4, 6), 6, "center"))
    return shapes, (cx, cy), layout.size


PIECE_INSTRUCTIONS = (
    "Print at 100% (actual size). Cut the dashed outline, glue the tag with the "
    "arrow to the model's front, then trim the tab along the solid line."
)
ANCHOR_INSTRUCTIONS = (
    "Print at 100%. Glue each anchor at its table corner (diagram), centre "
    f"{ANCHOR_INSET_IN:g} in from both edges, arrow along the width (+x); trim the tab."
)


def tag_sheet(
    items: Sequence[TagPrint],
    dictionary: str = DEFAULT_DICTIONARY,
    page: str = "letter",
    title: str = "",
    header_extra: Sequence[Shape] = (),
    instructions: str = PIECE_INSTRUCTIONS,
) -> TagSheet:
    """Lay out ``items`` on as many pages as needed; every page gets header and scale bars.

    ``header_extra`` is drawn on every page too, in the header's free top-right corner
    (about 1.2 x 0.7 in left of the right margin, below the page number).
    """
    if not items:
        raise RefereeError("no tags to print")
    width, height = page_size(page)
    bits = marker_bits(dictionary)
    sizes_in = sorted({item.size_in for item in items})
    size_text = ", ".join(describe_size(s) for s in sizes_in)
    title = title or f"referee tags, {dictionary}, {size_text} black square"
    header_h = 14 + 10 + 2 * 17 + _HEADER_GAP
    shelf = Shelf(
        (MARGIN, MARGIN + header_h, width - 2 * MARGIN, height - 2 * MARGIN - header_h), _GAP
    )
    boxes = []
    for item in items:
        if not item.size_in > 0 or not math.isfinite(item.size_in):
            raise RefereeError(f"tag size must be positive, got {item.size_in!r}")
        outer = TagLayout(item.size_in * PT_PER_IN, bits).outer
        boxes.append((outer, _tab_height(item) + outer))
    spots = shelf.place(boxes)
    page_count = spots[-1][0] + 1
    per_page: list[list[Shape]] = [[] for _ in range(page_count)]
    placed: list[PlacedTag] = []
    for item, (index, x, y) in zip(items, spots, strict=True):
        shapes, center, size = _item_shapes(item, dictionary, x, y)
        per_page[index].extend(shapes)
        placed.append(PlacedTag(index, item.tag, center, size))
    pages = []
    for index, shapes in enumerate(per_page):
        header: list[Shape] = [
            Text(MARGIN, MARGIN + 10, title, 10, bold=True),
            Text(width - MARGIN, MARGIN + 10, f"page {index + 1}/{page_count}", 8, "right"),
            Text(
                MARGIN,
                MARGIN + 22,
                instructions,
                7,
            ),
        ]
        bars, _ = scale_bars(MARGIN, MARGIN + 30)
        pages.append(Page((width, height), (*header, *bars, *header_extra, *shapes)))
    return TagSheet(tuple(pages), tuple(placed), title)


def anchor_sheet(
    dictionary: str = DEFAULT_DICTIONARY,
    size_in: float = ANCHOR_SIZE_IN,
    page: str = "letter",
    table: tuple[float, float] | None = None,
) -> TagSheet:
    """The table's anchors with a diagram of where each corner anchor goes on the table."""
    width, _ = page_size(page)
    which = "corner" if table is None or len(anchor_ids(dictionary, table)) == 4 else "table"
    title = f"referee {which} anchors, {dictionary}, {describe_size(size_in)} black square"
    return tag_sheet(
        anchor_tags(dictionary, size_in, table),
        dictionary,
        page,
        title,
        _corner_diagram(width - MARGIN - 72, MARGIN + 22, anchor_ids(dictionary)),
        ANCHOR_INSTRUCTIONS,
    )


def _corner_diagram(x: float, y: float, ids: Sequence[int]) -> tuple[Shape, ...]:
    """The table from above, 64 x 40 pt at (x, y): which anchor id goes on which corner."""
    w, h, mark, inset = 64.0, 40.0, 5.0, 3.0
    shapes: list[Shape] = [
        rect_outline(x, y, w, h, width=0.6),
        Text(x, y - 2, "table from above, x (width)", 5),
        Polygon(((x + 61, y - 5.5), (x + 65, y - 3.7), (x + 61, y - 1.9))),
        Text(x - 2, y + h / 2, "y", 5, "right"),
        Polygon(((x - 5.7, y + h / 2 + 2), (x - 2.3, y + h / 2 + 2), (x - 4, y + h / 2 + 6))),
    ]
    corners = ((0, 0), (1, 0), (1, 1), (0, 1))
    for tag, (cx, cy) in zip(ids, corners, strict=True):
        mx = x + inset if cx == 0 else x + w - inset - mark
        my = y + inset if cy == 0 else y + h - inset - mark
        shapes.append(Fill(((mx, my, mark, mark),)))
        label_x = mx + mark + 2 if cx == 0 else mx - 2
        shapes.append(Text(label_x, my + mark - 0.5, str(tag), 6, "left" if cx == 0 else "right"))
    return tuple(shapes)


def describe_size(inches: float) -> str:
    """A tag size the way the user probably typed it, with the other unit after.

    >>> describe_size(0.8), describe_size(20 / 25.4)
    ('0.8 in (20.3 mm)', '20 mm (0.787 in)')
    """
    mm = inches * 25.4
    if abs(mm * 2 - round(mm * 2)) < 1e-6 and abs(inches * 100 - round(inches * 100)) > 1e-6:
        return f"{mm:g} mm ({inches:.3f} in)"
    return f"{inches:g} in ({mm:.1f} mm)"


def parse_size(text: str) -> float:
    """A printed length like ``0.8in``, ``20mm`` or ``2cm`` in inches.

    Read with :func:`~referee.tags.board.split_length`, the grammar of
    ``referee board --square`` too.

    >>> parse_size("20mm") == 20 / 25.4, parse_size("0.8in")
    (True, 0.8)
    """
    try:
        value, unit = split_length(text)
    except ValueError:
        raise RefereeError(
            f"--size: cannot read {text!r}; write a number and a unit, e.g. 0.8in or 20mm"
        ) from None
    # Divided per unit (not via metres) so 20mm is exactly 20 / 25.4 in.
    inches = value / _UNITS_PER_INCH[unit]
    if not inches > 0:
        raise RefereeError(f"--size: {shown(text)} must be positive")
    if inches < MIN_TAG_SIZE_IN:
        raise RefereeError(
            f"--size: {shown(text)} is too small to print and read; "
            f"use at least {MIN_TAG_SIZE_IN:g}in ({MIN_TAG_SIZE_IN * 25.4:.1f} mm)"
        )
    if not inches <= MAX_TAG_SIZE_IN:
        raise RefereeError(
            f"--size: {shown(text)} is bigger than any page; use at most {MAX_TAG_SIZE_IN:g}in"
        )
    return inches
