"""Plastic Skirmish's all-pairs edge rule against a plain loop over every woods and
building (the form it had before it first picked the features a base can lie in)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from referee.geometry import base_corners_many, points_in_polygon, signed_boundary_distance
from referee.maps import Visibility
from referee.rules import find_ruleset
from referee.rules.core import TableRuleset
from referee.scene import Piece, Scene, Table, Terrain
from referee.sim.tables import star_outline

KINDS = ["rifle guy", "mg guy", "bazooka guy", "tank", "halftrack"]


def edge_rule_oracle(rules: TableRuleset, scene: Scene, vis: Visibility) -> np.ndarray:
    """Every blocking feature and every pair in turn: a base wholly inside it deeper than
    the pair's doubt blocks a centre outside it by more than the doubt; where the doubt
    allows a base wholly inside and a centre outside, the pair is doubtful (at least)."""
    pieces = list(scene.pieces)
    n = len(pieces)
    los = vis.los.copy()
    xy = np.array([p.xy for p in pieces], float).reshape(-1, 2)
    unc = np.array([p.uncertainty for p in pieces], float)
    corners = base_corners_many(xy, [p.heading for p in pieces], [p.base for p in pieces])
    for t in scene.terrain:
        if t.kind not in rules.settings.blocking:
            continue
        poly = t.outline()
        centre = signed_boundary_distance(xy, poly)
        out = ~points_in_polygon(xy, poly)
        for k in range(n):
            least = signed_boundary_distance(corners[k], poly).min()
            whole = points_in_polygon(corners[k], poly, strict=True).all()
            for j in range(n):
                d = unc[k] + unc[j]
                if whole and least > d and out[j] and (d == 0 or centre[j] < -d):
                    los[k, j] = los[j, k] = 2
                elif d > 0 and least >= -d and centre[j] <= d:
                    los[k, j] = max(los[k, j], 1)
                    los[j, k] = max(los[j, k], 1)
    np.fill_diagonal(los, 0)
    return los


def scene_with_big_features(seed: int, n: int, u: float) -> Scene:
    """Large woods and buildings (often holding whole bases, some only their centres),
    hills and wire that never block, and bases of every size including none."""
    rnd = random.Random(seed)
    terrain = []
    for k in range(8):
        cx, cy = rnd.uniform(5, 67), rnd.uniform(5, 43)
        m = rnd.randint(3, 9)
        r = [rnd.uniform(2.0, 9.0) for _ in range(m)]
        pts = star_outline(cx, cy, r)
        terrain.append(Terrain(f"t{k}", rnd.choice(["woods", "building", "hill", "wire"]), pts))
    pieces = tuple(
        Piece(
            f"p{k}",
            rnd.choice("ab"),
            rnd.choice(KINDS),
            rnd.uniform(0, 72),
            rnd.uniform(0, 48),
            rnd.choice([0.0, 90.0, rnd.uniform(0, 360)]),
            rnd.choice([(1.5, 2.5), (0.0, 0.0), (1.0, 1.0), (3.0, 6.0)]),
            state="destroyed" if k % 9 == 0 else "ok",
            uncertainty=u * rnd.random(),
        )
        for k in range(n)
    )
    return Scene("plastic-skirmish", Table(72, 48), pieces, tuple(terrain))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("u", [0.0, 0.4])
def test_edge_rule_matches_per_feature_loop(seed: int, u: float) -> None:
    rules = find_ruleset("plastic-skirmish")
    assert isinstance(rules, TableRuleset)
    scene = scene_with_big_features(seed, 40, u)
    shared = rules.visibility_of(scene, None)
    want = edge_rule_oracle(rules, scene, shared)
    got = rules.visibility(scene)
    assert np.array_equal(got.los, want)
    assert np.array_equal(got.distance, shared.distance)


def test_edge_rule_fires_in_these_scenes() -> None:
    """The comparison above means something: whole bases inside features block pairs."""
    rules = find_ruleset("plastic-skirmish")
    assert isinstance(rules, TableRuleset)
    changed = 0
    for seed in range(4):
        scene = scene_with_big_features(seed, 40, 0.0)
        changed += int((rules.visibility(scene).los != rules.visibility_of(scene, None).los).sum())
    assert changed > 0


def test_a_base_within_the_doubt_of_wholly_inside_is_doubtful() -> None:
    """With doubt, the edge rule also makes pairs doubtful (not only blocked), and the
    single `los` question says the same for them."""
    rules = find_ruleset("plastic-skirmish")
    assert isinstance(rules, TableRuleset)
    scene = scene_with_big_features(3, 40, 0.4)
    shared = rules.visibility_of(scene, None).los
    got = rules.visibility(scene)
    raised = np.argwhere((got.los == 1) & (shared == 0))
    assert len(raised) > 10
    ids = got.ids
    for a, b in raised[:12]:
        answer = rules.answer(scene, {"ask": "los", "from": ids[a], "to": ids[b]})
        assert answer.los == "doubtful" and any("may be wholly inside" in r for r in answer.reasons)
