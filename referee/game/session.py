"""One referee session: a game's pipeline, ruleset and log, and its one stream of events.

:class:`Session` is the single wiring every command uses (``run``,
``demo``, ``track``, ``serve``). Each frame goes through the vision
pipeline; what happened becomes :class:`~referee.events.GameEvent` values
with consecutive sequence numbers: settled moves and the ruleset's verdicts
on them, the scene's standing questions answered again whenever a piece
they name settles, flags (unknown or duplicate tag, jump) and camera events.
Declarations (cards, dice, Follow Me), terrain edits, questions asked and
corrections come in through methods, from any thread. A tagged terrain
template coming to rest (placed, or moved and settled again) is a terrain
``edit`` of the feature with its id (``add`` the first time, else
``replace``), never a move: every standing question is asked again on it.
A casualty the tracker saw lifted off the table is a ``removed`` event and
leaves the scene the rules see; a reinforcement is an ``entered`` event
(judged where the system has an entry rule) and joins it.

When a :class:`~referee.store.GameLog` is attached, each frame's events and
position changes are committed in one transaction *before* any subscriber
hears of them, so whatever was reported as logged survives a crash. A
session opened on an existing game resumes it: the tracker starts from the
last resting poses, terrain edits and declarations are replayed into the
scene and the ruleset's flow, the sequence continues, and on the same video
the frames already logged are skipped.

The session is a composition of parts, each in its own module and tested on
its own: :mod:`~referee.game.opening` (the scene, ruleset and log entry a game
opens on), :mod:`~referee.game.resume` (a logged game taken up again),
:mod:`~referee.game.table` (the pieces at rest, terrain and roster now),
:mod:`~referee.game.numbering` (the stream's seq, frame and time),
:mod:`~referee.game.frames` (what each frame's tracker events become),
:mod:`~referee.game.standing` (the standing questions),
:mod:`~referee.game.corrections` (what a correction changes),
:mod:`~referee.game.record` (what each change logs) and
:mod:`~referee.game.publication` (the subscribers). None has a lock: the session
calls them under its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import referee.game.corrections as corrections
from referee.errors import RefereeError
from referee.events import GameEvent
from referee.game.corrections import Corrector
from referee.game.edits import apply_edit, apply_roster_edit, edit_data
from referee.game.frames import FrameEvents, table_pose_json
from referee.game.numbering import Numbering
from referee.game.opening import DEFAULT_RULESET, bare_scene, game_name, open_game
from referee.game.publication import Publication
from referee.game.record import (  # noqa: F401  (where callers have read them)
    HEADING_NOISE,
    MOVING_EVERY,
    POSITION_NOISE,
    PROGRESS_EVERY,
    Recorder,
)
from referee.game.resume import resume
from referee.game.standing import StandingQuestions
from referee.game.table import TableState
from referee.game.updates import Ruling, SessionUpdate, Subscriber, named_pieces
from referee.geometry import Pose
from referee.markers.roster import Roster
from referee.rules import Ruleset, Verdict
from referee.rules.flow import GameFlow
from referee.scene import Scene
from referee.store import GameInfo, GameLog, Position
from referee.vision.pipeline import FrameResult, Pipeline
from referee.vision.sources import Frame


class Session:
    """One game: pipeline + ruleset (+ game log), publishing one stream of events.

    Build it with :meth:`start`. Methods are thread-safe: the frame loop and a
    dashboard's requests may call them at once. Subscribers hear every update in
    sequence order, with no session lock held, possibly on another caller's thread.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        scene: Scene,
        ruleset: Ruleset,
        log: GameLog | None = None,
        game: GameInfo | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.ruleset = ruleset
        self.flow: GameFlow = ruleset.game_flow()
        self.log = log
        self.game = game
        self._record = Recorder(log, game)
        """What each change logs, and with which pictures."""
        self._lock = threading.RLock()
        """Guards the session's state. Lock order (DESIGN.md, "Threads"): this lock may be
        held while the session calls the components it owns (pipeline, ruleset and flow, the
        game log, whose lock is taken inside it and calls nothing back); it is never held
        while a subscriber is called (:meth:`Publication.deliver`), so a subscriber's own lock (the
        live table's) is never taken inside it, and a subscriber may call the session."""
        self._publication = Publication(self._lock)
        """Subscribers and the updates queued for them (under this lock, no lock of its own).
        The parts below have no lock either: they are called under this one, and call
        only the components the session owns."""
        self._numbers = Numbering(self._publication)
        """The stream's last seq, frame and time, and the events numbered after them."""
        self._frame_offset = 0
        self._t_offset = 0.0
        self.resumed = False
        """True when this session continues a game already in the log."""
        self.resume_after = -1
        """Frames of the source with this index or lower were logged before: skipped."""
        self._table = TableState(scene, pipeline.roster)
        """The pieces at rest, the terrain and the roster now (under this lock)."""
        self._standing = StandingQuestions()
        self._corrector = Corrector(ruleset, self.flow, self._table, self._standing, pipeline)
        self._frames = FrameEvents(self._numbers, self._table, ruleset, self.flow, pipeline)
        self._told: dict[int, GameEvent] = {}
        """Every move, removal, entry and correction of the game by ``seq``: what a
        correction is checked against and where corrections put the pieces."""
        self.opening: tuple[GameEvent, ...] = ()
        """Events logged when the game opened (declarations, questions answerable at once)."""
        self.latest: FrameResult | None = None
        """The last frame's result (for a live view)."""
        self._seeing: FrameResult | None = None
        """The frame the change in progress is about (its picture is the evidence)."""

    # -- building ------------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        pipeline: Pipeline,
        scene: Scene | None = None,
        ruleset: str | None = None,
        *,
        log: GameLog | None = None,
        game: str | None = None,
        source: str | None = None,
    ) -> Session:
        """A session on ``pipeline``: a new game, or the logged game ``game`` resumed.

        ``scene`` gives terrain, sides, settings and questions (a bare table
        without it); ``ruleset`` overrides the scene's. A resumed game keeps
        the scene and ruleset it was started with.
        """
        scene, rules, existing = open_game(
            pipeline, scene, ruleset, log=log, game=game, source=source
        )
        session = cls(pipeline, scene, rules, log, existing)
        if existing is not None and (existing.last_seq > 0 or existing.last_frame >= 0):
            session._resume(existing, source)
        else:
            session._open_questions()
        return session

    def _open_questions(self) -> None:
        """Take the scene's declarations into the flow; the rest become standing questions."""
        events: list[GameEvent] = []
        for query in self.initial_scene.queries:
            events.extend(self._declare(query))
        self._commit(events)
        self.opening = tuple(events)

    def _declare(self, query: Mapping[str, Any], asked: bool = False) -> list[GameEvent]:
        declared = self.flow.declare(self.scene, query)
        if not declared.taken and declared.verdict is None:
            if asked:
                return [self._numbers.verdict(self.flow.answer(self.scene, query))]
            return self._answer_standing({self._standing.add(query)})
        data = {"declare": dict(query), "notes": list(declared.notes)}
        events = [self._numbers.event("declare", data)]
        if declared.verdict is not None:
            events.append(self._numbers.verdict(declared.verdict, about=events[0].seq))
        return events

    def _resume(self, game: GameInfo, source: str | None) -> None:
        """Rebuild scene, flow, tracker and sequence from the log; continue after its last frame."""
        assert self.log is not None
        self.resumed = True
        done = resume(
            self.log,
            game,
            source,
            ruleset=self.ruleset,
            flow=self.flow,
            table=self._table,
            standing=self._standing,
            pipeline=self.pipeline,
        )
        self._numbers.seq, self._numbers.frame, self._numbers.t = done.seq, done.frame, done.t
        self._told = done.told
        self._record.last_progress = done.frame
        self._record.logged = done.logged
        self.resume_after = done.resume_after
        self._frame_offset, self._t_offset = done.frame_offset, done.t_offset

    # -- the scene -----------------------------------------------------------------------------

    @property
    def scene(self) -> Scene:
        """The table now: fixed scene pieces, every piece seen at rest, the current terrain."""
        with self._lock:
            return self._table.scene()

    @property
    def initial_scene(self) -> Scene:
        """The scene the game opened on: table, sides, settings and questions."""
        return self._table.initial

    @initial_scene.setter
    def initial_scene(self, scene: Scene) -> None:
        self._table.initial = scene

    @property
    def roster(self) -> Roster:
        """The roster the camera follows now (as edited mid-game)."""
        return self._table.roster

    def state(self) -> Scene:
        """The table now as a scene file (with the standing questions) for ``referee check``."""
        with self._lock:
            return replace(self.scene, queries=tuple(self._answerable()))

    def casualties(self) -> list[GameEvent]:
        """The removals still standing, oldest first: each piece whose last removal, entry or
        move was a removal no correction undid (the dashboard lists them by the map)."""
        with self._lock:
            return corrections.casualties(list(self._told.values()), set(self._table.placed))

    def _answerable(self) -> list[Mapping[str, Any]]:
        placed = {p.id for p in self.scene}
        return self._standing.answerable(placed)

    # -- events --------------------------------------------------------------------------------

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call ``subscriber`` with every update after it is logged; returns an unsubscribe."""
        return self._publication.subscribe(subscriber)

    @property
    def last_seq(self) -> int:
        return self._numbers.seq

    @property
    def t(self) -> float:
        """Game time of the last frame, seconds."""
        return self._numbers.t

    def _commit(
        self,
        events: Sequence[GameEvent],
        positions: Sequence[Position] = (),
        force_progress: bool = False,
    ) -> None:
        """Log events (one transaction) before anyone hears of them; on failure, unnumber them."""
        seeing = self._seeing if self._seeing is not None else self.latest
        try:
            frame, t = self._numbers.frame, self._numbers.t
            scene = lambda: self.scene  # noqa: E731  (asked only when a verdict keeps evidence)
            self._record.commit(events, positions, frame, t, seeing, scene, force_progress)
        except RefereeError:
            if events:
                self._numbers.seq = events[0].seq - 1
            raise

    def _emit(self, events: Sequence[GameEvent]) -> SessionUpdate:
        """Log events that came from the players (not a frame), then publish them."""
        self._commit(events)
        update = SessionUpdate(tuple(events), verdicts=self._publication.verdicts_made(()))
        self._publication.publish(update)
        return update

    # -- frames --------------------------------------------------------------------------------

    def process(self, frame: Frame) -> SessionUpdate:
        """Run one frame through the pipeline, judge what settled, log it, then publish it."""
        with self._publication.changing():
            frame = replace(
                frame, index=frame.index + self._frame_offset, t=frame.t + self._t_offset
            )
            result = self.pipeline.process(frame)
            self._numbers.frame, self._numbers.t = result.frame, result.t
            self._seeing = result
            seen = self._frames.take(result, self._told)
            events = seen.events
            if seen.terrain_changed:  # the terrain changed: every question may answer otherwise
                events.extend(self._answer_standing(self._standing.every()))
            elif seen.moved:
                events.extend(self._answer_standing(self._standing.touched(seen.moved)))
            positions = self._record.changed_positions(result)
            self._commit(events, positions)
            self.latest = result
            update = SessionUpdate(
                tuple(events),
                result,
                tuple(seen.rulings),
                self._publication.verdicts_made(seen.rulings),
            )
            self._publication.publish(update)
            return update

    def run(self, frames: Iterable[Frame]) -> Iterator[SessionUpdate]:
        """Process every frame (skipping those a resumed game already logged)."""
        for frame in frames:
            if frame.index <= self.resume_after:
                continue
            yield self.process(frame)

    @property
    def hidden_terrain(self) -> frozenset[str]:
        """Terrain templates whose tags are all hidden now: each stays where last seen."""
        with self._lock:
            return self._table.hidden_terrain(self.latest)

    def camera_event(self, kind: str, message: str, camera: int | None = None) -> None:
        """A camera lost or reopened (from the frame source); logged and published at once.
        ``camera`` (from 0) names which one when there are several."""
        data: dict[str, Any] = {"kind": kind, "message": message}
        if camera is not None:
            data["camera"] = camera + 1
        with self._publication.changing():
            self._emit([self._numbers.event("camera", data)])

    # -- standing questions --------------------------------------------------------------------

    def _answer_standing(self, which: Iterable[int]) -> list[GameEvent]:
        """Answer these standing questions on the live scene; log those whose answer changed."""
        answers = self._standing.answer(self.flow, self.scene, which)
        return [self._numbers.verdict(verdict, question=i) for i, verdict in answers]

    def unanswered(self) -> list[str]:
        """Why each standing question never got an answer (a piece never seen at rest)."""
        with self._lock:
            return self._standing.unanswered({p.id for p in self.scene})

    # -- from the players ----------------------------------------------------------------------

    def ask(self, query: Mapping[str, Any]) -> Verdict:
        """Answer a question on the live table and log the verdict (a dispute settled)."""
        return self.asked(query)[0]

    def asked(self, query: Mapping[str, Any]) -> tuple[Verdict, int]:
        """:meth:`ask`, and the seq its verdict was logged as (where its evidence is kept)."""
        with self._publication.changing():
            verdict = self.ruleset.answer(self.scene, query)
            event = self._numbers.verdict(verdict)
            self._emit([event])
            return verdict, event.seq

    def declare(self, query: Mapping[str, Any]) -> SessionUpdate:
        """A declaration (cards, dice, a Follow Me, an allowance): kept for the next moves."""
        with self._publication.changing():
            self._check_declaration(query)
            return self._emit(self._declare(query, asked=True))

    def _check_declaration(self, query: Mapping[str, Any]) -> None:
        ask = query.get("ask")
        known = self.ruleset.questions()
        if not isinstance(ask, str) or ask not in known:
            raise RefereeError(f"ask: unknown question {ask!r} (known: {', '.join(known)})")
        for pid in sorted(named_pieces(query)):
            if not self._table.knows(pid):
                raise RefereeError(f"no piece {pid!r} in the roster or the scene")

    def edit_terrain(self, action: str, terrain: Mapping[str, Any] | str) -> SessionUpdate:
        """Add, replace or remove a terrain piece (validated as a scene file would be)."""
        with self._publication.changing():
            data = edit_data("terrain", action, terrain)
            terrain_now = apply_edit(self._table.terrain, data)
            candidate = replace(self.scene, terrain=terrain_now).to_json()
            Scene.from_json(candidate, "terrain edit")  # every scene-file check, one error line
            self._table.terrain = terrain_now
            events = [self._numbers.event("edit", data)]
            events.extend(self._answer_standing(self._standing.every()))
            return self._emit(events)

    def edit_roster(self, action: str, entry: Mapping[str, Any] | str) -> SessionUpdate:
        """Add, replace or remove a roster piece mid-game (validated as a roster file would be).

        The camera follows the edited roster from the next frame; a removed
        piece leaves the table.
        """
        with self._publication.changing():
            data = edit_data("roster", action, entry)
            roster = apply_roster_edit(self.roster, data)
            self.pipeline.use_roster(roster)
            self._table.use_roster(roster)
            return self._emit([self._numbers.event("edit", data)])

    def correct(
        self,
        seq: int,
        reason: str,
        *,
        void: bool = False,
        to: Pose | None = None,
        dashes: str = "--",
    ) -> GameEvent:
        """The players' correction of move ``seq``: it did not happen (``void``) or it ended
        at ``to``. Logged as a ``correction`` event, then the verdicts that depended on the
        move are asked again on the corrected table and logged (each ``about`` the
        correction). A seq that is not a move, or is voided already, is refused; ``dashes``
        start the field names its messages give (``--why`` for a command, ``why`` for JSON)."""
        with self._publication.changing():
            name = f"game {self.game.name!r}" if self.game is not None else "this game"
            last = self._numbers.seq
            if not 1 <= seq <= last:
                raise RefereeError(f"{name} has no event #{seq} (its events are 1 to {last})")
            if seq not in self._told or self._told[seq].type not in corrections.CORRECTED:
                raise RefereeError(
                    f"event #{seq} of {name} is not a move or a removal; only those are corrected"
                )
            told = sorted(self._told.values(), key=lambda e: e.seq)
            fix, move = corrections.make(
                told,
                seq,
                reason,
                void=void,
                to=to,
                table=self.initial_scene.table,
                where=name,
                dashes=dashes,
            )
            # Everything below is undone if the rules or the log fail: no seq skipped, the
            # table as it was (a refused correction changes nothing).
            kept = (self._numbers.seq, dict(self._table.placed), self._standing.answers())
            fresh = self._publication.made_so_far()
            try:
                event = self._correction_events(fix, move, told)
            except BaseException:
                self._numbers.seq, self._table.placed, answers = kept
                self._standing.restore(answers)
                self._publication.undo(fresh)
                self._told = {k: v for k, v in self._told.items() if k <= kept[0]}
                raise
            return event

    def _correction_events(
        self, fix: corrections.Correction, move: GameEvent, told: Sequence[GameEvent]
    ) -> GameEvent:
        event = self._numbers.event("correction", fix.data())
        retold = self._corrector.apply(fix, event, move, told)
        events = [event, *(self._numbers.verdict(v, about=event.seq) for v in retold.rejudged)]
        self._told[event.seq] = event
        events += [self._numbers.verdict(v, about=event.seq, question=i) for i, v in retold.answers]
        self._emit(events)
        return event

    def close(self) -> None:
        """Mark the last frame processed as logged, and give up the game's writer lock (a
        serve that loops the footage starts a game a pass on one log: each lock held to
        the end would hold a file open a pass)."""
        with self._lock:
            if self._numbers.frame > self._record.last_progress:
                self._commit((), force_progress=True)
        if self.log is not None and self.game is not None:
            self.log.release(self.game)


__all__ = [
    "DEFAULT_RULESET",
    "Ruling",
    "Session",
    "SessionUpdate",
    "bare_scene",
    "game_name",
    "named_pieces",
    "table_pose_json",
]
