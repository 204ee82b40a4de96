"""Every test's game log goes to its own temporary folder, never the user's data directory."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_game_log(tmp_path_factory, monkeypatch):
    folder = tmp_path_factory.mktemp("data-home")
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    monkeypatch.delenv("REFEREE_DB", raising=False)
