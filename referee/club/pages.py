"""The club page: every table with its game and a live mini-map, standings, and each game's
timeline, disputes and replay. Server-rendered (Jinja, SVG maps), no build step; the front
page refreshes its table cards in place every few seconds."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from flask import Blueprint, abort, render_template, request

from referee.club.app import get_store
from referee.club.replay import Board, board_at
from referee.club.store import ClubGame, ClubNotFound, ClubStore
from referee.events import GameEvent

bp = Blueprint("club_pages", __name__)

LIVE_SECONDS = 60.0
"""A game that stored an event this recently is shown as live."""

SIDE_COLOURS = ("#c0392b", "#2e6fbf", "#2f8f4e", "#b8860b", "#7d3c98", "#16a085")


def side_colour(side: str) -> str:
    """A stable colour per side name (the same side is the same colour on every map)."""
    digest = hashlib.sha256(side.encode("utf-8", "surrogatepass")).digest()
    return SIDE_COLOURS[digest[0] % len(SIDE_COLOURS)]


def _board(store: ClubStore, game: ClubGame, at: int | None = None) -> Board:
    shaping = store.events(game, types=("move", "edit", "correction"))
    return board_at(game.scene, game.roster, shaping, at)


def standings(store: ClubStore, game: ClubGame) -> dict[str, Any] | None:
    """The game's last victory verdict: points per side, result and winner (None without)."""
    verdicts = store.events(game, types=("verdict",))
    for event in reversed(verdicts):
        verdict = event.data.get("verdict")
        if isinstance(verdict, Mapping) and verdict.get("ask") == "victory":
            points = verdict.get("points")
            return {
                "points": dict(points) if isinstance(points, Mapping) else {},
                "result": verdict.get("result"),
                "winner": verdict.get("winner"),
                "seq": event.seq,
            }
    return None


def disputes(events: Sequence[GameEvent]) -> list[GameEvent]:
    """What players argue about: verdicts that are not a plain yes, and every correction."""
    found = []
    for event in events:
        if event.type == "correction":
            found.append(event)
        elif event.type == "verdict":
            verdict = event.data.get("verdict")
            if isinstance(verdict, Mapping) and verdict.get("ok") is not True:
                found.append(event)
    return found


def _cards(store: ClubStore) -> list[dict[str, Any]]:
    import time

    games = store.games()
    now = time.time()
    cards = []
    for table in store.tables():
        own = [g for g in games if g.table == table.name]
        current = own[-1] if own else None
        cards.append(
            {
                "table": table,
                "game": current,
                "games": len(own),
                "live": current is not None and now - current.updated < LIVE_SECONDS,
                "board": _board(store, current) if current is not None else None,
            }
        )
    return cards


@bp.app_template_global()
def colour(side: str) -> str:
    return side_colour(side)


@bp.get("/")
def index() -> str:
    store = get_store()
    cards = _cards(store)
    if request.args.get("fragment") == "tables":
        return render_template("club_tables.html", cards=cards)
    results = []
    for game in store.games():
        standing = standings(store, game)
        if standing is not None:
            results.append({"game": game, **standing})
    return render_template("club_index.html", cards=cards, results=results)


@bp.get("/games/<path:name>")
def game(name: str) -> str:
    store = get_store()
    try:
        info = store.game(name)
    except ClubNotFound:
        abort(404)
    events = store.events(info)
    at_text = request.args.get("at")
    at = info.last_seq
    if at_text is not None:
        try:
            at = max(0, min(int(at_text), info.last_seq))
        except ValueError:
            abort(400)
    superseded = {e.supersedes for e in events if e.type == "correction"}
    return render_template(
        "club_game.html",
        game=info,
        events=events,
        superseded=superseded,
        disputes=disputes(events),
        board=_board(store, info, at),
        at=at,
        standing=standings(store, info),
    )
