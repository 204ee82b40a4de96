"""Camera imperfections applied to clean renders: defocus, light falloff, sensor noise.

Motion blur is not here: the simulator averages sub-frame renders over the
exposure while something moves, which blurs exactly what moves. Compression
happens in the video writer. Deterministic for a given seed.

A USB webcam adds more (issue 41), each off by default and each its own field:
MJPEG compression (``jpeg``: every frame JPEG-encoded and decoded at that
quality, as the camera sends 1080p), exposure and white-balance hunting
(``hunting``: a slow gain and colour drift that jumps when a hand comes into
the picture and settles again), mains-flicker banding (``flicker``: the lamp's
light pulses at ``mains_hz`` and the rolling shutter reads rows at different
moments, so horizontal bands roll through the picture), hand shadows
(``shadows``: a soft dark blob offset from the hand) and noise that grows with
the gain (``gain_noise``). Rolling-shutter skew needs the scene at several
moments, so the video renders it (:func:`compose_rolling` joins the renders).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]

_NOISE_BANK = 6

#: Seconds a webcam takes to read its sensor top to bottom when none is given.
DEFAULT_READOUT_S = 1 / 30
#: Seconds the auto-exposure takes to settle again after a hand comes in.
HUNT_SETTLE_S = 0.8
#: Where a hand's shadow falls, as a fraction of the picture's width (right and down).
SHADOW_OFFSET = (0.025, 0.02)


def compose_rolling(subframes: list[Image]) -> Image:
    """One rolling-shutter frame from renders at evenly spaced moments of the readout.

    Row ``y`` of the result is read at fraction ``y / (height - 1)`` of the
    readout: it is the render of that moment, blended linearly between the two
    nearest of ``subframes`` (ordered in time, first = the top row's moment).
    What moves is skewed, what stands still is exactly as one render draws it.
    """
    if len(subframes) == 1:
        return subframes[0].copy()
    height = subframes[0].shape[0]
    where = np.linspace(0.0, len(subframes) - 1, height)
    low = np.minimum(np.floor(where).astype(int), len(subframes) - 2)
    frac = (where - low).astype(np.float32)
    out = np.empty_like(subframes[0])
    for k in range(len(subframes) - 1):
        rows = np.nonzero(low == k)[0]
        if not len(rows):
            continue
        a = subframes[k][rows].astype(np.float32)
        b = subframes[k + 1][rows].astype(np.float32)
        f = frac[rows].reshape(-1, *([1] * (a.ndim - 1)))
        out[rows] = np.clip(a + (b - a) * f + 0.5, 0, 255).astype(np.uint8)
    return out


@dataclass(eq=False)
class Imager:
    """Applies one camera's optics and sensor to frames of size ``(width, height)``."""

    size: tuple[int, int]
    blur: float = 0.5
    noise: float = 2.0
    vignetting: float = 0.25
    light: float = 0.12
    seed: int = 0
    jpeg: int = 0
    """MJPEG quality 1-100 each frame is encoded and decoded at; 0: none."""
    hunting: float = 0.0
    """Exposure and white-balance hunting, 0..1 (0.3 is a restless webcam)."""
    flicker: float = 0.0
    """Depth of the mains-flicker bands, 0..1 of the light."""
    mains_hz: float = 100.0
    """How often the lamp's light pulses: 100 (50 Hz mains) or 120 (60 Hz)."""
    readout: float = 0.0
    """Seconds to read the sensor top to bottom (the flicker bands' spacing); 0: 1/30 s."""
    shadows: float = 0.0
    """How much a hand's shadow darkens the table, 0..1."""
    gain_noise: bool = False
    """Noise grows with the exposure gain (a dim picture brightened is noisier)."""
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
        # The webcam's own randomness: one stream, so frames stay as they were without it.
        hunt = np.random.default_rng(self.seed + 41)
        self._phases = hunt.uniform(0, 2 * math.pi, 4)
        self._kick_colour = hunt.uniform(-1.0, 1.0, 3)
        self._hunt_rng = hunt
        self._hands_before = False
        self._kick_at: float | None = None
        self._kick = 0.0

    @property
    def webcam(self) -> bool:
        """Whether any webcam effect is on (else frames are exactly the plain imager's)."""
        return bool(self.jpeg or self.hunting or self.flicker or self.shadows or self.gain_noise)

    def exposure(self, t: float, hands: bool = False) -> NDArray[np.float32]:
        """The auto-exposure gain per colour channel (B, G, R) at ``t`` seconds.

        A slow drift of the gain (periods of 6-9 s) and of the white balance,
        and a jump when a hand comes into the picture: the camera meters the
        darker, warmer arm, overshoots and settles over :data:`HUNT_SETTLE_S`.
        Call it in time order (it remembers when the hand came in).
        """
        if hands and not self._hands_before:
            self._kick_at = t
            self._kick = float(self._hunt_rng.uniform(0.6, 1.0))
        self._hands_before = hands
        h = self.hunting
        p = self._phases
        gain = 1.0 + h * 0.2 * math.sin(2 * math.pi * t / 7.3 + p[0])
        colour = np.array(
            [
                0.06 * math.sin(2 * math.pi * t / 9.1 + p[1]),
                0.0,
                0.06 * math.sin(2 * math.pi * t / 6.2 + p[2]),
            ]
        )
        if self._kick_at is not None and t >= self._kick_at:
            fade = math.exp(-(t - self._kick_at) / (HUNT_SETTLE_S / 3)) * self._kick
            gain += h * 0.5 * fade
            colour = colour + 0.15 * fade * self._kick_colour
        return np.asarray(gain * (1.0 + h * colour), np.float32)

    def banding(self, t: float) -> NDArray[np.float32]:
        """Each row's light under a flickering lamp at ``t`` (a column, mean 1).

        The lamp pulses at :attr:`mains_hz`; row ``y`` is exposed
        ``y / height`` of the readout later than the top row, so the pulses
        lie as horizontal bands ``height / (mains_hz * readout)`` rows apart,
        and a frame rate that is no divisor of the mains rolls them.
        """
        height = self.size[1]
        readout = self.readout or DEFAULT_READOUT_S
        rows = np.arange(height, dtype=np.float64)
        moment = t + rows / height * readout
        wave = np.cos(2 * math.pi * self.mains_hz * moment + self._phases[3])
        return np.asarray(1.0 + self.flicker * 0.5 * wave, np.float32)[:, None, None]

    def shadow(self, hand_mask: Image) -> NDArray[np.float32]:
        """The light left on the table under a hand's soft shadow (1 = none), per pixel."""
        width, height = self.size
        dx, dy = SHADOW_OFFSET[0] * width, SHADOW_OFFSET[1] * width
        moved = cv2.warpAffine(
            hand_mask, np.array([[1, 0, dx], [0, 1, dy]], np.float32), (width, height)
        ).astype(np.float32)
        soft = cv2.GaussianBlur(moved, (0, 0), 0.012 * width) / 255.0
        # The hand itself is above its shadow: it is lit as before.
        soft[hand_mask > 0] = 0.0
        return np.asarray(1.0 - self.shadows * soft, np.float32)[:, :, None]

    def apply(
        self,
        frame: Image,
        t: float = 0.0,
        hands: bool = False,
        hand_mask: Image | None = None,
    ) -> Image:
        """A new frame with defocus, light falloff and noise (the input is untouched).

        With a webcam effect on, ``t`` (seconds), ``hands`` (a hand is in the
        picture) and ``hand_mask`` (where, for the shadows) drive the exposure,
        banding and shadows; frames must then come in time order.
        """
        if self.webcam:
            return self._webcam(frame, t, hands, hand_mask)
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

    def _webcam(self, frame: Image, t: float, hands: bool, hand_mask: Image | None) -> Image:
        light: NDArray[Any] = np.asarray(frame, np.float32)
        if self.shadows and hand_mask is not None and hand_mask.any():
            light = light * self.shadow(hand_mask)
        if self.blur > 0:
            light = cv2.GaussianBlur(light, (0, 0), self.blur)
        gain = self.exposure(t, hands) if self.hunting else np.ones(3, np.float32)
        scale: Any = gain[None, None, :]
        if self._gain is not None:
            scale = scale * self._gain
        if self.flicker:
            scale = scale * self.banding(t)
        light = light * scale
        if self.noise:
            noise = self._bank[int(self._rng.integers(0, len(self._bank)))].astype(np.float32)
            # A brighter exposure is sensor gain: it amplifies the noise with the picture.
            factor = float(gain.mean()) ** 1.5 if self.gain_noise else 1.0
            light = light + noise * factor
        out = np.clip(light + 0.5, 0, 255).astype(np.uint8)
        if self.jpeg:
            ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(self.jpeg)])
            if ok:
                out = np.asarray(cv2.imdecode(data, cv2.IMREAD_COLOR), np.uint8)
        return out
