"""What a table sends the club, checked before anything is written.

A batch is ``{"events": [LINE, ...]}``, each line one event in the README's
export format (``referee log export``): ``seq``, ``t``, ``type``, ``frame``
and the type's own keys. A game's registration is ``{"ruleset", "scene",
"roster", "created"}``. Anything else is a :class:`BatchError` (HTTP 400)
naming the first problem by its JSON path.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from referee.events import EVENT_TYPES, GameEvent

MAX_EVENTS = 1000
"""Most events in one batch: a table sends far fewer, a burst is split by the sender."""

MAX_EVENT_BYTES = 256 * 1024
"""Largest single event as JSON text (a move with a long tracked path is a few kB)."""

MAX_BODY = 8 * 1024 * 1024
"""Largest request body, bytes."""

#: Keys each type must carry, with what they must be (the README's export format).
REQUIRED: dict[str, tuple[tuple[str, type | tuple[type, ...]], ...]] = {
    "move": (("piece", str), ("from", dict), ("to", dict)),
    "removed": (("piece", str), ("at", dict)),
    "entered": (("piece", str), ("at", dict)),
    "verdict": (("verdict", dict),),
    "declare": (("declare", dict),),
    "edit": (("edit", str), ("action", str)),
    "flag": (("kind", str),),
    "camera": (("kind", str),),
    "correction": (("supersedes", int),),
}


class BatchError(ValueError):
    """A batch or registration the club refuses as it stands (HTTP 400)."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def parse_event(line: Any, where: str) -> GameEvent:
    """One export line as a :class:`GameEvent`; a line not in the format is a BatchError."""
    if not isinstance(line, Mapping):
        raise BatchError(f"{where}: an event must be a JSON object")
    seq, t, kind, frame = line.get("seq"), line.get("t"), line.get("type"), line.get("frame")
    if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq < 2**62:
        raise BatchError(f"{where}.seq: must be a positive integer, got {_short(seq)}")
    if not isinstance(t, (int, float)) or not _is_number(t) or t < 0:
        raise BatchError(f"{where}.t: must be seconds from the game's start, got {_short(t)}")
    if kind not in EVENT_TYPES:
        raise BatchError(
            f"{where}.type: must be one of {', '.join(EVENT_TYPES)}, got {_short(kind)}"
        )
    if frame is not None and (
        not isinstance(frame, int) or isinstance(frame, bool) or not 0 <= frame < 2**62
    ):
        raise BatchError(f"{where}.frame: must be a frame number, got {_short(frame)}")
    for key, wanted in REQUIRED[str(kind)]:
        value = line.get(key)
        if not isinstance(value, wanted) or isinstance(value, bool):
            raise BatchError(f"{where}.{key}: a {kind} event needs it, got {_short(value)}")
    if kind in ("move", "removed", "entered"):
        for end in ("from", "to") if kind == "move" else ("at",):
            pose = line[end]
            if not all(_is_number(pose.get(c)) for c in ("x", "y", "heading")):
                raise BatchError(f"{where}.{end}: must be {{x, y, heading}} in inches and degrees")
    try:
        text = json.dumps(line, allow_nan=False, separators=(",", ":"))
    except (ValueError, TypeError):
        raise BatchError(f"{where}: must be strict JSON (no NaN or Infinity)") from None
    if len(text) > MAX_EVENT_BYTES:
        raise BatchError(f"{where}: {len(text)} bytes, more than {MAX_EVENT_BYTES} for one event")
    try:
        return GameEvent.from_json(line)
    except (ValueError, TypeError, KeyError) as error:
        raise BatchError(f"{where}: {error}") from None


def parse_batch(body: Any) -> list[GameEvent]:
    """A batch's events, in order; one problem anywhere refuses the whole batch."""
    if not isinstance(body, Mapping) or not isinstance(body.get("events"), list):
        raise BatchError('$: a batch is {"events": [event, ...]}')
    lines = body["events"]
    if not lines:
        raise BatchError("$.events: an empty batch")
    if len(lines) > MAX_EVENTS:
        raise BatchError(f"$.events: {len(lines)} events, more than {MAX_EVENTS} in one batch")
    events = [parse_event(line, f"$.events[{i}]") for i, line in enumerate(lines)]
    return events


def parse_registration(body: Any) -> dict[str, Any]:
    """A game's registration: ruleset, starting scene, roster, creation time."""
    if not isinstance(body, Mapping):
        raise BatchError("$: a game is {ruleset, scene, roster, created}")
    ruleset, scene, roster = body.get("ruleset"), body.get("scene"), body.get("roster")
    created = body.get("created")
    if not isinstance(ruleset, str) or not 0 < len(ruleset) <= 64:
        raise BatchError(f"$.ruleset: must be a ruleset name, got {_short(ruleset)}")
    if not isinstance(scene, dict):
        raise BatchError("$.scene: must be the scene the game started from (an object)")
    if roster is not None and not isinstance(roster, dict):
        raise BatchError("$.roster: must be a roster object or null")
    if created is not None and (not isinstance(created, str) or len(created) > 40):
        raise BatchError("$.created: must be an ISO time")
    try:
        json.dumps([scene, roster], allow_nan=False)
    except ValueError:
        raise BatchError("$: must be strict JSON (no NaN or Infinity)") from None
    return {"ruleset": ruleset, "scene": scene, "roster": roster, "created": created}


def _short(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["MAX_BODY", "MAX_EVENTS", "BatchError", "parse_batch", "parse_event"]
