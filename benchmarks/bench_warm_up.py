"""The first tap after installing (issue 42, item 3): ``referee serve`` on the two-camera
club sample with an empty numba cache, as on a fresh install.

Run: .venv/bin/python benchmarks/bench_warm_up.py   (about 2 minutes on 2 cores)

``NUMBA_CACHE_DIR`` points numba at a new empty folder, so every compiled loop must be
built again, exactly as after ``pip install``. As soon as the page's first requests
answer, one ``targets`` tap is asked from every piece in turn (``/api/ask?log=0``, what
the threat view asks) while four other clients keep asking ``/api/state``,
``/api/health``, ``/api/info`` and the camera picture. Reported: the first tap's time,
the slowest tap and the slowest other request while the warm-up process ran, and how
long the warm-up took. Goals: the first tap in at most 2 s, no other request over 1 s.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLUB = ROOT / "sample_footage" / "club"


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str, timeout: float = 30) -> tuple[float, bytes]:
    """Seconds to the whole answer, and its body (an error's JSON too)."""
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            body = answer.read()
    except urllib.error.HTTPError as error:
        body = error.read()
    return time.perf_counter() - start, body


def _ask(url: str, piece: str) -> tuple[float, int]:
    body = json.dumps({"ask": "targets", "from": piece}).encode()
    request = urllib.request.Request(
        url + "api/ask?log=0", body, {"Content-Type": "application/json"}
    )
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        status = error.code
    return time.perf_counter() - start, status


def run() -> dict[str, object]:
    cache = tempfile.mkdtemp(prefix="numba-empty-")
    port = _port()
    url = f"http://127.0.0.1:{port}/"
    args = [sys.executable, "-m", "referee", "serve", "--no-log", "--port", str(port)]
    for k in (1, 2):
        args += ["--video", str(CLUB / f"video-{k}.mp4"), "-c", str(CLUB / f"camera-{k}.json")]
    args += ["-r", str(CLUB / "roster.json"), "--scene", str(CLUB / "scene.json")]
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    started = time.monotonic()
    server = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while True:
            try:
                _, body = _get(url + "api/state", timeout=2)
                if json.loads(body)["pieces"]:
                    break
            except OSError:
                pass
            if time.monotonic() - started > 120:
                raise SystemExit("serve did not start")
            time.sleep(0.2)
        up = time.monotonic() - started
        pieces = [p["id"] for p in json.loads(body)["pieces"]]
        others: list[tuple[str, float]] = []
        stop = threading.Event()

        def client(path: str) -> None:
            while not stop.is_set():
                seconds, _ = _get(url + path)
                others.append((path, seconds))
                time.sleep(0.05)

        paths = ("api/state", "api/health", "api/info", "api/camera.jpg")
        threads = [threading.Thread(target=client, args=(p,), daemon=True) for p in paths]
        for thread in threads:
            thread.start()
        taps: list[tuple[float, bool]] = []
        warming = True
        while warming or len(taps) < len(pieces):
            _, health = _get(url + "api/health")
            warm = json.loads(health).get("warm_up") or {}
            warming = bool(warm.get("running"))
            seconds, status = _ask(url, pieces[len(taps) % len(pieces)])
            assert status in (200, 409), status  # 409: a piece not on the table this instant
            taps.append((seconds, warming))
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        during = list(others)
        return {
            "serve up (s)": round(up, 1),
            "warm-up took (s)": warm.get("seconds"),
            "first tap (s)": round(taps[0][0], 3),
            "slowest tap while warming (s)": round(max(s for s, w in taps if w), 3)
            if any(w for _, w in taps)
            else None,
            "median tap while warming (ms)": round(
                1000 * statistics.median(s for s, w in taps if w), 1
            )
            if any(w for _, w in taps)
            else None,
            "median tap after (ms)": round(
                1000 * statistics.median(s for s, w in taps if not w), 1
            ),
            "taps": len(taps),
            "other requests": len(during),
            "slowest other request (s)": round(max(s for _, s in during), 3),
            "other requests p99 (s)": round(
                sorted(s for _, s in during)[int(0.99 * (len(during) - 1))], 3
            ),
        }
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    result = run()
    for key, value in result.items():
        print(f"{key}: {value}")
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
