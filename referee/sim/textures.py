"""Top-down table art: felt cloth and terrain pieces laid on it, as a texture in table inches.

Texture pixel ``(col, row)`` covers table ``x`` in ``[col/ppi, (col+1)/ppi)``
and ``y`` likewise, so the texture is drawn with its top-left edge at the
table origin. Deterministic for a given seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]

CLOTHS: dict[str, tuple[int, int, int]] = {"green": (62, 112, 74), "brown": (70, 98, 122)}

#: Felt/print colours per terrain kind (BGR).
TERRAIN_COLOURS: dict[str, tuple[int, int, int]] = {
    "woods": (40, 78, 48),
    "building": (128, 136, 146),
    "hill": (70, 120, 112),
    "difficult": (66, 96, 104),
    "rough": (66, 96, 104),
    "road": (120, 160, 186),
    "river": (150, 110, 60),
    "water": (150, 110, 60),
    "bridge": (70, 100, 130),
    "wall": (150, 150, 150),
    "open": (72, 120, 84),
    "objective": (60, 150, 190),
}


def _noise(shape: tuple[int, int], rng: np.random.Generator, scales: Sequence[float]) -> NDArray:
    """Sum of blurred white noise at several scales (pixels), unit-ish amplitude."""
    total = np.zeros(shape, np.float32)
    for scale in scales:
        small = (max(int(shape[1] / scale), 2), max(int(shape[0] / scale), 2))
        layer = rng.normal(0, 1, (small[1], small[0])).astype(np.float32)
        layer = np.asarray(
            cv2.resize(layer, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC), np.float32
        )
        total = total + np.asarray(layer, np.float32) / math.sqrt(len(scales))
    return total


def cloth_texture(
    width: float, depth: float, ppi: float, seed: int = 0, cloth: str = "green"
) -> Image:
    """A felt mat ``width`` x ``depth`` inches at ``ppi`` texels per inch (BGR uint8)."""
    rng = np.random.default_rng(seed)
    shape = (max(round(depth * ppi), 2), max(round(width * ppi), 2))
    base = np.array(CLOTHS.get(cloth, CLOTHS["green"]), np.float32)
    broad = _noise(shape, rng, [ppi * 6, ppi * 2])
    fine = rng.normal(0, 1, shape).astype(np.float32)
    image = base[None, None, :] * (1 + 0.06 * broad[:, :, None]) + 5 * fine[:, :, None]
    return np.clip(image, 0, 255).astype(np.uint8)


def terrain_layer(
    cloth: Image,
    ppi: float,
    terrain: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    seed: int = 0,
) -> Image:
    """The cloth with terrain pieces laid on it (a copy)."""
    image = cloth.copy()
    rng = np.random.default_rng(seed + 1)
    shift = 4
    for kind, polygon in terrain:
        poly = np.asarray(polygon, float)
        pts = np.round(poly * ppi * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)
        colour = TERRAIN_COLOURS.get(kind, (90, 110, 110))
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, shift)
        patch = np.empty_like(image)
        patch[:] = colour
        if kind == "woods":
            _trees(patch, mask, ppi, rng)
        elif kind == "hill":
            _contours(patch, poly, ppi, colour)
        elif kind in ("river", "water"):
            ripples = _noise(image.shape[:2], rng, [ppi * 0.8])
            patch = np.clip(patch + 10 * ripples[:, :, None], 0, 255).astype(np.uint8)
        elif kind == "road":
            grit = rng.normal(0, 7, image.shape[:2]).astype(np.float32)
            patch = np.clip(patch + grit[:, :, None], 0, 255).astype(np.uint8)
        elif kind == "bridge":
            _planks(patch, poly, ppi)
        alpha = (mask.astype(np.float32) / 255)[:, :, None]
        image = (image * (1 - alpha) + patch * alpha).astype(np.uint8)
        cv2.polylines(
            image, [pts], True, _darker(colour), max(int(ppi * 0.06), 1), cv2.LINE_AA, shift
        )
    return image


def _darker(colour: Sequence[int]) -> tuple[int, int, int]:
    return (int(colour[0] * 0.7), int(colour[1] * 0.7), int(colour[2] * 0.7))


def _trees(patch: Image, mask: Image, ppi: float, rng: np.random.Generator) -> None:
    """Tree canopies: overlapping dark and light green blobs inside the woods felt."""
    ys, xs = np.nonzero(mask > 128)
    if len(xs) == 0:
        return
    count = max(int(len(xs) / (ppi * ppi) / 2.5), 1)
    picks = rng.integers(0, len(xs), count)
    for i in picks:
        radius = int(ppi * rng.uniform(0.6, 1.1))
        centre = (int(xs[i]), int(ys[i]))
        green = (int(rng.integers(25, 45)), int(rng.integers(70, 105)), int(rng.integers(30, 55)))
        cv2.circle(patch, centre, radius, (20, 45, 25), -1, cv2.LINE_AA)
        cv2.circle(
            patch,
            (centre[0] - radius // 5, centre[1] - radius // 5),
            int(radius * 0.85),
            green,
            -1,
            cv2.LINE_AA,
        )


def _contours(patch: Image, poly: NDArray, ppi: float, colour: Sequence[int]) -> None:
    centre = poly.mean(axis=0)
    for k, scale in enumerate((0.7, 0.4)):
        ring = centre + (poly - centre) * scale
        pts = np.round(ring * ppi).astype(np.int32).reshape(-1, 1, 2)
        lighter = tuple(int(min(c * (1.08 + 0.06 * k), 255)) for c in colour)
        cv2.fillPoly(patch, [pts], lighter, cv2.LINE_AA)
        cv2.polylines(patch, [pts], True, _darker(colour), max(int(ppi * 0.04), 1), cv2.LINE_AA)


def _planks(patch: Image, poly: NDArray, ppi: float) -> None:
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    long_x = (hi[0] - lo[0]) >= (hi[1] - lo[1])
    step = 0.3
    count = int(((hi[1] - lo[1]) if long_x else (hi[0] - lo[0])) / step) + 1
    for k in range(count):
        if long_x:
            y = int((lo[1] + k * step) * ppi)
            cv2.line(patch, (int(lo[0] * ppi), y), (int(hi[0] * ppi), y), (50, 70, 95), 1)
        else:
            x = int((lo[0] + k * step) * ppi)
            cv2.line(patch, (x, int(lo[1] * ppi)), (x, int(hi[1] * ppi)), (50, 70, 95), 1)
