"""What the session's stream carries: a ruling on a settled move, one update of the stream.

Values only (frozen dataclasses), so the session's parts and every reader (live table,
dashboard, commands) share them without importing the session itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.events import GameEvent
from referee.rules import Verdict
from referee.rules.flow import Judgement
from referee.scene import PIECE_KEYS
from referee.vision.pipeline import FrameResult
from referee.vision.track import MoveEvent


@dataclass(frozen=True)
class Ruling:
    """A settled move and what the rules say about it (what ``run`` prints)."""

    move: MoveEvent
    judgement: Judgement
    seq: int
    """Sequence number of the move's event."""

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        return self.judgement.verdicts

    @property
    def ok(self) -> bool | None:
        return self.judgement.ok

    def describe(self) -> str:
        m = self.move
        word = {True: "ok", False: "NOT OK", None: "too close to call"}[self.ok]
        # Which measure: the rules may judge another (Pz8's base centre, on the next line).
        lines = [
            f"{m.end_t:7.2f}s  {m.piece} moved {m.front_distance:.2f}in "
            f"(front of base, +/-{m.uncertainty:.3f}) to ({m.to_pose.x:.2f}, {m.to_pose.y:.2f}) "
            f"facing {m.to_pose.heading:.0f}: {word}"
        ]
        for verdict in self.verdicts:
            lines.extend(f"           {reason}" for reason in verdict.reasons)
        lines.extend(f"           {note}" for note in self.judgement.notes)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """A line of ``run --events`` (the events file's ``ruling`` record)."""
        return {
            "event": "ruling",
            "piece": self.move.piece,
            "front_distance": round(self.move.front_distance, 4),
            "end_t": round(self.move.end_t, 4),
            "ok": self.ok,
            "verdicts": [v.to_json() for v in self.verdicts],
            "notes": list(self.judgement.notes),
        }


@dataclass(frozen=True)
class SessionUpdate:
    """What one step of the session produced, after it was logged."""

    events: tuple[GameEvent, ...]
    result: FrameResult | None = None
    """The pipeline's frame result (None for a declaration, edit or question)."""
    rulings: tuple[Ruling, ...] = ()
    verdicts: tuple[Verdict, ...] = ()
    """Verdicts of this update in event order (the rulings' and standing questions')."""


Subscriber = Callable[[SessionUpdate], None]


def named_pieces(query: Mapping[str, Any]) -> frozenset[str]:
    """The piece ids a question names (its ``from``, ``to``, ``piece``... and ``chain``).

    >>> sorted(named_pieces({"ask": "range", "from": "a", "to": "b"}))
    ['a', 'b']
    """
    names = {query[k] for k in PIECE_KEYS if isinstance(query.get(k), str)}
    chain = query.get("chain")
    if isinstance(chain, list):
        names.update(c for c in chain if isinstance(c, str))
    return frozenset(names)


__all__ = ["Ruling", "SessionUpdate", "Subscriber", "named_pieces"]
