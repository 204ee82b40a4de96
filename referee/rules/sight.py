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

from referee.geometry import polygon_depths

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
        code = limit_codes(distance, doubt, radius)
        return code, (code + 3).astype(np.int8)  # WITHIN, CLOSE_CALL, HIDDEN


def limit_codes(
    distance: NDArray[np.float64], doubt: NDArray[np.float64], limit: float
) -> NDArray[np.int8]:
    """``distance <= limit`` as a LOS code per pair, judged as
    :func:`referee.rules.values.judge` judges a limit: 0 within, 2 beyond, 1 too close to
    call (within ``doubt`` of it; exactly at it with no doubt is within)."""
    r, u = limit, doubt
    seen = (distance <= r - u - 1e-9) | ((u == 0) & (distance <= r + 1e-9))
    far = distance > r + u + 1e-9
    return np.where(seen, 0, np.where(far, 2, 1)).astype(np.int8)


@dataclass(frozen=True)
class SightLimit:
    """Nobody sees farther than a limit (Plastic Skirmish's dust clouds), measured as range
    is, whatever lies between: beyond it a line is blocked, within its doubt of it
    doubtful. It settles a blocked pair before the line is drawn and can only make a line
    worse."""

    limit_setting: str
    """The setting holding the limit, inches; None there: no limit."""
    cause: str
    """What limits sight, in words (``dust clouds``)."""
    blocker: str
    """The id the verdict names as blocking (``dust``)."""

    @staticmethod
    def codes(
        distance: NDArray[np.float64], doubt: NDArray[np.float64], limit: float
    ) -> NDArray[np.int8]:
        """The LOS code of each pair (``distance`` measured as range is, ``doubt`` the two
        doubts added): :func:`limit_codes`."""
        return limit_codes(distance, doubt, limit)


@dataclass(frozen=True)
class FeatureDepths:
    """How deep bases and centres lie in one feature, for :class:`WhollyInside`: only the
    pieces whose base may lie wholly inside it (within the most doubt of any pair)."""

    feature: int
    """The feature's index (in the order given to :meth:`WhollyInside.depths`)."""
    candidate: NDArray[np.bool_]
    """Per piece: its base may lie wholly inside."""
    least: NDArray[np.float64]
    """Per piece: its base's least depth (its corners', positive inside; -inf if not a
    candidate)."""
    whole: NDArray[np.bool_]
    """Per piece: every corner strictly inside."""
    centre: NDArray[np.float64]
    """Per piece: its centre's depth (positive inside)."""
    out: NDArray[np.bool_]
    """Per piece: its centre is outside (not in it nor on its outline)."""


