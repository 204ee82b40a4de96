"""What the live table shows of a frame: its message (pieces and tags) and its pictures.

Built by the live table once per frame for every browser watching; plain
values in, JSON-ready dicts and JPEG bytes out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import project, table_xyz
from referee.calibration.profile import CalibrationProfile
from referee.errors import RefereeError
from referee.events import finite_json
from referee.vision.pipeline import FrameResult

if TYPE_CHECKING:
    from referee.game.live import LiveView


def frame_json(result: FrameResult, view: LiveView) -> dict[str, Any]:
    """The SSE ``frame`` message: the frame's pieces (table inches) and tags (pixels)."""
    roster = view.roster
    anchors = {a.tag for a in view.anchors}
    unknown = set(result.unknown_tags)
    templates = {t.id for t in roster.templates}
    tags = []
    for tag, corners in zip(result.detections.ids, result.detections.corners_px, strict=True):
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
    return finite_json(
        {
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


def top_down(
    image: NDArray[np.uint8], profile: CalibrationProfile, ppi: float
) -> NDArray[np.uint8]:
    """The table as seen from straight above: each output pixel is the camera pixel that sees
    that table point (lens distortion included), ``ppi`` pixels per inch, origin top-left."""
    width = max(1, round(profile.table.width * ppi))
    depth = max(1, round(profile.table.depth * ppi))
    xs = (np.arange(width) + 0.5) / ppi
    ys = (np.arange(depth) + 0.5) / ppi
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    pixels = project(profile.intrinsics, profile.table_pose, table_xyz(grid))
    maps = pixels.reshape(depth, width, 2).astype(np.float32)
    out = cv2.remap(image, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR)
    return np.asarray(out, dtype=np.uint8)


def scaled(image: NDArray[np.uint8], width: int) -> NDArray[np.uint8]:
    if image.shape[1] <= width:
        return image
    height = round(image.shape[0] * width / image.shape[1])
    return np.asarray(cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA))


def jpeg(image: NDArray[np.uint8]) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
    if not ok:
        raise RefereeError("could not encode the camera picture as JPEG")
    return bytes(data)


def map_doubt(
    profile: CalibrationProfile, points: NDArray[np.float64], corner_noise_px: float
) -> NDArray[np.float64]:
    """How far each table point the map shows may be from that point on the cloth, inches
    (a bare point's pose doubt, NaN where the camera does not see): the dashboard's ruler."""
    from referee.vision.pose import point_doubt

    return point_doubt(profile, points, corner_noise_px)
