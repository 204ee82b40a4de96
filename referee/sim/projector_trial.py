"""A projector over a simulated game: calibrate it through the camera, draw, count what is lost.

Shared by ``referee demo --projector``, the benchmark and the tests. The steps
are the real ones (the pattern frame is detected and fitted by
:func:`referee.calibration.projector.fit_projector`, tags are masked by
:func:`referee.calibration.projector.tag_mask`); what the simulator gives for
free is the camera's profile (the scenario's true one, which ``referee
calibrate`` recovers to a few hundredths of a pixel) and the poses the mask
is made from (the truth of the frame *before*, as a tracker would know them,
so the margin must cover a frame's motion).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from referee.calibration.camera import project, table_xyz
from referee.calibration.projector import (
    ProjectorFit,
    ProjectorPattern,
    TagSpot,
    fit_projector,
    projector_pattern,
    tag_mask,
)
from referee.calibration.projector_fit import covered_grid
from referee.runtime import progress as bar_of
from referee.sim.projector import LightMaps, Projector, add_light, line_overlay, piece_tops
from referee.sim.render import PiecePose, TableRenderer
from referee.sim.scenario import FrameState, Scenario, load_scenario
from referee.sim.video import _imager, _Renderers, frame_time
from referee.tags.detect import Detections, TagDetector

Image = NDArray[np.uint8]
FloatArray = NDArray[np.float64]

#: Room light drowning this share of the projector's (a lit club room, not a dark one).
AMBIENT = 0.3
#: Margin round every tag kept dark, inches: a frame's motion of a carried piece plus parallax.
MARGIN_IN = 0.5
#: A detection this far (pixels) from its tag's true centre is a wrong one.
WRONG_PX = 4.0


@dataclass(frozen=True)
class ProjectorTrial:
    """What one simulated projector run measured."""

    fit: ProjectorFit
    placement_p95_in: float
    """95th percentile of |fitted - true| table position over a grid of the covered area."""
    placement_max_in: float
    frames: int
    expected: int
    """Tag sightings that should be read (visible tags over all frames measured)."""
    found_on: int
    found_off: int
    wrong_on: int
    """Detections with the overlay on that are not a visible tag where it truly is."""
    wrong_off: int

    def lines(self) -> list[str]:
        return [
            f"projector placement error: p95 {self.placement_p95_in:.2f}in, "
            f"max {self.placement_max_in:.2f}in",
            f"tag recall with the overlay on: {self.found_on} of {self.expected} "
            f"(off: {self.found_off} of {self.expected})",
        ]


def sample_projector(scenario: Scenario) -> Projector:
    """A 1280 x 800 projector a little askew over the table, spilling an inch past each edge."""
    table = scenario.table
    return Projector.overhead(
        (1280, 800),
        (-1.0, -1.0, table.width + 1.0, table.depth + 1.0),
        rotation_deg=1.5,
        keystone=0.03,
        brightness=0.9,
    )


def placement_error(
    fit: ProjectorFit, projector: Projector, step_px: float = 20.0
) -> tuple[float, float]:
    """(p95, max) inches between fitted and true landing points over the covered area."""
    if fit.resolution != projector.resolution:
        raise ValueError(
            f"a fit at {fit.resolution} px is not this {projector.resolution} projector"
        )
    grid = covered_grid(fit, step_px)
    true = projector.landing(grid)
    errors = np.hypot(*(fit.to_table(grid) - true).T)
    return float(np.percentile(errors, 95)), float(errors.max())


def tag_spots(renderer: TableRenderer, poses: Mapping[str, PiecePose]) -> list[TagSpot]:
    """Every tag on the table (pieces' and anchors'), as the mask needs them."""
    entries = {entry.id: entry for entry in renderer.pieces}
    spots = []
    for pid, pose in poses.items():
        x, y, _ = renderer.tag_centre(entries[pid], pose)
        spots.append(TagSpot(x, y, renderer.tag_layout(entries[pid]).size))
    spots.extend(TagSpot(a.x, a.y, a.size) for a in renderer.anchors)
    return spots


def _truth_centres(
    renderer: TableRenderer, poses: Mapping[str, PiecePose]
) -> tuple[dict[int, FloatArray], dict[int, FloatArray]]:
    """Tag id -> true centre (px): of the tags that should be read, and of every tag drawn.

    A tag should be read when it is wholly in the picture and nothing covers it; a
    half-covered tag that is read anyway is no error, so it is in the second map only.
    """
    truths = renderer.truth(poses)
    entries = {entry.id: entry for entry in renderer.pieces}
    width, height = renderer.intrinsics.image_size
    drawn = {entries[pid].tag: t.corners_px.mean(axis=0) for pid, t in truths.items()}
    visible = {entries[pid].tag: drawn[entries[pid].tag] for pid, t in truths.items() if t.visible}
    for a in renderer.anchors:
        centre = project(renderer.intrinsics, renderer.pose, table_xyz([[a.x, a.y]], 0.0))[0]
        drawn[a.tag] = centre
        margin = 40.0  # an anchor's half-diagonal in pixels, with room to spare
        if margin <= centre[0] < width - margin and margin <= centre[1] < height - margin:
            visible[a.tag] = centre
    return visible, drawn


def _score(
    found: Detections, visible: Mapping[int, FloatArray], drawn: Mapping[int, FloatArray]
) -> tuple[int, int]:
    """(tags that should be read and were, where they are; detections that are no tag there)."""
    right = wrong = 0
    for tag, corners in zip(found.ids.tolist(), found.corners_px, strict=True):
        where = drawn.get(tag)
        if where is None or np.hypot(*(corners.mean(axis=0) - where)) > WRONG_PX:
            wrong += 1
        elif tag in visible:
            right += 1
    return right, wrong


def pattern_frame(
    scenario: Scenario, projector: Projector, pattern: ProjectorPattern, ambient: float = AMBIENT
) -> Image:
    """The camera's picture of the scenario's first moment with ``projector`` showing
    ``pattern`` (lit on the cloth and the pieces' tops, through the simulated webcam):
    what ``/projector?pattern=1`` gives the camera to calibrate from."""
    renderers = _Renderers(scenario)
    start = scenario.state_at(0.0)
    renderer = renderers.get(renderers.bump(start))
    frame, _ = renderer.render(start.poses)
    tops = piece_tops(renderer, start.poses)
    shown = add_light(
        frame, pattern.picture(), projector, renderer.intrinsics, renderer.pose, tops, ambient
    )
    return _imager(scenario).apply(shown)


class _Lights:
    """One projector's :class:`LightMaps` per camera renderer (a bump makes a new renderer):
    frame after frame under one pose, only the raised tops are cast again."""

    def __init__(self, projector: Projector) -> None:
        self.projector = projector
        self._made: dict[int, tuple[TableRenderer, LightMaps]] = {}

    def of(self, renderer: TableRenderer) -> LightMaps:
        kept = self._made.get(id(renderer))
        if kept is None or kept[0] is not renderer:
            kept = (renderer, LightMaps(self.projector, renderer.intrinsics, renderer.pose))
            self._made[id(renderer)] = kept
        return kept[1]


def lit_frame(
    scenario: Scenario,
    renderers: _Renderers,
    fit: ProjectorFit,
    projector: Projector,
    index: int,
    masked: bool = True,
    margin_in: float = MARGIN_IN,
    ambient: float = AMBIENT,
    lights: _Lights | None = None,
) -> tuple[FrameState, TableRenderer, Image, Image]:
    """Frame ``index`` of the scenario without and with the projector drawing a line between
    every two pieces (dark over every tag when ``masked``), as the camera's sensor gets them
    (before the webcam's imaging): the moment's state, its renderer, the two frames."""
    state = scenario.state_at(frame_time(index, scenario.fps))
    before = scenario.state_at(frame_time(max(index - 1, 0), scenario.fps))
    renderer = renderers.get(renderers.bump(state))
    frame, _ = renderer.render(state.poses, state.hands, moving=state.moving)
    # The overlay is drawn from what was known a frame ago: lines between the pieces.
    centres = np.array([[p.x, p.y] for p in before.poses.values()], np.float64)
    overlay = line_overlay(fit.resolution, fit.to_picture(centres))
    if masked:
        overlay = overlay * tag_mask(fit, tag_spots(renderer, before.poses), margin_in)[..., None]
    light = (lights or _Lights(projector)).of(renderer)
    maps = light.maps(piece_tops(renderer, state.poses))
    lit = add_light(
        frame, overlay, projector, renderer.intrinsics, renderer.pose, ambient=ambient, maps=maps
    )
    return state, renderer, frame, lit


def calibrated_fit(
    scenario: Scenario, projector: Projector, ambient: float = AMBIENT
) -> ProjectorFit:
    """The projector fitted, as ``/projector?pattern=1`` and its button do, from the
    camera's picture of the pattern at the scenario's first moment (the true profile)."""
    pattern = projector_pattern(projector.resolution, avoid=[e.tag for e in scenario.roster.pieces])
    image = pattern_frame(scenario, projector, pattern, ambient)
    return fit_projector(image, scenario.profile(0), pattern)


def projector_trial(
    scenario_path: str | os.PathLike[str],
    frames: int = 8,
    margin_in: float = MARGIN_IN,
    ambient: float = AMBIENT,
    masked: bool = True,
    projector: Projector | None = None,
) -> ProjectorTrial:
    """Calibrate a simulated projector from its pattern frame, then measure ``frames`` frames.

    Frames are spread evenly over the scenario (with the frame before each, for
    the mask's poses). ``masked=False`` draws the overlay over tags too;
    ``projector`` replaces :func:`sample_projector`.
    """
    scenario = load_scenario(scenario_path)
    renderers = _Renderers(scenario)
    projector = projector or sample_projector(scenario)
    fit = calibrated_fit(scenario, projector, ambient)
    p95, worst = placement_error(fit, projector)
    lights = _Lights(projector)

    imager_on, imager_off = _imager(scenario), _imager(scenario)
    count = scenario.frame_count
    picks = np.linspace(1, count - 1, frames).round().astype(int)
    expected = found_on = found_off = wrong_on = wrong_off = 0
    for index in picks:
        state, renderer, frame, lit = lit_frame(
            scenario, renderers, fit, projector, int(index), masked, margin_in, ambient, lights
        )
        t = state.t
        hand_mask = renderer.hand_mask(state.hands) if state.hands else None
        on = imager_on.apply(lit, t, bool(state.hands), hand_mask)
        off = imager_off.apply(frame, t, bool(state.hands), hand_mask)
        visible, drawn = _truth_centres(renderer, state.poses)
        expected += len(visible)
        detector = TagDetector(scenario.roster.dictionary)
        right, wrong = _score(detector.detect_full(on), visible, drawn)
        found_on, wrong_on = found_on + right, wrong_on + wrong
        right, wrong = _score(detector.detect_full(off), visible, drawn)
        found_off, wrong_off = found_off + right, wrong_off + wrong
    return ProjectorTrial(
        fit, p95, worst, len(picks), expected, found_on, found_off, wrong_on, wrong_off
    )


def lit_game(
    scenario: Scenario,
    fit: ProjectorFit,
    projector: Projector,
    masked: bool = True,
    margin_in: float = MARGIN_IN,
    ambient: float = AMBIENT,
    progress: bool = False,
) -> Iterator[tuple[int, float, Image, Image]]:
    """Every frame of the scenario as the webcam gives it, with the overlay on (a line
    between every two pieces, dark over every tag as known a frame ago when ``masked``)
    and off: ``(index, t, on, off)``, each through its own imager as a video would be."""
    renderers, lights = _Renderers(scenario), _Lights(projector)
    imager_on, imager_off = _imager(scenario), _imager(scenario)
    count = scenario.frame_count
    for index in bar_of(range(count), desc="tracking", unit="frame", enabled=progress):
        state, renderer, frame, lit = lit_frame(
            scenario, renderers, fit, projector, index, masked, margin_in, ambient, lights
        )
        hand_mask = renderer.hand_mask(state.hands) if state.hands else None
        on = imager_on.apply(lit, state.t, bool(state.hands), hand_mask)
        off = imager_off.apply(frame, state.t, bool(state.hands), hand_mask)
        yield index, state.t, on, off