@dataclass(frozen=True)
class WhollyInside:
    """Plastic Skirmish's edge rule: a piece whose base is wholly inside a feature of the
    ``kinds_setting`` kinds (deeper than the pair's doubt) is seen only from inside the
    same feature: a line to a centre outside it (farther than the doubt) is blocked;
    doubtful where the doubt allows the base wholly inside and the other centre outside.
    Pieces at the edge (base partly in, partly out) are seen. It settles a blocked pair
    before the line is drawn and can only make a line worse."""

    kinds_setting: str = "blocking"
    """The setting holding the terrain kinds (woods, buildings)."""

    NO, FIRER_INSIDE, TARGET_INSIDE, FIRER_MAYBE, TARGET_MAYBE = 0, 1, 2, 3, 4
    """Reason codes: neither end is hidden; the firer's base is wholly inside the feature;
    the target's; the firer's may be (within the doubt); the target's may be."""

    @staticmethod
    def depths(
        xy: NDArray[np.float64],
        corners: NDArray[np.float64],
        unc: NDArray[np.float64],
        features: list[NDArray[np.float64]],
    ) -> list[FeatureDepths]:
        """Per feature that may hold a base wholly (within ``2 * max(unc)``): the depths
        :meth:`codes` reads. ``xy`` (n, 2) centres, ``corners`` (n, 4, 2) base corners,
        ``unc`` (n,) doubts. Box tests over all (piece, feature) pairs leave the few worth
        the exact tests."""
        n = len(xy)
        if n == 0 or not features:
            return []
        starts = np.cumsum([0] + [len(f) for f in features[:-1]])
        reach = 2 * float(unc.max()) + 1e-9  # the most doubt of any pair
        f_lo = np.minimum.reduceat(np.concatenate(features), starts) - reach  # (features, 2)
        f_hi = np.maximum.reduceat(np.concatenate(features), starts) + reach
        # A base wholly inside a feature (or within a pair's doubt of it) has its centre
        # and its corner box in the feature's box (so widened).
        held = np.all((xy[:, None] >= f_lo[None]) & (xy[:, None] <= f_hi[None]), axis=2)
        rows = np.flatnonzero(held.any(axis=1))
        if not len(rows):
            return []
        box_lo, box_hi = corners[rows].min(axis=1), corners[rows].max(axis=1)
        boxed = held[rows] & np.all(
            (box_lo[:, None] >= f_lo[None]) & (box_hi[:, None] <= f_hi[None]), axis=2
        )  # (rows, features)
        out: list[FeatureDepths] = []
        for f in np.flatnonzero(boxed.any(axis=0)):
            poly = features[f]
            cand = rows[boxed[:, f]]
            depth, _, strict = polygon_depths(corners[cand].reshape(-1, 2), poly)
            least = depth.reshape(-1, 4).min(axis=1)
            may = least >= -reach  # wholly inside, or within some pair's doubt of it
            if not may.any():
                continue
            centre, held_c, _ = polygon_depths(xy, poly)  # of every piece's centre
            candidate = np.zeros(n, bool)
            candidate[cand[may]] = True
            least_all = np.full(n, -np.inf)
            least_all[cand] = least
            whole = np.zeros(n, bool)
            whole[cand] = np.all(strict.reshape(-1, 4), axis=1)
            out.append(FeatureDepths(int(f), candidate, least_all, whole, centre, ~held_c))
        return out

    @staticmethod
    def codes(
        depths: list[FeatureDepths], unc: NDArray[np.float64], i: Index, j: Index
    ) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.intp]]:
        """(LOS code, reason code, feature index or -1) of each pair. Feature by feature in
        order, the firer's base before the target's: the first base certainly inside
        gives the reason; failing one, the first that may be."""
        shape = np.broadcast(i, j).shape
        code = np.zeros(shape, np.int8)
        reason = np.zeros(shape, np.int8)
        feature = np.full(shape, -1, np.intp)
        if not depths:
            return code, reason, feature
        ii, jj = np.broadcast_to(i, shape), np.broadcast_to(j, shape)
        sure_any = np.zeros(shape, bool)
        maybe_any = np.zeros(shape, bool)
        for fd in depths:
            near = fd.candidate[ii] | fd.candidate[jj]  # only these pairs can change
            if not near.any():
                continue
            a, b = ii[near], jj[near]
            d = unc[a] + unc[b]
            sure_k, maybe_k = sure_any[near], maybe_any[near]
            reason_k, feature_k = reason[near], feature[near]
            for p, q, inside, maybe in (
                (a, b, WhollyInside.FIRER_INSIDE, WhollyInside.FIRER_MAYBE),
                (b, a, WhollyInside.TARGET_INSIDE, WhollyInside.TARGET_MAYBE),
            ):
                sure = (
                    fd.whole[p]
                    & (fd.least[p] > d)
                    & fd.out[q]
                    & ((d == 0) | (fd.centre[q] < -d))
                    & ~sure_k
                )
                reason_k[sure], feature_k[sure] = inside, fd.feature
                sure_k |= sure
                may = (d > 0) & (fd.least[p] >= -d) & (fd.centre[q] <= d) & ~sure_k & ~maybe_k
                reason_k[may], feature_k[may] = maybe, fd.feature
                maybe_k |= may
            sure_any[near], maybe_any[near] = sure_k, maybe_k
            reason[near], feature[near] = reason_k, feature_k
        code[maybe_any] = 1
        code[sure_any] = 2
        return code, reason, feature


@dataclass(frozen=True)
class WoodsAreas:
    """Paper Tigers' forests (D.2 designer's note): in a forest of several touching woods
    the forest blocks as one area (a line along a seam runs through it), but a unit sees
    out of only the woods area its centre is in, as far as the next one, which blocks LOS
    through it. It replaces the core's forest rule (a unit inside sees out of the whole
    forest) in the line itself, for the single question and the all-pairs map alike
    (:meth:`referee.rules.core.TableRuleset.line_of_sight`, :func:`referee.rules.core.
    woods_view`)."""

    setting: str = "forests"
    """The setting that turns it on (false there: every woods piece blocks on its own)."""


LosFilter = SeesAll | Hidden | SightLimit | WhollyInside | WoodsAreas
"""A filter a system may declare."""
