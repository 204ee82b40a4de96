"""``referee serve`` as a user runs it: a real waitress server in its own process."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.web.cli import terminal_qr


def _get(url: str, **headers: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture
def exposed_server(tmp_path):
    """``referee serve --host 127.0.0.2`` (any address but 127.0.0.1 counts as exposed)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "serve", "--host", "127.0.0.2", "--port", "0",
         "--db", str(tmp_path / "games.sqlite"), "--game", "served", "--speed", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        # A shell's background job inherits SIGINT ignored; a user's terminal never does.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    lines: list[str] = []
    deadline = time.monotonic() + 30
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        lines.append(line)
        if line.startswith("press Ctrl-C"):
            break
    yield process, "".join(lines)
    process.send_signal(signal.SIGINT)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_exposed_serve_prints_a_token_url_and_its_qr_code(exposed_server):
    _, output = exposed_server
    match = re.search(r"dashboard: (http://127\.0\.0\.2:(\d+)/)\?token=([\w-]+)", output)
    assert match, output
    base, _, token = match.groups()
    assert terminal_qr(f"{base}?token={token}") in output
    status, body = _get(base + "api/health")
    assert status == 401 and "access token" in json.loads(body)["error"]
    status, body = _get(base + "api/info", **{"X-Referee-Token": token})
    assert status == 200 and json.loads(body)["game"] == "served"
    status, page = _get(f"{base}?token={token}")
    assert status == 200 and b"Table referee" in page


def test_terminal_qr_code_reads_back_as_the_url():
    """Drawn as a light-on-dark terminal shows it, the code decodes to the URL."""
    url = "http://192.168.1.20:8765/?token=AbC-123_xyz"
    rows = []
    for line in terminal_qr(url).splitlines():
        top = [0 if ch in " \u2584" else 255 for ch in line]  # blank or lower half: top dark
        bottom = [0 if ch in " \u2580" else 255 for ch in line]
        rows.extend([top, bottom])
    image = cv2.resize(np.array(rows, np.uint8), None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert text == url


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--camera", "0", "--video", "x.mp4"], "give one of --camera, --video and --stream"),
        (["-c", "camera.json"], "go with --camera"),
        (["--video", "x.mp4"], "-c PROFILE.json and -r ROSTER.json"),
    ],
)
def test_serve_bad_options_are_one_line(args, needle):
    result = CliRunner().invoke(cli, ["serve", "--no-log", *args])
    assert result.exit_code == 2
    assert needle in result.output and result.output.count("\n") == 1
