"""Bad ``?camera=N`` on the dashboard's camera picture (issue 32 item 1: several cameras,
the panel picks one). Generated values against a two-camera table: a camera number from 1
to 2 (or none: camera 1) is its picture, anything else a 400 with one line in the
referee's words, never a 500; asking logs nothing."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st
from web.twocam_live import two_camera_live

from badinput.harness import FUZZ, PYTHON_TEXT, VALUES
from referee.web import create_app


@pytest.fixture(scope="module")
def client():
    live = two_camera_live(both=2, alone=0)
    live.step(2)
    yield create_app(live, {"TESTING": True}).test_client(), live
    live.stop()


ARG = st.one_of(
    VALUES.map(str),
    st.text(max_size=8),
    st.integers(-3, 5).map(str),
    st.sampled_from(
        ["", " ", "1e999", "-0", "01", "2.0", "+2", "0x1", "٢", "9" * 5000, "x" * 9000]
    ),
)


def _number(text: str) -> int | None:
    """The camera ``text`` names as the API reads a whole number, or None."""
    if text == "":
        return 1
    try:
        return int(text)
    except ValueError:
        return None


@FUZZ
@given(value=ARG)
def test_camera_picture_is_a_camera_s_or_one_line_400(client, value):
    test, live = client
    before = live.session.last_seq
    response = test.get("/api/camera.jpg?" + urlencode({"camera": value}))
    number = _number(value)
    if number in (1, 2):
        assert response.status_code == 200 and response.mimetype == "image/jpeg"
    else:
        assert response.status_code == 400, (value, response.status_code)
        error = response.get_json()["error"]
        assert "\n" not in error and len(error) < 500, error
        assert not PYTHON_TEXT.search(error), error
        assert error.startswith("camera: "), error
    assert live.session.last_seq == before
