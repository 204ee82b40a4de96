"""A ruleset's conventions: each a field of its frozen ``Settings`` dataclass (its default,
and what it switches: :func:`setting`), and the coercion of a value a user
gives (a scene file's ``"settings"``, ``--set``) to the type the field declares."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Any, TypeVar

from referee.validate import MAX_TEXT, is_number, shown

SETTING_LIMIT = 1e6
T = TypeVar("T")


def setting(default: T, doc: str) -> T:
    """A convention of a ``Settings`` dataclass: its default and what it switches (the
    words ``referee rulesets`` shows), kept in the field's metadata so that they are read
    from the class itself, never from its source."""
    words = " ".join(doc.split())
    return typing.cast(T, dataclasses.field(default=default, metadata={"doc": words}))


def docs(settings: type) -> dict[str, str]:
    """What each field of a ``Settings`` dataclass switches (:func:`setting`), a
    subclass's words winning and its bases' kept where it has none."""
    found: dict[str, str] = {}
    for klass in settings.__mro__:
        for name, spec in getattr(klass, "__dataclass_fields__", {}).items():
            doc = spec.metadata.get("doc", "")
            if doc and name not in found:
                found[name] = doc
    return {f.name: found.get(f.name, "") for f in dataclasses.fields(settings)}


def _declared_types(settings: type) -> dict[str, Any]:
    """Each setting's declared type (the ``Settings`` dataclass annotations, resolved)."""
    found = _DECLARED.get(settings)
    if found is None:
        found = _DECLARED[settings] = typing.get_type_hints(settings)
    return found


_DECLARED: dict[type, dict[str, Any]] = {}


def _typed_setting(name: str, value: Any, declared: Any, default: Any) -> Any:
    """``value`` as the type its system declares for setting ``name`` (an int where a float
    is declared, a list where a tuple is), or a ``ValueError`` saying what it must be.

    One generic check from the ``Settings`` annotations, so a wrong type (``null``, a list,
    a string) never reaches a system's own arithmetic, whatever the system.

    >>> _typed_setting("max_cards", 3, int, 2), _typed_setting("move_cap", 6, float, 6.0)
    (3, 6.0)
    >>> _typed_setting("boats", None, bool, True)
    Traceback (most recent call last):
    ...
    ValueError: setting boats must be true or false (default true), got None
    """
    options = typing.get_args(declared) if typing.get_origin(declared) in _UNIONS else ()
    if options and type(None) in options:
        if value is None:
            return None
        declared = next(t for t in options if t is not type(None))
    origin = typing.get_origin(declared)
    fits: Any = _NO
    if declared is bool:
        what = "true or false"
        fits = value if isinstance(value, bool) else _NO
    elif declared is int:
        what = "a whole number"
        fits = value if isinstance(value, int) and not isinstance(value, bool) else _NO
        if fits is not _NO and abs(fits) > SETTING_LIMIT:
            fits, what = _NO, f"a whole number within +/-{SETTING_LIMIT:g}"
    elif declared is float:
        what = "a number"
        if is_number(value):
            fits = float(value)
    elif declared is str:
        what = "a word"
        fits = value if isinstance(value, str) and len(value) <= MAX_TEXT else _NO
    elif origin is tuple:
        what = "a list of words"
        if isinstance(value, (list, tuple)) and all(
            isinstance(v, str) and len(v) <= MAX_TEXT for v in value
        ):
            fits = tuple(value)
    else:  # a type no generic check knows: the system's own check decides
        return value
    if fits is _NO:
        if options:
            what += " or null"
        shown_default = json.dumps(default) if _is_plain(default) else repr(default)
        raise ValueError(
            f"setting {name} must be {what} (default {shown_default}), got {shown(value)}"
        )
    return fits


_NO = object()
_UNIONS = (typing.Union, types.UnionType)


def _is_plain(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True
