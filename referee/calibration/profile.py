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
     "anchors": [{"tag": 96, "x": 1.5, "y": 1.5, "size": 2.0}, ...],
     "lens_model": "k1,k2,p1,p2", "held_out_px": 0.06,
     "projector": {...}}

``lens_model`` (optional: profiles before issue 41 have none) names the
distortion terms the calibration fitted, chosen by cross-validation over the
views; terms not named are 0 in ``distortion``. ``held_out_px`` is that
model's RMS error on views left out of its fit. ``projector`` (optional, issue
39) is the fitted projector over the table
(:class:`referee.calibration.projector_fit.ProjectorFit`).
"""

from __future__ import annotations

import datetime as _dt
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from referee import validate as v
from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.projector_fit import ProjectorFit
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
#: Distortion models a calibration may choose (``calibrate.LENS_MODELS``), simplest first.
LENS_MODEL_NAMES = ("k1,k2", "k1,k2,k3", "k1,k2,p1,p2", "k1,k2,p1,p2,k3")


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
    lens_model: str | None = None
    """The distortion terms fitted (:data:`LENS_MODEL_NAMES`); None: not recorded."""
    held_out_px: float | None = None
    """The lens model's RMS error on views left out of its fit; None: not measured."""
    projector: ProjectorFit | None = None
    """The projector over the table, once calibrated through this camera; None: none."""
    created: str = field(
        default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    )

    def __post_init__(self) -> None:
        if self.frame_source not in FRAME_SOURCES:
            raise ValueError(
                f"frame_source must be one of {FRAME_SOURCES}, got {self.frame_source!r}"
            )
        if self.lens_model is not None and self.lens_model not in LENS_MODEL_NAMES:
            raise ValueError(
                f"lens_model must be one of {LENS_MODEL_NAMES}, got {self.lens_model!r}"
            )

    def with_pose(self, pose: TablePose, frame_source: str | None = None) -> CalibrationProfile:
        """The same camera re-registered to a new table pose (after a bump)."""
        return replace(self, table_pose=pose, frame_source=frame_source or self.frame_source)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
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
        # Written only when known, so a simulated or older profile's file stays as it was.
        if self.lens_model is not None:
            out["lens_model"] = self.lens_model
        if self.held_out_px is not None:
            out["held_out_px"] = self.held_out_px
        if self.projector is not None:
            out["projector"] = self.projector.to_json()
        return out

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
        return _parse(cls, data, source)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a crash mid-write never leaves a half profile behind."""
        write_json_atomic(Path(path), self.to_json())


def load_profile(path: str | os.PathLike[str]) -> CalibrationProfile:
    """Read a profile file; a missing, unreadable or foreign file is a :class:`ProfileError`."""
    data = read_json_file(
        path, "calibration profile", ProfileError, "make one with 'referee calibrate'"
    )
    return CalibrationProfile.from_json(data, str(path))


#: What to do about a profile whose values make no sense.
_FIX = "calibrate again with 'referee calibrate' (a profile is not meant to be edited by hand)"

#: Sensible ranges: a sensor side in pixels, a focal length in pixels, a table side in game
#: inches, camera distance in inches, a lens distortion coefficient.
MAX_IMAGE_SIDE = 32768
MAX_FOCAL_PX = 1e6
MAX_TABLE_IN = 10_000.0
MAX_DISTANCE_IN = 1e5
MAX_DISTORTION = 1e4


def _parse(cls: type[CalibrationProfile], data: dict[str, Any], source: str) -> CalibrationProfile:
    """Every field checked for type, finiteness and range before OpenCV ever sees it."""

    def num(value: Any, path: str, **bounds: Any) -> float:
        return v.number(value, source, path, error=ProfileError, hint=_FIX, **bounds)

    def nums(value: Any, path: str, **bounds: Any) -> tuple[float, ...]:
        return v.numbers(value, source, path, error=ProfileError, hint=_FIX, **bounds)

    def obj(value: Any, path: str, what: str) -> dict[str, Any]:
        return v.mapping(value, source, path, error=ProfileError, what=what, hint=_FIX)

    def require(raw: dict[str, Any], key: str, path: str) -> Any:
        if key not in raw:
            raise v.fail(source, f"{path}.{key}", "missing field", ProfileError, _FIX)
        return raw[key]

    size = v.items(
        require(data, "image_size", "$"),
        source,
        "$.image_size",
        error=ProfileError,
        length=2,
        what="[width, height] in pixels",
        hint=_FIX,
    )
    width, height = (
        v.whole(
            s,
            source,
            f"$.image_size[{i}]",
            error=ProfileError,
            minimum=1,
            maximum=MAX_IMAGE_SIDE,
            hint=_FIX,
        )
        for i, s in enumerate(size)
    )
    rows = v.items(
        require(data, "camera_matrix", "$"),
        source,
        "$.camera_matrix",
        error=ProfileError,
        length=3,
        what="a 3x3 matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]",
        hint=_FIX,
    )
    matrix = [
        nums(
            row,
            f"$.camera_matrix[{i}]",
            length=3,
            what="a row of 3 numbers",
            minimum=-MAX_FOCAL_PX,
            maximum=MAX_FOCAL_PX,
        )
        for i, row in enumerate(rows)
    ]
    for i, name in ((0, "fx"), (1, "fy")):
        if not matrix[i][i] > 0:
            raise v.fail(
                source,
                f"$.camera_matrix[{i}][{i}]",
                f"the focal length {name} must be positive, got {matrix[i][i]:g}",
                ProfileError,
                _FIX,
            )
    if matrix[2] != (0.0, 0.0, 1.0):
        raise v.fail(
            source,
            "$.camera_matrix[2]",
            f"must be [0, 0, 1], got {list(matrix[2])}",
            ProfileError,
            _FIX,
        )
    distortion = nums(
        require(data, "distortion", "$"),
        "$.distortion",
        length=(4, 5, 8, 12, 14),
        what="a list of distortion coefficients",
        minimum=-MAX_DISTORTION,
        maximum=MAX_DISTORTION,
    )
    pose = obj(require(data, "table_pose", "$"), "$.table_pose", "an object {rvec, tvec}")
    rvec = nums(
        require(pose, "rvec", "$.table_pose"),
        "$.table_pose.rvec",
        length=3,
        what="3 numbers",
        minimum=-100.0,
        maximum=100.0,
    )
    tvec = nums(
        require(pose, "tvec", "$.table_pose"),
        "$.table_pose.tvec",
        length=3,
        what="3 numbers",
        minimum=-MAX_DISTANCE_IN,
        maximum=MAX_DISTANCE_IN,
    )
    raw_table = obj(require(data, "table", "$"), "$.table", "an object {width, depth, inch_mm}")
    for key in raw_table:
        if key not in ("width", "depth", "inch_mm"):
            raise v.fail(
                source,
                f"$.table.{key}",
                "unknown field",
                ProfileError,
                "expected width, depth, inch_mm",
            )
    table = TableSize(
        num(
            require(raw_table, "width", "$.table"),
            "$.table.width",
            positive=True,
            maximum=MAX_TABLE_IN,
        ),
        num(
            require(raw_table, "depth", "$.table"),
            "$.table.depth",
            positive=True,
            maximum=MAX_TABLE_IN,
        ),
        num(raw_table.get("inch_mm", 25.4), "$.table.inch_mm", minimum=1.0, maximum=100.0),
    )
    raw_anchors = v.items(
        data.get("anchors", []),
        source,
        "$.anchors",
        error=ProfileError,
        max_count=100,
        what="a list of anchor tags",
        hint=_FIX,
    )
    anchors = []
    for i, raw in enumerate(raw_anchors):
        path = f"$.anchors[{i}]"
        a = obj(raw, path, "an object {tag, x, y, size}")
        anchors.append(
            AnchorTag(
                v.whole(
                    require(a, "tag", path),
                    source,
                    f"{path}.tag",
                    error=ProfileError,
                    minimum=0,
                    maximum=1_000_000,
                    hint=_FIX,
                ),
                num(
                    require(a, "x", path), f"{path}.x", minimum=-MAX_TABLE_IN, maximum=MAX_TABLE_IN
                ),
                num(
                    require(a, "y", path), f"{path}.y", minimum=-MAX_TABLE_IN, maximum=MAX_TABLE_IN
                ),
                num(require(a, "size", path), f"{path}.size", positive=True, maximum=100.0),
            )
        )
    frame_source = data.get("frame_source", "manual")
    if frame_source not in FRAME_SOURCES:
        raise v.fail(
            source,
            "$.frame_source",
            f"must be one of {', '.join(FRAME_SOURCES)}, got {v.shown(frame_source)}",
            ProfileError,
            _FIX,
        )
    board = data.get("board")
    if board is not None:
        board = v.text(
            board, source, "$.board", error=ProfileError, max_length=v.MAX_TEXT, hint=_FIX
        )
    lens_model = data.get("lens_model")
    if lens_model is not None and lens_model not in LENS_MODEL_NAMES:
        raise v.fail(
            source,
            "$.lens_model",
            f"must be one of {', '.join(LENS_MODEL_NAMES)}, got {v.shown(lens_model)}",
            ProfileError,
            _FIX,
        )
    held_out = data.get("held_out_px")
    rms = data.get("rms_px")
    view_errors = nums(data.get("view_errors_px", []), "$.view_errors_px", minimum=0.0, maximum=1e6)
    created = data.get("created", "")
    return cls(
        intrinsics=Intrinsics((width, height), np.array(matrix), np.array(distortion)),
        table_pose=TablePose(np.array(rvec), np.array(tvec)),
        table=table,
        frame_source=frame_source,
        board=board,
        rms_px=None if rms is None else num(rms, "$.rms_px", minimum=0.0, maximum=1e6),
        view_errors_px=view_errors,
        views_used=v.whole(
            data.get("views_used", 0),
            source,
            "$.views_used",
            error=ProfileError,
            minimum=0,
            maximum=10**9,
            hint=_FIX,
        ),
        anchors=tuple(anchors),
        lens_model=lens_model,
        projector=(
            None
            if data.get("projector") is None
            else ProjectorFit.from_json(data["projector"], source, "$.projector")
        ),
        held_out_px=(
            None if held_out is None else num(held_out, "$.held_out_px", minimum=0.0, maximum=1e6)
        ),
        created=v.text(
            created,
            source,
            "$.created",
            error=ProfileError,
            max_length=v.MAX_TEXT,
            allow_empty=True,
            hint=_FIX,
        ),
    )
