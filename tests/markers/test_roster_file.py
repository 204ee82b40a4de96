"""The roster file: which tag is which piece."""

from __future__ import annotations

import json

import pytest

from referee.errors import RosterError
from referee.markers.roster import Roster, RosterEntry, load_roster

GOOD = {
    "dictionary": "DICT_4X4_100",
    "pieces": [
        {
            "tag": 12,
            "id": "t34",
            "side": "soviet",
            "kind": "tank",
            "base": [1.5, 3.0],
            "tag_offset": [0, 0],
            "tag_height": 0.9,
        },
        {"tag": 13, "id": "sq1", "side": "soviet", "kind": "infantry", "base": [2.0, 1.0]},
    ],
    "anchors": [{"tag": 96, "x": 1.5, "y": 1.5, "size": 2.0}],
}


def test_roster_round_trips_and_looks_up_by_tag(tmp_path):
    path = tmp_path / "roster.json"
    path.write_text(json.dumps(GOOD))
    roster = load_roster(path)
    assert roster.by_tag(12).tag_height == 0.9
    assert roster.by_tag(13).tag_offset == (0.0, 0.0)
    assert roster.by_tag(50) is None
    roster.save(tmp_path / "again.json")
    assert load_roster(tmp_path / "again.json") == roster


def test_with_entry_replaces_a_piece_with_the_same_tag_or_id():
    roster = Roster.from_json(GOOD)
    updated = roster.with_entry(RosterEntry(13, "sq1", "soviet", "infantry", (2.0, 1.5)))
    assert len(updated) == 2
    assert updated.by_id("sq1").base == (2.0, 1.5)
    assert roster.by_id("sq1").base == (2.0, 1.0)  # the original is untouched


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["pieces"][0].pop("base"), r"\$\.pieces\[0\]\.base: missing field"),
        (lambda d: d["pieces"][1].update(tag=12), r"\$\.pieces\[1\]\.tag: tag 12 is already"),
        (lambda d: d["pieces"][0].update(base=[0, 3]), r"base\[0\]: must be positive"),
        (lambda d: d["pieces"][0].update(tag=100), "outside DICT_4X4_100"),
        (lambda d: d.update(dictionary="DICT_7X7_5"), r"\$\.dictionary: unknown tag dictionary"),
        (lambda d: d["pieces"][0].update(tag_height=float("nan")), "finite number"),
        (lambda d: d.update(anchors={"tag": 96}), r"\$\.anchors: must be a list"),
        (
            lambda d: d["anchors"].append(dict(d["anchors"][0])),
            r"\$\.anchors\[1\]\.tag: tag 96 is already",
        ),
        (
            lambda d: d["anchors"][0].update(tag=13),
            r"\$\.anchors\[0\]\.tag: tag 13 is also on a piece",
        ),
    ],
)
def test_bad_rosters_name_the_json_path(change, message):
    data = json.loads(json.dumps(GOOD))
    change(data)
    with pytest.raises(RosterError, match=message):
        Roster.from_json(data, "roster.json")


def test_a_roster_that_is_not_text_is_one_line_not_a_traceback(tmp_path):
    path = tmp_path / "roster.json"
    path.write_bytes(b"\xff\xfe{")
    with pytest.raises(RosterError, match="cannot read roster file"):
        load_roster(path)
