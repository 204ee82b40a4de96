"""Turn a scenario into footage and ground-truth files (what ``referee simulate`` writes).

Output directory::

    video.mp4          the game (mp4v; or video/frame_000000.jpg... with --images)
    calibration.mp4    a ChArUco board held at varied angles, then lying flat (last ~1.5 s)
    roster.json        which tag is on which piece (+ anchors, + terrain templates)
    scene.json         the scene at the START positions (ruleset, terrain, queries)
    camera.json        the true calibration profile (frame_source "simulated")
    truth.jsonl        per video frame: every piece's true pose and tag corners
    truth-moves.json   the settled moves: piece, from, to, start/end frame
    truth-terrain.json where each terrain template lay, and when it was moved (if any)
    truth-events.json  pieces carried off and brought on (if any): removed / entered

A piece off the table (carried off, or not brought on yet) has a truth line with
``"on_table": false``, where it is off the table, and no ``corners_px``.

With several cameras the per-camera files are numbered from 1 (``video-1.mp4``,
``calibration-1.mp4``, ``camera-1.json``, ``truth-1.jsonl``, ...): frame k of
every video is taken at time k/fps.

Everything is a pure function of the scenario (seeded), so regenerating
gives byte-identical JSON files.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import secrets
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import pixels_to_table, rotation_matrix
from referee.errors import RefereeError, write_json_atomic
from referee.runtime import progress as bar_of
from referee.sim.imaging import Imager, compose_rolling
from referee.sim.render import (
    BoardPlacement,
    Look,
    PaperTemplate,
    PiecePose,
    TableRenderer,
    TagTruth,
)
from referee.sim.scenario import FrameState, Imaging, Scenario
from referee.tags.board import BoardSpec

Image = NDArray[np.uint8]

#: How far past the table's edge (inches) a camera of several holds its calibration board.
BOARD_PAST_EDGE_IN = 4.0

#: A camera tilted more than this (degrees) looks across the table, not down on it.
OBLIQUE_DEG = 10.0

#: Sub-frames averaged over the exposure when something moves.
MOTION_SAMPLES = 3
#: Moments of a rolling shutter's readout rendered when something moves.
ROLLING_SAMPLES = 4


class OutputError(RefereeError):
    """The output directory or video file cannot be written."""


@dataclass(frozen=True)
class SimulationResult:
    out_dir: Path
    frames: int
    calibration_frames: int
    files: tuple[str, ...]


class _Renderers:
    """One renderer per pose of one camera (a bump moves it); backgrounds cached."""

    def __init__(self, scenario: Scenario, camera: int = 0) -> None:
        self.scenario = scenario
        self.camera = camera
        self._cache: dict[tuple[tuple[str, float], ...], TableRenderer] = {}

    def bump(self, state: FrameState) -> Mapping[str, float]:
        """This camera's bump in ``state``."""
        return state.camera_bumps[self.camera] if state.camera_bumps else state.bump

    def get(self, bump: Mapping[str, float]) -> TableRenderer:
        key = tuple(sorted(bump.items()))
        if key not in self._cache:
            s = self.scenario
            camera = s.all_cameras[self.camera]
            self._cache[key] = TableRenderer(
                camera.intrinsics,
                camera.pose(bump),
                s.table,
                s.roster.pieces,
                s.terrain_shapes,
                s.roster.anchors,
                s.roster.dictionary,
                s.tag_size,
                Look(seed=s.seed),
                tuple(t.paper for t in s.templates),
            )
        return self._cache[key]


DIGITS = 12
"""Significant digits of every float in the JSON files ``simulate`` writes. The last
digits of a float depend on the CPU's maths (a camera pose came out
``-23.793437096093875`` on one machine, ``-23.79343709609388`` on another), so the
files carry fewer, far below any distance the referee reports (1e-12 of 72 in), and the
committed samples are checked against a regeneration within that precision."""


