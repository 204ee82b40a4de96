"""Small inputs the bad-input generators of outputs, images and dictionaries share."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np


def png_bytes(width: int, height: int, body: bytes = b"\0" * 10) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` (the pixels need not be there)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(body))
        + chunk(b"IEND", b"")
    )


def tiny_image(path: Path, width: int = 64, height: int = 48) -> Path:
    image = (np.arange(width * height * 3) % 251).astype(np.uint8).reshape(height, width, 3)
    assert cv2.imwrite(str(path), image)
    return path


def tiny_video(path: Path, width: int, height: int, frames: int = 3) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 10, (width, height))
    for k in range(frames):
        writer.write(np.full((height, width, 3), 60 + 40 * k, np.uint8))
    writer.release()
    return path


def dictionary_file(path: Path, count: int = 12, bits: int = 4) -> Path:
    """A dictionary written by OpenCV's own writeDictionary."""
    dictionary = cv2.aruco.extendDictionary(count, bits, randomSeed=7)
    storage = cv2.FileStorage(str(path), cv2.FILE_STORAGE_WRITE)
    dictionary.writeDictionary(storage)
    storage.release()
    return path
