"""The live table's threads: the frame loop, request threads and streams never wait on each
other in a cycle (DESIGN.md, "Threads").

The frame thread starts a new game on every pass of the sample while other threads ask
questions and edit terrain on whichever game is current; a short pass (a few frames) makes
those game changes frequent. Every call must return: a call still running after
``HANG`` seconds is a deadlock (a hang guard, not a speed goal).
"""

from __future__ import annotations

import http.client
import threading
import time
import urllib.error
import urllib.request
from contextlib import suppress
from dataclasses import replace
from urllib.parse import urlsplit

from referee.errors import RefereeError
from referee.store import GameLog
from referee.web.cli import sample_live

from .browser import dashboard
from .test_live import First, _until

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
    log.close()


def _open_stream(url: str) -> tuple[http.client.HTTPConnection, int]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=HANG)
    connection.request("GET", "/api/stream")
    response = connection.getresponse()
    if response.status != 200:
        response.read()
    return connection, response.status


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=HANG) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_many_open_streams_leave_threads_for_requests():
    """40 browsers' event streams (more than the server has threads): the streams beyond the
    limit are told to come back later, and the dashboard's requests are still answered."""
    live = sample_live(pace=0)
    live.step(3)
    with dashboard(live) as running:
        opened = [_open_stream(running.url) for _ in range(40)]
        try:
            statuses = [status for _, status in opened]
            limit = running.app.config["SSE_MAX_STREAMS"]
            assert statuses.count(200) == limit and statuses.count(503) == 40 - limit
            assert _get(running.url + "api/health") == 200
            assert _get(running.url + "api/info") == 200
        finally:
            for connection, _ in opened:
                connection.close()
        # Closed streams give their places back.
        _until(lambda: _open_stream(running.url)[1] == 200)
    live.stop()
