"""Scene values and the scene file: round trips, immutable updates, whole-table invariance."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import SceneError
from referee.geometry import Pose
from referee.rules import find_ruleset, ruleset_for
from referee.rules.cli import EXAMPLE
from referee.scene import Piece, Scene, load_scene, save_scene


def test_example_round_trips_through_json(tmp_path: Path) -> None:
    scene = load_scene(EXAMPLE)
    again = Scene.from_json(json.loads(json.dumps(scene.to_json())), "again")
    assert again == scene
    save_scene(scene, tmp_path / "out" / "s.json")
    assert load_scene(tmp_path / "out" / "s.json") == scene


def test_pieces_are_immutable_and_poses_update_by_copy() -> None:
    scene = load_scene(EXAMPLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        scene.piece("t34").x = 3  # type: ignore[misc]
    moved = scene.with_poses({"t34": Pose(1, 2, 45)})
    assert moved.piece("t34").xy == (1, 2) and moved.piece("t34").heading == 45
    assert scene.piece("t34").xy == (20, 18)
    assert [p.id for p in moved] == [p.id for p in scene]
    with pytest.raises(KeyError, match="no piece 'tiger'"):
        scene.with_poses({"tiger": Pose(0, 0)})
    added = scene.with_pieces(Piece("new", "soviet", "tank", 1, 1))
    assert len(added) == len(scene) + 1 and "new" in added


def test_defaults_and_optional_fields() -> None:
    scene = Scene.from_json(
        {
            "ruleset": "pt",
            "table": {"width": 36, "depth": 36, "inch_mm": 25},
            "pieces": [
                {
                    "id": "a",
                    "side": "x",
                    "kind": "Tank",
                    "x": 1,
                    "y": 2,
                    "base": [1, 2],
                    "heading": -90,
                }
            ],
        }
    )
    a = scene.piece("a")
    rules = ruleset_for(scene)
    fields = [rules.field(a, k) for k in ("cards", "followed", "actions")]
    assert (a.heading, a.state, a.uncertainty, *fields) == (270.0, "ok", 0.0, 0, None, 0)
    assert a.fields == {} and a.followed is None  # system fields the file did not give
    assert scene.table.inch_mm == 25 and scene.queries == () and scene.terrain == ()
    assert a.front == (1.0, 1.0)


def test_bad_values_name_the_json_path() -> None:
    base = {"ruleset": "pt", "table": {"width": 36, "depth": 36}}
    with pytest.raises(SceneError, match=r"^s: \$\.table\.width: must be positive"):
        Scene.from_json({**base, "table": {"width": 0, "depth": 1}}, "s")
    with pytest.raises(SceneError, match=r"\$\.pieces\[0\]\.followed: unknown piece id 'zz'"):
        bad = Scene.from_json(
            {
                **base,
                "pieces": [
                    {
                        "id": "a",
                        "side": "x",
                        "kind": "tank",
                        "x": 1,
                        "y": 1,
                        "base": [1, 1],
                        "followed": "zz",
                    }
                ],
            },
            "s",
        )
        ruleset_for(bad)  # the ruleset checks its own fields, with the file's JSON path
    with pytest.raises(SceneError, match=r"\$\.terrain\[0\]\.polygon\[1\]\[0\]: must be a finite"):
        Scene.from_json(
            {
                **base,
                "terrain": [
                    {"id": "w", "kind": "woods", "polygon": [[0, 0], [math.inf, 0], [1, 1]]}
                ],
            },
            "s",
        )


# -- whole-table invariance of the rules ------------------------------------------------


def _transform(scene: Scene, dx: float, dy: float, turn: float) -> Scene:
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))

    def move(x: float, y: float) -> tuple[float, float]:
        return (c * x - s * y + dx, s * x + c * y + dy)

    pieces = tuple(
        dataclasses.replace(
            p, x=move(p.x, p.y)[0], y=move(p.x, p.y)[1], heading=(p.heading + turn) % 360
        )
        for p in scene.pieces
    )
    terrain = tuple(
        dataclasses.replace(t, polygon=tuple(move(x, y) for x, y in t.polygon))
        for t in scene.terrain
    )
    conventions = dict(scene.settings)
    if "grid_x" in {f.name for f in dataclasses.fields(find_ruleset(scene.ruleset).settings)}:
        # A game on a mat (hexes, zones): the mat moves with everything on it.
        rules = ruleset_for(scene)
        gx, gy = move(rules.settings.grid_x, rules.settings.grid_y)
        conventions.update(grid_x=gx, grid_y=gy, grid_rotation=rules.settings.grid_rotation + turn)
    return dataclasses.replace(scene, pieces=pieces, terrain=terrain, settings=conventions)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.floats(-100, 100, allow_nan=False),
    st.floats(-100, 100, allow_nan=False),
    st.floats(0, 360, allow_nan=False),
)
def test_verdicts_survive_moving_and_rotating_the_whole_table(dx, dy, turn) -> None:
    scene = load_scene(EXAMPLE)
    # Only geometric questions: deployment depends on the table edges, which stay put.
    queries = [
        q for q in scene.queries if q["ask"] in ("range", "los", "follow_me", "move", "objective")
    ]
    moved_queries = []
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    for q in queries:
        q = dict(q)
        if q["ask"] == "move":
            x, y = q["to"]["x"], q["to"]["y"]
            q["to"] = {
                "x": c * x - s * y + dx,
                "y": s * x + c * y + dy,
                "heading": q["to"]["heading"] + turn,
            }
        moved_queries.append(q)
    rules = ruleset_for(scene)
    moved = _transform(scene, dx, dy, turn)
    for q, mq in zip(queries, moved_queries, strict=True):
        a = rules.answer(scene, q)
        b = rules.answer(moved, mq)
        assert a.ok == b.ok and a.los == b.los and a.chains == b.chains, q
        if a.distance is not None:
            assert b.distance == pytest.approx(a.distance, abs=1e-6)


def _pt(*pieces: dict) -> Scene:
    return Scene.from_json(
        {"ruleset": "pt", "table": {"width": 36, "depth": 36}, "pieces": list(pieces)}, "s"
    )


def _p(pid: str, kind: str, **extra: object) -> dict:
    return {"id": pid, "side": "x", "kind": kind, "x": 1, "y": 1, "base": [1, 1], **extra}


@pytest.mark.parametrize(
    ("pieces", "message"),
    [
        (
            [_p("t", "tank"), _p("g", "gun", towed_by="t")],
            r"s: \$\.pieces\[1\]\.towed_by: t is a tank: towed_by names one of truck, halftrack",
        ),
        (
            [_p("t", "truck"), _p("g", "infantry", towed_by="t")],
            r"\$\.pieces\[1\]\.towed_by: only a gun piece has towed_by",
        ),
        (
            [_p("c", "armoured car"), _p("s", "squad", carried_by="c")],
            r"\$\.pieces\[1\]\.carried_by: c is a armoured car: carried_by names one of truck",
        ),
        ([_p("s", "squad", carried_by="zz")], r"carried_by: unknown piece id 'zz'"),
        (
            [
                _p("h", "halftrack"),
                _p("s", "squad", carried_by="h"),
                _p("r", "squad", carried_by="h"),
            ],
            r"\$\.pieces\[2\]\.carried_by: h already carries s: a vehicle carries one squad",
        ),
        (
            [_p("k", "truck"), _p("g", "gun", towed_by="k"), _p("s", "squad", carried_by="k")],
            r"\$\.pieces\[2\]\.carried_by: k already carries g: .* tows one gun, whose crew",
        ),
        ([_p("s", "squad", cards=-1)], r"\$\.pieces\[0\]\.cards: must be a whole number >= 0"),
        ([_p("s", "squad", wings=2)], r"\$\.pieces\[0\]\.wings: unknown piece field 'wings'"),
        ([_p("s", "dragon")], r"\$\.pieces\[0\]\.kind: unknown piece kind 'dragon'"),
    ],
)
def test_system_fields_are_checked_by_the_ruleset(pieces: list, message: str) -> None:
    scene = _pt(*pieces)  # the scene itself knows no system: it reads anything
    with pytest.raises(SceneError, match=message):
        ruleset_for(scene)


def test_two_vehicles_carry_two_squads() -> None:
    scene = _pt(
        _p("h", "halftrack"),
        _p("t", "tank"),
        _p("s", "squad", carried_by="h"),
        _p("r", "squad", carried_by="t"),
    )
    assert ruleset_for(scene).name == "paper-tigers"


def test_system_fields_round_trip_through_the_scene_file() -> None:
    scene = _pt(_p("t", "truck"), _p("g", "gun", towed_by="t", cards=1))
    again = Scene.from_json(scene.to_json(), "again")
    assert again == scene and again.piece("g").fields == {"towed_by": "t", "cards": 1}
    assert ruleset_for(again).field(again.piece("t"), "cards") == 0


GEOMETRIC = {
    *("range", "los", "move", "follow_me", "objective", "facing", "rally", "contact"),
    *("air_defence", "opfire", "groups", "exact_target", "repeat_fire", "cover", "rear_armor"),
    *("hull_down", "snipers", "templates", "load", "unload"),
    *("charge", "cohesion", "blast", "canister", "recoil", "snipe", "replace"),
    *("arc", "torpedo", "spot", "speed"),
    *("cell", "tailing", "ground_attack"),
}
POSE_KEYS = ("to", "from", "at")
"""Query keys that may hold a pose or point on the table (``at``: a shell's impact)."""
GOLDEN = sorted((Path(EXAMPLE).parents[3] / "tests" / "data").glob("*/*.json"))
# Squares laid out from the table corner (Pz8 WW1) move only with the table: that system's
# own property tests turn and shift the table by whole squares instead.
FREE_GOLDEN = [p for p in GOLDEN if not getattr(ruleset_for(load_scene(p)), "table_framed", False)]


def _moved_pose(pose: dict, dx: float, dy: float, turn: float) -> dict:
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    out = dict(pose)
    out["x"], out["y"] = c * pose["x"] - s * pose["y"] + dx, s * pose["x"] + c * pose["y"] + dy
    if "heading" in pose:
        out["heading"] = pose["heading"] + turn
    return out


@pytest.mark.slow  # a sweep of systems x moves; test_verdicts_survive_moving_... stays
@pytest.mark.parametrize("path", FREE_GOLDEN, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.parametrize(("dx", "dy", "turn"), [(7.5, -3.25, 0.0), (-20, 11, 90.0), (3, 4, 37.0)])
def test_every_system_is_blind_to_moving_the_whole_table(
    path: Path, dx: float, dy: float, turn: float
) -> None:
    """Every geometric verdict of every golden file is unchanged when the whole table is
    shifted and turned (headings too): the conventions depend on no table axis."""
    scene = load_scene(path)
    rules = ruleset_for(scene)
    moved = _transform(scene, dx, dy, turn)
    moved_rules = ruleset_for(moved)  # a mat's corner is a setting: it moved too
    for q in scene.queries:
        # Questions about the table edges (where a side deploys) are not about geometry alone.
        if q["ask"] not in GEOMETRIC or q["ask"] in getattr(rules, "edge_questions", ()):
            continue
        mq = {
            k: (_moved_pose(v, dx, dy, turn) if k in POSE_KEYS and isinstance(v, dict) else v)
            for k, v in q.items()
        }
        if isinstance(q.get("via"), list):  # a move's tracked path turns with the table
            mq["via"] = [_moved_pose(v, dx, dy, turn) for v in q["via"]]
        if isinstance(q.get("course"), (int, float)):  # a torpedo's course too
            mq["course"] = q["course"] + turn
        a, b = rules.answer(scene, q), moved_rules.answer(moved, mq)
        assert (a.ok, a.los, a.chains) == (b.ok, b.los, b.chains), (q, a.summary, b.summary)
        if a.distance is not None:
            # Counted in cells, a piece exactly on a border is in either cell: its count
            # may be either, within the doubt it reports (and the verdict is doubtful).
            cells = "units" in a.details and a.ok is None
            tol = max(1e-6, a.uncertainty or 0.0) if cells else 1e-6
            assert b.distance == pytest.approx(a.distance, abs=tol)


def test_scene_names_are_bounded_like_every_other_file() -> None:
    """A scene shares the loaders' checks: a 1 MB piece id is one short line, not a hang."""
    data = json.loads(Path(EXAMPLE).read_text())
    data["pieces"][0]["id"] = "x" * 1_000_000
    with pytest.raises(SceneError, match=r"\$\.pieces\[0\]\.id: is 1000000 characters long") as e:
        Scene.from_json(data, "big.json")
    assert len(str(e.value)) < 200
    data = json.loads(Path(EXAMPLE).read_text())
    data["pieces"][0]["cards"] = True
    with pytest.raises(SceneError, match=r"\$\.pieces\[0\]\.cards"):
        ruleset_for(Scene.from_json(data, "bool.json"))
