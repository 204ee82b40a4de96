"""What a battle report says: a logged game's moves, turns, disputes, corrections and result.

:func:`build_report` reads one game of the log and returns a :class:`BattleReport`,
the content every rendering (HTML, MP4) shows; the renderings add no facts of their own.
Events are read as plain export dicts by their ``type`` (README, "Game log"), so event
types this version does not know yet (``removed``, ``entered``) are reported when a log
has them and cost nothing when it has none.

A **turn** is a burst of moves: a new one begins when the next move is by another side,
or starts at least ``pause`` seconds (:data:`PAUSE`) after the previous move ended. The
log keeps no turn marks of its own (the dashboard's Turn tab logs declarations, not turn
ends), so the report reads them off the moves.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from referee.scene import Piece, Scene
from referee.store import EVIDENCE_KINDS, EvidenceError, GameInfo, GameLog

PAUSE = 10.0
"""Seconds between one move's end and the next move's start that end a turn: players
moving one side's pieces follow on within a few seconds; handing over to the other side,
rolling dice or arguing takes longer."""

ORIGIN_UNKNOWN = (
    "origin unknown: the referee did not see where it came from (drawn from its last known rest)"
)
"""The note on a move an ``unknown_origin`` flag names."""

MARKS = ("ok", "no", "maybe", "none", "void")
"""A move's mark (its worst verdict, as the dashboard colours it): ``ok`` legal, ``no``
one verdict illegal, ``maybe`` one too close to call, ``none`` not judged, ``void`` a
correction says it did not happen."""


@dataclass(frozen=True)
class MoveEntry:
    """One logged move and what the rules said of it."""

    seq: int
    t: float
    piece: str
    side: str | None
    start: Mapping[str, float]
    """``{"x", "y", "heading"}`` where it rested before."""
    end: Mapping[str, float]
    """Where it came to rest: the camera's ``to``, or a correction's."""
    logged_end: Mapping[str, float]
    """The camera's ``to`` (differs from :attr:`end` when corrected)."""
    distance: float | None
    """Inches, front point to front point, as logged."""
    uncertainty: float | None
    start_t: float
    end_t: float
    verdicts: tuple[Mapping[str, Any], ...]
    """The verdict objects judging it (those of its correction when one re-judged it)."""
    mark: str
    """One of :data:`MARKS`."""
    corrected_by: int | None
    """The ``seq`` of its last correction."""
    notes: tuple[str, ...]
    turn: int = 0


@dataclass(frozen=True)
class EvidencePicture:
    """One JPEG the log kept with a verdict (:data:`referee.store.EVIDENCE_KINDS`)."""

    kind: str
    data: bytes


@dataclass(frozen=True)
class Dispute:
    """A verdict on a question asked (range, line of sight, ...), not on a move."""

    seq: int
    t: float
    verdict: Mapping[str, Any]
    pieces: tuple[str, ...]
    question: int | None
    """Index of the scene's standing question it answers, when it answers one."""
    after_correction: int | None
    """The correction it was asked again after."""
    turn: int = 0
    evidence: tuple[EvidencePicture, ...] = ()
    """What the camera saw when it was ruled, in :data:`EVIDENCE_KINDS` order."""
    evidence_notes: tuple[str, ...] = ()
    """One line per picture of it that is damaged (left out, the ruling kept)."""

    @property
    def ask(self) -> str:
        return str(self.verdict.get("ask", "?"))

    @property
    def ok(self) -> bool | None:
        value = self.verdict.get("ok")
        return value if isinstance(value, bool) else None

    @property
    def summary(self) -> str:
        reasons = self.reasons
        return str(self.verdict.get("summary") or (reasons[0] if reasons else self.ask))

    @property
    def reasons(self) -> tuple[str, ...]:
        raw = self.verdict.get("reasons")
        return tuple(str(r) for r in raw) if isinstance(raw, list) else ()


@dataclass(frozen=True)
class CorrectionEntry:
    """A correction: what it superseded and the value it put in its place."""

    seq: int
    t: float
    supersedes: int
    superseded: str
    """The superseded event in words (its type, piece and logged value)."""
    void: bool
    to: Mapping[str, float] | None
    reason: str
    verdicts: tuple[Mapping[str, Any], ...]
    """The move's verdicts asked again on the corrected table."""


