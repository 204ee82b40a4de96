"""Calibration on simulated footage with exact ground truth: lens, table plane, frame, heights."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from referee.calibration.calibrate import (
    BoardDetector,
    CalibrationRun,
    Frame,
    ViewCollector,
    calibrate_frames,
)
from referee.calibration.camera import pixels_to_table, project, table_xyz
from referee.calibration.table import detect_markers
from referee.tags.board import BoardSpec
from referee.tags.layout import TagLayout

SIM_BOARD = BoardSpec.parse("charuco:5x7:1.5in:1.1in:DICT_5X5_100")


def test_lens_recovered(sim_run: CalibrationRun, sim_rig: Any) -> None:
    got, true = sim_run.profile.intrinsics, sim_rig.intrinsics
    assert sim_run.solution.rms_px < 0.3
    assert got.fx == pytest.approx(true.fx, rel=0.01)
    assert got.fy == pytest.approx(true.fy, rel=0.01)
    assert got.cx == pytest.approx(true.cx, abs=8)
    assert got.cy == pytest.approx(true.cy, abs=8)
    assert got.distortion[0] == pytest.approx(true.distortion[0], abs=0.02)


def test_anchors_give_the_table_frame(
    sim: ModuleType, sim_run: CalibrationRun, sim_rig: Any
) -> None:
    profile = sim_run.profile
    assert profile.frame_source == "anchors"
    assert [a.tag for a in profile.anchors] == [96, 97, 98, 99]
    for height in (0.0, 1.0):
        errors = sim.table_error(sim_rig, profile.intrinsics, profile.table_pose, height)
        # 720p test camera: ~0.05 in per pixel; the 1080p benchmark does better.
        assert np.sqrt(np.mean(errors**2)) < 0.05
        assert errors.max() < 0.12


def test_tag_at_roof_height_needs_its_height(
    sim: ModuleType, sim_run: CalibrationRun, sim_rig: Any
) -> None:
    """A tag 0.9 in up lands where it is only when mapped at its height."""
    from referee.sim.warp import RayMap

    frame = sim.blank(sim_rig)
    spots = [(6.0, 6.0), (42.0, 30.0), (24.0, 18.0), (40.0, 5.0)]
    for i, (x, y) in enumerate(spots):
        sim.draw_tag(
            frame,
            RayMap.for_camera(sim_rig.intrinsics),
            sim_rig.pose,
            "DICT_4X4_100",
            10 + i,
            x,
            y,
            30.0,
            1.0,
            height=0.9,
        )
    ids, corners = detect_markers(frame[:, :, 0].copy(), "DICT_4X4_100")
    assert sorted(ids.tolist()) == [10, 11, 12, 13]
    profile = sim_run.profile
    for tag, quad in zip(ids, corners, strict=True):
        truth = np.array(spots[tag - 10])
        at_height = pixels_to_table(profile.intrinsics, profile.table_pose, quad, 0.9).mean(0)
        flat = pixels_to_table(profile.intrinsics, profile.table_pose, quad, 0.0).mean(0)
        assert np.linalg.norm(at_height - truth) < 0.06
        if np.linalg.norm(truth - [24, 18]) > 10:  # away from the centre the height matters
            assert np.linalg.norm(flat - truth) > 0.3


def test_table_fit_tag_corners_within_a_tenth_of_a_pixel(sim: ModuleType, sim_rig: Any) -> None:
    """Flat tags (edge-fitted corners, lens removed) where the camera truly sees them."""
    flats = (
        (10, 4.0, 4.5, 30.0, 1.5),
        (11, 44.0, 31.5, 200.0, 1.5),
        (12, 44.0, 4.5, 100.0, 1.5),
        (13, 24.0, 18.0, 10.0, 1.5),
    )
    frame = sim.render_table(sim_rig, board_at=None, anchors=(), flat_tags=flats)
    ids, corners = detect_markers(frame[:, :, 0].copy(), "DICT_4X4_100", sim_rig.intrinsics)
    assert sorted(ids.tolist()) == [10, 11, 12, 13]
    for tag, quad in zip(ids, corners, strict=True):
        _, x, y, heading, size = flats[tag - 10]
        corners_xy = TagLayout(size).corners(x, y, heading)
        truth = project(sim_rig.intrinsics, sim_rig.pose, table_xyz(corners_xy, 0.0))
        assert np.linalg.norm(quad - truth, axis=1).max() < 0.15


def test_board_frame_without_anchors(
    sim: ModuleType, sim_rig: Any, held_frames: list[Frame]
) -> None:
    """No anchors in view: the board's origin corner is the table origin, x along its columns."""
    placed = (10.0, 8.0, 30.0)
    view = Frame("flat", sim.render_table(sim_rig, board_at=placed, anchors=(), board=SIM_BOARD))
    run = calibrate_frames([*held_frames, view], spec=SIM_BOARD, table=sim.TABLE)
    assert run.profile.frame_source == "board" and run.profile.anchors == ()
    errors = sim.table_error(
        sim_rig,
        run.profile.intrinsics,
        run.profile.table_pose,
        0.0,
        frame_to_table=sim.board_table_transform(placed),
    )
    assert np.sqrt(np.mean(errors**2)) < 0.15  # extrapolated from a small board: looser


