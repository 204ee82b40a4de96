"""Checks shared by every reader of a user's file and every command option.

One message style everywhere: ``FILE: $.json.path: what is wrong, got VALUE; what to do``
for a file, ``--option: what is wrong ...`` for an option (``path`` left empty).
Each check returns the clean value or raises the caller's
:class:`~referee.errors.RefereeError` subclass, so the ``referee`` command
prints it as one line with exit code 2.

Bounds exist so that no value a user can type reaches OpenCV, an ``int()`` or
a loop as NaN, Infinity, a negative size or a billion iterations.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.errors import MAX_DEPTH as _MAX_DEPTH
from referee.errors import RefereeError, at, counted

#: Longest name or label (piece id, side, kind, printed name) in characters:
#: a printed tag label and a unit card's QR code both hold far less text than a
#: 1 MB string, and a longer name is a mistake, not a unit.
MAX_NAME = 64

#: Longest free text (a description, a board spec, a timestamp).
MAX_TEXT = 1000

#: Most items in one list of a user's file (pieces, anchors, points, events).
MAX_ITEMS = 10_000


def shown(value: Any, limit: int = 40) -> str:
    """``repr(value)``, cut short so a 1 MB value still gives a one-line message.

    >>> shown("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (102 characters)"
    >>> shown(float("nan"))
    'nan'
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 2]}... ({len(text)} characters)"


def is_number(value: Any) -> bool:
    """A finite int or float, not a bool: what every numeric field must be.

    >>> is_number(3), is_number(float("nan")), is_number(True), is_number("3")
    (True, False, False, False)
    """
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def fail(
    source: str, path: str, problem: str, error: type[RefereeError] = RefereeError, hint: str = ""
) -> RefereeError:
    """The error to raise: ``source: path: problem; hint`` (``source: problem`` without path)."""
    message = at(source, path, problem) if path else f"{source}: {problem}"
    return error(f"{message}; {hint}" if hint else message)


def number(
    value: Any,
    source: str,
    path: str = "",
    *,
    error: type[RefereeError] = RefereeError,
    positive: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
    hint: str = "",
) -> float:
    """A finite JSON number (not a bool) within the given bounds.

    >>> number(2, "game.json", "$.x", maximum=10)
    2.0
    >>> number(float("inf"), "--every", positive=True)
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: --every: must be a finite number, got inf
    >>> number(-1, "p.json", "$.f", positive=True, hint="recalibrate")
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: p.json: $.f: must be positive, got -1; recalibrate
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(source, path, f"must be a number, got {shown(value)}", error, hint)
    if not math.isfinite(value):
        raise fail(source, path, f"must be a finite number, got {shown(value)}", error, hint)
    if positive and value <= 0:
        raise fail(source, path, f"must be positive, got {shown(value)}", error, hint)
    _check_range(value, source, path, error, minimum, maximum, hint)
    return float(value)


def whole(
    value: Any,
    source: str,
    path: str = "",
    *,
    error: type[RefereeError] = RefereeError,
    minimum: int | None = None,
    maximum: int | None = None,
    hint: str = "",
) -> int:
    """A JSON integer (not a bool, not 2.0) within the given bounds.

    >>> whole(3, "r.json", "$.tag", minimum=0)
    3
    >>> whole(2.5, "r.json", "$.tag")
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: r.json: $.tag: must be a whole number, got 2.5
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(source, path, f"must be a whole number, got {shown(value)}", error, hint)
    _check_range(value, source, path, error, minimum, maximum, hint)
    return value


def _check_range(
    value: float,
    source: str,
    path: str,
    error: type[RefereeError],
    minimum: float | None,
    maximum: float | None,
    hint: str,
) -> None:
    low = minimum is None or value >= minimum
    high = maximum is None or value <= maximum
    if low and high:
        return
    if minimum is not None and maximum is not None:
        bounds = f"between {minimum:g} and {maximum:g}"
    elif minimum is not None:
        bounds = f"at least {minimum:g}"
    else:
        bounds = f"at most {maximum:g}"
    raise fail(source, path, f"must be {bounds}, got {shown(value)}", error, hint)


def text(
    value: Any,
    source: str,
    path: str = "",
    *,
    error: type[RefereeError] = RefereeError,
    max_length: int = MAX_NAME,
    allow_empty: bool = False,
    hint: str = "",
) -> str:
    """A JSON string of at most ``max_length`` characters (non-blank unless ``allow_empty``).

    >>> text("t34", "r.json", "$.id")
    't34'
    >>> text("x" * 500, "r.json", "$.id")
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: r.json: $.id: is 500 characters long; use at most 64
    """
    if not isinstance(value, str):
        raise fail(source, path, f"must be a string, got {shown(value)}", error, hint)
    if not allow_empty and not value.strip():
        raise fail(source, path, f"must be a non-empty string, got {shown(value)}", error, hint)
    if len(value) > max_length:
        raise fail(
            source,
            path,
            f"is {len(value)} characters long; use at most {max_length}",
            error,
            hint,
        )
    return value


