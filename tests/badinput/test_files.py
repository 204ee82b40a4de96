"""Bad input never crashes, hangs or destroys a file (README: "Bad input ... exit code 2").

Property-based: random mutations of valid profile, roster, scenario and scene
files and random option values go through the real loaders and commands. Every
outcome must be a success or exactly one ``referee: error:`` line with exit code
2, never a traceback; a failed command leaves every file that existed before
byte-for-byte as it was. Hypothesis's ``deadline`` is the hang guard (generous:
the machine is shared). The cases these tests found are kept as plain regression
tests below the properties.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import (
    FUZZ,
    ROOT,
    SAMPLE,
    SCENARIO,
    assert_clean,
    assert_message,
    assert_roster_loads_or_one_error,
    examples,
    invoke,
    mutated_text,
    read_json,
    set_at,
    snapshot,
)
from referee.calibration.profile import CalibrationProfile, load_profile
from referee.errors import ProfileError, RefereeError, RosterError
from referee.markers.roster import Roster, load_roster
from referee.sim.scenario import ScenarioError, load_scenario, parse_scenario

# -- properties: loaders ---------------------------------------------------------------------


@FUZZ
@given(text=mutated_text(read_json(SAMPLE / "camera.json")))
def test_any_profile_loads_cleanly_or_is_one_profile_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("profile") / "camera.json"
    path.write_text(text, encoding="utf-8")
    try:
        profile = load_profile(path)
    except ProfileError as error:
        assert_message(str(error), path)
        return
    # A profile that loads is usable: strict JSON out, and it reads back as itself.
    out = json.dumps(profile.to_json(), allow_nan=False)
    assert CalibrationProfile.from_json(json.loads(out)).to_json() == profile.to_json()
    intr = profile.intrinsics
    assert intr.fx > 0 and intr.fy > 0
    assert all(math.isfinite(x) for x in intr.undistort_normalized([[intr.cx, intr.cy]]).ravel())


@FUZZ
@given(text=mutated_text(read_json(ROOT / "calibration/profiles/opencv-sample-640x480.json")))
def test_any_calibrated_profile_loads_cleanly_or_is_one_profile_error(tmp_path_factory, text):
    """A profile made by `referee calibrate`: its lens_model and held_out_px fuzzed too."""
    test_any_profile_loads_cleanly_or_is_one_profile_error.hypothesis.inner_test(
        tmp_path_factory, text
    )


#: A fitted projector as ``referee.calibration.projector.fit_projector`` writes it (issue 39).
PROJECTOR_FIT = {
    "resolution": [1280, 800],
    "homography": [[0.0297, -0.0008, -0.98], [0.0008, 0.0297, -1.02], [0.0, 0.0, 1.0]],
    "held_out_p95_in": 0.012,
    "held_out_max_in": 0.015,
    "points_used": 52,
    "covered": [[0.0, 0.0], [36.0, 0.0], [36.0, 24.0], [0.0, 24.0]],
    "lens": [-0.02, 0.001],
}


def _with_projector() -> dict[str, Any]:
    data = read_json(SAMPLE / "camera.json")
    data["projector"] = json.loads(json.dumps(PROJECTOR_FIT))  # a copy: cases mutate it
    return data


@FUZZ
@given(text=mutated_text(_with_projector()))
def test_any_profile_with_a_projector_loads_cleanly_or_is_one_profile_error(tmp_path_factory, text):
    """The optional ``projector`` field (issue 39) fuzzed with the rest of the profile."""
    test_any_profile_loads_cleanly_or_is_one_profile_error.hypothesis.inner_test(
        tmp_path_factory, text
    )


@FUZZ
@given(text=mutated_text(read_json(SAMPLE / "roster.json")))
def test_any_roster_loads_cleanly_or_is_one_roster_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("roster") / "roster.json"
    path.write_text(text, encoding="utf-8")
    assert_roster_loads_or_one_error(path)


def _small_scenario() -> dict[str, Any]:
    """The sample scenario, cut to a few frames so a run with --no-video takes a moment."""
    data = read_json(SCENARIO)
    data.update(duration=2, fps=4)
    return data


@FUZZ
@given(text=mutated_text(_small_scenario()))
def test_any_scenario_parses_cleanly_or_is_one_scenario_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("scenario") / "s.scenario.json"
    path.write_text(text, encoding="utf-8")
    try:
        scenario = load_scenario(path)
    except ScenarioError as error:
        assert_message(str(error), path)
        return
    assert scenario.frame_count <= 200_000
    json.dumps(scenario.profile().to_json(), allow_nan=False)


# -- properties: commands --------------------------------------------------------------------


@settings(FUZZ, max_examples=examples(25))
@given(text=mutated_text(_small_scenario()))
def test_simulate_never_changes_an_earlier_output_on_failure(tmp_path_factory, text):
    work = tmp_path_factory.mktemp("simulate")
    scenario = work / "s.scenario.json"
    scenario.write_text(text, encoding="utf-8")
    out = work / "out"
    out.mkdir()
    for name in ("roster.json", "scene.json", "camera.json", "truth.jsonl", "notes.txt"):
        (out / name).write_text(f"earlier {name}\n", encoding="utf-8")
    before = snapshot(out)
    result = invoke("simulate", str(scenario), "--out", str(out), "--no-video", "--quiet")
    assert_clean(result)
    if result.exit_code == 2:
        assert snapshot(out) == before
        assert sorted(p.name for p in out.iterdir()) == sorted(before)
    else:
        assert (out / "notes.txt").read_bytes() == before["notes.txt"]
        read_json(out / "camera.json")  # strict JSON: no NaN or Infinity crept in
        json.loads((out / "truth-moves.json").read_text(), parse_constant=_refuse_constant)


def _refuse_constant(name: str) -> None:
    raise AssertionError(f"{name} in a JSON output")


@FUZZ
@given(
    text=mutated_text(read_json(SAMPLE / "roster.json")),
    command=st.sampled_from(["markers", "cards"]),
)
def test_printables_from_any_roster_never_crash_or_hang(tmp_path_factory, text, command):
    work = tmp_path_factory.mktemp("printables")
    (work / "roster.json").write_text(text, encoding="utf-8")
    out = work / "out.pdf"
    out.write_bytes(b"earlier pdf")
    result = invoke(command, "--roster", str(work / "roster.json"), "--out", str(out))
    assert_clean(result)
    if result.exit_code == 2:
        assert out.read_bytes() == b"earlier pdf"
    else:
        assert out.read_bytes().startswith(b"%PDF")


@settings(FUZZ, max_examples=examples(12))
@given(
    profile=mutated_text(read_json(SAMPLE / "camera.json")),
    roster=mutated_text(read_json(SAMPLE / "roster.json")),
    which=st.sampled_from(["profile", "roster", "both"]),
)
def test_track_with_any_profile_or_roster_keeps_earlier_tracks(
    tmp_path_factory, profile, roster, which
):
    work = tmp_path_factory.mktemp("track")
    (work / "camera.json").write_text(
        profile if which != "roster" else (SAMPLE / "camera.json").read_text(), encoding="utf-8"
    )
    (work / "roster.json").write_text(
        roster if which != "profile" else (SAMPLE / "roster.json").read_text(), encoding="utf-8"
    )
    out, events = work / "tracks.jsonl", work / "events.jsonl"
    out.write_text('{"earlier": 1}\n')
    events.write_text('{"earlier": 2}\n')
    result = invoke(
        "track",
        str(SAMPLE / "video.mp4"),
        "-c",
        str(work / "camera.json"),
        "-r",
        str(work / "roster.json"),
        "--out",
        str(out),
        "--events",
        str(events),
        "--max-frames",
        "2",
        "-q",
    )
    assert_clean(result)
    if result.exit_code == 2:
        assert out.read_text() == '{"earlier": 1}\n' and events.read_text() == '{"earlier": 2}\n'
    else:
        for line in out.read_text().splitlines():
            json.loads(line, parse_constant=_refuse_constant)


PIECE_WORDS = st.one_of(
    st.sampled_from(
        [
            "t34a",
            "soviet",
            "tank",
            "1.5x3",
            "0x0",
            "nanxnan",
            "1e309x3",
            "-1x2",
            "height=0.9",
            "height=nan",
            "height=-1",
            "tag=5",
            "tag=96",
            "tag=99999999999",
            "tag=-1",
            "offset=0.5,0",
            "offset=inf,0",
            "size=0.8",
            "size=0",
            "size=1e308",
            "name=" + "x" * 100_000,
            "x" * 100_000,
            "=",
            "",
        ]
    ),
    st.text(max_size=8),
)


@settings(FUZZ, max_examples=examples(40))
@given(
    words=st.lists(PIECE_WORDS, min_size=0, max_size=7),
    first=st.sampled_from(["0", "95", "96", "100", "99999999999"]),
)
def test_roster_init_from_any_piece_line_keeps_the_earlier_roster(tmp_path_factory, words, first):
    work = tmp_path_factory.mktemp("init")
    out = work / "roster.json"
    out.write_text("earlier roster\n")
    line = " ".join(words)
    result = invoke(
        "roster", "init", "--piece", line, "--first-tag", first, "--out", str(out), "--force"
    )
    assert_clean(result)
    if result.exit_code == 2:
        assert out.read_text() == "earlier roster\n"
    else:
        load_roster(out)  # what it writes, every other command reads


OPTION_TEXT = st.one_of(
    st.sampled_from(
        [
            "0",
            "-1",
            "nan",
            "inf",
            "-inf",
            "1e-9in",
            "1e999in",
            "0-99999999",
            "99999999999999999999",
            "5-2",
            "0.8in",
            "20mm",
            "auto",
            "48x36",
            "0x0",
            "1e309x2",
            "nanxnan",
            "DICT_4X4_100",
            "DICT_NOPE",
            "x" * 10_000,
            "",
            "charuco:5x7:0.03m:0.021m:DICT_6X6_250",
            "charuco:0x0:0m:0m:DICT_6X6_250",
            "charuco:9999x9999:1e-9m:1e-9m:DICT_6X6_250",
        ]
    ),
    st.text(max_size=10),
    st.floats().map(str),
)


@settings(FUZZ, max_examples=examples(60))
@given(
    option=st.sampled_from(
        [
            ("markers", "--ids"),
            ("markers", "--size"),
            ("markers", "--dictionary"),
            ("markers", "--table"),
            ("markers", "--camera"),
            ("markers", "--resolution"),
            ("markers", "--camera-height"),
            ("markers", "--camera-tilt"),
            ("markers", "--fov"),
            ("board", "--square"),
            ("board", "--board"),
            ("calibrate", "--every"),
            ("calibrate", "--min-sharpness"),
            ("calibrate", "--duration"),
            ("calibrate", "--inch-mm"),
            ("calibrate", "--table"),
            ("calibrate", "--board"),
            ("check", "--set"),
        ]
    ),
    value=OPTION_TEXT,
    auto=st.booleans(),
)
def test_any_option_value_is_accepted_or_one_line(tmp_path_factory, option, value, auto):
    work = tmp_path_factory.mktemp("options")
    command, name = option
    out = work / "out.pdf"
    out.write_bytes(b"earlier")
    if command == "markers":
        sizing = ("--table", "--camera", "--resolution", "--camera-height")
        extra = ["--size", "auto"] if auto and name in sizing else []
        if name in ("--camera-tilt", "--fov"):
            # Each needs --size auto and --camera-height: with them its value is what is judged.
            extra = ["--size", "auto", "--camera-height", "40"] if auto else ["--size", "auto"]
        args = [command, name, value, *extra, "--out", str(out)]
    elif command == "board":
        args = [command, name, value, "--out", str(out)]
    elif command == "calibrate":
        # An empty folder: options are checked first, then the source is refused.
        (work / "empty").mkdir()
        out = work / "camera.json"
        out.write_bytes(b"earlier")
        args = [command, str(work / "empty"), "--out", str(out), name, value]
    else:
        key = "marginal_margin" if auto else "infantry_range"
        args = [command, "--set", f"{key}={value}", "--json"]
    result = invoke(*args)
    assert_clean(result)
    if result.exit_code == 2:
        assert out.read_bytes() == b"earlier"


@settings(FUZZ, max_examples=examples(30))
@given(text=mutated_text(json.loads((ROOT / "referee/data/examples/skirmish.json").read_text())))
def test_check_of_any_scene_is_answers_or_one_line(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("scene") / "game.json"
    path.write_text(text, encoding="utf-8")
    result = invoke("check", str(path), "--json")
    assert_clean(result)
    if result.exit_code == 0:
        json.loads(result.stdout, parse_constant=_refuse_constant)


# -- regressions: the cases the properties (and the issue) found ------------------------------


def _profile_with(tmp_path: Path, path: tuple[Any, ...], value: Any) -> Path:
    data = set_at(read_json(SAMPLE / "camera.json"), path, value)
    file = tmp_path / "camera.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    return file


@pytest.mark.parametrize(
    ("path", "value", "where"),
    [
        (("rms_px",), float("nan"), "$.rms_px: must be a finite number"),
        (("view_errors_px",), [float("inf")], "$.view_errors_px[0]: must be a finite number"),
        (("camera_matrix", 0, 0), -1000.0, "$.camera_matrix[0][0]: the focal length fx"),
        (("camera_matrix", 1), None, "$.camera_matrix[1]: must be a row of 3 numbers"),
        (("camera_matrix",), None, "$.camera_matrix: must be a 3x3 matrix"),
        (("table_pose",), None, "$.table_pose: must be an object"),
        (("table_pose", "tvec", 2), 1e308, "$.table_pose.tvec[2]: must be between"),
        (("image_size", 0), 1e308, "$.image_size[0]: must be a whole number"),
        (("image_size", 0), 10**12, "$.image_size[0]: must be between 1 and 32768"),
        (("distortion",), [1, 2, 3], "$.distortion: must be a list of distortion coefficients"),
        (("table",), None, "$.table: must be an object"),
        (("table", "width"), float("inf"), "$.table.width: must be a finite number"),
        (("anchors",), [None], "$.anchors[0]: must be an object"),
        (("frame_source",), ["anchors"], "$.frame_source: must be one of"),
        (("lens_model",), "k1,k3", "$.lens_model: must be one of k1,k2, k1,k2,k3"),
        (("lens_model",), ["k1,k2"], "$.lens_model: must be one of"),
        (("held_out_px",), float("nan"), "$.held_out_px: must be a finite number"),
        (("held_out_px",), -1, "$.held_out_px: must be"),
    ],
)
def test_profile_problems_name_the_json_path_and_the_fix(tmp_path, path, value, where):
    file = _profile_with(tmp_path, path, value)
    with pytest.raises(ProfileError) as caught:
        load_profile(file)
    message = str(caught.value)
    assert message.startswith(f"{file}: {where}"), message
    assert "referee calibrate" in message
    assert "NoneType" not in message and "subscriptable" not in message


@pytest.mark.parametrize(
    ("path", "value", "where"),
    [
        (("projector",), [1, 2], "$.projector: must be an object"),
        (("projector", "zz"), 1, "$.projector.zz: unknown field"),
        (("projector", "resolution"), [0, 800], "$.projector.resolution[0]: must be between"),
        (("projector", "homography", 2), [0, 0], "$.projector.homography[2]: must be a row"),
        (("projector", "homography"), [[0] * 3] * 3, "$.projector.homography: must be an invert"),
        (("projector", "held_out_p95_in"), float("nan"), "$.projector.held_out_p95_in: must be"),
        (("projector", "points_used"), 2.5, "$.projector.points_used: must be a whole number"),
        (("projector", "covered", 0), [1], "$.projector.covered[0]: must be [x, y] in inches"),
        (("projector", "lens"), [0.1, 0.0, 0.0], "$.projector.lens: must be [k1] or [k1, k2]"),
        (("projector", "lens"), "k1", "$.projector.lens: must be [k1] or [k1, k2]"),
        (("projector", "lens", 0), 1e6, "$.projector.lens[0]: must be between"),
        (("projector", "lens", 0), float("inf"), "$.projector.lens[0]: must be"),
        (("projector", "lens", 1), None, "$.projector.lens[1]: must be"),
    ],
)
def test_projector_field_problems_name_the_json_path(tmp_path, path, value, where):
    data = set_at(_with_projector(), path, value)
    file = tmp_path / "camera.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profile(file)
    message = str(caught.value)
    assert message.startswith(f"{file}: {where}"), message
    assert "\n" not in message and "calibrate the projector again" in message


def test_roster_names_a_label_cannot_hold_are_refused_at_once(tmp_path):
    data = read_json(SAMPLE / "roster.json")
    data["pieces"][0]["name"] = "x" * 1_000_000
    file = tmp_path / "roster.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "cards.pdf"
    for command in ("cards", "markers"):
        started = time.monotonic()
        result = invoke(command, "--roster", str(file), "--out", str(out))
        assert time.monotonic() - started < 60  # hang guard: was 213 s for 100,000 characters
        assert_clean(result)
        assert result.exit_code == 2
        assert "$.pieces[0].name: is 1000000 characters long; use at most 64" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"timeline": [{"t": 1, "move": ["t34a"], "to": {"x": 1, "y": 1}}]}, "$.timeline[0].move"),
        ({"duration": 1e9}, "$.duration: must be at most 14400"),
        ({"duration": 3600, "fps": 100}, "$.duration: 3600 s at 100 fps is 360000 frames"),
        ({"fps": 1e6}, "$.fps: must be between 1 and 120"),
        ({"fps": float("nan")}, "$.fps: must be a finite number"),
        ({"camera": {"resolution": [1e308, 1080]}}, "$.camera.resolution"),
        ({"camera": {"matrix": [[-700, 0, 1], [0, 700, 1], [0, 0, 1]]}}, "$.camera.matrix"),
        ({"camera": {"fov": 60, "height": 1e300}}, "$.camera.height"),
        ({"dictionary": ["DICT_4X4_100"]}, "$.dictionary: must be a string"),
    ],
)
def test_scenario_bounds_name_the_json_path(change, where):
    data = _small_scenario()
    data.update(change)
    with pytest.raises(ScenarioError, match=None) as caught:
        parse_scenario(data, "s.json")
    assert str(caught.value).startswith(f"s.json: {where}"), str(caught.value)


def test_simulate_leaves_an_earlier_run_untouched_when_rendering_fails(tmp_path, monkeypatch):
    """A failure mid-render (here: the truth writer) changes none of the earlier files."""
    from referee.sim import video

    out = tmp_path / "out"
    video.simulate(load_scenario(_write(tmp_path, _small_scenario())), out, video=False)
    before = snapshot(out)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RefereeError("disk full (simulated)")

    monkeypatch.setattr(video, "truth_record", broken)
    changed = _small_scenario()
    changed["seed"] = 99
    changed["pieces"][0]["x"] = 11
    with pytest.raises(RefereeError, match="disk full"):
        video.simulate(load_scenario(_write(tmp_path, changed)), out, video=False)
    assert snapshot(out) == before
    assert sorted(p.name for p in out.iterdir()) == sorted(before)


def _write(folder: Path, data: Any) -> Path:
    path = folder / "s.scenario.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_simulate_replaces_an_earlier_run_whole(tmp_path):
    from referee.sim import video

    out = tmp_path / "out"
    video.simulate(load_scenario(_write(tmp_path, _small_scenario())), out, video=False)
    changed = _small_scenario()
    changed["pieces"][0]["x"] = 11
    video.simulate(load_scenario(_write(tmp_path, changed)), out, video=False)
    scene = read_json(out / "scene.json")
    assert scene["pieces"][0]["x"] == 11
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["markers", "--ids", "0-99999999"], "--ids: tag id 99999999 is outside DICT_4X4_100"),
        (["markers", "--ids", "0-999999999999999999999"], "--ids: cannot read"),
        (["markers", "--size", "1e-9in"], "--size: '1e-9in' is too small to print and read"),
        (["markers", "--size", "1e999in"], "--size: '1e999in' is bigger than any page"),
        (["cards", "--roster", str(SAMPLE / "roster.json"), "--size", "0mm"], "--size:"),
        (["check", "--set", "marginal_margin=NaN"], "setting marginal_margin"),
        (["check", "--set", "infantry_range=Infinity"], "setting infantry_range"),
        (["simulate", str(SCENARIO), "--frames", "0", "--out", "o"], "'--frames'"),
    ],
)
def test_option_values_beyond_what_the_machine_can_do_are_one_line(tmp_path, args, message):
    started = time.monotonic()
    result = invoke(*args, "--out", str(tmp_path / "x.pdf")) if args[0] == "markers" else None
    if result is None:
        result = invoke(*args)
    assert time.monotonic() - started < 60  # hang guard: --ids 0-99999999 grew to 8.9 GB
    assert_clean(result)
    assert result.exit_code == 2
    assert message in result.stderr


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--every", "0", "--every: must be positive"),
        ("--every", "-1", "--every: must be positive"),
        ("--every", "nan", "--every: must be a finite number"),
        ("--min-sharpness", "nan", "--min-sharpness: must be a finite number"),
        ("--duration", "inf", "--duration: must be a finite number"),
        ("--inch-mm", "0", "--inch-mm: must be between 1 and 100"),
        ("--table", "99999x36", "--table '99999x36': must be at most 10000"),
    ],
)
def test_calibrate_checks_its_options_before_reading_anything(tmp_path, option, value, message):
    out = tmp_path / "camera.json"
    result = invoke("calibrate", str(SAMPLE / "calibration.mp4"), "--out", str(out), option, value)
    assert_clean(result)
    assert result.exit_code == 2
    assert message in result.stderr
    assert not out.exists()


def test_an_output_whose_folder_is_a_file_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    for args in (
        ["markers", "--ids", "0-3", "--out", str(blocker / "tags.pdf")],
        ["cards", "--roster", str(SAMPLE / "roster.json"), "--out", str(blocker / "c.pdf")],
        ["calibrate", str(tmp_path), "--out", str(blocker / "camera.json")],
        ["simulate", str(SCENARIO), "--no-video", "--out", str(blocker / "out")],
        ["simulate", str(SCENARIO), "--no-video", "--out", str(blocker)],
    ):
        result = invoke(*args)
        assert_clean(result)
        assert result.exit_code == 2, args
        assert str(blocker) in result.stderr
    assert blocker.read_text() == "not a folder"
    with pytest.raises(RefereeError, match="cannot write"):
        load_roster(SAMPLE / "roster.json").save(blocker / "roster.json")


def test_roster_scan_refuses_a_card_carrying_an_anchor_tag():
    from referee.calibration.profile import AnchorTag
    from referee.markers.roster import RosterEntry
    from referee.markers.scan import Card, merge

    card = Card("DICT_4X4_100", RosterEntry(96, "t34", "soviet", "tank", (1.5, 3.0)), "a.png")
    with pytest.raises(RosterError, match="reserved for the corner anchors"):
        merge(Roster("DICT_4X4_100"), (card,))
    anchored = Roster("DICT_4X4_100", (), (AnchorTag(7, 1.5, 1.5, 2.0),))
    own = Card("DICT_4X4_100", RosterEntry(7, "t34", "soviet", "tank", (1.5, 3.0)), "b.png")
    with pytest.raises(RosterError, match="one of the roster's corner anchors"):
        merge(anchored, (own,))


def test_ctrl_c_exits_130_and_keeps_the_earlier_run(tmp_path):
    """Interrupting a long command: exit 130, no traceback, earlier outputs as they were."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "camera.json").write_text("earlier\n")
    (out / "video.mp4").write_bytes(b"earlier video")
    before = snapshot(out)
    process = subprocess.Popen(
        [sys.executable, "-m", "referee", "simulate", str(SCENARIO), "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # A shell's background job inherits SIGINT ignored; a user's terminal never does.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Wait until it is rendering (its staging folder exists), then press Ctrl-C.
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(".simulate-") for p in out.iterdir()):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "referee: interrupted" in stderr
    assert snapshot(out) == before
    assert sorted(p.name for p in out.iterdir()) == sorted(before)


def test_no_ruleset_takes_nan_or_infinity_for_a_setting():
    """``check --set NAME=NaN`` is refused by every game system, not only Paper Tigers."""
    import dataclasses

    from referee.rules import find_ruleset, find_ruleset_class, ruleset_names

    checked = 0
    for name in ruleset_names():
        for item in dataclasses.fields(find_ruleset_class(name).Settings):
            default = getattr(find_ruleset_class(name).Settings(), item.name)
            if isinstance(default, bool) or not isinstance(default, (int, float)):
                continue
            for bad in (float("nan"), float("inf"), -1e300):
                with pytest.raises(ValueError, match=f"setting {item.name}"):
                    find_ruleset(name, **{item.name: bad})
                checked += 1
    assert checked > 30
