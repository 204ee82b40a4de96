"""The one error type users see.

Every stage raises a subclass of :class:`RefereeError` for bad input; the
``referee`` command turns it into one line on stderr and exit code 2, never a
traceback. Messages are lowercase and carry their context (file, JSON path,
value) so the user knows what to fix.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from itertools import accumulate
from pathlib import Path
from typing import Any


class RefereeError(ValueError):
    """Bad input from a user: a file, an option, a camera. Exit code 2."""


class SceneError(RefereeError):
    """A scene file that cannot be read or makes no sense."""


class RosterError(RefereeError):
    """A roster that cannot be read or does not match what is seen."""


class ProfileError(RefereeError):
    """A calibration profile that is missing, corrupt or foreign."""


class SourceError(RefereeError):
    """A camera, video or image folder that cannot be read."""


def at(path: str, json_path: str, problem: str) -> str:
    """Format the one-line message every file-reading stage uses.

    >>> at("game.json", "$.pieces[2].base", "must be two positive numbers")
    'game.json: $.pieces[2].base: must be two positive numbers'
    """
    return f"{path}: {json_path}: {problem}"


def counted(n: int, noun: str, plural: str = "") -> str:
    """``n`` and its noun, plural unless ``n`` is 1: how every message prints a count.

    >>> counted(1, "image"), counted(41, "view"), counted(0, "piece"), counted(2, "die", "dice")
    ('1 image', '41 views', '0 pieces', '2 dice')
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


MAX_DEPTH = 64
"""Most objects and lists one inside another in any JSON the referee is given (a file, a
request body, a card's QR code, a setting): every format it reads is a few levels deep, and
Python's own parser and every recursive walk after it break somewhere near 1,000 levels."""

# A JSON string, escapes and all (or the rest of the text when it is never closed), so
# brackets inside strings are not counted. Possessive: one pass, never backtracking.
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deep objects and lists are nested in JSON ``text``, counted without parsing it
    (so without recursion: a 5,000-deep text is counted as easily as a flat one).

    >>> json_depth('{"a": [1, {"b": "[[["}]}'), json_depth("3"), json_depth("[[]]")
    (3, 0, 2)
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def parse_json(
    text: str | bytes,
    source: str,
    error: type[RefereeError] = RefereeError,
    hint: str = "",
) -> Any:
    """Parse JSON a user gave (a file's text, a request body, a QR code, an option's value);
    any failure is one ``error`` line starting with ``source``.

    JSON nested deeper than :data:`MAX_DEPTH` is refused before it is parsed, so neither the
    parser nor any code walking the value afterwards can hit Python's recursion limit.

    >>> parse_json('{"a": [1, 2]}', "game.json")
    {'a': [1, 2]}
    >>> parse_json("[" * 65 + "]" * 65, "body")
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: body: the JSON is nested 65 levels deep (objects and lists); ...
    """
    suffix = f"; {hint}" if hint else ""
    if isinstance(text, bytes):
        try:
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        except (UnicodeDecodeError, LookupError):
            raise error(f"{source}: is not UTF-8 text, so not JSON{suffix}") from None
    depth = json_depth(text)
    if depth > MAX_DEPTH:
        raise error(
            f"{source}: the JSON is nested {depth:,} levels deep (objects and lists); at most "
            f"{MAX_DEPTH} are read{suffix}"
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as problem:
        raise error(
            f"{source}: invalid JSON at line {problem.lineno} column {problem.colno}: "
            f"{problem.msg}{suffix}"
        ) from None
    except (ValueError, RecursionError) as problem:
        # A number of more than 4,300 digits (Python's int limit), or a parser surprise.
        reason = str(problem).split(":")[0].split(";")[0] or type(problem).__name__
        raise error(f"{source}: cannot read the JSON ({reason.lower()}){suffix}") from None


def read_json_file(
    path: str | os.PathLike[str], what: str, error: type[RefereeError], hint: str = ""
) -> Any:
    """Parse a JSON file a user named (as :func:`parse_json` does: at most :data:`MAX_DEPTH`
    levels deep); any failure is one ``error`` line naming the file.

    ``what`` names the kind of file in messages ("scene file"); ``hint`` says
    what to do next and is appended to every message.

    >>> read_json_file("/no/such/game.json", "scene file", SceneError)
    Traceback (most recent call last):
    ...
    referee.errors.SceneError: /no/such/game.json: no such scene file
    """
    name = str(path)
    suffix = f"; {hint}" if hint else ""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{name}: no such {what}{suffix}") from None
    except (OSError, UnicodeDecodeError) as problem:
        reason = getattr(problem, "strerror", None) or str(problem)
        raise error(f"{name}: cannot read {what} ({reason}){suffix}") from None
    return parse_json(text, name, error, hint)


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON via a temporary file and rename, so readers never see half a file.

    Strict JSON: a NaN or Infinity is a bug upstream and fails here, never reaching a file.
    """
    write_text_atomic(path, json.dumps(data, indent=2, allow_nan=False) + "\n")


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write text via a temporary file beside it and rename: a failure leaves the old file.

    A path that cannot be written (its folder is a file, no permission, disk full) is a
    :class:`RefereeError` naming it.
    """
    path = Path(path)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError as error:
        raise RefereeError(
            f"{path}: cannot write ({error.strerror or error}); choose another path"
        ) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def warn(message: str) -> None:
    """Tell the user about something doubtful: one ``referee: warning: ...`` line on stderr.

    The one warning style of every command (never a raw Python warning);
    written above any progress bar on the screen.
    """
    from tqdm import tqdm

    tqdm.write(f"referee: warning: {message}", file=sys.stderr)
