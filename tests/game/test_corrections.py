"""Corrections (issue 31 item 4): a move the camera got wrong is voided or moved by a new
``correction`` event; replay, a resumed game and the running session put the piece where
the players say, and the verdicts that depended on the move are asked again and logged."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner
from game.test_session import (
    ROSTER,
    START,
    ScriptedPipeline,
    frames,
    game_script,
    move_event,
    start,
)
from game.test_session import scene as roster_scene

from referee.cli import cli
from referee.errors import RefereeError
from referee.events import GameEvent
from referee.game import corrections, repo_footage, scene_at
from referee.game.corrections import Corrector, rests
from referee.game.frames import move_data
from referee.game.standing import StandingQuestions
from referee.game.table import TableState
from referee.geometry import Pose
from referee.rules import find_ruleset
from referee.store import GameLog

RANGE = {"ask": "range", "from": "t34", "to": "pz4"}


def _played(tmp_path, script=None):
    session, log = start(tmp_path, script, queries=[RANGE])
    list(session.run(frames(30)))
    move = next(e for e in log.events(session.game) if e.type == "move")
    return session, log, move


def test_a_voided_move_puts_the_piece_back_and_re_asks_what_depended_on_it(tmp_path):
    session, log, move = _played(tmp_path)
    before = log.events(session.game)
    fix = session.correct(move.seq, "knocked over", void=True)
    assert fix.data == {"supersedes": move.seq, "reason": "knocked over", "void": True}
    after = log.events(session.game)
    assert after[: len(before)] == before  # nothing logged is changed
    (reasked,) = [e for e in after if e.type == "verdict" and e.data.get("about") == fix.seq]
    assert reasked.data["question"] == 0
    assert reasked.data["verdict"]["distance"] == pytest.approx(20.0)  # from where it was
    assert session.scene.piece("t34").x == pytest.approx(10.0)
    replayed, _ = scene_at(log, session.game)
    assert (replayed.piece("t34").x, replayed.piece("t34").y) == pytest.approx(START["t34"][:2])
    # A resumed game honours it too.
    again, _ = start(tmp_path, game_script(), log=log)
    assert again.scene.piece("t34").x == pytest.approx(10.0)


def test_a_move_corrected_to_elsewhere_is_judged_again_there(tmp_path):
    session, log, move = _played(tmp_path)
    fix = session.correct(move.seq, "the tag was hidden", to=Pose(13.0, 20.0, 90.0))
    assert fix.data["to"] == {"x": 13.0, "y": 20.0, "heading": 90.0}
    events = log.events(session.game)
    asks = [e.data["verdict"]["ask"] for e in events if e.data.get("about") == fix.seq]
    assert asks == ["move", "range"]  # the move judged again, then the standing question
    replayed, _ = scene_at(log, session.game)
    piece = replayed.piece("t34")
    assert (piece.x, piece.y, piece.heading) == pytest.approx((13.0, 20.0, 90.0))
    again, _ = start(tmp_path, game_script(), log=log)
    assert again.scene.piece("t34").x == pytest.approx(13.0)


def test_a_later_move_the_camera_saw_stands(tmp_path):
    def twice(i):
        where, events = game_script()(i)
        if i >= 20:
            where["t34"] = (20.0, 10.0, 0.0)
        if i == 20:
            events.append(move_event("t34", (20.0, 10.0, 0.0), i))
        return where, events

    session, log, move = _played(tmp_path, twice)
    session.correct(move.seq, "knocked over", void=True)
    end, _ = scene_at(log, session.game)
    assert end.piece("t34").x == pytest.approx(20.0)
    between, _ = scene_at(log, session.game, seq=move.seq + 1)
    assert between.piece("t34").x == pytest.approx(10.0)  # the void reaches back in time


def test_rests_walk_back_over_voided_moves():
    def move(seq, frm, to):
        pose = lambda p: {"x": p, "y": 0.0, "heading": 0.0}  # noqa: E731
        return _event(seq, "move", {"piece": "a", "from": pose(frm), "to": pose(to)})

    told = [move(1, 0, 1), move(2, 1, 2), move(3, 2, 3)]
    fix = lambda seq, **d: _event(10 + seq, "correction", {"supersedes": seq, **d})  # noqa: E731
    assert rests(told) == {}
    assert rests([*told, fix(3, void=True)])["a"].x == 2
    assert rests([*told, fix(3, void=True), fix(2, void=True)])["a"].x == 1
    assert rests([*told, fix(2, void=True)]) == {}  # the last move stands
    to = {"x": 9.0, "y": 9.0, "heading": 0.0}
    assert rests([*told, fix(2, to=to), fix(3, void=True)])["a"].x == 9


def _event(seq, kind, data):
    return GameEvent(seq, float(seq), kind, data, seq)


@pytest.mark.parametrize(
    ("seq", "kwargs", "problem"),
    [
        ("flag", {"void": True}, "not a move"),
        ("move", {}, "either --void"),
        ("move", {"void": True, "to": Pose(1, 1, 0)}, "either --void"),
        ("move", {"to": Pose(60, 1, 0)}, "off the"),
        ("move", {"to": Pose(1, -1, 0)}, "off the"),
        (999, {"void": True}, "no event"),
        (0, {"void": True}, "no event"),
    ],
)
def test_a_correction_the_log_cannot_take_changes_nothing(tmp_path, seq, kwargs, problem):
    session, log, move = _played(tmp_path)
    flag = next(e for e in log.events(session.game) if e.type == "flag")
    before = log.events(session.game)
    target = {"flag": flag.seq, "move": move.seq}.get(seq, seq)
    with pytest.raises(RefereeError, match=problem):
        session.correct(target, "because", **kwargs)
    assert log.events(session.game) == before and session.last_seq == before[-1].seq


def test_a_voided_move_cannot_be_voided_again_nor_corrected_without_a_reason(tmp_path):
    session, log, move = _played(tmp_path)
    with pytest.raises(RefereeError, match="why"):
        session.correct(move.seq, "  ", void=True)
    session.correct(move.seq, "knocked over", void=True)
    count = len(log.events(session.game))
    with pytest.raises(RefereeError, match="already voided"):
        session.correct(move.seq, "again", void=True)
    with pytest.raises(RefereeError, match="already voided"):
        session.correct(move.seq, "again", to=Pose(12, 18, 0))
    assert len(log.events(session.game)) == count


# -- the command line, on the sample game -----------------------------------------------------


@pytest.fixture(scope="module")
def sample_log(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sample")
    db = folder / "games.sqlite"
    # The committed camera: what is tested is the log, not calibrating (5 s more).
    result = CliRunner().invoke(
        cli, ["demo", "--use-true-camera", "--db", str(db), "--game", "sample"]
    )
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture
def db(sample_log, tmp_path):
    copy = tmp_path / "games.sqlite"
    shutil.copy(sample_log, copy)
    return str(copy)


def _cli(*args):
    return CliRunner().invoke(cli, list(args))


def _export(db):
    return [json.loads(x) for x in _cli("log", "export", "sample", "--db", db).stdout.splitlines()]


def _pieces(text):
    scene = json.loads(text[: text.rindex("}") + 1])
    return {p["id"]: p for p in scene["pieces"]}


@pytest.mark.slow  # the sample game played and replayed: ~7 s of CPU
def test_log_correct_void_is_read_back_by_export_replay_and_show(db):
    before = _pieces(_cli("log", "replay", "sample", "--at", "end", "--db", db).stdout)
    events = [
        json.loads(x) for x in _cli("log", "export", "sample", "--db", db).stdout.splitlines()
    ]
    move = next(e for e in events if e["type"] == "move")
    result = _cli("log", "correct", "sample", str(move["seq"]), "--void", "--why", "knocked over",
                  "--db", db)  # fmt: skip
    assert result.exit_code == 0, result.output
    exported = [
        json.loads(x) for x in _cli("log", "export", "sample", "--db", db).stdout.splitlines()
    ]
    assert exported[: len(events)] == events
    fix = exported[len(events)]
    assert fix["type"] == "correction" and fix["seq"] == events[-1]["seq"] + 1
    assert (fix["supersedes"], fix["reason"], fix["void"]) == (move["seq"], "knocked over", True)
    reasked = [e for e in exported if e.get("about") == fix["seq"]]
    assert reasked and all(e["type"] == "verdict" for e in reasked)
    old = {e["question"] for e in events if e["type"] == "verdict" and "question" in e}
    assert {e["question"] for e in reasked} <= old  # the same questions, answered again
    after = _pieces(_cli("log", "replay", "sample", "--at", "end", "--db", db).stdout)
    piece = move["piece"]
    assert (after[piece]["x"], after[piece]["y"]) == pytest.approx(
        (move["from"]["x"], move["from"]["y"]), abs=1e-3
    )
    assert after[piece]["y"] != pytest.approx(before[piece]["y"], abs=0.5)
    shown = _cli("log", "show", "sample", "--db", db).stdout
    assert f"#{move['seq']:<5d}move {piece}" in shown and "(corrected)" in shown
    again = _cli("log", "correct", "sample", str(move["seq"]), "--void", "--why", "x", "--db", db)
    assert again.exit_code == 2 and "already voided" in again.output


@pytest.mark.slow  # a browser or whole-sample run; the default run keeps a sibling
def test_log_correct_to_moves_the_piece_and_judges_the_move_again(db):
    events = [
        json.loads(x) for x in _cli("log", "export", "sample", "--db", db).stdout.splitlines()
    ]
    move = [e for e in events if e["type"] == "move"][-1]
    to = "20,20,45"
    result = _cli("log", "correct", "sample", str(move["seq"]), "--to", to, "--why", "hidden tag",
                  "--db", db)  # fmt: skip
    assert result.exit_code == 0, result.output
    exported = [
        json.loads(x) for x in _cli("log", "export", "sample", "--db", db).stdout.splitlines()
    ]
    fix = next(e for e in exported if e["type"] == "correction")
    assert fix["to"] == {"x": 20.0, "y": 20.0, "heading": 45.0}
    judged = [e for e in exported if e.get("about") == fix["seq"]]
    assert [e["verdict"]["ask"] for e in judged][:1] == ["move"]
    after = _pieces(_cli("log", "replay", "sample", "--at", "end", "--db", db).stdout)
    assert (after[move["piece"]]["x"], after[move["piece"]]["y"]) == pytest.approx((20.0, 20.0))
    shown = _cli("log", "show", "sample", "--db", db).stdout
    assert f"verdict move (after correction #{fix['seq']}): " in shown


def test_log_delete_asks_first_and_removes_the_whole_game(db):
    refused = _cli("log", "delete", "sample", "--db", db)
    assert refused.exit_code == 2 and "--yes" in refused.output
    assert "sample" in _cli("log", "list", "--db", db).stdout
    done = _cli("log", "delete", "sample", "--yes", "--db", db)
    assert done.exit_code == 0, done.output
    listed = _cli("log", "list", "--db", db).stdout
    assert "0 game(s)" in listed
    missing = _cli("log", "delete", "sample", "--yes", "--db", db)
    assert missing.exit_code == 2 and "no game 'sample'" in missing.output


def test_log_list_columns_stay_aligned_with_long_names(tmp_path):
    db = tmp_path / "games.sqlite"
    with GameLog(db) as log:
        for name in ("a", "a-very-long-game-name-from-the-club-night-" + "x" * 40, "b"):
            log.create_game(name, "paper-tigers", {"ruleset": "paper-tigers", "table": {
                "width": 48, "depth": 36}, "pieces": []})  # fmt: skip
    lines = _cli("log", "list", "--db", str(db)).stdout.splitlines()[1:]
    assert len(lines) == 3
    assert len({line.index(" moves") for line in lines}) == 1
    assert len({line.index("paper-tigers") for line in lines}) == 1


def test_the_sample_footage_is_there():
    assert (repo_footage() / "video.mp4").exists()


def test_a_correction_the_log_fails_to_write_leaves_the_session_as_it_was(tmp_path, monkeypatch):
    from referee.store import StoreError

    session, log, move = _played(tmp_path)
    seq, where = session.last_seq, session.scene.piece("t34").x

    def full(*args, **kwargs):
        raise StoreError("the disk is full")

    with monkeypatch.context() as patch:
        patch.setattr(log, "append", full)
        with pytest.raises(StoreError):
            session.correct(move.seq, "knocked over", void=True)
    assert session.last_seq == seq and session.scene.piece("t34").x == where
    fix = session.correct(move.seq, "knocked over", void=True)  # not "already voided"
    assert fix.seq == seq + 1 and log.events(session.game)[-2].seq == fix.seq


# -- a game a running referee plays is that referee's to write ----------------------------------

HOLDER = """
import sys
from referee.store import GameLog
log = GameLog(sys.argv[1])
log.hold(log.game(sys.argv[2]))
print("held", flush=True)
sys.stdin.read()
log.close()
"""


def _holder(db, game="sample"):
    """A second process that opens ``game`` for writing through the store, as a running
    session does, and keeps it until its stdin closes."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), game],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def _log_bytes(db):
    from pathlib import Path

    return {s: Path(db + s).read_bytes() for s in ("", "-wal") if Path(db + s).exists()}


