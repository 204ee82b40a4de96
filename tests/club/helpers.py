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


def story() -> list[GameEvent]:
    """A short game as a table logs it: declarations, moves (one with a Follow Me note),
    verdicts clear, refused and too close to call, a move voided and one put elsewhere by a
    correction with the verdicts asked again, and a victory verdict."""

    def judged(seq, t, ask, ok, summary, reasons, about=None, **more):
        data: dict[str, Any] = {
            "verdict": {"ask": ask, "ok": ok, "summary": summary, "reasons": reasons, **more},
            "pieces": ["t34a"],
        }
        if about is not None:
            data["about"] = about
        return GameEvent(seq, t, "verdict", data, frame=int(t * 12))

    follow = {"ask": "follow_me", "leader": "t34a", "action": "move"}
    allowance = {"ask": "move", "piece": "sq1", "allowance": 6,
                 "to": {"x": 19.0, "y": 16.5, "heading": 300}}  # fmt: skip
    return [
        GameEvent(1, 0.0, "declare", {"declare": follow,
                                      "notes": ["Follow Me announced by t34a"]}),
        GameEvent(2, 0.0, "declare", {"declare": allowance,
                                      "notes": ["sq1 may move up to 6in next"]}),
        judged(3, 0.58, "los", False, "los t34a -> pz1: blocked by wood1",
               ["the line crosses woods wood1: LOS through it is blocked"], los="blocked"),
        GameEvent(4, 3.92, "move", {
            "piece": "t34a", "from": {"x": 10.0, "y": 20.5, "heading": 270.0},
            "to": {"x": 10.0, "y": 14.5, "heading": 270.0}, "distance": 6.0,
            "uncertainty": 0.005, "notes": ["Follow Me by t34a: t34b follows t34a"]}, frame=47),
        judged(5, 3.92, "move", None, "move t34a: 6.00in (+/-0.01), too close to call",
               ["moved 6.00in measured at the front of the base", "the limit is 6in"], about=4),
        GameEvent(6, 6.58, "move", {
            "piece": "t34b", "from": {"x": 12.0, "y": 21.0, "heading": 275.0},
            "to": {"x": 12.4, "y": 15.2, "heading": 275.0}, "distance": 5.8,
            "uncertainty": 0.005}, frame=79),
        judged(7, 6.58, "move", True, "move t34b: 5.80in (+/-0.01), legal",
               ["moved 5.80in measured at the front of the base"], about=6),
        GameEvent(8, 9.0, "correction", {"supersedes": 4, "reason": "knocked over", "void": True}),
        judged(9, 9.0, "los", True, "los t34a -> pz1: clear", ["nothing in the way"], about=8),
        GameEvent(10, 9.5, "correction", {"supersedes": 6, "reason": "tag hidden",
                                          "to": {"x": 20.0, "y": 20.0, "heading": 45.0}}),
        judged(11, 9.5, "move", False, "move t34b: 8.60in (+/-0.01), too far",
               ["moved 8.60in measured at the front of the base"], about=10),
        judged(12, 12.0, "victory", True, "victory: soviet 5, german 1 -> victory for soviet",
               ["pz1 (tank, german) destroyed: 5 VP", "german controls hill1: 1 VP",
                "victory for soviet (5 to 1 VP)"],
               points={"soviet": 5.0, "german": 1.0}, result="victory", winner="soviet"),
    ]  # fmt: skip


def story_log(path: Path, game: str = "story") -> GameLog:
    """A table's game log holding :func:`story` as game ``game``."""
    log = GameLog(path)
    info = log.find(game) or log.create_game(game, "paper-tigers", SCENE, roster=ROSTER)
    log.append(info, story())
    return log
