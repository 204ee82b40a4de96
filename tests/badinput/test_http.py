"""The dashboard's HTTP API under hostile requests: never a 500, and it keeps answering.

Generated raw requests (so header values may hold any bytes a client can send: non-ASCII,
broken URLs) go to a real waitress server over sockets, several at once: random headers
(``Origin``, the token header, ``Cookie``, ``Host``, ``Content-Type``), query strings and
JSON bodies for ``/api/ask``, ``/api/declare`` and ``/api/terrain``, against a server with
an access token and one without. Every answer must be below 500, and after each batch
``/api/health`` still answers 200 (issue 30: "the server answers below 500 and keeps
answering"). The cases that found a bug are kept below as plain regression tests.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from web.browser import dashboard

from badinput.harness import DEADLINE_MS, VALUES, WEIRD, examples
from referee.game import sample_live

TOKEN = "s3cret-Token_1"
TIMEOUT = 20.0
"""Seconds a request may take before it counts as unanswered (a hang guard)."""

HTTP = settings(
    max_examples=examples(40),
    deadline=DEADLINE_MS * 2,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)

#: Text a careless client or an attacker puts in a header, a query or a cookie.
NASTY = st.one_of(
    st.sampled_from(
        [
            "",
            "http://[",
            "http://[::1",
            "http://]",
            "https://127.0.0.1:99999",
            "null",
            "file://",
            "héllo",
            "токен",
            "\u2603",
            "\udcff",
            "a" * 5000,
            TOKEN,
            TOKEN + "é",
            "%ff%fe",
            "%00",
            "=;=;",
        ]
    ),
    st.text(max_size=40),
)
PATHS = st.sampled_from(
    [
        "/api/ask",
        "/api/declare",
        "/api/terrain",
        "/api/picture",
        "/api/health",
        "/api/info",
        "/api/state",
        "/api/events",
        "/api/replay",
        "/api/export",
        "/api/live",
        "/api/camera.jpg",
        "/api/evidence/1/camera.jpg",  # a verdict's pictures (issue 40)
        "/api/evidence/99999999999999999999/top.jpg",
        "/api/evidence/1/%2e%2e.jpg",
        "/api/selection",
        "/api/projector",
        "/api/projector/pattern.png",
        "/api/projector/calibrate",
        "/api/projector/check",
        "/projector",
        "/api/nowhere",
        "/",
    ]
)
QUESTION = st.fixed_dictionaries(
    {"ask": st.sampled_from(["range", "los", "move", "follow_me", "action", "x"]) | VALUES},
    optional={
        "from": st.sampled_from(["t34a", "t34b", "ghost"]) | VALUES,
        "to": st.sampled_from(["t34a", "t34b"]) | VALUES,
        "piece": st.sampled_from(["t34a", "sq1"]) | VALUES,
        "leader": st.sampled_from(["t34a"]) | VALUES,
        "width": st.sampled_from([1280, 320, 8193]) | VALUES,  # /api/projector/calibrate
    },
)
TERRAIN = st.fixed_dictionaries(
    {"action": st.sampled_from(["add", "replace", "remove", "paint"]) | VALUES},
    optional={
        "id": st.sampled_from(["wood1", "ghost"]) | VALUES,
        "terrain": st.fixed_dictionaries(
            {},
            optional={
                "id": st.sampled_from(["fuzz-wood"]) | VALUES,
                "kind": st.sampled_from(["woods", "hill", "lava"]) | VALUES,
                "polygon": st.lists(st.lists(VALUES, max_size=3), max_size=5) | VALUES,
            },
        )
        | VALUES,
    },
)


def _body_text(value: Any) -> bytes:
    try:
        return json.dumps(value).encode()
    except (TypeError, ValueError):
        return b"{not json"


@st.composite
def requests(draw: st.DrawFn) -> bytes:
    """One raw HTTP/1.1 request: method, path, query, a few headers, maybe a body."""
    path = draw(PATHS)
    method = draw(st.sampled_from(["GET", "POST", "POST", "PUT", "DELETE", "HEAD", "OPTIONS"]))
    query = draw(
        st.one_of(
            st.just(""),
            NASTY.map(lambda q: f"token={q}"),
            NASTY.map(lambda q: f"camera={q}"),  # which camera's picture (several cameras)
            NASTY.map(lambda q: f"evidence={q}"),  # /api/ask with its pictures listed
            NASTY.map(lambda q: f"width={q}&height=720"),  # the projector's pattern
            NASTY,
        )
    )
    headers: dict[str, str] = {"Host": draw(st.sampled_from(["HOST", "HOST", "[", "é", ""]))}
    for name in ("Origin", "X-Referee-Token", "Cookie", "Content-Type", "Content-Length"):
        if draw(st.booleans()):
            value = draw(NASTY)
            if name == "Cookie" and draw(st.booleans()):
                value = f"referee_token={value}"
            headers[name] = value
    body = b""
    if method == "POST":
        shape = QUESTION if path != "/api/terrain" else TERRAIN
        raw = draw(st.one_of(shape, st.sampled_from(WEIRD), st.just({"queries": [{"ask": 1}]})))
        body = _body_text(raw)
        if draw(st.integers(0, 5)) == 0:
            body = body[: draw(st.integers(0, len(body)))]
        if "Content-Length" not in headers or draw(st.booleans()):
            headers["Content-Length"] = str(len(body))
    target = path + (("?" + query) if query else "")
    lines = [f"{method} {target} HTTP/1.1"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines.append("Connection: close")
    head = "\r\n".join(line.replace("\r", "").replace("\n", "") for line in lines)
    return head.encode("utf-8", "surrogateescape") + b"\r\n\r\n" + body


#: What :func:`send` returns when the server refused a request before it was all sent (an
#: oversized or malformed one answered and closed early): no status, and no 5xx either.
CUT_SHORT = 0


def send(url: str, raw: bytes) -> int:
    """Send ``raw`` (``HOST`` stands for the server's address) and return the status code."""
    parts = urlsplit(url)
    host = f"{parts.hostname}:{parts.port}"
    raw = raw.replace(b"Host: HOST", f"Host: {host}".encode()).replace(
        b"http://HOST", f"http://{host}".encode()
    )
    head = b""
    with socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT) as sock:
        try:
            sock.sendall(raw)
            sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError, OSError) as error:
            if isinstance(error, TimeoutError):
                raise
            cut_short = True  # the server answered (or closed) before reading it all
        else:
            cut_short = False
        try:
            while b"\r\n" not in head:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                head += chunk
        except ConnectionResetError:
            if not cut_short:
                raise
    if cut_short and not head:
        return CUT_SHORT
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    assert status_line.startswith("HTTP/1."), f"no answer to {raw[:200]!r}: {head[:200]!r}"
    return int(status_line.split()[1])


