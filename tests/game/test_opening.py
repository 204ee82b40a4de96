"""Opening a game on its own: a new one created in the log, a logged one kept as it was."""

from __future__ import annotations

import pytest
from game.test_session import PROFILE, ScriptedPipeline, game_script, scene

from referee.errors import RefereeError, SceneError
from referee.game.opening import DEFAULT_RULESET, bare_scene, game_name, open_game
from referee.store import GameLog


def test_a_new_game_is_created_in_the_log_on_the_scene_and_its_ruleset(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    opened, rules, game = open_game(
        ScriptedPipeline(game_script()), scene(), None, log=log, game="g", source="clip"
    )
    assert rules.name == "paper-tigers" and opened.ruleset == "paper-tigers"
    assert game is not None and game.name == "g" and game.source == "clip"
    assert log.find("g") is not None


def test_a_logged_game_keeps_its_scene_and_ruleset_and_is_held(tmp_path):
    log = GameLog(tmp_path / "games.sqlite")
    pipeline = ScriptedPipeline(game_script())
    open_game(pipeline, scene(), None, log=log, game="g", source=None)
    other = bare_scene(PROFILE, "plastic-skirmish")
    opened, rules, game = open_game(
        pipeline, other, "plastic-skirmish", log=log, game="g", source=None
    )
    assert rules.name == "paper-tigers" and opened == scene()
    assert game is not None and log.holds(game)


def test_without_a_log_a_bare_table_under_the_default_ruleset():
    opened, rules, game = open_game(
        ScriptedPipeline(game_script()), None, None, log=None, game=None, source=None
    )
    assert game is None and rules.name == DEFAULT_RULESET
    assert (opened.table.width, opened.table.depth) == (48, 36) and opened.pieces == ()


def test_an_unknown_ruleset_or_an_unaskable_question_is_refused():
    pipeline = ScriptedPipeline(game_script())
    with pytest.raises(RefereeError, match="--ruleset"):
        open_game(pipeline, None, "no-such-game", log=None, game=None, source=None)
    bad = scene(queries=[{"ask": "range", "from": "t34", "to": "nobody"}])
    with pytest.raises(SceneError, match=r"queries\[0\]"):
        open_game(pipeline, bad, None, log=None, game=None, source=None)


def test_a_default_name_says_when_the_game_began():
    assert game_name("serve").startswith("serve-20")
