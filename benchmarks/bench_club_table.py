"""The club table of issue 32 measured on its sample footage (``sample_footage/club``).

A 72x48 in Pz8 WW2 game seen by two 1080p cameras (~26 px/in, 0.8 in tags ~21 px),
overlapping by ~7-8 in at the middle of the table, with four paper terrain templates.
Run::

    .venv/bin/python benchmarks/bench_club_table.py [--footage sample_footage/club]

(about 2 minutes on 2 cores; ``bench_club.py`` is the club *server* benchmark of issue
33). The referee's own multi-camera :class:`~referee.vision.pipeline.Pipeline` (a
detector and pose stage per camera, fusion per id, one tracker) runs on both videos,
frame sets matched by time as ``referee demo`` does, first with each camera calibrated
from its own clip (``calibration-N.mp4``, as ``referee demo`` does), then with the true
profiles (``camera-N.json``: the vision alone). Measured against the simulator's truth:

- recall: per camera, tags in view and uncovered (``visible`` in ``truth-N.jsonl``:
  pieces' and templates' tags) that the camera's detector found with their id, frame
  after frame as the pipeline runs it; wrong ids: detections whose id is not a tag at
  that place;
- pairwise distance error: every frame, every two resting pieces (not moving, not
  lifted) whose tag is in view and uncovered in either camera, |measured - true| centre
  distance, the measured poses being the frame's fused poses (what the tracker is
  given), over the whole table; the pairs with a piece in the overlap are also counted
  apart (the seam);
- duplicates at the seam: ids the fused poses or the tracker hold twice in a frame, and
  moves reported for a piece carried across the seam beyond its one true move;
- terrain placement: every frame, every template at rest whose tag(s) a camera sees,
  the largest distance between a vertex of its true placed outline and the same vertex
  of the outline placed at its fused pose (p95 and max).
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
from referee.markers.roster import load_roster
from referee.sim.render import PiecePose as SimPose
from referee.sim.scenario import load_scenario
from referee.sim.video import seen_region
from referee.vision.fusion import fuse
from referee.vision.pipeline import Pipeline
from referee.vision.sources import MultiSource, VideoFileSource

ROOT = Path(__file__).resolve().parents[1]
FOOTAGE = ROOT / "sample_footage" / "club"
SCENARIO = ROOT / "sample_footage" / "club.scenario.json"

#: A detection farther than this from the true tag centre (px) has the wrong id.
WRONG_PX = 3.0


def truth_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def tag_truth(record: Mapping[str, Any]) -> tuple[dict[int, np.ndarray], set[int]]:
    """Every tag's true corners in one camera's frame, and the ids in view and uncovered."""
    corners: dict[int, np.ndarray] = {}
    visible: set[int] = set()
    tags = [(p["tag"], p) for p in record["pieces"]]
    tags += [(t["tag"], t) for template in record.get("templates", []) for t in template["tags"]]
    for tag, truth in tags:
        corners[tag] = np.asarray(truth["corners_px"])
        if truth["visible"]:
            visible.add(tag)
    return corners, visible


def calibrated(folder: Path, count: int) -> list[CalibrationProfile]:
    """Each camera calibrated from its own clip, as ``referee demo`` does."""
    from referee.calibration.footage import calibrate_from_clip

    scenario = load_scenario(SCENARIO)
    roster = load_roster(folder / "roster.json")
    return [
        calibrate_from_clip(
            folder / f"calibration-{i + 1}.mp4", roster, scenario.table, scenario.calibration.board
        )
        for i in range(count)
    ]


def measure(folder: Path, profiles: Sequence[CalibrationProfile]) -> dict[str, Any]:
    scenario = load_scenario(SCENARIO)
    roster = load_roster(folder / "roster.json")
    count = len(profiles)
    truths = [truth_lines(folder / f"truth-{i + 1}.jsonl") for i in range(count)]
    papers = {spec.paper.id: spec.paper for spec in scenario.templates}
    known = {e.tag for e in roster} | {a.tag for a in roster.anchors}
    known |= {t.tag for paper in papers.values() for t in paper.tags}
    sources = [VideoFileSource(folder / f"video-{i + 1}.mp4") for i in range(count)]
    source = MultiSource(sources)
    pipeline = Pipeline(list(profiles), roster, source_name=[s.name for s in sources])
    lo, hi = (seen_region(scenario, 1)[0], seen_region(scenario, 0)[2])
    recall = [[0, 0] for _ in range(count)]
    wrong = [0] * count
    pair_errors: list[float] = []
    seam_errors: list[float] = []
    terrain_errors: list[float] = []
    duplicates = 0
    moves: list[str] = []
    cpu = 0.0
    frames = 0
    for frame in source:
        start = time.process_time()
        result = pipeline.process(frame)
        cpu += time.process_time() - start
        frames += 1
        index = result.frame
        moves += [e.piece for e in result.events if type(e).__name__ == "MoveEvent"]
        records = [truths[v.camera][index] for v in result.views]
        for view, record in zip(result.views, records, strict=True):
            corners, visible = tag_truth(record)
            recall[view.camera][1] += len(visible)
            found = view.detections
            for tag, quad in zip(found.ids.tolist(), found.corners_px, strict=True):
                true = corners.get(tag)
                if tag not in known:
                    wrong[view.camera] += 1
                elif true is not None:
                    if np.linalg.norm(quad.mean(axis=0) - true.mean(axis=0)) > WRONG_PX:
                        wrong[view.camera] += 1
                    elif tag in visible:
                        recall[view.camera][0] += 1
        fused = fuse([v.pieces for v in result.views]).pieces
        ids = [p.id for p in fused]
        tracked = [p.pose.id for p in result.tracks.pieces]
        duplicates += (len(ids) - len(set(ids))) + (len(tracked) - len(set(tracked)))
        by_id = {p.id: p for p in fused}
        # Pieces at rest whose tag some camera sees whole and uncovered.
        truth = {p["id"]: p for p in records[0]["pieces"]}
        shown = {p["id"] for record in records for p in record["pieces"] if p["visible"]} & set(
            by_id
        )
        resting = sorted(
            pid for pid in shown if not truth[pid]["moving"] and truth[pid]["lift"] == 0
        )
        for a, b in combinations(resting, 2):
            ta, tb = truth[a], truth[b]
            true_d = math.hypot(ta["x"] - tb["x"], ta["y"] - tb["y"])
            got_d = math.hypot(by_id[a].x - by_id[b].x, by_id[a].y - by_id[b].y)
            pair_errors.append(abs(got_d - true_d))
            if any(lo <= t["x"] <= hi for t in (ta, tb)):
                seam_errors.append(abs(got_d - true_d))
        for template in records[0].get("templates", []):
            tid = template["id"]
            seen = any(
                tag["visible"]
                for record in records
                for t in record["templates"]
                if t["id"] == tid
                for tag in t["tags"]
            )
            if template["moving"] or not seen or tid not in by_id:
                continue
            paper = papers[tid]
            true_outline = paper.placed(SimPose(template["x"], template["y"], template["heading"]))
            got = by_id[tid]
            placed = paper.placed(SimPose(got.x, got.y, got.heading))
            terrain_errors.append(float(np.hypot(*(placed - true_outline).T).max()))
    source.close()
    starts = scenario.start_poses()
    crossing = [
        m.piece
        for m in scenario.moves
        if m.piece in starts and (starts[m.piece].x - (lo + hi) / 2) * (m.to.x - (lo + hi) / 2) < 0
    ]
    extra_seam_moves = sum(max(moves.count(p) - crossing.count(p), 0) for p in set(crossing))
    missing_seam_moves = sum(max(crossing.count(p) - moves.count(p), 0) for p in set(crossing))

    def stats(values: list[float]) -> tuple[float, float]:
        if not values:
            return (math.nan, math.nan)
        return float(np.percentile(values, 95)), float(max(values))

    return {
        "frames": frames,
        "recall": recall,
        "wrong": wrong,
        "pairs": len(pair_errors),
        "pair": stats(pair_errors),
        "seam_pairs": len(seam_errors),
        "seam": stats(seam_errors),
        "terrain_samples": len(terrain_errors),
        "terrain": stats(terrain_errors),
        "duplicates": duplicates,
        "crossing": len(crossing),
        "extra_seam_moves": extra_seam_moves,
        "missing_seam_moves": missing_seam_moves,
        "moves": len(moves),
        "cpu_ms": 1000 * cpu / max(frames, 1),
        "overlap": (lo, hi),
    }


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
    true = [load_profile(args.footage / f"camera-{i + 1}.json") for i in range(count)]
    runs = [("true camera-N.json", true)]
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
        print(f"\n## profiles: {label} ({r['frames']} frame sets, "
              f"{time.monotonic() - started:.0f}s wall)")  # fmt: skip
        for cam, ((found, shown), wrong) in enumerate(zip(r["recall"], r["wrong"], strict=True)):
            print(f"camera {cam + 1}: recall {found}/{shown} "
                  f"({100 * found / max(shown, 1):.2f}%) of tags in view and uncovered, "
                  f"{wrong} wrong ids")  # fmt: skip
        found = sum(f for f, _ in r["recall"])
        shown = sum(s for _, s in r["recall"])
        print(f"recall, both cameras: {found}/{shown} ({100 * found / max(shown, 1):.2f}%)")
        p95, worst = r["pair"]
        print(f"pairwise distance error over {r['pairs']} pairs: p95 {p95:.4f}in, "
              f"max {worst:.4f}in")  # fmt: skip
        lo, hi = r["overlap"]
        p95, worst = r["seam"]
        print(f"  pairs with a piece in the overlap (x {lo:.1f}-{hi:.1f}in): "
              f"{r['seam_pairs']}, p95 {p95:.4f}in, max {worst:.4f}in")  # fmt: skip
        print(f"duplicate pieces at the seam: {r['duplicates']} (ids held twice in a frame); "
              f"moves across the seam: {r['crossing']} true, {r['extra_seam_moves']} extra, "
              f"{r['missing_seam_moves']} missed; {r['moves']} moves in all")  # fmt: skip
        p95, worst = r["terrain"]
        print(f"terrain placement error over {r['terrain_samples']} template-frames: "
              f"p95 {p95:.4f}in, max {worst:.4f}in")  # fmt: skip
        print(f"pipeline CPU per frame set (both cameras, fusion, tracker): {r['cpu_ms']:.0f} ms")


if __name__ == "__main__":
    main()
