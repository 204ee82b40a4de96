"""Battle reports (issue 40, item 2): the HTML page and the MP4 tell what the log holds.

The game is a synthetic log written through the store's own API (tests/report/synthetic.py):
it knows every move, dispute, turn and correction it wrote, and the report is checked
against that and against ``referee log export`` of the same game.
"""

from __future__ import annotations

import base64
import json
import math
import re
import sqlite3
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.report import build_report
from referee.report.model import ORIGIN_UNKNOWN, PAUSE, _Reader, off_table
from referee.report.video import FPS, HOLD_END, Timeline, frame_count
from referee.store import EVIDENCE_KINDS, GameLog, is_jpeg
from report.synthetic import Written, build_game, scene_and_roster

GAME = "synthetic"


class Page(HTMLParser):
    """The report's elements by class, with their attributes and text; every URL it names."""

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[str, list[dict[str, str]]] = {}
        self.urls: list[str] = []
        self.svgs: list[dict[str, str]] = []
        self.imgs: list[dict[str, str]] = []
        self._open: list[tuple[str, dict[str, str], list[str]]] = []

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        for key in ("src", "href", "xlink:href", "action", "data"):
            if key in a:
                self.urls.append(a[key])
        if tag == "svg":
            self.svgs.append(a)
        if tag == "img":
            self.imgs.append(a)
        if tag == "li":
            self._open.append((a.get("class", ""), a, []))

    def handle_data(self, data):
        for _, _, text in self._open:
            text.append(data)

    def handle_endtag(self, tag):
        if tag == "li" and self._open:
            kind, attrs, text = self._open.pop()
            self.items.setdefault(kind, []).append({**attrs, "text": "".join(text)})


def parse(path: Path) -> tuple[str, Page]:
    text = path.read_text(encoding="utf-8")
    page = Page()
    page.feed(text)
    return text, page


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> tuple[Path, Written]:
    db = tmp_path_factory.mktemp("report") / "games.sqlite"
    return db, build_game(db, GAME, seconds=240, corrections=2)


@pytest.fixture(scope="module")
def page(game, tmp_path_factory) -> tuple[str, Page]:
    db, _ = game
    out = tmp_path_factory.mktemp("out") / "report.html"
    result = run("log", "report", GAME, "--db", str(db), "--out", str(out))
    assert result.exit_code == 0, result.output
    return parse(out)


def exported(db: Path) -> list[dict]:
    result = run("log", "export", GAME, "--db", str(db))
    return [json.loads(line) for line in result.output.splitlines()]


def test_the_report_shows_every_move_and_dispute_the_log_holds(game, page):
    db, written = game
    _, html = page
    events = exported(db)
    moves = [e for e in events if e["type"] == "move"]
    move_seqs = {e["seq"] for e in moves}
    fixes = {e["seq"] for e in events if e["type"] == "correction"}
    asked = [
        e
        for e in events
        if e["type"] == "verdict"
        and e.get("about") not in move_seqs
        and not (e.get("about") in fixes and e["verdict"]["ask"] == "move")
    ]
    shown = html.items["move"]
    assert [int(m["data-seq"]) for m in shown] == [e["seq"] for e in moves]
    assert len(shown) == len(written.moves) > 20
    assert [int(d["data-seq"]) for d in html.items["dispute"]] == [e["seq"] for e in asked]
    assert len(asked) == written.disputes > 3
    for move, item in zip(moves, shown, strict=True):
        assert f"{move['distance']:.2f}in" in item["text"], item["text"]  # its distance
        assert item["data-piece"] == move["piece"]


def test_each_move_carries_its_verdict_and_each_dispute_its_reasons(game, page):
    db, _ = game
    _, html = page
    events = exported(db)
    judged = {e["about"]: e["verdict"] for e in events if e["type"] == "verdict" and "about" in e}
    voided = {e["supersedes"] for e in events if e["type"] == "correction" and e.get("void")}
    for e in events:  # a move corrected to end elsewhere is judged again: that verdict counts
        if e["type"] == "correction" and not e.get("void") and e["seq"] in judged:
            judged[e["supersedes"]] = judged[e["seq"]]
    for item in html.items["move"]:
        seq = int(item["data-seq"])
        ok = judged[seq]["ok"]
        want = "void" if seq in voided else {True: "ok", False: "no", None: "maybe"}[ok]
        assert item["data-verdict"] == want
        if seq not in voided:
            assert judged[seq]["summary"] in item["text"]
    marks = {m["data-verdict"] for m in html.items["move"]}
    assert {"ok", "no", "void"} <= marks  # the synthetic game has each kind
    for item, verdict in zip(
        html.items["dispute"],
        [e for e in events if e["type"] == "verdict" and e.get("question") == 0],
        strict=True,
    ):
        assert all(reason in item["text"] for reason in verdict["verdict"]["reasons"])


