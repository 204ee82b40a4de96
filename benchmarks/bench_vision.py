"""Vision benchmark: accuracy and speed of detection + pose + tracking on simulated footage.

Renders tables with :mod:`referee.sim` (exact ground truth), adds sensor noise,
a little defocus and MPEG-4 compression, writes a video file, and runs the
pipeline on it. Prints a markdown table.

    .venv/bin/python benchmarks/bench_vision.py [--quick]

Accuracy (per frame, raw poses without the tracker's smoothing):
- pairwise distance error: |measured - true| distance between every two pieces seen
  in the same frame, inches (p95 and max);
- recall: tags found / tags fully in view and uncovered;
- wrong ids: detections whose id is not the tag at that place.
Speed: median per-frame time of detection + pose + tracking on one core
(frames already decoded), and whole-file frames/s including decoding.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import cv2
import numpy as np

from referee.calibration.calibrate import calibrate_frames, iter_video
from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.calibration.table import default_anchors
from referee.markers.roster import Roster, RosterEntry
from referee.sim.imaging import Imager
from referee.sim.render import PiecePose as SimPose
from referee.sim.render import TableRenderer
from referee.sim.scenario import parse_scenario
from referee.sim.video import write_calibration_clip
from referee.tags.board import BoardSpec
from referee.tags.detect import TagDetector
from referee.vision.pipeline import Pipeline
from referee.vision.pose import PoseEstimator
from referee.vision.sources import VideoFileSource


@dataclass(frozen=True)
class Case:
    name: str
    table: tuple[float, float]
    size: tuple[int, int]
    pieces: int
    layouts: int
    frames_per_layout: int


def camera(case: Case) -> tuple[Intrinsics, TablePose]:
    width, depth = case.table
    intr = Intrinsics.from_fov(case.size, 72.0, (-0.2, 0.02, 0.0, 0.0, 0.0))
    # High enough that the whole table (and its corner anchors) is in view.
    height = max(width / 1.18, depth / 0.69)
    return intr, TablePose.looking_down((width / 2, depth / 2), height, tilt_deg=3.0)


def layout(case: Case, rng: np.random.Generator) -> dict[str, SimPose]:
    """Pieces on a jittered grid so no two bases overlap."""
    width, depth = case.table
    cols = int(np.ceil(np.sqrt(case.pieces * width / depth)))
    rows = int(np.ceil(case.pieces / cols))
    cells = rng.permutation(cols * rows)[: case.pieces]
    dx, dy = (width - 8) / cols, (depth - 8) / rows
    poses = {}
    for i, cell in enumerate(cells):
        r, c = divmod(int(cell), cols)
        x = 4 + (c + 0.5) * dx + rng.uniform(-0.15, 0.15) * dx
        y = 4 + (r + 0.5) * dy + rng.uniform(-0.15, 0.15) * dy
        poses[f"p{i}"] = SimPose(float(x), float(y), float(rng.uniform(0, 360)))
    return poses


def build(case: Case, seed: int = 1):
    width, depth = case.table
    entries = tuple(
        RosterEntry(
            i,
            f"p{i}",
            "soviet" if i % 2 else "german",
            "tank" if i % 3 == 0 else "infantry",
            (1.5, 2.5) if i % 3 == 0 else (1.5, 1.0),
            (0.0, 0.0),
            0.9 if i % 3 == 0 else 0.0,
        )
        for i in range(case.pieces)
    )
    anchors = default_anchors("DICT_4X4_100", TableSize(width, depth))
    intr, pose = camera(case)
    renderer = TableRenderer(
        intr,
        pose,
        TableSize(width, depth),
        entries,
        terrain=[
            ("woods", [(width * 0.6, 8), (width * 0.75, 8), (width * 0.75, 14), (width * 0.6, 14)])
        ],
        anchors=anchors,
    )
    profile = CalibrationProfile(
        intr, pose, TableSize(width, depth), frame_source="simulated", anchors=anchors
    )
    return renderer, profile, Roster("DICT_4X4_100", entries, anchors)


def render_video(case: Case, path: Path, seed: int = 1):
    """Static layouts, each held for some frames: sim optics + sensor noise, then MPEG-4."""
    renderer, profile, roster = build(case, seed)
    rng = np.random.default_rng(seed)
    imager = Imager(case.size, blur=0.6, noise=2.0, vignetting=0.25, light=0.12, seed=seed)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, case.size)
    truth = []
    for _ in range(case.layouts):
        poses = layout(case, rng)
        clean, tags = renderer.render(poses)
        for _ in range(case.frames_per_layout):
            writer.write(imager.apply(clean))
            truth.append((poses, tags))
    writer.release()
    return profile, roster, truth


def calibrated_profile(case: Case, roster: Roster, tmp: Path) -> CalibrationProfile:
    """Calibrate from the simulator's calibration clip for the same camera, as a user would."""
    width, depth = case.table
    intr, _ = camera(case)
    board = "charuco:5x7:0.03m:0.021m:DICT_6X6_250"
    scenario = parse_scenario(
        {
            "table": {"width": width, "depth": depth},
            "pieces": [
                {
                    "id": "x",
                    "side": "a",
                    "kind": "infantry",
                    "x": 6,
                    "y": 6,
                    "heading": 0,
                    "base": [1.5, 1.0],
                    "tag": 0,
                }
            ],
            "camera": {
                "resolution": list(case.size),
                "fov": 72.0,
                "distortion": intr.distortion.tolist(),
                "height": max(width / 1.18, depth / 0.69),
                "tilt": 3.0,
                "yaw": 0.0,
            },
            "fps": 10,
            "duration": 1,
            "seed": 5,
            "anchors": [{"tag": a.tag, "x": a.x, "y": a.y, "size": a.size} for a in roster.anchors],
            "calibration": {"board": board, "views": 24, "flat_at": [width / 2, depth / 2]},
        },
        "<bench>",
    )
    clip = tmp / "calibration.mp4"
    imager = Imager(case.size, blur=0.6, noise=2.0, vignetting=0.25, light=0.12, seed=5)
    write_calibration_clip(scenario, clip, imager, progress=False)
    run = calibrate_frames(
        iter_video(clip),
        spec=BoardSpec.parse(board),
        table=TableSize(width, depth),
        anchors=roster.anchors,
        marker_dictionary=roster.dictionary,
    )
    return run.profile


