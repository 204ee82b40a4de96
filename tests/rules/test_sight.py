"""The line-of-sight filters of :mod:`referee.rules.sight` (issue 37 item 1): declared by a
system as values, applied by the core to the all-pairs map and to the single ``los``
question alike, so the two give one code per pair."""

from __future__ import annotations

import numpy as np
import pytest

from referee.maps import Visibility
from referee.rules import ruleset_for
from referee.rules.papercraft import Papercraft
from referee.rules.plastic_skirmish import PlasticSkirmish
from referee.rules.pz8 import Pz8SciFi, Pz8WW2, Pz8Y1975
from referee.rules.sight import Hidden, SeesAll, SightLimit, WhollyInside
from referee.scene import Piece, Scene, Table, Terrain

WOODS = Terrain("w", "woods", ((10, 10), (16, 10), (16, 16), (10, 16)))


def agreeing(scene: Scene, step: int = 1, **settings: object) -> tuple[set[str], set[str]]:
    """Ask the single ``los`` question of every ordered pair (every ``step``-th firer)
    and assert it gives the all-pairs map's code; returns the answers seen and every
    reason given."""
    rules = ruleset_for(scene, **settings)
    vis = rules.visibility(scene)
    pieces = scene.pieces
    seen: set[str] = set()
    said: set[str] = set()
    for a in range(0, len(pieces), step):
        for b, pb in enumerate(pieces):
            if a == b:
                continue
            single = rules.answer(scene, {"ask": "los", "from": pieces[a].id, "to": pb.id})
            assert Visibility.CODES[single.los] == vis.los[a, b], (pieces[a], pb, single.reasons)
            seen.add(single.los)
            said.update(single.reasons)
    return seen, said


def test_the_systems_declare_their_rules_as_values() -> None:
    assert Papercraft.line_rule == "clear" and Papercraft.los_filters == ()
    sees, hidden = Pz8Y1975.los_filters
    assert isinstance(sees, SeesAll) and "helicopter" in sees.categories
    assert isinstance(hidden, Hidden) and hidden.radius_setting == "hidden_radius"
    assert "infantry" in hidden.categories and "tank hunter" in hidden.categories
    assert "mbt" not in hidden.categories
    assert Pz8WW2.los_filters[0].categories == frozenset()  # no WW2 unit sees all
    assert {"gev", "light walker"} <= Pz8SciFi.los_filters[0].categories


def test_hidden_codes_judge_the_radius_as_a_limit() -> None:
    d = np.array([4.9, 5.0, 5.04, 5.2, 7.0])
    u = np.array([0.0, 0.0, 0.05, 0.05, 0.0])
    code, reason = Hidden.codes(d, u, 5.0)
    assert code.tolist() == [0, 0, 1, 2, 2]
    w, c, h = Hidden.WITHIN, Hidden.CLOSE_CALL, Hidden.HIDDEN
    assert reason.tolist() == [w, w, c, h, h]


def test_only_a_unit_in_cover_that_has_not_fired_may_be_hidden() -> None:
    hides = np.array([True, False, True, True])
    gave_away = np.array([False, False, True, False])
    covered = np.array([True, True, True, False])
    assert Hidden.may_hide(hides, gave_away, covered).tolist() == [True, False, False, False]


@pytest.mark.parametrize("ruleset", ["pz8-1975", "pz8-scifi", "papercraft"])
def test_the_map_and_the_single_question_agree_on_every_pair(ruleset: str) -> None:
    kinds = {
        "pz8-1975": ["infantry", "helicopter", "mbt", "tank hunter", "hmg"],
        "pz8-scifi": ["infantry", "gev", "light walker", "marines", "medium mbt"],
        "papercraft": ["infantry", "character", "titan"],
    }[ruleset]
    rnd = np.random.default_rng(7)
    pieces = []
    for k in range(16):
        near_woods = k % 2 == 0
        x, y = rnd.uniform(9, 17, 2) if near_woods else rnd.uniform(2, 30, 2)
        fields = {"move": 6, "range": 12} if ruleset == "papercraft" else {"fired": k % 5 == 0}
        pieces.append(
            Piece(
                f"p{k}",
                "ab"[k % 2],
                kinds[k % len(kinds)],
                float(x),
                float(y),
                uncertainty=float(rnd.choice([0.0, 0.05, 0.5])),
                state="destroyed" if k == 7 else "ok",
                fields=fields,
            )
        )
    agreeing(Scene(ruleset, Table(36, 36), tuple(pieces), (WOODS,)))


