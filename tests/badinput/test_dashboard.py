"""Bad input to the dashboard's newer endpoints (issue 31): ``/api/doubt`` and the
``live_source`` field of ``/api/info``. A malformed or out-of-range request is a 400 with a
one-line JSON error in the referee's words, never a 500 or a traceback, and changes
nothing in the game log."""

from __future__ import annotations

import math
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from badinput.harness import (
    FUZZ,
    PYTHON_TEXT,
    ROOT,
    VALUES,
    assert_clean,
    invoke,
    mutated_text,
    read_json,
)
from referee.game import sample_live
from referee.store import GameLog
from referee.web import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("dash") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="bad-dashboard")
    live.step(3)
    yield create_app(live, {"TESTING": True}).test_client(), live
    live.stop()
    log.close()


def _assert_refused(response) -> None:
    assert response.status_code == 400, (response.status_code, response.get_data(as_text=True))
    error = response.get_json()["error"]
    assert "\n" not in error and len(error) < 500, error
    assert not PYTHON_TEXT.search(error), error
    assert error.split(":")[0] in ("x", "y", "give both x and y (inches on the table), or neither")


def _is_on_table(text: str, limit: float) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return math.isfinite(value) and 0 <= value <= limit


ARG = st.one_of(VALUES.map(str), st.text(max_size=8), st.sampled_from(["", " ", "1e999", "-0"]))


@FUZZ
@given(x=ARG, y=ARG, keep=st.sampled_from(["both", "x", "y"]))
def test_doubt_answers_any_point_or_refuses_it(client, x, y, keep):
    test, live = client
    table = live.session.initial_scene.table
    args = {"both": {"x": x, "y": y}, "x": {"x": x}, "y": {"y": y}}[keep]
    before = live.session.last_seq
    response = test.get("/api/doubt?" + urlencode(args))
    if keep == "both" and _is_on_table(x, table.width) and _is_on_table(y, table.depth):
        assert response.status_code == 200
        at = response.get_json()["at"]
        assert at is None or (math.isfinite(at) and at >= 0)
    else:
        _assert_refused(response)
    assert live.session.last_seq == before  # asking for the doubt logs nothing


def test_doubt_without_a_point_is_the_table_and_its_grid(client):
    test, live = client
    answer = test.get("/api/doubt").get_json()
    table = live.session.initial_scene.table
    grid = answer["grid"]
    assert len(grid["values"]) == math.ceil(table.depth / grid["step"]) + 1
    assert len(grid["values"][0]) == math.ceil(table.width / grid["step"]) + 1
    seen = [v for row in grid["values"] for v in row if v is not None]
    assert answer["table"] == max(seen) and 0 < answer["table"] < 0.5


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_doubt_is_read_only(client, method):
    test, _ = client
    response = getattr(test, method)("/api/doubt", json={"x": 1, "y": 2})
    assert response.status_code == 405 and "not allowed" in response.get_json()["error"]


def test_info_says_whether_the_source_can_end(client):
    test, _ = client
    assert test.get("/api/info").get_json()["live_source"] is False  # the sample is a recording


# -- serve --footage DIR (issue 42) ------------------------------------------------------------

CLUB = ROOT / "sample_footage" / "club"
FOOTAGE_FILES = ("roster.json", "scene.json", "camera-1.json", "camera-2.json")


def _footage_copy(folder: Path, skip: str | None = None) -> Path:
    """The club sample in ``folder``: its JSON files copied, its videos linked (not copied)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("video-1.mp4", "video-2.mp4"):
        if name != skip and not (folder / name).exists():
            (folder / name).symlink_to(CLUB / name)
    for name in FOOTAGE_FILES:
        if name != skip:
            shutil.copyfile(CLUB / name, folder / name)
    return folder


@contextmanager
def _taken_port() -> Iterator[int]:
    """A port something else listens on: serve gets as far as listening, and is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def _serve_footage(folder: Path, db: Path, port: int):
    return invoke("serve", "--footage", str(folder), "--db", str(db), "--port", str(port))


@FUZZ
@given(which=st.sampled_from(FOOTAGE_FILES), data=st.data())
def test_serve_footage_with_a_broken_file_is_one_line_and_writes_no_log(tmp_path, which, data):
    """One of the folder's files mutated: serve refuses it in one line naming the file, or
    reads it and gets as far as the (taken) port; a refused folder leaves no game log."""
    folder = _footage_copy(tmp_path / "footage")
    (folder / which).write_text(data.draw(mutated_text(read_json(CLUB / which))))
    db = tmp_path / "games.sqlite"
    db.unlink(missing_ok=True)
    with _taken_port() as port:
        result = _serve_footage(folder, db, port)
    assert_clean(result)
    assert result.exit_code == 2
    message = result.stderr.strip().splitlines()[-1]
    if f"--port {port}: cannot listen" not in message:
        assert not db.exists(), message  # refused before the log was opened
        assert str(folder) in message, message


