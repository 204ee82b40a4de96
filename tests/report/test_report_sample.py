"""The issue's own check: the bundled sample game played into a log, its report and MP4
written, the moves and disputes the report shows counted against the log's export, the
MP4's frames read back."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.game import repo_footage
from referee.store import GameLog
from report.test_report import parse

FOOTAGE = repo_footage()


@pytest.mark.slow  # plays the whole sample clip through the vision pipeline (10-20 s)
def test_the_sample_games_report_and_mp4(tmp_path):
    import cv2

    db = tmp_path / "games.sqlite"
    f = FOOTAGE
    played = CliRunner().invoke(cli, ["run", "--video", str(f / "video.mp4"), "-c",
                                      str(f / "camera.json"), "-r", str(f / "roster.json"),
                                      "--scene", str(f / "scene.json"), "--db", str(db),
                                      "--game", "sample", "-q"])  # fmt: skip
    assert played.exit_code == 0, played.output
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli, ["log", "report", "sample", "--db", str(db), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    text, page = parse(out)
    export = CliRunner().invoke(cli, ["log", "export", "sample", "--db", str(db)])
    events = [json.loads(line) for line in export.output.splitlines()]
    moves = [e for e in events if e["type"] == "move"]
    truth = json.loads((f / "truth-moves.json").read_text())["moves"]
    assert len(page.items["move"]) == len(moves) == len(truth)
    asked = [e for e in events if e["type"] == "verdict" and "about" not in e]
    assert len(page.items["dispute"]) == len(asked) > 0
    assert "blocked by wood1" in text  # the sample's line-of-sight dispute and its reason
    for move, item in zip(moves, page.items["move"], strict=True):
        assert f"{move['distance']:.2f}in" in item["text"]
    assert "Paper Tigers" in text and "36 x 24 in" in text
    video = tmp_path / "report.mp4"
    result = CliRunner().invoke(cli, ["log", "report", "sample", "--db", str(db), "--out",
                                      str(video), "--speed", "5"])  # fmt: skip
    assert result.exit_code == 0, result.output
    capture = cv2.VideoCapture(str(video))
    frames = 0
    while capture.read()[0]:
        frames += 1
    with GameLog(db, readonly=True) as log:
        game_seconds = log.game("sample").last_t  # the last frame played, after the last event
    # Nothing idles past the 10 s pause in the sample: the video is the game at 5x, + 2 s.
    assert frames == pytest.approx((game_seconds / 5 + 2) * 10, abs=2)
