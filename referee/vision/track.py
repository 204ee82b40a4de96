"""Tracker: per-frame piece poses -> smoothed tracks and settled move events.

Each roster piece goes through these states::

    new ──(stable N frames)──> settled ──(tag gone)──> hidden ──(back in place)──> settled
     │                            │                       │
     └─(seen away from where  ────┴─(displaced)─> moving <┘(seen elsewhere)
        it was first seen)                          │
                          (stable N frames and T s) ├──> settled  (+ MoveEvent if it moved)
                                                    │
              (gone past an edge, or gone a while)  └──> removed ──(seen again)──> new (entry)

A settled piece is smoothed with a running mean. A hidden piece (a hand over
it, or lifted) stays at its last settled pose; when it is seen again at the
same place it simply settles back, so a covered-then-uncovered piece never
produces a move. A :class:`MoveEvent` is emitted only when a piece settles
again with its front point displaced by at least ``min_move`` inches (or
turned by ``min_turn`` degrees). Unknown ids are flagged once, a tag seen
twice in one frame is flagged and ignored for that frame, and a jump faster
than a hand can carry a piece is flagged (the observation still has to prove
itself stable before it counts).

No move is lost. A piece seen before it ever settled has an *origin*: the
mean of its first ``origin_frames`` steady sightings, or, when it was only
glimpsed (through a hand, in motion), its first sighting. Seen away from
that origin it is ``moving`` (never a new piece), and when it settles at
least ``min_move`` from there it is a move from the origin. A move from a
mere glimpse also gives a ``unknown_origin`` flag naming the piece: the
referee cannot say where it came from, and ``from`` is its best guess.

The game starts ``start_seconds`` (3 s) after the first roster piece is
seen, or at once on a resumed game (:meth:`Tracker.restore`). Pieces first
seen before that are on the table from the start: settling where first seen
is no event, as always. A piece first seen after it, or seen again after
it was removed, is a reinforcement: when it settles it is an
:class:`EnteredEvent` (never a move, whatever the hand carrying it in
showed). This is the time-based reading of RULES.md's convention ("first
seen after the first settled move"): a referee started mid-game sees the
first move within the first second, before every piece has been seen.

A casualty is a :class:`RemovedEvent`. Only a *lifted* piece can be
removed: one seen displaced from its rest (``moving``, its last sighting
more than ``lift_threshold`` from it; at least two sightings away from it for
the time rule below), then lost. A hand hovering over a settled piece hides it in place (no
displaced sighting), so it stays ``hidden`` while the hand stays (up to
``vanished_after``, below).
A lifted piece is removed when

- its last sighting is within ``edge_margin`` (1.5 in) of a table edge, or
  past it, and the last step went ``edge_step`` (0.05 in) or more toward that
  edge, and it has been gone ``edge_seconds`` (1 s): "carried off the south
  edge"; or
- it has been gone ``removed_after`` seconds (4 s) anywhere: "gone from view
  4.0 s after a lift" (a piece moved out of sight under a hand for longer
  is removed, then enters again; a correction undoes the removal).

A settled piece whose tag the lifting hand hid from the first instant (no lift
seen at all) is removed once it has been out of sight ``vanished_after``
seconds (8 s) while the camera has seen the rest of the table for
``table_seen_seconds`` (1 s) without a gap: a hovering hand stays a second or
three, and a covered or knocked camera hides every piece at once, which is no
casualty. A piece that comes back after that enters again.

The edge test needs the table's size (``table``); without it only the time
rule applies.

A terrain template (a paper wood with its tag(s) printed on it) is tracked
the same way under its template id, but its rests are :class:`PlaceEvent`
values, never moves: one when it first settles, and one each time it settles
again with a vertex of its outline at least ``min_move`` inches from where it
was. Hidden, it stays where it was last seen; it is never removed nor enters.

:meth:`Tracker.update` never mutates its inputs and returns new values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from referee.errors import RosterError
from referee.markers.roster import Roster, TerrainTemplate
from referee.vision.pose import FramePoses, PiecePose

State = Literal["new", "settled", "hidden", "moving", "removed"]

EDGE_NAMES = ("north", "south", "west", "east")
"""Table edges as the game log names them: north y = 0, south y = depth, west x = 0,
east x = width (the scene's top, bottom, left, right)."""


@dataclass(frozen=True)
class TrackerSettings:
    settle_frames: int = 8
    """Consecutive stable observations needed to call a piece settled."""
    settle_seconds: float = 0.25
    """...spanning at least this long (whichever is longer)."""
    stable_tolerance: float = 0.06
    """Observations within this many inches of their window mean count as stable."""
    stable_turn: float = 2.0
    """...and within this many degrees."""
    lift_threshold: float = 0.12
    """A settled piece seen farther than this from its pose (inches) is moving."""
    lift_turn: float = 3.0
    """...or turned by more than this (degrees)."""
    min_move: float = 0.15
    """Smallest front-point displacement reported as a move, inches."""
    min_turn: float = 5.0
    """Smallest turn on the spot reported as a move, degrees."""
    max_speed: float = 80.0
    """Faster than this (inches per second) between consecutive sightings is flagged."""
    window: int = 150
    """Running mean over at most this many samples, so a slow drift is still followed."""
    mismatch_frames: int = 30
    """After this many frames with tags seen but none of the roster's: a roster error."""
    path_step: float = 0.25
    """A moving piece's path keeps a pose once it is this many inches from the last kept..."""
    path_turn: float = 5.0
    """...or turned this many degrees (so a pivot on the spot is kept too)."""
    origin_frames: int = 3
    """A piece not yet settled seen this many times steady at one place came from there
    (fewer: it was only glimpsed, and a move from there is flagged ``unknown_origin``)."""
    start_seconds: float = 3.0
    """The game starts this long after the first roster piece is seen: a piece first seen
    later is a reinforcement (an entry), one seen before was on the table from the start."""
    removed_after: float = 4.0
    """A lifted piece gone from view this many seconds is removed (a casualty)."""
    vanished_after: float = 8.0
    """A settled piece out of sight this many seconds, while the camera sees the rest of
    the table, is removed even though no lift was seen (the hand hid its tag from the
    first instant): a hand hovers for a second or three, not eight."""
    table_seen_seconds: float = 1.0
    """...counted only once the camera has seen roster pieces this long without a gap (a
    camera covered or knocked away hides every piece at once: that is no casualty)."""
    edge_margin: float = 1.5
    """A lifted piece last seen this close to a table edge (inches), or past it, heading
    for it..."""
    edge_seconds: float = 1.0
    """...and gone this many seconds was carried off that edge: removed."""
    edge_step: float = 0.05
    """Heading for the edge: its last step went at least this many inches toward it (a
    piece slid along its edge, or jittering at rest in a hand, is not carried off)."""


@dataclass(frozen=True)
class MoveEvent:
    """A piece left a settled pose and settled again elsewhere."""

    piece: str
    tag: int
    from_pose: PiecePose
    to_pose: PiecePose
    front_distance: float
    """Straight-line displacement of the base's front-centre point, inches (RULES.md)."""
    uncertainty: float
    """About two standard deviations of ``front_distance``, inches."""
    start_t: float
    """First frame time the piece was missing from or displaced off its old pose, seconds."""
    end_t: float
    """When it came to rest at the new pose (first frame of the stable run)."""
    start_frame: int
    end_frame: int
    path: tuple[PiecePose, ...] = ()
    """Poses seen on the way, thinned (``path_step``, ``path_turn``): the tracked path
    between the two rests, start and end excluded (empty when carried out of sight)."""

    @property
    def duration(self) -> float:
        return self.end_t - self.start_t

    @property
    def kind(self) -> str:
        return "move"

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "move",
            "piece": self.piece,
            "tag": self.tag,
            "from": _pose_json(self.from_pose),
            "to": _pose_json(self.to_pose),
            "front_distance": round(self.front_distance, 4),
            "uncertainty": round(self.uncertainty, 4),
            "start_t": round(self.start_t, 4),
            "end_t": round(self.end_t, 4),
            "duration": round(self.duration, 4),
            "start_frame": self.start_frame,
            "end_frame": self.end_frame,
            **({"via": [_pose_json(p) for p in self.path]} if self.path else {}),
        }


