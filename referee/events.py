"""The game's event stream: one immutable, sequence-numbered value per thing that happened.

A :class:`GameEvent` is what the session publishes, the store keeps and the
export writes. Its JSON form is the public export format (README, "Game
log"): ``seq``, ``t``, ``type`` and ``frame`` plus the type's own keys:

- ``move``: ``piece``, ``from`` and ``to`` (``{"x", "y", "heading"}``),
  ``distance`` (front point, inches), ``uncertainty``, ``start_t``, ``end_t``.
- ``removed``: ``piece``, ``at`` (``{"x", "y", "heading"}``, its last resting pose),
  ``reason`` (plain words) and ``edge`` (``north``/``south``/``east``/``west`` or null):
  a casualty lifted off the table; the rules no longer count it.
- ``entered``: ``piece``, ``at`` (where it settled) and, where the system has an
  entry rule, ``verdict``: a reinforcement first seen after the game started.
- ``verdict``: ``verdict`` (exactly as ``referee check --json`` prints it) and
  ``about`` (the ``seq`` of the move it judges, when it judges one).
- ``declare``: ``declare`` (the scene-file query announced: cards, dice,
  Follow Me, a move allowance).
- ``edit``: ``edit`` (``terrain``), ``action`` (``add``/``replace``/``remove``)
  and the ``terrain`` object or its ``id``; a tagged terrain template coming to
  rest adds ``template`` (``{"tag", "x", "y", "heading"}``).
- ``flag``: ``kind`` (``unknown_tag``, ``duplicate_tag``, ``jump``, ``unknown_origin``),
  ``message``, ``tag``, ``piece``.
- ``camera``: ``kind`` (``lost``, ``reopened``, ``moved``, ``started``), ``message``.
- ``correction``: ``supersedes`` (the ``seq`` it replaces: a move, or a removal,
  which puts the piece back at its ``at``) and the corrected event's own keys.

Nothing is ever changed once logged: a correction is a new event pointing
at the one it supersedes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

EVENT_TYPES = (
    "move",
    "removed",
    "entered",
    "verdict",
    "declare",
    "edit",
    "flag",
    "camera",
    "correction",
)
"""Every ``type`` an event may have, in the order the README lists them."""

RESERVED = ("seq", "t", "type", "frame")
"""Keys of every exported line; an event's ``data`` never carries them."""