def accuracy(profile, roster, truth, path: Path) -> dict[str, float]:
    detector = TagDetector(roster.dictionary)
    estimator = PoseEstimator(profile, roster)
    pair_errors, heading_errors, found, visible, wrong = [], [], 0, 0, 0
    source = VideoFileSource(path)
    for frame, (poses, tags) in zip(source, truth, strict=False):
        detected = detector.detect_full(frame.image)
        estimate = estimator.estimate(detected)
        by_id = {p.id: p for p in estimate.pieces}
        for pid, tag in tags.items():
            entry = roster.by_id(pid)
            hits = detected.ids == entry.tag
            if tag.visible:
                visible += 1
                found += int(hits.any())
            for corners in detected.corners_px[hits]:
                if np.linalg.norm(corners.mean(axis=0) - tag.corners_px.mean(axis=0)) > 3.0:
                    wrong += 1
        known = {p.tag for p in roster} | {a.tag for a in roster.anchors}
        wrong += int(np.sum(~np.isin(detected.ids, list(known))))
        seen = [pid for pid in by_id if tags[pid].visible]
        for pid in seen:
            heading_errors.append(abs((by_id[pid].heading - poses[pid].heading + 180) % 360 - 180))
        for a, b in combinations(seen, 2):
            true = np.hypot(poses[a].x - poses[b].x, poses[a].y - poses[b].y)
            got = np.hypot(by_id[a].x - by_id[b].x, by_id[a].y - by_id[b].y)
            pair_errors.append(abs(got - true))
    source.close()
    errors = np.array(pair_errors)
    return {
        "p95": float(np.percentile(errors, 95)),
        "max": float(errors.max()),
        "heading_p95": float(np.percentile(heading_errors, 95)),
        "recall": found / max(visible, 1),
        "wrong": wrong,
        "pairs": len(errors),
    }


