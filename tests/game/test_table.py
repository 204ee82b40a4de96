"""The table a session keeps: pieces at rest, terrain and roster, on their own."""

from __future__ import annotations

from game.test_session import ROSTER, scene

from referee.game.table import TableState
from referee.geometry import Pose
from referee.markers.roster import Roster
from referee.scene import Piece, Scene, Table

HOUSE = Piece("house", "neutral", "building", 24, 18, 0, (4.0, 4.0))


def test_the_scene_is_the_fixed_pieces_and_every_piece_placed_since():
    opened = Scene("paper-tigers", Table(48, 36), (HOUSE,), queries=({"ask": "objectives"},))
    table = TableState(opened, ROSTER)
    assert [p.id for p in table.scene()] == ["house"]  # not in the roster: it stays put
    assert table.scene().queries == ()  # the questions are the standing questions' part
    assert table.place("t34", Pose(10, 18, 90), 0.2)
    assert not table.place("tiger", Pose(1, 1, 0), 0.0)  # nobody knows it: nothing placed
    t34 = table.scene().piece("t34")
    assert (t34.x, t34.y, t34.heading, t34.uncertainty) == (10, 18, 90, 0.2)
    assert t34.side == "soviet" and t34.kind == "tank"  # from its roster entry
    assert table.doubt("t34") == 0.2 and table.doubt("pz4") == 0.0


def test_a_scene_piece_moves_as_the_scene_file_describes_it():
    table = TableState(scene(), ROSTER)
    assert table.scene().pieces == ()  # roster pieces wait for the camera
    table.place("sq1", Pose(5, 6, 0), 0.0)
    placed = table.scene().piece("sq1")
    assert (placed.x, placed.y, placed.base) == (5, 6, scene().piece("sq1").base)


def test_a_piece_lifted_off_leaves_the_table_and_the_roster_edit_drops_a_removed_one():
    table = TableState(scene(), ROSTER)
    for pid in ("t34", "pz4", "sq1"):
        table.place(pid, Pose(10, 10, 0), 0.0)
    table.lift("pz4")
    table.lift("pz4")  # twice is no error
    assert {p.id for p in table.scene()} == {"t34", "sq1"}
    smaller = Roster(ROSTER.dictionary, tuple(e for e in ROSTER if e.id != "sq1"))
    table.use_roster(smaller)
    assert {p.id for p in table.scene()} == {"t34"}
    assert table.roster is smaller
    assert not table.knows("sq1") and table.knows("t34")
    assert not table.place("sq1", Pose(1, 1, 0), 0.0)


def test_no_frame_yet_hides_no_terrain():
    assert TableState(scene(), ROSTER).hidden_terrain(None) == frozenset()
