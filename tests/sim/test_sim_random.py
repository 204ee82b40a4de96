"""Random games (``referee simulate --random``): deterministic, within bounds, written out."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.sim.random_game import SETUPS, random_scenario
from referee.sim.scenario import REACH_S, parse_scenario


@pytest.mark.parametrize("setup", SETUPS)
def test_the_same_seed_draws_the_same_game(setup: str) -> None:
    first = json.dumps(random_scenario(5, setup), sort_keys=True)
    assert json.dumps(random_scenario(5, setup), sort_keys=True) == first
    assert json.dumps(random_scenario(6, setup), sort_keys=True) != first


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize("seed", range(1, 9))
def test_random_games_stay_within_their_bounds(setup: str, seed: int) -> None:
    data = random_scenario(seed, setup, duration=18)
    game = parse_scenario(data, "random")  # a valid scenario, every check of the format
    w, d = game.table.width, game.table.depth
    assert 36 <= w <= 72 and 24 <= d <= 48
    if setup == "oblique":
        assert (w, d) == (48, 36) and len(game.all_cameras) == 1
        camera = game.camera
        assert 20 <= -camera.tilt <= 35 and 38 <= camera.height <= 42
        assert camera.pose().camera_center[1] >= d - 0.01  # at the south edge, looking across
        assert game.imaging.webcam
    if setup == "two-cameras":
        assert w >= 60 and len(game.all_cameras) == 2
        left, right = (c.target[0] for c in game.all_cameras)
        assert left < w / 2 < right
    if setup == "4k":
        assert game.camera.intrinsics.image_size == (3840, 2160)
    for piece in game.scene.pieces:
        assert 0 < piece.x < w and 0 < piece.y < d
    for move in game.motions():
        if move.kind != "remove":
            assert 0 < move.to.x < w and 0 < move.to.y < d
        end = move.t + move.duration + (REACH_S if move.hand else 0.0)
        assert move.t > 0 and end < game.duration
    for visit in game.hands:
        assert visit.t + visit.duration < game.duration
    assert game.moves[0].t < 1.0  # a move in the first second, before anything settled
    assert len(game.removals) == 1 and len(game.entries) == 1


def test_random_games_draw_what_happens_at_a_table() -> None:
    """Over a few seeds every kind of event the issue lists turns up."""
    seen: set[str] = set()
    for seed in range(1, 13):
        game = parse_scenario(random_scenario(seed, "two-cameras"), "random")
        papers = {t.paper.id for t in game.templates}
        starts = game.start_poses()
        moves = [m for m in game.moves if m.piece not in papers]
        seen |= {"slide" for m in moves if not m.hand}
        seen |= {"carried" for m in moves if m.hand}
        seen |= {"template" for m in game.moves if m.piece in papers}
        seen |= {"hover"} if game.hands else set()
        seen |= {"bump"} if game.bumps else set()
        for a, b in itertools.pairwise(moves):
            if b.t < a.t + a.duration:
                seen.add("two at once")
        for m in moves:
            before = starts[m.piece]
            if (before.x - 30) * (m.to.x - 30) < 0 and game.table.width == 60:
                seen.add("seam")
            starts[m.piece] = m.to
    assert seen >= {"slide", "carried", "template", "hover", "bump", "two at once", "seam"}


@pytest.mark.slow  # renders a whole random game; the random-games slow test referees them
def test_simulate_random_writes_the_footage_files(tmp_path: Path) -> None:
    out = tmp_path / "game"
    result = CliRunner().invoke(
        cli,
        ["simulate", "--random", "4", "--setup", "two-cameras", "--out", str(out), "--no-video"],
    )
    assert result.exit_code == 0, result.output
    names = {p.name for p in out.iterdir()}
    assert {
        "roster.json",
        "scene.json",
        "camera-1.json",
        "camera-2.json",
        "truth-1.jsonl",
        "truth-2.jsonl",
        "truth-moves.json",
        "truth-events.json",
        "random.scenario.json",
    } <= names
    # The drawn scenario renders the same game again (and can be edited).
    again = tmp_path / "again"
    replay = CliRunner().invoke(
        cli, ["simulate", str(out / "random.scenario.json"), "--out", str(again), "--no-video"]
    )
    assert replay.exit_code == 0, replay.output
    for name in ("truth-moves.json", "truth-events.json", "truth-1.jsonl", "scene.json"):
        assert (again / name).read_text() == (out / name).read_text()
    events = json.loads((out / "truth-events.json").read_text())
    assert sorted(e["type"] for e in events) == ["entered", "removed"]
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    frames = len((out / "truth-1.jsonl").read_text().splitlines())
    assert frames == math.floor(
        json.loads((out / "random.scenario.json").read_text())["duration"] * 12
    )


def test_duration_and_webcam_options(tmp_path: Path) -> None:
    out = tmp_path / "g"
    result = CliRunner().invoke(
        cli,
        ["simulate", "--random", "2", "--duration", "9", "--webcam", "--out", str(out),
         "--no-video"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    drawn = json.loads((out / "random.scenario.json").read_text())
    assert drawn["duration"] == 9 and drawn["imaging"]["jpeg"] == 75
    plain = random_scenario(2, "oblique", webcam=False)
    assert "jpeg" not in plain["imaging"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give a SCENARIO file or --random SEED"),
        (["x.scenario.json", "--random", "1"], "not both"),
        (["x.scenario.json", "--setup", "4k"], "--setup is for --random games"),
        (["x.scenario.json", "--webcam"], "--webcam is for --random games"),
        (["--random", "1", "--setup", "sideways"], "'sideways' is not one of"),
        (["--random", "-3"], "-3 is not in the range"),
        (["--random", "1", "--duration", "2"], "2.0 is not in the range"),
    ],
)
def test_bad_random_options_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["simulate", *args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_an_oblique_camera_is_shown_the_board_turned_towards_it() -> None:
    """A board held flat to a camera looking across the table is seen edge-on: no fit."""
    import cv2
    import numpy as np

    from referee.sim.video import calibration_views

    game = parse_scenario(random_scenario(1, "oblique"), "random")
    to_camera = game.camera.pose().rotation
    held = calibration_views(game)[:-2:2]  # each held view once, not the flat one
    angles = []
    for _, board in held:
        normal = to_camera @ cv2.Rodrigues(np.array(board.rvec))[0][:, 2]
        angles.append(math.degrees(math.acos(abs(normal[2]))))
    assert max(angles) < 50  # never near edge-on (the camera's tilt alone is 20-35)
    xs = [board.tvec[0] for _, board in held]
    assert max(xs) - min(xs) > 0.5 * game.table.width  # over all the table, not its middle
