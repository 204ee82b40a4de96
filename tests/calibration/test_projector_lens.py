"""The projector's own lens (issue 39): a radial k1 is fitted when the data show it.

A simulated projector with k1 = 0.02 lands a plain homography's points 0.25 in
out; with the lens term the fit is within 0.05 in at p95 over the covered area,
measured against the simulated projector's exact landing points.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from referee.calibration.projector import ProjectorFit, fit_projector, projector_pattern
from referee.sim.projector import Projector
from referee.sim.projector_trial import pattern_frame, placement_error, sample_projector
from referee.sim.scenario import load_scenario

SCENARIO = Path(__file__).resolve().parents[2] / "sample_footage" / "skirmish.scenario.json"


def _fit(k1: float) -> tuple[ProjectorFit, Projector]:
    scenario = load_scenario(SCENARIO)
    plain = sample_projector(scenario)
    projector = Projector(plain.resolution, plain.homography, k1=k1, brightness=plain.brightness)
    pattern = projector_pattern(projector.resolution, avoid=[e.tag for e in scenario.roster.pieces])
    frame = pattern_frame(scenario, projector, pattern)
    return fit_projector(frame, scenario.profile(0), pattern), projector


@pytest.mark.parametrize("k1", [0.02])
def test_a_projector_lens_is_fitted_to_a_twentieth_of_an_inch(k1):
    fit, projector = _fit(k1)
    p95, worst = placement_error(fit, projector)
    assert p95 <= 0.05 and worst <= 0.1, (p95, worst, fit.lens)
    assert len(fit.lens) >= 1 and fit.lens[0] == pytest.approx(k1, abs=0.005)
    # The plain homography on the same corners is what the lens term saves.
    plain = ProjectorFit(fit.resolution, fit.homography, 0.0, 0.0, 4, fit.covered, ())
    assert placement_error(plain, projector)[0] > 0.1


def test_a_projector_without_distortion_keeps_the_plain_homography():
    fit, projector = _fit(0.0)
    assert fit.lens == ()
    assert placement_error(fit, projector)[0] <= 0.05


def test_the_lens_round_trips_through_json_and_maps_both_ways():
    fit, _ = _fit(0.02)
    again = ProjectorFit.from_json(fit.to_json())
    assert again == fit
    table = np.array([[10.0, 8.0], [40.0, 30.0], [2.0, 2.0]])
    assert np.allclose(fit.to_table(fit.to_picture(table)), table, atol=1e-6)
