"""The live table's frame thread: pacing, looping the sample as new games, stopping."""

from __future__ import annotations

import time
from dataclasses import replace

from game.footage import First, until

from referee.game import sample_live
from referee.store import GameLog


def test_the_sample_loops_as_new_games_keeping_the_terrain(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    live = sample_live(pace=0, log=log, game="loop")
    video = live.footage.name
    live.footage = replace(live.footage, open=lambda: First(video, 15))
    woods = {"id": "drawn", "kind": "woods", "polygon": [[1, 1], [3, 1], [3, 3]]}
    live.session.edit_terrain("add", woods)
    first_generation = live.generation
    live.start()
    until(lambda: live.passes >= 2)
    live.stop()
    assert not live.running and live.error is None
    assert live.generation > first_generation
    names = [g.name for g in log.games()]
    assert names[:2] == ["loop", "loop-pass2"]
    assert "drawn" in {t.id for t in live.session.scene.terrain}  # carried into the new game
    second = log.game("loop-pass2")
    assert second.last_frame >= 14  # the pass was played and logged from its own frame 0
    log.close()


def test_recordings_are_paced_to_real_time():
    live = sample_live(pace=2.0)
    video = live.footage.name
    live.footage = replace(live.footage, open=lambda: First(video, 13), loop=False)
    started = time.monotonic()
    live.start()
    until(lambda: not live.running)
    elapsed = time.monotonic() - started
    live.stop()
    assert live.frames == 13
    assert elapsed >= 12 / 12.0 / 2.0  # 12 frame intervals at 12 fps, twice real time


def test_a_failing_source_stops_the_loop_with_its_reason():
    live = sample_live(pace=0)

    def broken():
        from referee.errors import SourceError

        raise SourceError("camera unplugged for good")

    live.footage = replace(live.footage, open=broken)
    live.start()
    until(lambda: not live.running)
    assert live.error == "camera unplugged for good"
    live.stop()
