"""Evidence with every ruling: the camera's pictures kept beside each verdict in the game log,
within budget, optional, and never a lost game when one is damaged or missing."""

from __future__ import annotations

import json
import sqlite3

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.calibration.camera import project, table_xyz
from referee.calibration.profile import load_profile
from referee.cli import cli
from referee.events import GameEvent
from referee.game import repo_footage
from referee.game.evidence import MAX_BYTES, capture
from referee.store import MIGRATIONS, Evidence, EvidenceError, GameLog, is_jpeg

FOOTAGE = repo_footage()
SCENE = {"ruleset": "paper-tigers", "table": {"width": 48, "depth": 36}}


def _run(db, *extra):
    f = FOOTAGE
    args = ["run", "--video", str(f / "video.mp4"), "-c", str(f / "camera.json")]
    args += ["-r", str(f / "roster.json"), "--scene", str(f / "scene.json")]
    args += ["--db", str(db), "--game", "skirmish", "-q", *extra]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return GameLog(db, readonly=True)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The sample game run once with evidence (the default)."""
    db = tmp_path_factory.mktemp("evidence") / "games.sqlite"
    log = _run(db)
    yield db, log
    log.close()


def _first_frame():
    capture_ = cv2.VideoCapture(str(FOOTAGE / "video.mp4"))
    ok, image = capture_.read()
    capture_.release()
    assert ok
    return image


def test_each_verdict_about_pieces_keeps_both_pictures_within_budget(played):
    _db, log = played
    game = log.game("skirmish")
    verdicts = [e for e in log.events(game) if e.type == "verdict" and e.data.get("pieces")]
    index = log.evidence_index(game)
    assert verdicts and all(e.seq in index for e in verdicts)
    assert all(e.type == "verdict" for e in log.events(game) if e.seq in index)
    for seq, kinds in index.items():
        assert {k for k, _ in kinds} == {"camera", "top"}
        assert sum(size for _, size in kinds) <= MAX_BYTES
        for kind, size in kinds:
            data = log.evidence(game, seq, kind)
            assert data is not None and len(data) == size
            picture = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            assert picture is not None and min(picture.shape[:2]) >= 16


def test_the_camera_crop_is_the_region_of_the_verdicts_pieces():
    image = _first_frame()
    profile = load_profile(FOOTAGE / "camera.json")
    points = [(10.0, 8.0), (30.0, 20.0)]
    pictures = capture(image, profile, points)
    assert set(pictures) == {"camera", "top"}
    crop = cv2.imdecode(np.frombuffer(pictures["camera"], np.uint8), cv2.IMREAD_COLOR)
    pixels = project(profile.intrinsics, profile.table_pose, table_xyz(points))
    # The crop spans the two pieces (and the line between them) plus a margin, no more than
    # the part of the frame around them: its aspect follows theirs.
    span = np.abs(pixels[1] - pixels[0])
    assert crop.shape[1] / crop.shape[0] == pytest.approx((span[0] + 1) / (span[1] + 1), rel=0.5)
    top = cv2.imdecode(np.frombuffer(pictures["top"], np.uint8), cv2.IMREAD_COLOR)
    assert top.shape[1] / top.shape[0] == pytest.approx((20 + 4) / (12 + 4), rel=0.05)


def test_a_crop_too_big_for_the_budget_is_made_smaller_until_it_fits():
    rng = np.random.default_rng(1)
    noise = rng.integers(0, 255, (1080, 1920, 3), np.uint8)  # JPEG cannot compress noise
    profile = load_profile(FOOTAGE / "camera.json")
    pictures = capture(noise, profile, [(2.0, 2.0), (46.0, 34.0)])
    assert pictures and sum(len(b) for b in pictures.values()) <= MAX_BYTES


@pytest.mark.slow  # a whole sample run (13 s) for one option; its parsing is in the default run
def test_evidence_off_keeps_none(tmp_path):
    log = _run(tmp_path / "off.sqlite", "--evidence", "off")
    game = log.game("skirmish")
    assert game.moves == 7 and log.evidence_index(game) == {}


def test_evidence_takes_on_or_off_only(tmp_path):
    result = CliRunner().invoke(cli, ["run", "--evidence", "maybe", "--db", str(tmp_path / "x")])
    assert result.exit_code == 2 and "--evidence" in result.output
    assert not (tmp_path / "x").exists()


def _schema_2_log(path):
    con = sqlite3.connect(path)
    for step in MIGRATIONS[:2]:
        for statement in step:
            con.execute(statement)
    con.execute("INSERT INTO referee_meta VALUES ('application', 'table-referee')")
    con.execute("INSERT INTO referee_meta VALUES ('schema_version', '2')")
    con.execute(
        "INSERT INTO games VALUES (1, 'old', 'then', 'paper-tigers', NULL, ?, NULL, NULL, 3, 0.1)",
        (json.dumps(SCENE),),
    )
    data = {"verdict": {"ask": "range", "ok": True, "summary": "range a -> b"}, "pieces": ["a"]}
    con.execute(
        "INSERT INTO events VALUES (1, 1, 0.1, 3, 'verdict', NULL, NULL, ?)", (json.dumps(data),)
    )
    con.commit()
    con.close()


def test_a_log_from_before_evidence_still_reads_and_is_migrated_at_its_first_write(tmp_path):
    path = tmp_path / "old.sqlite"
    _schema_2_log(path)
    before = path.read_bytes()
    reader = GameLog(path, readonly=True)  # no upgrade asked for: it only lacks evidence
    game = reader.game("old")
    assert [e.seq for e in reader.events(game)] == [1]
    assert reader.evidence_index(game) == {} and reader.evidence(game, 1, "camera") is None
    reader.close()
    assert path.read_bytes() == before
    shown = CliRunner().invoke(
        cli, ["log", "show", "old", "--db", str(path), "--evidence", str(tmp_path / "out")]
    )
    assert shown.exit_code == 0, shown.output
    assert "no evidence" in shown.output
    exported = CliRunner().invoke(cli, ["log", "export", "old", "--db", str(path)])
    assert "evidence" not in json.loads(exported.output.splitlines()[0])
    writer = GameLog(path)
    event = GameEvent(2, 0.2, "flag", {"kind": "jump", "message": "x"}, 4)
    writer.append(game, [event], evidence=[Evidence(2, "camera", _tiny_jpeg())])
    assert writer.evidence(game, 2, "camera") == _tiny_jpeg()


def _tiny_jpeg():
    ok, data = cv2.imencode(".jpg", np.full((16, 16, 3), 128, np.uint8))
    assert ok
    return bytes(data)


def test_a_damaged_blob_is_one_note_and_the_rest_of_the_game_reads(tmp_path, played):
    db, _log = played
    path = tmp_path / "copy.sqlite"
    source = sqlite3.connect(db)
    copy = sqlite3.connect(path)
    source.backup(copy)
    source.close()
    (seq,) = copy.execute("SELECT MIN(seq) FROM evidence").fetchone()
    copy.execute(
        "UPDATE evidence SET data = ? WHERE seq = ? AND kind = 'camera'", (b"\xff\xd8 torn", seq)
    )
    copy.commit()
    copy.close()
    log = GameLog(path, readonly=True)
    game = log.game("skirmish")
    with pytest.raises(EvidenceError, match=f"event #{seq}: its camera evidence is damaged"):
        log.evidence(game, seq, "camera")
    assert is_jpeg(log.evidence(game, seq, "top") or b"")
    assert log.verify() == len(log.events(game))  # the verdicts and moves all read
    out = tmp_path / "pictures"
    shown = CliRunner().invoke(
        cli, ["log", "show", "skirmish", "--db", str(path), "--evidence", str(out)]
    )
    assert shown.exit_code == 0, shown.output
    notes = [line for line in shown.output.splitlines() if "evidence is damaged" in line]
    assert len(notes) == 1 and f"#{seq}" in notes[0]
    assert not (out / f"{seq}-camera.jpg").exists() and (out / f"{seq}-top.jpg").exists()


def test_log_show_writes_the_pictures_and_export_lists_them(tmp_path, played):
    db, log = played
    game = log.game("skirmish")
    index = log.evidence_index(game)
    out = tmp_path / "pictures"
    shown = CliRunner().invoke(
        cli, ["log", "show", "skirmish", "--db", str(db), "--evidence", str(out)]
    )
    assert shown.exit_code == 0, shown.output
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(f"{seq}-{kind}.jpg" for seq, ks in index.items() for kind, _ in ks)
    seq, kinds = next(iter(index.items()))
    assert (out / f"{seq}-{kinds[0][0]}.jpg").read_bytes() == log.evidence(game, seq, kinds[0][0])
    exported = CliRunner().invoke(cli, ["log", "export", "skirmish", "--db", str(db)])
    lines = [json.loads(line) for line in exported.output.splitlines()]
    for line in lines:
        expected = [{"kind": k, "bytes": size} for k, size in index.get(line["seq"], [])]
        assert line.get("evidence", []) == expected
    csv = CliRunner().invoke(cli, ["log", "export", "skirmish", "--db", str(db), "--format", "csv"])
    # The CSV export is as it was (its columns are a fixed contract); JSONL adds the field.
    assert csv.output.splitlines()[0] == "seq,t,type,frame,piece,supersedes,summary,data"


@pytest.mark.slow  # two sample runs (10 s); the per-verdict budget is in the default run
def test_the_games_cap_holds_across_a_resume_and_earlier_pictures_are_kept(tmp_path):
    from referee.game import sample_live

    db = tmp_path / "capped.sqlite"
    cap = 40_000
    log = GameLog(db, evidence_cap=cap)
    live = sample_live(pace=0, log=log, game="capped")
    live.step(60)
    live.stop()
    game = log.game("capped")
    first = log.evidence_index(game)
    used = log.evidence_bytes(game)
    assert first and used <= cap
    before = game.last_seq
    log.close()
    again = GameLog(db, evidence_cap=cap)
    resumed = sample_live(pace=0, log=again, game="capped")
    resumed.step(120)
    resumed.stop()
    game = again.game("capped")
    assert game.last_seq > before  # the same game went on
    assert again.evidence_bytes(game) <= cap
    kept = again.evidence_index(game)
    assert all(kept[seq] == kinds for seq, kinds in first.items())  # nothing rewritten
    verdicts = [e.seq for e in again.events(game) if e.type == "verdict" and e.data.get("pieces")]
    assert any(seq not in kept for seq in verdicts)  # past the cap: verdicts, no pictures
    again.close()


def test_a_piece_only_the_far_camera_sees_is_shown_from_that_camera():
    """Over a table two cameras share, the pictures come from the camera that saw the
    verdict's pieces, not always from the first."""
    from types import SimpleNamespace

    from referee.game.evidence import camera_for

    near, far = np.zeros((4, 4, 3), np.uint8), np.full((4, 4, 3), 255, np.uint8)

    def view(image, ids, profile):
        pieces = [SimpleNamespace(id=i) for i in ids]
        return SimpleNamespace(image=image, pieces=pieces, profile=profile)

    views = (view(near, ["a", "b"], "near-profile"), view(far, ["c", "d"], "far-profile"))
    result = SimpleNamespace(image=near, profile="near-profile", views=views)
    assert camera_for(result, ["c"]) == (far, "far-profile")
    assert camera_for(result, ["c", "d", "a"])[1] == "far-profile"  # most of the pair's pieces
    assert camera_for(result, ["a", "c"])[1] == "near-profile"  # a tie: the first camera
    assert camera_for(result, ["nobody"])[1] == "near-profile"
    one = SimpleNamespace(image=near, profile="near-profile", views=views[:1])
    assert camera_for(one, ["c"])[1] == "near-profile"  # one camera: its frame, always