@dataclass(frozen=True)
class Casualty:
    """A ``removed`` event: a piece carried off the table."""

    seq: int
    t: float
    piece: str
    side: str | None
    at: Mapping[str, float] | None
    reason: str
    edge: str | None
    undone_by: int | None
    """A correction that put the piece back."""


@dataclass(frozen=True)
class Arrival:
    """An ``entered`` event: a piece first seen after the game began (a reinforcement)."""

    seq: int
    t: float
    piece: str
    side: str | None
    at: Mapping[str, float] | None
    verdict: Mapping[str, Any] | None


@dataclass(frozen=True)
class Turn:
    """A burst of moves and the table after it."""

    number: int
    moves: tuple[MoveEntry, ...]
    start_t: float
    end_t: float
    sides: tuple[str, ...]
    scene: Scene
    """The table after the turn (pieces at rest, corrections applied, casualties off)."""
    off: tuple[Casualty, ...]
    """Pieces taken off during the turn, drawn where they fell."""
    upto_seq: int
    """The last event the picture includes."""


@dataclass(frozen=True)
class Result:
    """The game's result, where the system scores one."""

    verdict: Mapping[str, Any]
    source: str
    """``logged`` (a logged ``victory`` verdict, event ``seq``) or ``final table`` (asked by
    the report of the table at the last event)."""
    seq: int | None


@dataclass(frozen=True)
class BattleReport:
    """Everything the report shows about one logged game."""

    game: str
    created: str
    ruleset: str
    title: str
    table: tuple[float, float]
    sides: tuple[tuple[str, tuple[str, ...]], ...]
    """Each side and its pieces (scene and roster), in the order they first appear."""
    start: Scene
    """The table before the first move."""
    turns: tuple[Turn, ...]
    moves: tuple[MoveEntry, ...]
    disputes: tuple[Dispute, ...]
    corrections: tuple[CorrectionEntry, ...]
    casualties: tuple[Casualty, ...]
    arrivals: tuple[Arrival, ...]
    result: Result | None
    result_note: str
    """Why there is no result (``no result logged``...), empty when there is one."""
    duration: float
    """Seconds from the game's start to its last event."""
    events: int
    pause: float
    verdict_times: tuple[tuple[float, Mapping[str, Any]], ...] = ()
    """Every verdict's time and object in log order (the MP4's captions)."""

    @property
    def evidence_notes(self) -> tuple[str, ...]:
        """Every damaged picture's note, in dispute order (the CLI repeats them on stderr)."""
        return tuple(n for d in self.disputes for n in d.evidence_notes)


def _pose(value: Any) -> dict[str, float] | None:
    if not isinstance(value, Mapping):
        return None
    try:
        x, y = float(value["x"]), float(value["y"])
        heading = float(value.get("heading", 0.0) or 0.0)
    except (KeyError, TypeError, ValueError):
        return None
    if not all(math.isfinite(v) for v in (x, y, heading)):
        return None
    return {"x": x, "y": y, "heading": heading}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def move_mark(verdicts: Sequence[Mapping[str, Any]]) -> str:
    """The worst of a move's verdicts, as the dashboard colours its arrow.

    >>> move_mark([{"ok": True}, {"ok": None}]), move_mark([{"ok": False}]), move_mark([])
    ('maybe', 'no', 'none')
    """
    if not verdicts:
        return "none"
    if any(v.get("ok") is False for v in verdicts):
        return "no"
    if any(v.get("ok") is not True for v in verdicts):
        return "maybe"
    return "ok"


def split_turns(moves: Sequence[MoveEntry], pause: float = PAUSE) -> list[list[MoveEntry]]:
    """Moves in log order, cut into turns: at a change of the moving side, or where the
    next move starts ``pause`` seconds or more after the previous one ended.

    >>> m = lambda seq, side, a, b: MoveEntry(seq, b, "p", side, {}, {}, {}, 1.0, 0.0, a, b,
    ...                                       (), "none", None, ())
    >>> [[x.seq for x in t] for t in split_turns([m(1, "a", 0, 2), m(2, "a", 3, 5),
    ...     m(3, "b", 6, 8), m(4, "b", 30, 32)], pause=10)]
    [[1, 2], [3], [4]]
    """
    turns: list[list[MoveEntry]] = []
    for move in moves:
        if turns:
            last = turns[-1][-1]
            same_side = move.side is None or last.side is None or move.side == last.side
            if same_side and move.start_t - last.end_t < pause:
                turns[-1].append(move)
                continue
        turns.append([move])
    return turns


