"""``referee track`` and ``referee run``: a referee session from the command line.

Both drive one :class:`~referee.game.Session` over a frame source with
:func:`referee.game.drive` (``demo`` and ``serve`` use the same loop): ``track`` writes
the tracks file, ``run`` prints every settled move with its verdicts and
keeps the game in the log.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import IO, Any

import click

from referee.calibration.profile import CalibrationProfile
from referee.club.sender import ClubTarget, club_options, finish
from referee.errors import RefereeError, SourceError, counted
from referee.events import GameEvent, finite_json
from referee.game import (
    Session,
    SessionUpdate,
    check_log_path,
    check_source_fits,
    drive,
    game_name,
    open_log,
    source_key,
    warn,
)
from referee.game.sources import load_game_roster, load_profiles, open_cameras
from referee.markers.roster import Roster
from referee.media import MAX_CAMERA_INDEX
from referee.outputs import VIDEO_SUFFIXES, output_file
from referee.store import default_db_path
from referee.vision.pipeline import Pipeline
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


def inputs_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--calibration`` and ``--roster`` options every pipeline command takes."""
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
    """``--db``, ``--game`` and ``--no-log``: where the game is logged."""
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


@click.command()
@click.argument("source", nargs=-1, required=True)
@inputs_options
@click.option("--out", "-o", required=True, metavar="TRACKS.jsonl", help="One JSON line per frame.")
@click.option("--events", metavar="EVENTS.jsonl", help="Write move and warning events here.")
@click.option("--max-frames", type=click.IntRange(min=1), help="Stop after this many frames.")
@click.option("--width", type=click.IntRange(min=1), help="Camera: requested width in pixels.")
@click.option("--height", type=click.IntRange(min=1), help="Camera: requested height in pixels.")
@click.option("--fps", type=click.FloatRange(min=1, max=1000), help="Camera: requested frame rate.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def track(
    source: tuple[str, ...],
    calibration: tuple[str, ...],
    roster: str,
    out: str,
    events: str | None,
    max_frames: int | None,
    width: int | None,
    height: int | None,
    fps: float | None,
    quiet: bool,
) -> None:
    """Track every tagged piece in SOURCE and write its pose per frame.

    SOURCE is a video file, a folder of images, a camera index (0, 1...) or a
    stream URL; several SOURCEs are several cameras over one table, each with its own
    -c profile in the same order. Each line of TRACKS.jsonl is one processed frame:
    {"frame", "t", "pieces": [{"id", "tag", "x", "y", "heading", "uncertainty",
    "seen", "state"}]}, in table inches and degrees. Settled moves (and
    warnings) go to EVENTS.jsonl. Files are written as NAME.partial and put in
    place when complete, so a failed run leaves an earlier file as it was.
    """
    # Every check before any output is opened (the writers open at the first frame).
    distinct_outputs(
        {"--out": out, "--events": events},
        {
            **numbered("SOURCE", source),
            **numbered("--calibration", calibration),
            "--roster": roster,
        },
    )
    tracks = JsonLinesWriter(out, "--out")
    event_log = JsonLinesWriter(events, "--events") if events is not None else None
    writers = [w for w in (tracks, event_log) if w is not None]
    holder: list[Session] = []
    profiles, roster_value, frames = open_game_inputs(
        source, calibration, roster, holder, width=width, height=height, fps=fps
    )
    session = Session.start(Pipeline(profiles, roster_value, source_name=source))
    holder.append(session)
    moves = 0

    def write(update: SessionUpdate) -> None:
        nonlocal moves
        assert update.result is not None
        tracks.write(update.result.to_json())
        for event in update.result.events:
            if event_log is not None:
                event_log.write(event.to_json())
        moves += len(update.rulings)
        print_flags(update)

    try:
        count = drive(session, frames, progress=not quiet, limit=max_frames, on_update=write)
    except KeyboardInterrupt:
        _close(writers, True, frames)  # the user stopped it: what was tracked is whole
        click.echo(f"referee: interrupted; the frames up to here are in {out}", err=True)
        raise SystemExit(130) from None
    except RefereeError as error:
        _close(writers, False, frames)
        if tracks.partial.exists():
            raise RefereeError(
                f"{error} (the frames tracked so far are in {tracks.partial})"
            ) from None
        raise
    _close(writers, True, frames)
    click.echo(f"tracked {counted(count, 'frame')}, {counted(moves, 'move')} -> {out}", err=True)


def _close(writers: list[JsonLinesWriter], complete: bool, source: FrameSource) -> None:
    source.close()
    for writer in writers:
        writer.close(complete)


