"""What the frame loop makes of the tracker's events: the logged data of each.

Pure functions from a tracker event (and what the session knows of the table) to the
``data`` of the :class:`~referee.events.GameEvent` the session logs for it, so the
wording and rounding of the game log live in one place and are tested without a session;
and :class:`FrameEvents`, the part of the session that turns one frame's tracker events
into its numbered events, judged, with the table changed as they say.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from referee.calibration.camera import TablePose
from referee.calibration.profile import CalibrationProfile
from referee.events import GameEvent
from referee.game.edits import apply_edit, edit_data
from referee.game.numbering import Numbering
from referee.game.table import TableState
from referee.game.updates import Ruling
from referee.geometry import Pose
from referee.markers.roster import TerrainTemplate
from referee.rules import QueryError, Ruleset, Verdict
from referee.rules.flow import GameFlow, SettledMove
from referee.scene import Scene, Terrain
from referee.vision.pipeline import FrameResult, Pipeline
from referee.vision.pose import PiecePose
from referee.vision.track import EnteredEvent, FlagEvent, MoveEvent, PlaceEvent, RemovedEvent

CAMERA_FLAGS = {"camera_moved": "moved", "camera_lost": "lost", "camera_reopened": "reopened"}
"""Tracker flags about a camera, and the ``kind`` of the ``camera`` event each becomes."""


def pose_of(pose: PiecePose) -> Pose:
    return Pose(pose.x, pose.y, pose.heading)


def pose_json(pose: PiecePose | Pose) -> dict[str, float]:
    return {"x": round(pose.x, 4), "y": round(pose.y, 4), "heading": round(pose.heading, 2)}


def table_pose_json(pose: TablePose) -> dict[str, list[float]]:
    return {"rvec": pose.rvec.tolist(), "tvec": pose.tvec.tolist()}


def camera_profile(result: FrameResult, camera: int) -> CalibrationProfile:
    """Camera ``camera``'s profile in force after this frame (the first camera's when the
    result has no view of it)."""
    for view in result.views:
        if view.camera == camera:
            return view.profile
    return result.profile


def move_data(event: MoveEvent) -> dict[str, Any]:
    """A settled move as the log keeps it (the ``move`` event)."""
    return {
        "piece": event.piece,
        "tag": event.tag,
        "from": pose_json(event.from_pose),
        "to": pose_json(event.to_pose),
        "distance": round(event.front_distance, 4),
        "uncertainty": round(event.uncertainty, 4),
        "start_t": round(event.start_t, 4),
        "end_t": round(event.end_t, 4),
        # The tracked path (a few poses per inch): rules that judge the course
        # (Coastal pivots) get it now and on a resumed game.
        **({"via": [pose_json(p) for p in event.path]} if event.path else {}),
    }


def removed_data(event: RemovedEvent) -> dict[str, Any]:
    """A casualty lifted off the table (the ``removed`` event)."""
    return {
        "piece": event.piece,
        "tag": event.tag,
        "at": pose_json(event.at),
        "reason": event.reason,
        "edge": event.edge,
        "start_t": round(event.start_t, 4),
        "last_seen_t": round(event.last_seen_t, 4),
    }


def entered_data(event: EnteredEvent, verdict: Verdict | None) -> dict[str, Any]:
    """A reinforcement come to rest (the ``entered`` event), with the entry rule's verdict."""
    data: dict[str, Any] = {
        "piece": event.piece,
        "tag": event.tag,
        "at": pose_json(event.at),
        "start_t": round(event.start_t, 4),
        "end_t": round(event.end_t, 4),
    }
    if verdict is not None:
        data["verdict"] = verdict.to_json()
    return data


def entry_verdict(ruleset: Ruleset, scene: Scene, piece_id: str) -> Verdict | None:
    """The rules on an entry: a system with set-up zones (a ``deployment`` question) and
    a table edge for the piece's side wants a reinforcement in from its own edge, so the
    entering piece alone is asked that question; elsewhere there is no entry rule."""
    piece = scene.get(piece_id)
    if (
        piece is None
        or "deployment" not in ruleset.questions()
        or piece.side not in scene.deployment
    ):
        return None
    alone = replace(scene, pieces=(piece,))
    try:
        return ruleset.answer(alone, {"ask": "deployment", "side": piece.side})
    except QueryError:
        return None


def template_edit(
    template: TerrainTemplate, event: PlaceEvent, terrain: Sequence[Terrain]
) -> dict[str, Any]:
    """A terrain template's rest as the terrain edit it is: ``add`` the feature with the
    template's id the first time there is none, ``replace`` it after. Terrain drawn by hand
    under other ids is left as it is."""
    feature: dict[str, Any] = {
        "id": template.id,
        "kind": template.terrain,
        "polygon": [[round(x, 4), round(y, 4)] for x, y in event.polygon],
    }
    if template.name:
        feature["name"] = template.name
    exists = any(t.id == template.id for t in terrain)
    data = edit_data("terrain", "replace" if exists else "add", feature)
    # Where the template lay (its frame's pose, the tag that saw it): the log says why.
    data["template"] = {"tag": event.pose.tag, **pose_json(event.pose)}
    return data


