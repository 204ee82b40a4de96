"""`referee detect`: what the detector sees, as a user runs it on photos, folders and videos."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner
from synth_vision import Tag, camera_1080p, render, tag_corners_px

from referee.cli import cli

REAL = Path(__file__).resolve().parents[1] / "data" / "calibration" / "real-images"
PHOTO_IDS = {23, 40, 62, 98, 124, 203}


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def stock_opencv(image: np.ndarray, dictionary: int) -> dict[int, np.ndarray]:
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(dictionary), cv2.aruco.DetectorParameters()
    )
    corners, ids, _ = detector.detectMarkers(image)
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}


def test_real_photo_json_has_every_tag_in_opencvs_corner_order(tmp_path):
    photo = REAL / "singlemarkers.jpg"
    result = run("detect", str(photo), "--dictionary", "DICT_6X6_250", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"tags"}
    found = {t["id"]: np.array(t["corners_px"]) for t in data["tags"]}
    assert set(found) == PHOTO_IDS
    stock = stock_opencv(cv2.imread(str(photo)), cv2.aruco.DICT_6X6_250)
    for tag, corners in found.items():
        # Same order and pixel convention as OpenCV: each corner within a pixel of stock's.
        assert np.linalg.norm(corners - stock[tag], axis=1).max() < 1.0, tag


def test_corners_are_sub_pixel_on_a_render_with_known_corners(tmp_path):
    intr, pose = camera_1080p(k1=0.0)
    tags = [Tag(5, 20.0, 15.0, 30.0), Tag(9, 30.0, 20.0, 200.0, size=0.6)]
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), render(intr, pose, tags, noise=1.0))
    result = run("detect", str(path), "--json")
    assert result.exit_code == 0, result.output
    found = {t["id"]: np.array(t["corners_px"]) for t in json.loads(result.output)["tags"]}
    assert set(found) == {5, 9}
    for tag in tags:
        error = np.linalg.norm(found[tag.id] - tag_corners_px(intr, pose, tag), axis=1)
        assert error.max() < 0.15, (tag.id, error)


def test_picture_outlines_each_tag_and_text_lists_ids(tmp_path):
    out = tmp_path / "seen.png"
    photo = REAL / "singlemarkers.jpg"
    result = run("detect", str(photo), "--dictionary", "DICT_6X6_250", "--picture", str(out))
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{photo}: 6 tags")
    assert all(f"id {tag:>4}" in result.output for tag in PHOTO_IDS)
    original, drawn = cv2.imread(str(photo)), cv2.imread(str(out))
    assert drawn.shape == original.shape
    changed = np.abs(drawn.astype(int) - original).max(axis=2) > 40
    # Ink on every tag's outline, and none far from the tags.
    found = json.loads(run("detect", str(photo), "--dictionary", "DICT_6X6_250", "--json").output)
    near = np.zeros(changed.shape, np.uint8)
    for tag in found["tags"]:
        quad = np.array(tag["corners_px"])
        x, y = np.round(quad[0]).astype(int)
        assert changed[y - 2 : y + 3, x - 2 : x + 3].any(), tag["id"]
        cv2.fillConvexPoly(near, np.round(quad).astype(np.int32), 1)
    near = cv2.dilate(near, np.ones((15, 15), np.uint8))
    assert not (changed & (near == 0)).any()


def test_folder_prints_one_json_object_per_image_with_its_path(tmp_path):
    folder = REAL / "charuco-calibration"
    result = run("detect", str(folder), "--dictionary", "DICT_6X6_250", "--json")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [Path(d["path"]).name for d in lines] == sorted(p.name for p in folder.glob("*.jpg"))
    # A 5x7 ChArUco board has 17 markers; every unoccluded photo shows most of them.
    assert all(len(d["tags"]) >= 12 for d in lines if "occluded" not in d["path"])


def test_video_frames_carry_their_number(tmp_path):
    intr, pose = camera_1080p(k1=0.0)
    video = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10, (1920, 1080))
    for x in (20.0, 21.0, 22.0):
        writer.write(render(intr, pose, [Tag(7, x, 18.0, 0.0, size=1.0)]))
    writer.release()
    result = run(
        "detect", str(video), "--json", "--frames", "2", "--picture", str(tmp_path / "f.png")
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [(d["frame"], [t["id"] for t in d["tags"]]) for d in lines] == [(0, [7]), (1, [7])]
    assert (tmp_path / "f-0000.png").is_file() and (tmp_path / "f-0001.png").is_file()


def custom_dictionary(path: Path) -> cv2.aruco.Dictionary:
    """A 5x5 dictionary of 12 markers OpenCV makes up, saved in its own YAML format."""
    dictionary = cv2.aruco.extendDictionary(12, 5, randomSeed=7)
    storage = cv2.FileStorage(str(path), cv2.FILE_STORAGE_WRITE)
    dictionary.writeDictionary(storage)
    storage.release()
    return dictionary


@pytest.mark.parametrize("family", ["custom", "DICT_APRILTAG_36h11"])
def test_custom_yml_and_apriltag_dictionaries(tmp_path, family):
    name = family
    if family == "custom":
        name = str(tmp_path / "house.yml")
        custom_dictionary(Path(name))
    intr, pose = camera_1080p(k1=0.0)
    path = tmp_path / "tags.png"
    cv2.imwrite(str(path), render(intr, pose, [Tag(11, 24.0, 18.0, 90.0, size=1.2)], name))
    result = run("detect", str(path), "--dictionary", name, "--json")
    assert result.exit_code == 0, result.output
    assert [t["id"] for t in json.loads(result.output)["tags"]] == [11]
    # The stock 4x4 dictionary does not read these tags.
    assert json.loads(run("detect", str(path), "--json").output) == {"tags": []}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dictionary", "DICT_9X9_1"], "--dictionary: unknown tag dictionary 'DICT_9X9_1'"),
        (["--dictionary", "nope.yml"], "--dictionary: tag dictionary file 'nope.yml' does not"),
        (["--picture", "out.txt"], "--picture out.txt: cannot write this kind of file"),
    ],
)
def test_bad_options_are_one_line_errors(args, message):
    result = run("detect", str(REAL / "singlemarkers.jpg"), *args)
    assert result.exit_code == 2
    assert result.output.startswith(f"referee: error: {message}"), result.output
    assert len(result.output.strip().splitlines()) == 1


def test_missing_source_is_one_line_error(tmp_path):
    result = run("detect", str(tmp_path / "none.jpg"))
    assert result.exit_code == 2
    assert "no such file, folder or camera" in result.output
