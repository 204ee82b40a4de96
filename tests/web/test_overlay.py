"""The stream overlay ``/overlay`` (issue 40 item 3): a transparent page for a streaming
program's browser source with the table's map in a corner, the newest ruling as a caption
and the threat view of the piece it is about, all live from ``/api/stream``.

Flask-level: the route, its options, a bad option a 400 with one line, the token rule.
In Chromium: the page is transparent but for what it draws, a logged ruling becomes the
caption, ``corner``/``size`` place the map, ``show=verdict`` leaves the map out.
The sample is stepped from the test (no frame thread): 20 frames in, every piece at rest.
"""

from __future__ import annotations

import json
import urllib.request

import cv2
import numpy as np
import pytest

from referee.game import sample_live
from referee.store import GameLog
from referee.web import create_app
from referee.web.pages import OverlayOptions, overlay_options

from .browser import chromium, chromium_missing, dashboard, open_page

browser_only = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))
WIDTH, HEIGHT = 1280, 720


# -- the route and its options (Flask) --------------------------------------------------------


def test_defaults_are_the_whole_overlay_bottom_right(client):
    response = client.get("/overlay")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert 'data-corner="br"' in page and 'data-size="360"' in page
    assert 'data-show="map,verdict,threat"' in page
    assert "overlay.js" in page and "background: transparent" in page


def test_options_are_read_in_any_case_and_order():
    assert overlay_options({"corner": "TL", "size": " 500", "show": "threat, MAP"}) == (
        OverlayOptions("tl", 500, ("map", "threat"))
    )
    assert overlay_options({"show": "verdict", "token": "anything"}).show == ("verdict",)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("corner=middle", "overlay: corner 'middle' is not one of tl, tr, bl, br"),
        ("size=big", "overlay: size 'big' is not a whole number of pixels from 80 to 4000"),
        ("size=10", "overlay: size '10' is not a whole number of pixels from 80 to 4000"),
        ("size=1e3", "overlay: size '1e3' is not a whole number of pixels from 80 to 4000"),
        ("show=map,score", "overlay: show 'map,score' is not a list of map, verdict, threat"),
        ("show=", "overlay: show '' is not a list of map, verdict, threat"),
        ("show=threat", "overlay: show=threat draws on the map: add map to show"),
        ("sise=300", "overlay: unknown option 'sise' (the options: corner, size, show)"),
    ],
)
def test_a_bad_option_is_a_400_with_one_line(client, query, message):
    response = client.get("/overlay?" + query)
    assert response.status_code == 400
    assert response.mimetype == "text/plain"
    assert response.get_data(as_text=True) == message + "\n"


def test_the_overlay_needs_the_dashboards_token(stepped):
    client = create_app(stepped, {"TESTING": True, "TOKEN": "s3cret"}).test_client()
    assert client.get("/overlay").status_code == 401
    assert client.get("/overlay?token=wrong").status_code == 401
    assert client.get("/overlay?token=s3cret&corner=tl").status_code == 200
    assert client.get("/overlay", headers={"X-Referee-Token": "s3cret"}).status_code == 200


# -- in Chromium ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("overlay") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="overlay")
    assert live.step(20) == 20
    with dashboard(live) as running:
        yield running
    live.stop()
    log.close()


@pytest.fixture
def page(browser):
    context, page, errors = open_page(browser, WIDTH, HEIGHT)
    yield page
    context.close()
    assert not errors, errors


