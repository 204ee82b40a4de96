"""Several cameras over one table: fusion, frame matching, handover, a dropped camera,
and the six-anchor table located by a camera that sees four of them."""

from __future__ import annotations

import math

import numpy as np
import pytest
import twocam_vision as tv

from referee.calibration.camera import pixels_to_table, project, table_xyz
from referee.calibration.table import locate_table
from referee.tags.detect import TagDetector
from referee.vision.fusion import FusionSettings, combine, fuse
from referee.vision.pipeline import Pipeline
from referee.vision.pose import PiecePose
from referee.vision.sources import Frame, match_frames
from referee.vision.track import FlagEvent, MoveEvent

# -- fusion -----------------------------------------------------------------------------------


def test_two_views_fuse_to_one_pose_between_them_weighted_by_doubt():
    a = PiecePose("t34", 10, 20.0, 10.0, 90.0, 0.02)  # the sharper view
    b = PiecePose("t34", 10, 20.06, 10.0, 92.0, 0.04)  # twice the doubt: a quarter the weight
    fused = fuse([[a], [b]])
    assert len(fused.pieces) == 1 and not fused.dropped
    pose = fused.pieces[0]
    assert pose.x == pytest.approx(20.0 + 0.06 * 1 / 5)
    assert pose.heading == pytest.approx(90.0 + 2.0 / 5, abs=0.01)
    # The fused doubt is smaller than either view's: 1/sigma^2 adds up.
    assert pose.uncertainty == pytest.approx(2.0 / math.sqrt(1 / 0.01**2 + 1 / 0.02**2))
    assert pose.uncertainty < a.uncertainty


def test_headings_either_side_of_zero_average_by_the_circle():
    a = PiecePose("t34", 10, 5.0, 5.0, 358.0, 0.03)
    b = PiecePose("t34", 10, 5.0, 5.0, 4.0, 0.03)
    assert combine([a, b]).heading == pytest.approx(1.0)


def test_a_view_far_outside_the_doubts_is_dropped_not_averaged():
    good = PiecePose("sq1", 11, 30.0, 12.0, 0.0, 0.02)
    wrong = PiecePose("sq1", 11, 30.5, 12.0, 0.0, 0.04)  # 0.5 in off: a bumped camera
    fused = fuse([[good], [wrong]])
    assert [(p.x, p.y) for p in fused.pieces] == [(30.0, 12.0)]
    assert [(d.camera, d.id) for d in fused.dropped] == [(1, "sq1")]
    assert fused.dropped[0].distance == pytest.approx(0.5)
    # Three views: the odd one out goes, whichever is the more certain.
    third = PiecePose("sq1", 11, 30.01, 12.0, 0.0, 0.03)
    sharp_but_wrong = PiecePose("sq1", 11, 31.0, 12.0, 0.0, 0.01)
    fused = fuse([[good], [sharp_but_wrong], [third]])
    assert fused.pieces[0].x == pytest.approx(
        30.0 + 0.01 * (1 / 0.015**2) / (1 / 0.01**2 + 1 / 0.015**2)
    )
    assert [d.camera for d in fused.dropped] == [1]


def test_a_heading_read_turned_is_dropped_and_views_within_their_doubts_are_kept():
    a = PiecePose("t34", 10, 5.0, 5.0, 0.0, 0.02)
    turned = PiecePose("t34", 10, 5.0, 5.0, 90.0, 0.02)
    assert len(fuse([[a], [turned]]).dropped) == 1
    near = PiecePose("t34", 10, 5.03, 5.0, 1.0, 0.02)  # 0.03 in apart: within doubt
    assert not fuse([[a], [near]]).dropped
    assert fuse([[a], [near]], FusionSettings(reject_sigmas=1.0)).dropped


