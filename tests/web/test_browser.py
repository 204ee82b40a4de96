"""The dashboard end to end in real headless Chromium, on the bundled sample footage.

The footage plays once at 4x real time (6 s) through a real waitress server. The
tests run in file order: the first loads the page before the footage starts, so it
sees the pieces appear and then move.
"""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import replace

import pytest

from referee.game import sample_live
from referee.store import GameLog

from .browser import chromium, chromium_missing, dashboard, screen_point

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))

PACE = 4.0
TIMEOUT = 45_000  # ms: generous, a loaded machine is slow and passing tests never wait it


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("e2e") / "games.sqlite")
    live = sample_live(pace=PACE, log=log, game="e2e")
    assert live.footage is not None
    live.footage = replace(live.footage, loop=False)  # one pass: the table then stays put
    with dashboard(live) as running:
        yield running
    live.stop()
    log.close()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert not errors, errors


def _y(page, piece: str) -> float:
    return float(page.get_attribute(f'.piece[data-id="{piece}"]', "data-y"))


def _api(served, path: str) -> dict:
    with urllib.request.urlopen(served.url + "api/" + path, timeout=10) as response:
        return json.loads(response.read())


def _wait_footage_end(served) -> None:
    # started here when the first test ran on another worker (pytest -n): a no-op otherwise
    served.live.start()
    deadline = time.monotonic() + 30
    while served.live.running and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not served.live.running


def test_pieces_appear_and_move(served, page):
    page.goto(served.url)
    page.wait_for_selector("#conn:not(.away)", timeout=TIMEOUT)
    assert page.locator(".piece").count() == 0  # nothing seen yet
    served.live.start()
    page.wait_for_selector('.piece[data-id="t34a"]', timeout=TIMEOUT)
    assert _y(page, "t34a") == pytest.approx(20.5, abs=0.3)
    page.wait_for_function(
        "() => Number(document.querySelector('.piece[data-id=\"t34a\"]').dataset.y) < 15",
        timeout=TIMEOUT,
    )
    assert _y(page, "t34a") == pytest.approx(14.5, abs=0.3)
    assert page.locator(".piece").count() == 7
    assert page.locator("#fps").inner_text().endswith(tuple("0123456789"))
    # the camera view got a frame and the health line counts the pieces
    page.wait_for_function("() => document.getElementById('camera-note').textContent === ''")
    page.wait_for_selector("#health-summary:has-text('seen')", timeout=TIMEOUT)


