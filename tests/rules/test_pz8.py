"""Pz8 WW2, 1950-75, 1975-2010 and Sci-Fi rules beyond the golden files: the faults of
issue 29 (item 6), each tested on both sides of its boundary."""

from __future__ import annotations

import math
from typing import Any

import pytest

from referee.errors import SceneError
from referee.rules import Verdict, ruleset_for
from referee.scene import Piece, Scene, Table, Terrain


def _ask(ruleset: str, pieces: list[Piece], query: dict[str, Any], *terrain: Terrain) -> Verdict:
    scene = Scene(ruleset, Table(72, 48), tuple(pieces), terrain)
    return ruleset_for(scene).answer(scene, query)


def _square(tid: str, kind: str, x0: float, y0: float, w: float = 1.0, h: float = 1.0) -> Terrain:
    return Terrain(tid, kind, ((x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)))


# -- air attacks: the target side's AA and SAM defend it (RULES.md 5, text 12) ---------------


@pytest.mark.parametrize(
    ("aa_side", "dx", "counted"),
    [
        ("de", 6.0, True),  # the target's own AA gun, exactly 6in: defends
        ("de", 6.01, False),  # 6.01in: too far
        ("su", 2.0, False),  # the attacker's AA gun beside the target: never counts
    ],
)
def test_air_defence_counts_the_target_sides_aa_guns(
    aa_side: str, dx: float, counted: bool
) -> None:
    target = Piece("bomb", "de", "medium tank", 20, 20)
    flak = Piece("flak", aa_side, "aa gun", 20 + dx, 20)
    verdict = _ask("pz8-ww2", [target, flak], {"ask": "air_defence", "target": "bomb"})
    assert verdict.ok is True
    assert verdict.details["aa"] == (["flak"] if counted else [])
    assert verdict.details["modifier"] == (-1 if counted else 0)


@pytest.mark.parametrize("ruleset", ["pz8-1950", "pz8-1975"])
def test_air_defence_counts_the_target_sides_sam_teams(ruleset: str) -> None:
    target = Piece("heli", "us", "mbt", 5, 20)
    pieces = [
        target,
        Piece("own", "us", "sam", 45, 20),  # 40in: defends
        Piece("own2", "us", "sam", 45.01, 20.5),  # beyond 40in
        Piece("theirs", "su", "sam", 10, 20),  # the attacker's: never
        Piece("theirs_aa", "su", "aa gun", 6, 20),
    ]
    verdict = _ask(ruleset, pieces, {"ask": "air_defence", "target": "heli"})
    assert verdict.details["sam"] == ["own"]
    assert verdict.details["aa"] == []
    assert verdict.details["modifier"] == -1
    assert "only us's own AA guns and SAM teams defend it" in verdict.reasons[-1]


# -- Sci-Fi: only hovertanks, jet bikes and GEV skip rough-ground halving (text 13) ---------


@pytest.mark.parametrize(
    ("kind", "to_x", "ok", "counted"),
    [
        ("medium walker", 11.0, True, 4.0),  # 3in, 1 of them in woods: counts 4 of 4
        ("medium walker", 11.01, False, 4.01),
        ("heavy walker", 12.0, False, 5.0),  # walkers are not exempt: 4in counts 5
        ("medium hover tank", 12.0, True, None),  # 4in through the woods counts 4
        ("medium hover tank", 12.01, False, None),
        ("jet bike", 20.0, True, None),  # 12in, the woods not halving it
        ("gev", 20.0, True, None),
    ],
)
def test_scifi_rough_ground_halves_walkers_not_hover_units(
    kind: str, to_x: float, ok: bool, counted: float | None
) -> None:
    mover = Piece("m", "a", kind, 8, 20)
    wood = _square("wood", "woods", 9.5, 18, 1, 4)
    verdict = _ask(
        "pz8-scifi", [mover], {"ask": "move", "piece": "m", "to": {"x": to_x, "y": 20}}, wood
    )
    assert verdict.ok is ok
    if counted is None:
        assert "counted" not in verdict.details
    else:
        assert verdict.details["counted"] == pytest.approx(counted)