def test_corrections_show_the_value_and_what_it_superseded(game, page):
    _, written = game
    _, html = page
    fixes = {int(c["data-supersedes"]): c["text"] for c in html.items["correction"]}
    assert set(fixes) == set(written.corrected)
    moves = {int(m["data-seq"]): m["text"] for m in html.items["move"]}
    for seq, fix in written.corrected.items():
        if fix.get("void"):
            assert "did not happen" in fixes[seq] and "did not happen" in moves[seq]
        else:
            to = fix["to"]
            assert f"came to rest at ({to['x']:.2f}, {to['y']:.2f})" in fixes[seq]
            assert "corrected by #" in moves[seq]
        assert f"move #{seq} of " in fixes[seq] and fix["reason"] in fixes[seq]


def test_the_file_is_self_contained_with_a_picture_per_turn(game, page):
    _, written = game
    text, html = page
    assert html.urls == []  # no src, href or data to fetch
    assert "http" not in text and "@import" not in text and "url(http" not in text
    pictures = [s for s in html.svgs if s.get("class") == "table-picture"]
    assert [int(s["data-turn"]) for s in pictures] == list(range(written.turns + 1))
    ids = re.findall(r'id="([^"]+)"', text)
    assert len(ids) == len(set(ids))  # each picture clips by its own paths
    assert text.count("<polygon") > written.turns * 8  # pieces and arrow heads drawn


def test_turns_follow_the_pause_and_the_side(game, tmp_path):
    db, written = game
    with GameLog(db, readonly=True) as log:
        info = log.game(GAME)
        default = build_report(log, info)
        # A pause longer than the handover: only the side changing ends a turn.
        long = build_report(log, info, pause=1000)
        # Shorter than the gap between two moves of one side: every move is a turn.
        short = build_report(log, info, pause=1.0)
    assert default.pause == PAUSE and len(default.turns) == written.turns
    assert len(long.turns) == written.turns  # sides alternate every turn
    assert len(short.turns) == len(written.moves)
    for turn in default.turns:
        assert len(turn.sides) == 1 and all(m.turn == turn.number for m in turn.moves)
    # The table after a turn has each moved piece where its last move (or correction) put it.
    last = default.turns[-1].scene
    final = {}
    for m in default.moves:
        if m.mark != "void":
            final[m.piece] = m.end
    for pid, pose in final.items():
        piece = last.piece(pid)
        assert (piece.x, piece.y) == pytest.approx((pose["x"], pose["y"]), abs=1e-3)
    cli_short = run("log", "report", GAME, "--db", str(db), "--pause", "1",
                    "--out", str(tmp_path / "r.html"))  # fmt: skip
    assert cli_short.exit_code == 0 and f"{len(written.moves)} turns" in cli_short.output


def test_each_turns_table_is_the_logs_replay_of_that_moment(game):
    """The turns' tables are built move by move; the log's own replay (scene_at, the
    table 'referee log replay' prints) agrees with every one of them."""
    from referee.game import scene_at

    db, _ = game
    with GameLog(db, readonly=True) as log:
        info = log.game(GAME)
        report = build_report(log, info)
        for turn in report.turns:
            replayed, _ = scene_at(log, info, seq=turn.upto_seq)
            assert {p.id for p in turn.scene} == {p.id for p in replayed}
            for piece in replayed:
                drawn = turn.scene.piece(piece.id)
                where = (turn.number, piece.id)
                assert (drawn.x, drawn.y) == pytest.approx((piece.x, piece.y), abs=1e-3), where
                # the move event logs its heading to 0.01 degree, the position row in full
                assert drawn.heading == pytest.approx(piece.heading, abs=0.01), where


def test_the_result_is_the_systems_victory_question_or_none_logged(game, tmp_path):
    db, _ = game
    with GameLog(db, readonly=True) as log:
        report = build_report(log, log.game(GAME))
    assert report.result is not None and report.result.source == "final table"
    assert report.result.verdict["ask"] == "victory"
    other = tmp_path / "other.sqlite"
    written = build_game(other, "plastic", seconds=60)
    with GameLog(other) as log:  # the same game under a system that scores no result
        log._con.execute("UPDATE games SET scene = replace(scene, 'paper-tigers', 'pz8-ww2')")
        log._con.commit()
    out = tmp_path / "plastic.html"
    result = run("log", "report", "plastic", "--db", str(other), "--out", str(out))
    assert result.exit_code == 0, result.output
    text, html = parse(out)
    assert "no result logged" in text and len(html.items["move"]) == len(written.moves)


