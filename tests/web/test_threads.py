"""The live table's threads: the frame loop, request threads and streams never wait on each
other in a cycle (DESIGN.md, "Threads").

The frame thread starts a new game on every pass of the sample while other threads ask
questions and edit terrain on whichever game is current; a short pass (a few frames) makes
those game changes frequent. Every call must return: a call still running after
``HANG`` seconds is a deadlock (a hang guard, not a speed goal).
"""

from __future__ import annotations

import threading
import time
from contextlib import suppress
from dataclasses import replace

from referee.errors import RefereeError
from referee.store import GameLog
from referee.web.cli import sample_live

from .test_live import First

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