def health(url: str) -> int:
    request = f"GET /api/health?token={TOKEN} HTTP/1.1\r\nHost: HOST\r\n\r\n"
    return send(url, request.encode())


@pytest.fixture(scope="module", params=[None, TOKEN], ids=["local", "token"])
def served(request) -> Iterator[tuple[str, str | None]]:
    """The dashboard's URL and its token (None: served on 127.0.0.1 without one)."""
    live = sample_live(pace=0)
    live.step(40)  # the sample's pieces have settled: questions get real answers
    with dashboard(live, token=request.param) as running:
        yield running.url, request.param
    live.stop()


@pytest.fixture
def server(served) -> str:
    return served[0]


@HTTP
@given(batch=st.lists(requests(), min_size=1, max_size=6))
def test_hostile_requests_are_answered_below_500(server, batch):
    with ThreadPoolExecutor(len(batch)) as pool:
        statuses = list(pool.map(lambda raw: send(server, raw), batch))
    for raw, status in zip(batch, statuses, strict=True):
        assert status < 500, f"{status} for {raw[:300]!r}"
    assert health(server) == 200, "the server stopped answering"


# -- the cases that found bugs (issue 30 item 2) ---------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b"POST /api/ask HTTP/1.1\r\nHost: HOST\r\nOrigin: http://[\r\nContent-Length: 2\r\n\r\n{}",
        "GET /api/health HTTP/1.1\r\nHost: HOST\r\nX-Referee-Token: токен\r\n\r\n".encode(),
        b"GET /api/health?token=%C3%A9 HTTP/1.1\r\nHost: HOST\r\n\r\n",
        "GET /api/health HTTP/1.1\r\nHost: HOST\r\nCookie: referee_token=é\r\n\r\n".encode(),
    ],
    ids=["origin-ipv6", "header-token", "query-token", "cookie-token"],
)
def test_regressions_are_4xx(served, raw):
    url, token = served
    status = send(url, raw)
    if token is not None:
        assert status == 401  # not the token: refused, whatever its characters
    else:  # no token asked for; a change from a page that is not this server is refused
        assert status == (403 if raw.startswith(b"POST") else 200)
    assert health(url) == 200
