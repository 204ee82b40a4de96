"""Vector drawing for printables: one page description, two outputs.

Every printable (tag sheets, unit cards, calibration boards) is laid out once
as a :class:`Page` of simple shapes in PDF points (1/72 in), origin at the
page's top-left corner and y growing down the page like image rows. The same
page is then written to PDF with reportlab (:func:`write_pdf`) or painted into
a numpy image (:func:`rasterize`) so tests can run the real detectors on
exactly what gets printed.

Marker and QR cells are filled rectangles, never bitmaps, so a printer
reproduces their edges at its full resolution. PDFs are written in reportlab's
invariant mode without stream compression: the same input gives the same bytes.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.errors import RefereeError

PT_PER_IN = 72.0
PT_PER_MM = 72.0 / 25.4

#: Page sizes in points, portrait (width, height): exactly reportlab's and the PDF standard's.
PAGE_SIZES: dict[str, tuple[float, float]] = {
    "letter": (612.0, 792.0),
    "a4": (210 * PT_PER_MM, 297 * PT_PER_MM),
}

#: Margin kept clear on every side: most home printers cannot print closer to the edge.
MARGIN = 0.5 * PT_PER_IN

#: Grey of cut lines: visible for the knife, too light to be mistaken for a tag edge.
CUT_GRAY = 0.55

Rect = tuple[float, float, float, float]
"""(x, y, width, height) in points, (x, y) the top-left corner."""
Point = tuple[float, float]


@dataclass(frozen=True)
class Fill:
    """Axis-aligned rectangles filled as one path, so touching cells print without seams."""

    rects: tuple[Rect, ...]
    gray: float = 0.0
    """0 = black, 1 = white."""


@dataclass(frozen=True)
class Polygon:
    """A filled polygon (arrows)."""

    points: tuple[Point, ...]
    gray: float = 0.0


@dataclass(frozen=True)
class Line:
    """A stroked polyline: cut lines, scale-bar outlines."""

    points: tuple[Point, ...]
    width: float = 0.5
    gray: float = 0.0
    dash: tuple[float, ...] = ()
    """On/off lengths in points; empty for a solid line."""
    closed: bool = False


@dataclass(frozen=True)
class Text:
    """One line of Helvetica; (x, y) is the baseline at the left, centre or right end.

    Characters outside Windows-1252 (which the built-in PDF fonts cover) print as "?".
    """

    x: float
    y: float
    text: str
    size: float = 8.0
    align: str = "left"
    bold: bool = False
    gray: float = 0.0


@dataclass(frozen=True)
class Clipped:
    """Shapes drawn only inside a rectangle (a tile of a template bigger than the page)."""

    rect: Rect
    shapes: tuple[Fill | Polygon | Line | Text, ...]


Shape = Fill | Polygon | Line | Text | Clipped


@dataclass(frozen=True)
class Page:
    """One page: its size in points and what is drawn on it, in drawing order."""

    size: tuple[float, float]
    shapes: tuple[Shape, ...]


def page_size(name: str) -> tuple[float, float]:
    """Portrait size in points of ``letter`` or ``a4`` (case-insensitive).

    >>> page_size("A4")[0] / PT_PER_MM
    210.0
    """
    size = PAGE_SIZES.get(name.lower())
    if size is None:
        raise RefereeError(f"unknown page size {name!r}; use letter or a4")
    return size


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Printed width of ``text`` in points."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return float(stringWidth(text, _font(bold), size))


def fit_text(text: str, width: float, size: float, bold: bool = False) -> str:
    """``text`` cut short with an ellipsis so it fits in ``width`` points.

    >>> fit_text("a very long piece name indeed", 40, 8)
    'a very lo…'
    """
    if text_width(text, size, bold) <= width:
        return text
    while text and text_width(text + "…", size, bold) > width:
        text = text[:-1]
    return text + "…" if text else ""


def cell_rects(dark: NDArray[np.bool_], x: float, y: float, cell: float) -> tuple[Rect, ...]:
    """Rectangles covering the True cells of a grid whose top-left is (x, y).

    Runs of dark cells in a row merge into one rectangle: fewer PDF operators and
    no hairline between neighbours on screen viewers.

    >>> cell_rects(np.array([[1, 1, 0], [0, 1, 1]], bool), 0, 0, 10)
    ((0.0, 0.0, 20.0, 10.0), (10.0, 10.0, 20.0, 10.0))
    """
    rects: list[Rect] = []
    grid = np.asarray(dark, dtype=bool)
    for row in range(grid.shape[0]):
        col = 0
        while col < grid.shape[1]:
            if grid[row, col]:
                start = col
                while col < grid.shape[1] and grid[row, col]:
                    col += 1
                rects.append(
                    (
                        float(x + start * cell),
                        float(y + row * cell),
                        float((col - start) * cell),
                        float(cell),
                    )
                )
            else:
                col += 1
    return tuple(rects)


def rect_outline(
    x: float,
    y: float,
    w: float,
    h: float,
    *,
    width: float = 0.5,
    gray: float = 0.0,
    dash: tuple[float, ...] = (),
) -> Line:
    """A closed rectangle outline (cut lines, frames)."""
    corners = ((x, y), (x + w, y), (x + w, y + h), (x, y + h))
    return Line(corners, width=width, gray=gray, dash=dash, closed=True)


def scale_bars(x: float, y: float) -> tuple[tuple[Shape, ...], float]:
    """A 4 in bar and a 100 mm bar, stacked, top-left at (x, y); returns shapes and height.

    Alternate segments (1 in, 10 mm) are black so a ruler can check any of them.
    """
    shapes: list[Shape] = []
    bar_h = 5.0
    row = 0.0
    for unit, step, count, name in ((PT_PER_IN, 1, 4, "in"), (PT_PER_MM, 10, 10, "mm")):
        top = y + row
        seg = step * unit
        shapes.append(
            Fill(tuple((x + i * seg, top, seg, bar_h) for i in range(0, count, 2)), gray=0.0)
        )
        shapes.append(rect_outline(x, top, count * seg, bar_h, width=0.4))
        for i in range(count + 1):
            if name == "mm" and i % 5:
                continue
            shapes.append(Text(x + i * seg, top + bar_h + 7, str(i * step), size=6, align="center"))
        shapes.append(
            Text(
                x + count * seg + 8,
                top + bar_h,
                f"{count * step} {name}: measure to check the print scale",
                size=6,
            )
        )
        row += bar_h + 12
    return tuple(shapes), row


def up_arrow(cx: float, top: float, height: float) -> Polygon:
    """A filled arrow pointing up the page (to the model's front), tip at (cx, top)."""
    head = height * 0.55
    half_head = height * 0.4
    half_stem = height * 0.13
    return Polygon(
        (
            (cx, top),
            (cx + half_head, top + head),
            (cx + half_stem, top + head),
            (cx + half_stem, top + height),
            (cx - half_stem, top + height),
            (cx - half_stem, top + head),
            (cx - half_head, top + head),
        )
    )


@dataclass(frozen=True)
class Shelf:
    """Places boxes of different sizes on pages left to right, top to bottom."""

    area: Rect
    """Usable region of each page."""
    gap: float

    def place(self, sizes: Sequence[tuple[float, float]]) -> list[tuple[int, float, float]]:
        """(page index, x, y) of each box's top-left corner.

        Raises :class:`RefereeError` for a box larger than the usable area.
        """
        ax, ay, aw, ah = self.area
        out: list[tuple[int, float, float]] = []
        page, x, y, shelf_h = 0, ax, ay, 0.0
        for w, h in sizes:
            if w > aw + 1e-9 or h > ah + 1e-9:
                raise RefereeError(
                    f"an item of {w / PT_PER_IN:.2f} x {h / PT_PER_IN:.2f} in does not fit the "
                    f"printable area of {aw / PT_PER_IN:.2f} x {ah / PT_PER_IN:.2f} in; "
                    "use a smaller size or a larger page"
                )
            if x + w > ax + aw + 1e-9:
                x, y, shelf_h = ax, y + shelf_h + self.gap, 0.0
            if y + h > ay + ah + 1e-9:
                page, x, y, shelf_h = page + 1, ax, ay, 0.0
            out.append((page, x, y))
            x += w + self.gap
            shelf_h = max(shelf_h, h)
        return out


def _font(bold: bool) -> str:
    return "Helvetica-Bold" if bold else "Helvetica"


def pdf_bytes(pages: Iterable[Page], title: str) -> bytes:
    """The PDF for ``pages``; identical input gives identical bytes."""
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1, pageCompression=0)
    canvas.setTitle(title)
    canvas.setAuthor("referee")
    canvas.setCreator("referee (table referee)")
    for page in pages:
        width, height = page.size
        canvas.setPageSize((width, height))
        for shape in page.shapes:
            _draw(canvas, shape, height)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def write_pdf(pages: Sequence[Page], path: str | os.PathLike[str], title: str) -> None:
    """Write ``pages`` to ``path`` (via a temporary file, so a failure leaves no half PDF)."""
    target = Path(path)
    if target.suffix.lower() != ".pdf":
        raise RefereeError(f"{target}: output must be a .pdf file")
    data = pdf_bytes(pages, title)
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except OSError as error:
        with contextlib.suppress(OSError):  # its folder may be a file: nothing to remove
            tmp.unlink(missing_ok=True)
        raise RefereeError(
            f"{target}: cannot write PDF ({error.strerror}); choose another --out"
        ) from None


