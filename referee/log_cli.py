"""``referee log``: list, show, export and replay the games in a game log."""

from __future__ import annotations

import json
import re

import click

from referee.errors import RefereeError
from referee.outputs import output_file, usable_path
from referee.store import GameLog, StoreError, default_db_path, export_text
from referee.validate import shown

DB_HELP = f"Game log file (default: {default_db_path()})."


def _open(db: str | None) -> GameLog:
    if db is not None:
        usable_path(db, "--db")  # "File name too long" is one line naming the option
    return GameLog(db or default_db_path(), readonly=True)


@click.group()
def log() -> None:
    """Read the game log that 'referee run', 'demo' and 'serve' keep.

    The log is an SQLite file in your data directory (see --db's default);
    every game in it has a name and an append-only stream of events.
    """


@log.command("list")
@click.option("--db", metavar="FILE", help=DB_HELP)
def list_games(db: str | None) -> None:
    """Every game in the log: name, start, ruleset, moves and events."""
    with _open(db) as game_log:
        games = game_log.games()
        click.echo(f"{game_log.path}: {len(games)} game(s)")
        for g in games:
            click.echo(
                f"  {g.name:<28} {g.created}  {g.ruleset:<14} {g.moves:>4} moves "
                f"{g.events:>6} events  {g.last_t:8.1f}s"
            )


@log.command()
@click.argument("game")
@click.option("--db", metavar="FILE", help=DB_HELP)
def show(game: str, db: str | None) -> None:
    """GAME's events as a readable timeline (corrected events are marked)."""
    with _open(db) as game_log:
        info = game_log.game(game)
        events = game_log.events(info)
    superseded = {e.supersedes for e in events if e.type == "correction"}
    click.echo(f"game {info.name!r} ({info.ruleset}, started {info.created}, {len(events)} events)")
    for event in events:
        mark = "  (corrected)" if event.seq in superseded else ""
        click.echo(event.describe() + mark)
        for note in event.data.get("notes", []) if event.type == "move" else []:
            click.echo(" " * 18 + str(note))


@log.command()
@click.argument("game")
@click.option("--db", metavar="FILE", help=DB_HELP)
@click.option(
    "--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True
)
@click.option("--out", "-o", metavar="FILE", help="Write here instead of standard output.")
def export(game: str, db: str | None, fmt: str, out: str | None) -> None:
    """GAME's events, one per line (JSONL, the README's export format) or as CSV."""
    if out is not None:
        output_file(out, "--out")
    with _open(db) as game_log:
        events = game_log.events(game_log.game(game))
    text = export_text(events, fmt)
    if out is not None:
        from referee.calibration.profile import write_text_atomic

        write_text_atomic(out, text)
        click.echo(f"{len(events)} events -> {out}", err=True)
    else:
        click.echo(text, nl=False)


def parse_moment(text: str) -> tuple[int | None, float | None]:
    """``--at``: an integer is an event number, ``12.5`` or ``12.5s`` seconds from the start.

    >>> parse_moment("15"), parse_moment("12.5s"), parse_moment("3.0")
    ((15, None), (None, 12.5), (None, 3.0))
    """
    if re.fullmatch(r"\d+", text.strip()):
        return int(text), None
    match = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)\s*s?", text.strip())
    if match is None:
        raise RefereeError(
            f"--at: {text!r} is neither an event number (15) nor seconds (12.5s); "
            "see 'referee log show GAME' for both"
        )
    return None, float(match.group(1))


@log.command()
@click.argument("game")
@click.option("--at", "at", required=True, metavar="SEQ|SECONDS", help="Event number or 12.5s.")
@click.option("--db", metavar="FILE", help=DB_HELP)
@click.option("--out", "-o", metavar="SCENE.json", help="Write the scene file here.")
def replay(game: str, at: str, db: str | None, out: str | None) -> None:
    """GAME's table at one moment, as a scene file 'referee check' answers.

    Pieces stand where they last rested at that moment, terrain is as
    edited by then, and the scene's questions are kept.
    """
    from referee.game import scene_at
    from referee.scene import save_scene

    seq, seconds = parse_moment(at)
    if out is not None:
        output_file(out, "--out")
    with _open(db) as game_log:
        info = game_log.game(game)
        if seq is not None and not 0 <= seq <= info.last_seq:
            raise RefereeError(f"--at: game {game!r} has events 1 to {info.last_seq}, not {seq}")
        try:
            scene, last = scene_at(game_log, info, seq=seq, t=seconds)
        except StoreError:
            raise
        except (ValueError, KeyError, TypeError) as error:
            # Rows that read as JSON yet say nothing the rules know: the log is damaged.
            raise StoreError(
                f"{game_log.path}: game {game!r}: its logged scene or events cannot be replayed "
                f"({shown(str(error), 160)}); the game log is damaged: restore it from a backup"
            ) from None
    where = f"after event #{last.seq} at {last.t:.2f}s" if last else "before the first event"
    if out is not None:
        save_scene(scene, out)
        click.echo(f"{game} {where} -> {out}", err=True)
    else:
        click.echo(json.dumps(scene.to_json(), indent=1))
        click.echo(f"({game} {where})", err=True)


@log.command()
@click.option("--db", metavar="FILE", help=DB_HELP)
def upgrade(db: str | None) -> None:
    """Bring a game log written by an older table referee up to this version's schema.

    Its games and events are kept as they are; a log already up to date is not changed.
    """
    from pathlib import Path

    from referee.store import SCHEMA_VERSION

    path = Path(db) if db else default_db_path()
    if not (path.is_file() and path.stat().st_size > 0):  # a writer would create one
        raise RefereeError(f"{path}: no game log here; nothing to upgrade")
    with GameLog(path) as game_log:
        before = game_log.upgrade()
    if before < SCHEMA_VERSION:
        click.echo(f"{game_log.path}: upgraded from log schema {before} to {SCHEMA_VERSION}")
    else:
        click.echo(f"{game_log.path}: already at log schema {SCHEMA_VERSION}; nothing to do")