def _void_first_move(db):
    move = next(e for e in _export(db) if e["type"] == "move")
    return _cli("log", "correct", "sample", str(move["seq"]), "--void", "--why", "bumped",
                "--db", db)  # fmt: skip


def test_log_correct_is_refused_while_a_running_referee_holds_the_game(db):
    import signal

    holder = _holder(db)
    try:
        before = _log_bytes(db)
        refused = _void_first_move(db)
        assert refused.exit_code == 2
        assert refused.output == (
            f"referee: error: {db}: game 'sample' is being played by a running referee "
            f"(pid {holder.pid}); correct it from that table's dashboard, or stop it first\n"
        )
        assert _log_bytes(db) == before  # nothing written
        deleting = _cli("log", "delete", "sample", "--yes", "--db", db)
        assert deleting.exit_code == 2 and "being played" in deleting.output
        assert _log_bytes(db) == before
    finally:
        holder.communicate("")  # the referee stops: its lock goes with it
    assert holder.returncode == 0
    done = _void_first_move(db)
    assert done.exit_code == 0, done.output
    assert [e["type"] for e in _export(db)].count("correction") == 1
    # A referee killed outright leaves no lock behind either: the kernel drops it.
    killed = _holder(db)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    move = [e for e in _export(db) if e["type"] == "move"][-1]
    again = _cli("log", "correct", "sample", str(move["seq"]), "--void", "--why", "x", "--db", db)
    assert again.exit_code == 0, again.output
    assert [e["type"] for e in _export(db)].count("correction") == 2


