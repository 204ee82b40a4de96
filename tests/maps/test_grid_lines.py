"""The compiled worst-hex loop (:meth:`HexGrid.line_codes`, :mod:`referee.maps.grid_lines`)
against numpy's form (:meth:`HexGrid.lines_near` and :meth:`HexGrid.local_depths`) on
random grid tables: lines between hex centres (many along hex sides and rows, the depth
exactly 0) and lines off the lattice."""

from __future__ import annotations

import random

import numpy as np
import pytest

from referee.maps.grid_lines import line_codes
from referee.rules import grid
from referee.rules.grid import HexGrid

TOUCH = 1e-9


def _table(seed: int) -> tuple[HexGrid, tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """A grid, segments ``(A, B, group)`` from a few shared starts and hexes
    ``(C, certain, owner)``, with who is at each segment's ends."""
    rnd = random.Random(seed)
    g = HexGrid(size=rnd.choice([1.0, 1.5, 2.3]))
    steps = [(1, 1), (1, -2), (2, -1), (1, 0), (0, 1), (-1, 1)]
    a_cells, b_cells, group = [], [], []
    for start in range(10):
        a = (rnd.randint(-8, 8), rnd.randint(-8, 8))
        for _ in range(50):
            if rnd.random() < 0.4:  # along a row or a side: depth 0 into the hexes beside
                dq, dr = rnd.choice(steps)
                n = rnd.randint(-9, 9)
                b = (a[0] + n * dq, a[1] + n * dr)
            else:
                b = (rnd.randint(-12, 12), rnd.randint(-12, 12))
            a_cells.append(a)
            b_cells.append(b)
            group.append(start * 2)
    hexes = [(q, r) for q in range(-14, 15) for r in range(-14, 15) if rnd.random() < 0.25]
    A = g.local_centres(np.array(a_cells))
    B = g.local_centres(np.array(b_cells))
    if seed % 2:  # off the lattice, the mat far from the table's corner
        A = A + rnd.uniform(-1, 1) + 40.0
        B = B + np.array([[rnd.uniform(-1, 1) + 40.0, rnd.uniform(-1, 1)] for _ in B])
        B[::7] = A[::7]  # some of no length
    C = g.local_centres(np.array(hexes)) + (40.0 if seed % 2 else 0.0)
    certain = np.array([rnd.random() < 0.7 for _ in hexes])
    owner = np.array([rnd.randrange(30) for _ in hexes])
    ends = (np.array(group) // 2, np.array([rnd.randrange(30) for _ in a_cells]))
    return g, (A, B, np.array(group)), (C, certain, owner, *ends)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("owned", [True, False])
def test_compiled_codes_are_numpys(seed: int, owned: bool) -> None:
    g, (A, B, group), (C, certain, owner, first, last) = _table(seed)
    ends, owners = ((first, last), owner) if owned else (None, None)
    want = g.line_codes(A, B, group, C, certain, TOUCH, ends, owners, compiled=False)
    got = g.line_codes(A, B, group, C, certain, TOUCH, ends, owners)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert {0, 1, 2} <= set(want.tolist())


@pytest.mark.parametrize("seed", range(4))
def test_pairs_near_a_threshold_go_to_numpy(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a margin wider than any hex, every pair is numpy's to judge: the same codes,
    and the pairs handed back are every pair :meth:`HexGrid.lines_near` finds."""
    g, (A, B, group), (C, certain, owner, first, last) = _table(seed)
    want = g.line_codes(A, B, group, C, certain, TOUCH, (first, last), owner, compiled=False)
    monkeypatch.setattr(grid, "ROUNDING", 1.0)
    assert np.array_equal(g.line_codes(A, B, group, C, certain, TOUCH, (first, last), owner), want)
    windows = g._bearing_windows(A, B, group, C, (first, last), owner)
    codes, k, m = line_codes(
        windows, grid.BEARING_BINS, (A, B, last), (C, certain, owner, g.size), TOUCH, 1e9
    )
    assert not codes.any()
    near_k, near_m, _ = g.lines_near(A, B, group, C, (first, last), owner)
    some = np.flatnonzero((A[near_k] != B[near_k]).any(axis=1))  # none meets a hex
    near_k, near_m = near_k[some], near_m[some]
    assert len(near_k) > 1000 and set(zip(near_k.tolist(), near_m.tolist(), strict=True)) <= set(
        zip(k.tolist(), m.tolist(), strict=True)
    )


def test_no_segments_or_no_hexes() -> None:
    g = HexGrid(1.5)
    none = np.zeros((0, 2))
    C = g.local_centres(np.array([[1, 0]]))
    assert g.line_codes(none, none, np.zeros(0, np.int64), C, np.ones(1, bool), TOUCH).shape == (0,)
    A = g.local_centres(np.array([[0, 0]]))
    codes = g.line_codes(A, A + 3, np.zeros(1, np.int64), none, np.zeros(0, bool), TOUCH)
    assert codes.tolist() == [0]
