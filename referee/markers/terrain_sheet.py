"""Paper terrain templates at exact size: the outline to cut, the tags printed on it.

A template (a roster's :class:`~referee.markers.roster.TerrainTemplate`) is
drawn 1:1 in its own frame, forward along the page's width and right down the
page (as the table is seen from above, y growing like image rows), so a tag at
heading 0 on the template has its front towards the page's right edge. Each
tag is drawn where the roster puts it, turned by its heading; the referee then
finds the template from whichever of its tags it sees.

A template is drawn the way round that takes fewest sheets (a quarter turn puts
its forward down the page). One that fits the printable area shares pages with
others; a bigger one
is split into tiles of the printable area that overlap by :data:`OVERLAP_IN`:
each tile's dashed lines show where the next sheet's edge goes, and its label
says which row and column it is. Every page gets the scale bars.

:func:`shaped_outline` gives the outline of a kind at a size (a wood's wavy
edge, a hill's oval contour, a building's footprint, a straight road or a
winding river section) for players without an outline of their own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from referee.errors import RefereeError
from referee.markers.pdf import (
    MARGIN,
    PT_PER_IN,
    Clipped,
    Line,
    Page,
    Polygon,
    Shape,
    Shelf,
    Text,
    fit_text,
    page_size,
    rect_outline,
    scale_bars,
)
from referee.markers.roster import TerrainTemplate
from referee.markers.sheets import DEFAULT_TAG_SIZE_IN, tag_shapes
from referee.tags.layout import TagLayout, marker_bits

OVERLAP_IN = 0.5
"""How far neighbouring tiles of a big template overlap, inches (glued one over the other)."""

MAX_TEMPLATE_IN = 150.0
"""Longest side of a printed template, inches, outline and tags together (12.5 ft: longer
than a club table; a longer road or river is printed as sections). 150 in square is some
400 Letter sheets written in a second; 800 x 600 in was 11,000 sheets, 55 s and 28 MB."""

_HEADER_H = 14 + 10 + 2 * 17 + 10
"""Title, instructions and the two scale bars above the drawing area, points."""
_PAD = 0.15 * PT_PER_IN
"""Blank paper kept around a template's outline on the page, points."""

INSTRUCTIONS = (
    "Print at 100% (actual size). Cut along the solid outline; keep the tags flat and "
    "uncovered. Sheets of a big template: lay each over its neighbour up to the dashed line."
)


@dataclass(frozen=True)
class PrintedTag:
    """Where a tag landed: page, centre and black-square side (points), facing on the page."""

    page: int
    tag: int
    template: str
    center: tuple[float, float]
    size: float
    heading: float
    """Direction of the tag's front on the page, degrees: 0 to the right, 90 down the page."""


@dataclass(frozen=True)
class PrintedOutline:
    """A template's outline as drawn on its first page (points; clipped there when tiled)."""

    page: int
    template: str
    points: tuple[tuple[float, float], ...]
    tiles: int
    """How many sheets the template is printed on (1 when it fits a page)."""


@dataclass(frozen=True)
class TerrainSheet:
    """Pages ready for :func:`~referee.markers.pdf.write_pdf`, and where things landed."""

    pages: tuple[Page, ...]
    tags: tuple[PrintedTag, ...]
    outlines: tuple[PrintedOutline, ...]
    title: str


def _bounds(
    template: TerrainTemplate, tag_size_in: float, bits: int
) -> tuple[float, float, float, float]:
    """(min f, min r, max f, max r) of the outline and every tag's white square, inches."""
    half = TagLayout(tag_size_in, bits).outer / 2 * math.sqrt(2)  # any turn of the square
    fs = [f for f, _ in template.outline] + [
        t.at[0] + s * half for t in template.tags for s in (-1, 1)
    ]
    rs = [r for _, r in template.outline] + [
        t.at[1] + s * half for t in template.tags for s in (-1, 1)
    ]
    return min(fs), min(rs), max(fs), max(rs)


def template_span(template: TerrainTemplate) -> tuple[float, float]:
    """(length, width) of the box around ``template``'s outline and tag centres, inches."""
    fs = [f for f, _ in template.outline] + [t.at[0] for t in template.tags]
    rs = [r for _, r in template.outline] + [t.at[1] for t in template.tags]
    return max(fs) - min(fs), max(rs) - min(rs)


