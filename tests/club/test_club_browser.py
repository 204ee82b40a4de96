"""The club page in real headless Chromium: every table's card with its game, system and
mini-map, redrawn live as a table sends moves; a game's timeline, disputes and replay; and
what a person reads there (issue 42): log show's sentences, disputes with their reasons and
corrections, the dashboard's colours, every piece labelled, "live" only while a table
sends, results with the rule that scored them."""

from __future__ import annotations

import json
import re
import sqlite3
import time
import urllib.request

import pytest
from click.testing import CliRunner
from web.browser import chromium, chromium_missing

from referee.cli import cli
from referee.club.pages import game_colours
from referee.club.replay import board_at
from referee.club.store import LIVE_SECONDS, ClubStore
from referee.picture import PALETTE

from .helpers import ROOT, ROSTER, SCENE, move, running_club, story, story_log, verdict

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


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_the_club_page_shows_every_table_live(club, page):
    page.goto(club.url)
    cards = page.locator("section.card")
    assert cards.count() == 2
    alpha = page.locator('section[data-table="alpha"]')
    assert "alpha-game" in alpha.inner_text() and "Paper Tigers" in alpha.inner_text()
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


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
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


# -- what a person at the club reads (issue 42) -------------------------------------------------

CLUB_SAMPLE = ROOT / "sample_footage" / "club"


@pytest.fixture
def night(tmp_path):
    """A club with a told story (alpha, also in a table log for 'log show') and the club
    sample's 26 pieces on its 72x48 table (beta)."""
    story_log(tmp_path / "games.sqlite").close()
    with ClubStore(f"sqlite:///{tmp_path / 'club.sqlite'}") as store:
        store.add_table("alpha")
        store.add_table("beta")
        store.open_game("alpha", "story", "paper-tigers", SCENE, ROSTER)
        store.ingest("alpha", "story", story())
        scene = json.loads((CLUB_SAMPLE / "scene.json").read_text())
        roster = json.loads((CLUB_SAMPLE / "roster.json").read_text())
        store.open_game("beta", "club-night", "pz8-ww2", scene, roster)
        with running_club(store) as running:
            yield running, tmp_path / "games.sqlite"


def test_a_game_reads_as_log_show_with_its_disputes_and_result(night, page):
    club, log = night
    page.goto(club.url + "games/story")
    shown = CliRunner().invoke(cli, ["log", "show", "story", "--db", str(log)])
    assert page.inner_text("#timeline").splitlines() == shown.stdout.splitlines()[1:]
    timeline = page.inner_text("#timeline")
    assert "{" not in timeline and "declare follow_me t34a, action move" in timeline
    disputes = page.inner_text("#disputes")
    lines = disputes.splitlines()
    assert not any(line.lstrip().startswith("erdict") for line in lines)
    assert "#3 at 0.58s: verdict los: NOT OK los t34a -> pz1: blocked by wood1" in lines
    assert "the line crosses woods wood1: LOS through it is blocked" in lines
    assert any("too close to call" in x and "(its move was corrected: #8)" in x for x in lines)
    assert "#8 at 9.00s: correction of #4 (move t34a): did not happen (knocked over)" in lines
    assert "asked again: verdict los (after correction #8): ok los t34a -> pz1: clear" in lines
    result = page.inner_text("#result")
    assert "soviet 5 VP, german 1 VP: victory for soviet" in result
    assert "Scored by the Paper Tigers victory rule at event #12" in result
    assert "pz1 (tank, german) destroyed: 5 VP" in result
    assert "Paper Tigers" in page.inner_text("#about")


def _rects(page, selector):
    return page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {id: e.dataset.id, text: e.textContent, x0: r.left, y0: r.top, x1: r.right,"
        " y1: r.bottom}; })",
    )


def _meet(a, b):
    return a["x0"] < b["x1"] and b["x0"] < a["x1"] and a["y0"] < b["y1"] and b["y0"] < a["y1"]


