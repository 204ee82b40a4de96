"""Pz8 Space lines of sight on big and awkward tables: the all-pairs map's broad phase
(:meth:`HexGrid.lines_near`) against testing every line against every asteroid hex."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from referee.rules import find_ruleset, ruleset_for
from referee.rules.grid import HexGrid
from referee.rules.grid_sight import TOUCH
from referee.rules.grid_sight import meeting_codes as _rock_codes
from referee.rules.pz8_grid_games import Pz8Space
from referee.scene import Scene
from referee.sim.tables import random_table

from .lattice import hex_lattice


def _space_table(n: int, uncertainty: float, seed: int) -> Scene:
    """The benchmark's kind of table: ``n`` pieces anywhere on 72 x 48 inches, a third
    of them asteroids, every 20th destroyed."""
    return random_table(n, 0, uncertainty, seed, ruleset="pz8-space")


def _lattice_lines(rnd: random.Random, g: HexGrid) -> tuple[np.ndarray, ...]:
    """Segments between hex centres from a few starts, many along hex sides and rows
    (the degenerate bearings), and hexes on and beside them."""
    steps = [(1, 1), (1, -2), (2, -1), (1, 0), (0, 1), (-1, 1)]
    a_cells, b_cells, group = [], [], []
    for start in range(12):
        a = (rnd.randint(-8, 8), rnd.randint(-8, 8))
        for _ in range(40):
            if rnd.random() < 0.4:
                dq, dr = rnd.choice(steps)
                n = rnd.randint(-9, 9)
                b = (a[0] + n * dq, a[1] + n * dr)
            else:
                b = (rnd.randint(-12, 12), rnd.randint(-12, 12))
            a_cells.append(a)
            b_cells.append(b)
            group.append(start * 3)
    hexes = [(q, r) for q in range(-14, 15) for r in range(-14, 15) if rnd.random() < 0.3]
    A = g.local_centres(np.array(a_cells))
    B = g.local_centres(np.array(b_cells))
    return A, B, np.array(group), g.local_centres(np.array(hexes))


@pytest.mark.parametrize("seed", range(6))
def test_lines_near_finds_every_hex_a_line_meets_and_only_deep_ones_as_deep(seed: int) -> None:
    rnd = random.Random(seed)
    g = HexGrid(size=rnd.choice([1.0, 1.5, 2.3]))
    A, B, group, C = _lattice_lines(rnd, g)
    if seed % 2:  # off the lattice: any starts and ends, a start shared by its group
        A = A + rnd.uniform(-1, 1)
        B = B + np.array([[rnd.uniform(-1, 1), rnd.uniform(-1, 1)] for _ in B])
    depth = g.local_depths(A[:, None, :], B[:, None, :], C[None, :, :])
    # Some hexes belong to a piece at a segment's start (shared by its group) or end.
    owner = np.array([rnd.randrange(40) for _ in C])
    ends = (group // 3, np.array([rnd.randrange(40) for _ in A]))
    k, m, deep = g.lines_near(A, B, group, C, ends, owner)
    found = set(zip(k.tolist(), m.tolist(), strict=True))
    assert len(found) == len(k)  # each pair once
    own = (owner[None, :] == ends[0][:, None]) | (owner[None, :] == ends[1][:, None])
    assert not own[k, m].any()
    meets = {(int(a), int(b)) for a, b in np.argwhere((depth >= -1e-7) & ~own)}
    assert meets <= found
    assert (depth[k[deep], m[deep]] > 1e-7).all()
    # Something of each kind: deep crossings, edge runs (depth 0) and near misses.
    assert deep.any() and (~deep).any() and (seed % 2 or (np.abs(depth) <= TOUCH).any())


def _all_pairs_by_brute_force(rules: Pz8Space, scene: Scene) -> np.ndarray:
    """`los_code`'s verdicts for every pair, every line tested against every asteroid hex."""
    pieces = scene.pieces
    g = rules.grid(scene.table)
    places = [rules.place(scene, p) for p in pieces]
    rocks = [
        k
        for k, p in enumerate(pieces)
        if p.state != "destroyed" and rules.category(p) == "asteroid"
    ]
    out = np.zeros((len(pieces), len(pieces)), np.int8)
    if not rocks:
        return out
    rows = np.array([c for k in rocks for c in places[k].cells])
    owner = np.array([k for k in rocks for _ in places[k].cells])
    certain = np.array([places[k].certain for k in rocks for _ in places[k].cells])
    for a, b in itertools.combinations(range(len(pieces)), 2):
        ways = list(itertools.product(places[a].cells, places[b].cells))
        depth = g.crossing_depth(
            np.array([w[0] for w in ways]), np.array([w[1] for w in ways]), rows
        )
        codes = np.where((owner == a) | (owner == b), 0, _rock_codes(depth, certain)).max(axis=1)
        out[a, b] = out[b, a] = 2 if codes.min() == 2 else (1 if codes.max() >= 1 else 0)
    return out


@pytest.mark.parametrize(
    ("n", "uncertainty", "settings"),
    [
        (160, 0.02, {}),
        # The other two tables are the slow sweep's (.ci/run runs them).
        pytest.param(120, 0.3, {"grid_rotation": 30.0, "grid_x": 1.3}, marks=pytest.mark.slow),
        pytest.param(140, 0.0, {"grid_rotation": 17.0}, marks=pytest.mark.slow),
    ],
)
def test_big_table_all_pairs_map_is_the_brute_force_one(
    n: int, uncertainty: float, settings: dict
) -> None:
    scene = _space_table(n, uncertainty, seed=n)
    rules = find_ruleset("pz8-space", **settings)
    assert isinstance(rules, Pz8Space)
    vis = rules.visibility(scene)
    assert np.array_equal(vis.los, _all_pairs_by_brute_force(rules, scene))
    assert (vis.los == 2).sum() > 500 and (vis.los == 1).any()


def test_lattice_table_all_pairs_agree_with_the_single_questions() -> None:
    """Pieces on hex centres, corners and side midpoints: lines along hex sides, through
    corners and through asteroid centres along a row, doubts reaching several hexes."""
    scene = hex_lattice(7, 30.0, count=36, centres=2)
    rules = ruleset_for(scene)
    vis = rules.visibility(scene)
    for a, b in itertools.combinations(scene.pieces, 2):
        verdict = rules.answer(scene, {"ask": "los", "from": a.id, "to": b.id})
        assert vis.los_of(a.id, b.id) == vis.los_of(b.id, a.id) == verdict.los, (a.id, b.id)
        assert vis.distance[vis.ids.index(a.id), vis.ids.index(b.id)] == verdict.distance
    assert {0, 1, 2} <= set(np.unique(vis.los).tolist())
    assert not np.isnan(vis.distance).any()