def _sides(info: GameInfo, start: Scene) -> dict[str, str]:
    """Piece id -> side, from the scene file and the roster the game began with."""
    out = {p.id: p.side for p in start}
    for raw in (info.scene.get("pieces") or [], (info.roster or {}).get("pieces") or []):
        for p in raw if isinstance(raw, list) else []:
            if isinstance(p, Mapping) and isinstance(p.get("id"), str):
                out.setdefault(p["id"], str(p.get("side", "")))
    return out


def _words(event: Mapping[str, Any]) -> str:
    """An event a correction superseded, in words: type, piece and its logged value."""
    kind = event.get("type")
    piece = event.get("piece")
    to = _pose(event.get("to")) or _pose(event.get("at"))
    where = f" to ({to['x']:.2f}, {to['y']:.2f}) facing {to['heading']:.0f}" if to else ""
    if kind == "move":
        distance = _number(event.get("distance"))
        far = f" {distance:.2f}in" if distance is not None else ""
        return f"move #{event.get('seq')} of {piece}{far}{where}"
    if kind == "removed":
        return f"{piece} removed #{event.get('seq')} ({event.get('reason') or 'no reason logged'})"
    return f"{kind} #{event.get('seq')}" + (f" of {piece}" if piece else "")


class _Reader:
    """One pass over the game's events as dicts, collecting the report's entries."""

    def __init__(self, events: Sequence[Mapping[str, Any]], sides: Mapping[str, str]) -> None:
        self.events = events
        self.by_seq = {int(e["seq"]): e for e in events}
        fixes: dict[int, Mapping[str, Any]] = {}
        for e in events:
            if e.get("type") == "correction" and isinstance(e.get("supersedes"), int):
                fixes[e["supersedes"]] = e  # the last correction of an event wins
        self.fixes = fixes
        self.sides = sides

    def side(self, piece: Any) -> str | None:
        return self.sides.get(piece) if isinstance(piece, str) else None

    def judged(self, about: int, moves_only: bool) -> tuple[Mapping[str, Any], ...]:
        return tuple(
            e["verdict"]
            for e in self.events
            if e.get("type") == "verdict"
            and e.get("about") == about
            and isinstance(e.get("verdict"), Mapping)
            and (not moves_only or e["verdict"].get("ask") == "move")
        )

    def moves(self) -> list[MoveEntry]:
        out = []
        verdicts_by_about: dict[int, list[Mapping[str, Any]]] = {}
        for e in self.events:
            about = e.get("about")
            verdict = e.get("verdict")
            if (
                e.get("type") == "verdict"
                and isinstance(about, int)
                and isinstance(verdict, Mapping)
            ):
                verdicts_by_about.setdefault(about, []).append(e)
        unknown = self.unknown_origins()
        for e in self.events:
            if e.get("type") != "move":
                continue
            start, logged = _pose(e.get("from")), _pose(e.get("to"))
            if start is None or logged is None:
                continue  # a move without its two rests cannot be drawn or measured
            seq = int(e["seq"])
            fix = self.fixes.get(seq)
            verdicts = tuple(v["verdict"] for v in verdicts_by_about.get(seq, []))
            end, mark = logged, move_mark(verdicts)
            if fix is not None and fix.get("void"):
                mark = "void"
            elif fix is not None and _pose(fix.get("to")) is not None:
                end = _pose(fix.get("to")) or logged
                again = tuple(
                    v["verdict"]
                    for v in verdicts_by_about.get(int(fix["seq"]), [])
                    if v["verdict"].get("ask") == "move"
                )
                if again:  # the dashboard's rule: the re-judged verdicts replace the old
                    verdicts, mark = again, move_mark(again)
            t = float(e["t"])
            start_t = _number(e.get("start_t"))
            end_t = _number(e.get("end_t"))
            out.append(
                MoveEntry(
                    seq,
                    t,
                    str(e.get("piece")),
                    self.side(e.get("piece")),
                    start,
                    end,
                    logged,
                    _number(e.get("distance")),
                    _number(e.get("uncertainty")),
                    start_t if start_t is not None else t,
                    end_t if end_t is not None else t,
                    verdicts,
                    mark,
                    int(fix["seq"]) if fix is not None else None,
                    (
                        *(str(n) for n in e.get("notes") or () if isinstance(n, str)),
                        *((ORIGIN_UNKNOWN,) if seq in unknown else ()),
                    ),
                )
            )
        return out

    def unknown_origins(self) -> set[int]:
        """The moves an ``unknown_origin`` flag names (issue 41's contract): each flag's
        piece's move nearest to it in time (logged on the same frame), then in the log."""
        moves: dict[str, list[Mapping[str, Any]]] = {}
        for e in self.events:
            if e.get("type") == "move" and isinstance(e.get("piece"), str):
                moves.setdefault(e["piece"], []).append(e)
        out = set()
        for flag in self.events:
            piece = flag.get("piece")
            if flag.get("type") != "flag" or flag.get("kind") != "unknown_origin":
                continue
            if isinstance(piece, str) and piece in moves:
                t, seq = float(flag["t"]), int(flag["seq"])
                nearest = min(
                    moves[piece],
                    key=lambda m: (abs(float(m["t"]) - t), abs(int(m["seq"]) - seq)),
                )
                out.add(int(nearest["seq"]))
        return out

    def disputes(self) -> list[Dispute]:
        """Every verdict that is not the rules judging a move: the questions asked."""
        moves = {s for s, e in self.by_seq.items() if e.get("type") == "move"}
        fixes = {s for s, e in self.by_seq.items() if e.get("type") == "correction"}
        out = []
        for e in self.events:
            verdict = e.get("verdict")
            if e.get("type") != "verdict" or not isinstance(verdict, Mapping):
                continue
            about = e.get("about")
            if about in moves:
                continue  # judges a move: shown with it
            if about in fixes and verdict.get("ask") == "move":
                continue  # a corrected move judged again: shown with the correction
            question = e.get("question")
            pieces = e.get("pieces")
            out.append(
                Dispute(
                    int(e["seq"]),
                    float(e["t"]),
                    verdict,
                    tuple(str(p) for p in pieces) if isinstance(pieces, list) else (),
                    question if isinstance(question, int) else None,
                    about if about in fixes else None,
                )
            )
        return out

    def corrections(self) -> list[CorrectionEntry]:
        out = []
        for e in self.events:
            supersedes = e.get("supersedes")
            if e.get("type") != "correction" or not isinstance(supersedes, int):
                continue
            old = self.by_seq.get(supersedes)
            reason = e.get("reason")
            out.append(
                CorrectionEntry(
                    int(e["seq"]),
                    float(e["t"]),
                    supersedes,
                    _words(old) if old is not None else f"event #{supersedes} (not in the log)",
                    bool(e.get("void")),
                    _pose(e.get("to")),
                    reason.strip() if isinstance(reason, str) else "",
                    self.judged(int(e["seq"]), moves_only=True),
                )
            )
        return out

    def casualties(self) -> list[Casualty]:
        out = []
        for e in self.events:
            if e.get("type") != "removed":
                continue
            fix = self.fixes.get(int(e["seq"]))
            edge = e.get("edge")
            out.append(
                Casualty(
                    int(e["seq"]),
                    float(e["t"]),
                    str(e.get("piece")),
                    self.side(e.get("piece")),
                    _pose(e.get("at")),
                    str(e.get("reason") or ""),
                    edge if isinstance(edge, str) else None,
                    int(fix["seq"]) if fix is not None else None,
                )
            )
        return out

    def arrivals(self) -> list[Arrival]:
        return [
            Arrival(
                int(e["seq"]),
                float(e["t"]),
                str(e.get("piece")),
                self.side(e.get("piece")),
                _pose(e.get("at")),
                e["verdict"] if isinstance(e.get("verdict"), Mapping) else None,
            )
            for e in self.events
            if e.get("type") == "entered"
        ]


