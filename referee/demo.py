"""``referee demo``: the whole referee on the bundled sample footage, end to end.

Calibrates the camera from ``sample_footage/skirmish/calibration.mp4`` (the
same code ``referee calibrate`` runs), tracks every piece through
``video.mp4``, prints each settled move with the Paper Tigers verdict on
it, and, when the footage's ground truth ``truth-moves.json`` is there,
how far the measured moves are from the true ones.

A footage folder with several cameras (``video-1.mp4``, ``video-2.mp4``... as
CLUB-CONTRACT.md) is refereed the same way: each camera calibrated from its own
``calibration-N.mp4`` (or its ``camera-N.json``), the cameras' frames matched by
time and fused into one game.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from referee.calibration.profile import CalibrationProfile, load_profile
from referee.club.sender import ClubTarget, club_options, finish
from referee.errors import RefereeError, read_json_file
from referee.game import SessionUpdate, drive, repo_footage
from referee.game.sources import footage_cameras
from referee.geometry import front_point
from referee.markers.roster import Roster, load_roster
from referee.outputs import VIDEO_SUFFIXES, output_file
from referee.session_cli import annotate_frame, check_log_path, log_options, open_log


def calibrate_from_clip(
    clip: Path, roster: Roster, table: Any, board: str | None = None
) -> CalibrationProfile:
    """Run the calibration on the footage's calibration clip.

    ``board`` is the board spec text; None reads it from the board's QR code
    (slower, and needs libzbar or OpenCV's QR reader to see it).
    """
    from referee.calibration.calibrate import calibrate_frames, iter_video
    from referee.tags.board import BoardSpec

    flats = [
        (p.tag, float(p.tag_size)) for p in roster if p.tag_height == 0 and p.tag_size is not None
    ]
    run = calibrate_frames(
        iter_video(clip),
        spec=BoardSpec.parse(board) if board else None,
        table=table,
        anchors=roster.anchors,
        marker_dictionary=roster.dictionary,
        flat_tags=flats,
    )
    return run.profile


def camera_profile(
    clip: Path, true_camera: Path, roster: Roster, folder: Path, use_true_camera: bool
) -> CalibrationProfile:
    """One camera's profile: calibrated from its clip, else its committed true profile."""
    profile: CalibrationProfile | None = None
    if not use_true_camera and clip.is_file():
        click.echo(f"calibrating from {clip} ...")
        try:
            reference = load_profile(true_camera) if true_camera.is_file() else None
            table = reference.table if reference else _table_from_scene(folder)
            # The board printed for this footage; a user passes it as 'referee calibrate --board'.
            board = reference.board if reference else None
            profile = calibrate_from_clip(clip, roster, table, board)
            rms = f"{profile.rms_px:.2f}px" if profile.rms_px is not None else "n/a"
            click.echo(
                f"  calibrated: reprojection RMS {rms} from {profile.views_used} views, "
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


def accuracy_summary(moves: list[Any], truth: dict[str, Any], roster: Roster) -> list[str]:
    """Lines comparing measured moves with the footage's true moves, matched in order per piece."""
    true_by_piece: dict[str, list[dict[str, Any]]] = {}
    for move in truth.get("moves", []):
        true_by_piece.setdefault(move["piece"], []).append(move)
    errors = []
    matched = 0
    for move in moves:
        queue = true_by_piece.get(move.piece)
        if not queue:
            continue
        true = queue.pop(0)
        entry = roster.by_id(move.piece)
        depth = entry.base[1] if entry else 0.0
        start, end = true["from"], true["to"]
        distance = math.dist(
            front_point(start["x"], start["y"], start["heading"], depth),
            front_point(end["x"], end["y"], end["heading"], depth),
        )
        errors.append(abs(move.front_distance - distance))
        matched += 1
    missed = sum(len(q) for q in true_by_piece.values())
    extra = len(moves) - matched
    lines = [
        f"accuracy vs truth-moves.json: {matched} of {matched + missed} true moves found, "
        f"{extra} extra"
    ]
    if errors:
        lines.append(
            f"  move distance error: mean {sum(errors) / len(errors):.3f}in, "
            f"max {max(errors):.3f}in"
        )
    return lines


def terrain_accuracy(
    edits: Sequence[Mapping[str, Any]], truth: Mapping[str, Any], roster: Roster
) -> list[str]:
    """The ``terrain placement error`` line: over every template and every placement in
    ``truth`` (``truth-terrain.json``), the largest distance between a vertex of the true
    placed outline and the same vertex of the polygon the referee logged for that placement
    (``edits``: the logged ``edit`` events' data in order, matched in order per template).
    A placement never logged, or one logged beyond the truth, is said on a line of its own.
    """
    logged: dict[str, list[Any]] = {}
    for edit in edits:
        terrain = edit.get("terrain")
        if edit.get("action") in ("add", "replace") and isinstance(terrain, Mapping):
            logged.setdefault(str(terrain.get("id")), []).append(terrain.get("polygon"))
    worst, found, missed, extra = 0.0, 0, 0, 0
    for true in truth.get("templates", []):
        template = roster.template(true["id"])
        polygons = logged.get(true["id"], [])
        placements = true["placements"]
        extra += max(len(polygons) - len(placements), 0)
        for placement, polygon in zip(placements, polygons, strict=False):
            if template is None:
                break
            placed = template.placed(placement["x"], placement["y"], placement["heading"])
            if not isinstance(polygon, list) or len(polygon) != len(placed):
                missed += 1
                continue
            found += 1
            worst = max(worst, *(math.dist(a, b) for a, b in zip(placed, polygon, strict=True)))
        missed += max(len(placements) - len(polygons), 0) + (
            len(placements) if template is None else 0
        )
    lines = [f"terrain placement error: max {worst:.3f}in"]
    if missed or extra:
        lines.append(
            f"  terrain placements: {found} of {found + missed} true placements logged, "
            f"{extra} extra"
        )
    return lines


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
@log_options
@club_options
def demo(
    footage: Path | None,
    annotate: str | None,
    use_true_camera: bool,
    db: str | None,
    game: str | None,
    no_log: bool,
    club_url: str | None = None,
    club_token: str | None = None,
) -> None:
    """Referee the bundled sample game: calibrate, track, judge every move, and log the game."""
    from referee.game import Session, game_name
    from referee.game.sources import check_same_resolution
    from referee.scene import load_scene
    from referee.vision.pipeline import Pipeline, check_profile_fits
    from referee.vision.sources import FrameSource, MultiSource, VideoFileSource

    # The outputs and the log's path are checked before anything is read or opened.
    if annotate is not None:
        output_file(annotate, "--annotate", VIDEO_SUFFIXES, "demo.mp4")
    check_log_path(db, no_log)
    folder = footage or repo_footage()
    cameras = footage_cameras(folder)
    video = cameras[0][0]
    if not video.is_file():
        raise RefereeError(
            f"{folder}: no sample footage here (video.mp4 missing); run the demo from a git "
            "checkout, or make it with 'referee simulate sample_footage/skirmish.scenario.json "
            "--out sample_footage/skirmish'"
        )
    started = time.monotonic()
    club = ClubTarget.from_options(club_url, club_token, logged=not no_log)
    roster = load_roster(folder / "roster.json")
    scene_path = folder / "scene.json"
    scene = load_scene(scene_path) if scene_path.is_file() else None
    truth_path = folder / "truth-moves.json"
    truth = _load_truth(truth_path) if truth_path.is_file() else None
    terrain_truth_path = folder / "truth-terrain.json"
    terrain_truth = (
        _load_terrain_truth(terrain_truth_path) if terrain_truth_path.is_file() else None
    )
    profiles = [
        camera_profile(clip, true_camera, roster, folder, use_true_camera)
        for _, clip, true_camera in cameras
    ]
    videos = [v for v, _, _ in cameras]
    opened: list[FrameSource] = []
    # The log is opened last, once the footage and profiles were read and checked.
    try:
        opened.extend(VideoFileSource(one) for one in videos)
        check_same_resolution(opened)
        for each, profile in zip(opened, profiles, strict=True):
            check_profile_fits(profile, each.frame_size or (0, 0), each.name)
        source = opened[0] if len(opened) == 1 else MultiSource(opened)
        log = open_log(db, no_log)
    except BaseException:
        for each in opened:
            each.close()
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
    click.echo(f"{len(moves)} moves, {flags} warnings, in {time.monotonic() - started:.1f}s")
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


def _load_truth(path: Path) -> dict[str, Any]:
    """The footage's true moves; a file that is not that is a one-line error."""
    data = read_json_file(path, "truth file", RefereeError, "re-run 'referee simulate'")
    moves = data.get("moves") if isinstance(data, dict) else None
    if not isinstance(moves, list) or not all(
        isinstance(m, dict)
        and isinstance(m.get("piece"), str)
        and all(
            isinstance(m.get(k), dict)
            and all(isinstance(m[k].get(c), (int, float)) for c in ("x", "y", "heading"))
            for k in ("from", "to")
        )
        for m in moves
    ):
        raise RefereeError(
            f"{path}: $.moves: must be a list of moves with piece, from and to poses; "
            "re-run 'referee simulate'"
        )
    return data


def _load_terrain_truth(path: Path) -> dict[str, Any]:
    """The footage's true template placements; a file that is not that is a one-line error."""
    data = read_json_file(path, "truth file", RefereeError, "re-run 'referee simulate'")
    templates = data.get("templates") if isinstance(data, dict) else None
    if not isinstance(templates, list) or not all(
        isinstance(t, dict)
        and isinstance(t.get("id"), str)
        and isinstance(t.get("placements"), list)
        and all(
            isinstance(p, dict)
            and all(
                isinstance(p.get(c), (int, float)) and not isinstance(p.get(c), bool)
                for c in ("x", "y", "heading")
            )
            for p in t["placements"]
        )
        for t in templates
    ):
        raise RefereeError(
            f"{path}: $.templates: must be a list of templates with id and placements "
            "(x, y, heading); re-run 'referee simulate'"
        )
    return data


def _table_from_scene(folder: Path) -> Any:
    from referee.calibration.profile import TableSize
    from referee.scene import load_scene

    scene = load_scene(folder / "scene.json")
    return TableSize(scene.table.width, scene.table.depth, scene.table.inch_mm)
