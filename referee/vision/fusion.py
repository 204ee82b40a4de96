"""Fusion: every camera's piece poses for one tick -> one pose per piece.

Cameras over one table overlap, so a piece near the seam is seen twice. Each
camera's pose stage gives a :class:`PiecePose` in table inches with its own
uncertainty (about two standard deviations); fusing them per id before the one
tracker makes a piece seen by two cameras one piece, and a piece carried across
the seam one move. Terrain templates are poses with the template's id and are
fused the same way.

Positions are averaged by inverse variance, headings by the weighted circular
mean, and the fused uncertainty follows from the weights. A view that disagrees
with the others by far more than their doubts (a mis-registered or bumped
camera, a wrong detection) is dropped, not averaged: an average of a right and a
wrong place is wrong for both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from referee.vision.pose import PiecePose


@dataclass(frozen=True)
class FusionSettings:
    """When two views of a piece are one piece, and when one of them is wrong."""

    reject_sigmas: float = 5.0
    """A view farther from the others' fused place than this many combined standard
    deviations is dropped (5: a true view is dropped about once in a million ticks)."""
    floor_in: float = 0.01
    """Least uncertainty (2 sigma, inches) a view counts with, so a view claiming to be
    exact cannot outweigh every other by orders of magnitude."""
    heading_reject_deg: float = 12.0
    """A view whose heading is farther than this from the others' is dropped (a tag read
    turned by 90 degrees is far beyond it; real heading noise is about a degree)."""


@dataclass(frozen=True)
class Dropped:
    """A view left out of a fused pose, and why (for the health panel and the tests)."""

    camera: int
    id: str
    distance: float
    """Inches from the other views' fused place."""
    heading_off: float
    """Degrees from the other views' fused heading."""


@dataclass(frozen=True)
class Fused:
    """One tick's poses after fusion."""

    pieces: tuple[PiecePose, ...]
    """One pose per id seen by any camera (duplicates within one camera pass through)."""
    dropped: tuple[Dropped, ...] = ()


def _sigma(pose: PiecePose, settings: FusionSettings) -> float:
    return max(pose.uncertainty, settings.floor_in) / 2.0


def _angle_diff(a: float, b: float) -> float:
    """Smallest difference between two headings, degrees in [0, 180]."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


def combine(poses: Sequence[PiecePose], settings: FusionSettings | None = None) -> PiecePose:
    """The inverse-variance mean of ``poses`` (all of one id), with its uncertainty.

    >>> a = PiecePose("t", 1, 10.0, 5.0, 350.0, 0.02)
    >>> b = PiecePose("t", 1, 10.2, 5.0, 10.0, 0.02)
    >>> p = combine([a, b])
    >>> round(p.x, 3), round(p.heading % 360, 3), round(p.uncertainty, 4)
    (10.1, 0.0, 0.0141)
    """
    settings = settings or FusionSettings()
    weights = [1.0 / _sigma(p, settings) ** 2 for p in poses]
    total = sum(weights)
    x = sum(w * p.x for w, p in zip(weights, poses, strict=True)) / total
    y = sum(w * p.y for w, p in zip(weights, poses, strict=True)) / total
    # Circular mean: 359 and 1 degrees average to 0, not 180.
    s = sum(w * math.sin(math.radians(p.heading)) for w, p in zip(weights, poses, strict=True))
    c = sum(w * math.cos(math.radians(p.heading)) for w, p in zip(weights, poses, strict=True))
    heading = math.degrees(math.atan2(s, c)) % 360.0
    best = max(range(len(poses)), key=lambda i: weights[i])
    return replace(
        poses[best],
        x=x,
        y=y,
        heading=heading,
        uncertainty=2.0 / math.sqrt(total),
        seen=any(p.seen for p in poses),
    )


def _worst(
    views: list[tuple[int, PiecePose]], settings: FusionSettings
) -> tuple[int, float, float] | None:
    """The view that disagrees most with the rest (index, inches, degrees), if any does."""
    worst: tuple[float, float, int, float, float] | None = None
    for i, (_, pose) in enumerate(views):
        rest = combine([p for j, (_, p) in enumerate(views) if j != i], settings)
        distance = math.hypot(pose.x - rest.x, pose.y - rest.y)
        spread = math.hypot(_sigma(pose, settings), rest.uncertainty / 2.0)
        off = _angle_diff(pose.heading, rest.heading)
        score = max(distance / spread / settings.reject_sigmas, off / settings.heading_reject_deg)
        if score <= 1.0:
            continue
        # Two views that disagree are equally far from each other: drop the more doubtful.
        key = (score, _sigma(pose, settings), i, distance, off)
        if worst is None or key[:2] > worst[:2]:
            worst = key
    return None if worst is None else (worst[2], worst[3], worst[4])


def fuse(views: Sequence[Sequence[PiecePose]], settings: FusionSettings | None = None) -> Fused:
    """Fuse each camera's poses (``views[k]``: camera k's poses this tick) per id.

    An id one camera sees twice (a copied tag) is passed through unfused, every copy,
    so the tracker flags the duplicate as it does for one camera.
    """
    settings = settings or FusionSettings()
    by_id: dict[str, list[tuple[int, PiecePose]]] = {}
    for camera, poses in enumerate(views):
        for pose in poses:
            by_id.setdefault(pose.id, []).append((camera, pose))
    pieces: list[PiecePose] = []
    dropped: list[Dropped] = []
    for pid, seen in by_id.items():
        cameras = [camera for camera, _ in seen]
        if len(seen) == 1 or len(set(cameras)) != len(cameras):
            pieces.extend(pose for _, pose in seen)
            continue
        kept = list(seen)
        while len(kept) > 1:
            worst = _worst(kept, settings)
            if worst is None:
                break
            index, distance, off = worst
            dropped.append(Dropped(kept[index][0], pid, distance, off))
            del kept[index]
        pieces.append(combine([pose for _, pose in kept], settings))
    return Fused(tuple(pieces), tuple(dropped))