@click.command()
@click.option(
    "--camera",
    type=click.IntRange(0, MAX_CAMERA_INDEX),
    multiple=True,
    help="Camera index (0 is the first); repeat for several cameras over one table.",
)
@click.option(
    "--video",
    metavar="FILE",
    multiple=True,
    help="A recorded video (or image folder, or stream URL); repeat for several cameras.",
)
@inputs_options
@click.option("--scene", metavar="SCENE.json", help="Terrain, sides, cards and questions.")
@click.option("--ruleset", default=None, help="Rules to judge moves by (default: the scene's).")
@log_options
@click.option(
    "--annotate",
    metavar="OUT.mp4",
    help="Write the footage with what was seen (several cameras: side by side in one file, "
    "each scaled, every piece's fused base drawn in each view).",
)
@click.option("--tracks", metavar="TRACKS.jsonl", help="Also write the tracks file.")
@click.option("--events", metavar="EVENTS.jsonl", help="Also write move and verdict events.")
@click.option("--width", type=click.IntRange(min=1), help="Requested camera width in pixels.")
@click.option("--height", type=click.IntRange(min=1), help="Requested camera height in pixels.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@club_options
def run(
    camera: tuple[int, ...],
    video: tuple[str, ...],
    calibration: tuple[str, ...],
    roster: str,
    scene: str | None,
    ruleset: str | None,
    db: str | None,
    game: str | None,
    no_log: bool,
    annotate: str | None,
    tracks: str | None,
    events: str | None,
    width: int | None,
    height: int | None,
    quiet: bool,
    club_url: str | None = None,
    club_token: str | None = None,
) -> None:
    """Referee a game live: print each settled move with the ruleset's verdict.

    Every move is measured front to front between where the piece settled
    before and after, and judged with the scene's terrain and announcements
    (allowance, 6in infantry cap, stopping in woods, followers within 3in);
    the scene's range and LOS questions are answered on the live positions
    and again whenever a piece they name settles. The game is logged (see
    'referee log'); --game NAME resumes a logged game after a crash. Example:

      referee run --camera 0 -c table.json -r roster.json --scene game.json

    Several cameras over one table: repeat --camera (or --video) and -c, paired in
    order (--camera 0 --camera 1 -c left.json -c right.json).
    """
    from referee.scene import load_scene

    specs = source_options(camera, video)
    club = ClubTarget.from_options(club_url, club_token, logged=not no_log)
    # Every check before any output or the game log is opened: a refused run changes nothing.
    distinct_outputs(
        {"--tracks": tracks, "--events": events, "--annotate": annotate},
        {
            **numbered("--video", video),
            **numbered("--calibration", calibration),
            "--roster": roster,
            "--scene": scene,
            "--db": db or (None if no_log else str(default_db_path())),
        },
    )
    if annotate is not None:
        output_file(annotate, "--annotate", VIDEO_SUFFIXES, "seen.mp4")
    tracks_log = JsonLinesWriter(tracks, "--tracks") if tracks is not None else None
    event_log = JsonLinesWriter(events, "--events") if events is not None else None
    writers = [w for w in (tracks_log, event_log) if w is not None]
    check_log_path(db, no_log)
    profiles = load_profiles(calibration, specs)
    roster_value = load_game_roster(roster)
    scene_value = load_scene(scene) if scene else None
    holder: list[Session] = []
    frames = open_cameras(specs, profiles, roster_value, holder, width=width, height=height)
    try:
        log = open_log(db, no_log)
    except BaseException:
        frames.close()
        raise
    name = game or game_name()
    pipeline = Pipeline(profiles, roster_value, source_name=specs)
    session = Session.start(
        pipeline,
        scene_value,
        ruleset,
        log=log,
        game=name,
        source=" + ".join(source_key(s) for s in specs),
    )
    holder.append(session)
    if log is not None:
        verb = "resuming" if session.resumed else "logging"
        click.echo(f"{verb} game {name!r} in {log.path} (event #{session.last_seq})", err=True)
    annotator = None
    if annotate:
        from referee.vision.annotate import Annotator

        annotator = Annotator(annotate, roster_value, session.scene, frames.fps)
    tally = {"moves": 0, "not ok": 0, "doubtful": 0}

    def show(update: SessionUpdate) -> None:
        from tqdm import tqdm

        result = update.result
        assert result is not None
        if annotator is not None:
            annotate_frame(annotator, update)
        if tracks_log is not None:
            tracks_log.write(result.to_json())
        if event_log is not None:
            for event in result.events:
                event_log.write(event.to_json())
            for ruling in update.rulings:
                event_log.write(ruling.to_json())
        print_flags(update)
        for ruling in update.rulings:
            tally["moves"] += 1
            tally["not ok"] += ruling.ok is False
            tally["doubtful"] += ruling.ok is None
            tqdm.write(ruling.describe())
        for logged in update.events:
            if logged.type == "verdict" and "question" in logged.data:
                tqdm.write(describe_answer(logged))
            elif logged.type == "edit" and isinstance(logged.data.get("template"), dict):
                tqdm.write(describe_template(logged))
            elif logged.type in ("removed", "entered"):  # a casualty, a reinforcement
                tqdm.write(f"{logged.t:7.2f}s  {logged.sentence()}")

    for logged in session.opening:
        if logged.type == "verdict":
            click.echo(describe_answer(logged))
    progress = not quiet and frames.frame_count is not None
    interrupted = False
    sender = club.start(log.path, name) if club is not None and log is not None else None
    # Outputs go in place only when the run ended well (or the user stopped it: what was
    # seen up to then is whole); a failure keeps the earlier files.
    complete = False
    try:
        drive(session, frames, progress=progress, on_update=show)
        complete = True
    except KeyboardInterrupt:
        interrupted = complete = True
    finally:
        frames.close()
        session.close()
        if annotator is not None:
            annotator.close(complete)
        for writer in writers:
            writer.close(complete)
        if log is not None:
            finish(sender, log.path)
            log.close()
    for line in session.unanswered():
        warn(f"not answered: {line}")
    click.echo(
        f"{counted(tally['moves'], 'move')} judged: {tally['not ok']} not ok, "
        f"{tally['doubtful']} too close to call"
        + (f"; game {name!r} logged in {log.path}" if log is not None else ""),
        err=True,
    )
    if interrupted:
        click.echo(f"referee: stopped; resume with --game {name}", err=True)
        raise SystemExit(130)


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


__all__ = [
    "JsonLinesWriter",
    "check_log_path",
    "check_source_fits",
    "describe_template",
    "distinct_outputs",
    "inputs_options",
    "log_options",
    "open_log",
    "run",
    "track",
]
