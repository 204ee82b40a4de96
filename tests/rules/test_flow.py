"""The ruleset's game-flow hook: settled moves judged with allowances and Follow Me obligations."""

from __future__ import annotations

import dataclasses

import pytest

from referee.geometry import Pose
from referee.rules import find_ruleset
from referee.rules.flow import GameFlow, SettledMove
from referee.rules.paper_tigers import PaperTigersFlow
from referee.scene import Piece, Scene, Table, Terrain

START = {"t34a": (10.0, 20.0), "t34b": (12.5, 20.0), "sq1": (30.0, 20.0)}
KINDS = {"t34a": ("tank", (1.5, 3.0)), "t34b": ("tank", (1.5, 3.0)), "sq1": ("infantry", (2, 1))}


def scene():
    pieces = tuple(
        Piece(pid, "soviet", KINDS[pid][0], *START[pid], heading=270, base=KINDS[pid][1])
        for pid in START
    )
    woods = Terrain("wood1", "woods", ((28, 8), (34, 8), (34, 14), (28, 14)))
    return Scene("paper-tigers", Table(48, 36), pieces, (woods,))


def move(pid, to):
    return SettledMove(pid, Pose(*START[pid], 270.0), Pose(*to, 270.0))


def after(table, pid, to):
    return table.with_pieces(table.piece(pid).moved(*to))


def flow(*declarations):
    rules = find_ruleset("paper-tigers")
    f = rules.game_flow()
    for query in declarations:
        f.declare(scene(), query)
    return f


def test_paper_tigers_has_its_own_flow_and_others_the_base_one():
    assert isinstance(find_ruleset("pt").game_flow(), PaperTigersFlow)
    assert type(GameFlow(find_ruleset("pt"))) is GameFlow


def test_a_declared_allowance_applies_to_the_next_move_only():
    f = flow({"ask": "move", "piece": "sq1", "allowance": 4})
    first = f.judge(scene(), move("sq1", (30.0, 14.5)))
    assert first.ok is False  # 5.5in with a 4in allowance
    assert any("4in" in r for v in first.verdicts for r in v.reasons)
    second = f.judge(scene(), move("sq1", (30.0, 15.0)))
    assert second.ok is True  # 5in: only the 6in infantry cap applies now


def test_a_successful_move_roll_sets_the_allowance():
    f = flow()
    declared = f.declare(
        scene(), {"ask": "action", "card": "5H", "action": "move", "piece": "sq1", "dice": [2, 3]}
    )
    assert declared.taken and declared.verdict is not None and declared.verdict.ok is True
    judged = f.judge(scene(), move("sq1", (30.0, 14.5)))  # 5.5in > 5in rolled
    assert judged.ok is False


def test_a_failed_roll_is_no_allowance():
    declared = flow().declare(
        scene(), {"ask": "action", "card": "KH", "action": "move", "piece": "sq1", "dice": [1, 2]}
    )
    assert not declared.taken and declared.verdict is not None and declared.verdict.ok is False


def test_entering_woods_and_going_on_is_not_ok():
    assert flow().judge(scene(), move("sq1", (31.0, 6.0))).ok is False


def test_announced_follow_me_checks_each_follower_after_its_move():
    f = flow({"ask": "follow_me", "leader": "t34a", "action": "move"})
    lead = f.judge(scene(), move("t34a", (10.0, 14.0)))
    assert any("t34b follows t34a" in n for n in lead.notes)
    table = after(scene(), "t34a", (10.0, 14.0))
    follow = f.judge(table, move("t34b", (18.0, 14.0)))
    assert [v.ask for v in follow.verdicts] == ["move", "follow_check"]
    assert follow.verdicts[1].ok is False  # ended more than 3in from the leader
    assert follow.ok is False


def test_a_follower_that_stays_close_is_ok():
    f = flow({"ask": "follow_me", "leader": "t34a", "action": "move"})
    f.judge(scene(), move("t34a", (10.0, 14.0)))
    table = after(scene(), "t34a", (10.0, 14.0))
    follow = f.judge(table, move("t34b", (12.5, 14.5)))
    assert [v.ok for v in follow.verdicts] == [True, True]


def test_a_move_of_an_unknown_piece_is_doubtful_not_a_crash():
    judged = flow().judge(scene(), SettledMove("ghost", Pose(1, 1), Pose(2, 2)))
    assert judged.ok is None and "cannot judge" in judged.verdicts[0].reasons[0]


