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


def standing_of(events: Sequence[GameEvent]) -> dict[str, Any] | None:
    """The last victory verdict among ``events``: points per side, result, winner."""
    for event in reversed(events):
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


def standings(store: ClubStore, games: Sequence[ClubGame]) -> dict[int, dict[str, Any]]:
    """Each game's last victory verdict (games without one are left out), in one query."""
    found = store.events_of(games, ("verdict",), contains='"ask":"victory"')
    return {gid: standing for gid, events in found.items() if (standing := standing_of(events))}


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


def _cards(store: ClubStore, games: Sequence[ClubGame]) -> list[dict[str, Any]]:
    """Each table with its latest game drawn at its latest event (one query for all maps)."""
    import time

    now = time.time()
    current = {g.table: g for g in games}  # oldest first: the last one wins
    shaping = store.shaping_events(list(current.values()))
    cards = []
    for table in store.tables():
        game = current.get(table.name)
        cards.append(
            {
                "table": table,
                "game": game,
                "live": game is not None and now - game.updated < LIVE_SECONDS,
                "board": (
                    board_at(game.scene, game.roster, shaping[game.id])
                    if game is not None
                    else None
                ),
            }
        )
    return cards


@bp.app_template_global()
def colour(side: str) -> str:
    return side_colour(side)


@bp.get("/")
def index() -> str:
    store = get_store()
    games = store.games()
    cards = _cards(store, games)
    if request.args.get("fragment") == "tables":
        return render_template("club_tables.html", cards=cards)
    results = standings(store, games)
    finished = [{"game": g, **results[g.id]} for g in games if g.id in results]
    return render_template("club_index.html", cards=cards, results=finished)


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
        standing=standing_of([e for e in events if e.type == "verdict"]),
    )
