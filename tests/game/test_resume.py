"""Resume on its own: a game written straight into a log is taken up where it stopped."""

from __future__ import annotations

import pytest
from game.test_session import ROSTER, START, ScriptedPipeline, game_script, move_event, scene

from referee.events import GameEvent
from referee.game.edits import edit_data
from referee.game.frames import move_data
from referee.game.resume import resume
from referee.game.standing import StandingQuestions
from referee.game.table import TableState
from referee.rules import find_ruleset
from referee.store import GameLog, Position

RULES = find_ruleset("paper-tigers")
RANGE = {"ask": "range", "from": "t34", "to": "pz4"}
WOODS = {"id": "w1", "kind": "woods", "polygon": [[18, 15], [22, 15], [22, 21], [18, 21]]}


def rest(pid, frame, x, y, heading, state="settled"):
    return Position(pid, state, x, y, heading, 0.01, True, frame, frame / 30)


def logged(tmp_path, *later: GameEvent):
    """A game of 26 frames: all settle at 0, t34 moves at 10, woods drawn, pz4 lifted at 20."""
    log = GameLog(tmp_path / "games.sqlite")
    clip = tmp_path / "clip"
    clip.mkdir(exist_ok=True)
    game = log.create_game("g", "paper-tigers", scene([RANGE]).to_json(), source=str(clip))
    log.append(game, [], [rest(p, 0, *START[p]) for p in START], progress=(0, 0.0))
    move = GameEvent(1, 10 / 30, "move", move_data(move_event("t34", (16, 18, 0), 10)), 10)
    woods = GameEvent(2, 12 / 30, "edit", edit_data("terrain", "add", WOODS), 12)
    at = {"x": 30.0, "y": 18.0, "heading": 180.0}
    lifted = GameEvent(3, 20 / 30, "removed", {"piece": "pz4", "tag": 2, "at": at}, 20)
    log.append(game, [move], [rest("t34", 10, 16, 18, 0)], progress=(10, 10 / 30))
    log.append(game, [woods], progress=(12, 12 / 30))
    log.append(game, [lifted], [rest("pz4", 20, 30, 18, 180, "removed")], progress=(25, 25 / 30))
    if later:
        log.append(game, list(later), progress=(25, 25 / 30))
    return log, log.game("g"), str(clip)


def take_up(log, game, source):
    table, standing = TableState(scene([RANGE]), ROSTER), StandingQuestions()
    pipeline = ScriptedPipeline(game_script())
    done = resume(
        log,
        game,
        source,
        ruleset=RULES,
        flow=RULES.game_flow(),
        table=table,
        standing=standing,
        pipeline=pipeline,
    )
    return done, table, standing, pipeline


def test_resuming_puts_the_pieces_where_they_rested_and_the_terrain_as_edited(tmp_path):
    log, game, clip = logged(tmp_path)
    done, table, standing, pipeline = take_up(log, game, clip)
    now = table.scene()
    assert {p.id for p in now} == {"t34", "sq1"}  # pz4 was lifted off
    assert (now.piece("t34").x, now.piece("t34").y) == (16, 18)
    assert [t.id for t in now.terrain] == ["w1"]
    assert len(standing) == 1  # the scene's range question stands again
    # The tracker starts from the same resting poses; the sequence goes on after seq 3.
    assert set(pipeline.restored) == {"t34", "sq1"} and pipeline.restored["t34"].x == 16
    assert (done.seq, done.frame, done.t) == (3, 25, pytest.approx(25 / 30))
    assert sorted(done.told) == [1, 3] and set(done.logged) == {"t34", "pz4", "sq1"}
    # The same recording skips what was logged; another source goes on after it.
    assert (done.resume_after, done.frame_offset) == (25, 0)
    other, *_ = take_up(log, game, str(tmp_path / "camera"))
    assert (other.resume_after, other.frame_offset) == (-1, 26)
    assert other.t_offset == pytest.approx(25 / 30 + 1 / 30)


def test_the_players_corrections_win_over_the_camera(tmp_path):
    void = GameEvent(4, 25 / 30, "correction", {"supersedes": 1, "reason": "bumped", "void": True})
    undone = {"supersedes": 3, "reason": "still there", "void": True}
    back = GameEvent(5, 25 / 30, "correction", undone)
    log, game, clip = logged(tmp_path, void, back)
    _done, table, _standing, pipeline = take_up(log, game, clip)
    now = table.scene()
    assert (now.piece("t34").x, now.piece("t34").y) == START["t34"][:2]  # the move never was
    assert "pz4" in now and "pz4" in pipeline.restored  # the removal undone: back on the table
