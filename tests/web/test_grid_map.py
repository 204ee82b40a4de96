"""The dashboard of a game played on a mat: /api/info lays out its cells in table inches and
the map draws them under the pieces (hexes for Pz8 Space, zones for Pz8 Naval)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.calibration.profile import load_profile
from referee.game import LiveTable, bare_scene, repo_footage
from referee.markers.roster import load_roster
from referee.rules import find_ruleset
from referee.vision.pipeline import Pipeline
from referee.web import create_app

from .browser import chromium, chromium_missing, dashboard


def _live(ruleset: str, **settings: float) -> LiveTable:
    """A live table on the sample camera and roster, playing ``ruleset`` on a bare table."""
    folder = repo_footage()
    profile = load_profile(folder / "camera.json")
    scene = bare_scene(profile, ruleset)
    if settings:
        scene = type(scene)(ruleset, scene.table, settings=settings)
    return LiveTable(Pipeline(profile, load_roster(folder / "roster.json")), scene)


def _info(live: LiveTable) -> dict:
    return create_app(live, {"TESTING": True}).test_client().get("/api/info").get_json()


def test_hex_mat_cells_cover_the_table_as_regular_hexes_the_ruleset_places_on():
    live = _live("pz8-space", hex_size=2.0, grid_rotation=30.0, grid_x=0.5)
    info = _info(live)
    grid, table = info["grid"], info["table"]
    assert (grid["kind"], grid["units"], grid["size"]) == ("hex", "hexes", 2.0)
    rules = find_ruleset("pz8-space", hex_size=2.0, grid_rotation=30.0, grid_x=0.5)
    hexes = rules.grid(live.session.scene.table)
    # About table area / hex area cells, each a regular hexagon 2in across the flats whose
    # centre is on the table and is the cell the ruleset puts a piece standing there in.
    area = table["width"] * table["depth"] / (math.sqrt(3) / 2 * 2.0**2)
    assert 0.85 * area < len(grid["cells"]) < 1.15 * area
    for cell in grid["cells"]:
        corners = np.array(cell["outline"])
        centre = corners.mean(axis=0)
        assert corners.shape == (6, 2)
        assert np.allclose(np.linalg.norm(corners - centre, axis=1), 2.0 / math.sqrt(3), atol=2e-3)
        assert -1e-3 <= centre[0] <= table["width"] + 1e-3
        assert -1e-3 <= centre[1] <= table["depth"] + 1e-3
        assert hexes.label(hexes.cell_at(*centre)) == cell["label"]
    live.stop()


def test_naval_zones_are_eight_bands_across_the_long_side():
    live = _live("pz8-naval")
    grid, table = _info(live)["grid"], _info(live)["table"]
    assert grid["kind"] == "zone" and grid["units"] == "zones"
    assert [c["label"] for c in grid["cells"]] == [f"zone {k}" for k in range(1, 9)]
    long_side = max(table["width"], table["depth"])
    spans = [np.ptp(np.array(c["outline"]), axis=0) for c in grid["cells"]]
    for span in spans:
        assert sorted(span) == pytest.approx(sorted([long_side / 8, min(table.values())]), abs=2e-3)
    live.stop()


@pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))
def test_the_map_draws_the_hex_mat_under_the_pieces():
    live = _live("pz8-space")
    cells = len(_info(live)["grid"]["cells"])
    with dashboard(live) as running, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(running.url)
        page.wait_for_selector("#grid polygon.cell", timeout=45_000)
        assert page.locator("#grid polygon.cell").count() == cells
        assert page.get_attribute("#grid", "data-kind") == "hex"
        # Drawn before (under) the terrain and the pieces.
        order = page.evaluate("[...document.querySelector('#map').children].map((n) => n.id)")
        assert order.index("grid") < order.index("terrain") < order.index("pieces")
        assert not errors, errors
    live.stop()
