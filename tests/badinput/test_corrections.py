"""Bad input to the corrections (issue 31 item 4): ``POST /api/correct`` and ``referee log
correct``. A malformed or out-of-range correction is a 400 with a one-line JSON error (or
one ``referee: error:`` line and exit 2), never a 500 or a traceback, and the game log is
byte for byte as it was."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from badinput.harness import FUZZ, PYTHON_TEXT, VALUES, assert_clean, invoke, snapshot
from referee.game import sample_live
from referee.store import GameLog
from referee.web import create_app

FIRST_MOVE = 130
"""Frames of the sample until its first move has settled (t34a, about 3.9 s in)."""


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("corr") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="bad-corrections")
    live.step(FIRST_MOVE)
    yield create_app(live, {"TESTING": True}).test_client(), live, log
    live.stop()
    log.close()


def _moves(log, live):
    return [e.seq for e in log.events(log.game(live.game_name)) if e.type == "move"]


def _refused(response) -> str:
    assert response.status_code == 400, (response.status_code, response.get_data(as_text=True))
    error = response.get_json()["error"]
    assert "\n" not in error and len(error) < 500, error
    assert not PYTHON_TEXT.search(error), error
    return error


SEQ = st.one_of(VALUES, st.integers(-3, 40))
POSE = st.one_of(
    VALUES,
    st.fixed_dictionaries({"x": VALUES, "y": VALUES, "heading": VALUES}),
    st.fixed_dictionaries(
        {"x": st.floats(-100, 100), "y": st.floats(-100, 100), "heading": st.floats(-720, 720)}
    ),
)
BODY = st.fixed_dictionaries(
    {},
    optional={
        "seq": SEQ,
        "void": st.one_of(VALUES, st.just(True)),
        "to": POSE,
        "why": st.one_of(VALUES, st.just("knocked over")),
        "extra": VALUES,
    },
)


@FUZZ
@given(body=BODY)
def test_a_correction_is_taken_or_refused_with_nothing_written(client, body):
    test, live, log = client
    before = log.events(log.game(live.game_name))
    response = test.post("/api/correct", json=body)
    after = log.events(log.game(live.game_name))
    if response.status_code == 200:
        made = response.get_json()["events"]
        assert made[0]["type"] == "correction" and made[0]["supersedes"] == body["seq"]
        assert [e.seq for e in after[len(before) :]] == [e["seq"] for e in made]
    else:
        if response.status_code != 413:  # a body past the size limit is refused before it is read
            _refused(response)
        assert after == before


@pytest.mark.parametrize(
    "body",
    [
        [],
        "void",
        {"seq": 1, "void": True, "why": "x"},  # a declaration, not a move
        {"seq": 10**6, "void": True, "why": "x"},
        {"seq": True, "void": True, "why": "x"},
        {"seq": "6", "void": True, "why": "x"},
        {"seq": 6, "why": "x"},
        {"seq": 6, "void": True, "to": {"x": 1, "y": 1, "heading": 0}, "why": "x"},
        {"seq": 6, "void": True, "why": "   "},
        {"seq": 6, "void": True},
        {"seq": 6, "to": {"x": 1, "y": 1}, "why": "x"},
        {"seq": 6, "to": {"x": 1e308, "y": 1, "heading": 0}, "why": "x"},
        {"seq": 6, "to": {"x": -5, "y": 1, "heading": 0}, "why": "off the table"},
        {"seq": 6, "to": {"x": "1", "y": 1, "heading": 0}, "why": "x"},
    ],
)
def test_each_bad_correction_is_one_line(client, body):
    test, live, log = client
    before = log.events(log.game(live.game_name))
    _refused(test.post("/api/correct", json=body))
    assert log.events(log.game(live.game_name)) == before


def test_nan_in_the_body_is_refused(client):
    test, live, _ = client
    before = live.session.last_seq
    body = '{"seq": 6, "to": {"x": NaN, "y": 1, "heading": 0}, "why": "x"}'
    _refused(test.post("/api/correct", data=body, content_type="application/json"))
    assert live.session.last_seq == before


# -- the command line -----------------------------------------------------------------------


def _log_bytes(folder):
    """The log and its write-ahead file (a reader of a WAL log leaves an empty one, and the
    shared-memory index, behind: neither holds a byte of the games)."""
    files = snapshot(folder)
    return {k: v for k, v in files.items() if not k.endswith("-shm") and (v or "-wal" not in k)}


@pytest.fixture(scope="module")
def logged(client, tmp_path_factory):
    """A copy of the served game's log (stopped), for the command line to correct."""
    _, live, log = client
    folder = tmp_path_factory.mktemp("cli")
    copy = GameLog(folder / "games.sqlite")
    info = log.game(live.game_name)
    made = copy.create_game(
        info.name, info.ruleset, info.scene, roster=info.roster, profile=info.profile
    )
    events = log.events(info)
    fixed = [e.seq for e in events if e.type == "correction"]
    copy.append(made, [e for e in events if not fixed or e.seq < fixed[0]])  # none voided yet
    copy.close()
    first_move = next(e.seq for e in events if e.type == "move")
    return folder, info.name, next(e.seq for e in events if e.type != "move"), first_move


