"""Game log speed and size: durable write rate, replay time, a four-hour game's file size.

Run: .venv/bin/python benchmarks/bench_store.py [--hours 4]
Goals (issue 8): >= 5,000 durable events/s with one transaction per frame; replay of a
10,000-event game to any moment in <= 100 ms; the size of a 4-hour, 30 fps, 40-piece game.

The four-hour game is driven through the real Session (so the log holds exactly what a
game would write: moves, verdicts, position changes beyond the noise, progress marks) with
a scripted pipeline in place of the camera: 40 pieces resting with 0.004in of jitter, each
moved about every 4 minutes, carried for 2 s (60 frames of 'moving' poses).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.events import GameEvent
from referee.game import Session, scene_at
from referee.markers.roster import Roster, RosterEntry
from referee.scene import Scene, Table
from referee.store import GameLog, Position
from referee.tags.detect import Detections
from referee.vision.pipeline import FrameResult
from referee.vision.pose import PiecePose
from referee.vision.sources import Frame
from referee.vision.track import MoveEvent, TrackedPiece, TrackerState

SCENE = {"ruleset": "paper-tigers", "table": {"width": 48, "depth": 36}}


def write_rate(path: Path, per_frame: int, seconds: float, durable: bool) -> float:
    """Events per second appended, one transaction per frame of ``per_frame`` events."""
    log = GameLog(path, durable=durable)
    game = log.create_game("rate", "paper-tigers", SCENE)
    seq, frame = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        batch = [
            GameEvent(
                seq + i + 1,
                frame / 30,
                "verdict",
                {"verdict": {"ask": "range", "ok": True, "distance": 12.3456, "reasons": ["x"]}},
                frame,
            )
            for i in range(per_frame)
        ]
        where = [Position("p1", "moving", frame * 0.01, 3.0, 0.0, 0.01, True, frame, frame / 30)]
        log.append(game, batch, where, progress=(frame, frame / 30))
        seq += per_frame
        frame += 1
    rate = seq / (time.perf_counter() - start)
    log.close()
    return rate


ROSTER = Roster(
    "DICT_4X4_100",
    tuple(
        RosterEntry(k, f"p{k}", "red" if k % 2 else "blue", "tank", (1.5, 3.0)) for k in range(40)
    ),
)
PROFILE = CalibrationProfile(
    Intrinsics.from_fov((64, 36), 60), TablePose.looking_down((24, 18), 40), TableSize(48, 36)
)


class SimulatedTable:
    """A scripted pipeline: 40 resting pieces with jitter, one carried now and then."""

    def __init__(self, seed: int = 1) -> None:
        self.rnd = random.Random(seed)
        self.roster = ROSTER
        self.initial_profile = PROFILE
        self.tracker = self
        self.rest = {e.id: (self.rnd.uniform(3, 45), self.rnd.uniform(3, 33)) for e in ROSTER}
        self.carry: tuple[str, tuple[float, float], tuple[float, float], int] | None = None

    def restore(self, poses: object) -> None:
        pass

    def reset(self) -> None:
        pass

    def _pose(self, pid: str, x: float, y: float, seen: bool = True) -> PiecePose:
        return PiecePose(pid, int(pid[1:]), x, y, 90.0, 0.006, seen)

    def process(self, frame: Frame) -> FrameResult:
        i = frame.index
        events = []
        if self.carry is None and self.rnd.random() < 40 / (4 * 60 * 30) * 1.0:
            pid = f"p{self.rnd.randrange(40)}"
            a = self.rest[pid]
            b = (min(max(a[0] + self.rnd.uniform(-6, 6), 2), 46), a[1])
            self.carry = (pid, a, b, i)
        pieces = []
        for entry in ROSTER:
            x, y = self.rest[entry.id]
            state = "settled"
            # Settled poses are running means: their jitter shrinks as samples accumulate.
            jx, jy = self.rnd.gauss(0, 0.0005), self.rnd.gauss(0, 0.0005)
            if self.carry is not None and self.carry[0] == entry.id:
                pid, a, b, began = self.carry
                k = (i - began) / 60
                if k >= 1:
                    self.rest[pid] = b
                    start, end = self._pose(pid, *a), self._pose(pid, *b)
                    d = math.dist(start.front(3.0), end.front(3.0))
                    events.append(MoveEvent(pid, start.tag, start, end, d, 0.008, 0, 0, began, i))
                    self.carry = None
                    x, y = b
                else:
                    state = "moving"
                    x, y = a[0] + (b[0] - a[0]) * k, a[1] + (b[1] - a[1]) * k + math.sin(k * 3)
                    jx = jy = 0.0
            pieces.append(TrackedPiece(self._pose(entry.id, x + jx, y + jy), state))  # type: ignore[arg-type]
        tracks = TrackerState(i, frame.t, tuple(pieces), tuple(events))
        return FrameResult(i, frame.t, Detections.empty(), tracks, tracks.events, PROFILE)


def long_game(path: Path, hours: float) -> tuple[int, int, float, float]:
    """Play ``hours`` of a 30 fps game through the session; (events, position rows, MB, s)."""
    log = GameLog(path)
    scene = Scene("paper-tigers", Table(48, 36))
    session = Session.start(SimulatedTable(), scene, log=log, game="long", source="sim")  # type: ignore[arg-type]
    image = np.zeros((1, 1, 3), np.uint8)
    frames = int(hours * 3600 * 30)
    started = time.perf_counter()
    for i in range(frames):
        session.process(Frame(i, i / 30, image))
    session.close()
    elapsed = time.perf_counter() - started
    game = log.game("long")
    (rows,) = log._con.execute("SELECT COUNT(*) FROM positions").fetchone()
    log._con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    log.close()
    return game.events, int(rows), path.stat().st_size / 1e6, elapsed


def dense_game(path: Path, events: int = 10_000) -> None:
    """A game of ``events`` events written straight to the log: 40 pieces, a move every
    second with its verdict, a terrain edit every 500 events, the carried poses at 5 Hz."""
    rnd = random.Random(3)
    log = GameLog(path, durable=False)
    roster = ROSTER.to_json()
    game = log.create_game("dense", "paper-tigers", SCENE, roster=roster)
    rest = {e.id: (rnd.uniform(3, 45), rnd.uniform(3, 33)) for e in ROSTER}
    first = [
        Position(pid, "settled", x, y, 90.0, 0.006, True, 0, 0.0) for pid, (x, y) in rest.items()
    ]
    log.append(game, [], first, progress=(0, 0.0))
    seq, frame = 0, 0
    while seq < events:
        frame += 30
        t = frame / 30
        pid = f"p{rnd.randrange(40)}"
        a = rest[pid]
        b = rest[pid] = (rnd.uniform(3, 45), rnd.uniform(3, 33))
        path_rows = [
            Position(
                pid,
                "moving",
                a[0] + (b[0] - a[0]) * k / 5,
                a[1],
                90.0,
                0.006,
                True,
                frame - 30 + 6 * k,
                t - 1 + 0.2 * k,
            )
            for k in range(5)
        ]
        move = {
            "piece": pid,
            "from": {"x": a[0], "y": a[1], "heading": 90.0},
            "to": {"x": b[0], "y": b[1], "heading": 90.0},
            "distance": math.dist(a, b),
            "uncertainty": 0.008,
        }
        batch = [
            GameEvent(seq + 1, t, "move", move, frame),
            GameEvent(
                seq + 2,
                t,
                "verdict",
                {
                    "about": seq + 1,
                    "verdict": {"ask": "move", "ok": True, "reasons": ["moved"], "distance": 1.0},
                },
                frame,
            ),
        ]
        if (seq // 500) != ((seq + 2) // 500):
            woods = {"id": f"w{seq}", "kind": "woods", "polygon": [[1, 1], [3, 1], [3, 3], [1, 3]]}
            batch.append(
                GameEvent(
                    seq + 3,
                    t,
                    "edit",
                    {"edit": "terrain", "action": "add", "terrain": woods},
                    frame,
                )
            )
        seq += len(batch)
        rows = [*path_rows, Position(pid, "settled", *b, 90.0, 0.006, True, frame, t)]
        log.append(game, batch, rows, progress=(frame, t))
    log.close()


def replay_times(path: Path, name: str, samples: int = 60) -> tuple[int, float, float]:
    """Median and worst ms of scene_at over random moments of a logged game."""
    log = GameLog(path, readonly=True)
    game = log.game(name)
    rnd = random.Random(2)
    times = []
    for k in range(samples):
        start = time.perf_counter()
        if k % 2:
            scene_at(log, game, seq=rnd.randint(1, game.last_seq))
        else:
            scene_at(log, game, t=rnd.uniform(0, game.last_t))
        times.append((time.perf_counter() - start) * 1000)
    log.close()
    return game.last_seq, statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hours", type=float, default=4.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        print("durable writes (synchronous=FULL, WAL), one transaction per frame:")
        for per_frame in (1, 5, 20, 50):
            rates = [
                write_rate(root / f"rate-{per_frame}-{k}.sqlite", per_frame, 1.5, True)
                for k in range(3)
            ]
            print(f"  {per_frame:>3} events/frame: {statistics.median(rates):9.0f} events/s")
        normal = write_rate(root / "normal.sqlite", 5, 1.5, False)
        print(f"  (synchronous=NORMAL, 5 events/frame: {normal:.0f} events/s)")
        events, rows, size, elapsed = long_game(root / "long.sqlite", args.hours)
        print(
            f"{args.hours:g} h game, 30 fps, 40 pieces: {events} events, {rows} position rows, "
            f"{size:.1f} MB, session time {elapsed:.0f} s "
            f"({elapsed / (args.hours * 3600 * 30) * 1000:.3f} ms per frame)"
        )
        last, median, worst = replay_times(root / "long.sqlite", "long")
        print(
            f"replay of that {last}-event game to a random moment: median {median:.1f} ms, "
            f"worst {worst:.1f} ms"
        )
        dense_game(root / "dense.sqlite")
        last, median, worst = replay_times(root / "dense.sqlite", "dense")
        print(
            f"replay of a {last}-event game to a random moment: median {median:.1f} ms, "
            f"worst {worst:.1f} ms"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