def _draw(c: Any, shape: Shape, height: float) -> None:
    # c is a reportlab Canvas (an untyped library).
    if isinstance(shape, Clipped):
        x, y, w, h = shape.rect
        c.saveState()
        path = c.beginPath()
        path.rect(x, height - y - h, w, h)
        c.clipPath(path, stroke=0, fill=0)
        for inner in shape.shapes:
            _draw(c, inner, height)
        c.restoreState()
    elif isinstance(shape, Fill):
        path = c.beginPath()
        for x, y, w, h in shape.rects:
            path.rect(x, height - y - h, w, h)
        c.setFillGray(shape.gray)
        c.drawPath(path, stroke=0, fill=1)
    elif isinstance(shape, Polygon):
        path = c.beginPath()
        (x0, y0), *rest = shape.points
        path.moveTo(x0, height - y0)
        for x, y in rest:
            path.lineTo(x, height - y)
        path.close()
        c.setFillGray(shape.gray)
        c.drawPath(path, stroke=0, fill=1)
    elif isinstance(shape, Line):
        path = c.beginPath()
        (x0, y0), *rest = shape.points
        path.moveTo(x0, height - y0)
        for x, y in rest:
            path.lineTo(x, height - y)
        if shape.closed:
            path.close()
        c.setStrokeGray(shape.gray)
        c.setLineWidth(shape.width)
        c.setDash(list(shape.dash) if shape.dash else [])
        c.drawPath(path, stroke=1, fill=0)
    else:
        c.setFillGray(shape.gray)
        c.setFont(_font(shape.bold), shape.size)
        y = height - shape.y
        # The built-in PDF fonts cover Windows-1252 only; show "?" rather than black boxes.
        text = shape.text.encode("cp1252", "replace").decode("cp1252")
        if shape.align == "center":
            c.drawCentredString(shape.x, y, text)
        elif shape.align == "right":
            c.drawRightString(shape.x, y, text)
        else:
            c.drawString(shape.x, y, text)


