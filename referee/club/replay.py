"""A club game's table at a moment, rebuilt from what the club holds: the scene the game
started from and its events (moves, removals, entries, terrain edits, corrections).

The club has no per-frame positions (a table sends its export stream, not its
position rows), so a piece stands where its last move up to that moment put
it; before its first move, where that move started (the table log's resting
position then), or where the scene placed it. A move voided by a correction
never happened; a move a correction says ended elsewhere ended there. This is
the table log's ``replay --at`` for every piece that has rested or moved,
which is what the club page draws.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.events import GameEvent

SHAPING = ("move", "removed", "entered", "edit", "correction")
"""The event types that shape a club game's table."""


@dataclass(frozen=True)
class PiecePose:
    id: str
    side: str
    kind: str
    x: float
    y: float
    heading: float
    base: tuple[float, float]


@dataclass(frozen=True)
class Board:
    """What the mini-map draws: table size, terrain, pieces (in inches)."""

    width: float
    depth: float
    terrain: tuple[Mapping[str, Any], ...]
    pieces: tuple[PiecePose, ...]
    seq: int = 0
    t: float = 0.0
    moved: frozenset[str] = field(default_factory=frozenset)
    """Pieces whose position comes from a move (the others stand where the scene put them)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "table": {"width": self.width, "depth": self.depth},
            "terrain": list(self.terrain),
            "pieces": [
                {
                    "id": p.id,
                    "side": p.side,
                    "kind": p.kind,
                    "x": round(p.x, 4),
                    "y": round(p.y, 4),
                    "heading": round(p.heading, 2),
                    "base": list(p.base),
                }
                for p in self.pieces
            ],
            "seq": self.seq,
            "t": round(self.t, 4),
        }


def _num(value: Any, default: float = 0.0) -> float:
    return (
        float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default
    )


def _base(value: Any) -> tuple[float, float]:
    if isinstance(value, Sequence) and len(value) == 2:
        return (_num(value[0], 1.0), _num(value[1], 1.0))
    return (1.0, 1.0)


def board_at(
    scene: Mapping[str, Any],
    roster: Mapping[str, Any] | None,
    events: Iterable[GameEvent],
    upto_seq: int | None = None,
) -> Board:
    """The table after event ``upto_seq`` (all of ``events`` when None).

    ``events`` are the game's moves, removals, entries, edits and corrections
    (:data:`SHAPING`), in order (later ones are read too, for a piece's position
    before its first move). A removed piece is off the table until it enters again
    (or a correction voids the removal).
    """
    raw_table = scene.get("table")
    table: Mapping[str, Any] = raw_table if isinstance(raw_table, Mapping) else {}
    width, depth = _num(table.get("width"), 48.0), _num(table.get("depth"), 36.0)
    kinds: dict[str, dict[str, Any]] = {}
    for entry in (roster or {}).get("pieces", []) or []:
        if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
            kinds[entry["id"]] = dict(entry)
    poses: dict[str, list[float]] = {}
    for piece in scene.get("pieces", []) or []:
        if isinstance(piece, Mapping) and isinstance(piece.get("id"), str):
            kinds.setdefault(piece["id"], {}).update(piece)
            poses[piece["id"]] = [
                _num(piece.get("x")),
                _num(piece.get("y")),
                _num(piece.get("heading")),
            ]
    terrain: list[Mapping[str, Any]] = [
        t for t in scene.get("terrain", []) or [] if isinstance(t, Mapping)
    ]
    listed = list(events)
    voided = {
        e.data.get("supersedes")
        for e in listed
        if e.type == "correction" and e.data.get("void") and (upto_seq is None or e.seq <= upto_seq)
    }
    # A correction's "to" is where the move really ended (from the move on, as voiding is).
    fixed_to = {
        e.data.get("supersedes"): e.data["to"]
        for e in listed
        if e.type == "correction"
        and isinstance(e.data.get("to"), Mapping)
        and (upto_seq is None or e.seq <= upto_seq)
    }
    moved: set[str] = set()
    seq, t = 0, 0.0
    for event in listed:
        piece = event.piece
        if upto_seq is not None and event.seq > upto_seq:
            # Later moves (and removals) tell where a piece rested before them; a later
            # entry, that it was not on the table yet.
            if piece and piece not in moved and event.seq not in voided:
                if event.type in ("move", "removed"):
                    start = event.data.get("from" if event.type == "move" else "at", {})
                    poses[piece] = [
                        _num(start.get("x")),
                        _num(start.get("y")),
                        _num(start.get("heading")),
                    ]
                    moved.add(piece)
                elif event.type == "entered":
                    poses.pop(piece, None)
                    moved.add(piece)
            continue
        seq, t = event.seq, event.t
        if event.seq in voided:
            continue
        if event.type == "move" and piece:
            end = fixed_to.get(event.seq) or event.data.get("to", {})
            poses[piece] = [_num(end.get("x")), _num(end.get("y")), _num(end.get("heading"))]
            moved.add(piece)
        elif event.type in ("removed", "entered") and piece:
            # A casualty is off the table (a correction's "to" puts it there instead); a
            # reinforcement is on it where it settled.
            end = fixed_to.get(event.seq) or (
                event.data.get("at") if event.type == "entered" else None
            )
            if isinstance(end, Mapping):
                poses[piece] = [_num(end.get("x")), _num(end.get("y")), _num(end.get("heading"))]
            else:
                poses.pop(piece, None)
            moved.add(piece)
        elif event.type == "edit" and event.data.get("edit") == "terrain":
            terrain = _edited(terrain, event.data)
    # Moves after the moment only filled in starting places: recount what moved by then.
    moved_by_then = {
        e.piece
        for e in listed
        if e.type == "move" and e.piece and (upto_seq is None or e.seq <= upto_seq)
    }
    pieces = tuple(
        PiecePose(
            pid,
            str(kinds.get(pid, {}).get("side", "")),
            str(kinds.get(pid, {}).get("kind", "")),
            pose[0],
            pose[1],
            pose[2],
            _base(kinds.get(pid, {}).get("base")),
        )
        for pid, pose in sorted(poses.items())
    )
    return Board(
        width, depth, tuple(terrain), pieces, seq, t, frozenset(p for p in moved_by_then if p)
    )


def _edited(terrain: list[Mapping[str, Any]], edit: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    action, item = edit.get("action"), edit.get("terrain")
    if action == "remove":
        return [t for t in terrain if t.get("id") != edit.get("id")]
    if not isinstance(item, Mapping):
        return terrain
    kept = [t for t in terrain if t.get("id") != item.get("id")]
    return [*kept, item]


__all__ = ["SHAPING", "Board", "PiecePose", "board_at"]
