"""Tag recall on hard rendered cases: the project's detector beside stock OpenCV and AprilTag 3.

Renders 1080p tables with :mod:`referee.sim` (exact corner truth), under the
conditions real photos bring: small tags, low contrast, an oblique camera, a
shadow over half the table, defocus and motion blur, washed-out light with
glints, tags cut by the picture's edge, and the club table of issue 32 (a
72x48 table at 1080p, ~26 px/in: 0.8 in tags are ~21 px); every frame also
gets the simulator's optics and sensor noise. Each condition is run on an
ArUco family (``DICT_4X4_100``) and on an AprilTag family
(``DICT_APRILTAG_36H11``). Prints a markdown table.

    .venv/bin/python benchmarks/bench_hard_tags.py [--quick] [--only NAME]

Per condition, dictionary and detector:
- recall: tags found with their right id / tags fully in view;
- cut: tags cut by the picture's edge found with their right id / such tags;
- wrong: detections whose id is not the tag at that place (or no tag at all);
- corner error: worst corner of each found tag against the truth, px (median, p95);
- ms: CPU time per frame, one thread (``cv2.setNumThreads(1)``).
Detectors: ``ours`` (:class:`referee.tags.detect.TagDetector`, a full-frame pass,
with the AprilTag 3 back-end on AprilTag families when ``pupil-apriltags`` is
installed), ``ours before (issue 12)`` (no second look at unread squares, no
back-end: the detector as it was), ``ours, OpenCV only`` (the back-end off), ``stock`` (OpenCV's
``ArucoDetector`` with default parameters), ``stock+subpix``, and
``apriltag3`` (``pupil_apriltags.Detector``, ``quad_decimate`` 1, as AprilTag 3
recommends for small tags; AprilTag families only).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from referee.calibration.camera import Intrinsics, TablePose, pixels_to_table
from referee.calibration.profile import TableSize
from referee.calibration.table import default_anchors
from referee.markers.roster import RosterEntry
from referee.sim.imaging import Imager
from referee.sim.render import PiecePose, TableRenderer, TagTruth
from referee.tags import apriltag
from referee.tags.detect import Detections, DetectorSettings, TagDetector
from referee.tags.layout import anchor_ids

DICTIONARIES = ("DICT_4X4_100", "DICT_APRILTAG_36H11")
SIZE = (1920, 1080)
PIECES = 40


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
    table: tuple[float, float] = (48.0, 36.0)
    height: float = 0.0
    """Camera height, inches (0: 38 in, or 30 in when tilted)."""
    washed: float = 0.0
    """Washed-out light: grey levels pulled this fraction of the way to white, plus glints."""
    motion_px: int = 0
    """Horizontal motion blur, px (a box kernel that long)."""
    cut: bool = False
    """Pieces placed along the picture's edges: some inside, some cut by it."""


CONDITIONS = (
    Condition("plain (0.8in, ~18 px)"),
    Condition("small (0.55in, ~12 px)", tag_in=0.55),
    Condition("low contrast (white ~130)", contrast=0.45),
    Condition("oblique (45 deg)", tilt_deg=45.0),
    Condition("shadowed (half at 35%)", shadow=0.35),
    Condition("blurred (sigma 1.4 px)", blur=1.4),
    Condition("small + low contrast + shadow", tag_in=0.6, contrast=0.55, shadow=0.5),
    Condition("club 72x48 1080p (0.8in, ~21 px)", table=(72.0, 48.0), height=51.0),
    Condition("club, 0.55in (~14 px)", tag_in=0.55, table=(72.0, 48.0), height=51.0),
    Condition("cut by the edge", table=(72.0, 48.0), height=51.0, cut=True),
    Condition("washed out + glints", table=(72.0, 48.0), height=51.0, washed=0.65, blur=0.9),
    Condition("turned 70 deg", tag_in=1.2, tilt_deg=70.0, table=(72.0, 48.0), height=14.0),
    Condition("motion blur (4 px)", table=(72.0, 48.0), height=51.0, motion_px=4),
    Condition("motion blur (7 px)", table=(72.0, 48.0), height=51.0, motion_px=7),
)


