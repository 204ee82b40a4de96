"""Several cameras and tagged terrain templates in the simulator, and the club sample's files."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from referee.calibration.profile import TableSize
from referee.sim.scenario import ScenarioError, load_scenario, parse_scenario, table_anchors
from referee.sim.video import calibration_views, seen_region, simulate

ROOT = Path(__file__).resolve().parents[2]
CLUB = ROOT / "sample_footage" / "club.scenario.json"
CLUB_OUT = ROOT / "sample_footage" / "club"

LENS = {"resolution": [480, 320], "fov": 70, "height": 20, "distortion": [-0.1, 0, 0, 0, 0]}

TWO = {
    "table": {"width": 52, "depth": 24},
    "pieces": [
        {"id": "a", "side": "soviet", "kind": "tank", "x": 10, "y": 12, "heading": 0,
         "base": [1.5, 3.0], "tag": 1, "tag_height": 0.9},
        {"id": "b", "side": "german", "kind": "infantry", "x": 40, "y": 12, "heading": 180,
         "base": [2.0, 1.0], "tag": 2},
    ],
    "templates": [
        {"id": "wood", "terrain": "woods", "tag": 60, "x": 14, "y": 6, "heading": 90,
         "outline": [[-3, -2], [3, -2], [3, 2], [-3, 2]]},
        {"id": "hill", "terrain": "hill", "x": 36, "y": 18, "heading": 0,
         "tags": [{"tag": 61, "at": [-3, 0], "heading": 0},
                  {"tag": 62, "at": [3, 0], "heading": 180}],
         "outline": [[-5, -3], [5, -3], [5, 3], [-5, 3]]},
    ],
    "cameras": [
        {**LENS, "target": [14, 12], "yaw": 90},
        {**LENS, "target": [38, 12], "yaw": 270, "imaging": {"noise": 0, "blur": 0}},
    ],
    "fps": 10,
    "duration": 4,
    "imaging": {"blur": 0, "noise": 0, "vignetting": 0, "light": 0, "motion_blur": False},
    "calibration": {"views": 2},
    "timeline": [
        {"t": 0.5, "move": "a", "to": {"x": 30, "y": 12, "heading": 0}, "duration": 1.5},
        {"t": 1.0, "move": "wood", "to": {"x": 16, "y": 7, "heading": 120}, "duration": 1.0},
        {"t": 2.6, "move": "b", "to": {"x": 36, "y": 18, "heading": 180}, "duration": 0.8},
        {"t": 3.0, "bump": {"camera": 2, "yaw_deg": 1.0}},
    ],
}  # fmt: skip


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_six_anchors_on_a_table_longer_than_48_in() -> None:
    anchors = table_anchors("DICT_4X4_100", TableSize(72, 48))
    assert [(a.tag, a.x, a.y) for a in anchors] == [
        (96, 1.5, 1.5),
        (97, 70.5, 1.5),
        (98, 70.5, 46.5),
        (99, 1.5, 46.5),
        (94, 36.0, 1.5),
        (95, 36.0, 46.5),
    ]
    deep = table_anchors("DICT_4X4_100", TableSize(48, 60))
    assert [(a.tag, a.x, a.y) for a in deep[4:]] == [(94, 1.5, 30.0), (95, 46.5, 30.0)]
    assert len(table_anchors("DICT_4X4_100", TableSize(48, 36))) == 4


def test_two_cameras_write_numbered_files_with_their_own_truth(tmp_path: Path) -> None:
    result = simulate(parse_scenario(TWO), tmp_path, max_frames=3, progress=False)
    names = {p.name for p in tmp_path.iterdir()}
    assert {
        "video-1.mp4", "video-2.mp4", "calibration-1.mp4", "calibration-2.mp4",
        "camera-1.json", "camera-2.json", "truth-1.jsonl", "truth-2.jsonl",
        "roster.json", "scene.json", "truth-moves.json", "truth-terrain.json",
    } <= names  # fmt: skip
    assert "video.mp4" not in names and result.frames == 3
    one, two = _lines(tmp_path / "truth-1.jsonl"), _lines(tmp_path / "truth-2.jsonl")
    assert len(one) == len(two) == 40
    # Same instants, same poses; each camera has its own pixels.
    a1 = next(p for p in one[10]["pieces"] if p["id"] == "a")
    a2 = next(p for p in two[10]["pieces"] if p["id"] == "a")
    assert one[10]["t"] == two[10]["t"] and (a1["x"], a1["y"]) == (a2["x"], a2["y"])
    assert a1["corners_px"] != a2["corners_px"]
    # The piece carried from x=10 to x=30 starts in camera 1's view only, ends in camera 2's.
    start1 = next(p for p in one[0]["pieces"] if p["id"] == "a")
    start2 = next(p for p in two[0]["pieces"] if p["id"] == "a")
    assert start1["visible"] and not start2["in_view"]
    end1 = next(p for p in one[25]["pieces"] if p["id"] == "a")
    end2 = next(p for p in two[25]["pieces"] if p["id"] == "a")
    assert end2["visible"] and not end1["in_view"]
    # The bump knocks camera 2 only.
    assert "camera_bump" not in one[35] and two[35]["camera_bump"] == {"yaw_deg": 1.0}
    profiles = [json.loads((tmp_path / f"camera-{i}.json").read_text()) for i in (1, 2)]
    assert profiles[0] != profiles[1] and all(p["frame_source"] == "simulated" for p in profiles)
    moves = json.loads((tmp_path / "truth-moves.json").read_text())["moves"]
    assert [m["piece"] for m in moves] == ["a", "b"]  # the template's move is terrain truth


def test_templates_are_roster_entries_and_terrain_truth(tmp_path: Path) -> None:
    simulate(parse_scenario(TWO), tmp_path, video=False, progress=False)
    roster = json.loads((tmp_path / "roster.json").read_text())
    terrain = [e for e in roster["pieces"] if "terrain" in e]
    assert terrain[0] == {
        "tag": 60, "id": "wood", "terrain": "woods",
        "outline": [[-3.0, -2.0], [3.0, -2.0], [3.0, 2.0], [-3.0, 2.0]],
        "tag_size": 0.8, "tag_height": 0.0,
    }  # fmt: skip
    assert terrain[1]["tags"] == [
        {"tag": 61, "at": [-3.0, 0.0], "heading": 0.0},
        {"tag": 62, "at": [3.0, 0.0], "heading": 180.0},
    ]
    scene = json.loads((tmp_path / "scene.json").read_text())
    assert scene.get("terrain", []) == []  # templates come from the camera, not the scene
    truth = json.loads((tmp_path / "truth-terrain.json").read_text())
    wood, hill = truth["templates"]
    assert wood["placements"] == [
        {"x": 14.0, "y": 6.0, "heading": 90.0, "start_frame": 0, "end_frame": 0},
        {"x": 16.0, "y": 7.0, "heading": 120.0, "start_frame": 11, "end_frame": 20},
    ]
    assert len(hill["placements"]) == 1
    lines = _lines(tmp_path / "truth-1.jsonl")
    before = next(t for t in lines[0]["templates"] if t["id"] == "wood")
    during = next(t for t in lines[15]["templates"] if t["id"] == "wood")
    assert before["moving"] is False and during["moving"] is True
    assert 14 < during["x"] < 16
    # Piece b ends standing on the hill between its two tags (x = 33 and 39): both seen.
    cam2 = _lines(tmp_path / "truth-2.jsonl")
    hill_tags = next(t for t in cam2[-1]["templates"] if t["id"] == "hill")["tags"]
    assert [t["tag"] for t in hill_tags] == [61, 62]
    assert hill_tags[0]["visible"] and hill_tags[1]["visible"]


def test_a_piece_standing_on_a_template_tag_covers_it(tmp_path: Path) -> None:
    data = copy.deepcopy(TWO)
    data["timeline"][2]["to"] = {"x": 33, "y": 18, "heading": 90}
    simulate(parse_scenario(data), tmp_path, video=False, progress=False)
    cam2 = _lines(tmp_path / "truth-2.jsonl")
    first, last = (
        next(t for t in cam2[i]["templates"] if t["id"] == "hill")["tags"] for i in (0, -1)
    )
    assert first[0]["visible"] and first[0]["covered"] == 0
    assert last[0]["covered"] > 0.9 and not last[0]["visible"]


def test_template_tags_are_drawn_where_the_truth_says() -> None:
    """Corners of a template's tags, found by the detector in a clean frame, match the truth."""
    from referee.sim.video import _Renderers
    from referee.tags.detect import TagDetector

    scenario = parse_scenario(TWO)
    renderers = _Renderers(scenario, 1)
    state = scenario.state_at(0.0)
    renderer = renderers.get({})
    frame, _ = renderer.render(state.poses, (), templates=state.templates)
    truth = renderer.template_truth(state.templates, state.poses)["hill"]
    found = TagDetector("DICT_4X4_100").detect_full(frame)
    for place, tag in zip(scenario.templates[1].paper.tags, truth, strict=True):
        assert tag.visible
        (corners,) = found.corners_px[found.ids == place.tag]
        assert np.abs(corners - tag.corners_px).max() < 0.5


