"""The club server: many tables' games in one database (PostgreSQL, or SQLite for a try-out),
a JSON API the tables send their logs to, and a club page (Flask, as Flask's flaskr
tutorial: an app factory and blueprints; no module-level app).

``create_app(store, test_config=None)`` builds the app over a
:class:`~referee.club.store.ClubStore`; ``referee club serve`` hands it to
waitress. Configuration keys: ``MAX_CONTENT_LENGTH`` (request bodies, bytes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

    from referee.club.store import ClubStore


def create_app(store: ClubStore, test_config: Mapping[str, Any] | None = None) -> Flask:
    """The club's app over ``store``; Flask is imported only here, so a table's
    ``referee run --club`` never pays for it."""
    from referee.club.app import create_app as make

    return make(store, test_config)


__all__ = ["create_app"]
