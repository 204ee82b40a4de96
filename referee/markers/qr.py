"""QR codes: encode for printing, decode from camera images.

Decoding uses pyzbar (libzbar) when it loads; on machines without libzbar it
falls back to OpenCV's QR detectors and warns once per process, not per call
(one ``referee: warning:`` line, like every warning of the command).
OpenCV also gets a try when zbar finds nothing, since each reads some small or
tilted codes the other misses.
Encoding uses the ``qrcode`` package and returns the module grid so printers can
draw each dark module as a vector rectangle.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import cv2
import numpy as np
import qrcode
import qrcode.constants
from numpy.typing import NDArray

from referee.errors import warn

#: Set to False to skip pyzbar and always use OpenCV (tests force the fallback this way).
USE_PYZBAR = True

#: White margin a printed QR code needs on every side, in modules (the QR standard's four).
QUIET_ZONE_MODULES = 4

_ERROR_LEVELS = {
    "L": qrcode.constants.ERROR_CORRECT_L,
    "M": qrcode.constants.ERROR_CORRECT_M,
    "Q": qrcode.constants.ERROR_CORRECT_Q,
    "H": qrcode.constants.ERROR_CORRECT_H,
}

_pyzbar: ModuleType | None = None
_pyzbar_tried = False


def pyzbar_available() -> bool:
    """True when libzbar loads (QR decoding is fast); warns once when it does not."""
    return USE_PYZBAR and _load_pyzbar() is not None


def _load_pyzbar() -> ModuleType | None:
    """pyzbar's decoder module, or None (with one warning) when libzbar is missing."""
    global _pyzbar, _pyzbar_tried
    if not _pyzbar_tried:
        _pyzbar_tried = True
        try:
            from pyzbar import pyzbar

            _pyzbar = pyzbar
        except (ImportError, OSError) as error:
            warn(
                f"libzbar not available ({error}); reading QR codes with OpenCV instead, "
                "which is slower and less robust: install libzbar0 for best results"
            )
    return _pyzbar


def encode_qr(text: str, *, error_correction: str = "M") -> NDArray[np.bool_]:
    """The QR code for ``text`` as a square grid of modules, True = dark.

    The grid has no quiet zone: leave :data:`QUIET_ZONE_MODULES` white modules
    on every side when drawing it. ``error_correction`` is one of L, M, Q, H.

    >>> grid = encode_qr("hello")
    >>> grid.shape, grid.dtype.name, bool(grid[0, 0])
    ((21, 21), 'bool', True)
    """
    level = _ERROR_LEVELS.get(error_correction.upper())
    if level is None:
        raise ValueError(f"unknown QR error correction {error_correction!r}; use L, M, Q or H")
    code = qrcode.QRCode(error_correction=level, border=0)
    code.add_data(text)
    code.make(fit=True)
    return np.array(code.get_matrix(), dtype=bool)


def render_qr(text: str, module_px: int = 8, *, error_correction: str = "M") -> NDArray[np.uint8]:
    """A grayscale image of the QR code with its quiet zone (dark = 0, light = 255).

    >>> render_qr("hello", module_px=2).shape
    (58, 58)
    """
    grid = encode_qr(text, error_correction=error_correction)
    padded = np.pad(grid, QUIET_ZONE_MODULES, constant_values=False)
    image = np.where(padded, 0, 255).astype(np.uint8)
    return np.kron(image, np.ones((module_px, module_px), dtype=np.uint8))


def decode_qr(image: NDArray[np.uint8]) -> list[str]:
    """Texts of every QR code readable in ``image`` (grayscale or BGR), each once.

    Codes are ordered top to bottom, then left to right, by their top-left corner.
    An image with no readable code gives ``[]`` (after up to a few seconds of
    trying harder on a 1080p picture); a code whose bytes are not
    UTF-8 is skipped. Raises ``ValueError`` for something that is not an image.

    >>> decode_qr(render_qr("referee"))
    ['referee']
    >>> decode_qr(np.full((50, 50), 255, np.uint8))
    []
    """
    gray = _gray(image)
    pyzbar = _load_pyzbar() if USE_PYZBAR else None
    found = _decode_pyzbar(pyzbar, gray) if pyzbar is not None else []
    if not found:
        # zbar misses some small, tilted codes that OpenCV's detectors still read.
        found = _decode_opencv(gray)
    found.sort(key=lambda item: (item[1][1], item[1][0]))
    texts: list[str] = []
    for text, _ in found:
        if text not in texts:
            texts.append(text)
    return texts


