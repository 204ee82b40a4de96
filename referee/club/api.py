"""The club's JSON API: tables send their games here, the club page reads them.

Writes (registering a game, its events, its end) need the table's token
(``Authorization: Bearer TOKEN``): a missing or wrong one is a 401, another
table's game a 403, a game name another table holds a 409, a malformed or
oversized batch a 400, a batch that would leave a gap a 409 carrying the
club's ``last_seq``, a batch whose event under a seq the club holds differs
from the held one a 409 naming that seq (``differs``); the database down is a
503. In every refused case nothing is written. Reads are open to the club's
network; a name no game can have (a NUL in it) is a 404.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, jsonify, request
from werkzeug.exceptions import HTTPException

from referee.club.batch import BatchError, parse_batch, parse_registration
from referee.club.db import get_store
from referee.club.replay import SHAPING, board_at
from referee.club.store import (
    EVIDENCE_MAX,
    ClubConflict,
    ClubError,
    ClubForbidden,
    ClubMismatch,
    ClubNotFound,
    ClubUnavailable,
)
from referee.errors import RefereeError, parse_json

bp = Blueprint("club_api", __name__, url_prefix="/api")

#: Most events one read returns (the page reads a long game's timeline in pages).
READ_LIMIT = 5000


def _fail(status: int, message: str, **extra: Any) -> Response:
    response = jsonify({"error": message, **extra})
    response.status_code = status
    return response


@bp.errorhandler(HTTPException)
def _http_error(error: HTTPException) -> Response:
    status = error.code or 500
    if status == 413:  # an oversized body is a bad batch like any other
        return _fail(400, f"the request body is larger than {request.max_content_length} bytes")
    return _fail(status, error.description or error.name)


@bp.errorhandler(ClubError)
def _club_error(error: ClubError) -> Response:
    if isinstance(error, ClubUnavailable):
        return _fail(503, str(error))
    if isinstance(error, ClubMismatch):
        # "differs" tells a sender not to resend from last_seq: retrying cannot mend it.
        return _fail(409, str(error), last_seq=error.last_seq, differs=error.seq)
    if isinstance(error, ClubConflict):
        return _fail(409, str(error), last_seq=error.last_seq)
    if isinstance(error, ClubForbidden):
        return _fail(403, str(error))
    if isinstance(error, ClubNotFound):
        return _fail(404, str(error))
    return _fail(400, str(error))


@bp.errorhandler(BatchError)
def _batch_error(error: BatchError) -> Response:
    return _fail(400, str(error))


def _table() -> str:
    """The table whose token the request carries; 401 without a valid one."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        abort(401, description="a table's token is needed: Authorization: Bearer TOKEN")
    table = get_store().table_for_token(token.strip())
    if table is None:
        abort(401, description="unknown token; 'referee club table add NAME' prints one")
    return table


def _body() -> Any:
    """The request's JSON, at most :data:`~referee.errors.MAX_DEPTH` levels deep (refused
    before it is parsed: werkzeug's ``get_json`` lets the parser's RecursionError out as a
    500, and the batch's checks walk what it parsed)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise BatchError("$: the body must be JSON")
    try:
        return parse_json(raw, "$", hint="the body must be JSON")
    except RefereeError as error:
        raise BatchError(str(error)) from None


@bp.get("/health")
def health() -> Response:
    return jsonify({"ok": True, "tables": len(get_store().tables())})


@bp.put("/games/<path:name>")
def register(name: str) -> Response:
    """Register (or look up) this table's game: answers the club's high-water mark."""
    table = _table()
    spec = parse_registration(_body())
    game = get_store().open_game(
        table, name, spec["ruleset"], spec["scene"], spec["roster"], spec["created"]
    )
    return jsonify({"game": game.name, "table": game.table, "last_seq": game.last_seq})


@bp.post("/games/<path:name>/events")
def ingest(name: str) -> Response:
    table = _table()
    events = parse_batch(_body())
    added, last_seq = get_store().ingest(table, name, events)
    return jsonify({"added": added, "last_seq": last_seq})


@bp.put("/games/<path:name>/evidence/<int:seq>/<kind>.jpg")
def put_evidence(name: str, seq: int, kind: str) -> Response:
    """One picture the table kept with event ``seq``'s verdict: the JPEG itself as the body
    (at most :data:`~referee.club.store.EVIDENCE_MAX` bytes), after the event's batch."""
    table = _table()
    length = request.content_length
    if length is not None and length > EVIDENCE_MAX:  # refused before it is read
        raise ClubError(
            f"evidence of #{seq}: {length} bytes; a picture may have {EVIDENCE_MAX} at most"
        )
    get_store().put_evidence(table, name, seq, kind, request.get_data(cache=False))
    return jsonify({"game": name, "seq": seq, "kind": kind})


@bp.get("/games/<path:name>/evidence/<int:seq>/<kind>.jpg")
def evidence(name: str, seq: int, kind: str) -> Response:
    """What the camera saw when event ``seq``'s verdict was ruled: ``camera`` or ``top``."""
    store = get_store()
    info = store.game(name)
    data = store.evidence(info, seq, kind)
    if data is None:
        return _fail(404, f"game {name[:80]!r}: no {kind[:20]!r} evidence of event #{seq}")
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "max-age=86400"  # a kept picture never changes
    return response


@bp.post("/games/<path:name>/end")
def end(name: str) -> Response:
    """The table stopped sending this game (it ended, or the table stopped): not live."""
    table = _table()
    game = get_store().end(table, name)
    return jsonify({"game": game.name, "last_seq": game.last_seq, "live": False})


@bp.get("/tables")
def tables() -> Response:
    store = get_store()
    games = store.games()
    return jsonify(
        {
            "tables": [
                {
                    "name": t.name,
                    "created": t.created,
                    "games": [g.to_json() for g in games if g.table == t.name],
                }
                for t in store.tables()
            ]
        }
    )


@bp.get("/games")
def games() -> Response:
    table = request.args.get("table")
    return jsonify({"games": [g.to_json() for g in get_store().games(table)]})


@bp.get("/games/<path:name>")
def game(name: str) -> Response:
    return jsonify(get_store().game(name).to_json())


def _int_arg(key: str, default: int | None) -> int | None:
    text = request.args.get(key)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        abort(400, description=f"?{key}= must be an integer")
    if value < 0:
        abort(400, description=f"?{key}= must not be negative")
    return value


@bp.get("/games/<path:name>/events")
def events(name: str) -> Response:
    """Events after ``?after=N`` (at most ``?limit=``), in the export format."""
    store = get_store()
    info = store.game(name)
    after = _int_arg("after", 0) or 0
    limit = min(_int_arg("limit", READ_LIMIT) or READ_LIMIT, READ_LIMIT)
    found = store.events(info, after, limit=limit)
    return jsonify(
        {
            "game": info.name,
            "table": info.table,
            "last_seq": info.last_seq,
            "events": [e.to_json() for e in found],
        }
    )


@bp.get("/games/<path:name>/board")
def board(name: str) -> Response:
    """The table at ``?at=SEQ`` (the latest event when absent): pieces and terrain."""
    store = get_store()
    info = store.game(name)
    at = _int_arg("at", None)
    shaping = store.events(info, types=SHAPING)
    return jsonify(board_at(info.scene, info.roster, shaping, at).to_json())