def test_a_second_referee_resuming_a_held_game_is_refused(db):
    from game.test_session import FOOTAGE

    holder = _holder(db)
    try:
        before = _log_bytes(db)
        f = FOOTAGE
        video, camera, roster = (str(f / n) for n in ("video.mp4", "camera.json", "roster.json"))
        result = _cli("run", "--video", video, "-c", camera, "-r", roster, "--db", db,
                      "--game", "sample", "-q")  # fmt: skip
        assert result.exit_code == 2
        assert "game 'sample' is being played by a running referee" in result.output
        assert "stop it first, or give --game another name" in result.output
        assert _log_bytes(db) == before
    finally:
        holder.communicate("")


def test_a_removal_stands_until_a_correction_voids_it_or_the_piece_enters_again():
    from referee.events import GameEvent
    from referee.game.corrections import casualties

    at = {"x": 5.0, "y": 5.0, "heading": 0.0}
    moved = GameEvent(1, 1.0, "move", {"piece": "t34", "from": at, "to": at})
    lifted = GameEvent(2, 2.0, "removed", {"piece": "t34", "tag": 1, "at": at})
    lost = GameEvent(3, 3.0, "removed", {"piece": "sq1", "tag": 3, "at": at})
    assert casualties([lost, moved, lifted], set()) == [lifted, lost]  # oldest first
    assert casualties([moved, lifted, lost], {"t34"}) == [lost]  # back on the table
    void = GameEvent(4, 4.0, "correction", {"supersedes": 2, "reason": "bumped", "void": True})
    assert casualties([moved, lifted, lost, void], set()) == [lost]
    back = GameEvent(5, 5.0, "entered", {"piece": "sq1", "tag": 3, "at": at})
    assert casualties([moved, lifted, lost, void, back], set()) == []