def test_plastic_skirmish_declares_its_edge_rule_and_dust_as_values() -> None:
    limit, inside = PlasticSkirmish.los_filters
    assert isinstance(limit, SightLimit) and limit.limit_setting == "sight_limit"
    assert isinstance(inside, WhollyInside) and inside.kinds_setting == "blocking"
    assert not hasattr(PlasticSkirmish, "_buried")
    for name in ("line_of_sight", "visibility"):
        assert name not in vars(PlasticSkirmish)


def test_wholly_inside_names_the_first_feature_and_the_firer_first() -> None:
    square = np.array([(0, 0), (10, 0), (10, 10), (0, 10)], float)
    xy = np.array([(5.0, 5.0), (20.0, 5.0), (5.5, 5.0)])
    offsets = np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)])
    corners = xy[:, None] + offsets[None]
    unc = np.zeros(3)
    depths = WhollyInside.depths(xy, corners, unc, [square, square + 100])
    code, reason, feature = WhollyInside.codes(
        depths, unc, np.array([0, 1, 0]), np.array([1, 0, 2])
    )
    assert code.tolist() == [2, 2, 0]  # seen from inside the same feature
    assert reason.tolist() == [WhollyInside.FIRER_INSIDE, WhollyInside.TARGET_INSIDE, 0]
    assert feature.tolist() == [0, 0, -1]


PSK_FEATURES = (
    Terrain("w1", "woods", ((10, 10), (16, 10), (16, 16), (10, 16))),
    Terrain("w2", "woods", ((16, 12), (20, 12), (20, 18), (16, 18))),  # touches w1
    Terrain("b1", "building", ((24, 4), (29, 4), (29, 8), (24, 8))),
    Terrain("h1", "hill", ((2, 20), (8, 20), (8, 26), (2, 26))),
)


@pytest.mark.parametrize("sight_limit", [None, 9.0])
def test_plastic_skirmish_map_and_single_question_agree(sight_limit: float | None) -> None:
    """Figures inside, at the edges of and near woods and buildings, with and without
    doubt, with and without dust clouds: one code per pair from the map and the single
    question."""
    kinds = ["rifle guy", "mg guy", "sniper guy", "tank", "jeep"]
    rnd = np.random.default_rng(11)
    spots = [(13, 13), (18, 15), (26.5, 6), (5, 23)]
    pieces = []
    for k in range(24):
        if k % 3 == 2:
            x, y = rnd.uniform(2, 34, 2)
        else:
            cx, cy = spots[k % len(spots)]
            x, y = cx + rnd.uniform(-4, 4), cy + rnd.uniform(-3.5, 3.5)
        pieces.append(
            Piece(
                f"p{k}",
                "ab"[k % 2],
                kinds[k % len(kinds)],
                float(x),
                float(y),
                heading=float(rnd.uniform(0, 360)),
                uncertainty=float(rnd.choice([0.0, 0.05, 0.5])),
                state="destroyed" if k == 7 else "ok",
            )
        )
    settings = {} if sight_limit is None else {"sight_limit": sight_limit}
    scene = Scene("plastic-skirmish", Table(36, 30), tuple(pieces), PSK_FEATURES, settings=settings)
    assert agreeing(scene)[0] == {"clear", "doubtful", "blocked"}


@pytest.mark.parametrize(
    "settings",
    [{}, {"blocking": ["woods", "building"], "forests": True}, {"enemy_units_block": False}],
)
def test_pz8_divisional_map_and_single_question_agree(settings: dict[str, object]) -> None:
    """Only the firer's enemies' bases block (``units_block = "enemies"``): three sides'
    units crowded round woods and a building, with and without doubt, terrain blocking
    or not: one code per pair from the map (each side's rows its own pass, side by side
    from 60 pieces) and the single question, and the map is not symmetric."""
    from referee.rules.pz8_divisional import Pz8Divisional

    assert Pz8Divisional.units_block == "enemies"
    for name in ("line_of_sight", "visibility", "visibility_of"):
        assert name not in vars(Pz8Divisional)
    kinds = ["tanks", "leg infantry", "recon", "artillery"]
    features = PSK_FEATURES[:3]
    rnd = np.random.default_rng(5)
    for n, sides in ((24, "abc"), (62, "abc"), (16, "a")):  # one side: no unit blocks
        pieces = []
        for k in range(n):
            cx, cy = ((13, 13), (18, 15), (26.5, 6), (20, 20))[k % 4]
            x, y = cx + rnd.uniform(-6, 6), cy + rnd.uniform(-5, 5)
            pieces.append(
                Piece(
                    f"p{k}",
                    sides[k % len(sides)],
                    kinds[k % len(kinds)],
                    float(x),
                    float(y),
                    heading=float(rnd.uniform(0, 360)),
                    base=(1.0, 1.0),
                    uncertainty=float(rnd.choice([0.0, 0.05, 0.3])),
                    state="destroyed" if k % 9 == 4 else "ok",
                )
            )
        scene = Scene("pz8-divisional", Table(36, 30), tuple(pieces), features)
        step = 1 if n < 30 else 5  # the big table: every fifth firer's row
        seen = agreeing(scene, step, **settings)[0]
        if len(sides) == 1:
            assert "blocked" not in seen or settings.get("blocking")
        elif settings.get("enemy_units_block") is False and not settings.get("blocking"):
            assert seen == {"clear"}
        else:
            assert seen == {"clear", "doubtful", "blocked"}
            vis = ruleset_for(scene, **settings).visibility(scene)
            assert (vis.los != vis.los.T).any()


