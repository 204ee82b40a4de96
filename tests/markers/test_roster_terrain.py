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


def test_roster_init_adds_terrain_with_tags_after_the_pieces(tmp_path):
    from click.testing import CliRunner

    from referee.cli import cli
    from referee.markers.roster import load_roster
    from referee.markers.terrain_sheet import shaped_outline

    out = tmp_path / "roster.json"
    result = CliRunner().invoke(
        cli,
        [
            "roster", "init", "--piece", "t34 soviet tank 1.5x3",
            "--piece", "sq1 soviet infantry 2x1",
            "--terrain", "woods:8x6", "--terrain", "river:24x3:ford", "--terrain", "woods:4x4",
            "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    roster = load_roster(out)
    assert [p.tag for p in roster] == [0, 1]
    assert [(t.id, [g.tag for g in t.tags]) for t in roster.templates] == [
        ("woods1", [2]),
        ("ford", [3, 4]),  # a long one gets two tags
        ("woods2", [5]),
    ]
    assert roster.templates[0].outline == shaped_outline("woods", 8, 6)
    assert "referee markers terrain --roster" in result.output


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("woods", "--terrain #1: cannot read 'woods'; write KIND:LENGTHxWIDTH[:ID]"),
        ("lava:8x6", "--terrain #1: unknown terrain kind 'lava'"),
        ("woods:8by6", "--terrain #1: size '8by6' must be LENGTHxWIDTH"),
        ("woods:0x6", "--terrain #1"),
        ("woods:0.5x0.5", "too small for a 0.8in tag"),
        ("woods:8x6:t34", "id 't34' is already pieces[0]"),
        ("woods:5000x6", "is over 150in"),
    ],
)
def test_roster_init_refuses_bad_terrain_in_one_line(tmp_path, option, message):
    from badinput.harness import assert_clean, invoke

    out = tmp_path / "roster.json"
    result = invoke(
        "roster", "init", "--piece", "t34 soviet tank 1.5x3", "--terrain", option, "--out", str(out)
    )
    assert_clean(result)
    assert result.exit_code == 2
    assert message in result.stderr, result.stderr
    assert not out.exists()
