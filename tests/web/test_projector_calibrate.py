"""The projector's one button, end to end: the camera sees ``/projector?pattern=1`` on the
table, ``POST /api/projector/calibrate`` fits it, and the page then draws through that fit.

The camera frame is the simulator's: the skirmish sample's first moment with a simulated
projector (a little askew, keystoned, in a lit room) showing the very pattern the page
serves, played to a live table as a one-frame recording with the sample's own calibrated
profile, so the fit's error includes the camera's calibration as it would at a club.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee.calibration.profile import load_profile
from referee.calibration.projector import projector_pattern
from referee.calibration.projector_fit import ProjectorFit
from referee.game import source_live
from referee.game.sources import read_footage, repo_footage
from referee.sim.projector_trial import pattern_frame, placement_error, sample_projector
from referee.sim.scenario import load_scenario
from referee.vision.pipeline import Pipeline
from referee.web import create_app

from .browser import chromium, chromium_missing, dashboard, open_page

SCENARIO = repo_footage().parent / "skirmish.scenario.json"


def _played(tmp_path_factory, name: str, pictures, folder, pipeline):
    """A live table whose camera saw ``pictures`` (PNG: what the camera saw, without a
    codec's blur on the tags), its first two frames processed."""
    frames = Path(tmp_path_factory.mktemp(name))
    for k, picture in enumerate(pictures):
        assert cv2.imwrite(str(frames / f"frame-{k:03d}.png"), picture)
    live = source_live(str(frames), pipeline, folder.scene, pace=0)
    assert live.step(2) == 2
    return live


def _pattern_seen():
    """The sample's folder and pipeline, its true projector, and the camera's picture of
    the very pattern the page serves, shown by that projector."""
    folder = read_footage(repo_footage())
    pipeline = Pipeline(folder.profiles, folder.roster)
    scenario = load_scenario(SCENARIO)
    projector = sample_projector(scenario)
    avoid = {e.tag for e in folder.roster.pieces} | {a.tag for a in pipeline.anchors}
    pattern = projector_pattern(
        projector.resolution, dictionary=folder.roster.dictionary, avoid=avoid
    )
    return folder, pipeline, projector, pattern_frame(scenario, projector, pattern)


@pytest.fixture(scope="module")
def lit(tmp_path_factory):
    """A live table whose camera sees the pattern, and the true projector."""
    folder, pipeline, projector, image = _pattern_seen()
    live = _played(tmp_path_factory, "pattern", [image] * 2, folder, pipeline)
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


# -- saved in the profile, read on the next start, checked after a bump ----------------------


def _fit_of(answer: dict) -> ProjectorFit:
    fields = {k: v for k, v in answer.items() if k in ProjectorFit.__dataclass_fields__}
    return ProjectorFit.from_json(fields, "api")


def _shifted(fit: ProjectorFit, dx_in: float) -> ProjectorFit:
    """The same fit with every landing point ``dx_in`` inches further along x."""
    move = np.array([[1.0, 0.0, dx_in], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    matrix = move @ fit.matrix
    return replace(fit, homography=tuple(tuple(float(v) for v in row) for row in matrix))


def test_a_calibrated_fit_is_saved_in_the_profile_and_read_on_the_next_start(lit, tmp_path):
    live, projector = lit
    before = read_footage(repo_footage()).profiles[0]
    file = tmp_path / "camera.json"
    before.save(file)
    unchanged = file.read_text(encoding="utf-8")
    client = create_app(live, {"PROJECTOR_PROFILE": str(file)}).test_client()
    width, height = projector.resolution
    answer = client.post("/api/projector/calibrate", json={"width": width, "height": height})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["saved"] == f"in {file}"
    saved = load_profile(file)
    assert saved.projector == _fit_of(answer.get_json())
    # only the projector field changed: the camera's own calibration is as it was
    assert replace(saved, projector=None).to_json() == json.loads(unchanged)
    # The next start (serve -c camera.json) draws through the saved fit at once.
    folder = read_footage(repo_footage())
    restarted = source_live(
        str(live.footage.name), Pipeline([saved], folder.roster), folder.scene, pace=0
    )
    try:
        shown = create_app(restarted, {"PROJECTOR_PROFILE": str(file)}).test_client()
        again = shown.get("/api/projector")
        assert again.status_code == 200
        assert again.get_json()["homography"] == answer.get_json()["homography"]
        assert again.get_json()["check_due"] is False
    finally:
        restarted.stop()


def test_a_fit_without_a_profile_file_is_kept_in_memory_and_says_so(lit):
    live, projector = lit
    client = create_app(live).test_client()
    width, height = projector.resolution
    answer = client.post("/api/projector/calibrate", json={"width": width, "height": height})
    assert answer.get_json()["saved"].startswith("in memory only")


def test_an_unwritable_profile_keeps_the_fit_for_this_run_and_says_why(lit, tmp_path):
    live, projector = lit
    missing = tmp_path / "gone" / "camera.json"  # its folder does not exist
    client = create_app(live, {"PROJECTOR_PROFILE": str(missing)}).test_client()
    width, height = projector.resolution
    answer = client.post("/api/projector/calibrate", json={"width": width, "height": height})
    assert answer.status_code == 200
    assert answer.get_json()["saved"].startswith(f"in memory only ({missing} could not be")
    assert client.get("/api/projector").status_code == 200


def test_a_check_keeps_a_fit_that_holds_and_replaces_one_that_moved(lit):
    live, projector = lit
    app = create_app(live)
    client = app.test_client()
    width, height = projector.resolution
    assert client.post("/api/projector/check", json={}).status_code == 404  # nothing to check
    fitted = _fit_of(client.post("/api/projector/calibrate").get_json())
    # The projector is knocked half an inch along the table: a check sees it and re-fits.
    app.extensions["referee.projector"].put(_shifted(fitted, 0.5))
    moved = client.post("/api/projector/check", json={"width": width, "height": height})
    assert moved.status_code == 200, moved.get_json()
    answer = moved.get_json()
    assert answer["holds"] is False
    assert answer["saved"].startswith("in memory only")  # this app was given no profile file
    assert answer["shift_p95_in"] == pytest.approx(0.5, abs=0.03)
    assert placement_error(_fit_of(answer), projector)[0] < 0.05
    # Checked again at once, the new fit holds and is kept as it is.
    held = client.post("/api/projector/check").get_json()
    assert held["holds"] is True and held["shift_p95_in"] < 0.05
    assert held["homography"] == answer["homography"]
    wrong = client.post("/api/projector/check", json={"width": width // 2, "height": height})
    assert wrong.status_code == 400
    assert "fitted at" in wrong.get_json()["error"]


def _knocked(image: np.ndarray) -> np.ndarray:
    """The picture of a camera knocked a little: everything 5 px right and 3 px down."""
    return cv2.warpAffine(
        image,
        np.array([[1.0, 0.0, 5.0], [0.0, 1.0, 3.0]]),
        (image.shape[1], image.shape[0]),
        borderMode=cv2.BORDER_REPLICATE,
    )


@pytest.fixture(scope="module")
def bumped(tmp_path_factory):
    """The pattern (2 frames), the game's table (2), the camera knocked during play (6: the
    anchors, dark under the overlay, show it), then the pattern again through it (2)."""
    folder, pipeline, projector, lit_image = _pattern_seen()
    video = cv2.VideoCapture(str(folder.videos[0]))
    ok, table = video.read()
    video.release()
    assert ok
    pictures = [lit_image] * 2 + [table] * 2 + [_knocked(table)] * 6 + [_knocked(lit_image)] * 2
    live = _played(tmp_path_factory, "bumped", pictures, folder, pipeline)
    yield live, projector
    live.stop()


def test_a_camera_bump_makes_the_fit_due_a_check_which_it_passes(bumped):
    live, _ = bumped
    client = create_app(live).test_client()
    assert client.post("/api/projector/calibrate").status_code == 200
    assert client.get("/api/projector").get_json()["check_due"] is False
    assert live.step(8) == 8
    events, _ = live.events_since(0)
    moved = [e for e in events if e.type == "camera" and e.data["kind"] == "moved"]
    assert moved and "table_pose" in moved[0].data, "the bump was not re-registered"
    assert client.get("/api/projector").get_json()["check_due"] is True
    assert live.step(2) == 2  # the projector page shows the pattern for the check
    # The camera moved, the projector did not: measured through the re-registered camera,
    # the pattern lands where the fit says, so the fit is kept and the check is done.
    checked = client.post("/api/projector/check").get_json()
    assert checked["holds"] is True, checked
    assert client.get("/api/projector").get_json()["check_due"] is False


@pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))
def test_the_pattern_pages_button_fits_saves_and_says_what_it_covers(lit, tmp_path):
    """In Chromium, as at the table: the pattern full screen at the projector's size, the
    calibrate button pressed, and the page says the fit, what it covers and where it went."""
    live, projector = lit
    file = tmp_path / "camera.json"
    read_footage(repo_footage()).profiles[0].save(file)
    width, height = projector.resolution
    with chromium() as browser, dashboard(live) as running:
        # dashboard() builds its own app: point its projector at the file serve -c would
        running.app.extensions["referee.projector"].profile_file = file
        context, page, errors = open_page(browser, width, height)
        try:
            page.goto(running.url + "projector?pattern=1")
            page.click("#pj-calibrate")
            page.wait_for_function(
                "document.getElementById('pj-result').textContent.startsWith('fitted')"
            )
            said = page.inner_text("#pj-result")
        finally:
            context.close()
        assert not errors, errors
    assert "covering x 0.0-36.0 in, y 0.0-24.0 in of the table" in said, said
    assert f"saved in {file}" in said, said
    assert load_profile(file).projector is not None
