"""``referee calibrate``: a camera, video or image folder in, a calibration profile out."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import cv2
import numpy as np

from referee.calibration.calibrate import (
    CalibrationRun,
    Frame,
    Verdict,
    calibrate_frames,
    image_files,
    iter_folder,
    iter_video,
    read_image,
)
from referee.calibration.profile import MAX_TABLE_IN, TableSize
from referee.commands import gathered
from referee.errors import RefereeError, SourceError, counted, warn
from referee.media import camera_index, quiet_libraries
from referee.outputs import output_file, usable_path
from referee.tags.anchors import AnchorTag
from referee.tags.board import BoardSpec, parse_pair
from referee.tags.layout import DEFAULT_DICTIONARY
from referee.validate import number


def _table_size(text: str, inch_mm: float) -> TableSize:
    try:
        width, depth = parse_pair(text)
    except ValueError:
        raise RefereeError(
            f"--table {text!r}: give WIDTHxDEPTH in game inches, e.g. 48x36"
        ) from None
    for value in (width, depth):
        number(value, f"--table {text!r}", positive=True, maximum=MAX_TABLE_IN)
    try:
        return TableSize(width, depth, inch_mm)
    except ValueError as error:
        raise RefereeError(f"--table {text!r}: {error}") from None


def _camera_frames(index: int, duration: float, every_s: float) -> Iterator[Frame]:
    """Live frames for ``duration`` seconds (or until Ctrl-C); the last one is the table view."""
    with quiet_libraries():
        capture = cv2.VideoCapture(index)
    if not capture.isOpened():
        raise SourceError(f"camera {index}: cannot open it (unplugged, busy, or no permission)")
    click.echo(
        f"camera {index}: move the board around the view for {duration:.0f} s, then lay it "
        "flat on the table until the end (Ctrl-C stops early)",
        err=True,
    )
    start = next_sample = time.monotonic()
    last = None
    count = 0
    try:
        while time.monotonic() - start < duration:
            ok, image = capture.read()
            if not ok:
                raise SourceError(f"camera {index}: stopped delivering frames")
            last = Frame(f"frame {count}", image)
            count += 1
            if time.monotonic() >= next_sample:
                next_sample += every_s
                yield last
                last = None
    except KeyboardInterrupt:
        pass
    finally:
        capture.release()
    if last is not None:
        yield last


def _anchors_from_roster(path: Path) -> tuple[str, tuple[AnchorTag, ...], list[tuple[int, float]]]:
    from referee.markers.roster import load_roster

    roster = load_roster(path)
    flats = [
        (p.tag, float(p.tag_size)) for p in roster if p.tag_height == 0 and p.tag_size is not None
    ]
    return roster.dictionary, tuple(roster.anchors), flats


def _report(run: CalibrationRun, out: Path) -> None:
    sol = run.solution
    intr = sol.intrinsics
    click.echo(f"{'view':<28} {'error px':>9}")
    for name, error in zip(sol.used, sol.view_errors_px, strict=True):
        flag = "  <- worst" if error == max(sol.view_errors_px) and len(sol.used) > 1 else ""
        click.echo(f"{name:<28} {error:>9.3f}{flag}")
    for name, error in sol.dropped:
        click.echo(f"{name:<28} {error:>9.3f}  dropped (outlier)")
    click.echo(
        f"RMS {sol.rms_px:.3f} px over {counted(len(sol.used), 'view')} "
        f"({counted(run.views_seen, 'frame')} examined; rejected: "
        + (", ".join(f"{n} {r}" for r, n in run.rejected) or "none")
        + ")"
    )
    click.echo(
        f"fx {intr.fx:.1f}  fy {intr.fy:.1f}  cx {intr.cx:.1f}  cy {intr.cy:.1f}  "
        f"distortion {np.array2string(intr.distortion, precision=4, separator=', ')}"
    )
    if sol.held_out_px:
        scores = ", ".join(f"{name} {error:.3f}" for name, error in sol.held_out_px)
        click.echo(
            f"lens model: {sol.lens_model} (chosen by the error on views left out of the "
            f"fit, px: {scores})"
        )
    else:
        click.echo(f"lens model: {sol.lens_model} (too few views to leave any out)")
    click.echo(
        f"coverage: {run.guidance}; the board's corners span {run.picture_coverage:.0%} of "
        "the picture"
    )
    if run.table is None:
        click.echo(
            f"table: the table view ({run.table_view}) shows neither the board lying flat nor "
            "three anchors; frame 'manual' (set it in the dashboard)"
        )
    else:
        fix = run.table
        source = (
            f"anchors {', '.join(map(str, fix.anchors_seen))}"
            if fix.frame_source == "anchors"
            else "the board's origin corner (provisional)"
        )
        extra = f", refined with {fix.flat_tags_used} flat tags" if fix.flat_tags_used else ""
        click.echo(
            f"table: plane from view {run.table_view}, frame from {source}{extra}; "
            f"fit {fix.rms_px:.3f} px"
        )
    click.echo(f"wrote {out}")


def _warn_table_out_of_view(run: CalibrationRun) -> None:
    """Say when the table given is larger than the camera sees (likely a wrong --table).

    Only a warning: a camera may legitimately see part of a big table.
    """
    off = run.corners_out_of_view
    if not off:
        return
    table, (width, height) = run.profile.table, run.profile.intrinsics.image_size
    shown = [f"({x:g}, {y:g})" for x, y in off]
    others = f" (so do {', '.join(shown[1:])})" if shown[1:] else ""
    board = (
        ", or that the board's origin corner lies in the table's corner"
        if run.profile.frame_source == "board"
        else ""
    )
    warn(
        f"table corner {shown[0]} of a {table.width:g}x{table.depth:g}in table lies far "
        f"outside the camera's {width}x{height} view{others}; if the camera should see the "
        f"whole table, check --table (the table's size in game inches){board}"
    )


@dataclass(frozen=True)
class TableGiven:
    """``--table WxD`` as typed, and ``--inch-mm`` (the length of an inch on this table)."""

    text: str
    inch_mm: float


@dataclass(frozen=True)
class Sampling:
    """How the calibration clip's views are picked: ``--every`` seconds, ``--duration`` of a
    live camera's recording, ``--min-sharpness`` of a view's board."""

    every_s: float
    duration: float
    min_sharpness: float


@click.command()
@click.argument("source", nargs=-1, required=True)
@click.option(
    "--out",
    "out",
    required=True,
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Profile file to write (only written when calibration succeeds); one per SOURCE, "
    "in the same order.",
)
@click.option(
    "--board",
    "board",
    default=None,
    metavar="SPEC",
    help="Board spec, e.g. charuco:5x7:0.03m:0.021m:DICT_6X6_250 (default: recognise the "
    "printed board, or read its QR code).",
)
@click.option(
    "--table",
    "table_text",
    default="48x36",
    show_default=True,
    metavar="WxD",
    help="Table size in game inches.",
)
@click.option(
    "--inch-mm", type=float, default=25.4, show_default=True, help="Millimetres per game inch."
)
@click.option(
    "--anchors",
    "roster_path",
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="ROSTER",
    help="Roster giving anchor positions (and flat tags that refine the table plane).",
)
@click.option(
    "--table-image",
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Photo with the board lying flat (and/or the anchors) that defines the table; "
    "default: the source's final frame.",
)
@click.option(
    "--every",
    "every_s",
    type=float,
    default=0.2,
    show_default=True,
    help="Video/camera: seconds between sampled frames.",
)
@click.option(
    "--duration", type=float, default=60.0, show_default=True, help="Camera: seconds to record."
)
@click.option(
    "--min-sharpness",
    type=float,
    default=30.0,
    show_default=True,
    help="Reject views whose board scores lower (variance of the Laplacian).",
)
@gathered("table_given", TableGiven, {"table_text": "text", "inch_mm": "inch_mm"})
@gathered("sampling", Sampling, {n: n for n in ("every_s", "duration", "min_sharpness")})
def calibrate(
    source: tuple[str, ...],
    out: tuple[Path, ...],
    board: str | None,
    table_given: TableGiven,
    roster_path: Path | None,
    table_image: Path | None,
    sampling: Sampling,
) -> None:
    """Calibrate a camera and locate the table from SOURCE (camera index, video or image folder).

    Show the ChArUco board at many positions and angles, covering the whole
    image, then lay it flat on the table: the final frame (or --table-image)
    defines the table plane. Corner anchor tags in that view fix the table
    frame; without them the board's origin corner is the table's origin.

    Several cameras over one table: give each camera's SOURCE and repeat --out, paired in
    order; each camera is calibrated on its own (its lens, then its table pose from the
    anchors it sees: a table over 48 in has six, so a camera seeing part of it finds 3-4).
    """
    table_text, inch_mm = table_given.text, table_given.inch_mm
    every_s, duration, min_sharpness = sampling.every_s, sampling.duration, sampling.min_sharpness
    if len(out) != len(source):
        raise RefereeError(
            f"{len(source)} SOURCE{'s' if len(source) != 1 else ''} and {len(out)} --out: "
            "give one profile file per camera, in the same order"
        )
    if len(source) > 1 and table_image is not None:
        raise RefereeError("--table-image goes with one SOURCE (each camera's own table view)")
    written: dict[Path, Path] = {}
    for path in out:
        output_file(path, "--out")
        if path.resolve() in written:
            raise RefereeError(f"--out {path} is given twice: each camera needs its own profile")
        written[path.resolve()] = path
    number(
        every_s,
        "--every",
        positive=True,
        maximum=3600.0,
        hint="give the seconds between sampled frames, e.g. 0.2",
    )
    number(
        duration,
        "--duration",
        positive=True,
        maximum=86400.0,
        hint="give the seconds to record, e.g. 60",
    )
    number(min_sharpness, "--min-sharpness", minimum=0.0, maximum=1e6, hint="e.g. 30")
    number(
        inch_mm,
        "--inch-mm",
        minimum=1.0,
        maximum=100.0,
        hint="give millimetres per game inch, e.g. 25.4",
    )
    spec = None
    if board is not None:
        try:
            spec = BoardSpec.parse(board)
        except ValueError as error:
            raise RefereeError(f"--board: {error}") from None
    table = _table_size(table_text, inch_mm)
    dictionary = DEFAULT_DICTIONARY
    anchors: tuple[AnchorTag, ...] = ()
    flats: list[tuple[int, float]] = []
    if roster_path is not None:
        dictionary, anchors, flats = _anchors_from_roster(roster_path)
    for index, (one, target) in enumerate(zip(source, out, strict=True)):
        if len(source) > 1:
            click.echo(f"camera {index + 1} of {len(source)}: {one}")
        _calibrate_one(
            one,
            target,
            spec,
            table,
            dictionary,
            anchors,
            flats,
            table_image,
            every_s,
            duration,
            min_sharpness,
            whole_table=len(source) == 1,
        )


def _calibrate_one(
    source: str,
    out: Path,
    spec: BoardSpec | None,
    table: TableSize,
    dictionary: str,
    anchors: tuple[AnchorTag, ...],
    flats: list[tuple[int, float]],
    table_image: Path | None,
    every_s: float,
    duration: float,
    min_sharpness: float,
    whole_table: bool,
) -> None:
    """One camera's profile: its lens, then its table pose (see :func:`calibrate`)."""
    path = usable_path(source, "SOURCE")
    total: int | None = None
    if source.isascii() and source.isdigit() and not path.exists():
        index = camera_index(source, "camera")
        frames: Iterator[Frame] = _camera_frames(index, duration, every_s)
    elif path.is_dir():
        files = image_files(path)
        if not files:
            raise SourceError(f"{source}: the folder has no images (.png, .jpg, ...)")
        total = len(files)
        frames = iter_folder(path)
    elif path.is_file():
        frames = iter_video(path, every_s)
    else:
        raise SourceError(f"{source}: no such camera, video or image folder")
    table_frame = None if table_image is None else Frame(table_image.name, read_image(table_image))

    from referee.runtime import StageLines, progress

    bar = progress(total=total, unit="view", desc="calibrate")
    said = {"guidance": "", "stage": ""}
    # Piped, a stage is one line when it ends (its last advice in it): no advice lines between.
    advise = total is None and not isinstance(bar, StageLines)

    def on_frame(count: int, stage: str) -> None:
        # Progress while frames are read, before any view is judged (finding the board).
        if stage != said["stage"]:
            said["stage"] = stage
            bar.set_description(f"calibrate: {stage}")
        bar.set_postfix_str(f"{counted(count, 'frame')} read", refresh=True)

    def on_verdict(verdict: Verdict) -> None:
        bar.update(1)
        bar.set_postfix_str(f"last: {verdict.reason}; {verdict.guidance}")
        # "12 views; no corners yet near ...": the count changes every view, the advice not.
        advice = verdict.guidance.partition("; ")[2] or verdict.guidance
        if advise and advice != said["guidance"]:
            # Live or video on a terminal: say where the board should go next, once per change.
            said["guidance"] = advice
            bar.write(f"calibrate: {advice}", file=sys.stderr)

    try:
        run = calibrate_frames(
            frames,
            spec=spec,
            table=table,
            anchors=anchors,
            marker_dictionary=dictionary,
            flat_tags=flats,
            table_image=table_frame,
            on_verdict=on_verdict,
            on_frame=on_frame,
            min_sharpness=min_sharpness,
        )
    finally:
        bar.close()
    try:
        run.profile.save(out)
    except OSError as error:
        raise RefereeError(
            f"{out}: cannot write the profile ({error.strerror}); choose another --out"
        ) from None
    _report(run, out)
    if run.fit_warning is not None:
        warn(run.fit_warning)
    if whole_table:  # one of several cameras sees part of the table, as it should
        _warn_table_out_of_view(run)
