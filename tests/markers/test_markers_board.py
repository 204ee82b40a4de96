"""The printed calibration board: exact size, OpenCV's pattern, spec readable from its QR."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.errors import RefereeError
from referee.markers.board_sheet import board_sheet, default_board
from referee.markers.pdf import PT_PER_MM, rasterize, write_pdf
from referee.markers.qr import decode_qr
from referee.tags.board import BoardSpec

# (page, spec or None for the page's default, pixels per square giving whole-pixel marker cells)
SPECS = [
    ("letter", None, 80),
    ("a4", None, 80),
    ("letter", "charuco:6x8:25mm:18mm:DICT_5X5_100", 350),
    ("a4", "charuco:5x6:0.03m:0.02m:DICT_6X6_250:legacy", 120),
]


def _sheet(page, text):
    spec = BoardSpec.parse(text) if text else default_board(page)
    return board_sheet(spec, page)


@pytest.mark.parametrize(("page", "text", "px"), SPECS)
def test_board_pattern_matches_opencv_pixel_for_pixel(page, text, px):
    sheet = _sheet(page, text)
    spec = sheet.spec
    dpi = px / (spec.square_m / 0.0254)
    image = rasterize(sheet.page, dpi)
    x0, y0 = (round(v * dpi / 72) for v in sheet.origin)
    ours = image[y0 : y0 + spec.rows * px, x0 : x0 + spec.columns * px]
    reference = spec.cv_board().generateImage(
        (spec.columns * px, spec.rows * px), marginSize=0, borderBits=1
    )
    assert np.count_nonzero(ours != reference) == 0


@pytest.mark.parametrize(("page", "text"), [case[:2] for case in SPECS])
@pytest.mark.usefixtures("opencv_qr")
def test_rasterised_board_is_found_by_the_charuco_detector(page, text):
    sheet = _sheet(page, text)
    image = rasterize(sheet.page, 100)
    detector = cv2.aruco.CharucoDetector(sheet.spec.cv_board())
    _, ids, _, _ = detector.detectBoard(image)
    assert ids is not None and len(ids) == sheet.spec.corner_count
    # The QR code beside the board carries the exact spec.
    assert decode_qr(image) == [sheet.spec.to_string()]


@pytest.mark.parametrize("page", ["letter", "a4"])
def test_board_pdf_geometry(tmp_path, read_pdf, page):
    sheet = _sheet(page, None)
    write_pdf([sheet.page], tmp_path / "b.pdf", sheet.title)
    (pdf,) = read_pdf(tmp_path / "b.pdf")
    assert pdf.size == pytest.approx(
        {"letter": (612, 792), "a4": (595.2756, 841.8898)}[page], abs=1e-4
    )
    spec = sheet.spec
    square = spec.square_m * 1000 * PT_PER_MM
    bx, by = sheet.origin
    squares = [
        r
        for g, r in pdf.fills
        if g == 0 and r[2] == pytest.approx(square, abs=2e-4) and r[3] == r[2]
    ]
    # Half the squares are black (no marker): 17 of 35 on a 5x7 board.
    assert len(squares) == spec.columns * spec.rows - spec.marker_count
    for x, y, _, _ in squares:
        assert (x - bx) / square == pytest.approx(round((x - bx) / square), abs=1e-4)
        assert (y - by) / square == pytest.approx(round((y - by) / square), abs=1e-4)
    xs = [x for x, *_ in squares]
    ys = [y for _, y, *_ in squares]
    assert max(xs) + square - min(xs) == pytest.approx(spec.columns * square, abs=1e-3)
    assert max(ys) + square - min(ys) == pytest.approx(spec.rows * square, abs=1e-3)
    assert any(spec.to_string() in t for t in pdf.texts)


def test_default_boards_fill_the_page_with_whole_millimetre_squares():
    letter, a4 = default_board("letter"), default_board("a4")
    assert (letter.columns, letter.rows, letter.dictionary) == (5, 7, "DICT_6X6_250")
    assert letter.square_m * 1000 == pytest.approx(round(letter.square_m * 1000))
    assert 0.5 <= letter.marker_m / letter.square_m <= 0.75
    assert a4.square_m > letter.square_m  # A4 is taller


def test_board_too_big_for_the_page_is_refused_with_a_size_that_fits():
    spec = default_board("letter").with_square(0.05)
    with pytest.raises(RefereeError, match=r"does not fit a letter page; use --square 30mm"):
        board_sheet(spec, "letter")


@pytest.mark.parametrize("page", ["letter", "a4"])
@pytest.mark.usefixtures("opencv_qr")
def test_board_spec_reads_from_a_tilted_webcam_view(page):
    sheet = _sheet(page, None)
    image = rasterize(sheet.page, 150)
    h, w = image.shape
    tall = 1080 * 0.75  # the sheet fills three quarters of a 1080p picture, seen at an angle
    wide = tall * w / h
    quad = np.float32(
        [
            [960 - wide / 2 + 60, 540 - tall / 2],
            [960 + wide / 2 - 20, 540 - tall / 2 + 30],
            [960 + wide / 2, 540 + tall / 2],
            [960 - wide / 2, 540 + tall / 2 - 10],
        ]
    )
    warp = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad)
    photo = cv2.warpPerspective(image, warp, (1920, 1080), borderValue=90)
    photo = cv2.GaussianBlur(photo, (0, 0), 0.8)
    assert decode_qr(photo) == [sheet.spec.to_string()]