def _gray(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    array: NDArray[Any] = np.asarray(image)
    if array.ndim == 3 and array.shape[2] in (3, 4):
        code = cv2.COLOR_BGR2GRAY if array.shape[2] == 3 else cv2.COLOR_BGRA2GRAY
        array = cv2.cvtColor(array, code)
    if array.ndim != 2 or array.size == 0:
        raise ValueError(f"expected a grayscale or BGR image, got an array of shape {array.shape}")
    if array.dtype != np.uint8:
        array = np.clip(array, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(array)


Found = list[tuple[str, tuple[float, float]]]


def _decode_pyzbar(pyzbar: ModuleType, gray: NDArray[np.uint8]) -> Found:
    found: Found = []
    for symbol in pyzbar.decode(gray, symbols=[pyzbar.ZBarSymbol.QRCODE]):
        try:
            text = symbol.data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        found.append((text, (float(symbol.rect.left), float(symbol.rect.top))))
    return found


def _decode_opencv(gray: NDArray[np.uint8]) -> Found:
    # Each OpenCV detector misses codes the other finds, so take the union of both;
    # both miss small codes that a 2x upscale recovers, tried only when nothing was found.
    found: Found = []
    seen: set[str] = set()
    for scale in (1.0, 2.0):
        if found or (scale > 1 and max(gray.shape) > 2000):
            break
        scaled: NDArray[np.uint8] = np.asarray(
            gray
            if scale == 1.0
            else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC),
            np.uint8,
        )
        detectors: tuple[Any, ...] = (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco())
        for detector in detectors:
            for text, corner in _opencv_pass(detector, scaled):
                if text not in seen:
                    seen.add(text)
                    found.append((text, (corner[0] / scale, corner[1] / scale)))
    return found


def _opencv_pass(detector: Any, gray: NDArray[np.uint8]) -> Found:
    found: Found = []
    try:
        ok, texts, points, _ = detector.detectAndDecodeMulti(gray)
    except cv2.error:
        ok, texts, points = False, (), None
    if ok and points is not None:
        for text, quad in zip(texts, points, strict=False):
            # Found but not decoded (small, tilted or blurred): decode it again straightened out.
            text = text or _rectified(gray, np.asarray(quad, dtype=np.float32).reshape(4, 2))
            if text:
                corner = np.asarray(quad).reshape(-1, 2).min(axis=0)
                found.append((str(text), (float(corner[0]), float(corner[1]))))
    if not found:
        # A lone code is found more reliably by the single-code path.
        try:
            text, quad, _ = detector.detectAndDecode(gray)
        except cv2.error:
            text, quad = "", None
        if text and quad is not None:
            corner = np.asarray(quad).reshape(-1, 2).min(axis=0)
            found.append((str(text), (float(corner[0]), float(corner[1]))))
    return found


def _rectified(gray: NDArray[np.uint8], quad: NDArray[np.float32]) -> str:
    """Decode the code inside ``quad`` after warping it to an upright, larger square."""
    side, pad = 330, 40
    target = np.array(
        [[pad, pad], [pad + side, pad], [pad + side, pad + side], [pad, pad + side]], np.float32
    )
    warp = cv2.getPerspectiveTransform(quad, target)
    square = cv2.warpPerspective(
        gray, warp, (side + 2 * pad,) * 2, flags=cv2.INTER_CUBIC, borderValue=255
    )
    _, binary = cv2.threshold(square, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    detector = cv2.QRCodeDetector()
    for candidate in (binary, square):
        try:
            text = detector.detectAndDecode(candidate)[0]
        except cv2.error:
            continue
        if text:
            return str(text)
    return ""
