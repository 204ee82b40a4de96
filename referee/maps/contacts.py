"""The all-pairs LOS map's hot loops, compiled (numba): the edge tests of
:func:`referee.maps.segments.segment_contacts` for listed (line, outline) pairs; the bearing
bins of :class:`referee.maps.bearings.Bearings` (the index of each point's open lines by
bin, the lines through the nearest disc over each bin, the listed lines near each
disc); the sifting of the map's candidate pairs and contacts (:func:`open_candidates`,
:func:`in_contact`); and the depths of crossed stretches that decide a line
(:func:`deep_crossings`, :func:`referee.maps.segments.stretch_depths`,
:func:`referee.maps.segments.golden_depths`).

numpy laid every candidate pair out against every vertex slot of the widest outline, and
sorted, gathered and scattered whole ``(n, n)`` tables; the loops visit each outline's
own vertices once, skip what a pair does not need, and count-sort each row. The
arithmetic of every test is the numpy form's, op for op, so every answer and every float
is the same (the tests compare them).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from referee.runtime import compiled_loops

if TYPE_CHECKING:
    from referee.maps.bearings import DiscsSeen
    from referee.maps.los import OpenLines
    from referee.maps.prepared import OutlineLayout
    from referee.maps.segments import SegmentEnds

compiled_loops(__name__, "the LOS map")

EPS = 1e-9  # referee.geometry.EPS; not imported, so this module stands below geometry


@njit(cache=True, nogil=True, error_model="numpy")
def contacts(
    ends: SegmentEnds,
    outlines: OutlineLayout,
    cs: np.ndarray,
    cp: np.ndarray,
    room: np.ndarray,
    margin: float,
    spans: bool,
    certify: bool,
) -> tuple[np.ndarray, ...]:
    """The candidate (segment ``cs[k]``, polygon ``cp[k]``) pairs that can be in contact,
    in order, as ``(k, crosses, clearance, awkward, lo, hi, sure)`` (``lo``, ``hi``
    empty without ``spans``).

    ``ends``: the segments and where their ends stand against the outlines
    (:class:`referee.maps.segments.SegmentEnds`); ``outlines``: the polygons' tables
    (:class:`referee.maps.prepared.OutlineLayout`: vertices, edges, edge tolerances,
    boxes, bounding circles); ``room`` (``(2, polygons)``) the inner discs for segments
    without and with an end inside, used when ``certify``."""
    A, B, ia, ib, closed, bdist = ends.A, ends.B, ends.ia, ends.ib, ends.closed, ends.bdist
    cx, cy, ex, ey, etol = outlines.cx, outlines.cy, outlines.ex, outlines.ey, outlines.etol
    counts = outlines.counts
    lo_box, hi_box, centre, radius = outlines.lo, outlines.hi, outlines.centre, outlines.radius
    reach = margin + 1e-6
    big = (radius + reach) ** 2
    n = len(cs)
    keep = np.empty(n, np.int64)
    crosses = np.empty(n, np.bool_)
    clear = np.empty(n, np.float64)
    awkward = np.empty(n, np.bool_)
    sure = np.empty(n, np.bool_)
    lo = np.empty(n if spans else 0)
    hi = np.empty(n if spans else 0)
    got = 0
    for k in range(n):
        s, p = cs[k], cp[k]
        ax, ay, bx, by = A[s, 0], A[s, 1], B[s, 0], B[s, 1]
        # Both ends beyond the same side of the box (widened by the reach): a miss.
        x0, y0 = lo_box[p, 0] - reach, lo_box[p, 1] - reach
        x1, y1 = hi_box[p, 0] + reach, hi_box[p, 1] + reach
        if (ax < x0 and bx < x0) or (ax > x1 and bx > x1):
            continue
        if (ay < y0 and by < y0) or (ay > y1 and by > y1):
            continue
        abx, aby = bx - ax, by - ay
        # The line through the segment within reach of the bounding circle.
        qx, qy = centre[p, 0] - ax, centre[p, 1] - ay
        off = qx * aby - qy * abx
        if not off * off <= (abx * abx + aby * aby) * big[p]:
            continue
        a_d, b_d = bdist[ia[s], p], bdist[ib[s], p]
        a_in = closed[ia[s], p] and a_d > EPS  # strictly inside
        b_in = closed[ib[s], p] and b_d > EPS
        keep[got] = k
        if certify:  # well inside the inner disc: crosses, deep (see inner_room)
            r = room[1 if (a_in or b_in) else 0, p]
            t = qx * abx
            t += qy * aby
            t /= max(abx * abx + aby * aby, 1e-300)
            t = min(max(t, 0.0), 1.0)
            dx, dy = qx - t * abx, qy - t * aby
            if r > 0 and dx * dx + dy * dy < r * r * (1 - 1e-9):
                crosses[got], clear[got], awkward[got], sure[got] = True, 0.0, False, True
                if spans:
                    lo[got], hi[got] = 0.0, 1.0
                got += 1
                continue
        sure[got] = False
        seg_len = math.hypot(abx, aby)
        tol = EPS * max(seg_len, 1.0)
        len2 = max(seg_len**2, 1e-300)
        m = counts[p]
        cross = a_in or b_in
        t_lo, t_hi = np.inf, -np.inf
        odd = a_d <= EPS or b_d <= EPS  # an end on the outline: a knife edge
        near = min(a_d, b_d)
        first_side = 0
        side = 0
        for v in range(m + 1):
            w = v if v < m else 0
            o_c = (cy[p, w] - ay) * abx - (cx[p, w] - ax) * aby
            side_v = 1 if o_c > tol else (-1 if o_c < -tol else 0)
            if v == m:
                side_v = first_side
            elif side_v == 0:
                # A vertex on the segment's line: a knife edge if on the segment.
                t_v = ((cx[p, w] - ax) * abx + (cy[p, w] - ay) * aby) / len2
                odd = odd or (t_v >= -EPS and t_v <= 1 + EPS)
            if v == 0:
                first_side = side_v
            elif side * side_v < 0:  # edge v - 1 straddles the line: crosses it properly?
                e = v - 1
                exx, eyy = ex[p, e], ey[p, e]
                ax1, ay1 = ax - cx[p, e], ay - cy[p, e]
                e_a = exx * ay1 - eyy * ax1
                e_b = exx * (ay1 + aby) - eyy * (ax1 + abx)
                et = etol[p, e]
                if abs(e_a) > et and abs(e_b) > et and (e_a > 0) != (e_b > 0):
                    cross = True
                    if spans:
                        t_cross = e_a / (e_a - e_b)
                        t_lo, t_hi = min(t_lo, t_cross), max(t_hi, t_cross)
            side = side_v
            if v < m and margin > 0 and abs(o_c) <= (margin + EPS) * seg_len:
                t_n = ((cx[p, w] - ax) * abx + (cy[p, w] - ay) * aby) / len2
                if t_n >= 0 and t_n <= 1:
                    near = min(near, abs(o_c) / np.sqrt(len2))
        crosses[got] = cross
        awkward[got] = odd
        if cross:
            clear[got] = 0.0
        elif margin > 0 and near <= margin + EPS:
            clear[got] = near
        else:
            clear[got] = np.inf
        if spans:
            t_lo = 0.0 if a_in else t_lo
            t_hi = 1.0 if b_in else t_hi
            lo[got] = t_lo if np.isfinite(t_lo) else 0.0  # wholly inside: no edge crossed
            hi[got] = t_hi if np.isfinite(t_hi) else 1.0
        got += 1
    return (
        keep[:got].copy(),
        crosses[:got].copy(),
        clear[:got].copy(),
        awkward[:got].copy(),
        lo[: got if spans else 0].copy(),
        hi[: got if spans else 0].copy(),
        sure[:got].copy(),
    )


@njit(cache=True, nogil=True, error_model="numpy")
def bin_lines(
    bins: np.ndarray, length2: np.ndarray, li: np.ndarray, lj: np.ndarray, n_bins: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The lines ``li[c]``-``lj[c]`` (in order of ``li``) listed from ``li`` by bin of
    bearing (a counting sort, stable), the index :meth:`referee.maps.bearings.Bearings.index`
    builds: ``(which line, its squared length, where each row's bins start in that
    order, each row's longest squared length)``. Work in the lines and the bins only,
    not the whole table."""
    n = bins.shape[0]
    order = np.empty(len(li), np.intp)
    sorted2 = np.empty(len(li))
    table = np.empty(n * (n_bins + 1) + 1, np.intp)
    table[-1] = len(li)
    longest2 = np.zeros(n)
    count = np.empty(n_bins + 1, np.intp)
    at = np.empty(n_bins + 1, np.intp)
    c = 0
    for i in range(n):
        c0 = c
        while c < len(li) and li[c] == i:
            c += 1
        count[:] = 0
        for x in range(c0, c):
            count[bins[i, lj[x]]] += 1
            longest2[i] = max(longest2[i], length2[i, lj[x]])
        start = c0
        for b in range(n_bins + 1):
            table[i * (n_bins + 1) + b] = start
            at[b] = start
            start += count[b]
        for x in range(c0, c):
            b = bins[i, lj[x]]
            order[at[b]] = x
            sorted2[at[b]] = length2[i, lj[x]]
            at[b] += 1
    return order, sorted2, table, longest2


