"""The projector over a live table (issue 39): its fit, its calibration pattern, its dark discs.

The dashboard may not read calibration (tests/test_layering.py), so what its projector
page needs is said here, as JSON: the fit (projector px -> table inches) from the live
table's calibration profile or from a calibration done since, and where every tag is,
so the page keeps a black disc over each one (a lit tag turns grey and is lost).
"""

from __future__ import annotations

import math
import threading
from typing import Any

import cv2

from referee.calibration.projector import fit_projector, projector_pattern
from referee.calibration.projector_fit import ProjectorFit
from referee.errors import RefereeError
from referee.game.live import LiveTable
from referee.markers.sheets import DEFAULT_TAG_SIZE_IN
from referee.tags.layout import QUIET_ZONE_CELLS, marker_bits

DISC_MARGIN_IN = 0.4
"""Inches of black beyond a tag's quiet zone: motion between frames, a raised tag's parallax."""
PATTERN_SIDE = (320, 8192)
"""Smallest and largest pattern side, pixels: smaller holds no 6 x 4 grid of tags."""

NO_FIT = (
    "no projector calibrated: open /projector?pattern=1 full screen on the projector, "
    "then POST /api/projector/calibrate (or calibrate it with the camera's profile)"
)


class ProjectorFits:
    """The projector fit a live table's pages use: the profile's, until one is calibrated.

    Its lock is a leaf: held only to read or swap the value, never while calling anything."""

    def __init__(self, live: LiveTable) -> None:
        self._live = live
        self._lock = threading.Lock()
        self._fit: ProjectorFit | None = None

    def get(self) -> ProjectorFit | None:
        with self._lock:
            fit = self._fit
        return fit if fit is not None else self._live.calibration.projector

    def put(self, fit: ProjectorFit) -> None:
        with self._lock:
            self._fit = fit


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
    "DISC_MARGIN_IN",
    "NO_FIT",
    "ProjectorFits",
    "calibrate",
    "disc_radius",
    "pattern_png",
    "projector_json",
]