def speed(profile, roster, path: Path, repeats: int = 3) -> dict[str, float]:
    """CPU time (not wall time: the machine is shared) of the pipeline and of whole files."""
    frames = list(VideoFileSource(path))
    per_frame, full_pass = [], []
    for _ in range(repeats):
        pipeline = Pipeline(profile, roster)
        for frame in frames:
            start = time.thread_time()
            pipeline.process(frame)
            per_frame.append(time.thread_time() - start)
        detector = TagDetector(roster.dictionary)
        for frame in frames[:10]:
            start = time.thread_time()
            detector.detect_full(frame.image)
            full_pass.append(time.thread_time() - start)
    whole = []
    for _ in range(repeats):
        pipeline = Pipeline(profile, roster)
        start = time.process_time()
        source = VideoFileSource(path)
        count = sum(1 for _ in pipeline.run(source))
        source.close()
        whole.append(count / (time.process_time() - start))
    return {
        "ms": 1000 * statistics.median(per_frame),
        "p90": 1000 * float(np.percentile(per_frame, 90)),
        "full": 1000 * statistics.median(full_pass),
        "fps": statistics.median(whole),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer frames, for a smoke run")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    n = 1 if args.quick else 3
    cases = [
        Case('48"x36" 1080p', (48, 36), (1920, 1080), 30, 2 * n, 20),
        Case('72"x48" 1080p', (72, 48), (1920, 1080), 40, 2 * n, 20),
        Case('48"x36" 4K', (48, 36), (3840, 2160), 30, n, 20),
        Case('72"x48" 4K', (72, 48), (3840, 2160), 40, n, 20),
    ]
    rows = []
    calibrated = None
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(cases):
            path = Path(tmp) / "clip.mp4"
            print(f"rendering {case.name}...", file=sys.stderr)
            profile, roster, truth = render_video(case, path)
            acc = accuracy(profile, roster, truth, path)
            spd = speed(profile, roster, path, repeats=1 if args.quick else 3)
            rows.append((case, acc, spd))
            if i == 0 and not args.quick:
                print("calibrating from a simulated calibration clip...", file=sys.stderr)
                own = calibrated_profile(case, roster, Path(tmp))
                calibrated = (case, own, accuracy(own, roster, truth, path))
    print("Accuracy: true camera profile, raw per-frame poses (no smoothing).\n")
    print("| footage | pieces | pairwise err p95 | max | heading p95 | recall | wrong ids |")
    print("|---|---|---|---|---|---|---|")
    for case, acc, _ in rows:
        print(
            f'| {case.name} | {case.pieces} | {acc["p95"]:.4f}" | {acc["max"]:.4f}" '
            f"| {acc['heading_p95']:.2f} deg | {100 * acc['recall']:.2f}% | {acc['wrong']} |"
        )
    if calibrated is not None:
        case, own, acc = calibrated
        print(
            f"\nWith a profile from the calibration code on a simulated calibration clip "
            f"({case.name}, RMS {own.rms_px:.3f} px, {own.views_used} views): pairwise p95 "
            f'{acc["p95"]:.4f}", max {acc["max"]:.4f}", recall {100 * acc["recall"]:.2f}%, '
            f"wrong ids {acc['wrong']}."
        )
    print("\nSpeed: CPU time on one core (cv2.setNumThreads(1)), medians.\n")
    print(
        "| footage | det+pose+track per frame | p90 | full-frame pass | whole file incl. decode |"
    )
    print("|---|---|---|---|---|")
    for case, _, spd in rows:
        print(
            f"| {case.name} | {spd['ms']:.1f} ms | {spd['p90']:.1f} ms | {spd['full']:.1f} ms "
            f"| {spd['fps']:.0f} frames/s |"
        )


if __name__ == "__main__":
    main()