def test_casualties_and_reinforcements_are_read_by_type_and_drawn():
    """``removed``/``entered`` (issue 41's contract) read as plain events: a casualty leaves
    the table from its event on until a correction (or a later move) brings it back."""
    events = [
        {"seq": 1, "t": 1.0, "type": "removed", "piece": "a", "edge": "south",
         "at": {"x": 5, "y": 30, "heading": 90}, "reason": "carried off the south edge"},
        {"seq": 2, "t": 2.0, "type": "entered", "piece": "b",
         "at": {"x": 40, "y": 2, "heading": 90}, "verdict": {"ask": "entry", "ok": True}},
        {"seq": 3, "t": 3.0, "type": "removed", "piece": "b", "edge": None,
         "at": {"x": 40, "y": 2, "heading": 90}, "reason": "gone from view"},
        {"seq": 4, "t": 4.0, "type": "correction", "supersedes": 3, "reason": "still there"},
    ]  # fmt: skip
    reader = _Reader(events, {"a": "soviet", "b": "german"})
    casualties = reader.casualties()
    assert [(c.piece, c.edge, c.undone_by) for c in casualties] == [
        ("a", "south", None),
        ("b", None, 4),
    ]
    (arrival,) = reader.arrivals()
    assert (
        arrival.piece == "b"
        and arrival.side == "german"
        and arrival.verdict
        == {
            "ask": "entry",
            "ok": True,
        }
    )
    from referee.scene import Piece, Scene, Table

    scene = Scene("paper-tigers", Table(48, 36), (Piece("a", "soviet", "tank", 5, 30),
                  Piece("b", "german", "tank", 40, 2)))  # fmt: skip
    assert [p.id for p in off_table(scene, casualties, 3)] == []
    assert [p.id for p in off_table(scene, casualties, 4)] == ["b"]  # corrected back
    assert [p.id for p in off_table(scene, casualties, 0)] == ["a", "b"]


def test_a_move_of_unknown_origin_says_so():
    pose = {"x": 1, "y": 2, "heading": 0}
    move = {"type": "move", "piece": "a", "from": pose, "to": {**pose, "x": 5}, "t": 3.0}
    events = [
        {"seq": 1, **move},
        {"seq": 2, "t": 5.0, "type": "flag", "kind": "unknown_origin", "piece": "a",
         "message": "a: origin unknown"},
        {"seq": 3, **move, "t": 5.0},
        {"seq": 4, **move, "piece": "b", "t": 5.0},
        {"seq": 9, **move, "t": 20.0},
    ]  # fmt: skip
    notes = {m.seq: m.notes for m in _Reader(events, {}).moves()}
    assert notes[3] == (ORIGIN_UNKNOWN,)
    assert notes[1] == notes[4] == notes[9] == ()


def test_a_game_without_events_still_has_a_report(tmp_path):
    db = tmp_path / "empty.sqlite"
    scene, _ = scene_and_roster(4)
    with GameLog(db) as log:
        log.create_game("empty", scene["ruleset"], scene)
    for name in ("e.html", "e.mp4"):
        result = run("log", "report", "empty", "--db", str(db), "--out", str(tmp_path / name))
        assert result.exit_code == 0, result.output
    text, html = parse(tmp_path / "e.html")
    assert "No moves logged" in text and "move" not in html.items
    assert len([s for s in html.svgs if s.get("class") == "table-picture"]) == 1


def test_casualties_appear_in_the_page(game):
    from referee.report.html import to_html

    db, _ = game
    with GameLog(db, readonly=True) as log:
        report = build_report(log, log.game(GAME))
    reader = _Reader(
        [{"seq": 9, "t": 9.0, "type": "removed", "piece": "s1", "edge": "north",
          "at": {"x": 10, "y": 10, "heading": 0}, "reason": "carried off the north edge"}],
        {"s1": "soviet"},
    )  # fmt: skip
    turn = replace(report.turns[0], off=tuple(reader.casualties()))
    text = to_html(replace(report, casualties=turn.off, turns=(turn, *report.turns[1:])))
    assert "carried off the north edge" in text and "off the north edge" in text
    assert "s1 off" in text  # the cross's label on the turn's picture


