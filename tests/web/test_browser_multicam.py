"""The dashboard with two cameras in real headless Chromium (issue 32 item 1): the health
panel lists both cameras, the camera panel offers a picker, and when camera 2's recording
ends it is shown as ended while camera 1 goes on."""

from __future__ import annotations

import pytest

from .browser import chromium, chromium_missing, dashboard
from .twocam_live import two_camera_live

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))

TIMEOUT = 60_000  # ms: generous, a loaded machine is slow and passing tests never wait it


@pytest.mark.slow  # two cameras played to the end of one: ~7 s of CPU
def test_the_health_panel_lists_both_cameras_and_shows_one_ended_while_the_other_goes_on():
    # Real time: camera 2 ends after one second, camera 1 plays five more.
    live = two_camera_live(both=12, alone=60, pace=1.0)
    with dashboard(live) as running, chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(running.url)
        page.wait_for_selector("#conn:not(.away)")
        live.start()
        page.click('.tab[data-tab="health"]')
        page.wait_for_selector('#cameras tr[data-camera="2"]')
        rows = page.locator("#cameras tr[data-camera]")
        assert rows.count() == 2
        assert rows.nth(0).inner_text().startswith("1: cam1")
        assert rows.nth(1).inner_text().startswith("2: cam2")
        # The picker offers both cameras; camera 2's picture is shown when picked.
        assert page.locator("#camera-pick-row").is_visible()
        assert page.locator("#camera-pick option").all_inner_texts() == ["1: cam1", "2: cam2"]
        page.select_option("#camera-pick", "2")
        page.wait_for_function("() => document.getElementById('camera-note').textContent === ''")
        # Camera 2 ended while camera 1 goes on: both shown at once, and the header says so.
        page.wait_for_function(
            """() => {
              const state = (n) => {
                const row = document.querySelector(`#cameras tr[data-camera="${n}"]`);
                return row && row.dataset.state;
              };
              return state(1) === "live" && state(2) === "ended";
            }"""
        )
        assert "camera 2 ended" in page.locator("#health-summary").inner_text()
        # A phone held upright: the camera rows and the picker stay on the page's width.
        page.set_viewport_size({"width": 390, "height": 844})
        for selector in ('#cameras tr[data-camera="2"]', "#camera-pick"):
            box = page.locator(selector).bounding_box()
            assert box is not None and box["width"] > 0
        pick = page.locator("#camera-pick").bounding_box()
        assert pick is not None and pick["x"] + pick["width"] <= 390
        context.close()
    live.stop()
    assert not errors, errors