def test_flat_tags_refine_the_plane(
    sim: ModuleType, sim_rig: Any, held_frames: list[Frame]
) -> None:
    """Flat piece tags spread over the table pin the plane down far from the board."""
    placed = (10.0, 8.0, 30.0)
    tags = tuple(
        (20 + i, x, y, 45.0 * i, 1.2)
        for i, (x, y) in enumerate([(40, 6), (42, 30), (6, 30), (25, 20), (35, 15), (15, 28)])
    )
    view = Frame(
        "flat",
        sim.render_table(sim_rig, board_at=placed, anchors=(), flat_tags=tags, board=SIM_BOARD),
    )
    plain = calibrate_frames([*held_frames, view], spec=SIM_BOARD, table=sim.TABLE)
    refined = calibrate_frames(
        [*held_frames, view],
        spec=SIM_BOARD,
        table=sim.TABLE,
        flat_tags=[(t[0], 1.2) for t in tags],
    )
    assert refined.table is not None and refined.table.flat_tags_used >= 5

    def rms(run: CalibrationRun) -> float:
        e = sim.table_error(
            sim_rig,
            run.profile.intrinsics,
            run.profile.table_pose,
            0.0,
            frame_to_table=sim.board_table_transform(placed),
        )
        return float(np.sqrt(np.mean(e**2)))

    # The board alone tilts the plane measurably; the joint fit takes most of it out.
    assert rms(plain) > 0.02
    assert rms(refined) < rms(plain) / 2
    assert rms(refined) < 0.02


def test_anchors_only_table_view(sim: ModuleType, sim_rig: Any, held_frames: list[Frame]) -> None:
    """The board may be gone from the final view: three or four anchors place the table alone."""
    view = Frame("anchors", sim.render_table(sim_rig, board_at=None, board=SIM_BOARD))
    run = calibrate_frames([*held_frames, view], spec=SIM_BOARD, table=sim.TABLE)
    assert run.table_view == "held11"  # the final frame had no board: last view with one
    # ... so try again with the anchors-only view as the explicit table image.
    run = calibrate_frames(held_frames, spec=SIM_BOARD, table=sim.TABLE, table_image=view)
    assert run.profile.frame_source == "anchors"
    errors = sim.table_error(sim_rig, run.profile.intrinsics, run.profile.table_pose, 0.0)
    assert np.sqrt(np.mean(errors**2)) < 0.06


@pytest.mark.slow  # renders and calibrates two tables to refuse them
@pytest.mark.parametrize("board_at", ["default", None])
def test_anchors_for_another_table_size_are_refused(
    sim: ModuleType, sim_rig: Any, held_frames: list[Frame], board_at: Any
) -> None:
    """A wrong --table puts the default anchors inches from where they are glued: the
    frame would be wrong by as much, so calibration stops and says what to check."""
    from referee.calibration.profile import TableSize
    from referee.errors import RefereeError

    kwargs = {} if board_at == "default" else {"board_at": None}
    view = Frame("final", sim.render_table(sim_rig, board=SIM_BOARD, **kwargs))
    for wrong in (TableSize(72.0, 48.0), TableSize(50.0, 36.0)):
        with pytest.raises(RefereeError, match=r"do not fit a .*check --table") as error:
            calibrate_frames(held_frames, spec=SIM_BOARD, table=wrong, table_image=view)
        assert f"{wrong.width:g}x{wrong.depth:g}in" in str(error.value)
        # ... and names the size the anchors seen do fit (issue 32).
        assert str(error.value).endswith("the anchors seen fit a 48x36 table (--table 48x36)")
    # half an inch off is within the tolerance of anchors glued by hand: accepted
    run = calibrate_frames(
        held_frames, spec=SIM_BOARD, table=TableSize(48.5, 36.0), table_image=view
    )
    assert run.profile.frame_source == "anchors"


