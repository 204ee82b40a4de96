"""The live table and the game log's read side for the request being served (as flaskr's
``db.py`` keeps ``get_db``): the blueprints read them from here, the app factory
(:func:`referee.web.create_app`) puts the live table there."""

from __future__ import annotations

from flask import current_app, g

from referee.game import LiveTable
from referee.store import GameLog

EXTENSION = "referee.live"
"""The key of ``app.extensions`` the app factory keeps the live table under."""


def get_live() -> LiveTable:
    """The live table this app shows."""
    live = current_app.extensions[EXTENSION]
    assert isinstance(live, LiveTable)
    return live


def get_reader() -> GameLog | None:
    """A read-only handle on the game log for this request (None when the game is not logged)."""
    if "reader" not in g:
        log = get_live().log
        g.reader = GameLog(log.path, readonly=True) if log is not None else None
    reader = g.reader
    assert reader is None or isinstance(reader, GameLog)
    return reader


def close_reader(error: BaseException | None = None) -> None:
    reader = g.pop("reader", None)
    if reader is not None:
        reader.close()