@pytest.mark.parametrize(("kind", "counted"), [("medium walker", 4.0), ("light hover tank", None)])
def test_scifi_roads_double_walkers_not_hover_units(kind: str, counted: float | None) -> None:
    mover = Piece("m", "a", kind, 2, 40)
    road = _square("road", "road", 0, 39, 72, 2)
    verdict = _ask(
        "pz8-scifi", [mover], {"ask": "move", "piece": "m", "to": {"x": 10, "y": 40}}, road
    )
    assert verdict.details.get("counted") == counted
    assert verdict.ok is (counted is not None)  # 8in: only a doubled walker makes it


# -- close combat through a building or field defence (RULES.md 5, text 5) ------------------


@pytest.mark.parametrize("ruleset", ["pz8-ww2", "pz8-1950", "pz8-1975", "pz8-scifi"])
@pytest.mark.parametrize(
    ("x", "doubt", "ok"),
    [
        (9.5, 0.0, True),  # a's base touches the house: close combat with b inside
        (9.49, 0.0, False),  # 0.01in short of the house
        (9.49, 0.02, None),  # within the doubt of touching it
    ],
)
def test_contact_with_a_building_is_close_combat_with_the_nearest_enemy_inside(
    ruleset: str, x: float, doubt: float, ok: bool | None
) -> None:
    pieces = [
        Piece("a", "de", "infantry", x, 12, uncertainty=doubt),
        Piece("b", "su", "infantry", 11, 12, base=(0.5, 0.5)),
        Piece("c", "su", "infantry", 13, 12, base=(0.5, 0.5)),
    ]
    house = _square("house", "building", 10, 10, 4, 4)
    verdict = _ask(ruleset, pieces, {"ask": "contact", "from": "a", "to": "b"}, house)
    assert verdict.ok is ok
    # c is inside too but farther: never in close combat with a.
    other = _ask(ruleset, pieces, {"ask": "contact", "from": "a", "to": "c"}, house)
    assert other.ok is False


def test_contact_through_terrain_is_a_setting() -> None:
    pieces = [Piece("a", "de", "infantry", 9.5, 12), Piece("b", "su", "infantry", 11, 12)]
    house = _square("house", "building", 10, 10, 4, 4)
    scene = Scene("pz8-ww2", Table(48, 36), tuple(pieces), (house,))
    query = {"ask": "contact", "from": "a", "to": "b"}
    assert ruleset_for(scene).answer(scene, query).ok is True
    assert ruleset_for(scene, contact_terrain=["fortification"]).answer(scene, query).ok is False
    with pytest.raises(ValueError, match="setting contact_terrain must be a list"):
        ruleset_for(scene, contact_terrain="building")


# -- minefield and wire sections stop a move, also with the sides lined up (RULES.md 5, 11) --


def _turned(x: float, y: float, turn: float) -> tuple[float, float]:
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    return (c * x - s * y + 30, s * x + c * y + 20)


@pytest.mark.parametrize("kind", ["minefield", "wire"])
@pytest.mark.parametrize("turn", [0.0, 90.0, 37.0])
@pytest.mark.parametrize(
    ("at", "to", "side", "ok"),
    [
        (0.5, 5.0, 0.0, False),  # the counter a fifth of the way: passes over it, illegal
        (2.5, 5.0, 0.0, False),  # three fifths of the way
        (2.0, 5.0, 0.0, False),  # half way (the one place the old test looked)
        (2.5, 3.0, 0.0, True),  # ends exactly on the counter: stops there, legal
        (2.5, 2.01, 0.0, True),  # ends overlapping it by 0.01in
        (2.5, 2.0, 0.0, True),  # ends touching its near edge: never entered
        (0.5, 5.0, 1.0, True),  # slides past beside it, sides touching: not entered
        (0.5, 5.0, 0.99, False),  # 0.01in into its side: entered and went on
    ],
)
def test_move_over_a_lined_up_counter_stops_there(
    kind: str, turn: float, at: float, to: float, side: float, ok: bool
) -> None:
    # A 1in base moves along its own x axis from 0 to ``to``; the 1in counter's sides line
    # up with the base's when ``side`` is 0 (the whole table turned by ``turn``).
    x0, y0 = _turned(0, 0, turn)
    x1, y1 = _turned(to, 0, turn)
    corners = [(at + 0.5, -0.5), (at + 1.5, -0.5), (at + 1.5, 0.5), (at + 0.5, 0.5)]
    counter = Terrain("c1", kind, tuple(_turned(cx, cy + side, turn) for cx, cy in corners))
    tank = Piece("t", "de", "half-track", x0, y0, heading=turn)  # moves 6in
    query = {"ask": "move", "piece": "t", "to": {"x": x1, "y": y1, "heading": turn}}
    verdict = _ask("pz8-ww2", [tank], query, counter)
    assert verdict.ok is ok, verdict.reasons
    if not ok:
        assert f"entered {kind} c1 and went on" in " ".join(verdict.reasons)