def check_template_size(template: TerrainTemplate, source: str) -> None:
    """Refuse a template longer than :data:`MAX_TEMPLATE_IN` a side before it is laid out;
    ``source`` starts the one-line message (the file or option it came from).

    >>> from referee.markers.roster import TemplateTag
    >>> big = TerrainTemplate("r1", "river", ((0, 0), (800, 0), (800, 600)), (TemplateTag(1),))
    >>> check_template_size(big, "shape.json")
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: shape.json: template r1 spans 800 x 600 in; a template is ...
    """
    length, width = template_span(template)
    if max(length, width) > MAX_TEMPLATE_IN:
        raise RefereeError(
            f"{source}: template {template.id} spans {length:g} x {width:g} in; a template is "
            f"at most {MAX_TEMPLATE_IN:g} in a side (print a longer road or river as sections)"
        )


def _turned_tag(
    dictionary: str, tag: int, size_pt: float, cx: float, cy: float, heading: float
) -> tuple[Shape, ...]:
    """A tag's black cells centred at (cx, cy) with its front towards ``heading`` on the page
    (a white square under them: the quiet zone over whatever the template is painted)."""
    # tag_shapes draws the front up the page (heading -90); turn it the rest of the way.
    turn = math.radians(heading + 90.0)
    c, s = math.cos(turn), math.sin(turn)

    def turned(x: float, y: float) -> tuple[float, float]:
        dx, dy = x - cx, y - cy
        return (cx + dx * c - dy * s, cy + dx * s + dy * c)

    outer = TagLayout(size_pt, marker_bits(dictionary)).outer / 2
    quiet = Polygon(tuple(turned(cx + a * outer, cy + b * outer) for a, b in _SQUARE), gray=1.0)
    cells: list[Shape] = [quiet]
    for fill in tag_shapes(dictionary, tag, size_pt, cx, cy):
        for x, y, w, h in fill.rects:
            cells.append(
                Polygon((turned(x, y), turned(x + w, y), turned(x + w, y + h), turned(x, y + h)))
            )
    return tuple(cells)


_SQUARE = ((-1, -1), (1, -1), (1, 1), (-1, 1))


def _template_shapes(
    template: TerrainTemplate,
    dictionary: str,
    tag_size_in: float,
    origin: tuple[float, float],
) -> tuple[list[Shape], list[PrintedTag], list[tuple[float, float]]]:
    """The template drawn with its frame's origin at ``origin`` (points): shapes, its tags
    (on page 0: the caller knows the page) and the outline's points."""
    ox, oy = origin
    outline = [(ox + f * PT_PER_IN, oy + r * PT_PER_IN) for f, r in template.outline]
    shapes: list[Shape] = [Line(tuple(outline), width=1.0, closed=True)]
    size_pt = tag_size_in * PT_PER_IN
    tags = []
    for t in template.tags:
        cx, cy = ox + t.at[0] * PT_PER_IN, oy + t.at[1] * PT_PER_IN
        shapes.extend(_turned_tag(dictionary, t.tag, size_pt, cx, cy, t.heading))
        below = TagLayout(size_pt, marker_bits(dictionary)).outer / 2 * math.sqrt(2) + 8
        shapes.append(Text(cx, cy + below, f"tag {t.tag}", 6, "center", gray=0.3))
        tags.append(PrintedTag(0, t.tag, template.id, (cx, cy), size_pt, t.heading % 360.0))
    # The name in the middle of the outline's box, away from the tags as far as it can be.
    xs, ys = [p[0] for p in outline], [p[1] for p in outline]
    label = f"{template.id} ({template.terrain})"
    if template.name:
        label = f"{template.name}: {label}"
    width = max(max(xs) - min(xs) - 8, 20)
    mid = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    spot = min(
        ((mid[0], mid[1] + dy) for dy in (0, 24, -24, 48, -48)),
        key=lambda p: (
            -min(
                (math.hypot(p[0] - c[0], p[1] - c[1]) for c in (t.center for t in tags)), default=0
            )
        ),
    )
    shapes.append(Text(spot[0], spot[1], fit_text(label, width, 8, True), 8, "center", True, 0.3))
    return shapes, tags, outline


