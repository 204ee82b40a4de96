"""Random tables for the rules: pieces and terrain scattered by a seeded generator.

The rules benchmark measures these tables and the property tests check the rules on
them against brute force; one generator keeps the two on the same kind of table.
"""

from __future__ import annotations

import math
import random

import numpy as np

from referee.geometry import polygons_overlap
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
    *,
    apart: bool = False,
) -> Scene:
    """A 72 x 48 in table: ``n_terrain`` woods, buildings and hills 1-3 in across their
    centre, and ``n_pieces`` pieces of the system's three kinds (:data:`SYSTEM_KINDS`)
    anywhere, facing anywhere, on 1.5 x 2.5 in bases, every 20th destroyed.

    Bases drawn independently overlap, which no real table allows (two miniatures
    cannot stand in one place) but which stresses the geometry; with ``apart`` each
    piece is drawn again until its base overlaps none drawn before it (touching is
    allowed), as on a real table. A table too full for that raises ``ValueError``."""
    rnd = random.Random(seed)
    terrain = []
    for k in range(n_terrain):
        cx, cy = rnd.uniform(3, 69), rnd.uniform(3, 45)
        n = rnd.randint(4, 8)
        radii = [rnd.uniform(1.0, 3.0) for _ in range(n)]
        kind = rnd.choice(["woods", "building", "hill"])
        terrain.append(Terrain(f"t{k}", kind, star_outline(cx, cy, radii)))
    pieces: list[Piece] = []
    centres = np.empty((n_pieces, 2))  # of the pieces drawn so far, for ``apart``
    for k in range(n_pieces):
        for _ in range(_TRIES if apart else 1):
            piece = Piece(
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
            if not apart or not _overlaps_any(piece, pieces, centres[:k]):
                centres[k] = piece.xy
                pieces.append(piece)
                break
        else:
            raise ValueError(
                f"no room for piece {k + 1} of {n_pieces} without overlapping a base after"
                f" {_TRIES} tries: ask for fewer pieces"
            )
    return Scene(ruleset, Table(72, 48), tuple(pieces), tuple(terrain))


_TRIES = 10_000
"""Draws of one piece before a table ``apart`` is called too full (400 pieces, 43% of
the table's area, took 6,500-8,300 draws in all and up to 1,041 for one piece)."""


def _overlaps_any(piece: Piece, others: list[Piece], centres: np.ndarray) -> bool:
    """Whether the base of ``piece`` shares area with any of ``others`` (centred at
    ``centres``; touching does not count). Only the bases whose circles meet its own
    are compared exactly: every base here is 1.5 x 2.5 in."""
    near = np.hypot(*(centres - piece.xy).T) < math.hypot(*piece.base)
    return any(polygons_overlap(piece.corners(), others[k].corners()) for k in np.flatnonzero(near))