ARGS = st.lists(
    st.one_of(
        st.sampled_from(["--void", "--to", "--why", "--db", "1,2,3", "nan,1,1", "", "-1"]),
        st.text(max_size=12),
    ),
    max_size=6,
)


@FUZZ
@given(seq=st.one_of(st.text(max_size=6), st.integers(-2, 40).map(str)), extra=ARGS)
def test_log_correct_is_clean_and_leaves_a_refused_log_unchanged(logged, seq, extra):
    folder, name, _, _ = logged
    before = _log_bytes(folder)
    result = invoke("log", "correct", name, seq, *extra, "--db", str(folder / "games.sqlite"))
    assert_clean(result)
    if result.exit_code != 0:
        assert _log_bytes(folder) == before


@pytest.mark.parametrize(
    "args",
    [
        ["--void", "--why", "x", "SEQ=other"],  # not a move
        ["--void", "--why", ""],
        ["--void", "--why", "   "],
        ["--why", "x"],
        ["--void", "--to", "1,1,0", "--why", "x"],
        ["--to", "1,1", "--why", "x"],
        ["--to", "nan,1,0", "--why", "x"],
        ["--to", "inf,1,0", "--why", "x"],
        ["--to", "500,1,0", "--why", "x"],
        ["--to", "a,b,c", "--why", "x"],
    ],
)
def test_each_bad_log_correct_is_one_line(logged, args):
    folder, name, other, move = logged
    seq = str(other) if "SEQ=other" in args else str(move)
    args = [a for a in args if a != "SEQ=other"]
    before = _log_bytes(folder)
    result = invoke("log", "correct", name, seq, *args, "--db", str(folder / "games.sqlite"))
    assert result.exit_code == 2, result.output
    assert_clean(result)
    assert _log_bytes(folder) == before


def test_log_correct_of_a_game_or_event_not_there(logged):
    folder, name, _, _ = logged
    db = str(folder / "games.sqlite")
    before = _log_bytes(folder)
    for args in (["nope", "1"], [name, "999999"], [name, "0"], [name, "x"]):
        result = invoke("log", "correct", *args, "--void", "--why", "x", "--db", db)
        assert result.exit_code == 2 and result.output.count("referee: error:") == 1
    assert _log_bytes(folder) == before


# -- log delete -------------------------------------------------------------------------------


@FUZZ
@given(
    name=st.one_of(st.text(max_size=12), st.just("bad-corrections")),
    extra=st.lists(st.sampled_from(["--yes", "--db", "", "-y", "--force"]), max_size=2),
)
def test_log_delete_without_yes_or_of_nothing_changes_nothing(logged, name, extra):
    folder, _, _, _ = logged
    before = _log_bytes(folder)
    args = [a for a in extra if a != "--yes"]  # never really deletes: the suite's log is shared
    result = invoke("log", "delete", name, *args, "--db", str(folder / "games.sqlite"))
    assert_clean(result)
    assert result.exit_code == 2
    assert _log_bytes(folder) == before
