"""Frame sources: files, folders, and a camera that drops out and comes back."""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from referee.errors import SourceError
from referee.vision.sources import Frame, ImageFolderSource, LiveSource, open_source


def _image(value: int) -> np.ndarray:
    return np.full((24, 32, 3), value, np.uint8)


def test_frames_are_read_only_values():
    frame = Frame(0, 0.0, _image(5))
    with pytest.raises(ValueError):
        frame.image[0, 0, 0] = 1


def test_image_folder_is_read_in_name_order_with_nominal_times(tmp_path):
    for name, value in [("b.png", 20), ("a.jpg", 10), ("c.png", 30), ("notes.txt", 0)]:
        if name.endswith("txt"):
            (tmp_path / name).write_text("x")
        else:
            cv2.imwrite(str(tmp_path / name), _image(value))
    source = open_source(str(tmp_path), fps=10)
    assert isinstance(source, ImageFolderSource) and source.frame_count == 3
    frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2]
    assert [f.t for f in frames] == pytest.approx([0.0, 0.1, 0.2])
    assert [int(f.image.mean()) for f in frames] == pytest.approx([10, 20, 30], abs=2)


def test_video_file_frames_and_timestamps(tmp_path):
    path = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 20.0, (32, 24))
    for i in range(5):
        writer.write(_image(40 * i))
    writer.release()
    source = open_source(str(path))
    frames = list(source)
    source.close()
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert frames[4].t == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "missing.mp4", "no such file"),
        (lambda p: (p / "bad.mp4").write_bytes(b"garbage") and p / "bad.mp4", "cannot"),
        (lambda p: (p / "empty").mkdir() or p / "empty", "no jpg or png"),
    ],
)
def test_unreadable_sources_are_source_errors(tmp_path, make, message):
    with pytest.raises(SourceError, match=message):
        open_source(str(make(tmp_path)))


class FlakyCamera:
    """Delivers frames, then fails reads (unplugged), then works again after reopening."""

    def __init__(self, script):
        self.script = script  # shared list of ("frame", value) / ("fail",)

    def isOpened(self):
        return True

    def set(self, *args):
        return True

    def get(self, prop):
        return 30.0

    def read(self):
        if not self.script:
            raise KeyboardInterrupt  # end of the test's footage
        step = self.script.pop(0)
        if step[0] == "fail":
            return False, None
        return True, _image(step[1])

    def release(self):
        pass


def test_lost_camera_is_reported_and_reopened_keeping_frame_numbers():
    script = [("frame", 1), ("frame", 2), ("fail",), ("frame", 3)]
    opened = []
    warnings = []

    def opener(device):
        opened.append(device)
        return FlakyCamera(script)

    source = LiveSource(0, on_warning=warnings.append, opener=opener, backoff=(0.0, 0.0))
    frames = []
    with pytest.raises(KeyboardInterrupt):
        for frame in source:
            frames.append(frame)
    assert [f.index for f in frames] == [0, 1, 2]
    assert [int(f.image.mean()) for f in frames] == [1, 2, 3]
    assert opened == [0, 0]
    assert "lost the video feed" in warnings[0] and "back" in warnings[1]


def test_camera_that_never_comes_back_ends_with_a_source_error():
    class Dead(FlakyCamera):
        def isOpened(self):
            return False

    calls = []

    def opener(device):
        calls.append(device)
        return FlakyCamera([("frame", 1), ("fail",)]) if len(calls) == 1 else Dead([])

    source = LiveSource(1, opener=opener, max_retries=3, backoff=(0.0, 0.0))
    with pytest.raises(SourceError, match="not back after 3 attempts"):
        list(source)


def test_unopenable_camera_is_a_source_error():
    class Dead(FlakyCamera):
        def isOpened(self):
            return False

    with pytest.raises(SourceError, match="camera 7: cannot open"):
        LiveSource(7, opener=lambda d: Dead([]))


def test_a_primed_camera_knows_its_frame_size_and_yields_the_primed_frame_first():
    source = LiveSource(0, opener=lambda d: FlakyCamera([("frame", 5), ("frame", 6)]))
    assert source.frame_size is None and source.peek() is None
    source.prime()
    assert source.frame_size == (32, 24)
    assert int(source.peek().mean()) == 5
    frames = []
    with pytest.raises(KeyboardInterrupt):
        for frame in source:
            frames.append(frame)
    assert [(f.index, int(f.image.mean())) for f in frames] == [(0, 5), (1, 6)]


def test_a_camera_that_gives_no_first_frame_is_a_source_error():
    never = threading.Event()

    class Silent(FlakyCamera):
        def read(self):
            never.wait()  # a stream that accepts the connection but never sends
            return False, None

    source = LiveSource(3, opener=lambda d: Silent([]))
    with pytest.raises(SourceError, match=r"camera 3: opened but gave no frame within 0.05s"):
        source.prime(timeout=0.05)
    never.set()
    source.close()
    failing = LiveSource(4, opener=lambda d: FlakyCamera([("fail",)]))
    with pytest.raises(SourceError, match="camera 4: opened but its first frame could not"):
        failing.prime()
