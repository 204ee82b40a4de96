"""The projector page ``/projector`` (issue 39): verdicts drawn on the cloth through the
projector's fit, every tag kept dark, following the selection shared by POST /api/selection.

Flask-level: /api/projector without a fit, the pattern PNG, the selection's bad input.
In Chromium, at a known projector mapping put on the live table's profile: a selected
piece's threat lines and range ring are lit where the homography puts them, every tag's
disc is black, the background is black, the verdict text is drawn, and a new selection
changes the drawing. The sample is stepped from the test (no frame thread).
"""

from __future__ import annotations

import dataclasses
import json
import urllib.error
import urllib.request

import cv2
import numpy as np
import pytest

from referee.calibration.projector_fit import ProjectorFit
from referee.game import sample_live
from referee.store import GameLog

from .browser import chromium, chromium_missing, dashboard, open_page

browser_only = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))
WIDTH, HEIGHT = 1280, 720
# table inches -> projector px: about 30 px an inch, a little skew and perspective
TO_PICTURE = np.array([[30.0, 0.5, 80.0], [0.3, 28.0, 20.0], [0.00005, 0.0002, 1.0]])


def known_fit() -> ProjectorFit:
    matrix = np.linalg.inv(TO_PICTURE)
    return ProjectorFit(
        resolution=(WIDTH, HEIGHT),
        homography=tuple(tuple(float(v) for v in row) for row in matrix),  # type: ignore[arg-type]
        held_out_p95_in=0.02,
        held_out_max_in=0.04,
        points_used=96,
        covered=((0.0, 0.0), (36.0, 0.0), (36.0, 24.0), (0.0, 24.0)),
    )


# -- Flask ---------------------------------------------------------------------------------------


def test_no_fit_is_a_404_that_says_what_to_do(client):
    response = client.get("/api/projector")
    assert response.status_code == 404
    message = response.get_json()["error"]
    assert message.startswith("no projector calibrated") and "/projector?pattern=1" in message


def test_the_pattern_png_has_the_size_asked(client):
    response = client.get("/api/projector/pattern.png?width=1280&height=720")
    assert response.status_code == 200 and response.mimetype == "image/png"
    image = cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (720, 1280, 3)
    assert 0 < (image > 0).mean() < 0.5  # tags' quiet zones lit, the rest dark


@pytest.mark.parametrize(
    ("query", "start"),
    [
        ("width=abc", "width: must be a whole number"),
        ("width=10&height=720", "width: 10 is not a pattern side"),
        ("width=1280&height=99999", "height: 99999 is not a pattern side"),
    ],
)
def test_a_bad_pattern_size_is_a_400(client, query, start):
    response = client.get("/api/projector/pattern.png?" + query)
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(start)


def test_calibrating_on_a_frame_without_the_pattern_says_why(client):
    response = client.post("/api/projector/calibrate", json={"width": 1280, "height": 720})
    assert response.status_code == 400
    assert "the camera read 0 of the projector's" in response.get_json()["error"]


@pytest.mark.parametrize(
    ("body", "status", "start"),
    [
        ({"piece": 3}, 400, "piece: must be a piece id"),
        ({"piece": ""}, 400, "piece: must be a piece id"),
        ({"pieces": "t34a"}, 400, "body: send"),
        ({}, 400, "body: send"),
        ({"piece": "nobody"}, 404, "piece: no piece 'nobody' in the roster"),
    ],
)
def test_a_bad_selection_is_refused(client, body, status, start):
    response = client.post("/api/selection", json=body)
    assert response.status_code == status
    assert response.get_json()["error"].startswith(start)


def test_a_selection_is_kept_and_streamed(client):
    assert client.post("/api/selection", json={"piece": "t34a"}).get_json() == {"piece": "t34a"}
    stream = client.get("/api/stream", buffered=False)
    text = ""
    for chunk in stream.response:
        text += chunk.decode()
        if "event: selection" in text:
            break
    stream.close()
    assert 'event: selection\ndata: {"piece":"t34a"}' in text
    assert client.post("/api/selection", json={"piece": None}).get_json() == {"piece": None}


# -- in Chromium ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("projector") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="projector")
    assert live.step(20) == 20
    camera = live.pipeline.cameras[0]
    camera.initial_profile = dataclasses.replace(camera.initial_profile, projector=known_fit())
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


def _get(running, path: str) -> dict:
    with urllib.request.urlopen(running.url + path, timeout=10) as response:
        return json.loads(response.read())


