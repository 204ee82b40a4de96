"""The pages' scripts are ES modules loaded as they are (issue 38 item 4): every module a page
loads, followed through its imports, is served with a JavaScript MIME type (a browser refuses
a module script otherwise), fetches nothing from the internet, and stays a readable size."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "referee" / "web" / "static"
MOST_LINES = 500
PAGES = ("/", "/overlay", "/projector")
JS_TYPES = {"text/javascript", "application/javascript"}


def _module_graph(client, page: str) -> dict[str, str]:
    """URL -> text of every script the page loads, and of every module they import."""
    html = client.get(page).get_data(as_text=True)
    todo = re.findall(r'<script[^>]*\ssrc="([^"]+)"', html)
    assert todo, page
    seen: dict[str, str] = {}
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert answer.mimetype in JS_TYPES, (url, answer.mimetype)
        seen[url] = answer.get_data(as_text=True)
        base = url.rsplit("/", 1)[0]
        for name in re.findall(r'^(?:import|export)\b[^"\n]*from "\./([^"]+)"', seen[url], re.M):
            todo.append(f"{base}/{name}")
    return seen


@pytest.mark.parametrize("page", PAGES)
def test_every_module_a_page_loads_is_served_as_javascript(client, page):
    modules = _module_graph(client, page)
    if page == "/":
        # the dashboard is an entry module and its parts, not one script
        assert len(modules) >= 10, sorted(modules)
    for url, text in modules.items():
        for scheme in ("http://", "https://", "//cdn", "import("):
            assert scheme not in text.replace("http://www.w3.org/2000/svg", ""), (url, scheme)


def test_the_dashboard_loads_every_module_on_disk(client):
    """No module is left behind unused: the files under js/ are the ones the pages import."""
    loaded = set()
    for page in PAGES:
        loaded |= {url.rsplit("/", 1)[1] for url in _module_graph(client, page)}
    on_disk = {p.name for p in (STATIC / "js").glob("*.js")}
    assert on_disk <= loaded, on_disk - loaded


def test_no_script_is_over_the_most_lines():
    scripts = sorted(STATIC.rglob("*.js"))
    assert len(scripts) >= 10
    long = {p.name: n for p in scripts if (n := len(p.read_text().splitlines())) > MOST_LINES}
    assert not long, long
