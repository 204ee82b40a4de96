"""Annotated video: the footage with what the referee saw drawn on it.

Each frame gets every detected tag outlined (green for pieces, blue for
anchors, red for unknown ids), the piece's id beside it, and a top-down
inset map in the corner: the table, terrain, and every tracked base in
table inches (solid when settled, outlined when hidden or moving).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.errors import RefereeError
from referee.markers.roster import Roster
from referee.scene import Scene
from referee.vision.pipeline import FrameResult

TERRAIN_COLOURS = {
    "woods": (40, 110, 40),
    "building": (90, 90, 120),
    "hill": (60, 120, 150),
    "river": (160, 90, 30),
    "road": (130, 130, 130),
    "bridge": (70, 100, 130),
}
SIDE_COLOURS = [(0, 0, 220), (220, 120, 0), (0, 170, 230), (200, 0, 200)]


class Annotator:
    """Writes annotated frames to a video file; use :meth:`write` as a pipeline subscriber."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        roster: Roster,
        scene: Scene | None = None,
        fps: float = 30.0,
        inset_fraction: float = 0.3,
    ) -> None:
        self.path = Path(path)
        self.roster = roster
        self.scene = scene
        self.fps = fps
        self.inset_fraction = inset_fraction
        self._writer: Any = None
        sides = list(dict.fromkeys(p.side for p in roster))
        self._side_colour = {s: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, s in enumerate(sides)}
        self._entries = {p.id: p for p in roster}

    def _open(self, width: int, height: int) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        writer = cv2.VideoWriter(
            str(self.path), cv2.VideoWriter.fourcc(*"mp4v"), self.fps, (width, height)
        )
        if not writer.isOpened():
            raise RefereeError(f"{self.path}: cannot write a video here (is the folder writable?)")
        self._writer = writer

    def draw(self, result: FrameResult) -> NDArray[np.uint8]:
        """A new annotated image for one result (the frame itself is untouched)."""
        if result.image is None:
            raise ValueError("the frame result carries no image to annotate")
        image = np.array(result.image, dtype=np.uint8, copy=True)
        det = result.detections
        thickness = max(1, image.shape[1] // 960)
        for tag, corners in zip(det.ids, det.corners_px, strict=True):
            entry = self.roster.by_tag(int(tag))
            colour = (0, 220, 0) if entry else (220, 120, 0)
            if int(tag) in result.unknown_tags:
                colour = (0, 0, 255)
            pts = np.round(corners * 16).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(image, [pts], True, colour, thickness, cv2.LINE_AA, shift=4)
            label = entry.id if entry else str(int(tag))
            x, y = corners.max(axis=0)
            cv2.putText(
                image,
                label,
                (int(x) + 3, int(y)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.45 * thickness,
                colour,
                thickness,
                cv2.LINE_AA,
            )
        self._inset(image, result)
        cv2.putText(
            image,
            f"frame {result.frame}  t={result.t:.2f}s",
            (10, image.shape[0] - 10),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5 * thickness,
            (255, 255, 255),
            thickness,
            cv2.LINE_AA,
        )
        return image

    def _inset(self, image: NDArray[np.uint8], result: FrameResult) -> None:
        table = result.profile.table
        height, width = image.shape[:2]
        inset_w = int(width * self.inset_fraction)
        scale = inset_w / table.width
        inset_h = int(table.depth * scale)
        x0, y0 = width - inset_w - 8, 8
        if inset_h + y0 >= height:
            return
        region = image[y0 : y0 + inset_h, x0 : x0 + inset_w]
        panel = np.full_like(region, (70, 110, 80))

        def to_px(points: Any) -> NDArray[np.int32]:
            pts = np.asarray(points, dtype=float).reshape(-1, 2) * scale * 16
            return np.round(pts).astype(np.int32).reshape(-1, 1, 2)

        if self.scene is not None:
            for terrain in self.scene.terrain:
                colour = TERRAIN_COLOURS.get(terrain.kind, (100, 100, 100))
                outline = to_px(terrain.polygon)
                cv2.fillPoly(panel, [outline], colour, cv2.LINE_AA, shift=4)
                cv2.polylines(panel, [outline], True, (200, 200, 200), 1, cv2.LINE_AA, shift=4)
        for tracked in result.tracks.pieces:
            entry = self._entries.get(tracked.pose.id)
            if entry is None:
                continue
            colour = self._side_colour.get(entry.side, (255, 255, 255))
            outline = to_px(tracked.pose.footprint(entry.base))
            if tracked.state == "settled":
                cv2.fillPoly(panel, [outline], colour, cv2.LINE_AA, shift=4)
            else:
                cv2.polylines(panel, [outline], True, colour, 1, cv2.LINE_AA, shift=4)
            front = to_px([tracked.pose.front(entry.base[1])])[0, 0] / 16
            cv2.circle(panel, (int(front[0]), int(front[1])), 2, (255, 255, 255), -1)
            centre = to_px([[tracked.pose.x, tracked.pose.y]])[0, 0] / 16
            cv2.putText(
                panel,
                tracked.pose.id,
                (int(centre[0]) + 6, int(centre[1]) + 4),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.35,
                (255, 255, 255),
                1,
                cv2.LINE_AA,
            )
        cv2.rectangle(panel, (0, 0), (inset_w - 1, inset_h - 1), (255, 255, 255), 1)
        image[y0 : y0 + inset_h, x0 : x0 + inset_w] = panel

    def write(self, result: FrameResult) -> None:
        image = self.draw(result)
        if self._writer is None:
            self._open(image.shape[1], image.shape[0])
        self._writer.write(image)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.release()
            self._writer = None
