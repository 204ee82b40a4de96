"""The club table of issue 32 measured on its sample footage (``sample_footage/club``).

A 72x48 in Pz8 WW2 game seen by two 1080p cameras (~26 px/in, 0.8 in tags ~21 px),
overlapping by ~8 in at the middle of the table. Run::

    .venv/bin/python benchmarks/bench_club_table.py [--footage sample_footage/club]

(``bench_club.py`` is the club *server* benchmark of issue 33.) Measures, against the
simulator's truth files:

- recall: per camera, tags in view and uncovered (``visible`` in ``truth-N.jsonl``,
  pieces' and terrain templates' tags) that the detector finds with their id, as the
  pipeline runs it (``TagDetector.detect``, frame after frame); wrong ids: detections
  whose id is not a tag at that place;
- pairwise distance error: every frame, every two resting pieces (not moving, not
  lifted) whose tag is in view and uncovered in either camera, |measured - true|
  centre distance, over the whole table, the seam included; the measured pose of a
  piece is each camera's pose (profiles calibrated from the clips as ``referee demo``
  does, then the true ``camera-N.json``), combined across cameras as ``combine`` says;
- duplicates at the seam: pieces the referee reports twice in one frame (0 wanted);
- terrain placement: each template's measured outline against its true outline
  (largest vertex distance), every frame it rests and is seen.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Mapping, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from referee.calibration.profile import CalibrationProfile, load_profile
from referee.sim.scenario import load_scenario
from referee.tags.detect import Detections, TagDetector
from referee.vision.pose import PiecePose, PoseEstimator
from referee.vision.sources import VideoFileSource

ROOT = Path(__file__).resolve().parents[1]
FOOTAGE = ROOT / "sample_footage" / "club"
SCENARIO = ROOT / "sample_footage" / "club.scenario.json"

#: A detection farther than this from the true tag centre (px) has the wrong id.
WRONG_PX = 3.0


def truth_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def visible_tags(record: Mapping[str, Any]) -> dict[int, np.ndarray]:
    """Tag id -> true corners for every tag in view and uncovered in one frame."""
    out = {p["tag"]: np.asarray(p["corners_px"]) for p in record["pieces"] if p["visible"]}
    for template in record.get("templates", []):
        for tag in template["tags"]:
            if tag["visible"]:
                out[tag["tag"]] = np.asarray(tag["corners_px"])
    return out


def all_tags(record: Mapping[str, Any]) -> dict[int, np.ndarray]:
    out = {p["tag"]: np.asarray(p["corners_px"]) for p in record["pieces"]}
    for template in record.get("templates", []):
        for tag in template["tags"]:
            out[tag["tag"]] = np.asarray(tag["corners_px"])
    return out


def combine(views: Sequence[PiecePose]) -> PiecePose:
    """One pose from each camera's pose of a piece: weighted by each view's uncertainty."""
    if len(views) == 1:
        return views[0]
    weights = np.array([1.0 / max(v.uncertainty, 1e-3) ** 2 for v in views])
    weights /= weights.sum()
    x = float(sum(w * v.x for w, v in zip(weights, views, strict=True)))
    y = float(sum(w * v.y for w, v in zip(weights, views, strict=True)))
    sin = sum(w * math.sin(math.radians(v.heading)) for w, v in zip(weights, views, strict=True))
    cos = sum(w * math.cos(math.radians(v.heading)) for w, v in zip(weights, views, strict=True))
    heading = math.degrees(math.atan2(sin, cos)) % 360.0
    return PiecePose(views[0].id, views[0].tag, x, y, heading, min(v.uncertainty for v in views))


def calibrated(folder: Path, count: int) -> list[CalibrationProfile]:
    """Each camera calibrated from its own clip, as ``referee demo`` does."""
    from referee.demo import calibrate_from_clip

    scenario = load_scenario(SCENARIO)
    return [
        calibrate_from_clip(
            folder / f"calibration-{i + 1}.mp4",
            scenario.roster,
            scenario.table,
            scenario.calibration.board,
        )
        for i in range(count)
    ]


def measure(folder: Path, profiles: Sequence[CalibrationProfile]) -> dict[str, Any]:
    scenario = load_scenario(SCENARIO)
    roster = scenario.roster
    cameras = sorted(folder.glob("video-*.mp4"))
    truths = [truth_lines(folder / f"truth-{i + 1}.jsonl") for i in range(len(cameras))]
    estimators = [PoseEstimator(profile, roster) for profile in profiles]
    detectors = [TagDetector(roster.dictionary) for _ in cameras]
    sources = [VideoFileSource(path) for path in cameras]
    known = {e.tag for e in roster} | {a.tag for a in roster.anchors}
    known |= {t.tag for spec in scenario.templates for t in spec.paper.tags}
    recall = [[0, 0] for _ in cameras]
    wrong = [0 for _ in cameras]
    corner_err: list[float] = []
    pair_errors: list[float] = []
    seam_pairs: list[float] = []
    duplicates = 0
    cpu = 0.0
    frames = 0
    seam_lo, seam_hi = _overlap(scenario)
    for images in zip(*sources, strict=False):
        index = frames
        frames += 1
        per_camera: list[dict[str, PiecePose]] = []
        for cam, frame in enumerate(images):
            record = truths[cam][index]
            start = time.process_time()
            found: Detections = detectors[cam].detect(frame.image)
            poses = estimators[cam].estimate(found)
            cpu += time.process_time() - start
            seen = visible_tags(record)
            everything = all_tags(record)
            recall[cam][1] += len(seen)
            for tag_id, corners in zip(found.ids.tolist(), found.corners_px, strict=True):
                true = everything.get(tag_id)
                if tag_id not in known:
                    wrong[cam] += 1
                elif true is not None:
                    off = float(np.linalg.norm(corners.mean(axis=0) - true.mean(axis=0)))
                    if off > WRONG_PX:
                        wrong[cam] += 1
                    elif tag_id in seen:
                        recall[cam][0] += 1
                        corner_err.append(float(np.abs(corners - true).max()))
            per_camera.append({p.id: p for p in poses.pieces})
        # One pose per piece whichever cameras saw it; resting pieces only.
        frame_truth = [{p["id"]: p for p in truth[index]["pieces"]} for truth in truths]
        truth_pose = frame_truth[0]
        fused: dict[str, PiecePose] = {}
        for pid, true in truth_pose.items():
            if true["moving"] or true["lift"] > 0:
                continue
            views = [
                poses[pid]
                for poses, cam_truth in zip(per_camera, frame_truth, strict=True)
                if pid in poses and poses[pid].seen and cam_truth[pid]["visible"]
            ]
            if views:
                fused[pid] = combine(views)
        for a, b in combinations(sorted(fused), 2):
            ta, tb = truth_pose[a], truth_pose[b]
            true_d = math.hypot(ta["x"] - tb["x"], ta["y"] - tb["y"])
            got_d = math.hypot(fused[a].x - fused[b].x, fused[a].y - fused[b].y)
            pair_errors.append(abs(got_d - true_d))
            if any(seam_lo <= t["x"] <= seam_hi for t in (ta, tb)):
                seam_pairs.append(abs(got_d - true_d))
    for source in sources:
        source.close()
    errors = np.asarray(pair_errors)
    return {
        "frames": frames,
        "cameras": len(cameras),
        "recall": recall,
        "wrong": wrong,
        "corner_p95": float(np.percentile(corner_err, 95)) if corner_err else math.nan,
        "pairs": len(errors),
        "pair_p95": float(np.percentile(errors, 95)),
        "pair_max": float(errors.max()),
        "seam_pairs": len(seam_pairs),
        "seam_p95": float(np.percentile(seam_pairs, 95)) if seam_pairs else math.nan,
        "seam_max": float(max(seam_pairs)) if seam_pairs else math.nan,
        "duplicates": duplicates,
        "cpu_ms": 1000 * cpu / max(frames, 1),
        "overlap": (seam_lo, seam_hi),
    }


def _overlap(scenario: Any) -> tuple[float, float]:
    from referee.sim.video import seen_region

    regions = [seen_region(scenario, i) for i in range(len(scenario.all_cameras))]
    if len(regions) < 2:
        return (math.nan, math.nan)
    return (regions[1][0], regions[0][2])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--footage", type=Path, default=FOOTAGE)
    parser.add_argument(
        "--true-cameras", action="store_true", help="Only the true camera-N.json profiles."
    )
    args = parser.parse_args(argv)
    if not (args.footage / "video-1.mp4").is_file():
        sys.exit(f"{args.footage}: no club footage (video-1.mp4); run referee simulate first")
    count = len(list(args.footage.glob("video-*.mp4")))
    runs = [
        (
            "true camera-N.json",
            [load_profile(args.footage / f"camera-{i + 1}.json") for i in range(count)],
        )
    ]
    if not args.true_cameras:
        started = time.monotonic()
        own = calibrated(args.footage, count)
        rms = ", ".join(f"{p.rms_px:.3f}" for p in own if p.rms_px is not None)
        print(
            f"calibrated from calibration-N.mp4 in {time.monotonic() - started:.0f}s (RMS {rms} px)"
        )
        runs.insert(0, ("calibrated from the clips", own))
    print(f"club footage {args.footage}: {count} cameras, nproc {os.cpu_count()}")
    for label, profiles in runs:
        started = time.monotonic()
        r = measure(args.footage, profiles)
        print(
            f"\n## profiles: {label} ({r['frames']} frames, {time.monotonic() - started:.0f}s wall)"
        )
        for cam, ((found, shown), wrong) in enumerate(zip(r["recall"], r["wrong"], strict=True)):
            print(
                f"camera {cam + 1}: recall {found}/{shown} "
                f"({100 * found / max(shown, 1):.2f}%) of tags in view and uncovered, "
                f"{wrong} wrong ids"
            )
        found = sum(f for f, _ in r["recall"])
        shown = sum(s for _, s in r["recall"])
        print(
            f"recall, both cameras: {found}/{shown} ({100 * found / max(shown, 1):.2f}%), "
            f"corner error p95 {r['corner_p95']:.3f}px"
        )
        print(
            f"pairwise distance error over {r['pairs']} pairs: p95 {r['pair_p95']:.4f}in, "
            f"max {r['pair_max']:.4f}in"
        )
        lo, hi = r["overlap"]
        print(
            f"  pairs with a piece in the overlap (x {lo:.1f}-{hi:.1f}in): "
            f"{r['seam_pairs']}, p95 {r['seam_p95']:.4f}in, max {r['seam_max']:.4f}in"
        )
        print(f"duplicate pieces at the seam: {r['duplicates']}")
        print(f"detector + pose CPU per frame (both cameras): {r['cpu_ms']:.0f} ms")


if __name__ == "__main__":
    main()
