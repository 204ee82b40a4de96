"""The club page: every table with its game and a live mini-map, standings, and each game's
timeline, disputes and replay. Server-rendered (Jinja, SVG maps), no build step; in the
browser ``static/club.js`` draws each map again with the dashboard's own colour and drawing
modules (``referee/web/static/js/``, served here read-only) from the values the server drew
it from, and refreshes the front page's table cards in place every few seconds.

Written for the people at the club, in the table's own words: the timeline is
``referee log show``'s (:func:`referee.events.timeline`), the maps use the
dashboard's colours (:data:`referee.picture.PALETTE`, sides coloured as its
``/api/info`` colours them) with every piece labelled and every terrain kind
in its colour with a legend, "live" means the table is sending
(:meth:`ClubGame.live`), and each result says which rule scored it.
"""

from __future__ import annotations

import functools
import json
import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, render_template, request, send_file
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from referee.club.db import get_store
from referee.club.replay import SHAPING, Board, board_at
from referee.club.store import (
    LIVE_SECONDS,
    ClubError,
    ClubGame,
    ClubNotFound,
    ClubStore,
    ClubUnavailable,
)
from referee.events import GameEvent, TimelineEntry, timeline
from referee.picture import PALETTE, side_colours

bp = Blueprint("club_pages", __name__)

UNKNOWN_COLOUR = "#808080"
"""A terrain kind or side the palette does not name (the dashboard's grey)."""


@bp.errorhandler(ClubError)
def _club_error(error: ClubError) -> Response:
    status = (
        503
        if isinstance(error, ClubUnavailable)
        else 404
        if isinstance(error, ClubNotFound)
        else 400
    )
    return Response(f"{error}\n", status, mimetype="text/plain")


@bp.errorhandler(HTTPException)
def _http_error(error: HTTPException) -> Response:
    return Response(
        f"{error.description or error.name}\n", error.code or 500, mimetype="text/plain"
    )


def system_title(ruleset: str) -> str:
    """A ruleset's title as ``referee rulesets`` prints it ("Paper Tigers"), else its name."""
    from referee.rules import find_ruleset_class

    try:
        return find_ruleset_class(ruleset).title or ruleset
    except ValueError:
        return ruleset


def game_colours(game: ClubGame) -> dict[str, str]:
    """Each side's colour as the table's dashboard gives it (``/api/info``): sides in the
    order they first appear among the scene's pieces, then the roster's other pieces."""
    sides: list[str] = []
    scene_ids = set()
    for piece in game.scene.get("pieces", []) or []:
        if isinstance(piece, Mapping):
            scene_ids.add(piece.get("id"))
            sides.append(str(piece.get("side", "")))
    for entry in (game.roster or {}).get("pieces", []) or []:
        if isinstance(entry, Mapping) and "side" in entry and entry.get("id") not in scene_ids:
            sides.append(str(entry.get("side", "")))
    return side_colours(sides)


@dataclass(frozen=True)
class Label:
    """A piece's name on a map, placed where it covers no base and no other label."""

    x: float
    y: float
    text: str


def _box(x: float, y: float, text: str, size: float) -> tuple[float, float, float, float]:
    half = 0.3 * size * len(text)  # a label's text is centred on x, its baseline at y
    return (x - half, y - 0.8 * size, x + half, y + 0.2 * size)


def _overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(board: Board, size: float) -> dict[str, Label]:
    """Each piece's label below its base, else above, right or left of it: the first place
    that covers no base and no label placed before it (the last resort: below)."""
    bases = {
        p.id: (
            p.x - max(p.base) / 2,
            p.y - max(p.base) / 2,
            p.x + max(p.base) / 2,
            p.y + max(p.base) / 2,
        )
        for p in board.pieces
    }
    placed: dict[str, Label] = {}
    taken: list[tuple[float, float, float, float]] = []
    for p in board.pieces:
        r = max(p.base) / 2
        width = 0.6 * size * len(p.id)
        spots = [
            (p.x, p.y + r + 0.9 * size),
            (p.x, p.y - r - 0.3 * size),
            (p.x + r + width / 2 + 0.2 * size, p.y + 0.3 * size),
            (p.x - r - width / 2 - 0.2 * size, p.y + 0.3 * size),
        ]
        chosen = spots[0]
        for x, y in spots:
            box = _box(x, y, p.id, size)
            inside = box[0] >= 0 and box[1] >= 0 and box[2] <= board.width and box[3] <= board.depth
            clear = not any(_overlaps(box, b) for pid, b in bases.items() if pid != p.id)
            if inside and clear and not any(_overlaps(box, t) for t in taken):
                chosen = (x, y)
                break
        taken.append(_box(*chosen, p.id, size))
        placed[p.id] = Label(chosen[0], chosen[1], p.id)
    return placed


CARD_MAP = (370.0, 11.0)
"""A table card's map: about this many pixels wide, its labels this many pixels high."""
GAME_MAP = (860.0, 13.0)
"""A game page's map, likewise."""


