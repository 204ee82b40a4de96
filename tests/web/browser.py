"""Real headless Chromium (Debian's ``chromium``) driven by Playwright, and a dashboard server
running in a thread: shared by the browser tests and ``benchmarks/bench_web.py``."""

from __future__ import annotations

import contextlib
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from referee.game import LiveTable, sample_live
from referee.store import GameLog
from referee.web import create_app
from referee.web.cli import make_server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: ms: generous, a loaded machine is slow and passing tests never wait it.
TIMEOUT = 45_000


def screen_point(page: Any, x: float, y: float) -> tuple[float, float]:
    """Where table point (x, y) inches is on the screen (the map's own transform)."""
    sx, sy = page.evaluate(
        """([x, y]) => { const m = document.getElementById('map');
             const p = m.createSVGPoint(); p.x = x; p.y = y;
             const s = p.matrixTransform(m.getScreenCTM()); return [s.x, s.y]; }""",
        [x, y],
    )
    return float(sx), float(sy)


def open_page(browser: Any, width: int = 1280, height: int = 860, **options: Any) -> Any:
    """A new context and page of that size, and the list the page's script errors go to."""
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors


def chromium_missing() -> str | None:
    """Why browser tests cannot run here, or None when they can."""
    if shutil.which("chromium") is None:
        return "Debian's chromium is not installed (.ci/run installs it: apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    return None


def _shared_state() -> dict[str, Any]:
    """One Chromium per test process: a launch costs about a second of both cores, and
    the default run opened one per module and some per test (issue 42's five minutes).
    The web tests import this module as ``tests.web.browser`` (relatively) and the others
    as ``web.browser``, two module objects in one process: the second takes the first's."""
    for name in ("web.browser", "tests.web.browser"):
        other = sys.modules.get(name)
        if other is not None and isinstance(getattr(other, "_SHARED", None), dict):
            return other._SHARED
    return {}


_SHARED: dict[str, Any] = _shared_state()


def _shared_browser() -> Any:
    browser = _SHARED.get("browser")
    if browser is not None and browser.is_connected():
        return browser
    from playwright.sync_api import sync_playwright

    if "playwright" not in _SHARED:
        _SHARED["playwright"] = sync_playwright().start()
    browser = _SHARED["playwright"].chromium.launch(executable_path=CHROMIUM, args=ARGS)
    _SHARED["browser"] = browser
    return browser


def close_shared_browser() -> None:
    """Close this process's Chromium, if a test launched it (at the end of the session)."""
    browser, playwright = _SHARED.pop("browser", None), _SHARED.pop("playwright", None)
    with contextlib.suppress(Exception):  # a browser that already went is closed enough
        if browser is not None:
            browser.close()
    if playwright is not None:
        playwright.stop()


@contextmanager
def chromium() -> Iterator[Any]:
    """This process's headless Chromium. Each user still starts clean: its pages live in
    contexts of its own (cookies, cache and storage are per context), and the contexts
    opened while it is held are closed after."""
    browser = _shared_browser()
    before = set(browser.contexts)
    try:
        yield browser
    finally:
        for context in browser.contexts:
            if context not in before:
                with contextlib.suppress(Exception):
                    context.close()


@dataclass
class Running:
    url: str
    live: LiveTable
    server: Any
    app: Any

    def drop(self) -> None:
        """The server goes away: listening socket and every open connection closed."""
        for channel in list(self.server.active_channels.values()):
            channel.close()
        self.server.close()

    def restart(self) -> None:
        """A new server on the same port (after :meth:`drop`)."""
        port = self.server.effective_port
        for _ in range(50):  # the old socket may take a moment to let go of the port
            try:
                self.server = _start(self.app, port)
                return
            except OSError:
                time.sleep(0.1)
        self.server = _start(self.app, port)


@contextmanager
def dashboard(live: LiveTable, token: str | None = None) -> Iterator[Running]:
    """The dashboard over ``live`` on a free loopback port, in a thread (live not started)."""
    app = create_app(live, {"TOKEN": token, "SSE_KEEPALIVE": 2.0})
    server = _start(app, 0)
    running = Running(f"http://127.0.0.1:{server.effective_port}/", live, server, app)
    try:
        yield running
    finally:
        running.drop()


def _start(app: Any, port: int) -> Any:
    server = make_server(app, "127.0.0.1", port)

    def run() -> None:
        with contextlib.suppress(OSError):  # its sockets were closed under it by drop()
            server.run()

    threading.Thread(target=run, daemon=True).start()
    return server


@contextmanager
def played_sample(db: Path, game: str) -> Iterator[Running]:
    """The bundled sample played once to its end (as fast as it goes, one pass) behind a
    dashboard, logged in ``db`` as ``game``: the pieces at rest, its moves logged."""
    log = GameLog(db)
    live = sample_live(pace=0, log=log, game=game)
    assert live.footage is not None
    live.footage = replace(live.footage, loop=False)
    try:
        with dashboard(live) as running:
            live.start()
            deadline = time.monotonic() + 120
            while live.running and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not live.running and live.error is None
            yield running
    finally:
        live.stop()
        log.close()
