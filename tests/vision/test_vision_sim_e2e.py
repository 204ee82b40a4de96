"""End to end on footage from the project's simulator (exact ground truth).

A short clip (800x450, 7.5 s at 10 fps, lens k1 = -0.2): a T-34 with its tag
on a 0.9in roof is carried to a new place by a hand, a hand hovers over an
infantry squad, and the camera is bumped. See data/mini.scenario.json.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.markers.roster import load_roster

SCENARIO = Path(__file__).parent / "data" / "mini.scenario.json"
TOLERANCE = 0.03  # inches


@pytest.fixture(scope="module")
def footage(tmp_path_factory):
    from referee.sim.scenario import load_scenario
    from referee.sim.video import simulate

    out = tmp_path_factory.mktemp("mini")
    simulate(load_scenario(SCENARIO), out, calibration=False, progress=False)
    return out


def _track(footage, roster, tracks, events):
    """``referee track`` on the footage's video with its true camera; must succeed."""
    result = CliRunner().invoke(
        cli,
        [
            "track",
            str(footage / "video.mp4"),
            "-c",
            str(footage / "camera.json"),
            "-r",
            str(roster),
            "--out",
            str(tracks),
            "--events",
            str(events),
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def tracked(footage):
    tracks, events = footage / "tracks.jsonl", footage / "events.jsonl"
    _track(footage, footage / "roster.json", tracks, events)
    return (
        [json.loads(line) for line in tracks.read_text().splitlines()],
        [json.loads(line) for line in events.read_text().splitlines()],
        [json.loads(line) for line in (footage / "truth.jsonl").read_text().splitlines()],
    )


def _front(pose, depth):
    h = math.radians(pose["heading"])
    return (pose["x"] + depth / 2 * math.cos(h), pose["y"] + depth / 2 * math.sin(h))


def test_settled_pieces_are_within_tolerance_of_truth(tracked):
    lines, _, truth = tracked
    assert len(lines) == len(truth)
    checked = 0
    for line, true in zip(lines, truth, strict=True):
        real = {p["id"]: p for p in true["pieces"]}
        for piece in line["pieces"]:
            t = real[piece["id"]]
            if piece["state"] != "settled" or t["moving"] or t["lift"] > 0:
                continue
            assert math.hypot(piece["x"] - t["x"], piece["y"] - t["y"]) < TOLERANCE, (
                line["frame"],
                piece,
                t,
            )
            assert abs((piece["heading"] - t["heading"] + 180) % 360 - 180) < 1.0
            checked += 1
    assert checked > 120


def test_the_carried_move_is_one_event_with_the_true_distance(tracked, footage):
    _, events, _ = tracked
    moves = [e for e in events if e["event"] == "move"]
    assert [m["piece"] for m in moves] == ["t34"]
    (true,) = json.loads((footage / "truth-moves.json").read_text())["moves"]
    depth = load_roster(footage / "roster.json").by_id("t34").base[1]
    distance = math.dist(_front(true["from"], depth), _front(true["to"], depth))
    assert moves[0]["front_distance"] == pytest.approx(distance, abs=TOLERANCE)
    assert true["start_t"] - 0.5 <= moves[0]["start_t"] <= moves[0]["end_t"]
    assert moves[0]["end_t"] >= true["end_t"]


def test_a_hand_over_a_piece_hides_it_in_place_and_is_no_move(tracked):
    lines, _, truth = tracked
    covered = [
        i
        for i, true in enumerate(truth)
        for p in true["pieces"]
        if p["id"] == "sq1" and not p["visible"]
    ]
    assert len(covered) >= 5  # the scenario really covers it
    for i in covered:
        sq1 = next(p for p in lines[i]["pieces"] if p["id"] == "sq1")
        assert not sq1["seen"] and sq1["state"] == "hidden"
        assert math.hypot(sq1["x"] - 14, sq1["y"] - 12) < TOLERANCE


def test_a_bumped_camera_is_noticed_and_reregistered(tracked):
    lines, events, truth = tracked
    bumps = [e for e in events if e["event"] == "camera_moved"]
    assert len(bumps) == 1 and "re-registered" in bumps[0]["message"]
    bumped_at = next(t["frame"] for t in truth if t.get("camera_bump"))
    assert bumped_at <= bumps[0]["frame"] <= bumped_at + 5
    # After re-registration every piece is still where it really is.
    final = {p["id"]: p for p in lines[-1]["pieces"]}
    for t in truth[-1]["pieces"]:
        assert math.hypot(final[t["id"]]["x"] - t["x"], final[t["id"]]["y"] - t["y"]) < TOLERANCE


def test_a_tag_missing_from_the_roster_is_flagged_once(footage, tmp_path):
    roster = json.loads((footage / "roster.json").read_text())
    roster["pieces"] = [p for p in roster["pieces"] if p["id"] != "pz4"]
    short = tmp_path / "roster.json"
    short.write_text(json.dumps(roster))
    events = tmp_path / "events.jsonl"
    _track(footage, short, tmp_path / "t.jsonl", events)
    flags = [json.loads(line) for line in events.read_text().splitlines()]
    assert [(f["event"], f.get("tag")) for f in flags if f["event"] == "unknown_tag"] == [
        ("unknown_tag", 3)
    ]


def test_demo_runs_on_footage_and_compares_with_truth(footage):
    result = CliRunner().invoke(cli, ["demo", "--footage", str(footage)])
    assert result.exit_code == 0, result.output
    assert "t34 moved 5.1" in result.output
    assert "1 of 1 true moves found, 0 extra" in result.output
    assert "camera.json" in result.output  # no calibration clip: says it used the true camera


def test_demo_without_footage_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(cli, ["demo", "--footage", str(tmp_path)])
    assert result.exit_code == 2
    assert "referee simulate" in result.output and result.output.count("\n") == 1


@pytest.mark.slow  # the demo end to end; tests/game/test_session.py runs it by default
def test_demo_on_the_bundled_sample_footage():
    """The README's main command: calibrate from the clip, referee all 7 moves of the skirmish."""
    from referee.game import repo_footage

    assert (repo_footage() / "video.mp4").is_file(), "sample_footage/skirmish is committed"
    result = CliRunner().invoke(cli, ["demo"])
    assert result.exit_code == 0, result.output
    assert "calibrated: reprojection RMS" in result.output
    assert "7 of 7 true moves found, 0 extra" in result.output
    assert "t34b ended" in result.output  # the Follow Me after-move check
    error = float(result.output.split("move distance error: mean ")[1].split("in")[0])
    assert error < TOLERANCE
