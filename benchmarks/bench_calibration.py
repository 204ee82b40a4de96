"""Calibration accuracy on simulated 1080p footage, turned into table position error.

Run: .venv/bin/python benchmarks/bench_calibration.py
(``... bench_calibration.py lenses``: the lens-model selection before/after, issue 41)

A 1920x1080 webcam (70 deg, k1 = -0.2) 49 in above a 48 x 36 in table. Each
trial renders 15 views of the printed Letter board held at varied angles plus
the final table view (board flat, four corner anchors; views reach into the
image corners as the collector's guidance asks), calibrates with
``calibrate_frames``, then maps a 2 in grid over the whole table from pixels
made by the true camera back to inches with the estimated profile, flat and
at 1 in tag height. Board-only frames are re-expressed in the true table frame
through the board's known placement before comparing. The board-only table
view also shows 16 flat 0.8 in piece tags spread over the table (a roster's
tag_height 0 pieces); pairwise distance error (frame-free: 40 random table
points, every pair) compares the anchors fit, the board alone, and the board
refined jointly with those tags.
"""

from __future__ import annotations

import importlib.util
import itertools
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from referee.calibration.calibrate import BoardDetector, Frame, calibrate_frames
from referee.calibration.camera import pixels_to_table, project, table_xyz
from referee.calibration.profile import CalibrationProfile
from referee.tags.board import BoardSpec

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "calibration_sim_views", HERE.parent / "tests" / "calibration" / "sim_views.py"
)
assert _spec is not None and _spec.loader is not None
sim = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = sim
_spec.loader.exec_module(sim)

BOARD = BoardSpec.parse("charuco:5x7:0.03m:0.021m:DICT_6X6_250")  # `referee board` Letter
PLACED = (12.0, 10.0, 20.0)
SEEDS = (1, 2, 3)
VIEWS = 15


def rms(values: np.ndarray) -> float:
    return float(np.sqrt(np.mean(values**2)))


def pairwise_p95(rig: object, profile: CalibrationProfile) -> float:
    """95th percentile of |estimated - true| distance over every pair of 40 flat table points."""
    points = np.column_stack(
        [np.random.default_rng(7).uniform(2, 46, 40), np.random.default_rng(8).uniform(2, 34, 40)]
    )
    px = project(rig.intrinsics, rig.pose, table_xyz(points, 0.0))  # type: ignore[attr-defined]
    got = pixels_to_table(profile.intrinsics, profile.table_pose, px, 0.0)
    errors = [
        abs(np.linalg.norm(got[i] - got[j]) - np.linalg.norm(points[i] - points[j]))
        for i, j in itertools.combinations(range(len(points)), 2)
    ]
    return float(np.percentile(errors, 95))


def flat_piece_tags(seed: int) -> tuple[tuple[int, float, float, float, float], ...]:
    """16 flat 0.8 in tags (tag, x, y, heading, size) on a jittered 4 x 4 grid, off the board."""
    rng = np.random.default_rng(seed)
    spots = [(x, y) for y in (4, 12, 24, 32) for x in (4, 14, 34, 44)]
    return tuple(
        (10 + i, x + rng.uniform(-1, 1), y + rng.uniform(-1, 1), rng.uniform(0, 360), 0.8)
        for i, (x, y) in enumerate(spots)
    )


