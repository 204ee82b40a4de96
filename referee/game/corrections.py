"""Corrections: what the players say the camera got wrong about a settled move or a removal.

A correction is a new ``correction`` event (``supersedes`` the move's
``seq``, ``reason``, and either ``"void": true`` or the corrected ``to``
pose); nothing logged is ever changed. A removal corrected is undone: void,
the piece is back where it was lifted from (the removal's ``at``); ``to``,
it stands there. This module holds what the command
line, the session and the replay share: the checks a correction must pass,
where each piece really rests once the corrections are applied, and the
verdicts that depended on a corrected move, re-asked; and the session's
:class:`Corrector`, what one correction changes on the live table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from referee.errors import RefereeError
from referee.events import GameEvent
from referee.game.standing import StandingQuestions
from referee.game.table import TableState
from referee.geometry import Pose
from referee.rules import Ruleset, Verdict
from referee.rules.flow import GameFlow, SettledMove
from referee.scene import Scene, Table
from referee.vision.pipeline import Pipeline
from referee.vision.pose import PiecePose

CORRECTED = ("move", "removed")
"""The events a correction may supersede: a move, or a removal (the piece was not taken
off: ``void`` puts it back where it was lifted from, ``to`` somewhere else)."""

TOLD = ("move", "removed", "entered", "correction")
"""The events that say where the pieces are once corrections are applied."""

WHY_LIMIT = 500
"""Characters of a correction's reason: a sentence, not a document."""


@dataclass(frozen=True)
class Correction:
    """What a correction says about one move: it did not happen, or it ended at ``to``."""

    seq: int
    """The move's ``seq``."""
    reason: str
    void: bool = False
    to: Pose | None = None

    def data(self) -> dict[str, Any]:
        """The ``correction`` event's own keys (README, "Export format")."""
        out: dict[str, Any] = {"supersedes": self.seq, "reason": self.reason}
        if self.void:
            out["void"] = True
        if self.to is not None:
            out["to"] = {
                "x": round(self.to.x, 4),
                "y": round(self.to.y, 4),
                "heading": round(self.to.heading, 2),
            }
        return out


def parse_to(text: str) -> Pose:
    """``--to X,Y,HEADING`` in inches and degrees.

    >>> parse_to("10, 14.5, 270")
    Pose(x=10.0, y=14.5, heading=270.0)
    """
    parts = [p.strip() for p in text.split(",")]
    numbers: list[float] = []
    for part in parts:
        try:
            numbers.append(float(part) if re.fullmatch(r"[-+0-9.eE]+", part) else math.nan)
        except ValueError:
            numbers.append(math.nan)
    if len(numbers) != 3 or not all(math.isfinite(n) for n in numbers):
        raise RefereeError(
            f"--to: {text[:40]!r} is not X,Y,HEADING (three numbers: inches, inches, degrees)"
        )
    return Pose(numbers[0], numbers[1], numbers[2] % 360.0)


def make(
    events: Sequence[GameEvent],
    seq: int,
    reason: str,
    *,
    void: bool = False,
    to: Pose | None = None,
    table: Table | None = None,
    where: str = "game",
    dashes: str = "--",
) -> tuple[Correction, GameEvent]:
    """The correction of move ``seq`` of a game whose events are ``events``, and that move.

    Refused with one line: both or neither of void and ``to``, an empty
    reason, a ``seq`` that is not a move of the game or was already voided,
    a ``to`` off the table. ``dashes`` start the field names in the messages (``--why``
    on the command line, ``why`` in the API's).
    """
    why_, to_, void_ = (dashes + name for name in ("why", "to", "void"))
    if void == (to is not None):
        raise RefereeError(
            f"a correction says either {void_} (it did not happen) or {to_} X,Y,HEADING"
        )
    why = reason.strip() if isinstance(reason, str) else ""
    if not why:
        raise RefereeError(f"{why_}: say why the camera was wrong (e.g. 'knocked over')")
    if len(why) > WHY_LIMIT or any(ord(c) < 32 and c not in "\t" for c in why):
        raise RefereeError(f"{why_}: one line of at most {WHY_LIMIT} characters")
    by_seq = {e.seq: e for e in events}
    event = by_seq.get(seq)
    if event is None:
        last = events[-1].seq if events else 0
        raise RefereeError(f"{where} has no event #{seq} (its events are 1 to {last})")
    if event.type not in CORRECTED:
        raise RefereeError(
            f"event #{seq} of {where} is a {event.type}, not a move or a removal; "
            "only those are corrected"
        )
    if seq in voided(events):
        raise RefereeError(f"{event.type} #{seq} of {where} is already voided")
    if to is not None:
        if not all(math.isfinite(v) for v in (to.x, to.y, to.heading)):
            raise RefereeError(f"{to_}: three finite numbers")
        if table is not None and not (0 <= to.x <= table.width and 0 <= to.y <= table.depth):
            raise RefereeError(
                f"{to_}: ({to.x:g}, {to.y:g}) is off the {table.width:g}x{table.depth:g}in table"
            )
    return Correction(seq, why, void, to), event