def test_one_camera_seeing_two_copies_of_a_tag_passes_both_to_the_tracker():
    a1 = PiecePose("t34", 10, 5.0, 5.0, 0.0, 0.02)
    a2 = PiecePose("t34", 10, 20.0, 5.0, 0.0, 0.02)
    b = PiecePose("pz4", 12, 40.0, 5.0, 0.0, 0.02)
    fused = fuse([[a1, a2], [b]])
    assert sorted((p.id, p.x) for p in fused.pieces) == [("pz4", 40.0), ("t34", 5.0), ("t34", 20.0)]


# -- frame matching ---------------------------------------------------------------------------


def _frames(times, name):
    image = np.zeros((2, 2, 3), np.uint8)
    image[0, 0, 0] = name
    return [Frame(i, t, image) for i, t in enumerate(times)]


def test_frame_sets_hold_each_cameras_latest_frame_within_half_a_period():
    period = 1 / 12
    cam1 = _frames([k * period for k in range(6)], 1)
    # Camera 2 starts 20 ms late, misses its frame 3, and its file ends after frame 4.
    cam2 = _frames([0.02 + k * period for k in (0, 1, 2, 4)], 2)
    sets = list(match_frames([cam1, cam2], period))
    assert [s.index for s in sets] == list(range(6))
    assert [round(s.t, 4) for s in sets] == [round(k * period, 4) for k in range(6)]
    pairs = [tuple(None if v is None else v.index for v in s.views) for s in sets]
    assert pairs == [(0, 0), (1, 1), (2, 2), (3, None), (4, 3), (5, None)]
    assert all(s.image is s.views[0].image for s in sets)


def test_a_slower_camera_gives_every_other_tick_and_a_burst_gives_its_latest_frame():
    slow = _frames([0.0, 0.1, 0.2], 1)
    fast = _frames([0.0, 0.05, 0.1, 0.104, 0.15, 0.2, 0.25, 0.3], 2)  # 0.104: a late duplicate
    sets = list(match_frames([slow, fast], 0.05))
    got = [(round(s.t, 3), *(None if v is None else round(v.t, 3) for v in s.views)) for s in sets]
    assert got == [
        (0.0, 0.0, 0.0),
        (0.05, None, 0.05),
        (0.1, 0.1, 0.104),  # both 0.1 and 0.104 are within 0.025 of the tick: the latest counts
        (0.15, None, 0.15),
        (0.2, 0.2, 0.2),
        (0.25, None, 0.25),  # camera 1 ended: camera 2 goes on alone
        (0.3, None, 0.3),
    ]


# -- the pipeline with two cameras -------------------------------------------------------------


def _pipeline() -> Pipeline:
    return Pipeline(tv.profiles(), tv.roster(), source_name=("cam1", "cam2"))


def test_a_piece_in_the_overlap_is_one_piece_between_both_views():
    pipeline = _pipeline()
    place = {"sq1": (28.0, 12.0, 30.0)}
    results = [pipeline.process(tv.frame_set(k, place)) for k in range(10)]
    last = results[-1]
    assert [len(v.pieces) for v in last.views] == [1, 1]
    assert [p.pose.id for p in last.tracks.pieces] == ["sq1"]
    pose = last.tracks.pieces[0].pose
    assert math.hypot(pose.x - 28.0, pose.y - 12.0) < 0.03
    assert last.tracks.pieces[0].state == "settled"
    flags = [e for r in results for e in r.events if isinstance(e, FlagEvent)]
    assert not flags and not any(r.dropped for r in results)
    # Both cameras report their detections and profiles for the annotated video and panel.
    assert [v.camera for v in last.views] == [0, 1]
    assert last.views[1].profile is pipeline.cameras[1].profile
    assert last.image is last.views[0].image


