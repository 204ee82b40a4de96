"""Scripted synthetic clips for the vision tests: exact poses per frame, written as PNG folders."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
from synth_vision import Tag, render

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.markers.roster import Roster, RosterEntry

TABLE = (24.0, 18.0)


def small_camera() -> tuple[Intrinsics, TablePose]:
    """960x540, k1 = -0.2, over a 24 x 18 in table: tags about 26 px across like 1080p/48in."""
    intr = Intrinsics.from_fov((960, 540), 60.0, (-0.2, 0.0, 0.0, 0.0, 0.0))
    pose = TablePose.looking_down((TABLE[0] / 2, TABLE[1] / 2), 24.0, tilt_deg=5.0)
    return intr, pose


def profile() -> CalibrationProfile:
    intr, pose = small_camera()
    return CalibrationProfile(intr, pose, TableSize(*TABLE), frame_source="simulated", rms_px=0.1)


def roster() -> Roster:
    return Roster(
        "DICT_4X4_100",
        (
            RosterEntry(10, "t34", "soviet", "tank", (1.5, 3.0), (0.5, 0.0), 0.9),
            RosterEntry(11, "sq1", "soviet", "infantry", (2.0, 1.0)),
            RosterEntry(12, "pz4", "german", "tank", (1.5, 3.0), (0.0, 0.0), 0.9),
        ),
    )


def tag_for(entry: RosterEntry, x: float, y: float, heading: float) -> Tag:
    h = np.radians(heading)
    fwd = np.array([np.cos(h), np.sin(h)])
    right = np.array([-np.sin(h), np.cos(h)])
    c = np.array([x, y]) + entry.tag_offset[0] * fwd + entry.tag_offset[1] * right
    return Tag(entry.tag, float(c[0]), float(c[1]), heading, entry.tag_height, 0.8)


def write_clip(folder: Path, frames: list[dict]) -> Path:
    """``frames``: per frame {piece id: (x, y, heading) or None (hidden)} plus optional
    ``"_hand": (px, py, r)`` and ``"_extra": [(tag, x, y, heading), ...]`` (tags on no
    piece). Returns the folder; also writes profile.json and roster.json."""
    folder.mkdir(parents=True, exist_ok=True)
    intr, pose = small_camera()
    r = roster()
    for i, spec in enumerate(frames):
        tags = [
            tag_for(r.by_id(pid), *p)
            for pid, p in spec.items()
            if not pid.startswith("_") and p is not None
        ]
        tags += [Tag(*t) for t in spec.get("_extra", [])]
        hands = [spec["_hand"]] if "_hand" in spec else []
        image = render(intr, pose, tags, noise=1.5, seed=i, occluders=hands)
        cv2.imwrite(str(folder / f"frame{i:04d}.png"), image)
    (folder.parent / "profile.json").write_text(json.dumps(profile().to_json()))
    r.save(folder.parent / "roster.json")
    return folder
