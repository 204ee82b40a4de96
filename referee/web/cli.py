"""``referee serve``: the dashboard on a real WSGI server (waitress), fed by a live session."""

from __future__ import annotations

import secrets
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from referee.club.sender import ClubChoice, ClubTarget, club_options, finish
from referee.commands import gathered
from referee.errors import RefereeError, SourceError
from referee.game import (
    LiveTable,
    check_log_path,
    game_name,
    open_log,
    sample_live,
    source_live,
)
from referee.game.options import LogChoice, RulesChoice, log_options
from referee.game.sources import (
    FootageFolder,
    load_game_roster,
    load_profiles,
    open_cameras,
    read_footage,
    repo_footage,
)
from referee.game.warm import WarmUp
from referee.media import MAX_CAMERA_INDEX

THREADS = 48
"""Waitress worker threads: each open event stream holds one, and at most
``SSE_MAX_STREAMS`` (32) are open, so 16 are always left for requests."""


@dataclass(frozen=True)
class Sources:
    """What ``serve`` shows: ``--camera``, ``--video`` or ``--stream`` (each repeatable for
    several cameras), or a ``--footage`` folder (none: the bundled sample)."""

    camera: tuple[int, ...]
    video: tuple[str, ...]
    stream: tuple[str, ...]
    footage: str | None


@dataclass(frozen=True)
class Listen:
    """``--host`` and ``--port``: where the dashboard listens."""

    host: str
    port: int


def make_server(app: Any, host: str, port: int) -> Any:
    """The waitress server ``serve`` runs (also started in a thread by tests and benchmarks)."""
    from waitress.server import create_server

    streams = int(app.config["SSE_MAX_STREAMS"])
    if streams >= THREADS:
        raise RefereeError(f"SSE_MAX_STREAMS ({streams}) must leave some of {THREADS} threads")
    return create_server(app, host=host, port=port, threads=THREADS, channel_timeout=60)


def terminal_qr(text: str) -> str:
    """A QR code of ``text`` drawn with block characters, for a phone or tablet to scan."""
    import qrcode

    code = qrcode.QRCode(border=4)
    code.add_data(text)
    code.make(fit=True)
    matrix = code.get_matrix()
    lines = []
    for top, bottom in zip(matrix[0::2], [*matrix[1::2], [False] * len(matrix[0])], strict=False):
        # For the usual light-on-dark terminal: dark modules are left blank, light ones are
        # drawn (two modules per character cell, upper and lower half blocks).
        row = "".join(
            " " if t and b else "\u2584" if t else "\u2580" if b else "\u2588"
            for t, b in zip(top, bottom, strict=True)
        )
        lines.append(row)
    return "\n".join(lines)


