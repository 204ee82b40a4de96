"""``referee serve``: the dashboard on a real WSGI server (waitress), fed by a live session."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Any

import click

from referee.club.sender import ClubTarget, club_options, finish
from referee.errors import RefereeError, SourceError
from referee.web.live import Footage, LiveTable, sample_footage

THREADS = 32
"""Waitress worker threads: each open event stream holds one."""


def sample_live(pace: float = 1.0, log: Any = None, game: str | None = None) -> LiveTable:
    """A live table on the bundled sample footage with its camera, roster and scene."""
    from referee.calibration.profile import load_profile
    from referee.demo import repo_footage
    from referee.markers.roster import load_roster
    from referee.scene import load_scene
    from referee.vision.pipeline import Pipeline

    folder = repo_footage()
    footage = sample_footage(folder, pace)
    roster = load_roster(folder / "roster.json")
    profile = load_profile(folder / "camera.json")
    scene = load_scene(folder / "scene.json")
    return LiveTable(
        Pipeline(profile, roster, source_name=footage.name),
        scene,
        footage=footage,
        log=log,
        game=game,
        source_key=str(Path(footage.name).resolve()),
    )


def make_server(app: Any, host: str, port: int) -> Any:
    """The waitress server ``serve`` runs (also started in a thread by tests and benchmarks)."""
    from waitress.server import create_server

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
@click.option("--camera", type=click.IntRange(min=0), help="Camera index (0 is the first).")
@click.option("--video", metavar="FILE", help="A recorded video or a folder of images.")
@click.option("--stream", metavar="URL", help="A network camera (rtsp://, http://...).")
@click.option("--calibration", "-c", metavar="PROFILE.json", help="Calibration profile.")
@click.option("--roster", "-r", metavar="ROSTER.json", help="Which tag is on which piece.")
@click.option("--scene", metavar="SCENE.json", help="Terrain, sides, cards and questions.")
@click.option("--ruleset", default=None, help="Rules to judge by (default: the scene's).")
@click.option("--db", metavar="FILE", help="Game log file (default: your data folder).")
@click.option("--game", metavar="NAME", help="Game name; an existing game is resumed.")
@click.option("--no-log", is_flag=True, help="Do not keep a game log.")
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
def serve(
    camera: int | None,
    video: str | None,
    stream: str | None,
    calibration: str | None,
    roster: str | None,
    scene: str | None,
    ruleset: str | None,
    db: str | None,
    game: str | None,
    no_log: bool,
    host: str,
    port: int,
    speed: float,
    club_url: str | None = None,
    club_token: str | None = None,
) -> None:
    """Serve the dashboard: live table, disputes, terrain, turn assistant, game log.

    Without a source it plays the bundled sample footage in a loop. It listens
    on 127.0.0.1 (this computer only); --host 0.0.0.0 opens it to tablets on
    your network, behind an access token printed with the URL and its QR code.

      referee serve --camera 0 -c camera.json -r roster.json --scene game.json
    """
    from referee.session import game_name
    from referee.session_cli import open_log
    from referee.web import create_app

    sources = [s for s in (camera, video, stream) if s is not None]
    if len(sources) > 1:
        raise SourceError("give at most one of --camera, --video and --stream")
    club = ClubTarget.from_options(club_url, club_token, logged=not no_log)
    log = open_log(db, no_log)
    name = game or game_name("serve")
    if not sources:
        if calibration or roster:
            raise RefereeError("-c and -r go with --camera, --video or --stream")
        live = sample_live(speed, log, name if log is not None else None)
        if scene or ruleset:
            raise RefereeError("--scene and --ruleset go with --camera, --video or --stream")
    else:
        live = _live_from_options(
            str(sources[0]),
            camera is not None or stream is not None,
            calibration,
            roster,
            scene,
            ruleset,
            log,
            name if log is not None else None,
            speed,
        )
    token = None if host in ("127.0.0.1", "localhost", "::1") else secrets.token_urlsafe(18)
    app = create_app({"TOKEN": token}, live=live)
    try:
        server = make_server(app, host, port)
    except OSError as error:
        live.stop()
        raise RefereeError(f"--port {port}: cannot listen on {host} ({error.strerror})") from None
    shown = _url_host(host)
    bound = getattr(server, "effective_port", port)
    url = f"http://{shown}:{bound}/" + (f"?token={token}" if token else "")
    click.echo(f"dashboard: {url}")
    if token:
        click.echo("anyone on your network with this URL (and its token) can use the dashboard;")
        click.echo("scan it with the tablet:")
        click.echo(terminal_qr(url))
    if log is not None:
        click.echo(f"game {live.game_name!r} logged in {log.path}", err=True)
    click.echo("press Ctrl-C to stop", err=True)
    sys.stdout.flush()
    live.start()
    sender = club.start(log.path, live.game_name) if club and log and live.game_name else None
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        live.stop()
        server.close()
        if log is not None:
            finish(sender, log.path)
            log.close()


def _url_host(host: str) -> str:
    """The address to print: the machine's LAN address when listening on every interface."""
    if host not in ("0.0.0.0", "::", ""):
        return f"[{host}]" if ":" in host else host
    import socket

    # Only the local host table is read (no packet leaves the machine).
    name = socket.gethostname()
    try:
        infos = socket.getaddrinfo(name, None, socket.AF_INET)
    except OSError:
        return name
    for info in infos:
        address = str(info[4][0])
        if not address.startswith("127."):
            return address
    return name


def _live_from_options(
    spec: str,
    is_live: bool,
    calibration: str | None,
    roster: str | None,
    scene: str | None,
    ruleset: str | None,
    log: Any,
    game: str | None,
    speed: float,
) -> LiveTable:
    from referee.scene import load_scene
    from referee.session_cli import _source_key, load_inputs, open_camera_source
    from referee.vision.pipeline import Pipeline

    if not calibration or not roster:
        raise RefereeError("-c PROFILE.json and -r ROSTER.json are needed with a camera or video")
    profile, roster_value = load_inputs(calibration, roster)
    scene_value = load_scene(scene) if scene else None
    holder: list[Any] = []

    def open_frames() -> Any:
        frames, _ = open_camera_source(spec, holder)
        return frames

    open_frames().close()  # a source that cannot be opened is an error now, not in the thread
    footage = Footage(open_frames, spec, loop=False, pace=speed, live=is_live)
    live = LiveTable(
        Pipeline(profile, roster_value, source_name=spec),
        scene_value,
        ruleset,
        footage=footage,
        log=log,
        game=game,
        source_key=_source_key(spec),
    )
    holder.append(live.session)
    return live
