"""The Dispute pane shows what the camera saw under a logged verdict (issue 40 item 1)."""

from __future__ import annotations

import pytest

from .browser import chromium, chromium_missing, open_page, played_sample

pytestmark = [
    pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing())),
    pytest.mark.slow,  # the whole sample played once in Chromium
]


def test_a_tapped_pair_shows_its_pictures_under_the_verdict(tmp_path):
    with chromium() as browser, played_sample(tmp_path / "games.sqlite", "shown") as running:
        context, page, errors = open_page(browser)
        try:
            page.goto(running.url)
            page.wait_for_selector('.piece[data-id="t34a"]')
            page.click('.piece[data-id="t34a"]')
            page.click('.piece[data-id="pz1"]')
            page.wait_for_selector("#verdict .line[data-ask='los']")
            # each verdict (range, then line of sight) has both pictures, decoded by the page
            page.wait_for_function(
                """() => { const imgs = document.querySelectorAll('#verdict figure.evidence img');
                   return imgs.length === 4 && Array.from(imgs).every(
                     (i) => i.complete && i.naturalWidth >= 16); }"""
            )
            kinds = page.eval_on_selector_all(
                "#verdict figure.evidence img", "(imgs) => imgs.map((i) => i.dataset.kind)"
            )
            assert kinds == ["camera", "top", "camera", "top"]
            assert errors == []
        finally:
            context.close()
