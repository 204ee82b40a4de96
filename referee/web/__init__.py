"""The dashboard: a Flask app (factory + blueprints, as Flask's flaskr tutorial) over a live table.

``create_app(live, test_config=None)`` builds the app over a ready live
table (:class:`referee.game.LiveTable`: session, frame thread, what browsers
wait on), reached with :func:`get_live`; the game log's read side with
:func:`get_reader`. There is no module-level app: ``referee serve`` builds
the live table and the app and hands the app to waitress.

Configuration keys: ``TOKEN`` (when set, every request needs it: the
``token`` query parameter once, after which a cookie carries it, or the
``X-Referee-Token`` header; requests that change anything also need an
``Origin`` header naming this server), ``MAX_CONTENT_LENGTH`` (request
bodies, bytes), ``SSE_KEEPALIVE`` (seconds between keep-alive comments on
an idle event stream), ``SSE_FRAME_RATE`` (most frame messages a second to one
browser: a pipeline faster than a screen needs costs no more than that),
``SSE_MAX_STREAMS`` (open streams at once; more get 503 with ``Retry-After``) and
``SSE_MAX_AGE`` (seconds before a stream ends and the browser reconnects) and
``PROJECTOR_PROFILE`` (the profile file a calibrated projector's fit is saved in, so the
next start has it; None: kept in memory).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask

from referee.game import LiveTable
from referee.game.projector import ProjectorFits
from referee.web.db import EXTENSION, close_reader, get_live, get_reader
from referee.web.selection import EXTENSION as SELECTION
from referee.web.selection import Selection

PROJECTOR = "referee.projector"

MAX_BODY = 64 * 1024
"""Largest request body accepted, bytes (a terrain polygon or a question is far smaller)."""
MAX_STREAMS = 32
"""Open event streams (one per browser tab) served at once; 'referee serve' runs more
server threads than this, so requests always find one."""


def create_app(live: LiveTable, test_config: Mapping[str, Any] | None = None) -> Flask:
    """The dashboard app over ``live`` (started or not: the app only reads and waits on it)."""
    app = Flask(__name__)
    app.config.from_mapping(
        TOKEN=None,
        MAX_CONTENT_LENGTH=MAX_BODY,
        SSE_KEEPALIVE=15.0,
        SSE_FRAME_RATE=20.0,
        SSE_MAX_STREAMS=MAX_STREAMS,
        SSE_MAX_AGE=300.0,
        PROJECTOR_PROFILE=None,
    )
    if test_config is not None:
        app.config.from_mapping(test_config)
    app.extensions[EXTENSION] = live
    app.extensions[SELECTION] = Selection()
    app.extensions[PROJECTOR] = ProjectorFits(live, app.config["PROJECTOR_PROFILE"])

    from referee.web import api, pages, security

    security.init_app(app)
    app.register_blueprint(pages.bp)
    api.init_app(app)
    app.teardown_appcontext(close_reader)
    return app


__all__ = ["MAX_BODY", "MAX_STREAMS", "create_app", "get_live", "get_reader"]
