"""Battle report speed: an hour-long game's HTML report and MP4 replay.

Run: .venv/bin/python benchmarks/bench_report.py [--minutes 60] [--runs 3]
Goals (issue 40): the HTML report of an hour's game in at most 30 s; the MP4 at least 10
times faster than the game was played (an hour's game in at most 6 minutes).

The game is tests/report/synthetic.py's, written through the store's own API: 20 pieces on
a 48 x 36 in table, each side moving 8 pieces one after another (a move every ~3.7 s, each
with its verdict, a standing range question answered after every third), a 20 s handover
between sides, and 6 corrections at the end (moves re-ended and voided); ``--per-turn 1
--handover 2`` is a game of alternate activations (a turn, and a picture, per move). Each run is the
real command, ``python -m referee log report`` in a fresh process (imports included).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from report.synthetic import build_game  # noqa: E402


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "referee", *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--speed", type=float, default=10.0)
    parser.add_argument(
        "--per-turn",
        type=int,
        default=8,
        help="moves a side makes before the other (1: alternate activations)",
    )
    parser.add_argument("--handover", type=float, default=20.0, help="seconds between sides")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "games.sqlite"
        written = build_game(db, "hour", seconds=options.minutes * 60, pieces=20,
                             per_turn=options.per_turn, handover=options.handover,
                             corrections=6)  # fmt: skip
        base = ["log", "report", "hour", "--db", str(db)]
        html = Path(folder) / "report.html"
        mp4 = Path(folder) / "report.mp4"
        html_s = [timed([*base, "--out", str(html)]) for _ in range(options.runs)]
        mp4_s = [
            timed([*base, "--out", str(mp4), "--speed", f"{options.speed:g}"])
            for _ in range(options.runs)
        ]
        import cv2

        capture = cv2.VideoCapture(str(mp4))
        frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        fps = capture.get(cv2.CAP_PROP_FPS)
        capture.release()
        game = written.duration
        print(f"game: {game / 60:.1f} min, {len(written.moves)} moves, {written.turns} turns, "
              f"{written.disputes} disputes, {len(written.corrected)} corrections")  # fmt: skip
        print(f"nproc {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
        html_median = statistics.median(html_s)
        print(f"HTML: median {html_median:.2f} s of {[round(s, 2) for s in html_s]} "
              f"(goal <= 30 s), {html.stat().st_size / 1e6:.2f} MB")  # fmt: skip
        mp4_median = statistics.median(mp4_s)
        print(f"MP4 at {options.speed:g}x: median {mp4_median:.1f} s of "
              f"{[round(s, 1) for s in mp4_s]}, {game / mp4_median:.0f}x faster than the game "
              f"(goal >= 10x); {frames} frames at {fps:g} fps = {frames / fps:.0f} s of video, "
              f"{mp4.stat().st_size / 1e6:.1f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