# -- the Corrector on its own: a live table, no session around it --------------------------


class _Tracker:
    def __init__(self):
        self.restored = {}

    def restore(self, poses):
        self.restored.update(poses)


def _corrector_on(*told_events):
    rules = find_ruleset("paper-tigers")
    table, standing = TableState(roster_scene(), ROSTER), StandingQuestions()
    for pid, where in START.items():
        table.place(pid, Pose(*where), 0.05)
    standing.add(RANGE)
    pipeline = ScriptedPipeline(game_script())
    pipeline.tracker = _Tracker()
    flow = rules.game_flow()
    standing.answer(flow, table.scene(), standing.every())
    return Corrector(rules, flow, table, standing, pipeline), table, pipeline.tracker


def _moved_t34(seq=1, to=(16.0, 18.0, 0.0)):
    return GameEvent(seq, 10 / 30, "move", move_data(move_event("t34", to, 10)), 10)


def _correction(told, seq, **kwargs):
    fix, move = corrections.make(told, seq, "knocked over", **kwargs)
    return fix, GameEvent(told[-1].seq + 1, 1.0, "correction", fix.data()), move


def test_the_corrector_puts_a_voided_move_back_and_re_asks_the_question_naming_it():
    move = _moved_t34()
    corrector, table, _tracker = _corrector_on()
    table.place("t34", Pose(16.0, 18.0, 0.0), 0.05)  # where the camera said it went
    told = [move]
    fix, event, _ = _correction(told, 1, void=True)
    retold = corrector.apply(fix, event, move, told)
    assert retold.rejudged == ()  # a move that never was is not judged
    [(question, verdict)] = retold.answers
    assert question == 0 and verdict.to_json()["distance"] == pytest.approx(20.0)
    t34 = table.scene().piece("t34")
    assert (t34.x, t34.y, t34.uncertainty) == (10.0, 18.0, 0.05)  # back, as sure as before
    assert told == [move]  # the move stays as told: the correction is a new event beside it


