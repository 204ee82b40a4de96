"""The ES modules a page loads, followed through their imports (the dashboard's and the
club's pages are tested the same way)."""

from __future__ import annotations

import re

JS_TYPES = {"text/javascript", "application/javascript"}


def module_graph(
    client, page: str, pattern: str = r'<script[^>]*\ssrc="([^"]+)"'
) -> dict[str, str]:
    """URL -> text of every script the page loads, and of every module they import."""
    html = client.get(page).get_data(as_text=True)
    todo = re.findall(pattern, html)
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
