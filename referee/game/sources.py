"""Opening what a game reads and writes: calibration and roster, its frame source, the
bundled sample, the game log.

Shared by the commands and the dashboard, so ``run``, ``track``, ``demo`` and
``serve`` open a camera, a recording or the sample in one way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.calibration.profile import CalibrationProfile, load_profile
from referee.errors import RefereeError
from referee.game.loop import warn
from referee.game.session import Session
from referee.markers.roster import Roster, load_roster
from referee.outputs import output_file
from referee.store import GameLog, default_db_path
from referee.vision.pipeline import check_profile_fits
from referee.vision.sources import FrameSource, open_source

FOOTAGE = Path("sample_footage") / "skirmish"
"""The bundled sample game, relative to the checkout."""


def repo_footage() -> Path:
    """``sample_footage/skirmish`` in the checkout this package was installed from."""
    return Path(__file__).resolve().parents[2] / FOOTAGE


def load_inputs(calibration: str, roster_path: str) -> tuple[CalibrationProfile, Roster]:
    """The profile and roster a run needs; a roster without pieces is an error."""
    profile = load_profile(calibration)
    roster = load_roster(roster_path)
    if not len(roster):
        raise RefereeError(f"{roster_path}: the roster lists no pieces; nothing to track")
    return profile, roster


def open_camera_source(
    spec: str, session_ref: list[Session], **options: Any
) -> tuple[FrameSource, Callable[[str, str], None]]:
    """Open ``spec``; its camera lost/reopened notices go to the session in ``session_ref``."""

    def on_camera(kind: str, message: str) -> None:
        warn(message)
        if session_ref:
            session_ref[0].camera_event(kind, message)

    source = open_source(spec, on_warning=warn, on_camera=on_camera, **options)
    return source, on_camera


def source_key(spec: str) -> str:
    """How a game remembers its source: a file's absolute path, a camera's index, a URL."""
    path = Path(spec)
    return str(path.resolve()) if path.exists() else spec


def check_log_path(db: str | None, no_log: bool) -> None:
    """``--db`` and ``--no-log`` as given can be used, checked before anything is opened."""
    if no_log:
        if db:
            raise RefereeError("--db and --no-log: give one or the other")
        return
    if db is not None:
        output_file(db, "--db")


def open_log(db: str | None, no_log: bool) -> GameLog | None:
    """The game log a command writes to (None with ``--no-log``)."""
    check_log_path(db, no_log)
    if no_log:
        return None
    return GameLog(db or default_db_path())


def check_source_fits(profile: CalibrationProfile, frames: FrameSource, name: str) -> None:
    """A source whose frame size is known up front must match the profile, before any output
    or game log is opened (the pipeline checks every frame again)."""
    if frames.frame_size is not None:
        try:
            check_profile_fits(profile, frames.frame_size, name)
        except RefereeError:
            frames.close()
            raise


def probe_source(spec: str, profile: CalibrationProfile) -> None:
    """Open ``spec`` once, check its frames fit ``profile``, close it: a source that cannot be
    used is an error before any game log is opened, not later in a frame thread."""
    frames, _ = open_camera_source(spec, [])
    check_source_fits(profile, frames, spec)
    frames.close()
