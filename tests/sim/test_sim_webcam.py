"""A webcam as it is (issue 41 item 5): each effect measured in the frames it makes."""

from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest

from referee.sim.imaging import HUNT_SETTLE_S, Imager, compose_rolling
from referee.sim.scenario import ScenarioError, parse_scenario

SIZE = (320, 240)
PLAIN = {"blur": 0.0, "noise": 0.0, "vignetting": 0.0, "light": 0.0}


def _flat(level: int = 128) -> np.ndarray:
    return np.full((SIZE[1], SIZE[0], 3), level, np.uint8)


def _textured(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    noise = rng.normal(128, 60, (SIZE[1], SIZE[0], 3)).astype(np.float32)
    return np.clip(cv2.GaussianBlur(noise, (0, 0), 1.5), 0, 255).astype(np.uint8)


def _row_profile(frame: np.ndarray) -> np.ndarray:
    return frame.astype(float).mean(axis=(1, 2))


def _band_period(profile: np.ndarray) -> float:
    """The period (rows) of the sine that best fits the rows' brightness."""
    rows = np.arange(len(profile))
    centred = profile - profile.mean()
    periods = np.arange(30.0, 160.0, 0.25)
    power = [abs((centred * np.exp(2j * np.pi * rows / p)).sum()) for p in periods]
    return float(periods[int(np.argmax(power))])


def test_flicker_bands_are_as_far_apart_as_mains_and_readout_say_and_roll() -> None:
    imager = Imager(SIZE, **PLAIN, flicker=0.3, mains_hz=100, readout=1 / 30)
    first = _row_profile(imager.apply(_flat(), t=0.0))
    period = _band_period(first)
    # 100 pulses a second, 1/30 s to read 240 rows: a band every 72 rows.
    assert period == pytest.approx(240 / (100 / 30), rel=0.05)
    assert first.max() - first.min() > 0.25 * 128  # deep enough to see
    # 12 frames a second is no divisor of 100: the next frame's bands are elsewhere.
    second = _row_profile(imager.apply(_flat(), t=1 / 12))
    assert np.abs(first - second).max() > 10
    sixty = Imager(SIZE, **PLAIN, flicker=0.3, mains_hz=120, readout=1 / 30)
    profile = _row_profile(sixty.apply(_flat(), t=0.0))
    assert _band_period(profile) == pytest.approx(60, rel=0.1)


def _blockiness(frame: np.ndarray) -> float:
    """Mean step across 8 px block borders over the mean step inside blocks."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(float)
    steps = np.abs(np.diff(grey, axis=1))
    border = steps[:, 7::8].mean()
    inside = np.delete(steps, np.s_[7::8], axis=1).mean()
    return float(border / inside)


def test_mjpeg_frames_show_8x8_blocks_at_webcam_quality() -> None:
    frame = _textured()
    plain = Imager(SIZE, **PLAIN).apply(frame)
    webcam = Imager(SIZE, **PLAIN, jpeg=40).apply(frame)
    assert _blockiness(plain) == pytest.approx(1.0, abs=0.05)
    assert _blockiness(webcam) > 1.15
    assert np.abs(webcam.astype(int) - frame).mean() > 1.0  # lossy
    again = Imager(SIZE, **PLAIN, jpeg=40).apply(frame)
    assert np.array_equal(webcam, again)


def test_exposure_drifts_and_jumps_when_a_hand_comes_in() -> None:
    imager = Imager(SIZE, **PLAIN, hunting=0.5, seed=3)
    means = [imager.apply(_flat(), t=k / 12).mean() for k in range(24)]
    assert max(means) - min(means) > 1.0  # a slow drift with nobody at the table
    calm = Imager(SIZE, **PLAIN, hunting=0.5, seed=3)  # the same camera, nobody reaching in
    jump_at, later_at = 2.0 + 1 / 12, 2.0 + 3 * HUNT_SETTLE_S
    jump = imager.apply(_flat(), t=jump_at, hands=True).mean() - calm.apply(_flat(), jump_at).mean()
    later = imager.apply(_flat(), t=later_at, hands=True).mean()
    later -= calm.apply(_flat(), t=later_at).mean()
    assert jump > 10  # the arm is metered: the table goes bright
    assert abs(later) < jump / 4  # and settles again
    colour = imager.apply(_flat(), t=5.0).reshape(-1, 3).mean(axis=0)
    assert np.ptp(colour) > 0.5  # the white balance drifts too
    same = Imager(SIZE, **PLAIN, hunting=0.5, seed=3)
    assert [same.apply(_flat(), t=k / 12).mean() for k in range(24)] == means


def test_a_hand_casts_a_soft_shadow_beside_itself() -> None:
    mask = np.zeros((SIZE[1], SIZE[0]), np.uint8)
    cv2.circle(mask, (120, 100), 30, 255, -1)
    imager = Imager(SIZE, **PLAIN, shadows=0.5)
    frame = imager.apply(_flat(160), t=0.0, hands=True, hand_mask=mask)
    # Just past the hand's edge, towards where its shadow falls (right and down).
    beside = frame[119:122, 145:148].mean()
    assert beside < 160 - 15  # darkened where the shadow falls past the hand
    assert frame[100, 120].mean() == pytest.approx(160, abs=1)  # the hand is lit
    assert frame[220, 20].mean() == pytest.approx(160, abs=1)  # far away: no shadow
    assert np.array_equal(imager.apply(_flat(160), t=0.1), _flat(160))  # no hand, none


def test_noise_grows_with_the_gain() -> None:
    def spread(gain_noise: bool) -> tuple[float, float]:
        imager = Imager(SIZE, 0.0, 4.0, 0.0, 0.0, seed=1, hunting=1.0, gain_noise=gain_noise)
        calm = imager.apply(_flat(100), t=1.0).astype(float)
        bright = imager.apply(_flat(100), t=1.0 + 1 / 24, hands=True).astype(float)
        return float(calm.std(axis=(0, 1)).mean()), float(bright.std(axis=(0, 1)).mean())

    calm, bright = spread(True)
    assert bright > calm * 1.25
    calm, bright = spread(False)
    assert bright == pytest.approx(calm, rel=0.15)


def test_rolling_shutter_reads_each_row_at_its_moment() -> None:
    """A bar moving right: the top rows see it early (left), the bottom rows late."""
    subframes = []
    for x in (100, 110, 120, 130):
        frame = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
        frame[:, x : x + 10] = 255
        subframes.append(frame)
    out = compose_rolling(subframes)

    def centre(row: int) -> float:
        weights = out[row, :, 0].astype(float)
        return float((weights * np.arange(SIZE[0])).sum() / weights.sum())

    assert centre(0) == pytest.approx(104.5, abs=0.6)
    assert centre(SIZE[1] - 1) == pytest.approx(134.5, abs=0.6)
    assert centre(SIZE[1] // 2) == pytest.approx(119.5, abs=1.5)
    still = [np.full((SIZE[1], SIZE[0], 3), 77, np.uint8)] * 4
    assert np.array_equal(compose_rolling(still), still[0])  # what stands still is exact


def test_webcam_off_is_the_plain_imager() -> None:
    frame = _textured(2)
    a = Imager(SIZE, 0.6, 2.0, 0.2, 0.1, seed=9)
    b = Imager(SIZE, 0.6, 2.0, 0.2, 0.1, seed=9)
    for k in range(4):
        assert np.array_equal(a.apply(frame), b.apply(frame, t=k / 12, hands=k == 2))


SCENE = {
    "table": {"width": 24, "depth": 18},
    "pieces": [{"id": "a", "side": "soviet", "kind": "tank", "x": 6, "y": 9, "heading": 0,
                "base": [1.5, 3.0], "tag": 1}],
    "camera": {"resolution": [320, 180], "fov": 70, "height": 20},
    "imaging": {"jpeg": 75, "hunting": 0.3, "flicker": 0.1, "mains_hz": 120,
                "rolling_shutter": 0.03, "shadows": 0.3, "gain_noise": True},
}  # fmt: skip


def test_scenario_imaging_takes_the_webcam_keys() -> None:
    imaging = parse_scenario(SCENE).imaging
    assert (imaging.jpeg, imaging.mains_hz, imaging.rolling_shutter) == (75, 120.0, 0.03)
    assert imaging.webcam
    plain = copy.deepcopy(SCENE)
    del plain["imaging"]
    assert not parse_scenario(plain).imaging.webcam


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("jpeg", 101, "$.imaging.jpeg: must be a JPEG quality"),
        ("jpeg", 7.5, "$.imaging.jpeg: must be a JPEG quality"),
        ("hunting", 2, "$.imaging.hunting"),
        ("flicker", -0.1, "$.imaging.flicker"),
        ("mains_hz", 50, "$.imaging.mains_hz: must be 100"),
        ("rolling_shutter", 3, "$.imaging.rolling_shutter"),
        ("shadows", "dark", "$.imaging.shadows"),
        ("gain_noise", 1, "$.imaging.gain_noise: must be true or false"),
    ],
)
def test_bad_webcam_keys_name_the_json_path(key: str, value: object, message: str) -> None:
    data = copy.deepcopy(SCENE)
    data["imaging"][key] = value
    with pytest.raises(ScenarioError) as error:
        parse_scenario(data, "s.json")
    assert message in str(error.value)
