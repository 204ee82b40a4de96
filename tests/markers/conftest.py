"""Helpers for reading printables back: PDF content streams and rasterised pages."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream


@dataclass(frozen=True)
class PdfPage:
    size: tuple[float, float]
    fills: list[tuple[float, tuple[float, float, float, float]]]
    """(gray, (x, y, w, h)) of every filled rectangle, y measured down from the page top."""
    texts: list[str]


def _read_pdf(path: Path) -> list[PdfPage]:
    """Every page's size and filled rectangles, parsed from the content stream itself."""
    reader = PdfReader(str(path))
    pages = []
    for page in reader.pages:
        box = page.mediabox
        width, height = float(box.width), float(box.height)
        gray, path_rects = 0.0, []
        fills, texts = [], []
        for operands, op in ContentStream(page.get_contents(), reader).operations:
            if op == b"g":
                gray = float(operands[0])
            elif op == b"re":
                x, y, w, h = (float(v) for v in operands)
                path_rects.append((x, height - y - h, w, h))
            elif op in (b"f", b"f*"):
                fills.extend((gray, r) for r in path_rects)
                path_rects = []
            elif op in (b"n", b"S", b"s"):
                path_rects = []
            elif op == b"Tj":
                texts.append(str(operands[0]))
        pages.append(PdfPage((width, height), fills, texts))
    return pages


def _detect_tags(image: np.ndarray, dictionary: str) -> dict[int, np.ndarray]:
    """Tag id -> corners (4, 2) in pixels, as OpenCV's ArUco detector sees the image."""
    from referee.tags.layout import get_dictionary

    detector = cv2.aruco.ArucoDetector(get_dictionary(dictionary))
    corners, ids, _ = detector.detectMarkers(image)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}


@pytest.fixture
def opencv_qr(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decode QR codes with the OpenCV fallback, whatever this machine has."""
    from referee.markers import qr

    monkeypatch.setattr(qr, "USE_PYZBAR", False)


@pytest.fixture
def read_pdf():
    """Parse a PDF file into :class:`PdfPage` values."""
    return _read_pdf


@pytest.fixture
def detect_tags():
    """Run OpenCV's ArUco detector: ``detect_tags(image, dictionary) -> {id: corners}``."""
    return _detect_tags