def terrain_sheet(
    templates: Sequence[TerrainTemplate],
    dictionary: str,
    page: str = "letter",
    tag_size_in: float = DEFAULT_TAG_SIZE_IN,
) -> TerrainSheet:
    """Lay ``templates`` out at exact size: small ones packed, big ones tiled over sheets.

    ``tag_size_in`` is for templates whose roster entry gives no ``tag_size``.
    """
    if not templates:
        raise RefereeError("no terrain templates to print")
    for template in templates:
        check_template_size(template, "terrain templates")
    width, height = page_size(page)
    area = (MARGIN, MARGIN + _HEADER_H, width - 2 * MARGIN, height - 2 * MARGIN - _HEADER_H)
    ax, ay, aw, ah = area
    bits = marker_bits(dictionary)
    title = f"referee terrain templates, {dictionary}"
    per_page: list[list[Shape]] = []
    printed_tags: list[PrintedTag] = []
    outlines: list[PrintedOutline] = []

    sizes = {t.id: t.tag_size or tag_size_in for t in templates}

    def box(t: TerrainTemplate) -> tuple[float, float]:
        f0, r0, f1, r1 = _bounds(t, sizes[t.id], bits)
        return ((f1 - f0) * PT_PER_IN + 2 * _PAD, (r1 - r0) * PT_PER_IN + 2 * _PAD)

    def sheets(t: TerrainTemplate) -> int:
        bw, bh = box(t)
        return _tiles(bw, aw) * _tiles(bh, ah)

    # Each template the way round that takes fewest sheets (a long side down the page).
    templates = [min((t, _turned(t)), key=sheets) for t in templates]
    bounds = {t.id: _bounds(t, sizes[t.id], bits) for t in templates}

    small = [t for t in templates if box(t)[0] <= aw and box(t)[1] <= ah]
    big = [t for t in templates if t not in small]
    for template, (index, x, y) in zip(
        small, Shelf(area, 6.0).place([box(t) for t in small]), strict=True
    ):
        while len(per_page) <= index:
            per_page.append([])
        f0, r0, _, _ = bounds[template.id]
        origin = (x + _PAD - f0 * PT_PER_IN, y + _PAD - r0 * PT_PER_IN)
        shapes, tags, outline = _template_shapes(template, dictionary, sizes[template.id], origin)
        per_page[index].extend(shapes)
        printed_tags.extend(replace(tag, page=index) for tag in tags)
        outlines.append(PrintedOutline(index, template.id, tuple(outline), 1))
    step_w, step_h = aw - OVERLAP_IN * PT_PER_IN, ah - OVERLAP_IN * PT_PER_IN
    for template in big:
        bw, bh = box(template)
        columns, rows = _tiles(bw, aw), _tiles(bh, ah)
        f0, r0, _, _ = bounds[template.id]
        first = len(per_page)
        for row in range(rows):
            for column in range(columns):
                index = len(per_page)
                # This tile shows the template's box from (column * step_w, row * step_h).
                origin = (
                    ax + _PAD - f0 * PT_PER_IN - column * step_w,
                    ay + _PAD - r0 * PT_PER_IN - row * step_h,
                )
                shapes, tags, outline = _template_shapes(
                    template, dictionary, sizes[template.id], origin
                )
                inside = [t for t in tags if _within(t, area)]
                printed_tags.extend(replace(t, page=index) for t in inside)
                if index == first:
                    outlines.append(
                        PrintedOutline(index, template.id, tuple(outline), rows * columns)
                    )
                page_shapes: list[Shape] = [
                    Clipped(area, tuple(s for s in shapes if not isinstance(s, Clipped)))
                ]
                page_shapes.extend(_overlap_marks(area, row, column, rows, columns))
                name = f"{template.id}: sheet {row * columns + column + 1} of {rows * columns}"
                page_shapes.append(
                    Text(
                        ax + aw,
                        ay - 4,
                        f"{name} (row {row + 1}, column {column + 1})",
                        7,
                        "right",
                        True,
                    )
                )
                per_page.append(page_shapes)
    pages = []
    for index, shapes in enumerate(per_page):
        header: list[Shape] = [
            Text(MARGIN, MARGIN + 10, title, 10, bold=True),
            Text(width - MARGIN, MARGIN + 10, f"page {index + 1}/{len(per_page)}", 8, "right"),
            Text(MARGIN, MARGIN + 22, fit_text(INSTRUCTIONS, width - 2 * MARGIN, 7), 7),
        ]
        bars, _ = scale_bars(MARGIN, MARGIN + 30)
        pages.append(Page((width, height), (*header, *bars, *shapes)))
    return TerrainSheet(tuple(pages), tuple(printed_tags), tuple(outlines), title)