@pytest.mark.parametrize(
    ("table", "game"),
    [pytest.param("alpha", "story", marks=pytest.mark.slow), ("beta", "club-night")],
)
@pytest.mark.parametrize("where", [pytest.param("card", marks=pytest.mark.slow), "game"])
def test_every_map_labels_each_piece_in_the_dashboards_colours(night, page, table, game, where):
    club, _ = night
    store = club.store
    info = store.game(game)
    if where == "card":
        page.goto(club.url)
        root = f'section[data-table="{table}"] '
    else:
        page.goto(club.url + f"games/{game}")
        root = ".bigmap-figure "
    pieces = board_at(info.scene, info.roster, []).pieces
    colours = game_colours(info)
    fills = page.eval_on_selector_all(
        root + ".piece",
        "els => els.map(e => [e.dataset.side, e.querySelector('rect').getAttribute('fill')])",
    )
    assert len(fills) == len(pieces) and all(fill == colours[side] for side, fill in fills)
    labels = _rects(page, root + "text.label")
    assert sorted(x["text"] for x in labels) == sorted(p.id for p in pieces)
    frame = _rects(page, root + "svg")[0]
    for a in labels:
        assert a["x1"] - a["x0"] >= 8 and a["y1"] - a["y0"] >= 8, a  # big enough to read
        inside = frame["x0"] - 1 <= a["x0"] and a["x1"] <= frame["x1"] + 1
        assert inside and frame["y0"] - 1 <= a["y0"] and a["y1"] <= frame["y1"] + 1, a
        crossed = [b["text"] for b in labels if b is not a and _meet(a, b)]
        assert not crossed, (a["text"], crossed)
    kinds = page.eval_on_selector_all(
        root + "polygon.terrain", "els => els.map(e => [e.dataset.kind, e.getAttribute('fill')])"
    )
    assert kinds and all(fill == PALETTE["terrain"][kind] for kind, fill in kinds)
    legend = page.inner_text(root + ".legend")
    for kind, _fill in kinds:
        assert kind in legend
    for side in {p.side for p in pieces}:
        assert side in legend


def _badge(page, table):
    return page.inner_text(f'section[data-table="{table}"] h2').strip()


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_live_only_while_a_table_sends(night, page):
    club, _ = night
    store = club.store
    page.goto(club.url)
    assert "live" in _badge(page, "alpha")  # its events arrived a moment ago
    store.end("alpha", "story")  # the table stopped (the sender says so as it stops)
    page.wait_for_function(
        "() => document.querySelector('section[data-table=\"alpha\"] h2').innerText"
        ".includes('ended')",
        timeout=TIMEOUT,
    )
    assert "live" not in _badge(page, "alpha")
    store.ingest("alpha", "story", [move(13, "t34a", 12.0, 12.0)])  # it plays on: live again
    page.wait_for_function(
        "() => document.querySelector('section[data-table=\"alpha\"] h2').innerText"
        ".includes('live')",
        timeout=TIMEOUT,
    )
    # A table that went quiet without saying so (killed, unplugged): not live after the
    # threshold (its last arrival made older here rather than waited for).
    assert "live" in _badge(page, "beta")  # registered a moment ago
    with sqlite3.connect(club.store.where) as con:
        con.execute(
            "UPDATE club_games SET updated = ? WHERE name = 'club-night'",
            (time.time() - LIVE_SECONDS - 60,),
        )
    page.wait_for_function(
        "() => document.querySelector('section[data-table=\"beta\"] h2').innerText"
        ".includes('last event 3 min ago')",
        timeout=TIMEOUT,
    )
    assert "live" not in _badge(page, "beta") and "live" in _badge(page, "alpha")


