"""The corner anchor tag: a tag glued at a known place on the table.

Shared by the roster (which lists them), calibration (which places the table
by them) and the pipeline (which notices a bumped camera by them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AnchorTag:
    """A corner anchor tag glued at a known place on the table."""

    tag: int
    x: float
    y: float
    size: float
    """Side of the tag's black square, inches."""
