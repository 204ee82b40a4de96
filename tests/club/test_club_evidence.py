"""Evidence on the club: a table sends the pictures it kept with its verdicts after their
batch, the club keeps them beside the game and serves the same bytes, and its page shows
them beside each dispute; a game without pictures syncs as before."""

from __future__ import annotations

import sqlite3
import urllib.request

import cv2
import numpy as np
import pytest

from referee.club.sender import push
from referee.club.store import ClubStore
from referee.store import EVIDENCE_KINDS, Evidence, GameLog

from .helpers import lines, running_club, table_log, verdict


@pytest.fixture
def store(club_url):
    with ClubStore(club_url) as opened:
        yield opened


def _jpeg(shade: int, height: int) -> bytes:
    ok, data = cv2.imencode(".jpg", np.full((height, 40, 3), shade, np.uint8))
    assert ok
    return bytes(data)


def _game_with_evidence(db) -> dict[tuple[int, str], bytes]:
    """Game ``g`` of four events; the two disputed verdicts (#2 and #4) keep both kinds."""
    log = table_log(db, "g", 0)
    info = log.game("g")
    kept: dict[tuple[int, str], bytes] = {}
    for seq in (1, 3):
        pictures = {(seq + 1, k): _jpeg(seq * 40 + i * 9, 24 + i * 8) for i, k in
                    enumerate(EVIDENCE_KINDS)}  # fmt: skip
        kept.update(pictures)
        log.append(
            info,
            [verdict(seq, True), verdict(seq + 1, False)],
            evidence=[Evidence(s, k, d) for (s, k), d in pictures.items()],
        )
    log.close()
    return kept


def _local(db, game):
    with GameLog(db, readonly=True) as log:
        return [e.to_json() for e in log.events(log.game(game))]


def test_the_club_serves_the_tables_pictures_and_shows_them_by_each_dispute(store, tmp_path):
    token = store.add_table("alpha")
    db = tmp_path / "games.sqlite"
    kept = _game_with_evidence(db)
    with running_club(store) as club:
        assert push(db, club.url, token) == {"g": 4}
        for (seq, kind), data in kept.items():
            url = f"{club.url.rstrip('/')}/api/games/g/evidence/{seq}/{kind}.jpg"
            with urllib.request.urlopen(url) as answer:
                assert answer.headers["Content-Type"] == "image/jpeg"
                assert answer.read() == data  # the very bytes the table kept
        with urllib.request.urlopen(f"{club.url.rstrip('/')}/games/g") as answer:
            page = answer.read().decode()
    game = store.game("g")
    assert store.evidence_index(game) == {2: sorted(EVIDENCE_KINDS), 4: sorted(EVIDENCE_KINDS)}
    assert lines(store, "g") == _local(db, "g")
    for seq in (2, 4):
        item = page.split(f'data-seq="{seq}"', 1)[1].split("</li>", 1)[0]
        for kind in EVIDENCE_KINDS:
            assert f'src="/api/games/g/evidence/{seq}/{kind}.jpg"' in item, item
    assert page.count('<img class="evidence"') == len(kept)


def test_a_game_without_evidence_still_syncs_and_its_page_has_no_pictures(store, tmp_path):
    token = store.add_table("alpha")
    db = tmp_path / "games.sqlite"
    log = table_log(db, "plain", 6)
    log.close()
    with running_club(store) as club:
        assert push(db, club.url, token) == {"plain": 6}
        with urllib.request.urlopen(f"{club.url.rstrip('/')}/games/plain") as answer:
            page = answer.read().decode()
    assert lines(store, "plain") == _local(db, "plain")
    assert store.evidence_index(store.game("plain")) == {}
    assert "<img" not in page


def test_a_damaged_picture_at_the_table_is_one_note_and_the_rest_is_sent(store, tmp_path, capsys):
    token = store.add_table("alpha")
    db = tmp_path / "games.sqlite"
    kept = _game_with_evidence(db)
    con = sqlite3.connect(db)
    con.execute("UPDATE evidence SET data = ? WHERE seq = 2 AND kind = 'camera'", (b"torn",))
    con.commit()
    con.close()
    with running_club(store) as club:
        assert push(db, club.url, token) == {"g": 4}
    game = store.game("g")
    assert store.evidence(game, 2, "camera") is None
    assert store.evidence(game, 2, "top") == kept[(2, "top")]
    assert store.evidence(game, 4, "camera") == kept[(4, "camera")]
    notes = [line for line in capsys.readouterr().err.splitlines() if "damaged" in line]
    assert len(notes) == 1 and "event #2: its camera evidence" in notes[0]


def test_a_schema_2_club_gains_the_evidence_table_when_opened(tmp_path):
    path = tmp_path / "club.sqlite"
    with ClubStore(f"sqlite:///{path}") as club:
        club.add_table("alpha")
    con = sqlite3.connect(path)  # as a club before evidence was kept
    con.execute("DROP TABLE club_evidence")
    con.execute("UPDATE club_meta SET value = '2' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    with ClubStore(f"sqlite:///{path}") as club:
        token = club.add_table("beta")
        assert club.table_for_token(token) == "beta" and len(club.tables()) == 2
    con = sqlite3.connect(path)
    tables = {name for (name,) in con.execute("SELECT name FROM sqlite_master")}
    (version,) = con.execute("SELECT value FROM club_meta WHERE key = 'schema_version'").fetchone()
    con.close()
    assert "club_evidence" in tables and version == "3"
