"""Images and cameras a user names, checked before OpenCV sees them.

An image's size is read from its own header (PNG, JPEG, BMP, TIFF) before any pixel is
decoded, so a 100,000 x 100,000 header is refused in a moment instead of asking for
30 GB, and a file OpenCV would print its own complaint about never reaches it.
The limits (README: "Bad input"): at most :data:`MAX_IMAGE_SIDE` pixels a side and
:data:`MAX_IMAGE_PIXELS` in all, far beyond any camera that looks at a table.
"""

from __future__ import annotations

import io
import os
import struct
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from referee.errors import SourceError
from referee.outputs import usable_path

#: Longest side of an image the referee reads, pixels (an 8K camera is 7680).
MAX_IMAGE_SIDE = 20_000

#: Most pixels in one image (a 100-megapixel photograph; 300 MB as BGR).
MAX_IMAGE_PIXELS = 100_000_000

#: Largest image file read, bytes: an uncompressed image at the pixel limit, and a margin.
MAX_IMAGE_BYTES = 512 * 1024 * 1024

# FFmpeg's own complaints about a damaged video ("moov atom not found") would repeat the
# referee's one line; set before OpenCV starts its FFmpeg backend (a user's setting wins).
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")


class _Quiet:
    """Who is inside :func:`quiet_libraries`: file descriptor 2 points at the null device
    from the first one in to the last one out (a reference count under a lock), so decodes
    on several threads neither wait for each other nor restore fd 2 under one another."""

    lock = threading.Lock()
    inside = 0
    saved_fd: int | None = None
    level = 0


def _own_stderr() -> None:
    """Point Python's ``sys.stderr`` at a duplicate of file descriptor 2 when it writes to
    fd 2 itself, so what any thread writes through it (warnings, errors, progress bars)
    never goes where fd 2 is sent while a decoder runs; the terminal (or pipe) is the same."""
    stream = sys.stderr
    try:
        if stream is None or stream.fileno() != 2:
            return  # already its own, or captured (tests): fd 2 is not where it writes
        stream.flush()
        encoding, errors = stream.encoding, stream.errors
        # Unbuffered like the interpreter's own: every write reaches the fd at once.
        own = io.TextIOWrapper(
            io.FileIO(os.dup(2), "w"),
            encoding=encoding,
            errors=errors,
            line_buffering=True,
            write_through=True,
        )
    except (OSError, ValueError, AttributeError):
        return  # no stderr to keep
    sys.stderr = own


_own_stderr()


