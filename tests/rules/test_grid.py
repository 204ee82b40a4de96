"""The grid layer: hexes, squares and zones laid over the table, as properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.geometry import point_in_polygon
from referee.rules.grid import HexGrid, SquareGrid, ZoneGrid

coords = st.integers(-30, 30)
cells = st.tuples(coords, coords)
frames = st.tuples(
    st.floats(0.5, 3.0),  # size
    st.floats(-20, 20).map(lambda v: round(v, 6)),  # corner x
    st.floats(-20, 20).map(lambda v: round(v, 6)),  # corner y
    st.floats(0, 360).map(lambda v: round(v, 6)),  # rotation
)


def _grids(size: float, x: float, y: float, rotation: float) -> list:
    return [
        HexGrid(size, x, y, rotation),
        SquareGrid(size, x, y, rotation),
        SquareGrid(size, x, y, rotation, diagonal="free"),
        ZoneGrid(size, x, y, rotation, count=8, across=30.0),
    ]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(frames, cells)
def test_the_cell_of_a_cell_centre_is_that_cell_and_certain(frame, cell) -> None:
    for grid in _grids(*frame):
        c = (cell[0], 0) if isinstance(grid, ZoneGrid) else cell
        x, y = grid.centre(c)
        assert grid.cell_at(x, y) == c
        place = grid.place(x, y, 0.0)
        assert place.cells == (c,) and place.certain
        # The centre is inside the cell's outline, the margin is the inscribed radius.
        assert point_in_polygon((x, y), grid.outline(c), strict=True)
        if isinstance(grid, HexGrid):
            assert place.margin == pytest.approx(grid.size / 2)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(cells, cells, cells)
def test_hex_distance_is_a_metric_and_neighbours_are_one_apart(a, b, c) -> None:
    g = HexGrid()
    assert g.distance(a, b) == g.distance(b, a) >= 0
    assert (g.distance(a, b) == 0) == (a == b)
    assert g.distance(a, c) <= g.distance(a, b) + g.distance(b, c)
    for side in range(6):
        n = g.neighbour(a, side)
        assert g.distance(a, n) == 1
        # The neighbour across side k lies at rotation + 60k degrees.
        (ax, ay), (nx, ny) = g.centre(a), g.centre(n)
        assert math.degrees(math.atan2(ny - ay, nx - ax)) % 360 == pytest.approx(
            60 * side, abs=1e-6
        )
        assert math.hypot(nx - ax, ny - ay) == pytest.approx(g.size)
    assert g.distances(np.array(a), np.array(b)) == g.distance(a, b)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(frames, st.floats(-50, 50), st.floats(-50, 50), st.floats(0, 360), st.floats(-30, 30))
def test_moving_the_table_and_the_mat_together_changes_no_cell(frame, px, py, turn, shift) -> None:
    """Rotating and shifting every point and the mat's corner alike maps each point to the
    same cell (with the same doubt), and headings to the same hex sides."""
    size, x, y, rotation = frame
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))

    def move(u: float, v: float) -> tuple[float, float]:
        return c * u - s * v + shift, s * u + c * v - shift

    for a, b in zip(
        _grids(size, x, y, rotation), _grids(size, *move(x, y), rotation + turn), strict=True
    ):
        pa, pb = a.place(px, py, 0.3), b.place(*move(px, py), 0.3)
        if pa.margin > 1e-6:  # exactly on a border either cell may come first
            assert pa.cell == pb.cell
        assert set(pa.cells) == set(pb.cells)
        assert pa.margin == pytest.approx(pb.margin, abs=1e-6)
    hexes, turned = HexGrid(size, x, y, rotation), HexGrid(size, *move(x, y), rotation + turn)
    for heading in (0.0, 17.0, 30.0, 95.0, 270.0):
        assert set(hexes.sides(heading, 2.0)) == set(turned.sides(heading + turn, 2.0))


def test_doubt_reaching_over_a_border_gives_both_cells() -> None:
    g = HexGrid(1.5)
    x, y = g.centre((3, 2))
    edge = x + 0.75  # the border with (4, 2) along side 0
    assert g.place(edge - 0.05, y, 0.04).cells == ((3, 2),)
    assert g.place(edge - 0.05, y, 0.06).cells == ((3, 2), (4, 2))
    assert g.place(edge, y, 0.0).certain is False  # on the border: either hex
    # Near a corner three hexes meet.
    corner = g.outline((3, 2))[0]
    assert len(g.place(*corner, 0.01).cells) == 3
    squares = SquareGrid(1.0)
    assert set(squares.place(2.0, 2.0, 0.01).cells) == {(1, 1), (1, 2), (2, 1), (2, 2)}
    zones = ZoneGrid(5.0, count=8, across=28)
    assert zones.place(9.9, 14, 0.2).cells == ((1, 0), (2, 0))
    assert zones.label((1, 0)) == "zone 2"


@pytest.mark.parametrize(
    ("diagonal", "want"),
    [("none", [1, 2, 4, 7]), ("free", [1, 1, 2, 4]), ("alternate", [1, 1, 3, 5])],
)
def test_square_distance_follows_the_diagonal_rule(diagonal: str, want: list[int]) -> None:
    g = SquareGrid(1.0, diagonal=diagonal)
    steps = [(1, 0), (1, 1), (2, 2), (3, 4)]
    assert [g.distance((0, 0), s) for s in steps] == want
    with pytest.raises(ValueError, match="diagonal"):
        SquareGrid(1.0, diagonal="knight")


def test_hex_sides_rows_crossings_and_arcs() -> None:
    g = HexGrid(1.5, rotation=10.0)
    assert g.sides(10.0) == (0,)
    assert g.sides(40.0) == (1, 0) or g.sides(40.0) == (0, 1)  # half way: both
    assert g.sides(41.0) == (1,) and g.sides(41.0, 2.0) == (1, 0)
    assert g.side_heading(3) == 190.0
    assert g.ahead((0, 0), 0, (5, 0)) == 5 and g.ahead((0, 0), 0, (5, -1)) is None
    assert g.ahead((0, 0), 3, (-2, 0)) == 2 and g.ahead((0, 0), 0, (0, 0)) is None
    # A line between hex centres along a border meets the hexes beside it at depth 0.
    cells = np.array([(1, 0), (1, -1), (2, 0)])
    depth = g.crossing_depth(np.array([(0, 0)]), np.array([(2, -1)]), cells)[0]
    assert depth[:2] == pytest.approx([0, 0], abs=1e-9) and depth[2] < 0
    # Arc edges (30 deg off the facing) count; 40.9 deg does not.
    assert g.in_arc((0, 0), 0, (1, 1), 60.0) and not g.in_arc((0, 0), 0, (1, 2), 60.0)
    assert g.in_arc((0, 0), 3, (-4, 1), 60.0) and not g.in_arc((0, 0), 0, (0, 0), 60.0)


def test_cover_lists_the_cells_whose_centre_is_on_the_table() -> None:
    g = HexGrid(1.5)
    cover = g.cover(48, 36)
    centres = np.array([g.centre(c) for c in cover])
    assert centres.min() >= 0 and centres[:, 0].max() <= 48 and centres[:, 1].max() <= 36
    assert len(set(cover)) == len(cover)
    # Every hex centre on the table is listed (checked on a fine lattice of points).
    xs, ys = np.meshgrid(np.arange(0.37, 48, 0.5), np.arange(0.41, 36, 0.5))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    hit = {tuple(int(v) for v in c) for c in g.cells_at(pts)}
    inside = {c for c in hit if 0 <= g.centre(c)[0] <= 48 and 0 <= g.centre(c)[1] <= 36}
    assert inside <= set(cover)
    assert ZoneGrid(5.0, count=8, across=28).cover(40, 28) == [(k, 0) for k in range(8)]


def test_a_grid_needs_a_positive_size() -> None:
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="cell size"):
            HexGrid(bad)