def voided(events: Sequence[GameEvent]) -> set[int]:
    """The ``seq`` of every move a correction voided."""
    return {
        e.supersedes
        for e in events
        if e.type == "correction" and e.supersedes is not None and e.data.get("void")
    }


def latest(events: Sequence[GameEvent]) -> dict[int, Mapping[str, Any]]:
    """Each corrected move's last correction (``supersedes`` -> the correction's data)."""
    out: dict[int, Mapping[str, Any]] = {}
    for e in events:
        if e.type == "correction" and e.supersedes is not None:
            out[e.supersedes] = e.data
    return out


def _pose(value: Any) -> Pose | None:
    if isinstance(value, Mapping):
        try:
            return Pose(float(value["x"]), float(value["y"]), float(value["heading"]))
        except (KeyError, TypeError, ValueError):
            return None
    return None


def rests(events: Sequence[GameEvent], upto_seq: int | None = None) -> dict[str, Pose]:
    """Where corrections put pieces at event ``upto_seq`` (all events when None).

    Only pieces whose last move or removal by then was corrected are named: a
    voided move leaves the piece where it rested before it (walking back over
    earlier voided moves), a voided removal where it was lifted from, a ``to``
    puts it there; a piece the camera saw move, leave or enter again since is
    where the camera saw it (not named).
    """
    fixes = latest(events)
    moves: dict[str, list[GameEvent]] = {}
    for e in events:
        if (
            e.type in ("move", "removed", "entered")
            and e.piece is not None
            and (upto_seq is None or e.seq <= upto_seq)
        ):
            moves.setdefault(e.piece, []).append(e)
    out: dict[str, Pose] = {}
    for piece, history in moves.items():
        if history[-1].seq not in fixes:
            continue  # the camera's last word stands
        for i in range(len(history) - 1, -1, -1):
            move = history[i]
            fix = fixes.get(move.seq)
            if fix is None:  # before the voided one after it
                pose = _pose(_start(history[i + 1]))
            elif fix.get("void") and move.type == "removed":
                pose = _pose(move.data.get("at"))  # never lifted off: where it rested
            elif fix.get("void"):
                if i > 0:
                    continue
                pose = _pose(move.data.get("from"))
            else:
                pose = _pose(fix.get("to"))
            if pose is not None:
                out[piece] = pose
            break
    return out


def casualties(events: Sequence[GameEvent], on_table: Collection[str]) -> list[GameEvent]:
    """The removals still standing among a game's moves, removals, entries and corrections
    (``events``), oldest first: each piece whose last removal, entry or move was a removal
    no correction undid, and that is not back on the table (``on_table``)."""
    told = sorted(events, key=lambda e: e.seq)
    undone = {e.supersedes for e in told if e.type == "correction"}
    last: dict[str, GameEvent] = {}
    for event in told:
        if event.type in ("move", "removed", "entered") and event.piece is not None:
            last[event.piece] = event
    return sorted(
        (
            e
            for pid, e in last.items()
            if e.type == "removed" and e.seq not in undone and pid not in on_table
        ),
        key=lambda e: e.seq,
    )


def _start(event: GameEvent) -> Any:
    """Where the piece rested just before ``event``: a move's ``from``, a removal's ``at``."""
    return event.data.get("at" if event.type == "removed" else "from")


def dependents(
    events: Sequence[GameEvent], move: GameEvent
) -> tuple[list[GameEvent], dict[int, GameEvent], int | None]:
    """The verdicts that depended on ``move``: those judging it (``about``), and the last
    answer of each standing question naming its piece before the piece moved again; and
    the ``seq`` of that next move (None when it never moved again)."""
    piece = move.piece
    gone = voided(events)
    later = [
        e
        for e in events
        if e.type == "move" and e.piece == piece and e.seq > move.seq and e.seq not in gone
    ]
    until = later[0].seq if later else None
    judged = [e for e in events if e.type == "verdict" and e.data.get("about") == move.seq]
    answers: dict[int, GameEvent] = {}
    for e in events:
        if e.type != "verdict" or e.seq <= move.seq or (until is not None and e.seq >= until):
            continue
        question = e.data.get("question")
        pieces = e.data.get("pieces")
        if isinstance(question, int) and isinstance(pieces, list) and piece in pieces:
            answers[question] = e
    return judged, answers, until