def _expected_video_seconds(events: list[dict], speed: float, pause: float) -> float:
    """The timeline worked out again here: moves play in real time at ``speed``, idle
    stretches are kept up to ``pause`` game seconds."""
    spans = sorted((e["start_t"], e["end_t"]) for e in events if e["type"] == "move")
    end = max(e["t"] for e in events)
    kept, at = 0.0, 0.0
    for a, b in spans:
        if a > at:
            kept += min(a - at, pause)
        kept += max(b, at) - max(a, at)
        at = max(at, b)
    kept += min(max(end - at, 0.0), pause)
    return kept / speed


def test_the_mp4_reads_back_with_the_frames_its_speed_gives(game, tmp_path):
    import cv2

    db, written = game
    events = exported(db)
    counts = {}
    for speed in (20, 40):
        out = tmp_path / f"replay-{speed}.mp4"
        result = run("log", "report", GAME, "--db", str(db), "--out", str(out),
                     "--speed", str(speed))  # fmt: skip
        assert result.exit_code == 0, result.output
        capture = cv2.VideoCapture(str(out))
        frames, first = 0, None
        while True:
            ok, image = capture.read()
            if not ok:
                break
            first = image if first is None else first
            frames += 1
        assert capture.get(cv2.CAP_PROP_FPS) == pytest.approx(FPS)
        capture.release()
        seconds = _expected_video_seconds(events, speed, PAUSE)
        assert frames == math.ceil(seconds * FPS) + round(HOLD_END * FPS)
        assert first is not None and first.shape[1] >= 600 and first.std() > 10  # a picture
        counts[speed] = frames - round(HOLD_END * FPS)
    assert counts[20] == pytest.approx(2 * counts[40], abs=2)  # twice the speed, half as long
    # Far shorter than the game: the handovers between turns were cut to the pause.
    assert counts[20] / FPS < written.duration / 20


def test_the_timeline_maps_both_ways():
    line = Timeline.of([(5, 8), (50, 51), (50.5, 53)], 60, speed=2, idle_cap=4)
    assert line.video_length == pytest.approx((4 + 3 + 4 + 3 + 4) / 2)
    for t in (0, 5, 6.5, 8, 30, 50, 52, 60):
        assert line.game_at(line.video_at(t)) == pytest.approx(t)
    assert frame_count  # the count the command writes is the one this module computes


def test_bad_report_options_are_one_line(game, tmp_path):
    db, _ = game
    folder = tmp_path / "x.html"
    folder.mkdir()
    (tmp_path / "afile").write_text("a regular file\n")
    cases = [
        (["nope", "--out", str(tmp_path / "r.html")], "no game 'nope'"),
        ([GAME, "--out", str(tmp_path / "r.pdf")], "--out"),
        ([GAME, "--out", str(folder)], "is a folder"),
        ([GAME, "--out", str(tmp_path / "afile" / "r.html")], "is a file, not a folder"),
        ([GAME, "--out", str(tmp_path / "r.mp4"), "--speed", "fast"], "--speed"),
        ([GAME, "--out", str(tmp_path / "r.mp4"), "--speed", "0"], "--speed"),
        ([GAME, "--out", str(tmp_path / "r.html"), "--pause", "-3"], "--pause"),
    ]
    for args, words in cases:
        result = run("log", "report", *args, "--db", str(db))
        assert result.exit_code == 2, result.output
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("referee: error: ") and words in lines[0]
    assert not list(tmp_path.glob("r.*")) and not list(tmp_path.glob(".r.*"))


@pytest.fixture(scope="module")
def evidenced(tmp_path_factory) -> tuple[Path, Written]:
    """The synthetic game with a camera and a top picture kept with every dispute."""
    db = tmp_path_factory.mktemp("evidence") / "games.sqlite"
    return db, build_game(db, GAME, seconds=120, corrections=1, evidence=True)


def _pictures(html: Page) -> dict[int, dict[str, bytes]]:
    out: dict[int, dict[str, bytes]] = {}
    for img in html.imgs:
        prefix = "data:image/jpeg;base64,"
        assert img["src"].startswith(prefix), img["src"][:40]
        out.setdefault(int(img["data-seq"]), {})[img["data-kind"]] = base64.b64decode(
            img["src"][len(prefix) :], validate=True
        )
    return out


