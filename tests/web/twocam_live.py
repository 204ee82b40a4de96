"""A dashboard's live table over two synthetic cameras (``tests/vision/twocam_vision.py``):
both cameras for ``both`` ticks, then camera 2's recording ends and camera 1 goes on."""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from referee.game import LiveTable
from referee.game.live import Footage
from referee.scene import Scene, Table
from referee.vision.pipeline import Pipeline
from referee.vision.sources import Frame, FrameSource

#: t34 in camera 1's part, pz4 in camera 2's, sq1 in the overlap (seen by both).
PLACE = {"t34": (8.0, 12.0, 0.0), "pz4": (46.0, 12.0, 180.0), "sq1": (28.0, 12.0, 30.0)}


def twocam() -> ModuleType:
    """The two-camera helper of the vision tests (not a package: found by path)."""
    folder = str(Path(__file__).parents[1] / "vision")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module("twocam_vision")


class Ticks(FrameSource):
    """Frame sets made on demand (rendering is most of the time)."""

    def __init__(self, both: int, alone: int) -> None:
        tv = twocam()
        self.both, self.alone = both, alone
        self.name = "cam1 + cam2"
        self.fps = tv.FPS
        self.frame_count = both + alone

    def __iter__(self) -> Iterator[Frame]:
        for k in range(self.both + self.alone):
            yield _tick(k, k < self.both)


@functools.cache
def _tick(k: int, both: bool) -> Frame:
    return twocam().frame_set(k, PLACE, (True, both))


def two_camera_live(both: int = 16, alone: int = 16, **options: Any) -> LiveTable:
    """A live table (not started) over :class:`Ticks`, played at ``pace`` (default 0)."""
    tv = twocam()
    pipeline = Pipeline(tv.profiles(), tv.roster(), source_name=("cam1", "cam2"))
    footage = Footage(lambda: Ticks(both, alone), "cam1 + cam2", pace=options.pop("pace", 0.0))
    scene = Scene("paper-tigers", Table(*tv.TABLE))
    return LiveTable(pipeline, scene, footage=footage, **options)