def test_each_camera_holds_its_board_under_itself() -> None:
    scenario = parse_scenario(TWO)
    for camera in (0, 1):
        x0, _, x1, _ = seen_region(scenario, camera)
        views = calibration_views(scenario, camera)
        flat = views[-1][1]
        assert all(v[1].tvec[2] < 0 for v in views[:-2])  # held above the table
        centres = [v[1].tvec[0] for v in views]
        assert x0 - 8 < min(centres) and max(centres) < x1
        assert flat.tvec[2] == 0.0
    assert seen_region(scenario, 0)[2] < seen_region(scenario, 1)[0]  # apart: no overlap here


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(camera=LENS), '$.camera: give "camera" or "cameras", not both'),
        (lambda d: d.update(cameras=[]), "$.cameras: needs at least one camera"),
        (lambda d: d["cameras"][1].update(lens=3), "$.cameras[1].lens: unknown camera field"),
        (lambda d: d["cameras"][0].update(fov=200), "$.cameras[0].fov: must be under 170"),
        (lambda d: d["cameras"][1]["imaging"].update(grain=1), "$.cameras[1].imaging.grain"),
        (lambda d: d["timeline"][3]["bump"].update(camera=3), "bump.camera: must be a camera"),
        (lambda d: d["templates"][0].pop("outline"), "$.templates[0].outline: missing"),
        (
            lambda d: d["templates"][0].update(outline=[[0, 0], [2, 2], [2, 0], [0, 2]]),
            "$.templates[0].outline: needs 3 or more points that do not cross",
        ),
        (lambda d: d["templates"][0].update(terrain="lava"), "unknown terrain kind 'lava'"),
        (lambda d: d["templates"][0].update(tag=61), "tag 61 is already on template 'wood'"),
        (lambda d: d["templates"][0].update(tag=1), "tag 1 is already on piece 'a'"),
        (lambda d: d["templates"][0].update(tag=96), "tag 96 is already on an anchor"),
        (lambda d: d["templates"][0].update(id="a"), "$.templates[0].id: id 'a' is already"),
        (lambda d: d["templates"][0].update(tags=[]), 'give "tag" (one) or "tags"'),
        (lambda d: d["templates"][1].update(tags=[]), "$.templates[1].tags: needs at least one"),
        (lambda d: d["templates"][1].update(x=99), "$.templates[1]: (99, 18) is off the"),
        (lambda d: d["pieces"][0].update(fields=[1]), "$.pieces[0].fields: must be an object"),
    ],
)
def test_bad_cameras_and_templates_name_the_json_path(change, message: str) -> None:
    data = copy.deepcopy(TWO)
    change(data)
    with pytest.raises(ScenarioError) as error:
        parse_scenario(data, "s.json")
    assert str(error.value).startswith("s.json: ")
    assert message in str(error.value)


