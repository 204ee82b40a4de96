"""Printables that fit the table: cut size, too-small warnings, anchor and board instructions."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.markers.board_sheet import board_sheet, default_board
from referee.markers.pdf import PT_PER_IN, Line, Polygon, Text, rasterize
from referee.markers.sheets import anchor_sheet, piece_tags, size_warning, tag_sheet
from referee.tags.detect import TagDetector
from referee.tags.layout import TagLayout


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def texts(page) -> list[str]:
    return [s.text for s in page.shapes if isinstance(s, Text)]


@pytest.mark.parametrize(("size_in", "base_in"), [(0.8, 1.0 + 1 / 15), (0.6, 0.8)])
def test_cut_square_fits_a_base_of_the_tag_plus_two_cells(size_in, base_in):
    sheet = tag_sheet(piece_tags([5], size_in, "DICT_4X4_100"))
    (placed,) = sheet.placed
    cx, cy = placed.center
    # The solid (undashed) outline around the tag is the cut line.
    cuts = [
        np.array(s.points)
        for s in sheet.pages[0].shapes
        if isinstance(s, Line) and s.closed and not s.dash
    ]
    sides = [
        float(np.ptp(p[:, 0])) for p in cuts if np.allclose(p.mean(axis=0), (cx, cy), atol=0.01)
    ]
    assert sides == [pytest.approx(base_in * PT_PER_IN)]


def test_cut_tag_is_read_on_a_dark_base():
    """Cut at the line and glued on a dark base, the tag is still found with exact corners."""
    dpi = 200
    sheet = tag_sheet(piece_tags([5], 0.8, "DICT_4X4_100"))
    image = rasterize(sheet.pages[0], dpi)
    (placed,) = sheet.placed
    scale = dpi / PT_PER_IN
    half = TagLayout(0.8).outer * dpi / 2
    cx, cy = (v * scale for v in placed.center)
    cut = image[round(cy - half) : round(cy + half), round(cx - half) : round(cx + half)]
    base = cv2.copyMakeBorder(cut, 30, 30, 30, 30, cv2.BORDER_CONSTANT, value=40)
    small = cv2.resize(base, None, fx=0.2, fy=0.2, interpolation=cv2.INTER_AREA)  # ~5 px/cell
    found = TagDetector().detect_full(small)
    assert found.ids.tolist() == [5]


def test_too_small_tags_warn_with_and_without_a_known_setup(tmp_path):
    out = str(tmp_path / "t.pdf")
    tiny = run("markers", "--ids", "1", "--size", "0.1in", "--out", out)
    assert tiny.exit_code == 0
    assert "referee: warning: 0.1 in (2.5 mm) tags are too small for any camera" in tiny.output
    # 0.8 in is fine somewhere, so no warning without a table and camera...
    assert "warning" not in run("markers", "--ids", "1", "--size", "0.8in", "--out", out).output
    # ...but not on a 48x36 table under a 1080p camera (3.6 px per cell).
    known = ["--table", "48x36", "--camera", "1920x1080", "--out", out]
    small = run("markers", "--ids", "1", "--size", "0.8in", *known)
    assert "referee: warning: 0.8 in (20.3 mm) tags give about 3.6 px per tag cell" in small.output
    assert "print 1.1 in or larger" in small.output
    assert "warning" not in run("markers", "--ids", "1", "--size", "1.1in", *known).output
    assert size_warning(1.1, "DICT_4X4_100", (48, 36), (1920, 1080)) is None


def test_anchor_sheet_says_where_anchors_go_not_the_models_front():
    sheet = anchor_sheet()
    lines = texts(sheet.pages[0])
    assert not any("model's front" in t for t in lines)
    assert any("Glue each anchor at its table corner" in t for t in lines)
    # Piece tag sheets keep their own instructions.
    assert any(
        "arrow to the model's front" in t
        for t in texts(tag_sheet(piece_tags([1], 0.8, "DICT_4X4_100")).pages[0])
    )


@pytest.mark.parametrize("page", ["letter", "a4"])
def test_board_names_marker_0_and_marks_the_origin_corner(page):
    sheet = board_sheet(default_board(page), page)
    shapes = sheet.page.shapes
    label = next(s for s in shapes if isinstance(s, Text) and s.text == "marker 0")
    # The label sits above the board, over the marker OpenCV reads as id 0.
    image = rasterize(sheet.page, 100)
    corners, ids, _ = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_6X6_250)
    ).detectMarkers(image)
    marker0 = corners[list(ids.ravel()).index(0)].reshape(4, 2) * PT_PER_IN / 100
    assert label.y < sheet.origin[1] < marker0[:, 1].min()
    assert abs(label.x - marker0[:, 0].mean()) < 2
    # An arrow points at the grid corner next to marker 0: the table origin.
    arrow = next(s for s in shapes if isinstance(s, Polygon))
    tip = np.array(arrow.points[0])
    assert np.linalg.norm(tip - sheet.origin) < 3
    assert any("table origin" in t for t in texts(sheet.page))
