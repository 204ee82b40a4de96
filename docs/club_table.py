"""The README's club-table picture: what each of the club sample's two cameras sees.

    .venv/bin/python docs/club_table.py [--t 11.8] [--out docs/club-table.png]

Renders both cameras of ``sample_footage/club.scenario.json`` at one instant of the
game with the simulator (clean frames: no sensor noise, so the PNG stays small and the
same byte for byte), turns each so the table's north edge is up, and sets them side by
side, camera 1 (west half) on the left; the band both cameras see is shaded on each.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from referee.calibration.camera import project, table_xyz
from referee.sim.scenario import load_scenario
from referee.sim.video import _Renderers, seen_region

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "sample_footage" / "club.scenario.json"
#: Turn each camera's picture so table +x runs right and +y down (north up).
TURNS = (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE)
WIDTH = 380  # pixels per camera in the picture


def picture(t: float) -> np.ndarray:
    scenario = load_scenario(SCENARIO)
    state = scenario.state_at(t)
    low = max(seen_region(scenario, 1)[0], 0.0)
    high = min(seen_region(scenario, 0)[2], scenario.table.width)
    panels = []
    for camera, turn in enumerate(TURNS):
        renderer = _Renderers(scenario, camera).get({})
        frame, _ = renderer.render(
            state.poses, state.hands, moving=state.moving, templates=state.templates
        )
        frame = frame.copy()
        # The overlap, shaded where this camera sees it.
        spec = scenario.all_cameras[camera]
        band = table_xyz(
            [[low, 0], [high, 0], [high, scenario.table.depth], [low, scenario.table.depth]], 0.0
        )
        px = project(spec.intrinsics, spec.pose(), band)
        shade = frame.copy()
        cv2.fillPoly(shade, [np.round(px).astype(np.int32)], (255, 255, 255))
        frame = cv2.addWeighted(frame, 0.82, shade, 0.18, 0)
        # Keep the table and an inch and a half round it: the picture's ends are floor.
        w, d = scenario.table.width, scenario.table.depth
        edge = table_xyz([[x, y] for x in np.linspace(0, w, 13) for y in (-1.5, d + 1.5)], 0.0)
        width = spec.intrinsics.image_size[0]
        rows = project(spec.intrinsics, spec.pose(), edge)[:, 0]
        if turn == cv2.ROTATE_90_COUNTERCLOCKWISE:
            rows = width - 1 - rows
        top, bottom = int(max(rows.min(), 0)), int(min(rows.max(), width - 1))
        frame = cv2.rotate(frame, turn)[top : bottom + 1]
        scale = WIDTH / frame.shape[1]
        small = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        cv2.putText(
            small, f"camera {camera + 1}", (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255),
            1, cv2.LINE_AA,
        )  # fmt: skip
        panels.append(small)
    tall = max(p.shape[0] for p in panels)
    panels = [
        cv2.copyMakeBorder(p, 0, tall - p.shape[0], 0, 0, cv2.BORDER_CONSTANT, value=(40, 40, 40))
        for p in panels
    ]
    gap = np.full((tall, 8, 3), 255, np.uint8)
    # Grey levels in steps of 4: the felt's fine grain costs most of a PNG's bytes.
    return np.hstack([panels[0], gap, panels[1]]) & np.uint8(0xFC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t", type=float, default=11.8, help="Seconds into the game.")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "club-table.png")
    args = parser.parse_args()
    image = picture(args.t)
    cv2.imwrite(str(args.out), image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(f"wrote {args.out} ({image.shape[1]}x{image.shape[0]}, {args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
