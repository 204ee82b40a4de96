"""Tag sheets: exact physical geometry in the PDF, and tags a detector reads back."""

from __future__ import annotations

import numpy as np
import pytest

from referee.errors import RefereeError
from referee.markers.pdf import PAGE_SIZES, PT_PER_IN, PT_PER_MM, rasterize, write_pdf
from referee.markers.sheets import (
    ANCHOR_SIZE_IN,
    TagPrint,
    anchor_sheet,
    auto_tag_size,
    parse_ids,
    parse_size,
    piece_tags,
    tag_sheet,
)
from referee.tags.layout import TagLayout, anchor_ids


def _bbox(rects):
    xs = [x for _, (x, _, w, _) in rects] + [x + w for _, (x, _, w, _) in rects]
    ys = [y for _, (_, y, _, h) in rects] + [y + h for _, (_, y, _, h) in rects]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.parametrize("page", ["letter", "a4"])
def test_pdf_page_size_is_exactly_the_paper(tmp_path, read_pdf, page):
    sheet = tag_sheet(piece_tags(range(60), 0.8, "DICT_4X4_100"), page=page)
    write_pdf(sheet.pages, tmp_path / "t.pdf", sheet.title)
    pages = read_pdf(tmp_path / "t.pdf")
    assert len(pages) == len(sheet.pages) >= 2
    expected = {"letter": (612.0, 792.0), "a4": (595.2756, 841.8898)}[page]
    for p in pages:
        assert p.size == pytest.approx(expected, abs=1e-4)
    assert PAGE_SIZES["a4"][0] == pytest.approx(210 / 25.4 * 72)


@pytest.mark.parametrize(("size_in", "dictionary"), [(0.8, "DICT_4X4_100"), (0.5, "DICT_5X5_50")])
def test_drawn_marker_has_the_exact_physical_size(tmp_path, read_pdf, size_in, dictionary):
    sheet = tag_sheet(piece_tags([3, 7], size_in, dictionary), dictionary)
    write_pdf(sheet.pages, tmp_path / "t.pdf", sheet.title)
    (page,) = read_pdf(tmp_path / "t.pdf")
    layout = TagLayout(size_in * PT_PER_IN, bits=int(dictionary[5]))
    for placed in sheet.placed:
        cx, cy = placed.center
        half_outer = layout.outer / 2
        inside = [
            (g, r)
            for g, r in page.fills
            if cx - half_outer < r[0] < cx + half_outer and cy - half_outer < r[1] < cy + half_outer
        ]
        assert inside and all(g == 0 for g, _ in inside)
        x0, y0, x1, y1 = _bbox(inside)
        # The black square: exactly size_in wide and high (PDF numbers carry 4 decimals).
        assert x1 - x0 == pytest.approx(size_in * 72, abs=2e-4)
        assert y1 - y0 == pytest.approx(size_in * 72, abs=2e-4)
        assert ((x0 + x1) / 2, (y0 + y1) / 2) == pytest.approx(placed.center, abs=2e-4)
        # Every cell edge lies on the marker's cell grid.
        cell = layout.cell
        for _, (x, y, w, h) in inside:
            for value in ((x - x0) / cell, (y - y0) / cell, w / cell, h / cell):
                assert value == pytest.approx(round(value), abs=1e-4)


def test_scale_bars_measure_4_inches_and_100_mm(tmp_path, read_pdf):
    sheet = tag_sheet(piece_tags([0], 0.8, "DICT_4X4_100"))
    write_pdf(sheet.pages, tmp_path / "t.pdf", sheet.title)
    (page,) = read_pdf(tmp_path / "t.pdf")
    bar_rows = {}
    for gray, (x, y, w, h) in page.fills:
        if gray == 0 and h == pytest.approx(5.0):
            bar_rows.setdefault(round(y, 3), []).append((x, w))
    inch_row, mm_row = (sorted(v) for _, v in sorted(bar_rows.items()))
    # Black segments alternate with white ones: first at 0, last ends one segment before the end.
    assert [w for _, w in inch_row] == pytest.approx([72.0] * 2, abs=1e-4)
    assert inch_row[-1][0] + 2 * 72 - inch_row[0][0] == pytest.approx(4 * 72, abs=1e-3)
    assert [w for _, w in mm_row] == pytest.approx([10 * PT_PER_MM] * 5, abs=1e-4)
    assert mm_row[-1][0] + 2 * 10 * PT_PER_MM - mm_row[0][0] == pytest.approx(
        100 * PT_PER_MM, abs=1e-3
    )


