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

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
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

#: Seconds a camera or stream may take to give its first frame (a webcam warms up in one or
#: two) before a command says it gives none.
FIRST_FRAME_TIMEOUT = 10.0


@dataclass(frozen=True)
class Frame:
    """One image from a source."""

    index: int
    """Frame number, counted from 0 in the source."""
    t: float
    """Seconds since the source started."""
    image: NDArray[Any]
    """BGR image (read-only); with several cameras, the first camera's (or the first
    present view's when it has none this tick)."""
    views: tuple[Frame | None, ...] = ()
    """Several cameras (a :class:`MultiSource` tick): each camera's frame, in camera order,
    None for a camera without a frame this tick. Empty for one camera."""

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

    def peek(self) -> NDArray[Any] | None:
        """The first frame without consuming it, when it is known before iterating (files,
        folders, a primed camera): a command checks the camera's view with it before opening
        any output."""
        return None

    def prime(self, timeout: float | None = None) -> None:
        """Read the first frame now when it is not known yet (a camera), so ``frame_size``
        and ``peek()`` are; files and folders read theirs when opened."""

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

    def peek(self) -> NDArray[Any] | None:
        return self._first

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
        self._first = first

    def peek(self) -> NDArray[Any] | None:
        return self._first

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
        self.epoch: float | None = None
        """Start of the clock frame times count from (``time.monotonic()``); None: the first
        frame read. Cameras read together share one epoch so their times compare."""
        self._first: NDArray[Any] | None = None
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

    def prime(self, timeout: float | None = None) -> None:
        """Read the first frame now, so its size and view are checked before a command opens
        any output or game log; iterating yields it first (nothing is lost).

        A camera that gives no frame within ``timeout`` seconds (default
        :data:`FIRST_FRAME_TIMEOUT`), or fails its first read, is a :class:`SourceError`.
        """
        if self._first is not None or self._capture is None:
            return
        timeout = FIRST_FRAME_TIMEOUT if timeout is None else timeout
        capture = self._capture
        got: list[tuple[bool, Any]] = []
        abandoned = threading.Event()
        lock = threading.Lock()

        def read() -> None:
            result = capture.read()
            with lock:
                got.append(result)
                if abandoned.is_set():
                    capture.release()  # nobody waits any more; released here, not under read

        # A read that never returns (a stream that accepts but never sends) cannot be
        # interrupted: it runs on a daemon thread and is given up after the timeout.
        reader = threading.Thread(target=read, name=f"first frame {self.name}", daemon=True)
        reader.start()
        reader.join(timeout)
        with lock:
            if not got:
                abandoned.set()
                self._capture = None
                raise SourceError(
                    f"{self.name}: opened but gave no frame within {timeout:g}s (is another "
                    "program using it, or is the stream not sending?)"
                )
        ok, image = got[0]
        if not ok or image is None:
            self.close()
            raise SourceError(
                f"{self.name}: opened but its first frame could not be read (is another "
                "program using it?)"
            )
        self._first = image
        self.frame_size = (int(image.shape[1]), int(image.shape[0]))

    def peek(self) -> NDArray[Any] | None:
        return self._first

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        start = time.monotonic() if self.epoch is None else self.epoch
        while True:
            ok: bool
            image: NDArray[Any] | None
            if self._first is not None:  # read by prime(), before iterating
                ok, image = True, self._first
                self._first = None
            else:
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


def match_frames(streams: Sequence[Iterable[Frame]], period: float) -> Iterator[Frame]:
    """Frame sets from several cameras' frames, matched by timestamp (recordings).

    Each tick is at the earliest pending frame's time; it holds each camera's latest
    frame within half a ``period`` of it (older ones in that window are skipped: that
    camera runs faster), and None for a camera without one, which contributes nothing
    that tick. A camera whose file ends early leaves the others going on.
    """
    half = period / 2.0
    iterators = [iter(s) for s in streams]
    pending: list[Frame | None] = [next(it, None) for it in iterators]
    tick = 0
    while any(f is not None for f in pending):
        now = min(f.t for f in pending if f is not None)
        views: list[Frame | None] = []
        for k, it in enumerate(iterators):
            taken: Frame | None = None
            while (frame := pending[k]) is not None and frame.t <= now + half:
                taken = frame
                pending[k] = next(it, None)
            views.append(taken)
        yield _frame_set(tick, now, views)
        tick += 1


