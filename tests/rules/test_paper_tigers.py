"""Paper Tigers pieces beyond the golden files: registry, settings, all-pairs agreement."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from referee.rules import QueryError, Verdict, find_ruleset, judge, ruleset_names
from referee.rules.cards import Card
from referee.rules.paper_tigers import PaperTigers
from referee.scene import Piece, Scene, Table, Terrain

DATA = Path(__file__).resolve().parents[1] / "data" / "paper_tigers"


@pytest.mark.parametrize(
    "name", ["paper-tigers", "PaperTigers", "pt", "Paper Tigers", "PAPER_TIGERS"]
)
def test_find_ruleset_aliases(name: str) -> None:
    assert isinstance(find_ruleset(name), PaperTigers)


def test_unknown_ruleset_lists_known_names() -> None:
    with pytest.raises(ValueError, match=r"unknown ruleset 'chess' \(known: paper-tigers"):
        find_ruleset("chess")
    assert "paper-tigers" in ruleset_names()


def test_settings_are_switchable_and_checked() -> None:
    rules = find_ruleset("pt", follow_distance="centre", infantry_range=10)
    assert rules.settings.follow_distance == "centre" and rules.settings.infantry_range == 10
    with pytest.raises(ValueError, match="follow_distance"):
        find_ruleset("pt", follow_distance="nearest")
    with pytest.raises(ValueError, match="unknown paper-tigers setting 'range'"):
        find_ruleset("pt", range=3)
    assert find_ruleset("pt", blocking=["Woods"]).settings.blocking == ("woods",)


def test_judge_is_never_a_coin_flip() -> None:
    assert judge(5.99, 6, 0.0) is True
    assert judge(6.0, 6, 0.0) is True
    assert judge(6.01, 6, 0.0) is False
    assert judge(6.01, 6, 0.02) is None
    assert judge(5.99, 6, 0.02) is None
    assert judge(5.97, 6, 0.02) is True


def _scene(*pieces: Piece, terrain: tuple[Terrain, ...] = ()) -> Scene:
    return Scene("paper-tigers", Table(48, 36), tuple(pieces), terrain)


def test_follower_that_followed_this_leader_may_follow_again() -> None:
    lead = Piece("L", "us", "tank", 10, 10, base=(1.5, 3), fields={"cards": 2})
    again = Piece(
        "a", "us", "infantry", 10, 12.5, base=(2, 1), fields={"followed": "L", "actions": 1}
    )
    other = Piece(
        "b", "us", "infantry", 10, 7.5, base=(2, 1), fields={"followed": "X", "actions": 1}
    )
    verdict = PaperTigers().answer(_scene(lead, again, other), {"ask": "follow_me", "leader": "L"})
    assert verdict.followers == ("a",)
    assert "already followed X" in verdict.details["illegal"]["b"]


def test_chain_length_setting_limits_the_chain() -> None:
    a = Piece("L", "us", "tank", 10, 10, base=(1, 1), fields={"cards": 1})
    b = Piece("b", "us", "tank", 12, 10, base=(1, 1))
    c = Piece("c", "us", "tank", 14.5, 10, base=(1, 1))
    scene = _scene(a, b, c)
    assert PaperTigers().answer(scene, {"ask": "follow_me", "leader": "L"}).chains == (
        ("L", "b", "c"),
    )
    short = find_ruleset("pt", chain_length=2).answer(scene, {"ask": "follow_me", "leader": "L"})
    assert short.chains == (("L", "b"),)


def test_verdict_json_has_design_keys_and_drops_empty_ones() -> None:
    v = Verdict("range", None, ("r",), distance=1.23456, uncertainty=0.1, limit=12.0)
    assert v.to_json() == {
        "ask": "range",
        "ok": None,
        "reasons": ["r"],
        "distance": 1.2346,
        "uncertainty": 0.1,
        "limit": 12.0,
    }


def test_bad_question_fields_raise_query_errors_with_paths() -> None:
    scene = _scene(Piece("a", "us", "tank", 1, 1))
    rules = PaperTigers()
    with pytest.raises(QueryError) as err:
        rules.answer(scene, {"ask": "move", "piece": "a", "to": {"x": 1}})
    assert err.value.path == ".to.y"
    with pytest.raises(QueryError) as err:
        rules.answer(scene, {"ask": "action", "card": "QS", "action": "dance"})
    assert err.value.path == ".action"


def test_move_from_pose_defaults_to_scene_pose_and_can_be_given() -> None:
    scene = _scene(Piece("sq", "us", "infantry", 10, 10, heading=90, base=(2, 1)))
    rules = PaperTigers()
    v = rules.answer(scene, {"ask": "move", "piece": "sq", "to": {"x": 10, "y": 14}})
    assert v.distance == pytest.approx(4.0) and v.ok is True and v.limit == 6.0
    v = rules.answer(
        scene,
        {
            "ask": "move",
            "piece": "sq",
            "from": {"x": 10, "y": 6, "heading": 90},
            "to": {"x": 10, "y": 14},
            "allowance": 7,
        },
    )
    assert v.distance == pytest.approx(8.0) and v.ok is False and v.limit == 6.0


@pytest.mark.parametrize("text", ["QS", "qs", "Q♠", "Q of spades", "Qs"])
def test_card_spellings(text: str) -> None:
    assert Card.parse(text) == Card("Q", "S")


def test_initiative_is_a_total_order_matching_the_rule_book() -> None:
    deck = [Card(r, s) for r in ("2", "10", "J", "A") for s in "SHDC"]
    for a, b in itertools.permutations(deck, 2):
        if a.value != b.value:
            assert (a.initiative > b.initiative) == (a.value > b.value)
        elif a.red != b.red:
            assert (a.initiative > b.initiative) == a.red
