"""``referee roster init --pieces FILE``: any bytes as a piece list (issue 30, item 8).

A UTF-16, Latin-1 or binary file raised ``UnicodeDecodeError``; a 10 MB single-line file
got no answer in 90 s (``shlex`` on one enormous token). The file is now read as bytes,
bounded (:data:`MAX_PIECE_LIST_BYTES`, :data:`MAX_PIECE_LINE` a line), and decoded with a
message naming the line, before any line is parsed.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from badinput.harness import FUZZ, assert_clean, examples, invoke
from referee.markers.roster import load_roster
from referee.markers.roster_init import MAX_PIECE_LINE, MAX_PIECE_LIST_BYTES

GOOD = 't34a soviet tank 1.5x3 height=0.9\nsq1 soviet infantry 2x1 name="1st Squad"\n'


def _init(pieces, out):
    return invoke("roster", "init", "--pieces", str(pieces), "--out", str(out), "--force")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (GOOD.encode("utf-16"), "is UTF-16 text; save it as plain UTF-8 text"),
        (GOOD.encode("utf-16-be").join([b"\xfe\xff", b""]), "is UTF-16 text"),
        ("t34a sovi\u00e9t tank 1.5x3\n".encode("latin-1"), "line 1: is not UTF-8 text"),
        (b"ok soviet tank 1x1\n" * 3 + b"\x80\x81\n", "line 4: is not UTF-8 text"),
        (bytes(range(256)) * 4, "is not a text file (it holds NUL bytes)"),
        (b"t34a soviet tank 1.5x3 name=" + b"x" * 5000, f"holds at most {MAX_PIECE_LINE}"),
        (b"x" * 10_000_000, f"is over {MAX_PIECE_LIST_BYTES:,} bytes"),
        (b"\n" * (MAX_PIECE_LIST_BYTES + 1), f"is over {MAX_PIECE_LIST_BYTES:,} bytes"),
    ],
)
def test_a_piece_list_that_is_no_utf8_text_is_one_line(tmp_path, data, message):
    pieces, out = tmp_path / "pieces.txt", tmp_path / "roster.json"
    pieces.write_bytes(data)
    out.write_text("earlier roster\n")
    result = _init(pieces, out)
    assert_clean(result)
    assert result.exit_code == 2
    assert message in result.stderr, result.stderr
    assert result.stderr.startswith(f"referee: error: {pieces}")
    assert out.read_text() == "earlier roster\n"


def test_a_10_mb_line_on_standard_input_is_refused_too(tmp_path):
    out = tmp_path / "roster.json"
    process = subprocess.run(
        [sys.executable, "-m", "referee", "roster", "init", "--pieces", "-", "--out", str(out)],
        input=b"x" * 10_000_000, capture_output=True, timeout=120,
    )  # fmt: skip
    assert process.returncode == 2
    assert process.stderr.decode().strip().splitlines() == [
        f"referee: error: <stdin>: is over {MAX_PIECE_LIST_BYTES:,} bytes; a piece list is one "
        "short line per piece"
    ]
    assert not out.exists()


def test_a_utf8_list_with_a_byte_order_mark_still_reads(tmp_path):
    pieces, out = tmp_path / "pieces.txt", tmp_path / "roster.json"
    pieces.write_bytes(GOOD.encode("utf-8-sig"))
    result = _init(pieces, out)
    assert result.exit_code == 0, result.output
    assert [p.id for p in load_roster(out)] == ["t34a", "sq1"]


def test_a_long_piece_option_is_one_line():
    result = invoke("roster", "init", "--piece", "t34 soviet tank 1x2 name=" + "x" * 100_000)
    assert_clean(result)
    assert result.exit_code == 2
    assert "--piece #1: is 100,025 characters long" in result.stderr


# -- generator: any bytes a piece list can hold --------------------------------------------


@st.composite
def piece_list_bytes(draw: st.DrawFn) -> bytes:
    """A valid list re-encoded, with changed bytes, long lines or plain noise."""
    kind = draw(st.sampled_from(["encoded", "encoded", "noise", "long-line", "text"]))
    if kind == "encoded":
        encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "latin-1",
                                         "cp1252", "utf-32"]))  # fmt: skip
        text = GOOD.replace(
            "soviet", draw(st.sampled_from(["soviet", "sovi\u00e9t", "\u0441\u0441"]))
        )
        try:
            data = bytearray(text.encode(encoding))
        except UnicodeEncodeError:
            data = bytearray(text.encode("utf-8"))
        for _ in range(draw(st.integers(0, 2))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        return bytes(data)
    if kind == "noise":
        return draw(st.binary(max_size=400))
    if kind == "long-line":
        size = draw(st.sampled_from([MAX_PIECE_LINE - 40, MAX_PIECE_LINE + 1, 200_000]))
        return b"t34a soviet tank 1.5x3 name=" + b"y" * size
    return draw(st.text(max_size=200)).encode("utf-8", "surrogatepass")


@settings(FUZZ, max_examples=examples(40))
@given(data=piece_list_bytes())
def test_roster_init_from_any_piece_file_keeps_the_earlier_roster(tmp_path_factory, data):
    work = tmp_path_factory.mktemp("pieces")
    pieces, out = work / "pieces.txt", work / "roster.json"
    pieces.write_bytes(data)
    out.write_text("earlier roster\n")
    result = _init(pieces, out)
    assert_clean(result)
    if result.exit_code == 2:
        assert out.read_text() == "earlier roster\n"
        assert result.stderr.startswith(f"referee: error: {pieces}") or "piece" in result.stderr
    else:
        load_roster(out)
