"""Replay: the table of a logged game at any moment, rebuilt from the game log alone."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from referee.events import GameEvent
from referee.game.edits import apply_edit, apply_roster_edit
from referee.game.session import named_pieces
from referee.markers.roster import Roster
from referee.rules import find_ruleset
from referee.scene import Piece, Scene
from referee.store import GameInfo, GameLog


def scene_at(
    log: GameLog, game: GameInfo, *, seq: int | None = None, t: float | None = None
) -> tuple[Scene, GameEvent | None]:
    """The table of a logged game at event ``seq`` or at ``t`` seconds, rebuilt from the log.

    Returns the scene (pieces where they last rested, terrain as edited,
    the standing questions whose pieces are on the table) and the last event
    up to that moment (None before the first).
    """
    # Only edits and corrections change what a replay shows beyond the positions.
    events = log.events(game, upto_seq=seq, upto_t=t, types=("edit", "correction"))
    final = log.events(game, upto_seq=seq, upto_t=t, last=True)
    last = final[0] if final else None
    if seq is not None:
        frame = last.frame if last is not None and last.frame is not None else -1
    else:
        frame = log.frame_at(game, t if t is not None else math.inf)
    initial = Scene.from_json(game.scene, f"{log.path}:{game.name}")
    voided = {e.supersedes for e in events if e.type == "correction" and e.data.get("void")}
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
    for pid, position in log.positions_at(game, frame, resting=True).items():
        template = templates.get(pid)
        entry = roster.by_id(pid)
        if entry is None:
            continue  # taken off the roster by then
        if template is None:
            template = Piece(entry.id, entry.side, entry.kind, 0, 0, 0, entry.base, name=entry.name)
        if template is not None:
            moved = template.moved(position.x, position.y, position.heading)
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
