"""The one error type users see.

Every stage raises a subclass of :class:`RefereeError` for bad input; the
``referee`` command turns it into one line on stderr and exit code 2, never a
traceback. Messages are lowercase and carry their context (file, JSON path,
value) so the user knows what to fix.
"""

from __future__ import annotations


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
