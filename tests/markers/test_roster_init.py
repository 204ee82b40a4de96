"""`referee roster init`: a valid roster from a list of pieces, or by answering questions."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.markers.roster import load_roster

PIECES = """\
# id   side    kind      base   options
t34a   soviet  tank      1.5x3  height=0.9
sq1    soviet  infantry  2x1    name="1st Squad" offset=0.25,0
pz4    german  tank      1.5x3  tag=7 size=0.6
mg1    german  gun       1x1
"""


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, ["roster", "init", *args], input=input)


def test_piece_list_file_becomes_a_roster_with_free_tags(tmp_path):
    listing = tmp_path / "pieces.txt"
    listing.write_text(PIECES)
    out = tmp_path / "roster.json"
    result = run("--pieces", str(listing), "--out", str(out))
    assert result.exit_code == 0, result.output
    roster = load_roster(out)
    assert [(p.tag, p.id) for p in roster] == [(0, "t34a"), (1, "sq1"), (7, "pz4"), (2, "mg1")]
    t34, sq1, pz4 = roster.by_id("t34a"), roster.by_id("sq1"), roster.by_id("pz4")
    assert t34 and t34.base == (1.5, 3.0) and t34.tag_height == 0.9
    assert sq1 and sq1.name == "1st Squad" and sq1.tag_offset == (0.25, 0.0)
    assert pz4 and pz4.tag_size == 0.6 and pz4.side == "german"
    assert f"wrote {out}: 4 pieces (DICT_4X4_100)" in result.output


def test_first_tag_and_dictionary_and_the_anchor_ids_are_never_used(tmp_path):
    out = tmp_path / "roster.json"
    pieces = ["--piece", "a soviet tank 1x2", "--piece", "b soviet tank 1x2 tag=3"]
    result = run(*pieces, "--first-tag", "43", "--dictionary", "dict_4x4_50", "--out", str(out))
    assert result.exit_code == 0, result.output
    roster = load_roster(out)
    assert roster.dictionary == "DICT_4X4_50"
    assert [(p.id, p.tag) for p in roster] == [("a", 43), ("b", 3)]
    # DICT_4X4_50 keeps 44-49 for the anchors (a big table has six): no tag left for a third.
    more = [*pieces, "--piece", "c soviet tank 1x2"]
    result = run(
        *more, "--first-tag", "43", "--dictionary", "DICT_4X4_50", "--out", str(out), "--force"
    )
    assert result.exit_code == 2
    assert "need more tags than DICT_4X4_50 has below its anchors" in result.output


def test_interactive_when_no_list_is_given(tmp_path):
    out = tmp_path / "roster.json"
    answers = "t34a\nsoviet\ntank\n1.5x3\n0.9\nsq1\n\ninfantry\n2 by 1\n2x1\n0\n\n"
    result = run("--out", str(out), input=answers)
    assert result.exit_code == 0, result.output
    roster = load_roster(out)
    assert [(p.id, p.side, p.kind, p.base, p.tag_height) for p in roster] == [
        ("t34a", "soviet", "tank", (1.5, 3.0), 0.9),
        ("sq1", "soviet", "infantry", (2.0, 1.0), 0.0),
    ]
    assert "base '2 by 1' must be WIDTHxDEPTH" in result.output


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("t34a soviet tank\n", "pieces.txt: line 1: expected ID SIDE KIND WIDTHxDEPTH"),
        ("\nt34a soviet tank 1.5x0\n", "pieces.txt: line 2: base depth must be a positive"),
        ("t34a soviet tank 1.5x3 colour=red\n", "line 1: unknown option 'colour'"),
        ("a s tank 1x1\na s tank 1x1\n", "piece id 'a' is given twice"),
        ("a s tank 1x1 tag=3\nb s tank 1x1 tag=3\n", "tag 3 is given to both 'a' and 'b'"),
        ("a s tank 1x1 tag=99\n", "tag 99 is reserved for the corner anchors of DICT_4X4_100"),
        ("# nothing\n", "no pieces given"),
    ],
)
def test_bad_piece_lists_are_one_line_errors(tmp_path, lines, message):
    listing = tmp_path / "pieces.txt"
    listing.write_text(lines)
    out = tmp_path / "roster.json"
    result = run("--pieces", str(listing), "--out", str(out))
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_existing_roster_is_kept_without_force(tmp_path):
    out = tmp_path / "roster.json"
    out.write_text("{}")
    result = run("--piece", "a s tank 1x1", "--out", str(out))
    assert result.exit_code == 2 and "already exists; add --force" in result.output
    assert out.read_text() == "{}"
    assert run("--piece", "a s tank 1x1", "--out", str(out), "--force").exit_code == 0
    assert [p.id for p in load_roster(out)] == ["a"]
