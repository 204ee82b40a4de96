"""The live table's threads: the frame loop, request threads and streams never wait on each
other in a cycle (DESIGN.md, "Threads").

The frame thread starts a new game on every pass of the sample while other threads ask
questions and edit terrain on whichever game is current; a short pass (a few frames) makes
those game changes frequent. Every call must return: a call still running after
``HANG`` seconds is a deadlock (a hang guard, not a speed goal).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from game.footage import First
from web.browser import dashboard

from referee.errors import RefereeError
from referee.game import sample_live
from referee.store import GameLog

HANG = 20.0
"""Seconds after which a call that has not returned is taken for a deadlock."""


def _hammer(live, stop: threading.Event, answered: list[int], failed: list[str], n: int) -> None:
    woods = {"id": f"w{n}", "kind": "woods", "polygon": [[1, 1], [3, 1], [3, 3]]}
    while not stop.is_set():
        session = live.session
        with suppress(RefereeError):  # a piece not seen yet on this pass: refused, answered
            session.ask({"ask": "range", "from": "t34a", "to": "t34b"})
        with suppress(RefereeError):
            session.edit_terrain("add", woods)
            session.edit_terrain("remove", woods["id"])
        live.events_since(0)
        answered[n] += 1


@pytest.mark.slow  # a stress run over sample passes: ~8 s of CPU
def test_questions_while_the_sample_starts_new_games_never_deadlock(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    live = sample_live(pace=0, log=log, game="threads")
    video = live.footage.name
    live.footage = replace(live.footage, open=lambda: First(video, 3))
    stop = threading.Event()
    answered = [0, 0, 0]
    failed: list[str] = []
    workers = [
        threading.Thread(target=_hammer, args=(live, stop, answered, failed, n), daemon=True)
        for n in range(len(answered))
    ]
    live.start()
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + 8.0
    while time.monotonic() < deadline and live.running:
        time.sleep(0.1)
    passes = live.passes
    stop.set()
    for worker in workers:
        worker.join(HANG)
    hung = [w.name for w in workers if w.is_alive()]
    assert not hung, f"deadlock: {hung} never returned (passes: {passes}, answered: {answered})"
    live.stop(HANG)
    assert not live.running, "deadlock: the frame thread never returned"
    assert live.error is None
    assert passes >= 3 and min(answered) > 0
    # What the live table holds for browsers is the shown game's log, once each, in order.
    shown, _ = live.events_since(0)
    assert shown == log.events(log.game(live.game_name))
    log.close()


def _open_stream(url: str) -> tuple[http.client.HTTPResponse, int]:
    """An event stream held open, and its status. The response is what holds the socket:
    the stream is sent with ``Connection: close``, so http.client hands the socket to the
    response, and a dropped response closes it (the server then frees the place at the
    stream's next write, which let extra streams in when opening 40 took over a second)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=HANG)
    connection.request("GET", "/api/stream")
    response = connection.getresponse()
    if response.status != 200:
        response.read()
    return response, response.status


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=HANG) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def _eventually_a_place(url: str) -> bool:
    for _ in range(60):
        response, status = _open_stream(url)
        response.close()
        if status == 200:
            return True
        time.sleep(0.5)
    return False


def test_many_open_streams_leave_threads_for_requests():
    """40 browsers' event streams (more than the server has threads): the streams beyond the
    limit are told to come back later, and the dashboard's requests are still answered."""
    live = sample_live(pace=0)
    live.step(3)
    with dashboard(live) as running:
        running.app.config["SSE_KEEPALIVE"] = 0.5
        opened = [_open_stream(running.url) for _ in range(40)]
        try:
            statuses = [status for _, status in opened]
            limit = running.app.config["SSE_MAX_STREAMS"]
            assert statuses.count(200) == limit and statuses.count(503) == 40 - limit
            assert _get(running.url + "api/health") == 200
            assert _get(running.url + "api/info") == 200
        finally:
            for response, _ in opened:
                response.close()
        # Closed streams give their places back (noticed at the stream's next write).
        assert _eventually_a_place(running.url)
    live.stop()


