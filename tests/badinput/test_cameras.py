"""Several cameras over one table: the sources and profiles a careless user pairs.

``track``, ``run``, ``serve`` and ``calibrate`` take repeated sources and profiles (issue
32, item 1). Refused with one ``referee: error:`` line and exit 2 before any output or game
log is opened: a different number of sources and profiles, two sources given the same
profile (the same file, or a copy), a profile for the wrong camera (its resolution, or its
table pose does not fit the anchors that camera sees), and cameras of different
resolutions (naming both).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import ROOT, assert_clean, examples, invoke, snapshot
from badinput.media_inputs import tiny_image
from referee.calibration.camera import Intrinsics
from referee.calibration.profile import CalibrationProfile, TableSize

sys.path.insert(0, str(ROOT / "tests" / "vision"))
import twocam_vision as tv


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Two cameras' three-frame clips (PNG folders), their profiles, a copy of the first
    profile, a roster, and a camera of another resolution."""
    folder = tmp_path_factory.mktemp("rig")
    still = {"t34": (8.0, 12.0, 0.0), "sq1": (28.0, 12.0, 90.0), "pz4": (46.0, 12.0, 180.0)}
    cam1, cam2 = tv.write_clips(folder, [still] * 3)
    small = folder / "small"
    small.mkdir()
    for k in range(3):
        tiny_image(small / f"frame{k}.png", 640, 480)
    shutil.copy(folder / "camera-1.json", folder / "copy-of-1.json")
    intr = Intrinsics.from_fov((640, 480), 60.0)
    vga = CalibrationProfile(intr, tv.cameras()[0][1], TableSize(*tv.TABLE), "simulated")
    vga.save(folder / "vga.json")
    return {
        "cam1": str(cam1),
        "cam2": str(cam2),
        "small": str(small),
        "p1": str(folder / "camera-1.json"),
        "p2": str(folder / "camera-2.json"),
        "copy": str(folder / "copy-of-1.json"),
        "vga": str(folder / "vga.json"),
        "roster": str(folder / "roster.json"),
    }


def _refused(work: Path, args: list[str], message: str) -> None:
    before = snapshot(work)
    result = invoke(*args)
    assert_clean(result)
    assert result.exit_code == 2, result.output
    assert message in result.stderr, result.stderr
    assert snapshot(work) == before  # no output, no game log


CASES = [
    (["{cam1}", "{cam2}"], ["{p1}"], "2 sources and 1 calibration profile (-c)"),
    (["{cam1}"], ["{p1}", "{p2}"], "1 source and 2 calibration profiles (-c)"),
    (["{cam1}", "{cam2}"], ["{p1}", "{p1}"], "is the same file as -c"),
    (["{cam1}", "{cam2}"], ["{p1}", "{copy}"], "has the same content as -c"),
    (["{cam1}", "{cam2}"], ["{p2}", "{p1}"], "from where its calibration profile puts them"),
    (["{cam1}", "{small}"], ["{p1}", "{p2}"], "cameras of different resolutions: "),
    (["{cam1}", "{cam2}"], ["{p1}", "{vga}"], "frames are 1280x960 but the calibration profile"),
]


@pytest.mark.parametrize(("sources", "profiles", "message"), CASES)
def test_track_refuses_badly_paired_cameras(rig, tmp_path, sources, profiles, message):
    args = ["track", *(s.format(**rig) for s in sources)]
    for p in profiles:
        args += ["-c", p.format(**rig)]
    args += ["-r", rig["roster"], "--out", str(tmp_path / "tracks.jsonl")]
    _refused(tmp_path, args, message)


@pytest.mark.parametrize(("sources", "profiles", "message"), CASES)
def test_run_refuses_badly_paired_cameras_before_the_game_log(
    rig, tmp_path, sources, profiles, message
):
    args = ["run"]
    for s in sources:
        args += ["--video", s.format(**rig)]
    for p in profiles:
        args += ["-c", p.format(**rig)]
    args += ["-r", rig["roster"], "--db", str(tmp_path / "games.sqlite")]
    args += ["--tracks", str(tmp_path / "t.jsonl"), "--annotate", str(tmp_path / "seen.mp4")]
    _refused(tmp_path, args, message)