def test_tap_two_pieces_and_read_the_verdict(served, page):
    served.live.start()  # a no-op after the first test; on another worker (pytest -n) needed
    page.goto(served.url)
    page.click('.piece[data-id="t34a"]')
    assert page.locator("#rings circle").count() >= 3  # 3, 6, 12 in around the selected piece
    page.click('.piece[data-id="pz1"]')
    los = page.wait_for_selector("#verdict .line[data-ask='los']", timeout=TIMEOUT)
    assert los.inner_text().startswith("Line of sight t34a → pz1: ")
    assert los.get_attribute("data-los") in ("clear", "blocked", "doubtful")
    rng = page.locator("#verdict .line[data-ask='range']").inner_text()
    assert rng.startswith("Range t34a → pz1: ") and "±" in rng
    assert page.locator("#lines line.los").count() == 1
    # the same verdict the API gives
    asked = page.evaluate(
        "() => referee.dispute.verdicts.find((v) => v.ask === 'los').summary"
    )  # fmt: skip
    assert asked.startswith("los t34a -> pz1: ")
    with page.expect_download() as download:
        page.click("#save-picture")
    assert download.value.suggested_filename == "verdict.png"


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_a_verdict_that_names_its_line_is_drawn_there(served, page):
    """Papercraft's LOS gives the shortest clear line, edge to edge: the map draws that
    line, not the centres' (the tape goes where the verdict measured)."""
    _wait_footage_end(served)  # a selected piece that moves re-asks, redrawing the line
    page.goto(served.url)
    page.click('.piece[data-id="t34a"]')
    page.click('.piece[data-id="pz1"]')
    page.wait_for_selector("#verdict .line[data-ask='los']", timeout=TIMEOUT)
    drawn = page.locator("#lines line.los")
    centre = (float(page.get_attribute('.piece[data-id="t34a"]', "data-x")), _y(page, "t34a"))
    assert float(drawn.get_attribute("x1")) == pytest.approx(centre[0], abs=1e-6)
    page.evaluate(
        """() => { const v = referee.dispute.verdicts.find((v) => v.ask === 'los');
             v.line = [[10.25, 11.5], [20.75, 12.125]]; drawLines(); }"""
    )
    ends = [float(drawn.get_attribute(k)) for k in ("x1", "y1", "x2", "y2")]
    assert ends == [10.25, 11.5, 20.75, 12.125]
    assert page.locator("#lines line.range").count() <= 1  # range stays centre to centre


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_draw_woods_across_a_sight_line_and_see_it_blocked(served, page):
    _wait_footage_end(served)  # pieces at rest for good
    page.goto(served.url)
    page.click('.piece[data-id="t34a"]')
    page.click('.piece[data-id="gs2"]')
    page.wait_for_selector("#verdict .line[data-ask='los'][data-los='clear']", timeout=TIMEOUT)
    a = (float(page.get_attribute('.piece[data-id="t34a"]', "data-x")), _y(page, "t34a"))
    b = (float(page.get_attribute('.piece[data-id="gs2"]', "data-x")), _y(page, "gs2"))
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    page.click(".tab[data-tab='terrain']")
    page.click("#terrain-kinds button[data-kind='woods']")
    corners = ((-1, -1), (1, -1), (1, 1), (-1, 1))

    def tap(points):  # tap table points (inches) on the map
        for point in points:
            page.mouse.click(*screen_point(page, *point))

    page.click("#draw-terrain")
    tap([(mid[0] + dx, mid[1] + dy) for dx, dy in corners])
    page.click("#finish-terrain")
    # the sight line on the map turns blocked while the terrain pane is open...
    page.wait_for_selector("#lines line.los[data-los='blocked']", timeout=TIMEOUT)
    page.click(".tab[data-tab='dispute']")  # ...and the verdict names the new woods
    blocked = page.wait_for_selector("#verdict .line[data-ask='los'][data-los='blocked']")
    assert "woods1" in blocked.inner_text()
    assert page.locator("#terrain .terrain[data-id='woods1']").count() == 1
    state = _api(served, "state")
    assert "woods1" in {t["id"] for t in state["terrain"]}
    # redraw its outline off the line: the line clears; redraw it back, then delete it
    page.click(".tab[data-tab='terrain']")
    item = page.locator("#terrain-list li", has_text="woods1")
    item.locator("button", has_text="Redraw").click()
    sq1 = (float(page.get_attribute('.piece[data-id="sq1"]', "data-x")), _y(page, "sq1"))
    # the first corner right on sq1: a tap on a piece while drawing is a corner
    tap([(sq1[0] + dx, sq1[1] + dy) for dx, dy in ((0, 0), (2, 0), (2, 2), (0, 2))])
    page.click("#finish-terrain")
    page.wait_for_selector("#lines line.los[data-los='clear']", timeout=TIMEOUT)
    moved = {t["id"]: t for t in _api(served, "state")["terrain"]}["woods1"]
    assert moved["kind"] == "woods" and len(moved["polygon"]) == 4
    assert moved["polygon"][0] == pytest.approx(sq1, abs=0.1)
    item.locator("button", has_text="Delete").click()
    page.wait_for_selector("#terrain .terrain[data-id='woods1']", state="detached")


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_scrub_the_log_back_to_before_a_move(served, page):
    _wait_footage_end(served)
    events = _api(served, "events")["events"]
    move = next(e for e in events if e["type"] == "move" and e["piece"] == "t34a")
    page.goto(served.url)
    page.wait_for_selector('.piece[data-id="t34a"]', timeout=TIMEOUT)
    page.click(".tab[data-tab='log']")
    page.wait_for_selector(f"#events li[data-seq='{move['seq']}']", timeout=TIMEOUT)
    page.evaluate(
        """(seq) => { const s = document.getElementById('scrubber');
             s.value = seq; s.dispatchEvent(new Event('input')); }""",
        move["seq"] - 1,
    )
    page.wait_for_selector("#replay-banner:not([hidden])", timeout=TIMEOUT)
    page.wait_for_function(
        "() => Number(document.querySelector('.piece[data-id=\"t34a\"]').dataset.y) > 20",
        timeout=TIMEOUT,
    )
    assert f"#{move['seq'] - 1}" in page.locator("#replay-where").inner_text()
    page.click("#replay-live")
    assert page.locator("#replay-banner").is_hidden()
    assert _y(page, "t34a") == pytest.approx(14.5, abs=0.3)


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_the_page_says_so_while_the_connection_is_away_and_comes_back(served, page):
    _wait_footage_end(served)
    page.goto(served.url)
    page.wait_for_selector("#conn:not(.away)", timeout=TIMEOUT)
    served.drop()  # the server goes away under the page
    page.wait_for_selector("#conn.away:has-text('reconnecting')", timeout=TIMEOUT)
    served.restart()
    # connected again (the footage has ended by now, so the badge says so rather than live)
    page.wait_for_selector("#conn:not(.away)", timeout=TIMEOUT)
    assert page.locator("#conn").inner_text() == "video ended"


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_an_exposed_server_refuses_a_request_without_the_token(browser):
    live = sample_live(pace=0)
    with dashboard(live, token="tok-123") as running:
        context = browser.new_context()
        page = context.new_page()
        refused = page.goto(running.url)
        assert refused is not None and refused.status == 401
        assert "access token" in page.content()
        allowed = page.goto(running.url + "?token=tok-123")
        assert allowed is not None and allowed.status == 200
        page.wait_for_selector("#conn:not(.away)", timeout=TIMEOUT)  # the stream got in too
        context.close()
    live.stop()


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_turn_assistant_orders_initiative_from_the_cards(served, page):
    page.goto(served.url)
    page.wait_for_selector("#conn:not(.away)", timeout=TIMEOUT)
    page.click(".tab[data-tab='turn']")
    page.fill("#init-cards", "pz1=10H, t34a=QS")
    page.click("#init-go")
    line = page.wait_for_selector("#turn-result .line", timeout=TIMEOUT)
    assert line.inner_text() == "initiative: t34a (QS), pz1 (10H)"
    page.fill("#declare-json", '{"ask": "initiative", "cards": "lots"}')
    page.click("#declare-go")
    error = page.wait_for_selector("#turn-result .error", timeout=TIMEOUT)
    assert "cards" in error.inner_text()
