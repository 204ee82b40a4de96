"""Pairs that no clear line can join, proved for a whole map at once before the exact
search (:mod:`referee.maps.clear_search`) looks at them one by one: on a crowded table
nearly every pair is walled off by the bases around its two ends, and proving it pair by
pair cost the search most of its time.

Each base A gets a shield: for each of :data:`BINS` bands of directions, how far ahead
(along the band's middle direction) every line leaving A in that band has surely
entered another live base. A pair is walled off when, for every band its lines can
take, the other base lies wholly beyond A's shield there, or A beyond the other's shield
in the opposite band. The search then leaves it out: its answer would be "no line", and
is, with the same floats (inf, and no ends).

**Why a shield holds.** Take a band of directions ``theta`` within ``delta / 2`` of its
middle ``e``; ``u`` is the distance along ``e`` from A's centre and ``s`` across it.
Shrink a base C by ``m = T delta / 2 + margin`` on every side, where ``T`` is how far
along ``e`` C's far side lies beyond A's near side. Suppose the line along ``e`` through
any point ``a`` of A whose ``s`` lies strictly within the shrunk C's span crosses the
shrunk C's interior at some point ``y`` not behind ``a``: A lies before C's far side
across the whole span, or, where it does not (C beside A, or over it), only that part
of the span where C's far side lies beyond A's on every line counts. Both far sides are
concave across, so on a piece of the span C's is nearest at an end and A's farthest at
an end or at A's farthest corner: a few pieces, each tested exactly, give that part (at
400 pieces this walls off 3% more pairs, more than paying for itself where bases
overlap). ``y`` is at most ``T`` from ``a``, so the line
through ``a`` at ``theta`` passes within ``T |theta - e| <= m - margin`` of ``y``: inside
C, by the margin. It gets there before going farther along ``e`` than ``y`` does, that
is, before the shrunk C's far side. So if the shrunk bases' open spans together cover
A's span, every line leaving A in the band enters one of them before ``w``, the farthest
far side among them; a base wholly beyond ``w`` along ``e`` is walled off from A in that
band. The other base of the pair never holds up A's own shield against it: its far side
lies beyond its own near side. Lines between two bases apart take directions within
``asin((r_A + r_B) / D)`` of the line through their centres (their circumscribed circles,
``D`` apart), so the bands to test are known from the centres alone.

Bases are visited from A outwards, nearest first, each only in the bands it may meet,
and a band stops taking bases once covered: its ``w`` is then an upper bound, which is
all the proof needs. Bases farther than a few free paths across the table are left out
(:func:`shield_reach`): beyond that a band is rarely covered, and any band left open
proves nothing, so the search decides.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from referee.runtime import compiled_loops

compiled_loops(__name__, "Papercraft's shields")

BINS = 256
"""Bands of direction round each base (a power of two, so a band's index wraps with a
mask, and a multiple of four, so the band across is a quarter turn away). Finer bands
shrink the bases less and cover more, but cost more each: at 400 pieces 128 bands prove
8% fewer pairs walled off than 256, and 512 bands 2.5% more for 1.7x the time."""
_WRAP = BINS - 1
_WIDTH = 2 * math.pi / BINS
_MARGIN = 1e-5
"""How far inside a base (in inches) a line must surely pass to count as crossing it:
a hundred times the crossing test's own tolerance (about 1e-7 in on a 100 in table), so the
search finds every line crossed that the shield does."""
_ROOM = 16
"""Separate stretches of cover kept per band: a base that would start one more adds no
cover (still a sound shield, only a shorter reach)."""


@njit(cache=True, error_model="numpy")
def band_extents(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cos, sin, half)``: each band's middle direction, and each base's half extent
    along it (``(n, BINS)``; across band ``b`` is along band ``b + BINS / 4``). ``frames``:
    :func:`referee.maps.clearance._frames`' columns as rows."""
    middle = (np.arange(BINS) + 0.5) * _WIDTH
    cos, sin = np.cos(middle), np.sin(middle)
    n = frames.shape[1]
    half = np.empty((n, BINS))
    for k in range(n):
        for b in range(BINS):
            along0 = abs(frames[2, k] * cos[b] + frames[3, k] * sin[b])
            along1 = abs(frames[5, k] * cos[b] + frames[6, k] * sin[b])
            half[k, b] = frames[4, k] * along0 + frames[7, k] * along1
    return cos, sin, half


