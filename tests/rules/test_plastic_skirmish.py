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


# -- terrain placement: 6in-2ft a side, 2ft from the same player's previous piece -----------


def _box(tid: str, kind: str, x0: float, y0: float, w: float, h: float) -> Terrain:
    return Terrain(tid, kind, ((x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)))


@pytest.mark.parametrize(
    ("w", "h", "gap", "ok"),
    [
        (6.0, 24.0, 24.0, True),  # the smallest and largest sides, exactly 2ft apart
        (5.99, 12.0, 30.0, False),  # a side under 6in
        (12.0, 24.01, 30.0, False),  # a side over 2ft
        (10.0, 10.0, 23.99, False),  # within 2ft of the previous piece
    ],
)
def test_terrain_placement(w: float, h: float, gap: float, ok: bool) -> None:
    first = _box("first", "hill", 2, 2, 10, 10)
    new = _box("new", "woods", 12 + gap, 2, w, h)
    scene = _scene([], first, new)
    verdict = _ask(scene, {"ask": "placement", "terrain": "new", "previous": "first"})
    assert verdict.ok is ok
    doubtful = {"ask": "placement", "terrain": "new", "previous": ["first"], "uncertainty": 0.01}
    assert _ask(scene, doubtful).ok is None  # every case is within 0.01in of a limit


# -- the scenarios' distance conditions ------------------------------------------------------


@pytest.mark.parametrize(
    ("y", "doubt", "ok"),
    [(33.5, 0.0, False), (33.51, 0.0, True), (33.51, 0.02, None)],
)
def test_no_brits_within_3in_of_the_centre(y: float, doubt: float, ok: bool | None) -> None:
    brit = Piece("b", "brit", "rifle guy", 48, y, uncertainty=doubt)  # base edge at y - 0.5
    other = Piece("g", "germ", "rifle guy", 48, 30)  # a German on the centre does not count
    scene = _scene([brit, other])
    query = {"ask": "within", "side": "brit", "of": "centre", "distance": 3, "want": "none"}
    assert _ask(scene, query).ok is ok


@pytest.mark.parametrize(("x", "ok"), [(70.0, True), (70.01, False)])
def test_within_6in_of_the_road_and_of_a_group(x: float, ok: bool) -> None:
    road = _box("road", "road", 60, 0, 4, 60)
    jeep = Piece("j", "germ", "jeep", x + 1, 20, base=(1, 2))  # base from x to x + 2
    scene = _scene([jeep], road)
    assert _ask(scene, {"ask": "within", "pieces": ["j"], "of": "road", "distance": 6}).ok is ok
    # A group of touching figures: the distance is to its nearest member.
    g1 = Piece("g1", "brit", "rifle guy", 10, 10)
    g2 = Piece("g2", "brit", "rifle guy", 11, 10)  # touches g1
    far = Piece("f", "germ", "rifle guy", 24 + (x - 70.0), 10)  # 12in from g2's edge
    scene = _scene([g1, g2, far])
    query = {"ask": "within", "pieces": "f", "of": "g1", "distance": 12}
    assert _ask(scene, query).ok is ok
    assert _ask(scene, {**query, "want": "any"}).ok is ok


def test_within_1ft_of_a_point_any_and_all() -> None:
    a = Piece("a", "brit", "rifle guy", 48, 18.5)  # 11in from (48, 30) to its edge
    b = Piece("b", "brit", "rifle guy", 48, 50)
    scene = _scene([a, b])
    base = {"ask": "within", "side": "brit", "of": {"x": 48, "y": 30}, "distance": 12}
    assert _ask(scene, base).ok is False
    assert _ask(scene, {**base, "want": "any"}).ok is True
    only_a = {k: v for k, v in base.items() if k != "side"} | {"pieces": ["a"]}
    assert _ask(scene, only_a).ok is True
