"""Opening what a game reads and writes: calibration and roster, its frame source, the
bundled sample, the game log.

Shared by the commands and the dashboard, so ``run``, ``track``, ``demo`` and
``serve`` open a camera, a recording or the sample in one way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from referee.calibration.profile import CalibrationProfile, load_profile
from referee.errors import RefereeError
from referee.game.loop import warn
from referee.game.session import Session
from referee.markers.roster import Roster, load_roster
from referee.outputs import output_file
from referee.scene import Scene, load_scene
from referee.store import DEFAULT_EVIDENCE_CAP, GameLog, default_db_path
from referee.vision.pipeline import check_profile_fits
from referee.vision.sources import (
    FrameSource,
    LiveSource,
    MultiSource,
    VideoFileSource,
    open_source,
)

FOOTAGE = Path("sample_footage") / "skirmish"
"""The bundled sample game, relative to the checkout."""


def repo_footage() -> Path:
    """``sample_footage/skirmish`` in the checkout this package was installed from."""
    return Path(__file__).resolve().parents[2] / FOOTAGE


def footage_cameras(folder: Path) -> list[tuple[Path, Path, Path]]:
    """Each camera's (video, calibration clip, true profile) in a footage folder:
    ``video.mp4`` and friends for one camera, or ``video-1.mp4``, ``video-2.mp4``...
    numbered from 1 (as ``referee simulate`` writes them)."""
    numbered: list[tuple[Path, Path, Path]] = []
    while (folder / f"video-{len(numbered) + 1}.mp4").is_file():
        n = len(numbered) + 1
        numbered.append(
            (
                folder / f"video-{n}.mp4",
                folder / f"calibration-{n}.mp4",
                folder / f"camera-{n}.json",
            )
        )
    if numbered:
        return numbered
    return [(folder / "video.mp4", folder / "calibration.mp4", folder / "camera.json")]


@dataclass(frozen=True)
class FootageFolder:
    """A footage folder read and checked: each camera's video and its profile (in camera
    order), the roster and the scene (None when the folder has no ``scene.json``)."""

    folder: Path
    videos: tuple[Path, ...]
    profiles: tuple[CalibrationProfile, ...]
    roster: Roster
    scene: Scene | None


#: What a footage folder holds, for the messages that say what is missing.
FOOTAGE_LAYOUT = (
    "video.mp4 and camera.json, or video-1.mp4, camera-1.json, video-2.mp4, camera-2.json..., "
    "with roster.json and scene.json, as 'referee simulate --out DIR' writes"
)


def read_footage(folder: Path, option: str = "--footage") -> FootageFolder:
    """The footage folder's cameras (each with its committed ``camera.json`` or
    ``camera-N.json``), roster and scene, as ``demo --footage`` reads them; every video
    opened once, its frames checked against its profile, and closed. Each problem is one
    line naming the file (or the folder and what it lacks), before anything is written."""
    if not folder.is_dir():
        raise RefereeError(
            f"{option} {folder}: no such folder (a footage folder holds {FOOTAGE_LAYOUT})"
        )
    cameras = footage_cameras(folder)
    if not cameras[0][0].is_file():
        raise RefereeError(
            f"{folder}: no footage here (neither video.mp4 nor video-1.mp4); a footage folder "
            f"holds {FOOTAGE_LAYOUT}"
        )
    for video, clip, true_camera in cameras:
        if not true_camera.is_file():
            raise RefereeError(
                f"{folder}: {true_camera.name} missing, the calibration profile of {video.name} "
                f"(make it with 'referee calibrate {clip} --out {true_camera}')"
            )
    roster_path = folder / "roster.json"
    if not roster_path.is_file():
        raise RefereeError(
            f"{folder}: roster.json missing (which tag is on which piece; 'referee roster "
            "init' starts one)"
        )
    videos = tuple(video for video, _, _ in cameras)
    profiles = load_profiles([str(p) for _, _, p in cameras], [str(v) for v in videos])
    roster = load_game_roster(str(roster_path))
    scene_path = folder / "scene.json"
    scene = load_scene(scene_path) if scene_path.is_file() else None
    if scene is not None:
        # Checked against its rules now, as a live table would later, before any log opens.
        from referee.rules import QueryError, ruleset_for

        rules = ruleset_for(scene)
        for k, query in enumerate(scene.queries):
            try:
                rules.answer(scene, query)
            except QueryError as error:
                raise RefereeError(
                    f"{scene_path}: $.queries[{k}]{error.path}: {error.problem}"
                ) from None
    opened: list[FrameSource] = []
    try:
        for video in videos:
            opened.append(VideoFileSource(video))
        check_same_resolution(opened)
        for source, profile in zip(opened, profiles, strict=True):
            check_source_fits(profile, source, source.name)
    finally:
        for source in opened:
            source.close()
    return FootageFolder(folder, videos, profiles, roster, scene)


def load_inputs(calibration: str, roster_path: str) -> tuple[CalibrationProfile, Roster]:
    """The profile and roster a run needs; a roster without pieces is an error."""
    profile = load_profile(calibration)
    return profile, load_game_roster(roster_path)


def load_game_roster(roster_path: str) -> Roster:
    """The roster a run needs; a roster without pieces is an error."""
    roster = load_roster(roster_path)
    if not len(roster):
        raise RefereeError(f"{roster_path}: the roster lists no pieces; nothing to track")
    return roster


def open_camera_source(
    spec: str, session_ref: list[Session], camera: int | None = None, **options: Any
) -> tuple[FrameSource, Callable[[str, str], None]]:
    """Open ``spec``; its camera lost/reopened notices go to the session in ``session_ref``
    (naming ``camera``, its number from 0, when it is one of several)."""

    def on_camera(kind: str, message: str) -> None:
        warn(message)
        if session_ref:
            session_ref[0].camera_event(kind, message, camera)

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


def open_log(db: str | None, no_log: bool, evidence: bool = True) -> GameLog | None:
    """The game log a command writes to (None with ``--no-log``); ``evidence`` False keeps
    no pictures with its verdicts (``--evidence off``)."""
    check_log_path(db, no_log)
    if no_log:
        return None
    cap = DEFAULT_EVIDENCE_CAP if evidence else 0
    return GameLog(db or default_db_path(), evidence_cap=cap)


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
    try:
        frames.prime()
    except BaseException:
        frames.close()
        raise
    check_source_fits(profile, frames, spec)
    frames.close()


#: Median pixel distance of a camera's anchors from where its profile puts them above which
#: the profile is another camera's (a bumped camera is a few pixels off, and is re-registered).
WRONG_CAMERA_PX = 40.0


def load_profiles(
    calibrations: Sequence[str], sources: Sequence[str]
) -> tuple[CalibrationProfile, ...]:
    """One profile per source, paired in order; each camera needs its own.

    Refused (one line, before anything is opened): a different number of profiles and
    sources, and two sources given the same profile (the same file, or files with
    identical content): two cameras cannot share one table pose.
    """
    if len(calibrations) != len(sources):
        raise RefereeError(
            f"{len(sources)} source{'s' if len(sources) != 1 else ''} and "
            f"{len(calibrations)} calibration profile{'s' if len(calibrations) != 1 else ''} "
            "(-c): give one profile per camera, in the same order as the cameras"
        )
    seen: dict[Any, str] = {}
    for path in calibrations:
        file = Path(path)
        keys: list[Any] = [("path", str(file.resolve()))]
        if file.is_file():
            with contextlib.suppress(OSError):  # load_profile says why it cannot be read
                keys.append(("content", file.read_bytes()))
        for key in keys:
            if key in seen:
                same = "is the same file as" if key[0] == "path" else "has the same content as"
                raise RefereeError(
                    f"-c {path} {same} -c {seen[key]}: each camera needs its own calibration "
                    "profile (calibrate each camera with its own clip)"
                )
            seen[key] = path
    return tuple(load_profile(path) for path in calibrations)


def open_cameras(
    specs: Sequence[str],
    profiles: Sequence[CalibrationProfile],
    roster: Roster,
    session_ref: list[Session],
    **options: Any,
) -> FrameSource:
    """Open every camera and check each fits its profile, before any output is opened.

    One source is returned as it is; several as one :class:`MultiSource` of frame sets.
    A live camera's first frame is read here (given up after
    :data:`~referee.vision.sources.FIRST_FRAME_TIMEOUT`) and is the first frame iterated.
    Refused: a camera that gives no frame, cameras of different resolutions, a profile
    made at another resolution, and (several cameras) a profile whose table pose does not
    fit what that camera sees (its anchors lie far from where the profile puts them:
    another camera's profile).
    """
    opened: list[FrameSource] = []
    try:
        several = len(specs) > 1
        for k, spec in enumerate(specs):
            source, _ = open_camera_source(spec, session_ref, k if several else None, **options)
            opened.append(source)
            source.prime()  # a camera's frame size is known only from a frame
        check_same_resolution(opened)
        # A camera is named as "camera 0", not "0"; a file or stream as given.
        names = [
            s.name if isinstance(s, LiveSource) else spec
            for s, spec in zip(opened, specs, strict=True)
        ]
        for source, profile, name in zip(opened, profiles, names, strict=True):
            check_source_fits(profile, source, name)
        if len(opened) > 1:
            for source, profile, name in zip(opened, profiles, names, strict=True):
                check_view_fits(profile, source, name, roster)
    except BaseException:
        for source in opened:
            source.close()
        raise
    return opened[0] if len(opened) == 1 else MultiSource(opened)


def open_videos(videos: Sequence[Path], profiles: Sequence[CalibrationProfile]) -> FrameSource:
    """A footage folder's videos opened as one source (several read together as frame sets),
    each checked against its camera's profile; a refused one leaves none of them open."""
    opened: list[FrameSource] = []
    try:
        opened.extend(VideoFileSource(one) for one in videos)
        check_same_resolution(opened)
        for each, profile in zip(opened, profiles, strict=True):
            check_profile_fits(profile, each.frame_size or (0, 0), each.name)
    except BaseException:
        for each in opened:
            each.close()
        raise
    return opened[0] if len(opened) == 1 else MultiSource(opened)


def check_same_resolution(sources: Sequence[FrameSource]) -> None:
    """Every camera whose frame size is known gives frames of one size (the message names
    the first two that differ)."""
    sizes = [(s.name, s.frame_size) for s in sources if s.frame_size is not None]
    if len({size for _, size in sizes}) > 1:
        first, other = sizes[0], next(item for item in sizes if item[1] != sizes[0][1])
        raise RefereeError(
            f"cameras of different resolutions: {first[0]} is "
            f"{first[1][0]}x{first[1][1]} but {other[0]} is {other[1][0]}x{other[1][1]}; "
            "set every camera to one resolution"
        )


def check_view_fits(
    profile: CalibrationProfile, source: FrameSource, name: str, roster: Roster
) -> None:
    """The anchors in the source's first frame (when it is known) lie where the profile
    puts them, within :data:`WRONG_CAMERA_PX`: otherwise the profile is another camera's."""
    from referee.calibration.register import anchor_errors_px
    from referee.tags.detect import TagDetector

    image = source.peek()
    anchors = roster.anchors or profile.anchors
    if image is None or not anchors:
        return
    found = TagDetector(roster.dictionary).detect(image)
    wanted = {a.tag for a in anchors}
    keep = [int(i) in wanted for i in found.ids]
    ids, corners = found.ids[keep], found.corners_px[keep]
    if len(set(int(i) for i in ids)) < 2:
        return  # too few anchors in sight to judge (hands over them): the bump watch will
    errors = anchor_errors_px(profile, ids, corners, anchors)
    off = float(np.median(errors)) if len(errors) else 0.0
    if off > WRONG_CAMERA_PX:
        raise RefereeError(
            f"{name}: its anchors (ids {', '.join(str(i) for i in sorted(set(map(int, ids))))}) "
            f"lie {off:.0f}px from where its calibration profile puts them: the profile is "
            "another camera's (give -c in the same order as the cameras) or the camera has "
            "moved since it was calibrated (calibrate it again)"
        )
