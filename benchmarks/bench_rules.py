"""Rules speed: all-pairs range + LOS for 100 pieces and 50 terrain polygons, every system.

Run: .venv/bin/python benchmarks/bench_rules.py [--quick]
Goal: <= 10 ms median on one core for the whole matrix in every system, and < 40 ms
for 400 pieces (Paper Tigers).
The single questions take turns with the matrix: the `move` one, scalar geometry the
matrix never runs, also shows how fast the shared machine was running at the time.
"""

from __future__ import annotations

import math
import os
import random
import resource
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from referee.rules import find_ruleset
from referee.runtime import keep_freed_memory
from referee.scene import Piece, Scene, Table, Terrain

#: Piece kinds each system's random table draws from (a tank, a foot unit, a third kind).
SYSTEM_KINDS = {
    "paper-tigers": ("tank", "infantry", "gun"),
    "pz8-ww2": ("medium tank", "infantry", "truck"),
    "pz8-1950": ("mbt", "infantry", "truck"),
    "pz8-1975": ("mbt", "infantry", "apc"),
    "pz8-scifi": ("medium mbt", "infantry", "apc"),
    "plastic-skirmish": ("tank", "rifle guy", "jeep"),
    "papercraft": ("character", "large unit", "infantry"),
    "pz8-colonial": ("mounted", "foot", "artillery"),
    "pz8-coastal": ("vosper mtb", "flower corvette", "trawler"),
    "pz8-naval": ("bismarck", "hood", "prinz eugen"),
    "pz8-space": ("spaceship", "torpedo", "asteroid"),
    "pz8-aerial": ("spitfire", "me 109", "ju 87 stuka"),
    "pz8-aerial-1965": ("mig 21", "f4e phantom", "mirage iii"),
    "pz8-divisional": ("tanks", "leg infantry", "recon"),
    "pz8-ww1": ("infantry", "mg", "tank"),
}


def make_scene(
    n_pieces: int,
    n_terrain: int,
    uncertainty: float,
    seed: int = 1,
    ruleset: str = "paper-tigers",
) -> Scene:
    rnd = random.Random(seed)
    terrain = []
    for k in range(n_terrain):
        cx, cy = rnd.uniform(3, 69), rnd.uniform(3, 45)
        n = rnd.randint(4, 8)
        r = [rnd.uniform(1.0, 3.0) for _ in range(n)]
        pts = tuple(
            (cx + r[q] * math.cos(2 * math.pi * q / n), cy + r[q] * math.sin(2 * math.pi * q / n))
            for q in range(n)
        )
        terrain.append(Terrain(f"t{k}", rnd.choice(["woods", "building", "hill"]), pts))
    pieces = tuple(
        Piece(
            f"p{k}",
            rnd.choice(["a", "b"]),
            rnd.choice(SYSTEM_KINDS[ruleset]),
            rnd.uniform(0, 72),
            rnd.uniform(0, 48),
            rnd.uniform(0, 360),
            (1.5, 2.5),
            state="destroyed" if k % 20 == 0 else "ok",
            uncertainty=uncertainty,
        )
        for k in range(n_pieces)
    )
    return Scene(ruleset, Table(72, 48), pieces, tuple(terrain))


def measure(cases: dict[str, Callable[[], object]], rounds: int, repeat: int) -> dict:
    """Median (CPU ms, wall ms, minor page faults) per call of each case. The cases take
    turns, ``repeat`` calls each per round, so a slow spell of the shared machine hits
    them all alike. CPU time of this one-threaded process is what one core spends; wall
    time also counts waiting for a core; page faults count memory the allocator got
    fresh from the kernel."""
    samples: dict[str, list[tuple[float, float, int]]] = {k: [] for k in cases}
    for fn in cases.values():
        fn()  # warm up
    for _ in range(rounds):
        for name, fn in cases.items():
            for _ in range(repeat):
                f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                c0, t0 = time.process_time(), time.perf_counter()
                fn()
                c1, t1 = time.process_time(), time.perf_counter()
                f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                samples[name].append(((c1 - c0) * 1000, (t1 - t0) * 1000, f1 - f0))
    return {
        name: tuple(statistics.median(col) for col in zip(*rows, strict=True))
        for name, rows in samples.items()
    }


def main() -> None:
    import sys

    try:
        import cv2

        cv2.setNumThreads(1)
    except ImportError:  # the rules never need OpenCV
        pass
    keep_freed_memory()  # as every `referee` command runs
    quick = "--quick" in sys.argv
    rules = find_ruleset("paper-tigers")
    counts = {}
    cases: dict[str, Callable[[], object]] = {}
    for label, unc in (("exact positions (u = 0)", 0.0), ("u = 0.02in per piece", 0.02)):
        scene = make_scene(100, 50, unc)
        vis = rules.visibility(scene)
        blocked = int((vis.los == 2).sum() // 2)
        doubtful = int((vis.los == 1).sum() // 2)
        name = f"all-pairs range + LOS, 100 pieces, 50 polygons, {label}"
        counts[name] = (100 * 99 // 2, blocked, doubtful)
        cases[name] = lambda scene=scene: rules.visibility(scene)
    scene = make_scene(100, 50, 0.02)
    one_q = {"ask": "los", "from": "p1", "to": "p2"}
    rq = {"ask": "range", "from": "p1", "to": "p2"}
    mq = {"ask": "move", "piece": "p3", "to": {"x": 30, "y": 20}, "allowance": 8}
    cases["one `los` question (50 polygons)"] = lambda: rules.answer(scene, one_q)
    cases["one `range` question"] = lambda: rules.answer(scene, rq)
    cases["one `move` question (50 polygons)"] = lambda: rules.answer(scene, mq)
    result = measure(cases, rounds=3 if quick else 10, repeat=10)
    print("| case | median CPU ms | median wall ms | page faults | pairs | blocked | doubtful |")
    print("|---|---|---|---|---|---|---|")
    for name, (cpu, wall, faults) in result.items():
        pairs, blocked, doubtful = counts.get(name, (1, "", ""))
        print(
            f"| {name} | {cpu:.2f} | {wall:.2f} | {faults:.0f} | {pairs} | {blocked} | {doubtful} |"
        )
    # Every system, same random table (u = 0.02), its own piece kinds; then 400 pieces.
    print()
    print("| system | 100 pieces: median CPU ms | 400 pieces: median CPU ms | blocked of 4950 |")
    print("|---|---|---|---|")
    for system in SYSTEM_KINDS:
        rs = find_ruleset(system)
        row = []
        for n in (100, 400):
            if system == "papercraft" and n == 400:
                row.append(float("nan"))  # ~40 s: the exact clear-line search over 80k pairs
                continue
            big = make_scene(n, 50, 0.02, ruleset=system)
            slow = system == "papercraft" or n == 400
            res = measure(
                {"v": lambda big=big, rs=rs: rs.visibility(big)},
                rounds=1 if (quick or slow) else 5,
                repeat=3 if slow else 10,
            )
            row.append(res["v"][0])
            if n == 100:
                blocked = int((rs.visibility(big).los == 2).sum() // 2)
        print(f"| {system} | {row[0]:.1f} | {row[1]:.1f} | {blocked} |")


if __name__ == "__main__":
    main()
