"""``referee serve`` on the bundled sample never fills the user's game log (issue 31 item
8): its looping passes go to a scratch log deleted when it stops; ``--db`` keeps them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _serve(tmp_path, *args, stop=signal.SIGINT):
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "REFEREE_DB": str(tmp_path / "mine.sqlite")}
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "serve", "--port", "0", "--speed", "0", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        # A shell's background job inherits SIGINT ignored; a user's terminal never does.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    lines = []
    deadline = time.monotonic() + 60
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        lines.append(line)
        if line.startswith("press Ctrl-C") or not line:
            break
    time.sleep(3)  # a few seconds of the sample, as fast as it goes
    process.send_signal(stop)
    out, _ = process.communicate(timeout=20)
    assert process.returncode == 0, "".join(lines) + out  # stopped as asked, not killed
    return "".join(lines) + out


@pytest.mark.parametrize(
    "stop",
    [pytest.param(signal.SIGINT, marks=pytest.mark.slow), signal.SIGTERM],  # one by default
    ids=["ctrl-c", "sigterm"],
)
def test_the_sample_loop_leaves_the_users_log_alone(tmp_path, stop):
    """Stopped with Ctrl-C or by a service manager's SIGTERM, serve deletes its scratch log."""
    output = _serve(tmp_path, stop=stop)
    assert not (tmp_path / "mine.sqlite").exists()
    match = re.search(r"scratch log \((.+?)\)", output)
    assert match, output
    assert not Path(match.group(1)).exists()  # deleted when serve stopped
    assert not Path(match.group(1)).parent.exists()


@pytest.mark.slow  # sample passes played in a serve process: ~5 s of CPU
def test_db_keeps_the_sample_games(tmp_path):
    db = tmp_path / "kept.sqlite"
    output = _serve(tmp_path, "--db", str(db), "--game", "kept")
    assert "game 'kept' logged in" in output
    assert db.exists() and not (tmp_path / "mine.sqlite").exists()
