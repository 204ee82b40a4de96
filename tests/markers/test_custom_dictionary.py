"""Dictionaries by name (OpenCV's, AprilTag families) or as OpenCV .yml files, everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.errors import RosterError
from referee.markers.pdf import rasterize
from referee.markers.roster import load_roster
from referee.markers.sheets import TagPrint, tag_sheet
from referee.tags.board import BoardSpec
from referee.tags.layout import canonical_dictionary, get_dictionary, marker_cells


def write_dictionary(path: Path, count: int = 12, bits: int = 5) -> cv2.aruco.Dictionary:
    """A dictionary OpenCV makes up, saved in its own YAML format."""
    dictionary = cv2.aruco.extendDictionary(count, bits, randomSeed=7)
    storage = cv2.FileStorage(str(path), cv2.FILE_STORAGE_WRITE)
    dictionary.writeDictionary(storage)
    storage.release()
    return dictionary


def test_yml_dictionary_reads_the_markers_opencv_wrote(tmp_path):
    path = tmp_path / "house.yml"
    original = write_dictionary(path)
    loaded = get_dictionary(str(path))
    assert loaded.markerSize == 5 and (loaded.bytesList == original.bytesList).all()
    assert marker_cells(str(path), 11).shape == (7, 7)
    assert canonical_dictionary(str(path)) == str(path)


@pytest.mark.parametrize(
    "name", ["DICT_APRILTAG_36h11", "dict_apriltag_16H5", "DICT_ARUCO_ORIGINAL"]
)
def test_builtin_families_by_any_case(name):
    assert canonical_dictionary(name) == name.upper()
    assert get_dictionary(name).bytesList.shape[0] > 0


@pytest.mark.parametrize(
    ("text", "message"),
    [("hello: 1\n", "has no markers"), ("{{{: [\n", "is not OpenCV YAML")],
)
def test_broken_yml_dictionaries_say_how_to_write_one(tmp_path, text, message):
    path = tmp_path / "bad.yml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as error:
        get_dictionary(str(path))
    assert "writeDictionary" in str(error.value)


def test_roster_finds_its_dictionary_file_beside_it_and_markers_print_it(
    tmp_path, detect_tags, read_pdf
):
    write_dictionary(tmp_path / "house.yml")
    roster = tmp_path / "roster.json"
    piece = {"tag": 3, "id": "t34", "side": "soviet", "kind": "tank", "base": [1.5, 3.0]}
    roster.write_text(json.dumps({"dictionary": "house.yml", "pieces": [piece], "anchors": []}))
    loaded = load_roster(roster)
    assert loaded.dictionary == str(tmp_path / "house.yml")
    out = tmp_path / "tags.pdf"
    result = CliRunner().invoke(cli, ["markers", "--roster", str(roster), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "3  t34" in [t for page in read_pdf(out) for t in page.texts]
    sheet = tag_sheet([TagPrint(3, 0.8, "t34")], loaded.dictionary)
    assert set(detect_tags(rasterize(sheet.pages[0], 150), loaded.dictionary)) == {3}


def test_roster_tag_outside_a_small_dictionary_file_is_refused(tmp_path):
    write_dictionary(tmp_path / "house.yml", count=4)
    roster = tmp_path / "roster.json"
    piece = {"tag": 9, "id": "t34", "side": "soviet", "kind": "tank", "base": [1.5, 3.0]}
    roster.write_text(json.dumps({"dictionary": "house.yml", "pieces": [piece], "anchors": []}))
    with pytest.raises(RosterError, match=r"\$\.pieces\[0\]\.tag: tag id 9 is outside"):
        load_roster(roster)


def test_board_spec_takes_a_dictionary_file(tmp_path):
    path = tmp_path / "house.yml"
    write_dictionary(path, count=20)
    spec = BoardSpec.parse(f"charuco:5x7:40mm:20mm:{path}")
    assert spec.dictionary == str(path)
    assert spec.cv_board().getIds().size == 17