def test_manual_frame_when_table_view_shows_nothing(
    sim: ModuleType, sim_rig: Any, held_frames: list[Frame]
) -> None:
    empty = Frame("empty", sim.blank(sim_rig))
    run = calibrate_frames(held_frames, spec=SIM_BOARD, table=sim.TABLE, table_image=empty)
    assert run.table is None and run.profile.frame_source == "manual"


def test_collector_rejects_blur_duplicates_and_guides(held_frames: list[Frame]) -> None:
    import cv2

    detector = BoardDetector(SIM_BOARD)
    collector = ViewCollector((1280, 720))
    first = held_frames[0].image
    assert collector.add(detector.detect(first, "a")).reason == "accepted"
    assert "no corners yet near the" in collector.guidance()
    shifted = np.roll(first, 3, axis=1)
    assert collector.add(detector.detect(shifted, "b")).reason == "duplicate"
    blurred = cv2.GaussianBlur(held_frames[1].image, (0, 0), 2.5)
    verdict = collector.add(detector.detect(blurred, "c"))
    assert verdict.reason in ("blurry", "no board", "too few corners")
    assert not verdict.accepted
    for frame in held_frames[1:]:
        collector.add(detector.detect(frame.image, frame.name))
    assert collector.missing_regions() == []
    assert "every region" in collector.guidance()
    assert collector.coverage.sum() > 100


def test_outlier_view_dropped(held_frames: list[Frame]) -> None:
    """A view whose corners were mismatched (a bad detection) is dropped and reported."""
    from dataclasses import replace

    from referee.calibration.calibrate import solve_intrinsics

    detector = BoardDetector(SIM_BOARD)
    views = [detector.detect(f.image, f.name) for f in held_frames]
    views = [v for v in views if len(v) >= 6]
    bad = views[3]
    noisy = bad.corners_px + np.random.default_rng(5).normal(0, 6, bad.corners_px.shape)
    views[3] = replace(bad, corners_px=noisy)
    solution = solve_intrinsics(views, (1280, 720))
    assert [name for name, _ in solution.dropped] == [bad.name]
    assert bad.name not in solution.used
    assert solution.rms_px < 0.3


def test_projection_round_trip_of_profile(sim_run: CalibrationRun) -> None:
    p = sim_run.profile
    xyz = table_xyz([[3.0, 4.0], [44.0, 33.0]], 0.9)
    back = pixels_to_table(
        p.intrinsics, p.table_pose, project(p.intrinsics, p.table_pose, xyz), 0.9
    )
    assert np.allclose(back, xyz[:, :2], atol=1e-6)


