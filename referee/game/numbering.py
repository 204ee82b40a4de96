"""The numbers of a game's one stream: each new event gets the next ``seq``.

:class:`Numbering` stamps every event a session's parts make (the frame
loop's, the players', a correction's) with the next sequence number and the
frame and game time it is about, so the parts share one sequence without
sharing the session. It has no lock: the session calls it under its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.events import GameEvent
from referee.game.publication import Publication
from referee.game.updates import named_pieces
from referee.rules import Verdict


class Numbering:
    """The game's last ``seq``, frame and time, and the events numbered after them."""

    def __init__(self, publication: Publication) -> None:
        self.seq = 0
        """The last event's number (0 before the first)."""
        self.frame = -1
        """The frame the events are about (-1 before the first: no frame)."""
        self.t = 0.0
        """Game time of that frame, seconds."""
        self._publication = publication

    def event(self, kind: str, data: Mapping[str, Any], t: float | None = None) -> GameEvent:
        """The next event: ``kind`` with ``data``, at this frame (at ``t`` when given)."""
        self.seq += 1
        frame = self.frame if self.frame >= 0 else None
        return GameEvent(self.seq, self.t if t is None else t, kind, data, frame)

    def verdict(
        self, verdict: Verdict, about: int | None = None, question: int | None = None
    ) -> GameEvent:
        """The next event, a ``verdict`` (``about`` the event it judges, the standing
        ``question`` it answers), kept as one of the change's verdicts for the update."""
        data: dict[str, Any] = {"verdict": verdict.to_json()}
        if about is not None:
            data["about"] = about
        if question is not None:
            data["question"] = question
        pieces = sorted(named_pieces(verdict.query))
        if pieces:
            data["pieces"] = pieces
        self._publication.made(about, verdict)
        return self.event("verdict", data)


__all__ = ["Numbering"]
