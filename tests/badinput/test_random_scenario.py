"""Bad input: issue 41's scenario additions and ``simulate --random``.

Any mutation of a small scenario with a casualty (``remove``), a reinforcement
(``enters``) and every webcam ``imaging`` key either loads or is one
:class:`ScenarioError` line naming the file; ``referee simulate`` on it exits 0 or
with one ``referee: error:`` line. Any ``--random`` / ``--setup`` / ``--duration``
text is a game or one error line.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import FUZZ, assert_clean, assert_message, examples, invoke, mutated_text
from referee.sim.scenario import ScenarioError, load_scenario

EVENTS_SMALL: dict[str, Any] = {
    "table": {"width": 24, "depth": 18},
    "pieces": [
        {"id": "a", "side": "soviet", "kind": "tank", "x": 6, "y": 12, "heading": 0,
         "base": [1.5, 3.0], "tag": 1, "tag_height": 0.9},
        {"id": "r", "side": "german", "kind": "infantry", "x": 12, "y": 4, "heading": 90,
         "base": [2.0, 1.0], "tag": 3, "enters": 1.0},
    ],
    "camera": {"resolution": [160, 120], "fov": 70, "height": 20},
    "fps": 2,
    "duration": 4,
    "imaging": {"jpeg": 75, "hunting": 0.3, "flicker": 0.1, "mains_hz": 100,
                "rolling_shutter": 0.03, "shadows": 0.3, "gain_noise": True},
    "calibration": {"views": 1},
    "timeline": [
        {"t": 0.5, "remove": "a", "edge": "south", "duration": 1.0},
        {"t": 3.2, "move": "r", "to": {"x": 12, "y": 6}, "duration": 0.5},
    ],
}  # fmt: skip


@FUZZ
@given(text=mutated_text(EVENTS_SMALL))
def test_any_events_scenario_loads_or_is_one_scenario_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("events") / "e.scenario.json"
    path.write_text(text, encoding="utf-8")
    try:
        scenario = load_scenario(path)
    except ScenarioError as error:
        assert_message(str(error), path)
        return
    json.dumps(scenario.true_events(), allow_nan=False)
    json.dumps(scenario.start_scene.to_json(), allow_nan=False)


@settings(FUZZ, max_examples=examples(10))
@given(text=mutated_text(EVENTS_SMALL))
def test_simulate_events_scenario_is_files_or_one_error(tmp_path_factory, text):
    work = tmp_path_factory.mktemp("simulate-events")
    scenario = work / "e.scenario.json"
    scenario.write_text(text, encoding="utf-8")
    result = invoke("simulate", str(scenario), "--out", str(work / "out"), "--no-video", "-q")
    assert_clean(result)


_TEXT = st.one_of(
    st.sampled_from(["1", "0", "-1", "2147483648", "1e3", "x", "", "7.5", "nan"]),
    st.text(max_size=6),
)


@settings(FUZZ, max_examples=examples(15))
@given(
    seed=_TEXT,
    setup=st.one_of(st.none(), st.sampled_from(["oblique", "4k", "two-cameras", "up", ""])),
    duration=st.one_of(st.none(), _TEXT),
)
def test_random_options_are_a_game_or_one_error(tmp_path_factory, seed, setup, duration):
    out = tmp_path_factory.mktemp("random") / "out"
    args = ["simulate", "--random", seed, "--out", str(out), "--no-video", "-q"]
    if setup is not None:
        args += ["--setup", setup]
    if duration is not None:
        args += ["--duration", duration]
    result = invoke(*args)
    assert_clean(result)
    if result.exit_code == 0:
        json.loads((out / "random.scenario.json").read_text())
