"""Corrections made on the dashboard's map in real headless Chromium (issue 31 item 4): a
tapped move arrow's "did not happen", and its end dragged to where the piece really rests,
each logged through the running session and seen in ``referee log export``."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.game import sample_live
from referee.store import GameLog

from .browser import TIMEOUT, chromium, chromium_missing, dashboard, screen_point

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The sample game played once to its end, its log in a file the command line reads."""
    db = tmp_path_factory.mktemp("fix") / "games.sqlite"
    log = GameLog(db)
    live = sample_live(pace=0, log=log, game="fix")
    assert live.footage is not None
    live.footage = replace(live.footage, loop=False)
    with dashboard(live) as running:
        live.start()
        deadline = time.monotonic() + 120
        while live.running and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not live.running and live.error is None
        yield running, db
    live.stop()
    log.close()


@pytest.fixture
def page(played):
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(played[0].url)
        yield page
        context.close()
        assert not errors, errors


def _export(db) -> list[dict]:
    result = CliRunner().invoke(cli, ["log", "export", "fix", "--db", str(db)])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def _tap_arrow(page, move: dict) -> None:
    page.wait_for_selector(f"#moves .move[data-seq='{move['seq']}']")
    a, b = move["from"], move["to"]
    page.mouse.click(*screen_point(page, (a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2))
    page.wait_for_selector("#correct-why")


def test_did_not_happen_on_a_tapped_arrow_is_logged_as_a_correction(played, page):
    _, db = played
    events = _export(db)
    move = [e for e in events if e["type"] == "move"][-2]
    _tap_arrow(page, move)
    page.click("#correct-void")  # no reason given: asked for one, nothing logged
    assert "say why" in page.wait_for_selector("#correct-error").inner_text()
    assert _export(db) == events
    page.fill("#correct-why", "knocked over by a sleeve")
    page.click("#correct-void")
    page.wait_for_selector("#correct-done")
    assert page.locator(f"#moves .move[data-seq='{move['seq']}']").count() == 0
    exported = _export(db)
    (fix,) = [e for e in exported if e["type"] == "correction"]
    assert fix["supersedes"] == move["seq"] and fix["void"] is True
    assert fix["reason"] == "knocked over by a sleeve"
    assert exported[: len(events)] == events  # nothing logged before is changed


def test_dragging_a_moves_end_says_where_it_really_ended(played, page):
    _, db = played
    events = _export(db)
    move = [e for e in events if e["type"] == "move"][-1]
    _tap_arrow(page, move)
    page.fill("#correct-why", "the tag was hidden when it settled")
    end = move["to"]
    target = (end["x"] + 2.0, end["y"] + 1.0)
    page.mouse.move(*screen_point(page, end["x"], end["y"]))
    page.mouse.down()
    page.mouse.move(*screen_point(page, *target), steps=10)
    page.mouse.up()
    page.wait_for_function(
        "seq => referee.events.some(e => e.type === 'correction' && e.supersedes === seq)",
        arg=move["seq"],
    )
    fixes = [e for e in _export(db) if e["type"] == "correction" and e["supersedes"] == move["seq"]]
    assert len(fixes) == 1
    to = fixes[0]["to"]
    assert (to["x"], to["y"]) == pytest.approx(target, abs=0.1)
    assert to["heading"] == pytest.approx(end["heading"], abs=0.01)
    judged = [e for e in _export(db) if e.get("about") == fixes[0]["seq"]]
    assert judged and judged[0]["verdict"]["ask"] == "move"
    shaft = page.locator(f"#moves .move[data-seq='{move['seq']}'] line.shaft")
    assert float(shaft.get_attribute("x2")) == pytest.approx(to["x"], abs=1e-6)
