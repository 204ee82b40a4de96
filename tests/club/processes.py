"""Real ``referee`` processes for the club's fault tests: a club server that can be SIGKILLed
and started again on the same port, and tables refereeing the sample footage."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from .helpers import SAMPLE
from .postgres import free_port

REFEREE = [sys.executable, "-m", "referee"]


def referee(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*REFEREE, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def ok(*args: str, timeout: float = 300) -> str:
    done = referee(*args, timeout=timeout)
    assert done.returncode == 0, f"referee {' '.join(args)}: {done.returncode}\n{done.stderr}"
    return done.stdout


class ClubProcess:
    """``referee club serve --db URL`` in its own process on a fixed loopback port."""

    def __init__(self, db: str, port: int | None = None) -> None:
        self.db = db
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> ClubProcess:
        self.process = subprocess.Popen(
            [*REFEREE, "club", "serve", "--db", self.db, "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                self.get("api/health")
                return self
            except OSError:
                if self.process.poll() is not None:
                    raise AssertionError(
                        f"club serve exited: {self.process.stderr.read()}"
                    ) from None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.loads(response.read())

    def last_seq(self, game: str) -> int:
        try:
            return int(self.get(f"api/games/{game}")["last_seq"])
        except OSError:
            return 0

    def kill(self) -> None:
        """SIGKILL: no chance to finish a request or close a connection."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def run_table(db: Path, game: str, club: str | None, token: str | None) -> subprocess.Popen[str]:
    """``referee run`` on the sample footage at one table, logging to ``db``."""
    args = [
        *REFEREE,
        "run",
        "--video",
        str(SAMPLE / "video.mp4"),
        "-c",
        str(SAMPLE / "camera.json"),
        "-r",
        str(SAMPLE / "roster.json"),
        "--scene",
        str(SAMPLE / "scene.json"),
        "--db",
        str(db),
        "--game",
        game,
        "-q",
    ]
    if club is not None and token is not None:
        args += ["--club", club, "--club-token", token]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )


def wait_until(predicate: Any, timeout: float = 120.0, step: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(step)


def local_export(db: Path, game: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in ok("log", "export", game, "--db", str(db)).splitlines()]


def club_export(db: str, *options: str) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The club's JSONL export, split by (table, game), table and game taken off each line."""
    games: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for line in ok("club", "export", "--db", db, "--format", "jsonl", *options).splitlines():
        event = json.loads(line)
        key = (event.pop("table"), event.pop("game"))
        games.setdefault(key, []).append(event)
    return games


def add_table(db: str, name: str) -> str:
    return ok("club", "table", "add", name, "--db", db).strip().splitlines()[-1]
