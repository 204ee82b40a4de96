"""Images, cameras and paths a source can be (issue 30, item 6).

A PNG header claiming 100,000 x 100,000 pixels, an image wider than OpenCV allows, a
damaged or cut-short image, a camera index no machine has, a 5,000-character path: each
is one ``referee: error:`` line before any pixel is decoded, and neither OpenCV nor the
codec libraries under it (libpng, FFmpeg) print their own text on the process's stderr.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import FUZZ, SAMPLE, assert_clean, examples, invoke, snapshot
from badinput.media_inputs import png_bytes, tiny_image
from referee.errors import SourceError
from referee.media import MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, image_size, read_image

PROFILE = str(SAMPLE / "camera.json")
ROSTER = str(SAMPLE / "roster.json")
LONG = "x" * 5000


def _referee(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command in its own process, so text printed by C libraries is seen too."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _one_error_line(process: subprocess.CompletedProcess[str]) -> str:
    assert process.returncode == 2, process.stderr
    lines = [line for line in process.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), process.stderr
    return lines[0]


# -- regressions ------------------------------------------------------------------------------


def test_a_png_header_claiming_100000_pixels_a_side_is_refused_before_decoding(tmp_path):
    image = tmp_path / "huge.png"
    image.write_bytes(png_bytes(100_000, 100_000))
    line = _one_error_line(_referee("detect", str(image)))
    assert "100000x100000 pixels" in line and f"at most {MAX_IMAGE_SIDE}" in line


def test_an_image_wider_than_opencv_allows_is_one_line(tmp_path):
    image = tmp_path / "wide.png"
    image.write_bytes(png_bytes(2**21, 1))
    line = _one_error_line(_referee("detect", str(image)))
    assert "2097152x1 pixels" in line


@pytest.mark.parametrize("cut", ["half", "flipped"])
def test_a_damaged_png_prints_no_libpng_text(tmp_path, cut):
    good = tiny_image(tmp_path / "good.png").read_bytes()
    bad = bytearray(good[: len(good) // 2] if cut == "half" else good)
    if cut == "flipped":
        bad[60:70] = b"\xff" * 10
    image = tmp_path / "bad.png"
    image.write_bytes(bytes(bad))
    line = _one_error_line(_referee("detect", str(image)))
    assert "bad.png" in line


def test_a_file_that_is_no_video_prints_no_ffmpeg_text(tmp_path):
    video = tmp_path / "clip.mp4"
    video.write_bytes((SAMPLE / "video.mp4").read_bytes()[:5000])
    line = _one_error_line(_referee("detect", str(video)))
    assert "cannot read this video" in line


def test_a_huge_camera_index_is_one_line_everywhere(tmp_path):
    huge = "99999999999999999999"
    for args in (
        ["run", "--camera", huge, "-c", PROFILE, "-r", ROSTER, "--no-log"],
        ["track", huge, "-c", PROFILE, "-r", ROSTER, "--out", str(tmp_path / "t.jsonl")],
        ["detect", huge],
        ["calibrate", huge, "--out", str(tmp_path / "camera.json")],
        ["roster", "scan", huge, "--out", str(tmp_path / "roster.json")],
        ["serve", "--camera", huge, "-c", PROFILE, "-r", ROSTER, "--no-log"],
    ):
        result = invoke(*args)
        assert_clean(result)
        assert result.exit_code == 2, args
        assert "camera" in result.stderr.lower(), result.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args",
    [
        ["detect", LONG],
        ["detect", LONG + ".png"],
        ["log", "list", "--db", LONG],
        ["log", "show", "g", "--db", LONG],
        ["run", "--video", str(SAMPLE / "video.mp4"), "-c", PROFILE, "-r", ROSTER, "--db", LONG],
        ["track", LONG, "-c", PROFILE, "-r", ROSTER, "--out", "t.jsonl"],
        ["detect", str(SAMPLE / "video.mp4"), "--picture", LONG + ".png"],
        ["markers", "--out", LONG + ".pdf"],
    ],
)
def test_a_5000_character_path_is_one_line(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert_clean(result)
    assert result.exit_code == 2
    assert "the system allows at most" in result.stderr or "too long" in result.stderr.lower()
    assert not list(tmp_path.iterdir())


def test_image_sizes_are_read_from_every_kind_of_header(tmp_path):
    import cv2
    import numpy as np

    picture = (np.arange(37 * 23 * 3) % 256).astype(np.uint8).reshape(23, 37, 3)
    for suffix in (".png", ".jpg", ".bmp", ".tif"):
        path = tmp_path / f"p{suffix}"
        assert cv2.imwrite(str(path), picture)
        assert image_size(path) == (37, 23), suffix
        assert read_image(path).shape == (23, 37, 3)
    (tmp_path / "notes.png").write_text("hello")
    with pytest.raises(SourceError, match="not a PNG, JPEG, BMP or TIFF file"):
        image_size(tmp_path / "notes.png")


# -- generator: image headers and bytes ------------------------------------------------------

SIDES = st.one_of(
    st.sampled_from([0, 1, 2, 48, MAX_IMAGE_SIDE, MAX_IMAGE_SIDE + 1, 2**20, 2**21, 2**31 - 1]),
    st.integers(0, 2**32 - 1),
)


@st.composite
def image_bytes(draw: st.DrawFn) -> bytes:
    """A real tiny image or a forged header, sometimes cut short or with bytes changed."""
    kind = draw(st.sampled_from(["forged-png", "real", "real", "noise"]))
    if kind == "forged-png":
        data = bytearray(png_bytes(draw(SIDES), draw(SIDES)))
    elif kind == "real":
        import cv2
        import numpy as np

        suffix = draw(st.sampled_from([".png", ".jpg", ".bmp", ".tif"]))
        image = np.full((draw(st.integers(1, 40)), draw(st.integers(1, 40)), 3), 90, np.uint8)
        data = bytearray(cv2.imencode(suffix, image)[1].tobytes())
    else:
        data = bytearray(draw(st.binary(max_size=300)))
    for _ in range(draw(st.integers(0, 3))):
        if data:
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    if data and draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return bytes(data)


@settings(FUZZ, max_examples=examples(40))
@given(data=image_bytes(), suffix=st.sampled_from([".png", ".jpg", ".bmp", ".tif", ".tiff"]))
def test_detect_on_any_image_bytes_is_an_answer_or_one_line(tmp_path_factory, data, suffix):
    work = tmp_path_factory.mktemp("image")
    image = work / f"in{suffix}"
    image.write_bytes(data)
    (work / "seen.png").write_bytes(b"earlier picture")
    before = snapshot(work)
    result = invoke("detect", str(image), "--picture", str(work / "seen.png"))
    assert_clean(result)
    if result.exit_code == 2:
        assert snapshot(work) == before
    else:
        width, height = image_size(image)
        assert width * height <= MAX_IMAGE_PIXELS


@settings(FUZZ, max_examples=examples(15))
@given(data=image_bytes())
def test_a_folder_source_with_any_image_keeps_earlier_tracks(tmp_path_factory, data):
    work = tmp_path_factory.mktemp("folder")
    (work / "frames").mkdir()
    (work / "frames" / "0001.png").write_bytes(data)
    (work / "tracks.jsonl").write_text("earlier\n")
    before = snapshot(work)
    result = invoke(
        "track", str(work / "frames"), "-c", PROFILE, "-r", ROSTER, "-q",
        "--out", str(work / "tracks.jsonl"),
    )  # fmt: skip
    assert_clean(result)
    assert result.exit_code == 2  # no tiny image matches the sample's 1920x1080 profile
    assert snapshot(work) == before


@settings(FUZZ, max_examples=examples(20))
@given(
    index=st.one_of(
        st.integers(10_000, 10**30).map(str),
        st.sampled_from(["-1", "1e3", "0x10", "²", "٣", " 1", "1 ", "+1", "9" * 400]),
    )
)
def test_any_camera_index_beyond_the_bound_is_one_line(tmp_path_factory, index):
    work = tmp_path_factory.mktemp("camera")
    result = invoke("track", index, "-c", PROFILE, "-r", ROSTER, "--out", str(work / "t.jsonl"))
    assert_clean(result)
    assert result.exit_code == 2
    assert not list(Path(work).iterdir())