def trial(seed: int) -> dict[str, float]:
    rig = sim.rig(1920, 1080, k1=-0.2)
    poses = sim.held_board_poses(rig, VIEWS, seed=seed, board=BOARD)
    held = [Frame(f"v{i}", sim.render_held(rig, *p, board=BOARD)) for i, p in enumerate(poses)]
    with_anchors = Frame("table", sim.render_table(rig, board_at=PLACED, board=BOARD))
    pieces = flat_piece_tags(seed)
    board_only = Frame(
        "flat",
        sim.render_table(rig, board_at=PLACED, anchors=(), flat_tags=pieces, board=BOARD),
    )
    out: dict[str, float] = {}
    start = time.perf_counter()
    run = calibrate_frames([*held, with_anchors], spec=BOARD, table=sim.TABLE)
    out["solve_s"] = time.perf_counter() - start
    assert run.profile.frame_source == "anchors", run.profile.frame_source
    intr = run.profile.intrinsics
    out["rms_px"] = run.solution.rms_px
    out["views"] = len(run.solution.used)
    out["fx_err_pct"] = abs(intr.fx / rig.intrinsics.fx - 1) * 100
    out["c_err_px"] = float(np.hypot(intr.cx - rig.intrinsics.cx, intr.cy - rig.intrinsics.cy))
    for h in (0.0, 1.0):
        e = sim.table_error(rig, intr, run.profile.table_pose, h)
        out[f"anchors_h{h:g}_rms"], out[f"anchors_h{h:g}_max"] = rms(e), float(e.max())
    out["pair_anchors"] = pairwise_p95(rig, run.profile)
    run_b = calibrate_frames([*held, board_only], spec=BOARD, table=sim.TABLE)
    assert run_b.profile.frame_source == "board"
    out["pair_board"] = pairwise_p95(rig, run_b.profile)
    run_j = calibrate_frames(
        [*held, board_only], spec=BOARD, table=sim.TABLE, flat_tags=[(p[0], p[4]) for p in pieces]
    )
    assert run_j.table is not None and run_j.table.flat_tags_used >= 12
    out["pair_joint"] = pairwise_p95(rig, run_j.profile)
    for h in (0.0, 1.0):
        e = sim.table_error(
            rig,
            run_b.profile.intrinsics,
            run_b.profile.table_pose,
            h,
            frame_to_table=sim.board_table_transform(PLACED),
        )
        out[f"board_h{h:g}_rms"], out[f"board_h{h:g}_max"] = rms(e), float(e.max())
    # The same, by a user who never brings the board into the image corners.
    lazy_poses = sim.held_board_poses(rig, VIEWS, seed=seed, board=BOARD, reach=0.33)
    lazy = [Frame(f"l{i}", sim.render_held(rig, *p, board=BOARD)) for i, p in enumerate(lazy_poses)]
    run_l = calibrate_frames([*lazy, with_anchors], spec=BOARD, table=sim.TABLE)
    e = sim.table_error(rig, run_l.profile.intrinsics, run_l.profile.table_pose, 0.0)
    out["lazy_h0_rms"], out["lazy_h0_max"] = rms(e), float(e.max())
    detector = BoardDetector(BOARD)
    times = []
    for frame in held[:5]:
        t0 = time.perf_counter()
        detector.detect(frame.image)
        times.append(time.perf_counter() - t0)
    out["detect_ms"] = statistics.median(times) * 1000
    return out


#: Lenses for the model-selection comparison (issue 41): (name, k1, k2, p1, p2, k3).
LENSES = (
    ("no k3", (-0.2, 0.03, 0.0, 0.0, 0.0)),
    ("real k3 -0.02", (-0.28, 0.09, 0.0, 0.0, -0.02)),
    ("decentred p1 p2", (-0.2, 0.03, 0.001, -0.0008, 0.0)),
)
#: Views per clip and how far they reach (0.4: into the picture's corners; 0.33: short).
LENS_VIEWS = 15
REACHES = (0.4, 0.33)


def far_from_anchors(rig: object, profile: CalibrationProfile) -> tuple[float, float]:
    """Max table error (flat) over grid points at least 12 in from every anchor, and overall."""
    errors = sim.table_error(rig, profile.intrinsics, profile.table_pose, 0.0)
    xs = np.arange(1.0, sim.TABLE.width - 0.99, 2.0)
    ys = np.arange(1.0, sim.TABLE.depth - 0.99, 2.0)
    grid = np.array([(x, y) for y in ys for x in xs])
    anchors = np.array([(1.5, 1.5), (46.5, 1.5), (46.5, 34.5), (1.5, 34.5)])
    gap = np.min(np.linalg.norm(grid[:, None, :] - anchors[None], axis=2), axis=1)
    return float(errors[gap >= 12.0].max()), float(errors.max())


def lens_trial(lens: tuple[float, ...], reach: float, seed: int) -> dict[str, float]:
    rig = sim.rig(1920, 1080, distortion=lens)
    poses = sim.held_board_poses(rig, LENS_VIEWS, seed=seed, board=BOARD, reach=reach)
    held = [Frame(f"v{i}", sim.render_held(rig, *p, board=BOARD)) for i, p in enumerate(poses)]
    table = Frame("table", sim.render_table(rig, board_at=PLACED, board=BOARD))
    out: dict[str, float] = {}
    for label, select in (("before", False), ("after", True)):
        start = time.perf_counter()
        run = calibrate_frames(
            [*held, table], spec=BOARD, table=sim.TABLE, select_lens_model=select
        )
        out[f"{label}_s"] = time.perf_counter() - start
        intr = run.profile.intrinsics
        out[f"{label}_fx"] = abs(intr.fx / rig.intrinsics.fx - 1) * 100
        out[f"{label}_k3"] = abs(float(intr.distortion[4]) - lens[4])
        out[f"{label}_far"], out[f"{label}_max"] = far_from_anchors(rig, run.profile)
        out[f"{label}_pair"] = pairwise_p95(rig, run.profile)
        if select:
            out["model"] = float(
                ["k1,k2", "k1,k2,k3", "k1,k2,p1,p2", "k1,k2,p1,p2,k3"].index(
                    run.solution.lens_model
                )
            )
            out["coverage"] = run.picture_coverage
            out["warned"] = float(run.fit_warning is not None)
    return out