@pytest.mark.parametrize(
    ("dictionary", "ids", "size_in"),
    [("DICT_4X4_100", range(0, 96, 3), 0.8), ("DICT_6X6_250", [0, 99, 243], 0.6)],
)
def test_rasterised_sheet_is_read_back_by_the_aruco_detector(detect_tags, dictionary, ids, size_in):
    sheet = tag_sheet(piece_tags(list(ids), size_in, dictionary), dictionary)
    dpi = 150
    found: dict[int, np.ndarray] = {}
    for index, page in enumerate(sheet.pages):
        seen = detect_tags(rasterize(page, dpi), dictionary)
        expected = {p.tag for p in sheet.placed if p.page == index}
        assert set(seen) == expected
        found.update(seen)
    for placed in sheet.placed:
        corners = found[placed.tag] / (dpi / 72)
        # Detected corners are pixel centres; the printed square spans whole pixels.
        assert corners.mean(axis=0) == pytest.approx(
            np.array(placed.center) - 0.5 * 72 / dpi, abs=0.6
        )
        side = np.linalg.norm(corners[1] - corners[0])
        assert side == pytest.approx(placed.size, rel=0.03)
        # The printed top (the model's front) is the top edge on the page, under the arrow.
        assert corners[0][1] < corners[3][1] and corners[1][1] < corners[2][1]
        assert corners[0][0] < corners[1][0]


def test_anchor_sheet_prints_the_reserved_ids_large_with_their_corners(
    detect_tags, tmp_path, read_pdf
):
    sheet = anchor_sheet("DICT_4X4_100")
    assert [p.tag for p in sheet.placed] == [96, 97, 98, 99] == list(anchor_ids("DICT_4X4_100"))
    assert [p.size for p in sheet.placed] == pytest.approx([ANCHOR_SIZE_IN * 72] * 4)
    seen = set()
    for page in sheet.pages:
        seen |= set(detect_tags(rasterize(page, 72), "DICT_4X4_100"))
    assert seen == {96, 97, 98, 99}
    write_pdf(sheet.pages, tmp_path / "a.pdf", sheet.title)
    text = " ".join(t for p in read_pdf(tmp_path / "a.pdf") for t in p.texts)
    for corner in ("(0, 0)", "(width, 0)", "(width, depth)", "(0, depth)"):
        assert corner in text
    assert "1.5 in from both table edges" in text
    assert "table from above, x (width)" in text  # the corner diagram


def test_labels_outside_the_pdf_base_fonts_print_as_question_marks(tmp_path, read_pdf):
    sheet = tag_sheet([TagPrint(1, 0.8, "Т-34 ✓")])
    write_pdf(sheet.pages, tmp_path / "t.pdf", sheet.title)
    assert "1  ?-34 ?" in read_pdf(tmp_path / "t.pdf")[0].texts


def test_anchor_ids_are_refused_as_piece_tags():
    with pytest.raises(RefereeError, match="reserved for the corner anchors"):
        piece_tags([10, 97], 0.8, "DICT_4X4_100")
    with pytest.raises(RefereeError, match="outside DICT_4X4_50"):
        piece_tags([50], 0.8, "DICT_4X4_50")


@pytest.mark.parametrize(
    ("text", "ids"),
    [("10-13", (10, 11, 12, 13)), ("1,3,5-7", (1, 3, 5, 6, 7)), (" 4 , 2-3,4", (2, 3, 4))],
)
def test_parse_ids(text, ids):
    assert parse_ids(text) == ids


@pytest.mark.parametrize("text", ["", "a-b", "3-1", "1..4", "-2"])
def test_parse_ids_refuses_nonsense(text):
    with pytest.raises(RefereeError, match="--ids"):
        parse_ids(text)


@pytest.mark.parametrize(
    ("text", "inches"), [("0.8in", 0.8), ("20mm", 20 / 25.4), ("2cm", 2 / 2.54)]
)
def test_parse_size(text, inches):
    assert parse_size(text) == pytest.approx(inches)


@pytest.mark.parametrize("text", ["0.8", "big", "0mm", "-1in"])
def test_parse_size_refuses_nonsense(text):
    with pytest.raises(RefereeError, match="--size"):
        parse_size(text)


@pytest.mark.parametrize(
    ("table", "camera"),
    [((48, 36), (1920, 1080)), ((72, 48), (3840, 2160)), ((36, 36), (1280, 720))],
)
def test_auto_size_is_the_smallest_step_reaching_5_px_per_cell(table, camera):
    size, px = auto_tag_size(table, camera)
    assert px >= 5.0
    # One step smaller would fall short of 5 px per cell.
    assert px * (size - 0.05) / size < 5.0


def test_oversized_tag_is_refused_with_advice():
    with pytest.raises(RefereeError, match="does not fit"):
        tag_sheet(piece_tags([1], 9.0, "DICT_4X4_100"))
