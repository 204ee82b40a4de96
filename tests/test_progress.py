"""Progress bars only on a terminal (issue 31 item 8): piped output gets one plain line per
stage, never the thousands of ``\\r`` redraws a bar is made of."""

from __future__ import annotations

import io

from referee.game import drive
from referee.runtime import StageLines, progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_pipe_gets_one_line_per_stage():
    out = io.StringIO()
    assert list(progress(range(500), desc="video", unit="frame", file=out)) == list(range(500))
    assert out.getvalue() == "video: 500 frames\n"


def test_a_bar_with_stages_says_each_once_without_carriage_returns():
    out = io.StringIO()
    bar = progress(total=3, desc="calibrate", unit="view", file=out)
    assert isinstance(bar, StageLines)
    bar.set_description("calibrate: finding the board")
    for _ in range(3):
        bar.update(1)
        bar.set_postfix_str("last: sharp")
    bar.write("calibrate: tilt the board", file=out)
    bar.close()
    bar.close()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert lines == [
        "calibrate: tilt the board",
        "calibrate: finding the board: 3/3 views (last: sharp)",
    ]


def test_a_terminal_gets_a_bar_and_disabled_gets_nothing():
    tty = Terminal()
    for _ in progress(range(5), desc="x", file=tty):
        pass
    assert "\r" in tty.getvalue()
    quiet = io.StringIO()
    for _ in progress(range(5), desc="x", enabled=False, file=quiet):
        pass
    assert quiet.getvalue() == ""


class Session:
    resume_after = -1

    def run(self, frames):
        yield from frames


class Source(list):
    name = "clip.mp4"

    @property
    def frame_count(self):
        return len(self)


def test_the_frame_loop_piped_says_one_line(capsys):
    assert drive(Session(), Source(range(300)), progress=True) == 300
    err = capsys.readouterr().err
    assert err == "clip.mp4: 300/300 frames\n"


def test_a_stage_line_says_its_unit_in_the_plural_unless_one():
    for n, total, line in [(1, None, "scan: 1 image"), (2, None, "scan: 2 images"),
                           (1, 1, "scan: 1/1 image"), (0, 3, "scan: 0/3 images")]:  # fmt: skip
        out = io.StringIO()
        bar = progress(total=total, desc="scan", unit="image", file=out)
        bar.update(n)
        bar.set_postfix_str("" if n else "nothing")
        bar.close()
        assert out.getvalue().splitlines()[0].split(" (")[0] == line