def map_view(
    board: Board, colours: Mapping[str, str], shown: tuple[float, float] = CARD_MAP
) -> dict[str, Any]:
    """What a mini-map template draws: the board, colours by side and kind, labels, legend.
    Labels are sized in inches to read at ``shown`` (map width, label height in pixels)."""
    size = max(0.4, shown[1] * board.width / shown[0])
    kinds = list(dict.fromkeys(str(t.get("kind", "")) for t in board.terrain if t.get("polygon")))
    view: dict[str, Any] = {
        "board": board,
        "cloth": PALETTE["cloth"],
        "text": PALETTE["text"],
        "side": {side: colours.get(side, UNKNOWN_COLOUR) for side in colours},
        "terrain": {k: PALETTE["terrain"].get(k, UNKNOWN_COLOUR) for k in kinds},
        "labels": place_labels(board, size),
        "size": size,
        "sides": [s for s in colours if any(p.side == s for p in board.pieces)],
    }
    view["json"] = map_json(view)
    return view


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _polygon(value: Any) -> list[list[float]] | None:
    """A terrain polygon's vertices as ``[[x, y], ...]``, or None if any is not two finite
    numbers."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        return None
    vertices = []
    for p in value:
        if not isinstance(p, Sequence) or isinstance(p, str) or len(p) != 2:
            return None
        if not (_finite(p[0]) and _finite(p[1])):
            return None
        vertices.append([p[0], p[1]])
    return vertices


def map_json(view: Mapping[str, Any]) -> Markup | None:
    """What ``static/club.js`` draws a map from, as JSON safe inside a ``<script>``: the values
    the ``minimap`` template draws (terrain with a polygon, pieces, labels where
    :func:`place_labels` put them, their colours and the palette). None when a number in
    them is not finite or a polygon not a list of points (JSON cannot carry it, the module
    could not draw it): the page then keeps the server's drawing."""
    board: Board = view["board"]
    terrain = []
    for t in board.terrain:
        if not t.get("polygon"):
            continue
        polygon = _polygon(t["polygon"])
        if polygon is None:
            return None
        terrain.append(
            {
                "id": str(t["id"]) if "id" in t else "",
                "kind": str(t.get("kind", "")),
                "polygon": polygon,
            }
        )
    data = {
        "table": {"width": board.width, "depth": board.depth},
        "palette": PALETTE,
        "sides": view["side"],
        "terrain": terrain,
        "pieces": [
            {
                "id": p.id,
                "side": p.side,
                "kind": p.kind,
                "x": p.x,
                "y": p.y,
                "heading": p.heading,
                "base": list(p.base),
            }
            for p in board.pieces
        ],
        "labels": {pid: [label.x, label.y] for pid, label in view["labels"].items()},
        "size": view["size"],
    }
    try:
        return htmlsafe_json_dumps(data, dumps=functools.partial(json.dumps, allow_nan=False))
    except ValueError:  # a NaN or an infinity somewhere in the board
        return None


def _board(store: ClubStore, game: ClubGame, at: int | None = None) -> Board:
    shaping = store.events(game, types=SHAPING)
    return board_at(game.scene, game.roster, shaping, at)


def standing_of(events: Sequence[GameEvent]) -> dict[str, Any] | None:
    """The last victory verdict among ``events``: points per side, result, winner, and how
    the rule scored it (the verdict's reasons)."""
    for event in reversed(events):
        verdict = event.data.get("verdict")
        if isinstance(verdict, Mapping) and verdict.get("ask") == "victory":
            points = verdict.get("points")
            reasons = verdict.get("reasons")
            return {
                "points": dict(points) if isinstance(points, Mapping) else {},
                "result": verdict.get("result"),
                "winner": verdict.get("winner"),
                "reasons": [str(r) for r in reasons] if isinstance(reasons, list) else [],
                "ok": verdict.get("ok"),
                "seq": event.seq,
            }
    return None


def standings(store: ClubStore, games: Sequence[ClubGame]) -> dict[int, dict[str, Any]]:
    """Each game's last victory verdict (games without one are left out), in one query."""
    found = store.events_of(games, ("verdict",), contains='"ask":"victory"')
    return {gid: standing for gid, events in found.items() if (standing := standing_of(events))}


@dataclass(frozen=True)
class Dispute:
    """What players argue about, told as the timeline tells it: a verdict that is not a plain
    yes (its reasons; a correction of its move), or a correction (the verdicts asked again)."""

    entry: TimelineEntry
    reasons: tuple[str, ...] = ()
    corrected_by: int | None = None
    """The correction of the move this verdict judged, when there is one."""
    asked_again: tuple[TimelineEntry, ...] = ()
    """After a correction: the verdicts asked again on the corrected table."""

    @property
    def ok(self) -> bool | None:
        verdict = self.entry.event.data.get("verdict")
        return verdict.get("ok") if isinstance(verdict, Mapping) else None


