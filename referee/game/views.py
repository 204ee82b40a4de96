"""What the live table shows of a frame: its message (pieces and tags) and each camera's health.

Built by the live table once per frame for every browser watching; plain
values in, JSON-ready dicts out (the pictures themselves: :mod:`referee.vision.topdown`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from referee.calibration.profile import CalibrationProfile
from referee.events import finite_json
from referee.tags.detect import Detections
from referee.vision.pipeline import CameraView, FrameResult

if TYPE_CHECKING:
    from referee.game.live import LiveView


STALE_SECONDS = 1.0
"""A camera without a frame for this long while the others go on has dropped (or ended)."""


@dataclass(frozen=True)
class CameraHealth:
    """One camera's line of the health panel."""

    camera: int
    """From 1, in the order the sources were given."""
    name: str
    state: str
    """``live``, ``waiting`` (no frame yet), ``dropped`` (a camera or stream gone quiet) or
    ``ended`` (its recording is over, or the whole source stopped)."""
    frames: int
    """Frames of this camera the referee processed."""
    frame: int | None
    """Its own number of its last frame."""
    tags: int | None
    """Tags it detected this tick (None: no frame from it this tick)."""
    pieces: tuple[str, ...]
    """Pieces and templates it placed this tick."""
    disagreed: tuple[str, ...]
    """Pieces whose view from this camera fusion left out this tick (it disagreed)."""
    rms_px: float | None
    image_size: tuple[int, int]
    re_registered: bool
    """Bumped and its table re-solved from the anchors (the profile in force is not the
    one the game started with)."""
    moved: int
    """Camera-moved events logged for it this game."""

    def to_json(self) -> dict[str, Any]:
        return {
            "camera": self.camera,
            "name": self.name,
            "state": self.state,
            "frames": self.frames,
            "frame": self.frame,
            "tags": self.tags,
            "pieces": list(self.pieces),
            "disagreed": list(self.disagreed),
            "rms_px": self.rms_px,
            "image_size": list(self.image_size),
            "re_registered": self.re_registered,
            "moved": self.moved,
        }


@dataclass(frozen=True)
class CameraSeen:
    """What the live table remembers of one camera across ticks."""

    frames: int = 0
    last: CameraView | None = None
    """Its last view (its picture stays on show after it ends or drops)."""


def camera_health(
    result: FrameResult | None,
    seen: Sequence[CameraSeen],
    initial: Sequence[CalibrationProfile],
    names: Sequence[str],
    moved: Sequence[int],
    lost: Sequence[bool] = (),
    *,
    live_source: bool,
    finished: bool,
) -> list[CameraHealth]:
    """Each camera's health after ``result`` (None: before the first frame); ``lost``: a
    camera whose feed was lost and not reopened yet."""
    out = []
    for k, profile0 in enumerate(initial):
        now = seen[k] if k < len(seen) else CameraSeen()
        view = next((v for v in result.views if v.camera == k), None) if result else None
        if result is not None and result.profiles and k < len(result.profiles):
            profile = result.profiles[k]
        elif k == 0 and result is not None:
            profile = result.profile
        else:
            profile = profile0
        last = now.last
        if k < len(lost) and lost[k] and not finished:
            state = "dropped"  # its source said so (a live camera whose feed was lost)
        elif last is None:
            state = "ended" if finished else "waiting"
        elif finished:
            state = "ended"
        elif view is not None or result is None or result.t - last.t <= STALE_SECONDS:
            state = "live"
        else:
            # A recording that gives no more frames has ended; a camera has dropped.
            state = "dropped" if live_source else "ended"
        out.append(
            CameraHealth(
                k + 1,
                names[k] if k < len(names) else f"camera {k + 1}",
                state,
                now.frames,
                last.frame if last is not None else None,
                len(view.detections) if view is not None else None,
                tuple(p.id for p in view.pieces) if view is not None else (),
                tuple(d.id for d in result.dropped if d.camera == k) if result else (),
                profile.rms_px,
                (int(profile.intrinsics.image_size[0]), int(profile.intrinsics.image_size[1])),
                profile is not profile0,
                moved[k] if k < len(moved) else 0,
            )
        )
    return out


def _tags_json(result: FrameResult, view: LiveView, detections: Detections) -> list[dict[str, Any]]:
    """Each detected tag's kind, label and corners (pixels of the camera that saw it)."""
    roster = view.roster
    anchors = {a.tag for a in view.anchors}
    unknown = set(result.unknown_tags)
    tags = []
    for tag, corners in zip(detections.ids, detections.corners_px, strict=True):
        entry = roster.by_tag(int(tag))
        on = roster.template_by_tag(int(tag))
        kind = (
            "piece"
            if entry
            else "terrain"
            if on
            else "anchor"
            if int(tag) in anchors
            else "unknown"
        )
        if int(tag) in unknown:
            kind = "unknown"
        tags.append(
            {
                "tag": int(tag),
                "kind": kind,
                "label": entry.id if entry else on[0].id if on else str(int(tag)),
                "corners": np.round(corners, 1).tolist(),
            }
        )
    return tags


def frame_json(result: FrameResult, view: LiveView) -> dict[str, Any]:
    """The SSE ``frame`` message: the frame's pieces (table inches) and tags (pixels).

    With several cameras, ``cameras`` holds each one's tags and picture size too (the
    top-level ``tags`` are the first camera's, as with one), so the page outlines the tags
    on whichever camera's picture it shows."""
    roster = view.roster
    unknown = set(result.unknown_tags)
    templates = {t.id for t in roster.templates}
    tags = _tags_json(result, view, result.detections)
    pieces = [
        {
            "id": p.pose.id,
            "x": round(p.pose.x, 3),
            "y": round(p.pose.y, 3),
            "heading": round(p.pose.heading, 1),
            "uncertainty": round(p.pose.uncertainty, 4),
            "seen": p.pose.seen,
            "state": p.state,
        }
        for p in result.tracks.pieces
        if p.pose.id not in templates
    ]
    # Terrain templates are terrain, not pieces: which ones are seen now (the map draws
    # their polygons from the scene; a hidden one stays where it was last seen).
    terrain = [
        {"id": p.pose.id, "hidden": not p.pose.seen}
        for p in result.tracks.pieces
        if p.pose.id in templates
    ]
    size = result.profile.intrinsics.image_size
    extra: dict[str, Any] = {}
    if len(result.profiles) > 1:
        views = {v.camera: v for v in result.views}
        extra["cameras"] = [
            {
                "camera": k + 1,
                "name": result.cameras[k] if k < len(result.cameras) else f"camera {k + 1}",
                "image_size": [int(n) for n in profile.intrinsics.image_size],
                "seen": k in views,
                "tags": _tags_json(result, view, views[k].detections) if k in views else [],
            }
            for k, profile in enumerate(result.profiles)
        ]
    return finite_json(
        {
            **extra,
            "frame": result.frame,
            "t": round(result.t, 3),
            "fps": round(view.fps, 1),
            "seq": view.seq,
            "image_size": [int(size[0]), int(size[1])],
            "pieces": pieces,
            "templates": terrain,
            "tags": tags,
            "unknown_tags": sorted(unknown),
        }
    )


def map_doubt(
    profile: CalibrationProfile, points: NDArray[np.float64], corner_noise_px: float
) -> NDArray[np.float64]:
    """How far each table point the map shows may be from that point on the cloth, inches
    (a bare point's pose doubt, NaN where the camera does not see): the dashboard's ruler."""
    from referee.vision.pose import point_doubt

    return point_doubt(profile, points, corner_noise_px)