def _tiles(length: float, room: float) -> int:
    """Sheets needed along one side: ``room`` points each, overlapping by the overlap."""
    step = room - OVERLAP_IN * PT_PER_IN
    return 1 if length <= room else math.ceil((length - room) / step) + 1


def _turned(template: TerrainTemplate) -> TerrainTemplate:
    """The same template drawn a quarter turn round: its forward down the page."""
    return replace(
        template,
        outline=tuple((-r, f) for f, r in template.outline),
        tags=tuple(
            replace(t, at=(-t.at[1], t.at[0]), heading=(t.heading + 90.0) % 360.0)
            for t in template.tags
        ),
    )


def _within(tag: PrintedTag, area: tuple[float, float, float, float]) -> bool:
    """Whether a tag's black square is whole on a tile (a cut tag is printed on the next)."""
    ax, ay, aw, ah = area
    (cx, cy), half = tag.center, tag.size / 2
    return ax <= cx - half and cx + half <= ax + aw and ay <= cy - half and cy + half <= ay + ah


def _overlap_marks(
    area: tuple[float, float, float, float], row: int, column: int, rows: int, columns: int
) -> list[Shape]:
    """Dashed lines where the next sheet's edge goes (right and below), and a frame."""
    ax, ay, aw, ah = area
    lap = OVERLAP_IN * PT_PER_IN
    marks: list[Shape] = [rect_outline(ax, ay, aw, ah, width=0.3, gray=0.7)]
    if column + 1 < columns:
        x = ax + aw - lap
        marks.append(Line(((x, ay), (x, ay + ah)), width=0.6, dash=(4, 3)))
        marks.append(
            Text(x - 2, ay + ah - 4, f"sheet {row * columns + column + 2} starts here", 6, "right")
        )
    if row + 1 < rows:
        y = ay + ah - lap
        marks.append(Line(((ax, y), (ax + aw, y)), width=0.6, dash=(4, 3)))
        marks.append(
            Text(ax + 2, y - 3, f"sheet {(row + 1) * columns + column + 1} starts here", 6)
        )
    return marks


def shaped_outline(kind: str, length: float, width: float) -> tuple[tuple[float, float], ...]:
    """An outline of ``kind`` in a ``length`` x ``width`` inch box centred on the origin
    (length along the template's forward): a wood's wavy edge, a hill's oval contour, a
    river's winding band, a rectangle for a building footprint, a road and anything else.

    >>> shaped_outline("building", 4, 2)
    ((-2.0, -1.0), (2.0, -1.0), (2.0, 1.0), (-2.0, 1.0))
    """
    a, b = length / 2, width / 2
    if kind in ("woods", "hill", "rough", "difficult", "water"):
        n = 32
        # Woods get a gentle wave on the oval, full size at its four ends (the size given).
        wave = 0.05 if kind == "woods" else 0.0
        points = []
        for k in range(n):
            t = 2 * math.pi * k / n
            s = (1 - wave) + wave * math.cos(8 * t)
            points.append(
                (round(a * s * math.cos(t), 4) + 0.0, round(b * s * math.sin(t), 4) + 0.0)
            )
        return tuple(points)
    if kind == "river":
        n = 12
        # A section that winds a quarter of its width each way and ends square.
        mid = [
            (-a + length * k / n, 0.25 * b * math.sin(2 * math.pi * k / n)) for k in range(n + 1)
        ]
        half = 0.75 * b
        top = [(round(f, 4), round(r - half, 4)) for f, r in mid]
        bottom = [(round(f, 4), round(r + half, 4)) for f, r in reversed(mid)]
        return tuple(top + bottom)
    return ((-a, -b), (a, -b), (a, b), (-a, b))


def tag_places(length: float, width: float, tag_outer: float) -> tuple[tuple[float, float], ...]:
    """Where a made-up template's tags go: one in the middle, or two along a long one (more
    chances one is seen when a model stands on it), a quarter of its length from each end.

    >>> tag_places(12, 3, 1.1)
    ((-3.0, 0.0), (3.0, 0.0))
    """
    if length >= 10.0 and length / 4 > tag_outer:
        return ((-length / 4, 0.0), (length / 4, 0.0))
    return ((0.0, 0.0),)


__all__ = [
    "MAX_TEMPLATE_IN",
    "OVERLAP_IN",
    "PrintedOutline",
    "PrintedTag",
    "TerrainSheet",
    "check_template_size",
    "shaped_outline",
    "tag_places",
    "template_span",
    "terrain_sheet",
]