def test_board_spec_read_from_the_printed_sheets_qr(
    sim: ModuleType, sim_rig: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No --board: the spec comes from the QR code printed beside the board (`referee board`)."""
    import cv2

    from referee.markers import qr
    from referee.markers.board_sheet import board_sheet, default_board
    from referee.markers.pdf import rasterize
    from referee.sim.warp import PlanePose, RayMap, draw_plane

    monkeypatch.setattr(qr, "USE_PYZBAR", False)
    sheet = board_sheet(default_board("letter"), "letter")
    paper = cv2.cvtColor(rasterize(sheet.page, 150), cv2.COLOR_GRAY2BGR)
    size = np.array([paper.shape[1], paper.shape[0], 0]) / 150
    ray_map = RayMap.for_camera(sim_rig.intrinsics)
    frames = []
    spots = [(0.5, 0.5, 14), (0.3, 0.3, 20), (0.7, 0.3, 20), (0.3, 0.7, 20), (0.7, 0.7, 20)]
    for i, (u, v, depth) in enumerate(spots):
        angles = np.radians([25, 0, 5] if i % 2 else [0, 25, -5]) * (i > 0)
        rotation, _ = cv2.Rodrigues(angles)
        ray = sim_rig.intrinsics.undistort_normalized([[u * 1280, v * 720]])[0]
        origin = np.array([ray[0], ray[1], 1.0]) * depth - rotation @ (size / 2)
        image = sim.blank(sim_rig)
        draw_plane(image, ray_map, PlanePose(rotation[:, 0], rotation[:, 1], origin), paper, 150, 2)
        frames.append(Frame(f"sheet{i}", image))
    run = calibrate_frames(frames, spec=None, table=sim.TABLE)
    assert run.profile.board == sheet.spec.to_string()
    assert run.profile.intrinsics.fx == pytest.approx(sim_rig.intrinsics.fx, rel=0.02)


#: Anchors placed where a roster says (not the defaults) on the simulated 48 x 36 table.
ROSTER_ANCHORS = ((96, 3.0, 2.0), (97, 45.0, 2.5), (98, 44.0, 33.0))


def _calibrate_cli(
    sim: ModuleType, sim_rig: Any, held_frames: list[Frame], work: Any, *options: str
) -> Any:
    """``referee calibrate`` on the held views, a roster with ROSTER_ANCHORS and their
    table photo; ``--out`` is work/cam.json, which holds "earlier" before the run."""
    import cv2
    from click.testing import CliRunner

    from referee.cli import cli
    from referee.tags.anchors import AnchorTag

    folder = work / "views"
    if not folder.exists():
        folder.mkdir()
        for frame in held_frames:
            cv2.imwrite(str(folder / f"{frame.name}.png"), frame.image)
        anchors = tuple(AnchorTag(tag, x, y, 2.0) for tag, x, y in ROSTER_ANCHORS)
        cv2.imwrite(
            str(work / "table.png"), sim.render_table(sim_rig, anchors=anchors, board=SIM_BOARD)
        )
        (work / "roster.json").write_text(
            '{"dictionary": "DICT_4X4_100", "pieces": [], "anchors": ['
            + ", ".join(
                f'{{"tag": {a.tag}, "x": {a.x}, "y": {a.y}, "size": {a.size}}}' for a in anchors
            )
            + "]}"
        )
    (work / "cam.json").write_text("earlier")
    return CliRunner().invoke(
        cli,
        [
            "calibrate",
            str(folder),
            "--out",
            str(work / "cam.json"),
            "--board",
            SIM_BOARD.to_string(),
            "--anchors",
            str(work / "roster.json"),
            "--table-image",
            str(work / "table.png"),
            *options,
        ],
    )


def test_cli_with_roster_anchors_and_table_image(
    sim: ModuleType, sim_rig: Any, held_frames: list[Frame], tmp_path: Any
) -> None:
    """Anchors placed where the roster says (not the defaults), table view as a separate photo;
    the right --table (the default 48x36) calibrates without a warning."""
    from referee.calibration.profile import load_profile
    from referee.tags.anchors import AnchorTag

    result = _calibrate_cli(sim, sim_rig, held_frames, tmp_path)
    assert result.exit_code == 0, result.output
    assert "frame from anchors 96, 97, 98" in result.output
    assert "warning" not in result.stderr
    profile = load_profile(tmp_path / "cam.json")
    assert profile.frame_source == "anchors"
    assert profile.anchors == tuple(AnchorTag(t, x, y, 2.0) for t, x, y in ROSTER_ANCHORS)
    errors = sim.table_error(sim_rig, profile.intrinsics, profile.table_pose, 0.0)
    assert np.sqrt(np.mean(errors**2)) < 0.05


def test_cli_refuses_a_table_too_small_for_the_roster_anchors(
    sim: ModuleType, sim_rig: Any, held_frames: list[Frame], tmp_path: Any
) -> None:
    """Anchors 97 and 98 (the farther) cannot be on a 36 x 24 table: one error line naming
    98 and the --table that holds the anchors, exit code 2, the earlier --out untouched."""
    result = _calibrate_cli(sim, sim_rig, held_frames, tmp_path, "--table", "36x24")
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [
        "referee: error: anchor 98 at (44, 33) lies outside a 36x24in table (and 1 more); "
        "check --table (the table's size in game inches): the anchors fit a 48x36 table "
        "(--table 48x36)"
    ]
    assert (tmp_path / "cam.json").read_text() == "earlier"


def test_cli_warns_of_a_table_larger_than_the_view(
    sim: ModuleType, sim_rig: Any, held_frames: list[Frame], tmp_path: Any
) -> None:
    """The roster's anchors lie on a 96 x 48 table too, but the camera sees about 68 x 38 in
    of it: the profile is written, with one warning naming the corners beyond the view."""
    from referee.calibration.profile import load_profile

    result = _calibrate_cli(sim, sim_rig, held_frames, tmp_path, "--table", "96x48")
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1, result.stderr
    assert warnings[0].startswith("referee: warning: table corner (96, 0) of a 96x48in table ")
    assert "(so do (96, 48), (0, 48))" in warnings[0] and "check --table" in warnings[0]
    assert load_profile(tmp_path / "cam.json").table.width == 96.0
