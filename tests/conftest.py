"""Every test's game log goes to its own temporary folder, never the user's data directory."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_game_log(tmp_path_factory, monkeypatch):
    folder = tmp_path_factory.mktemp("data-home")
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    monkeypatch.delenv("REFEREE_DB", raising=False)


@pytest.fixture(scope="session", autouse=True)
def _one_browser_per_process():
    """The browser tests share one Chromium per process (tests/web/browser.py): closed here."""
    yield
    import sys

    for name in ("web.browser", "tests.web.browser"):  # the one a test imported, if any
        if name in sys.modules:
            sys.modules[name].close_shared_browser()
            return


def pytest_configure(config: pytest.Config) -> None:
    """Before the workers start, compile the maps' loops once, in two processes side by
    side (Papercraft's line search in one, every other system's loops in the other), so
    the workers find numba's cache warm instead of each compiling the same loops
    (issue 42: a fresh clone compiled every kernel inside the tests). Seconds when the
    cache is already warm; nothing in a worker or a run without workers."""
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    import subprocess
    import sys

    from referee.rules import ruleset_names

    others = [name for name in ruleset_names() if name != "papercraft"]
    warm = [sys.executable, "-m", "referee.game.warm"]
    processes = [subprocess.Popen([*warm, "papercraft"]), subprocess.Popen([*warm, *others])]
    for process in processes:
        if process.wait() != 0:
            # The loops then compile where first used, as they always could.
            print("tests: warming the compiled loops failed; they compile in the tests")
