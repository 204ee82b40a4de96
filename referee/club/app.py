"""The club's Flask app factory (see the package's docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from referee.club.api import bp as api_bp
from referee.club.batch import MAX_BODY
from referee.club.db import EXTENSION
from referee.club.pages import bp as pages_bp
from referee.club.store import ClubStore


def create_app(store: ClubStore, test_config: Mapping[str, Any] | None = None) -> Flask:
    """The club's app over ``store`` (which the caller opens and closes)."""
    # No app-wide /static: the pages' blueprint serves its script and the dashboard's modules.
    app = Flask(__name__, static_folder=None)
    app.config.from_mapping(MAX_CONTENT_LENGTH=MAX_BODY, JSON_SORT_KEYS=False)
    if test_config is not None:
        app.config.from_mapping(test_config)
    app.extensions[EXTENSION] = store
    # A game name may begin with "/": werkzeug would redirect its doubled slash away (308)
    # instead of reading the name.
    app.url_map.merge_slashes = False

    app.register_blueprint(api_bp)
    app.register_blueprint(pages_bp)
    # A path no route takes (a game name of only a NUL, say) never reaches a blueprint's
    # handlers: it is the same one line as theirs, JSON under /api, text elsewhere.
    app.register_error_handler(404, _unrouted)
    app.register_error_handler(405, _unrouted)
    return app


def _unrouted(error: HTTPException) -> Response:
    message = f"no such page or endpoint: {request.path[:80]!r}"
    if error.code == 405:
        message = f"{request.method} is not allowed on {request.path[:80]!r}"
    status = error.code or 404
    if request.path.startswith("/api/"):
        answer = jsonify({"error": message})
        answer.status_code = status
        return answer
    return Response(f"{message}\n", status, mimetype="text/plain")


__all__ = ["create_app"]