def camera(condition: Condition) -> tuple[Intrinsics, TablePose]:
    width, depth = condition.table
    intr = Intrinsics.from_fov(SIZE, 72.0, (-0.2, 0.02, 0.0, 0.0, 0.0))
    height = condition.height or (38.0 if condition.tilt_deg < 10 else 30.0)
    target_y = depth / 2 + (condition.tilt_deg / 6 if condition.tilt_deg < 60 else 0.0)
    return intr, TablePose.looking_down((width / 2, target_y), height, condition.tilt_deg)


def layout(
    condition: Condition, intr: Intrinsics, pose: TablePose, rng: np.random.Generator
) -> dict[str, PiecePose]:
    width, depth = condition.table
    poses = {}
    if condition.cut:
        # Along the four edges of the picture, centres from half a tag inside to half outside.
        w, h = SIZE
        for i in range(PIECES):
            side, t = i % 4, (i // 4 + 0.5) / (PIECES // 4)
            inset = rng.uniform(-0.45, 0.9) * condition.tag_in * 26.0
            xy = {
                0: (t * w, inset),
                1: (w - 1 - inset, t * h),
                2: (t * w, h - 1 - inset),
                3: (inset, t * h),
            }[side]
            x, y = pixels_to_table(intr, pose, [xy])[0]
            poses[f"p{i}"] = PiecePose(float(x), float(y), float(rng.uniform(0, 360)))
        return poses
    cols, rows = 8, 5
    for i in range(PIECES):
        r, c = divmod(i, cols)
        x = width * (c + 0.5) / cols + rng.uniform(-1, 1)
        y = depth * (r + 0.5) / rows + rng.uniform(-1, 1)
        if condition.tilt_deg >= 60:  # the steep view sees a band across the table's middle
            x = width / 2 + (c - 3.5) * 2.4 + rng.uniform(-0.3, 0.3)
            y = depth / 2 + (r - 2) * 2.2 + rng.uniform(-0.3, 0.3)
        poses[f"p{i}"] = PiecePose(float(x), float(y), float(rng.uniform(0, 360)))
    return poses


def render_case(
    condition: Condition, dictionary: str, seed: int
) -> tuple[np.ndarray, dict[int, TagTruth]]:
    """One frame of 40 flat-tagged pieces, and the truth by tag id."""
    rng = np.random.default_rng(seed)
    table = TableSize(*condition.table)
    intr, pose = camera(condition)
    entries = [
        RosterEntry(i, f"p{i}", "soviet", "infantry", (1.2, 1.2), tag_size=condition.tag_in)
        for i in range(PIECES)
    ]
    renderer = TableRenderer(
        intr, pose, table, entries, anchors=default_anchors(dictionary, table),
        dictionary=dictionary, tag_size=condition.tag_in,
    )  # fmt: skip
    frame, truth = renderer.render(layout(condition, intr, pose, rng))
    image = frame.astype(np.float32)
    if condition.contrast != 1.0:
        image = 25.0 + (image - 25.0) * condition.contrast
    if condition.shadow != 1.0:
        ramp = np.clip((np.arange(SIZE[0]) - SIZE[0] * 0.45) / (SIZE[0] * 0.1), 0, 1)
        image *= (condition.shadow + (1 - condition.shadow) * ramp)[None, :, None]
    if condition.washed:
        image = image + (255.0 - image) * condition.washed
        # Glints: small saturated spots (a shiny base, a varnished tag) a cell or so across.
        glints = np.zeros(image.shape[:2], np.float32)
        points = rng.integers(0, [SIZE[0], SIZE[1]], size=(4000, 2))
        glints[points[:, 1], points[:, 0]] = 1.0
        glints = cv2.GaussianBlur(glints, (0, 0), 1.2) * 2.0 * np.pi * 1.44 * 120.0
        image = image + glints[:, :, None]
    if condition.motion_px:
        kernel = np.full((1, condition.motion_px), 1.0 / condition.motion_px, np.float32)
        image = cv2.filter2D(image, -1, kernel)
    clean = np.clip(image, 0, 255).astype(np.uint8)
    imager = Imager(SIZE, blur=condition.blur, noise=2.0, vignetting=0.2, light=0.1, seed=seed)
    by_tag = {entries[int(pid[1:])].tag: t for pid, t in truth.items()}
    return imager.apply(clean), by_tag


def stock(dictionary: str, refine: int) -> Callable[[np.ndarray], Detections]:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = refine
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), params
    )

    def detect(gray: np.ndarray) -> Detections:
        corners, ids, _ = detector.detectMarkers(gray)
        if ids is None:
            return Detections.empty()
        return Detections(ids.ravel(), np.asarray(corners, np.float64).reshape(-1, 4, 2))

    return detect


