"""The projector page's latency (issue 39): a ``frame`` message arriving -> its drawing done.

Run: .venv/bin/python benchmarks/bench_projector_page.py   (about 40 s; needs Debian's chromium)

The bundled sample plays at real time (12 fps), one pass, through a real waitress server;
headless Chromium shows ``/projector`` at 1920 x 1080 under a known projector fit with a
piece selected (its threat lines, range rings, the moves' arrows and every tag's disc
drawn each frame). The page times each frame with ``performance.now()`` from the message
arriving to its canvas drawn (``window.projector.latencies``); median and 90th percentile.
Goal: <= 150 ms median. A screenshot of the last drawing goes to ``--shot`` if given.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
import urllib.request
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "web"))

from browser import chromium, dashboard  # noqa: E402

from referee.calibration.projector_fit import ProjectorFit  # noqa: E402
from referee.game import sample_live  # noqa: E402

WIDTH, HEIGHT = 1920, 1080
# table inches -> projector px: the 36 x 24 in sample table filling the picture, skewed a little
TO_PICTURE = np.array([[50.0, 0.8, 60.0], [0.5, 43.0, 20.0], [0.00004, 0.0001, 1.0]])


def fit() -> ProjectorFit:
    matrix = np.linalg.inv(TO_PICTURE)
    return ProjectorFit(
        resolution=(WIDTH, HEIGHT),
        homography=tuple(tuple(float(v) for v in row) for row in matrix),  # type: ignore[arg-type]
        held_out_p95_in=0.02,
        held_out_max_in=0.04,
        points_used=96,
        covered=((0.0, 0.0), (36.0, 0.0), (36.0, 24.0), (0.0, 24.0)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shot", type=Path, help="save the last drawing here (PNG)")
    args = parser.parse_args()
    live = sample_live(pace=1.0)
    assert live.footage is not None
    live.footage = replace(live.footage, loop=False)
    camera = live.pipeline.cameras[0]
    camera.initial_profile = dataclasses.replace(camera.initial_profile, projector=fit())
    with dashboard(live) as running, chromium() as browser:
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.goto(running.url + "projector")
        page.wait_for_function("window.projector && window.projector.fit !== null")
        request = urllib.request.Request(
            running.url + "api/selection",
            data=json.dumps({"piece": "t34a"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        urllib.request.urlopen(request, timeout=10).read()
        live.start()
        while live.running:
            time.sleep(0.5)
        time.sleep(0.5)
        latencies = page.evaluate("window.projector.latencies")
        if args.shot:
            page.screenshot(path=str(args.shot))
    live.stop()
    ordered = sorted(latencies)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    load = os.getloadavg()[0]
    print(
        f"projector page: frame message -> drawn, median {statistics.median(ordered):.2f} ms, "
        f"p90 {p90:.2f} ms, max {ordered[-1]:.2f} ms over {len(ordered)} frames "
        f"({WIDTH}x{HEIGHT}, load {load:.1f})"
    )


if __name__ == "__main__":
    main()