def lenses_main() -> None:
    """Before/after the lens model chosen by held-out error (issue 41, item 1)."""
    cv2.setNumThreads(1)
    names = ["k1,k2", "k1,k2,k3", "k1,k2,p1,p2", "k1,k2,p1,p2,k3"]
    print(
        f"Lens model selection, simulated 1920x1080, 48x36 table, {LENS_VIEWS} held views + "
        f"flat board and 4 anchors; seeds {SEEDS} (median / worst over seeds)\n"
    )
    print(
        "| lens | views reach | models chosen | fx err % before / after | k3 err before / after "
        '| far from anchors max " before / after | table max " before / after '
        '| pairwise p95 " before / after | corners span | warned | solve s before / after |'
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, lens in LENSES:
        for reach in REACHES:
            results = [lens_trial(lens, reach, seed) for seed in SEEDS]

            def pair(key: str, digits: int, rs: list[dict[str, float]] = results) -> str:
                def one(label: str) -> str:
                    values = [r[f"{label}_{key}"] for r in rs]
                    return f"{statistics.median(values):.{digits}f}/{max(values):.{digits}f}"

                return f"{one('before')} -> {one('after')}"

            chosen = ", ".join(names[int(r["model"])] for r in results)
            spans = "/".join(f"{r['coverage']:.0%}" for r in results)
            warned = sum(int(r["warned"]) for r in results)
            print(
                f"| {name} | {reach:g} | {chosen} | {pair('fx', 3)} | {pair('k3', 4)} "
                f"| {pair('far', 4)} | {pair('max', 4)} | {pair('pair', 4)} | {spans} "
                f"| {warned} of {len(results)} | {pair('s', 2)} |",
                flush=True,
            )


def main() -> None:
    cv2.setNumThreads(1)
    results = [trial(seed) for seed in SEEDS]

    def med(key: str) -> float:
        return statistics.median(r[key] for r in results)

    def worst(key: str) -> float:
        return max(r[key] for r in results)

    print(
        f"Calibration, simulated 1920x1080, k1=-0.2, 48x36 table, {VIEWS} held views + "
        f"1 flat; {len(SEEDS)} trials (median / worst)\n"
    )
    print("| figure | median | worst |")
    print("|---|---|---|")
    rows = [
        ("calibration RMS (px)", "rms_px", 3),
        ("views used", "views", 0),
        ("fx error (%)", "fx_err_pct", 3),
        ("principal point error (px)", "c_err_px", 2),
        ('table error, anchors frame, flat: RMS (")', "anchors_h0_rms", 4),
        ('table error, anchors frame, flat: max (")', "anchors_h0_max", 4),
        ('table error, anchors frame, 1" up: RMS (")', "anchors_h1_rms", 4),
        ('table error, anchors frame, 1" up: max (")', "anchors_h1_max", 4),
        ('table error, board frame, flat: RMS (")', "board_h0_rms", 4),
        ('table error, board frame, 1" up: RMS (")', "board_h1_rms", 4),
        ('table error, board frame, flat: max (")', "board_h0_max", 4),
        ('pairwise distance p95, anchors frame (")', "pair_anchors", 4),
        ('pairwise distance p95, board only (")', "pair_board", 4),
        ('pairwise distance p95, board + 16 flat tags, joint fit (")', "pair_joint", 4),
        ('corners never covered: anchors frame, flat: RMS (")', "lazy_h0_rms", 4),
        ('corners never covered: anchors frame, flat: max (")', "lazy_h0_max", 4),
        ("board detection per 1080p view (ms)", "detect_ms", 1),
        ("solve incl. table fit (s)", "solve_s", 2),
    ]
    for label, key, digits in rows:
        print(f"| {label} | {med(key):.{digits}f} | {worst(key):.{digits}f} |")


if __name__ == "__main__":
    if sys.argv[1:] == ["lenses"]:
        lenses_main()
    else:
        main()