def shield_reach(frames: np.ndarray, live: np.ndarray) -> float:
    """How far from a base its shield looks: five free paths, the mean distance a line
    runs across this table (the box round the live bases' centres) before it meets a
    live base; 0 where five free paths span most of the box. There few bands are ever
    covered, and shields cost more than they save: on a 72 x 48 in table with 1.5 x 2.5
    in bases, 1.1x the time at 100 pieces, even at 120, 0.9x at 150 and 0.4x at 400."""
    alive = np.asarray(live, bool)
    if alive.sum() < 2:
        return 0.0
    x, y = frames[0, alive], frames[1, alive]
    w, h = x.max() - x.min(), y.max() - y.min()
    breadth = float(np.mean(frames[4, alive] + frames[7, alive]))  # a base's mean
    reach = 5 * w * h / (alive.sum() * max(breadth, 1e-9))
    return reach if reach < _SPAN * math.hypot(w, h) else 0.0


_SPAN = 0.75
"""The part of the box's diagonal beyond which a shield's reach is not worth it (at 120
pieces on that table it is 0.87, at 150 0.7)."""


@njit(cache=True, nogil=True, error_model="numpy")
def shields_into(
    start: int,
    step: int,
    frames: np.ndarray,
    live: np.ndarray,
    reach: float,
    cos: np.ndarray,
    sin: np.ndarray,
    half: np.ndarray,
    shield: np.ndarray,
) -> None:
    """Rows ``start``, ``start + step``, ... of ``shield`` (``(n, BINS)``): for base
    ``i`` and band ``b``, a distance along the band's middle from the base's centre by
    which every line leaving it in the band has entered another of the ``live`` bases
    (inf where the bases within ``reach`` do not cover the band). Without the GIL:
    threads may each take every ``step``-th row."""
    n = frames.shape[1]
    cover = np.empty((BINS, _ROOM, 3))  # per band, stretches of cover: from, to, far side
    stretches = np.zeros(BINS, np.intp)
    near, gap = np.empty(n, np.intp), np.empty(n)
    quarter = BINS // 4
    for i in range(start, n, step):
        row = shield[i]
        row[:] = np.inf
        cx, cy = frames[0, i], frames[1, i]
        ra, least = math.hypot(frames[4, i], frames[7, i]), min(frames[4, i], frames[7, i])
        m = 0
        for c in range(n):
            d2 = (frames[0, c] - cx) ** 2 + (frames[1, c] - cy) ** 2
            near[m], gap[m] = c, d2
            m += live[c] & (c != i) & (d2 < reach * reach)
        stretches[:] = 0
        uncovered = BINS
        for r in np.argsort(gap[:m]):  # nearest first
            c = near[r]
            dx, dy = frames[0, c] - cx, frames[1, c] - cy
            d, rc = math.sqrt(gap[r]), math.hypot(frames[4, c], frames[7, c])
            # The bands where C may be ahead of A (its centre at least A's least half
            # size ahead) and across A's span (its circle meets A's).
            if d <= least:
                continue
            spread = math.acos(least / d)
            if d > ra + rc:
                spread = min(spread, math.asin((ra + rc) / d))
            mid = math.atan2(dy, dx)
            lo_band = math.floor((mid - spread) / _WIDTH)
            hi_band = math.floor((mid + spread) / _WIDTH)
            h0, h1 = frames[4, c], frames[7, c]
            for band in range(lo_band, hi_band + 1):
                b = band & _WRAP
                if row[b] < np.inf:
                    continue
                ex, ey = cos[b], sin[b]
                front, side = half[i, b], half[i, (b + quarter) & _WRAP]
                du, ds = dx * ex + dy * ey, dy * ex - dx * ey
                p0, q0, p1, q1 = _in_band(frames, c, ex, ey)
                shrink = (du + h0 * abs(p0) + h1 * abs(p1) + front) * (_WIDTH * 0.50001) + _MARGIN
                k0, k1 = h0 - shrink, h1 - shrink
                if k0 <= 0 or k1 <= 0:
                    continue
                wide = k0 * abs(q0) + k1 * abs(q1)
                lo, hi, far = ds - wide, ds + wide, du + k0 * abs(p0) + k1 * abs(p1)
                if hi <= -side or lo >= side:
                    continue
                # A lies before the shrunk C's far side across its span: the far side is
                # nearest at the span's ends, its two corners farthest across. Where it
                # does not (C beside A, or over it), the part of the span where C's far
                # side lies beyond A's still covers.
                end = abs(k0 * p0 * math.copysign(1.0, q0) + k1 * p1 * math.copysign(1.0, q1))
                if du - end <= front + 1e-9 * (1 + abs(du)):
                    a0, b0, a1, b1 = _in_band(frames, i, ex, ey)
                    mine = (0.0, 0.0, frames[4, i], frames[7, i], a0, b0, a1, b1)
                    theirs = (du, ds, k0, k1, p0, q0, p1, q1)
                    lo, hi = _reaching_past(mine, theirs, lo, hi, side)
                    if lo >= hi:
                        continue
                # Merge with the stretches it overlaps (open spans: touching is no cover).
                kept = 0
                for t in range(stretches[b]):
                    if cover[b, t, 0] < hi and lo < cover[b, t, 1]:
                        lo, hi = min(lo, cover[b, t, 0]), max(hi, cover[b, t, 1])
                        far = max(far, cover[b, t, 2])
                    else:
                        cover[b, kept, 0], cover[b, kept, 1] = cover[b, t, 0], cover[b, t, 1]
                        cover[b, kept, 2] = cover[b, t, 2]
                        kept += 1
                slack = 1e-9 * (1 + side)
                if lo < -side - slack and hi > side + slack:
                    row[b] = far
                    uncovered -= 1
                elif kept < _ROOM:
                    cover[b, kept, 0], cover[b, kept, 1], cover[b, kept, 2] = lo, hi, far
                    kept += 1
                stretches[b] = kept
            if uncovered == 0:
                break


