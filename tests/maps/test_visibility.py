"""The all-pairs map against the single questions: on the golden files, random tables,
crowded tables and forests, every pair's LOS code and distance are the ones the single
``los`` and ``range`` questions answer (the engine's promise, :mod:`referee.maps`).
Most tables of each sweep are marked slow (``.ci/run`` runs them); the default run keeps
a few of each."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import pytest

from referee.rules import QueryError, ruleset_for
from referee.rules.cli import EXAMPLE
from referee.scene import Piece, Scene, Table, Terrain, load_scene
from referee.sim.tables import star_outline

from .sweep import sweep

DATA = Path(__file__).resolve().parents[1] / "data"


def _scene(*pieces: Piece, terrain: tuple[Terrain, ...] = ()) -> Scene:
    return Scene("paper-tigers", Table(48, 36), tuple(pieces), terrain)


def _agree(scene: Scene) -> None:
    rules = ruleset_for(scene)
    vis = rules.visibility(scene)
    for a, b in itertools.combinations(scene.pieces, 2):
        los = rules.answer(scene, {"ask": "los", "from": a.id, "to": b.id}).los
        assert vis.los_of(a.id, b.id) == los, (a.id, b.id)
        assert (
            vis.los_of(b.id, a.id)
            == rules.answer(scene, {"ask": "los", "from": b.id, "to": a.id}).los
        )
        try:
            rng = rules.answer(scene, {"ask": "range", "from": a.id, "to": b.id}).distance
        except QueryError:  # an unarmed piece (a Pz8 truck) has no range to ask about
            continue
        want = math.inf if rng is None else rng  # None: every edge-to-edge line is blocked
        assert vis.distance[vis.ids.index(a.id), vis.ids.index(b.id)] == pytest.approx(want)


GOLDEN = sorted(DATA.glob("*/*.json"))
SMALLEST = {
    min(GOLDEN, key=lambda p: (p.parent != d, p.stat().st_size)) for d in {p.parent for p in GOLDEN}
}
"""Each system's smallest golden file: the default run's sample (the others are slow)."""


@pytest.mark.parametrize(
    "path",
    [EXAMPLE, *sorted(SMALLEST), *sweep(sorted(set(GOLDEN) - SMALLEST), 0)],
    ids=lambda p: f"{p.parent.name}/{p.stem}",
)
def test_all_pairs_visibility_agrees_with_single_questions(path: Path) -> None:
    _agree(load_scene(path))


@pytest.mark.parametrize("seed", sweep(range(6), 2))
def test_all_pairs_visibility_agrees_on_random_tables(seed: int) -> None:
    rnd = random.Random(seed)
    terrain = []
    for k in range(6):
        cx, cy, r = rnd.uniform(5, 43), rnd.uniform(5, 31), rnd.uniform(1.5, 4)
        n = rnd.randint(3, 7)
        pts = star_outline(cx, cy, [r] * n, turn=0.3 * k)
        terrain.append(Terrain(f"t{k}", rnd.choice(["woods", "building", "hill", "road"]), pts))
    pieces = [
        Piece(
            f"p{k}",
            rnd.choice(["a", "b"]),
            rnd.choice(["tank", "infantry", "gun"]),
            rnd.uniform(0, 48),
            rnd.uniform(0, 36),
            rnd.uniform(0, 360),
            (1.5, 2.0),
            state=rnd.choice(["ok", "ok", "destroyed"]),
            uncertainty=rnd.choice([0.0, 0.0, 0.05, 0.3]),
        )
        for k in range(14)
    ]
    _agree(_scene(*pieces, terrain=tuple(terrain)))


@pytest.mark.slow  # a crowded-table sweep; random tables agree in the default run
@pytest.mark.parametrize(
    "system",
    sweep(
        ["paper-tigers", "pz8-ww2", "plastic-skirmish", "pz8-scifi", "pz8-colonial", "pz8-coastal"],
        1,
    ),
)
def test_crowded_table_all_pairs_agree_with_single_questions(system: str) -> None:
    """`visibility` looks up only the lines near each outline and first settles those that
    certainly cross an obstacle deeply; on a crowded table with dead pieces and doubts,
    every line's verdict is still the single `los` question's."""
    rnd = random.Random(system)
    terrain = tuple(
        Terrain(
            f"t{k}",
            rnd.choice(["woods", "building", "hill"]),
            tuple(
                (cx + r * math.cos(2 * math.pi * q / n), cy + r * math.sin(2 * math.pi * q / n))
                for q in range(n)
            ),
        )
        for k, (cx, cy, r, n) in enumerate(
            (rnd.uniform(3, 45), rnd.uniform(3, 33), rnd.uniform(1, 3), rnd.randint(3, 8))
            for _ in range(20)
        )
    )
    kinds = {
        "paper-tigers": ("tank", "infantry"),
        "plastic-skirmish": ("tank", "rifle guy"),
        "pz8-colonial": ("foot", "mounted"),
        "pz8-coastal": ("vosper mtb", "trawler"),
    }
    pieces = tuple(
        Piece(
            f"p{k}",
            rnd.choice(["a", "b"]),
            rnd.choice(kinds.get(system, ("infantry", "apc" if "scifi" in system else "truck"))),
            rnd.uniform(0, 48),
            rnd.uniform(0, 36),
            rnd.uniform(0, 360),
            (1.5, 2.0),
            state="destroyed" if k % 9 == 0 else "ok",
            uncertainty=rnd.choice([0.0, 0.02, 0.3]),
        )
        for k in range(40)
    )
    scene = Scene(system, Table(48, 36), pieces, terrain)
    vis = ruleset_for(scene).visibility(scene)
    assert (vis.los == 2).sum() > 100  # a crowded table: the first pass has work
    _agree(scene)


@pytest.mark.parametrize("system", sweep(["paper-tigers", "pz8-ww2"], 0))  # ~12 s each
def test_forest_table_all_pairs_agree_with_single_questions(system: str) -> None:
    """A forest of touching woods (square and star-shaped) across the table, with pieces
    deep inside it, near its edges and seams, and all around: the map settles the lines
    that cross it deeply at once and reads the rest one by one, and every verdict is
    still the single `los` question's."""
    rnd = random.Random(f"forest-{system}")
    woods = [
        Terrain(
            f"w{k}",
            "woods",
            ((6 + 4.5 * k, 14), (11 + 4.5 * k, 14), (11 + 4.5 * k, 20), (6 + 4.5 * k, 20)),
        )
        for k in range(5)
    ]
    woods += [
        Terrain(f"s{k}", "woods", star_outline(30 + 3.5 * k, 17, [3.0, 1.8] * 4, turn=0.4 * k))
        for k in range(3)
    ]
    spots = [(8.5, 17.0), (10.5, 15.0), (11.0, 17.0), (28.0, 17.0), (31.0, 14.2)]  # in, seams
    spots += [(rnd.uniform(0, 48), rnd.uniform(0, 36)) for _ in range(10)]
    pieces = tuple(
        Piece(
            f"p{k}",
            rnd.choice(["a", "b"]),
            "infantry" if system == "paper-tigers" else rnd.choice(["infantry", "truck"]),
            x,
            y,
            rnd.uniform(0, 360),
            (1.0, 1.0),
            uncertainty=rnd.choice([0.0, 0.02, 0.3]),
        )
        for k, (x, y) in enumerate(spots)
    )
    scene = Scene(system, Table(48, 36), pieces, tuple(woods))
    vis = ruleset_for(scene).visibility(scene)
    assert (vis.los == 2).sum() > 20 and (vis.los == 0).sum() > 20
    _agree(scene)