@pytest.mark.parametrize(
    ("skip", "needle"),
    [
        ("video-1.mp4", "no footage here (neither video.mp4 nor video-1.mp4)"),
        ("camera-2.json", "camera-2.json missing, the calibration profile of video-2.mp4"),
        ("roster.json", "roster.json missing"),
    ],
)
def test_serve_footage_missing_a_file_says_which(tmp_path, skip, needle):
    folder = _footage_copy(tmp_path / "footage", skip=skip)
    db = tmp_path / "games.sqlite"
    result = _serve_footage(folder, db, 8765)
    assert_clean(result)
    assert result.exit_code == 2 and needle in result.stderr, result.stderr
    assert not db.exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--video", "x.mp4"], "--footage DIR is a source of its own"),
        (["--camera", "0"], "--footage DIR is a source of its own"),
        (["--stream", "rtsp://x"], "--footage DIR is a source of its own"),
        (["-c", "camera.json"], "-c and -r go with --camera, --video or --stream (--footage DIR"),
        (["-r", "roster.json"], "-c and -r go with --camera, --video or --stream (--footage DIR"),
        (["--scene", "s.json"], "--scene and --ruleset go with"),
        (["--ruleset", "pz8-ww2"], "--scene and --ruleset go with"),
    ],
)
def test_serve_footage_with_another_source_is_refused_in_one_line(tmp_path, args, needle):
    result = invoke("serve", "--footage", str(CLUB), "--db", str(tmp_path / "g.sqlite"), *args)
    assert_clean(result)
    assert result.exit_code == 2 and needle in result.stderr, result.stderr
    assert not (tmp_path / "g.sqlite").exists()


@pytest.mark.parametrize("value", ["", "nowhere", "sample_footage/club/roster.json", "\x00"])
def test_serve_footage_that_is_no_folder_is_one_line(value):
    result = invoke("serve", "--footage", value, "--no-log")
    assert_clean(result)
    assert result.exit_code == 2


def test_serve_footage_reads_an_intact_copy_as_far_as_listening(tmp_path):
    """The fuzz above starts from a folder serve accepts: unchanged, it is refused only for
    the port something else holds."""
    folder = _footage_copy(tmp_path / "footage")
    with _taken_port() as port:
        result = _serve_footage(folder, tmp_path / "games.sqlite", port)
    assert_clean(result)
    assert result.exit_code == 2 and f"--port {port}: cannot listen" in result.stderr


# -- questions about pieces not on the table now (issue 42) -----------------------------------

ROSTER_IDS = ["t34a", "t34b", "sq1", "sq2", "pz1", "gs1", "gs2"]
ID = st.one_of(st.sampled_from(ROSTER_IDS), st.sampled_from(["zz9", "", "T34A"]), VALUES)
QUESTION = st.fixed_dictionaries(
    {"ask": st.sampled_from(["targets", "range", "los", "move", "follow_me", "nope", 3])},
    optional={
        "from": ID, "to": ID, "piece": ID, "leader": ID,
        "pieces": st.lists(ID, max_size=3), "cards": st.dictionaries(ID.map(str), ID, max_size=2),
    },
)  # fmt: skip


@FUZZ
@given(query=QUESTION, path=st.sampled_from(["/api/ask", "/api/ask?log=0", "/api/declare"]))
def test_questions_about_pieces_off_the_table_are_409_or_one_line(client, query, path):
    """A table with no piece on it yet: a question naming roster pieces is 409 naming just
    those (all in the roster, none on the table), anything else a one-line 400, or answered."""
    test, live = client
    placed = {p.id for p in live.session.scene}
    response = test.post(path, json=query)
    # 413: a body over the 64 KiB limit (a 100,000-character id)
    assert response.status_code in (200, 400, 409, 413), response.get_data(as_text=True)
    body = response.get_json()
    if response.status_code == 409:
        assert set(body) == {"error", "absent"}
        assert body["absent"] and set(body["absent"]) <= set(ROSTER_IDS) - placed
        assert body["error"] == (
            f"{', '.join(body['absent'])} {'is' if len(body['absent']) == 1 else 'are'} "
            "not on the table now"
        )
    elif response.status_code in (400, 413):
        assert "\n" not in body["error"] and not PYTHON_TEXT.search(body["error"])
        assert not any(f"unknown piece id {pid!r}" in body["error"] for pid in ROSTER_IDS)
