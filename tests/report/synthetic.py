"""A synthetic game log written through the store's own API, for the report's tests and
``benchmarks/bench_report.py``: what a game of that length would log (moves with their
verdicts, standing questions answered after them, position rows at every rest), with
known turns and a few corrections, so a test knows every count the report must show.

Turns: each side moves ``per_turn`` pieces one after another (1 s apart), then a
``handover`` pause longer than the report's default turn pause before the other side.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.events import GameEvent
from referee.geometry import front_point
from referee.store import EVIDENCE_KINDS, Evidence, GameLog, Position

FPS = 30


@dataclass
class Written:
    """What the builder logged: the counts and seqs a report must show."""

    moves: list[dict[str, Any]] = field(default_factory=list)
    disputes: int = 0
    turns: int = 0
    corrected: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Move seq -> its correction's data."""
    duration: float = 0.0
    evidence: dict[int, dict[str, bytes]] = field(default_factory=dict)
    """Dispute seq -> the JPEG of each kind logged with it (``evidence=True`` only)."""


def _jpeg(seq: int, kind: str) -> bytes:
    """A small real JPEG, different for every dispute and kind (so a test can tell which
    picture went where)."""
    import cv2
    import numpy as np

    shade = (seq * 37 + EVIDENCE_KINDS.index(kind) * 101) % 256
    picture = np.full((48 + 8 * EVIDENCE_KINDS.index(kind), 64, 3), shade, np.uint8)
    cv2.putText(picture, str(seq), (4, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255))
    ok, data = cv2.imencode(".jpg", picture)
    assert ok
    return bytes(data)