@njit(cache=True, error_model="numpy")
def _in_band(frames: np.ndarray, k: int, ex: float, ey: float) -> tuple[float, float, float, float]:
    """Base ``k``'s two edge directions in the terms of the band along ``(ex, ey)``: along
    it and across it, each."""
    a0x, a0y, a1x, a1y = frames[2, k], frames[3, k], frames[5, k], frames[6, k]
    return a0x * ex + a0y * ey, a0y * ex - a0x * ey, a1x * ex + a1y * ey, a1y * ex - a1x * ey


Box = tuple[float, float, float, float, float, float, float, float]
"""A rectangle in a band's terms: its centre (along the band, across it), its two half
sizes, and its two edge directions (along, across each)."""

_PIECES = 8
"""Pieces of a base's span tested one by one where it does not lie wholly beyond A."""


@njit(cache=True, error_model="numpy")
def _far_side(box: Box, s: float) -> float:
    """How far along the band the rectangle ``box`` reaches on the line across at ``s``
    (within its span): the nearer of its two far edges' lines there."""
    cu, cs, k0, k1, p0, q0, p1, q1 = box
    # An edge within 1e-9 of the band's direction bounds the span, not the reach: its
    # line is left out. Kept, its slope would carry rounding of 1e-16 / |p|; left out, the
    # far side is overstated only within |p| times a side's length of the span's ends.
    # Both stay far below the shields' margin (1e-5 in).
    far = np.inf
    if abs(p0) > 1e-9:
        far = cu + k0 / abs(p0) - q0 / p0 * (s - cs)
    if abs(p1) > 1e-9:
        far = min(far, cu + k1 / abs(p1) - q1 / p1 * (s - cs))
    return far