def test_poses_handed_over_across_the_seam_make_one_track_and_one_move():
    # The fusion and tracker stages alone, on poses: camera 1 sees x < 35, camera 2 x > 21,
    # and camera 2's calibration is 0.01 in off camera 1's (two real profiles never agree).
    from referee.tags.detect import Detections
    from referee.vision.pose import FramePoses
    from referee.vision.track import Tracker

    tracker = Tracker(tv.roster())
    events = []
    for k, place in enumerate(tv.carried(8.0, 47.0, 12.0, rest=12, moving=60)):
        x, y, h = place
        views = [
            [PiecePose("t34", 10, x, y, h, 0.02)] if x < 35 else [],
            [PiecePose("t34", 10, x + 0.01, y, h, 0.02)] if x > 21 else [],
        ]
        fused = fuse(views)
        state = tracker.update(k, k / 12, FramePoses(fused.pieces, Detections.empty(), ()))
        events.extend(state.events)
        assert len(state.pieces) == 1 and not fused.dropped
    moves = [e for e in events if isinstance(e, MoveEvent)]
    assert [m.piece for m in moves] == ["t34"] and not [
        e for e in events if isinstance(e, FlagEvent)
    ]
    assert moves[0].front_distance == pytest.approx(39.01, abs=0.005)


@pytest.mark.slow
def test_a_piece_carried_across_the_seam_is_one_move_of_the_right_length():
    pipeline = _pipeline()
    # Carried at 0.65 in a frame (8 in/s at 12 fps), rendered by both cameras.
    path = tv.carried(8.0, 47.0, 12.0, rest=12, moving=60)
    events = []
    seen_both = 0
    for k, place in enumerate(path):
        result = pipeline.process(tv.frame_set(k, {"t34": place, "pz4": (46.0, 4.0, 180.0)}))
        events.extend(result.events)
        seen_both += [len(v.pieces) for v in result.views].count(0) == 0 and all(
            any(p.id == "t34" for p in v.pieces) for v in result.views
        )
        # Never two t34 tracks, never a lost one, whichever camera sees it.
        assert [p.pose.id for p in result.tracks.pieces].count("t34") == 1
    moves = [e for e in events if isinstance(e, MoveEvent)]
    assert [m.piece for m in moves] == ["t34"]
    assert moves[0].front_distance == pytest.approx(39.0, abs=0.03)
    assert not [e for e in events if isinstance(e, FlagEvent)]
    assert seen_both >= 2  # it really went through the overlap seen by both


@pytest.mark.slow  # ~4 s of CPU
def test_a_dropped_camera_leaves_the_other_going_on():
    pipeline = _pipeline()
    still = {"pz4": (46.0, 12.0, 180.0)}
    for k in range(10):
        pipeline.process(tv.frame_set(k, {"t34": (8.0, 12.0, 0.0), **still}))
    # Camera 2 stops delivering; camera 1's piece moves and settles meanwhile.
    path = tv.carried(8.0, 14.0, 12.0, rest=10, moving=6)[10:]
    events = []
    for k, place in enumerate(path, start=10):
        result = pipeline.process(tv.frame_set(k, {"t34": place, **still}, present=(True, False)))
        events.extend(result.events)
        assert [v.camera for v in result.views] == [0]
    moves = [e for e in events if isinstance(e, MoveEvent)]
    assert [(m.piece, round(m.front_distance, 1)) for m in moves] == [("t34", 6.0)]
    # pz4, seen by camera 2 only, stays where it was last seen (hidden, not lost or moved).
    pz4 = result.tracks.piece("pz4")
    assert pz4 is not None and pz4.state in ("settled", "hidden")
    assert (pz4.pose.x, pz4.pose.y) == pytest.approx((46.0, 12.0), abs=0.03)
    # Camera 2 back: pz4 is where it was, no move.
    back = [
        pipeline.process(tv.frame_set(k, {"t34": (14.0, 12.0, 0.0), **still}))
        for k in range(30, 40)
    ]
    assert not [e for r in back for e in r.events if isinstance(e, MoveEvent)]


