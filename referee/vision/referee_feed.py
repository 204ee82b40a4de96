"""Feed the rules service from the pipeline: every settled move gets the ruleset's verdict.

:class:`RulesFeed` keeps a :class:`~referee.scene.Scene` (terrain, sides,
cards from a scene file; pieces placed where the camera saw them settle) and
turns each :class:`~referee.vision.track.MoveEvent` into a ``move`` question
(from the settled start to the settled end, with the measured uncertainty),
plus the Follow Me after-move check for a piece that follows another.
Allowances announced in the scene file's move queries (``{"ask": "move",
"piece": "sq1", "allowance": 5}``; a ``to`` there is ignored) apply to that
piece's next moves in order, and mark it as acting on its own card (not
following); without one the ruleset still checks caps and terrain. A Follow Me
announced there (``{"ask": "follow_me", "leader": "t34a", "action":
"move"}``) makes the leader's next move open a follow action: the chains
are worked out from where everyone stood before it, and each follower that
moves next is checked to have ended within reach of the unit it follows,
until a piece outside the chains moves.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from referee.calibration.profile import CalibrationProfile
from referee.errors import RefereeError
from referee.markers.roster import Roster
from referee.rules import Ruleset, Verdict, find_ruleset
from referee.scene import Piece, Scene, Table, load_scene
from referee.vision.pipeline import FrameResult
from referee.vision.pose import PiecePose
from referee.vision.track import MoveEvent

DEFAULT_RULESET = "paper-tigers"


@dataclass(frozen=True)
class Ruling:
    """A settled move and what the rules say about it."""

    move: MoveEvent
    verdicts: tuple[Verdict, ...]
    notes: tuple[str, ...] = ()
    """Information that is not a verdict (e.g. who may now follow this leader)."""

    @property
    def ok(self) -> bool | None:
        """False if any verdict says no, None if any is too close to call, else True."""
        values = [v.ok for v in self.verdicts]
        if any(v is False for v in values):
            return False
        if any(v is None for v in values):
            return None
        return True

    def describe(self) -> str:
        m = self.move
        word = {True: "ok", False: "NOT OK", None: "too close to call"}[self.ok]
        lines = [
            f"{m.end_t:7.2f}s  {m.piece} moved {m.front_distance:.2f}in "
            f"(+/-{m.uncertainty:.3f}) to ({m.to_pose.x:.2f}, {m.to_pose.y:.2f}) "
            f"facing {m.to_pose.heading:.0f}: {word}"
        ]
        for verdict in self.verdicts:
            lines.extend(f"           {reason}" for reason in verdict.reasons)
        lines.extend(f"           {note}" for note in self.notes)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "ruling",
            "piece": self.move.piece,
            "front_distance": round(self.move.front_distance, 4),
            "end_t": round(self.move.end_t, 4),
            "ok": self.ok,
            "verdicts": [v.to_json() for v in self.verdicts],
            "notes": list(self.notes),
        }


def _bare_scene(profile: CalibrationProfile, ruleset: str) -> Scene:
    """Just the profile's table: no terrain, no pieces until the camera sees them settle."""
    table = Table(profile.table.width, profile.table.depth, profile.table.inch_mm)
    return Scene(ruleset, table, ())


def _pose_dict(pose: PiecePose) -> dict[str, float]:
    return {"x": pose.x, "y": pose.y, "heading": pose.heading}


