"""The referee session: one event stream, rules on live positions, logging, resume, replay."""

from __future__ import annotations

import json
import math
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.cli import cli
from referee.errors import RefereeError
from referee.game import Session, repo_footage, scene_at
from referee.markers.roster import Roster, RosterEntry
from referee.scene import Piece, Scene, Table
from referee.store import GameLog
from referee.tags.detect import Detections
from referee.vision.pipeline import FrameResult
from referee.vision.pose import FramePoses, PiecePose
from referee.vision.sources import Frame
from referee.vision.track import FlagEvent, MoveEvent, TrackedPiece, Tracker, TrackerState

ROSTER = Roster(
    "DICT_4X4_100",
    (
        RosterEntry(1, "t34", "soviet", "tank", (1.5, 3.0)),
        RosterEntry(2, "pz4", "german", "tank", (1.5, 3.0)),
        RosterEntry(3, "sq1", "soviet", "infantry", (2.0, 1.0)),
    ),
)
PROFILE = CalibrationProfile(
    Intrinsics.from_fov((64, 36), 60), TablePose.looking_down((24, 18), 40), TableSize(48, 36)
)
START = {"t34": (10.0, 18.0, 0.0), "pz4": (30.0, 18.0, 180.0), "sq1": (10.0, 25.0, 270.0)}


def pose(pid, x, y, heading):
    return PiecePose(pid, ROSTER.by_id(pid).tag, x, y, heading, 0.01)


class ScriptedPipeline:
    """Stands in for the vision pipeline: frame i returns the scripted tracks and events."""

    def __init__(self, script):
        self.script = script
        self.roster = ROSTER
        self.initial_profile = PROFILE
        self.restored = {}
        self.table_pose = None

    def resume(self, resting, table_pose=None):
        self.restored = dict(resting)
        self.table_pose = table_pose

    def reset(self):
        pass

    def use_roster(self, roster):
        self.roster = roster

    def process(self, frame):
        where, events = self.script(frame.index)
        pieces = tuple(TrackedPiece(pose(pid, *p), "settled") for pid, p in where.items())
        state = TrackerState(frame.index, frame.t, pieces, tuple(events))
        return FrameResult(frame.index, frame.t, Detections.empty(), state, state.events, PROFILE)


def frames(n, start=0):
    image = np.zeros((36, 64, 3), np.uint8)
    return [Frame(i, i / 30, image) for i in range(start, start + n)]


def move_event(pid, to, frame):
    a, b = pose(pid, *START[pid]), pose(pid, *to)
    distance = math.dist(a.front(3.0), b.front(3.0))
    return MoveEvent(
        pid, a.tag, a, b, distance, 0.014, frame / 30 - 1, frame / 30, frame - 30, frame
    )


def game_script(move_at=10, to=(16.0, 18.0, 0.0)):
    """Everyone settles from frame 0; t34 moves at ``move_at``; tag 9 is unknown at frame 3."""

    def script(i):
        where = dict(START)
        events = []
        if i >= move_at:
            where["t34"] = to
        if i == move_at:
            events.append(move_event("t34", to, i))
        if i == 3:
            events.append(FlagEvent("unknown_tag", "tag 9 is not in the roster", i, i / 30, tag=9))
        return where, events

    return script


def scene(queries=(), terrain=()):
    """A scene file naming the roster's pieces (where they stand is the camera's business)."""
    pieces = tuple(
        Piece(e.id, e.side, e.kind, *START[e.id][:2], START[e.id][2], e.base) for e in ROSTER
    )
    return Scene("paper-tigers", Table(48, 36), pieces, tuple(terrain), tuple(queries))


def start(tmp_path, script=None, queries=(), terrain=(), game="g", log=None):
    log = log or GameLog(tmp_path / "games.sqlite")
    pipeline = ScriptedPipeline(script or game_script())
    clip = tmp_path / "clip"  # a recording: a resumed game skips the frames it logged
    clip.mkdir(exist_ok=True)
    session = Session.start(pipeline, scene(queries, terrain), log=log, game=game, source=str(clip))
    return session, log


