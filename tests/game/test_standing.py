"""Standing questions: answered once their pieces are on the table, again when one moves."""

from __future__ import annotations

from referee.game.standing import StandingQuestions
from referee.rules import find_ruleset
from referee.scene import Piece, Scene, Table

RULES = find_ruleset("paper-tigers")
RANGE = {"ask": "range", "from": "t34", "to": "pz4"}


def scene(*pieces: Piece) -> Scene:
    return Scene("paper-tigers", Table(48, 36), pieces)


def tank(pid: str, side: str, x: float) -> Piece:
    return Piece(pid, side, "tank", x, 18, 0, (1.5, 3.0))


def test_a_question_waits_for_its_pieces_then_is_answered_once_until_one_moves():
    standing = StandingQuestions()
    flow = RULES.game_flow()
    i = standing.add(RANGE)
    only_one = scene(tank("t34", "soviet", 10))
    assert standing.answer(flow, only_one, standing.every()) == []
    assert standing.unanswered({"t34"}) == [
        'range {"ask": "range", "from": "t34", "to": "pz4"}: pz4 never seen'
    ]
    near = scene(tank("t34", "soviet", 10), tank("pz4", "german", 20))
    [(asked, verdict)] = standing.answer(flow, near, standing.touched({"pz4"}))
    assert asked == i and verdict.ask == "range"
    assert standing.unanswered({"t34", "pz4"}) == []
    # The same table again: no news, nothing to log.
    assert standing.answer(flow, near, standing.touched({"pz4"})) == []
    # Asked anyway (a correction re-asks what it touched).
    assert len(standing.answer(flow, near, {i}, always=True)) == 1
    far = scene(tank("t34", "soviet", 1), tank("pz4", "german", 47))
    [(_, moved)] = standing.answer(flow, far, standing.touched({"t34"}))
    assert moved.to_json() != verdict.to_json()


def test_only_questions_naming_a_moved_piece_or_none_are_touched():
    standing = StandingQuestions()
    standing.add(RANGE)
    standing.add({"ask": "los", "from": "sq1", "to": "pz4"})
    standing.add({"ask": "follow_me", "leader": "t34", "action": "fire"})
    standing.add({"ask": "objectives"})
    assert standing.touched({"t34"}) == {0, 2, 3}
    assert standing.touched({"sq1"}) == {1, 3}
    assert [q["ask"] for q in standing.answerable({"t34", "pz4"})] == [
        "range",
        "follow_me",
        "objectives",
    ]


def test_answers_logged_before_are_not_news_and_an_undone_change_restores_them():
    standing = StandingQuestions()
    flow = RULES.game_flow()
    standing.add(RANGE)
    near = scene(tank("t34", "soviet", 10), tank("pz4", "german", 20))
    verdict = flow.answer(near, RANGE)
    standing.answered(0, verdict.to_json())  # as a resumed game reads it from the log
    assert standing.answer(flow, near, standing.every()) == []
    before = standing.answers()
    far = scene(tank("t34", "soviet", 1), tank("pz4", "german", 47))
    assert len(standing.answer(flow, far, standing.every())) == 1
    standing.restore(before)
    assert len(standing.answer(flow, far, standing.every())) == 1
