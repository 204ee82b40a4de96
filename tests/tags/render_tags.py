"""Small rendered tables with exact tag truth for the detector tests (960x540, fast)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import TableSize
from referee.markers.roster import RosterEntry
from referee.sim.imaging import Imager
from referee.sim.render import PiecePose, TableRenderer
from referee.tags.detect import Detections

SIZE = (960, 540)


@dataclass(frozen=True)
class Scene:
    gray: np.ndarray
    truth: dict[int, np.ndarray]
    """Tag id -> true corners (4, 2), px, project order, for tags fully in view."""


def render(
    dictionary: str,
    tag_in: float,
    seed: int = 0,
    *,
    height: float = 26.0,
    tilt_deg: float = 3.0,
    washed: float = 0.0,
    blur: float = 0.6,
    pieces: int = 18,
) -> Scene:
    """``pieces`` flat tags on a 24x18 table; at 26 in up the camera sees ~25 px/in."""
    rng = np.random.default_rng(seed)
    intr = Intrinsics.from_fov(SIZE, 72.0, (-0.2, 0.02, 0.0, 0.0, 0.0))
    pose = TablePose.looking_down((12.0, 9.0), height, tilt_deg)
    entries = [
        RosterEntry(i, f"p{i}", "soviet", "infantry", (1.2, 1.2), tag_size=tag_in)
        for i in range(pieces)
    ]
    renderer = TableRenderer(
        intr, pose, TableSize(24, 18), entries, dictionary=dictionary, tag_size=tag_in
    )
    cols = 6
    poses = {}
    for i in range(pieces):
        r, c = divmod(i, cols)
        if tilt_deg >= 60:
            x, y = 12 + (c - 2.5) * 2.2, 9 + (r - 1) * 2.0
        else:
            x, y = 3 + c * 3.6, 3 + r * 4.5
        poses[f"p{i}"] = PiecePose(
            float(x + rng.uniform(-0.3, 0.3)),
            float(y + rng.uniform(-0.3, 0.3)),
            float(rng.uniform(0, 360)),
        )
    frame, truths = renderer.render(poses)
    image = frame.astype(np.float32)
    if washed:
        image = image + (255.0 - image) * washed
    clean = np.clip(image, 0, 255).astype(np.uint8)
    noisy = Imager(SIZE, blur=blur, noise=2.0, vignetting=0.2, light=0.1, seed=seed).apply(clean)
    truth = {entries[int(pid[1:])].tag: t.corners_px for pid, t in truths.items() if t.visible}
    return Scene(cv2.cvtColor(noisy, cv2.COLOR_BGR2GRAY), truth)


def tally(found: Detections, scene: Scene) -> tuple[int, int, float]:
    """(right ids, wrong ids, worst corner error px over the right ones)."""
    right, wrong, worst = 0, 0, 0.0
    for tag, quad in zip(found.ids.tolist(), found.corners_px, strict=True):
        true = scene.truth.get(tag)
        if true is None or np.linalg.norm(true.mean(axis=0) - quad.mean(axis=0)) > 3.0:
            wrong += 1
            continue
        right += 1
        worst = max(worst, float(np.linalg.norm(quad - true, axis=1).max()))
    return right, wrong, worst


def stock(gray: np.ndarray, dictionary: str) -> Detections:
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    )
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return Detections.empty()
    return Detections(ids.ravel(), np.asarray(corners, np.float64).reshape(-1, 4, 2))
