"""``referee log``: list, show, export and replay the games in a game log."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import click

from referee.errors import RefereeError
from referee.events import timeline, timeline_text
from referee.outputs import output_file, usable_path
from referee.store import (
    EVIDENCE_KINDS,
    EvidenceError,
    GameInfo,
    GameLog,
    StoreError,
    default_db_path,
    export_text,
)
from referee.validate import shown

DB_HELP = f"Game log file (default: {default_db_path()})."
PLAYED_HINT = "correct it from that table's dashboard, or stop it first"


def _open(db: str | None) -> GameLog:
    if db is not None:
        usable_path(db, "--db")  # "File name too long" is one line naming the option
    return GameLog(db or default_db_path(), readonly=True)


@click.group()
def log() -> None:
    """Read the game log that 'referee run', 'demo' and 'serve' keep; correct a move.

    The log is an SQLite file in your data directory (see --db's default);
    every game in it has a name and an append-only stream of events (a
    correction is one more event; 'delete' removes a whole game).
    """


@log.command("list")
@click.option("--db", metavar="FILE", help=DB_HELP)
def list_games(db: str | None) -> None:
    """Every game in the log: name, start, ruleset, moves and events."""
    with _open(db) as game_log:
        games = game_log.games()
    click.echo(f"{game_log.path}: {len(games)} game(s)")
    click.echo(list_table(games), nl=False)


def list_table(games: list[GameInfo]) -> str:
    """The games as columns as wide as their longest entry, so long names stay aligned."""
    rows = [
        (g.name, g.created, g.ruleset, f"{g.moves} moves", f"{g.events} events", f"{g.last_t:.1f}s")
        for g in games
    ]
    if not rows:
        return ""
    # A name shown as typed would break the line: control characters are escaped.
    rows = [(shown(r[0], 200) if not r[0].isprintable() else r[0], *r[1:]) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(width) if i >= 3 else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  " + "  ".join(cells).rstrip() + "\n")
    return "".join(lines)


@log.command()
@click.argument("game")
@click.option("--db", metavar="FILE", help=DB_HELP)
@click.option(
    "--evidence",
    "evidence_dir",
    metavar="DIR",
    help="Also write each verdict's pictures here, as SEQ-KIND.jpg (kind: camera or top).",
)
def show(game: str, db: str | None, evidence_dir: str | None) -> None:
    """GAME's events as a readable timeline (corrected events are marked)."""
    folder = _evidence_folder(evidence_dir) if evidence_dir is not None else None
    with _open(db) as game_log:
        info = game_log.game(game)
        events = game_log.events(info)
        click.echo(
            f"game {info.name!r} ({info.ruleset}, started {info.created}, {len(events)} events)"
        )
        for entry in timeline(events):
            for line in entry.lines():
                click.echo(line)
        if folder is not None:
            _write_evidence(game_log, info, folder)


def _evidence_folder(text: str) -> Path:
    """``--evidence DIR`` made (or found) before the log is read: a folder we may write."""
    usable_path(text, "--evidence")
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise click.UsageError(f"--evidence {text}: is a file; give a folder for the pictures")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.UsageError(
            f"--evidence {text}: cannot create the folder ({error.strerror})"
        ) from None
    return folder


def _write_evidence(game_log: GameLog, info: GameInfo, folder: Path) -> None:
    """Each verdict's pictures as ``SEQ-KIND.jpg``; a damaged one is a note, not a failure."""
    index = game_log.evidence_index(info)
    written = 0
    for seq, kinds in index.items():
        for kind, _size in kinds:
            if kind not in EVIDENCE_KINDS:
                continue  # a name that could not be a file name of ours: never a path
            try:
                data = game_log.evidence(info, seq, kind)
            except EvidenceError as error:
                click.echo(f"note: {error}", err=True)
                continue
            if data is None:
                continue
            target = folder / f"{seq}-{kind}.jpg"
            try:
                target.write_bytes(data)
            except OSError as error:
                raise RefereeError(
                    f"--evidence {folder}: cannot write {target.name} ({error.strerror})"
                ) from None
            written += 1
    if written:
        click.echo(f"{written} evidence picture(s) -> {folder}")
    else:
        click.echo(f"no evidence kept in game {info.name!r} (none written to {folder})")


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
        info = game_log.game(game)
        events = game_log.events(info)
        kept = game_log.evidence_index(info)
    text = export_text(events, fmt, kept)
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

    ``end`` is the game's last event (returned as no limit at all).
    >>> parse_moment("end")
    (None, None)
    """
    if text.strip().lower() == "end":
        return None, None
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
@click.option(
    "--at", "at", required=True, metavar="SEQ|SECONDS|end", help="Event number, 12.5s or end."
)
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


REPORT_SUFFIXES = (".html", ".htm", ".mp4")


def _positive_seconds(text: str, option: str, example: str) -> float:
    """``--speed``/``--pause``: a finite number above zero, else one line saying so."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 1e6):
        raise RefereeError(f"{option}: {shown(text)} is not a number above 0 (e.g. {example})")
    return value


@log.command()
@click.argument("game")
@click.option(
    "--out",
    "-o",
    "out",
    required=True,
    metavar="FILE.html|FILE.mp4",
    help="report.html (one self-contained page) or report.mp4 (an animated replay).",
)
@click.option(
    "--speed",
    default="10",
    show_default=True,
    metavar="X",
    help="MP4 only: game seconds per video second.",
)
@click.option(
    "--pause",
    default=None,
    metavar="SECONDS",
    help="A pause between moves this long ends a turn (default 10).",
)
@click.option("--db", metavar="FILE", help=DB_HELP)
def report(game: str, out: str, speed: str, pause: str | None, db: str | None) -> None:
    """GAME's battle report: the table at the start and after each turn with every move as
    an arrow (distance, verdict), the disputes and their reasons, corrections, casualties
    and the result, as one self-contained HTML page, or an MP4 replay of the table.

    A turn is a burst of moves: another side moving, or a pause of --pause seconds
    between two moves, begins the next one.
    """
    from referee.outputs import StagedFile
    from referee.report import PAUSE, build_report

    target = output_file(out, "--out", REPORT_SUFFIXES, "report.html")
    rate = _positive_seconds(speed, "--speed", "10")
    gap = PAUSE if pause is None else _positive_seconds(pause, "--pause", "10")
    with _open(db) as game_log:
        info = game_log.game(game)
        try:
            content = build_report(game_log, info, pause=gap)
        except StoreError:
            raise
        except (ValueError, KeyError, TypeError) as error:
            raise StoreError(
                f"{game_log.path}: game {game!r}: its logged scene or events cannot be replayed "
                f"({shown(str(error), 160)}); the game log is damaged: restore it from a backup"
            ) from None
    staged = StagedFile(target, "--out")
    try:
        if target.suffix.lower() == ".mp4":
            from referee.report.video import write_video

            frames = write_video(content, staged.path, speed=rate)
            what = f"{frames} frames at {rate:g}x"
        else:
            from referee.report.html import to_html

            try:
                staged.path.write_text(to_html(content), encoding="utf-8")
            except OSError as error:
                raise RefereeError(
                    f"--out {target}: cannot write ({error.strerror}); choose another path"
                ) from None
            what = f"{len(content.turns)} turns"
        staged.commit()
    finally:
        staged.discard()
    for note in content.evidence_notes:  # a damaged picture: said, and the report made
        click.echo(f"warning: {note}", err=True)
    click.echo(
        f"{game}: {len(content.moves)} moves, {len(content.disputes)} disputes, {what} -> {out}",
        err=True,
    )


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


@log.command()
@click.argument("game")
@click.argument("seq", metavar="SEQ")
@click.option("--void", is_flag=True, help="The move (or removal) did not happen.")
@click.option("--to", "to", metavar="X,Y,HEADING", help="Where the piece really came to rest.")
@click.option("--why", required=True, metavar="TEXT", help="Why the camera was wrong.")
@click.option("--db", metavar="FILE", help=DB_HELP)
def correct(game: str, seq: str, void: bool, to: str | None, why: str, db: str | None) -> None:
    """Correct move (or removal) SEQ of GAME the camera got wrong: --void, or --to X,Y,HEADING.

    The correction is a new event (nothing logged is changed); the verdicts
    that depended on the move are asked again on the corrected table and
    logged after it. 'log show', 'export', 'replay' and a resumed game
    honour it. Correct a game being served from its dashboard instead.
    """
    from referee.game import corrections
    from referee.game.replay import correction_events

    if not re.fullmatch(r"\d{1,18}", seq.strip()):
        raise RefereeError(f"SEQ: {shown(seq)} is not an event number (see 'referee log show')")
    pose = corrections.parse_to(to) if to is not None else None
    # Every check on a read-only view first: a refused correction leaves the file untouched.
    with _open(db) as reader:
        info = reader.game(game)
        scene_table = _table(info)
        history = reader.events(info)
        fix, move = corrections.make(
            history,
            int(seq),
            why,
            void=void,
            to=pose,
            table=scene_table,
            where=f"game {game!r}",
        )
        events = correction_events(reader, info, fix, move)
    path = reader.path
    with GameLog(path) as writer:
        # A game a running referee plays is its session's to write (a second writer would
        # take the seq its next frame needs): refused, the log as it was.
        writer.hold(writer.game(game), PLAYED_HINT)
        now = writer.game(game)
        if now.last_seq != info.last_seq:
            raise RefereeError(f"{path}: game {game!r} changed while correcting; try again")
        writer.append(now, events)
    for event in events:
        click.echo(
            event.head()
            + timeline_text(
                event,
                {events[0].seq},
                {move.seq: move.piece or "?"},
                {move.seq} if move.type == "removed" else (),
            )
        )


def _table(info: GameInfo) -> Any:
    from referee.scene import Scene

    return Scene.from_json(info.scene, info.name).table


@log.command()
@click.argument("game")
@click.option("--yes", is_flag=True, help="Delete without asking.")
@click.option("--db", metavar="FILE", help=DB_HELP)
def delete(game: str, yes: bool, db: str | None) -> None:
    """Delete GAME and all its events and positions from the log, for good.

    The only operation that removes events (a correction adds one). Asks
    first; --yes answers for a script (without it, a non-interactive shell
    is refused).
    """
    import sys

    with _open(db) as reader:
        info = reader.game(game)
        path = reader.path
    if not yes:
        if not sys.stdin.isatty():
            raise RefereeError(
                f"deleting game {game!r} ({info.events} events) cannot be undone: add --yes"
            )
        if not click.confirm(
            f"delete game {game!r} ({info.events} events, {info.moves} moves) for good?"
        ):
            raise RefereeError("nothing deleted")
    with GameLog(path) as writer:
        doomed = writer.game(game)
        writer.hold(doomed, "stop it first")
        writer.delete_game(doomed)
    click.echo(f"{path}: deleted game {game!r} ({info.events} events)")
