"""Scenes at twice the size, for the systems whose scale settings double every distance."""

from __future__ import annotations

import dataclasses

from referee.scene import Scene


def doubled(scene: Scene) -> Scene:
    """Every piece's position, base and doubt, and every terrain outline, twice as large
    (the table is left to the caller: a scale setting may keep it)."""
    pieces = tuple(
        dataclasses.replace(
            p,
            x=2 * p.x,
            y=2 * p.y,
            base=(2 * p.base[0], 2 * p.base[1]),
            uncertainty=2 * p.uncertainty,
        )
        for p in scene.pieces
    )
    terrain = tuple(
        dataclasses.replace(t, polygon=tuple((2 * x, 2 * y) for x, y in t.polygon))
        for t in scene.terrain
    )
    return dataclasses.replace(scene, pieces=pieces, terrain=terrain)
