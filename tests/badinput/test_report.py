"""``referee log report``'s options (issue 40, item 2): whatever a user types for GAME,
``--out``, ``--speed`` and ``--pause`` is a report written or one ``referee: error:`` line
naming what is wrong, exit 2, and nothing written (no report, no staged file beside it).
The same command on damaged logs joins ``test_game_logs.check_log_commands``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from badinput.harness import FUZZ, assert_clean, invoke, snapshot
from badinput.test_game_logs import GAME, build_log


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report-log") / "games.sqlite"
    build_log(path)
    return path


def _workspace(work: Path) -> None:
    (work / "adir.html").mkdir(exist_ok=True)
    (work / "afile").write_text("a regular file\n")
    (work / "earlier.html").write_text("<p>an earlier report</p>\n")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["nope", "--out", "{w}/r.html"], "no game 'nope' (games: g1)"),
        ([GAME, "--out", "{w}/r.pdf"], "give a name ending in .html, .htm, .mp4"),
        ([GAME, "--out", "{w}/r"], "give a name ending in"),
        ([GAME, "--out", "{w}/adir.html"], "is a folder"),
        ([GAME, "--out", "{w}/afile/r.html"], "is a file, not a folder"),
        ([GAME, "--out", "{w}/" + "x" * 300 + ".html"], "305 bytes long"),
        ([GAME, "--out", "{w}/r.mp4", "--speed", "fast"], "--speed: 'fast' is not a number"),
        ([GAME, "--out", "{w}/r.mp4", "--speed", "0"], "--speed"),
        ([GAME, "--out", "{w}/r.mp4", "--speed", "-2"], "--speed"),
        ([GAME, "--out", "{w}/r.mp4", "--speed", "nan"], "--speed"),
        ([GAME, "--out", "{w}/r.mp4", "--speed", "inf"], "--speed"),
        ([GAME, "--out", "{w}/r.html", "--pause", "0"], "--pause"),
        ([GAME, "--out", "{w}/r.html", "--pause", "1e400"], "--pause"),
        ([GAME, "--out", "{w}/earlier.html", "--speed", "x"], "--speed"),
    ],
)
def test_a_bad_report_option_is_one_line_and_writes_nothing(tmp_path, db, args, words):
    _workspace(tmp_path)
    before = snapshot(tmp_path)
    result = invoke("log", "report", *(a.format(w=tmp_path) for a in args), "--db", str(db))
    assert_clean(result)
    assert result.exit_code == 2, result.output
    assert words in result.stderr.splitlines()[-1], result.stderr
    assert snapshot(tmp_path) == before  # the earlier report byte for byte, nothing staged


def test_an_unwritable_folder_is_one_line(tmp_path, db):
    import os

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who may write anywhere (root)")
        result = invoke("log", "report", GAME, "--out", str(locked / "r.html"), "--db", str(db))
        assert_clean(result)
        assert result.exit_code == 2 and "permission denied" in result.stderr
    finally:
        locked.chmod(0o700)


NAMES = st.sampled_from(["r.html", "r.HTM", "r.mp4", "r.MP4", "r.txt", "r.", ".html", "r.mp4.x",
                         "afile/r.html", "adir.html", "sub/r.html", "r .html"])  # fmt: skip
NUMBERS = st.one_of(
    st.sampled_from(["10", "1", "0.5", "1e6", "1e7", "0", "-1", "nan", "inf", "", " ", "1,5"]),
    st.text(max_size=6),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@FUZZ
@given(name=NAMES, speed=NUMBERS, pause=st.one_of(st.none(), NUMBERS))
def test_any_options_write_a_report_or_one_line(tmp_path_factory, db, name, speed, pause):
    work = tmp_path_factory.mktemp("any")
    _workspace(work)
    before = snapshot(work)
    args = ["log", "report", GAME, "--out", str(work / name), "--speed", speed, "--db", str(db)]
    if pause is not None:
        args += ["--pause", pause]
    result = invoke(*args)
    assert_clean(result)
    after = snapshot(work)
    if result.exit_code == 2:
        assert after == before
    else:
        written = set(after) - set(before)
        assert written == {str(Path(name))}, written  # the report, and nothing staged left
