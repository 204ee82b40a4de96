"""`referee markers` and `referee board` as a user runs them: outputs, messages, exit codes."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.markers.roster import Roster, RosterEntry
from referee.tags.board import BoardSpec


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_markers_default_prints_ids_0_to_47(tmp_path, read_pdf):
    out = tmp_path / "t.pdf"
    result = run("markers", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "48 tags (ids 0-47, DICT_4X4_100) on 2 letter pages" in result.output
    texts = [t for page in read_pdf(out) for t in page.texts]
    assert "0" in texts and "47" in texts


def test_markers_default_stays_below_the_anchors_of_a_small_dictionary(tmp_path):
    result = run("markers", "--dictionary", "dict_4x4_50", "--out", str(tmp_path / "t.pdf"))
    assert result.exit_code == 0, result.output
    assert "44 tags (ids 0-43, DICT_4X4_50)" in result.output  # 44-49: the six anchors


def test_markers_from_roster_labels_each_piece_at_its_size(tmp_path, read_pdf, detect_tags):
    from referee.markers.pdf import rasterize
    from referee.markers.sheets import TagPrint, tag_sheet

    roster = Roster(
        "DICT_5X5_100",
        (
            RosterEntry(3, "t34", "soviet", "tank", (1.5, 3.0), tag_height=0.9, name="Lead T-34"),
            RosterEntry(4, "sq1", "soviet", "infantry", (2.0, 1.0), tag_size=0.6),
        ),
    )
    path = tmp_path / "roster.json"
    roster.save(path)
    out = tmp_path / "t.pdf"
    result = run("markers", "--roster", str(path), "--out", str(out), "--size", "25mm")
    assert result.exit_code == 0, result.output
    assert "0.6 in (15.2 mm), 25 mm (0.984 in)" in result.output
    texts = [t for page in read_pdf(out) for t in page.texts]
    assert "3  Lead T-34" in texts and "4  sq1" in texts
    sheet = tag_sheet(
        [TagPrint(3, 25 / 25.4, "Lead T-34"), TagPrint(4, 0.6, "sq1")], "DICT_5X5_100"
    )
    assert set(detect_tags(rasterize(sheet.pages[0], 150), "DICT_5X5_100")) == {3, 4}


def test_markers_size_auto_reports_its_choice(tmp_path):
    result = run(
        "markers", "--size", "auto", "--table", "72x48", "--camera", "3840x2160",
        "--ids", "1-4", "--out", str(tmp_path / "t.pdf"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.startswith("--size auto: 0.75 in (19.0 mm) tags give 5.11 px per tag cell")
    assert "0.75 in (19.0 mm) black squares" in result.output


def test_anchor_sheet_command_explains_placement(tmp_path):
    result = run("markers", "--anchors", "--out", str(tmp_path / "a.pdf"))
    assert result.exit_code == 0, result.output
    assert "4 anchor tags (ids 96-99, DICT_4X4_100)" in result.output
    assert "1.5 in from both table edges" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ids", "90-99"], "tag 94 is reserved for the big table's edge anchors of DICT_4X4_100"),
        (["--ids", "100"], "tag id 100 is outside DICT_4X4_100 (ids 0-99)"),
        (["--ids", "x"], "--ids: cannot read 'x'"),
        (["--size", "0.8"], "--size: cannot read '0.8'"),
        (["--size", "auto", "--camera", "big"], "--camera: cannot read 'big'"),
        (["--dictionary", "DICT_3X3_9"], "--dictionary: unknown tag dictionary"),
        (["--anchors", "--ids", "1"], "--anchors prints the reserved anchor ids"),
        (["--roster", "nope.json"], "nope.json: no such roster file"),
        (["--out", "tags.png"], "--out tags.png: cannot write this kind of file"),
        (["--size", "10in"], "does not fit the printable area"),
    ],
)
def test_markers_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = run("markers", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not list(tmp_path.glob("*.pdf"))


def test_markers_refuses_a_roster_piece_on_an_anchor_id(tmp_path):
    path = tmp_path / "roster.json"
    Roster("DICT_4X4_100", (RosterEntry(97, "t34", "s", "k", (1.0, 1.0)),)).save(path)
    result = run("markers", "--roster", str(path), "--out", str(tmp_path / "t.pdf"))
    assert result.exit_code == 2
    assert "piece 't34': tag 97 is reserved" in result.output


def test_board_square_without_out_prints_the_corrected_spec_only(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("board", "--square", "29.4mm")
    assert result.exit_code == 0, result.output
    spec_line = result.output.splitlines()[1]
    spec = BoardSpec.parse(spec_line)
    assert spec.square_m == pytest.approx(0.0294)
    assert spec.marker_m / spec.square_m == pytest.approx(0.7)
    assert f"referee calibrate SOURCE --board {spec_line}" in result.output
    assert not list(tmp_path.iterdir())


def test_board_square_with_out_prints_that_board(tmp_path):
    out = tmp_path / "b.pdf"
    result = run("board", "--square", "1in", "--page", "a4", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "charuco:5x7:0.0254m:" in result.output and out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--square", "12"], "--square: length '12' needs a unit"),
        (["--square", "40mm", "--out", "b.pdf"], "does not fit a letter page; use --square 30mm"),
        (["--board", "charuco:5x7:DICT_6X6_250"], "--board: board spec"),
        (["--page", "a3"], "Invalid value for '--page'"),
    ],
)
def test_board_bad_input(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = run("board", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert not list(tmp_path.glob("*.pdf"))


def test_a_rosters_tags_never_replace_an_earlier_tags_pdf(tmp_path, monkeypatch):
    """Issue 42: `markers --roster` wrote over the tags.pdf of `markers --ids` unasked. Its
    default now names the roster (as cards.pdf and anchors.pdf name what they hold)."""
    monkeypatch.chdir(tmp_path)
    Roster("DICT_4X4_100", (RosterEntry(3, "t34", "soviet", "tank", (1.5, 3.0)),)).save(
        tmp_path / "club.json"
    )
    (tmp_path / "tags.pdf").write_bytes(b"earlier tags")
    result = run("markers", "--roster", "club.json")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("wrote club-tags.pdf: 1 tag (id 3, DICT_4X4_100) on 1 ")
    assert (tmp_path / "tags.pdf").read_bytes() == b"earlier tags"
    assert (tmp_path / "club-tags.pdf").read_bytes().startswith(b"%PDF")
    # Given by name, an output is replaced as every command's --out is.
    result = run("markers", "--roster", "club.json", "--out", "tags.pdf")
    assert result.exit_code == 0 and (tmp_path / "tags.pdf").read_bytes().startswith(b"%PDF")


def test_markers_help_says_a_big_table_gets_six_anchors_as_the_command_prints(tmp_path):
    text = " ".join(run("markers", "--help").output.split())
    assert "four corners'" in text and "over 48 in a side two more" in text and "(six" in text
    result = run("markers", "--anchors", "--table", "72x48", "--out", str(tmp_path / "a.pdf"))
    assert "6 anchor tags (ids 94-99, DICT_4X4_100)" in result.output, result.output
    result = run("markers", "--anchors", "--table", "48x36", "--out", str(tmp_path / "a.pdf"))
    assert "4 anchor tags (ids 96-99, DICT_4X4_100)" in result.output, result.output


def test_counts_in_printed_lines_agree_with_their_nouns(tmp_path):
    one = run("markers", "--ids", "5", "--out", str(tmp_path / "t.pdf"))
    assert "wrote" in one.output and ": 1 tag (id 5, " in one.output, one.output
    assert " on 1 letter page, " in one.output
    many = run("markers", "--ids", "1-3", "--out", str(tmp_path / "t.pdf"))
    assert ": 3 tags (ids 1-3, " in many.output