@pytest.mark.slow  # a bumped two-camera game: ~6 s of CPU
def test_a_bumped_camera_is_re_registered_on_its_own_while_the_other_keeps_its_profile():
    from referee.calibration.camera import TablePose

    pipeline = _pipeline()
    intr, _ = tv.cameras()[1]
    moved = TablePose.looking_down((39.3, 12.2), 31.0, tilt_deg=2.0, yaw_deg=-0.5)
    events = []
    for k in range(8):
        place = {"pz4": (46.0, 12.0, 180.0), "t34": (8.0, 12.0, 0.0)}
        image = tv.render(intr, moved, tv.piece_tags(place) + tv.anchor_tag_list())
        frame = tv.frame_set(k, place)
        bumped = Frame(k, frame.t, frame.views[0].image, (frame.views[0], Frame(k, frame.t, image)))
        result = pipeline.process(bumped)
        events.extend(result.events)
    flags = [e for e in events if isinstance(e, FlagEvent)]
    assert [f.kind for f in flags] == ["camera_moved"] and flags[0].message.startswith("cam2: ")
    assert pipeline.cameras[0].profile is pipeline.cameras[0].initial_profile
    assert pipeline.cameras[1].profile is not pipeline.cameras[1].initial_profile
    pz4 = result.tracks.piece("pz4")
    assert (pz4.pose.x, pz4.pose.y) == pytest.approx((46.0, 12.0), abs=0.05)


# -- six anchors, a camera sees four ---------------------------------------------------------


def test_a_camera_seeing_four_of_the_six_anchors_locates_the_table():
    intr, true_pose = tv.cameras()[1]
    image = tv.view(1, {})
    found = TagDetector("DICT_4X4_100").detect(image)
    anchors = tv.anchors()
    assert len(anchors) == 6
    assert sorted(int(i) for i in found.ids) == [94, 95, 97, 98]
    fix = locate_table(intr, None, None, found.ids, found.corners_px, anchors)
    assert fix.frame_source == "anchors" and sorted(fix.anchors_seen) == [94, 95, 97, 98]
    # The table where the camera sees it lands within a hundredth of an inch of the truth.
    pixels = project(intr, true_pose, table_xyz([[22, 2], [55, 2], [55, 22], [38, 12]], 0.0))
    located = pixels_to_table(intr, fix.pose, pixels, 0.0)
    assert np.abs(located - [[22, 2], [55, 2], [55, 22], [38, 12]]).max() < 0.01


# -- the commands ------------------------------------------------------------------------------


