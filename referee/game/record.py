"""The game log's side of the session: what each change logs, with which pictures.

A :class:`Recorder` writes one transaction a change (events, position rows, a progress
mark, the verdicts' evidence pictures) before anyone hears of it. It takes no lock of
its own: it runs under the owning session's lock and calls only the game log, whose lock
is taken inside it and calls nothing back (the lock order documented on the session).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from referee.events import GameEvent
from referee.game.evidence import camera_for, capture
from referee.scene import Piece, Scene
from referee.store import Evidence, GameInfo, GameLog, Position
from referee.vision.pipeline import FrameResult

POSITION_NOISE = 0.02
"""Inches a logged pose must change by before it is logged again."""
HEADING_NOISE = 0.5
"""...or degrees."""
MOVING_EVERY = 0.2
"""Seconds between logged poses of a piece in a hand: enough to replay its path."""
PROGRESS_EVERY = 30
"""Frames between progress marks when nothing else is logged."""


class Recorder:
    """Writes a game's changes to its log (nothing at all without a log)."""

    def __init__(self, log: GameLog | None, game: GameInfo | None) -> None:
        self.log = log
        self.game = game
        self.last_progress = -1
        """The last frame a progress mark was logged for."""
        self.logged: dict[str, Position] = {}
        """Each piece's last logged position row."""
        self._evidence_used: int | None = None
        """Bytes of evidence the game holds (read from the log at the first capture)."""

    def commit(
        self,
        events: Sequence[GameEvent],
        positions: Sequence[Position],
        frame: int,
        t: float,
        seeing: FrameResult | None,
        scene: Callable[[], Scene],
        force_progress: bool = False,
    ) -> None:
        """Log events and positions (one transaction), with a progress mark at ``frame``
        when something changed or every :data:`PROGRESS_EVERY` frames; ``seeing`` is the
        frame whose picture is the verdicts' evidence, ``scene`` the table now (asked only
        when there is evidence to place). Raises the log's error, having logged nothing."""
        if self.log is None or self.game is None:
            return
        progress = None
        if events or positions or force_progress or frame - self.last_progress >= PROGRESS_EVERY:
            progress = (frame, t)
        if not events and not positions and progress is None:
            return
        evidence = self.evidence(events, seeing, scene)
        self.log.append(self.game, events, positions, progress, evidence)
        if progress is not None:
            self.last_progress = frame
        if evidence and self._evidence_used is not None:
            self._evidence_used += sum(len(e.data) for e in evidence)

    def evidence(
        self,
        events: Sequence[GameEvent],
        seeing: FrameResult | None,
        scene: Callable[[], Scene],
    ) -> list[Evidence]:
        """Each verdict's and correction's pictures from the frame in hand, within the
        game's cap (past it, verdicts are logged without them)."""
        if self.log is None or self.game is None or self.log.evidence_cap <= 0:
            return []
        if seeing is None or seeing.image is None:
            return []
        out: list[Evidence] = []
        where: dict[str, Piece] | None = None
        for event in events:
            if event.type == "verdict":
                names = event.data.get("pieces") or []
            elif event.type == "correction" and event.piece is not None:
                names = [event.piece]
            else:
                continue
            if where is None:
                where = {p.id: p for p in scene()}
                if self._evidence_used is None:
                    self._evidence_used = self.log.evidence_bytes(self.game)
            points = [(where[n].x, where[n].y) for n in names if n in where]
            image, profile = camera_for(seeing, names)
            if image is None:
                continue
            pictures = capture(image, profile, points)
            size = sum(len(b) for b in pictures.values())
            used = self._evidence_used or 0
            if not pictures or used + size > self.log.evidence_cap:
                continue
            self._evidence_used = used + size
            out.extend(Evidence(event.seq, kind, data) for kind, data in pictures.items())
        if out and self._evidence_used is not None:
            # Counted once the transaction commits (commit adds them back).
            self._evidence_used -= sum(len(e.data) for e in out)
        return out

    def changed_positions(self, result: FrameResult) -> list[Position]:
        """The frame's position rows worth logging: a new state, or a pose moved past the
        noise (a piece in a hand at most every :data:`MOVING_EVERY` seconds)."""
        rows = []
        for tracked in result.tracks.pieces:
            pose = tracked.pose
            last = self.logged.get(pose.id)
            if last is not None and last.state == tracked.state:
                if tracked.state in ("moving", "new") and result.t - last.t < MOVING_EVERY:
                    continue
                if (
                    math.hypot(pose.x - last.x, pose.y - last.y) <= POSITION_NOISE
                    and abs((pose.heading - last.heading + 180) % 360 - 180) <= HEADING_NOISE
                ):
                    continue
            row = Position(
                pose.id,
                tracked.state,
                pose.x,
                pose.y,
                pose.heading,
                pose.uncertainty,
                pose.seen,
                result.frame,
                result.t,
            )
            self.logged[pose.id] = row
            rows.append(row)
        return rows


__all__ = [
    "HEADING_NOISE",
    "MOVING_EVERY",
    "POSITION_NOISE",
    "PROGRESS_EVERY",
    "Recorder",
]
