"""The demo's terrain accuracy line against ``truth-terrain.json`` (issue 32 item 4)."""

from __future__ import annotations

import json

import pytest

from referee.errors import RefereeError
from referee.markers.roster import Roster
from referee.sim.accuracy import load_terrain_truth, terrain_accuracy

ROSTER = Roster.from_json(
    {
        "pieces": [{"tag": 1, "id": "t34", "base": [1, 2]}],
        "terrain": [
            {
                "tag": 60,
                "id": "wood2",
                "terrain": "woods",
                "outline": [[-2, -1], [2, -1], [2, 1], [-2, 1]],
            },
            {"tag": 61, "id": "hill1", "terrain": "hill", "outline": [[-3, -2], [3, -2], [0, 2]]},
        ],
    }
)
TRUTH = {
    "templates": [
        {
            "id": "wood2",
            "terrain": "woods",
            "placements": [
                {"x": 10, "y": 10, "heading": 0, "start_frame": 0, "end_frame": 0},
                {"x": 20, "y": 12, "heading": 90, "start_frame": 140, "end_frame": 170},
            ],
        },
        {
            "id": "hill1",
            "terrain": "hill",
            "placements": [{"x": 40, "y": 30, "heading": 45, "start_frame": 0, "end_frame": 0}],
        },
    ]
}


def edit(template_id, action, polygon):
    return {"edit": "terrain", "action": action, "terrain": {"id": template_id, "polygon": polygon}}


def logged(template_id, x, y, heading, shift=(0.0, 0.0), action="replace"):
    placed = ROSTER.template(template_id).placed(x, y, heading)
    return edit(template_id, action, [[px + shift[0], py + shift[1]] for px, py in placed])


def test_the_largest_vertex_error_over_every_placement():
    edits = [
        logged("wood2", 10, 10, 0, (0.01, 0.0), "add"),
        logged("hill1", 40, 30, 45, (0.0, -0.02), "add"),
        {"edit": "terrain", "action": "add", "terrain": {"id": "drawn", "polygon": [[0, 0]]}},
        logged("wood2", 20, 12, 90, (0.03, 0.04)),  # 0.05 in off at every vertex
    ]
    assert terrain_accuracy(edits, TRUTH, ROSTER) == ["terrain placement error: max 0.050in"]


def test_a_turned_placement_counts_at_its_far_vertex():
    # Logged 1 degree off: the far corner of a 4 x 2 wood (2.24 in out) is 0.039 in away.
    edits = [logged("wood2", 10, 10, 1, action="add"), logged("hill1", 40, 30, 45, action="add")]
    edits.append(logged("wood2", 20, 12, 90))
    (line,) = terrain_accuracy(edits, TRUTH, ROSTER)
    assert line == "terrain placement error: max 0.039in"


def test_missed_and_extra_placements_are_said():
    edits = [logged("wood2", 10, 10, 0, action="add"), logged("hill1", 40, 30, 45, action="add")]
    edits += [logged("hill1", 41, 30, 45), logged("hill1", 40, 30, 45)]
    assert terrain_accuracy(edits, TRUTH, ROSTER) == [
        # The hill's first logged placement is matched to its one true placement.
        "terrain placement error: max 0.000in",
        "  terrain placements: 2 of 3 true placements logged, 2 extra",
    ]


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"templates": {}},
        {"templates": [{"id": 3}]},
        {"templates": [{"id": "w", "placements": [{"x": 1}]}]},
    ],
)
def test_a_bad_truth_file_is_one_line(tmp_path, data):
    path = tmp_path / "truth-terrain.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RefereeError, match=r"truth-terrain.json: \$\.templates: must be a list"):
        load_terrain_truth(path)