@dataclass(frozen=True)
class FlagEvent:
    """Something a user should know about: an unknown tag, a duplicate, a jump, a bumped camera."""

    kind: str
    """``unknown_tag``, ``duplicate_tag``, ``jump``, ``camera_moved``, ``camera_lost``..."""
    message: str
    frame: int
    t: float
    tag: int | None = None
    piece: str | None = None
    camera: int | None = None
    """Which camera (from 0, in source order) a camera event is about."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "event": self.kind,
            "message": self.message,
            "frame": self.frame,
            "t": round(self.t, 4),
        }
        if self.tag is not None:
            data["tag"] = self.tag
        if self.piece is not None:
            data["piece"] = self.piece
        if self.camera is not None:
            data["camera"] = self.camera + 1  # numbered from 1 for people, as -c is given
        return data


@dataclass(frozen=True)
class PlaceEvent:
    """A terrain template came to rest: placed the first time, or moved and settled again."""

    template: str
    """The template's id (the scene's terrain feature it places)."""
    pose: PiecePose
    """The template frame's resting pose."""
    polygon: tuple[tuple[float, float], ...]
    """Its outline placed at ``pose``, table inches."""
    first: bool
    """True the first time it settles (nothing was placed before)."""
    start_t: float
    end_t: float
    start_frame: int
    end_frame: int

    @property
    def kind(self) -> str:
        return "place"

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "place",
            "template": self.template,
            "tag": self.pose.tag,
            "pose": _pose_json(self.pose),
            "polygon": [[round(x, 4), round(y, 4)] for x, y in self.polygon],
            "first": self.first,
            "start_t": round(self.start_t, 4),
            "end_t": round(self.end_t, 4),
            "start_frame": self.start_frame,
            "end_frame": self.end_frame,
        }


