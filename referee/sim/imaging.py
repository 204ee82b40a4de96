"""Camera imperfections applied to clean renders: defocus, light falloff, sensor noise.

Motion blur is not here: the simulator averages sub-frame renders over the
exposure while something moves, which blurs exactly what moves. Compression
happens in the video writer. Deterministic for a given seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]

_NOISE_BANK = 6


@dataclass(eq=False)
class Imager:
    """Applies one camera's optics and sensor to frames of size ``(width, height)``."""

    size: tuple[int, int]
    blur: float = 0.5
    noise: float = 2.0
    vignetting: float = 0.25
    light: float = 0.12
    seed: int = 0
    _gain: NDArray[np.float32] | None = field(default=None, init=False, repr=False)
    _bank: list[NDArray[np.int16]] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        width, height = self.size
        rng = np.random.default_rng(self.seed + 99)
        if self.vignetting or self.light:
            ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
            cx, cy = (width - 1) / 2, (height - 1) / 2
            r2 = ((xs - cx) ** 2 + (ys - cy) ** 2) / (cx**2 + cy**2)
            gain = 1.0 - self.vignetting * r2
            # A lamp off to one side: a broad gradient plus a soft warm spot.
            sx, sy = rng.uniform(0.2, 0.8) * width, rng.uniform(0.2, 0.8) * height
            spot = np.exp(-(((xs - sx) / width) ** 2 + ((ys - sy) / height) ** 2) * 3)
            gradient = (xs / width - 0.5) * rng.choice([-1.0, 1.0])
            gain *= 1.0 + self.light * (0.6 * gradient + spot - 0.5)
            self._gain = gain.astype(np.float32)[:, :, None]
        if self.noise:
            for _ in range(_NOISE_BANK):
                sample = rng.normal(0, self.noise, (height, width, 3))
                self._bank.append(np.round(sample).astype(np.int16))
        self._rng = np.random.default_rng(self.seed + 5)

    def apply(self, frame: Image) -> Image:
        """A new frame with defocus, light falloff and noise (the input is untouched)."""
        out: NDArray[Any] = frame
        if self.blur > 0:
            out = cv2.GaussianBlur(out, (0, 0), self.blur)
        if self._gain is not None:
            out = cv2.multiply(out.astype(np.float32), np.broadcast_to(self._gain, out.shape))
            out = np.clip(out, 0, 255).astype(np.uint8) if self.noise == 0 else out
        if self.noise:
            noise = self._bank[int(self._rng.integers(0, len(self._bank)))]
            out = np.clip(np.asarray(out, np.float32) + noise, 0, 255).astype(np.uint8)
        if out is frame:
            out = frame.copy()
        return np.asarray(out, np.uint8)
