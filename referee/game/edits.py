"""Terrain and roster edits: the ``edit`` event's data, and what one edit does to a game.

The session applies an edit as the players make it; a resumed game and a replay
apply the logged ones again, in order, with the same functions, so the three
always agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import RefereeError
from referee.markers.roster import Roster
from referee.scene import Scene, Terrain

PARSE_AS = "paper-tigers"
"""Any ruleset parses a terrain object (terrain kinds are the scene file's, not a system's)."""


def edit_data(kind: str, action: str, value: Mapping[str, Any] | str) -> dict[str, Any]:
    """An ``edit`` event's data: the object added or replaced, or the id removed."""
    data: dict[str, Any] = {"edit": kind, "action": action}
    if action == "remove":
        data["id"] = value if isinstance(value, str) else value.get("id")
    else:
        data["terrain" if kind == "terrain" else "piece"] = (
            dict(value) if isinstance(value, Mapping) else value
        )
    return data


def apply_roster_edit(roster: Roster, edit: Mapping[str, Any]) -> Roster:
    """The roster after one logged edit (``add``, ``replace`` or ``remove`` a piece)."""
    data = roster.to_json()
    pieces = data["pieces"]
    action = edit.get("action")
    if action == "remove":
        target = edit.get("id")
        if roster.by_id(str(target)) is None:
            raise RefereeError(f"no piece {target!r} in the roster to remove")
        data["pieces"] = [p for p in pieces if p["id"] != target]
    elif action in ("add", "replace") and isinstance(edit.get("piece"), Mapping):
        piece = dict(edit["piece"])
        exists = roster.by_id(str(piece.get("id"))) is not None
        if action == "add" and exists:
            raise RefereeError(f"piece {piece.get('id')!r} is in the roster; replace it instead")
        if action == "replace" and not exists:
            raise RefereeError(f"no piece {piece.get('id')!r} in the roster; add it instead")
        data["pieces"] = [p for p in pieces if p["id"] != piece.get("id")] + [piece]
    else:
        raise RefereeError(
            f"a roster edit is add, replace or remove with a piece object, got {action!r}"
        )
    return Roster.from_json(data, "roster edit")


def apply_edit(terrain: Sequence[Any], edit: Mapping[str, Any]) -> tuple[Any, ...]:
    """The terrain after one logged edit (``add``, ``replace`` or ``remove``)."""
    action = edit.get("action")
    if action == "remove":
        target = edit.get("id")
        if not any(t.id == target for t in terrain):
            raise RefereeError(f"no terrain {target!r} to remove")
        return tuple(t for t in terrain if t.id != target)
    raw = edit.get("terrain")
    if action not in ("add", "replace") or not isinstance(raw, Mapping):
        raise RefereeError(
            f"a terrain edit is add, replace or remove with a terrain object, got {action!r}"
        )
    parsed = Scene.from_json(
        {"ruleset": PARSE_AS, "table": {"width": 1, "depth": 1}, "terrain": [dict(raw)]},
        "terrain",
    ).terrain[0]
    assert isinstance(parsed, Terrain)
    exists = any(t.id == parsed.id for t in terrain)
    if action == "add" and exists:
        raise RefereeError(f"terrain {parsed.id!r} exists already; replace it instead")
    if action == "replace" and not exists:
        raise RefereeError(f"no terrain {parsed.id!r} to replace; add it instead")
    if action == "add":
        return (*terrain, parsed)
    return tuple(parsed if t.id == parsed.id else t for t in terrain)
