"""The battle report as an animated top-down replay (MP4, OpenCV's ``mp4v`` writer).

Game time plays at ``speed`` times real time, except that a stretch with no piece moving
that is longer than the report's turn pause is cut to that pause (a tea break is a moment,
not an hour): :class:`Timeline` maps game seconds to video seconds and back. Each frame is
the table as the turn began with the turn's moves so far drawn as arrows growing while
the piece travels (from the logged ``start_t`` to ``end_t``), the piece moving with it,
each arrow coloured by its verdict when it lands; the verdicts of the last moments are
captions under the table. The video holds :data:`HOLD_END` seconds on the final table.

When a dispute is ruled, what the camera saw of it (its evidence, when the log kept some)
is inset in the table's top right corner for as long as its caption shows.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from referee.errors import RefereeError
from referee.picture import MARGIN, PALETTE, side_colours, to_png
from referee.report.draw import (
    MARK_COLOURS,
    arrow_head,
    distance_text,
    turn_picture,
    verdict_mark,
)
from referee.report.model import BattleReport, Dispute, MoveEntry
from referee.scene import Scene

FPS = 10.0
"""Frames per second: arrows drawn over a few seconds read smoothly at 10."""
SPEED = 10.0
"""Default game seconds per video second."""
HOLD_END = 2.0
"""Video seconds the final table stays on screen."""
CAPTION_HOLD = 3.0
"""Video seconds a verdict stays among the captions."""
CAPTION_LINES = 3
INSET_SHARE = 0.3
"""Widest an inset camera picture is, as a share of the video's width."""
MAX_WIDTH = 1280
"""Widest frame, pixels: a big table is drawn at fewer pixels per inch."""
PPI = 20.0


@dataclass(frozen=True)
class Segment:
    game_start: float
    game_end: float
    video_start: float
    video_end: float


@dataclass(frozen=True)
class Timeline:
    """Game seconds <-> video seconds: moves in real proportion at ``speed``, idle stretches
    longer than ``idle_cap`` game seconds squeezed to ``idle_cap``."""

    segments: tuple[Segment, ...]
    speed: float

    @classmethod
    def of(
        cls, busy: Sequence[tuple[float, float]], duration: float, speed: float, idle_cap: float
    ) -> Timeline:
        """The timeline of a game ``duration`` seconds long whose moves span ``busy``.

        >>> line = Timeline.of([(10, 12), (100, 104)], 104, speed=2, idle_cap=5)
        >>> round(line.video_length, 3)  # 5 + 2 + 5 + 4 game seconds kept, at 2x
        8.0
        >>> round(line.video_at(11), 3), round(line.game_at(line.video_at(101)), 3)
        (3.0, 101.0)
        """
        spans: list[list[float]] = []
        for a, b in sorted((min(a, b), max(a, b)) for a, b in busy):
            if spans and a <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], b)
            else:
                spans.append([a, b])
        cuts: list[tuple[float, float, bool]] = []  # (start, end, busy)
        at = 0.0
        for a, b in spans:
            a, b = max(a, at), max(b, at)
            if a > at:
                cuts.append((at, a, False))
            if b > a:
                cuts.append((a, b, True))
            at = b
        end = max(duration, at)
        if end > at:
            cuts.append((at, end, False))
        segments = []
        video = 0.0
        for a, b, busy_now in cuts:
            kept = b - a if busy_now else min(b - a, idle_cap)
            segments.append(Segment(a, b, video, video + kept / speed))
            video += kept / speed
        return cls(tuple(segments), speed)

    @property
    def video_length(self) -> float:
        return self.segments[-1].video_end if self.segments else 0.0

    def video_at(self, game_t: float) -> float:
        for s in self.segments:
            if game_t <= s.game_end:
                share = (game_t - s.game_start) / ((s.game_end - s.game_start) or 1.0)
                return s.video_start + max(0.0, share) * (s.video_end - s.video_start)
        return self.video_length

    def game_at(self, video_t: float) -> float:
        starts = [s.video_start for s in self.segments]
        i = max(0, bisect.bisect_right(starts, video_t) - 1)
        if not self.segments:
            return 0.0
        s = self.segments[i]
        share = (video_t - s.video_start) / ((s.video_end - s.video_start) or 1.0)
        return s.game_start + min(max(share, 0.0), 1.0) * (s.game_end - s.game_start)


