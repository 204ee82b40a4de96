"""The table plane refined during the game from the flat tags the camera sees held still.

Exact geometry (no rendering): the true table is seen by a camera whose profile is tilted
a few tenths of a degree (a table view where the board alone set the plane); the anchors
and flat bases project through the true pose with a little corner noise, frame after
frame, as the detector would give them.
"""

from __future__ import annotations

import cv2
import numpy as np
from synth_vision import Tag, camera_1080p, tag_corners_px

from referee.calibration.camera import TablePose, pixels_to_table, project, table_xyz
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.calibration.table import default_anchors
from referee.markers.roster import Roster, RosterEntry
from referee.tags.detect import Detections
from referee.vision.pipeline import CameraStage
from referee.vision.plane import PlaneRefiner, PlaneSettings, table_shift
from referee.vision.sources import Frame

TABLE = TableSize(48.0, 36.0)
INTR, TRUE = camera_1080p()
ANCHORS = default_anchors("DICT_4X4_100", TABLE)
BASES = [Tag(10 + k, x, y, 31.0 * k) for k, (x, y) in enumerate(
    [(6, 6), (24, 5), (42, 7), (7, 18), (41, 18), (6, 30), (24, 31), (42, 29)]
)]  # fmt: skip


def tilted() -> TablePose:
    """The true pose turned 0.3 degrees about the picture's vertical axis."""
    turn = np.array([0.0, np.radians(0.3), 0.0])
    r = cv2.Rodrigues(cv2.Rodrigues(turn)[0] @ TRUE.rotation)[0].ravel()
    return TablePose(r, TRUE.tvec)


def roster() -> Roster:
    """The bases, flat (``tag_height`` 0) with their tag size, and the corner anchors."""
    pieces = tuple(
        RosterEntry(b.id, f"p{b.id}", "a", "inf", (1.0, 1.0), tag_size=b.size) for b in BASES
    )
    return Roster("DICT_4X4_100", pieces, ANCHORS)


def profile(pose: TablePose) -> CalibrationProfile:
    return CalibrationProfile(INTR, pose, TABLE, frame_source="anchors", anchors=ANCHORS)


def seen(rng: np.random.Generator, bases=BASES, raised: dict[int, float] | None = None):
    """One frame's detections: every anchor and base through the true pose, noisy."""
    ids, quads = [], []
    for a in ANCHORS:
        ids.append(a.tag)
        quads.append(tag_corners_px(INTR, TRUE, Tag(a.tag, a.x, a.y, 0.0, 0.0, a.size)))
    for b in bases:
        lift = (raised or {}).get(b.id, 0.0)
        ids.append(b.id)
        quads.append(tag_corners_px(INTR, TRUE, Tag(b.id, b.x, b.y, b.heading, lift, b.size)))
    quads = np.array(quads) + rng.normal(0.0, 0.05, (len(quads), 4, 2))
    return Detections(ids, quads)


def table_error(pose: TablePose) -> float:
    return table_shift(profile(TRUE), pose)


def test_a_tilted_plane_is_refined_from_the_flat_tags_held_still() -> None:
    rng = np.random.default_rng(1)
    wrong = profile(tilted())
    assert table_error(wrong.table_pose) > 0.05  # the tilt puts the far edges this far out
    refiner = PlaneRefiner(roster(), ANCHORS, PlaneSettings(window_frames=10))
    answers = [refiner.observe(wrong, seen(rng)) for _ in range(10)]
    assert answers[:9] == [None] * 9  # not before every tag has held still the window
    refined = answers[9]
    assert refined is not None
    assert refined.flat_tags == len(BASES) and refined.anchors == len(ANCHORS)
    assert refined.rms_px < 0.1
    assert table_error(refined.pose) < 0.01
    assert abs(refined.shift_in - table_error(wrong.table_pose)) < 0.01
    assert refiner.observe(wrong, seen(rng)) is None  # once per registration
    refiner.reset()
    assert [refiner.observe(wrong, seen(rng)) for _ in range(10)][-1] is not None


def test_a_tag_that_moves_starts_its_window_again() -> None:
    rng = np.random.default_rng(2)
    wrong = profile(tilted())
    refiner = PlaneRefiner(roster(), ANCHORS, PlaneSettings(window_frames=6, min_flat_tags=8))
    for k in range(12):
        bases = [*BASES[:-1], Tag(BASES[-1].id, 42 - 0.5 * k, 29, 0.0)]  # one base sliding
        assert refiner.observe(wrong, seen(rng, bases)) is None
    answers = [refiner.observe(wrong, seen(rng)) for _ in range(6)]
    assert answers[-1] is not None and answers[:-1] == [None] * 5


def test_a_plane_already_right_is_left_alone_and_tags_not_flat_do_not_bend_it() -> None:
    rng = np.random.default_rng(3)
    right = PlaneRefiner(roster(), ANCHORS, PlaneSettings(window_frames=5))
    assert [right.observe(profile(TRUE), seen(rng)) for _ in range(8)] == [None] * 8
    # Two bases the roster calls flat stand on 0.5 in stands: the anchors, fixed, keep the
    # plane where it is (the change stays under the 0.005 in worth applying)...
    raised = {BASES[0].id: 0.5, BASES[4].id: 0.5}
    kept = PlaneRefiner(roster(), ANCHORS, PlaneSettings(window_frames=5))
    assert [kept.observe(profile(TRUE), seen(rng, raised=raised)) for _ in range(8)] == [None] * 8
    # ...and a tilted plane is still brought back with them in the fit.
    tilt = PlaneRefiner(roster(), ANCHORS, PlaneSettings(window_frames=5))
    answers = [tilt.observe(profile(tilted()), seen(rng, raised=raised)) for _ in range(5)]
    assert answers[-1] is not None and table_error(answers[-1].pose) < 0.005


def test_the_camera_stage_places_pieces_on_the_refined_plane() -> None:
    """Through the pipeline's camera stage: the profile in force is refined (the poses and
    the doubt map read it) and a refinement this large is said as a flag."""
    rng = np.random.default_rng(4)
    # The bump watch is kept out of it: the anchors alone would re-register this tilt.
    stage = CameraStage(0, profile(tilted()), roster(), bump_checks=10**6)
    image = np.zeros((1080, 1920, 3), np.uint8)
    flags = []
    for k in range(30):
        stage.detector.detect = lambda _image: seen(rng)  # type: ignore[method-assign]
        view, events = stage.process(Frame(k, k / 12.0, image))
        flags += [e for e in events if getattr(e, "kind", "") == "table_refined"]
    assert len(flags) == 1 and "flat tags" in flags[0].message
    assert table_error(stage.profile.table_pose) < 0.01
    far = next(p for p in view.pieces if p.id == f"p{BASES[2].id}")
    assert np.hypot(far.x - BASES[2].x, far.y - BASES[2].y) < 0.01
    assert view.profile is stage.profile


def test_table_shift_measures_only_what_the_camera_sees() -> None:
    moved = TablePose(TRUE.rvec, TRUE.tvec + np.array([0.1, 0.0, 0.0]))
    assert abs(table_shift(profile(TRUE), moved) - 0.1) < 1e-6
    xy = pixels_to_table(INTR, moved, project(INTR, TRUE, table_xyz([(24.0, 18.0)], 0.0)), 0.0)
    assert abs(xy[0][0] - 23.9) < 1e-4
