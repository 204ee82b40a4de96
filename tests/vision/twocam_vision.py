"""Two synthetic cameras over one 56 x 24 in table (six anchors), for the multi-camera tests.

Camera 1 sees the left part (x about -1..35 in), camera 2 the right (21..57): they
overlap by about 14 in around the middle, and each sees four of the six anchors
(its two corners and the two edge anchors at x = 28). Frames are rendered with
the exact renderer of :mod:`synth_vision` (not ``referee.sim``, which renders one
camera), so each camera's true profile places every tag exactly.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path

import cv2
import numpy as np
from synth_vision import Tag, render

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.calibration.table import default_anchors
from referee.markers.roster import Roster, RosterEntry
from referee.vision.sources import Frame

TABLE = (56.0, 24.0)
SIZE = (1280, 960)
FPS = 12.0
Placement = tuple[float, float, float] | None


def cameras() -> list[tuple[Intrinsics, TablePose]]:
    intr = Intrinsics.from_fov(SIZE, 60.0, (-0.1, 0.0, 0.0, 0.0, 0.0))
    return [
        (intr, TablePose.looking_down((17.0, 12.0), 31.0, yaw_deg=1.0)),
        (intr, TablePose.looking_down((39.0, 12.0), 31.0, tilt_deg=2.0, yaw_deg=-1.5)),
    ]


def anchors():
    return default_anchors("DICT_4X4_100", TableSize(*TABLE))


def profiles() -> list[CalibrationProfile]:
    return [
        CalibrationProfile(
            intr, pose, TableSize(*TABLE), "simulated", rms_px=0.1, anchors=anchors()
        )
        for intr, pose in cameras()
    ]


def roster() -> Roster:
    return Roster(
        "DICT_4X4_100",
        (
            RosterEntry(10, "t34", "soviet", "tank", (1.5, 3.0)),
            RosterEntry(11, "sq1", "soviet", "infantry", (2.0, 1.0)),
            RosterEntry(12, "pz4", "german", "tank", (1.5, 3.0)),
        ),
        anchors(),
    )


def piece_tags(placements: Mapping[str, Placement]) -> list[Tag]:
    r = roster()
    return [Tag(r.by_id(pid).tag, *place) for pid, place in placements.items() if place]


@functools.cache
def _anchor_layer(camera: int) -> np.ndarray:
    # The anchors never move: rendered once per camera (they are most of the render time).
    intr, pose = cameras()[camera]
    return render(intr, pose, anchor_tag_list())


@functools.cache
def _noise(camera: int, k: int) -> np.ndarray:
    rng = np.random.default_rng(100 * camera + k)
    return rng.normal(0.0, 1.0, (*SIZE[::-1], 3)).astype(np.float32)


def view(camera: int, placements: Mapping[str, Placement], seed: int = 0) -> np.ndarray:
    """Camera ``camera``'s picture of the anchors and the pieces at ``placements``."""
    intr, pose = cameras()[camera]
    image = _anchor_layer(camera).copy()
    pieces = render(intr, pose, piece_tags(placements))
    drawn = (pieces != 150).any(axis=2)
    image[drawn] = pieces[drawn]
    noisy = image.astype(np.float32) + _noise(camera, seed % 4)
    return np.clip(np.round(noisy), 0, 255).astype(np.uint8)


def frame_set(
    tick: int, placements: Mapping[str, Placement], present: tuple[bool, bool] = (True, True)
) -> Frame:
    """One tick of both cameras (a camera not ``present`` contributes nothing)."""
    t = tick / FPS
    views = tuple(
        Frame(tick, t, view(k, placements, seed=2 * tick + k)) if on else None
        for k, on in enumerate(present)
    )
    first = next(v for v in views if v is not None)
    return Frame(tick, t, first.image, views)


def write_clips(folder: Path, script: list[Mapping[str, Placement]]) -> list[Path]:
    """Each camera's frames as a PNG folder (``cam1/``, ``cam2/``), plus ``camera-N.json``
    and ``roster.json`` beside them."""
    out = []
    for k in range(2):
        clip = folder / f"cam{k + 1}"
        clip.mkdir(parents=True, exist_ok=True)
        for i, placements in enumerate(script):
            cv2.imwrite(str(clip / f"frame{i:04d}.png"), view(k, placements, seed=2 * i + k))
        (folder / f"camera-{k + 1}.json").write_text(json.dumps(profiles()[k].to_json()))
        out.append(clip)
    roster().save(folder / "roster.json")
    return out


def carried(start: float, end: float, y: float, rest: int, moving: int) -> list[Placement]:
    """A piece at rest at (start, y), carried along x to (end, y), at rest again."""
    path: list[Placement] = [(start, y, 0.0)] * rest
    for i in range(1, moving + 1):
        s = i / moving
        path.append((start + (end - start) * s, y, 0.0))
    return path + [(end, y, 0.0)] * rest


def anchor_tag_list() -> list[Tag]:
    return [Tag(a.tag, a.x, a.y, 0.0, 0.0, a.size) for a in anchors()]


def write_footage(folder: Path, script: list[Mapping[str, Placement]]) -> Path:
    """A footage folder with two cameras as CLUB-CONTRACT.md names it: ``video-N.mp4``,
    ``camera-N.json`` and ``roster.json`` (no calibration clips: the demo is given
    ``--use-true-camera``), and ``truth-moves.json`` from the script's rests."""
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(2):
        writer = cv2.VideoWriter(
            str(folder / f"video-{k + 1}.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), FPS, SIZE
        )
        for i, placements in enumerate(script):
            writer.write(view(k, placements, seed=2 * i + k))
        writer.release()
        (folder / f"camera-{k + 1}.json").write_text(json.dumps(profiles()[k].to_json()))
    roster().save(folder / "roster.json")
    moves = []
    for pid in script[0]:
        rests = [p[pid] for p in script]
        start = rests[0]
        if start is not None and rests[-1] is not None and rests[-1] != start:
            end = rests[-1]
            moves.append(
                {
                    "piece": pid,
                    "from": {"x": start[0], "y": start[1], "heading": start[2]},
                    "to": {"x": end[0], "y": end[1], "heading": end[2]},
                }
            )
    (folder / "truth-moves.json").write_text(json.dumps({"moves": moves}))
    return folder
