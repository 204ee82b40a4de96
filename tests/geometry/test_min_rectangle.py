"""The smallest rectangle around a terrain outline: its sides are what the rules measure."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.geometry import min_rectangle


def test_the_long_side_comes_first_with_its_heading() -> None:
    assert min_rectangle([[0, 0], [1, 0], [1, 3], [0, 3]]) == (3.0, 1.0, 90.0)


@pytest.mark.parametrize("turn", [0.0, 17.0, 45.0, 120.0])
def test_a_turned_rectangle_keeps_its_sides(turn: float) -> None:
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    box = np.array([[0, 0], [4, 0], [4, 1.5], [0, 1.5]], float) @ np.array([[c, s], [-s, c]])
    long, short, heading = min_rectangle(box + np.array([10.0, 5.0]))
    assert (long, short) == pytest.approx((4.0, 1.5), abs=1e-6)
    assert heading == pytest.approx(turn % 180.0, abs=1e-6)


def test_a_degenerate_outline_has_no_size() -> None:
    assert min_rectangle([[2, 2], [2, 2], [2, 2]]) == (0.0, 0.0, 0.0)