@click.command()
@click.option(
    "--camera",
    type=click.IntRange(0, MAX_CAMERA_INDEX),
    multiple=True,
    help="Camera index (0 is the first); repeat for several cameras over one table.",
)
@click.option(
    "--video", metavar="FILE", multiple=True, help="A recorded video or a folder of images."
)
@click.option(
    "--stream", metavar="URL", multiple=True, help="A network camera (rtsp://, http://...)."
)
@click.option(
    "--calibration",
    "-c",
    metavar="PROFILE.json",
    multiple=True,
    help="Calibration profile; one per camera, in camera order.",
)
@click.option(
    "--footage",
    metavar="DIR",
    default=None,
    help="A footage folder played in a loop, as 'referee demo --footage' takes it "
    "(default without a source: the bundled sample_footage/skirmish).",
)
@click.option("--roster", "-r", metavar="ROSTER.json", help="Which tag is on which piece.")
@click.option("--scene", metavar="SCENE.json", help="Terrain, sides, cards and questions.")
@click.option("--ruleset", default=None, help="Rules to judge by (default: the scene's).")
@log_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--speed",
    type=click.FloatRange(min=0),
    default=1.0,
    show_default=True,
    help="Play recordings at this multiple of real time (0: as fast as possible).",
)
@club_options
@gathered("given", Sources, {n: n for n in ("camera", "video", "stream", "footage")})
@gathered("rules", RulesChoice, {"scene": "scene", "ruleset": "ruleset"})
@gathered("listen", Listen, {"host": "host", "port": "port"})
def serve(
    given: Sources,
    calibration: tuple[str, ...],
    roster: str | None,
    rules: RulesChoice,
    log_choice: LogChoice,
    listen: Listen,
    speed: float,
    club_choice: ClubChoice,
) -> None:
    """Serve the dashboard: live table, disputes, terrain, turn assistant, game log.

    Without a source it plays the bundled sample footage in a loop (--footage DIR: another
    footage folder, one camera or several, as 'referee demo --footage'). It listens
    on 127.0.0.1 (this computer only); --host 0.0.0.0 opens it to tablets on
    your network, behind an access token printed with the URL and its QR code.

      referee serve --camera 0 -c camera.json -r roster.json --scene game.json

    Several cameras over one table: repeat --camera (or --video, or --stream) and -c,
    paired in order.
    """
    from referee.web import create_app

    camera, video, stream, footage = given.camera, given.video, given.stream, given.footage
    scene, ruleset, host, port = rules.scene, rules.ruleset, listen.host, listen.port
    db, game, no_log = log_choice.db, log_choice.game, log_choice.no_log
    kinds = [k for k in (camera, video, stream) if k]
    if len(kinds) > 1:
        raise SourceError(
            "give one of --camera, --video and --stream (repeat it for several cameras)"
        )
    if footage is not None and kinds:
        raise SourceError(
            "--footage DIR is a source of its own: give it or --camera, --video or --stream"
        )
    sources = [str(s) for s in kinds[0]] if kinds else []
    club = ClubTarget.from_options(club_choice.url, club_choice.token, logged=not no_log)
    # The options are checked before the game log is opened: a refused start changes no log.
    check_log_path(db, no_log)
    name = game or game_name("serve")
    scratch: str | None = None
    # SIGTERM (a service manager, 'kill') stops serve as Ctrl-C does, so the scratch log
    # and the game log's lock are cleaned up either way.
    restore = _terminate_as_interrupt()
    try:
        if not sources:
            folder = _footage_folder(footage, calibration, roster, scene, ruleset)
            # The sample loop logs every pass: into a scratch log deleted when serve stops,
            # unless --db names a file to keep them in, so it never fills the user's own log.
            scratch = None if (db is not None or no_log) else tempfile.mkdtemp(prefix="referee-")
            log = open_log(
                str(Path(scratch) / "sample.sqlite") if scratch else db,
                no_log,
                log_choice.evidence,
            )
            try:
                live = sample_live(speed, log, name if log is not None else None, folder)
            except BaseException:
                if log is not None:
                    log.close()
                raise
        else:
            live, log = _live_from_options(
                sources,
                bool(camera) or bool(stream),
                calibration,
                roster,
                scene,
                ruleset,
                lambda: open_log(db, no_log, log_choice.evidence),
                name,
                speed,
            )
        # A projector calibrated on the dashboard is saved in the first camera's profile.
        projector_file = calibration[0] if sources else None
        _run(live, log, scratch, club, (host, port), create_app, projector_file)
    except KeyboardInterrupt:
        pass  # Ctrl-C or SIGTERM before the server ran: what was opened is closed below
    finally:
        restore()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _footage_folder(
    footage: str | None,
    calibration: tuple[str, ...],
    roster: str | None,
    scene: str | None,
    ruleset: str | None,
) -> FootageFolder:
    """The footage folder serve plays in a loop (the bundled sample without --footage),
    read and checked before any game log is opened."""
    given = "--footage DIR" if footage is not None else "the bundled sample"
    if calibration or roster:
        raise RefereeError(
            f"-c and -r go with --camera, --video or --stream ({given} has its own camera "
            "profiles and roster)"
        )
    if scene or ruleset:
        raise RefereeError(
            f"--scene and --ruleset go with --camera, --video or --stream ({given} has its "
            "own scene.json)"
        )
    if footage is not None:
        return read_footage(Path(footage))
    sample = repo_footage()
    if not (sample / "video.mp4").is_file():
        raise RefereeError(
            f"{sample}: no sample footage here (video.mp4 missing); give --camera, --video, "
            "--stream or --footage DIR, or run from a git checkout"
        )
    return read_footage(sample)


