"""Tag recall on hard rendered cases: the project's detector beside stock OpenCV, one run.

Renders 1080p tables with :mod:`referee.sim` (exact corner truth), under the
conditions real photos bring: small tags, low contrast (white peaks of about
130 grey levels), an oblique camera, a shadow over half the table, and defocus
blur; every frame also gets the simulator's optics and sensor noise. Prints a
markdown table.

    .venv/bin/python benchmarks/bench_hard_tags.py [--quick]

Per condition and detector:
- recall: tags found with their right id / tags fully in view;
- wrong: detections whose id is not the tag at that place (or no tag at all);
- corner error: worst corner of each found tag against the truth, px (median, p95).
Detectors: ``ours`` (:class:`referee.tags.detect.TagDetector`, a full-frame pass),
``ours, no re-read`` (without the cell re-read step), ``stock`` (OpenCV's
``ArucoDetector`` with default parameters) and ``stock+subpix``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import TableSize
from referee.calibration.table import default_anchors
from referee.markers.roster import RosterEntry
from referee.sim.imaging import Imager
from referee.sim.render import PiecePose, TableRenderer, TagTruth
from referee.tags.detect import Detections, DetectorSettings, TagDetector
from referee.tags.layout import anchor_ids

DICTIONARY = "DICT_4X4_100"
ANCHORS = set(anchor_ids(DICTIONARY))
SIZE = (1920, 1080)


@dataclass(frozen=True)
class Condition:
    name: str
    tag_in: float = 0.8
    tilt_deg: float = 3.0
    contrast: float = 1.0
    """Scale of grey levels about black: 0.45 puts paper white near 130."""
    shadow: float = 1.0
    """Brightness of the shadowed left half of the picture."""
    blur: float = 0.6


CONDITIONS = (
    Condition("plain (0.8in, ~18 px)"),
    Condition("small (0.55in, ~12 px)", tag_in=0.55),
    Condition("low contrast (white ~130)", contrast=0.45),
    Condition("oblique (45 deg)", tilt_deg=45.0),
    Condition("shadowed (half at 35%)", shadow=0.35),
    Condition("blurred (sigma 1.4 px)", blur=1.4),
    Condition("small + low contrast + shadow", tag_in=0.6, contrast=0.55, shadow=0.5),
)


def render_case(condition: Condition, seed: int) -> tuple[np.ndarray, dict[int, TagTruth]]:
    """One frame of 40 flat-tagged pieces on a 48x36 table, and the truth by tag id."""
    rng = np.random.default_rng(seed)
    table = TableSize(48.0, 36.0)
    intr = Intrinsics.from_fov(SIZE, 72.0, (-0.2, 0.02, 0.0, 0.0, 0.0))
    height = 38.0 if condition.tilt_deg < 10 else 30.0
    pose = TablePose.looking_down((24.0, 18.0 + condition.tilt_deg / 6), height, condition.tilt_deg)
    entries = [
        RosterEntry(i, f"p{i}", "soviet", "infantry", (1.2, 1.2), tag_size=condition.tag_in)
        for i in range(40)
    ]
    renderer = TableRenderer(
        intr, pose, table, entries, anchors=default_anchors(DICTIONARY, table),
        tag_size=condition.tag_in,
    )  # fmt: skip
    poses = {}
    for i in range(40):
        r, c = divmod(i, 8)
        x = 4 + c * 5.6 + rng.uniform(-1, 1)
        y = 4 + r * 6.8 + rng.uniform(-1, 1)
        poses[f"p{i}"] = PiecePose(float(x), float(y), float(rng.uniform(0, 360)))
    frame, truth = renderer.render(poses)
    image = frame.astype(np.float32)
    if condition.contrast != 1.0:
        image = 25.0 + (image - 25.0) * condition.contrast
    if condition.shadow != 1.0:
        ramp = np.clip((np.arange(SIZE[0]) - SIZE[0] * 0.45) / (SIZE[0] * 0.1), 0, 1)
        image *= (condition.shadow + (1 - condition.shadow) * ramp)[None, :, None]
    clean = np.clip(image, 0, 255).astype(np.uint8)
    imager = Imager(SIZE, blur=condition.blur, noise=2.0, vignetting=0.2, light=0.1, seed=seed)
    by_tag = {entries[int(pid[1:])].tag: t for pid, t in truth.items()}
    return imager.apply(clean), by_tag


def stock(refine: int) -> Callable[[np.ndarray], Detections]:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = refine
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100)
    detector = cv2.aruco.ArucoDetector(dictionary, params)

    def detect(gray: np.ndarray) -> Detections:
        corners, ids, _ = detector.detectMarkers(gray)
        if ids is None:
            return Detections.empty()
        return Detections(ids.ravel(), np.asarray(corners, np.float64).reshape(-1, 4, 2))

    return detect


DETECTORS: dict[str, Callable[[np.ndarray], Detections]] = {
    "ours": TagDetector(DICTIONARY).detect_full,
    "ours, no re-read": TagDetector(DICTIONARY, DetectorSettings(verify=False)).detect_full,
    "stock": stock(cv2.aruco.CORNER_REFINE_NONE),
    "stock+subpix": stock(cv2.aruco.CORNER_REFINE_SUBPIX),
}


@dataclass
class Score:
    visible: int = 0
    found: int = 0
    wrong: int = 0
    errors: list[float] | None = None


def score(found: Detections, truth: dict[int, TagTruth], into: Score) -> None:
    visible = {tag: t for tag, t in truth.items() if t.visible}
    into.visible += len(visible)
    errors = into.errors if into.errors is not None else []
    matched: set[int] = set()
    for tag, quad in zip(found.ids.tolist(), found.corners_px, strict=True):
        if tag in ANCHORS:  # the corner anchors are drawn but not scored
            continue
        true = truth.get(tag)
        centre = quad.mean(axis=0)
        if true is not None and np.linalg.norm(true.corners_px.mean(axis=0) - centre) < 3.0:
            if tag in visible and tag not in matched:
                matched.add(tag)
                errors.append(float(np.linalg.norm(quad - true.corners_px, axis=1).max()))
            continue
        into.wrong += 1
    into.found += len(matched)
    into.errors = errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one frame per condition")
    args = parser.parse_args()
    frames = 1 if args.quick else 3
    rows = []
    for condition in CONDITIONS:
        scores = {name: Score() for name in DETECTORS}
        for seed in range(frames):
            image, truth = render_case(condition, seed)
            gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
            for name, detect in DETECTORS.items():
                score(detect(gray), truth, scores[name])
        for name, s in scores.items():
            errors = np.array(s.errors or [np.nan])
            rows.append(
                f"| {condition.name} | {name} | {s.found}/{s.visible} "
                f"({s.found / max(s.visible, 1):.0%}) | {s.wrong} | "
                f"{np.median(errors):.3f} | {np.percentile(errors, 95):.3f} |"
            )
        print(f"{condition.name}: done", file=sys.stderr)
    print("| condition | detector | recall | wrong ids | corner err median px | p95 px |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
