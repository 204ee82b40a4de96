"""Bad input to the stream overlay's page ``/overlay`` (issue 40 item 3): its query options
``corner``, ``size`` and ``show``. The page is for a streaming program's browser source, so
a wrong option is answered by the server, before any script runs: 400 with exactly one plain
text line naming the option, the value and what it may be (what OBS then shows in place of
the overlay), never a 500 or a traceback; and the page, which only reads, logs nothing."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from badinput.harness import FUZZ, PYTHON_TEXT, VALUES
from referee.game import sample_live
from referee.store import GameLog
from referee.web import create_app
from referee.web.pages import CORNERS, PARTS, SIZE_RANGE


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    log = GameLog(tmp_path_factory.mktemp("overlay") / "games.sqlite")
    live = sample_live(pace=0, log=log, game="bad-overlay")
    live.step(3)
    yield create_app(live, {"TESTING": True}).test_client(), live
    live.stop()
    log.close()


def _valid(name: str, value: str) -> bool:
    """What the overlay must accept, said independently of how pages.py reads it."""
    text = value.strip()
    if name == "corner":
        return text.lower() in CORNERS
    if name == "size":
        return text.isascii() and text.isdigit() and SIZE_RANGE[0] <= int(text) <= SIZE_RANGE[1]
    parts = [p.strip().lower() for p in value.split(",")]
    return all(p in PARTS for p in parts) and ("threat" not in parts or "map" in parts)


TEXT = st.one_of(
    VALUES.map(str),
    st.text(max_size=12),
    st.sampled_from(["", " ", "-1", "0", "79", "80", "4000", "4001", "١٢٠", "360px", "1e3"]),
    st.lists(st.sampled_from([*PARTS, "", "Map", "score"]), max_size=4).map(",".join),
    st.sampled_from([*CORNERS, "TL", " br ", "top-left", "middle"]),
)


def _assert_answer(response, accepted: bool) -> None:
    body = response.get_data(as_text=True)
    if accepted:
        assert response.status_code == 200, body
        return
    assert response.status_code == 400, (response.status_code, body)
    assert response.mimetype == "text/plain"
    line = body.removesuffix("\n")
    assert line.startswith("overlay: ") and "\n" not in line and len(line) < 300, body
    assert not PYTHON_TEXT.search(line), line


@FUZZ
@given(name=st.sampled_from(["corner", "size", "show"]), value=TEXT)
def test_each_option_is_drawn_or_refused_in_one_line(client, name, value):
    test, live = client
    before = live.session.last_seq
    response = test.get("/overlay?" + urlencode({name: value}))
    _assert_answer(response, _valid(name, value))
    assert live.session.last_seq == before  # the page logs nothing


@FUZZ
@given(name=st.text(min_size=1, max_size=10))
def test_an_unknown_option_is_named(client, name):
    test, _ = client
    response = test.get("/overlay?" + urlencode({name: "1"}))
    known = name in ("corner", "size", "show", "token")
    _assert_answer(response, known and _valid(name, "1") if name != "token" else True)
    if not known:
        assert "unknown option" in response.get_data(as_text=True)


def test_a_huge_value_is_quoted_short(client):
    test, _ = client
    response = test.get("/overlay?" + urlencode({"corner": "x" * 100_000}))
    _assert_answer(response, False)
    assert len(response.get_data(as_text=True)) < 200
