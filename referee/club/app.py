"""The club's Flask app factory (see the package's docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, current_app

from referee.club.batch import MAX_BODY
from referee.club.store import ClubStore


def create_app(store: ClubStore, test_config: Mapping[str, Any] | None = None) -> Flask:
    """The club's app over ``store`` (which the caller opens and closes)."""
    app = Flask(__name__)
    app.config.from_mapping(MAX_CONTENT_LENGTH=MAX_BODY, JSON_SORT_KEYS=False)
    if test_config is not None:
        app.config.from_mapping(test_config)
    app.extensions["referee.club"] = store

    from referee.club import api, pages

    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    return app


def get_store() -> ClubStore:
    store = current_app.extensions["referee.club"]
    assert isinstance(store, ClubStore)
    return store


__all__ = ["create_app", "get_store"]
