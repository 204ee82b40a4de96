"""The game's commands: ``referee track``, ``referee run`` and ``referee demo``.

Each drives one :class:`~referee.game.Session` over a frame source with
:func:`referee.game.drive` (``serve`` uses the same loop): ``track`` writes the tracks
file, ``run`` prints every settled move with its verdicts and keeps the game in the log,
and ``demo`` does the whole referee on a footage folder (the bundled sample by
default): each camera calibrated from its clip (the same code ``referee calibrate``
runs), every piece tracked, each settled move printed with its verdict and, where the
footage has its ground truth, how far the measured moves are from the true ones.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from referee.club.sender import ClubChoice, ClubTarget, club_options, finish
from referee.commands import gathered
from referee.errors import RefereeError, counted
from referee.game import (
    Session,
    SessionUpdate,
    check_log_path,
    drive,
    game_name,
    open_log,
    repo_footage,
    source_key,
    warn,
)
from referee.game.options import (
    Cameras,
    Capture,
    Inputs,
    JsonLinesWriter,
    LogChoice,
    Outputs,
    RulesChoice,
    annotate_frame,
    camera_profile,
    close_outputs,
    describe_answer,
    describe_logged,
    distinct_outputs,
    inputs_options,
    log_options,
    numbered,
    open_game_inputs,
    print_flags,
    source_options,
)
from referee.game.sources import footage_cameras, load_game_roster, load_profiles, open_cameras
from referee.markers.roster import load_roster
from referee.media import MAX_CAMERA_INDEX
from referee.outputs import VIDEO_SUFFIXES, output_file
from referee.sim.accuracy import accuracy_summary, load_terrain_truth, load_truth, terrain_accuracy
from referee.store import default_db_path
from referee.vision.pipeline import Pipeline


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
@gathered("capture", Capture, {"width": "width", "height": "height", "fps": "fps"})
def track(
    source: tuple[str, ...],
    inputs: Inputs,
    out: str,
    events: str | None,
    max_frames: int | None,
    capture: Capture,
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
    calibration, roster = inputs.calibration, inputs.roster
    width, height, fps = capture.width, capture.height, capture.fps
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
        close_outputs(writers, True, frames)  # the user stopped it: what was tracked is whole
        click.echo(f"referee: interrupted; the frames up to here are in {out}", err=True)
        raise SystemExit(130) from None
    except RefereeError as error:
        close_outputs(writers, False, frames)
        if tracks.partial.exists():
            raise RefereeError(
                f"{error} (the frames tracked so far are in {tracks.partial})"
            ) from None
        raise
    close_outputs(writers, True, frames)
    click.echo(f"tracked {counted(count, 'frame')}, {counted(moves, 'move')} -> {out}", err=True)


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
@gathered("cameras", Cameras, {n: n for n in ("camera", "video", "width", "height")})
@gathered("rules", RulesChoice, {"scene": "scene", "ruleset": "ruleset"})
@gathered("outputs", Outputs, {"annotate": "annotate", "tracks": "tracks", "events": "events"})
def run(
    cameras: Cameras,
    inputs: Inputs,
    rules: RulesChoice,
    log_choice: LogChoice,
    outputs: Outputs,
    quiet: bool,
    club_choice: ClubChoice,
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
    camera, video, width, height = cameras.camera, cameras.video, cameras.width, cameras.height
    calibration, roster, scene, ruleset = (
        inputs.calibration,
        inputs.roster,
        rules.scene,
        rules.ruleset,
    )
    db, game, no_log = log_choice.db, log_choice.game, log_choice.no_log
    annotate, tracks, events = outputs.annotate, outputs.tracks, outputs.events
    from referee.scene import load_scene

    specs = source_options(camera, video)
    club = ClubTarget.from_options(club_choice.url, club_choice.token, logged=not no_log)
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
        log = open_log(db, no_log, log_choice.evidence)
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
            line = describe_logged(logged)
            if line is not None:
                tqdm.write(line)

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


def _projector_demo(folder: Path) -> None:
    """The projector measurement on the scenario a footage folder was simulated from."""
    from referee.game.overlay_trial import tracked_game
    from referee.sim.projector_trial import projector_trial

    scenario = folder.parent / f"{folder.name}.scenario.json"
    if not scenario.is_file():
        raise RefereeError(
            f"{folder}: --projector simulates the game afresh and needs the scenario it was "
            f"made from ({scenario} is missing)"
        )
    started = time.monotonic()
    trial = projector_trial(scenario)
    for line in trial.lines():
        click.echo(line)
    click.echo(
        f"({trial.frames} frames, {trial.wrong_on} wrong ids with the overlay on, "
        f"{trial.wrong_off} off; projector fit held-out p95 {trial.fit.held_out_p95_in:.3f}in)"
    )
    # Then the whole game through the real tracker, with the overlay drawn and without.
    game = tracked_game(scenario, trial.fit, progress=True)
    for line in game.lines():
        click.echo(line)
    click.echo(f"({game.frames} frames tracked twice; in {time.monotonic() - started:.1f}s)")


@click.command()
@click.option(
    "--footage",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Footage folder (default: sample_footage/skirmish in this checkout).",
)
@click.option(
    "--annotate",
    metavar="OUT.mp4",
    help="Also write the annotated video here (several cameras: side by side in one file).",
)
@click.option(
    "--use-true-camera",
    is_flag=True,
    help="Skip calibration and use the footage's true camera.json.",
)
@click.option(
    "--projector",
    is_flag=True,
    help="Instead: simulate a projector over the sample's game (issue 39), calibrate it "
    "through the camera, draw lines between the pieces with every tag kept dark, and print "
    "the placement error and the tag recall with the overlay on and off (nothing is logged).",
)
@log_options
@club_options
def demo(
    footage: Path | None,
    annotate: str | None,
    use_true_camera: bool,
    projector: bool,
    log_choice: LogChoice,
    club_choice: ClubChoice,
) -> None:
    """Referee the bundled sample game: calibrate, track, judge every move, and log the game."""
    if projector:
        if annotate is not None:
            raise click.UsageError("--projector draws no annotated video; drop --annotate")
        _projector_demo(footage or repo_footage())
        return
    db, game, no_log = log_choice.db, log_choice.game, log_choice.no_log
    from referee.game import Session, game_name
    from referee.game.sources import open_videos
    from referee.scene import load_scene
    from referee.vision.pipeline import Pipeline

    # The outputs and the log's path are checked before anything is read or opened.
    if annotate is not None:
        output_file(annotate, "--annotate", VIDEO_SUFFIXES, "demo.mp4")
    check_log_path(db, no_log)
    folder = footage or repo_footage()
    cameras = footage_cameras(folder)
    video = cameras[0][0]
    if not video.is_file() and footage is not None:
        raise RefereeError(
            f"{folder}: no footage here ({video.name} missing); give a folder that "
            "'referee simulate ... --out DIR' wrote, such as sample_footage/club"
        )
    if not video.is_file():
        raise RefereeError(
            f"{folder}: no sample footage here (video.mp4 missing); run the demo from a git "
            "checkout, or make it with 'referee simulate sample_footage/skirmish.scenario.json "
            "--out sample_footage/skirmish'"
        )
    started = time.monotonic()
    club = ClubTarget.from_options(club_choice.url, club_choice.token, logged=not no_log)
    roster = load_roster(folder / "roster.json")
    scene_path = folder / "scene.json"
    scene = load_scene(scene_path) if scene_path.is_file() else None
    truth_path = folder / "truth-moves.json"
    truth = load_truth(truth_path) if truth_path.is_file() else None
    terrain_truth_path = folder / "truth-terrain.json"
    terrain_truth = load_terrain_truth(terrain_truth_path) if terrain_truth_path.is_file() else None
    profiles = [
        camera_profile(clip, true_camera, roster, folder, use_true_camera)
        for _, clip, true_camera in cameras
    ]
    videos = [v for v, _, _ in cameras]
    source = open_videos(videos, profiles)
    # The log is opened last, once the footage and profiles were read and checked.
    try:
        log = open_log(db, no_log, log_choice.evidence)
    except BaseException:
        source.close()
        raise
    name = game or game_name("demo")
    session = Session.start(
        Pipeline(profiles, roster, source_name=[str(v) for v in videos]),
        scene,
        log=log,
        game=name,
        source=" + ".join(str(v.resolve()) for v in videos),
    )
    annotator = None
    if annotate:
        from referee.vision.annotate import Annotator

        annotator = Annotator(annotate, roster, session.scene, source.fps)
    shown = (
        video
        if len(videos) == 1
        else f"{len(videos)} cameras ({', '.join(v.name for v in videos)})"
    )
    click.echo(f"refereeing {shown} ({source.frame_count} frames, {source.fps:g} fps):")
    moves: list[Any] = []
    edits: list[Mapping[str, Any]] = []
    flags = 0
    sender = club.start(log.path, name) if club is not None and log is not None else None

    def show(update: SessionUpdate) -> None:
        nonlocal flags
        assert update.result is not None
        if annotator is not None:
            annotate_frame(annotator, update)
        for ruling in update.rulings:
            click.echo(ruling.describe())
            moves.append(ruling.move)
        for event in update.events:
            if event.type == "edit":
                edits.append(event.data)
            if event.type in ("flag", "camera"):
                flags += 1
                click.echo(f"  ! {event.data.get('message')}", err=True)

    complete = False
    try:
        drive(session, source, progress=False, on_update=show)
        complete = True
    finally:
        source.close()
        session.close()
        if annotator is not None:
            annotator.close(complete)
        if log is not None:
            finish(sender, log.path)
            log.close()
    took = time.monotonic() - started
    click.echo(f"{counted(len(moves), 'move')}, {counted(flags, 'warning')}, in {took:.1f}s")
    if truth is not None:
        for line in accuracy_summary(moves, truth, roster):
            click.echo(line)
    if terrain_truth is not None:
        for line in terrain_accuracy(edits, terrain_truth, roster):
            click.echo(line)
    if annotate:
        click.echo(f"annotated video: {annotate}")
    if log is not None:
        click.echo(f"game log: {log.path} (game {name!r}; 'referee log show {name}' replays it)")
    sys.stdout.flush()
