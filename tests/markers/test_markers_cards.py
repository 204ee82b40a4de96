"""Unit cards and roster scan: a printed card read back gives its roster entry."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.errors import RosterError
from referee.markers.cards import card_payload, card_sheet, parse_card
from referee.markers.pdf import rasterize
from referee.markers.roster import Roster, RosterEntry, load_roster
from referee.markers.scan import Card, iter_images, merge, scan

T34 = RosterEntry(12, "t34", "soviet", "tank", (1.5, 3.0), (0.25, 0.0), 0.9, name="Lead T-34")
SQ1 = RosterEntry(13, "sq1", "soviet", "infantry", (2.0, 1.0))
PZ4 = RosterEntry(40, "pz4", "german", "tank", (1.5, 3.0), tag_size=1.5)
ROSTER = Roster("DICT_4X4_100", (T34, SQ1, PZ4))


@pytest.fixture(scope="module")
def card_page() -> np.ndarray:
    """The first page of cards, as a 150 dpi scan."""
    return rasterize(card_sheet(ROSTER).pages[0], 150)


def _photo(page: np.ndarray) -> np.ndarray:
    """A slightly rotated, blurred, noisy colour photo of the page."""
    h, w = page.shape
    turned = cv2.warpAffine(
        page, cv2.getRotationMatrix2D((w / 2, h / 2), 4, 1.0), (w, h), borderValue=230
    )
    blurred = cv2.GaussianBlur(turned, (3, 3), 0.8)
    noise = np.random.default_rng(1).normal(0, 4, blurred.shape)
    return cv2.cvtColor(np.clip(blurred + noise, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)


def test_payload_round_trips_every_field():
    for entry in ROSTER:
        dictionary, back = parse_card(card_payload(entry, "DICT_4X4_100"))
        assert (dictionary, back) == ("DICT_4X4_100", entry)


@pytest.mark.parametrize(
    "text",
    [
        "hello",
        '{"tag": 3}',
        '{"dictionary": "DICT_4X4_100", "tag": 3, "id": "x"}',  # no base
        '{"dictionary": "DICT_9X9_1", "tag": 3, "id": "x", "base": [1, 1]}',
        '{"dictionary": "DICT_4X4_50", "tag": 70, "id": "x", "base": [1, 1]}',
    ],
)
def test_foreign_or_broken_qr_text_is_a_roster_error(text):
    with pytest.raises(RosterError, match=r"photo\.jpg"):
        parse_card(text, "photo.jpg")


@pytest.mark.usefixtures("opencv_qr")
def test_scanned_cards_give_back_their_entries(card_page):
    result = scan(iter([("cards.png", _photo(card_page))]))
    assert result.problems == ()
    assert sorted((c.entry for c in result.cards), key=str) == sorted(ROSTER.pieces, key=str)


def test_card_carries_the_tag_at_true_size_or_a_marked_preview(card_page, detect_tags):
    sheet = card_sheet(ROSTER)
    placed = {p.piece: p for p in sheet.placed}
    assert placed["t34"].true_size and placed["t34"].tag_size == pytest.approx(0.8 * 72)
    assert not placed["pz4"].true_size  # a 1.5 in tag does not fit a card
    assert set(detect_tags(card_page, "DICT_4X4_100")) == {12, 13, 40}


def test_merge_adds_updates_and_keeps():
    start = Roster("DICT_4X4_100", (SQ1, RosterEntry(12, "old", "x", "y", (1.0, 1.0))))
    cards = tuple(Card("DICT_4X4_100", e, "img") for e in (T34, SQ1, PZ4))
    merged, changes = merge(start, cards)
    assert [(c.action, c.entry.id) for c in changes] == [
        ("updated", "t34"),
        ("unchanged", "sq1"),
        ("added", "pz4"),
    ]
    assert merged.pieces == (T34, SQ1, PZ4)


def test_merge_refuses_a_card_from_another_dictionary():
    with pytest.raises(RosterError, match="uses DICT_5X5_100 but the roster uses DICT_4X4_100"):
        merge(ROSTER, (Card("DICT_5X5_100", SQ1, "img"),))


def test_merge_refuses_two_cards_claiming_one_tag():
    twin = RosterEntry(13, "sq2", "soviet", "infantry", (2.0, 1.0))
    cards = (Card("DICT_4X4_100", SQ1, "a.jpg"), Card("DICT_4X4_100", twin, "b.jpg"))
    with pytest.raises(RosterError, match="tag 13 is on two different cards"):
        merge(Roster(), cards)


@pytest.mark.usefixtures("opencv_qr")
def test_roster_scan_command_builds_then_updates_a_roster(tmp_path, card_page):
    folder = tmp_path / "shots"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), _photo(card_page))
    cv2.imwrite(str(folder / "b.jpg"), np.full((50, 50), 255, np.uint8))  # no card in it
    out = tmp_path / "roster.json"
    runner = CliRunner()
    result = runner.invoke(cli, ["roster", "scan", str(folder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "added t34 (tag 12, soviet tank)" in result.output
    assert load_roster(out).pieces == tuple(sorted(ROSTER.pieces, key=lambda p: p.tag))

    # Change one piece on file; scanning again restores it and says so.
    data = json.loads(out.read_text())
    data["pieces"][0]["id"] = "renamed"
    out.write_text(json.dumps(data))
    again = runner.invoke(cli, ["roster", "scan", str(folder / "a.png"), "--roster", str(out)])
    assert again.exit_code == 0, again.output
    assert "updated t34 (tag 12, soviet tank), replacing renamed (tag 12)" in again.output
    assert "unchanged sq1" in again.output
    assert load_roster(out).by_tag(12) == T34


@pytest.mark.usefixtures("opencv_qr")
def test_roster_scan_without_cards_fails_cleanly_and_writes_nothing(tmp_path):
    from referee.markers.qr import render_qr

    image = tmp_path / "qr.png"
    cv2.imwrite(str(image), render_qr("https://example.com/not-a-card", 6))
    out = tmp_path / "roster.json"
    result = CliRunner().invoke(cli, ["roster", "scan", str(image), "--out", str(out)])
    assert result.exit_code == 2
    assert "not a referee unit card" in result.output
    assert "no unit cards found in 1 image" in result.output
    assert "Traceback" not in result.output and not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["roster", "scan", "missing-dir/x.png", "--out", "r.json"], "no such file or folder"),
        (["roster", "scan", "notes.txt", "--out", "r.json"], "not a PNG, JPEG, BMP or TIFF file"),
        (["roster", "scan", "7"], "say where to write the roster"),
        (["roster", "scan", "empty", "--out", "r.json"], "folder has no images"),
    ],
)
def test_roster_scan_bad_sources(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert message in result.output


def test_camera_that_does_not_open_is_a_source_error():
    from referee.errors import SourceError

    with pytest.raises(SourceError, match="camera 97: cannot open"):
        list(iter_images("97"))


def test_cards_command_writes_a_page_per_eight_pieces(tmp_path, read_pdf):
    pieces = tuple(
        RosterEntry(i, f"p{i}", "a" if i % 2 else "b", "inf", (1.0, 1.0)) for i in range(10)
    )
    roster_file = tmp_path / "r.json"
    Roster("DICT_4X4_50", pieces).save(roster_file)
    out = tmp_path / "cards.pdf"
    result = CliRunner().invoke(
        cli, ["cards", "--roster", str(roster_file), "--out", str(out), "--page", "a4"]
    )
    assert result.exit_code == 0, result.output
    assert "10 cards on 2 a4 pages" in result.output
    pages = read_pdf(out)
    assert len(pages) == 2
    assert "p9" in pages[1].texts


@pytest.mark.usefixtures("opencv_qr")
def test_cards_are_read_from_a_video(tmp_path, card_page):
    frame = cv2.cvtColor(card_page[:600], cv2.COLOR_GRAY2BGR)
    path = tmp_path / "cards.avi"
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (frame.shape[1], frame.shape[0])
    )
    for _ in range(12):
        writer.write(frame)
    writer.release()
    names = [name for name, _ in iter_images(str(path))]
    assert names == [f"{path} frame {i}" for i in (0, 5, 10)]
    result = scan(iter_images(str(path)))
    assert {c.entry.id for c in result.cards} == {"t34", "sq1"}
