"""Simulator benchmark: render time per frame and ground-truth accuracy.

Run: .venv/bin/python benchmarks/bench_sim.py
Prints a markdown table (medians over repeats, one OpenCV thread).
"""

from __future__ import annotations

import statistics
import time

import cv2
import numpy as np

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import TableSize
from referee.calibration.table import default_anchors
from referee.markers.roster import RosterEntry
from referee.sim.imaging import Imager
from referee.sim.measure import edge_fit_corners
from referee.sim.render import Hand, PiecePose, TableRenderer
from referee.sim.warp import RayMap

DICT = "DICT_4X4_100"
LENS = (-0.2, 0.05, 0.0008, -0.0005, 0.0)
REPEATS = 15


def scene(resolution: tuple[int, int], fov: float) -> tuple[TableRenderer, dict[str, PiecePose]]:
    table = TableSize(48, 36)
    rng = np.random.default_rng(1)
    entries, poses = [], {}
    for i in range(24):
        raised = i % 3 == 0
        entries.append(
            RosterEntry(
                i,
                f"p{i}",
                "soviet" if i < 12 else "german",
                "tank" if raised else "infantry",
                (1.5, 3.0) if raised else (2.0, 1.0),
                (0.0, 0.0),
                0.9 if raised else 0.0,
            )
        )
        col, row = i % 6, i // 6
        poses[f"p{i}"] = PiecePose(
            5 + col * 7.5 + rng.uniform(-1, 1),
            5 + row * 8.5 + rng.uniform(-1, 1),
            rng.uniform(0, 360),
        )
    terrain = [
        ("woods", [(20, 8), (27, 8), (28, 13), (21, 14)]),
        ("building", [(8, 9), (11, 9), (11, 11.5), (8, 11.5)]),
        ("road", [(0, 20), (48, 19), (48, 20.5), (0, 21.5)]),
        ("hill", [(33, 22), (40, 23), (39, 29), (32, 28)]),
    ]
    intrinsics = Intrinsics.from_fov(resolution, fov, LENS)
    pose = TablePose.looking_down((24, 18), 44, tilt_deg=5, yaw_deg=0.5)
    return (
        TableRenderer(
            intrinsics, pose, table, entries, terrain, default_anchors(DICT, table), DICT
        ),
        poses,
    )


def median_ms(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    cv2.setNumThreads(1)
    rows = []
    for label, res in (("1080p", (1920, 1080)), ("4K", (3840, 2160))):
        start = time.perf_counter()
        renderer, poses = scene(res, 66)
        RayMap.for_camera(renderer.intrinsics)
        ray_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        renderer.background  # noqa: B018 - build the cache
        background_ms = (time.perf_counter() - start) * 1000
        still = median_ms(lambda r=renderer, p=poses: r.render(p))
        moving = dict(poses)
        moving["p0"] = PiecePose(poses["p0"].x + 1, poses["p0"].y, 10, lift=1.0)
        hand = Hand((poses["p0"].x, 42.0), (poses["p0"].x + 1, poses["p0"].y + 1.4), 3.0)
        busy = median_ms(lambda r=renderer, p=moving, h=hand: r.render(p, [h], moving={"p0"}))
        imager = Imager(res, 0.6, 2.0, 0.25, 0.12, seed=1)
        frame, truth = renderer.render(poses)
        optics = median_ms(lambda f=frame, im=imager: im.apply(f))
        rows.append((label, ray_ms, background_ms, still, busy, optics))
        if label == "1080p":
            accuracy = measure_accuracy(renderer, frame, truth)
    print(
        "| resolution | ray map (once) ms | background (once) ms | frame: 24 pieces ms "
        "| video frame: 1 piece carried by a hand, 23 still (cached layer) ms "
        "| optics (blur, light, noise) ms |"
    )
    print("|---|---|---|---|---|---|")
    for label, ray_ms, background_ms, still, busy, optics in rows:
        cells = [f"{ray_ms:.0f}", f"{background_ms:.0f}", f"{still:.1f}", f"{busy:.1f}"]
        print(f"| {label} | {' | '.join(cells)} | {optics:.1f} |")
    print()
    print("| 1080p clean render, tag corners vs projected truth | median px | p95 px | max px |")
    print("|---|---|---|---|")
    for name, values in accuracy.items():
        v = np.asarray(values)
        print(f"| {name} | {np.median(v):.4f} | {np.percentile(v, 95):.4f} | {v.max():.4f} |")


def measure_accuracy(renderer: TableRenderer, frame: np.ndarray, truth: dict) -> dict:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100), params
    )
    corners, ids, _ = detector.detectMarkers(frame)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    by_tag = {e.tag: e for e in renderer.pieces}
    out: dict[str, list[float]] = {
        "edge fit, flat tags": [],
        "edge fit, 0.9 in roof tags": [],
        "ArUco CORNER_REFINE_SUBPIX, all tags": [],
    }
    for c, tag in zip(corners, ids.ravel(), strict=True):
        entry = by_tag.get(int(tag))
        if entry is None:
            continue
        expected = truth[entry.id].corners_px
        fit = edge_fit_corners(grey, c.reshape(4, 2), renderer.intrinsics)
        key = "edge fit, 0.9 in roof tags" if entry.tag_height else "edge fit, flat tags"
        out[key].extend(np.linalg.norm(fit - expected, axis=1).tolist())
        out["ArUco CORNER_REFINE_SUBPIX, all tags"].extend(
            np.linalg.norm(c.reshape(4, 2) - expected, axis=1).tolist()
        )
    return out


if __name__ == "__main__":
    main()
