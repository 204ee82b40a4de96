"""The projector's one button, end to end: the camera sees ``/projector?pattern=1`` on the
table, ``POST /api/projector/calibrate`` fits it, and the page then draws through that fit.

The camera frame is the simulator's: the skirmish sample's first moment with a simulated
projector (a little askew, keystoned, in a lit room) showing the very pattern the page
serves, played to a live table as a one-frame recording with the sample's own calibrated
profile, so the fit's error includes the camera's calibration as it would at a club.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.calibration.projector import projector_pattern
from referee.calibration.projector_fit import ProjectorFit
from referee.game import source_live
from referee.game.sources import read_footage, repo_footage
from referee.sim.projector_trial import pattern_frame, placement_error, sample_projector
from referee.sim.scenario import load_scenario
from referee.vision.pipeline import Pipeline
from referee.web import create_app

SCENARIO = repo_footage().parent / "skirmish.scenario.json"


@pytest.fixture(scope="module")
def lit(tmp_path_factory):
    """A live table whose camera sees the pattern, the true projector, and the pattern."""
    folder = read_footage(repo_footage())
    pipeline = Pipeline(folder.profiles, folder.roster)
    scenario = load_scenario(SCENARIO)
    projector = sample_projector(scenario)
    avoid = {e.tag for e in folder.roster.pieces} | {a.tag for a in pipeline.anchors}
    pattern = projector_pattern(
        projector.resolution, dictionary=folder.roster.dictionary, avoid=avoid
    )
    frames = Path(tmp_path_factory.mktemp("pattern"))
    image = pattern_frame(scenario, projector, pattern)
    for k in range(2):  # PNG: what the camera saw, without a codec's blur on the tags
        assert cv2.imwrite(str(frames / f"frame-{k:03d}.png"), image)
    live = source_live(str(frames), pipeline, folder.scene, pace=0)
    assert live.step(2) == 2
    yield live, projector
    live.stop()


def test_calibrate_fits_the_projector_the_camera_sees(lit):
    live, projector = lit
    client = create_app(live).test_client()
    width, height = projector.resolution
    assert client.get("/api/projector").status_code == 404  # nothing calibrated yet
    response = client.post("/api/projector/calibrate", json={"width": width, "height": height})
    assert response.status_code == 200, response.get_json()
    answer = response.get_json()
    assert answer["held_out_p95_in"] < 0.05
    # The page now draws through this fit ...
    shown = client.get("/api/projector")
    assert shown.status_code == 200
    assert shown.get_json()["homography"] == answer["homography"]
    # ... and a point drawn through it lands where the true projector puts it.
    fields = {k: v for k, v in answer.items() if k in ProjectorFit.__dataclass_fields__}
    fit = ProjectorFit.from_json(fields, "api")
    p95, worst = placement_error(fit, projector)
    assert p95 < 0.05 and worst < 0.1
    covered = np.array(answer["covered"], float)
    table = live.session.initial_scene.table
    assert covered[:, 0].min() <= 0.5 and covered[:, 0].max() >= table.width - 0.5
    assert covered[:, 1].min() <= 0.5 and covered[:, 1].max() >= table.depth - 0.5