def test_the_corrector_judges_a_move_again_where_it_really_ended():
    move = _moved_t34()
    corrector, table, _tracker = _corrector_on()
    told = [move]
    fix, event, _ = _correction(told, 1, to=Pose(13.0, 20.0, 90.0))
    retold = corrector.apply(fix, event, move, told)
    assert [v.ask for v in retold.rejudged] == ["move"]
    assert (table.scene().piece("t34").x, table.scene().piece("t34").y) == (13.0, 20.0)


def test_the_corrector_puts_a_wrong_casualty_back_where_the_camera_follows_it():
    at = {"x": 30.0, "y": 18.0, "heading": 180.0}
    removal = GameEvent(1, 20 / 30, "removed", {"piece": "pz4", "tag": 2, "at": at}, 20)
    corrector, table, tracker = _corrector_on()
    table.lift("pz4")
    told = [removal]
    fix, event, _ = _correction(told, 1, void=True)
    corrector.apply(fix, event, removal, told)
    assert table.scene().piece("pz4").x == 30.0
    assert tracker.restored["pz4"].tag == 2 and tracker.restored["pz4"].x == 30.0


def test_the_corrector_leaves_a_piece_the_camera_saw_move_again_where_it_is():
    first, again = _moved_t34(1), _moved_t34(2, to=(20.0, 18.0, 0.0))
    corrector, table, _tracker = _corrector_on()
    table.place("t34", Pose(20.0, 18.0, 0.0), 0.05)
    told = [first, again]
    fix, event, _ = _correction(told, 1, void=True)
    retold = corrector.apply(fix, event, first, told)
    assert retold.answers == () and table.scene().piece("t34").x == 20.0