def flag_event(
    event: FlagEvent, result: FrameResult, initial: CalibrationProfile
) -> tuple[str, dict[str, Any]]:
    """A tracker flag as the event it is logged as: ``(type, data)``, a ``camera`` event for
    a camera moved, lost or reopened, else a ``flag``. ``initial`` is the flagged camera's
    profile from the start (a re-registered camera's new table pose is logged)."""
    data: dict[str, Any] = {"message": event.message}
    camera = CAMERA_FLAGS.get(event.kind)
    if camera is not None:
        data["kind"] = camera
        if event.camera is not None:
            data["camera"] = event.camera + 1  # from 1, as the cameras are given
        if camera == "moved":
            # Re-registered: the camera's table pose is logged, so a resumed game restores
            # it (a move it could not re-register from keeps the profile: nothing to log).
            profile = camera_profile(result, event.camera or 0)
            if profile is not initial:
                data["table_pose"] = table_pose_json(profile.table_pose)
        return "camera", data
    data["kind"] = event.kind
    if event.tag is not None:
        data["tag"] = event.tag
    if event.piece is not None:
        data["piece"] = event.piece
    return "flag", data


@dataclass
class Seen:
    """What one frame's tracker events made: the events (numbered, in order), the rulings
    on its settled moves, the pieces that moved, left or came to rest, and whether the
    terrain changed (a template came to rest)."""

    events: list[GameEvent] = field(default_factory=list)
    rulings: list[Ruling] = field(default_factory=list)
    moved: set[str] = field(default_factory=set)
    terrain_changed: bool = False


class FrameEvents:
    """The frame loop's part of a session: each tracker event becomes the game events it
    is logged as, settled moves judged by ``flow``, the ``table`` changed as they say. It
    has no lock: the session calls it under its own, with the components it owns."""

    def __init__(
        self,
        numbers: Numbering,
        table: TableState,
        ruleset: Ruleset,
        flow: GameFlow,
        pipeline: Pipeline,
    ) -> None:
        self._numbers = numbers
        self._table = table
        self._ruleset = ruleset
        self._flow = flow
        self._pipeline = pipeline

    def take(self, result: FrameResult, told: MutableMapping[int, GameEvent]) -> Seen:
        """The events of ``result``'s tracker events; each move, removal and entry is kept
        in ``told`` by its ``seq``. A piece settled for the first time is placed too."""
        seen = Seen()
        for event in result.events:
            if isinstance(event, MoveEvent):
                seen.rulings.append(self._judge(event, seen.events, told))
                seen.moved.add(event.piece)
            elif isinstance(event, PlaceEvent):
                seen.terrain_changed = self._place_template(event, seen.events) or (
                    seen.terrain_changed
                )
            elif isinstance(event, RemovedEvent):
                removed = self._numbers.event("removed", removed_data(event))
                seen.events.append(removed)
                told[removed.seq] = removed
                # Off the table for the rules (range, line of sight, targets, Follow Me no
                # longer count it) until it enters again or a correction puts it back.
                self._table.lift(event.piece)
                seen.moved.add(event.piece)
            elif isinstance(event, EnteredEvent):
                # On the table from now on, its entry judged where the system has an entry
                # rule (:func:`entry_verdict`).
                self._table.place(event.piece, pose_of(event.at), event.at.uncertainty)
                verdict = entry_verdict(self._ruleset, self._table.scene(), event.piece)
                entered = self._numbers.event("entered", entered_data(event, verdict))
                seen.events.append(entered)
                told[entered.seq] = entered
                seen.moved.add(event.piece)
            else:
                kind, data = flag_event(event, result, self._initial_profile(event.camera or 0))
                seen.events.append(self._numbers.event(kind, data))
        for tracked in result.tracks.pieces:
            pose = tracked.pose
            first = tracked.state == "settled" and pose.id not in self._table.placed
            if first and self._table.place(pose.id, pose_of(pose), pose.uncertainty):
                seen.moved.add(pose.id)
        return seen

    def _judge(
        self, event: MoveEvent, events: list[GameEvent], told: MutableMapping[int, GameEvent]
    ) -> Ruling:
        move = self._numbers.event("move", move_data(event))
        events.append(move)
        told[move.seq] = move
        self._table.place(event.piece, pose_of(event.from_pose), event.from_pose.uncertainty)
        settled = SettledMove(
            event.piece,
            pose_of(event.from_pose),
            pose_of(event.to_pose),
            tuple(pose_of(p) for p in event.path),
        )
        judgement = self._flow.judge(self._table.scene(), settled)
        for verdict in judgement.verdicts:
            events.append(self._numbers.verdict(verdict, about=move.seq))
        if judgement.notes:
            noted = replace(move, data={**move.data, "notes": list(judgement.notes)})
            events[events.index(move)] = told[move.seq] = noted
        self._table.place(event.piece, pose_of(event.to_pose), event.to_pose.uncertainty)
        return Ruling(event, judgement, move.seq)

    def _place_template(self, event: PlaceEvent, events: list[GameEvent]) -> bool:
        """Log a terrain template's rest as the terrain edit it is: ``add`` the feature
        with the template's id the first time there is none, ``replace`` it after.
        Terrain drawn by hand under other ids is left as it is."""
        template = self._table.roster.template(event.template)
        if template is None:
            return False
        data = template_edit(template, event, self._table.terrain)
        self._table.terrain = apply_edit(self._table.terrain, data)
        events.append(self._numbers.event("edit", data))
        return True

    def _initial_profile(self, camera: int) -> CalibrationProfile:
        cameras = getattr(self._pipeline, "cameras", None)
        if cameras and camera < len(cameras):
            return cameras[camera].initial_profile
        return self._pipeline.initial_profile


__all__ = [
    "CAMERA_FLAGS",
    "FrameEvents",
    "Seen",
    "camera_profile",
    "entered_data",
    "entry_verdict",
    "flag_event",
    "move_data",
    "pose_json",
    "pose_of",
    "removed_data",
    "table_pose_json",
    "template_edit",
]