@pytest.mark.parametrize("declaration", [{"ask": "range", "from": "t34a", "to": "sq1"}])
def test_questions_are_not_declarations(declaration):
    assert not flow().declare(scene(), declaration).taken


@pytest.mark.parametrize(
    ("ruleset", "kind", "limit"),
    [
        ("pz8-ww2", "medium tank", 4.0),
        ("pz8-1950", "helicopter", 18.0),
        ("pz8-1975", "apc", 6.0),
        ("pz8-scifi", "gev", 12.0),
        ("plastic-skirmish", "rifle guy", 6.0),
        ("pz8-colonial", "mounted", 12.0),
    ],
)
def test_every_system_judges_a_settled_move_with_its_own_move_question(ruleset, kind, limit):
    """The base hook: no declarations needed, the system's own allowance by type applies."""
    rules = find_ruleset(ruleset)
    f = rules.game_flow()
    assert type(f) is GameFlow
    table = Scene(ruleset, Table(48, 36), (Piece("u", "a", kind, 10, 10, heading=0),))
    at_limit = f.judge(table, SettledMove("u", Pose(10, 10, 0), Pose(10 + limit, 10, 0)))
    over = f.judge(table, SettledMove("u", Pose(10, 10, 0), Pose(10.02 + limit, 10, 0)))
    assert at_limit.ok is True and at_limit.verdicts[0].limit == limit
    assert over.ok is False and over.verdicts[0].ask == "move"


def test_papercraft_flow_uses_the_units_own_move_stat():
    rules = find_ruleset("papercraft")
    piece = Piece("orc", "a", "character", 10, 10, fields={"move": 5})
    table = Scene("papercraft", Table(36, 36), (piece,))
    f = rules.game_flow()
    assert f.judge(table, SettledMove("orc", Pose(10, 10, 0), Pose(15, 10, 0))).ok is True
    assert f.judge(table, SettledMove("orc", Pose(10, 10, 0), Pose(15.1, 10, 0))).ok is False


def test_a_typed_move_is_judged_as_its_json_question() -> None:
    """The session's typed entry point: a MoveQuery built from a settled move gives the
    verdict the same question asked as JSON gives."""
    from referee.rules import MoveQuery
    from referee.rules.cli import EXAMPLE
    from referee.scene import load_scene

    scene = load_scene(EXAMPLE)
    rules = find_ruleset(scene.ruleset)
    piece = scene.piece("sq1")
    end = Pose(20.0, 16.0, 270.0)
    typed = rules.answer_move(scene, MoveQuery.of(piece, piece.pose, end, allowance=5))
    asked = rules.answer(
        scene,
        {"ask": "move", "piece": "sq1", "to": {"x": 20, "y": 16, "heading": 270}, "allowance": 5},
    )
    assert typed.to_json() == asked.to_json()
    assert typed.to_json()["piece"] == "sq1"


@pytest.mark.parametrize(
    "declared, extra",
    [
        ((), {}),
        (({"ask": "move", "piece": "sq1", "allowance": 4},), {"allowance": 4.0}),
    ],
)
def test_a_settled_move_is_judged_typed_as_the_same_question_in_json(declared, extra):
    """The session's settled move reaches the rules as a typed query (no JSON on the way in)
    and gets the very verdict the scene file's ``move`` question gets, query included."""
    settled = SettledMove(
        "sq1", Pose(30.0, 20.0, 270.0), Pose(30.0, 14.5, 630.0), via=(Pose(30.0, 17.0, -90.0),)
    )
    typed = flow(*declared).judge(scene(), settled).verdicts[0]
    asked = {
        "ask": "move",
        "piece": "sq1",
        "from": {"x": 30.0, "y": 20.0, "heading": 270.0},
        "to": {"x": 30.0, "y": 14.5, "heading": 630.0},
        "via": [{"x": 30.0, "y": 17.0, "heading": -90.0}],
        **extra,
    }
    by_json = find_ruleset("paper-tigers").answer(scene(), asked)
    assert typed.to_json() == by_json.to_json()
    assert typed.query is not None and typed.query["to"]["heading"] == 270.0  # read as JSON is


def test_a_settled_move_of_a_piece_the_scene_lacks_cannot_be_judged():
    judged = flow().judge(scene(), dataclasses.replace(move("sq1", (30.0, 14.5)), piece="ghost"))
    assert judged.ok is None and "ghost" in judged.verdicts[0].reasons[0]
