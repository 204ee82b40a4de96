"""Where a live table's frames come from: a source opened afresh each pass, and paced.

A recording plays at a multiple of real time (the dashboard shows it as it would be
live); a camera or stream is never paced or looped.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from referee.vision.sources import Frame, FrameSource


@dataclass(frozen=True)
class Footage:
    """Where frames come from: a factory opening the source afresh for each pass."""

    open: Callable[[], FrameSource]
    name: str
    loop: bool = False
    """Play again from the start when the source ends (the bundled sample)."""
    pace: float = 1.0
    """Play recordings at this multiple of real time (0: as fast as the pipeline goes)."""
    live: bool = False
    """A camera or stream: never paced, never looped."""


class Paced(FrameSource):
    """A recording played at ``speed`` times real time, until ``stop`` is set."""

    def __init__(self, source: FrameSource, speed: float, stop: threading.Event) -> None:
        self.source = source
        self.speed = speed
        self.stop = stop
        self.name = source.name
        self.fps = source.fps
        self.frame_count = source.frame_count

    def __iter__(self) -> Iterator[Frame]:
        start: float | None = None
        first = 0.0
        for frame in self.source:
            if self.stop.is_set():
                return
            if self.speed > 0:
                if start is None:
                    start, first = time.monotonic(), frame.t
                wait = start + (frame.t - first) / self.speed - time.monotonic()
                if wait > 0 and self.stop.wait(wait):
                    return
            yield frame

    def close(self) -> None:
        self.source.close()


__all__ = ["Footage", "Paced"]
