"""A projector's overlay over a whole simulated game, through the real pipeline (issue 39).

In the game package because it joins the two ends the layers keep apart: the
simulator's footage (:mod:`referee.sim.projector_trial` draws the overlay
into it) and the vision pipeline that referees it. ``referee demo
--projector`` and ``benchmarks/bench_projector.py`` run it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from referee.calibration.projector_fit import ProjectorFit
from referee.sim.accuracy import MoveMatch, match_moves
from referee.sim.projector import Projector
from referee.sim.projector_trial import (
    AMBIENT,
    MARGIN_IN,
    calibrated_fit,
    lit_game,
    sample_projector,
)
from referee.sim.scenario import load_scenario
from referee.sim.video import true_moves
from referee.vision.pipeline import Pipeline
from referee.vision.sources import Frame
from referee.vision.track import MoveEvent


@dataclass(frozen=True)
class TrackedGame:
    """The whole scenario referee'd twice by the real pipeline (detector, poses, tracker),
    with the projector's overlay on and with it off: the moves each found."""

    frames: int
    on: MoveMatch
    off: MoveMatch
    unknown_on: tuple[int, ...]
    """Tag ids read with the overlay on that are neither a piece's nor an anchor's."""
    unknown_off: tuple[int, ...]

    def lines(self) -> list[str]:
        def said(match: MoveMatch) -> str:
            return f"{match.matched} of {match.matched + match.missed}, {match.extra} extra"

        return [
            f"moves with the overlay on: {said(self.on)} (off: {said(self.off)}); "
            f"wrong ids: {len(self.unknown_on)} on, {len(self.unknown_off)} off"
        ]


def tracked_game(
    scenario_path: str | os.PathLike[str],
    fit: ProjectorFit | None = None,
    margin_in: float = MARGIN_IN,
    ambient: float = AMBIENT,
    projector: Projector | None = None,
    progress: bool = False,
    masked: bool = True,
) -> TrackedGame:
    """Every frame of the scenario, lit by the overlay (a line between every two pieces,
    dark over every tag as known a frame ago) and not, through two pipelines on the true
    profile; their moves matched with the true ones. ``fit``: the projector's (calibrated
    from its pattern frame when None). ``masked=False`` lights the tags too."""
    scenario = load_scenario(scenario_path)
    projector = projector or sample_projector(scenario)
    if fit is None:
        fit = calibrated_fit(scenario, projector, ambient)
    pipelines = {k: Pipeline(scenario.profile(0), scenario.roster) for k in ("on", "off")}
    moves: dict[str, list[MoveEvent]] = {k: [] for k in pipelines}
    unknown: dict[str, set[int]] = {k: set() for k in pipelines}
    count = 0
    for index, t, lit, bare in lit_game(
        scenario, fit, projector, masked, margin_in, ambient, progress
    ):
        count += 1
        for key, image in (("on", lit), ("off", bare)):
            result = pipelines[key].process(Frame(index, t, image))
            moves[key].extend(e for e in result.events if isinstance(e, MoveEvent))
            unknown[key].update(result.unknown_tags)
    truth = true_moves(scenario)
    on, off = (match_moves(moves[k], truth, scenario.roster) for k in ("on", "off"))
    return TrackedGame(count, on, off, tuple(sorted(unknown["on"])), tuple(sorted(unknown["off"])))
