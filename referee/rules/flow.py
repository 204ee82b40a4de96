"""Game flow: how a ruleset follows a game on the table, move by settled move.

A :class:`GameFlow` is the ruleset hook the session drives. It takes the
players' declarations (a scene file's announcements, the dashboard's turn
assistant) and judges each settled move on the live positions: the
system's ``move`` question, plus whatever obligations earlier declarations
left (a Paper Tigers move allowance rolled on the dice, the followers of an
announced Follow Me). ``Ruleset.game_flow()`` returns the ruleset's flow;
the base one judges every move with the ruleset's own ``move`` question.
Each system's own flow lives in its module (``PaperTigersFlow`` in
``paper_tigers.py``, ``CoastalFlow`` in ``pz8_coastal.py``).

A flow keeps only the bookkeeping of declarations; positions live in the
scene the session passes in, so replaying the same moves and declarations
in order rebuilds the same flow (that is how a resumed game gets its state
back).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee.errors import RefereeError
from referee.geometry import Pose

if TYPE_CHECKING:
    from referee.rules.base import Ruleset
    from referee.rules.values import Verdict
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
        return Judgement((self.answer_move(scene, move),))

    def answer_move(
        self, scene: Scene, move: SettledMove, allowance: float | None = None, **extra: Any
    ) -> Verdict:
        """The ruleset's ``move`` verdict on a settled move, asked typed (no JSON on the way
        in); ``allowance`` and ``extra`` are what the flow's declarations add (the dice's
        allowance, a declared speed). One it cannot ask is a doubtful verdict saying why."""
        from referee.rules.queries import MoveQuery
        from referee.rules.values import QueryError

        piece = scene.get(move.piece)
        try:
            if piece is None:
                raise QueryError(".piece", f"unknown piece id {move.piece!r}")
            typed = MoveQuery.of(piece, move.start, move.end, move.via, allowance, **extra)
            return self.ruleset.answer_move(scene, typed)
        except (RefereeError, KeyError) as error:
            query = self.move_query(move)
            if allowance is not None:
                query["allowance"] = allowance
            return self.cannot_judge({**query, **extra}, error)

    def move_query(self, move: SettledMove) -> dict[str, Any]:
        """The settled move as a ``move`` question in JSON (the scene file's form)."""
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
        try:
            return self.ruleset.answer(scene, query)
        except (RefereeError, KeyError) as error:
            return self.cannot_judge(query, error)

    @staticmethod
    def cannot_judge(query: Mapping[str, Any], error: Exception) -> Verdict:
        from referee.rules.values import Verdict

        text = str(error).strip("'\"")
        return Verdict(str(query.get("ask")), None, (f"cannot judge: {text}",), query=query)
