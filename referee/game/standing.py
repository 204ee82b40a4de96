"""The standing questions of a game: asked again whenever a piece they name comes to rest.

A scene's questions that are not declarations stand for the whole game. Each is answered
once every piece it names is on the table, and again each time one of them (or the
terrain) changes; only an answer that differs from the last is news worth logging.
Guarded by the owning session's lock (no lock of its own: it calls nothing but the rules).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from referee.game.updates import named_pieces
from referee.rules import Verdict
from referee.rules.flow import GameFlow
from referee.scene import Scene


class StandingQuestions:
    """The questions in the order they were posed (their index is the ``question`` logged)
    and the last answer of each."""

    def __init__(self) -> None:
        self._questions: list[Mapping[str, Any]] = []
        self._answers: dict[int, dict[str, Any]] = {}
        """Each question's last answer, as logged (a verdict's JSON)."""

    def __len__(self) -> int:
        return len(self._questions)

    def __getitem__(self, i: int) -> Mapping[str, Any]:
        return self._questions[i]

    def add(self, query: Mapping[str, Any]) -> int:
        """Pose ``query`` for the rest of the game; its index."""
        self._questions.append(dict(query))
        return len(self._questions) - 1

    def every(self) -> range:
        return range(len(self._questions))

    def touched(self, pieces: set[str]) -> set[int]:
        """Standing questions that name one of ``pieces`` or none at all."""
        return {
            i
            for i, q in enumerate(self._questions)
            if not named_pieces(q) or named_pieces(q) & pieces
        }

    def answerable(self, placed: set[str]) -> list[Mapping[str, Any]]:
        """The questions whose pieces are all on the table (``placed``)."""
        return [q for q in self._questions if named_pieces(q) <= placed]

    def answer(
        self, flow: GameFlow, scene: Scene, which: Iterable[int], always: bool = False
    ) -> list[tuple[int, Verdict]]:
        """Answer these questions on ``scene``: those whose answer changed (every answerable
        one when ``always``, as a correction re-asks them), in question order."""
        placed = {p.id for p in scene}
        out = []
        for i in sorted(which):
            query = self._questions[i]
            if not named_pieces(query) <= placed:
                continue
            verdict = flow.answer(scene, query)
            answer = verdict.to_json()
            if not always and self._answers.get(i) == answer:
                continue
            self._answers[i] = answer
            out.append((i, verdict))
        return out

    def answered(self, i: int, answer: dict[str, Any]) -> None:
        """Question ``i`` was answered ``answer`` (a logged verdict, on a resumed game)."""
        self._answers[i] = answer

    def answers(self) -> dict[int, dict[str, Any]]:
        """A copy of the last answers (a change undone puts them back with :meth:`restore`)."""
        return dict(self._answers)

    def restore(self, answers: Mapping[int, dict[str, Any]]) -> None:
        self._answers = dict(answers)

    def unanswered(self, placed: set[str]) -> list[str]:
        """Why each question never got an answer (a piece never on the table)."""
        out = []
        for i, query in enumerate(self._questions):
            if i in self._answers:
                continue
            missing = ", ".join(sorted(named_pieces(query) - placed))
            out.append(f"{query.get('ask')} {json.dumps(dict(query))}: {missing} never seen")
        return out


__all__ = ["StandingQuestions"]
