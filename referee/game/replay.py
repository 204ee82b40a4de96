"""Replay: the table of a logged game at any moment, rebuilt from the game log alone."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import referee.game.corrections as corrections
from referee.events import GameEvent
from referee.game.edits import apply_edit, apply_roster_edit
from referee.game.session import named_pieces
from referee.markers.roster import Roster
from referee.rules import Verdict, find_ruleset
from referee.scene import Piece, Scene
from referee.store import GameInfo, GameLog, Position


def scene_at(
    log: GameLog,
    game: GameInfo,
    *,
    seq: int | None = None,
    t: float | None = None,
    pending: tuple[GameEvent, ...] = (),
) -> tuple[Scene, GameEvent | None]:
    """The table of a logged game at event ``seq`` or at ``t`` seconds, rebuilt from the log.

    Returns the scene (pieces where they last rested, terrain as edited,
    the standing questions whose pieces are on the table) and the last event
    up to that moment (None before the first). Every correction in the log
    (and ``pending`` ones, not yet logged) applies to the moves up to that
    moment, whenever it was made: the replay shows what really happened.
    """
    # Only edits and corrections change what a replay shows beyond the positions.
    events = log.events(game, upto_seq=seq, upto_t=t, types=("edit",))
    final = log.events(game, upto_seq=seq, upto_t=t, last=True)
    last = final[0] if final else None
    told = [*log.events(game, types=corrections.TOLD), *pending]
    moved_to = corrections.rests(told, last.seq if last is not None else 0)
    if seq is not None:
        frame = last.frame if last is not None and last.frame is not None else -1
    else:
        frame = log.frame_at(game, t if t is not None else math.inf)
    initial = Scene.from_json(game.scene, f"{log.path}:{game.name}")
    voided = corrections.voided(told)
    started_with = Roster.from_json(game.roster or {"pieces": []}, f"{log.path}:{game.name}")
    roster = started_with
    terrain: tuple[Any, ...] = initial.terrain
    for event in events:
        if event.type == "edit" and event.seq not in voided:
            if event.data.get("edit") == "roster":
                roster = apply_roster_edit(roster, event.data)
            else:
                terrain = apply_edit(terrain, event.data)
    templates = {p.id: p for p in initial}
    pieces = [p for p in initial if started_with.by_id(p.id) is None]  # the untagged ones
    resting = log.positions_at(game, frame, resting=True)
    for pid, back in moved_to.items():  # a wrong removal undone: on the table after all
        if pid not in resting:
            resting[pid] = Position(pid, "settled", back.x, back.y, back.heading, 0.0, False, 0, 0)
    for pid, position in resting.items():
        template = templates.get(pid)
        entry = roster.by_id(pid)
        if entry is None:
            continue  # taken off the roster by then
        if template is None:
            template = Piece(entry.id, entry.side, entry.kind, 0, 0, 0, entry.base, name=entry.name)
        if template is not None:
            pose = moved_to.get(pid, position)
            moved = template.moved(pose.x, pose.y, pose.heading)
            pieces.append(replace(moved, uncertainty=position.uncertainty))
    present = {p.id for p in pieces}
    flow = find_ruleset(initial.ruleset, initial.settings).game_flow()
    scene = replace(initial, pieces=tuple(pieces), terrain=terrain, queries=())
    standing = tuple(
        q
        for q in initial.queries
        if named_pieces(q) <= present and not flow.declare(scene, q).taken
    )
    return replace(scene, queries=standing), last


def correction_events(
    log: GameLog, game: GameInfo, correction: corrections.Correction, move: GameEvent
) -> list[GameEvent]:
    """The events that log ``correction`` of ``move`` in a game not being played now: the
    ``correction`` and the verdicts that depended on the move, re-asked on the corrected
    table (each ``about`` the correction), numbered after the game's last event."""
    frame = game.last_frame if game.last_frame >= 0 else None
    seq = game.last_seq + 1
    fix = GameEvent(seq, game.last_t, "correction", correction.data(), frame)
    out = [fix]
    history = log.events(game)
    judged, answers, until = corrections.dependents(history, move)
    initial = Scene.from_json(game.scene, f"{log.path}:{game.name}")
    ruleset = find_ruleset(initial.ruleset, initial.settings)
    verdicts: list[tuple[Verdict, int | None]] = []
    if correction.to is not None and judged:
        before, _ = scene_at(log, game, seq=move.seq - 1, pending=(fix,))
        for verdict in corrections.rejudge(ruleset, before, move, correction.to):
            verdicts.append((verdict, None))
    if answers:
        probe = ruleset.game_flow()
        standing = [
            q
            for q in initial.queries
            if not (d := probe.declare(initial, q)).taken and d.verdict is None
        ]
        after, _ = scene_at(log, game, seq=until - 1 if until else None, pending=(fix,))
        present = {p.id for p in after}
        for question in sorted(answers):
            if question < len(standing) and named_pieces(standing[question]) <= present:
                verdicts.append((ruleset.answer(after, standing[question]), question))
    for verdict, asked in verdicts:
        seq += 1
        pieces = sorted(named_pieces(verdict.query))
        data = corrections.verdict_data(verdict, fix.seq, pieces, asked)
        out.append(GameEvent(seq, game.last_t, "verdict", data, frame))
    return out