@dataclass(frozen=True)
class RemovedEvent:
    """A lifted piece left the table: a casualty (the game log's ``removed``)."""

    piece: str
    tag: int
    at: PiecePose
    """Its last resting pose (where it was lifted from)."""
    reason: str
    """In plain words: "carried off the south edge", "gone from view 4.0 s after a lift"."""
    edge: str | None
    """``north``/``south``/``west``/``east`` when carried off an edge, else None."""
    start_t: float
    """When it left its rest (first frame displaced or missing), seconds."""
    last_seen_t: float
    """When it was last seen (in the hand), seconds."""
    t: float
    """When the tracker called it removed."""
    frame: int

    @property
    def kind(self) -> str:
        return "removed"

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "removed",
            "piece": self.piece,
            "tag": self.tag,
            "at": _pose_json(self.at),
            "reason": self.reason,
            "edge": self.edge,
            "start_t": round(self.start_t, 4),
            "last_seen_t": round(self.last_seen_t, 4),
            "t": round(self.t, 4),
            "frame": self.frame,
        }


@dataclass(frozen=True)
class EnteredEvent:
    """A piece first seen after the game started (or back after a removal) came to rest:
    a reinforcement (the game log's ``entered``)."""

    piece: str
    tag: int
    at: PiecePose
    """Where it settled."""
    start_t: float
    """When it was first seen (coming in), seconds."""
    end_t: float
    """When it came to rest (first frame of the stable run)."""
    start_frame: int
    end_frame: int

    @property
    def kind(self) -> str:
        return "entered"

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "entered",
            "piece": self.piece,
            "tag": self.tag,
            "at": _pose_json(self.at),
            "start_t": round(self.start_t, 4),
            "end_t": round(self.end_t, 4),
            "start_frame": self.start_frame,
            "end_frame": self.end_frame,
        }


Event = MoveEvent | FlagEvent | PlaceEvent | RemovedEvent | EnteredEvent


def _pose_json(pose: PiecePose) -> dict[str, Any]:
    return {
        "x": round(pose.x, 4),
        "y": round(pose.y, 4),
        "heading": round(pose.heading, 2),
        "uncertainty": round(pose.uncertainty, 4),
    }


@dataclass(frozen=True)
class TrackedPiece:
    """One piece's pose as the tracker reports it in one frame."""

    pose: PiecePose
    state: State

    def to_json(self) -> dict[str, Any]:
        return {**self.pose.to_json(), "state": self.state}


