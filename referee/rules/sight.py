"""Line-of-sight filters: the per-pair rules a system lays over the core's line (issue 37).

A system declares the filters it uses as values (:attr:`TableRuleset.los_filters
<referee.rules.core.TableRuleset.los_filters>`), with their numbers; the core applies each
one, written once here as a vectorised function over pair index arrays (``i`` the
firers, ``j`` the targets; any shapes that broadcast), to the all-pairs map and, called
with one pair, to the single ``los`` question, which then words the reason code. So the
threat view and the single question cannot disagree on these rules: they run the same
lines.

Codes are :class:`referee.maps.Visibility`'s (0 clear, 1 doubtful, 2 blocked).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Index = NDArray[np.intp]
"""Pair indexes into per-piece arrays (firers ``i``, targets ``j``)."""


@dataclass(frozen=True)
class SeesAll:
    """Units that always see and are seen (Pz8's helicopters, Sci-Fi walkers and GEV): a
    line from or to one is clear, whatever lies between (it settles the pair before the
    line is drawn)."""

    categories: frozenset[str]
    """The piece categories that see and are seen."""

    NO, FIRER, TARGET = 0, 1, 2
    """Reason codes: neither end sees all; the firer does; the target does."""

    @staticmethod
    def codes(sees: NDArray[np.bool_], i: Index, j: Index) -> NDArray[np.int8]:
        """The reason code of each pair (``sees``: per piece, it sees all); a pair with a
        reason is clear, the others are left to the line."""
        return np.where(sees[i], 1, np.where(sees[j], 2, 0)).astype(np.int8)


@dataclass(frozen=True)
class Hidden:
    """Hidden units (Pz8, 5): a unit that may hide, whose centre is in cover and that has
    not given itself away, is seen only within ``radius`` centre to centre (too close to
    call within the doubt). It can only make a line worse."""

    radius_setting: str
    """The setting holding the radius, inches (players may change it)."""
    cover: tuple[str, ...]
    """The terrain kinds that hide a unit whose centre is inside."""
    categories: frozenset[str]
    """The piece categories that may hide."""
    unless: str = "fired"
    """The piece flag that gives a hidden unit away (it fired this turn)."""

    NO, GAVE_AWAY, IN_OPEN, WITHIN, CLOSE_CALL, HIDDEN = 0, 1, 2, 3, 4, 5
    """Reason codes: the target may not hide; it gave itself away; it is not in cover (the
    three that concern the target alone, and leave the line as it is); it is in cover but
    within the radius; too close to call at the radius; hidden."""

    @staticmethod
    def may_hide(
        hides: NDArray[np.bool_], gave_away: NDArray[np.bool_], covered: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """Per piece: it may be hidden from someone (it may hide, has not given itself
        away, and is in cover); only lines to such a target go to :meth:`codes`."""
        return hides & ~gave_away & covered

    @staticmethod
    def codes(
        distance: NDArray[np.float64], doubt: NDArray[np.float64], radius: float
    ) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
        """(LOS code, reason code) of each pair whose target :meth:`may_hide`:
        ``distance`` and ``doubt`` per pair (centre to centre, the two doubts added). The
        radius is judged as :func:`referee.rules.values.judge` judges a limit: seen,
        hidden, or too close to call."""
        r, u = radius, doubt
        seen = (distance <= r - u - 1e-9) | ((u == 0) & (distance <= r + 1e-9))
        far = distance > r + u + 1e-9
        code = np.where(seen, 0, np.where(far, 2, 1)).astype(np.int8)
        return code, (code + 3).astype(np.int8)  # WITHIN, CLOSE_CALL, HIDDEN


LosFilter = SeesAll | Hidden
"""A filter a system may declare."""
