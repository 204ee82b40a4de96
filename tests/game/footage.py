"""Short footage for the frame loop's tests: the sample's first frames, passes that end soon."""

from __future__ import annotations

import itertools
import time

from referee.vision.sources import FrameSource, VideoFileSource


class First(FrameSource):
    """The first ``n`` frames of a video."""

    def __init__(self, path, n):
        self.source = VideoFileSource(path)
        self.name, self.fps, self.frame_count, self.n = self.source.name, self.source.fps, n, n

    def __iter__(self):
        return itertools.islice(iter(self.source), self.n)

    def close(self):
        self.source.close()


def until(condition, seconds=30.0):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert condition()