@njit(cache=True, nogil=True, error_model="numpy")
def through_lines(
    discs: DiscsSeen,
    bins: np.ndarray,
    length2: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    geometry: tuple[float, int, float],
) -> np.ndarray:
    """:meth:`referee.maps.bearings.Bearings.through_lines`: the nearest disc over each (point,
    bin), cone by cone, then each line ``i[c]``-``j[c]`` looked up from both ends.
    ``discs``: the discs as each point sees them (:class:`referee.maps.bearings.DiscsSeen`);
    ``bins``, ``length2``: each pair's bearing bin and squared length; ``geometry`` the
    bin width, bins per turn and the cone slack."""
    dist, centre, half, r = discs.dist, discs.centre, discs.half, discs.r
    barred, bits = discs.barred, discs.bits
    bin_, n_bins, slack = geometry
    n, m = dist.shape
    # A bin no disc covers keeps a key of disc 0 at a distance no segment reaches.
    none = (np.int64(0x7FFFFFFFFFFFFFFF) >> bits) << bits
    # Each point's row of bins runs a quarter turn either side (a cone is at most a
    # half turn; a bearing plus pi is within a turn), folded back after: no wrapping.
    q = n_bins // 4
    wide = np.full((n, n_bins + 2 * q + 4), none, np.int64)  # + 4: the selects' spares
    for v in range(n):
        for k in range(m):
            d = dist[v, k]
            if not (d > r[k] * (1 + 1e-9) + 1e-9 and r[k] > 0 and not barred[v, k]):
                continue
            h = half[v, k] - slack  # narrowed: every bearing inside passes
            mid = centre[v, k]
            first = np.int64(np.ceil((mid - h) / bin_))
            last = np.int64(np.floor((mid + h) / bin_))
            key = (np.int64(np.ceil(d * 1e6)) << bits) | k
            # Most cones cover a few bins: four written by selects, not a loop whose
            # length mispredicts (the loop took twice the time), then any more.
            at = first + q
            for b in range(4):
                wide[v, at + b] = min(wide[v, at + b], key if first + b < last else none)
            for b in range(at + 4, last + q):
                wide[v, b] = min(wide[v, b], key)
    cover = np.empty((n, n_bins), np.int64)
    for v in range(n):
        cover[v] = wide[v, q : q + n_bins]
        for b in range(q):
            cover[v, n_bins - q + b] = min(cover[v, n_bins - q + b], wide[v, b])
            cover[v, b] = min(cover[v, b], wide[v, q + n_bins + b])
    mask = (np.int64(1) << bits) - 1
    out = np.empty(len(i), np.bool_)
    for c in range(len(i)):
        past = False
        for p, q in ((i[c], j[c]), (j[c], i[c])):
            best = cover[p, bins[p, q]]
            reach = (best >> bits) * 1e-6
            reach += 1e-6
            reach *= reach
            past |= (length2[p, q] > reach) & (not barred[q, best & mask])
        out[c] = past
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def near_gaps(
    dist: np.ndarray,
    radius: np.ndarray,
    longest2: np.ndarray,
    skip_p: np.ndarray,
    skip_k: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The first half of :meth:`referee.maps.bearings.BearingIndex.near_lines`: the (point,
    disc) pairs whose disc's near side some listed segment of the point reaches, less
    those ``skip_p``, ``skip_k`` name, with the squared gap and the ratio whose arcsin
    (numpy's, taken between the halves) is the tangent cone's half angle: ``(point,
    disc, gap2, ratio)``. Point and disc apart, not as one flat index: a 64-bit
    division to split that again cost more than all the rest."""
    n, m = dist.shape
    dropped = np.zeros((n, m), np.bool_)
    for c in range(len(skip_p)):
        dropped[skip_p[c], skip_k[c]] = True
    qv = np.empty(n * m, np.intp)
    qk = np.empty(n * m, np.intp)
    gap2 = np.empty(n * m)
    ratio = np.empty(n * m)
    got = 0
    for v in range(n):
        for k in range(m):
            gap = max(dist[v, k] - radius[k] - 1e-9, 0.0)
            gap *= gap
            if gap <= longest2[v] and not dropped[v, k]:
                qv[got], qk[got], gap2[got] = v, k, gap
                r = radius[k] / dist[v, k]
                ratio[got] = 1.0 if r > 1.0 else r  # np.minimum: nan stays nan
                got += 1
    return qv[:got].copy(), qk[:got].copy(), gap2[:got].copy(), ratio[:got].copy()


@njit(cache=True, nogil=True, error_model="numpy")
def near_lines(
    qv: np.ndarray,
    qk: np.ndarray,
    gap2: np.ndarray,
    half: np.ndarray,
    dist: np.ndarray,
    radius: np.ndarray,
    centre: np.ndarray,
    index: tuple[np.ndarray, np.ndarray, np.ndarray],
    geometry: tuple[float, int],
) -> tuple[np.ndarray, np.ndarray]:
    """The second half of :meth:`referee.maps.bearings.BearingIndex.near_lines`: ``(line,
    disc)`` for each (point ``qv[c]``, disc ``qk[c]``) and each listed line of the point
    in the bins of the disc's tangent cone (half angle ``half[c]``) whose length reaches
    the disc's near side; cones across the bearing -pi/pi as two ranges, the second
    ones after all the first (numpy's order). ``index`` is :func:`bin_lines`' order,
    squared lengths and table."""
    order, length2, table = index
    bin_, n_bins = geometry
    pi = math.pi
    n_q = len(qv)
    # Each range: the pair it is of, where its listed lines start and end.
    src = np.empty(3 * n_q, np.intp)
    first = np.empty(3 * n_q, np.intp)
    last = np.empty(3 * n_q, np.intp)
    lo_of = np.empty(n_q)
    hi_of = np.empty(n_q)
    got = 0
    for w in range(3):
        for c in range(n_q):
            v, k = qv[c], qk[c]
            if w == 0:
                d, r = dist[v, k], radius[k]
                cc = centre[v, k] - pi
                inside = d <= r * (1 + 1e-12) + 1e-12
                lo_of[c] = -pi if inside else cc - half[c]
                hi_of[c] = pi if inside else cc + half[c]
                q_lo, q_hi = max(lo_of[c], -pi), min(hi_of[c], pi)
            elif w == 1:
                if not lo_of[c] < -pi:
                    continue
                q_lo, q_hi = lo_of[c] + 2 * pi, pi
            else:
                if not hi_of[c] > pi:
                    continue
                q_lo, q_hi = -pi, hi_of[c] - 2 * pi
            b_lo = min(max(np.intp((q_lo + pi) / bin_), 0), n_bins - 1)
            b_hi = min(max(np.intp((q_hi + pi) / bin_) + 1, 0), n_bins)
            row = v * (n_bins + 1)
            src[got], first[got], last[got] = c, table[row + b_lo], table[row + b_hi]
            got += 1
    total = 0
    for x in range(got):
        total += max(last[x] - first[x], 0)
    line = np.empty(total, np.intp)
    disc = np.empty(total, np.intp)
    out = 0
    for x in range(got):
        c = src[x]
        for p in range(first[x], last[x]):
            if length2[p] >= gap2[c]:
                line[out], disc[out] = order[p], qk[c]
                out += 1
    return line[:out].copy(), disc[:out].copy()


@njit(cache=True, nogil=True, error_model="numpy")
def open_candidates(
    lines: OpenLines,
    cs: np.ndarray,
    cp: np.ndarray,
    outlines: OutlineLayout,
    room: np.ndarray,
    barred: np.ndarray,
    owners: np.ndarray,
    nt: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The candidate (line ``cs[k]``, outline ``cp[k]``) pairs of the LOS map's open
    ``lines`` (:class:`OpenLines`): the lines that pass strictly within an outline's
    ``room`` of its centre, neither end barred from it, are certainly blocked (``done``,
    :func:`referee.maps.segments.passes_within`'s arithmetic), and so are those that reach
    deeper than their doubt into a convex outline, neither end barred, clear of every
    knife edge; the pairs of the other lines, less a base and
    its own piece's lines, go on grouped by line (a stable counting sort): ``(done,
    lines, outlines)``. ``outlines``: their tables, half-planes for the convex ones
    (:class:`referee.maps.prepared.OutlineLayout`)."""
    xy, ri, rj, ru = lines.xy, lines.i, lines.j, lines.u
    centre = outlines.centre
    n_lines = len(ri)
    done = np.zeros(n_lines, np.bool_)
    is_convex, hx, hy, ho = outlines.convex, outlines.hx, outlines.hy, outlines.ho
    cx, cy, ex, ey, etol = outlines.cx, outlines.cy, outlines.ex, outlines.ey, outlines.etol
    counts = outlines.counts
    for k in range(len(cs)):
        s, p = cs[k], cp[k]
        ax, ay = xy[ri[s], 0], xy[ri[s], 1]
        abx, aby = xy[rj[s], 0] - ax, xy[rj[s], 1] - ay
        qx, qy = centre[p, 0] - ax, centre[p, 1] - ay
        t = qx * abx
        t += qy * aby
        t /= max(abx * abx + aby * aby, 1e-300)
        t = min(max(t, 0.0), 1.0)
        qx -= t * abx
        qy -= t * aby
        qx *= qx
        qy *= qy
        qx += qy
        sure = (room[p] > 0) & (qx < room[p] * room[p] * (1 - 1e-9))
        free = (not barred[ri[s], p]) and (not barred[rj[s], p])
        done[s] |= sure & free
        if done[s] or not free or not is_convex[p]:
            continue
        # Deeper than the doubt somewhere along the line: the least of the edges' inward
        # distances (each linear in t) above it for some t in [0, 1]. The margin over
        # the doubt and the knife-edge guards leave every line certified here one that
        # the edge tests find crossing, not awkward, and the depth search deep.
        floor = ru[s] + 1e-6
        t_lo, t_hi, flat = 0.0, 1.0, False
        for e in range(counts[p]):  # selects, not branches: the slopes' signs are random
            d_a = hx[p, e] * ax + hy[p, e] * ay - ho[p, e]
            slope = hx[p, e] * abx + hy[p, e] * aby
            bound = (floor - d_a) / slope
            t_lo = max(t_lo, bound) if slope > 0 else t_lo
            t_hi = min(t_hi, bound) if slope < 0 else t_hi
            flat |= (slope == 0) & (d_a <= floor)
        if not t_lo < t_hi or flat:
            continue
        tol = 4 * EPS * max(math.hypot(abx, aby), 1.0)
        clean = True  # no vertex near the line, no end near an edge's line
        for e in range(counts[p]):
            o_c = (cy[p, e] - ay) * abx - (cx[p, e] - ax) * aby
            ax1, ay1 = ax - cx[p, e], ay - cy[p, e]
            e_a = ex[p, e] * ay1 - ey[p, e] * ax1
            e_b = ex[p, e] * (ay1 + aby) - ey[p, e] * (ax1 + abx)
            et = 4 * etol[p, e]
            clean &= abs(o_c) > tol and abs(e_a) > et and abs(e_b) > et
        done[s] = clean
    count = np.zeros(n_lines + 1, np.intp)
    keep = np.empty(len(cs), np.bool_)
    last = len(owners) - 1
    for k in range(len(cs)):
        s, p = cs[k], cp[k]
        ok = not done[s]
        if p >= nt and last >= 0:  # a base never blocks its own piece's line
            owner = owners[min(max(p - nt, 0), last)]
            ok &= (owner != ri[s]) & (owner != rj[s])
        keep[k] = ok
        count[s + 1] += ok
    for s in range(n_lines):
        count[s + 1] += count[s]
    which_line = np.empty(count[n_lines], np.intp)
    which_outline = np.empty(count[n_lines], np.intp)
    for k in range(len(cs)):
        if keep[k]:
            at = count[cs[k]]
            which_line[at], which_outline[at] = cs[k], cp[k]
            count[cs[k]] += 1
    return done, which_line, which_outline


@njit(cache=True, nogil=True, error_model="numpy")
def in_contact(
    hit: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    lines: OpenLines,
    inside: np.ndarray,
    edge: np.ndarray,
    owners: np.ndarray,
    nt: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LOS map's (line, outline) contacts that can block or cast doubt (crossing,
    touching or within the line's doubt), of ``hit`` (``seg``, ``poly``, ``crosses``,
    ``touches``, ``clearance`` of :class:`referee.maps.segments.SegmentContacts`) and the
    open ``lines``: ``(which, excluded, would block)``. Excluded: terrain (outlines
    below ``nt``) an end is inside deeper than the doubt (seen out of), or the base
    (``owners``) of an end's own piece; a crossing would block unless excluded or an
    end is within the doubt of the terrain's edge (doubtful then)."""
    ri, rj, ru = lines.i, lines.j, lines.u
    seg, poly, crosses, touches, clearance = hit
    which = np.empty(len(seg), np.intp)
    excluded = np.empty(len(seg), np.bool_)
    block = np.empty(len(seg), np.bool_)
    last = len(owners) - 1
    got = 0
    for k in range(len(seg)):
        s, p = seg[k], poly[k]
        us = ru[s]
        if not (crosses[k] | touches[k] | (clearance[k] <= us + 1e-12)):
            continue
        si, sj = ri[s], rj[s]
        ex = False
        near_end = False
        if p < nt:
            ex = (inside[si, p] & (edge[si, p] > us)) | (inside[sj, p] & (edge[sj, p] > us))
            near_end = (not ex) & ((edge[si, p] <= us) | (edge[sj, p] <= us))
        elif last >= 0:
            owner = owners[min(max(p - nt, 0), last)]
            ex = (si == owner) | (sj == owner)
        which[got], excluded[got] = k, ex
        block[got] = crosses[k] & (not near_end) & (not ex)
        got += 1
    return which[:got].copy(), excluded[:got].copy(), block[:got].copy()


@njit(cache=True, inline="always", nogil=True, error_model="numpy")
def _signed_distance(px: float, py: float, p: int, rows: tuple) -> float:
    """Distance from a point to outline ``p`` (:attr:`PreparedPolygons.rows`), positive
    inside by crossing number: ``referee.maps.prepared._dist_parity``'s arithmetic."""
    cx, cy, dy, ex, ey, den, flat, pad = rows
    dist = np.inf
    inside = False
    for e in range(cx.shape[1]):
        if pad[p, e]:
            continue
        apx, apy = px - cx[p, e], py - cy[p, e]
        t = apx * ex[p, e]
        t += apy * ey[p, e]
        t /= den[p, e]
        t = 0.0 if flat[p, e] else min(max(t, 0.0), 1.0)
        dist = min(dist, math.hypot(apx - t * ex[p, e], apy - t * ey[p, e]))
        if (cy[p, e] > py) != (dy[p, e] > py):
            x_at = py - cy[p, e]
            x_at *= ex[p, e]
            x_at /= ey[p, e]
            x_at += cx[p, e]
            if px < x_at:
                inside = not inside
    return dist if inside else -dist


@njit(cache=True, inline="always", nogil=True, error_model="numpy")
def _middle_depth(
    A: np.ndarray,
    B: np.ndarray,
    s: int,
    p: int,
    mid: float,
    convex: np.ndarray,
    halfplanes: tuple[np.ndarray, np.ndarray, np.ndarray],
    rows: tuple,
) -> float:
    """Depth inside outline ``p`` of the point at ``mid`` along segment ``A[s]``-``B[s]``
    (0 if not inside): half-planes for convex outlines, else distance and parity."""
    hx, hy, ho = halfplanes
    ax, ay = A[s, 0], A[s, 1]
    mx = ax + mid * (B[s, 0] - ax)
    my = ay + mid * (B[s, 1] - ay)
    if convex[p]:
        got = np.inf
        for e in range(hx.shape[1]):
            d = hx[p, e] * mx
            d += hy[p, e] * my
            d -= ho[p, e]
            got = min(got, d)
        return max(got, 0.0)
    inside = _signed_distance(mx, my, p, rows)
    return inside if inside > 0 else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def middle_depths(
    A: np.ndarray,
    B: np.ndarray,
    seg: np.ndarray,
    poly: np.ndarray,
    mid: np.ndarray,
    convex: np.ndarray,
    halfplanes: tuple[np.ndarray, np.ndarray, np.ndarray],
    rows: tuple,
) -> np.ndarray:
    """Depth inside outline ``poly[k]`` of the point at ``mid[k]`` along segment
    ``A[seg[k]]``-``B[seg[k]]`` (0 if not inside): :func:`referee.maps.segments.stretch_depths`'
    arithmetic (half-planes for convex outlines, else distance and crossing parity)."""
    out = np.empty(len(seg))
    for k in range(len(seg)):
        out[k] = _middle_depth(A, B, seg[k], poly[k], mid[k], convex, halfplanes, rows)
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def deep_crossings(
    A: np.ndarray,
    B: np.ndarray,
    hit: tuple[np.ndarray, ...],
    near: np.ndarray,
    block: np.ndarray,
    us: np.ndarray,
    outlines: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    halfplanes: tuple[np.ndarray, np.ndarray, np.ndarray],
    rows: tuple,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which of the crossings that would block (``block``, over contacts ``near`` of
    ``hit``: ``seg``, ``poly``, ``awkward``, ``sure``, ``depth``, ``lo``, ``hi`` of
    :class:`referee.maps.segments.SegmentContacts`, in line order) reach deeper than their
    doubt ``us``, line by line, as ``referee.maps.los._deep`` reads them: knife edges
    by their depth, certified ones at once, then the floor of the middle depth
    (:func:`referee.maps.segments.stretch_depth_floors`' arithmetic), then the middle depth
    itself (the line's longest stretch first); the first deep one settles its line, so
    the rest of it is never measured. ``outlines``: ``convex``, ``inner``, ``centre``.
    Returns ``(deep, middle depths (nan where not measured), crossings still to
    search)``: those of lines no test settled."""
    seg, poly, awkward, sure, depth, lo, hi = hit
    convex, inner, centre = outlines[0], outlines[1], outlines[2]
    n = len(near)
    deep = np.zeros(n, np.bool_)
    got = np.full(n, np.nan)
    search = np.empty(n, np.intp)
    n_search = 0
    k = 0
    while k < n:
        line = seg[near[k]]
        end = k
        while end < n and seg[near[end]] == line:
            end += 1
        blocked = False
        for x in range(k, end):  # knife edges, certified, the floors
            if not block[x]:
                continue
            h = near[x]
            if awkward[h]:
                deep[x] = depth[h] > us[x]
            elif sure[h]:
                deep[x] = True
            else:
                p = poly[h]
                mid = (lo[h] + hi[h]) / 2
                ax, ay = A[line, 0], A[line, 1]
                mx = ax + mid * (B[line, 0] - ax)
                my = ay + mid * (B[line, 1] - ay)
                mx -= centre[p, 0]
                my -= centre[p, 1]
                deep[x] = inner[p] - np.sqrt(mx * mx + my * my) > us[x] + 1e-9
            if deep[x]:
                blocked = True
                break
        if not blocked:  # the middle depths: the longest stretches first
            longest = -np.inf
            for x in range(k, end):
                h = near[x]
                if block[x] and not awkward[h] and not sure[h]:
                    longest = max(longest, hi[h] - lo[h])
            for first in (True, False):
                for x in range(k, end):
                    h = near[x]
                    if not block[x] or awkward[h] or sure[h]:
                        continue
                    if (hi[h] - lo[h] == longest) != first:
                        continue
                    mid = (lo[h] + hi[h]) / 2
                    got[x] = _middle_depth(A, B, line, poly[h], mid, convex, halfplanes, rows)
                    deep[x] = got[x] > us[x]
                    if deep[x]:
                        blocked = True
                        break
                if blocked:
                    break
        if not blocked:  # the search for the deepest point decides the rest
            for x in range(k, end):
                h = near[x]
                if block[x] and not awkward[h] and not sure[h]:
                    search[n_search] = x
                    n_search += 1
        k = end
    return deep, got, search[:n_search].copy()


@njit(cache=True, nogil=True, error_model="numpy")
def golden_search(
    A: np.ndarray,
    B: np.ndarray,
    poly: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    rows: tuple,
    iters: int,
    limit: np.ndarray,
) -> np.ndarray:
    """``referee.maps.segments._golden_many`` row by row: the golden-section maximum of the
    signed distance to outline ``poly[k]`` along segment ``A[k]``-``B[k]`` over ``lo[k]``
    to ``hi[k]``. With ``limit`` (non-empty), a row stops as soon as whether its maximum
    exceeds ``limit[k]`` is settled; its value then only answers that comparison."""
    g = (math.sqrt(5) - 1) / 2
    out = np.empty(len(poly))
    for k in range(len(poly)):
        ax, ay = A[k, 0], A[k, 1]
        abx, aby = B[k, 0] - ax, B[k, 1] - ay
        p = poly[k]
        length = math.hypot(abx, aby) * (1 + 1e-9)
        a, b = lo[k], hi[k]
        x1, x2 = b - g * (b - a), a + g * (b - a)
        f1 = _signed_distance(ax + x1 * abx, ay + x1 * aby, p, rows)
        f2 = _signed_distance(ax + x2 * abx, ay + x2 * aby, p, rows)
        best = np.nan
        for _ in range(iters):
            if len(limit):
                top = max(f1, f2)
                cap = max(f1 + (x1 - a) * length, f2 + (b - x2) * length)
                cap = max(cap, (f1 + f2 + abs(x2 - x1) * length) / 2)
                if top > limit[k] or cap + 1e-9 <= limit[k]:
                    best = top
                    break
            if f1 < f2:  # the maximum lies right of x1
                a = x1
                new_x = a + g * (b - a)
                x1, f1 = x2, f2
                x2, f2 = new_x, _signed_distance(ax + new_x * abx, ay + new_x * aby, p, rows)
            else:
                b = x2
                new_x = b - g * (b - a)
                x2, f2 = x1, f1
                x1, f1 = new_x, _signed_distance(ax + new_x * abx, ay + new_x * aby, p, rows)
        out[k] = max(max(f1, f2) if np.isnan(best) else best, 0.0)
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def convex_max_depths(
    A: np.ndarray,
    B: np.ndarray,
    seg: np.ndarray,
    poly: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    halfplanes: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """``referee.maps.segments._convex_max_depths`` of segments ``A[seg[k]]``-``B[seg[k]]``
    over ``lo[k]..hi[k]`` in convex outlines ``poly[k]``, op for op (the same floats):
    numpy spent its time on a dozen small ``(k, 8, 8)`` temporaries, not arithmetic."""
    hx, hy, ho = halfplanes
    w = hx.shape[1]
    out = np.empty(len(seg))
    a = np.empty(w)
    b = np.empty(w)
    for k in range(len(seg)):
        s, p = seg[k], poly[k]
        ax, ay = A[s, 0], A[s, 1]
        dx, dy = B[s, 0] - ax, B[s, 1] - ay
        for e in range(w):
            a[e] = hx[p, e] * ax + hy[p, e] * ay - ho[p, e]
            b[e] = hx[p, e] * dx + hy[p, e] * dy
        # The peak: the lowest crossing of a rising and a falling edge line (the first
        # such in numpy's order), else the span's start.
        best, peak = np.inf, lo[k]
        for e in range(w):
            if not b[e] > 0:
                continue
            for f in range(w):
                if not b[f] < 0:
                    continue
                steep = b[e] - b[f]
                height = (a[e] * -b[f] + a[f] * b[e]) / steep
                if height < best:
                    best, peak = height, (a[f] - a[e]) / steep
        if not np.isfinite(best):
            peak = lo[k]
        got = 0.0
        for t in (lo[k], hi[k], min(max(peak, lo[k]), hi[k])):
            depth = np.inf
            for e in range(w):
                depth = min(depth, a[e] + b[e] * t)
            got = max(got, depth)
        out[k] = got
    return out