@pytest.mark.slow  # a browser detail; the default run keeps the page's main test
def test_standings_say_which_rule_scored_them(night, page):
    club, _ = night
    page.goto(club.url)
    row = page.inner_text('#standings tr[data-game="story"]')
    assert "soviet 5 VP, german 1 VP" in row and "victory for soviet" in row
    assert "the Paper Tigers victory rule, at event #12" in row
    assert "german controls hill1: 1 VP" in row


# -- the maps drawn with the dashboard's modules (issue 38 item 4) ------------------------------

_SERVER_PIECE = re.compile(
    r'<g class="piece" data-id="([^"]*)" data-side="([^"]*)" data-x="([^"]*)" data-y="([^"]*)"'
)
_DRAWN = (
    "els => els.map(e => [e.dataset.id, e.dataset.side, e.dataset.x, e.dataset.y,"
    " e.querySelector('rect.base').getAttribute('fill')])"
)


def _server_pieces(url: str, after: str) -> list[list[str]]:
    """Id, side, x and y of each piece of the server's own SVG (the page without JavaScript):
    the first map after ``after`` in the page's HTML."""
    with urllib.request.urlopen(url) as answer:
        html = answer.read().decode()
    svg = html[html.index("<svg", html.index(after)) :]
    return [list(p) for p in _SERVER_PIECE.findall(svg[: svg.index("</svg>")])]


def test_the_maps_are_drawn_by_the_dashboards_modules_in_its_colours(club, page):
    info = club.store.game("alpha-game")
    colours = game_colours(info)
    assert set(colours.values()) <= set(PALETTE["sides"])
    card = 'section[data-table="alpha"] '
    page.goto(club.url)
    page.wait_for_selector(card + 'svg.map[data-drawn="js"]')
    drawn = page.eval_on_selector_all(card + ".piece", _DRAWN)
    assert len(drawn) == len(SCENE["pieces"])
    assert all(fill == colours[side] for _, side, _, _, fill in drawn)
    assert [d[:4] for d in drawn] == _server_pieces(club.url, 'data-table="alpha"')
    assert ["t34a", "soviet", "11.00", "12.00"] in [d[:4] for d in drawn]
    terrain = page.eval_on_selector_all(
        card + "polygon.terrain", "els => els.map(e => [e.dataset.kind, e.getAttribute('fill')])"
    )
    assert terrain and all(fill == PALETTE["terrain"][kind] for kind, fill in terrain)
    assert page.get_attribute(card + "rect.cloth", "fill") == PALETTE["cloth"]
    # Its numbers are written as the server's "%.2f" writes them, exact ties and -0 too.
    values = [10.125, -0.125, -0.0, 2.675, 0.5, 1.5, 11.0, 1e-7, 33.3349999]
    written = page.evaluate(
        "async (values) => { const m = await import('./static/club.js');"
        " return values.map((v) => [m.fixed(v, 2), m.fixed(v, 0)]); }",
        values,
    )
    assert written == [[f"{v:.2f}", f"{v:.0f}"] for v in values]
    # A table sends a move: the card comes again from the server and is drawn by the module.
    club.store.ingest("alpha", "alpha-game", [move(3, "t34a", 15.0, 12.0)])
    page.wait_for_function(
        '() => { const p = document.querySelector(\'section[data-table="alpha"] '
        ".piece[data-id=\"t34a\"]'); return p.dataset.x === '15.00' && p.querySelector('rect.base')"
        " && p.closest('svg').dataset.drawn === 'js'; }",
        timeout=TIMEOUT,
    )
    # A game's page: its big map too, piece for piece where the server put them.
    page.goto(club.url + "games/alpha-game?at=1")
    page.wait_for_selector('svg.bigmap[data-drawn="js"]')
    drawn = page.eval_on_selector_all(".bigmap .piece", _DRAWN)
    assert [d[:4] for d in drawn] == _server_pieces(
        club.url + "games/alpha-game?at=1", 'class="bigmap-figure"'
    )
    assert all(fill == colours[side] for _, side, _, _, fill in drawn)