def _run(
    live: LiveTable,
    log: Any,
    scratch: str | None,
    club: ClubTarget | None,
    address: tuple[str, int],
    create_app: Any,
    projector_file: str | None,
) -> None:
    """Serve ``live`` until Ctrl-C or SIGTERM; the live table and the log are closed after."""
    host, port = address
    token = None if host in ("127.0.0.1", "localhost", "::1") else secrets.token_urlsafe(18)
    # The maps' loops compile in a process of their own while the twins answer, so the
    # first tap after installing never waits on numba (a warm cache: done in seconds).
    warm = WarmUp([live.session.ruleset.name])
    app = create_app(live, {"TOKEN": token, "WARM_UP": warm, "PROJECTOR_PROFILE": projector_file})
    try:
        server = make_server(app, host, port)
    except OSError as error:
        warm.stop()
        live.stop()
        if log is not None:
            log.close()
        raise RefereeError(f"--port {port}: cannot listen on {host} ({error.strerror})") from None
    shown = _url_host(host)
    bound = getattr(server, "effective_port", port)
    url = f"http://{shown}:{bound}/" + (f"?token={token}" if token else "")
    sender = None
    try:
        click.echo(f"dashboard: {url}")
        if token:
            click.echo(
                "anyone on your network with this URL (and its token) can use the dashboard;"
            )
            click.echo("scan it with the tablet:")
            click.echo(terminal_qr(url))
        if scratch is not None:
            click.echo(
                f"the sample's passes are logged in a scratch log ({log.path if log else scratch}),"
                " deleted when serve stops (--db FILE keeps them)",
                err=True,
            )
        elif log is not None:
            click.echo(f"game {live.game_name!r} logged in {log.path}", err=True)
        click.echo("press Ctrl-C to stop", err=True)
        sys.stdout.flush()
        live.start()
        sender = club.start(log.path, live.game_name) if club and log and live.game_name else None
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        warm.stop()
        live.stop()
        server.close()
        if log is not None:
            finish(sender, log.path)
            log.close()


def _terminate_as_interrupt() -> Callable[[], None]:
    """SIGTERM raises KeyboardInterrupt in the main thread (once: a second SIGTERM during
    the clean-up ends the process as usual); returns the call that puts the old handler
    back. Nothing is done outside the main thread, where no handler can be set."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


def _url_host(host: str) -> str:
    """The address to print: the machine's LAN address when listening on every interface."""
    if host not in ("0.0.0.0", "::", ""):
        return f"[{host}]" if ":" in host else host
    import socket

    return lan_address() or socket.gethostname()


def lan_address(probe: Any = None) -> str | None:
    """This machine's address on its network (what a tablet on the same network types),
    or None without one. A tablet often cannot resolve a hostname, so the address is asked
    of the routing table: a UDP socket "connected" to a non-routed address (TEST-NET-1)
    takes the source address of the default route; UDP connect sends no packet."""
    import socket

    make = probe or (lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
    try:
        with make() as sock:
            sock.connect(("192.0.2.1", 9))
            address = str(sock.getsockname()[0])
    except OSError:
        return None
    return None if address.startswith(("127.", "0.")) else address


def _live_from_options(
    specs: list[str],
    is_live: bool,
    calibration: tuple[str, ...],
    roster: str | None,
    scene: str | None,
    ruleset: str | None,
    open_game_log: Any,
    game: str,
    speed: float,
) -> tuple[LiveTable, Any]:
    """The live table and its game log, opened once every input was read and checked."""
    from referee.scene import load_scene
    from referee.vision.pipeline import Pipeline

    if not calibration or not roster:
        raise RefereeError("-c PROFILE.json and -r ROSTER.json are needed with a camera or video")
    profiles = load_profiles(calibration, specs)
    roster_value = load_game_roster(roster)
    scene_value = load_scene(scene) if scene else None
    # Opened, each camera's frames checked against its profile, and closed again.
    open_cameras(specs, profiles, roster_value, []).close()
    log = open_game_log()
    pipeline = Pipeline(profiles, roster_value, source_name=specs)
    live = source_live(
        specs,
        pipeline,
        scene_value,
        ruleset,
        camera=is_live,
        pace=speed,
        log=log,
        game=game if log is not None else None,
    )
    return live, log
