"""``referee club``: serve a club, register its tables, push a table's log, export the club.

The club's database is a URL: ``postgresql://USER@HOST:PORT/DATABASE`` for a
club night, ``sqlite:///FILE`` for a try-out on one laptop (the default, in
your data folder).
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import click

from referee.club.store import ClubError, ClubStore
from referee.errors import RefereeError, write_text_atomic
from referee.events import GameEvent
from referee.outputs import output_file, usable_path
from referee.store import default_db_path


def default_club_url() -> str:
    """``sqlite:///`` a ``club.sqlite`` beside the default game log."""
    return f"sqlite:///{default_db_path().with_name('club.sqlite')}"


def db_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--db",
        "db",
        metavar="URL",
        default=None,
        help="Club database: postgresql://USER@HOST:PORT/DB, or sqlite:///FILE "
        f"(default: {default_club_url()}).",
    )(command)


def _open(db: str | None) -> ClubStore:
    return ClubStore(db or default_club_url())


@click.group()
def club() -> None:
    """A club server: many tables' games in one database, a club page, exports.

    Start PostgreSQL, then 'referee club serve --db postgresql://...',
    register each table with 'referee club table add NAME', and give each
    table's 'referee run' the club's URL and the table's token (--club URL
    --club-token TOKEN).
    """


@club.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8780, show_default=True)
def serve(db: str | None, host: str, port: int) -> None:
    """Serve the club page and the tables' JSON API (waitress).

    It listens on 127.0.0.1 (this computer only) unless --host names another
    address (0.0.0.0: every network of this computer), which the tables at a
    club need.
    """
    from waitress.server import create_server

    from referee.club import create_app

    store = _open(db)
    app = create_app(store)
    try:
        server = create_server(app, host=host, port=port, threads=16, channel_timeout=60)
    except OSError as error:
        store.close()
        raise RefereeError(f"--port {port}: cannot listen on {host} ({error.strerror})") from None
    bound = getattr(server, "effective_port", port)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"club: http://{shown}:{bound}/ ({store.where})")
    click.echo("press Ctrl-C to stop", err=True)
    sys.stdout.flush()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        store.close()


@club.group()
def table() -> None:
    """Register, list and remove the club's tables."""


@table.command("add")
@click.argument("name")
@db_option
def table_add(name: str, db: str | None) -> None:
    """Register table NAME; prints its token (last line) for its --club-token."""
    with _open(db) as store:
        token = store.add_table(name)
    click.echo(f"table {name!r} registered; give it this token (shown only now):", err=True)
    click.echo(token)


@table.command("list")
@db_option
def table_list(db: str | None) -> None:
    """Every table: name, registered, games and events."""
    with _open(db) as store:
        tables = store.tables()
    click.echo(f"{len(tables)} table(s)")
    for t in tables:
        click.echo(f"  {t.name:<24} {t.created}  {t.games:>4} games {t.events:>8} events")


@table.command("remove")
@click.argument("name")
@db_option
def table_remove(name: str, db: str | None) -> None:
    """Revoke table NAME's token (its games stay in the club's record)."""
    with _open(db) as store:
        store.remove_table(name)
    click.echo(f"table {name!r} removed; its games are kept")


@club.command()
@click.option("--db", metavar="FILE", help=f"The table's game log (default: {default_db_path()}).")
@click.option("--club", "club_url", metavar="URL", required=True, help="The club server's URL.")
@click.option("--club-token", metavar="TOKEN", required=True, help="This table's token.")
@click.option("--game", "games", metavar="NAME", multiple=True, help="Only this game (repeat).")
@click.option(
    "--wait",
    type=click.FloatRange(0, 3600),
    default=30.0,
    show_default=True,
    help="Seconds to keep trying an unreachable club.",
)
def push(
    db: str | None, club_url: str, club_token: str, games: tuple[str, ...], wait: float
) -> None:
    """Send whatever the table's game log still owes the club, now.

    Exits 0 only when the club has every event of every game sent.
    """
    from referee.club.sender import push as push_log

    if not math.isfinite(wait):  # click's range lets NaN through
        raise RefereeError(f"--wait: {wait} is not a number of seconds (0 to 3600)")
    if db is not None:
        usable_path(db, "--db")  # "File name too long" is one line naming the option
    done = push_log(db or default_db_path(), club_url, club_token, list(games) or None, wait)
    click.echo(f"the club has all {len(done)} game(s)")


EXPORT_COLUMNS = ("table", "game", "seq", "t", "type", "frame", "piece", "supersedes", "summary")


def export_lines(
    rows: Iterable[tuple[str, str, GameEvent, Sequence[tuple[str, int]]]], fmt: str
) -> Iterable[str]:
    """The README's export format with ``table`` and ``game`` on every line (JSONL or CSV);
    each row's last item is its event's pictures ``(kind, bytes)``, listed in JSONL's
    ``evidence`` field as a table's own ``log export`` lists them."""
    if fmt == "jsonl":
        for table_name, game, event, kept in rows:
            line = {"table": table_name, "game": game, **event.to_json()}
            if kept:
                line["evidence"] = [{"kind": kind, "bytes": size} for kind, size in kept]
            yield json.dumps(line, separators=(",", ":"), allow_nan=False) + "\n"
        return
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow((*EXPORT_COLUMNS, "data"))
    for table_name, game, e, _ in rows:
        line = e.to_json()
        data = {k: v for k, v in line.items() if k not in ("seq", "t", "type", "frame")}
        summary = e.describe().split(f"#{e.seq}", 1)[1].strip()
        frame = e.frame if e.frame is not None else ""
        writer.writerow(
            (
                table_name,
                game,
                e.seq,
                line["t"],
                e.type,
                frame,
                e.piece or "",
                e.supersedes or "",
                summary,
                json.dumps(data),
            )
        )
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()


@club.command()
@db_option
@click.option("--table", "table_name", metavar="NAME", help="Only this table's games.")
@click.option("--game", metavar="NAME", help="Only this game.")
@click.option(
    "--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True
)
@click.option("--out", "-o", metavar="FILE", help="Write here instead of standard output.")
def export(
    db: str | None, table_name: str | None, game: str | None, fmt: str, out: str | None
) -> None:
    """Every game's events (or one table's, or one game's), one per line with table and game."""
    if out is not None:
        output_file(out, "--out")  # checked before the database is opened
    with _open(db) as store:
        games = store.games(table_name)
        if (
            table_name is not None
            and not games
            and table_name not in {t.name for t in store.tables()}
        ):
            raise ClubError(f"{store.where}: no table {table_name!r}")
        if game is not None:
            games = [g for g in games if g.name == game]
            if not games:
                where = f" of table {table_name!r}" if table_name else ""
                raise ClubError(f"{store.where}: no game {game!r}{where}")
        rows = (
            (g.table, g.name, e, kept.get(e.seq, ()))
            for g in games
            for kept in (store.evidence_sizes(g),)
            for e in store.iter_events(g)
        )
        if out:
            text = "".join(export_lines(rows, fmt))
            write_text_atomic(out, text)
            click.echo(f"{len(games)} game(s) -> {out}", err=True)
            return
        for chunk in export_lines(rows, fmt):
            click.echo(chunk, nl=False)


__all__ = ["club", "default_club_url", "export_lines"]