def timeline(report: BattleReport, speed: float) -> Timeline:
    busy = [(m.start_t, m.end_t) for m in report.moves]
    return Timeline.of(busy, report.duration, speed, report.pause)


def frame_count(report: BattleReport, speed: float, fps: float = FPS) -> int:
    """Frames the MP4 of ``report`` at ``speed`` has: the timeline plus the final hold."""
    return max(1, math.ceil(timeline(report, speed).video_length * fps)) + round(HOLD_END * fps)


def _bgr(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return (b, g, r)


class _Canvas:
    """The table's pixels: inches -> pixels as :func:`referee.picture.to_png` draws them."""

    def __init__(self, width: float, depth: float) -> None:
        self.ppi = min(PPI, (MAX_WIDTH - 1) / (width + 2 * MARGIN))
        self.table_px = round((depth + 2 * MARGIN) * self.ppi)
        self.caption_px = 24 * (CAPTION_LINES + 1) + 8
        w = round((width + 2 * MARGIN) * self.ppi)
        h = self.table_px + self.caption_px
        self.size = (w + w % 2, h + h % 2)  # even sides: what video codecs take

    def px(self, x: float, y: float) -> tuple[int, int]:
        return (round((x + MARGIN) * self.ppi * 16), round((y + MARGIN) * self.ppi * 16))

    def blank(self, scene: Scene) -> np.ndarray:
        """Cloth and terrain of ``scene`` (no pieces), with room for the captions."""
        import cv2

        bare = replace(scene, pieces=())
        png = to_png(turn_picture(bare, ()), self.ppi)
        table = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
        if table is None:  # our own PNG: only a broken OpenCV fails to read it back
            raise RefereeError("could not draw the table for the video")
        out = np.full((self.size[1], self.size[0], 3), 24, np.uint8)
        h, w = min(table.shape[0], self.size[1]), min(table.shape[1], self.size[0])
        out[:h, :w] = table[:h, :w]
        return out


def _draw_arrow(
    image: np.ndarray, canvas: _Canvas, move: MoveEntry, share: float, label: bool
) -> None:
    import cv2

    a = (move.start["x"], move.start["y"])
    b = (move.end["x"], move.end["y"])
    tip = (a[0] + (b[0] - a[0]) * share, a[1] + (b[1] - a[1]) * share)
    colour = _bgr(MARK_COLOURS["none"] if share < 1 else MARK_COLOURS[move.mark])
    thick = max(2, round(0.16 * canvas.ppi))
    cv2.line(image, canvas.px(*a), canvas.px(*tip), colour, thick, cv2.LINE_AA, 4)
    if math.dist(a, tip) > 1e-6 and move.mark != "void":
        head = np.array([canvas.px(*p) for p in arrow_head(a, tip)], np.int32)
        cv2.fillPoly(image, [head], colour, cv2.LINE_AA, 4)
    if label:
        x, y = canvas.px((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        _text(image, f"{move.piece} {distance_text(move)}", (x // 16 + 6, y // 16 - 6), 0.45)


def _text(
    image: np.ndarray, text: str, at: tuple[int, int], scale: float, colour: str = "#ffffff"
) -> None:
    import cv2

    # On a dark box, not a halo: OpenCV advances each glyph by its stroke's thickness, so
    # a thick dark copy under a thin one drifts off it letter by letter.
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), base = cv2.getTextSize(text, font, scale, 1)
    x, y = at
    cv2.rectangle(image, (x - 2, y - h - 3), (x + w + 2, y + base), (20, 20, 20), cv2.FILLED)
    cv2.putText(image, text, at, font, scale, _bgr(colour), 1, cv2.LINE_AA)


def _draw_pieces(
    image: np.ndarray, canvas: _Canvas, scene: Scene, colours: Mapping[str, str]
) -> None:
    import cv2

    for piece in scene:
        corners = np.array([canvas.px(float(x), float(y)) for x, y in piece.corners()], np.int32)
        fill = "#333333" if piece.state == "destroyed" else colours.get(piece.side, "#cccccc")
        cv2.fillPoly(image, [corners], _bgr(fill), cv2.LINE_AA, 4)
        cv2.polylines(image, [corners], True, (17, 17, 17), 1, cv2.LINE_AA, 4)
        cv2.line(image, canvas.px(*piece.xy), canvas.px(*piece.front), (255, 255, 255), 2,
                 cv2.LINE_AA, 4)  # fmt: skip
        x, y = canvas.px(piece.x, piece.y + max(piece.base) / 2 + 0.4)
        _text(image, piece.id, (x // 16 - 4 * len(piece.id), y // 16 + 6), 0.42)


def _interpolated(move: MoveEntry, share: float) -> tuple[float, float, float]:
    a, b = move.start, move.end
    turn = ((b["heading"] - a["heading"] + 180.0) % 360.0) - 180.0
    return (
        a["x"] + (b["x"] - a["x"]) * share,
        a["y"] + (b["y"] - a["y"]) * share,
        a["heading"] + turn * share,
    )


def _verdict_caption(verdict: Mapping[str, Any]) -> tuple[str, str]:
    mark = verdict_mark(verdict)
    word = {"ok": "[ok]", "no": "[NO]", "maybe": "[??]", "none": "[--]"}[mark]
    return f"{word} {verdict.get('summary') or verdict.get('ask')}", MARK_COLOURS[mark]


def write_video(
    report: BattleReport,
    path: str | Path,
    speed: float = SPEED,
    fps: float = FPS,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Write the animated replay of ``report`` to ``path`` (the caller's staged file);
    returns the number of frames written."""
    import cv2

    canvas = _Canvas(*report.table)
    line = timeline(report, speed)
    total = frame_count(report, speed, fps)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, canvas.size)
    if not writer.isOpened():
        raise RefereeError(f"{path}: OpenCV cannot write an MP4 video here (codec mp4v)")
    colours = side_colours([*(p.side for p in report.start), *(s for s, _ in report.sides)])
    scenes = [report.start, *(t.scene for t in report.turns)]
    blanks: dict[int, np.ndarray] = {}
    starts = [t.moves[0].start_t for t in report.turns]
    verdict_t = [t for t, _ in report.verdict_times]
    inset = _Inset(report.disputes, line, canvas)
    try:
        for i in range(total):
            game_t = line.game_at(i / fps) if i / fps < line.video_length else math.inf
            k = bisect.bisect_right(starts, game_t)  # turns begun by now
            before = scenes[k - 1] if k >= 1 else report.start
            if k not in blanks:
                blanks.clear()  # one turn's table at a time: memory stays flat
                blanks[k] = canvas.blank(scenes[k] if k >= 1 else report.start)
            image = blanks[k].copy()
            moves = report.turns[k - 1].moves if k >= 1 else ()
            if math.isinf(game_t) and report.turns:
                pieces = scenes[-1]
            else:
                poses: dict[str, tuple[float, float, float]] = {}
                for m in moves:
                    if m.start_t <= game_t and m.mark != "void":
                        share = _share(m, game_t)
                        poses[m.piece] = _interpolated(m, share)
                pieces = replace(
                    before,
                    pieces=tuple(p.moved(*poses[p.id]) if p.id in poses else p for p in before),
                )
            _draw_pieces(image, canvas, pieces, colours)
            for m in moves:
                if m.start_t <= game_t:
                    share = _share(m, game_t)
                    _draw_arrow(image, canvas, m, share, label=share >= 1)
            _captions(image, canvas, report, line, game_t, verdict_t, k, speed)
            inset.paste(image, game_t)
            writer.write(image)
            if progress is not None:
                progress(i + 1, total)
    finally:
        writer.release()
    return total


class _Inset:
    """The camera picture of the dispute ruled last, while its caption shows. Decoded when
    first shown and only one kept, so an hour of disputes costs one picture's memory."""

    def __init__(self, disputes: Sequence[Dispute], line: Timeline, canvas: _Canvas) -> None:
        self._shown = [d for d in sorted(disputes, key=lambda d: d.t) if _camera_jpeg(d)]
        self._times = [d.t for d in self._shown]
        self._line = line
        self._canvas = canvas
        self._cached: tuple[int, np.ndarray | None] | None = None

    def paste(self, image: np.ndarray, game_t: float) -> None:
        k = bisect.bisect_right(self._times, game_t) - 1
        if k < 0 or math.isinf(game_t):
            return
        if self._line.video_at(game_t) - self._line.video_at(self._times[k]) > CAPTION_HOLD:
            return
        picture = self._picture(k)
        if picture is None:
            return
        h, w = picture.shape[:2]
        x = image.shape[1] - w - 6
        y = 6
        if x < 0 or y + h > self._canvas.table_px:
            return
        image[y - 2 : y + h + 2, x - 2 : x + w + 2] = 255  # a white frame off the cloth
        image[y : y + h, x : x + w] = picture

    def _picture(self, k: int) -> np.ndarray | None:
        if self._cached is not None and self._cached[0] == k:
            return self._cached[1]
        import cv2

        data = _camera_jpeg(self._shown[k])
        picture = cv2.imdecode(np.frombuffer(data or b"", np.uint8), cv2.IMREAD_COLOR)
        if picture is not None:
            width = self._canvas.size[0] * INSET_SHARE
            height = self._canvas.table_px * 0.5
            scale = min(width / picture.shape[1], height / picture.shape[0])
            size = (
                max(1, round(picture.shape[1] * scale)),
                max(1, round(picture.shape[0] * scale)),
            )
            picture = cv2.resize(picture, size, interpolation=cv2.INTER_AREA)
        self._cached = (k, picture)
        return picture


def _camera_jpeg(dispute: Dispute) -> bytes | None:
    return next((e.data for e in dispute.evidence if e.kind == "camera"), None)


def _share(move: MoveEntry, game_t: float) -> float:
    span = move.end_t - move.start_t
    return 1.0 if span <= 0 or game_t >= move.end_t else max(0.0, (game_t - move.start_t) / span)


def _captions(
    image: np.ndarray,
    canvas: _Canvas,
    report: BattleReport,
    line: Timeline,
    game_t: float,
    verdict_t: Sequence[float],
    turn: int,
    speed: float,
) -> None:
    top = canvas.table_px + 20
    shown = min(game_t, report.duration)
    minutes, seconds = divmod(shown, 60)
    clock = f"{int(minutes)}:{seconds:04.1f}"
    head = f"{report.game}  {clock}  turn {turn}/{len(report.turns)}  {speed:g}x"
    _text(image, head, (8, top), 0.5, PALETTE["text"])
    upto = bisect.bisect_right(verdict_t, game_t)
    now = line.video_at(shown)
    recent = [
        v
        for t, v in report.verdict_times[max(0, upto - 12) : upto]
        if now - line.video_at(t) <= CAPTION_HOLD
    ][-CAPTION_LINES:]
    if math.isinf(game_t) and report.result is not None:
        recent = [report.result.verdict]
    for j, verdict in enumerate(recent):
        text, colour = _verdict_caption(verdict)
        _text(image, text[:150], (8, top + 24 * (j + 1)), 0.5, colour)
