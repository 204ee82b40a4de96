"""The README's picture of the cloth as the camera sees it with the projector's overlay on:

    .venv/bin/python docs/projector_picture.py    # writes docs/projector-cloth.jpg

The bundled skirmish under the simulated projector of ``referee demo --projector``: the
projector calibrated from its pattern frame, then a line drawn between every two pieces,
kept dark over every tag (with the margin ``demo --projector`` uses). The same code gives
the same picture.
"""

from __future__ import annotations

from pathlib import Path

import cv2

from referee.calibration.projector import fit_projector, projector_pattern
from referee.sim.projector_trial import lit_frame, pattern_frame, sample_projector
from referee.sim.scenario import load_scenario
from referee.sim.video import _Renderers

HERE = Path(__file__).resolve().parent
SCENARIO = HERE.parent / "sample_footage" / "skirmish.scenario.json"
FRAME = 120  # mid-game: pieces spread over the table, none in a hand
WIDTH = 960


def main() -> None:
    scenario = load_scenario(SCENARIO)
    projector = sample_projector(scenario)
    pattern = projector_pattern(projector.resolution, avoid=[e.tag for e in scenario.roster.pieces])
    fit = fit_projector(pattern_frame(scenario, projector, pattern), scenario.profile(0), pattern)
    _, _, _, lit = lit_frame(scenario, _Renderers(scenario), fit, projector, FRAME)
    h, w = lit.shape[:2]
    small = cv2.resize(lit, (WIDTH, round(h * WIDTH / w)), interpolation=cv2.INTER_AREA)
    out = HERE / "projector-cloth.jpg"
    cv2.imwrite(str(out), small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
