"""The threat view in real headless Chromium (issue 31 item 2): tap one piece and see every
piece of another side drawn with a line in the colour of its answer, rings for the
system's ranges, a list by answer beside the verdict; the lines follow a move, re-judged
when the piece settles; a terrain edit that grazes a line turns it amber with the die
roll; a tap on the bare map clears it.

The sample's table is stepped from the test (no frame thread): 20 frames in every piece
rests where it starts, by frame 50 t34a has moved 6 in north (its move event at 48).
"""

from __future__ import annotations

import json
import math
import urllib.request

import pytest

from referee.game import sample_live
from referee.store import GameLog

from .browser import chromium, chromium_missing, dashboard, open_page, screen_point

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))

KINDS = {
    "seen": "in range & seen",
    "out": "out of range",
    "blocked": "blocked",
    "doubt": "too close to call",
}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The sample, logged, 20 frames in: every piece at rest where it starts."""
    log = GameLog(tmp_path_factory.mktemp("threats") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="threats")
    assert live.step(20) == 20
    with dashboard(live) as running:
        yield running
    live.stop()
    log.close()


@pytest.fixture
def page(browser):
    context, page, errors = open_page(browser)
    yield page
    context.close()
    assert not errors, errors


def _api(running, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(running.url + "api/" + path, data=data)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def _targets(running, piece: str) -> list[dict]:
    answer = _api(running, "ask?log=0", {"ask": "targets", "from": piece})
    return answer["verdicts"][0]["targets"]


def _kind(target: dict) -> str:
    """What the view must call a target: a definite no outranks a doubt."""
    if target["range"]["ok"] is False:
        return "out"
    if target["los"]["ok"] is False:
        return "blocked"
    if target["range"]["ok"] is not True or target["los"]["ok"] is not True:
        return "doubt"
    return "seen"


DRAWN = """() => Array.from(document.querySelectorAll('#threats .threat')).map((g) => {
  const l = g.querySelector('line');
  return { to: g.dataset.to, kind: g.dataset.verdict, stroke: l.getAttribute('stroke'),
           dash: l.getAttribute('stroke-dasharray'),
           ends: ['x1', 'y1', 'x2', 'y2'].map((k) => Number(l.getAttribute(k))) };
})"""

POSE = """(id) => { const g = document.querySelector(`.piece[data-id="${id}"]`);
  return [Number(g.dataset.x), Number(g.dataset.y)]; }"""

# the view shows exactly this answer (same pieces, same distances): JSON compared
SHOWS = """(want) => !!referee.threats && !!referee.threats.verdict &&
  JSON.stringify(referee.threats.verdict.targets.map((t) => [t.to, t.range.distance, t.los.los]))
    === JSON.stringify(want)"""


def _shows(targets: list[dict]) -> list:
    return [[t["to"], t["range"]["distance"], t["los"]["los"]] for t in targets]


def _check_lines(page, running, piece: str, targets: list[dict]) -> None:
    palette = _api(running, "info")["palette"]["verdict"]
    colour = {"seen": palette["clear"], "out": palette["blocked"], "blocked": palette["blocked"],
              "doubt": palette["doubtful"]}  # fmt: skip
    drawn = {d["to"]: d for d in page.evaluate(DRAWN)}
    assert sorted(drawn) == sorted(t["to"] for t in targets)  # one line per enemy piece
    start = page.evaluate(POSE, piece)
    for t in targets:
        d, kind = drawn[t["to"]], _kind(t)
        assert d["kind"] == kind, (t["to"], d, t)
        assert d["stroke"] == colour[kind], (t["to"], d)
        assert (d["dash"] is not None) == (kind == "out")  # out of range: dashed
        assert d["ends"] == pytest.approx([*start, *page.evaluate(POSE, t["to"])], abs=1e-6)


def _counts(targets: list[dict]) -> str:
    kinds = [_kind(t) for t in targets]
    return ", ".join(f"{label}: {kinds.count(k)}" for k, label in KINDS.items())


def _check_overlay(page, targets: list[dict]) -> None:
    """Over the map, one short line: each kind that has pieces, its count and their names."""
    over = page.locator("#map-verdict")
    assert over.is_visible()
    for kind, label in KINDS.items():
        names = [t["to"] for t in targets if _kind(t) == kind]
        part = over.locator(f".threat-kind[data-kind='{kind}']")
        if not names:
            assert part.count() == 0, kind
            continue
        assert part.inner_text().startswith(f"{label} {len(names)}: "), part.inner_text()
        assert [c.get_attribute("data-to") for c in part.locator(".chip").all()] == names


def test_one_tap_shows_every_enemy_piece_and_the_lines_follow_a_move(table, page):
    enemies = {p["id"] for p in _api(table, "info")["pieces"] if p["side"] != "soviet"}
    logged = _api(table, "events")["last_seq"]
    page.goto(table.url)
    page.wait_for_selector('.piece[data-id="t34a"]')
    page.click('.piece[data-id="t34a"]')
    before = _targets(table, "t34a")
    assert {t["to"] for t in before} == enemies
    page.wait_for_function(SHOWS, arg=_shows(before))
    _check_lines(page, table, "t34a", before)
    assert {_kind(t) for t in before} >= {"seen", "blocked"}  # wood1 hides two of them
    # the system's rings round the piece: 3, 6 and 12 in, and its own Follow Me radius
    assert page.locator("#rings circle").count() >= 4
    # the list beside the verdict and over the map: counts, then each piece by its answer
    head = page.locator("#verdict .threats-head").inner_text()
    assert _counts(before) in head, head
    _check_overlay(page, before)
    for t in before:
        group = page.locator(f"#verdict .threat-group[data-kind='{_kind(t)}']")
        assert group.locator(f".threat-pick[data-to='{t['to']}']").count() == 1, t["to"]
    # a view, not a dispute: nothing logged
    assert _api(table, "events")["last_seq"] == logged

    # t34a moves 6 in north: the lines go with it, and it is judged again where it settles
    table.live.step(30)
    after = _targets(table, "t34a")
    assert _shows(after) != _shows(before)
    page.wait_for_function(SHOWS, arg=_shows(after))
    _check_lines(page, table, "t34a", after)
    assert page.evaluate(POSE, "t34a")[1] == pytest.approx(14.5, abs=0.3)

    # a tap on the bare map (a corner away from the pieces and the verdict over the map)
    # clears the view
    page.mouse.click(*screen_point(page, 35, 1))
    page.wait_for_function("() => document.querySelectorAll('#threats *').length === 0")
    assert page.evaluate("() => referee.selected") == []
    assert page.locator("#map-verdict").is_hidden()
    assert page.locator("#verdict .threats-head").count() == 0


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_a_name_in_the_list_or_a_second_tap_shows_that_pair(table, page):
    page.goto(table.url)
    page.wait_for_selector('.piece[data-id="sq1"]')
    page.click('.piece[data-id="sq1"]')
    targets = _targets(table, "sq1")
    page.wait_for_function(SHOWS, arg=_shows(targets))
    _check_lines(page, table, "sq1", targets)
    far = targets[-1]["to"]  # the farthest
    page.click(f"#verdict .threat-pick[data-to='{far}']")
    los = page.wait_for_selector("#verdict .line[data-ask='los']")
    assert los.inner_text().startswith(f"Line of sight sq1 → {far}: ")
    assert page.locator("#threats .threat").count() == 0  # the pair replaces the view
    assert page.locator("#lines line.los").count() == 1
    # a tap on a third piece shows what it can hit; a second tap on another, that pair
    page.click('.piece[data-id="t34b"]')
    page.wait_for_function(SHOWS, arg=_shows(_targets(table, "t34b")))
    page.click('.piece[data-id="pz1"]')
    page.wait_for_function(
        """() => (document.querySelector("#verdict .line[data-ask='range']") || {}).textContent
             ?.startsWith('Range t34b → pz1')"""
    )
    assert page.locator("#threats .threat").count() == 0
    # the names over the map do the same
    page.click('.piece[data-id="t34a"]')
    page.wait_for_function(SHOWS, arg=_shows(_targets(table, "t34a")))
    page.click("#map-verdict .chip[data-to='gs2']")
    page.wait_for_function(
        """() => (document.querySelector("#verdict .line[data-ask='los']") || {}).textContent
             ?.startsWith('Line of sight t34a → gs2')"""
    )


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_woods_grazing_a_line_turn_it_too_close_to_call_with_the_die_roll(table, page):
    """Woods drawn with an edge along t34a's line to gs2 (inside the measurement doubt):
    the view, already open, is asked again and draws that line amber with Paper Tigers'
    die roll; removing the woods turns it back."""
    page.goto(table.url)
    page.wait_for_selector('.piece[data-id="t34a"]')
    page.click('.piece[data-id="t34a"]')
    page.wait_for_function(SHOWS, arg=_shows(_targets(table, "t34a")))
    (ax, ay), (bx, by) = page.evaluate(POSE, "t34a"), page.evaluate(POSE, "gs2")
    dx, dy = bx - ax, by - ay
    n = math.hypot(dx, dy)
    nx, ny = -dy / n * 0.003, dx / n * 0.003  # 0.003 in off the line, well within its doubt
    p, q = (ax + dx / 3 + nx, ay + dy / 3 + ny), (ax + 2 * dx / 3 + nx, ay + 2 * dy / 3 + ny)
    side = (nx * 600, ny * 600)  # 1.8 in away from the line
    polygon = [p, q, (q[0] + side[0], q[1] + side[1]), (p[0] + side[0], p[1] + side[1])]
    corners = [[round(x, 5), round(y, 5)] for x, y in polygon]
    woods = {"id": "edge", "kind": "woods", "polygon": corners}
    _api(table, "terrain", {"action": "add", "terrain": woods})
    try:
        grazed = _targets(table, "t34a")
        (gs2,) = [t for t in grazed if t["to"] == "gs2"]
        assert _kind(gs2) == "doubt" and gs2["los"]["los"] == "doubtful"
        page.wait_for_function(SHOWS, arg=_shows(grazed))
        _check_lines(page, table, "t34a", grazed)
        pick = page.locator("#verdict .threat-group[data-kind='doubt'] .threat-pick[data-to='gs2']")
        assert "roll one die: 1-3 blocked, 4-6 clear" in pick.inner_text()
    finally:
        _api(table, "terrain", {"action": "remove", "id": "edge"})
    page.wait_for_function(SHOWS, arg=_shows(_targets(table, "t34a")))
    assert page.locator("#threats .threat[data-to='gs2']").get_attribute("data-verdict") != "doubt"


BOX = "(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"  # noqa: E501


def _inside(box, width: float, height: float) -> bool:
    left, top, right, bottom = box
    return left >= 0 and top >= 0 and right <= width + 0.5 and bottom <= height + 0.5


@pytest.mark.parametrize(("width", "height"), [(1024, 768), (390, 844)])
@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_the_threat_view_reads_on_a_tablet_and_a_phone(browser, table, width, height):
    context, page, errors = open_page(browser, width, height, has_touch=True, is_mobile=width < 600)
    try:
        page.goto(table.url)
        page.wait_for_selector('.piece[data-id="t34a"]')
        page.click('.piece[data-id="t34a"]')
        targets = _targets(table, "t34a")
        page.wait_for_function(SHOWS, arg=_shows(targets))
        # the counts over the map, on screen without scrolling, at least 11 px
        over = page.evaluate(BOX, "#map-verdict")
        assert _inside(over, width, height), over
        _check_overlay(page, targets)
        sizes = page.evaluate(
            """() => Array.from(document.querySelectorAll('#map-verdict .line, #map-verdict .chip'))
                 .map((e) => parseFloat(getComputedStyle(e).fontSize))"""
        )
        assert sizes and min(sizes) >= 11, sizes
        assert page.evaluate("() => window.scrollY") == 0
        if width >= 1000:  # the tablet: the list beside the map, its head on screen
            head = page.evaluate(BOX, "#verdict .threats-head")
            assert _inside(head, width, height) and head[0] >= page.evaluate(BOX, "#map")[2]
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    finally:
        context.close()
    assert not errors, errors


# the page's own fetch, slowed by 300 ms for the threat view's questions and counted: how
# many are out at once, and how many were sent
SLOW_ASKS = """() => {
  const real = window.fetch;
  window.asks = { out: 0, most: 0, sent: [] };
  window.fetch = async (url, init) => {
    if (!String(url).includes('ask?log=0')) return real(url, init);
    const a = window.asks;
    a.out += 1; a.most = Math.max(a.most, a.out); a.sent.push(JSON.parse(init.body).from);
    try {
      await new Promise((r) => setTimeout(r, 300));
      return await real(url, init);
    } finally { a.out -= 1; }
  };
}"""


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_one_question_at_a_time_and_the_newest_wins(table, page):
    """Changes while a question is out are asked once more when it returns, never at once;
    a piece tapped while another's answer is on its way gets its own, not the old one.
    (The page's fetch is slowed, so the questions overlap however fast the server is.)"""
    page.goto(table.url)
    page.wait_for_selector('.piece[data-id="t34a"]')
    page.evaluate(SLOW_ASKS)
    page.click('.piece[data-id="t34a"]')
    page.evaluate("() => { for (let i = 0; i < 5; i++) askThreats(); }")  # five updates at once
    page.wait_for_function("() => asks.sent.length === 2 && asks.out === 0")
    assert page.evaluate("() => asks.most") == 1
    page.wait_for_function(SHOWS, arg=_shows(_targets(table, "t34a")))
    # the map cleared and pz1 tapped while t34a's question is out: t34a's answer is dropped
    page.evaluate("() => askThreats()")
    page.wait_for_function("() => asks.out === 1")
    page.mouse.click(*screen_point(page, 35, 1))
    page.click('.piece[data-id="pz1"]')
    page.wait_for_function(SHOWS, arg=_shows(_targets(table, "pz1")))
    page.wait_for_function("() => asks.out === 0")
    assert page.evaluate("() => [asks.most, asks.sent.slice(2)]") == [1, ["t34a", "pz1"]]
    assert page.locator("#threats").get_attribute("data-from") == "pz1"
    _check_lines(page, table, "pz1", _targets(table, "pz1"))


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_replaying_the_log_hides_the_view_and_live_brings_it_back(table, page):
    """The view answers for the live table: while the scrubber shows an earlier moment its
    lines and names are off the map; back to live, they are the table's now."""
    page.goto(table.url)
    page.wait_for_selector('.piece[data-id="t34a"]')
    page.click('.piece[data-id="t34a"]')
    targets = _targets(table, "t34a")
    page.wait_for_function(SHOWS, arg=_shows(targets))
    page.evaluate("() => scrubTo(1)")
    page.wait_for_selector("#replay-banner:not([hidden])")
    page.wait_for_function("() => document.querySelectorAll('#threats *').length === 0")
    assert page.locator("#map-verdict").is_hidden()
    page.click("#replay-live")
    page.wait_for_function(
        "(n) => document.querySelectorAll('#threats .threat').length === n", arg=len(targets)
    )
    _check_lines(page, table, "t34a", targets)
    _check_overlay(page, targets)