def off_table(scene: Scene, casualties: Sequence[Casualty], upto_seq: int) -> Scene:
    """``scene`` without the pieces carried off by event ``upto_seq`` and not put back by
    then (nor seen moving since: a later move or entry of the piece brings it back)."""
    gone = {
        c.piece
        for c in casualties
        if c.seq <= upto_seq and (c.undone_by is None or c.undone_by > upto_seq)
    }
    if not gone:
        return scene
    return replace(scene, pieces=tuple(p for p in scene if p.id not in gone))


def _back_since(
    casualties: Sequence[Casualty], events: Sequence[Mapping[str, Any]]
) -> list[Casualty]:
    """Casualties whose piece moved or entered again later count as undone from then on."""
    out = []
    for c in casualties:
        again = next(
            (
                int(e["seq"])
                for e in events
                if e.get("type") in ("move", "entered")
                and e.get("piece") == c.piece
                and int(e["seq"]) > c.seq
            ),
            None,
        )
        if again is not None and (c.undone_by is None or again < c.undone_by):
            c = replace(c, undone_by=again)
        out.append(c)
    return out


REPLAYED = ("edit", "entered")
"""Event types that change the table beyond moving its pieces (terrain and roster edits, a
reinforcement): a turn holding one is rebuilt from the log."""


