"""What the dashboard asks of the live table, asked of the game package directly."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from referee.game import sample_live
from referee.game.status import DOUBT_STEP, map_doubt_now, roster_pieces, table_health


@pytest.fixture(scope="module")
def live():
    table = sample_live(pace=0)
    table.step(3)
    yield table
    table.stop()


def test_health_counts_every_roster_piece_once(live):
    health = table_health(live)
    pieces = health.pieces
    named = [*pieces.seen, *pieces.hidden, *pieces.missing, *pieces.removed]
    assert sorted(named) == sorted(e.id for e in live.session.roster)
    assert pieces.seen, "the sample's pieces are in view after three frames"
    assert health.frame is not None and health.frames >= 3
    assert not health.re_registered
    assert health.to_json()["pieces"]["seen"] == list(pieces.seen)


def test_doubt_grid_covers_the_table_and_answers_a_point(live):
    table = live.session.initial_scene.table
    doubt = map_doubt_now(live, (table.width / 2, table.depth / 2))
    assert len(doubt.values) == math.ceil(table.depth / DOUBT_STEP) + 1
    assert all(len(row) == math.ceil(table.width / DOUBT_STEP) + 1 for row in doubt.values)
    assert doubt.largest is not None and 0 < doubt.largest < 0.5
    # the middle of the cloth is seen, and no worse than the worst seen point
    assert doubt.at is not None and 0 < doubt.at <= doubt.largest
    assert "at" in doubt.to_json() and "at" not in map_doubt_now(live).to_json()


def test_roster_pieces_names_pieces_not_yet_on_the_table(live):
    session = live.session
    bare = replace(session.initial_scene, pieces=())
    pieces = roster_pieces(session.roster, bare)
    assert sorted(p.id for p in pieces) == sorted(e.id for e in session.roster)
    assert all((p.x, p.y) == (0, 0) for p in pieces)
    on_table = roster_pieces(session.roster, session.initial_scene)
    assert {p.id: (p.x, p.y) for p in on_table} == {
        p.id: (p.x, p.y) for p in session.initial_scene
    } | {e.id: (0, 0) for e in session.roster if e.id not in session.initial_scene}