def _post(running, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        running.url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def _kind(target: dict) -> str:
    if target["range"]["ok"] is False:
        return "out"
    if target["los"]["ok"] is False:
        return "blocked"
    if target["range"]["ok"] is not True or target["los"]["ok"] is not True:
        return "doubt"
    return "seen"


def picture(x: float, y: float, lens: tuple[float, ...] = ()) -> tuple[float, float]:
    px = dataclasses.replace(known_fit(), lens=lens).to_picture([[x, y]])[0]
    return float(px[0]), float(px[1])


def screenshot(page) -> np.ndarray:
    """The page as the projector shows it, BGR."""
    image = cv2.imdecode(np.frombuffer(page.screenshot(), np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (HEIGHT, WIDTH, 3)
    return image


def bgr(colour: str) -> np.ndarray:
    h = colour.lstrip("#")
    return np.array([int(h[4:6], 16), int(h[2:4], 16), int(h[0:2], 16)], np.int32)


def near(image: np.ndarray, x: float, y: float, colour: np.ndarray, within: int = 2) -> bool:
    """Whether a pixel within ``within`` px of (x, y) has ``colour`` (antialiasing aside)."""
    cx, cy = round(x), round(y)
    patch = image[cy - within : cy + within + 1, cx - within : cx + within + 1].astype(np.int32)
    return bool((np.abs(patch - colour).max(axis=2) <= 40).any())


def discs(running) -> list[tuple[float, float, float]]:
    """Every tag's disc on the table: (x, y, radius) inches, from the frame's poses."""
    fit = _get(running, "api/projector")["discs"]
    spots = [(a["x"], a["y"], a["radius"]) for a in fit["anchors"]]
    for p in _get(running, "api/live")["pieces"]:
        tag = fit["pieces"][p["id"]]
        h = np.radians(p["heading"])
        fwd, right = tag["offset"]
        x = p["x"] + fwd * np.cos(h) - right * np.sin(h)
        y = p["y"] + fwd * np.sin(h) + right * np.cos(h)
        spots.append((x, y, tag["radius"]))
    return spots


def in_disc(spots, x: float, y: float, slack: float = 0.3) -> bool:
    return any(np.hypot(x - sx, y - sy) < r + slack for sx, sy, r in spots)


def select(page, running, piece: str) -> None:
    _post(running, "api/selection", {"piece": piece})
    page.wait_for_function(
        "p => (window.projector.verdictText || '').startsWith(p + ':')", arg=piece
    )


def open_projector(page, running) -> None:
    page.goto(running.url + "projector")
    page.wait_for_function("window.projector && window.projector.fit && window.projector.draws > 0")


def check_threat_lines(image, running, piece: str, lens: tuple[float, ...] = ()) -> int:
    """Each solid threat line of ``piece`` is lit in its verdict's colour at its projected
    midpoint (unless a tag's disc is there); the number checked."""
    colours = _get(running, "api/info")["palette"]["verdict"]
    poses = {p["id"]: p for p in _get(running, "api/live")["pieces"]}
    spots = discs(running)
    targets = _post(running, "api/ask?log=0", {"ask": "targets", "from": piece})["verdicts"][0]
    a = poses[piece]
    checked = 0
    for target in targets["targets"]:
        kind = _kind(target)
        if kind == "out" or target["to"] not in poses:  # dashed: the midpoint may be a gap
            continue
        b = poses[target["to"]]
        mx, my = (a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2
        if in_disc(spots, mx, my):
            continue
        colour = colours[
            "clear" if kind == "seen" else "doubtful" if kind == "doubt" else "blocked"
        ]
        assert near(image, *picture(mx, my, lens), bgr(colour)), (piece, target["to"], kind)
        checked += 1
    return checked


@browser_only
def test_the_threat_view_is_drawn_where_the_fit_says_and_tags_stay_dark(page, table):
    open_projector(page, table)
    select(page, table, "t34a")
    image = screenshot(page)
    assert check_threat_lines(image, table, "t34a") >= 1
    # its range ring (3 in: follow me) round the piece
    info = _get(table, "api/info")
    ranges = next(p["ranges"] for p in info["pieces"] if p["id"] == "t34a")
    a = next(p for p in _get(table, "api/live")["pieces"] if p["id"] == "t34a")
    spots = discs(table)
    ring = bgr("#d0d0d0")
    hits = checked = 0
    for r in ranges.values():
        for angle in np.radians(np.arange(0, 360, 20)):
            x, y = a["x"] + r * np.cos(angle), a["y"] + r * np.sin(angle)
            sx, sy = picture(x, y)
            if not (3 <= sx < WIDTH - 3 and 3 <= sy < HEIGHT - 3) or in_disc(spots, x, y):
                continue
            checked += 1
            hits += near(image, sx, sy, ring)
    assert checked >= 10 and hits >= 0.75 * checked, (hits, checked)
    # every tag is black, though lines start at the piece the tag is on
    for x, y, _ in spots:
        sx, sy = picture(x, y)
        if 0 <= sx < WIDTH and 0 <= sy < HEIGHT:
            cx, cy = round(sx), round(sy)
            assert image[cy - 1 : cy + 2, cx - 1 : cx + 2].max() <= 10, (x, y)
    # the background is black: the corner off the cloth, and most of the picture
    assert image[:15, :60].max() == 0
    assert (image.max(axis=2) == 0).mean() > 0.7
    # the verdict text, large, beside the piece
    text = page.evaluate("window.projector.verdictText")
    targets = _post(table, "api/ask?log=0", {"ask": "targets", "from": "t34a"})["verdicts"][0]
    seen = sum(_kind(t) == "seen" for t in targets["targets"])
    assert text.startswith(f"t34a: {seen} in sight")
    base = max(next(p["base"] for p in info["pieces"] if p["id"] == "t34a"))
    tx, ty = picture(a["x"] + base, a["y"] - base)  # the text starts off its base's corner
    region = image[max(0, round(ty) - 40) : round(ty), round(tx) : round(tx) + 300]
    assert (region.min(axis=2) > 200).sum() > 50  # white letters


@browser_only
def test_a_projector_lens_is_drawn_through(page, table):
    """With a lens in the fit the page bends its drawing as the fit's to_picture does: lines
    land where the lens puts them, not where the homography alone would (k1 = 0.15, a
    strong lens, so the bend near the picture's centre is many pixels, past a line's width)."""
    open_projector(page, table)
    select(page, table, "t34a")
    page.evaluate("window.projector.fit.lens = [0.15]; window.projector.redraw()")
    image = screenshot(page)
    assert check_threat_lines(image, table, "t34a", lens=(0.15,)) >= 1
    # ... and not where the homography alone puts them
    with pytest.raises(AssertionError):
        check_threat_lines(image, table, "t34a")


@browser_only
def test_a_new_selection_changes_the_drawing(page, table):
    open_projector(page, table)
    select(page, table, "t34a")
    select(page, table, "pz1")
    image = screenshot(page)
    assert check_threat_lines(image, table, "pz1") >= 1
    _post(table, "api/selection", {"piece": None})
    page.wait_for_function("window.projector.verdictText === null")
    page.wait_for_timeout(100)
    image = screenshot(page)
    lit = image.max(axis=2) > 0
    # nothing selected: no lines and no rings; only the moves' arrows and their labels
    assert lit.mean() < 0.05


@browser_only
def test_the_pattern_page_shows_the_pattern_full_screen(page, table):
    page.goto(table.url + "projector?pattern=1")
    page.wait_for_function(
        "(i => i.complete && i.naturalWidth > 0)(document.getElementById('pj-pattern'))"
    )
    size = page.evaluate(
        "(i => [i.naturalWidth, i.naturalHeight])(document.getElementById('pj-pattern'))"
    )
    assert size == [WIDTH, HEIGHT]
    try:
        _get(table, "api/projector/pattern.png?width=5")
    except urllib.error.HTTPError as error:
        assert error.code == 400
    else:
        raise AssertionError("a 5 px pattern was served")


@browser_only
def test_a_tap_on_the_dashboard_is_what_the_projector_draws(browser, table):
    context, dash, errors = open_page(browser)
    projector = context.new_page()
    try:
        dash.goto(table.url)
        dash.wait_for_selector('.piece[data-id="t34a"]')
        open_projector(projector, table)
        dash.click('.piece[data-id="t34a"]')
        projector.wait_for_function("(window.projector.verdictText || '').startsWith('t34a:')")
        dash.click('.piece[data-id="pz1"]')  # a pair: no single piece's threat view to draw
        projector.wait_for_function("window.projector.selected === null")
        assert projector.evaluate("window.projector.verdictText") is None
    finally:
        context.close()
    assert not errors, errors


@browser_only
def test_after_a_bump_the_cloth_says_check_and_the_button_asks_the_server(page, table):
    fits = table.app.extensions["referee.projector"]
    pose = table.live.calibration.table_pose
    knocked = type(pose)(pose.rvec, pose.tvec + 0.5)  # as a re-registered camera has it
    fits.put(known_fit(), pose=knocked)
    try:
        open_projector(page, table)
        notice = page.locator("#pj-notice")
        assert notice.is_visible()
        assert "the camera moved since the projector was fitted" in notice.inner_text()
        # The pattern page's check: the sample's camera sees no pattern, and says so.
        page.goto(table.url + "projector?pattern=1")
        page.click("#pj-check")
        page.wait_for_function(
            "!['', 'checking…'].includes(document.getElementById('pj-result').textContent)"
        )
        said = page.inner_text("#pj-result")
        refused = _post_status(table, "api/projector/check", {"width": WIDTH, "height": HEIGHT})
        assert refused[0] == 400 and said == refused[1], (said, refused)
    finally:
        fits.put(known_fit())
    open_projector(page, table)
    assert page.locator("#pj-notice").is_hidden()


def _post_status(running, path: str, body: dict) -> tuple[int, str]:
    try:
        _post(running, path, body)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())["error"]
    return 200, ""
