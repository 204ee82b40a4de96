"""Output paths of every command, and runs that fail after their outputs were named.

Every output option (``--out``, ``--events``, ``--tracks``, ``--annotate``, ``--picture``,
``--db``) gets a path a careless user types: a folder, a path under a regular file, a
suffix its writer cannot write, a name too long for the system, the same file twice. The
promise (README: "Bad input"): one ``referee: error:`` line naming the option and exit 2,
and every file that existed before byte for byte; a run refused for its inputs (a 720p
video with a 1080p profile) opens no output and logs no game (issue 30, items 3 and 4).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import FUZZ, SAMPLE, assert_clean, examples, invoke, snapshot
from badinput.media_inputs import tiny_image, tiny_video

VIDEO = str(SAMPLE / "video.mp4")
PROFILE = str(SAMPLE / "camera.json")
ROSTER = str(SAMPLE / "roster.json")


def _workspace(work: Path) -> dict[str, Path]:
    """A folder with earlier outputs, a subfolder and a regular file to put paths under."""
    (work / "adir").mkdir()
    (work / "afile").write_text("a regular file\n")
    (work / "tracks.jsonl").write_text('{"earlier": "tracks"}\n')
    (work / "events.jsonl").write_text('{"earlier": "events"}\n')
    (work / "seen.mp4").write_bytes(b"earlier video")
    (work / "seen.png").write_bytes(b"earlier picture")
    (work / "tags.pdf").write_bytes(b"earlier pdf")
    return {"adir": work / "adir", "afile": work / "afile"}


# -- regressions: the examples of issue 30, item 3 -------------------------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["track", VIDEO, "-c", PROFILE, "-r", ROSTER, "--out", "{adir}"], "--out"),
        (["track", VIDEO, "-c", PROFILE, "-r", ROSTER, "--out", "{w}/t.jsonl",
          "--events", "{adir}"], "--events"),
        (["run", "--video", VIDEO, "-c", PROFILE, "-r", ROSTER, "--no-log", "--tracks", "{adir}"],
         "--tracks"),
        (["run", "--video", VIDEO, "-c", PROFILE, "-r", ROSTER, "--no-log", "--events", "{adir}"],
         "--events"),
        (["run", "--video", VIDEO, "-c", PROFILE, "-r", ROSTER, "--no-log", "--annotate",
          "{afile}/x.mp4"], "--annotate"),
        (["run", "--video", VIDEO, "-c", PROFILE, "-r", ROSTER, "--no-log", "--annotate",
          "{w}/x.txt"], "--annotate"),
        (["demo", "--no-log", "--annotate", "{afile}/x.mp4"], "--annotate"),
        (["demo", "--no-log", "--annotate", "{adir}"], "--annotate"),
        (["demo", "--projector", "--annotate", "{w}/x.mp4"], "--annotate"),
        (["detect", VIDEO, "--frames", "1", "--picture", "{afile}/x.png"], "--picture"),
        (["detect", VIDEO, "--frames", "1", "--picture", "{adir}"], "--picture"),
        (["markers", "--ids", "0-3", "--out", "{adir}"], "--out"),
        (["cards", "--roster", ROSTER, "--out", "{adir}"], "--out"),
        (["board", "--out", "{afile}/b.pdf"], "--out"),
        (["roster", "init", "--piece", "t34 soviet tank 1x2", "--out", "{adir}", "--force"],
         "--out"),
        (["check", "--picture", "{adir}"], "--picture"),
        (["run", "--video", VIDEO, "-c", PROFILE, "-r", ROSTER, "--db", "{adir}"], "--db"),
    ],
)  # fmt: skip
def test_an_output_that_cannot_be_that_file_is_one_line_naming_the_option(tmp_path, args, option):
    where = _workspace(tmp_path)
    before = snapshot(tmp_path)
    fill = {"adir": where["adir"], "afile": where["afile"], "w": tmp_path}
    result = invoke(*(a.format(**fill) for a in args))
    assert_clean(result)
    assert result.exit_code == 2, result.output
    assert option in result.stderr.splitlines()[-1], result.stderr
    assert snapshot(tmp_path) == before
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".partial")]


def test_demo_projector_on_footage_without_its_scenario_is_one_line(tmp_path):
    """``demo --projector`` (issue 39) simulates afresh: a footage folder with no scenario
    beside it is refused before anything is rendered."""
    folder = tmp_path / "game"
    folder.mkdir()
    before = snapshot(tmp_path)
    result = invoke("demo", "--projector", "--footage", str(folder))
    assert_clean(result)
    assert result.exit_code == 2, result.output
    assert "game.scenario.json is missing" in result.stderr.splitlines()[-1], result.stderr
    assert snapshot(tmp_path) == before


def test_annotate_with_a_suffix_opencv_cannot_write_prints_only_the_referees_line(tmp_path):
    """OpenCV printed its own exception text before the error (seen only outside the
    CliRunner, on the process's real stderr)."""
    process = subprocess.run(
        [sys.executable, "-m", "referee", "run", "--video", VIDEO, "-c", PROFILE, "-r", ROSTER,
         "--no-log", "-q", "--annotate", str(tmp_path / "x.txt")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert process.returncode == 2
    assert process.stderr.strip().splitlines() == [
        f"referee: error: --annotate {tmp_path / 'x.txt'}: cannot write this kind of file; give "
        "a name ending in .mp4, .m4v, .mov, .avi, .mkv, e.g. seen.mp4"
    ]


# -- regressions: item 4, a refused run changes nothing ------------------------------------


def test_a_720p_video_with_a_1080p_profile_keeps_earlier_outputs_and_logs_no_game(tmp_path):
    video = tiny_video(tmp_path / "v720.mp4", 1280, 720)
    _workspace(tmp_path)
    db = tmp_path / "games.sqlite"
    result = invoke(
        "run", "--video", str(video), "-c", PROFILE, "-r", ROSTER, "-q", "--db", str(db),
        "--tracks", str(tmp_path / "tracks.jsonl"), "--events", str(tmp_path / "events.jsonl"),
        "--annotate", str(tmp_path / "seen.mp4"),
    )  # fmt: skip
    assert_clean(result)
    assert result.exit_code == 2
    assert "frames are 1280x720 but the calibration profile is for 1920x1080" in result.stderr
    assert (tmp_path / "tracks.jsonl").read_text() == '{"earlier": "tracks"}\n'
    assert (tmp_path / "events.jsonl").read_text() == '{"earlier": "events"}\n'
    assert (tmp_path / "seen.mp4").read_bytes() == b"earlier video"
    assert not db.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_a_refused_run_leaves_an_earlier_game_log_byte_for_byte(tmp_path):
    db = tmp_path / "games.sqlite"
    with sqlite3.connect(db) as connection:  # any earlier file: the refused run must not open it
        connection.execute("create table keep (x)")
    before = db.read_bytes()
    video = tiny_video(tmp_path / "v720.mp4", 1280, 720)
    result = invoke("run", "--video", str(video), "-c", PROFILE, "-r", ROSTER, "--db", str(db))
    assert_clean(result)
    assert result.exit_code == 2
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite", "v720.mp4"]


def test_track_refused_on_its_first_frame_keeps_the_earlier_tracks_and_leaves_no_partial(
    tmp_path,
):
    video = tiny_video(tmp_path / "v720.mp4", 1280, 720)
    _workspace(tmp_path)
    before = snapshot(tmp_path)
    result = invoke(
        "track", str(video), "-c", PROFILE, "-r", ROSTER, "-q",
        "--out", str(tmp_path / "tracks.jsonl"), "--events", str(tmp_path / "events.jsonl"),
    )  # fmt: skip
    assert_clean(result)
    assert result.exit_code == 2
    assert snapshot(tmp_path) == before


def test_an_image_folder_of_another_size_is_refused_before_any_output(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    tiny_image(folder / "0001.png")
    _workspace(tmp_path)
    before = snapshot(tmp_path)
    result = invoke(
        "track", str(folder), "-c", PROFILE, "-r", ROSTER, "-q",
        "--out", str(tmp_path / "tracks.jsonl"),
    )  # fmt: skip
    assert_clean(result)
    assert result.exit_code == 2
    assert "frames are 64x48" in result.stderr
    assert snapshot(tmp_path) == before


def test_two_options_naming_one_file_are_refused(tmp_path):
    same = str(tmp_path / "out.jsonl")
    result = invoke("track", VIDEO, "-c", PROFILE, "-r", ROSTER, "--out", same, "--events", same)
    assert_clean(result)
    assert result.exit_code == 2
    assert "--out and --events both name" in result.stderr
    assert not Path(same).exists()


def test_track_still_writes_its_outputs_when_all_is_well(tmp_path):
    _workspace(tmp_path)
    out, events = tmp_path / "tracks.jsonl", tmp_path / "new" / "events.jsonl"
    result = invoke(
        "track", VIDEO, "-c", PROFILE, "-r", ROSTER, "-q", "--max-frames", "2",
        "--out", str(out), "--events", str(events),
    )  # fmt: skip
    assert_clean(result)
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == 2
    assert events.exists()
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".") or ".partial" in p.name]


# -- generator: every output option with every kind of bad path -----------------------------

#: (command args with {out} where the output goes, the option, suffix it writes, quick).
OUTPUTS = [
    (["track", VIDEO, "-c", PROFILE, "-r", ROSTER, "-q", "--max-frames", "1", "--out", "{out}"],
     "--out", ".jsonl"),
    (["track", VIDEO, "-c", PROFILE, "-r", ROSTER, "-q", "--max-frames", "1",
      "--out", "{w}/t.jsonl", "--events", "{out}"], "--events", ".jsonl"),
    (["run", "--video", "{v720}", "-c", PROFILE, "-r", ROSTER, "-q", "--no-log",
      "--tracks", "{out}"], "--tracks", ".jsonl"),
    (["run", "--video", "{v720}", "-c", PROFILE, "-r", ROSTER, "-q", "--no-log",
      "--events", "{out}"], "--events", ".jsonl"),
    (["run", "--video", "{v720}", "-c", PROFILE, "-r", ROSTER, "-q", "--no-log",
      "--annotate", "{out}"], "--annotate", ".mp4"),
    (["run", "--video", "{v720}", "-c", PROFILE, "-r", ROSTER, "-q", "--db", "{out}"],
     "--db", ".sqlite"),
    (["detect", "{png}", "--picture", "{out}"], "--picture", ".png"),
    (["markers", "--ids", "0-1", "--out", "{out}"], "--out", ".pdf"),
    (["cards", "--roster", ROSTER, "--out", "{out}"], "--out", ".pdf"),
    (["roster", "init", "--piece", "t34 soviet tank 1x2", "--force", "--out", "{out}"],
     "--out", ".json"),
    (["check", "--picture", "{out}"], "--picture", ".png"),
    (["log", "export", "nosuchgame", "--db", "{w}/none.sqlite", "--out", "{out}"],
     "--out", ".jsonl"),
]  # fmt: skip

PATH_KINDS = st.sampled_from(
    ["folder", "under-file", "under-file-deep", "wrong-suffix", "long-name", "long-path",
     "earlier-file", "new-file", "new-folder-file", "empty"]
)  # fmt: skip


def _path(kind: str, work: Path, suffix: str) -> str:
    return {
        "folder": str(work / "adir"),
        "under-file": str(work / "afile" / f"x{suffix}"),
        "under-file-deep": str(work / "afile" / "a" / "b" / f"x{suffix}"),
        "wrong-suffix": str(work / "out.txt") if suffix in (".mp4", ".png") else "",
        "long-name": str(work / ("n" * 300 + suffix)),
        "long-path": str(work / "/".join(["d" * 200] * 25) / f"x{suffix}"),
        "earlier-file": str(work / f"earlier{suffix}"),
        "new-file": str(work / f"new{suffix}"),
        "new-folder-file": str(work / "made" / f"new{suffix}"),
        "empty": "",
    }[kind]


@settings(FUZZ, max_examples=examples(30))
@given(which=st.integers(0, len(OUTPUTS) - 1), kind=PATH_KINDS)
def test_any_output_path_is_written_whole_or_refused_in_one_line(tmp_path_factory, which, kind):
    work = tmp_path_factory.mktemp("outputs")
    _workspace(work)
    args, _option, suffix = OUTPUTS[which]
    out = _path(kind, work, suffix)
    if not out and kind == "wrong-suffix":
        out = str(work / "out.txt")
    if kind == "earlier-file":
        Path(out).write_bytes(b"earlier output")
    v720 = work / "v720.mp4"
    tiny_video(v720, 1280, 720, frames=2)
    png = tiny_image(work / "in.png")
    before = snapshot(work)
    fill = {"out": out, "w": work, "v720": v720, "png": png}
    result = invoke(*(a.format(**fill) for a in args))
    assert_clean(result)
    if result.exit_code == 2:
        assert snapshot(work) == before, result.stderr
        assert not [p for p in work.rglob("*") if ".partial" in p.name or p.name.startswith(".")]
    else:
        written = Path(out)
        assert written.is_file()
        for name, data in before.items():  # nothing but the output changed
            if (work / name) != written:
                assert (work / name).read_bytes() == data, name


def test_the_output_generator_reaches_every_option():
    """Each option of :data:`OUTPUTS` is a real option of its command (a typo here would
    make every case a usage error and the generator prove nothing)."""
    from click.testing import CliRunner

    from referee.cli import cli

    for args, option, _ in OUTPUTS:
        command = args[:2] if args[0] in ("roster", "log") else args[:1]
        help_text = CliRunner().invoke(cli, [*command, "--help"]).output
        assert option in help_text, (command, option)


def test_a_device_is_never_replaced_by_an_output(tmp_path):
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null here")
    result = invoke(
        "roster", "init", "--piece", "t34 soviet tank 1x2", "--force", "--out", "/dev/null"
    )
    assert_clean(result)
    assert result.exit_code == 2
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_serve_refused_for_its_inputs_opens_no_game_log(tmp_path):
    video = tiny_video(tmp_path / "v720.mp4", 1280, 720)
    db = tmp_path / "games.sqlite"
    for args in (
        ["--video", str(video), "-c", PROFILE, "-r", ROSTER],
        ["--video", str(video), "-c", PROFILE, "-r", str(tmp_path / "missing.json")],
        ["--scene", str(tmp_path / "missing.json")],
    ):
        result = invoke("serve", "--port", "0", "--db", str(db), *args)
        assert_clean(result)
        assert result.exit_code == 2, args
    assert not db.exists()


def test_demo_on_footage_of_another_size_opens_no_game_log_and_no_video(tmp_path):
    footage = tmp_path / "footage"
    footage.mkdir()
    tiny_video(footage / "video.mp4", 1280, 720)
    for name in ("camera.json", "roster.json", "scene.json"):
        (footage / name).write_bytes((SAMPLE / name).read_bytes())
    (tmp_path / "seen.mp4").write_bytes(b"earlier video")
    db = tmp_path / "games.sqlite"
    result = invoke(
        "demo", "--footage", str(footage), "--db", str(db),
        "--annotate", str(tmp_path / "seen.mp4"),
    )  # fmt: skip
    assert_clean(result)
    assert result.exit_code == 2
    assert "frames are 1280x720" in result.stderr
    assert not db.exists()
    assert (tmp_path / "seen.mp4").read_bytes() == b"earlier video"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["track", "{video}", "-c", PROFILE, "-r", ROSTER, "--out", "{video}"],
         "SOURCE and --out both name"),
        (["track", VIDEO, "-c", PROFILE, "-r", "{roster}", "--out", "{w}/t.jsonl",
          "--events", "{roster}"], "--roster and --events both name"),
        (["run", "--video", "{video}", "-c", PROFILE, "-r", ROSTER, "--db", "{db}",
          "--tracks", "{db}"], "--db and --tracks both name"),
        (["run", "--video", "{video}", "-c", PROFILE, "-r", ROSTER, "--no-log",
          "--annotate", "{video}"], "--video and --annotate both name"),
    ],
)  # fmt: skip
def test_an_output_naming_an_input_is_refused_before_it_replaces_it(tmp_path, args, message):
    video = tmp_path / "clip.mp4"
    video.write_bytes((SAMPLE / "video.mp4").read_bytes())
    (tmp_path / "roster.json").write_bytes((SAMPLE / "roster.json").read_bytes())
    (tmp_path / "games.sqlite").write_bytes(b"an earlier log")
    before = snapshot(tmp_path)
    fill = {"video": video, "roster": tmp_path / "roster.json", "db": tmp_path / "games.sqlite",
            "w": tmp_path}  # fmt: skip
    result = invoke(*(a.format(**fill) for a in args))
    assert_clean(result)
    assert result.exit_code == 2
    assert message in result.stderr, result.stderr
    assert snapshot(tmp_path) == before