@pytest.mark.parametrize("ruleset", ["pz8-1950", "pz8-1975", "pz8-scifi"])
def test_every_era_stops_on_a_lined_up_minefield(ruleset: str) -> None:
    tank = Piece("t", "de", "apc", 5, 10.5)
    mine = _square("mf", "minefield", 5.5, 10)
    query = {"ask": "move", "piece": "t", "to": {"x": 9, "y": 10.5, "heading": 0}}
    assert _ask(ruleset, [tank], query, mine).ok is False
    query = {"ask": "move", "piece": "t", "to": {"x": 6, "y": 10.5, "heading": 0}}
    assert _ask(ruleset, [tank], query, mine).ok is True


# -- the WW2 weapon list: every weapon the text's range table (7) names ----------------------

WW2_TABLE = {
    # Each name in the text's WW2 range table, as printed, and its range.
    "Infantry": 2,
    "HMG": 4,
    "Mortar": 10,
    "20-25mm": 3,
    "20mm": 3,
    "25mm": 3,
    "37-47mm": 4,
    "37mm": 4,
    "47mm": 4,
    "2pdr": 4,
    "Long 50mm": 8,
    "Short 75mm": 10,
    "Early 75mm": 10,
    "Early 76mm": 10,
    "6pdr": 10,
    "Later 75mm": 12,
    "Later 76mm": 12,
    "85mm": 12,
    "17pdr": 12,
    "88mm": 15,
    "90mm": 15,
    "100mm": 15,
    "122mm": 15,
    "Medium Artillery": 30,
    "105mm": 30,
    "Rocket Launchers": 30,
    "Rockets": 30,
    "Heavy Artillery": 40,
}


@pytest.mark.parametrize(("weapon", "reach"), sorted(WW2_TABLE.items()))
def test_ww2_accepts_every_weapon_the_range_table_names(weapon: str, reach: float) -> None:
    gun = Piece("g", "de", "medium tank", 10, 10, fields={"weapon": weapon})
    near = Piece("n", "su", "medium tank", 10 + reach, 10)
    far = Piece("f", "su", "medium tank", 10, 10.01 + reach)
    for target, ok in ((near, True), (far, False)):
        verdict = _ask("pz8-ww2", [gun, near, far], {"ask": "range", "from": "g", "to": target.id})
        assert verdict.limit == reach and verdict.ok is ok


def test_ww2_weapon_names_keep_their_row_rules() -> None:
    """A name of a row is that row: rockets keep the 5in minimum range."""
    rocket = Piece("r", "de", "truck", 10, 10, fields={"weapon": "Rockets"})
    close = Piece("c", "su", "medium tank", 14, 10)
    verdict = _ask("pz8-ww2", [rocket, close], {"ask": "range", "from": "r", "to": "c"})
    assert verdict.ok is False and "minimum range of 5in" in " ".join(verdict.reasons)


@pytest.mark.parametrize(
    ("weapon", "message"),
    [
        ("76mm", r"weapon '76mm' is in more than one row .*short 75mm \(10in\) or later 75mm"),
        ("phaser", r"weapon 'phaser' is not in the pz8-ww2 range table \(known: infantry"),
    ],
)
def test_ww2_weapon_names_that_are_no_row_are_refused(weapon: str, message: str) -> None:
    gun = {"id": "g", "side": "de", "kind": "medium tank", "x": 5, "y": 5, "base": [1, 1]}
    gun["weapon"] = weapon
    raw = {"ruleset": "pz8-ww2", "table": {"width": 48, "depth": 36}, "pieces": [gun]}
    with pytest.raises(SceneError, match=r"\$\.pieces\[0\]\.weapon: " + message):
        ruleset_for(Scene.from_json(raw))


