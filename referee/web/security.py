"""Who may use an exposed dashboard: the access token, the same-origin rule, body limits.

On 127.0.0.1 only this computer reaches the server, so no token is asked
for; a request that changes anything must still not come from another web
site (a page elsewhere could otherwise post to localhost), so a foreign
``Origin`` is refused. With ``--host`` the server is reachable from the
network and ``TOKEN`` is set: every request needs it (query ``token``,
header ``X-Referee-Token`` or the cookie set on the first visit), and a
request that changes anything needs an ``Origin`` header naming this very
server.
"""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, jsonify, request

COOKIE = "referee_token"
HEADER = "X-Referee-Token"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def _refuse(status: int, message: str) -> Response:
    response = jsonify({"error": message})
    response.status_code = status
    return response


def _same_origin(origin: str) -> bool:
    try:
        parts = urlsplit(origin)
    except ValueError:  # "http://[": not a URL at all, so not this server
        return False
    return bool(parts.scheme in ("http", "https") and parts.netloc == request.host)


def _token_matches(given: str, token: str) -> bool:
    """Constant-time compare of text from a header, query or cookie: any characters (the
    compare takes ASCII text only, so both sides go as UTF-8 bytes)."""
    return hmac.compare_digest(
        given.encode("utf-8", "surrogateescape"), token.encode("utf-8", "surrogateescape")
    )


def check_request() -> Response | None:
    token = current_app.config.get("TOKEN")
    origin = request.headers.get("Origin")
    if token:
        given = (
            request.headers.get(HEADER) or request.args.get("token") or request.cookies.get(COOKIE)
        )
        if not given or not _token_matches(str(given), str(token)):
            return _refuse(
                401, "this dashboard needs its access token: open the URL 'referee serve' printed"
            )
        if request.method not in SAFE_METHODS and (origin is None or not _same_origin(origin)):
            return _refuse(403, "a request that changes the game must come from this dashboard")
    elif request.method not in SAFE_METHODS and origin is not None and not _same_origin(origin):
        return _refuse(403, "a request that changes the game must come from this dashboard")
    return None


def remember_token(response: Response) -> Response:
    """A visit with ``?token=`` leaves a cookie, so the page's own requests carry the token."""
    token = current_app.config.get("TOKEN")
    if token and request.args.get("token") == token and request.cookies.get(COOKIE) != token:
        response.set_cookie(COOKIE, token, httponly=True, samesite="Strict")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response


def init_app(app: Flask) -> None:
    app.before_request(check_request)
    app.after_request(remember_token)

    @app.errorhandler(413)
    def too_large(error: object) -> Response:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        return _refuse(413, f"request body too large (at most {limit} bytes)")
