"""What the game's commands share: their options declared once (the inputs, the game
log, the cameras), the files they write a line at a time, and how a session's updates
are printed and drawn. ``track``, ``run`` and ``demo`` (:mod:`referee.game.cli`) and
``serve`` read them from here."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import click

from referee.calibration.footage import calibrate_from_clip
from referee.calibration.profile import CalibrationProfile, load_profile
from referee.commands import gathered
from referee.errors import RefereeError, SourceError, counted
from referee.events import GameEvent, finite_json
from referee.game.loop import warn
from referee.game.session import Session, SessionUpdate
from referee.game.sources import load_game_roster, load_profiles, open_cameras
from referee.markers.roster import Roster
from referee.outputs import output_file
from referee.store import default_db_path
from referee.vision.sources import FrameSource


class JsonLinesWriter:
    """Writes one JSON object per line to ``PATH.partial``, flushed, so a crash loses nothing;
    :meth:`close` renames it to ``PATH`` when complete, so a failed run never replaces an
    earlier file.

    The path is checked when the writer is made (before any input is read at length), and
    the partial file is opened only at the first line, so a run that fails its checks on
    the first frame leaves nothing behind.
    """

    def __init__(self, path: str | os.PathLike[str], option: str = "--out") -> None:
        self.path = output_file(path, option)
        self.option = option
        self.partial = self.path.with_name(self.path.name + ".partial")
        self._handle: IO[str] | None = None

    def _open(self) -> IO[str]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return self.partial.open("w", encoding="utf-8")
        except OSError as error:
            raise RefereeError(
                f"{self.option} {self.path}: cannot write ({error.strerror}); choose another path"
            ) from None

    def write(self, data: dict[str, Any]) -> None:
        if self._handle is None:
            self._handle = self._open()
        text = json.dumps(finite_json(data), separators=(",", ":"), allow_nan=False)
        self._handle.write(text + "\n")
        self._handle.flush()

    def close(self, complete: bool = True) -> None:
        """Close; ``complete`` puts the file in place, otherwise ``PATH.partial`` stays
        (when anything was written)."""
        if complete and self._handle is None:
            self._handle = self._open()  # a complete run with no frames: an empty file
        if self._handle is None:
            return
        self._handle.close()
        if complete:
            try:
                os.replace(self.partial, self.path)
            except OSError as error:
                raise RefereeError(
                    f"{self.option} {self.path}: cannot write ({error.strerror}); what was "
                    f"written is in {self.partial}"
                ) from None


def close_outputs(writers: Sequence[JsonLinesWriter], complete: bool, source: FrameSource) -> None:
    """Close the source, then each output (put in place only when ``complete``)."""
    source.close()
    for writer in writers:
        writer.close(complete)


def distinct_outputs(
    paths: dict[str, str | None], inputs: dict[str, str | None] | None = None
) -> None:
    """No two output options name the same file (each would overwrite the other), and no
    output names an input (the video, the profile, the game log...), which it would replace."""
    seen: dict[str, str] = {}
    for option, path in (inputs or {}).items():
        if path:
            seen.setdefault(os.path.abspath(path), option)
    for option, path in paths.items():
        if not path:
            continue
        key = os.path.abspath(path)
        if key in seen:
            raise RefereeError(f"{seen[key]} and {option} both name {path}; give two files")
        seen[key] = option


def numbered(option: str, values: Sequence[str]) -> dict[str, str]:
    """A repeated option's values for :func:`distinct_outputs`: the first as the option,
    the next ones with their place (``--video #2``)."""
    return {option if k == 0 else f"{option} #{k + 1}": v for k, v in enumerate(values)}


@dataclass(frozen=True)
class Inputs:
    """``--calibration`` (one profile per camera) and ``--roster``."""

    calibration: tuple[str, ...]
    roster: str


@dataclass(frozen=True)
class LogChoice:
    """``--db``, ``--game`` and ``--no-log``: where the game is logged, under what name."""

    db: str | None
    game: str | None
    no_log: bool
    evidence: bool = True
    """Keep what the camera saw with each verdict (``--evidence on|off``)."""


@dataclass(frozen=True)
class RulesChoice:
    """``--scene`` and ``--ruleset``: the table's terrain and questions, the rules to judge by."""

    scene: str | None
    ruleset: str | None


@dataclass(frozen=True)
class Capture:
    """``--width``, ``--height`` (and ``--fps``): what to ask a live camera for."""

    width: int | None
    height: int | None
    fps: float | None = None


@dataclass(frozen=True)
class Cameras:
    """``--camera N`` or ``--video FILE`` (repeated for several cameras over one table), and
    the ``--width`` and ``--height`` asked of a live camera."""

    camera: tuple[int, ...]
    video: tuple[str, ...]
    width: int | None
    height: int | None


@dataclass(frozen=True)
class Outputs:
    """``--annotate``, ``--tracks`` and ``--events``: what a run writes beside the game log."""

    annotate: str | None
    tracks: str | None
    events: str | None


def inputs_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--calibration`` and ``--roster`` options every pipeline command takes, as one
    :class:`Inputs` value ``inputs``."""
    command = gathered("inputs", Inputs, {"calibration": "calibration", "roster": "roster"})(
        command
    )
    command = click.option(
        "--roster", "-r", required=True, metavar="ROSTER.json", help="Which tag is on which piece."
    )(command)
    return click.option(
        "--calibration",
        "-c",
        required=True,
        multiple=True,
        metavar="PROFILE.json",
        help="Calibration profile from 'referee calibrate'; one per camera, in camera order.",
    )(command)


def log_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--db``, ``--game``, ``--no-log`` and ``--evidence``: where the game is logged, as
    one :class:`LogChoice` value ``log_choice``."""
    command = gathered(
        "log_choice", LogChoice, {n: n for n in ("db", "game", "no_log", "evidence")}
    )(command)
    command = click.option(
        "--evidence",
        type=click.Choice(["on", "off"]),
        default="on",
        show_default=True,
        callback=lambda _ctx, _param, value: value != "off",
        help="Keep what the camera saw with each verdict in the game log (compact JPEGs, "
        "at most 40 KB a verdict and 60 MB a game).",
    )(command)
    command = click.option("--no-log", is_flag=True, help="Do not keep a game log.")(command)
    command = click.option(
        "--game", metavar="NAME", help="Game name; an existing game is resumed."
    )(command)
    return click.option(
        "--db", metavar="FILE", help=f"Game log file (default: {default_db_path()})."
    )(command)


def print_flags(update: SessionUpdate) -> None:
    """Flags and camera events as one warning line each."""
    for event in update.events:
        if event.type in ("flag", "camera"):
            where = f"frame {event.frame}: " if event.frame is not None else ""
            warn(where + str(event.data.get("message")))


def annotate_frame(annotator: Any, update: SessionUpdate) -> None:
    """Draw a frame into the annotated video, with the verdicts it brought shown beside it."""
    for ruling in update.rulings:
        annotator.announce([line.strip() for line in ruling.describe().splitlines()])
    for logged in update.events:
        if logged.type == "verdict" and "question" in logged.data:
            annotator.announce([describe_answer(logged).strip()])
    assert update.result is not None
    annotator.write(update.result)


def source_options(cameras: Sequence[int], videos: Sequence[str]) -> tuple[str, ...]:
    """The sources of a run: repeated --camera or repeated --video (not both: the order
    pairs each with its -c profile, and two kinds of option lose it)."""
    if bool(cameras) == bool(videos):
        raise SourceError(
            "give exactly one of --camera N or --video FILE"
            if not cameras
            else "give the cameras as all --camera N or all --video FILE (a stream URL goes "
            "to --video), so the order pairs each with its -c profile"
        )
    return tuple(str(c) for c in cameras) if cameras else tuple(videos)


def open_game_inputs(
    specs: Sequence[str],
    calibrations: Sequence[str],
    roster: str,
    holder: list[Session],
    **options: Any,
) -> tuple[tuple[CalibrationProfile, ...], Roster, FrameSource]:
    """Profiles, roster and the (one or several cameras') frame source, every check done."""
    profiles = load_profiles(calibrations, specs)
    roster_value = load_game_roster(roster)
    frames = open_cameras(specs, profiles, roster_value, holder, **options)
    return profiles, roster_value, frames


def describe_template(event: GameEvent) -> str:
    """A terrain template placed or moved (an ``edit`` event with its ``template`` pose),
    printed like a move: the terrain in the scene changed, so the players should know."""
    terrain = event.data.get("terrain") or {}
    pose = event.data["template"]
    verb = "moved to" if event.data.get("action") == "replace" else "placed at"
    return (
        f"{event.t:7.2f}s  terrain {terrain.get('id')} ({terrain.get('kind')}) {verb} "
        f"({pose.get('x', 0):.2f}, {pose.get('y', 0):.2f}) facing {pose.get('heading', 0):.0f}"
    )


def describe_answer(event: GameEvent) -> str:
    """A standing question's answer as ``referee check`` prints it."""
    verdict = event.data.get("verdict", {})
    mark = {True: "[ok]", False: "[NO]", None: "[??]"}[verdict.get("ok")]
    summary = verdict.get("summary") or verdict.get("ask")
    return f"{event.t:7.2f}s  {mark} {summary}"


def describe_logged(event: GameEvent) -> str | None:
    """The line ``run`` prints for a logged event worth one of its own besides the rulings
    (None for the others): a standing question answered, a terrain template placed, a
    casualty or a reinforcement."""
    if event.type == "verdict" and "question" in event.data:
        return describe_answer(event)
    if event.type == "edit" and isinstance(event.data.get("template"), dict):
        return describe_template(event)
    if event.type in ("removed", "entered"):
        return f"{event.t:7.2f}s  {event.sentence()}"
    return None


def camera_profile(
    clip: Path, true_camera: Path, roster: Roster, folder: Path, use_true_camera: bool
) -> CalibrationProfile:
    """One camera's profile: calibrated from its clip, else its committed true profile."""
    profile: CalibrationProfile | None = None
    if not use_true_camera and clip.is_file():
        click.echo(f"calibrating from {clip} ...")
        try:
            reference = load_profile(true_camera) if true_camera.is_file() else None
            table = reference.table if reference else table_from_scene(folder)
            # The board printed for this footage; a user passes it as 'referee calibrate --board'.
            board = reference.board if reference else None
            profile = calibrate_from_clip(clip, roster, table, board)
            rms = f"{profile.rms_px:.2f}px" if profile.rms_px is not None else "n/a"
            click.echo(
                f"  calibrated: reprojection RMS {rms} from {counted(profile.views_used, 'view')}, "
                f"table frame from {profile.frame_source}"
            )
        except (RefereeError, ImportError) as error:
            click.echo(f"  note: calibration did not work here ({error}); using {true_camera.name}")
            profile = None
    if profile is None:
        if not true_camera.is_file():
            raise RefereeError(
                f"{folder}: neither a usable calibration clip nor {true_camera.name}"
            )
        if not use_true_camera:
            click.echo(
                f"note: using the footage's committed {true_camera.name} (the simulator's truth)"
            )
        profile = load_profile(true_camera)
    return profile


def table_from_scene(folder: Path) -> Any:
    from referee.calibration.profile import TableSize
    from referee.scene import load_scene

    scene = load_scene(folder / "scene.json")
    return TableSize(scene.table.width, scene.table.depth, scene.table.inch_mm)
