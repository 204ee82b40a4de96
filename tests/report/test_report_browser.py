"""The battle report opened in real headless Chromium (Debian's ``chromium``, Playwright):
its pictures render at a real size, its moves and disputes show, it asks the network for
nothing (the file is all there is)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from web.browser import chromium, chromium_missing, open_page

from referee.cli import cli
from report.synthetic import build_game

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))

SHAPES = """() => Array.from(document.querySelectorAll('svg.table-picture')).map((s) => {
  const r = s.getBoundingClientRect();
  return { turn: s.dataset.turn, width: r.width, height: r.height,
           shapes: s.querySelectorAll('polygon, polyline').length,
           words: Array.from(s.querySelectorAll('text')).map((t) => t.textContent) }; })"""
SHOWN = """(sel) => Array.from(document.querySelectorAll(sel)).filter((e) => {
  const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .map((e) => e.dataset.seq)"""
IMAGES = """() => Array.from(document.querySelectorAll('img.evidence-picture')).map((i) => ({
  seq: i.dataset.seq, kind: i.dataset.kind, complete: i.complete,
  width: i.naturalWidth, height: i.naturalHeight }))"""


def test_the_report_renders_its_pictures_moves_and_disputes_offline(tmp_path):
    db = tmp_path / "games.sqlite"
    written = build_game(db, "browser", seconds=150, corrections=2, evidence=True)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli, ["log", "report", "browser", "--db", str(db), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    with chromium() as browser:
        context, page, errors = open_page(browser, width=1100, height=900)
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url))
        page.goto(out.as_uri())
        pictures = page.evaluate(SHAPES)
        moves = page.evaluate(SHOWN, "li.move")
        disputes = page.evaluate(SHOWN, "li.dispute")
        page.wait_for_function(
            "() => Array.from(document.images).every((i) => i.complete)", timeout=10_000
        )
        images = page.evaluate(IMAGES)
        context.close()
    assert errors == []
    assert [r for r in asked if not r.startswith("file:")] == []
    assert [p["turn"] for p in pictures] == [str(n) for n in range(written.turns + 1)]
    for picture in pictures:
        assert picture["width"] > 400 and picture["height"] > 250, picture
        assert picture["shapes"] >= 9  # the cloth, the wood and every base at least
    pieces = {m["piece"] for m in written.moves}
    assert pieces <= {w for p in pictures for w in p["words"]}  # their ids on the table
    arrows = [w for p in pictures[1:] for w in p["words"] if re.search(r"\d\.\d\din", w)]
    assert len(arrows) == len(written.moves)  # each arrow's distance label, once
    assert moves == [str(m["seq"]) for m in written.moves]
    assert len(disputes) == written.disputes
    # Every dispute's evidence decodes in the browser from the file alone (data: URIs).
    assert sorted((int(i["seq"]), i["kind"]) for i in images) == sorted(
        (seq, kind) for seq, kinds in written.evidence.items() for kind in kinds
    )
    assert written.evidence and all(i["width"] == 64 and i["height"] >= 48 for i in images)
