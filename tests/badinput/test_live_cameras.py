"""A live camera whose frames do not fit its profile: refused before the game log is opened.

A camera's frame size is known only from a frame, so ``run`` and ``serve`` read the first
one before anything is opened (issue 30): a camera at another resolution than its
calibration profile, or one that gives no frame at all, is one ``referee: error:`` line and
exit 2, and the game log keeps exactly the games it had (no empty game is left in it).
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import SAMPLE, assert_clean, examples, invoke, snapshot
from referee.store import GameLog
from referee.vision import sources
from referee.vision.sources import LiveSource

PROFILE_SIZE = (1920, 1080)
"""The sample profile's resolution (``sample_footage/skirmish/camera.json``)."""


class FakeCamera:
    """A camera giving black frames of ``size``, or none at all while ``silent`` is unset."""

    def __init__(self, size: tuple[int, int], silent: threading.Event | None = None) -> None:
        self.size, self.silent = size, silent

    def isOpened(self) -> bool:
        return True

    def set(self, *args: object) -> bool:
        return True

    def get(self, prop: int) -> float:
        return 30.0

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.silent is not None:
            self.silent.wait()
            return False, None
        return True, np.zeros((self.size[1], self.size[0], 3), np.uint8)

    def release(self) -> None:
        pass


def _log_with_a_game(work: Path) -> Path:
    db = work / "games.sqlite"
    with GameLog(db) as log:
        log.release(log.create_game("earlier", "plastic-skirmish", {}))
    return db


def _command(kind: str, db: Path) -> list[str]:
    inputs = ["-c", str(SAMPLE / "camera.json"), "-r", str(SAMPLE / "roster.json")]
    return [kind, "--camera", "0", *inputs, "--db", str(db)]


def _refused(work: Path, kind: str, message: str) -> None:
    db = _log_with_a_game(work)
    before = snapshot(work)
    result = invoke(*_command(kind, db))
    assert_clean(result)
    assert result.exit_code == 2, result.output
    assert message in result.stderr, result.stderr
    assert snapshot(work) == before  # the log byte for byte as it was: no new game
    with GameLog(db) as log:
        assert [g.name for g in log.games()] == ["earlier"]


@settings(max_examples=examples(4), deadline=None)
@given(
    kind=st.sampled_from(["run", "serve"]),
    size=st.tuples(st.integers(1, 2560), st.integers(1, 1440)).filter(lambda s: s != PROFILE_SIZE),
)
def test_a_camera_at_another_resolution_is_refused_before_the_game_log(
    tmp_path_factory: pytest.TempPathFactory, kind: str, size: tuple[int, int]
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LiveSource, "_open_capture", lambda self, device: FakeCamera(size))
        _refused(
            tmp_path_factory.mktemp("live"),
            kind,
            f"camera 0: frames are {size[0]}x{size[1]} but the calibration profile is for "
            f"{PROFILE_SIZE[0]}x{PROFILE_SIZE[1]} images",
        )


@pytest.mark.parametrize("kind", ["run", "serve"])
def test_a_camera_that_gives_no_frame_is_refused_before_the_game_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    silent = threading.Event()
    monkeypatch.setattr(sources, "FIRST_FRAME_TIMEOUT", 0.05)
    monkeypatch.setattr(LiveSource, "_open_capture", lambda self, d: FakeCamera((1, 1), silent))
    try:
        _refused(tmp_path, kind, "camera 0: opened but gave no frame within 0.05s")
    finally:
        silent.set()
