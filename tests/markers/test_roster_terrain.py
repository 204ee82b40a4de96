"""Terrain templates in the roster (issue 32 item 2): paper terrain with its tags printed on."""

from __future__ import annotations

import copy

import pytest

from referee.errors import RosterError
from referee.markers.roster import Roster, TemplateTag, place

WOOD = {
    "tag": 60,
    "id": "wood2",
    "terrain": "woods",
    "outline": [[-4, -3], [4, -3], [4, 3], [-4, 3]],
}
HILL = {
    "tags": [
        {"tag": 61, "at": [-4.0, 0.0], "heading": 0},
        {"tag": 62, "at": [4.0, 0.0], "heading": 90},
    ],
    "id": "hill1",
    "terrain": "hill",
    "outline": [[-6, -3], [6, -3], [6, 3], [-6, 3]],
    "tag_size": 1.5,
    "name": "Big hill",
}
GOOD = {
    "dictionary": "DICT_4X4_100",
    "pieces": [
        {"tag": 12, "id": "t34", "side": "soviet", "kind": "tank", "base": [1.5, 3.0]},
        WOOD,
    ],
    "terrain": [HILL],
    "anchors": [{"tag": 96, "x": 1.5, "y": 1.5, "size": 2.0}],
}


def test_templates_are_read_from_pieces_and_terrain_and_round_trip():
    roster = Roster.from_json(copy.deepcopy(GOOD))
    assert [p.id for p in roster.pieces] == ["t34"]
    assert [t.id for t in roster.templates] == ["wood2", "hill1"]
    wood, hill = roster.templates
    assert wood.tags == (TemplateTag(60),) and wood.terrain == "woods"
    assert hill.tags[1] == TemplateTag(62, (4.0, 0.0), 90.0)
    assert roster.template_by_tag(62) == (hill, hill.tags[1])
    assert roster.by_tag(60) is None  # a template's tag is no piece's
    assert roster.template("hill1") is hill
    again = Roster.from_json(roster.to_json())
    assert again == roster
    assert roster.to_json()["terrain"][0] == WOOD | {
        "outline": [[-4.0, -3.0], [4.0, -3.0], [4.0, 3.0], [-4.0, 3.0]]
    }


def test_a_template_is_placed_as_the_contract_says():
    wood = Roster.from_json(copy.deepcopy(GOOD)).templates[0]
    # forward = (cos h, sin h), right = (-sin h, cos h)
    assert wood.placed(10, 20, 90) == ((13.0, 16.0), (13.0, 24.0), (7.0, 24.0), (7.0, 16.0))
    assert place([(1, 2)], 0, 0, 0) == ((1.0, 2.0),)


def test_with_entry_keeps_the_templates():
    roster = Roster.from_json(copy.deepcopy(GOOD))
    edited = roster.with_entry(roster.pieces[0])
    assert edited.templates == roster.templates


def _with(template):
    data = copy.deepcopy(GOOD)
    data["pieces"] = data["pieces"][:1]
    data["terrain"] = [template]
    return data


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ({k: v for k, v in WOOD.items() if k != "outline"}, "$.terrain[0].outline: missing field"),
        (WOOD | {"outline": [[0, 0], [2, 2], [2, 0], [0, 2]]}, "outline crosses itself"),
        (WOOD | {"outline": [[0, 0], [2, 2], [0, 0]]}, "needs at least 3 distinct points, got 2"),
        (WOOD | {"outline": []}, "needs at least 3 distinct points, got 0"),
        (WOOD | {"outline": "square"}, "$.terrain[0].outline: must be a list of [x, y] points"),
        (WOOD | {"terrain": "lava"}, "unknown terrain kind 'lava'"),
        (WOOD | {"tag": 12}, "$.terrain[0].tag: tag 12 is already on pieces[0]"),
        (WOOD | {"tag": 96}, "$.terrain[0].tag: tag 96 is already on anchors[0]"),
        (
            HILL | {"tags": [{"tag": 63}, {"tag": 63, "at": [1, 0]}]},
            "tags[1].tag: tag 63 is already on terrain[0]",
        ),
        (HILL | {"tags": []}, "$.terrain[0].tags: needs at least one tag"),
        (HILL | {"tags": [63]}, "$.terrain[0].tags[0]: each tag must be"),
        (WOOD | {"tags": [{"tag": 63}]}, 'give either "tag" (one tag) or "tags"'),
        (WOOD | {"id": "t34"}, "$.terrain[0].id: id 't34' is already pieces[0]"),
        (WOOD | {"tag": 1000}, "$.terrain[0].tag"),
    ],
)
def test_a_bad_template_is_one_line(template, message):
    with pytest.raises(RosterError) as caught:
        Roster.from_json(_with(template), "r.json")
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith("r.json: ")
    assert message in text, text


def test_two_templates_sharing_a_tag_are_refused_wherever_they_sit():
    data = copy.deepcopy(GOOD)
    data["terrain"] = [HILL, WOOD | {"id": "wood3", "tag": 62}]
    with pytest.raises(
        RosterError, match=r"\$\.terrain\[1\]\.tag: tag 62 is already on terrain\[0\]"
    ):
        Roster.from_json(data, "r.json")
    data["terrain"] = [WOOD | {"id": "wood3"}]
    with pytest.raises(
        RosterError, match=r"\$\.terrain\[0\]\.tag: tag 60 is already on pieces\[1\]"
    ):
        Roster.from_json(data, "r.json")
