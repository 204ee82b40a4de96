"""A club night end to end (issue 42, item 8), as a club runs it: real processes, real
Chromium, PostgreSQL. The club server on PostgreSQL; a table registered; the two-camera
club sample refereed by ``referee serve --footage`` sending its game to the club; on the
table's dashboard every piece drawn, a tap answered with the threat view, a move
corrected on the map and seen in ``referee log export``; on the club's page, that table,
its game's timeline and the correction.

The short night (the README's test command) corrects the first move while the sample
plays; the long one (``slow``, run by ``.ci/run``) then lets the whole pass play on and
checks the club holds every event of it, in order, as the table's log does."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web.browser import TIMEOUT, chromium, chromium_missing, screen_point

from .processes import REFEREE, ClubProcess, ok

CLUB_SAMPLE = Path(__file__).resolve().parents[2] / "sample_footage" / "club"
PIECES = sorted(
    p["id"] for p in json.loads((CLUB_SAMPLE / "roster.json").read_text())["pieces"]
    if p.get("kind")
)  # fmt: skip
GAME = "club-night"

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


class Table:
    """``referee serve --footage sample_footage/club`` sending to the club, in its own process."""

    def __init__(self, db: Path, club: str, token: str, speed: float) -> None:
        self.db = db
        args = ["serve", "--footage", str(CLUB_SAMPLE), "--port", "0", "--db", str(db)]
        args += ["--game", GAME, "--club", club, "--club-token", token, "--speed", str(speed)]
        self.process = subprocess.Popen(
            [*REFEREE, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        lines: list[str] = []
        assert self.process.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            lines.append(line)
            if line.startswith("press Ctrl-C") or not line:
                break
        found = re.search(r"dashboard: (http://\S+/)", "".join(lines))
        assert found, "".join(lines)
        self.url = found.group(1)

    def export(self) -> list[dict[str, Any]]:
        out = ok("log", "export", GAME, "--db", str(self.db))
        return [json.loads(line) for line in out.splitlines()]

    def stop(self) -> str:
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=30)
        assert self.process.returncode == 0, out
        return out


@pytest.fixture
def night(pg_server, tmp_path) -> Iterator[tuple[ClubProcess, str]]:
    """The club's server on a new PostgreSQL database, with one table registered."""
    url = pg_server.new_database(f"night{os.getpid()}{time.monotonic_ns() % 10**6}")
    token = ok("club", "table", "add", "front-room", "--db", url).strip().splitlines()[-1]
    club = ClubProcess(url).start()
    try:
        yield club, token
    finally:
        club.stop()


def _club_events(club: ClubProcess) -> list[dict[str, Any]]:
    try:
        return list(_get(club.url + f"api/games/{GAME}/events")["events"])
    except OSError:
        return []  # the game not sent yet


def _wait(check: Any, seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def _correct_first_move(page: Any, table: Table) -> dict[str, Any]:
    """Tap the first move's arrow and say it did not happen; the correction as logged."""
    move = _wait(
        lambda: next((e for e in table.export() if e["type"] == "move"), None), 90, "a move"
    )
    page.wait_for_selector(f"#moves .move[data-seq='{move['seq']}']")
    a, b = move["from"], move["to"]
    page.mouse.click(*screen_point(page, (a["x"] + b["x"]) / 2, (a["y"] + b["y"]) / 2))
    page.fill("#correct-why", "knocked by a sleeve at the club")
    page.click("#correct-void")
    page.wait_for_selector("#correct-done")
    fix = _wait(
        lambda: next((e for e in table.export() if e["type"] == "correction"), None),
        30,
        "the correction in the table's log",
    )
    assert fix["supersedes"] == move["seq"] and fix["void"] is True
    assert fix["reason"] == "knocked by a sleeve at the club"
    return dict(fix)


def _play_the_night(
    club: ClubProcess, token: str, tmp_path: Path, speed: float, whole: bool
) -> None:
    table = Table(tmp_path / "table.sqlite", club.url, token, speed)
    try:
        with chromium() as browser:
            context = browser.new_context(viewport={"width": 1280, "height": 860})
            page = context.new_page()
            page.set_default_timeout(TIMEOUT)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(table.url)
            page.wait_for_function(
                f"() => document.querySelectorAll('#pieces .piece').length >= {len(PIECES)}"
            )
            drawn = page.evaluate(
                "() => Array.from(document.querySelectorAll('#pieces .piece'), g => g.dataset.id)"
            )
            assert sorted(drawn) == PIECES
            # A tap: the threat view, one line per piece of the other side, every one answered.
            page.click('.piece[data-id="pz4a"]')
            page.wait_for_selector("#verdict .threats-head")
            enemies = _get(table.url + "api/info")["pieces"]
            side = next(p["side"] for p in enemies if p["id"] == "pz4a")
            others = [p["id"] for p in enemies if p["side"] != side]
            page.wait_for_function(
                f"() => document.querySelectorAll('#threats .threat').length >= {len(others)}"
            )
            fix = _correct_first_move(page, table)
            if whole:
                # The whole pass played on: every move of the sample in the table's log (the
                # dashboard then starts the next pass, a game of its own).
                _wait(
                    lambda: sum(e["type"] == "move" for e in table.export()) >= 16,
                    240,
                    "the pass's 16 moves",
                )
            context.close()
            assert not errors, errors

            held = _wait(
                lambda: [e for e in _club_events(club) if e["type"] == "correction"],
                60,
                "the correction at the club",
            )
            assert held[0]["supersedes"] == fix["supersedes"]
            if whole:
                # The club holds the whole pass, every event in the table's order.
                logged = [(e["seq"], e["type"]) for e in table.export()]
                _wait(
                    lambda: [(e["seq"], e["type"]) for e in _club_events(club)] == logged,
                    60,
                    "the club to hold every event of the pass",
                )

            # The club's page: the table, its game, the timeline with the correction.
            context = browser.new_context(viewport={"width": 1280, "height": 860})
            page = context.new_page()
            page.set_default_timeout(TIMEOUT)
            page.goto(club.url)
            page.wait_for_selector("text=front-room")
            assert GAME in page.inner_text("body")
            page.goto(club.url + f"games/{GAME}")
            page.wait_for_selector("text=knocked by a sleeve at the club")
            text = page.inner_text("body")
            assert "pz8-ww2" in text or "Pz8" in text
            context.close()
    finally:
        table.stop()


def test_a_short_club_night(night, tmp_path):
    club, token = night
    _play_the_night(club, token, tmp_path, speed=3.0, whole=False)


@pytest.mark.slow  # a whole pass of the sample at real time (35 s)
def test_a_whole_club_night(night, tmp_path):
    club, token = night
    _play_the_night(club, token, tmp_path, speed=1.0, whole=True)