@dataclass(frozen=True)
class TrackerState:
    """The tracker's output for one frame: every piece seen so far, and new events."""

    frame: int
    t: float
    pieces: tuple[TrackedPiece, ...]
    events: tuple[Event, ...] = ()

    def piece(self, piece_id: str) -> TrackedPiece | None:
        return next((p for p in self.pieces if p.pose.id == piece_id), None)

    def to_json(self) -> dict[str, Any]:
        """The tracks-file line of DESIGN.md (plus ``uncertainty`` and ``state``)."""
        return {
            "frame": self.frame,
            "t": round(self.t, 6),
            "pieces": [p.to_json() for p in self.pieces],
        }


@dataclass(frozen=True)
class _Track:
    """Internal per-piece memory; replaced, never mutated."""

    state: State
    settled: PiecePose | None = None
    samples: int = 0
    window: tuple[PiecePose, ...] = ()
    window_t: tuple[float, ...] = ()
    window_frames: tuple[int, ...] = ()
    last: PiecePose | None = None
    last_t: float = -math.inf
    left_t: float = 0.0
    left_frame: int = 0
    path: tuple[PiecePose, ...] = ()
    """Poses seen while moving, thinned as they come."""
    origin: PiecePose | None = None
    """Never settled yet: where it was first seen (a move would be from here)."""
    origin_known: bool = False
    """``origin`` is a steady sighting (``origin_frames``), not a glimpse."""
    entry: bool = False
    """First seen after the game started (or after a removal): it settles as an entry."""
    first_t: float = 0.0
    first_frame: int = 0
    """When this track (or this entry) was first seen."""
    prior: PiecePose | None = None
    """The sighting before ``last`` (which way a lifted piece was heading)."""
    away: int = 0
    """Sightings displaced from its rest (or origin) since it left: a lift needs two."""
    missing_t: float | None = None
    missing_frame: int = 0
    """A piece not yet settled: first frame of the current gap in its sightings."""
    removed_at: PiecePose | None = None
    """Removed: where it rested before it was lifted off."""


def _removed(
    track: _Track, base: PiecePose, reason: str, edge: str | None, frame: int, t: float
) -> tuple[_Track, list[Event]]:
    """``track`` gone off the table from its rest ``base``: the removed track and its event."""
    at = replace(base, seen=False)
    event = RemovedEvent(
        piece=base.id,
        tag=base.tag,
        at=at,
        reason=reason,
        edge=edge,
        start_t=track.left_t,
        last_seen_t=track.last_t,
        t=t,
        frame=frame,
    )
    return _Track("removed", removed_at=at, last_t=track.last_t), [event]


def _angle_diff(a: float, b: float) -> float:
    """Signed smallest difference a - b in degrees, in (-180, 180]."""
    d = (a - b) % 360.0
    return d - 360.0 if d > 180.0 else d


def _mean_pose(poses: Sequence[PiecePose]) -> PiecePose:
    n = len(poses)
    x = sum(p.x for p in poses) / n
    y = sum(p.y for p in poses) / n
    c = sum(math.cos(math.radians(p.heading)) for p in poses)
    s = sum(math.sin(math.radians(p.heading)) for p in poses)
    u = sum(p.uncertainty for p in poses) / n
    return replace(
        poses[-1], x=x, y=y, heading=math.degrees(math.atan2(s, c)) % 360.0, uncertainty=u
    )


MAX_PATH = 1000
"""Most poses a path keeps; a longer one keeps every other pose (still the whole way)."""


def _close(a: PiecePose, b: PiecePose, distance: float, turn: float) -> bool:
    return (
        math.hypot(a.x - b.x, a.y - b.y) <= distance
        and abs(_angle_diff(a.heading, b.heading)) <= turn
    )