def test_the_message_names_both_resolutions(rig, tmp_path):
    args = ["track", rig["cam1"], rig["small"], "-c", rig["p1"], "-c", rig["p2"]]
    result = invoke(*args, "-r", rig["roster"], "--out", str(tmp_path / "t.jsonl"))
    assert f"{rig['cam1']} is 1280x960 but {rig['small']} is 640x480" in result.stderr


def test_serve_refuses_badly_paired_cameras(rig, tmp_path):
    args = ["serve", "--video", rig["cam1"], "--video", rig["cam2"], "-c", rig["p2"]]
    args += ["-c", rig["p1"], "-r", rig["roster"], "--db", str(tmp_path / "g.sqlite")]
    _refused(tmp_path, args, "from where its calibration profile puts them")
    mixed = ["serve", "--camera", "0", "--video", rig["cam1"], "-c", rig["p1"], "-c", rig["p2"]]
    _refused(tmp_path, [*mixed, "-r", rig["roster"]], "give one of --camera, --video and --stream")


def test_run_refuses_cameras_and_videos_mixed(rig, tmp_path):
    args = ["run", "--camera", "0", "--video", rig["cam1"], "-c", rig["p1"], "-c", rig["p2"]]
    _refused(tmp_path, [*args, "-r", rig["roster"], "--no-log"], "all --camera N or all --video")


def test_calibrate_refuses_sources_and_outs_that_do_not_pair(rig, tmp_path):
    out = str(tmp_path / "a.json")
    _refused(
        tmp_path, ["calibrate", rig["cam1"], rig["cam2"], "--out", out], "2 SOURCEs and 1 --out"
    )
    _refused(
        tmp_path,
        ["calibrate", rig["cam1"], rig["cam2"], "--out", out, "--out", out],
        f"--out {out} is given twice",
    )


@settings(max_examples=examples(6), deadline=None)
@given(
    sources=st.lists(st.sampled_from(["cam1", "cam2", "small"]), min_size=1, max_size=3),
    profiles=st.lists(st.sampled_from(["p1", "p2", "copy"]), min_size=0, max_size=3),
)
def test_any_pairing_of_sources_and_profiles_is_tracked_or_refused_cleanly(
    rig, tmp_path_factory, sources, profiles
):
    work = tmp_path_factory.mktemp("pairing")
    out = work / "tracks.jsonl"
    args = ["track", *(rig[s] for s in sources)]
    for p in profiles:
        args += ["-c", rig[p]]
    result = invoke(*args, "-r", rig["roster"], "--out", str(out), "--quiet")
    assert_clean(result)
    # Only the right profile for each camera, in order, may run; everything else is refused
    # before the tracks file is opened. One camera alone with another's profile of its
    # resolution runs as today: its bump watch re-registers the table from the anchors.
    right = {"cam1": {"p1", "copy"}, "cam2": {"p2"}}
    if len(sources) == 1:
        right = {"cam1": {"p1", "copy", "p2"}, "cam2": {"p1", "copy", "p2"}}
    fits = (
        len(sources) == len(profiles)
        and len(set(profiles)) == len(profiles)
        and not ({"p1", "copy"} <= set(profiles))
        and all(p in right.get(s, ()) for s, p in zip(sources, profiles, strict=False))
    )
    assert (result.exit_code == 0) == fits, result.output
    assert out.exists() == fits


def test_demo_refuses_a_footage_folder_whose_cameras_differ_in_resolution(rig, tmp_path):
    from badinput.media_inputs import tiny_video

    folder = tmp_path / "club"
    folder.mkdir()
    tiny_video(folder / "video-1.mp4", 1280, 960)
    tiny_video(folder / "video-2.mp4", 640, 480)
    shutil.copy(rig["p1"], folder / "camera-1.json")
    shutil.copy(rig["p2"], folder / "camera-2.json")
    shutil.copy(rig["roster"], folder / "roster.json")
    args = ["demo", "--footage", str(folder), "--use-true-camera"]
    _refused(tmp_path, [*args, "--db", str(tmp_path / "g.sqlite")], "is 1280x960 but ")
