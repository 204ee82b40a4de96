"""The club's store for the request being served (as flaskr's ``db.py`` keeps ``get_db``):
the blueprints read it from here, the app factory puts it there."""

from __future__ import annotations

from flask import current_app

from referee.club.store import ClubStore

EXTENSION = "referee.club"
"""The key of ``app.extensions`` the app factory keeps the store under."""


def get_store() -> ClubStore:
    """The store of the app serving this request."""
    store = current_app.extensions[EXTENSION]
    assert isinstance(store, ClubStore)
    return store
