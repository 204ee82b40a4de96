"""Evidence with every ruling (issue 40): what keeping the pictures adds to a logged verdict.

Run: .venv/bin/python benchmarks/bench_evidence.py [--runs 200]

On the sample's first 1080p frame: :func:`referee.game.evidence.capture` for a verdict
about a pair of pieces (one crop covering both, and the top-down crop) and about one piece,
then one logged frame's transaction (a verdict event) with and without its pictures, in a
durable game log. The goal: capture + the extra write <= 5 ms median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import cv2

from referee.calibration.profile import load_profile
from referee.events import GameEvent
from referee.game import repo_footage
from referee.game.evidence import capture
from referee.store import Evidence, GameLog


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    runs = parser.parse_args().runs
    footage = repo_footage()
    video = cv2.VideoCapture(str(footage / "video.mp4"))
    ok, image = video.read()
    video.release()
    assert ok, "the sample video has no frame"
    profile = load_profile(footage / "camera.json")
    cases = {"pair": [(8.0, 26.0), (31.0, 9.0)], "one piece": [(20.0, 18.0)]}
    took: dict[str, list[float]] = {}
    sizes: dict[str, int] = {}
    for name, points in cases.items():
        capture(image, profile, points)  # warm: first-call allocations
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            pictures = capture(image, profile, points)
            samples.append(time.perf_counter() - start)
        took[name] = samples
        sizes[name] = sum(len(b) for b in pictures.values())
    pictures = capture(image, profile, cases["pair"])
    with tempfile.TemporaryDirectory() as folder:
        log = GameLog(Path(folder) / "bench.sqlite")
        game = log.create_game("bench", "paper-tigers", {"ruleset": "paper-tigers"})
        writes: dict[str, list[float]] = {"without": [], "with": []}
        seq = 0
        for i in range(runs):
            for which in ("without", "with"):
                seq += 1
                event = GameEvent(seq, i / 30, "verdict", {"verdict": {"ask": "range"}}, i)
                kept = [Evidence(seq, k, b) for k, b in pictures.items()] if which == "with" else []
                start = time.perf_counter()
                log.append(game, [event], (), (i, i / 30), kept)
                writes[which].append(time.perf_counter() - start)
        log.close()
    load = os.getloadavg()[0]
    for name in cases:
        print(
            f"capture, {name}: median {_median_ms(took[name]):.2f} ms, "
            f"p90 {statistics.quantiles(took[name], n=10)[-1] * 1000:.2f} ms, "
            f"{sizes[name] / 1024:.1f} KB"
        )
    extra = _median_ms(writes["with"]) - _median_ms(writes["without"])
    print(
        f"verdict's transaction: {_median_ms(writes['without']):.2f} ms without pictures, "
        f"{_median_ms(writes['with']):.2f} ms with (+{extra:.2f} ms)"
    )
    total = _median_ms(took["pair"]) + max(0.0, extra)
    print(
        f"added to a logged verdict (pair): {total:.2f} ms median (goal <= 5 ms); load {load:.1f}"
    )


if __name__ == "__main__":
    main()