class RulesFeed:
    """Subscribes to pipeline results; returns :class:`Ruling` values for settled moves."""

    def __init__(self, scene: Scene, ruleset: Ruleset, roster: Roster) -> None:
        self.scene = scene
        self.ruleset = ruleset
        self.roster = roster
        self._placed: set[str] = set()
        self._allowances: dict[str, list[float]] = {}
        self._announced: list[Mapping[str, Any]] = [
            q
            for q in scene.queries
            if q.get("ask") == "follow_me" and q.get("action", "move") == "move"
        ]
        self._own_moves = {str(q.get("piece")) for q in scene.queries if q.get("ask") == "move"}
        self._following: dict[str, str] = {}
        """follower id -> id of the unit it follows, during a Follow Me move action."""
        for query in scene.queries:
            if query.get("ask") == "move" and "allowance" in query:
                allowance = query["allowance"]
                if isinstance(allowance, (int, float)) and math.isfinite(allowance):
                    self._allowances.setdefault(str(query["piece"]), []).append(float(allowance))

    @classmethod
    def create(
        cls,
        roster: Roster,
        profile: CalibrationProfile,
        scene_path: str | None = None,
        ruleset_name: str | None = None,
    ) -> RulesFeed:
        """Scene from a file (terrain, sides, cards) or just the table; pieces from the roster."""
        if scene_path:
            scene = load_scene(scene_path)
        else:
            scene = _bare_scene(profile, ruleset_name or DEFAULT_RULESET)
        name = ruleset_name or scene.ruleset or DEFAULT_RULESET
        try:
            ruleset = find_ruleset(name, scene.settings if name == scene.ruleset else None)
        except ValueError as error:
            raise RefereeError(f"--ruleset: {error}") from None
        return cls(scene, ruleset, roster)

    def _piece(self, piece_id: str) -> Piece | None:
        piece = self.scene.get(piece_id)
        if piece is not None:
            return piece
        entry = self.roster.by_id(piece_id)
        if entry is None:
            return None
        return Piece(entry.id, entry.side, entry.kind, 0.0, 0.0, 0.0, entry.base, name=entry.name)

    def _place(self, pose: PiecePose) -> None:
        piece = self._piece(pose.id)
        if piece is None:
            return
        moved = piece.moved(pose.x, pose.y, pose.heading)
        self.scene = self.scene.with_pieces(replace(moved, uncertainty=pose.uncertainty))
        self._placed.add(pose.id)

    def update(self, result: FrameResult) -> list[Ruling]:
        """Rulings for this frame's moves; the scene follows every settled piece."""
        rulings = []
        for event in result.events:
            if isinstance(event, MoveEvent):
                self._place(event.from_pose)
                rulings.append(self.judge(event))
                self._place(event.to_pose)
        for tracked in result.tracks.pieces:
            if tracked.state == "settled" and tracked.pose.id not in self._placed:
                self._place(tracked.pose)
        return rulings

    def judge(self, event: MoveEvent) -> Ruling:
        """The move question (and Follow Me check) for one settled move."""
        query: dict[str, Any] = {
            "ask": "move",
            "piece": event.piece,
            "from": _pose_dict(event.from_pose),
            "to": _pose_dict(event.to_pose),
        }
        queue = self._allowances.get(event.piece)
        if queue:
            query["allowance"] = queue.pop(0)
        verdicts = [self._answer(query)]
        notes: list[str] = []
        piece = self.scene.get(event.piece)
        follows = self._following.pop(event.piece, None)
        if follows is None:
            self._following = {}
            notes.extend(self._open_follow_action(event.piece))
        if follows is None and piece is not None and piece.followed:
            follows = piece.followed
        if follows is not None and piece is not None:
            after = self.scene.with_pieces(
                piece.moved(event.to_pose.x, event.to_pose.y, event.to_pose.heading)
            )
            verdicts.append(
                self._answer(
                    {"ask": "follow_check", "follower": event.piece, "follows": follows}, after
                )
            )
        return Ruling(event, tuple(verdicts), tuple(notes))

    def _open_follow_action(self, leader: str) -> list[str]:
        """If a Follow Me was announced for ``leader``, work out who may follow whom."""
        announced = next((q for q in self._announced if q.get("leader") == leader), None)
        if announced is None or leader not in self.scene:
            return []
        self._announced.remove(announced)
        verdict = self._answer(dict(announced))
        chains = verdict.chains or ()
        for chain in sorted(chains, key=len, reverse=True):
            for before, after in itertools.pairwise(chain):
                # A unit with its own announced move acts on its own card, not as a follower.
                if after in self._own_moves:
                    break
                self._following[after] = before
        if not self._following:
            return [f"Follow Me by {leader}: no unit may follow"]
        pairs = ", ".join(f"{f} follows {lead}" for f, lead in self._following.items())
        return [f"Follow Me by {leader}: {pairs}"]

    def _answer(self, query: Mapping[str, Any], scene: Scene | None = None) -> Verdict:
        try:
            return self.ruleset.answer(scene or self.scene, query)
        except RefereeError as error:
            return Verdict(str(query.get("ask")), None, (f"cannot judge: {error}",))