def detectors(dictionary: str) -> dict[str, Callable[[np.ndarray], Detections]]:
    before = DetectorSettings(upscale_rejects=False, apriltag_backend=False)
    found: dict[str, Callable[[np.ndarray], Detections]] = {
        "ours": TagDetector(dictionary).detect_full,
        "ours before (issue 12)": TagDetector(dictionary, before).detect_full,
    }
    if apriltag.family_of(dictionary) and apriltag.available():
        off = DetectorSettings(apriltag_backend=False)
        found["ours, OpenCV only"] = TagDetector(dictionary, off).detect_full
    found["stock"] = stock(dictionary, cv2.aruco.CORNER_REFINE_NONE)
    found["stock+subpix"] = stock(dictionary, cv2.aruco.CORNER_REFINE_SUBPIX)
    family = apriltag.family_of(dictionary)
    if family and apriltag.available():

        def april(gray: np.ndarray, family: str = family) -> Detections:
            # AprilTag 3 as it is (2 bits corrected on 36h11), corners mapped to OpenCV's
            # order and pixel centres (see referee/tags/apriltag.py).
            return Detections(*apriltag.detect_apriltag(gray, family))

        found["apriltag3"] = april
    return found


@dataclass
class Score:
    visible: int = 0
    found: int = 0
    cut: int = 0
    cut_found: int = 0
    wrong: int = 0
    errors: list[float] | None = None
    seconds: float = 0.0
    frames: int = 0


def score(found: Detections, truth: dict[int, TagTruth], anchors: set[int], into: Score) -> None:
    visible = {tag: t for tag, t in truth.items() if t.visible}
    cut = {
        tag
        for tag, t in truth.items()
        if not t.in_view
        and ((t.corners_px >= 0) & (t.corners_px <= np.array(SIZE) - 1)).all(axis=1).any()
    }
    into.visible += len(visible)
    into.cut += len(cut)
    errors = into.errors if into.errors is not None else []
    matched: set[int] = set()
    for tag, quad in zip(found.ids.tolist(), found.corners_px, strict=True):
        if tag in anchors:  # the corner anchors are drawn but not scored
            continue
        true = truth.get(tag)
        centre = quad.mean(axis=0)
        if true is not None and np.linalg.norm(true.corners_px.mean(axis=0) - centre) < 3.0:
            if tag in visible and tag not in matched:
                matched.add(tag)
                errors.append(float(np.linalg.norm(quad - true.corners_px, axis=1).max()))
            elif tag in cut:
                into.cut_found += 1
            continue
        into.wrong += 1
    into.found += len(matched)
    into.errors = errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one frame per condition")
    parser.add_argument("--only", help="run only conditions whose name contains this")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    frames = 1 if args.quick else 3
    rows = []
    for condition in CONDITIONS:
        if args.only and args.only not in condition.name:
            continue
        for dictionary in DICTIONARIES:
            anchors = set(anchor_ids(dictionary))
            found_by = detectors(dictionary)
            scores = {name: Score() for name in found_by}
            for seed in range(frames):
                image, truth = render_case(condition, dictionary, seed)
                gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
                for name, detect in found_by.items():
                    start = time.process_time()
                    found = detect(gray)
                    scores[name].seconds += time.process_time() - start
                    scores[name].frames += 1
                    score(found, truth, anchors, scores[name])
            short = "ArUco 4x4" if "APRILTAG" not in dictionary else "AprilTag 36h11"
            for name, s in scores.items():
                errors = np.array(s.errors or [np.nan])
                cut = f"{s.cut_found}/{s.cut}" if condition.cut else ""
                rows.append(
                    f"| {condition.name} | {short} | {name} | {s.found}/{s.visible} "
                    f"({s.found / max(s.visible, 1):.0%}) | {cut} | {s.wrong} | "
                    f"{np.median(errors):.3f} | {np.percentile(errors, 95):.3f} | "
                    f"{1000 * s.seconds / max(s.frames, 1):.0f} |"
                )
            print(f"{condition.name} {short}: done", file=sys.stderr)
    print(
        "| condition | family | detector | recall | cut found | wrong ids | "
        "corner err median px | p95 px | ms/frame |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
