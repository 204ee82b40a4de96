"""Frame sources: a camera, a video file, a folder of images or a network stream.

Every source yields immutable :class:`Frame` values numbered from 0 in the
source, with a timestamp in seconds (the container's when it has one, else
``index / fps``). :func:`open_source` picks the kind from the argument: a
whole number is a camera index, a URL (``rtsp://``, ``http://``...) a stream,
a directory a folder of images, anything else a video file.

A camera or stream that stops delivering is reported (a warning through the
``on_warning`` callback) and reopened with growing back-off; the caller's
state (the tracker) is untouched, and frame numbers carry on.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
from numpy.typing import NDArray

from referee.errors import SourceError
from referee.media import camera_index, quiet_libraries, read_image
from referee.outputs import usable_path

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff")
URL_PREFIXES = ("rtsp://", "rtmp://", "http://", "https://", "udp://", "tcp://")


@dataclass(frozen=True)
class Frame:
    """One image from a source."""

    index: int
    """Frame number, counted from 0 in the source."""
    t: float
    """Seconds since the source started."""
    image: NDArray[Any]
    """BGR image (read-only)."""

    def __post_init__(self) -> None:
        if self.image.flags.writeable:
            image = self.image.view()
            image.setflags(write=False)
            object.__setattr__(self, "image", image)


class FrameSource:
    """Base class: iterate to get frames; ``close()`` (or ``with``) releases the device."""

    name: str = "<source>"
    fps: float = 30.0
    frame_count: int | None = None
    """Number of frames when known (files, folders), for progress bars."""
    frame_size: tuple[int, int] | None = None
    """(width, height) of the frames when known before the first is read (files, folders),
    so a command checks it against the profile before it opens any output."""

    def __iter__(self) -> Iterator[Frame]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file; safe to call twice."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fps(capture: cv2.VideoCapture, default: float = 30.0) -> float:
    fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
    return fps if 1.0 <= fps <= 1000.0 else default


class VideoFileSource(FrameSource):
    """A video file decoded with OpenCV (FFmpeg); unreadable files are a :class:`SourceError`."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.name = str(path)
        if not Path(path).is_file():
            raise SourceError(f"{self.name}: no such video file")
        with quiet_libraries():
            self._capture = cv2.VideoCapture(self.name, cv2.CAP_FFMPEG)
            opened = self._capture.isOpened()
            ok, first = self._capture.read() if opened else (False, None)
        if not opened:
            raise SourceError(
                f"{self.name}: cannot read this video (not a video file, or a codec OpenCV lacks)"
            )
        if not ok or first is None:
            self._capture.release()
            raise SourceError(f"{self.name}: cannot decode any frame from this video")
        self._first: NDArray[Any] | None = first
        self.frame_size = (int(first.shape[1]), int(first.shape[0]))
        self.fps = _fps(self._capture)
        count = int(self._capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_count = count if count > 0 else None

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        image = self._first
        stamp: float | None = 0.0  # the first frame starts the clip
        self._first = None
        if image is None:
            return
        last = -1.0
        while image is not None:
            # The container's timestamp when it is usable (variable frame rate), else index/fps.
            t = stamp if stamp is not None and stamp > last else index / self.fps
            last = t
            yield Frame(index, t, image)
            index += 1
            ok, image = self._capture.read()
            stamp = self._stamp()
            if not ok:
                image = None

    def _stamp(self) -> float | None:
        msec = float(self._capture.get(cv2.CAP_PROP_POS_MSEC) or 0.0)
        return msec / 1000.0 if msec > 0 else None

    def close(self) -> None:
        self._capture.release()


class ImageFolderSource(FrameSource):
    """Every jpg/png (and bmp/tif) in a folder, in name order, at a nominal ``fps``."""

    def __init__(self, path: str | os.PathLike[str], fps: float = 30.0) -> None:
        self.name = str(path)
        folder = Path(path)
        self.files = sorted(
            p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()
        )
        if not self.files:
            raise SourceError(f"{self.name}: no jpg or png images in this folder")
        self.fps = fps
        self.frame_count = len(self.files)
        # Decoded, not read from the header: a JPEG's EXIF orientation may turn it.
        first = read_image(self.files[0])
        self.frame_size = (int(first.shape[1]), int(first.shape[0]))

    def __iter__(self) -> Iterator[Frame]:
        for index, file in enumerate(self.files):
            yield Frame(index, index / self.fps, read_image(file))


class LiveSource(FrameSource):
    """A camera index or a network stream; reconnects with back-off when frames stop.

    ``max_retries`` (None = forever) bounds the reopen attempts after a loss;
    when they run out the stream ends with a :class:`SourceError`.
    """

    def __init__(
        self,
        device: int | str,
        width: int | None = None,
        height: int | None = None,
        fps: float | None = None,
        on_warning: Callable[[str], None] | None = None,
        max_retries: int | None = None,
        on_camera: Callable[[str, str], None] | None = None,
        backoff: tuple[float, float] = (0.5, 8.0),
        opener: Callable[[int | str], Any] | None = None,
    ) -> None:
        self.device = device
        self.name = f"camera {device}" if isinstance(device, int) else str(device)
        self.size = (width, height)
        self.requested_fps = fps
        self.on_warning = on_warning or (lambda message: None)
        # Lost/reopened as (kind, message), for a game log; the warning when nobody listens.
        self.on_camera = on_camera or (lambda kind, message: self.on_warning(message))
        self.max_retries = max_retries
        self.backoff = backoff
        self._opener = opener or self._open_capture
        self._capture = self._open()
        if self._capture is None:
            hint = (
                "is it plugged in, and not used by another program?"
                if isinstance(device, int)
                else "check the address, and that the camera or phone app is streaming"
            )
            raise SourceError(f"{self.name}: cannot open ({hint})")
        self.fps = _fps(self._capture, fps or 30.0)

    def _open_capture(self, device: int | str) -> Any:
        # OpenCV's own warnings about missing devices would repeat our one-line message.
        with quiet_libraries():
            return cv2.VideoCapture(device)

    def _open(self) -> Any:
        capture = self._opener(self.device)
        if capture is None or not capture.isOpened():
            return None
        width, height = self.size
        if width:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if self.requested_fps:
            capture.set(cv2.CAP_PROP_FPS, self.requested_fps)
        return capture

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        start = time.monotonic()
        while True:
            ok, image = (False, None) if self._capture is None else self._capture.read()
            if ok and image is not None:
                yield Frame(index, time.monotonic() - start, image)
                index += 1
                continue
            self._reconnect()

    def _reconnect(self) -> None:
        self.on_camera("lost", f"{self.name}: lost the video feed; reopening (tracks are kept)")
        if self._capture is not None:
            self._capture.release()
            self._capture = None
        delay, limit = self.backoff
        attempt = 0
        while self.max_retries is None or attempt < self.max_retries:
            time.sleep(delay)
            attempt += 1
            self._capture = self._open()
            if self._capture is not None:
                self.on_camera(
                    "reopened", f"{self.name}: video feed back after {attempt} attempt(s)"
                )
                return
            delay = min(delay * 2, limit)
        raise SourceError(f"{self.name}: video feed lost and not back after {attempt} attempts")

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


def open_source(
    spec: str | int,
    *,
    width: int | None = None,
    height: int | None = None,
    fps: float | None = None,
    on_warning: Callable[[str], None] | None = None,
    on_camera: Callable[[str, str], None] | None = None,
) -> FrameSource:
    """Open what ``spec`` names: camera index, stream URL, image folder or video file."""
    if isinstance(spec, int) or (spec.isascii() and spec.isdigit()):
        index = camera_index(spec, "camera")
        return LiveSource(index, width, height, fps, on_warning, on_camera=on_camera)
    if spec.lower().startswith(URL_PREFIXES):
        return LiveSource(spec, width, height, fps, on_warning, on_camera=on_camera)
    path = usable_path(spec)
    if path.is_dir():
        return ImageFolderSource(path, fps or 30.0)
    if not path.exists():
        raise SourceError(f"{spec}: no such file, folder or camera")
    return VideoFileSource(path)
