"""Custom tag dictionaries (``.yml`` files written by OpenCV's writeDictionary), issue 30 item 7.

OpenCV's own reader trusts every field: a negative marker size raised its assertion text,
a 1,000-character ``marker_0`` crashed ``markers`` (segfault) and ``track`` (heap abort,
after it had written its output). A dictionary is now read and checked in Python (marker
size, count, correction bits, each marker's length and characters) before OpenCV builds
anything from it, and a dictionary too small for the four corner anchors says so. The
crash cases run in a child process, so a regression fails the test instead of killing it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import FUZZ, SAMPLE, assert_clean, examples, invoke, snapshot
from badinput.media_inputs import dictionary_file
from referee.tags.layout import get_dictionary

PROFILE = str(SAMPLE / "camera.json")


def _with(path, old: str, new: str):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], capture_output=True, text=True, timeout=300
    )


# -- regressions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("markersize: 4", "markersize: -3"), "markersize -3 must be from 2 to 16"),
        (("markersize: 4", "markersize: 99999999999"), "markersize '99999999999' must be"),
        (("nmarkers: 12", "nmarkers: 13"), "marker_12 is missing"),
        (("nmarkers: 12", "nmarkers: -1"), "nmarkers -1 must be from 1"),
        (
            ("maxCorrectionBits: ", "maxCorrectionBits: -5\nignored: "),
            "maxCorrectionBits -5 must be",
        ),
        (('marker_0: "', 'marker_0: "' + "1" * 984), "marker_0 must be 16 characters"),
        (('marker_3: "', 'marker_3: "2'), "marker_3 must be 16 characters"),
        (("nmarkers: 12", "nmarkers: 12\nnmarkers: 12"), "nmarkers is given twice"),
    ],
)
def test_a_broken_dictionary_is_one_line_in_markers_and_never_a_crash(tmp_path, change, message):
    path = _with(dictionary_file(tmp_path / "house.yml"), *change)
    process = _run("markers", "--dictionary", str(path), "--out", str(tmp_path / "tags.pdf"))
    assert process.returncode == 2, (process.returncode, process.stderr)
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: --dictionary:"), lines
    assert message in lines[0]
    assert not (tmp_path / "tags.pdf").exists()


def test_a_1000_character_marker_in_a_rosters_dictionary_stops_track_before_any_output(tmp_path):
    _with(dictionary_file(tmp_path / "house.yml"), 'marker_0: "', 'marker_0: "' + "1" * 984)
    roster = tmp_path / "roster.json"
    piece = {"tag": 1, "id": "t34", "side": "soviet", "kind": "tank", "base": [1.5, 3.0]}
    roster.write_text(json.dumps({"dictionary": "house.yml", "pieces": [piece], "anchors": []}))
    (tmp_path / "tracks.jsonl").write_text("earlier\n")
    before = snapshot(tmp_path)
    process = _run(
        "track", str(SAMPLE / "video.mp4"), "-c", PROFILE, "-r", str(roster),
        "--out", str(tmp_path / "tracks.jsonl"), "--max-frames", "1", "-q",
    )  # fmt: skip
    assert process.returncode == 2, (process.returncode, process.stderr)
    assert "marker_0 must be 16 characters" in process.stderr
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("count", [1, 2, 3])
def test_fewer_than_four_markers_cannot_hold_the_anchors(tmp_path, count):
    path = dictionary_file(tmp_path / "small.yml", count=count)
    for args in (["--anchors"], []):
        result = invoke(
            "markers", "--dictionary", str(path), *args, "--out", str(tmp_path / "a.pdf")
        )
        assert_clean(result)
        assert result.exit_code == 2
        assert "anchors take its last" in result.stderr and "at least 4" in result.stderr
    result = invoke("roster", "init", "--dictionary", str(path), "--piece", "a b c 1x1",
                    "--out", str(tmp_path / "r.json"))  # fmt: skip
    assert_clean(result)
    assert result.exit_code == 2
    assert not (tmp_path / "a.pdf").exists() and not (tmp_path / "r.json").exists()


def test_a_dictionary_opencv_wrote_still_reads_as_written(tmp_path):
    import cv2

    path = dictionary_file(tmp_path / "house.yml", count=30, bits=6)
    original = cv2.aruco.extendDictionary(30, 6, randomSeed=7)
    loaded = get_dictionary(str(path))
    assert loaded.markerSize == 6
    assert loaded.maxCorrectionBits == original.maxCorrectionBits
    assert (loaded.bytesList == original.bytesList).all()


# -- generator: any field of a dictionary file ----------------------------------------------

FIELD_VALUES = st.one_of(
    st.sampled_from(
        ["", "0", "1", "2", "-1", "-3", "4", "16", "17", "99999999999", "1e3", "nan", "4.5",
         '"4"', "'4'", "[4]", "{}", "~", "1" * 1000, "0" * 16, "1" * 15, "2" * 16, "01" * 8]
    ),
    st.text(alphabet="01", max_size=40),
    st.text(max_size=12),
)  # fmt: skip


@st.composite
def dictionary_text(draw: st.DrawFn, text: str) -> str:
    """``text`` (a dictionary OpenCV wrote) with 1-3 lines changed, dropped, doubled or added."""
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "value", "value", "drop", "double", "add", "raw"]))
        key = lines[k].partition(":")[0]
        if action == "value" and ":" in lines[k]:
            value = draw(FIELD_VALUES)
            quoted = draw(st.booleans()) and key.startswith("marker_")
            lines[k] = f'{key}: "{value}"' if quoted else f"{key}: {value}"
        elif action == "drop":
            del lines[k]
        elif action == "double":
            lines.insert(k, lines[k])
        elif action == "add":
            name = draw(st.sampled_from(["marker_12", "marker_99", "marker_-1", "extra", "x y"]))
            lines.append(f"{name}: {draw(FIELD_VALUES)}")
        else:
            lines[k] = draw(st.text(max_size=30))
        if not lines:
            break
    return "\n".join(lines) + "\n"


def _base_dictionary() -> str:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        return dictionary_file(Path(folder) / "d.yml").read_text()


@settings(FUZZ, max_examples=examples(40))
@given(text=dictionary_text(_base_dictionary()), anchors=st.booleans())
def test_markers_with_any_dictionary_file_never_crash(tmp_path_factory, text, anchors):
    """In-process on purpose: a crash in OpenCV would end the whole test run, which is the
    loudest failure there is."""
    work = tmp_path_factory.mktemp("dictionary")
    path = work / "house.yml"
    path.write_text(text, encoding="utf-8")
    (work / "tags.pdf").write_bytes(b"earlier pdf")
    before = snapshot(work)
    flags = ["--anchors"] if anchors else ["--ids", "0-1"]
    result = invoke("markers", "--dictionary", str(path), *flags, "--out", str(work / "tags.pdf"))
    assert_clean(result)
    if result.exit_code == 2:
        assert snapshot(work) == before
    else:
        loaded = get_dictionary(str(path))
        assert 2 <= loaded.markerSize <= 16 and loaded.bytesList.shape[0] >= 4


@settings(FUZZ, max_examples=examples(10))
@given(text=dictionary_text(_base_dictionary()))
def test_detect_with_any_dictionary_file_never_crashes(tmp_path_factory, text):
    work = tmp_path_factory.mktemp("detect-dictionary")
    path = work / "house.yml"
    path.write_text(text, encoding="utf-8")
    import cv2
    import numpy as np

    image = work / "in.png"
    cv2.imwrite(str(image), np.full((60, 80, 3), 200, np.uint8))
    result = invoke("detect", str(image), "--dictionary", str(path))
    assert_clean(result)
