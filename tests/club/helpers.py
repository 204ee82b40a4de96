"""Shared pieces of the club's tests: a table's game log with synthetic events, and a club
server (waitress) in a thread over a store."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.club import create_app
from referee.club.store import ClubStore
from referee.events import GameEvent
from referee.store import GameLog

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_footage" / "skirmish"
SCENE = json.loads((SAMPLE / "scene.json").read_text())
ROSTER = json.loads((SAMPLE / "roster.json").read_text())


def move(seq: int, piece: str = "t34a", x: float = 10.0, y: float = 14.5) -> GameEvent:
    """A move in the export format (the keys the club checks and the page draws)."""
    return GameEvent(
        seq,
        seq * 0.5,
        "move",
        {
            "piece": piece,
            "from": {"x": x - 1.0, "y": y, "heading": 270.0},
            "to": {"x": x, "y": y, "heading": 270.0},
            "distance": 1.0,
            "uncertainty": 0.006,
            "start_t": seq * 0.5 - 0.4,
            "end_t": seq * 0.5,
            "tag": 1,
        },
        frame=seq * 6,
    )


def verdict(seq: int, ok: bool | None, about: int | None = None) -> GameEvent:
    data: dict[str, Any] = {
        "verdict": {"ask": "move", "ok": ok, "reasons": [f"reason {seq}"], "summary": f"v{seq}"},
        "pieces": ["t34a"],
    }
    if about is not None:
        data["about"] = about
    return GameEvent(seq, seq * 0.5, "verdict", data, frame=seq * 6)


def events(first: int, last: int) -> list[GameEvent]:
    """Moves and verdicts, alternating, with seqs ``first..last``."""
    return [
        move(s, x=5 + s * 0.1) if s % 2 else verdict(s, True, about=s - 1)
        for s in range(first, last + 1)
    ]


def table_log(path: Path, game: str, count: int = 0) -> GameLog:
    """A table's game log at ``path`` holding game ``game`` with ``count`` events."""
    log = GameLog(path)
    info = log.find(game) or log.create_game(game, "paper-tigers", SCENE, roster=ROSTER)
    if count:
        log.append(info, events(info.last_seq + 1, info.last_seq + count))
    return log


def append(log: GameLog, game: str, count: int) -> int:
    """``count`` more events of ``game``; its new last seq."""
    info = log.game(game)
    log.append(info, events(info.last_seq + 1, info.last_seq + count))
    return info.last_seq + count


@dataclass
class RunningClub:
    url: str
    store: ClubStore
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        """The server goes away: listening socket and every open connection closed."""
        for channel in list(self.server.active_channels.values()):
            channel.close()
        self.server.close()
        self.thread.join(10)


def start_club(store: ClubStore, port: int = 0) -> RunningClub:
    from waitress.server import create_server

    for attempt in range(50):  # a port just let go of may take a moment
        try:
            server = create_server(create_app(store), host="127.0.0.1", port=port, threads=8)
            break
        except OSError:
            if attempt == 49:
                raise
            time.sleep(0.1)

    def run() -> None:
        with contextlib.suppress(OSError):  # its sockets were closed under it by stop()
            server.run()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return RunningClub(f"http://127.0.0.1:{server.effective_port}/", store, server, thread)


@contextmanager
def running_club(store: ClubStore) -> Iterator[RunningClub]:
    club = start_club(store)
    try:
        yield club
    finally:
        club.stop()


def lines(store: ClubStore, game: str) -> list[dict[str, Any]]:
    return [e.to_json() for e in store.events(store.game(game))]
