"""A live table's map (:class:`referee.maps.MapCache`) is made again only when the table
changed. The threat view (``targets``) is the rules' one question: tests/rules/test_targets.py."""

from __future__ import annotations

import dataclasses
import random
import threading

import numpy as np
import pytest

from referee.maps import MapCache
from referee.rules import find_ruleset
from referee.rules.targets import live_visibility
from referee.scene import Scene, Terrain
from referee.sim.tables import SYSTEM_KINDS, random_table


def test_map_cache_makes_the_map_again_only_when_the_table_changed() -> None:
    rules = find_ruleset("paper-tigers")
    scene = random_table(40, 10, 0.02, seed=4)
    cache = MapCache()
    first = live_visibility(rules, cache, scene)
    assert live_visibility(rules, cache, dataclasses.replace(scene)) is first  # an equal table
    assert cache.made == 1
    # A piece moves: the map is made again, and is the fresh map of the new table.
    moved = dataclasses.replace(scene.pieces[7], x=scene.pieces[7].x + 3.0)
    after = dataclasses.replace(scene, pieces=(*scene.pieces[:7], moved, *scene.pieces[8:]))
    got = live_visibility(rules, cache, after)
    want = rules.visibility(after)
    assert cache.made == 2
    assert np.array_equal(got.los, want.los) and np.array_equal(got.distance, want.distance)
    # Terrain edited: made again.
    wood = Terrain("new", "woods", ((30, 20), (40, 20), (40, 30), (30, 30)))
    edited = dataclasses.replace(after, terrain=(*after.terrain, wood))
    assert np.array_equal(live_visibility(rules, cache, edited).los, rules.visibility(edited).los)
    assert cache.made == 3
    assert live_visibility(rules, cache, edited) is live_visibility(rules, cache, edited)
    assert cache.made == 3


def test_map_cache_answers_readers_in_threads() -> None:
    rules = find_ruleset("paper-tigers")
    scenes = [random_table(30, 8, 0.02, seed=s) for s in (1, 2)]
    want = [rules.visibility(s).los for s in scenes]
    cache = MapCache()
    wrong: list[int] = []

    def read(k: int) -> None:
        for step in range(20):
            s = (k + step) % 2
            if not np.array_equal(live_visibility(rules, cache, scenes[s]).los, want[s]):
                wrong.append(s)

    threads = [threading.Thread(target=read, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def _settle(scene: Scene, rng: random.Random, count: int) -> Scene:
    """``count`` pieces moved, turned or changed state, as a frame after they settled."""
    pieces = list(scene.pieces)
    for k in rng.sample(range(len(pieces)), count):
        p = pieces[k]
        change = rng.random()
        if change < 0.6:
            p = dataclasses.replace(
                p,
                x=min(max(p.x + rng.uniform(-6, 6), 1.0), scene.table.width - 1),
                y=min(max(p.y + rng.uniform(-6, 6), 1.0), scene.table.depth - 1),
                heading=rng.uniform(0, 360),
            )
        elif change < 0.8:
            p = dataclasses.replace(p, heading=(p.heading + rng.uniform(-90, 90)) % 360)
        else:
            p = dataclasses.replace(p, state="destroyed" if p.state != "destroyed" else "ok")
        pieces[k] = p
    return dataclasses.replace(scene, pieces=tuple(pieces))


def _incremental_agrees(system: str, seed: int, steps: int) -> int:
    """Frames of one live table through a cache: every map equals the fresh whole map."""
    rng = random.Random(seed)
    scene = random_table(40, 15, 0.02 * (seed % 3), seed=seed, ruleset=system)
    rules = find_ruleset(system)
    cache = MapCache()
    live_visibility(rules, cache, scene)
    for _ in range(steps):
        scene = _settle(scene, rng, rng.choice((1, 1, 2, 3)))
        got, want = live_visibility(rules, cache, scene), rules.visibility(scene)
        assert got.ids == want.ids
        assert np.array_equal(got.los, want.los), (system, seed)
        assert np.array_equal(got.distance, want.distance), (system, seed)
    return cache.reused


@pytest.mark.parametrize(
    "system", ["paper-tigers", "pz8-ww2", "plastic-skirmish", "pz8-divisional"]
)
def test_map_cache_updates_only_changed_lines_as_the_whole_map(system: str) -> None:
    """A piece settles: the map made from the last one's clean lines is the whole map."""
    assert _incremental_agrees(system, 1, 6) > 0


@pytest.mark.slow
@pytest.mark.parametrize("system", SYSTEM_KINDS)
def test_map_cache_incremental_sweep(system: str) -> None:
    for seed in range(2, 6):
        _incremental_agrees(system, seed, 10)


def test_map_cache_remakes_whole_after_terrain_or_pieces_change() -> None:
    rules = find_ruleset("paper-tigers")
    scene = random_table(30, 8, 0.02, seed=9)
    cache = MapCache()
    live_visibility(rules, cache, scene)
    gone = dataclasses.replace(scene, pieces=scene.pieces[1:])  # a piece left the table
    assert np.array_equal(live_visibility(rules, cache, gone).los, rules.visibility(gone).los)
    wood = Terrain("new", "woods", ((30, 20), (40, 20), (40, 30), (30, 30)))
    edited = dataclasses.replace(gone, terrain=(*gone.terrain, wood))
    assert np.array_equal(live_visibility(rules, cache, edited).los, rules.visibility(edited).los)
    assert cache.made == 3 and cache.reused == 0


def test_map_cache_threads_settling_and_reading() -> None:
    """Threads settle pieces of their own tables and read the shared cache: every map a
    reader gets is the whole map of the table it asked about."""
    rules = find_ruleset("paper-tigers")
    base = random_table(30, 8, 0.02, seed=11)
    frames = [base]
    rng = random.Random(3)
    for _ in range(6):
        frames.append(_settle(frames[-1], rng, 1))
    want = [rules.visibility(s).los for s in frames]
    cache = MapCache()
    wrong: list[int] = []

    def run(k: int) -> None:
        for step in range(24):
            s = (k * 3 + step) % len(frames)
            if not np.array_equal(live_visibility(rules, cache, frames[s]).los, want[s]):
                wrong.append(s)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong
    assert cache.reused > 0
