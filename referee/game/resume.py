"""Resume: a logged game taken up again where it stopped, from the game log alone.

:func:`resume` rebuilds what a session keeps of a game: the table (pieces
where they last rested, the player's corrections over the camera's word,
terrain and roster as edited), the ruleset's flow (every declaration and
settled move fed to it again, on the table as it stood then), the standing
questions' last answers, and the tracker's start (the resting poses, each
camera's table where its last logged move put it). What the session
numbers and logs from then on comes back as a :class:`Resumed` value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import referee.game.corrections as corrections
from referee.calibration.camera import TablePose
from referee.events import GameEvent
from referee.game.edits import apply_edit, apply_roster_edit
from referee.game.standing import StandingQuestions
from referee.game.table import TableState
from referee.geometry import Pose
from referee.rules import Ruleset
from referee.rules.flow import GameFlow, SettledMove
from referee.store import GameInfo, GameLog, Position
from referee.vision.pipeline import Pipeline
from referee.vision.pose import PiecePose


@dataclass(frozen=True)
class Resumed:
    """Where a resumed game goes on from."""

    seq: int
    """The last logged event's ``seq`` (0 for none): the next event is numbered after it."""
    frame: int
    t: float
    """The last logged frame and its game time."""
    told: dict[int, GameEvent]
    """Every logged move, removal, entry and correction by ``seq``."""
    logged: dict[str, Position]
    """Each piece's last logged position (what the next frame's changes are against)."""
    resume_after: int = -1
    """On the same recording, the frames with this index or lower are skipped."""
    frame_offset: int = 0
    t_offset: float = 0.0
    """On another source, what its frames' indices and times are shifted by."""


def resume(
    log: GameLog,
    game: GameInfo,
    source: str | None,
    *,
    ruleset: Ruleset,
    flow: GameFlow,
    table: TableState,
    standing: StandingQuestions,
    pipeline: Pipeline,
) -> Resumed:
    """Replay ``game``'s log into ``table``, ``flow`` and ``standing``, and start
    ``pipeline``'s tracker from the last resting poses; ``source`` is what the game goes on
    from (the same recording skips the frames logged before)."""
    history = log.events(game)
    probe = ruleset.game_flow()  # sorts the questions; the log replays declarations
    for query in table.initial.queries:
        declared = probe.declare(table.scene(), query)
        if not declared.taken and declared.verdict is None:
            standing.add(query)
    told_by_seq = {e.seq: e for e in history if e.type in corrections.TOLD}
    told = list(told_by_seq.values())
    voided = corrections.voided(told)
    fixes = corrections.latest(told)
    # Where each camera's last logged move put its table (a log from before several
    # cameras names none: that was camera 1).
    table_poses: dict[int, TablePose] = {}
    for event in history:
        if event.seq in voided:
            continue
        if event.type == "move":
            _replay_move(log, game, table, flow, event, fixes.get(event.seq, {}).get("to"), told)
        elif event.type == "removed" and event.piece is not None:
            table.lift(event.piece)  # off the table for what follows
        elif event.type == "declare" and isinstance(event.data.get("declare"), Mapping):
            # On the table as it stood then, like a move: a declaration may be judged.
            _place_resting(log, game, table, event.frame, told, event.seq)
            flow.declare(table.scene(), event.data["declare"])
        elif event.type == "edit" and event.data.get("edit") == "roster":
            roster = apply_roster_edit(table.roster, event.data)
            pipeline.use_roster(roster)
            table.use_roster(roster)
        elif event.type == "edit":
            table.terrain = apply_edit(table.terrain, event.data)
        elif event.type == "verdict" and isinstance(event.data.get("question"), int):
            standing.answered(event.data["question"], event.data["verdict"])
        elif event.type == "camera" and isinstance(event.data.get("table_pose"), Mapping):
            pose = event.data["table_pose"]
            camera = event.data.get("camera", 1)
            table_poses[camera - 1] = TablePose(pose["rvec"], pose["tvec"])
    resting = log.positions_at(game, resting=True)
    moved_to = corrections.rests(told)  # the players' word over the camera's
    for pid, position in resting.items():
        pose = moved_to.get(pid, Pose(position.x, position.y, position.heading))
        table.place(pid, pose, position.uncertainty)
    for pid, pose in moved_to.items():  # a removal undone: back on the table
        if pid not in resting and table.place(pid, pose, 0.0):
            x, y, heading = pose.x, pose.y, pose.heading
            frame, t = game.last_frame, game.last_t
            resting[pid] = Position(pid, "settled", x, y, heading, 0.0, False, frame, t)
    logged = dict(log.positions_at(game))
    # Pieces and terrain templates start settled where they last rested.
    tags = {e.id: e.tag for e in table.roster}
    tags.update({t.id: t.tags[0].tag for t in table.roster.templates})
    pipeline.resume(
        {
            pid: PiecePose(pid, tags[pid], p.x, p.y, p.heading, p.uncertainty, False)
            for pid, p in resting.items()
            if pid in tags
        },
        table_poses,
    )
    seq = history[-1].seq if history else 0
    resumed = Resumed(seq, game.last_frame, game.last_t, told_by_seq, logged)
    if source is not None and source == game.source and Path(source).exists():
        return replace(resumed, resume_after=game.last_frame)  # the same recording: skipped
    return replace(resumed, frame_offset=game.last_frame + 1, t_offset=game.last_t + 1.0 / 30.0)


def _place_resting(
    log: GameLog,
    game: GameInfo,
    table: TableState,
    frame: int | None,
    told: Sequence[GameEvent],
    upto: int,
) -> None:
    """Place every piece where it rested at ``frame`` (from the log, as corrected by
    then: ``told`` are the game's moves and corrections, ``upto`` the event)."""
    if frame is None:
        return
    moved_to = corrections.rests(told, upto)
    for pid, p in log.positions_at(game, frame, resting=True).items():
        table.place(pid, moved_to.get(pid, Pose(p.x, p.y, p.heading)), p.uncertainty)


def _replay_move(
    log: GameLog,
    game: GameInfo,
    table: TableState,
    flow: GameFlow,
    event: GameEvent,
    to: Any,
    told: Sequence[GameEvent],
) -> None:
    """Feed a logged move to the flow again, on the positions of the moment before it
    (ending at ``to`` when a correction says so)."""
    piece = str(event.data.get("piece"))
    if event.frame is not None:
        _place_resting(log, game, table, event.frame - 1, told, event.seq - 1)
    start, end = event.data.get("from"), to if isinstance(to, Mapping) else event.data.get("to")
    if not isinstance(start, Mapping) or not isinstance(end, Mapping):
        return
    begin = Pose(start["x"], start["y"], start["heading"])
    finish = Pose(end["x"], end["y"], end["heading"])
    raw = event.data.get("via")
    via = tuple(
        Pose(p["x"], p["y"], p["heading"])
        for p in (raw if isinstance(raw, list) else [])
        if isinstance(p, Mapping)
    )
    table.place(piece, begin, float(event.data.get("uncertainty", 0.0)))
    flow.judge(table.scene(), SettledMove(piece, begin, finish, via))
    table.place(piece, finish, float(event.data.get("uncertainty", 0.0)))


__all__ = ["Resumed", "resume"]
