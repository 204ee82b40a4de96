"""Calibrating from a footage folder's calibration clip, as ``referee calibrate`` does: the
board from its spec (or its QR code), the table from the roster's anchors and flat tags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.calibration.profile import CalibrationProfile
from referee.markers.roster import Roster


def calibrate_from_clip(
    clip: Path, roster: Roster, table: Any, board: str | None = None
) -> CalibrationProfile:
    """Run the calibration on the footage's calibration clip.

    ``board`` is the board spec text; None reads it from the board's QR code
    (slower, and needs libzbar or OpenCV's QR reader to see it).
    """
    from referee.calibration.calibrate import calibrate_frames, iter_video
    from referee.tags.board import BoardSpec

    flats = [
        (p.tag, float(p.tag_size)) for p in roster if p.tag_height == 0 and p.tag_size is not None
    ]
    run = calibrate_frames(
        iter_video(clip),
        spec=BoardSpec.parse(board) if board else None,
        table=table,
        anchors=roster.anchors,
        marker_dictionary=roster.dictionary,
        flat_tags=flats,
    )
    return run.profile