def _silence_fd2() -> int | None:
    """Point fd 2 at the null device; a duplicate of what it was (None: no fd 2)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return None
    saved: int | None = None
    try:
        saved = os.dup(2)
        os.dup2(devnull, 2)
    except OSError:
        if saved is not None:
            os.close(saved)
        return None
    finally:
        os.close(devnull)
    return saved


@contextmanager
def quiet_libraries() -> Iterator[None]:
    """OpenCV and the codec libraries under it (libpng, libjpeg, libtiff, FFmpeg) print their
    own complaints; around a decode or an open they go nowhere, and the referee says what
    went wrong in its own one line.

    OpenCV's own log is set silent, and file descriptor 2 (where libpng and libjpeg write
    with no level to set) points at the null device while any thread is inside. Python's
    ``sys.stderr`` writes to its own duplicate of fd 2 (:func:`_own_stderr`), so another
    thread's message written meanwhile still arrives.
    """
    import cv2

    with _Quiet.lock:
        if _Quiet.inside == 0:
            _own_stderr()  # sys.stderr may have been put back since the import
            _Quiet.level = cv2.utils.logging.getLogLevel()
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
            _Quiet.saved_fd = _silence_fd2()
        _Quiet.inside += 1
    try:
        yield
    finally:
        with _Quiet.lock:
            _Quiet.inside -= 1
            if _Quiet.inside == 0:
                if _Quiet.saved_fd is not None:
                    os.dup2(_Quiet.saved_fd, 2)
                    os.close(_Quiet.saved_fd)
                    _Quiet.saved_fd = None
                cv2.utils.logging.setLogLevel(_Quiet.level)


#: Highest camera index: OpenCV keeps an index in a C int, and no machine has more cameras.
MAX_CAMERA_INDEX = 9999

_PNG = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers (every coding but the DHT/JPG/DAC markers in the same range).
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


class _Short(Exception):
    """The header ends before it says what it must."""


def _read(handle: IO[bytes], count: int) -> bytes:
    data = handle.read(count)
    if len(data) != count:
        raise _Short
    return data


def _png_size(handle: IO[bytes]) -> tuple[int, int]:
    _read(handle, 8)
    length, kind = struct.unpack(">I4s", _read(handle, 8))
    if kind != b"IHDR" or length < 8:
        raise _Short
    width, height = struct.unpack(">II", _read(handle, 8))
    return width, height


def _jpeg_size(handle: IO[bytes]) -> tuple[int, int]:
    _read(handle, 2)
    # Segments one after another, each skipped by its length: linear in the header's size.
    while True:
        byte = _read(handle, 1)
        if byte != b"\xff":
            raise _Short
        marker = _read(handle, 1)[0]
        while marker == 0xFF:  # fill bytes
            marker = _read(handle, 1)[0]
        if marker in (0x01, *range(0xD0, 0xD8)):
            continue  # standalone markers carry no length
        if marker in (0xD9, 0xDA):
            raise _Short  # image end or scan start before any frame header
        (length,) = struct.unpack(">H", _read(handle, 2))
        if length < 2:
            raise _Short
        if marker in _SOF:
            _, height, width = struct.unpack(">BHH", _read(handle, 5))
            return width, height
        handle.seek(length - 2, os.SEEK_CUR)


def _bmp_size(handle: IO[bytes]) -> tuple[int, int]:
    header = _read(handle, 26)
    (info,) = struct.unpack("<I", header[14:18])
    if info == 12:
        width, height = struct.unpack("<HH", header[18:22])
        return width, height
    width, height = struct.unpack("<ii", header[18:26])
    return abs(width), abs(height)


def _tiff_size(handle: IO[bytes]) -> tuple[int, int]:
    order = "<" if _read(handle, 2) == b"II" else ">"
    _read(handle, 2)
    (offset,) = struct.unpack(order + "I", _read(handle, 4))
    handle.seek(offset)
    (count,) = struct.unpack(order + "H", _read(handle, 2))
    found: dict[int, int] = {}
    for _ in range(min(count, 4096)):
        tag, kind, _n, raw = struct.unpack(order + "HHI4s", _read(handle, 12))
        if tag in (256, 257):
            if kind == 3:
                (found[tag],) = struct.unpack(order + "H", raw[:2])
            elif kind == 4:
                (found[tag],) = struct.unpack(order + "I", raw)
            else:
                raise _Short
    if 256 not in found or 257 not in found:
        raise _Short
    return found[256], found[257]


def image_size(path: str | os.PathLike[str]) -> tuple[int, int]:
    """(width, height) from the file's header, without decoding it.

    A file that is no PNG, JPEG, BMP or TIFF image, or whose header is cut short, is a
    :class:`SourceError` naming it.
    """
    name = str(path)
    try:
        with open(path, "rb") as handle:
            magic = handle.read(8)
            handle.seek(0)
            try:
                if magic.startswith(_PNG):
                    return _png_size(handle)
                if magic.startswith(b"\xff\xd8"):
                    return _jpeg_size(handle)
                if magic.startswith(b"BM"):
                    return _bmp_size(handle)
                if magic[:4] in (b"II*\x00", b"MM\x00*"):
                    return _tiff_size(handle)
            except (_Short, struct.error, OSError, ValueError):
                raise SourceError(
                    f"{name}: cannot read image (its header is damaged or cut short); save it again"
                ) from None
    except FileNotFoundError:
        raise SourceError(f"{name}: no such image") from None
    except IsADirectoryError:
        raise SourceError(f"{name}: is a folder, not an image") from None
    except OSError as error:
        raise SourceError(f"{name}: cannot read ({error.strerror})") from None
    raise SourceError(f"{name}: cannot read image (not a PNG, JPEG, BMP or TIFF file)")


def check_image_size(width: int, height: int, name: str) -> None:
    """An image of ``width`` x ``height`` within the limits, else one line saying so."""
    if width <= 0 or height <= 0:
        raise SourceError(f"{name}: the image's header says it is {width}x{height} pixels")
    if max(width, height) > MAX_IMAGE_SIDE or width * height > MAX_IMAGE_PIXELS:
        raise SourceError(
            f"{name}: the image is {width}x{height} pixels; the referee reads images of at "
            f"most {MAX_IMAGE_SIDE} pixels a side and {MAX_IMAGE_PIXELS // 1_000_000} "
            "megapixels; scale it down"
        )


def read_image(path: str | os.PathLike[str], grayscale: bool = False) -> NDArray[Any]:
    """The image at ``path`` (BGR, or one channel with ``grayscale``), its size checked first.

    Anything wrong (no such file, not an image, too big, damaged pixels) is a
    :class:`SourceError` naming the file, never OpenCV's own text.
    """
    import cv2

    name = str(path)
    usable_path(path)
    width, height = image_size(path)
    check_image_size(width, height, name)
    try:
        if Path(path).stat().st_size > MAX_IMAGE_BYTES:
            raise SourceError(
                f"{name}: the file is over {MAX_IMAGE_BYTES // 2**20} MB; no image the referee "
                "reads is that big"
            )
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as error:
        raise SourceError(f"{name}: cannot read ({error.strerror})") from None
    flags = cv2.IMREAD_GRAYSCALE if grayscale else cv2.IMREAD_COLOR
    try:
        with quiet_libraries():
            image = cv2.imdecode(data, flags)
    except cv2.error:
        image = None
    if image is None:
        raise SourceError(f"{name}: cannot read image (damaged, or a kind OpenCV lacks)")
    return np.asarray(image)


def camera_index(value: int | str, option: str = "--camera") -> int:
    """A camera index OpenCV can take: a whole number from 0 to :data:`MAX_CAMERA_INDEX`."""
    text = str(value)
    digits = text.isascii() and text.isdigit() and len(text) <= len(str(MAX_CAMERA_INDEX))
    if not digits or int(text) > MAX_CAMERA_INDEX:
        shown = text if len(text) <= 30 else f"{text[:20]}... ({len(text)} characters)"
        raise SourceError(
            f"{option} {shown}: a camera index is a whole number from 0 to {MAX_CAMERA_INDEX} "
            "(0 is the first camera)"
        )
    return int(text)
