"""The table a session keeps: where each piece rests, the terrain now, the roster naming them.

:class:`TableState` is what the rules see of a game at this moment: the
scene file's fixed pieces, every roster piece the camera (or the log, or a
correction) put at rest, and the terrain as edited. The session owns one and
calls it under its own lock (it has no lock of its own and calls nothing).
"""

from __future__ import annotations

from dataclasses import replace

from referee.geometry import Pose
from referee.markers.roster import Roster
from referee.scene import Piece, Scene, Terrain
from referee.vision.pipeline import FrameResult


class TableState:
    """The live table of one game, started from ``scene`` with ``roster`` naming the pieces."""

    def __init__(self, scene: Scene, roster: Roster) -> None:
        self.initial = scene
        """The scene the game was opened on (table, sides, settings, questions)."""
        self.roster = roster
        self.terrain: tuple[Terrain, ...] = scene.terrain
        self.placed: dict[str, Piece] = {}
        """Every roster piece at rest on the table now, by id."""
        self._fixed = {p.id: p for p in scene if roster.by_id(p.id) is None}
        self._templates = {p.id: p for p in scene}

    def scene(self) -> Scene:
        """The table now: fixed scene pieces, every piece seen at rest, the current terrain."""
        pieces = (*self._fixed.values(), *self.placed.values())
        return replace(self.initial, pieces=pieces, terrain=self.terrain, queries=())

    def place(self, piece_id: str, pose: Pose, uncertainty: float) -> bool:
        """Put ``piece_id`` at rest at ``pose``; False (and nothing placed) when neither the
        scene nor the roster knows it."""
        template = self._templates.get(piece_id)
        if template is None:
            entry = self.roster.by_id(piece_id)
            if entry is None:
                return False
            template = Piece(entry.id, entry.side, entry.kind, 0, 0, 0, entry.base, name=entry.name)
            self._templates[piece_id] = template
        moved = template.moved(pose.x, pose.y, pose.heading)
        self.placed[piece_id] = replace(moved, uncertainty=uncertainty)
        return True

    def lift(self, piece_id: str) -> None:
        """Take a piece off the table (a casualty): the rules no longer count it."""
        self.placed.pop(piece_id, None)

    def doubt(self, piece_id: str) -> float:
        """How uncertain the piece's resting pose is (0 when it is not on the table)."""
        placed = self.placed.get(piece_id)
        return placed.uncertainty if placed is not None else 0.0

    def knows(self, piece_id: str) -> bool:
        """Whether the scene or the roster names ``piece_id``."""
        return piece_id in self._templates or self.roster.by_id(piece_id) is not None

    def use_roster(self, roster: Roster) -> None:
        """Follow an edited roster: a piece it no longer names leaves the table."""
        self.roster = roster
        for pid in [p for p in self.placed if roster.by_id(p) is None]:
            del self.placed[pid]
            self._templates.pop(pid, None)

    def hidden_terrain(self, latest: FrameResult | None) -> frozenset[str]:
        """Terrain templates whose tags are all hidden in ``latest``: each stays where last
        seen."""
        if latest is None:
            return frozenset()
        ids = {t.id for t in self.roster.templates}
        return frozenset(
            p.pose.id for p in latest.tracks.pieces if p.pose.id in ids and not p.pose.seen
        )


__all__ = ["TableState"]
