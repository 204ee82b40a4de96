"""Rules speed: all-pairs range + LOS for 100 pieces and 50 terrain polygons, every system.

Run: .venv/bin/python benchmarks/bench_rules.py [--quick] [--single] [--no-400]
(``--single``: the single questions only, with no all-pairs map, in a minute;
``--no-400``: the 100-piece tables only, the 400-piece columns left empty.)
Goal: <= 10 ms median for the whole matrix in every system, and < 40 ms for 400 pieces.
The 400-piece tables are measured twice: bases drawn independently (many overlap, which
stresses the geometry: the goal's first figure, 89 ms, was measured so) and bases drawn
apart, as miniatures stand on a real table.
Every system runs on one core but Papercraft, whose map shares its pairs among the
cores, and Pz8 Divisional, whose map's sides are seen side by side on them: their wall
time is what a player waits, their CPU time the sum over the cores.
The single questions take turns with the matrix: the `move` one, scalar geometry the
matrix never runs, also shows how fast the shared machine was running at the time.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import resource
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from referee.rules import find_ruleset
from referee.runtime import keep_freed_memory
from referee.scene import Terrain
from referee.sim.tables import SYSTEM_KINDS, random_table

_SQUARE = ((6.0, 20.0), (11.0, 20.0), (11.0, 26.0), (6.0, 26.0))
"""The first woods of the forest (5 x 6 in); the others overlap it in a row, 4.5 in apart."""


def measure(cases: dict[str, Callable[[], object]], rounds: int, repeat: int) -> dict:
    """Median (CPU ms, wall ms, minor page faults) per call of each case. The cases take
    turns, ``repeat`` calls each per round, so a slow spell of the shared machine hits
    them all alike. CPU time is what the cores spend (one core but in Papercraft); wall
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
    if "--single" in sys.argv:
        single_questions(quick)
        return
    sizes = ((100, False),) if "--no-400" in sys.argv else ((100, False), (400, False), (400, True))
    rules = find_ruleset("paper-tigers")
    counts = {}
    cases: dict[str, Callable[[], object]] = {}
    for label, unc in (("exact positions (u = 0)", 0.0), ("u = 0.02in per piece", 0.02)):
        scene = random_table(100, 50, unc)
        vis = rules.visibility(scene)
        blocked = int((vis.los == 2).sum() // 2)
        doubtful = int((vis.los == 1).sum() // 2)
        name = f"all-pairs range + LOS, 100 pieces, 50 polygons, {label}"
        counts[name] = (100 * 99 // 2, blocked, doubtful)
        cases[name] = lambda scene=scene: rules.visibility(scene)
    # A forest of eight touching woods across the table: lines meeting it follow the
    # forest rule (a seam blocks, each woods area is seen out of), not the shared test.
    woods = tuple(
        Terrain(f"w{k}", "woods", tuple((x + 4.5 * k, y) for x, y in _SQUARE)) for k in range(8)
    )
    for n in (30, 60):
        forest = dataclasses.replace(random_table(n, 0, 0.02, seed=3), terrain=woods)
        vis = rules.visibility(forest)
        name = f"all-pairs range + LOS, {n} pieces, a forest of 8 touching woods"
        counts[name] = (
            n * (n - 1) // 2,
            int((vis.los == 2).sum() // 2),
            int((vis.los == 1).sum() // 2),
        )
        cases[name] = lambda forest=forest: rules.visibility(forest)
    scene = random_table(100, 50, 0.02)
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
    # Every system, same random table (u = 0.02), its own piece kinds; then 400 pieces,
    # drawn independently (their bases overlap, as the goal was first measured) and
    # drawn apart (no base overlaps another, as on a real table). The `move` question
    # takes turns with each map, so every row says how fast the machine ran for it.
    ask_move = cases["one `move` question (50 polygons)"]
    print()
    print(
        "| system | 100 pieces: median CPU ms | wall ms"
        " | 400 pieces: median CPU ms | wall ms"
        " | 400 pieces apart: median CPU ms | wall ms | blocked of 4950 | `move` ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for system in SYSTEM_KINDS:
        rs = find_ruleset(system)
        row, gauge = [], []
        for n, apart in sizes:
            big = random_table(n, 50, 0.02, ruleset=system, apart=apart)
            slow = n == 400
            res = measure(
                {"v": lambda big=big, rs=rs: rs.visibility(big), "move": ask_move},
                rounds=1 if quick else (3 if slow else 5),
                repeat=3 if slow else 10,
            )
            row.extend(res["v"][:2])
            gauge.append(res["move"][1])
            if n == 100:
                blocked = int((rs.visibility(big).los == 2).sum() // 2)
        cells = " | ".join([f"{ms:.1f}" for ms in row] + ["-"] * (6 - len(row)))
        print(f"| {system} | {cells} | {blocked} | {statistics.median(gauge):.2f} |")


def single_questions(quick: bool) -> None:
    """The single `move`, `range` and `los` questions alone, in Paper Tigers and in a few
    systems whose questions take other paths through the core (no all-pairs map)."""
    scene = random_table(100, 50, 0.02)
    rules = find_ruleset("paper-tigers")
    cases: dict[str, Callable[[], object]] = {}
    questions = {
        "los": {"ask": "los", "from": "p1", "to": "p2"},
        "range": {"ask": "range", "from": "p1", "to": "p2"},
        "move": {"ask": "move", "piece": "p3", "to": {"x": 30, "y": 20}, "allowance": 8},
    }
    for ask, query in questions.items():
        cases[f"paper-tigers `{ask}`"] = lambda query=query: rules.answer(scene, query)
    for system in ("pz8-ww2", "plastic-skirmish", "pz8-colonial"):
        rs = find_ruleset(system)
        table = random_table(100, 50, 0.02, ruleset=system)
        ids = [p.id for p in table.pieces if p.state != "destroyed"]
        # The first pair that may fire at all (some kinds carry no weapon).
        firer, target = next(
            (a, b) for a, b in itertools.pairwise(ids) if _answers(rs, table, a, b)
        )
        mover = ids[2]
        for ask, query in (
            ("range", {"ask": "range", "from": firer, "to": target}),
            ("move", {**questions["move"], "piece": mover}),
        ):
            cases[f"{system} `{ask}`"] = lambda rs=rs, t=table, q=query: rs.answer(t, q)
    result = measure(cases, rounds=3 if quick else 10, repeat=10)
    print("| question | median CPU ms | median wall ms |")
    print("|---|---|---|")
    for name, (cpu, wall, _) in result.items():
        print(f"| {name} | {cpu:.3f} | {wall:.3f} |")


def _answers(rules: object, scene: object, a: str, b: str) -> bool:
    from referee.errors import SceneError

    try:
        rules.answer(scene, {"ask": "range", "from": a, "to": b})  # type: ignore[attr-defined]
    except SceneError:
        return False
    return True


if __name__ == "__main__":
    main()