def finite_json(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None, so the output is strict JSON.

    >>> finite_json({"a": [1.0, float("nan")], "b": float("inf")})
    {'a': [1.0, None], 'b': None}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


@dataclass(frozen=True)
class GameEvent:
    """One logged happening of a game."""

    seq: int
    """Position in the game's stream: 1, 2, 3... strictly increasing, never reused."""
    t: float
    """Seconds from the game's start."""
    type: str
    """One of :data:`EVENT_TYPES`."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """The type's own keys (see the module docstring); plain JSON values."""
    frame: int | None = None
    """The session frame it happened on (None for events before the first frame)."""

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {self.type!r} (known: {', '.join(EVENT_TYPES)})")
        clash = sorted(set(self.data) & set(RESERVED))
        if clash:
            raise ValueError(f"event data may not carry {clash[0]!r}")

    @property
    def piece(self) -> str | None:
        value = self.data.get("piece")
        return value if isinstance(value, str) else None

    @property
    def supersedes(self) -> int | None:
        value = self.data.get("supersedes")
        return value if isinstance(value, int) else None

    def to_json(self) -> dict[str, Any]:
        """One line of the JSONL export (strict JSON: no NaN or Infinity)."""
        line: dict[str, Any] = {"seq": self.seq, "t": round(self.t, 4), "type": self.type}
        if self.frame is not None:
            line["frame"] = self.frame
        line.update(finite_json(dict(self.data)))
        return line

    def data_text(self) -> str:
        """``data`` as the compact JSON text the store keeps."""
        return json.dumps(finite_json(dict(self.data)), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, line: Mapping[str, Any]) -> GameEvent:
        """The inverse of :meth:`to_json`."""
        data = {k: v for k, v in line.items() if k not in RESERVED}
        frame = line.get("frame")
        return cls(int(line["seq"]), float(line["t"]), str(line["type"]), data, frame)

    def describe(self) -> str:
        """One readable timeline line, e.g. ``  12.40s  #15 move t34a 6.00in (+/-0.006)``."""
        return self.head() + self.sentence()

    def head(self) -> str:
        """The time and seq columns that open :meth:`describe` (17 characters, or more for a
        game past 99999 s or event #99999: cut at :meth:`sentence`, never at a width)."""
        return f"{self.t:8.2f}s  #{self.seq:<5d}"

    def sentence(self) -> str:
        """What happened, in words: :meth:`describe` without its time and seq columns."""
        d = self.data
        if self.type == "move":
            to = d.get("to", {})
            return (
                f"move {d.get('piece')} {_num(d.get('distance'))}in "
                f"(+/-{_num(d.get('uncertainty'), 3)}) to ({_num(to.get('x'))}, "
                f"{_num(to.get('y'))}) facing {_num(to.get('heading'), 0)}"
            )
        if self.type == "removed":
            at = d.get("at", {})
            return (
                f"removed {d.get('piece')} from ({_num(at.get('x'))}, {_num(at.get('y'))}): "
                f"{d.get('reason')}"
            )
        if self.type == "entered":
            at = d.get("at", {})
            line = (
                f"entered {d.get('piece')} at ({_num(at.get('x'))}, {_num(at.get('y'))}) "
                f"facing {_num(at.get('heading'), 0)}"
            )
            verdict = d.get("verdict")
            if isinstance(verdict, Mapping):
                word = {True: "ok", False: "NOT OK", None: "too close to call"}.get(
                    verdict.get("ok")
                )
                line += f": {word}"
            return line
        if self.type == "verdict":
            verdict = d.get("verdict", {})
            word = {True: "ok", False: "NOT OK", None: "too close to call"}.get(verdict.get("ok"))
            about = f" (move #{d['about']})" if d.get("about") is not None else ""
            reasons = verdict.get("reasons")
            first = str(reasons[0]) if isinstance(reasons, list) and reasons else ""
            summary = verdict.get("summary") or first
            return f"verdict {verdict.get('ask')}{about}: {word}  {summary}".rstrip()
        if self.type == "declare":
            return "declare " + json.dumps(d.get("declare"), separators=(", ", ": "))
        if self.type == "edit":
            what = d.get("terrain")
            name = what.get("id") if isinstance(what, Mapping) else d.get("id")
            return f"edit {d.get('edit')} {d.get('action')} {name}"
        if self.type == "correction":
            rest = {k: v for k, v in d.items() if k != "supersedes"}
            return f"correction of #{d.get('supersedes')}: " + json.dumps(rest)
        return f"{self.type} {d.get('kind')}: {d.get('message')}"


NOTE_INDENT = " " * 18
"""Where a timeline's note lines start (under the sentence of a short game's line)."""


@dataclass(frozen=True)
class TimelineEntry:
    """One event as ``referee log show`` and the club page tell it."""

    event: GameEvent
    text: str
    """The sentence (:meth:`GameEvent.sentence`, a verdict asked again after a correction
    saying so)."""
    corrected: bool = False
    """A later correction supersedes this event."""
    notes: tuple[str, ...] = ()
    """The rules' notes on a move (a Follow Me's followers), one line each."""

    def lines(self) -> list[str]:
        """The entry as ``log show`` prints it: head, sentence and mark, then its notes."""
        mark = "  (corrected)" if self.corrected else ""
        return [self.event.head() + self.text + mark, *(NOTE_INDENT + n for n in self.notes)]


def timeline_text(
    event: GameEvent,
    fixes: Collection[int],
    pieces: Mapping[int, str] | None = None,
    removals: Collection[int] = (),
) -> str:
    """``event``'s sentence on a timeline: a verdict asked again after correction ``fixes``
    says so, and a declaration or a correction in words (``pieces``: the piece of each move
    or removal by seq, which a correction names; ``removals``: the seqs that are removals)."""
    d = event.data
    if event.type == "declare":
        notes = [str(n) for n in d.get("notes", []) or [] if str(n).strip()]
        return f"declare {question_words(d.get('declare'))}" + (
            f": {'; '.join(notes)}" if notes else ""
        )
    if event.type == "correction":
        what = "removal of" if event.supersedes in removals else "move"
        return _correction_words(d, (pieces or {}).get(event.supersedes or -1), what)
    line = event.sentence()
    about = d.get("about") if event.type == "verdict" else None
    if about in fixes:
        line = line.replace(f"(move #{about})", f"(after correction #{about})", 1)
    return line


def question_words(query: Any) -> str:
    """A scene-file question in the words of a verdict line.

    >>> question_words({"ask": "move", "piece": "sq1", "allowance": 6,
    ...                 "to": {"x": 19, "y": 16.5, "heading": 300}})
    'move sq1 to (19.00, 16.50) facing 300, allowance 6'
    >>> question_words({"ask": "los", "from": "t34a", "to": "pz1"})
    'los t34a -> pz1'
    """
    if not isinstance(query, Mapping):
        return str(query)
    who = [str(query[k]) for k in ("piece", "leader", "from") if isinstance(query.get(k), str)]
    to = query.get("to")
    words = [str(query.get("ask", "question"))]
    if isinstance(to, str):
        who.append(to)
    if who:
        words.append(" -> ".join(who))
    if isinstance(to, Mapping):
        words.append(f"to {_pose(to)}")
    rest = [
        f"{k} {_value(v)}"
        for k, v in query.items()
        if k not in ("ask", "piece", "leader", "from", "to")
    ]
    return " ".join(words) + "".join(f", {r}" for r in rest)


def _pose(pose: Mapping[str, Any]) -> str:
    return f"({_num(pose.get('x'))}, {_num(pose.get('y'))}) facing {_num(pose.get('heading'), 0)}"


def _value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_value(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    if isinstance(value, (str, int, float)) or value is None:
        return str(value)
    return json.dumps(value, separators=(", ", ": "))


def _correction_words(data: Mapping[str, Any], piece: str | None, what: str = "move") -> str:
    moved = f" ({what} {piece})" if piece else ""
    reason = data.get("reason")
    why = f" ({reason.strip()})" if isinstance(reason, str) and reason.strip() else ""
    head = f"correction of #{data.get('supersedes')}{moved}"
    to = data.get("to")
    if data.get("void"):
        return f"{head}: did not happen{why}"
    if data.get("restore"):
        return f"{head}: still on the table{why}"
    if isinstance(to, Mapping):
        return f"{head}: came to rest at {_pose(to)}{why}"
    rest = {k: v for k, v in data.items() if k != "supersedes"}
    return f"{head}: {json.dumps(rest)}"


def timeline(events: Sequence[GameEvent]) -> list[TimelineEntry]:
    """A game's events as a readable timeline (``referee log show``, the club's game page)."""
    superseded = {e.supersedes for e in events if e.type == "correction"}
    fixes = {e.seq for e in events if e.type == "correction"}
    pieces = {e.seq: e.piece for e in events if e.type == "move" and e.piece}
    removals = {e.seq for e in events if e.type == "removed"}
    pieces.update({e.seq: e.piece for e in events if e.type == "removed" and e.piece})
    return [
        TimelineEntry(
            e,
            timeline_text(e, fixes, pieces, removals),
            e.seq in superseded,
            tuple(str(n) for n in e.data.get("notes", []) or []) if e.type == "move" else (),
        )
        for e in events
    ]


def _num(value: Any, digits: int = 2) -> str:
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "?"
