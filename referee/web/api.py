"""The dashboard's JSON API (``/api/...``); the page uses nothing else.

Every error is a JSON object ``{"error": "one line"}`` with HTTP 400 for bad
input (naming the field and what to do), 404 for something that is not
there, 409 when the game is not logged. The README lists the endpoints.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np
from flask import Blueprint, Flask, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from referee.errors import RefereeError, at, parse_json
from referee.events import finite_json
from referee.game import Session, scene_at
from referee.game.projector import NO_FIT, ProjectorFits, calibrate, pattern_png, projector_json
from referee.game.status import map_doubt_now, piece_ranges, roster_pieces, table_health
from referee.geometry import Pose
from referee.picture import PALETTE, RINGS, draw, side_colours, to_png, to_svg
from referee.rules import QueryError
from referee.scene import Scene
from referee.store import EVIDENCE_KINDS, EvidenceError, export_text
from referee.validate import shown
from referee.web.db import get_live, get_reader
from referee.web.selection import get_selection

bp = Blueprint("api", __name__, url_prefix="/api")

TERRAIN_KINDS = ("woods", "building", "hill", "river", "road", "bridge", "objective")
"""Kinds the terrain editor offers (any scene-file kind is accepted through the API)."""


RETRY_AFTER = 5
"""Seconds a browser is told to wait when every event-stream place is taken."""


class BadRequest(RefereeError):
    """Input the API cannot use; answered with HTTP 400 and the message."""


@bp.errorhandler(RefereeError)
def _bad_input(error: RefereeError) -> tuple[Response, int]:
    return jsonify({"error": str(error).splitlines()[0]}), 400


def _api_errors(error: HTTPException) -> Response | HTTPException:
    """Routing errors under /api as one-line JSON too (the blueprint never sees them)."""
    if not request.path.startswith(bp.url_prefix or "/api"):
        return error
    if error.code == 404:
        message = f"no such endpoint: {request.path} (see the README's API list)"
    elif error.code == 405:
        message = f"{request.method} is not allowed on {request.path}"
    else:
        message = error.description or str(error)
    response = jsonify({"error": message})
    response.status_code = error.code or 500
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.register_error_handler(404, _api_errors)
    app.register_error_handler(405, _api_errors)


def _body() -> dict[str, Any]:
    """The request's JSON object; anything else is a one-line 400.

    Parsed by :func:`~referee.errors.parse_json`, not werkzeug's ``get_json``: a body nested
    deeper than :data:`~referee.errors.MAX_DEPTH` is refused before the parser (whose
    RecursionError ``get_json(silent=True)`` lets through as a 500) or any answer walks it."""
    send = "send one JSON object (Content-Type: application/json)"
    raw = request.get_data(cache=True) if request.content_length else b""
    data = parse_json(raw, "body", BadRequest, send) if raw.strip() else None
    if not isinstance(data, dict):
        raise BadRequest(f"body: {send}")
    return data


def _json(data: Any, status: int = 200) -> Response:
    response = current_app.response_class(
        json.dumps(finite_json(data), allow_nan=False), status=status, mimetype="application/json"
    )
    return response


# -- the table ---------------------------------------------------------------------------------


@bp.get("/info")
def info() -> Response:
    """What the page needs once: ruleset, questions, pieces, colours, table, ranges."""
    live = get_live()
    session = live.session
    pieces = roster_pieces(session.roster, session.initial_scene)
    colours = side_colours(p.side for p in pieces)
    table = session.initial_scene.table
    return _json(
        {
            "game": live.game_name,
            "generation": live.generation,
            "ruleset": {
                "name": session.ruleset.name,
                "title": session.ruleset.title or session.ruleset.name,
                "questions": list(session.ruleset.questions()),
            },
            "table": {"width": table.width, "depth": table.depth},
            "grid": session.ruleset.grid_json(table),
            "pieces": [
                {
                    "id": p.id,
                    "side": p.side,
                    "kind": p.kind,
                    "base": list(p.base),
                    "name": p.name,
                    "colour": colours[p.side],
                    "ranges": piece_ranges(session.ruleset, p),
                }
                for p in pieces
            ],
            "sides": colours,
            "palette": PALETTE,
            "rings": list(RINGS),
            "terrain_kinds": list(TERRAIN_KINDS),
            "logged": live.log is not None,
            "source": live.footage.name if live.footage is not None else None,
            "cameras": [
                {"camera": k + 1, "name": name} for k, name in enumerate(live.camera_names)
            ],
            # a camera or stream (True) or a recording that can end (False)
            "live_source": live.footage is not None and live.footage.live,
        }
    )


@bp.get("/state")
def state() -> Response:
    """The table now as a scene file: ``referee check`` answers it as it stands. A terrain
    template whose tags are all covered now carries ``"hidden": true`` (it stays where it
    was last seen; a scene file reader ignores the key), and ``casualties`` lists the
    pieces removed from the table."""
    session = get_live().session
    scene = session.state().to_json()
    hidden = session.hidden_terrain
    for terrain in scene["terrain"]:
        if terrain["id"] in hidden:
            terrain["hidden"] = True
    # The pieces taken off the table (casualties), which the map lists: each one's removal
    # event, where it was lifted from and why (a scene file reader ignores the key).
    scene["casualties"] = [
        {
            "id": e.data.get("piece"),
            "seq": e.seq,
            "t": round(e.t, 3),
            "at": e.data.get("at"),
            "reason": e.data.get("reason"),
            "edge": e.data.get("edge"),
        }
        for e in session.casualties()
    ]
    return _json(scene)


def _query(table: Scene, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """One question checked exactly as a scene file's ``queries`` entry is, on ``table``
    (the session's :meth:`~referee.game.Session.state` taken once for the request)."""
    scene = table.to_json()
    scene["queries"] = [dict(data)]
    return Scene.from_json(scene, "request").queries[0]


class _Absent(Exception):
    """A question naming roster pieces that are not on the table this instant."""

    def __init__(self, ids: list[str]) -> None:
        super().__init__(ids)
        self.ids = ids


@bp.errorhandler(_Absent)
def _not_on_table(error: _Absent) -> tuple[Response, int]:
    verb = "is" if len(error.ids) == 1 else "are"
    message = f"{', '.join(error.ids)} {verb} not on the table now"
    return jsonify({"error": message, "absent": error.ids}), 409


def _absent(session: Session, table: Scene, data: Mapping[str, Any]) -> list[str]:
    """The roster pieces a question names (any of its values, the items of its lists, the
    keys and values of its objects: one level down) that are not on ``table``."""
    roster = {entry.id for entry in session.roster}
    placed = {p.id for p in table}
    named: list[str] = []
    for key, value in data.items():
        if key == "ask":
            continue
        items = value if isinstance(value, list) else [value]
        if isinstance(value, dict):
            items = [*value.keys(), *value.values()]
        named.extend(v for v in items if isinstance(v, str) and v in roster and v not in placed)
    return list(dict.fromkeys(named))


@contextmanager
def _on_the_table(session: Session, table: Scene, data: Mapping[str, Any]) -> Iterator[None]:
    """A question refused while it names roster pieces that are not on the table this
    instant (the sample starting a new pass, a piece not yet seen) is answered as that
    (409, the pieces in ``absent``), not as an unknown piece: the player asked nothing wrong.
    ``table`` is the one the question was checked on (the frame thread places pieces
    meanwhile: judged on a later table, a piece absent then would be neither).
    A question the table answers is answered whatever else it names, and one refused over
    an id the roster does not have either stays that error (the refusal quotes the id)."""
    try:
        yield
    except RefereeError as error:
        absent = _absent(session, table, data)
        if any(repr(pid) in str(error) for pid in absent):
            raise _Absent(absent) from None
        raise


@bp.post("/ask")
def ask() -> Response:
    """Answer one question on the live table (logged); ``{"verdicts": [...]}`` like check --json.

    ``?log=0`` answers without logging: the threat view asks ``targets`` again each time
    a piece settles, which is a view kept up to date, not a dispute settled."""
    logged = _log_arg()
    with_evidence = _flag_arg("evidence")
    data = _body()
    session = get_live().session  # one game for the whole question, whatever pass begins
    table = session.state()
    with _on_the_table(session, table, data):
        query = _query(table, data)
        try:
            if logged:
                verdict, seq = session.asked(query)
            else:
                verdict, seq = session.ruleset.answer(table, query), None
        except QueryError as error:
            raise BadRequest(at("request", f"$.queries[0]{error.path}", error.problem)) from None
    answer: dict[str, Any] = {"verdicts": [verdict.to_json()]}
    if with_evidence:  # asked for by the Dispute pane; the answer is check --json's otherwise
        answer["evidence"] = _evidence_of(seq)
    return _json(answer)


def _flag_arg(name: str) -> bool:
    """``?NAME=1`` (or ``0``, the default)."""
    raw = request.args.get(name, "0")
    if raw not in ("0", "1"):
        shown_raw = repr(raw[:20]) + ("..." if len(raw) > 20 else "")
        raise BadRequest(f"{name}: must be 0 or 1, got {shown_raw}")
    return raw == "1"


def _evidence_of(seq: int | None) -> list[dict[str, Any]]:
    """The pictures logged with event ``seq``, as the Dispute pane shows them."""
    reader = get_reader() if seq is not None else None
    name = get_live().game_name
    if seq is None or reader is None or name is None:
        return []
    kept = reader.evidence_index(reader.game(name), seq).get(seq, [])
    return [{"seq": seq, "kind": kind, "bytes": size} for kind, size in kept]


@bp.get("/evidence/<int:seq>/<kind>.jpg")
def evidence(seq: int, kind: str) -> Response:
    """What the camera saw when event ``seq``'s verdict was logged: ``camera`` (the frame
    around its pieces) or ``top`` (that region from straight above). 404 when none."""
    if kind not in EVIDENCE_KINDS:
        return _json({"error": f"no evidence kind {shown(kind, 20)}: camera or top"}, 404)
    reader, game = _logged_game()
    try:
        data = reader.evidence(game, seq, kind)
    except EvidenceError as error:
        return _json({"error": str(error)}, 404)
    if data is None:
        return _json({"error": f"event #{seq} of game {game.name!r} has no {kind} evidence"}, 404)
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "private, max-age=3600"  # a logged picture never changes
    return response


@bp.post("/declare")
def declare() -> Response:
    """Cards, dice, a Follow Me or an allowance: kept for the next moves, logged."""
    data = _body()
    session = get_live().session
    table = session.state()
    with _on_the_table(session, table, data):
        query = _query(table, data)
        try:  # refuse a malformed declaration before it is logged as "cannot judge"
            session.ruleset.answer(table, query)
        except QueryError as error:
            raise BadRequest(at("request", f"$.queries[0]{error.path}", error.problem)) from None
        update = session.declare(query)
    return _json(
        {
            "events": [e.to_json() for e in update.events],
            # the logged verdicts keep every detail (initiative order, dice needed...)
            "verdicts": [e.data["verdict"] for e in update.events if e.type == "verdict"],
        }
    )


@bp.post("/terrain")
def terrain() -> Response:
    """``{"action": "add"|"replace", "terrain": {...}}`` or ``{"action": "remove", "id": ...}``."""
    body = _body()
    action = body.get("action")
    if action not in ("add", "replace", "remove"):
        raise BadRequest(f"action: must be add, replace or remove, got {action!r}")
    if action == "remove":
        target = body.get("id")
        if not isinstance(target, str):
            raise BadRequest("id: name the terrain to remove")
        update = get_live().session.edit_terrain("remove", target)
    else:
        raw = body.get("terrain")
        if not isinstance(raw, dict):
            raise BadRequest("terrain: send the terrain object, as in a scene file")
        update = get_live().session.edit_terrain(action, raw)
    return _json(
        {
            "events": [e.to_json() for e in update.events],
            "terrain": [t.to_json() for t in get_live().session.scene.terrain],
        }
    )


CORRECTION_KEYS = ("seq", "void", "to", "why")


@bp.post("/correct")
def correct() -> Response:
    """A move the camera got wrong: ``{"seq": N, "void": true, "why": ...}`` or
    ``{"seq": N, "to": {"x", "y", "heading"}, "why": ...}``; logged with the verdicts
    asked again (nothing is written when the request is refused)."""
    body = _body()
    unknown = sorted(set(body) - set(CORRECTION_KEYS))
    if unknown:
        raise BadRequest(f"{unknown[0][:40]}: not a field of a correction (seq, void, to, why)")
    seq = body.get("seq")
    if type(seq) is not int or not 1 <= seq <= 2**53:
        raise BadRequest("seq: the event number of the move (a whole number from 1)")
    void = body.get("void", False)
    if void is not True and void is not False:
        raise BadRequest("void: true for a move that did not happen")
    why = body.get("why")
    if not isinstance(why, str):
        raise BadRequest("why: say in words why the camera was wrong")
    raw = body.get("to")
    to = None
    if raw is not None:
        if not isinstance(raw, dict) or set(raw) != {"x", "y", "heading"}:
            raise BadRequest('to: {"x": inches, "y": inches, "heading": degrees}')
        values = [raw["x"], raw["y"], raw["heading"]]
        if not all(type(v) in (int, float) and np.isfinite(v) for v in values):
            raise BadRequest("to: x, y and heading must be finite numbers")
        to = Pose(float(values[0]), float(values[1]), float(values[2]) % 360.0)
    session = get_live().session
    event = session.correct(seq, why, void=void, to=to, dashes="")
    events, _ = get_live().events_since(0)
    made = [e for e in events if e.seq == event.seq or e.data.get("about") == event.seq]
    return _json({"events": [e.to_json() for e in made or [event]]})


@bp.post("/picture")
def picture() -> Response:
    """A PNG (or ``?format=svg``) of the table with these questions answered on it (not logged)."""
    body = _body()
    raw = body.get("queries", [])
    if not isinstance(raw, list) or not all(isinstance(q, dict) for q in raw):
        raise BadRequest("queries: send a list of questions, as in a scene file")
    session = get_live().session
    scene = session.state().to_json()
    scene["queries"] = raw
    checked = Scene.from_json(scene, "request")
    verdicts = [v.to_json() for v in session.ruleset.answer_all(checked, "request")]
    selected = body.get("selected")
    table = session.scene
    ranges: list[float] = []
    if isinstance(selected, str) and selected in table:
        ranges = list(piece_ranges(session.ruleset, table.piece(selected)).values())
    drawing = draw(
        table, verdicts, selected=selected if isinstance(selected, str) else None, ranges=ranges
    )
    if request.args.get("format") == "svg":
        return Response(to_svg(drawing), mimetype="image/svg+xml")
    return Response(to_png(drawing), mimetype="image/png")


def _table_arg(name: str, limit: float) -> float:
    raw = request.args.get(name, "")
    try:
        value = float(raw)
    except ValueError:
        raise BadRequest(f"{name}: must be inches on the table, got {raw!r}") from None
    if not 0 <= value <= limit:  # also refuses nan
        raise BadRequest(f"{name}: must be on the table, 0 to {limit:g} inches, got {raw!r}")
    return value


@bp.get("/doubt")
def doubt() -> Response:
    """How far a point the map shows may be from that point on the cloth, in inches (two
    sigma, as a piece's position): ``table`` (the largest on the table), ``grid`` (every
    ``step`` inches, rows by y, null where the camera does not see) and, for ``?x=&y=``,
    ``at`` that point. The dashboard's ruler adds it up along its tape."""
    live = get_live()
    table = live.session.initial_scene.table
    given = [name for name in ("x", "y") if name in request.args]
    if len(given) == 1:
        raise BadRequest("give both x and y (inches on the table), or neither")
    point = (_table_arg("x", table.width), _table_arg("y", table.depth)) if given else None
    return _json(map_doubt_now(live, point).to_json())


# -- live view ---------------------------------------------------------------------------------


@bp.get("/live")
def live_frame() -> Response:
    """The newest frame's pieces (table inches) and tags (pixels), as the stream sends them."""
    message = get_live().frame_message()
    if message is None:
        return _json({"error": "no frame yet: the camera has not delivered one"}, 503)
    return _json(message)


def _image(data: bytes | None, frame: int | None = None) -> Response:
    if data is None:
        return _json({"error": "no frame yet: the camera has not delivered one"}, 503)
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    if frame is not None:
        response.headers["X-Frame"] = str(frame)
    return response


@bp.get("/camera.jpg")
def camera_image() -> Response:
    """A recent camera image (960 px wide, at most 8 new ones a second); its frame number is
    in the ``X-Frame`` header, so the page outlines that frame's tags on it. ``?camera=N``
    (from 1, default 1) picks a camera when there are several."""
    live = get_live()
    found = live.camera_jpeg(_camera_arg(len(live.camera_names)) - 1)
    return _image(*found[::-1]) if found is not None else _image(None)


def _camera_arg(count: int) -> int:
    """``?camera=N``: a camera number from 1 to ``count``."""
    number = _int_arg("camera", 1)
    assert number is not None
    if not 1 <= number <= count:
        some = "one camera (1)" if count == 1 else f"{count} cameras (1 to {count})"
        raise BadRequest(f"camera: no camera {number}; this table has {some}")
    return number


@bp.get("/table.jpg")
def table_image() -> Response:
    """The newest camera image warped onto the table: top-down, 20 pixels per inch."""
    return _image(get_live().top_down_jpeg())


@bp.get("/health")
def health() -> Response:
    """Calibration, frame rate, pieces seen and missing, unknown tags, camera events."""
    answer = table_health(get_live()).to_json()
    # While the maps' loops compile for this machine (serve's first start after
    # installing): answers come from their slower twins meanwhile.
    warm = current_app.config.get("WARM_UP")
    answer["warm_up"] = warm.to_json() if warm else None
    return _json(answer)


# -- the shared selection and the projector ---------------------------------------------------

MAX_ID = 200
"""Longest piece id taken (a roster's ids are short; this bounds the one-line error)."""


@bp.post("/selection")
def select() -> Response:
    """``{"piece": id | null}``: the piece selected on the dashboard, for every screen (the
    projector page follows it from the stream's ``selection`` events)."""
    data = _body()
    unknown = [k for k in data if k != "piece"]
    if unknown or "piece" not in data:
        raise BadRequest('body: send {"piece": "<piece id>"} or {"piece": null}')
    piece = data["piece"]
    if piece is not None and (not isinstance(piece, str) or not 0 < len(piece) <= MAX_ID):
        raise BadRequest(f"piece: must be a piece id (text, 1 to {MAX_ID} characters) or null")
    live = get_live()
    if piece is not None and piece not in {e.id for e in live.session.roster}:
        return _json({"error": f"piece: no piece {piece!r} in the roster"}, 404)
    if get_selection().put(piece):
        live.wake()  # the streams send it now, not at the next frame
    return _json({"piece": piece})


def _projector() -> ProjectorFits:
    fits = current_app.extensions["referee.projector"]
    assert isinstance(fits, ProjectorFits)
    return fits


@bp.get("/projector")
def projector() -> Response:
    """The projector's fit (projector px -> table inches, its error, what it covers), the
    tags' black discs, and ``check_due`` (the camera was bumped since the fit was made);
    404 when no projector is calibrated."""
    live = get_live()
    fit = _projector().get()
    if fit is None:
        return _json({"error": NO_FIT}, 404)
    return _json({**projector_json(live, fit), "check_due": _projector().check_due()})


def _size_args(default: tuple[int, int]) -> tuple[int, int]:
    width, height = _int_arg("width", default[0]), _int_arg("height", default[1])
    assert width is not None and height is not None
    return width, height


@bp.get("/projector/pattern.png")
def projector_pattern_png() -> Response:
    """The calibration pattern (tags at known projector pixels), ``?width=&height=`` pixels
    (default: the fitted projector's, else 1280 x 800)."""
    fit = _projector().get()
    size = _size_args(fit.resolution if fit is not None else (1280, 800))
    response = Response(pattern_png(get_live(), *size), mimetype="image/png")
    response.headers["Cache-Control"] = "no-store"
    return response


def _pattern_size() -> tuple[int, int]:
    """The pattern's ``{"width": W, "height": H}`` from the body (or the query's, else the
    fitted projector's, else 1280 x 800)."""
    data = _body() if request.content_length else {}
    unknown = [k for k in data if k not in ("width", "height")]
    if unknown:
        raise BadRequest(f"{unknown[0]}: unknown field (send width and height, pixels)")
    fit = _projector().get()
    default = fit.resolution if fit is not None else (1280, 800)
    size = dict(zip(("width", "height"), _size_args(default), strict=True))
    for name, given in data.items():
        if not isinstance(given, int) or isinstance(given, bool):
            raise BadRequest(f"{name}: must be a whole number of pixels")
        size[name] = given
    return size["width"], size["height"]


@bp.post("/projector/calibrate")
def projector_calibrate() -> Response:
    """Fit the projector on the newest camera frame, which shows the pattern at
    ``{"width": W, "height": H}``, and keep the fit for this table's pages, saved in the
    camera's profile file when serve read one (``saved`` says where)."""
    width, height = _pattern_size()
    live = get_live()
    fit = calibrate(live, width, height)
    saved = _projector().put(fit)
    return _json({**projector_json(live, fit), "check_due": False, "saved": saved})


@bp.post("/projector/check")
def projector_check() -> Response:
    """Fit again on the newest frame (showing the pattern, as for calibrate) and compare:
    the fit in force is kept when the two land within the tolerance, else replaced (and
    saved). After a camera bump the projector page says a check is due."""
    width, height = _pattern_size()
    live = get_live()
    fits = _projector()
    if fits.get() is None:
        return _json({"error": NO_FIT}, 404)
    checked = fits.check(width, height)
    return _json({**projector_json(live, checked.fit), "check_due": False, **checked.to_json()})


# -- the log -----------------------------------------------------------------------------------


@bp.get("/events")
def events() -> Response:
    """This game's events after ``?after=SEQ`` (all by default), as the JSONL export writes them."""
    after = _int_arg("after", 0) or 0
    live = get_live()
    lines, _ = live.events_since(0)
    return _json(
        {
            "game": live.game_name,
            "last_seq": live.session.last_seq,
            "t": round(live.session.t, 3),
            "events": [e.to_json() for e in lines if e.seq > after],
        }
    )


def _log_arg() -> bool:
    raw = request.args.get("log", "1")
    if raw not in ("0", "1"):
        shown = repr(raw[:20]) + ("..." if len(raw) > 20 else "")  # the line stays one line
        raise BadRequest(f"log: must be 0 (answer only) or 1 (answer and log), got {shown}")
    return raw == "1"


def _int_arg(name: str, default: int | None) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        shown = raw if len(raw) <= 40 else raw[:37] + "..."  # one readable line, whatever sent
        raise BadRequest(f"{name}: must be a whole number, got {shown!r}") from None


def _logged_game() -> tuple[Any, Any]:
    reader = get_reader()
    name = get_live().game_name
    if reader is None or name is None:
        raise _NotLogged()
    return reader, reader.game(name)


class _NotLogged(Exception):
    pass


@bp.errorhandler(_NotLogged)
def _not_logged(error: _NotLogged) -> tuple[Response, int]:
    message = "this game is not logged ('referee serve' without --no-log keeps it)"
    return jsonify({"error": message}), 409


@bp.get("/replay")
def replay() -> Response:
    """The table at event ``?seq=N`` (or ``?t=SECONDS``), rebuilt from the log, as a scene file."""
    seq = _int_arg("seq", None)
    raw_t = request.args.get("t")
    t: float | None = None
    if raw_t is not None:
        try:
            t = float(raw_t)
        except ValueError:
            raise BadRequest(f"t: must be seconds, got {raw_t!r}") from None
    if (seq is None) == (t is None):
        raise BadRequest("give one of seq=EVENT or t=SECONDS")
    reader, game = _logged_game()
    if seq is not None and not 0 <= seq <= game.last_seq:
        raise BadRequest(f"seq: game {game.name!r} has events 1 to {game.last_seq}, not {seq}")
    scene, last = scene_at(reader, game, seq=seq, t=t)
    return _json({"scene": scene.to_json(), "event": last.to_json() if last else None})


@bp.get("/export")
def export() -> Response:
    """This game's events as a file: ``?format=jsonl`` (default) or ``csv``."""
    fmt = request.args.get("format", "jsonl")
    if fmt not in ("jsonl", "csv"):
        raise BadRequest(f"format: jsonl or csv, not {fmt!r}")
    reader, game = _logged_game()
    text = export_text(reader.events(game), fmt, reader.evidence_index(game))
    mimetype = "text/csv" if fmt == "csv" else "application/x-ndjson"
    response = Response(text, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{game.name}.{fmt}"'
    return response


# -- the stream --------------------------------------------------------------------------------


def _sse(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class StreamSlots:
    """At most ``limit`` open event streams: each holds a server thread for as long as it
    lasts, so the streams must leave threads for the page's requests (DESIGN.md, "Threads")."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self.open = 0

    def take(self) -> Callable[[], None] | None:
        """A place for one stream and the call that gives it back (idempotent), or None."""
        with self._lock:
            if self.open >= self.limit:
                return None
            self.open += 1
        given_back = False

        def release() -> None:
            nonlocal given_back
            with self._lock:
                if not given_back:
                    given_back = True
                    self.open -= 1

        return release


def stream_slots() -> StreamSlots:
    slots = current_app.extensions.get("referee.streams")
    if slots is None:  # one per app, made on first use
        slots = current_app.extensions.setdefault(
            "referee.streams", StreamSlots(int(current_app.config["SSE_MAX_STREAMS"]))
        )
    assert isinstance(slots, StreamSlots)
    return slots


@bp.get("/stream")
def stream() -> Response:
    """Server-Sent Events: ``hello`` (on connect and when a new game starts), ``selection``
    (on connect and when the shared selection changes), ``events`` (new game events) and
    ``frame`` (the newest frame's pieces and tags, at most
    ``SSE_FRAME_RATE`` a second, skipping frames a slow browser could not take).

    A stream ends after ``SSE_MAX_AGE`` seconds (the browser reconnects at once and is
    greeted with ``hello`` again); beyond ``SSE_MAX_STREAMS`` open streams the answer is
    503 with ``Retry-After``, so browsers never take every server thread."""
    live = get_live()
    keepalive = float(current_app.config["SSE_KEEPALIVE"])
    interval = 1.0 / float(current_app.config["SSE_FRAME_RATE"])
    max_age = float(current_app.config["SSE_MAX_AGE"])
    release = stream_slots().take()
    if release is None:
        busy = _json({"error": "too many open event streams; try again in a few seconds"}, 503)
        busy.headers["Retry-After"] = str(RETRY_AFTER)
        return busy
    ends = time.monotonic() + max_age
    selection = get_selection()

    def generate() -> Iterator[str]:
        generation = -1
        chosen = -1
        index = 0
        version = -1
        last_frame: Any = None
        sent = 0.0
        try:
            yield "retry: 1000\n\n"
            while True:
                if live.generation != generation:
                    generation = live.generation
                    _, index = live.events_since(0)
                    yield _sse(
                        "hello",
                        {
                            "game": live.game_name,
                            "generation": generation,
                            "seq": live.session.last_seq,
                        },
                    )
                changed, piece = selection.get()
                if changed != chosen:
                    chosen = changed
                    yield _sse("selection", {"piece": piece})
                fresh, index = live.events_since(index)
                if fresh:
                    yield _sse("events", [e.to_json() for e in fresh])
                frame = live.frame_text()
                if frame is not None and frame is not last_frame:
                    wait = sent + interval - time.monotonic()
                    if wait > 0:  # a faster pipeline than a screen needs: send the newest later
                        time.sleep(wait)
                        frame = live.frame_text() or frame
                    last_frame = frame
                    sent = time.monotonic()
                    yield f"event: frame\ndata: {frame}\n\n"
                left = ends - time.monotonic()
                if live.stopped or left <= 0:
                    return
                new = live.wait(version, min(keepalive, left))
                if new == version:
                    yield ": keepalive\n\n"
                version = new
        finally:
            release()

    response = Response(generate(), mimetype="text/event-stream")
    response.call_on_close(release)  # also when the generator never started
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


__all__ = ["bp"]