@njit(cache=True, error_model="numpy")
def _reaching_past(
    mine: Box, theirs: Box, lo: float, hi: float, side: float
) -> tuple[float, float]:
    """Of the span ``lo``-``hi`` of rectangle ``theirs`` across a band, the longest
    stretch within the span of ``mine`` (``-side``-``side`` about its centre, at 0)
    where ``theirs`` reaches farther along the band than ``mine`` on every line across:
    tested in :data:`_PIECES` pieces. Both far sides are concave across, so on a piece
    ``theirs`` reaches least at an end and ``mine`` most at an end or its farthest
    corner. A stretch reaching an end of ``mine``'s span keeps ``theirs``' end there (no
    line beyond needs cover). Empty where ``hi <= lo``."""
    _, _, h0, h1, a0, b0, a1, b1 = mine
    # The farthest corner of mine: the far ends of its two edge directions.
    peak_u = h0 * abs(a0) + h1 * abs(a1)
    peak_s = h0 * math.copysign(1.0, a0) * b0 + h1 * math.copysign(1.0, a1) * b1
    r0, r1 = max(lo, -side), min(hi, side)
    # Mine reaches least at its span's ends (concave): a far side no farther cannot pass.
    if theirs[0] + theirs[2] * abs(theirs[4]) + theirs[3] * abs(theirs[6]) <= min(
        _far_side(mine, -side), _far_side(mine, side)
    ):
        return 0.0, 0.0
    step = (r1 - r0) / _PIECES
    best_lo, best_hi, run_lo = 0.0, 0.0, np.nan
    s0 = r0
    t0, m0 = _far_side(theirs, s0), _far_side(mine, s0)
    for piece in range(_PIECES):
        s1 = r1 if piece == _PIECES - 1 else r0 + step * (piece + 1)
        t1, m1 = _far_side(theirs, s1), _far_side(mine, s1)
        reach = max(m0, m1)
        if s0 < peak_s < s1:
            reach = max(reach, peak_u)
        if min(t0, t1) > reach + 1e-9 * (1 + abs(theirs[0]) + abs(reach)):
            if run_lo != run_lo:  # NaN: a stretch starts here
                run_lo = s0
            if s1 - run_lo > best_hi - best_lo:
                best_lo, best_hi = run_lo, s1
        else:
            run_lo = np.nan
        s0, t0, m0 = s1, t1, m1
    if best_hi > best_lo:
        best_lo = lo if best_lo == r0 and r0 == -side else best_lo
        best_hi = hi if best_hi == r1 and r1 == side else best_hi
    return best_lo, best_hi


@njit(cache=True, error_model="numpy")
def walled_off(
    i: int,
    j: int,
    frames: np.ndarray,
    cos: np.ndarray,
    sin: np.ndarray,
    half: np.ndarray,
    shield: np.ndarray,
) -> bool:
    """Whether :func:`shields_into`'s ``shield`` proves that every segment between bases
    ``i`` and ``j`` enters another base: in every band the segments can take, ``j`` lies
    wholly beyond ``i``'s shield or ``i`` beyond ``j``'s in the band across."""
    dx, dy = frames[0, j] - frames[0, i], frames[1, j] - frames[1, i]
    d2 = dx * dx + dy * dy
    rr = math.sqrt(frames[4, i] ** 2 + frames[7, i] ** 2)
    rr += math.sqrt(frames[4, j] ** 2 + frames[7, j] ** 2)
    if d2 <= rr * rr * (1 + 1e-6):
        return False
    d = math.sqrt(d2)
    sine = rr / d
    # The bands the segments' directions meet, by index (a walk outwards that stopped at
    # the first band out of reach cost a fifth more: its two exits mispredicted).
    heading, spread = math.atan2(dy, dx), math.asin(sine) + 1e-9
    first = math.floor((heading - spread) / _WIDTH)
    last = math.floor((heading + spread) / _WIDTH)
    across = BINS // 2
    for band in range(first, last + 1):
        b = band & _WRAP
        du = dx * cos[b] + dy * sin[b]
        slack = 1e-9 * (1 + abs(du))
        if not (
            du - half[j, b] > shield[i, b] + slack
            or du - half[i, b] > shield[j, (b + across) & _WRAP] + slack
        ):
            return False
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def walled_into(
    start: int,
    step: int,
    first: np.ndarray,
    second: np.ndarray,
    frames: np.ndarray,
    cos: np.ndarray,
    sin: np.ndarray,
    half: np.ndarray,
    shield: np.ndarray,
    walled: np.ndarray,
) -> None:
    """:func:`walled_off` of pairs ``start``, ``start + step``, ... (``first[k]``,
    ``second[k]``) into ``walled``. Without the GIL: threads may each take every
    ``step``-th pair."""
    for k in range(start, len(first), step):
        walled[k] = walled_off(first[k], second[k], frames, cos, sin, half, shield)
