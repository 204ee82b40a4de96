"""Forests: woods pieces that touch or overlap, joined into one (line of sight runs through
a forest as through one wood). Read by the core's lines of sight and by ``targets``."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from referee.geometry import polygon_distance
from referee.scene import Terrain


def forests(terrain: Sequence[Terrain], kinds: tuple[str, ...] = ("woods",)) -> list[list[int]]:
    """Groups of indices into ``terrain``: woods pieces that touch or overlap (directly or
    through others) form one group; every other piece is a group of its own. Terrain
    stays put through a game, so the grouping is remembered."""
    return [list(g) for g in _forests(tuple(terrain), kinds)]


@functools.lru_cache(maxsize=32)
def _forests(terrain: tuple[Terrain, ...], kinds: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    parent = list(range(len(terrain)))
    boxes = [(t.outline().min(axis=0), t.outline().max(axis=0)) for t in terrain]

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    woods = [k for k, t in enumerate(terrain) if t.kind in kinds]
    for x, k in enumerate(woods):
        for m in woods[x + 1 :]:
            (lo_k, hi_k), (lo_m, hi_m) = boxes[k], boxes[m]
            if np.any(lo_k > hi_m + 1e-9) or np.any(lo_m > hi_k + 1e-9):
                continue  # boxes apart: the outlines cannot touch
            if polygon_distance(terrain[k].outline(), terrain[m].outline()) <= 1e-9:
                parent[root(m)] = root(k)
    groups: dict[int, list[int]] = {}
    for k in range(len(terrain)):
        groups.setdefault(root(k), []).append(k)
    return tuple(tuple(g) for g in groups.values())