def fixed_precision(data: Any) -> Any:
    """``data`` (JSON values) with each float rounded to :data:`DIGITS` significant digits.

    >>> fixed_precision({"tvec": [-23.793437096093875, 2, 0.1 + 0.2], "id": "t34"})
    {'tvec': [-23.7934370961, 2, 0.3], 'id': 't34'}
    """
    if isinstance(data, float):
        return float(f"{data:.{DIGITS}g}") if math.isfinite(data) else data
    if isinstance(data, dict):
        return {key: fixed_precision(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [fixed_precision(value) for value in data]
    return data


def frame_time(frame: int, fps: float) -> float:
    """Seconds at which video frame ``frame`` (counted from 0) is exposed.

    >>> frame_time(24, 12.0)
    2.0
    """
    return frame / fps


def render_state(
    scenario: Scenario, renderers: _Renderers, state: FrameState
) -> tuple[Image, dict[str, TagTruth]]:
    """A clean frame for ``state``; with motion blur, sub-frames over half a frame period.

    With a rolling shutter something moving is rendered at :data:`ROLLING_SAMPLES`
    moments of the readout and the rows joined (:func:`compose_rolling`); the
    blend between neighbouring moments stands in for motion blur. The truth is
    the frame's moment (the middle row's).
    """
    renderer = renderers.get(renderers.bump(state))
    readout = _imaging_of(scenario, renderers.camera).rolling_shutter
    if readout and (state.moving or state.hands):
        subframes = []
        for k in range(ROLLING_SAMPLES):
            moment = state.t + readout * (k / (ROLLING_SAMPLES - 1) - 0.5)
            sub = scenario.state_at(moment)
            image, _ = renderers.get(renderers.bump(sub)).render(
                sub.poses, sub.hands, moving=state.moving | sub.moving, templates=sub.templates
            )
            subframes.append(image)
        return compose_rolling(subframes), renderer.truth(state.poses, state.hands)
    frame, truth = renderer.render(
        state.poses, state.hands, moving=state.moving, templates=state.templates
    )
    if _imaging_of(scenario, renderers.camera).motion_blur and (state.moving or state.hands):
        exposure = 0.5 / scenario.fps
        acc = frame.astype(np.float32)
        for k in (-1, 1):
            sub = scenario.state_at(state.t + k * exposure / 2)
            acc += renderers.get(renderers.bump(sub)).render(
                sub.poses, sub.hands, moving=state.moving, templates=sub.templates
            )[0]
        frame = np.clip(acc / MOTION_SAMPLES + 0.5, 0, 255).astype(np.uint8)
    return frame, truth


def truth_record(
    scenario: Scenario,
    frame: int,
    state: FrameState,
    truth: Mapping[str, TagTruth],
    papers: Mapping[str, list[TagTruth]] | None = None,
    bump: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """One line of ``truth.jsonl``: ``papers`` the templates' tag truths, ``bump`` this camera's."""
    pieces = []
    for entry in scenario.roster.pieces:
        if entry.id not in state.poses:
            pieces.append(_absent_record(scenario, entry.id, entry.tag, state.t))
            continue
        pose = state.poses[entry.id]
        tag = truth[entry.id]
        pieces.append(
            {
                "id": entry.id,
                "tag": entry.tag,
                "x": round(pose.x, 6),
                "y": round(pose.y, 6),
                "heading": round(pose.heading % 360.0, 6),
                "lift": round(pose.lift, 6),
                "moving": entry.id in state.moving,
                "corners_px": np.round(tag.corners_px, 4).tolist(),
                "in_view": tag.in_view,
                "covered": tag.covered,
                "visible": tag.visible,
            }
        )
    record: dict[str, Any] = {"frame": frame, "t": round(state.t, 6), "pieces": pieces}
    if scenario.templates:
        record["templates"] = [
            _template_record(spec.paper, state, (papers or {}).get(spec.paper.id, []))
            for spec in scenario.templates
        ]
    bump = state.bump if bump is None else bump
    if bump:
        record["camera_bump"] = dict(sorted(bump.items()))
    record["hands"] = len(state.hands)
    return record


def _absent_record(scenario: Scenario, pid: str, tag: int, t: float) -> dict[str, Any]:
    """A piece off the table (carried off, or not yet brought on): where it is, never seen."""
    pose = scenario.start_poses()[pid]
    for removal in scenario.removals:
        if removal.piece == pid and t >= removal.t:
            pose = removal.to
    for entry in scenario.entries:
        if entry.piece == pid and entry.origin is not None:
            pose = entry.origin
    return {
        "id": pid,
        "tag": tag,
        "x": round(pose.x, 6),
        "y": round(pose.y, 6),
        "heading": round(pose.heading % 360.0, 6),
        "lift": 0.0,
        "moving": False,
        "on_table": False,
        "in_view": False,
        "covered": 0.0,
        "visible": False,
    }


def _template_record(
    paper: PaperTemplate, state: FrameState, tags: list[TagTruth]
) -> dict[str, Any]:
    pose = state.templates[paper.id]
    return {
        "id": paper.id,
        "terrain": paper.kind,
        "x": round(pose.x, 6),
        "y": round(pose.y, 6),
        "heading": round(pose.heading % 360.0, 6),
        "moving": paper.id in state.moving,
        "tags": [
            {
                "tag": place.tag,
                "corners_px": np.round(tag.corners_px, 4).tolist(),
                "in_view": tag.in_view,
                "covered": tag.covered,
                "visible": tag.visible,
            }
            for place, tag in zip(paper.tags, tags, strict=True)
        ],
    }


def _move_frames(scenario: Scenario, t: float, duration: float) -> tuple[int, int]:
    """First frame the thing has left, first frame it is at rest again."""
    start_frame = math.floor(t * scenario.fps + 1e-9) + 1
    end_frame = math.ceil((t + duration) * scenario.fps - 1e-9)
    return start_frame, end_frame


def true_moves(scenario: Scenario) -> list[dict[str, Any]]:
    """The settled piece moves, with the video frames where each starts and ends."""
    poses = scenario.start_poses()
    out = []
    for move in scenario.moves:
        if move.piece not in poses:
            continue  # a terrain template: truth-terrain.json
        start = poses[move.piece]
        start_frame, end_frame = _move_frames(scenario, move.t, move.duration)
        out.append(
            {
                "piece": move.piece,
                "from": _pose_json(start),
                "to": _pose_json(move.to),
                "start_frame": start_frame,
                "end_frame": end_frame,
                "start_t": move.t,
                "end_t": round(move.t + move.duration, 6),
                "hand": move.hand,
            }
        )
        poses[move.piece] = move.to
    return out


def true_terrain(scenario: Scenario) -> dict[str, Any]:
    """``truth-terrain.json``: each template's placements, at rest, with the frames of each move."""
    templates = []
    for spec in scenario.templates:
        start = spec.start
        placements = [{**_pose_json(start), "start_frame": 0, "end_frame": 0}]
        for move in scenario.moves:
            if move.piece == spec.paper.id:
                start_frame, end_frame = _move_frames(scenario, move.t, move.duration)
                placements.append(
                    {**_pose_json(move.to), "start_frame": start_frame, "end_frame": end_frame}
                )
        templates.append(
            {"id": spec.paper.id, "terrain": spec.paper.kind, "placements": placements}
        )
    return {"fps": scenario.fps, "frames": scenario.frame_count, "templates": templates}


def _pose_json(pose: PiecePose) -> dict[str, float]:
    return {"x": round(pose.x, 6), "y": round(pose.y, 6), "heading": round(pose.heading, 6)}


def seen_region(
    scenario: Scenario, camera: int = 0, inner: float = 0.9, margin: float = 0.0
) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1): the part of the table one camera sees.

    ``inner`` is the fraction of the image counted (0.9: its inner 90%);
    ``margin`` lets the region run that many inches past the table's edges.
    """
    spec = scenario.all_cameras[camera]
    width, height = spec.intrinsics.image_size
    lo, hi = (1 - inner) / 2, (1 + inner) / 2
    us, vs = np.meshgrid(np.linspace(lo, hi, 19) * width, np.linspace(lo, hi, 11) * height)
    xy = pixels_to_table(spec.intrinsics, spec.pose(), np.column_stack([us.ravel(), vs.ravel()]))
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    w, d = scenario.table.width, scenario.table.depth
    if len(xy) == 0:
        return (0.0, 0.0, w, d)
    x0, y0 = np.clip(xy.min(axis=0), -margin, [w + margin, d + margin])
    x1, y1 = np.clip(xy.max(axis=0), -margin, [w + margin, d + margin])
    if x1 - x0 < 1 or y1 - y0 < 1:
        return (0.0, 0.0, w, d)
    return (float(x0), float(y0), float(x1), float(y1))


def calibration_views(scenario: Scenario, camera: int = 0) -> list[tuple[float, BoardPlacement]]:
    """(seconds, board placement) keyframes: held views, then lying flat on the table.

    With one camera the views spread over the middle of the table; with
    several, over all that ``camera`` sees of it and a little past its edges,
    as ``referee calibrate`` asks (the board over the whole picture): a lens
    fitted from the middle of the picture only is a few hundredths of an inch
    off at the table's edges, where the anchors and the seam's pieces are.
    """
    plan = scenario.calibration
    spec = BoardSpec.parse(plan.board)
    inch_mm = scenario.table.inch_mm
    square = spec.square_in(inch_mm)
    bw, bh = spec.columns * square, spec.rows * square
    rng = np.random.default_rng(scenario.seed + 1234 + 7919 * camera)
    spec_camera = scenario.all_cameras[camera]
    # A camera looking across the table (a tripod at its edge) is shown the board turned
    # towards it and over all the table, as a player would hold it; straight down, as ever.
    oblique = abs(spec_camera.tilt) > OBLIQUE_DEG
    facing = spec_camera.pose().rotation.T if oblique else np.eye(3)
    if len(scenario.all_cameras) > 1:
        x0, y0, x1, y1 = seen_region(scenario, camera, inner=1.0, margin=BOARD_PAST_EDGE_IN)
        a, b, c, d = seen_region(scenario, camera)
        flat = scenario.all_cameras[camera].flat_at or ((a + c) / 2, (b + d) / 2)
        spread = (0.05, 0.9)
    else:
        x0, y0, x1, y1 = 0.0, 0.0, scenario.table.width, scenario.table.depth
        flat = plan.flat_at or (x1 / 2, y1 / 2)
        spread = (0.05, 0.9) if oblique else (0.2, 0.6)
    w, d = x1 - x0, y1 - y0
    keys: list[tuple[float, BoardPlacement]] = []
    t = 0.0
    cols = max(round(math.sqrt(plan.views * w / d)), 1)
    for i in range(plan.views):
        gx, gy = i % cols, (i // cols)
        rows = max(math.ceil(plan.views / cols), 1)
        cx = x0 + w * (spread[0] + spread[1] * (gx + 0.5) / cols) + rng.uniform(-1.5, 1.5)
        cy = y0 + d * (spread[0] + spread[1] * (gy + 0.5) / rows) + rng.uniform(-1.0, 1.0)
        height = rng.uniform(5.0, 12.0)
        tilt = math.radians(rng.uniform(18, 42))
        axis_angle = rng.uniform(0, 2 * math.pi)
        spin = math.radians(rng.uniform(-40, 40) + (90 if i % 3 == 2 else 0))
        rotation = rotation_matrix(
            np.array([math.cos(axis_angle), math.sin(axis_angle), 0.0]) * tilt
        ) @ rotation_matrix(np.array([0.0, 0.0, 1.0]) * spin)
        if oblique:
            rotation = facing @ rotation
        keys.extend(_hold(t, rotation, (cx, cy, -height), bw, bh, plan.board, plan.hold))
        t += plan.hold + plan.travel
    fx, fy = flat
    keys.extend(_hold(t, np.eye(3), (fx, fy, 0.0), bw, bh, plan.board, plan.flat))
    return keys


def _hold(
    t: float,
    rotation: NDArray[np.float64],
    centre: tuple[float, float, float],
    bw: float,
    bh: float,
    board: str,
    seconds: float,
) -> list[tuple[float, BoardPlacement]]:
    origin = np.asarray(centre) - rotation @ np.array([bw / 2, bh / 2, 0.0])
    rvec = cv2.Rodrigues(rotation)[0].ravel()
    placement = BoardPlacement(board, tuple(rvec.tolist()), tuple(origin.tolist()))  # type: ignore[arg-type]
    return [(t, placement), (t + seconds, placement)]


def board_at(keys: list[tuple[float, BoardPlacement]], t: float) -> BoardPlacement:
    """Board placement at time ``t``, interpolated between keyframes."""
    if t <= keys[0][0]:
        return keys[0][1]
    for (t0, a), (t1, b) in itertools.pairwise(keys):
        if t0 <= t <= t1:
            if a == b or t1 <= t0:
                return a
            s = (t - t0) / (t1 - t0)
            s = s * s * (3 - 2 * s)
            rvec = tuple(float(x + (y - x) * s) for x, y in zip(a.rvec, b.rvec, strict=True))
            tvec = tuple(float(x + (y - x) * s) for x, y in zip(a.tvec, b.tvec, strict=True))
            return BoardPlacement(a.spec_text, rvec, tvec)  # type: ignore[arg-type]
    return keys[-1][1]


class _Sink:
    """Where frames go: an mp4 file, or a folder of JPEG images (``jpeg_quality`` set)."""

    def __init__(
        self, path: Path, fps: float, size: tuple[int, int], jpeg_quality: int | None = None
    ) -> None:
        self.path, self.quality, self.count = path, jpeg_quality, 0
        self.writer: cv2.VideoWriter | None = None
        if jpeg_quality is None:
            self.writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
            if not self.writer.isOpened():
                raise OutputError(
                    f"{path}: cannot write video (this OpenCV build has no mp4v encoder)"
                )
        else:
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise OutputError(f"{path}: cannot create folder ({error.strerror})") from None

    def write(self, frame: Image) -> None:
        if self.writer is not None:
            self.writer.write(frame)
        else:
            name = self.path / f"frame_{self.count:06d}.jpg"
            if not cv2.imwrite(
                str(name), frame, [cv2.IMWRITE_JPEG_QUALITY, int(self.quality or 92)]
            ):
                raise OutputError(f"{name}: cannot write image")
        self.count += 1

    def release(self) -> None:
        if self.writer is not None:
            self.writer.release()


def _imaging_of(scenario: Scenario, camera: int) -> Imaging:
    return scenario.all_cameras[camera].imaging or scenario.imaging


def _imager(scenario: Scenario, camera: int = 0) -> Imager:
    """A fresh imager seeded by the scenario, so each clip's noise is reproducible on its own."""
    imaging = _imaging_of(scenario, camera)
    return Imager(
        scenario.all_cameras[camera].intrinsics.image_size,
        imaging.blur,
        imaging.noise,
        imaging.vignetting,
        imaging.light,
        scenario.seed + 1000 * camera,
        jpeg=imaging.jpeg,
        hunting=imaging.hunting,
        flicker=imaging.flicker,
        mains_hz=imaging.mains_hz,
        readout=imaging.rolling_shutter,
        shadows=imaging.shadows,
        gain_noise=imaging.gain_noise,
    )


def _writer(
    path: Path, fps: float, size: tuple[int, int], jpeg_quality: int | None = None
) -> _Sink:
    if jpeg_quality is not None:
        path = path.with_suffix("")
    return _Sink(path, fps, size, jpeg_quality)


def _frames(count: int, label: str, progress: bool) -> Iterator[int]:
    return iter(bar_of(range(count), desc=label, unit="frame", enabled=progress))


def simulate(
    scenario: Scenario,
    out_dir: str | os.PathLike[str],
    *,
    video: bool = True,
    calibration: bool = True,
    max_frames: int | None = None,
    progress: bool = True,
    jpeg_quality: int | None = None,
    events: bool = False,
) -> SimulationResult:
    """Write every output file for ``scenario`` into ``out_dir`` (created if needed).

    ``video=False`` writes only the JSON files (fast: no frame is drawn);
    ``max_frames`` cuts the videos short (the truth still covers every frame);
    ``jpeg_quality`` writes folders of JPEG images (``video/frame_000000.jpg``,
    ``calibration/...``) instead of mp4 files; ``events`` writes
    ``truth-events.json`` even when nobody leaves or enters the table (it is
    written whenever somebody does).

    Everything is written into a hidden folder inside ``out_dir`` first and
    moved into place only when all of it is done: a failure or Ctrl-C leaves
    the files of an earlier run exactly as they were.
    """
    out = Path(out_dir)
    # The name is chosen before the folder is made: a Ctrl-C landing the moment it exists
    # still finds it to remove (tempfile.mkdtemp gave its name only after making it).
    stage = out / f".simulate-{secrets.token_hex(6)}"
    try:
        try:
            out.mkdir(parents=True, exist_ok=True)
            stage.mkdir()
        except OSError as error:
            raise OutputError(f"{out}: cannot create output directory ({error.strerror})") from None
        staged = _simulate_into(
            scenario,
            stage,
            video=video,
            calibration=calibration,
            max_frames=max_frames,
            progress=progress,
            jpeg_quality=jpeg_quality,
            events=events,
        )
        for name in staged.files:
            _move_into_place(stage / name.rstrip("/"), out / name.rstrip("/"))
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return SimulationResult(out, staged.frames, staged.calibration_frames, staged.files)


def _move_into_place(source: Path, target: Path) -> None:
    """Replace ``target`` (a file or a folder of frames) by ``source``."""
    try:
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        os.replace(source, target)
    except OSError as error:
        raise OutputError(
            f"{target}: cannot replace it ({error.strerror}); check its permissions and run again"
        ) from None


def footage_names(scenario: Scenario) -> list[dict[str, str]]:
    """Each camera's file names: today's with one camera, numbered from 1 with several."""
    count = len(scenario.all_cameras)
    names = []
    for index in range(count):
        tag = "" if count == 1 else f"-{index + 1}"
        names.append(
            {
                "video": f"video{tag}.mp4",
                "calibration": f"calibration{tag}.mp4",
                "camera": f"camera{tag}.json",
                "truth": f"truth{tag}.jsonl",
            }
        )
    return names


def _simulate_into(
    scenario: Scenario,
    out: Path,
    *,
    video: bool,
    calibration: bool,
    max_frames: int | None,
    progress: bool,
    jpeg_quality: int | None,
    events: bool = False,
) -> SimulationResult:
    """Render every output into the (empty, private) folder ``out``."""
    names = footage_names(scenario)
    files = ["roster.json", "scene.json"]
    files += [n["camera"] for n in names] + [n["truth"] for n in names] + ["truth-moves.json"]
    write_json_atomic(out / "roster.json", fixed_precision(scenario.roster_json()))
    write_json_atomic(out / "scene.json", fixed_precision(scenario.start_scene.to_json()))
    for index, name in enumerate(names):
        write_json_atomic(out / name["camera"], fixed_precision(scenario.profile(index).to_json()))
    moves = {"fps": scenario.fps, "frames": scenario.frame_count, "moves": true_moves(scenario)}
    write_json_atomic(out / "truth-moves.json", fixed_precision(moves))
    if scenario.templates:
        write_json_atomic(out / "truth-terrain.json", fixed_precision(true_terrain(scenario)))
        files.append("truth-terrain.json")
    if events or scenario.removals or scenario.entries:
        write_json_atomic(out / "truth-events.json", fixed_precision(scenario.true_events()))
        files.append("truth-events.json")
    count = scenario.frame_count
    video_frames = count if max_frames is None else min(count, max_frames)
    suffix = "/" if jpeg_quality is not None else ".mp4"
    cal_frames = 0
    for index, name in enumerate(names):
        renderers = _Renderers(scenario, index)
        label = "video" if len(names) == 1 else f"video {index + 1}"
        _write_camera(
            scenario,
            renderers,
            out / name["video"] if video else None,
            out / name["truth"],
            video_frames,
            jpeg_quality,
            progress,
            label,
        )
        if video:
            files.append(name["video"].removesuffix(".mp4") + suffix)
        if video and calibration:
            # Its own imager: the clip's noise must not depend on how long the game was.
            cal_frames = write_calibration_clip(
                scenario,
                out / name["calibration"],
                _imager(scenario, index),
                progress,
                max_frames,
                jpeg_quality,
                renderer=renderers.get({}),
                camera=index,
            )
            files.append(name["calibration"].removesuffix(".mp4") + suffix)
    return SimulationResult(out, video_frames if video else 0, cal_frames, tuple(files))


def _write_camera(
    scenario: Scenario,
    renderers: _Renderers,
    video_path: Path | None,
    truth_path: Path,
    video_frames: int,
    jpeg_quality: int | None,
    progress: bool,
    label: str,
) -> None:
    """One camera's game video (``video_path`` None: none) and its truth lines."""
    camera = renderers.camera
    spec = scenario.all_cameras[camera]
    width, height = spec.intrinsics.image_size
    imager = _imager(scenario, camera) if video_path is not None else None
    writer = (
        _writer(video_path, scenario.fps, (width, height), jpeg_quality)
        if video_path is not None
        else None
    )
    tmp_truth = truth_path.with_name(truth_path.name + ".tmp")
    last_key: Any = None
    last_clean: Image | None = None
    try:
        with tmp_truth.open("w", encoding="utf-8") as truth_file:
            for frame in _frames(scenario.frame_count, label, progress):
                state = scenario.state_at(frame_time(frame, scenario.fps))
                bump = renderers.bump(state)
                renderer = renderers.get(bump)
                if writer is not None and frame < video_frames:
                    key = (
                        None
                        if state.moving or state.hands
                        else (
                            tuple(sorted(state.poses.items())),
                            tuple(sorted(state.templates.items())),
                            tuple(sorted(bump.items())),
                        )
                    )
                    if key is not None and key == last_key and last_clean is not None:
                        clean = last_clean
                        truth = renderer.truth(state.poses, state.hands)
                    else:
                        clean, truth = render_state(scenario, renderers, state)
                    last_key, last_clean = key, clean
                    assert imager is not None
                    mask = (
                        renderer.hand_mask(state.hands) if imager.shadows and state.hands else None
                    )
                    writer.write(imager.apply(clean, state.t, bool(state.hands), mask))
                else:
                    truth = renderer.truth(state.poses, state.hands)
                papers = (
                    renderer.template_truth(state.templates, state.poses, state.hands)
                    if scenario.templates
                    else None
                )
                record = truth_record(scenario, frame, state, truth, papers, bump)
                line = json.dumps(fixed_precision(record), separators=(",", ":"))
                truth_file.write(line + "\n")
        os.replace(tmp_truth, truth_path)
    finally:
        if writer is not None:
            writer.release()
        if tmp_truth.exists():
            tmp_truth.unlink()


def write_calibration_clip(
    scenario: Scenario,
    path: Path,
    imager: Imager,
    progress: bool = True,
    max_frames: int | None = None,
    jpeg_quality: int | None = None,
    renderer: TableRenderer | None = None,
    camera: int = 0,
) -> int:
    """One camera's calibration clip: pieces at their start, a board held at angles, then flat.

    ``renderer`` (the unbumped camera's, e.g. the game video's) saves drawing
    the background again; by default a new one is made.
    """
    keys = calibration_views(scenario, camera)
    spec = BoardSpec.parse(scenario.calibration.board)
    renderer = renderer if renderer is not None else _Renderers(scenario, camera).get({})
    poses = scenario.start_poses()
    templates = scenario.template_starts()
    count = math.floor(keys[-1][0] * scenario.fps) + 1
    if max_frames is not None:
        count = min(count, max_frames)
    width, height = scenario.all_cameras[camera].intrinsics.image_size
    writer = _writer(path, scenario.fps, (width, height), jpeg_quality)
    last: tuple[BoardPlacement, Image] | None = None
    label = "calibration" if len(scenario.all_cameras) == 1 else f"calibration {camera + 1}"
    try:
        for frame in _frames(count, label, progress):
            board = board_at(keys, frame / scenario.fps)
            if last is not None and last[0] == board:
                clean = last[1]
            else:
                clean, _ = renderer.render(poses, (), board, spec, moving=(), templates=templates)
                last = (board, clean)
            writer.write(imager.apply(clean, frame / scenario.fps))
    finally:
        writer.release()
    return count