def _frame_set(tick: int, t: float, views: Sequence[Frame | None]) -> Frame:
    first = views[0] if views[0] is not None else next(v for v in views if v is not None)
    return Frame(tick, t, first.image, tuple(views))


class _Reader:
    """A live camera read on its own thread: the latest frame and its capture time, so a
    camera that stalls or reconnects holds up nobody."""

    def __init__(self, source: FrameSource) -> None:
        self.source = source
        self.frames: queue.Queue[Frame | BaseException | None] = queue.Queue(maxsize=4)
        self.thread = threading.Thread(target=self._read, name=f"read {source.name}", daemon=True)
        self.stopping = threading.Event()

    def _read(self) -> None:
        try:
            for frame in self.source:
                if self.stopping.is_set():
                    return
                if self.frames.full():
                    # The consumer is behind: the oldest frame is dropped, not the newest.
                    with contextlib.suppress(queue.Empty):
                        self.frames.get_nowait()
                self.frames.put(frame)
            self.frames.put(None)
        except BaseException as error:  # handed to the consumer, which decides
            self.frames.put(error)


class MultiSource(FrameSource):
    """Several cameras over one table, yielding one frame set per tick (``Frame.views``).

    Recordings are matched by frame time (frame index / fps, or the container's time);
    live cameras by capture time on one shared clock, one tick per frame period, each
    camera read on its own thread. A camera whose feed is lost is reconnected by its own
    source while the others go on.
    """

    def __init__(self, sources: Sequence[FrameSource]) -> None:
        if len(sources) < 2:
            raise SourceError("several cameras need at least two sources")
        self.sources = tuple(sources)
        self.name = " + ".join(s.name for s in sources)
        # The fastest camera sets the tick: a slower one contributes to every other tick.
        self.fps = max(s.fps for s in sources)
        counts = [s.frame_count for s in sources]
        self.frame_count = None if None in counts else max(c for c in counts if c is not None)
        self.frame_size = sources[0].frame_size
        self.live = any(isinstance(s, LiveSource) for s in sources)

    def __iter__(self) -> Iterator[Frame]:
        if not self.live:
            yield from match_frames(self.sources, 1.0 / self.fps)
            return
        yield from self._live()

    def _live(self) -> Iterator[Frame]:
        epoch = time.monotonic()
        for source in self.sources:
            if isinstance(source, LiveSource):
                source.epoch = epoch
        readers = [_Reader(s) for s in self.sources]
        for reader in readers:
            reader.thread.start()
        period = 1.0 / self.fps
        latest: list[Frame | None] = [None] * len(readers)
        ended: list[bool] = [False] * len(readers)
        errors: list[BaseException] = []
        tick = 0
        try:
            while not all(ended):
                due = epoch + (tick + 1) * period
                time.sleep(max(due - time.monotonic(), 0.0))
                for k, reader in enumerate(readers):
                    while True:
                        try:
                            item = reader.frames.get_nowait()
                        except queue.Empty:
                            break
                        if isinstance(item, BaseException):
                            errors.append(item)
                            ended[k] = True
                        elif item is None:
                            ended[k] = True
                        else:
                            latest[k] = item
                fresh = [f for f in latest if f is not None]
                if fresh:
                    # The tick is at the newest capture; each camera's latest frame within half
                    # a period of it counts, an older one (a stalled camera) contributes nothing.
                    now = max(f.t for f in fresh)
                    views = [
                        f if f is not None and now - f.t <= period / 2 else None for f in latest
                    ]
                    yield _frame_set(tick, now, views)
                    latest = [None] * len(readers)
                tick += 1
        finally:
            for reader in readers:
                reader.stopping.set()
        if errors:
            raise errors[0]

    def close(self) -> None:
        for source in self.sources:
            source.close()
