"""The club pages draw with the dashboard's own ES modules (issue 38 item 4): the club server
serves its script and the dashboard's modules itself, read-only and as JavaScript, refuses
any other path in one line, and its script imports the dashboard's colours and drawing
rather than keeping a second copy of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from web.modules import module_graph

from referee.club import create_app
from referee.club.pages import map_view
from referee.club.replay import board_at
from referee.club.store import ClubStore

from .helpers import ROSTER, SCENE, move

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "referee" / "web" / "static" / "js"
CLUB_JS = ROOT / "referee" / "club" / "static" / "club.js"


@pytest.fixture
def client(tmp_path):
    with ClubStore(f"sqlite:///{tmp_path / 'club.sqlite'}") as store:
        store.add_table("alpha")
        store.open_game("alpha", "g1", "paper-tigers", SCENE, ROSTER)
        store.ingest("alpha", "g1", [move(1, "t34a", 11.0, 12.0)])
        yield create_app(store).test_client()


def _module_graph(client, page: str) -> dict[str, str]:
    return module_graph(client, page, r'<script type="module"[^>]*\ssrc="([^"]+)"')


@pytest.mark.parametrize("page", ["/", "/games/g1"])
def test_the_club_pages_load_the_dashboards_modules_as_the_club_serves_them(client, page):
    modules = _module_graph(client, page)
    assert {"/static/club.js", "/static/js/colours.js", "/static/js/draw.js"} <= set(modules)
    for url, text in modules.items():
        if url.startswith("/static/js/"):  # the dashboard's own file, byte for byte
            assert text == (SHARED / url.rsplit("/", 1)[1]).read_text(), url
        for scheme in ("http://", "https://", "//cdn", "import("):
            assert scheme not in text.replace("http://www.w3.org/2000/svg", ""), (url, scheme)


def test_the_club_script_imports_the_colours_and_drawing_and_copies_neither():
    text = CLUB_JS.read_text()
    imports = dict(
        (module, set(re.split(r",\s*", names.strip())))
        for names, module in re.findall(r'^import \{([^}]*)\} from "\./js/([^"]+)";', text, re.M)
    )
    assert {"sideColour", "terrainColour"} <= imports["colours.js"]
    assert {"drawBase", "drawCloth", "el", "points"} <= imports["draw.js"]
    shared = re.findall(
        r"^export (?:function|const) (\w+)", (SHARED / "colours.js").read_text(), re.M
    )
    shared += re.findall(
        r"^export (?:function|const) (\w+)", (SHARED / "draw.js").read_text(), re.M
    )
    assert "drawBase" in shared and "sideColour" in shared
    for name in shared:  # none defined again here
        assert not re.search(rf"\b(?:function|const|let|var)\s+{name}\b", text), name
    assert not re.findall(r"#[0-9a-fA-F]{3,8}\b", text)  # no colour of its own: the palette's
    assert "createElementNS" not in text  # nodes come from draw.js's el()


@pytest.mark.parametrize("name", ["club.js", "js/colours.js", "js/draw.js", "js/labels.js"])
def test_the_club_serves_its_script_and_the_dashboards_modules(client, name):
    answer = client.get(f"/static/{name}")
    assert answer.status_code == 200
    assert answer.mimetype == "text/javascript"
    on_disk = CLUB_JS if name == "club.js" else SHARED / name.split("/")[1]
    assert answer.data == on_disk.read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/static/js/../app.js",
        "/static/js/../../club/pages.py",
        "/static/../pages.py",
        "/static/js/%2e%2e/%2e%2e/club/app.py",
        "/static/js/..%2f..%2fclub%2fpages.py",
        "/static/js/nope.js",
        "/static/js/",
        "/static/js/colours.js/",
        "/static/js/COLOURS.JS",
        "/static/style.css",
        "/static/app.js",
        "/static/js/colours.js%00.py",
        "/static/templates/club_base.html",
    ],
)
def test_any_other_static_path_is_a_one_line_404(client, path):
    answer = client.get(path)
    assert answer.status_code == 404, path
    assert answer.mimetype == "text/plain"
    body = answer.get_data(as_text=True)
    assert body.startswith("no such script: ") and body.count("\n") == 1, body
    assert "club.js or js/NAME.js" in body


def test_each_map_carries_the_values_it_was_drawn_from(client):
    page = client.get("/").get_data(as_text=True)
    found = re.findall(r'<script type="application/json" class="board">(.*?)</script>', page)
    assert len(found) == 1
    board = json.loads(found[0])
    piece = next(p for p in board["pieces"] if p["id"] == "t34a")
    assert (piece["x"], piece["y"]) == (11.0, 12.0)
    assert set(board["labels"]) == {p["id"] for p in board["pieces"]}
    svg = page[page.index('<svg class="map"') : page.index("</svg>")]
    assert svg.count('class="piece"') == len(board["pieces"])


def test_a_board_json_cannot_carry_keeps_the_servers_drawing_alone():
    scene = {
        **SCENE,
        "terrain": [{"id": "w", "kind": "woods", "polygon": [[0, 0], [1, "x"], [2, 2]]}],
    }
    view = map_view(board_at(scene, ROSTER, []), {})
    assert view["json"] is None
    board = board_at(SCENE, ROSTER, [])
    nan = type(board.pieces[0])(**{**board.pieces[0].__dict__, "x": float("nan")})
    view = map_view(type(board)(board.width, board.depth, board.terrain, (nan,)), {})
    assert view["json"] is None
    assert map_view(board_at(SCENE, ROSTER, []), {})["json"] is not None