def test_one_stream_of_numbered_events_committed_before_it_is_heard(tmp_path):
    session, log = start(tmp_path, queries=[{"ask": "range", "from": "t34", "to": "pz4"}])
    heard = []

    def listener(update):
        logged = {e.seq for e in log.events(session.game)}
        heard.extend((e.seq, e.seq in logged) for e in update.events)

    session.subscribe(listener)
    updates = list(session.run(frames(20)))
    session.close()
    events = log.events(session.game)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert heard and all(committed for _, committed in heard)
    kinds = [e.type for e in events]
    assert kinds.count("move") == 1 and "flag" in kinds
    move = next(e for e in events if e.type == "move")
    assert move.data["piece"] == "t34" and move.data["to"] == {"x": 16.0, "y": 18.0, "heading": 0.0}
    assert move.data["distance"] == pytest.approx(6.0) and move.data["uncertainty"] > 0
    about = [e for e in events if e.type == "verdict" and e.data.get("about") == move.seq]
    assert [e.data["verdict"]["ask"] for e in about] == ["move"]
    assert sum(len(u.rulings) for u in updates) == 1


def test_standing_questions_are_answered_live_and_again_when_a_named_piece_settles(tmp_path):
    session, log = start(tmp_path, queries=[{"ask": "range", "from": "t34", "to": "pz4"}])
    list(session.run(frames(20)))
    answers = [e for e in log.events(session.game) if e.type == "verdict" and "question" in e.data]
    assert [a.frame for a in answers] == [0, 10]
    assert [a.data["verdict"]["distance"] for a in answers] == pytest.approx([20.0, 14.0])


def test_a_question_about_a_piece_never_seen_is_reported_not_dropped(tmp_path):
    def without_sq1(i):
        where, events = game_script()(i)
        return {k: v for k, v in where.items() if k != "sq1"}, events

    question = [{"ask": "range", "from": "t34", "to": "sq1"}]
    session, _ = start(tmp_path, without_sq1, queries=question)
    list(session.run(frames(3)))
    (missing,) = session.unanswered()
    assert "sq1 never seen" in missing


def test_a_terrain_edit_is_logged_and_changes_the_los_verdict(tmp_path):
    session, log = start(tmp_path, queries=[{"ask": "los", "from": "t34", "to": "pz4"}])
    list(session.run(frames(2)))
    assert session.ask({"ask": "los", "from": "t34", "to": "pz4"}).los == "clear"
    woods = {"id": "w1", "kind": "woods", "polygon": [[18, 15], [22, 15], [22, 21], [18, 21]]}
    update = session.edit_terrain("add", woods)
    assert update.events[0].type == "edit" and update.verdicts[0].los == "blocked"
    assert session.ask({"ask": "los", "from": "t34", "to": "pz4"}).los == "blocked"
    with pytest.raises(RefereeError, match="exists already"):
        session.edit_terrain("add", woods)
    with pytest.raises(RefereeError, match="polygon"):
        session.edit_terrain("replace", {"id": "w1", "kind": "woods", "polygon": [[1, 1]]})
    session.edit_terrain("remove", "w1")
    kinds = [e.type for e in log.events(session.game)]
    assert kinds.count("edit") == 2  # the refused edits left nothing


def test_a_dice_roll_declared_sets_the_next_moves_allowance(tmp_path):
    session, _log = start(tmp_path)
    list(session.run(frames(5)))
    update = session.declare(
        {"ask": "action", "card": "4S", "action": "move", "piece": "t34", "dice": [1, 2, 1]}
    )
    assert [e.type for e in update.events] == ["declare", "verdict"]
    assert update.verdicts[0].ok is True  # 4 >= difficulty 4
    (ruling,) = [r for u in session.run(frames(10, start=5)) for r in u.rulings]
    assert ruling.ok is False  # 6in moved on a 4in allowance
    with pytest.raises(RefereeError, match="unknown question"):
        session.declare({"ask": "teleport", "piece": "t34"})


def test_a_roster_edit_is_logged_followed_by_the_camera_and_replayed(tmp_path):
    session, log = start(tmp_path)
    list(session.run(frames(3)))
    hq = {"tag": 9, "id": "hq", "side": "soviet", "kind": "tank", "base": [1.5, 3.0]}
    update = session.edit_roster("add", hq)
    assert update.events[0].data == {"edit": "roster", "action": "add", "piece": hq}
    assert session.pipeline.roster.by_tag(9).id == "hq"
    with pytest.raises(RefereeError, match="tag"):  # a tag that is already taken
        session.edit_roster("add", {**hq, "id": "hq2"})
    with pytest.raises(RefereeError, match="replace it instead"):
        session.edit_roster("add", hq)
    session.edit_roster("remove", "sq1")
    assert "sq1" not in session.scene and session.pipeline.roster.by_id("sq1") is None
    edits = [e for e in log.events(session.game) if e.type == "edit"]
    assert len(edits) == 2
    replayed, _ = scene_at(log, session.game)
    assert "sq1" not in replayed and "t34" in replayed
    again, _ = start(tmp_path, log=log)
    assert again.pipeline.roster.by_tag(9).id == "hq" and again.roster.by_id("sq1") is None


