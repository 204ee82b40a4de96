"""The dashboard's map in real headless Chromium (issue 31): pieces drawn from the roster
whatever arrives first, settled moves as arrows, the free ruler with zoom and pan, a tablet
and a phone, the token out of the address bar, and the header once the video has ended.

Two tables on the bundled sample footage: one looping at 4x real time (a game always in
progress, a new game each pass) and one played once, as fast as it goes, then at rest.
"""

from __future__ import annotations

import json
import math
import os
import time
import urllib.request

import pytest

from referee.game import sample_live
from referee.store import GameLog

from .browser import chromium, chromium_missing, dashboard, open_page, played_sample, screen_point

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))

SHOTS = os.environ.get("REFEREE_SHOTS")  # a folder for screenshots while working on the page


def _shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png")


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The sample game played once to its end (the pieces at rest, two moves logged)."""
    with played_sample(tmp_path_factory.mktemp("map") / "games.sqlite", "map") as running:
        yield running


@pytest.fixture
def page(browser):
    context, page, errors = open_page(browser)
    yield page
    context.close()
    assert not errors, errors


def _api(running, path: str) -> dict:
    with urllib.request.urlopen(running.url + "api/" + path, timeout=10) as response:
        return json.loads(response.read())


# -- 1. grey pieces -----------------------------------------------------------------------------

DRAWN = """() => Array.from(document.querySelectorAll('#pieces .piece')).map((g) => {
  const r = g.querySelector('rect.base');
  return { id: g.dataset.id, w: Number(r.getAttribute('height')),
           d: Number(r.getAttribute('width')), fill: r.getAttribute('fill') };
})"""


@pytest.mark.slow  # page loads repeated across a pass; test_browser keeps one load
def test_every_load_draws_each_piece_with_its_base_and_side_colour(browser, tmp_path):
    """Twelve loads of the page while a game is in progress (frames streaming, pieces
    moving, a new game each pass): on half of them the roster is held back until frames
    have been drawn, the order that left every piece a grey 1x1 square for the life of
    the page. Every load ends with every piece at its roster base and side colour."""
    log = GameLog(tmp_path / "games.sqlite")
    live = sample_live(pace=4.0, log=log, game="loads")
    with dashboard(live) as running:
        live.start()
        info = _api(running, "info")
        roster = {p["id"]: p for p in info["pieces"]}
        assert len({p["colour"] for p in roster.values()}) >= 2
        context, page, errors = open_page(browser, 1024, 768)
        try:
            for load in range(12):
                if load % 2:  # the roster answers only after the stream has drawn frames
                    page.route("**/api/info", lambda route: (time.sleep(0.6), route.continue_()))
                page.goto(running.url)
                page.wait_for_function(
                    "(n) => document.querySelectorAll('#pieces .piece').length >= n",
                    arg=len(roster) - 1,  # a piece may be hidden under a hand for a moment
                )
                page.wait_for_function("() => referee.info !== null")
                page.unroute("**/api/info")
                for drawn in page.evaluate(DRAWN):
                    want = roster[drawn["id"]]
                    assert [drawn["w"], drawn["d"]] == want["base"], (load, drawn)
                    assert drawn["fill"] == want["colour"], (load, drawn)
        finally:
            context.close()
            live.stop()
            log.close()
        assert not errors, errors


# -- 3. moves on the map ------------------------------------------------------------------------


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_each_settled_move_is_an_arrow_that_shows_its_verdict(played, page):
    events = _api(played, "events")["events"]
    moves = [e for e in events if e["type"] == "move"]
    assert len(moves) >= 2
    page.goto(played.url)
    page.wait_for_selector(f"#moves .move[data-seq='{moves[-1]['seq']}']")
    arrows = page.locator("#moves .move")
    assert arrows.count() == min(len(moves), 5)
    first = moves[-min(len(moves), 5)]  # the oldest arrow drawn
    arrow = page.locator(f"#moves .move[data-seq='{first['seq']}']")
    # from where the piece rested to where it rests now, labelled with the measured distance
    shaft = arrow.locator("line.shaft")
    ends = [float(shaft.get_attribute(k)) for k in ("x1", "y1", "x2", "y2")]
    want = [first["from"]["x"], first["from"]["y"], first["to"]["x"], first["to"]["y"]]
    assert ends == pytest.approx(want, abs=1e-6)
    assert arrow.locator("text.move-label").text_content() == f'{first["distance"]:.2f}"'
    # in the colour of its verdict (the sample's moves are legal), older moves fainter
    verdicts = [e["verdict"] for e in events if e.get("about") == first["seq"]]
    assert verdicts and all(v["ok"] is True for v in verdicts)
    assert arrow.get_attribute("data-verdict") == "ok"
    palette = _api(played, "info")["palette"]["verdict"]
    assert shaft.get_attribute("stroke") == palette["clear"]
    opacities = [float(a.get_attribute("opacity")) for a in arrows.all()]
    assert opacities == sorted(opacities) and opacities[0] < opacities[-1] == 1
    # tapping the arrow (mid-way, away from the pieces) shows the move's verdict
    mid = ((ends[0] + ends[2]) / 2, (ends[1] + ends[3]) / 2)
    page.mouse.click(*screen_point(page, *mid))
    head = page.wait_for_selector("#verdict .line[data-ask='move']")
    assert head.inner_text().startswith(f'Move {first["piece"]}: {first["distance"]:.2f}"')
    box = page.locator("#verdict").inner_text()
    assert verdicts[0]["summary"] in box
    assert verdicts[0]["summary"] in page.locator("#map-verdict").inner_text()
    assert page.locator(f"#moves .move.shown[data-seq='{first['seq']}']").count() == 1
    _shot(page, "moves")


def test_a_tracked_path_is_drawn_along_the_move(played, page):
    """A move with ``via`` (the course the camera tracked) draws it, as well as the arrow."""
    page.goto(played.url)
    page.wait_for_selector("#moves .move")
    page.evaluate(
        """() => { referee.events.push({seq: 9999, t: 99, type: 'move', piece: 't34a',
             from: {x: 2, y: 2, heading: 0}, to: {x: 8, y: 2, heading: 0},
             via: [{x: 4, y: 4, heading: 0}, {x: 6, y: 4, heading: 0}],
             distance: 6.0, uncertainty: 0.01}); redraw(); }"""
    )
    via = page.locator("#moves .move[data-seq='9999'] polyline.via")
    points = [tuple(map(float, p.split(","))) for p in via.get_attribute("points").split()]
    assert points == [(2, 2), (4, 4), (6, 4), (8, 2)]
    assert page.locator("#moves .move[data-seq='9999']").get_attribute("data-verdict") == "none"


# -- 5. the free ruler, zoom and pan ------------------------------------------------------------


def _drag(page, a, b, steps: int = 8) -> None:
    page.mouse.move(*screen_point(page, *a))
    page.mouse.down()
    page.mouse.move(*screen_point(page, *b), steps=steps)
    page.mouse.up()


def test_the_ruler_measures_from_any_point_through_waypoints(played, page):
    page.goto(played.url)
    page.wait_for_function("() => referee.doubt !== null && referee.view !== null")
    page.click("#ruler-tool")
    # a tap on one bare point of the cloth, the tape follows the mouse, a tap on another: 3-4-5
    page.mouse.click(*screen_point(page, 2, 2))
    page.mouse.move(*screen_point(page, 5, 6), steps=4)
    ruler = page.locator("#ruler")
    assert float(ruler.get_attribute("data-length")) == pytest.approx(5.0, abs=0.1)
    page.mouse.click(*screen_point(page, 5, 6))
    assert len(page.evaluate("() => referee.ruler.points")) == 2
    length = float(ruler.get_attribute("data-length"))
    assert length == pytest.approx(5.0, abs=0.1)  # a screen pixel is about 0.05 in here
    doubt = float(ruler.get_attribute("data-doubt"))
    ends = [page.evaluate(f"() => pointDoubt([{x}, {y}])") for x, y in ((2, 2), (5, 6))]
    at = _api(played, "doubt?x=2&y=2")["at"]
    assert ends[0] == pytest.approx(at, rel=0.2)  # interpolated from the API's grid
    assert doubt == pytest.approx(sum(ends), rel=0.05)
    # a tap adds a waypoint, a double tap ends the tape there
    page.mouse.click(*screen_point(page, 5, 12))
    page.mouse.dblclick(*screen_point(page, 11, 12))
    page.wait_for_function("() => referee.ruler.done")
    points = page.evaluate("() => referee.ruler.points")
    assert len(points) == 4
    length = float(ruler.get_attribute("data-length"))
    assert length == pytest.approx(5 + 6 + 6, abs=0.3), points
    text = page.locator("#ruler-readout").inner_text()
    assert text.startswith(f'{length:.2f}" ± ') and "2 waypoints" in text
    # a waypoint turning the tape adds its doubt too: 2 sin(θ/2) of it (here 90°: √2)
    measured = page.evaluate("() => measure(referee.ruler.points)")
    ups = [page.evaluate(f"() => pointDoubt({json.dumps(p)})") for p in points]
    turn = [math.hypot(*(a - b for a, b in zip(u, v, strict=True))) for u, v in _turns(points)]
    want = ups[0] + ups[-1] + turn[0] * ups[1] + turn[1] * ups[2]
    assert measured["doubt"] == pytest.approx(want)
    assert text.split("± ")[1].startswith(f"{measured['doubt']:.3f}"[:4])
    _shot(page, "ruler")
    # the length is the table's, not the screen's: zoomed in it is the same tape
    page.click("#zoom-in")
    assert float(ruler.get_attribute("data-length")) == pytest.approx(length)
    # Escape clears it; a piece under the ruler is not picked
    page.keyboard.press("Escape")
    assert page.evaluate("() => referee.ruler.points.length") == 0
    page.click('.piece[data-id="t34a"]')
    assert page.evaluate("() => referee.selected.length") == 0
    page.click("#ruler-tool")  # off: a tap picks pieces again
    page.click('.piece[data-id="t34a"]')
    assert page.evaluate("() => referee.selected") == ["t34a"]


def _turns(points):
    out = []
    for i in range(1, len(points) - 1):
        a, p, b = points[i - 1], points[i], points[i + 1]
        u = [p[0] - a[0], p[1] - a[1]]
        v = [b[0] - p[0], b[1] - p[1]]
        nu, nv = math.hypot(*u), math.hypot(*v)
        out.append(([u[0] / nu, u[1] / nu], [v[0] / nv, v[1] / nv]))
    return out


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_wheel_zooms_around_the_pointer_and_a_drag_pans(played, page):
    page.goto(played.url)
    page.wait_for_function("() => referee.view !== null")
    home = page.evaluate("() => referee.view")
    x, y = screen_point(page, 10, 14.5)
    page.mouse.move(x, y)
    page.mouse.wheel(0, -600)
    page.wait_for_function("(w) => referee.view[2] < w / 2", arg=home[2])
    # the table point under the pointer stays under it
    assert screen_point(page, 10, 14.5) == pytest.approx((x, y), abs=2)
    # the pieces' labels stay readable and no larger on the table than 0.8 in once zoomed
    t34a = screen_point(page, 10, 14.5)
    _drag(page, (20, 10), (22, 10))  # pan right by 2 inches: the table moves with the finger
    moved = screen_point(page, 10, 14.5)
    per_inch = page.evaluate("() => document.getElementById('map').getScreenCTM().a")
    assert moved[0] - t34a[0] == pytest.approx(2 * per_inch, rel=0.1)
    assert page.evaluate("() => referee.selected.length") == 0  # a pan picks nothing
    page.click("#zoom-fit")
    assert page.evaluate("() => referee.view") == home


def test_pinch_zooms_the_map(browser, played):
    context, page, errors = open_page(browser, 1024, 768, has_touch=True, is_mobile=True)
    try:
        page.goto(played.url)
        page.wait_for_function("() => referee.view !== null")
        home = page.evaluate("() => referee.view")
        a, b = screen_point(page, 12, 12), screen_point(page, 16, 12)
        page.evaluate(
            """([a, b]) => { const m = document.getElementById('map');
                 const fire = (type, id, x, y) => m.dispatchEvent(new PointerEvent(type,
                   {pointerId: id, pointerType: 'touch', clientX: x, clientY: y, bubbles: true,
                    isPrimary: id === 1}));
                 fire('pointerdown', 1, a[0], a[1]); fire('pointerdown', 2, b[0], b[1]);
                 for (let k = 1; k <= 10; k++) {
                   fire('pointermove', 1, a[0] - 8 * k, a[1]);
                   fire('pointermove', 2, b[0] + 8 * k, b[1]);
                 }
                 fire('pointerup', 1, a[0] - 80, a[1]); fire('pointerup', 2, b[0] + 80, b[1]); }""",
            [a, b],
        )
        view = page.evaluate("() => referee.view")
        spread = (b[0] - a[0] + 160) / (b[0] - a[0])
        assert view[2] == pytest.approx(home[2] / spread, rel=0.02)
    finally:
        context.close()
    assert not errors, errors


# -- 6. a tablet and a phone --------------------------------------------------------------------

BOX = "(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"  # noqa: E501


def _tap_two(page) -> None:
    page.wait_for_selector('.piece[data-id="t34a"]')
    page.click('.piece[data-id="t34a"]')
    page.click('.piece[data-id="pz1"]')
    page.wait_for_selector("#verdict .line[data-ask='los']")


def _inside(box, width: float, height: float) -> bool:
    left, top, right, bottom = box
    return left >= 0 and top >= 0 and right <= width + 0.5 and bottom <= height + 0.5


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_a_tablet_reads_the_verdict_beside_the_map(browser, played):
    context, page, errors = open_page(browser, 1024, 768, has_touch=True)
    try:
        page.goto(played.url)
        _tap_two(page)
        assert page.evaluate("() => window.scrollY") == 0
        assert _inside(page.evaluate(BOX, "#map"), 1024, 768)
        # beside the map, in full, and over it as well
        for sel in ("#verdict .line[data-ask='range']", "#verdict .line[data-ask='los']"):
            assert _inside(page.evaluate(BOX, sel), 1024, 768), sel
        side, board = page.evaluate(BOX, "#side"), page.evaluate(BOX, "#map")
        assert side[0] >= board[2]  # beside, not under
        over = page.evaluate(BOX, "#map-verdict")
        assert over[1] >= board[1] and over[3] <= board[3] + 0.5
        size = page.evaluate(
            "() => parseFloat(getComputedStyle(document.querySelector('#verdict .line')).fontSize)"
        )
        assert size >= 18
        _shot(page, "tablet")
    finally:
        context.close()
    assert not errors, errors


LABELS = """() => { const m = document.getElementById('map'); const k = m.getScreenCTM().a;
  return Array.from(document.querySelectorAll('#pieces text.label, #moves text.move-label'))
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * k); }"""


def test_a_phone_has_readable_labels_and_the_verdict_on_screen(browser, played):
    context, page, errors = open_page(browser, 390, 844, has_touch=True, is_mobile=True)
    try:
        page.goto(played.url)
        page.wait_for_selector("#moves .move")
        sizes = page.evaluate(LABELS)
        assert len(sizes) >= 7 and min(sizes) >= 11, sizes
        # the labels' rendered boxes agree with the computed size
        heights = page.evaluate(
            """() => Array.from(document.querySelectorAll('#pieces text.label'))
                 .map((t) => t.getBoundingClientRect().height)"""
        )
        assert min(heights) >= 11, heights
        _tap_two(page)
        over = page.evaluate(BOX, "#map-verdict")
        assert _inside(over, 390, 844), over
        text = page.locator("#map-verdict").inner_text()
        assert "Line of sight t34a → pz1" in text and "Range t34a → pz1" in text
        size = page.evaluate(
            "() => parseFloat(getComputedStyle(document.querySelector('#map-verdict')).fontSize)"
        )
        assert size >= 11
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        # zoomed in the labels keep their size on the table: never smaller than 11 px
        page.click("#zoom-in")
        assert min(page.evaluate(LABELS)) >= 11
        _shot(page, "phone")
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_the_token_leaves_the_address_bar_after_the_first_load(browser):
    live = sample_live(pace=0)
    live.step(40)
    with dashboard(live, token="tok-456") as running:
        context, page, errors = open_page(browser)
        try:
            page.goto(running.url + "?token=tok-456")
            page.wait_for_selector("#conn:not(.away)")
            assert "tok-456" not in page.url and page.url == running.url
            _tap_two(page)  # a POST (the question) still carries the token
            page.reload()  # the tab keeps it; the address bar does not show it
            page.wait_for_selector("#conn:not(.away)")
            assert "tok-456" not in page.url
            _tap_two(page)
        finally:
            context.close()
    live.stop()
    assert not errors, errors


# -- 7. honest state ----------------------------------------------------------------------------


def test_the_header_says_the_video_ended_and_the_sample_calibration_is_not_a_failure(played, page):
    page.goto(played.url)
    page.wait_for_selector("#conn.ended:has-text('video ended')")
    page.click(".tab[data-tab='health']")
    row = page.wait_for_selector("#health tr:has-text('Calibration')")
    assert "0 views" not in row.inner_text() and "simulated camera" in row.inner_text()


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_the_turn_tab_keeps_what_was_typed_hints_what_it_accepts_in_plain_words(played, page):
    page.goto(played.url)
    page.wait_for_selector("#conn:not(.away)")
    page.click(".tab[data-tab='turn']")
    page.select_option("#act-piece", "t34a")
    page.fill("#act-card", "7S")
    page.select_option("#act-action", "move")
    side = page.locator("#dice-sides input").first
    side.fill("5 2")
    # a black card moves with 3 dice: the hint asks for three, a red one for two
    assert page.get_attribute("#act-dice", "placeholder").startswith("3 dice")
    page.fill("#act-card", "7H")
    page.locator("#act-card").dispatch_event("input")
    assert page.get_attribute("#act-dice", "placeholder").startswith("2 dice")
    page.fill("#act-card", "7S")
    page.locator("#act-card").dispatch_event("input")
    page.fill("#act-dice", "4 5 2")
    # a new game (the sample's next pass) rebuilds the tab: what was typed stays
    page.evaluate("() => loadAll()")
    page.wait_for_function("() => document.getElementById('act-piece').options.length > 1")
    assert page.input_value("#act-piece") == "t34a"
    assert side.input_value() == "5 2"
    page.click("#act-go")
    line = page.wait_for_selector("#turn-result .line")
    assert "wrong number of dice" not in line.inner_text()
    # the errors name the field in words, not as a scene file's path
    page.fill("#declare-json", '{"ask": "initiative", "cards": "lots"}')
    page.click("#declare-go")
    error = page.wait_for_selector("#turn-result .error").inner_text()
    assert error.startswith("cards: must list cards") and "$" not in error
    page.locator("#dice-sides input").first.fill("9")
    page.click("#dice-go")
    page.wait_for_selector("#turn-result .error:has-text('dice')")
    error = page.locator("#turn-result .error").inner_text()
    assert "$" not in error and "queries" not in error, error


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_a_double_tap_on_a_touch_screen_ends_the_ruler(browser, played):
    """A tablet: taps lay the tape (touch events, no mouse), a double tap ends it."""
    context, page, errors = open_page(browser, 1024, 768, has_touch=True, is_mobile=True)
    try:
        page.goto(played.url)
        page.wait_for_function("() => referee.view !== null && referee.doubt !== null")
        page.tap("#ruler-tool")
        for point in ((3, 3), (3, 9)):
            page.touchscreen.tap(*screen_point(page, *point))
        end = screen_point(page, 9, 9)
        page.touchscreen.tap(*end)
        page.touchscreen.tap(*end)
        page.wait_for_function("() => referee.ruler.done")
        assert float(page.get_attribute("#ruler", "data-length")) == pytest.approx(12, abs=0.3)
        assert len(page.evaluate("() => referee.ruler.points")) == 3
        _shot(page, "tablet-ruler")
    finally:
        context.close()
    assert not errors, errors