def test_club_scenario_is_the_game_the_issue_asks_for() -> None:
    scenario = load_scenario(CLUB)
    assert scenario.scene.ruleset == "pz8-ww2"
    assert (scenario.table.width, scenario.table.depth) == (72, 48)
    assert len(scenario.scene.pieces) >= 24 and len(scenario.templates) >= 3
    assert any(len(t.paper.tags) == 2 for t in scenario.templates)
    assert all(c.intrinsics.image_size == (1920, 1080) for c in scenario.all_cameras)
    assert len(scenario.all_cameras) == 2
    assert len(scenario.roster.anchors) == 6
    papers = {t.paper.id for t in scenario.templates}
    assert any(m.piece in papers for m in scenario.moves)  # a template moved mid-game
    assert any(not m.hand for m in scenario.moves)  # a piece knocked, no hand carrying it
    assert scenario.hands  # a hand reaching in
    assert any(t.kind == "road" for t in scenario.scene.terrain)
    regions = [seen_region(scenario, i) for i in (0, 1)]
    assert regions[0][2] - regions[1][0] >= 6  # the views overlap by 6 in or more
    seam = (regions[0][2] + regions[1][0]) / 2
    starts = scenario.start_poses()
    crossing = [
        m
        for m in scenario.moves
        if m.piece in starts and (starts[m.piece].x - seam) * (m.to.x - seam) < 0
    ]
    assert len(crossing) >= 2
    for piece in scenario.roster.pieces:
        assert piece.tag_size == 0.8 and piece.tag not in {a.tag for a in scenario.roster.anchors}
    tanks = [p for p in scenario.roster.pieces if p.kind.endswith(" tank")]
    assert tanks and all(p.tag_height > 0 for p in tanks)
    assert math.isclose(scenario.fps, 12)