def rejudge(ruleset: Ruleset, before: Scene, move: GameEvent, to: Pose) -> tuple[Verdict, ...]:
    """The rules' verdicts on ``move`` as corrected to end at ``to``, on the table as it
    stood before it (declarations made earlier are not replayed: a plain move check)."""
    start = _pose(move.data.get("from"))
    if start is None or move.piece is None:
        return ()
    flow = ruleset.game_flow()
    return flow.judge(before, SettledMove(move.piece, start, to, ())).verdicts


def verdict_data(
    verdict: Verdict, about: int, pieces: Sequence[str], question: int | None = None
) -> dict[str, Any]:
    """A re-asked verdict's event data: ``about`` points at the correction."""
    data: dict[str, Any] = {"verdict": verdict.to_json(), "about": about}
    if question is not None:
        data["question"] = question
    if pieces:
        data["pieces"] = sorted(pieces)
    return data


@dataclass(frozen=True)
class Retold:
    """The verdicts one correction asked again (the session numbers and logs them)."""

    rejudged: tuple[Verdict, ...]
    """The rules' verdicts on the move as corrected, on the table as it stood before it."""
    answers: tuple[tuple[int, Verdict], ...] = ()
    """Each standing question naming the piece, answered again on the corrected table."""


class Corrector:
    """What a correction changes on a session's live table: where the piece stands, what
    the tracker follows, which verdicts are asked again. It has no lock: the session calls
    it under its own, and it calls only parts the session owns (DESIGN.md, "Threads")."""

    def __init__(
        self,
        ruleset: Ruleset,
        flow: GameFlow,
        table: TableState,
        standing: StandingQuestions,
        pipeline: Pipeline,
    ) -> None:
        self._ruleset = ruleset
        self._flow = flow
        self._table = table
        self._standing = standing
        self._pipeline = pipeline

    def apply(
        self, fix: Correction, correction: GameEvent, move: GameEvent, told: Sequence[GameEvent]
    ) -> Retold:
        """Correct ``move`` as ``fix`` says (``correction`` is its event, ``told`` the game's
        moves, removals, entries and corrections before it). A move ending elsewhere is
        judged again; when it was the piece's last, the piece stands where it rests now (a
        removal undone: the camera follows it there again) and every standing question
        naming it is answered again."""
        piece = move.piece or ""
        rejudged: tuple[Verdict, ...] = ()
        if fix.to is not None and move.type == "move":
            before = self._scene_with(piece, move.data.get("from"))
            rejudged = rejudge(self._ruleset, before, move, fix.to)
        rest = rests([*told, correction]).get(piece)
        if rest is None:  # the piece moved again since: it stands where the camera saw it
            return Retold(rejudged)
        self._table.place(piece, rest, self._table.doubt(piece))
        if move.type == "removed":
            self._put_back(piece, rest, move)
        touched = self._standing.touched({piece})
        answers = self._standing.answer(self._flow, self._table.scene(), touched, always=True)
        return Retold(rejudged, tuple(answers))

    def _put_back(self, piece: str, rest: Pose, removal: GameEvent) -> None:
        """A wrong removal undone: the camera follows the piece as settled at ``rest`` again
        (seen there it is no entry; seen elsewhere it moved)."""
        tracker = getattr(self._pipeline, "tracker", None)
        restore = getattr(tracker, "restore", None)
        tag = removal.data.get("tag")
        if restore is None or not isinstance(tag, int):
            return
        doubt = self._table.doubt(piece)
        restore({piece: PiecePose(piece, tag, rest.x, rest.y, rest.heading, doubt, False)})

    def _scene_with(self, piece: str, pose: Any) -> Scene:
        """The table now with ``piece`` at ``pose`` (a logged ``{x, y, heading}``)."""
        scene = self._table.scene()
        if not isinstance(pose, Mapping):
            return scene
        pieces = tuple(
            p.moved(pose["x"], pose["y"], pose["heading"]) if p.id == piece else p for p in scene
        )
        return replace(scene, pieces=pieces)


__all__ = [
    "CORRECTED",
    "TOLD",
    "Correction",
    "Corrector",
    "Retold",
    "casualties",
    "dependents",
    "latest",
    "make",
    "parse_to",
    "rejudge",
    "rests",
    "verdict_data",
    "voided",
]
