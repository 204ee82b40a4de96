"""Tagged terrain templates through pose, tracker, session, log and replay (issue 32 item 2).

Detections are made exactly (the tags' corners projected through the camera), so the
test checks what the referee does with them: a template's rest is a logged terrain
``edit`` (``add`` then ``replace``), never a move; hidden, it stays where it was.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.calibration.camera import Intrinsics, TablePose, project, table_xyz
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.game import Session, scene_at
from referee.markers.roster import Roster, RosterEntry, TemplateTag, TerrainTemplate
from referee.scene import Piece, Scene, Table, Terrain
from referee.store import GameLog
from referee.tags.detect import Detections
from referee.tags.layout import TagLayout
from referee.vision import pipeline as pipeline_module
from referee.vision.pipeline import Pipeline
from referee.vision.pose import PoseEstimator
from referee.vision.sources import Frame
from referee.vision.track import PlaceEvent

TABLE = (24.0, 18.0)
INTR = Intrinsics.from_fov((960, 540), 60.0, (-0.2, 0.0, 0.0, 0.0, 0.0))
POSE = TablePose.looking_down((TABLE[0] / 2, TABLE[1] / 2), 24.0, tilt_deg=5.0)
PROFILE = CalibrationProfile(INTR, POSE, TableSize(*TABLE), frame_source="simulated", rms_px=0.1)
WOOD = TerrainTemplate(
    "wood2", "woods", ((-2.0, -1.5), (2.0, -1.5), (2.0, 1.5), (-2.0, 1.5)), (TemplateTag(60),)
)
HILL = TerrainTemplate(
    "hill1",
    "hill",
    ((-4.0, -2.0), (4.0, -2.0), (4.0, 2.0), (-4.0, 2.0)),
    (TemplateTag(61, (-3.0, 0.0), 0.0), TemplateTag(62, (3.0, 0.0), 90.0)),
)
ROSTER = Roster(
    "DICT_4X4_100",
    (
        RosterEntry(10, "t34", "soviet", "tank", (1.5, 3.0)),
        RosterEntry(11, "pz4", "german", "tank", (1.5, 3.0)),
    ),
    (),
    (WOOD, HILL),
)
PIECES = {"t34": (4.0, 9.0, 0.0), "pz4": (20.0, 9.0, 180.0)}
WOOD_A, WOOD_B = (12.0, 3.5, 0.0), (12.5, 9.2, 30.0)  # off the line of sight, then on it
HILL_AT = (12.0, 15.0, 10.0)
DRAWN = Terrain("wood1", "woods", ((1.0, 1.0), (3.0, 1.0), (3.0, 3.0), (1.0, 3.0)))


def _tag_quad(tag: int, x: float, y: float, heading: float, size: float = 0.8) -> np.ndarray:
    return project(INTR, POSE, table_xyz(TagLayout(size).corners(x, y, heading), 0.0))


def _template_tags(template: TerrainTemplate, at: tuple[float, float, float], hide=()):
    x, y, h = at
    r = math.radians(h)
    out = []
    for t in template.tags:
        if t.tag in hide:
            continue
        f, s = t.at
        out.append(
            (t.tag, x + f * math.cos(r) - s * math.sin(r), y + f * math.sin(r) + s * math.cos(r),
             h + t.heading)
        )  # fmt: skip
    return out


def detections(spec: list[tuple[int, float, float, float]]) -> Detections:
    if not spec:
        return Detections.empty()
    return Detections([s[0] for s in spec], np.array([_tag_quad(*s) for s in spec]))


class ScriptedDetector:
    """Stands in for the tag detector: frame i's detections from the script."""

    def __init__(self, script, start=0):
        self.script, self.i = script, start

    def detect(self, image):
        found = self.script(self.i)
        self.i += 1
        return found

    def reset(self):
        pass

    def request_full_pass(self):
        pass


