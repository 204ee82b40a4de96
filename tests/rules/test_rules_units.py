"""Paper Tigers pieces beyond the golden files: registry, settings, all-pairs agreement."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import pytest

from referee.rules import QueryError, Verdict, find_ruleset, judge, ruleset_for, ruleset_names
from referee.rules.cards import Card
from referee.rules.cli import EXAMPLE
from referee.rules.paper_tigers import PaperTigers
from referee.scene import Piece, Scene, Table, Terrain, load_scene
from referee.sim.tables import star_outline

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


def _agree(scene: Scene) -> None:
    rules = ruleset_for(scene)
    vis = rules.visibility(scene)
    for a, b in itertools.combinations(scene.pieces, 2):
        los = rules.answer(scene, {"ask": "los", "from": a.id, "to": b.id}).los
        assert vis.los_of(a.id, b.id) == los, (a.id, b.id)
        assert (
            vis.los_of(b.id, a.id)
            == rules.answer(scene, {"ask": "los", "from": b.id, "to": a.id}).los
        )
        try:
            rng = rules.answer(scene, {"ask": "range", "from": a.id, "to": b.id}).distance
        except QueryError:  # an unarmed piece (a Pz8 truck) has no range to ask about
            continue
        want = math.inf if rng is None else rng  # None: every edge-to-edge line is blocked
        assert vis.distance[vis.ids.index(a.id), vis.ids.index(b.id)] == pytest.approx(want)


GOLDEN = sorted(DATA.parent.glob("*/*.json"))


@pytest.mark.parametrize("path", [*GOLDEN, EXAMPLE], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_all_pairs_visibility_agrees_with_single_questions(path: Path) -> None:
    _agree(load_scene(path))


@pytest.mark.parametrize("seed", range(6))
def test_all_pairs_visibility_agrees_on_random_tables(seed: int) -> None:
    rnd = random.Random(seed)
    terrain = []
    for k in range(6):
        cx, cy, r = rnd.uniform(5, 43), rnd.uniform(5, 31), rnd.uniform(1.5, 4)
        n = rnd.randint(3, 7)
        pts = star_outline(cx, cy, [r] * n, turn=0.3 * k)
        terrain.append(Terrain(f"t{k}", rnd.choice(["woods", "building", "hill", "road"]), pts))
    pieces = [
        Piece(
            f"p{k}",
            rnd.choice(["a", "b"]),
            rnd.choice(["tank", "infantry", "gun"]),
            rnd.uniform(0, 48),
            rnd.uniform(0, 36),
            rnd.uniform(0, 360),
            (1.5, 2.0),
            state=rnd.choice(["ok", "ok", "destroyed"]),
            uncertainty=rnd.choice([0.0, 0.0, 0.05, 0.3]),
        )
        for k in range(14)
    ]
    _agree(_scene(*pieces, terrain=tuple(terrain)))


@pytest.mark.parametrize(
    "system",
    ["paper-tigers", "pz8-ww2", "plastic-skirmish", "pz8-scifi", "pz8-colonial", "pz8-coastal"],
)
def test_crowded_table_all_pairs_agree_with_single_questions(system: str) -> None:
    """`visibility` looks up only the lines near each outline and first settles those that
    certainly cross an obstacle deeply; on a crowded table with dead pieces and doubts,
    every line's verdict is still the single `los` question's."""
    rnd = random.Random(system)
    terrain = tuple(
        Terrain(
            f"t{k}",
            rnd.choice(["woods", "building", "hill"]),
            tuple(
                (cx + r * math.cos(2 * math.pi * q / n), cy + r * math.sin(2 * math.pi * q / n))
                for q in range(n)
            ),
        )
        for k, (cx, cy, r, n) in enumerate(
            (rnd.uniform(3, 45), rnd.uniform(3, 33), rnd.uniform(1, 3), rnd.randint(3, 8))
            for _ in range(20)
        )
    )
    kinds = {
        "paper-tigers": ("tank", "infantry"),
        "plastic-skirmish": ("tank", "rifle guy"),
        "pz8-colonial": ("foot", "mounted"),
        "pz8-coastal": ("vosper mtb", "trawler"),
    }
    pieces = tuple(
        Piece(
            f"p{k}",
            rnd.choice(["a", "b"]),
            rnd.choice(kinds.get(system, ("infantry", "apc" if "scifi" in system else "truck"))),
            rnd.uniform(0, 48),
            rnd.uniform(0, 36),
            rnd.uniform(0, 360),
            (1.5, 2.0),
            state="destroyed" if k % 9 == 0 else "ok",
            uncertainty=rnd.choice([0.0, 0.02, 0.3]),
        )
        for k in range(40)
    )
    scene = Scene(system, Table(48, 36), pieces, terrain)
    vis = ruleset_for(scene).visibility(scene)
    assert (vis.los == 2).sum() > 100  # a crowded table: the first pass has work
    _agree(scene)


@pytest.mark.parametrize("system", ["paper-tigers", "pz8-ww2"])
def test_forest_table_all_pairs_agree_with_single_questions(system: str) -> None:
    """A forest of touching woods (square and star-shaped) across the table, with pieces
    deep inside it, near its edges and seams, and all around: the map settles the lines
    that cross it deeply at once and reads the rest one by one, and every verdict is
    still the single `los` question's."""
    rnd = random.Random(f"forest-{system}")
    woods = [
        Terrain(
            f"w{k}",
            "woods",
            ((6 + 4.5 * k, 14), (11 + 4.5 * k, 14), (11 + 4.5 * k, 20), (6 + 4.5 * k, 20)),
        )
        for k in range(5)
    ]
    woods += [
        Terrain(f"s{k}", "woods", star_outline(30 + 3.5 * k, 17, [3.0, 1.8] * 4, turn=0.4 * k))
        for k in range(3)
    ]
    spots = [(8.5, 17.0), (10.5, 15.0), (11.0, 17.0), (28.0, 17.0), (31.0, 14.2)]  # in, seams
    spots += [(rnd.uniform(0, 48), rnd.uniform(0, 36)) for _ in range(10)]
    pieces = tuple(
        Piece(
            f"p{k}",
            rnd.choice(["a", "b"]),
            "infantry" if system == "paper-tigers" else rnd.choice(["infantry", "truck"]),
            x,
            y,
            rnd.uniform(0, 360),
            (1.0, 1.0),
            uncertainty=rnd.choice([0.0, 0.02, 0.3]),
        )
        for k, (x, y) in enumerate(spots)
    )
    scene = Scene(system, Table(48, 36), pieces, tuple(woods))
    vis = ruleset_for(scene).visibility(scene)
    assert (vis.los == 2).sum() > 20 and (vis.los == 0).sum() > 20
    _agree(scene)