def moved(scene: Scene, moves: Sequence[MoveEntry]) -> Scene:
    """``scene`` after ``moves``: each piece at its last move's rest (back where it rested
    before, where a correction voided that move), as :func:`scene_at` puts it."""
    rests = {m.piece: (m.start if m.mark == "void" else m.end) for m in moves}
    return replace(
        scene,
        pieces=tuple(
            p.moved(rests[p.id]["x"], rests[p.id]["y"], rests[p.id]["heading"])
            if p.id in rests
            else p
            for p in scene
        ),
    )


def build_report(log: GameLog, info: GameInfo, pause: float = PAUSE) -> BattleReport:
    """The report of game ``info``: one read of its events, and the table at the start and
    after each turn rebuilt by :func:`referee.game.replay.scene_at` (corrections applied)."""
    from referee.game.replay import scene_at
    from referee.rules import find_ruleset

    events = [e.to_json() for e in log.events(info)]
    last_seq = int(events[-1]["seq"]) if events else 0
    plain = [e for e in events if e.get("type") == "move"]
    # Before the first move: the pieces at rest when it began (its start_t), or at the end.
    first_t = _number(plain[0].get("start_t")) if plain else None
    if plain and first_t is not None:
        start, _ = scene_at(log, info, t=first_t)
    else:
        start, _ = scene_at(log, info, seq=int(plain[0]["seq"]) - 1 if plain else None)
    reader = _Reader(events, _sides(info, start))
    casualties = _back_since(reader.casualties(), events)
    moves = reader.moves()
    groups = split_turns(moves, pause)
    turns: list[Turn] = []
    numbered: list[MoveEntry] = []
    # The table after each turn is the one before it with the turn's moves at their rests;
    # the log is replayed (scene_at) only where more than moves changed it, and after the
    # last turn: an hour of single activations stays a few seconds, not minutes.
    changes = sorted(int(e["seq"]) for e in events if e.get("type") in REPLAYED)
    scene, since = start, (int(plain[0]["seq"]) - 1 if plain else last_seq)
    for i, group in enumerate(groups):
        upto = int(groups[i + 1][0].seq) - 1 if i + 1 < len(groups) else last_seq
        changed = bisect.bisect_right(changes, upto) > bisect.bisect_right(changes, since)
        if changed or i + 1 == len(groups) or any(m.piece not in scene for m in group):
            scene, _ = scene_at(log, info, seq=upto)
        else:
            scene = moved(scene, group)
        since = upto
        lo = group[0].seq
        off = tuple(c for c in casualties if lo <= c.seq <= upto)
        group = [replace(m, turn=i + 1) for m in group]
        numbered.extend(group)
        turns.append(
            Turn(
                i + 1,
                tuple(group),
                group[0].start_t,
                group[-1].end_t,
                tuple(dict.fromkeys(m.side for m in group if m.side)),
                off_table(scene, casualties, upto),
                off,
                upto,
            )
        )
    bounds = [(t.moves[0].seq, t.upto_seq, t.number) for t in turns]

    def turn_of(seq: int) -> int:
        for lo, hi, number in bounds:
            if seq <= hi:
                return number if seq >= lo else max(number - 1, 0)
        return len(turns)

    kept = log.evidence_index(info)  # one read for the game; {} for a log from before it
    disputes = [
        _with_evidence(log, info, replace(d, turn=turn_of(d.seq)), kept.get(d.seq, []))
        for d in reader.disputes()
    ]
    ruleset_name = str(info.scene.get("ruleset") or info.ruleset)
    try:
        ruleset = find_ruleset(ruleset_name, info.scene.get("settings"))
        title = type(ruleset).title or ruleset_name
    except (ValueError, KeyError, TypeError):
        ruleset, title = None, ruleset_name
    result, note = _result(events, ruleset, turns[-1].scene if turns else start)
    table = (float(start.table.width), float(start.table.depth))
    sides: dict[str, list[str]] = {}
    for pid, side in reader.sides.items():
        sides.setdefault(side, []).append(pid)
    verdict_times = tuple(
        (float(e["t"]), e["verdict"])
        for e in events
        if e.get("type") == "verdict" and isinstance(e.get("verdict"), Mapping)
    )
    return BattleReport(
        game=info.name,
        created=info.created,
        ruleset=ruleset_name,
        title=title,
        table=table,
        sides=tuple((s, tuple(ids)) for s, ids in sides.items()),
        start=off_table(start, casualties, int(plain[0]["seq"]) - 1 if plain else last_seq),
        turns=tuple(turns),
        moves=tuple(numbered),
        disputes=tuple(disputes),
        corrections=tuple(reader.corrections()),
        casualties=tuple(casualties),
        arrivals=tuple(reader.arrivals()),
        result=result,
        result_note=note,
        duration=max([float(info.last_t), *(float(e["t"]) for e in events[-1:])]),
        events=len(events),
        pause=pause,
        verdict_times=verdict_times,
    )