def rasterize(page: Page, dpi: float = 300.0) -> NDArray[np.uint8]:
    """Paint the page into a grayscale image (white paper, 255) at ``dpi``.

    Filled rectangles cover exactly the pixels whose centres they contain, so a
    marker cell of ``n`` whole pixels comes out exactly ``n`` pixels wide.
    Polygons and lines are drawn with OpenCV; text is left out (it is for people,
    and no detector should depend on it).
    """
    scale = dpi / PT_PER_IN
    width, height = page.size
    image = np.full((round(height * scale), round(width * scale)), 255, dtype=np.uint8)
    _paint(image, page.shapes, scale)
    return image


def _paint(image: NDArray[np.uint8], shapes: Iterable[Shape], scale: float) -> None:
    """Draw ``shapes`` into ``image`` (pixels per point: ``scale``), in order."""
    shift = 8
    for shape in shapes:
        if isinstance(shape, Clipped):
            x, y, w, h = shape.rect
            c0, c1 = (max(math.floor(round(v * scale, 6) + 0.5), 0) for v in (x, x + w))
            r0, r1 = (max(math.floor(round(v * scale, 6) + 0.5), 0) for v in (y, y + h))
            inner = image.copy()
            _paint(inner, shape.shapes, scale)
            image[r0:r1, c0:c1] = inner[r0:r1, c0:c1]
        elif isinstance(shape, Fill):
            value = round(shape.gray * 255)
            for x, y, w, h in shape.rects:
                # Pixel i covers [i, i+1); it is inside when its centre i+0.5 is.
                # Edges shared by neighbouring rectangles, computed along different float
                # paths, must land on the same pixel: round away the float noise first.
                c0, c1 = (math.floor(round(v * scale, 6) + 0.5) for v in (x, x + w))
                r0, r1 = (math.floor(round(v * scale, 6) + 0.5) for v in (y, y + h))
                image[max(r0, 0) : max(r1, 0), max(c0, 0) : max(c1, 0)] = value
        elif isinstance(shape, Polygon):
            pts = np.round((np.array(shape.points) * scale - 0.5) * (1 << shift)).astype(np.int32)
            cv2.fillPoly(image, [pts], round(shape.gray * 255), cv2.LINE_8, shift)
        elif isinstance(shape, Line):
            pts = np.round((np.array(shape.points) * scale - 0.5) * (1 << shift)).astype(np.int32)
            thickness = max(1, round(shape.width * scale))
            cv2.polylines(
                image, [pts], shape.closed, round(shape.gray * 255), thickness, cv2.LINE_8, shift
            )
