"""Output files: checked before any work, written beside their target, renamed into place.

Every output option of every command (``--out``, ``--events``, ``--tracks``, ``--annotate``,
``--picture``...) goes through :func:`output_file` (or :func:`output_folder`) when the
command starts, before any input is read at length or any output or game log is opened:
a path that is a folder, lies under a regular file, is too long for the system or has a
suffix its writer cannot write is one ``referee: error:`` line, and nothing is written.
Writers then stage their bytes in a :class:`StagedFile` beside the target (same folder, so
the rename is atomic) and put it in place only when the command succeeded, so a failure
leaves an earlier file byte for byte.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path

from referee.errors import RefereeError

#: Longest path the system opens, in bytes (Linux's PATH_MAX, less the final NUL).
MAX_PATH_BYTES = 4095

#: Longest single file or folder name, in bytes (every common file system's limit).
MAX_NAME_BYTES = 255

#: What ``cv2.VideoWriter`` writes with the mp4v codec (it picks the container by suffix).
VIDEO_SUFFIXES = (".mp4", ".m4v", ".mov", ".avi", ".mkv")

#: What ``cv2.imwrite`` writes (it picks the format by suffix).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")


def _label(option: str, path: str) -> str:
    shown = path if len(path) <= 80 else f"{path[:60]}... ({len(path)} characters)"
    return f"{option} {shown}" if option else shown


def usable_path(path: str | os.PathLike[str], option: str = "") -> Path:
    """``path`` as a :class:`Path`, if the system can open a file by that name at all.

    Any path a user gives (an input too) goes through here before the system sees it, so
    "File name too long" is the referee's one line naming the option, not an OSError.

    >>> usable_path("a/" + "x" * 300, "--db")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.RefereeError: --db a/xxx...: a name in it is 300 bytes long; the system ...
    """
    text = os.fspath(path)
    if not text:
        raise RefereeError(f"{option or 'path'}: is empty; give a file name")
    if "\0" in text:
        raise RefereeError(f"{_label(option, repr(text))}: a path cannot hold a NUL character")
    try:
        raw = os.fsencode(text)
    except UnicodeError:
        raise RefereeError(
            f"{_label(option, repr(text))}: cannot be a file name on this system"
        ) from None
    if len(raw) > MAX_PATH_BYTES:
        raise RefereeError(
            f"{_label(option, text)}: is {len(raw)} bytes long; the system allows at most "
            f"{MAX_PATH_BYTES}"
        )
    longest = max((len(part) for part in raw.split(b"/")), default=0)
    if longest > MAX_NAME_BYTES:
        raise RefereeError(
            f"{_label(option, text)}: a name in it is {longest} bytes long; the system allows "
            f"at most {MAX_NAME_BYTES}"
        )
    return Path(text)


def _mode(path: Path) -> int | None:
    """The file type bits of ``path`` (following links), or None when nothing is there."""
    try:
        return path.stat().st_mode
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None  # a parent is a file: the parent walk below names it
    except OSError as error:
        raise RefereeError(f"{path}: cannot look at it ({error.strerror})") from None


def _check_parents(target: Path, option: str) -> None:
    """The nearest existing folder above ``target`` is a folder we may write in."""
    for parent in target.absolute().parents:
        mode = _mode(parent)
        if mode is None:
            continue
        if not stat.S_ISDIR(mode):
            raise RefereeError(
                f"{_label(option, str(target))}: {parent} is a file, not a folder; "
                "choose another path"
            )
        if not os.access(parent, os.W_OK | os.X_OK):
            raise RefereeError(
                f"{_label(option, str(target))}: cannot write in {parent} (permission denied); "
                "choose another path"
            )
        return


def output_file(
    path: str | os.PathLike[str],
    option: str,
    suffixes: Sequence[str] | None = None,
    example: str = "",
) -> Path:
    """An output file the command may write, checked before any work.

    Its folder exists or can be made, it is not a folder (nor a device or pipe, which a
    rename would replace), its name fits the system, and with ``suffixes`` its suffix is
    one the writer writes (``example`` is a file name to suggest).
    """
    target = usable_path(path, option)
    if suffixes is not None and target.suffix.lower() not in suffixes:
        kinds = ", ".join(suffixes)
        hint = f", e.g. {example}" if example else ""
        raise RefereeError(
            f"{_label(option, str(target))}: cannot write this kind of file; give a name "
            f"ending in {kinds}{hint}"
        )
    mode = _mode(target)
    if mode is not None and stat.S_ISDIR(mode):
        raise RefereeError(f"{_label(option, str(target))}: is a folder; give a file name")
    if mode is not None and not stat.S_ISREG(mode):
        raise RefereeError(
            f"{_label(option, str(target))}: is not a regular file (a device or a pipe?); "
            "give a file name"
        )
    _check_parents(target, option)
    return target


def output_folder(path: str | os.PathLike[str], option: str) -> Path:
    """An output folder: it is a folder or can be made one."""
    target = usable_path(path, option)
    mode = _mode(target)
    if mode is not None and not stat.S_ISDIR(mode):
        raise RefereeError(
            f"{_label(option, str(target))}: is a file, not a folder; choose another path"
        )
    _check_parents(target, option)
    return target


class StagedFile:
    """A file written under a temporary name beside ``target`` and renamed into place.

    The temporary name keeps the target's suffix (OpenCV's writers choose the format by
    it) and starts with a dot. :meth:`commit` puts it in place; :meth:`discard` removes it,
    so an earlier ``target`` stays byte for byte.
    """

    def __init__(self, target: str | os.PathLike[str], option: str = "") -> None:
        self.target = Path(target)
        self.option = option
        token = secrets.token_hex(4)
        self.path = self.target.with_name(f".{self.target.stem}.{token}{self.target.suffix}")
        try:
            self.target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise self._error(error) from None

    def _error(self, error: OSError) -> RefereeError:
        return RefereeError(
            f"{_label(self.option, str(self.target))}: cannot write "
            f"({error.strerror or error}); choose another path"
        )

    def commit(self) -> None:
        try:
            os.replace(self.path, self.target)
        except OSError as error:
            self.discard()
            raise self._error(error) from None

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