def ask(running, body: dict, log: bool = True) -> dict:
    request = urllib.request.Request(
        running.url + "api/ask" + ("" if log else "?log=0"),
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["verdicts"][0]


def _api_info(running) -> dict:
    with urllib.request.urlopen(running.url + "api/info", timeout=10) as response:
        return json.loads(response.read())


def _kind(target: dict) -> str:
    """What the threat view must call a target (as the dashboard's): a definite no first."""
    if target["range"]["ok"] is False:
        return "out"
    if target["los"]["ok"] is False:
        return "blocked"
    if target["range"]["ok"] is not True or target["los"]["ok"] is not True:
        return "doubt"
    return "seen"


def open_overlay(page, running, query: str = "") -> None:
    page.goto(running.url + "overlay" + ("?" + query if query else ""))
    page.wait_for_function("window.overlay && window.overlay.info !== null")


def rgba(page) -> np.ndarray:
    png = page.screenshot(omit_background=True)
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    assert image.shape == (HEIGHT, WIDTH, 4)
    return image


def box_of(page, selector: str) -> dict:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


@browser_only
@pytest.mark.slow  # a browser detail; the caption-and-threat test stays
def test_nothing_is_opaque_but_the_map_and_the_caption(page, table):
    ask(table, {"ask": "range", "from": "t34a", "to": "pz1"})
    open_overlay(page, table)
    page.wait_for_selector("#ov-caption:not([hidden])")
    page.wait_for_selector("#ov-map:not([hidden]) .piece")
    image = rgba(page)
    alpha = image[:, :, 3]
    drawn = np.zeros_like(alpha, dtype=bool)
    for selector in ("#ov-map", "#ov-caption"):
        b = box_of(page, selector)
        x0, y0 = int(b["x"]), int(b["y"])
        x1, y1 = int(b["x"] + b["width"]) + 1, int(b["y"] + b["height"]) + 1
        drawn[y0:y1, x0:x1] = True
    assert drawn.any()
    assert (alpha[~drawn] == 0).all()  # the stream shows through everywhere else
    m = box_of(page, "#ov-map")
    cloth = alpha[int(m["y"]) + 10 : int(m["y"] + m["height"]) - 10, int(m["x"]) + 10 :]
    assert (cloth == 255).mean() > 0.9  # the cloth itself is opaque


@browser_only
def test_a_logged_ruling_is_the_caption_and_its_piece_has_the_threat_view(page, table):
    open_overlay(page, table)
    verdict = ask(table, {"ask": "los", "from": "sq1", "to": "gs1"})
    caption = page.locator("#ov-caption .head")
    caption.wait_for()
    page.wait_for_function(
        "s => document.querySelector('#ov-caption .head').textContent === s", arg=verdict["summary"]
    )
    assert verdict["summary"] in caption.text_content()
    assert verdict["reasons"][0] in page.locator("#ov-caption .why").text_content()
    # the threat view is the ruling's piece's: a line to each piece of another side
    page.wait_for_selector("#ov-threats[data-from='sq1'] .threat")
    targets = ask(table, {"ask": "targets", "from": "sq1"}, log=False)["targets"]
    drawn = page.eval_on_selector_all("#ov-threats .threat", "gs => gs.map(g => g.dataset.to)")
    assert sorted(drawn) == sorted(t["to"] for t in targets)
    colours = _api_info(table)["palette"]["verdict"]
    for target in targets:
        kind = _kind(target)
        line = page.locator(f"#ov-threats .threat[data-to='{target['to']}'] line")
        assert (
            line.get_attribute("stroke")
            == colours["clear" if kind == "seen" else "doubtful" if kind == "doubt" else "blocked"]
        )
        assert (
            page.locator(f"#ov-threats .threat[data-to='{target['to']}']").get_attribute(
                "data-verdict"
            )
            == kind
        )
    # a newer ruling on another piece takes the caption and the lines
    second = ask(table, {"ask": "range", "from": "pz1", "to": "t34a"})
    page.wait_for_selector("#ov-threats[data-from='pz1']")
    assert page.locator("#ov-caption .head").text_content() == second["summary"]


@pytest.fixture(scope="module")
def moved(tmp_path_factory):
    """The sample 50 frames in: t34a has moved 6 in north and settled (its move logged)."""
    log = GameLog(tmp_path_factory.mktemp("overlay-moved") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="overlay-moved")
    assert live.step(50) == 50
    with dashboard(live) as running:
        yield running
    live.stop()
    log.close()


# t34a drawn at that y (its node is not there until the map's first drawing)
T34A_AT = (
    "y => Math.abs((document.querySelector('#ov-pieces [data-id=t34a]')"
    " || {dataset: {}}).dataset.y - y) < 0.1"
)


@browser_only
@pytest.mark.slow  # a browser detail; the caption-and-threat test stays
def test_a_correction_is_the_caption_and_puts_its_piece_back(page, moved):
    open_overlay(page, moved)
    with urllib.request.urlopen(moved.url + "api/events", timeout=10) as response:
        events = json.loads(response.read())["events"]
    move = next(e for e in events if e["type"] == "move" and e["piece"] == "t34a")
    page.wait_for_function(
        T34A_AT,
        arg=move["to"]["y"],
    )
    request = urllib.request.Request(
        moved.url + "api/correct",
        data=json.dumps({"seq": move["seq"], "void": True, "why": "knocked over"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        logged = json.loads(response.read())["events"]
    again = [e["verdict"]["summary"] for e in logged if e["type"] == "verdict"]
    assert again  # the standing questions on t34a are asked again
    head = f"correction: move #{move['seq']} of t34a did not happen"
    page.wait_for_function(
        "s => (document.querySelector('#ov-caption .head') || {}).textContent === s", arg=head
    )
    page.wait_for_function(
        "n => document.querySelector('#ov-caption .why').textContent.split('; ').length === n",
        arg=len(again),
    )
    why = page.locator("#ov-caption .why").text_content()
    assert why.startswith("knocked over · asked again: ") and all(s in why for s in again)
    # drawn where it rested before the voided move (the camera still sees it moved)
    page.wait_for_function(
        T34A_AT,
        arg=move["from"]["y"],
    )
    page.wait_for_selector("#ov-threats[data-from='t34a'] .threat")


@browser_only
@pytest.mark.slow  # a browser detail; the caption-and-threat test stays
@pytest.mark.parametrize(("corner", "size"), [("tl", 300), ("br", 500)])
def test_corner_and_size_place_the_map(page, table, corner, size):
    open_overlay(page, table, f"corner={corner}&size={size}")
    page.wait_for_selector("#ov-map:not([hidden])")
    b = box_of(page, "#ov-map")
    assert b["width"] == pytest.approx(size, abs=1)
    margin = 16
    if corner == "tl":
        assert (b["x"], b["y"]) == pytest.approx((margin, margin), abs=1)
    else:
        assert b["x"] + b["width"] == pytest.approx(WIDTH - margin, abs=1)
        assert b["y"] + b["height"] == pytest.approx(HEIGHT - margin, abs=1)


@browser_only
@pytest.mark.slow  # a browser detail; the caption-and-threat test stays
def test_show_verdict_leaves_the_map_out(page, table):
    verdict = ask(table, {"ask": "range", "from": "t34b", "to": "gs2"})
    open_overlay(page, table, "show=verdict&corner=tr")
    page.wait_for_selector("#ov-caption:not([hidden])")
    assert page.locator("#ov-map").is_hidden()
    assert page.locator("#ov-caption .head").text_content() == verdict["summary"]
    b = box_of(page, "#ov-caption")
    assert b["x"] + b["width"] == pytest.approx(WIDTH - 16, abs=1) and b["y"] == pytest.approx(16)
    alpha = rgba(page)[:, :, 3]
    assert (alpha[:, : int(b["x"]) - 1] == 0).all()  # no map anywhere
