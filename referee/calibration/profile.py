"""Calibration profile: the file that says how to turn this camera's pixels into table inches.

Written by ``referee calibrate``, read by ``referee track``/``run``; also
written by ``referee simulate`` with the simulated camera's true values. The
JSON is a public contract (see README): versioned, extended but never broken.

::

    {"format": "table-referee/calibration", "version": 1,
     "created": "2026-11-22T10:00:00+00:00",
     "image_size": [1920, 1080],
     "camera_matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
     "distortion": [k1, k2, p1, p2, k3],
     "table_pose": {"rvec": [...], "tvec": [...]},     # table -> camera, inches
     "table": {"width": 48, "depth": 36, "inch_mm": 25.4},
     "frame_source": "anchors" | "board" | "manual" | "simulated",
     "board": "charuco:5x7:0.04m:0.02m:DICT_6X6_250" | null,
     "rms_px": 0.21, "view_errors_px": [...], "views_used": 14,
     "anchors": [{"tag": 96, "x": 1.5, "y": 1.5, "size": 2.0}, ...]}
"""

from __future__ import annotations

import datetime as _dt
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from referee.calibration.camera import Intrinsics, TablePose
from referee.errors import (
    ProfileError,
    at,
    read_json_file,
    write_json_atomic,
    write_text_atomic,
)
from referee.tags.anchors import AnchorTag

# Re-exported: the scene and log modules write through the same atomic writers, found here.
__all__ = [
    "AnchorTag",
    "CalibrationProfile",
    "TableSize",
    "load_profile",
    "write_json_atomic",
    "write_text_atomic",
]

FORMAT = "table-referee/calibration"
VERSION = 1
FRAME_SOURCES = ("anchors", "board", "manual", "simulated")


@dataclass(frozen=True)
class TableSize:
    """The playing surface: extent in game inches and the length of the game inch."""

    width: float
    depth: float
    inch_mm: float = 25.4
    """Pz8 uses 25 mm, its Colonial rules 10 mm: the game inch is a table setting."""

    def __post_init__(self) -> None:
        for name in ("width", "depth", "inch_mm"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"table {name} must be a positive number, got {value!r}")


@dataclass(frozen=True)
class CalibrationProfile:
    """Everything needed to map pixels of one camera, in one place, to table inches."""

    intrinsics: Intrinsics
    table_pose: TablePose
    table: TableSize
    frame_source: str = "manual"
    board: str | None = None
    rms_px: float | None = None
    view_errors_px: tuple[float, ...] = ()
    views_used: int = 0
    anchors: tuple[AnchorTag, ...] = ()
    created: str = field(
        default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    )

    def __post_init__(self) -> None:
        if self.frame_source not in FRAME_SOURCES:
            raise ValueError(
                f"frame_source must be one of {FRAME_SOURCES}, got {self.frame_source!r}"
            )

    def with_pose(self, pose: TablePose, frame_source: str | None = None) -> CalibrationProfile:
        """The same camera re-registered to a new table pose (after a bump)."""
        return replace(self, table_pose=pose, frame_source=frame_source or self.frame_source)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "created": self.created,
            "image_size": list(self.intrinsics.image_size),
            "camera_matrix": self.intrinsics.matrix.tolist(),
            "distortion": self.intrinsics.distortion.tolist(),
            "table_pose": {
                "rvec": self.table_pose.rvec.tolist(),
                "tvec": self.table_pose.tvec.tolist(),
            },
            "table": {
                "width": self.table.width,
                "depth": self.table.depth,
                "inch_mm": self.table.inch_mm,
            },
            "frame_source": self.frame_source,
            "board": self.board,
            "rms_px": self.rms_px,
            "view_errors_px": list(self.view_errors_px),
            "views_used": self.views_used,
            "anchors": [{"tag": a.tag, "x": a.x, "y": a.y, "size": a.size} for a in self.anchors],
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "<profile>") -> CalibrationProfile:
        """Parse and validate; every problem is a one-line :class:`ProfileError`."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ProfileError(
                at(
                    source,
                    "$.format",
                    f"not a table referee calibration profile "
                    f"(expected format {FORMAT!r}); run 'referee calibrate' to make one",
                )
            )
        if data.get("version") != VERSION:
            raise ProfileError(
                at(
                    source,
                    "$.version",
                    f"unsupported profile version {data.get('version')!r}; "
                    f"this referee reads version {VERSION}",
                )
            )
        path = "$"
        try:
            path = "$.image_size"
            width, height = (int(v) for v in data["image_size"])
            path = "$.camera_matrix"
            matrix = np.array(data["camera_matrix"], dtype=float)
            path = "$.distortion"
            distortion = np.array(data["distortion"], dtype=float)
            intrinsics = Intrinsics((width, height), matrix, distortion)
            path = "$.table_pose"
            pose = TablePose(
                np.array(data["table_pose"]["rvec"], float),
                np.array(data["table_pose"]["tvec"], float),
            )
            path = "$.table"
            table = TableSize(**{k: float(v) for k, v in data["table"].items()})
            path = "$.anchors"
            anchors = tuple(
                AnchorTag(int(a["tag"]), float(a["x"]), float(a["y"]), float(a["size"]))
                for a in data.get("anchors", [])
            )
            path = "$"
            return cls(
                intrinsics=intrinsics,
                table_pose=pose,
                table=table,
                frame_source=str(data.get("frame_source", "manual")),
                board=data.get("board"),
                rms_px=None if data.get("rms_px") is None else float(data["rms_px"]),
                view_errors_px=tuple(float(e) for e in data.get("view_errors_px", [])),
                views_used=int(data.get("views_used", 0)),
                anchors=anchors,
                created=str(data.get("created", "")),
            )
        except (KeyError, TypeError, ValueError) as error:
            problem = f"missing field {error}" if isinstance(error, KeyError) else str(error)
            raise ProfileError(at(source, path, problem)) from None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a crash mid-write never leaves a half profile behind."""
        write_json_atomic(Path(path), self.to_json())


def load_profile(path: str | os.PathLike[str]) -> CalibrationProfile:
    """Read a profile file; a missing, unreadable or foreign file is a :class:`ProfileError`."""
    data = read_json_file(
        path, "calibration profile", ProfileError, "make one with 'referee calibrate'"
    )
    return CalibrationProfile.from_json(data, str(path))
