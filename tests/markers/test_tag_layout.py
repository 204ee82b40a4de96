"""Tag geometry shared by the printer, the simulator and the detector."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.tags.layout import (
    TagLayout,
    anchor_ids,
    dictionary_names,
    get_dictionary,
    heading_from_corners,
    marker_cells,
)


@pytest.mark.parametrize("heading", [0, 30, 90, 179, 270, 359.5])
def test_heading_from_printed_corners_round_trips(heading):
    corners = TagLayout(0.8).corners(10, 5, heading)
    assert heading_from_corners(corners)[0] == pytest.approx(heading % 360, abs=1e-9)


def test_marker_cells_decode_to_their_own_id():
    # Paint the cells big with a quiet zone and let OpenCV read them back.
    for tag_id in (0, 17, 99):
        cells = marker_cells("DICT_4X4_100", tag_id)
        image = np.kron(cells, np.ones((20, 20))).astype(np.uint8) * 255
        image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
        detector = cv2.aruco.ArucoDetector(get_dictionary("DICT_4X4_100"))
        _, ids, _ = detector.detectMarkers(image)
        assert ids is not None and ids.ravel().tolist() == [tag_id]


def test_layout_dimensions_follow_the_cell_size():
    layout = TagLayout(0.6, bits=4)
    assert layout.cell == pytest.approx(0.1)
    # The cut line is the quiet zone's edge, one cell out: it fits a base of its size + 2 cells.
    assert layout.outer == pytest.approx(0.8)
    assert TagLayout(0.8).outer == pytest.approx(0.8 + 2 * 0.8 / 6)
    assert TagLayout(0.8).outer < 1.1


def test_unknown_dictionary_and_out_of_range_ids_are_refused():
    with pytest.raises(ValueError, match="unknown tag dictionary"):
        get_dictionary("DICT_9X9_1")
    with pytest.raises(ValueError, match="outside DICT_4X4_50"):
        marker_cells("DICT_4X4_50", 50)


def test_anchor_ids_are_the_last_four_of_every_dictionary():
    assert "DICT_6X6_250" in dictionary_names()
    assert anchor_ids("DICT_6X6_250") == (246, 247, 248, 249)