def test_track_with_two_cameras_writes_one_line_per_tick_with_each_piece_once(tmp_path):
    import json

    from click.testing import CliRunner

    from referee.cli import cli

    still = {"t34": (8.0, 12.0, 0.0), "sq1": (28.0, 12.0, 90.0), "pz4": (46.0, 12.0, 180.0)}
    cam1, cam2 = tv.write_clips(tmp_path, [still] * 10)
    out = tmp_path / "tracks.jsonl"
    args = ["track", str(cam1), str(cam2), "-c", str(tmp_path / "camera-1.json")]
    args += ["-c", str(tmp_path / "camera-2.json"), "-r", str(tmp_path / "roster.json")]
    result = CliRunner().invoke(cli, [*args, "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 10
    last = {p["id"]: p for p in lines[-1]["pieces"]}
    assert sorted(last) == ["pz4", "sq1", "t34"]  # sq1 in the overlap: once, not twice
    for pid, (x, y, _) in still.items():
        assert math.hypot(last[pid]["x"] - x, last[pid]["y"] - y) < 0.03
    assert "tracked 10 frames, 0 moves" in result.stderr


def _demo(folder):
    from click.testing import CliRunner

    from referee.cli import cli

    return CliRunner().invoke(
        cli, ["demo", "--footage", str(folder), "--use-true-camera", "--no-log"]
    )


@pytest.mark.slow  # a whole demo run; test_track_with_two_cameras keeps the two-camera path
def test_demo_detects_a_footage_folder_with_numbered_cameras(tmp_path):
    still = {"t34": (8.0, 12.0, 0.0), "sq1": (28.0, 12.0, 90.0), "pz4": (46.0, 12.0, 180.0)}
    folder = tv.write_footage(tmp_path / "club", [still] * 12)
    result = _demo(folder)
    assert result.exit_code == 0, result.output
    assert "refereeing 2 cameras (video-1.mp4, video-2.mp4) (12 frames, 12 fps):" in result.output
    assert "accuracy vs truth-moves.json: 0 of 0 true moves found, 0 extra" in result.output
    assert "0 moves, 0 warnings" in result.output


@pytest.mark.slow
def test_demo_referees_a_move_across_the_seam_of_two_cameras(tmp_path):
    path = tv.carried(8.0, 47.0, 12.0, rest=12, moving=60)
    script = [{"t34": p, "pz4": (46.0, 4.0, 180.0), "sq1": (28.0, 20.0, 90.0)} for p in path]
    result = _demo(tv.write_footage(tmp_path / "club", script))
    assert result.exit_code == 0, result.output
    assert "accuracy vs truth-moves.json: 1 of 1 true moves found, 0 extra" in result.output
    error = float(result.output.split("move distance error: mean ")[1].split("in")[0])
    assert error < 0.03


@pytest.mark.slow  # a 4K render: ~3 s of CPU
def test_one_4k_camera_over_a_72x48_table_sees_all_six_anchors_and_places_its_pieces():
    from synth_vision import Tag, render

    from referee.calibration.camera import Intrinsics, TablePose
    from referee.calibration.profile import CalibrationProfile, TableSize
    from referee.calibration.table import default_anchors
    from referee.markers.roster import Roster, RosterEntry

    table = TableSize(72, 48)
    anchors = default_anchors("DICT_4X4_100", table)
    intr = Intrinsics.from_fov((3840, 2160), 70.0, (-0.05, 0.0, 0.0, 0.0, 0.0))
    pose = TablePose.looking_down((36.0, 24.0), 66.0)
    # 0.75 in tags: what 'referee markers --size auto --table 72x48 --camera 3840x2160' advises.
    pieces = {"a": (5.0, 5.0, 0.0), "b": (36.0, 24.0, 45.0), "c": (67.0, 43.0, 270.0)}
    roster = Roster(
        "DICT_4X4_100",
        tuple(
            RosterEntry(k, pid, "x", "tank", (1.0, 1.0), tag_size=0.75)
            for k, pid in enumerate(pieces)
        ),
        anchors,
    )
    tags = [Tag(a.tag, a.x, a.y, 0.0, 0.0, a.size) for a in anchors]
    tags += [Tag(k, x, y, h, 0.0, 0.75) for k, (x, y, h) in enumerate(pieces.values())]
    image = render(intr, pose, tags, noise=1.0)
    found = TagDetector("DICT_4X4_100").detect(image)
    fix = locate_table(intr, None, None, found.ids, found.corners_px, anchors)
    assert sorted(fix.anchors_seen) == [94, 95, 96, 97, 98, 99]
    profile = CalibrationProfile(intr, fix.pose, table, "anchors", anchors=anchors)
    result = Pipeline(profile, roster).process(Frame(0, 0.0, image))
    assert len(result.views) == 1 and not result.dropped
    seen = {p.pose.id: p.pose for p in result.tracks.pieces}
    assert sorted(seen) == ["a", "b", "c"]
    for pid, (x, y, _) in pieces.items():
        assert math.hypot(seen[pid].x - x, seen[pid].y - y) < 0.03


def test_markers_prints_six_anchors_for_a_big_table_and_advises_4k_tag_sizes(tmp_path):
    from click.testing import CliRunner

    from referee.cli import cli
    from referee.tags.layout import anchor_ids, reserved_anchor_ids

    run = CliRunner().invoke
    result = run(
        cli, ["markers", "--anchors", "--table", "72x48", "--out", str(tmp_path / "a.pdf")]
    )
    assert result.exit_code == 0, result.output
    assert "6 anchor tags (ids 94-99, DICT_4X4_100)" in result.output
    for tag, spot in [
        (96, "(1.5, 1.5)"),
        (97, "(70.5, 1.5)"),
        (98, "(70.5, 46.5)"),
        (99, "(1.5, 46.5)"),
        (94, "(36, 1.5)"),
        (95, "(36, 46.5)"),
    ]:
        assert f"anchor {tag}: centre at {spot} in" in result.output
    assert "go at the middle of its long edges" in result.output
    # The sample's table keeps its four.
    small = run(cli, ["markers", "--anchors", "--out", str(tmp_path / "b.pdf")])
    assert "4 anchor tags (ids 96-99" in small.output
    assert anchor_ids("DICT_4X4_100", (48, 72)) == (96, 97, 98, 99, 94, 95)
    # Piece ids avoid all six, whatever the table: --ids refuses them, auto ids skip them.
    refused = run(cli, ["markers", "--ids", "90-95", "--out", str(tmp_path / "t.pdf")])
    assert refused.exit_code == 2
    assert "tag 94 is reserved for the big table's edge anchors" in refused.output
    assert reserved_anchor_ids("DICT_4X4_100") == (94, 95, 96, 97, 98, 99)
    advice = run(
        cli,
        [
            "markers",
            "--size",
            "auto",
            "--table",
            "72x48",
            "--camera",
            "3840x2160",
            "--out",
            str(tmp_path / "t.pdf"),
        ],
    )
    assert advice.exit_code == 0, advice.output
    assert "--size auto: 0.75 in (19.0 mm) tags give 5.11 px per tag cell" in advice.output
    assert "72x48 in table filling a 3840x2160 camera" in advice.output


class _PacedCamera:
    """A live camera at 20 fps: frames of value ``value``; ``fail_after`` reads, it fails."""

    def __init__(self, value, frames, fail_after=None):
        self.value, self.left, self.fail_after = value, frames, fail_after

    def isOpened(self):
        return True

    def set(self, *args):
        return True

    def get(self, prop):
        return 20.0

    def read(self):
        import time

        time.sleep(0.05)
        if self.left <= 0:
            raise KeyboardInterrupt  # end of the test's footage: the reader hands it over
        if self.fail_after is not None:
            if self.fail_after <= 0:
                return False, None
            self.fail_after -= 1
        self.left -= 1
        return True, np.full((4, 4, 3), self.value, np.uint8)

    def release(self):
        pass


def test_a_live_camera_that_drops_leaves_the_other_going_on_and_comes_back():
    from referee.vision.sources import LiveSource, MultiSource

    notices = []
    opens = {"b": 0}

    def second(device):
        opens["b"] += 1
        # First opening: 5 frames, then the feed is lost; reopened: 20 more frames.
        return _PacedCamera(2, 10, fail_after=5) if opens["b"] == 1 else _PacedCamera(2, 20)

    cam1 = LiveSource(0, opener=lambda d: _PacedCamera(1, 40), backoff=(0.3, 0.3))
    cam2 = LiveSource(
        1, opener=second, backoff=(0.3, 0.3), on_camera=lambda k, m: notices.append(k)
    )
    ticks = []
    with MultiSource([cam1, cam2]) as both:
        for frame_set in both:
            ticks.append(
                tuple(None if v is None else int(v.image[0, 0, 0]) for v in frame_set.views)
            )
            if len(ticks) >= 30:
                break
    assert notices[:2] == ["lost", "reopened"]
    with_second = [i for i, t in enumerate(ticks) if t[1] == 2]
    gap = [t for t in ticks[with_second[0] :] if t[1] is None and t[0] == 1]
    # Camera 2 went quiet after its first frames while camera 1 went on, then came back.
    assert len(gap) >= 2 and with_second[-1] > ticks.index(gap[0])
    assert all(t[0] in (1, None) and t[1] in (2, None) for t in ticks)
