"""A Space table whose pieces sit on the hex lattice itself (shared by the grid tests)."""

from __future__ import annotations

import random

from referee.rules import ruleset_for
from referee.scene import Piece, Scene, Table


def hex_lattice(seed: int, rotation: float, count: int = 30, centres: int = 1) -> Scene:
    """Pieces on hex centres (``centres`` times as likely), corners and side midpoints:
    lines along hex sides, through corners and through asteroid centres along a row,
    doubts reaching several hexes, two in three of them asteroids."""
    rnd = random.Random(seed)
    settings = {"grid_rotation": rotation}
    grid = ruleset_for(Scene("pz8-space", Table(24, 16), (), settings=settings))
    hexes = grid.grid(Table(24, 16))
    pieces = []
    for k in range(count):
        cell = (rnd.randint(0, 12), rnd.randint(0, 8))
        corners = hexes.outline(cell)
        spots = [hexes.centre(cell)] * centres + [(corners[0] + corners[1]) / 2, corners[2]]
        x, y = rnd.choice(spots)
        pieces.append(
            Piece(
                f"p{k}",
                rnd.choice("ab"),
                "asteroid" if k % 3 else "spaceship",
                float(x),
                float(y),
                rnd.uniform(0, 360),
                (1.0, 1.0),
                state="destroyed" if k % 11 == 0 else "ok",
                uncertainty=rnd.choice([0.0, 0.0, 0.01, 0.4]),
            )
        )
    return Scene("pz8-space", Table(24, 16), tuple(pieces), settings=settings)
