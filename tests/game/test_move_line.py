"""The move line ``run`` and ``demo`` print says which distance it shows (issue 42): the
front of the base, while a ruleset may judge another measure (Pz8 at the base centre,
said on the line below), so 4.45in over 4.28in is not a contradiction left unexplained."""

from __future__ import annotations

import re
from pathlib import Path

from referee.game.session import Ruling
from referee.rules import Verdict
from referee.rules.flow import Judgement
from referee.vision.pose import PiecePose
from referee.vision.track import MoveEvent

README = Path(__file__).resolve().parents[2] / "README.md"

#: A move line as the README quotes it: time, piece, distance, doubt, pose, verdict.
LINE = re.compile(
    r"^ +(?P<t>[\d.]+)s  (?P<piece>\S+) moved (?P<d>[\d.]+)in \(front of base, "
    r"\+/-(?P<u>[\d.]+)\) to \((?P<x>[\d.]+), (?P<y>[\d.]+)\) facing (?P<h>\d+): "
    r"(?P<word>ok|NOT OK|too close to call)$"
)


def _ruling(t, piece, d, u, x, y, h, word, reasons=()):
    ok = {"ok": True, "NOT OK": False, "too close to call": None}[word]
    start = PiecePose(piece, 1, 0.0, 0.0, 0.0, 0.005)
    end = PiecePose(piece, 1, float(x), float(y), float(h), 0.005)
    move = MoveEvent(piece, 1, start, end, float(d), float(u), 0.0, float(t), 0, 1)
    return Ruling(move, Judgement((Verdict("move", ok, tuple(reasons)),)), 1)


def _quoted() -> list[str]:
    lines = [line for line in README.read_text().splitlines() if " moved " in line]
    return [line for line in lines if re.match(r"^ +[\d.]+s  ", line)]


def test_the_readme_quotes_move_lines_as_they_are_printed():
    quoted = _quoted()
    assert len(quoted) >= 3  # the skirmish's two and the club's one
    for line in quoted:
        match = LINE.match(line)
        assert match is not None, f"the README quotes a move line not in the printed form: {line}"
        assert _ruling(**match.groupdict()).describe().splitlines()[0] == line


def test_the_headline_names_its_measure_beside_the_one_judged():
    """The club demo's stug: 4.45in at the front of its base, judged 4.28in at its centre."""
    reasons = ("moved 4.28in measured at the base centre", "4.28in exceeds the limit: 4in")
    text = _ruling(22.0, "stug", 4.45, 0.01, 35.61, 10.4, 70, "NOT OK", reasons).describe()
    head, measured, _ = text.splitlines()
    assert head.startswith("  22.00s  stug moved 4.45in (front of base, +/-0.010) to ")
    assert measured.strip() == "moved 4.28in measured at the base centre"