def test_the_annotated_video_is_told_each_verdict_as_it_is_made(tmp_path):
    from referee.game.options import annotate_frame

    class Recorder:
        def __init__(self):
            self.said, self.frames = [], 0

        def announce(self, lines):
            self.said.append(lines)

        def write(self, result):
            self.frames += 1

    session, _ = start(tmp_path, queries=[{"ask": "range", "from": "t34", "to": "pz4"}])
    recorder = Recorder()
    for update in session.run(frames(12)):
        annotate_frame(recorder, update)
    assert recorder.frames == 12
    spoken = [lines[0] for lines in recorder.said]
    assert any("t34 moved 6.00in" in line for line in spoken)
    assert sum("range t34 -> pz4" in line for line in spoken) == 2  # at the start, after the move


def test_a_correction_points_at_what_it_supersedes(tmp_path):
    session, log = start(tmp_path)
    list(session.run(frames(12)))
    move = next(e for e in log.events(session.game) if e.type == "move")
    fix = session.correct(move.seq, "a player knocked it", void=True)
    assert fix.type == "correction" and fix.supersedes == move.seq
    with pytest.raises(RefereeError, match="no event"):
        session.correct(999, "nothing there", void=True)
    replayed, _ = scene_at(log, session.game)
    rested = move.data["from"]
    assert replayed.piece("t34").x == pytest.approx(rested["x"])  # back where it rested before
    assert session.scene.piece("t34").x == pytest.approx(rested["x"])


def test_replay_rebuilds_the_table_at_any_event_or_time(tmp_path):
    session, log = start(tmp_path, queries=[{"ask": "range", "from": "t34", "to": "pz4"}])
    list(session.run(frames(20)))
    woods = {"id": "w1", "kind": "woods", "polygon": [[18, 15], [22, 15], [22, 21], [18, 21]]}
    session.edit_terrain("add", woods)
    game = log.game("g")
    move = next(e for e in log.events(game) if e.type == "move")
    before, last = scene_at(log, game, seq=move.seq - 1)
    assert before.piece("t34").x == pytest.approx(10.0) and before.terrain == ()
    after, last = scene_at(log, game, seq=move.seq)
    assert after.piece("t34").x == pytest.approx(16.0) and last is not None
    assert last.seq == move.seq
    at_end, _ = scene_at(log, game)
    assert [t.id for t in at_end.terrain] == ["w1"]
    early, _ = scene_at(log, game, t=0.2)
    assert early.piece("t34").x == pytest.approx(10.0)
    assert [q["ask"] for q in at_end.queries] == ["range"]


def test_resuming_continues_the_sequence_and_rebuilds_the_state(tmp_path):
    script = game_script(move_at=40)
    session, log = start(tmp_path, script, queries=[{"ask": "follow_me", "leader": "t34"}])
    list(session.run(frames(20)))
    session.edit_terrain("add", {"id": "h", "kind": "hill", "polygon": [[0, 0], [2, 0], [2, 2]]})
    count = len(log.events(session.game))
    again, _ = start(tmp_path, script, log=log)
    assert again.last_seq == count and again.resume_after == 19
    assert [t.id for t in again.scene.terrain] == ["h"]
    assert set(again.pipeline.restored) == {"t34", "pz4", "sq1"}
    updates = list(again.run(frames(45)))
    assert updates[0].result.frame == 20  # frames already logged are skipped
    seqs = [e.seq for e in log.events(again.game)]
    assert seqs == list(range(1, len(seqs) + 1))
    (ruling,) = [r for u in updates for r in u.rulings]
    assert any("Follow Me by t34" in n for n in ruling.judgement.notes)  # the declaration kept
    assert again.flow._announced == []  # ...once: replaying the log does not declare it twice


def test_a_game_with_positions_but_no_events_yet_is_resumed_too(tmp_path):
    session, log = start(tmp_path, game_script(move_at=99))
    list(session.run(frames(3)))  # the unknown tag comes at frame 3
    session.close()
    assert session.last_seq == 0
    again, _ = start(tmp_path, game_script(move_at=99), log=log)
    assert again.resumed and again.resume_after == 2
    assert set(again.pipeline.restored) == {"t34", "pz4", "sq1"}


