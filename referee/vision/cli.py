"""``referee track`` and ``referee run``: the vision pipeline from the command line."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import click

from referee.calibration.profile import CalibrationProfile, load_profile
from referee.errors import RefereeError, SourceError
from referee.markers.roster import Roster, load_roster
from referee.vision.pipeline import FrameResult, Pipeline
from referee.vision.sources import FrameSource, open_source
from referee.vision.track import FlagEvent, MoveEvent


class JsonLinesWriter:
    """Appends one JSON object per line and flushes it, so a crash or Ctrl-C loses nothing."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle: IO[str] = self.path.open("w", encoding="utf-8")
        except OSError as error:
            raise RefereeError(f"{path}: cannot write ({error.strerror})") from None

    def write(self, data: dict[str, Any]) -> None:
        self._handle.write(json.dumps(data, separators=(",", ":")) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


def load_inputs(calibration: str, roster_path: str) -> tuple[CalibrationProfile, Roster]:
    """The profile and roster a run needs; a roster without pieces is an error."""
    profile = load_profile(calibration)
    roster = load_roster(roster_path)
    if not len(roster):
        raise RefereeError(f"{roster_path}: the roster lists no pieces; nothing to track")
    return profile, roster


def inputs_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--calibration`` and ``--roster`` options every pipeline command takes."""
    command = click.option(
        "--roster", "-r", required=True, metavar="ROSTER.json", help="Which tag is on which piece."
    )(command)
    return click.option(
        "--calibration",
        "-c",
        required=True,
        metavar="PROFILE.json",
        help="Calibration profile from 'referee calibrate'.",
    )(command)


def warn(message: str) -> None:
    from tqdm import tqdm

    tqdm.write(f"referee: warning: {message}", file=sys.stderr)


def run_frames(
    source: FrameSource,
    pipeline: Pipeline,
    subscribers: list[Callable[[FrameResult], None]],
    progress: bool,
    limit: int | None = None,
) -> int:
    """Drive the pipeline over a source with a progress bar; returns frames processed."""
    from tqdm import tqdm

    total = source.frame_count
    if limit is not None and total is not None:
        total = min(total, limit)
    count = 0
    with tqdm(
        total=total,
        unit="frame",
        disable=not progress,
        file=sys.stderr,
        desc=Path(source.name).name,
        leave=False,
    ) as bar:
        for _ in pipeline.run(source, subscribers):
            count += 1
            bar.update(1)
            if limit is not None and count >= limit:
                break
    return count


def _flag_printer(result: FrameResult) -> None:
    for event in result.events:
        if isinstance(event, FlagEvent):
            warn(f"frame {event.frame}: {event.message}")


@click.command()
@click.argument("source")
@inputs_options
@click.option("--out", "-o", required=True, metavar="TRACKS.jsonl", help="One JSON line per frame.")
@click.option("--events", metavar="EVENTS.jsonl", help="Write move and warning events here.")
@click.option("--max-frames", type=click.IntRange(min=1), help="Stop after this many frames.")
@click.option("--width", type=click.IntRange(min=1), help="Camera: requested width in pixels.")
@click.option("--height", type=click.IntRange(min=1), help="Camera: requested height in pixels.")
@click.option("--fps", type=click.FloatRange(min=1), help="Camera: requested frame rate.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def track(
    source: str,
    calibration: str,
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
    stream URL. Each line of TRACKS.jsonl is one processed frame:
    {"frame", "t", "pieces": [{"id", "tag", "x", "y", "heading", "uncertainty",
    "seen", "state"}]}, in table inches and degrees. Settled moves (and
    warnings) go to EVENTS.jsonl.
    """
    profile, roster_value = load_inputs(calibration, roster)
    frames = open_source(source, width=width, height=height, fps=fps, on_warning=warn)
    pipeline = Pipeline(profile, roster_value, source_name=source)
    tracks = JsonLinesWriter(out)
    event_log = JsonLinesWriter(events) if events else None
    moves = 0

    def write(result: FrameResult) -> None:
        nonlocal moves
        tracks.write(result.to_json())
        for event in result.events:
            if event_log is not None:
                event_log.write(event.to_json())
            if isinstance(event, MoveEvent):
                moves += 1

    try:
        count = run_frames(
            frames, pipeline, [write, _flag_printer], progress=not quiet, limit=max_frames
        )
    except KeyboardInterrupt:
        count = -1
    finally:
        frames.close()
        tracks.close()
        if event_log is not None:
            event_log.close()
    if count < 0:
        click.echo("referee: interrupted; everything up to here is written", err=True)
        raise SystemExit(130)
    click.echo(f"tracked {count} frames, {moves} moves -> {out}", err=True)


def _source_option(camera: int | None, video: str | None) -> str:
    if (camera is None) == (video is None):
        raise SourceError("give exactly one of --camera N or --video FILE")
    return str(camera) if camera is not None else str(video)


@click.command()
@click.option("--camera", type=click.IntRange(min=0), help="Camera index (0 is the first).")
@click.option("--video", metavar="FILE", help="A recorded video (or image folder, or stream URL).")
@inputs_options
@click.option("--scene", metavar="SCENE.json", help="Terrain, sides and cards for the rules.")
@click.option("--ruleset", default=None, help="Rules to judge moves by (default: the scene's).")
@click.option("--annotate", metavar="OUT.mp4", help="Write the footage with what was seen.")
@click.option("--tracks", metavar="TRACKS.jsonl", help="Also write the tracks file.")
@click.option("--events", metavar="EVENTS.jsonl", help="Also write move and verdict events.")
@click.option("--width", type=click.IntRange(min=1), help="Requested camera width in pixels.")
@click.option("--height", type=click.IntRange(min=1), help="Requested camera height in pixels.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def run(
    camera: int | None,
    video: str | None,
    calibration: str,
    roster: str,
    scene: str | None,
    ruleset: str | None,
    annotate: str | None,
    tracks: str | None,
    events: str | None,
    width: int | None,
    height: int | None,
    quiet: bool,
) -> None:
    """Referee a game live: print each settled move with the ruleset's verdict.

    Every move is measured front to front between where the piece settled
    before and after, and judged with the scene's terrain and Follow Me
    announcements (allowance, 6in infantry cap, stopping in woods, followers
    within 3in). Example:

      referee run --camera 0 -c table.json -r roster.json --scene game.json
    """
    from referee.vision.referee_feed import RulesFeed

    spec = _source_option(camera, video)
    profile, roster_value = load_inputs(calibration, roster)
    frames = open_source(spec, width=width, height=height, on_warning=warn)
    pipeline = Pipeline(profile, roster_value, source_name=spec)
    feed = RulesFeed.create(roster_value, profile, scene, ruleset)
    subscribers: list[Callable[[FrameResult], None]] = [_flag_printer]
    closers: list[Callable[[], None]] = [frames.close]
    if tracks:
        tracks_log = JsonLinesWriter(tracks)
        subscribers.append(lambda r: tracks_log.write(r.to_json()))
        closers.append(tracks_log.close)
    event_log = JsonLinesWriter(events) if events else None
    if event_log is not None:
        closers.append(event_log.close)

    tally = {"moves": 0, "not ok": 0, "doubtful": 0}

    def judge(result: FrameResult) -> None:
        for event in result.events:
            if event_log is not None:
                event_log.write(event.to_json())
        for ruling in feed.update(result):
            from tqdm import tqdm

            tally["moves"] += 1
            tally["not ok"] += ruling.ok is False
            tally["doubtful"] += ruling.ok is None
            tqdm.write(ruling.describe())
            if event_log is not None:
                event_log.write(ruling.to_json())

    subscribers.append(judge)
    if annotate:
        from referee.vision.annotate import Annotator

        annotator = Annotator(annotate, roster_value, feed.scene, frames.fps)
        subscribers.insert(0, annotator.write)
        closers.append(annotator.close)
    progress = not quiet and frames.frame_count is not None
    try:
        run_frames(frames, pipeline, subscribers, progress=progress)
    except KeyboardInterrupt:
        click.echo("referee: stopped", err=True)
    finally:
        for close in closers:
            close()
    click.echo(
        f"{tally['moves']} moves judged: {tally['not ok']} not ok, "
        f"{tally['doubtful']} too close to call",
        err=True,
    )


__all__ = ["JsonLinesWriter", "run", "track"]
