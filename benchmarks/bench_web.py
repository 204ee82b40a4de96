"""Dashboard benchmarks on the bundled 1080p sample footage, through a real waitress server.

Run: .venv/bin/python benchmarks/bench_web.py   (about 2 minutes; needs Debian's chromium)

1. Latency: from a frame entering the session (``Session.process`` called) to headless
   Chromium showing it (the map redrawn, stamped in the next animation frame), on the
   same clock. The footage plays at real time (12 fps), one pass; median and 90th
   percentile over the frames the page showed.
2. Pipeline frame rate with ten connected dashboards against none: the footage played
   as fast as the pipeline goes, one pass (288 frames), five interleaved trials each. A dashboard
   is emulated as a browser's network load (in a separate process: the event stream
   read and parsed, and the camera picture fetched at most 8 times a second, as the
   page does), since ten Chromium pages rendering on the
   same two cores would measure the browsers, not the server. The same run with ten
   real Chromium pages is reported as well, as the worst case. On a shared machine the
   frame rate is noisy, so the server process's CPU time per frame (every thread:
   pipeline, waitress, streams) is reported too: what the browsers add to its work.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "web"))

from browser import chromium, dashboard  # noqa: E402

from referee.game import sample_live  # noqa: E402

TRIALS = 5

CLIENT = r"""
import json, sys, threading, time, urllib.request
url, n = sys.argv[1], int(sys.argv[2])
frames = [0] * n
def client(i):
    stream = urllib.request.urlopen(url + "api/stream", timeout=60)
    event = None
    last = 0.0
    for raw in stream:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "frame":
            message = json.loads(line[6:])
            if time.monotonic() - last >= 0.125:  # as the page: camera at most 8 times a second
                last = time.monotonic()
                urllib.request.urlopen(url + "api/camera.jpg?frame=%d" % message["frame"]).read()
            frames[i] += 1
threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(n)]
for t in threads: t.start()
sys.stdin.read()
print(json.dumps(frames))
"""


def one_pass(pace: float):
    live = sample_live(pace=pace)
    assert live.footage is not None
    live.footage = replace(live.footage, loop=False)
    return live


def latency() -> tuple[float, float, int]:
    live = one_pass(1.0)
    entered: dict[int, float] = {}
    process = live.session.process

    def timed(frame):  # the instance attribute shadows the method the frame loop calls
        start = time.time()
        update = process(frame)
        entered[update.result.frame] = start
        return update

    live.session.process = timed  # type: ignore[method-assign]
    with dashboard(live) as running, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(running.url)
        page.wait_for_selector("#conn:not(.away)")
        live.start()
        while live.running:
            time.sleep(0.5)
        time.sleep(0.5)
        shown = page.evaluate("() => referee.shown")
    live.stop()
    delays = sorted(at / 1000 - entered[frame] for frame, at in shown if frame in entered)
    p90 = delays[int(0.9 * (len(delays) - 1))]
    return statistics.median(delays) * 1000, p90 * 1000, len(delays)


def fps_with(clients: int, pages: int = 0) -> tuple[float, float, list[int]]:
    live = one_pass(0.0)
    with dashboard(live) as running:
        helper = None
        if clients:
            helper = subprocess.Popen(
                [sys.executable, "-c", CLIENT, running.url, str(clients)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        browser_cm = chromium() if pages else None
        opened = []
        if browser_cm is not None:
            browser = browser_cm.__enter__()
            for _ in range(pages):
                page = browser.new_page(viewport={"width": 1280, "height": 860})
                page.goto(running.url)
                page.wait_for_selector("#conn:not(.away)")
                opened.append(page)
        time.sleep(1.0)  # every client connected
        started, cpu = time.monotonic(), time.process_time()
        live.start()
        while live.running:
            time.sleep(0.05)
        elapsed = time.monotonic() - started
        cpu = time.process_time() - cpu
        frames = live.frames
        received: list[int] = []
        if helper is not None:
            out, _ = helper.communicate("", timeout=30)
            received = json.loads(out)
        if browser_cm is not None:
            browser_cm.__exit__(None, None, None)
    live.stop()
    return frames / elapsed, 1000 * cpu / frames, received


def main() -> None:
    median, p90, count = latency()
    print(f"latency frame -> browser: median {median:.1f} ms, p90 {p90:.1f} ms over {count} frames")
    rows: dict[str, list[tuple[float, float]]] = {"none": [], "10 streams": [],
                                                  "10 chromium pages": []}  # fmt: skip
    received: list[int] = []
    for _ in range(TRIALS):
        rows["none"].append(fps_with(0)[:2])
        fps, cpu, received = fps_with(10)
        rows["10 streams"].append((fps, cpu))
    rows["10 chromium pages"].append(fps_with(0, pages=10)[:2])
    base_fps = statistics.median(f for f, _ in rows["none"])
    base_cpu = statistics.median(c for _, c in rows["none"])
    for name, values in rows.items():
        fps = statistics.median(f for f, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"{name}: pipeline fps median {fps:.1f} ({', '.join(f'{f:.1f}' for f, _ in values)}),"
              f" cost {100 * (1 - fps / base_fps):.1f}%; server CPU per frame {cpu:.1f} ms"
              f" (+{100 * (cpu / base_cpu - 1):.1f}%)")  # fmt: skip
    print(f"frame messages each stream client received (last trial): {received}")


if __name__ == "__main__":
    main()
