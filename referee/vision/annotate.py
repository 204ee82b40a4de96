"""Annotated video: the footage with what the referee saw drawn on it, and a map beside it.

Each frame gets every detected tag outlined (green for pieces, blue for
anchors, red for unknown ids) and the piece's id beside it. To its right, never
over the camera's picture, a panel holds a top-down map (the table, terrain,
and every tracked base in table inches: solid when settled, outlined when
hidden or moving), the frame and time, and the latest verdicts announced with
:meth:`Annotator.announce`, each shown for :data:`ANNOUNCE_SECONDS` of video.

Several cameras: their pictures side by side in camera order, each scaled so the
row is as wide as the first camera's picture (the video stays one file of a fixed
size), each with its name and its own tags outlined, and every tracked piece's
base (the fused pose, in table inches) projected into every view that sees it,
so a piece at the seam shows where both cameras put it. A camera without a
frame this tick shows its last picture, dimmed, marked "no frame".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import project, table_xyz
from referee.calibration.profile import CalibrationProfile
from referee.errors import RefereeError
from referee.markers.roster import Roster
from referee.media import quiet_libraries
from referee.outputs import VIDEO_SUFFIXES, StagedFile
from referee.scene import Scene
from referee.tags.detect import Detections
from referee.vision.pipeline import CameraView, FrameResult

TERRAIN_COLOURS = {
    "woods": (40, 110, 40),
    "building": (90, 90, 120),
    "hill": (60, 120, 150),
    "river": (160, 90, 30),
    "road": (130, 130, 130),
    "bridge": (70, 100, 130),
}
SIDE_COLOURS = [(0, 0, 220), (220, 120, 0), (0, 170, 230), (200, 0, 200)]

#: Seconds of video an announced verdict stays on screen.
ANNOUNCE_SECONDS = 3.0
#: Most announced lines shown at once (newest first); older ones make room.
MAX_ANNOUNCED_LINES = 12
PANEL_BACKGROUND = (38, 38, 38)


@dataclass(frozen=True)
class _Announcement:
    lines: tuple[str, ...]
    start: float | None
    """Video time of the first frame that showed it (None until drawn)."""


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
        # Width of the side panel (map and verdicts) as a fraction of the camera image's.
        self.inset_fraction = inset_fraction
        self._writer: Any = None
        self._staged: StagedFile | None = None
        self._announced: list[_Announcement] = []
        sides = list(dict.fromkeys(p.side for p in roster))
        self._side_colour = {s: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, s in enumerate(sides)}
        self._entries = {p.id: p for p in roster}
        self._last: dict[int, CameraView] = {}
        """Each camera's last view: shown, dimmed, on a tick it gives no frame."""

    def _open(self, width: int, height: int) -> None:
        # Written beside the target and renamed by close(complete=True): a failed run keeps
        # an earlier video. OpenCV's own complaints stay out of the user's terminal.
        self._staged = StagedFile(self.path, "--annotate")
        try:
            with quiet_libraries():
                writer = cv2.VideoWriter(
                    str(self._staged.path),
                    cv2.VideoWriter.fourcc(*"mp4v"),
                    self.fps,
                    (width, height),
                )
                opened = writer.isOpened()
        except cv2.error:
            opened = False
        if not opened:
            self._staged.discard()
            raise RefereeError(
                f"--annotate {self.path}: cannot write a video here; give a writable "
                f"{', '.join(VIDEO_SUFFIXES)} file"
            )
        self._writer = writer

    def announce(self, lines: Sequence[str]) -> None:
        """Show ``lines`` (a verdict and its reasons) on the next ~3 s of video, in the panel.

        The clock starts at the next frame drawn, so a verdict announced while
        a move settles is seen for :data:`ANNOUNCE_SECONDS` of the video that
        follows, whatever the frame rate; newer announcements are listed first.
        """
        text = tuple(str(line) for line in lines if str(line).strip())
        if text:
            self._announced.insert(0, _Announcement(text, None))

    def _current_announcements(self, t: float) -> list[tuple[str, ...]]:
        live = []
        for item in self._announced:
            start = t if item.start is None else item.start
            if t - start < ANNOUNCE_SECONDS:
                live.append(_Announcement(item.lines, start))
        self._announced = live
        return [item.lines for item in live]

    def draw(self, result: FrameResult) -> NDArray[np.uint8]:
        """A new annotated image for one result: the camera's picture, then the panel at its right.

        The frame itself is untouched, and nothing but tag outlines and labels
        is drawn over the camera's picture.
        """
        if len(result.profiles) > 1:
            image = self._cameras(result)
            thickness = max(1, image.shape[1] // 960)
        else:
            if result.image is None:
                raise ValueError("the frame result carries no image to annotate")
            image = np.array(result.image, dtype=np.uint8, copy=True)
            thickness = max(1, image.shape[1] // 960)
            self._outline_tags(image, result.detections, result.unknown_tags, thickness)
        height, width = image.shape[:2]
        side = np.full((height, max(int(width * self.inset_fraction), 160), 3), PANEL_BACKGROUND)
        side = side.astype(np.uint8)
        map_bottom = self._map(side, result)
        self._panel_text(side, result, map_bottom, thickness)
        return np.ascontiguousarray(np.concatenate([image, side], axis=1))

    def _cameras(self, result: FrameResult) -> NDArray[np.uint8]:
        """Every camera's picture side by side, each scaled to one height, the row as wide
        as the first camera's picture: its tags, its name, and the fused bases drawn in."""
        sizes = [tuple(int(n) for n in p.intrinsics.image_size) for p in result.profiles]
        # One height for all, the row as wide as camera 1's picture (a steady video size).
        height = max(1, round(sizes[0][0] / sum(w / h for w, h in sizes)))
        views = {v.camera: v for v in result.views}
        tiles = []
        for k, (profile, (w, h)) in enumerate(zip(result.profiles, sizes, strict=True)):
            view = views.get(k)
            if view is not None:
                self._last[k] = view
            shown = view or self._last.get(k)
            if shown is not None and shown.image is not None:
                image = np.array(shown.image, dtype=np.uint8, copy=True)
            else:
                image = np.full((h, w, 3), 60, np.uint8)
            thickness = max(1, round(h / height))  # lines stay visible once scaled down
            if view is not None:
                self._outline_tags(image, view.detections, view.unknown_tags, thickness)
            else:
                image //= 2  # dimmed: not this tick's picture
            self._project_bases(image, result, profile, thickness)
            name = result.cameras[k] if k < len(result.cameras) else f"camera {k + 1}"
            label = f"{k + 1}: {name}" + ("" if view is not None else "  (no frame)")
            scale = 0.8 * thickness
            cv2.putText(
                image, label, (10 * thickness, 30 * thickness), cv2.FONT_HERSHEY_SIMPLEX, scale,
                (0, 0, 0), 4 * thickness, cv2.LINE_AA,
            )  # fmt: skip
            cv2.putText(
                image, label, (10 * thickness, 30 * thickness), cv2.FONT_HERSHEY_SIMPLEX, scale,
                (255, 255, 255), thickness, cv2.LINE_AA,
            )  # fmt: skip
            width = max(1, round(w * height / h))
            tiles.append(cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA))
        return np.ascontiguousarray(np.concatenate(tiles, axis=1), dtype=np.uint8)

    def _project_bases(
        self,
        image: NDArray[np.uint8],
        result: FrameResult,
        profile: CalibrationProfile,
        thickness: int,
    ) -> None:
        """Each tracked base where the fused pose puts it, as this camera sees the table."""
        h, w = image.shape[:2]
        for tracked in result.tracks.pieces:
            entry = self._entries.get(tracked.pose.id)
            if entry is None:
                continue
            corners = tracked.pose.footprint(entry.base)
            pixels = project(profile.intrinsics, profile.table_pose, table_xyz(corners, 0.0))
            inside = (pixels[:, 0] > -w) & (pixels[:, 0] < 2 * w)
            inside &= (pixels[:, 1] > -h) & (pixels[:, 1] < 2 * h)
            if not np.isfinite(pixels).all() or not inside.all():
                continue  # far outside this camera's picture
            if not ((pixels >= 0) & (pixels < (w, h))).all(axis=1).any():
                continue
            colour = self._side_colour.get(entry.side, (255, 255, 255))
            pts = np.round(pixels * 16).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(image, [pts], True, colour, thickness, cv2.LINE_AA, shift=4)

    def _outline_tags(
        self,
        image: NDArray[np.uint8],
        det: Detections,
        unknown_tags: Sequence[int],
        thickness: int,
    ) -> None:
        """Each detected tag outlined and labelled (green piece or template, blue anchor,
        red unknown id)."""
        for tag, corners in zip(det.ids, det.corners_px, strict=True):
            entry = self.roster.by_tag(int(tag))
            template = self.roster.template_by_tag(int(tag))  # a paper terrain template's tag
            colour = (0, 220, 0) if entry or template else (220, 120, 0)
            if int(tag) in unknown_tags:
                colour = (0, 0, 255)
            pts = np.round(corners * 16).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(image, [pts], True, colour, thickness, cv2.LINE_AA, shift=4)
            label = entry.id if entry else template[0].id if template else str(int(tag))
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

    def _panel_text(
        self, side: NDArray[np.uint8], result: FrameResult, top: int, thickness: int
    ) -> None:
        """Frame and time, then the verdicts announced in the last few seconds."""
        scale = 0.5 * thickness
        line_h = int(22 * thickness)
        width = side.shape[1]
        y = top + line_h
        cv2.putText(
            side, f"frame {result.frame}  t={result.t:.2f}s", (8, y), cv2.FONT_HERSHEY_SIMPLEX,
            scale, (220, 220, 220), thickness, cv2.LINE_AA,
        )  # fmt: skip
        shown = 0
        for lines in self._current_announcements(result.t):
            for k, line in enumerate(lines):
                if shown >= MAX_ANNOUNCED_LINES or y + line_h > side.shape[0] - 4:
                    return
                y += line_h
                colour = (255, 255, 255) if k == 0 else (190, 190, 190)
                text = _fit(line if k == 0 else "  " + line, width - 16, scale, thickness)
                cv2.putText(
                    side, text, (8, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness,
                    cv2.LINE_AA,
                )  # fmt: skip
                shown += 1
            y += line_h // 3

    def _map(self, side: NDArray[np.uint8], result: FrameResult) -> int:
        """The top-down map at the top of the panel; returns the row below it."""
        table = result.profile.table
        margin = 8
        inset_w = side.shape[1] - 2 * margin
        scale = inset_w / table.width
        inset_h = int(table.depth * scale)
        if inset_h > side.shape[0] // 2:  # a deep table: fit half the panel's height
            scale = (side.shape[0] // 2) / table.depth
            inset_w, inset_h = int(table.width * scale), side.shape[0] // 2
        x0, y0 = margin, margin
        region = side[y0 : y0 + inset_h, x0 : x0 + inset_w]
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
        side[y0 : y0 + inset_h, x0 : x0 + inset_w] = panel
        return y0 + inset_h

    def write(self, result: FrameResult) -> None:
        image = self.draw(result)
        if self._writer is None:
            self._open(image.shape[1], image.shape[0])
        self._writer.write(image)

    def close(self, complete: bool = True) -> None:
        """Finish the video; ``complete`` puts it in place, otherwise it is thrown away."""
        if self._writer is not None:
            self._writer.release()
            self._writer = None
        if self._staged is not None:
            staged, self._staged = self._staged, None
            if complete:
                staged.commit()
            else:
                staged.discard()


def _fit(text: str, width: int, scale: float, thickness: int) -> str:
    """``text`` cut short with "..." to fit ``width`` pixels."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    if cv2.getTextSize(text, font, scale, thickness)[0][0] <= width:
        return text
    while text and cv2.getTextSize(text + "...", font, scale, thickness)[0][0] > width:
        text = text[:-1]
    return text + "..."