def test_each_dispute_shows_its_evidence_inline(evidenced, tmp_path):
    db, written = evidenced
    out = tmp_path / "report.html"
    result = run("log", "report", GAME, "--db", str(db), "--out", str(out))
    assert result.exit_code == 0, result.output
    text, html = parse(out)
    assert written.evidence and len(written.evidence) == written.disputes
    assert [int(d["data-seq"]) for d in html.items["dispute"]] == sorted(written.evidence)
    # The very bytes logged, one img per kind under its own dispute, nothing to fetch.
    assert _pictures(html) == written.evidence
    assert all(is_jpeg(data) for kinds in written.evidence.values() for data in kinds.values())
    assert all(u.startswith("data:image/jpeg;base64,") for u in html.urls)
    assert "none stored" not in text
    for item in html.items["dispute"]:
        assert "what the camera saw" in item["text"] and "seen from above" in item["text"]
    # Sane size: the report without pictures plus the pictures' base64, and little more.
    pictures = sum(len(d) for kinds in written.evidence.values() for d in kinds.values())
    plain = tmp_path / "plain.sqlite"
    build_game(plain, GAME, seconds=120, corrections=1)
    bare = tmp_path / "bare.html"
    assert run("log", "report", GAME, "--db", str(plain), "--out", str(bare)).exit_code == 0
    grown = out.stat().st_size - bare.stat().st_size
    assert pictures * 4 / 3 < grown < pictures * 4 / 3 + 400 * len(html.imgs)


def test_a_log_without_evidence_reports_as_before(game, page):
    _, written = game
    _, html = page
    assert html.imgs == [] and html.urls == []
    notes = [d["text"] for d in html.items["dispute"]]
    assert len(notes) == written.disputes
    assert all("evidence: none stored with this ruling" in n for n in notes)


def test_a_damaged_picture_is_one_note_and_the_report_is_made(evidenced, tmp_path):
    db, written = evidenced
    copy = tmp_path / "torn.sqlite"
    source, target = sqlite3.connect(db), sqlite3.connect(copy)
    source.backup(target)
    source.close()
    torn = sorted(written.evidence)[1]
    target.execute(
        "UPDATE evidence SET data = ? WHERE seq = ? AND kind = 'camera'", (b"\xff\xd8 torn", torn)
    )
    target.commit()
    target.close()
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["log", "report", GAME, "--db", str(copy), "--out", str(out)])
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if "evidence is damaged" in line]
    assert len(warned) == 1 and f"event #{torn}: its camera evidence" in warned[0]
    text, html = parse(out)
    shown = _pictures(html)
    assert shown[torn] == {"top": written.evidence[torn]["top"]}  # the other kind still shown
    assert {s: k for s, k in shown.items() if s != torn} == {
        s: k for s, k in written.evidence.items() if s != torn
    }
    item = next(d for d in html.items["dispute"] if int(d["data-seq"]) == torn)
    assert "camera evidence is damaged" in item["text"]
    assert text.count("evidence is damaged") == 1
    assert set(EVIDENCE_KINDS) == {"camera", "top"}  # the kinds the captions name


def _inset_frames(path: Path) -> list[np.ndarray]:
    """The frames of an MP4 whose table area's top right corner holds an inset picture
    (its white frame is drawn off the cloth, 4-5 px from the top)."""
    import cv2

    capture = cv2.VideoCapture(str(path))
    found = []
    while True:
        ok, image = capture.read()
        if not ok:
            break
        w = image.shape[1]
        strip = image[4:6, w - 40 : w - 10].astype(int)
        if strip.min() > 200:  # the white frame's top edge (codec blur allowed)
            found.append(image)
    capture.release()
    return found


def test_the_mp4_insets_what_the_camera_saw_of_each_dispute(evidenced, game, tmp_path):
    db, written = evidenced
    out = tmp_path / "evidence.mp4"
    result = run("log", "report", GAME, "--db", str(db), "--out", str(out), "--speed", "20")
    assert result.exit_code == 0, result.output
    frames = _inset_frames(out)
    assert frames, "no frame shows a dispute's camera picture"
    # The inset is one of the disputes' camera pictures: a flat shade made per dispute.
    shades = {(seq * 37 + EVIDENCE_KINDS.index("camera") * 101) % 256 for seq in written.evidence}
    corner = frames[0][20:30, -60:-40].astype(float)
    assert min(abs(corner.mean() - s) for s in shades) < 12
    # A log with no evidence has no inset.
    plain_db, _ = game
    plain = tmp_path / "plain.mp4"
    result = run("log", "report", GAME, "--db", str(plain_db), "--out", str(plain),
                 "--speed", "20")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert not _inset_frames(plain)
