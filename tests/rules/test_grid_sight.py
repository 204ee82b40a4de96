"""Line of sight on a grid (issue 37 item 1): a grid game declares what blocks as data
(:class:`CellBlockers`), and :func:`sight_codes` answers both the all-pairs map and the
single ``los`` question, so the two give one code per pair."""

from __future__ import annotations

import numpy as np
import pytest

from referee.rules import ruleset_for
from referee.rules.grid import HexGrid
from referee.rules.grid_sight import BlockingCells, CellBlockers, GridSight, sight_codes
from referee.rules.pz8_grid_games import Pz8Aerial, Pz8Naval, Pz8Space
from referee.scene import Scene
from referee.sim.tables import random_table

from .lattice import hex_lattice


def test_the_systems_declare_what_blocks_as_values() -> None:
    rule = Pz8Space.sight_blockers
    assert isinstance(rule, CellBlockers) and rule.categories == frozenset({"asteroid"})
    assert Pz8Naval.sight_blockers is None and Pz8Aerial.sight_blockers is None
    # The system module defines no line of sight of its own: the grid core's is the one.
    for cls in (Pz8Space, Pz8Naval, Pz8Aerial):
        own = {n for c in cls.__mro__ if c.__module__ == cls.__module__ for n in vars(c)}
        assert not own & {"ask_los", "visibility", "los_code", "_los_all"}
        assert cls.ask_los is GridSight.ask_los and cls.visibility is GridSight.visibility


def test_a_blocker_is_no_obstacle_to_its_own_lines() -> None:
    g = HexGrid(1.5)
    places = [g.place(*g.centre(c)) for c in ((0, 0), (1, 0), (3, 0))]
    i, j = np.array([0, 0]), np.array([1, 2])
    cells = BlockingCells.of(places, [1])
    code, worst = sight_codes(g, places, cells, i, j, who=True)
    assert code.tolist() == [0, 2] and worst is not None and worst.tolist() == [[0], [2]]
    assert sight_codes(g, places, cells, i, j)[0].tolist() == [0, 2]


@pytest.mark.parametrize(
    "scene",
    [
        hex_lattice(1, 0.0),
        hex_lattice(2, 30.0),
        random_table(30, 0, 0.3, seed=5, ruleset="pz8-space"),
        random_table(20, 4, 0.05, seed=6, ruleset="pz8-naval"),
        random_table(20, 4, 0.05, seed=7, ruleset="pz8-aerial"),
    ],
    ids=["lattice", "lattice-turned", "space", "naval", "aerial"],
)
def test_the_map_and_the_single_question_agree_on_every_pair(scene: Scene) -> None:
    rules = ruleset_for(scene)
    vis = rules.visibility(scene)
    for a in scene.pieces:
        for b in scene.pieces:
            if a is b:
                continue
            single = rules.answer(scene, {"ask": "los", "from": a.id, "to": b.id})
            assert vis.los_of(a.id, b.id) == single.los, (a.id, b.id)
            if single.los == "blocked":
                assert single.details["blocking"], (a.id, b.id)
    if scene.ruleset == "pz8-space":
        assert {0, 1, 2} <= set(np.unique(vis.los).tolist())
