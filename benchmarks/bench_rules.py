"""Rules speed: all-pairs range + LOS for 100 pieces and 50 terrain polygons.

Run: .venv/bin/python benchmarks/bench_rules.py
Goal: <= 10 ms median on one core for the whole matrix (Paper Tigers, vectorised).
"""

from __future__ import annotations

import math
import os
import random
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from referee.rules import find_ruleset
from referee.scene import Piece, Scene, Table, Terrain


def make_scene(n_pieces: int, n_terrain: int, uncertainty: float, seed: int = 1) -> Scene:
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
            rnd.choice(["tank", "infantry", "gun"]),
            rnd.uniform(0, 72),
            rnd.uniform(0, 48),
            rnd.uniform(0, 360),
            (1.5, 2.5),
            state="destroyed" if k % 20 == 0 else "ok",
            uncertainty=uncertainty,
        )
        for k in range(n_pieces)
    )
    return Scene("paper-tigers", Table(72, 48), pieces, tuple(terrain))


def median_ms(fn, repeat: int) -> tuple[float, float]:
    """Median (CPU ms, wall ms) per call. CPU time of this one-threaded process is what
    one core spends; wall time also counts waiting for a core on a shared machine."""
    fn()  # warm up
    cpu, wall = [], []
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - t0) * 1000)
    return statistics.median(cpu), statistics.median(wall)


def main() -> None:
    try:
        import cv2

        cv2.setNumThreads(1)
    except ImportError:  # the rules never need OpenCV
        pass
    rules = find_ruleset("paper-tigers")
    rows = []
    for label, unc in (("exact positions (u = 0)", 0.0), ("u = 0.02in per piece", 0.02)):
        scene = make_scene(100, 50, unc)
        vis = rules.visibility(scene)
        pairs = 100 * 99 // 2
        blocked = int((vis.los == 2).sum() // 2)
        doubtful = int((vis.los == 1).sum() // 2)
        ms = median_ms(lambda scene=scene: rules.visibility(scene), 50)
        rows.append((label, ms, pairs, blocked, doubtful))
    scene = make_scene(100, 50, 0.02)
    one_q = {"ask": "los", "from": "p1", "to": "p2"}
    single = median_ms(lambda: rules.answer(scene, one_q), 200)
    rq = {"ask": "range", "from": "p1", "to": "p2"}
    single_range = median_ms(lambda: rules.answer(scene, rq), 500)
    mq = {"ask": "move", "piece": "p3", "to": {"x": 30, "y": 20}, "allowance": 8}
    single_move = median_ms(lambda: rules.answer(scene, mq), 200)
    print("| case | median CPU ms | median wall ms | pairs | blocked | doubtful |")
    print("|---|---|---|---|---|---|")
    for label, (cpu, wall), pairs, blocked, doubtful in rows:
        print(
            f"| all-pairs range + LOS, 100 pieces, 50 polygons, {label} | {cpu:.1f} | "
            f"{wall:.1f} | {pairs} | {blocked} | {doubtful} |"
        )
    for label, (cpu, wall) in (
        ("one `los` question (50 polygons)", single),
        ("one `range` question", single_range),
        ("one `move` question (50 polygons)", single_move),
    ):
        print(f"| {label} | {cpu:.2f} | {wall:.2f} | 1 | | |")


if __name__ == "__main__":
    main()
