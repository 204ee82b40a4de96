"""The projector fit a live table's pages share (issue 39): swapped by one request while
others read it, and saved in the camera's profile file so the next start has it."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from referee.calibration.profile import load_profile
from referee.calibration.projector_fit import ProjectorFit
from referee.game import sample_live
from referee.game.projector import ProjectorFits


def _fit(shift_in: float) -> ProjectorFit:
    return ProjectorFit(
        resolution=(1280, 800),
        homography=((0.03, 0.0, shift_in), (0.0, 0.03, 0.0), (0.0, 0.0, 1.0)),
        held_out_p95_in=0.01,
        held_out_max_in=0.02,
        points_used=64,
        covered=((0.0, 0.0), (38.4, 0.0), (38.4, 24.0), (0.0, 24.0)),
    )


@pytest.fixture(scope="module")
def live():
    table = sample_live(pace=0)
    yield table
    table.stop()


def test_a_put_fit_is_saved_and_the_file_keeps_the_camera_as_it_was(live, tmp_path):
    file = tmp_path / "camera.json"
    live.calibration.save(file)
    fits = ProjectorFits(live, file)
    assert fits.get() is live.calibration.projector  # the profile's, until one is put
    assert fits.put(_fit(1.0)) == f"in {file}"
    saved = load_profile(file)
    assert saved.projector == _fit(1.0) and fits.get() == _fit(1.0)
    assert (
        replace(saved, projector=None).to_json()
        == replace(live.calibration, projector=None).to_json()
    )
    assert not fits.check_due()  # made under the camera's pose in force


def test_a_fit_made_under_another_camera_pose_is_due_a_check(live):
    fits = ProjectorFits(live)
    assert not fits.check_due()  # no fit: nothing to check
    knocked = type(live.calibration.table_pose)(
        live.calibration.table_pose.rvec, live.calibration.table_pose.tvec + 0.5
    )
    fits.put(_fit(0.0), pose=knocked)
    assert fits.check_due()
    fits.put(_fit(0.0))
    assert not fits.check_due()


def test_fits_swapped_and_saved_from_many_threads_end_with_the_newest_in_the_file(live, tmp_path):
    """Stress: writers put fits while readers read the value and the file. Every read is a
    whole fit someone put, the file always parses, and it ends holding the last fit put."""
    file = tmp_path / "camera.json"
    live.calibration.save(file)
    fits = ProjectorFits(live, file)
    known = {round(k * 0.1, 1): _fit(round(k * 0.1, 1)) for k in range(40)}
    problems: list[str] = []
    stop = threading.Event()

    def write(start: int) -> None:
        for k in range(start, 40, 4):
            fits.put(known[round(k * 0.1, 1)])

    def read() -> None:
        while not stop.is_set():
            seen = fits.get()
            if seen is not None and seen not in known.values():
                problems.append(f"read a fit nobody put: {seen}")
            try:
                on_file = load_profile(file).projector
            except Exception as error:  # a torn file is the failure looked for
                problems.append(f"the profile file did not parse: {error}")
                continue
            if on_file is not None and on_file not in known.values():
                problems.append(f"the file holds a fit nobody put: {on_file}")

    readers = [threading.Thread(target=read) for _ in range(2)]
    writers = [threading.Thread(target=write, args=(s,)) for s in range(4)]
    for thread in readers + writers:
        thread.start()
    for thread in writers:
        thread.join()
    stop.set()
    for thread in readers:
        thread.join()
    assert not problems, problems[:3]
    assert load_profile(file).projector == fits.get()
