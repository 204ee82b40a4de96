"""Fixtures for the dashboard: a live table on the bundled sample footage, an app and a client.

The live table is stepped in the test's own thread (no frame thread), so every test sees
exactly the frames it asked for: by frame 60 (5 s of the sample) t34a and t34b have moved.
"""

from __future__ import annotations

import pytest

from referee.game import sample_live
from referee.store import GameLog
from referee.web import create_app

FRAMES = 60


@pytest.fixture(scope="module")
def stepped(tmp_path_factory):
    """A logged live table on the sample footage, 60 frames in (shared by a test module)."""
    log = GameLog(tmp_path_factory.mktemp("web") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="web-test")
    assert live.step(FRAMES) == FRAMES
    yield live
    live.stop()
    log.close()


@pytest.fixture
def app(stepped):
    return create_app(stepped, {"TESTING": True})


@pytest.fixture
def client(app):
    return app.test_client()