def game_script(i: int) -> Detections:
    """Frames 0-29 all at rest; 30-49 a hand over the wood (its tag hidden) and the hill's
    tag 61 hidden (62 still places it); 50-59 the wood lifted; from 60 the wood at B."""
    spec = [(10, *PIECES["t34"]), (11, *PIECES["pz4"])]
    spec += _template_tags(HILL, HILL_AT, hide=(61,) if 30 <= i < 50 else ())
    if i < 30:
        spec += _template_tags(WOOD, WOOD_A)
    elif i >= 60:
        spec += _template_tags(WOOD, WOOD_B)
    return detections(spec)


def frames(n: int) -> list[Frame]:
    image = np.zeros((540, 960, 3), np.uint8)
    return [Frame(i, i / 30, image) for i in range(n)]


def scripted_pipeline(script, first=0) -> Pipeline:
    """A real pipeline (pose, tracker) whose detector reads the script instead of pixels."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            pipeline_module, "TagDetector", lambda *a, **k: ScriptedDetector(script, first)
        )
        return Pipeline(PROFILE, ROSTER)


def start(tmp_path, script=game_script, first=0):
    pipeline = scripted_pipeline(script, first)
    pieces = tuple(
        Piece(e.id, e.side, e.kind, *PIECES[e.id][:2], PIECES[e.id][2], e.base) for e in ROSTER
    )
    scene = Scene(
        "paper-tigers",
        Table(*TABLE),
        pieces,
        (DRAWN,),
        ({"ask": "los", "from": "t34", "to": "pz4"},),
    )
    log = GameLog(tmp_path / "games.sqlite")
    return Session.start(pipeline, scene, log=log, game="g"), log


def _max_vertex_error(polygon, template, at) -> float:
    truth = template.placed(*at)
    return max(math.hypot(a[0] - b[0], a[1] - b[1]) for a, b in zip(polygon, truth, strict=True))


def test_one_tag_gives_the_template_pose_and_several_are_fitted_together():
    poses = PoseEstimator(PROFILE, ROSTER)
    found = poses.estimate(detections(_template_tags(WOOD, WOOD_B) + _template_tags(HILL, HILL_AT)))
    by_id = {p.id: p for p in found.pieces}
    assert set(by_id) == {"wood2", "hill1"} and found.unknown == ()
    for template, at in ((WOOD, WOOD_B), (HILL, HILL_AT)):
        p = by_id[template.id]
        assert math.hypot(p.x - at[0], p.y - at[1]) < 0.01
        assert abs((p.heading - at[2] + 180) % 360 - 180) < 0.2
        assert 0 < p.uncertainty < 0.05
    # Either of the hill's tags alone places it too, from its own place on the template.
    for hide in (61, 62):
        (alone,) = poses.estimate(detections(_template_tags(HILL, HILL_AT, hide=(hide,)))).pieces
        assert _max_vertex_error(HILL.placed(alone.x, alone.y, alone.heading), HILL, HILL_AT) < 0.05


def test_a_template_moved_mid_game_is_one_replace_edit_and_no_move(tmp_path):
    session, log = start(tmp_path)
    hidden_at = {}
    updates = []
    for frame in frames(90):
        updates.append(session.process(frame))
        hidden_at[frame.index] = session.hidden_terrain
    events = [e for u in updates for e in u.events]
    assert not [e for e in events if e.type == "move"]
    assert not [e for u in updates for e in u.result.events if e.kind == "move"]
    edits = [e for e in events if e.type == "edit"]
    assert [(e.data["action"], e.data["terrain"]["id"]) for e in edits] == [
        ("add", "wood2"),
        ("add", "hill1"),
        ("replace", "wood2"),
    ]
    assert _max_vertex_error(edits[0].data["terrain"]["polygon"], WOOD, WOOD_A) < 0.05
    assert _max_vertex_error(edits[1].data["terrain"]["polygon"], HILL, HILL_AT) < 0.05
    moved = edits[2]
    assert moved.data["terrain"]["kind"] == "woods"
    assert _max_vertex_error(moved.data["terrain"]["polygon"], WOOD, WOOD_B) < 0.05
    assert moved.data["template"]["tag"] == 60
    # The hand over the wood: it stays where it was, and says so; the hill is still seen.
    assert hidden_at[40] == {"wood2"} and hidden_at[20] == frozenset() == hidden_at[89]
    # The standing line of sight was asked again when the wood came between the tanks.
    answers = [e for e in events if e.type == "verdict" and "question" in e.data]
    assert answers[-1].seq > moved.seq
    assert answers[-1].data["verdict"]["los"] != answers[0].data["verdict"]["los"]
    # The hand-drawn wood is untouched beside the templates.
    terrain = {t.id: t for t in session.scene.terrain}
    assert terrain["wood1"] == DRAWN
    assert _max_vertex_error(terrain["wood2"].polygon, WOOD, WOOD_B) < 0.05
    # What was logged is what a replay shows, at the end and before the move.
    (game,) = log.games()
    replayed, _ = scene_at(log, game)
    assert {t.id: t for t in replayed.terrain} == terrain
    before, _ = scene_at(log, game, seq=moved.seq - 1)
    wood_before = next(t for t in before.terrain if t.id == "wood2")
    assert _max_vertex_error(wood_before.polygon, WOOD, WOOD_A) < 0.05
    assert {p.id for p in replayed} == {"t34", "pz4"}  # a template is no piece
    session.close()


def test_a_template_put_back_where_it_was_is_no_edit(tmp_path):
    def script(i):
        spec = [(10, *PIECES["t34"]), (11, *PIECES["pz4"])]
        if not 20 <= i < 40:
            spec += _template_tags(WOOD, WOOD_A)
        return detections(spec)

    session, _ = start(tmp_path, script)
    events = [e for f in frames(60) for e in session.process(f).events]
    assert [e.data["action"] for e in events if e.type == "edit"] == ["add"]
    session.close()


def test_a_resumed_game_keeps_its_templates_without_logging_them_again(tmp_path):
    session, _ = start(tmp_path)
    for frame in frames(90):
        session.process(frame)
    session.close()
    session, _ = start(tmp_path, first=90)
    assert session.resumed
    assert {t.id for t in session.scene.terrain} == {"wood1", "wood2", "hill1"}
    later = [Frame(i, i / 30, f.image) for i, f in enumerate(frames(30), start=90)]
    events = [e for f in later for e in session.process(f).events]
    assert not [e for e in events if e.type in ("edit", "move")]
    assert session.hidden_terrain == frozenset()
    session.close()


@pytest.mark.parametrize("hide", [(60,), ()])
def test_the_tracker_places_a_template_with_a_place_event(hide):
    pipeline = scripted_pipeline(
        lambda i: detections(_template_tags(WOOD, WOOD_A, hide=hide if i >= 10 else ()))
    )
    events = [e for f in frames(20) for e in pipeline.process(f).events]
    (placed,) = [e for e in events if isinstance(e, PlaceEvent)]
    assert placed.first and placed.template == "wood2"
    assert placed.to_json()["event"] == "place"


def test_the_dashboard_is_told_a_covered_template_is_hidden(tmp_path):
    from referee.game.live import LiveTable
    from referee.game.views import frame_json
    from referee.web import create_app

    session, log = start(tmp_path)
    session.close()
    pipeline = scripted_pipeline(game_script)
    live = LiveTable(pipeline, session.initial_scene, log=log, game="web")
    for frame in frames(40):
        live.session.process(frame)
    client = create_app(live, {"TESTING": True}).test_client()
    terrain = {t["id"]: t for t in client.get("/api/state").get_json()["terrain"]}
    assert terrain["wood2"]["hidden"] is True
    assert "hidden" not in terrain["hill1"] and "hidden" not in terrain["wood1"]
    message = frame_json(live.session.latest, live.view)
    assert {p["id"] for p in message["pieces"]} == {"t34", "pz4"}
    assert message["templates"] == [
        {"id": "wood2", "hidden": True},
        {"id": "hill1", "hidden": False},
    ]
    kinds = {t["tag"]: (t["kind"], t["label"]) for t in message["tags"]}
    assert kinds[62] == ("terrain", "hill1")
    live.session.close()


def test_a_rendered_template_moved_mid_game_is_one_replace_within_005_in(tmp_path):
    """The same through the real detector on rendered frames: the wood's tag printed flat,
    seen by the camera, lifted away, and laid down elsewhere turned."""
    from referee.sim.render import PiecePose as SimPose
    from referee.sim.render import TableRenderer

    paper = RosterEntry(60, "paper60", "paper", "terrain", (1.1, 1.1))  # the printed tag
    renderer = TableRenderer(INTR, POSE, TableSize(*TABLE), (paper,))
    wood_a, wood_b = (8.0, 5.0, 20.0), (15.0, 12.0, 200.0)
    pictures = {at: renderer.render({"paper60": SimPose(*at)})[0] for at in (wood_a, wood_b)}
    empty = renderer.render({})[0]
    roster = Roster("DICT_4X4_100", (), (), (WOOD,))
    session = Session.start(Pipeline(PROFILE, roster), Scene("paper-tigers", Table(*TABLE)))
    script = [pictures[wood_a]] * 12 + [empty] * 4 + [pictures[wood_b]] * 12
    events = [
        e for i, image in enumerate(script) for e in session.process(Frame(i, i / 15, image)).events
    ]
    assert not [e for e in events if e.type == "move"]
    edits = [e for e in events if e.type == "edit"]
    assert [e.data["action"] for e in edits] == ["add", "replace"]
    assert _max_vertex_error(edits[0].data["terrain"]["polygon"], WOOD, wood_a) < 0.05
    assert _max_vertex_error(edits[1].data["terrain"]["polygon"], WOOD, wood_b) < 0.05
    session.close()


def test_run_prints_a_line_when_a_template_is_placed_and_when_it_is_moved(tmp_path):
    """``referee run`` tells the players the terrain changed, as it tells them of a move."""
    import cv2
    from click.testing import CliRunner

    from referee.cli import cli
    from referee.sim.render import PiecePose as SimPose
    from referee.sim.render import TableRenderer

    paper = RosterEntry(60, "paper60", "paper", "terrain", (1.1, 1.1))
    renderer = TableRenderer(INTR, POSE, TableSize(*TABLE), (paper,))
    wood_a, wood_b = (8.0, 5.0, 20.0), (15.0, 12.0, 200.0)
    pictures = {at: renderer.render({"paper60": SimPose(*at)})[0] for at in (wood_a, wood_b)}
    clip = tmp_path / "clip"
    clip.mkdir()
    script = [pictures[wood_a]] * 12 + [renderer.render({})[0]] * 4 + [pictures[wood_b]] * 12
    for i, image in enumerate(script):
        cv2.imwrite(str(clip / f"frame{i:04d}.png"), image)
    PROFILE.save(tmp_path / "camera.json")
    Roster("DICT_4X4_100", ROSTER.pieces, (), (WOOD,)).save(tmp_path / "roster.json")
    args = ["run", "--video", str(clip), "-c", str(tmp_path / "camera.json")]
    args += ["-r", str(tmp_path / "roster.json"), "--no-log", "-q"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if "terrain wood2" in line]
    assert len(lines) == 2, result.stdout
    assert "terrain wood2 (woods) placed at (8.0" in lines[0] and "facing 20" in lines[0]
    assert "terrain wood2 (woods) moved to" not in lines[0]
    assert "terrain wood2 (woods) moved to (15.0" in lines[1] and "facing 200" in lines[1]
