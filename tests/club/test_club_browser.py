"""The club page in real headless Chromium: every table's card with its game, system and
mini-map, redrawn live as a table sends moves; a game's timeline, disputes and replay."""

from __future__ import annotations

import pytest
from web.browser import chromium, chromium_missing

from referee.club.store import ClubStore

from .helpers import ROSTER, SCENE, move, running_club, verdict

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))

TIMEOUT = 30_000  # ms


@pytest.fixture
def club(tmp_path):
    with ClubStore(f"sqlite:///{tmp_path / 'club.sqlite'}") as store:
        for table in ("alpha", "beta"):
            store.add_table(table)
            store.open_game(table, f"{table}-game", "paper-tigers", SCENE, ROSTER)
        store.ingest("alpha", "alpha-game", [move(1, "t34a", 11.0, 12.0), verdict(2, False, 1)])
        with running_club(store) as running:
            yield running


@pytest.fixture
def page():
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield page
        context.close()
        assert not errors, errors


def _x(page, table: str, piece: str) -> float:
    selector = f'section[data-table="{table}"] .piece[data-id="{piece}"]'
    return float(page.get_attribute(selector, "data-x"))


def test_the_club_page_shows_every_table_live(club, page):
    page.goto(club.url)
    cards = page.locator("section.card")
    assert cards.count() == 2
    alpha = page.locator('section[data-table="alpha"]')
    assert "alpha-game" in alpha.inner_text() and "paper-tigers" in alpha.inner_text()
    assert alpha.locator(".piece").count() == len(SCENE["pieces"])
    assert _x(page, "alpha", "t34a") == pytest.approx(11.0)
    # A table sends a move: the mini-map follows without a reload.
    club.store.ingest("alpha", "alpha-game", [move(3, "t34a", 15.0, 12.0)])
    page.wait_for_function(
        '() => document.querySelector(\'section[data-table="alpha"] .piece[data-id="t34a"]\')'
        ".dataset.x === '15.00'",
        timeout=TIMEOUT,
    )
    assert page.locator("#standings").count() == 1


def test_a_games_timeline_disputes_and_replay(club, page):
    page.goto(club.url)
    page.click('section[data-table="alpha"] a.game')
    page.wait_for_selector("#timeline")
    assert page.locator("#timeline > div").count() == 2
    assert "NOT OK" in page.inner_text("#disputes") and "reason 2" in page.inner_text("#disputes")
    big = '.bigmap .piece[data-id="t34a"]'
    assert float(page.get_attribute(big, "data-x")) == pytest.approx(11.0)
    page.fill("#at", "0")
    page.dispatch_event("#at", "change")
    page.wait_for_selector('.bigmap[data-seq="0"]')
    assert float(page.get_attribute(big, "data-x")) == pytest.approx(10.0)
