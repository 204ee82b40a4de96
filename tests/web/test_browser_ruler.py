"""The ruler's waypoints are taps (issue 42 item 5): a tap is a pointer down and up that
moves no more than a few pixels; the end of a drag is never a point (a drag pans); a
double-tap is two taps within ``DOUBLE_TAP_MS`` at the same spot. The pointer events are
synthetic, each with an explicit time stamp, so no timing depends on the machine's load."""

from __future__ import annotations

import pytest

from .browser import chromium, chromium_missing, open_page, played_sample, screen_point

# Browser details of issue 42 item 5 on a whole played sample (~10 s a module): the
# default run keeps test_dashboard_map's ruler and phone-label tests; .ci/run runs these.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing())),
]

# Dispatches pointer events on the map, each {type, x, y, t}: (x, y) screen pixels, t the
# event's timeStamp in ms (an own property shadows the prototype's read-only getter).
DISPATCH = """(steps) => { const map = document.getElementById('map');
  for (const s of steps) {
    const e = new PointerEvent(s.type, { clientX: s.x, clientY: s.y, pointerId: 7,
      pointerType: 'touch', isPrimary: true, bubbles: true, cancelable: true, button: 0 });
    Object.defineProperty(e, 'timeStamp', { value: s.t });
    map.dispatchEvent(e);
  } }"""


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    with played_sample(tmp_path_factory.mktemp("ruler") / "games.sqlite", "ruler") as running:
        yield running


@pytest.fixture
def page(played):
    with chromium() as browser:
        context, page, errors = open_page(browser, 1024, 768)
        page.goto(played.url)
        page.wait_for_function("() => referee.view !== null && referee.doubt !== null")
        page.click("#ruler-tool")
        yield page
        context.close()
        assert not errors, errors


def _tap(page, x: float, y: float, t: float, wander: float = 0.0) -> list[dict]:
    """A tap at table point (x, y) lifting at time t (down 60 ms before)."""
    sx, sy = screen_point(page, x, y)
    return [
        {"type": "pointerdown", "x": sx, "y": sy, "t": t - 60},
        {"type": "pointermove", "x": sx + wander, "y": sy, "t": t - 30},
        {"type": "pointerup", "x": sx + wander, "y": sy, "t": t},
    ]


def _drag(page, a, b, t: float) -> list[dict]:
    (ax, ay), (bx, by) = screen_point(page, *a), screen_point(page, *b)
    steps = [{"type": "pointerdown", "x": ax, "y": ay, "t": t - 200}]
    for k in range(1, 6):
        f = k / 5
        steps.append(
            {
                "type": "pointermove",
                "x": ax + (bx - ax) * f,
                "y": ay + (by - ay) * f,
                "t": t - 200 + 30 * k,
            }
        )
    steps.append({"type": "pointerup", "x": bx, "y": by, "t": t})
    return steps


def _points(page) -> list[list[float]]:
    return page.evaluate("() => referee.ruler.points")


def _flat(points: list[list[float]]) -> list[float]:
    return [v for p in points for v in p]


def test_taps_lay_points_and_two_taps_at_one_spot_within_the_interval_end_the_tape(page):
    interval = page.evaluate("() => DOUBLE_TAP_MS")
    assert interval == 350
    page.evaluate(DISPATCH, _tap(page, 3, 3, 1000) + _tap(page, 3, 9, 2000, wander=3))
    assert _flat(_points(page)) == pytest.approx([3, 3, 3, 9], abs=0.05)  # a tap where it came down
    # a second tap soon after, but elsewhere: a point, not a double-tap
    page.evaluate(DISPATCH, _tap(page, 9, 9, 2000 + interval - 100))
    assert len(_points(page)) == 3 and not page.evaluate("() => referee.ruler.done")
    # the same spot again, later than the interval: one more point, still not the end
    page.evaluate(DISPATCH, _tap(page, 9, 9, 2000 + 2 * interval + 100))
    assert len(_points(page)) == 4 and not page.evaluate("() => referee.ruler.done")
    # the same spot within the interval (a few pixels off): the end, no point added
    t = 2000 + 2 * interval + 100
    page.evaluate(
        DISPATCH, _tap(page, 12, 9, t + 1000) + _tap(page, 12.1, 9, t + 1000 + interval - 20)
    )
    assert page.evaluate("() => referee.ruler.done")
    points = _points(page)
    assert len(points) == 5
    assert float(page.get_attribute("#ruler", "data-length")) == pytest.approx(6 + 6 + 3, abs=0.1)


def test_the_end_of_a_drag_is_never_a_point_and_a_drag_pans(page):
    page.evaluate(DISPATCH, _tap(page, 3, 3, 1000))
    view = page.evaluate("() => referee.view")
    # a drag from 3,9 to 8,9 right after: it pans the map, lays nothing, ends nothing
    page.evaluate(DISPATCH, _drag(page, (3, 9), (8, 9), 1100))
    assert _flat(_points(page)) == pytest.approx([3, 3], abs=0.05)
    assert page.evaluate("() => referee.view")[0] < view[0]  # the table moved with the finger
    assert not page.evaluate("() => referee.ruler.done")
    # a tap where the drag lifted, at once: a point (a drag is no first tap of a double-tap)
    page.evaluate(DISPATCH, _tap(page, 5, 5, 1200))
    page.evaluate(DISPATCH, _tap(page, 5, 5, 1300))
    assert page.evaluate("() => referee.ruler.done")  # ... and that tap, tapped again, ends it
    assert len(_points(page)) == 2
    # a finger that wanders past the slop is a drag, however short in time
    page.evaluate(DISPATCH, _tap(page, 10, 10, 5000, wander=30))
    assert len(_points(page)) == 2 and page.evaluate("() => referee.ruler.done")
