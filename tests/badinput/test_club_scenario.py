"""Bad input: scenario scripts with several cameras and tagged terrain templates (issue 32).

Any mutation of a small two-camera scenario with templates either loads or is one
:class:`ScenarioError` line naming the file; ``referee simulate`` on it exits 0 or with
one ``referee: error:`` line, and on failure leaves an earlier output folder as it was.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings

from badinput.harness import (
    FUZZ,
    assert_clean,
    assert_message,
    examples,
    invoke,
    mutated_text,
    snapshot,
)
from referee.sim.scenario import ScenarioError, load_scenario

LENS = {"resolution": [160, 120], "fov": 70, "height": 20, "distortion": [-0.1, 0, 0, 0, 0]}

CLUB_SMALL: dict[str, Any] = {
    "ruleset": "pz8-ww2",
    "table": {"width": 52, "depth": 24},
    "pieces": [
        {"id": "a", "side": "soviet", "kind": "medium tank", "x": 10, "y": 12, "heading": 0,
         "base": [1.25, 2.0], "tag": 1, "tag_height": 0.7, "fields": {"weapon": "85mm"}},
        {"id": "b", "side": "german", "kind": "infantry", "x": 40, "y": 12, "heading": 180,
         "base": [1.6, 1.0], "tag": 2},
    ],
    "templates": [
        {"id": "wood", "terrain": "woods", "tag": 60, "x": 14, "y": 6, "heading": 90,
         "outline": [[-3, -2], [3, -2], [3, 2], [-3, 2]]},
        {"id": "hill", "terrain": "hill", "x": 36, "y": 18, "heading": 0,
         "tags": [{"tag": 61, "at": [-3, 0], "heading": 0},
                  {"tag": 62, "at": [3, 0], "heading": 180}],
         "outline": [[-5, -3], [5, -3], [5, 3], [-5, 3]]},
    ],
    "cameras": [
        {**LENS, "target": [14, 12], "yaw": 90, "flat_at": [14, 12]},
        {**LENS, "target": [38, 12], "yaw": 270, "imaging": {"noise": 0, "blur": 0}},
    ],
    "fps": 2,
    "duration": 2,
    "calibration": {"views": 1},
    "timeline": [
        {"t": 0.2, "move": "a", "to": {"x": 30, "y": 12, "heading": 0}, "duration": 0.5},
        {"t": 0.5, "move": "wood", "to": {"x": 16, "y": 7, "heading": 120}, "duration": 0.5},
        {"t": 1.0, "bump": {"camera": 2, "yaw_deg": 1.0}},
    ],
}  # fmt: skip


@FUZZ
@given(text=mutated_text(CLUB_SMALL))
def test_any_club_scenario_loads_or_is_one_scenario_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("club") / "c.scenario.json"
    path.write_text(text, encoding="utf-8")
    try:
        scenario = load_scenario(path)
    except ScenarioError as error:
        assert_message(str(error), path)
        return
    for index in range(len(scenario.all_cameras)):
        json.dumps(scenario.profile(index).to_json(), allow_nan=False)
    json.dumps(scenario.roster_json(), allow_nan=False)


@settings(FUZZ, max_examples=examples(15))
@given(text=mutated_text(CLUB_SMALL))
def test_simulate_club_never_changes_an_earlier_output_on_failure(tmp_path_factory, text):
    work = tmp_path_factory.mktemp("simulate-club")
    scenario = work / "c.scenario.json"
    scenario.write_text(text, encoding="utf-8")
    out = work / "out"
    out.mkdir()
    for name in ("roster.json", "camera-1.json", "truth-2.jsonl", "truth-terrain.json"):
        (out / name).write_text(f"earlier {name}\n", encoding="utf-8")
    before = snapshot(out)
    result = invoke("simulate", str(scenario), "--out", str(out), "--no-video", "--quiet")
    assert_clean(result)
    if result.exit_code == 2:
        assert snapshot(out) == before
    else:
        json.loads((out / "roster.json").read_text())
        json.loads((out / "truth-moves.json").read_text())