def test_pz8_ww1_map_counts_squares_as_range_does() -> None:
    """WW1's map gives the squares between each pair (``cell_distances``), as the
    single ``range`` question counts them; nothing blocks."""
    from referee.rules.pz8_divisional import Pz8WW1

    for name in ("line_of_sight", "visibility", "visibility_of"):
        assert name not in vars(Pz8WW1)
    rnd = np.random.default_rng(3)
    pieces = tuple(
        Piece(
            f"p{k}",
            "ab"[k % 2],
            ["infantry", "mg", "tank"][k % 3],
            float(rnd.uniform(0, 36)),
            float(rnd.uniform(0, 30)),
            base=(1.0, 1.0),
            uncertainty=float(rnd.choice([0.0, 0.05, 0.5])),
        )
        for k in range(20)
    )
    scene = Scene("pz8-ww1", Table(36, 30), pieces, (WOODS,))
    rules = ruleset_for(scene)
    vis = rules.visibility(scene)
    assert (vis.los == 0).all()
    for a, pa in enumerate(pieces):
        for b, pb in enumerate(pieces):
            if a != b:
                single = rules.answer(scene, {"ask": "range", "from": pa.id, "to": pb.id})
                assert single.distance == vis.distance[a, b], (pa, pb, single.reasons)


def test_paper_tigers_woods_areas_are_one_rule_for_the_map_and_the_question() -> None:
    """A forest of touching woods (D.2's designer's note): a unit sees out of only the
    woods area its centre is in, as far as the next, which blocks; declared as the
    ``WoodsAreas`` filter, and the map and the single question agree on every pair, with
    pieces inside each woods, on their edges and around them, with and without doubt."""
    from referee.rules.paper_tigers import PaperTigers
    from referee.rules.sight import WoodsAreas

    assert PaperTigers.los_filters == (WoodsAreas("forests"),)
    for name in ("line_of_sight", "_forest_levels"):
        assert name not in vars(PaperTigers)
    forest = (
        Terrain("w1", "woods", ((10, 8), (16, 8), (16, 14), (10, 14))),
        Terrain("w2", "woods", ((16, 9), (22, 9), (22, 15), (16, 15))),  # touches w1
        Terrain("w3", "woods", ((13, 14), (19, 14), (19, 19), (13, 19))),  # touches both
        Terrain("b", "building", ((28, 4), (31, 4), (31, 7), (28, 7))),
    )
    rnd = np.random.default_rng(11)
    spots = ((13, 11), (19, 12), (16, 16.5), (16, 11.5), (6, 11), (25, 12), (16, 23), (29, 9))
    pieces = []
    for k in range(32):
        cx, cy = spots[k % len(spots)]
        pieces.append(
            Piece(
                f"p{k}",
                "ab"[k % 2],
                ("infantry", "tank", "gun")[k % 3],
                float(cx + rnd.uniform(-2.5, 2.5)),
                float(cy + rnd.uniform(-2.5, 2.5)),
                heading=float(rnd.uniform(0, 360)),
                base=(1.0, 1.0),
                uncertainty=float(rnd.choice([0.0, 0.05, 0.25])),
            )
        )
    seen, said = agreeing(Scene("paper-tigers", Table(36, 24), tuple(pieces), forest))
    assert seen == {"clear", "doubtful", "blocked"}
    assert any("as far as the next woods area" in r for r in said)  # the rule was asked
    assert any(r.startswith("the line crosses forest ") for r in said)