def items(
    value: Any,
    source: str,
    path: str = "",
    *,
    error: type[RefereeError] = RefereeError,
    length: int | Sequence[int] | None = None,
    max_count: int = MAX_ITEMS,
    what: str = "a list",
    hint: str = "",
) -> list[Any]:
    """A JSON list with an allowed length (``length``: exact, or one of several).

    >>> items([1, 2], "p.json", "$.image_size", length=2)
    [1, 2]
    >>> items(None, "p.json", "$.image_size", length=2, what="[width, height]")
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: p.json: $.image_size: must be [width, height], got None
    """
    if not isinstance(value, list):
        raise fail(source, path, f"must be {what}, got {shown(value)}", error, hint)
    allowed = (length,) if isinstance(length, int) else length
    if allowed is not None and len(value) not in allowed:
        counts = " or ".join(str(n) for n in allowed)
        raise fail(
            source,
            path,
            f"must be {what} ({counts} items), got {counted(len(value), 'item')}",
            error,
            hint,
        )
    if len(value) > max_count:
        raise fail(
            source, path, f"has {len(value)} items; at most {max_count} are allowed", error, hint
        )
    return value


def mapping(
    value: Any,
    source: str,
    path: str = "",
    *,
    error: type[RefereeError] = RefereeError,
    what: str = "a JSON object",
    hint: str = "",
) -> dict[str, Any]:
    """A JSON object."""
    if not isinstance(value, dict):
        raise fail(source, path, f"must be {what}, got {shown(value)}", error, hint)
    return value


def numbers(
    value: Any,
    source: str,
    path: str = "",
    *,
    error: type[RefereeError] = RefereeError,
    length: int | Sequence[int] | None = None,
    what: str = "a list of numbers",
    positive: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
    hint: str = "",
) -> tuple[float, ...]:
    """A JSON list of finite numbers, each checked as :func:`number` does, paths ``[i]``."""
    raw = items(value, source, path, error=error, length=length, what=what, hint=hint)
    return tuple(
        number(
            v,
            source,
            f"{path}[{i}]",
            error=error,
            positive=positive,
            minimum=minimum,
            maximum=maximum,
            hint=hint,
        )
        for i, v in enumerate(raw)
    )


def output_file(path: str | os.PathLike[str], option: str) -> Path:
    """An output file the command may write: its folder exists or can be made, it is no folder.

    Checked before any work, so a long run never ends in an unwritable path (the one shared
    check is :func:`referee.outputs.output_file`).
    """
    from referee.outputs import output_file as check

    return check(path, option)


def output_folder(path: str | os.PathLike[str], option: str) -> Path:
    """An output folder: it is a folder or can be made one."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise RefereeError(f"{option} {target}: is a file, not a folder; choose another path")
    for parent in target.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise RefereeError(
                    f"{option} {target}: {parent} is a file, not a folder; choose another path"
                )
            break
    return target


# -- sizes and depths of a user's JSON (issue 30 item 5: scenes and settings) ----------------

#: Deepest nesting of objects and lists in a user's JSON: the one limit of
#: :func:`referee.errors.parse_json`, which every reader of a user's JSON text goes through.
MAX_DEPTH = _MAX_DEPTH


def nesting(
    value: Any, source: str, path: str = "$", *, error: type[RefereeError] = RefereeError
) -> None:
    """Refuse a parsed value with objects and lists nested deeper than :data:`MAX_DEPTH` (the
    same count :func:`~referee.errors.parse_json` makes of a text), checked without
    recursion, so the check itself never hits Python's recursion limit. For values built
    by code, not read from text (a request's question put into the live scene).

    >>> nesting([[[0]]], "game.json")
    >>> value: list = []
    >>> for _ in range(MAX_DEPTH):
    ...     value = [value]
    >>> nesting(value, "g.json")
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: g.json: $: is nested more than 64 levels deep; no input needs that
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            raise fail(
                source,
                path,
                f"is nested more than {MAX_DEPTH} levels deep; no input needs that",
                error,
            )
        children = item.values() if isinstance(item, dict) else item
        stack.extend((v, depth + 1) for v in children)


def count(
    items: Sequence[Any],
    source: str,
    path: str,
    what: str,
    limit: int,
    *,
    error: type[RefereeError] = RefereeError,
) -> None:
    """Refuse a list longer than ``limit`` (what the referee can answer at table speed).

    >>> count([1, 2, 3], "game.json", "$.pieces", "pieces", 2)
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: game.json: $.pieces: has 3 pieces; at most 2 are supported
    """
    if len(items) > limit:
        raise fail(source, path, f"has {len(items)} {what}; at most {limit:,} are supported", error)
