"""A real PostgreSQL server for the club's tests and benchmarks, in a temporary folder.

``initdb`` and ``pg_ctl`` from ``/usr/lib/postgresql/<N>/bin`` (or the PATH) make a
throw-away cluster listening on a free loopback port, trust authentication, default
durability (``fsync`` and ``synchronous_commit`` on). ``initdb`` refuses to run as
root, so as root the cluster belongs to the ``postgres`` user. :func:`postgres_missing`
says why no server can be had here (the tests are then skipped with that reason).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def _bin_dir() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True):
        return Path(candidate).parent
    return None


def postgres_missing() -> str | None:
    """Why a PostgreSQL server cannot be started here, or None when it can."""
    if _bin_dir() is None:
        return "PostgreSQL is not installed (no initdb; .ci/run installs Debian's postgresql)"
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[dev]')"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user for initdb"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One throw-away cluster: :meth:`start`, :meth:`stop` (a fast shutdown), :meth:`destroy`."""

    def __init__(self) -> None:
        bin_dir = _bin_dir()
        assert bin_dir is not None, postgres_missing()
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="referee-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--no-sync",  # the cluster is thrown away; the server itself keeps fsync on
        )

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=check, capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        self._wait()

    def _wait(self) -> None:
        import psycopg

        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def new_database(self, name: str) -> str:
        """A fresh empty database on this server; its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}"')
            con.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
