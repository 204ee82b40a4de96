"""`targets` ("what can this piece hit?") against the same pairs asked one by one.

Run: .venv/bin/python benchmarks/bench_targets.py [--quick] [--update] [SYSTEM ...]
Goal (issue 31): `targets` from every piece of a 100-piece table (50 terrain polygons,
0.02 in of doubt per piece) costs at most a quarter of asking the same pairs' single
`range` and `los` questions one by one, in every system. Both sides are timed up to
the verdicts' JSON, as `referee check --json` and `/api/ask` hand them out (a `targets`
entry is the single questions' JSON).

`targets` is timed whole: every piece asks once, on a fresh ruleset, so the all-pairs map
(measured once for the scene and kept) is part of the cost. The single questions are
timed on a random sample of the same (firer, enemy) pairs, each pair's `range` and `los`
as `referee check` asks them, and the mean per pair is multiplied by the number of
pairs: asking all ~5,000 pairs of 15 systems one by one would take the shared machine
most of an hour. CPU time, one core. Also the latency a player feels: one piece's
`targets` on the 100-piece table, the map already made (median CPU ms).

`--update` (issue 31, the live map): the time `maps.MapCache` takes to update the map
after one piece settles on the 100-piece table (its lines and the lines near its base
made again, the rest reused) against making the whole map again; median CPU ms of
20 settles (Papercraft's map shares its pairs among the cores: its CPU time is the sum),
one frame at 12 fps being 83 ms.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from referee import maps
from referee.errors import SceneError
from referee.rules import find_ruleset
from referee.rules.targets import live_visibility
from referee.runtime import keep_freed_memory
from referee.sim.tables import SYSTEM_KINDS, random_table


def bench(system: str, sample: int, rounds: int) -> tuple[float, float, int]:
    """(targets from every piece, the same pairs one by one (estimated), pairs) in CPU s."""
    scene = random_table(100, 50, 0.02, ruleset=system)
    pieces = scene.pieces
    pairs = [(a.id, b.id) for a in pieces for b in pieces if a.side != b.side]
    find_ruleset(system).answer(scene, {"ask": "targets", "from": pieces[0].id})  # warm up
    whole = []
    for _ in range(rounds):
        rules = find_ruleset(system)  # a fresh ruleset: the map is measured in the time
        t0 = time.process_time()
        for p in pieces:
            rules.answer(scene, {"ask": "targets", "from": p.id}).to_json()
        whole.append(time.process_time() - t0)
    rules = find_ruleset(system)
    chosen = random.Random(system).sample(pairs, min(sample, len(pairs)))
    t0 = time.process_time()
    for a, b in chosen:
        rules.answer(scene, {"ask": "los", "from": a, "to": b}).to_json()
        with contextlib.suppress(SceneError):  # an unarmed firer: refused, as `targets` notes
            rules.answer(scene, {"ask": "range", "from": a, "to": b}).to_json()
    per_pair = (time.process_time() - t0) / len(chosen)
    return min(whole), per_pair * len(pairs), len(pairs)


def tap(system: str) -> float:
    """Median CPU ms of one piece's `targets` on the table, the map already made (what a
    tap on the dashboard waits for, on a quiet core)."""
    scene = random_table(100, 50, 0.02, ruleset=system)
    rules = find_ruleset(system)
    rules.answer(scene, {"ask": "targets", "from": scene.pieces[0].id})  # the map, made
    times = []
    for p in scene.pieces[1:21]:
        t0 = time.process_time()
        rules.answer(scene, {"ask": "targets", "from": p.id}).to_json()
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1000


def update(system: str, settles: int = 20) -> tuple[float, float]:
    """(median CPU ms of the cache's update after one piece settles, of a whole map)."""
    rng = random.Random(system)
    scene = random_table(100, 50, 0.02, ruleset=system)
    rules = find_ruleset(system)
    cache = maps.MapCache()
    live_visibility(rules, cache, scene)
    part, whole = [], []
    for _ in range(settles):
        pieces = list(scene.pieces)
        k = rng.randrange(len(pieces))
        p = pieces[k]
        pieces[k] = dataclasses.replace(
            p,
            x=min(max(p.x + rng.uniform(-4, 4), 1.0), scene.table.width - 1),
            y=min(max(p.y + rng.uniform(-4, 4), 1.0), scene.table.depth - 1),
            heading=rng.uniform(0, 360),
        )
        scene = dataclasses.replace(scene, pieces=tuple(pieces))
        t0 = time.process_time()
        live_visibility(rules, cache, scene)
        part.append(time.process_time() - t0)
        t0 = time.process_time()
        rules.visibility(scene)
        whole.append(time.process_time() - t0)
    return statistics.median(part) * 1000, statistics.median(whole) * 1000


def main() -> None:
    keep_freed_memory()  # as every `referee` command runs
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    systems = args or [s for s in SYSTEM_KINDS if "targets" in find_ruleset(s).questions()]
    if "--update" in sys.argv:
        print(f"nproc {os.cpu_count()}; load {os.getloadavg()[0]:.1f}; 20 settles each")
        print("| system | update after one settle, ms | whole map, ms | ratio |")
        print("|---|---|---|---|")
        for system in systems:
            part, whole = update(system)
            print(f"| {system} | {part:.2f} | {whole:.2f} | {part / whole:.2f} |", flush=True)
        return
    print(f"nproc {os.cpu_count()}; sample {60 if quick else 300} pairs for the singles")
    print(f"load {os.getloadavg()[0]:.1f}")
    print(
        "| system | pairs | `targets` from every piece, s | one by one (est.), s | ratio "
        "| one piece, ms |"
    )
    print("|---|---|---|---|---|---|")
    for system in systems:
        t, one, n = bench(system, 60 if quick else 300, 1 if quick else 2)
        ms = tap(system)
        print(f"| {system} | {n} | {t:.2f} | {one:.2f} | {t / one:.3f} | {ms:.1f} |", flush=True)


if __name__ == "__main__":
    main()
