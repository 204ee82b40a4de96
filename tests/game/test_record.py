"""The recorder: one transaction a change, progress marks, positions thinned of noise."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from referee.errors import RefereeError
from referee.events import GameEvent
from referee.game.record import MOVING_EVERY, PROGRESS_EVERY, Recorder
from referee.scene import Scene, Table
from referee.store import GameLog
from referee.vision.pose import PiecePose
from referee.vision.track import TrackedPiece

EMPTY = Scene("paper-tigers", Table(48, 36), ())


def frame(i: int, t: float, *pieces: tuple[str, str, float]):
    """A frame result as far as the recorder reads one: its tracks."""
    tracked = tuple(
        TrackedPiece(PiecePose(pid, 1, x, 18.0, 0.0, 0.01), state) for pid, state, x in pieces
    )
    return SimpleNamespace(frame=i, t=t, tracks=SimpleNamespace(pieces=tracked), image=None)


def test_a_resting_piece_is_logged_once_until_it_moves_past_the_noise():
    recorder = Recorder(None, None)
    assert len(recorder.changed_positions(frame(0, 0.0, ("t34", "settled", 10.0)))) == 1
    assert recorder.changed_positions(frame(1, 0.1, ("t34", "settled", 10.01))) == []
    [row] = recorder.changed_positions(frame(2, 0.2, ("t34", "settled", 11.0)))
    assert (row.piece, row.x, row.frame) == ("t34", 11.0, 2)


def test_a_piece_in_a_hand_is_logged_at_most_every_moving_interval():
    recorder = Recorder(None, None)
    recorder.changed_positions(frame(0, 0.0, ("t34", "moving", 10.0)))
    soon = MOVING_EVERY / 2
    assert recorder.changed_positions(frame(1, soon, ("t34", "moving", 12.0))) == []
    assert len(recorder.changed_positions(frame(2, MOVING_EVERY, ("t34", "moving", 14.0)))) == 1


def test_a_change_is_one_transaction_with_a_progress_mark(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    game = log.create_game("g", "paper-tigers", EMPTY.to_json())
    recorder = Recorder(log, game)
    event = GameEvent(1, 0.5, "flag", {"kind": "unknown_tag", "message": "tag 9"}, 3)
    recorder.commit([event], [], 3, 0.5, None, lambda: EMPTY)
    assert [e.data["message"] for e in log.events(game)] == ["tag 9"]
    assert recorder.last_progress == 3
    # Nothing new and few frames since: nothing written; enough frames: a progress mark.
    recorder.commit([], [], 4, 0.6, None, lambda: EMPTY)
    assert recorder.last_progress == 3
    recorder.commit([], [], 3 + PROGRESS_EVERY, 2.0, None, lambda: EMPTY)
    assert recorder.last_progress == 3 + PROGRESS_EVERY
    assert log.find("g").last_frame == 3 + PROGRESS_EVERY


def test_a_refused_write_logs_nothing_and_says_so(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    game = log.create_game("g", "paper-tigers", EMPTY.to_json())
    recorder = Recorder(log, game)
    recorder.commit([GameEvent(1, 0.0, "flag", {"message": "a"})], [], 0, 0.0, None, lambda: EMPTY)
    with pytest.raises(RefereeError):  # seq 1 again: the log keeps one event a seq
        recorder.commit(
            [GameEvent(1, 0.0, "flag", {"message": "b"})], [], 1, 0.1, None, lambda: EMPTY
        )
    assert [e.data["message"] for e in log.events(game)] == ["a"]


def test_without_a_log_nothing_is_written_and_nothing_fails():
    recorder = Recorder(None, None)
    recorder.commit([GameEvent(1, 0.0, "flag", {"message": "a"})], [], 0, 0.0, None, lambda: EMPTY)
    assert recorder.last_progress == -1
