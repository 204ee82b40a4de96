from __future__ import annotations

import numpy as np
import pytest

from referee.tags.board import BoardSpec, parse_length


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("charuco:5x7:0.04m:0.02m:DICT_6X6_250", (5, 7, 0.04, 0.02, "DICT_6X6_250", False)),
        ("CHARUCO:5X7:40mm:20mm:dict_6x6_250", (5, 7, 0.04, 0.02, "DICT_6X6_250", False)),
        ("charuco:8x11:1in:0.75in:DICT_5X5_100", (8, 11, 0.0254, 0.01905, "DICT_5X5_100", False)),
        ("charuco:6x8:3cm:2.2cm:DICT_4X4_50:legacy", (6, 8, 0.03, 0.022, "DICT_4X4_50", True)),
    ],
)
def test_parse_spec(text: str, expected: tuple[object, ...]) -> None:
    spec = BoardSpec.parse(text)
    got = (spec.columns, spec.rows, spec.square_m, spec.marker_m, spec.dictionary, spec.legacy)
    assert got[:2] == expected[:2] and got[4:] == expected[4:]
    assert got[2] == pytest.approx(expected[2]) and got[3] == pytest.approx(expected[3])
    assert BoardSpec.parse(spec.to_string()) == spec


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("charuco:5x7:0.04m:DICT_6X6_250", "needs 5 fields"),
        ("chessboard:5x7:0.04m:0.02m:DICT_6X6_250", "must start with 'charuco:'"),
        ("charuco:5by7:0.04m:0.02m:DICT_6X6_250", "COLUMNSxROWS"),
        ("charuco:5x7:0.04:0.02m:DICT_6X6_250", "needs a unit"),
        ("charuco:5x7:4furlong:0.02m:DICT_6X6_250", "cannot read length"),
        ("charuco:5x7:0.02m:0.04m:DICT_6X6_250", "must be smaller than its square"),
        ("charuco:5x7:0.04m:0.02m:DICT_9X9_1", "unknown tag dictionary"),
        ("charuco:1x2:0.04m:0.02m:DICT_6X6_250", "at least 2x3"),
        ("charuco:20x20:0.04m:0.02m:DICT_4X4_50", "has only 50"),
    ],
)
def test_bad_spec_messages(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        BoardSpec.parse(text)


def test_lengths_and_inches() -> None:
    assert parse_length("2 in") == pytest.approx(0.0508)
    spec = BoardSpec.parse("charuco:5x7:25.4mm:12.7mm:DICT_6X6_250")
    assert spec.square_in() == pytest.approx(1.0)
    assert spec.square_in(inch_mm=25.0) == pytest.approx(25.4 / 25.0)
    assert spec.marker_in() == pytest.approx(0.5)
    assert spec.with_square(0.0254 * 1.1).marker_in() == pytest.approx(0.55)


def test_cv_board_geometry() -> None:
    spec = BoardSpec.parse("charuco:5x7:0.04m:0.02m:DICT_6X6_250")
    board = spec.cv_board()
    corners = np.asarray(board.getChessboardCorners())
    assert corners.shape == (spec.corner_count, 3)
    assert corners[:, 0].max() == pytest.approx(0.04 * 4)
    assert corners[:, 1].max() == pytest.approx(0.04 * 6)
    assert len(board.getIds()) == spec.marker_count == 17