@pytest.mark.skipif(not CLUB_OUT.exists(), reason="club footage not generated")
def test_committed_club_videos_match_truth_and_stay_small() -> None:
    import cv2

    for i in (1, 2):
        frames = len((CLUB_OUT / f"truth-{i}.jsonl").read_text().splitlines())
        video = cv2.VideoCapture(str(CLUB_OUT / f"video-{i}.mp4"))
        assert int(video.get(cv2.CAP_PROP_FRAME_COUNT)) == frames
        assert (video.get(cv2.CAP_PROP_FRAME_WIDTH), video.get(cv2.CAP_PROP_FRAME_HEIGHT)) == (
            1920,
            1080,
        )
        video.release()
    total = sum(f.stat().st_size for f in CLUB_OUT.iterdir())
    assert total < 25 * 1024 * 1024


@pytest.mark.slow  # two 1080p backgrounds and a frame of each clip: ~15 s of CPU
@pytest.mark.skipif(not CLUB_OUT.exists(), reason="club footage not generated")
def test_committed_club_clips_start_as_the_command_renders_them(tmp_path: Path) -> None:
    """The first frame of each committed club clip decodes to what the renderer makes today."""
    import cv2

    simulate(load_scenario(CLUB), tmp_path, max_frames=1, progress=False)
    for name in ("video-1.mp4", "video-2.mp4", "calibration-1.mp4", "calibration-2.mp4"):
        fresh, committed = (
            cv2.VideoCapture(str(tmp_path / name)),
            cv2.VideoCapture(str(CLUB_OUT / name)),
        )
        ok_fresh, a = fresh.read()
        ok_committed, b = committed.read()
        assert ok_fresh and ok_committed, name
        # Equal with this OpenCV; a few grey levels of slack for another codec build.
        assert np.abs(a.astype(np.int16) - b).max() <= 3, name


def test_one_camera_keeps_todays_names_with_templates(tmp_path: Path) -> None:
    data = copy.deepcopy(TWO)
    data["camera"] = {**LENS, "height": 40, "yaw": 0}
    del data["cameras"]
    data["timeline"] = data["timeline"][:3]
    simulate(parse_scenario(data), tmp_path, max_frames=2, progress=False)
    names = {p.name for p in tmp_path.iterdir()}
    assert {"video.mp4", "calibration.mp4", "camera.json", "truth.jsonl"} <= names
    assert "truth-terrain.json" in names and "video-1.mp4" not in names
    first = _lines(tmp_path / "truth.jsonl")[0]
    assert [t["id"] for t in first["templates"]] == ["wood", "hill"]


@pytest.mark.slow  # calibrates two cameras and referees 414 frame sets: ~30 s on 2 cores
@pytest.mark.skipif(not CLUB_OUT.exists(), reason="club footage not generated")
def test_club_demo_finds_every_move_and_places_the_terrain() -> None:
    """Issue 32's check: ``referee demo --footage sample_footage/club --no-log``."""
    import re

    from click.testing import CliRunner

    from referee.cli import cli

    result = CliRunner().invoke(cli, ["demo", "--footage", str(CLUB_OUT), "--no-log"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.count("calibrated: reprojection RMS") == 2  # each camera from its own clip
    truth = json.loads((CLUB_OUT / "truth-moves.json").read_text())["moves"]
    # Every move printed with its verdict, in the order they were made.
    printed = re.findall(r"^\s+[\d.]+s  (\S+) moved [\d.]+in .*: (ok|NOT OK|too close)", out, re.M)
    assert [piece for piece, _ in printed] == [m["piece"] for m in truth]
    n = len(truth)
    assert f"accuracy vs truth-moves.json: {n} of {n} true moves found, 0 extra" in out
    error = re.search(r"move distance error: mean ([\d.]+)in, max ([\d.]+)in", out)
    assert error is not None and float(error.group(2)) <= 0.03
    placement = re.search(r"terrain placement error: max ([\d.]+)in", out)
    assert placement is not None and float(placement.group(1)) <= 0.05
