"""The projector over a live table (issue 39): its fit, its calibration pattern, its dark discs.

The dashboard may not read calibration (tests/test_layering.py), so what its projector
page needs is said here, as JSON: the fit (projector px -> table inches) from the live
table's calibration profile or from a calibration done since, and where every tag is,
so the page keeps a black disc over each one (a lit tag turns grey and is lost).
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2

from referee.calibration.camera import TablePose
from referee.calibration.profile import load_profile
from referee.calibration.projector import fit_projector, projector_pattern
from referee.calibration.projector_fit import ProjectorFit, landing_shift
from referee.errors import RefereeError
from referee.game.live import LiveTable
from referee.markers.sheets import DEFAULT_TAG_SIZE_IN
from referee.tags.layout import QUIET_ZONE_CELLS, marker_bits
from referee.vision.plane import table_shift

DISC_MARGIN_IN = 0.4
"""Inches of black beyond a tag's quiet zone: motion between frames, a raised tag's parallax."""
PATTERN_SIDE = (320, 8192)
"""Smallest and largest pattern side, pixels: smaller holds no 6 x 4 grid of tags."""

NO_FIT = (
    "no projector calibrated: open /projector?pattern=1 full screen on the projector, "
    "then POST /api/projector/calibrate (or calibrate it with the camera's profile)"
)


CHECK_TOLERANCE_IN = 0.05
"""A check that lands the pattern within this of the fit in force (p95, inches) keeps it:
the placement goal (issue 39), so a check never swaps a good fit for an equal one."""


@dataclass(frozen=True)
class ProjectorCheck:
    """A fit made again on the camera's newest frame, against the fit in force."""

    shift_p95_in: float
    """95th percentile of how far the same projector pixels land apart, inches."""
    shift_max_in: float
    holds: bool
    """Whether the fit in force was kept (the projector, as the camera sees it, had not moved)."""
    fit: ProjectorFit
    """The fit in force after the check: the old one if it holds, else the new one."""
    saved: str
    """Where that fit is kept, in words (as :meth:`ProjectorFits.put` says)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "shift_p95_in": self.shift_p95_in,
            "shift_max_in": self.shift_max_in,
            "holds": self.holds,
            "tolerance_in": CHECK_TOLERANCE_IN,
            "saved": self.saved,
        }


class ProjectorFits:
    """The projector fit a live table's pages use: the profile's, until one is calibrated.

    A fit calibrated is written into ``profile_file`` (the first camera's profile, the
    file ``serve -c`` read, atomically: only its ``projector`` field changes), so the next
    ``serve`` starts with it; without a file it is kept in memory only.

    Each fit remembers the first camera's table pose it was made under, so a bump that
    re-registered the camera since says the fit is due a check (:meth:`check_due`).

    Lock order: ``_save_lock`` before ``_lock``. ``_lock`` is a leaf, held only to read or
    swap the value; ``_save_lock`` is held while the profile file is read and written (file
    I/O only, never another component), so the file always ends with the newest fit."""

    def __init__(self, live: LiveTable, profile_file: str | os.PathLike[str] | None = None) -> None:
        self._live = live
        self.profile_file = Path(profile_file) if profile_file is not None else None
        self._lock = threading.Lock()
        self._save_lock = threading.Lock()
        self._fit: ProjectorFit | None = None
        self._pose: TablePose | None = None
        """The first camera's table pose when the fit in force was made; None: the profile's
        fit, read under the profile's own pose."""

    def get(self) -> ProjectorFit | None:
        with self._lock:
            fit = self._fit
        return fit if fit is not None else self._live.calibration.projector

    def put(self, fit: ProjectorFit, pose: TablePose | None = None) -> str:
        """Make ``fit`` the one in force (made under camera pose ``pose``: the newest frame's
        by default) and save it; says where, in words (a file that cannot be written leaves
        the fit in force for this run, and says why)."""
        made_under = pose if pose is not None else self._current_pose()
        with self._lock:
            self._fit = fit
            self._pose = made_under
        if self.profile_file is None:
            return "in memory only (this table was started without a profile file)"
        try:
            with self._save_lock:
                with self._lock:
                    newest = self._fit
                profile = load_profile(self.profile_file)
                replace(profile, projector=newest).save(self.profile_file)
        except (OSError, RefereeError) as error:
            why = error.strerror if isinstance(error, OSError) else str(error)
            return f"in memory only ({self.profile_file} could not be written: {why})"
        return f"in {self.profile_file}"

    def _current_pose(self) -> TablePose:
        latest = self._live.session.latest
        return (
            latest.profile.table_pose if latest is not None else self._live.calibration.table_pose
        )

    def check_due(self) -> bool:
        """Whether the first camera was re-registered (bumped) since the fit was made: what
        the camera measured the fit through has moved, so the projector may have too. A
        table plane refined by a few hundredths (:mod:`referee.vision.plane`) is no bump."""
        with self._lock:
            pose = self._pose
        if pose is None:
            pose = self._live.calibration.table_pose
        current = self._current_pose()
        # Re-registering makes a new pose value; the same value has not moved at all.
        if self.get() is None or current is pose:
            return False
        profile = self._live.calibration.with_pose(pose)
        return table_shift(profile, current) >= CHECK_TOLERANCE_IN / 2

    def check(self, width: int, height: int) -> ProjectorCheck:
        """Fit again on the newest frame (showing the pattern) and keep the fit in force if
        the two land within :data:`CHECK_TOLERANCE_IN`, else the new one (saved)."""
        old = self.get()
        if old is None:
            raise RefereeError(NO_FIT)
        if (width, height) != old.resolution:
            raise RefereeError(
                f"the pattern is {width} x {height} pixels but the projector was fitted at "
                f"{old.resolution[0]} x {old.resolution[1]}: show the pattern full screen on "
                "the same projector, or calibrate it again"
            )
        new = calibrate(self._live, width, height)
        p95, worst = landing_shift(old, new)
        holds = p95 <= CHECK_TOLERANCE_IN
        kept = old if holds else new
        # Put again even when it holds: the fit is now known good under this camera pose.
        saved = self.put(kept)
        return ProjectorCheck(p95, worst, holds, kept, saved)