def scene_and_roster(pieces: int, width: float = 48, depth: float = 36) -> tuple[dict, dict]:
    sides = ("soviet", "german")
    scene_pieces, roster = [], []
    for i in range(pieces):
        side = sides[i % 2]
        pid = f"{side[0]}{i // 2}"
        x = 4.0 + (i // 2) * (width - 8) / max(1, pieces // 2)
        y = 4.0 if side == "german" else depth - 4.0
        heading = 90.0 if side == "german" else 270.0
        scene_pieces.append(
            {
                "id": pid,
                "side": side,
                "kind": "infantry",
                "x": x,
                "y": y,
                "heading": heading,
                "base": [2.0, 1.0],
            }
        )
        roster.append(
            {"tag": i + 1, "id": pid, "side": side, "kind": "infantry", "base": [2.0, 1.0]}
        )
    scene = {
        "ruleset": "paper-tigers",
        "table": {"width": width, "depth": depth},
        "pieces": scene_pieces,
        "terrain": [
            {"id": "wood1", "kind": "woods", "polygon": [[20, 14], [28, 14], [28, 22], [20, 22]]}
        ],
        "queries": [{"ask": "range", "from": scene_pieces[0]["id"], "to": scene_pieces[1]["id"]}],
    }
    return scene, {"dictionary": "DICT_4X4_100", "pieces": roster}


def build_game(
    db: Path,
    name: str = "synthetic",
    *,
    seconds: float = 300.0,
    pieces: int = 8,
    per_turn: int = 3,
    handover: float = 25.0,
    corrections: int = 2,
    seed: int = 1,
    evidence: bool = False,
) -> Written:
    """Log a game of about ``seconds`` into ``db``; returns what was logged. ``evidence``
    keeps a picture of each kind with every dispute, as ``referee run`` does."""
    rng = random.Random(seed)
    scene, roster = scene_and_roster(pieces)
    table = scene["table"]
    poses = {p["id"]: (p["x"], p["y"], p["heading"]) for p in scene["pieces"]}
    sides = {p["id"]: p["side"] for p in scene["pieces"]}
    written = Written()
    with GameLog(db) as log:
        game = log.create_game(name, scene["ruleset"], scene, source="synthetic", roster=roster)
        seq = 0

        def event(t: float, kind: str, data: dict[str, Any]) -> GameEvent:
            nonlocal seq
            seq += 1
            return GameEvent(seq, t, kind, data, round(t * FPS))

        rows = [
            Position(pid, "settled", x, y, h, 0.005, True, 0, 0.0)
            for pid, (x, y, h) in poses.items()
        ]
        log.append(game, [], rows, (0, 0.0))
        t = 5.0
        side_turn = 0
        while t < seconds:
            written.turns += 1
            side = ("soviet", "german")[side_turn % 2]
            movers = [pid for pid in poses if sides[pid] == side]
            for _ in range(per_turn):
                pid = rng.choice(movers)
                x, y, h = poses[pid]
                angle, reach = rng.uniform(0, math.tau), rng.uniform(1.0, 7.0)
                nx = min(max(x + reach * math.cos(angle), 2.0), table["width"] - 2.0)
                ny = min(max(y + reach * math.sin(angle), 2.0), table["depth"] - 2.0)
                nh = math.degrees(math.atan2(ny - y, nx - x)) % 360.0
                start_t, end_t = t, t + rng.uniform(1.5, 3.0)
                a, b = front_point(x, y, h, 1.0), front_point(nx, ny, nh, 1.0)
                distance = round(math.dist(a, b), 4)
                data = {
                    "piece": pid,
                    "tag": 0,
                    "distance": distance,
                    "uncertainty": 0.005,
                    "from": {"x": round(x, 4), "y": round(y, 4), "heading": round(h, 2)},
                    "to": {"x": round(nx, 4), "y": round(ny, 4), "heading": round(nh, 2)},
                    "start_t": round(start_t, 4),
                    "end_t": round(end_t, 4),
                }
                settle = end_t + 0.5
                move = event(settle, "move", data)
                ok = True if distance <= 5.9 else (None if distance <= 6.1 else False)
                word = {True: "legal", None: "too close to call", False: "NOT legal"}[ok]
                verdict = {
                    "ask": "move",
                    "ok": ok,
                    "distance": distance,
                    "summary": f"move {pid}: {distance:.2f}in, {word} (limit 6in)",
                    "reasons": [f"moved {distance:.2f}in measured at the front"],
                }
                events = [
                    move,
                    event(
                        settle, "verdict", {"verdict": verdict, "about": move.seq, "pieces": [pid]}
                    ),
                ]
                written.moves.append({"seq": move.seq, **data})
                if len(written.moves) % 3 == 0:
                    first, second = scene["pieces"][0]["id"], scene["pieces"][1]["id"]
                    reach_now = math.dist(poses[first][:2], poses[second][:2])
                    events.append(
                        event(
                            settle,
                            "verdict",
                            {
                                "verdict": {
                                    "ask": "range",
                                    "ok": True,
                                    "distance": round(reach_now, 4),
                                    "summary": f"range {first} -> {second}: {reach_now:.2f}in",
                                    "reasons": [f"{reach_now:.2f}in centre to centre"],
                                },
                                "question": 0,
                                "pieces": sorted([first, second]),
                            },
                        )
                    )
                    written.disputes += 1
                    if evidence:
                        asked = events[-1].seq
                        written.evidence[asked] = {k: _jpeg(asked, k) for k in EVIDENCE_KINDS}
                poses[pid] = (nx, ny, nh)
                pictures = [
                    Evidence(e.seq, kind, data)
                    for e in events
                    for kind, data in written.evidence.get(e.seq, {}).items()
                ]
                log.append(
                    game,
                    events,
                    [Position(pid, "settled", nx, ny, nh, 0.005, True, move.frame or 0, settle)],
                    (move.frame or 0, settle),
                    evidence=pictures,
                )
                t = settle + 1.0
            side_turn += 1
            t += handover
        end = t
        fixes = []
        for k in range(corrections):
            target = written.moves[(k + 1) * len(written.moves) // (corrections + 1)]
            if k % 2:
                fix = {"supersedes": target["seq"], "void": True, "reason": "knocked over"}
                fixes.append(event(end, "correction", fix))
            else:
                to = {"x": target["to"]["x"] + 0.5, "y": target["to"]["y"], "heading": 0.0}
                fix = {"supersedes": target["seq"], "to": to, "reason": "tag hidden"}
                fixes.append(event(end, "correction", fix))
                again = {
                    "ask": "move",
                    "ok": True,
                    "summary": f"move {target['piece']}: legal",
                    "reasons": ["judged again on the corrected table"],
                }
                fixes.append(event(end, "verdict", {"verdict": again, "about": fixes[-1].seq}))
            written.corrected[target["seq"]] = fix
        log.append(game, fixes, [], (round(end * FPS), end))
        written.duration = end
    return written
