"""Terrain template benchmark: how far a placed template's outline is from where it lies.

Renders paper terrain templates lying flat (their tags at height 0) with
:mod:`referee.sim` at random poses on a table seen by one 1080p camera,
adds the bench's sensor noise, defocus and MPEG-4 compression, and places
each template from the tags its frame shows (pose stage only: one frame, no
tracker smoothing, so the figure is the worst a first placement can be).
Error of a placement = the largest distance between a vertex of the true
placed outline and the same vertex of the estimated one, inches (what the
demo's ``terrain placement error`` line measures). Goal (issue 32):
at most 0.05 in at p95.

    .venv/bin/python benchmarks/bench_terrain.py [--quick]
"""

from __future__ import annotations

import argparse
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.markers.roster import Roster, RosterEntry, TemplateTag, TerrainTemplate, place
from referee.sim.imaging import Imager
from referee.sim.render import PiecePose as SimPose
from referee.sim.render import TableRenderer
from referee.tags.detect import TagDetector
from referee.vision.pose import PoseEstimator
from referee.vision.sources import VideoFileSource

SIZE = (1920, 1080)


@dataclass(frozen=True)
class Case:
    name: str
    table: tuple[float, float]
    tag_size: float


CASES = (
    Case("48x36 table, 1080p, 0.8in tags", (48.0, 36.0), 0.8),
    Case("72x48 table, 1080p, 1.0in tags", (72.0, 48.0), 1.0),
)


def templates(tag_size: float) -> tuple[TerrainTemplate, ...]:
    """A one-tag wood, a two-tag hill and a two-tag river section (tags turned on it)."""
    wood = TerrainTemplate(
        "wood", "woods", ((-3.0, -2.0), (3.0, -2.0), (3.0, 2.0), (-3.0, 2.0)), (TemplateTag(60),),
        tag_size,
    )  # fmt: skip
    hill = TerrainTemplate(
        "hill", "hill", ((-5.0, -3.0), (5.0, -3.0), (5.0, 3.0), (-5.0, 3.0)),
        (TemplateTag(61, (-3.0, 0.0), 0.0), TemplateTag(62, (3.0, 0.0), 180.0)), tag_size,
    )  # fmt: skip
    river = TerrainTemplate(
        "river", "river", ((-9.0, -1.5), (9.0, -1.5), (9.0, 1.5), (-9.0, 1.5)),
        (TemplateTag(63, (-4.5, 0.0), 90.0), TemplateTag(64, (4.5, 0.0), 270.0)), tag_size,
    )  # fmt: skip
    return (wood, hill, river)


def camera(case: Case) -> tuple[Intrinsics, TablePose]:
    width, depth = case.table
    intr = Intrinsics.from_fov(SIZE, 72.0, (-0.2, 0.02, 0.0, 0.0, 0.0))
    height = max(width / 1.18, depth / 0.69)  # the whole table in view, as bench_vision
    return intr, TablePose.looking_down((width / 2, depth / 2), height, tilt_deg=3.0)


def tag_entries(items: tuple[TerrainTemplate, ...]) -> dict[int, RosterEntry]:
    """Each printed tag as the renderer's flat 'piece' (a paper square of the tag's size)."""
    out = {}
    for t in items:
        for g in t.tags:
            side = (t.tag_size or 0.8) * 1.34
            out[g.tag] = RosterEntry(g.tag, f"tag{g.tag}", "paper", "terrain", (side, side),
                                     tag_height=0.0, tag_size=t.tag_size)  # fmt: skip
    return out


def run(case: Case, layouts: int, seed: int = 3) -> list[float]:
    items = templates(case.tag_size)
    entries = tag_entries(items)
    intr, pose = camera(case)
    table = TableSize(*case.table)
    renderer = TableRenderer(intr, pose, table, tuple(entries.values()), tag_size=case.tag_size)
    profile = CalibrationProfile(intr, pose, table, frame_source="simulated", rms_px=0.05)
    roster = Roster("DICT_4X4_100", (), (), items)
    estimator = PoseEstimator(profile, roster)
    detector = TagDetector(roster.dictionary)
    imager = Imager(SIZE, blur=0.6, noise=2.0, vignetting=0.25, light=0.12, seed=seed)
    rng = np.random.default_rng(seed)
    truth: list[dict[str, tuple[float, float, float]]] = []
    errors: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "terrain.mp4"
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, SIZE)
        for _ in range(layouts):
            width, depth = case.table
            # Three bands across the table so the templates never overlap.
            at = {
                t.id: (float(rng.uniform(12, width - 12)), (k + 0.5) * depth / 3
                       + float(rng.uniform(-2, 2)), float(rng.uniform(0, 360)))
                for k, t in enumerate(items)
            }  # fmt: skip
            poses = {}
            for t in items:
                x, y, h = at[t.id]
                for g in t.tags:
                    ((tx, ty),) = place([g.at], x, y, h)
                    poses[f"tag{g.tag}"] = SimPose(tx, ty, (h + g.heading) % 360.0)
            clean, _ = renderer.render(poses)
            writer.write(imager.apply(clean))
            truth.append(at)
        writer.release()
        source = VideoFileSource(path)
        for frame, at in zip(source, truth, strict=False):
            found = {p.id: p for p in estimator.estimate(detector.detect_full(frame.image)).pieces}
            for t in items:
                p = found.get(t.id)
                if p is None:
                    continue
                true = t.placed(*at[t.id])
                est = t.placed(p.x, p.y, p.heading)
                errors.append(max(math.dist(a, b) for a, b in zip(true, est, strict=True)))
        source.close()
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer layouts")
    args = parser.parse_args()
    layouts = 10 if args.quick else 40
    print("| case | placements | p95 (in) | max (in) |")
    print("|---|---|---|---|")
    for case in CASES:
        errors = run(case, layouts)
        p95 = float(np.percentile(errors, 95)) if errors else math.nan
        worst = max(errors) if errors else math.nan
        print(f"| {case.name} | {len(errors)} of {3 * layouts} | {p95:.4f} | {worst:.4f} |")


if __name__ == "__main__":
    main()