def disc_radius(tag_size: float, dictionary: str, margin_in: float = DISC_MARGIN_IN) -> float:
    """A tag's black disc: its white square's half-diagonal at any heading, plus the margin
    (as :func:`referee.calibration.projector.tag_mask` reckons it)."""
    bits = marker_bits(dictionary)
    outer = tag_size * (1 + 2 * QUIET_ZONE_CELLS / (bits + 2))
    return outer / math.sqrt(2) + margin_in


def projector_json(
    live: LiveTable, fit: ProjectorFit, margin_in: float = DISC_MARGIN_IN
) -> dict[str, Any]:
    """The fit's JSON, and the discs: each anchor's centre and radius, each piece's tag
    offset (forward, right of its centre, inches) and radius, to follow the frames."""
    roster = live.session.roster
    dictionary = roster.dictionary
    anchors = [
        {"tag": a.tag, "x": a.x, "y": a.y, "radius": disc_radius(a.size, dictionary, margin_in)}
        for a in live.pipeline.anchors
    ]
    pieces = {
        e.id: {
            "offset": list(e.tag_offset),
            "radius": disc_radius(e.tag_size or DEFAULT_TAG_SIZE_IN, dictionary, margin_in),
        }
        for e in roster.pieces
    }
    return {
        **fit.to_json(),
        "margin_in": margin_in,
        "discs": {"anchors": anchors, "pieces": pieces},
    }


def _avoid(live: LiveTable) -> set[int]:
    """Tags the pattern must not show: the table's own (a piece's tag seen twice)."""
    roster = live.session.roster
    return {e.tag for e in roster.pieces} | {a.tag for a in live.pipeline.anchors}


def check_pattern_size(width: int, height: int) -> None:
    low, high = PATTERN_SIDE
    for name, side in (("width", width), ("height", height)):
        if not low <= side <= high:
            raise RefereeError(f"{name}: {side} is not a pattern side from {low} to {high} pixels")


def pattern_png(live: LiveTable, width: int, height: int) -> bytes:
    """The calibration pattern at ``width`` x ``height`` projector pixels, as PNG."""
    check_pattern_size(width, height)
    pattern = projector_pattern(
        (width, height), dictionary=live.session.roster.dictionary, avoid=_avoid(live)
    )
    ok, data = cv2.imencode(".png", pattern.picture())
    if not ok:
        raise RefereeError("the pattern could not be encoded as PNG")
    return bytes(data.tobytes())


def calibrate(live: LiveTable, width: int, height: int) -> ProjectorFit:
    """Fit the projector from the newest camera frame, which must show the pattern at
    ``width`` x ``height`` (what ``/projector?pattern=1`` shows on that screen)."""
    check_pattern_size(width, height)
    result = live.session.latest
    if result is None or result.image is None:
        raise RefereeError("no camera frame yet: start the camera, then calibrate")
    pattern = projector_pattern(
        (width, height), dictionary=live.session.roster.dictionary, avoid=_avoid(live)
    )
    # The profile in force for that frame: after a bump the camera was re-registered, and
    # the table's first pose would put the pattern's tags where they no longer are.
    return fit_projector(result.image, result.profile, pattern)


__all__ = [
    "CHECK_TOLERANCE_IN",
    "DISC_MARGIN_IN",
    "NO_FIT",
    "ProjectorCheck",
    "ProjectorFits",
    "calibrate",
    "disc_radius",
    "pattern_png",
    "projector_json",
]