def disputes(entries: Sequence[TimelineEntry]) -> list[Dispute]:
    """Verdicts that are not a plain yes, and every correction, in the game's order."""
    fixes = {e.event.supersedes: e.event.seq for e in entries if e.event.type == "correction"}
    found = []
    for entry in entries:
        event = entry.event
        if event.type == "correction":
            again = tuple(
                x
                for x in entries
                if x.event.type == "verdict" and x.event.data.get("about") == event.seq
            )
            found.append(Dispute(entry, asked_again=again))
        elif event.type == "verdict":
            verdict = event.data.get("verdict")
            if isinstance(verdict, Mapping) and verdict.get("ok") is not True:
                reasons = verdict.get("reasons")
                found.append(
                    Dispute(
                        entry,
                        tuple(str(r) for r in reasons) if isinstance(reasons, list) else (),
                        fixes.get(event.data.get("about")),
                    )
                )
    return found


def _since(seconds: float) -> str:
    if seconds < 90:
        return f"{max(0, round(seconds))} s ago"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min ago"
    return f"{seconds / 3600:.1f} h ago"


def activity(game: ClubGame, now: float) -> str:
    """The card's word when the game is not live: when it ended, or when it was last heard."""
    if game.ended is not None and game.ended >= game.updated:
        return f"ended {_since(now - game.ended)}"
    return f"last event {_since(now - game.updated)}"


def _cards(store: ClubStore, games: Sequence[ClubGame]) -> list[dict[str, Any]]:
    """Each table with its latest game drawn at its latest event (one query for all maps)."""
    now = time.time()
    current = {g.table: g for g in games}  # oldest first: the last one wins
    shaping = store.shaping_events(list(current.values()))
    cards = []
    for table in store.tables():
        game = current.get(table.name)
        card: dict[str, Any] = {"table": table, "game": game, "live": False}
        if game is not None:
            board = board_at(game.scene, game.roster, shaping[game.id])
            card.update(
                live=game.live(now),
                activity=activity(game, now),
                system=system_title(game.ruleset),
                map=map_view(board, game_colours(game)),
            )
        cards.append(card)
    return cards


CLUB_STATIC = Path(__file__).resolve().parent / "static"
"""The club's own script (``club.js``)."""
SHARED_JS = Path(__file__).resolve().parents[1] / "web" / "static" / "js"
"""The dashboard's ES modules, which ``club.js`` imports: files read and served, never
Python imported (the club does not import the dashboard)."""
_SHARED_NAME = re.compile(r"js/([a-z][a-z0-9_-]*\.js)")


@bp.get("/static/<path:name>")
def static(name: str) -> Response:
    """``club.js``, or one of the dashboard's modules as ``js/NAME.js``, as JavaScript (a
    browser runs a module script of no other type). Any other name, a folder or a ``..``
    among them, is a one-line 404: the name is looked up, never joined to a path."""
    if name == "club.js":
        path = CLUB_STATIC / name
    elif (found := _SHARED_NAME.fullmatch(name)) and found[1] in {
        p.name for p in SHARED_JS.glob("*.js")
    }:
        path = SHARED_JS / found[1]
    else:
        # answered here: the app's own 404 handler would put its general words over these
        return Response(
            f"no such script: {name[:80]!r} (club.js or js/NAME.js)\n", 404, mimetype="text/plain"
        )
    return send_file(path, mimetype="text/javascript", max_age=0)


@bp.app_template_global()
def live_seconds() -> float:
    return LIVE_SECONDS


@bp.get("/")
def index() -> str:
    store = get_store()
    games = store.games()
    cards = _cards(store, games)
    if request.args.get("fragment") == "tables":
        return render_template("club_tables.html", cards=cards)
    results = standings(store, games)
    finished = [
        {"game": g, "system": system_title(g.ruleset), **results[g.id]}
        for g in games
        if g.id in results
    ]
    return render_template("club_index.html", cards=cards, results=finished)


@bp.get("/games/<path:name>")
def game(name: str) -> str:
    store = get_store()
    info = store.game(name)  # a name no game has (a NUL in it too) is a 404
    events = store.events(info)
    at_text = request.args.get("at")
    at = info.last_seq
    if at_text is not None:
        try:
            at = max(0, min(int(at_text), info.last_seq))
        except ValueError:
            abort(400, description=f"?at= must be an event number from 0 to {info.last_seq}")
    entries = timeline(events)
    standing = standing_of([e for e in events if e.type == "verdict"])
    now = time.time()
    return render_template(
        "club_game.html",
        game=info,
        system=system_title(info.ruleset),
        live=info.live(now),
        activity=activity(info, now),
        entries=entries,
        disputes=disputes(entries),
        evidence=store.evidence_index(info),
        map=map_view(_board(store, info, at), game_colours(info), GAME_MAP),
        at=at,
        standing=standing,
    )
