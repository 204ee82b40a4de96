"""Random tables for the rules: pieces and terrain scattered by a seeded generator.

The rules benchmark measures these tables and the property tests check the rules on
them against brute force; one generator keeps the two on the same kind of table.
"""

from __future__ import annotations

import math
import random

from referee.scene import Piece, Scene, Table, Terrain

#: Piece kinds each system's random table draws from (a tank, a foot unit, a third kind).
SYSTEM_KINDS: dict[str, tuple[str, str, str]] = {
    "paper-tigers": ("tank", "infantry", "gun"),
    "pz8-ww2": ("medium tank", "infantry", "truck"),
    "pz8-1950": ("mbt", "infantry", "truck"),
    "pz8-1975": ("mbt", "infantry", "apc"),
    "pz8-scifi": ("medium mbt", "infantry", "apc"),
    "plastic-skirmish": ("tank", "rifle guy", "jeep"),
    "papercraft": ("character", "large unit", "infantry"),
    "pz8-colonial": ("mounted", "foot", "artillery"),
    "pz8-coastal": ("vosper mtb", "flower corvette", "trawler"),
    "pz8-naval": ("bismarck", "hood", "prinz eugen"),
    "pz8-space": ("spaceship", "torpedo", "asteroid"),
    "pz8-aerial": ("spitfire", "me 109", "ju 87 stuka"),
    "pz8-aerial-1965": ("mig 21", "f4e phantom", "mirage iii"),
    "pz8-divisional": ("tanks", "leg infantry", "recon"),
    "pz8-ww1": ("infantry", "mg", "tank"),
}


def star_outline(
    cx: float, cy: float, radii: list[float], turn: float = 0.0
) -> tuple[tuple[float, float], ...]:
    """A terrain outline: one corner per radius, evenly round ``(cx, cy)`` from angle
    ``turn`` (radians), counter-clockwise. Star-shaped, convex or not."""
    n = len(radii)
    return tuple(
        (
            cx + r * math.cos(2 * math.pi * q / n + turn),
            cy + r * math.sin(2 * math.pi * q / n + turn),
        )
        for q, r in enumerate(radii)
    )


def random_table(
    n_pieces: int,
    n_terrain: int,
    uncertainty: float,
    seed: int = 1,
    ruleset: str = "paper-tigers",
) -> Scene:
    """A 72 x 48 in table: ``n_terrain`` woods, buildings and hills 1-3 in across their
    centre, and ``n_pieces`` pieces of the system's three kinds (:data:`SYSTEM_KINDS`)
    anywhere, facing anywhere, on 1.5 x 2.5 in bases, every 20th destroyed."""
    rnd = random.Random(seed)
    terrain = []
    for k in range(n_terrain):
        cx, cy = rnd.uniform(3, 69), rnd.uniform(3, 45)
        n = rnd.randint(4, 8)
        radii = [rnd.uniform(1.0, 3.0) for _ in range(n)]
        kind = rnd.choice(["woods", "building", "hill"])
        terrain.append(Terrain(f"t{k}", kind, star_outline(cx, cy, radii)))
    pieces = tuple(
        Piece(
            f"p{k}",
            rnd.choice(["a", "b"]),
            rnd.choice(SYSTEM_KINDS[ruleset]),
            rnd.uniform(0, 72),
            rnd.uniform(0, 48),
            rnd.uniform(0, 360),
            (1.5, 2.5),
            state="destroyed" if k % 20 == 0 else "ok",
            uncertainty=uncertainty,
        )
        for k in range(n_pieces)
    )
    return Scene(ruleset, Table(72, 48), pieces, tuple(terrain))