# -- indirect-fire deviation: 1D6in along the deviation die (text 5) ------------------------


@pytest.mark.parametrize(
    ("roll", "direction", "doubt", "hits", "doubtful"),
    [
        (3, 0, 0.0, ["u"], []),  # lands exactly on u's near edge: on it
        (2, 0, 0.0, [], []),  # 1in short of u
        (3, 0, 0.05, [], ["u"]),  # on the edge, with the aimed-at piece's doubt
        (6, 180, 0.0, [], []),  # 6in back: open ground
        (4, 90, 0.0, ["v"], []),
    ],
)
def test_deviation_lands_roll_inches_along_the_die(
    roll: int, direction: float, doubt: float, hits: list[str], doubtful: list[str]
) -> None:
    pieces = [
        Piece("t", "su", "mbt", 20, 10, uncertainty=doubt),
        Piece("u", "su", "infantry", 23.5, 10),
        Piece("v", "su", "infantry", 20, 14.2),
    ]
    query = {"ask": "deviation", "target": "t", "roll": roll, "direction": direction}
    verdict = _ask("pz8-1975", pieces, query)
    rad = math.radians(direction)
    landing = verdict.details["landing"]
    assert landing["x"] == pytest.approx(20 + roll * math.cos(rad))
    assert landing["y"] == pytest.approx(10 + roll * math.sin(rad))
    assert verdict.details["hits"] == hits and verdict.details["doubtful"] == doubtful
    assert verdict.ok is (None if doubtful else True)
    assert verdict.distance == roll


# -- minefield, wire and smoke counters as sections (text 11) -------------------------------


def _rect(tid: str, kind: str, length: float, width: float, turn: float = 0.0) -> Terrain:
    corners = [(0, 0), (length, 0), (length, width), (0, width)]
    return Terrain(tid, kind, tuple(_turned(x, y, turn) for x, y in corners))


@pytest.mark.parametrize("turn", [0.0, 37.0])
@pytest.mark.parametrize(
    ("kind", "length", "width", "ok"),
    [
        ("minefield", 1.0, 1.0, True),
        ("minefield", 1.01, 1.0, False),
        ("minefield", 1.0, 0.99, False),
        ("smoke", 1.0, 1.0, True),
        ("smoke", 2.0, 1.0, False),
        ("wire", 6.0, 1.0, True),  # wire is 1in wide, any length
        ("wire", 6.0, 1.01, False),
    ],
)
def test_counters_are_1in_squares_and_wire_1in_wide(
    kind: str, length: float, width: float, ok: bool, turn: float
) -> None:
    counter = _rect("c", kind, length, width, turn)
    verdict = _ask("pz8-ww2", [], {"ask": "section", "terrain": "c"}, counter)
    assert verdict.ok is ok and verdict.limit == 1.0
    # Exactly 1in can never be certain within a doubt: too close to call, when 0.01in off
    # could be it; a table's slack makes it certain again.
    doubtful = {"ask": "section", "terrain": "c", "uncertainty": 0.02}
    near = max(abs(length - 1), abs(width - 1)) if kind != "wire" else abs(width - 1)
    assert _ask("pz8-ww2", [], doubtful, counter).ok is (None if near < 0.02 else False)
    scene = Scene("pz8-ww2", Table(72, 48), (), (counter,))
    slack = ruleset_for(scene, section_tolerance=0.05).answer(scene, doubtful)
    assert slack.ok is (near < 0.02)


def test_scifi_has_no_counters() -> None:
    from referee.rules import QueryError

    with pytest.raises(QueryError, match="Pz8 Sci-Fi has no minefield, wire or smoke counters"):
        _ask("pz8-scifi", [], {"ask": "section", "terrain": "c"}, _rect("c", "wire", 3, 1))
