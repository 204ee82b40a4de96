"""WWII Plastic Skirmish rules beyond the golden files: dust clouds (issue 29 item 6)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.rules import Verdict, ruleset_for
from referee.scene import Piece, Scene, Table, Terrain
from referee.sim.tables import star_outline

DUST = {"sight_limit": 12.0}


def _scene(pieces: list[Piece], *terrain: Terrain, **settings: Any) -> Scene:
    return Scene("plastic-skirmish", Table(96, 60), tuple(pieces), terrain, settings=settings)


def _ask(scene: Scene, query: dict[str, Any]) -> Verdict:
    return ruleset_for(scene).answer(scene, query)


# -- dust clouds: nobody sees beyond 12in, so LOS beyond it is blocked (RULES.md 2) ---------


@pytest.mark.parametrize(
    ("gap", "doubt", "los"),
    [
        (12.0, 0.0, "clear"),  # exactly 12in between the bases: seen
        (11.99, 0.0, "clear"),
        (12.01, 0.0, "blocked"),  # beyond: the dust blocks, with nothing between
        (12.01, 0.02, "doubtful"),  # within the doubt of 12in
        (30.0, 0.0, "blocked"),
    ],
)
def test_dust_clouds_block_los_beyond_12in(gap: float, doubt: float, los: str) -> None:
    # 1in bases 'gap' apart edge to edge (range is measured between the nearest points).
    a = Piece("a", "us", "rifle guy", 10, 10, uncertainty=doubt / 2)
    b = Piece("b", "de", "rifle guy", 11 + gap, 10, uncertainty=doubt / 2)
    scene = _scene([a, b], **DUST)
    verdict = _ask(scene, {"ask": "los", "from": "a", "to": "b"})
    assert verdict.los == los
    assert verdict.ok is {"clear": True, "blocked": False, "doubtful": None}[los]
    if los != "clear":
        assert any("dust clouds: nobody sees farther than 12in" in r for r in verdict.reasons)
    if los == "blocked":
        assert verdict.details["blocking"] == ["dust"]
    # Range was already capped at 12in the same way: the two agree.
    shot = _ask(scene, {"ask": "range", "from": "a", "to": "b"})
    assert shot.ok is verdict.ok and shot.limit == 12.0
    # Without dust the line is clear at any distance on an empty table.
    clear = _scene([a, b])
    assert _ask(clear, {"ask": "los", "from": "a", "to": "b"}).los == "clear"


def test_dust_does_not_clear_a_line_blocked_by_terrain() -> None:
    a = Piece("a", "us", "rifle guy", 10, 10)
    b = Piece("b", "de", "rifle guy", 18, 10)
    wood = Terrain("w", "woods", ((13, 5), (15, 5), (15, 15), (13, 15)))
    verdict = _ask(_scene([a, b], wood, **DUST), {"ask": "los", "from": "a", "to": "b"})
    assert verdict.los == "blocked" and verdict.details["blocking"] == ["w"]


def _random_table(seed: int, u: float) -> Scene:
    rnd = random.Random(seed)
    terrain = tuple(
        Terrain(
            f"t{k}",
            rnd.choice(["woods", "building", "hill"]),
            star_outline(rnd.uniform(5, 90), rnd.uniform(5, 55), [rnd.uniform(1.5, 5)] * 5),
        )
        for k in range(5)
    )
    pieces = [
        Piece(
            f"p{k}",
            rnd.choice("ab"),
            rnd.choice(["rifle guy", "mg guy", "tank", "jeep"]),
            rnd.uniform(0, 40),
            rnd.uniform(0, 30),
            rnd.choice([0.0, 90.0, rnd.uniform(0, 360)]),
            rnd.choice([(1.0, 1.0), (1.5, 2.5)]),
            uncertainty=u * rnd.random(),
        )
        for k in range(18)
    ]
    return _scene(pieces, *terrain, **DUST)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("u", [0.0, 0.3])
def test_dust_all_pairs_map_agrees_with_single_los(seed: int, u: float) -> None:
    scene = _random_table(seed, u)
    rules = ruleset_for(scene)
    vis = rules.visibility(scene)
    names = ("clear", "doubtful", "blocked")
    dusty = 0
    for i, a in enumerate(vis.ids):
        for j, b in enumerate(vis.ids):
            if i == j:
                continue
            single = rules.answer(scene, {"ask": "los", "from": a, "to": b}).los
            assert names[vis.los[i, j]] == single, (a, b)
            dusty += vis.distance[i, j] > 12.5
    assert dusty > 20  # the dust decides many of these pairs
