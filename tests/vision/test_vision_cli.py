"""`referee track` / `referee run` end to end on a scripted synthetic clip, and bad input."""

from __future__ import annotations

import json
import math
import re

import pytest
from click.testing import CliRunner
from scripted_vision import profile, roster, small_camera, write_clip

from referee.calibration.camera import project, table_xyz
from referee.cli import cli

T34_FROM = (6.0, 6.0, 0.0)
T34_TO = (11.0, 8.5, 30.0)
SQ1 = (12.0, 12.0, 90.0)
PZ4 = (18.0, 5.0, 180.0)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """45 frames: t34 lifted and moved; sq1 covered by a hand and uncovered; tag 33 unknown."""
    intr, pose = small_camera()
    hand = (*tuple(project(intr, pose, table_xyz([SQ1[:2]], 0.0))[0]), 30.0)
    frames = []
    for i in range(45):
        spec = {"t34": T34_FROM, "sq1": SQ1, "pz4": PZ4, "_extra": [(33, 20.0, 14.0, 0.0)]}
        if 12 <= i < 16:
            spec["t34"] = None
        elif 16 <= i < 20:
            k = i - 15
            spec["t34"] = (6 + k * 1.25, 6 + k * 0.6, 7.5 * k)
        elif i >= 20:
            spec["t34"] = T34_TO
        if 18 <= i < 28:
            spec["_hand"] = hand
        frames.append(spec)
    root = tmp_path_factory.mktemp("clip")
    write_clip(root / "frames", frames)
    return root


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_track_writes_one_line_per_frame_and_one_move(clip, tmp_path):
    out, events = tmp_path / "tracks.jsonl", tmp_path / "events.jsonl"
    result = invoke(
        "track",
        clip / "frames",
        "--calibration",
        clip / "profile.json",
        "--roster",
        clip / "roster.json",
        "--out",
        out,
        "--events",
        events,
        "-q",
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["frame"] for line in lines] == list(range(45))
    assert lines[3]["t"] == pytest.approx(3 / 30)
    final = {p["id"]: p for p in lines[-1]["pieces"]}
    for pid, (x, y, heading) in {"t34": T34_TO, "sq1": SQ1, "pz4": PZ4}.items():
        assert math.hypot(final[pid]["x"] - x, final[pid]["y"] - y) < 0.03, pid
        assert abs((final[pid]["heading"] - heading + 180) % 360 - 180) < 1.0
        assert final[pid]["state"] == "settled" and final[pid]["seen"]
    # While the hand covers sq1 it is kept where it settled.
    covered = {p["id"]: p for p in lines[24]["pieces"]}["sq1"]
    assert not covered["seen"] and covered["state"] == "hidden"
    assert math.hypot(covered["x"] - SQ1[0], covered["y"] - SQ1[1]) < 0.03

    logged = [json.loads(line) for line in events.read_text().splitlines()]
    moves = [e for e in logged if e["event"] == "move"]
    assert len(moves) == 1 and moves[0]["piece"] == "t34"
    h0, h1 = math.radians(T34_FROM[2]), math.radians(T34_TO[2])
    true = math.dist(
        (T34_FROM[0] + 1.5 * math.cos(h0), T34_FROM[1] + 1.5 * math.sin(h0)),
        (T34_TO[0] + 1.5 * math.cos(h1), T34_TO[1] + 1.5 * math.sin(h1)),
    )
    assert moves[0]["front_distance"] == pytest.approx(true, abs=0.03)
    unknown = [e for e in logged if e["event"] == "unknown_tag"]
    assert [e["tag"] for e in unknown] == [33]
    assert "tag 33 is not in the roster" in result.output  # warned once on stderr
    assert result.output.count("tag 33") == 1


def test_run_prints_each_settled_move(clip, tmp_path):
    annotated = tmp_path / "seen.mp4"
    result = invoke(
        "run",
        "--video",
        clip / "frames",
        "-c",
        clip / "profile.json",
        "-r",
        clip / "roster.json",
        "--annotate",
        annotated,
        "-q",
    )
    assert result.exit_code == 0, result.output
    rulings = re.findall(r"^ *[0-9.]+s  (\S+) moved ([0-9.]+)in .*: (.*)$", result.output, re.M)
    assert [(pid, verdict) for pid, _, verdict in rulings] == [("t34", "ok")]
    import cv2

    video = cv2.VideoCapture(str(annotated))
    assert int(video.get(cv2.CAP_PROP_FRAME_COUNT)) == 45


def _track(clip, tmp_path, source=None, calibration=None, roster_file=None):
    return invoke(
        "track",
        source or clip / "frames",
        "--calibration",
        calibration or clip / "profile.json",
        "--roster",
        roster_file or clip / "roster.json",
        "--out",
        tmp_path / "t.jsonl",
        "-q",
    )


def test_unreadable_video_is_a_one_line_error(clip, tmp_path):
    bad = tmp_path / "game.mp4"
    bad.write_bytes(b"this is not a video")
    result = _track(clip, tmp_path, source=bad)
    assert result.exit_code == 2
    assert result.output.startswith("referee: error: ") and "game.mp4" in result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output


def test_missing_profile_is_a_one_line_error(clip, tmp_path):
    result = _track(clip, tmp_path, calibration=tmp_path / "nope.json")
    assert result.exit_code == 2
    assert "nope.json" in result.output and "referee calibrate" in result.output


def test_foreign_profile_is_a_one_line_error(clip, tmp_path):
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"camera": "something else"}))
    result = _track(clip, tmp_path, calibration=foreign)
    assert result.exit_code == 2 and "not a table referee calibration profile" in result.output


def test_profile_for_another_resolution_is_an_error(clip, tmp_path):
    other = profile()
    from dataclasses import replace

    from referee.calibration.camera import Intrinsics

    intr = Intrinsics((1920, 1080), other.intrinsics.matrix * [[2], [2], [1]])
    path = tmp_path / "hd.json"
    replace(other, intrinsics=intr).save(path)
    result = _track(clip, tmp_path, calibration=path)
    assert result.exit_code == 2
    assert "960x540" in result.output and "1920x1080" in result.output


def test_roster_that_matches_no_tag_is_an_error(clip, tmp_path):
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"pieces": [{"tag": 70, "id": "x", "base": [1, 1]}]}))
    result = _track(clip, tmp_path, roster_file=wrong)
    assert result.exit_code == 2 and "does not match" in result.output
    # Everything up to the error is on disk beside the output, which a failure never replaces.
    assert "t.jsonl.partial" in result.output.splitlines()[-1]
    assert len((tmp_path / "t.jsonl.partial").read_text().splitlines()) == 29
    assert not (tmp_path / "t.jsonl").exists()


def test_a_failed_track_leaves_the_earlier_tracks_file_as_it_was(clip, tmp_path):
    earlier = tmp_path / "t.jsonl"
    earlier.write_text('{"frame": 0}\n')
    result = _track(clip, tmp_path, calibration=tmp_path / "nope.json")
    assert result.exit_code == 2
    assert earlier.read_text() == '{"frame": 0}\n'
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"pieces": [{"tag": 70, "id": "x", "base": [1, 1]}]}))
    result = _track(clip, tmp_path, roster_file=wrong)
    assert result.exit_code == 2
    assert earlier.read_text() == '{"frame": 0}\n'


def test_run_needs_exactly_one_source(clip):
    result = invoke("run", "-c", clip / "profile.json", "-r", clip / "roster.json")
    assert result.exit_code == 2 and "--camera" in result.output


def test_roster_fixture_is_consistent():
    assert [p.id for p in roster()] == ["t34", "sq1", "pz4"]