def test_a_resumed_live_game_continues_its_clock(tmp_path):
    session, log = start(tmp_path)
    list(session.run(frames(10)))
    session.close()
    # A camera, then a stream: their frames restart at 0, the game's clock goes on.
    for expected, source in ((10, "0"), (11, "http://phone.local:8080/video")):
        pipeline = ScriptedPipeline(game_script(move_at=99))
        live = Session.start(pipeline, None, log=log, game="g", source=source)
        assert live.resume_after == -1
        update = live.process(frames(1)[0])
        assert update.result.frame == expected and update.result.t > (expected - 1) / 30
        live.close()


FOOTAGE = repo_footage()


def _run_args(db, game="skirmish"):
    f = FOOTAGE
    return [
        "run",
        "--video",
        str(f / "video.mp4"),
        "-c",
        str(f / "camera.json"),
        "-r",
        str(f / "roster.json"),
        "--scene",
        str(f / "scene.json"),
        "--db",
        str(db),
        "--game",
        game,
        "-q",
    ]


def _moves_logged(db):
    try:
        log = GameLog(db, readonly=True)
    except RefereeError:
        return 0
    try:
        game = log.find("skirmish")
        return 0 if game is None else game.moves
    finally:
        log.close()


@pytest.mark.slow
def test_a_run_killed_part_way_and_resumed_exports_every_true_move_once(tmp_path):
    """The issue's bar: SIGKILL mid-game, run again with the same --game, export."""
    db = tmp_path / "games.sqlite"
    command = [sys.executable, "-m", "referee", *_run_args(db)]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _moves_logged(db) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    killed_at = _moves_logged(db)
    assert 3 <= killed_at < 7, "killed part way"
    result = CliRunner().invoke(cli, _run_args(db))
    assert result.exit_code == 0, result.output
    assert "resuming game 'skirmish'" in result.output
    exported = CliRunner().invoke(cli, ["log", "export", "skirmish", "--db", str(db)])
    lines = [json.loads(line) for line in exported.output.splitlines()]
    assert [e["seq"] for e in lines] == list(range(1, len(lines) + 1))
    assert {e["type"] for e in lines} <= {"move", "verdict", "declare", "flag", "camera"}
    moves = [e for e in lines if e["type"] == "move"]
    truth = json.loads((FOOTAGE / "truth-moves.json").read_text())["moves"]
    assert [m["piece"] for m in moves] == [m["piece"] for m in truth]
    for logged, true in zip(moves, truth, strict=True):
        assert (
            math.dist((logged["to"]["x"], logged["to"]["y"]), (true["to"]["x"], true["to"]["y"]))
            < 0.05
        )
        verdicts = [e for e in lines if e["type"] == "verdict" and e.get("about") == logged["seq"]]
        assert verdicts and verdicts[0]["verdict"]["ask"] == "move"
        assert set(verdicts[0]["verdict"]) >= {"ask", "ok", "reasons"}


def test_log_commands_show_export_and_replay_a_game(tmp_path):
    db = tmp_path / "games.sqlite"
    result = CliRunner().invoke(cli, _run_args(db))
    assert result.exit_code == 0, result.output
    assert "logging game 'skirmish'" in result.output
    listed = CliRunner().invoke(cli, ["log", "list", "--db", str(db)])
    assert "skirmish" in listed.output and " 7 moves" in listed.output
    shown = CliRunner().invoke(cli, ["log", "show", "skirmish", "--db", str(db)])
    assert len(re.findall(r"#\d+ +move ", shown.output)) == 7
    assert "Follow Me by t34a" in shown.output
    csv = CliRunner().invoke(cli, ["log", "export", "skirmish", "--db", str(db), "--format", "csv"])
    rows = csv.output.splitlines()
    assert rows[0] == "seq,t,type,frame,piece,supersedes,summary,data"
    out = tmp_path / "then.json"
    replayed = CliRunner().invoke(
        cli, ["log", "replay", "skirmish", "--at", "5s", "--db", str(db), "--out", str(out)]
    )
    assert replayed.exit_code == 0, replayed.output
    then = json.loads(out.read_text())
    truth = {m["piece"]: m for m in json.loads((FOOTAGE / "truth-moves.json").read_text())["moves"]}
    stand = {p["id"]: (p["x"], p["y"]) for p in then["pieces"]}
    to, start = truth["t34a"]["to"], truth["t34b"]["from"]
    assert stand["t34a"] == pytest.approx((to["x"], to["y"]), abs=0.05)  # moved at 3.3s
    assert stand["t34b"] == pytest.approx((start["x"], start["y"]), abs=0.05)  # not yet (6s)
    checked = CliRunner().invoke(cli, ["check", str(out), "--json"])
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.output)["verdicts"]
    bad = CliRunner().invoke(cli, ["log", "replay", "skirmish", "--at", "soon", "--db", str(db)])
    assert bad.exit_code == 2 and "--at" in bad.output
    missing = CliRunner().invoke(cli, ["log", "show", "nope", "--db", str(db)])
    assert missing.exit_code == 2 and "skirmish" in missing.output  # lists the games there are


