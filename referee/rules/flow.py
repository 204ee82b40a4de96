"""Game flow: how a ruleset follows a game on the table, move by settled move.

A :class:`GameFlow` is the ruleset hook the session drives. It takes the
players' declarations (a scene file's announcements, the dashboard's turn
assistant) and judges each settled move on the live positions: the
system's ``move`` question, plus whatever obligations earlier declarations
left (a Paper Tigers move allowance rolled on the dice, the followers of an
announced Follow Me). ``Ruleset.game_flow()`` returns the ruleset's flow;
the base one judges every move with the ruleset's own ``move`` question.

A flow keeps only the bookkeeping of declarations; positions live in the
scene the session passes in, so replaying the same moves and declarations
in order rebuilds the same flow (that is how a resumed game gets its state
back).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee.errors import RefereeError
from referee.geometry import Pose

if TYPE_CHECKING:
    from referee.rules import Ruleset, Verdict
    from referee.scene import Scene


@dataclass(frozen=True)
class SettledMove:
    """A piece that left one resting pose and came to rest at another."""

    piece: str
    start: Pose
    end: Pose
    via: tuple[Pose, ...] = ()
    """The tracked path between the two rests (thinned), start and end excluded."""


@dataclass(frozen=True)
class Judgement:
    """What the rules say about one settled move."""

    verdicts: tuple[Verdict, ...]
    notes: tuple[str, ...] = ()
    """Information that is not a verdict (e.g. who may now follow this leader)."""

    @property
    def ok(self) -> bool | None:
        """False if any verdict says no, None if any is too close to call, else True."""
        return combined_ok(v.ok for v in self.verdicts)


@dataclass(frozen=True)
class Declared:
    """What a declaration did: the verdict it got (if it is a question) and notes."""

    taken: bool
    """True when the flow keeps it for later moves (an allowance, a Follow Me)."""
    verdict: Verdict | None = None
    notes: tuple[str, ...] = field(default=())


def combined_ok(values: Any) -> bool | None:
    """False if any is False, None if any is None, else True.

    >>> combined_ok([True, None]), combined_ok([True, False, None]), combined_ok([])
    (None, False, True)
    """
    values = list(values)
    if any(v is False for v in values):
        return False
    if any(v is None for v in values):
        return None
    return True


def pose_json(pose: Pose) -> dict[str, float]:
    return {"x": pose.x, "y": pose.y, "heading": pose.heading}


class GameFlow:
    """The base flow: every settled move is asked as the ruleset's ``move`` question."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    def declare(self, scene: Scene, query: Mapping[str, Any]) -> Declared:
        """Take a declaration the flow keeps for later moves; the base flow keeps none."""
        return Declared(False)

    def judge(self, scene: Scene, move: SettledMove) -> Judgement:
        """The verdicts on ``move``; ``scene`` has every piece where it rested before it."""
        return Judgement((self.answer(scene, self.move_query(move)),))

    def move_query(self, move: SettledMove) -> dict[str, Any]:
        query: dict[str, Any] = {
            "ask": "move",
            "piece": move.piece,
            "from": pose_json(move.start),
            "to": pose_json(move.end),
        }
        if move.via:
            query["via"] = [pose_json(p) for p in move.via]
        return query

    def answer(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """The ruleset's answer; a question it cannot ask is a doubtful verdict saying why."""
        from referee.rules import Verdict

        try:
            return self.ruleset.answer(scene, query)
        except (RefereeError, KeyError) as error:
            text = str(error).strip("'\"")
            return Verdict(str(query.get("ask")), None, (f"cannot judge: {text}",), query=query)


class PaperTigersFlow(GameFlow):
    """Paper Tigers: allowances from the dice, and Follow Me obligations (RULES.md D.1, E).

    A ``move`` declaration with an ``allowance`` (or a successful ``action``
    move roll for a piece) sets that piece's next move's allowance, in order,
    and marks it as acting on its own card. A ``follow_me`` declared with
    action ``move`` makes the leader's next move open a follow action: the
    chains are worked out from where everyone stood before it, and each
    follower that moves next is checked to end within reach of the unit it
    follows, until a piece outside the chains moves.
    """

    def __init__(self, ruleset: Ruleset) -> None:
        super().__init__(ruleset)
        self._allowances: dict[str, list[float]] = {}
        self._announced: list[Mapping[str, Any]] = []
        self._own_moves: set[str] = set()
        self._following: dict[str, str] = {}
        """follower id -> id of the unit it follows, during a Follow Me move action."""

    def declare(self, scene: Scene, query: Mapping[str, Any]) -> Declared:
        ask = query.get("ask")
        if ask == "move":
            piece = str(query.get("piece"))
            self._own_moves.add(piece)
            allowance = query.get("allowance")
            if isinstance(allowance, (int, float)) and not isinstance(allowance, bool):
                self._allowances.setdefault(piece, []).append(float(allowance))
                return Declared(True, notes=(f"{piece} may move up to {allowance:g}in next",))
            return Declared(True)
        if ask == "follow_me" and query.get("action", "move") == "move":
            self._announced.append(dict(query))
            return Declared(True, notes=(f"Follow Me announced by {query.get('leader')}",))
        if ask == "action" and query.get("action") == "move" and "piece" in query:
            verdict = self.answer(scene, query)
            allowance = verdict.details.get("allowance")
            piece = str(query["piece"])
            if isinstance(allowance, (int, float)):
                self._own_moves.add(piece)
                self._allowances.setdefault(piece, []).append(float(allowance))
                return Declared(True, verdict, (f"{piece} may move up to {allowance:g}in next",))
            return Declared(False, verdict)
        return Declared(False)

    def judge(self, scene: Scene, move: SettledMove) -> Judgement:
        query = self.move_query(move)
        queue = self._allowances.get(move.piece)
        if queue:
            query["allowance"] = queue.pop(0)
        verdicts = [self.answer(scene, query)]
        notes: list[str] = []
        piece = scene.get(move.piece)
        follows = self._following.pop(move.piece, None)
        if follows is None:
            self._following = {}
            notes.extend(self._open_follow_action(scene, move.piece))
        if follows is None and piece is not None and piece.followed:
            follows = piece.followed
        if follows is not None and piece is not None:
            after = scene.with_pieces(piece.moved(move.end.x, move.end.y, move.end.heading))
            check = {"ask": "follow_check", "follower": move.piece, "follows": follows}
            verdicts.append(self.answer(after, check))
        return Judgement(tuple(verdicts), tuple(notes))

    def _open_follow_action(self, scene: Scene, leader: str) -> list[str]:
        """If a Follow Me was announced for ``leader``, work out who may follow whom."""
        announced = next((q for q in self._announced if q.get("leader") == leader), None)
        if announced is None or leader not in scene:
            return []
        self._announced.remove(announced)
        verdict = self.answer(scene, announced)
        for chain in sorted(verdict.chains or (), key=len, reverse=True):
            for before, after in itertools.pairwise(chain):
                # A unit with its own announced move acts on its own card, not as a follower.
                if after in self._own_moves:
                    break
                self._following[after] = before
        if not self._following:
            return [f"Follow Me by {leader}: no unit may follow"]
        pairs = ", ".join(f"{f} follows {lead}" for f, lead in self._following.items())
        return [f"Follow Me by {leader}: {pairs}"]