class Tracker:
    """Follows every roster piece through lifts, hands and moves.

    ``update`` takes one frame's :class:`FramePoses` and returns a
    :class:`TrackerState` with the frame's tracks and any new events.
    ``table`` (width, depth in inches) lets it tell a piece carried off an edge.
    """

    def __init__(
        self,
        roster: Roster,
        settings: TrackerSettings | None = None,
        table: tuple[float, float] | None = None,
    ) -> None:
        self.roster = roster
        self.settings = settings or TrackerSettings()
        self.table = table
        self.reset()

    def reset(self) -> None:
        """Forget every track and flag."""
        self._tracks: dict[str, _Track] = {}
        self._unknown_flagged: frozenset[int] = frozenset()
        self._duplicates: frozenset[int] = frozenset()
        self._frames_with_tags = 0
        self._roster_seen = False
        self._first_seen_t: float | None = None
        self._started = False
        self._table_seen_since: float | None = None

    @property
    def started(self) -> bool:
        """Whether the game has started: a piece first seen from now on is an entry."""
        return self._started

    def use_roster(self, roster: Roster) -> None:
        """Follow an edited roster: tracks of pieces it still lists are kept."""
        self.roster = roster
        ids = {entry.id for entry in roster} | {t.id for t in roster.templates}
        self._tracks = {pid: t for pid, t in self._tracks.items() if pid in ids}
        self._unknown_flagged -= {entry.tag for entry in roster}
        self._unknown_flagged -= {t.tag for tp in roster.templates for t in tp.tags}

    def restore(self, poses: Mapping[str, PiecePose]) -> None:
        """Start from these resting poses (a resumed game): each piece settled where it was
        last logged, so seeing it there again is no move and seeing it elsewhere is one.
        The game is under way: a piece not among them is an entry when it settles."""
        for pid, pose in poses.items():
            self._tracks[pid] = _Track("settled", settled=pose, samples=1)
        self._roster_seen = self._roster_seen or bool(poses)
        self._started = True

    @property
    def settled_poses(self) -> dict[str, PiecePose]:
        """Each piece's last settled pose (what a rules query should measure from)."""
        return {pid: t.settled for pid, t in self._tracks.items() if t.settled is not None}

    def update(self, frame: int, t: float, poses: FramePoses) -> TrackerState:
        s = self.settings
        events: list[Event] = []
        for tag in poses.unknown:
            if tag not in self._unknown_flagged:
                events.append(
                    FlagEvent(
                        "unknown_tag",
                        f"tag {tag} is not in the roster (add it, or take the tag off the table)",
                        frame,
                        t,
                        tag=tag,
                    )
                )
        self._unknown_flagged |= frozenset(poses.unknown)

        by_id: dict[str, list[PiecePose]] = {}
        for pose in poses.pieces:
            by_id.setdefault(pose.id, []).append(pose)
        duplicates = frozenset(ps[0].tag for ps in by_id.values() if len(ps) > 1)
        for tag in sorted(duplicates - self._duplicates):
            entry = self.roster.by_tag(tag)
            events.append(
                FlagEvent(
                    "duplicate_tag",
                    f"tag {tag} is seen twice in one frame; ignoring it until only one is in view",
                    frame,
                    t,
                    tag=tag,
                    piece=entry.id if entry else None,
                )
            )
        self._duplicates = duplicates

        if poses.pieces or poses.unknown:
            self._frames_with_tags += 1
        if poses.pieces:
            self._roster_seen = True
            if self._first_seen_t is None:
                self._first_seen_t = t
            if self._table_seen_since is None:
                self._table_seen_since = t
        else:
            self._table_seen_since = None
        if not self._roster_seen and poses.unknown and self._frames_with_tags >= s.mismatch_frames:
            raise RosterError(
                f"the roster does not match the table: tags {list(poses.unknown)} are seen "
                f"but none of its {len(self.roster)} pieces' tags (check the roster file and "
                f"its dictionary {self.roster.dictionary})"
            )
        if self._first_seen_t is not None and t - self._first_seen_t >= s.start_seconds:
            self._started = True

        tracks = dict(self._tracks)
        for pid, depth, template in self._followed():
            seen = by_id.get(pid)
            obs = seen[0] if seen and len(seen) == 1 else None
            old = tracks.get(pid)
            if old is None and obs is None:
                continue
            if old is None:
                # Terrain templates are placed, never entered: their first rest is a place.
                entering = self._started and template is None
                old = _Track("new", entry=entering, first_t=t, first_frame=frame)
            new, happened = self._step(old, obs, frame, t, depth, events, template)
            tracks[pid] = new
            events.extend(happened)
        self._tracks = tracks

        pieces = []
        for pid, _, _ in self._followed():
            track = tracks.get(pid)
            if track is None:
                continue
            seen_now = track.last is not None and track.last_t == t
            if track.state in ("settled", "hidden") and track.settled is not None:
                pose = replace(track.settled, seen=seen_now)
            elif track.state == "removed" and track.removed_at is not None:
                pose = replace(track.removed_at, seen=False)
            else:
                assert track.last is not None
                pose = replace(track.last, seen=seen_now)
            pieces.append(TrackedPiece(pose, track.state))
        return TrackerState(frame, t, tuple(pieces), tuple(events))

    def _followed(self) -> list[tuple[str, float, TerrainTemplate | None]]:
        """Every id the tracker follows: the pieces (with their base depth), then the
        terrain templates (depth 0: a template's move is measured on its outline)."""
        out: list[tuple[str, float, TerrainTemplate | None]] = [
            (entry.id, entry.base[1], None) for entry in self.roster
        ]
        out.extend((t.id, 0.0, t) for t in self.roster.templates)
        return out

    def _step(
        self,
        track: _Track,
        obs: PiecePose | None,
        frame: int,
        t: float,
        depth: float,
        events: list[Event],
        template: TerrainTemplate | None = None,
    ) -> tuple[_Track, list[Event]]:
        s = self.settings
        if obs is None:
            if track.state == "settled":
                return replace(track, state="hidden", left_t=t, left_frame=frame), []
            if track.state == "new" and track.missing_t is None:
                return replace(track, missing_t=t, missing_frame=frame), []
            if track.state == "moving" and template is None:
                return self._lifted_off(track, frame, t)
            if track.state == "hidden" and template is None:
                return self._vanished(track, frame, t)
            return track, []

        if track.state == "removed":
            # Back on the table after it was removed: a reinforcement, settling as an entry.
            track = _Track("new", entry=True, first_t=t, first_frame=frame)
        if track.last is not None and t > track.last_t:
            speed = math.hypot(obs.x - track.last.x, obs.y - track.last.y) / (t - track.last_t)
            if speed > s.max_speed and track.state != "hidden":
                events.append(
                    FlagEvent(
                        "jump",
                        f"piece {obs.id!r} jumped {speed * (t - track.last_t):.1f}in in "
                        f"{t - track.last_t:.2f}s; waiting for it to settle",
                        frame,
                        t,
                        tag=obs.tag,
                        piece=obs.id,
                    )
                )
        track = replace(track, prior=track.last, last=obs, last_t=t)

        rested = track.settled
        if track.state in ("settled", "hidden") and rested is not None:
            if _close(obs, rested, s.lift_threshold, s.lift_turn):
                n = min(track.samples + 1, s.window)
                settled = rested
                heading = settled.heading + _angle_diff(obs.heading, settled.heading) / n
                mean = replace(
                    settled,
                    x=settled.x + (obs.x - settled.x) / n,
                    y=settled.y + (obs.y - settled.y) / n,
                    heading=heading % 360.0,
                    uncertainty=settled.uncertainty + (obs.uncertainty - settled.uncertainty) / n,
                )
                return replace(track, state="settled", settled=mean, samples=n, window=()), []
            if track.state == "settled":
                track = replace(track, left_t=t, left_frame=frame)
            track = replace(
                track,
                state="moving",
                window=(obs,),
                window_t=(t,),
                window_frames=(frame,),
                path=self._grow_path((), obs, rested),
                away=1,
            )
            return track, []

        if track.state == "new" and not track.entry and template is None:
            track = self._from_origin(track, obs, t, frame)
        # new or moving: grow the stable window, or restart it at this observation.
        base = track.settled or track.origin
        if track.state == "moving" and base is not None:
            displaced = not _close(obs, base, s.lift_threshold, s.lift_turn)
            track = replace(
                track,
                path=self._grow_path(track.path, obs, base),
                away=track.away + int(displaced),
            )
        window = track.window
        if window and _close(obs, _mean_pose(window), s.stable_tolerance, s.stable_turn):
            track = replace(
                track,
                window=(*window, obs)[-s.window :],
                window_t=(*track.window_t, t)[-s.window :],
                window_frames=(*track.window_frames, frame)[-s.window :],
            )
        else:
            track = replace(track, window=(obs,), window_t=(t,), window_frames=(frame,))
        if (
            track.state == "new"
            and track.origin is not None
            and not track.origin_known
            and len(track.window) >= s.origin_frames
        ):
            # Seen steady where it was first seen: a move from here is from a known place.
            track = replace(track, origin=_mean_pose(track.window), origin_known=True)
        if len(track.window) < s.settle_frames or track.window_t[-1] - track.window_t[0] < (
            s.settle_seconds
        ):
            return track, []

        rest = _mean_pose(track.window)
        settled_track = replace(
            track,
            state="settled",
            settled=rest,
            samples=len(track.window),
            path=(),
            origin=None,
            origin_known=False,
            entry=False,
            away=0,
            missing_t=None,
        )
        previous = track.settled
        if template is not None:
            placed = self._placed(template, track, settled_track, previous, rest)
            return placed[0], [placed[1]] if placed[1] is not None else []
        if track.entry:
            entered = EnteredEvent(
                piece=rest.id,
                tag=rest.tag,
                at=replace(rest, seen=True),
                start_t=track.first_t,
                end_t=track.window_t[0],
                start_frame=track.first_frame,
                end_frame=track.window_frames[0],
            )
            return settled_track, [entered]
        known = previous is not None or track.origin_known
        start = previous if previous is not None else track.origin
        if start is None:
            return settled_track, []
        fx0, fy0 = start.front(depth)
        fx1, fy1 = rest.front(depth)
        distance = math.hypot(fx1 - fx0, fy1 - fy0)
        turn = abs(_angle_diff(rest.heading, start.heading))
        if distance < s.min_move and turn < s.min_turn:
            if previous is None:
                return settled_track, []  # settled where first seen: on the table from the start
            # Put back where it was: keep the long-run mean, no move.
            return replace(settled_track, settled=previous, samples=track.samples), []
        event = MoveEvent(
            piece=rest.id,
            tag=rest.tag,
            from_pose=replace(start, seen=False),
            to_pose=replace(rest, seen=True),
            front_distance=distance,
            uncertainty=math.hypot(start.uncertainty, rest.uncertainty),
            start_t=track.left_t,
            end_t=track.window_t[0],
            start_frame=track.left_frame,
            end_frame=track.window_frames[0],
            path=self._end_path(track.path, rest),
        )
        if known:
            return settled_track, [event]
        flag = FlagEvent(
            "unknown_origin",
            f"piece {rest.id!r} moved before the referee saw it at rest; where it came from "
            f"is a guess: ({start.x:.2f}, {start.y:.2f}), where it was first glimpsed "
            f"(correct the move if that is wrong)",
            track.window_frames[0],
            track.window_t[0],
            tag=rest.tag,
            piece=rest.id,
        )
        return settled_track, [event, flag]

    def _from_origin(self, track: _Track, obs: PiecePose, t: float, frame: int) -> _Track:
        """A piece never settled yet, seen again: the first sighting is its origin; seen away
        from its origin it is moving from there (a move, once it settles, not a new piece)."""
        s = self.settings
        if track.origin is None:
            return replace(track, origin=replace(obs, seen=False), missing_t=None)
        if _close(obs, track.origin, s.lift_threshold, s.lift_turn):
            return replace(track, missing_t=None)
        left_t, left_frame = (
            (track.missing_t, track.missing_frame) if track.missing_t is not None else (t, frame)
        )
        return replace(
            track,
            state="moving",
            left_t=left_t,
            left_frame=left_frame,
            missing_t=None,
            window=(),
            window_t=(),
            window_frames=(),
        )

    def _vanished(self, track: _Track, frame: int, t: float) -> tuple[_Track, list[Event]]:
        """A settled piece out of sight for ``vanished_after`` seconds while the camera sees
        the table: lifted off under the hand that hid it (module docstring)."""
        s = self.settings
        base = track.settled
        gone = t - track.left_t
        table_seen = self._table_seen_since is not None and (
            t - self._table_seen_since >= s.table_seen_seconds
        )
        if base is None or gone < s.vanished_after or not table_seen:
            return track, []
        reason = f"gone from view {gone:.1f} s (no lift seen: a hand hid it)"
        return _removed(track, base, reason, None, frame, t)

    def _lifted_off(self, track: _Track, frame: int, t: float) -> tuple[_Track, list[Event]]:
        """A moving piece out of sight: removed when it was lifted (seen away from its rest)
        and carried off an edge, or gone long enough (module docstring)."""
        s = self.settings
        last = track.last
        base = track.settled or (track.origin if track.origin_known else None)
        if (
            last is None
            or base is None
            or track.away < 1
            or _close(last, base, s.lift_threshold, s.lift_turn)
        ):
            return track, []
        gone = t - track.last_t
        # One sighting on the way out is enough at an edge (the hand hid the tag until
        # then); anywhere else a lift takes two, so a one-frame misreading under a
        # hovering hand never removes a piece.
        edge = self._edge_out(track.prior, last)
        if edge is not None and gone >= s.edge_seconds:
            reason = f"carried off the {edge} edge"
        elif gone >= s.removed_after and track.away >= 2:
            edge, reason = None, f"gone from view {gone:.1f} s after a lift"
        else:
            return track, []
        return _removed(track, base, reason, edge, frame, t)

    def _edge_out(self, prior: PiecePose | None, last: PiecePose) -> str | None:
        """The table edge ``last`` was heading off: within ``edge_margin`` of it (or past
        it) with the step from ``prior`` going toward it; None if none (or no table)."""
        if self.table is None:
            return None
        width, depth = self.table
        gaps = {"north": last.y, "south": depth - last.y, "west": last.x, "east": width - last.x}
        edge = min(gaps, key=lambda e: gaps[e])
        if gaps[edge] > self.settings.edge_margin:
            return None
        if gaps[edge] < 0:
            return edge
        if prior is None:
            return None
        toward = {
            "north": prior.y - last.y,
            "south": last.y - prior.y,
            "west": prior.x - last.x,
            "east": last.x - prior.x,
        }[edge]
        return edge if toward >= self.settings.edge_step else None

    def _placed(
        self,
        template: TerrainTemplate,
        track: _Track,
        settled_track: _Track,
        previous: PiecePose | None,
        rest: PiecePose,
    ) -> tuple[_Track, PlaceEvent | None]:
        """A template at rest: placed (the first time, or moved by ``min_move`` at some
        vertex of its outline), or put back where it was (no event)."""
        polygon = template.placed(rest.x, rest.y, rest.heading)
        if previous is not None:
            before = template.placed(previous.x, previous.y, previous.heading)
            shift = max(
                math.hypot(a[0] - b[0], a[1] - b[1]) for a, b in zip(before, polygon, strict=True)
            )
            if shift < self.settings.min_move:
                return replace(settled_track, settled=previous, samples=track.samples), None
        first = previous is None
        event = PlaceEvent(
            template=template.id,
            pose=replace(rest, seen=True),
            polygon=polygon,
            first=first,
            start_t=track.window_t[0] if first else track.left_t,
            end_t=track.window_t[0],
            start_frame=track.window_frames[0] if first else track.left_frame,
            end_frame=track.window_frames[0],
        )
        return settled_track, event

    def _apart(self, a: PiecePose, b: PiecePose) -> bool:
        return not _close(a, b, self.settings.path_step, self.settings.path_turn)

    def _grow_path(
        self, path: tuple[PiecePose, ...], obs: PiecePose, start: PiecePose
    ) -> tuple[PiecePose, ...]:
        """``path`` plus ``obs`` when it is a step or a turn away from the last pose kept
        (the start pose before any): a few poses per inch, not one per frame."""
        if not self._apart(obs, path[-1] if path else start):
            return path
        path = (*path, replace(obs, seen=True))
        return path[::2] if len(path) > MAX_PATH else path

    def _end_path(self, path: tuple[PiecePose, ...], rest: PiecePose) -> tuple[PiecePose, ...]:
        """The path without its tail at the resting pose (the settling frames)."""
        out = list(path)
        while out and not self._apart(out[-1], rest):
            out.pop()
        return tuple(out)