class Tally:
    """Every request a stress worker made: status codes, failures, the slowest answer."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: dict[str, dict[int, int]] = {}
        self.failures: list[str] = []
        self.slowest = 0.0

    def record(self, kind: str, started: float, status: int | None, error: str = "") -> None:
        took = time.monotonic() - started
        with self.lock:
            self.slowest = max(self.slowest, took)
            if status is None:
                self.failures.append(f"{kind}: no answer after {took:.1f}s ({error})")
                return
            counts = self.statuses.setdefault(kind, {})
            counts[status] = counts.get(status, 0) + 1
            if status >= 500 and not (kind in ("stream", "live") and status == 503):
                self.failures.append(f"{kind}: HTTP {status}")

    def count(self) -> int:
        return sum(sum(c.values()) for c in self.statuses.values())


def _request(url: str, tally: Tally, kind: str, method: str = "GET", body: Any = None) -> None:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if data is not None else {}
    if method == "POST":
        headers["Origin"] = url.rstrip("/")
    started = time.monotonic()
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=HANG) as response:
            response.read()
            tally.record(kind, started, response.status)
    except urllib.error.HTTPError as error:
        error.read()
        tally.record(kind, started, error.code)
    except OSError as error:
        tally.record(kind, started, None, str(error))


def _stream_once(url: str, tally: Tally, seconds: float) -> None:
    parts = urlsplit(url)
    started = time.monotonic()
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=HANG)
    try:
        connection.request("GET", "/api/stream")
        response = connection.getresponse()
        tally.record("stream", started, response.status)
        if response.status == 200:
            until = time.monotonic() + seconds
            while time.monotonic() < until and response.readline():
                pass
    except OSError as error:
        tally.record("stream", started, None, str(error))
    finally:
        connection.close()


def stress(seconds: float, log_path: Path, workers: int = 2) -> tuple[Tally, int]:
    """The looping sample (short passes: a new game every few frames) served by a real
    server while threads ask, declare, edit terrain, read the state and open and close event
    streams for ``seconds``; the tally of every request and the passes played. Each pass is
    a game in the log at ``log_path``."""
    log = GameLog(log_path)
    live = sample_live(pace=0, log=log, game="stress")
    video = live.footage.name
    live.footage = replace(live.footage, open=lambda: First(video, 12))
    tally = Tally()
    stop = threading.Event()

    def asker(url: str, n: int) -> None:
        woods = {"id": f"stress{n}", "kind": "woods", "polygon": [[1, 1], [4, 1], [4, 4]]}
        while not stop.is_set():
            _request(url + "api/ask", tally, "ask", "POST", {"ask": "range", "from": "t34a",
                     "to": "t34b"})  # fmt: skip
            _request(url + "api/terrain", tally, "terrain", "POST", {"action": "add",
                     "terrain": woods})  # fmt: skip
            _request(url + "api/terrain", tally, "terrain", "POST", {"action": "remove",
                     "id": woods["id"]})  # fmt: skip
            for path in ("api/health", "api/info", "api/events", "api/state"):
                _request(url + path, tally, "get")
            _request(url + "api/live", tally, "live")  # 503 until a new game's first frame

    def streamer(url: str) -> None:
        while not stop.is_set():
            _stream_once(url, tally, 0.5)

    with dashboard(live) as running:
        threads = [
            threading.Thread(target=asker, args=(running.url, n), daemon=True)
            for n in range(workers)
        ] + [
            threading.Thread(target=streamer, args=(running.url,), daemon=True)
            for _ in range(workers * 3)
        ]
        live.start()
        for thread in threads:
            thread.start()
        stop.wait(seconds)
        stop.set()
        for thread in threads:
            thread.join(HANG * 2)
        hung = [t.name for t in threads if t.is_alive()]
        assert not hung, f"deadlock: {hung} still waiting for an answer"
        live.stop(HANG)
        assert not live.running, "deadlock: the frame thread never returned"
    log.close()
    return tally, live.passes


def _check(tally: Tally, passes: int) -> None:
    print(f"stress: {tally.count()} requests {tally.statuses}, slowest {tally.slowest:.2f}s, "
          f"{passes} passes")  # fmt: skip
    assert not tally.failures, tally.failures[:10]
    assert passes >= 2
    assert tally.statuses["ask"].get(200, 0) > 0 and tally.statuses["terrain"].get(200, 0) > 0
    assert tally.statuses["stream"].get(200, 0) > 0
    assert set(tally.statuses["get"]) == {200}


@pytest.mark.slow  # a stress run: ~8 s of CPU
def test_a_short_stress_run_answers_every_request(tmp_path):
    _check(*stress(12.0, tmp_path / "games.sqlite"))


@pytest.mark.slow
def test_a_long_stress_run_answers_every_request(tmp_path):
    _check(*stress(180.0, tmp_path / "games.sqlite", workers=3))
