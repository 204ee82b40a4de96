"""Random tables for the rules: bases drawn apart stand apart, as on a real table."""

from __future__ import annotations

import itertools

import pytest

from referee.geometry import polygons_overlap
from referee.scene import Scene
from referee.sim import tables
from referee.sim.tables import random_table


def _overlapping(scene: Scene) -> int:
    return sum(
        polygons_overlap(a.corners(), b.corners())
        for a, b in itertools.combinations(scene.pieces, 2)
    )


@pytest.mark.slow  # a sweep of random tables
def test_bases_drawn_apart_never_overlap_and_keep_the_table_otherwise() -> None:
    free = random_table(150, 10, 0.02, seed=5, ruleset="papercraft")
    apart = random_table(150, 10, 0.02, seed=5, ruleset="papercraft", apart=True)
    assert _overlapping(free) > 0  # drawn independently, a crowded table overlaps
    assert _overlapping(apart) == 0
    assert len(apart.pieces) == 150
    assert apart.terrain == free.terrain  # terrain is drawn first, the same either way
    assert [p.id for p in apart.pieces] == [p.id for p in free.pieces]
    assert [p.state for p in apart.pieces] == [p.state for p in free.pieces]
    assert {p.base for p in apart.pieces} == {(1.5, 2.5)}


def test_the_same_seed_draws_the_same_table_apart() -> None:
    assert random_table(60, 0, 0.0, seed=2, apart=True) == random_table(
        60, 0, 0.0, seed=2, apart=True
    )


def test_a_table_too_full_to_stand_apart_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    # With three draws a piece, 400 bases (43% of the table) soon find no room.
    monkeypatch.setattr(tables, "_TRIES", 3)
    with pytest.raises(ValueError, match=r"no room for piece .* ask for fewer pieces"):
        random_table(400, 0, 0.0, apart=True)