@pytest.mark.slow  # two whole demo runs; the README's first command is demo
def test_demo_logs_by_default_and_says_where(tmp_path):
    db = tmp_path / "demo.sqlite"
    result = CliRunner().invoke(cli, ["demo", "--use-true-camera", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert f"game log: {db}" in result.output
    (game,) = GameLog(db, readonly=True).games()
    assert game.moves == 7
    quiet = CliRunner().invoke(cli, ["demo", "--use-true-camera", "--no-log"])
    assert quiet.exit_code == 0 and "game log" not in quiet.output


def test_the_default_log_lives_in_the_users_data_directory(tmp_path, monkeypatch):
    from referee.store import default_db_path

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert default_db_path() == tmp_path / "table-referee" / "games.sqlite"
    monkeypatch.setenv("REFEREE_DB", str(tmp_path / "mine.sqlite"))
    assert default_db_path() == tmp_path / "mine.sqlite"


def test_events_export_as_strict_json():
    from referee.events import GameEvent

    event = GameEvent(3, 1.0, "verdict", {"verdict": {"distance": float("nan")}}, 30)
    assert event.to_json() == {
        "seq": 3,
        "t": 1.0,
        "type": "verdict",
        "frame": 30,
        "verdict": {"distance": None},
    }
    assert GameEvent.from_json(event.to_json()) == replace(
        event, data={"verdict": {"distance": None}}
    )
    with pytest.raises(ValueError, match="unknown event type"):
        GameEvent(1, 0.0, "gossip")


def test_run_refuses_a_scene_question_check_would_refuse_before_any_frame(tmp_path):
    scene = json.loads((FOOTAGE / "scene.json").read_text())
    scene["queries"].append({"ask": "los", "from": "t34a"})  # no "to"
    bad = tmp_path / "scene.json"
    bad.write_text(json.dumps(scene))
    args = _run_args(tmp_path / "games.sqlite")
    args[args.index("--scene") + 1] = str(bad)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert f"$.queries[{len(scene['queries']) - 1}]" in result.output
    checked = CliRunner().invoke(cli, ["check", str(bad)])
    assert checked.exit_code == 2


def test_a_video_shorter_than_its_header_is_warned_about(tmp_path, capsys):
    from referee.game import drive
    from referee.vision.sources import FrameSource

    class Truncated(FrameSource):
        name = "game.mp4"
        fps = 30.0
        frame_count = 100

        def __iter__(self):
            return iter(frames(40))

    session, _ = start(tmp_path)
    assert drive(session, Truncated(), progress=False) == 40
    assert "ended after 40 of the 100 frames" in capsys.readouterr().err


# -- the tracked path reaches the rules (Pz8 Coastal pivots) ---------------------------------

COAST = Roster(
    "DICT_4X4_100",
    (
        RosterEntry(1, "mtb", "uk", "vosper mtb", (0.25, 1.0)),
        RosterEntry(2, "cv", "uk", "flower corvette", (0.4, 1.6)),
    ),
)


class TrackingPipeline(ScriptedPipeline):
    """The real tracker on scripted poses (no pictures): rests, paths and moves as live."""

    def __init__(self, script):
        super().__init__(script)
        self.roster = COAST
        self.tracker = Tracker(COAST)

    def reset(self):
        self.tracker.reset()

    def process(self, frame):
        poses = tuple(
            PiecePose(pid, COAST.by_id(pid).tag, *p, 0.01)
            for pid, p in self.script(frame.index)[0].items()
            if p is not None
        )
        state = self.tracker.update(frame.index, frame.t, FramePoses(poses, Detections.empty(), ()))
        return FrameResult(frame.index, frame.t, Detections.empty(), state, state.events, PROFILE)


def pivot_then_slide(i):
    """mtb rests, pivots 90 deg on the spot, slides 3in on and rests; cv never moves."""
    where = {"cv": (30.0, 20.0, 0.0)}
    if i < 20:
        where["mtb"] = (10.0, 10.0, 0.0)
    elif i < 38:
        where["mtb"] = (10.0, 10.0, 5.0 * (i - 19))
    elif i < 98:
        where["mtb"] = (10.0, 10.0 + 0.05 * (i - 37), 90.0)
    else:
        where["mtb"] = (10.0, 13.0, 90.0)
    return where, []


def coastal_session(tmp_path, game="c"):
    scene = Scene(
        "pz8-coastal",
        Table(48, 36),
        tuple(Piece(e.id, e.side, e.kind, 1, 1, 0, e.base) for e in COAST),
    )
    log = GameLog(tmp_path / "games.sqlite")
    session = Session.start(TrackingPipeline(pivot_then_slide), scene, log=log, game=game)
    return session, log


def test_the_tracked_path_is_logged_and_judged_pivot_by_pivot(tmp_path):
    session, log = coastal_session(tmp_path)
    rulings = [r for u in session.run(frames(130)) for r in u.rulings]
    (ruling,) = rulings
    (verdict,) = ruling.verdicts
    # Start and end alone look like a 3in run then a 90 deg turn (legal for an MTB);
    # the path shows the 90 deg pivot on the spot before any movement.
    assert verdict.ok is False
    assert verdict.details["path"] == "tracked"
    assert any("after 0.00in: over" in r for r in verdict.reasons), verdict.reasons
    assert verdict.distance == pytest.approx(3.0, abs=0.02)
    move = next(e for e in log.events(session.game) if e.type == "move")
    via = move.data["via"]
    assert 10 <= len(via) <= 30 and set(via[0]) == {"x", "y", "heading"}
    ends = {"from": move.data["from"], "to": move.data["to"]}
    bare = session.ruleset.answer(session.scene, {"ask": "move", "piece": "mtb", **ends})
    assert bare.ok is True and "no tracked path" in " ".join(bare.reasons)
    session.close()


def test_a_declared_speed_holds_for_the_next_move_and_a_resumed_game_replays_the_path(tmp_path):
    session, log = coastal_session(tmp_path)
    list(session.run(frames(20)))
    update = session.declare({"ask": "speed", "piece": "mtb", "speed": 4})
    assert update.verdicts[0].ok is True
    refused = session.declare({"ask": "speed", "piece": "cv", "speed": 4})
    assert refused.verdicts[0].ok is False  # a Flower corvette tops out at 3in
    (ruling,) = [r for u in session.run(frames(110, start=20)) for r in u.rulings]
    assert any("shorter than the speed 4in" in r for r in ruling.verdicts[0].reasons)
    session.close()
    # Resumed: the logged path and the declared speed are fed to the flow again.
    again = Session.start(TrackingPipeline(pivot_then_slide), log=log, game="c")
    assert again.resumed and again.flow._speeds == {"mtb": 4}
    again.close()


def test_subscribers_are_called_with_no_session_lock_held(tmp_path):
    """A subscriber with a lock of its own (the live table's) and a thread holding that lock
    while it asks the session a question: neither waits for the other (DESIGN.md, "Threads";
    issue 30: this cycle froze 'referee serve')."""
    session, log = start(tmp_path)
    theirs = threading.Lock()
    heard: list[int] = []

    def subscriber(update):
        with theirs:
            heard.extend(e.seq for e in update.events)

    session.subscribe(subscriber)
    theirs.acquire()
    framer = threading.Thread(target=lambda: list(session.run(frames(12))), daemon=True)
    framer.start()
    time.sleep(0.2)  # let the frame reach the subscriber (the test holds for either order)
    asker = threading.Thread(
        target=session.ask, args=({"ask": "range", "from": "t34", "to": "pz4"},), daemon=True
    )
    asker.start()
    asker.join(20)
    asked = not asker.is_alive()
    theirs.release()
    framer.join(20)
    assert asked, "deadlock: the question waited for a subscriber holding the session lock"
    assert not framer.is_alive()
    assert heard == sorted(heard) == [e.seq for e in log.events(session.game)][-len(heard) :]