def _with_evidence(
    log: GameLog, info: GameInfo, dispute: Dispute, index: Sequence[tuple[str, int]]
) -> Dispute:
    """``dispute`` with the pictures the log kept for it (``index``: its
    :meth:`GameLog.evidence_index` entry); a damaged one is a note instead, so an old log
    (none kept) or a torn blob still makes the report."""
    kept = {kind for kind, _size in index}
    pictures: list[EvidencePicture] = []
    notes: list[str] = []
    # Known kinds only, in their order: a kind a later version adds is not guessed at.
    for kind in (k for k in EVIDENCE_KINDS if k in kept):
        try:
            data = log.evidence(info, dispute.seq, kind)
        except EvidenceError as error:
            notes.append(str(error))
            continue
        if data is not None:
            pictures.append(EvidencePicture(kind, data))
    return replace(dispute, evidence=tuple(pictures), evidence_notes=tuple(notes))


def _result(
    events: Sequence[Mapping[str, Any]], ruleset: Any, final: Scene
) -> tuple[Result | None, str]:
    """The last logged ``victory`` verdict; else the rules' victory question asked of the
    final table, where the system has one; else why there is none."""
    logged = [
        e
        for e in events
        if e.get("type") == "verdict"
        and isinstance(e.get("verdict"), Mapping)
        and e["verdict"].get("ask") == "victory"
    ]
    if logged:
        return Result(logged[-1]["verdict"], "logged", int(logged[-1]["seq"])), ""
    if ruleset is None or "victory" not in ruleset.questions():
        return None, "no result logged (this system scores no victory question)"
    if len(final.sides()) < 2:
        return None, "no result logged (the final table holds fewer than two sides)"
    try:
        verdict = ruleset.answer(final, {"ask": "victory"})
    except ValueError as error:  # a QueryError: the table cannot be scored
        return None, f"no result logged (the final table cannot be scored: {error})"
    return Result(verdict.to_json(), "final table", None), ""


def pieces_of(scene: Scene) -> dict[str, Piece]:
    return {p.id: p for p in scene}
