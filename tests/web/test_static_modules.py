"""The pages' scripts are ES modules loaded as they are (issue 38 item 4): every module a page
loads, followed through its imports, is served with a JavaScript MIME type (a browser refuses
a module script otherwise), fetches nothing from the internet, and stays a readable size."""

from __future__ import annotations

from pathlib import Path

import pytest
from web.modules import module_graph

STATIC = Path(__file__).resolve().parents[2] / "referee" / "web" / "static"
MOST_LINES = 500
PAGES = ("/", "/overlay", "/projector")


@pytest.mark.parametrize("page", PAGES)
def test_every_module_a_page_loads_is_served_as_javascript(client, page):
    modules = module_graph(client, page)
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
        loaded |= {url.rsplit("/", 1)[1] for url in module_graph(client, page)}
    on_disk = {p.name for p in (STATIC / "js").glob("*.js")}
    assert on_disk <= loaded, on_disk - loaded


def test_no_script_is_over_the_most_lines():
    scripts = sorted(STATIC.rglob("*.js"))
    assert len(scripts) >= 10
    long = {p.name: n for p in scripts if (n := len(p.read_text().splitlines())) > MOST_LINES}
    assert not long, long
