"""The compiled bearing-bin passes of the LOS map against the numpy forms they replaced,
kept here as oracles: the very same answers, bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee.geometry import segment_polygon
from referee.maps.bearings import _BIN, _BINS, _CONE_SLACK, BearingIndex, Bearings
from referee.maps.los import OpenLines, _deep
from referee.maps.pairwise import upper_pairs
from referee.maps.prepared import (
    OutlineLayout,
    PreparedPolygons,
    points_polygons,
    prepare_polygons,
)
from referee.maps.segments import (
    SegmentContacts,
    golden_depths,
    passes_within,
    segment_contacts,
    stretch_depth_floors,
    stretch_depths,
)

RNG = np.random.default_rng(23)


def _through_numpy(
    bearings: Bearings, toward: tuple[np.ndarray, np.ndarray], radii: np.ndarray, barred: np.ndarray
) -> np.ndarray:
    """``Bearings.through`` as numpy wrote it: every (point, disc) cone drawn into a row of
    bins a quarter turn wider either side, folded back, then the whole table looked up."""
    n = len(bearings.points)
    dist, centre = toward
    m = dist.shape[1]
    r = np.asarray(radii, float).reshape(-1) * (1 - 1e-8)
    seen = (dist > r * (1 + 1e-9) + 1e-9) & (r > 0) & ~barred
    v, k = np.nonzero(seen)
    d = dist[v, k]
    half = np.arcsin(r[k] / d) - _CONE_SLACK
    mid = centre[v, k]
    first = np.ceil((mid - half) / _BIN).astype(np.intp)
    count = np.maximum(np.floor((mid + half) / _BIN).astype(np.intp) - first, 0)
    if n < 2 or not int(count.sum()):
        return np.zeros((n, n), bool)
    bits = max(m - 1, 1).bit_length()
    key = np.ceil(d * 1e6).astype(np.int64) << bits | k
    stride = _BINS + _BINS // 2
    wide = np.full((n, stride), np.iinfo(np.int64).max >> bits << bits)
    rows_of = np.repeat(v, count)
    offs = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    cols = np.repeat(first + _BINS // 4, count) + offs
    np.minimum.at(wide, (rows_of, cols), np.repeat(key, count))
    q = _BINS // 4
    cover = wide[:, q : q + _BINS].copy()
    np.minimum(cover[:, _BINS - q :], wide[:, :q], out=cover[:, _BINS - q :])
    np.minimum(cover[:, :q], wide[:, q + _BINS :], out=cover[:, :q])
    rows = np.arange(n)
    best = cover[rows[:, None], bearings.bins.astype(np.intp)]
    disc = best & ((1 << bits) - 1)
    reach = (best >> bits) * 1e-6
    reach += 1e-6
    reach *= reach
    past = (bearings.length2 > reach) & ~barred[rows[None, :], disc]
    np.fill_diagonal(past, False)
    return np.asarray(past | past.T)


def _table(n: int, m: int, snap: float | None = None) -> tuple[np.ndarray, ...]:
    pts = RNG.uniform(0, 48, (n, 2))
    if snap:
        pts = np.round(pts / snap) * snap  # equal bearings, points on cone edges
    owners = RNG.choice(n, m, replace=False)
    centres = pts[owners] + RNG.normal(0, 0.05, (m, 2))
    radii = RNG.uniform(0.2, 1.5, m)
    radii[RNG.random(m) < 0.1] = 0.0  # outlines with no inner room
    barred = RNG.random((n, m)) < 0.03
    barred[owners, np.arange(m)] = True
    return pts, centres, radii, barred


def test_through_lines_is_the_numpy_table() -> None:
    for n, m, snap in ((60, 30, None), (150, 70, None), (120, 90, 1.0), (90, 1, None)):
        pts, centres, radii, barred = _table(n, m, snap)
        bearings = Bearings.of(pts)
        toward = bearings.toward(centres)
        want = _through_numpy(bearings, toward, radii, barred)
        got = bearings.through(toward, radii, barred)
        assert np.array_equal(got, want) and (want.sum() > n or m == 1)
        i, j = upper_pairs(n)
        some = RNG.random(len(i)) < 0.4
        lines = bearings.through_lines(toward, radii, barred, i[some], j[some])
        assert np.array_equal(lines, want[i[some], j[some]])
        # Asked the other way round, a line is the same line.
        assert np.array_equal(bearings.through_lines(toward, radii, barred, j, i), want[i, j])


def test_through_lines_of_nothing() -> None:
    bearings = Bearings.of(RNG.uniform(0, 10, (5, 2)))
    toward = bearings.toward(np.zeros((0, 2)))
    i, j = upper_pairs(5)
    assert not bearings.through_lines(toward, [], np.zeros((5, 0), bool), i, j).any()
    assert math.isclose(_BIN * _BINS, 2 * math.pi)


def _near_numpy(
    index: BearingIndex,
    toward: tuple[np.ndarray, np.ndarray],
    radii: np.ndarray,
    skip: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """``BearingIndex.near_lines`` as numpy wrote it: every (point, disc) pair's gap,
    the tangent cones as ranges of bins (wrapped ones after all the others), then the
    listed segments of each range."""
    dist2, centre2 = toward
    n, m = dist2.shape
    dist, centre = dist2.ravel(), centre2.ravel()
    radius = np.broadcast_to(np.asarray(radii, float).reshape(-1), (n, m)).ravel()
    gap = np.maximum(dist - radius - 1e-9, 0.0)
    gap *= gap
    q = np.flatnonzero(gap <= np.repeat(index.longest2, m))
    dropped = np.zeros(n * m, bool)
    dropped[skip[0] * m + skip[1]] = True
    q = q[~dropped[q]]
    d, r = dist[q], radius[q]
    c = centre[q] - math.pi
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.arcsin(np.minimum(r / d, 1.0)) + _CONE_SLACK
    inside = d <= r * (1 + 1e-12) + 1e-12
    lo = np.where(inside, -math.pi, c - half)
    hi = np.where(inside, math.pi, c + half)
    low, high = np.flatnonzero(lo < -math.pi), np.flatnonzero(hi > math.pi)
    q = np.concatenate([q, q[low], q[high]])
    q_lo = np.concatenate(
        [np.maximum(lo, -math.pi), lo[low] + 2 * math.pi, np.full(len(high), -math.pi)]
    )
    q_hi = np.concatenate(
        [np.minimum(hi, math.pi), np.full(len(low), math.pi), hi[high] - 2 * math.pi]
    )
    b_lo = np.clip(((q_lo + math.pi) / _BIN).astype(np.intp), 0, _BINS - 1)
    b_hi = np.clip(((q_hi + math.pi) / _BIN).astype(np.intp) + 1, 0, _BINS)
    row = q // m * (_BINS + 1)
    first, last = index.table[row + b_lo], index.table[row + b_hi]
    got = [
        (index.order[p], q[x] % m)
        for x in range(len(q))
        for p in range(first[x], last[x])
        if index.length2[p] >= gap[q[x]]
    ]
    line, disc = np.array(got, np.intp).reshape(-1, 2).T
    return line, disc


def test_near_lines_is_the_numpy_lookup() -> None:
    for n, m, snap in ((60, 30, None), (150, 70, None), (120, 90, 1.0)):
        pts, centres, radii, barred = _table(n, m, snap)
        centres[:3] = pts[:3]  # discs about a point: every bearing from it
        bearings = Bearings.of(pts)
        toward = bearings.toward(centres)
        i, j = upper_pairs(n)
        some = RNG.random(len(i)) < 0.5
        index = bearings.index_lines(i[some], j[some])
        skip = np.nonzero(barred)
        want = _near_numpy(index, toward, radii + 0.1, skip)
        got = index.near_lines(toward, radii + 0.1, skip)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        assert len(want[0]) > n


def _candidates_numpy(
    cs: np.ndarray,
    cp: np.ndarray,
    ri: np.ndarray,
    rj: np.ndarray,
    xy: np.ndarray,
    centre: np.ndarray,
    room: np.ndarray,
    barred: np.ndarray,
    owners: np.ndarray,
    nt: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LOS map's candidate pairs as numpy sifted them: the certificate, then a base
    and its own piece's lines, then a stable sort by line."""
    sure = passes_within(xy[ri[cs]], xy[rj[cs]], centre[cp], room[cp])
    sure &= ~barred[ri[cs], cp] & ~barred[rj[cs], cp]
    done = np.zeros(len(ri), bool)
    done[cs[sure]] = True
    keep = ~done[cs]
    if len(owners):
        owner = owners[np.clip(cp - nt, 0, len(owners) - 1)]
        keep &= (cp < nt) | ((owner != ri[cs]) & (owner != rj[cs]))
    cs, cp = cs[keep], cp[keep]
    by_line = np.argsort(cs, kind="stable")
    return done, cs[by_line], cp[by_line]


def _no_convex(m: int, centres: np.ndarray) -> OutlineLayout:
    """:func:`referee.maps.contacts.open_candidates`' outline tables for ``m`` outlines
    about ``centres`` none of which is convex: only the disc certificate applies."""
    prep = prepare_polygons([[(0, 0), (1, 0), (1, 1), (0, 1)]] * m)
    return prep.layout._replace(centre=centres, convex=np.zeros(m, bool))


@pytest.mark.slow  # a sweep of random outlines
def test_open_candidates_certify_only_lines_deep_in_a_convex_outline() -> None:
    """A line the depth certificate settles crosses one of its convex outlines deeper than
    its doubt, as the line-by-line test measures it (exactly), on tables with lines along
    edges and through corners; and it settles most of the lines that do."""
    from referee.maps.contacts import open_candidates

    for snap in (None, 0.5):
        n, m = 80, 40
        pts = RNG.uniform(0, 30, (n, 2))
        centres = RNG.uniform(0, 30, (m, 2))
        if snap:
            pts, centres = np.round(pts / snap) * snap, np.round(centres / snap) * snap
        half = np.full((m, 2), [0.75, 1.25]) if snap else RNG.uniform(0.05, 1.5, (m, 2))
        corners = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], float)
        polys = [c + h * corners for c, h in zip(centres, half, strict=True)]
        polys[0] = np.array([(0, 0), (2, 0), (1, 1), (2, 2), (0, 2)], float)  # not convex
        prep = prepare_polygons(polys)
        inside, _ = points_polygons(pts, prep)
        i, j = upper_pairs(n)
        ru = RNG.choice([0.0, 0.04, 0.3], len(i))
        cs = np.repeat(np.arange(len(i)), m)
        cp = np.tile(np.arange(m), len(i))
        done, _, _ = open_candidates(
            OpenLines(pts, i, j, ru), cs, cp, prep.layout, np.zeros(m), inside,
            np.zeros(0, np.intp), 0,
        )  # fmt: skip
        deep = np.zeros(len(i), bool)
        near = passes_within(pts[i[cs]], pts[j[cs]], prep.centre[cp], prep.radius[cp] + 1e-6)
        for s, p in zip(cs[near], cp[near], strict=True):
            if deep[s] or inside[i[s], p] or inside[j[s], p]:
                continue
            c = segment_polygon(pts[i[s]], pts[j[s]], polys[p])
            deep[s] = c.contact == "crosses" and c.depth > ru[s]
        assert not (done & ~deep).any()
        assert done.sum() > 0.9 * deep.sum() > 100


def test_open_candidates_sift_as_numpy_did() -> None:
    from referee.maps.contacts import open_candidates

    for n, m, nt, snap in ((80, 40, 10, None), (150, 90, 0, 1.0), (60, 12, 12, None)):
        pts, centres, radii, barred = _table(n, m, snap)
        owners = RNG.choice(n, m - nt, replace=False)
        i, j = upper_pairs(n)
        keep = RNG.random(len(i)) < 0.6
        ri, rj = i[keep], j[keep]
        cs = RNG.integers(0, len(ri), 6 * len(ri))
        cp = RNG.integers(0, m, len(cs))
        args = (cs, cp, ri, rj, pts, centres, radii, barred, owners, nt)
        want = _candidates_numpy(*args)
        lines = OpenLines(pts, ri, rj, np.zeros(len(ri)))
        got = open_candidates(lines, cs, cp, _no_convex(m, centres), radii, barred, owners, nt)
        for a, b in zip(got, want, strict=True):
            assert np.array_equal(a, b)
        assert want[0].sum() > 10 and len(want[1]) > 10


def test_in_contact_sifts_as_numpy_did() -> None:
    """The LOS map's contacts that may block, against the numpy form: contact, then
    ends seen out of terrain, ends near its edge and a base's own piece."""
    from referee.maps.contacts import in_contact

    n, n_lines, nt, nb = 50, 300, 6, 20
    ri, rj = RNG.integers(0, n, n_lines), RNG.integers(0, n, n_lines)
    ru = RNG.choice([0.0, 0.04, 0.1], n_lines)
    seg = np.sort(RNG.integers(0, n_lines, 4000))
    poly = RNG.integers(0, nt + nb, len(seg))
    crosses, touches = RNG.random(len(seg)) < 0.4, RNG.random(len(seg)) < 0.1
    clearance = np.where(crosses, 0.0, RNG.choice([0.02, 0.05, 0.1, np.inf], len(seg)))
    inside = RNG.random((n, nt + nb)) < 0.3
    edge = RNG.choice([0.0, 0.03, 0.04, 0.08, 0.5, np.inf], (n, nt + nb))
    owners = RNG.choice(n, nb, replace=False)
    for owned in (owners, owners[:0]):
        which, excluded, block = in_contact(
            (seg, poly, crosses, touches, clearance),
            OpenLines(np.zeros((n, 2)), ri, rj, ru),
            inside,
            edge,
            owned,
            nt,
        )
        near = np.flatnonzero(crosses | touches | (clearance <= ru[seg] + 1e-12))
        pp, us = poly[near], ru[seg[near]]
        si, sj = ri[seg[near]], rj[seg[near]]
        terrain_col = pp < nt
        col = np.minimum(pp, nt + nb - 1)
        in_i = terrain_col & inside[si, col] & (edge[si, col] > us)
        in_j = terrain_col & inside[sj, col] & (edge[sj, col] > us)
        want_excluded = in_i | in_j
        near_end = terrain_col & ~want_excluded & ((edge[si, col] <= us) | (edge[sj, col] <= us))
        if len(owned):
            owner = owned[np.clip(pp - nt, 0, len(owned) - 1)]
            want_excluded |= ~terrain_col & ((si == owner) | (sj == owner))
        want_block = crosses[near] & ~near_end & ~want_excluded
        assert np.array_equal(which, near) and np.array_equal(excluded, want_excluded)
        assert np.array_equal(block, want_block) and want_block.any() and want_excluded.any()


def _deep_numpy(
    a: np.ndarray,
    b: np.ndarray,
    prep: PreparedPolygons,
    hit: SegmentContacts,
    near: np.ndarray,
    block: np.ndarray,
    us: np.ndarray,
    margin: float,
) -> np.ndarray:
    """``_deep`` as numpy wrote it, pass by pass over every line at once."""
    deep = np.zeros(len(near), bool)
    seg = hit.seg[near]
    blocked = np.zeros(len(a), bool)
    awk = hit.awkward[near]
    fixed = np.flatnonzero(block & awk)
    deep[fixed] = hit.depth[near[fixed]] > us[fixed]
    blocked[seg[fixed[deep[fixed]]]] = True
    sure = np.flatnonzero(block & hit.sure[near])  # certainly deeper than any doubt
    deep[sure] = True
    blocked[seg[sure]] = True
    todo = np.flatnonzero(block & ~awk & ~hit.sure[near])  # in line order
    got = np.full(len(near), np.nan)

    def measure(k: np.ndarray) -> None:
        got[k] = stretch_depths(a, b, prep, hit, near[k])
        deep[k] = got[k] > us[k]
        blocked[seg[k[deep[k]]]] = True

    # Crossings that certainly reach deeper than the doubt (middle of the stretch
    # well inside the polygon's inner disc) block their lines at once.
    sure = todo[stretch_depth_floors(a, b, prep, hit, near[todo]) > us[todo] + 1e-9]
    deep[sure] = True
    blocked[seg[sure]] = True
    todo = todo[~blocked[seg[todo]]]
    if len(todo):
        span = hit.hi[near[todo]] - hit.lo[near[todo]]
        starts = np.flatnonzero(np.r_[True, seg[todo][1:] != seg[todo][:-1]])
        longest = np.maximum.reduceat(span, starts)
        first = span == np.repeat(longest, np.diff(np.r_[starts, len(todo)]))
        pick = todo[first]
        measure(pick[~blocked[seg[pick]]])
        rest = todo[~first]
        measure(rest[~blocked[seg[rest]]])
    # depth = got where got > margin, else max(got, golden): golden can only help
    # where got <= the doubt, and only on lines not already blocked.
    rest = todo[~blocked[seg[todo]]]
    rest = rest[~deep[rest]]
    if len(rest):
        gold = golden_depths(a, b, prep, hit, near[rest], limit=us[rest])
        deep[rest] = np.maximum(got[rest], gold) > us[rest]
    return deep


def _outline(rng: np.random.Generator) -> np.ndarray:
    n = int(rng.integers(3, 9))
    ang = np.sort(rng.uniform(0, 2 * np.pi, n)) if rng.random() < 0.6 else np.arange(n) * 0.8
    r = rng.uniform(0.3, 1.5, n) if rng.random() < 0.4 else np.full(n, rng.uniform(0.3, 1.5))
    c = rng.uniform(2, 22, 2)
    return np.stack([c[0] + r * np.cos(ang), c[1] + r * np.sin(ang)], axis=1)


def test_deep_settles_every_line_as_numpy_did() -> None:
    """The compiled depths give every line the numpy form's verdict (which crossings of
    an already blocked line are measured may differ: the line's verdict may not)."""
    rng = np.random.default_rng(3)
    for doubt in (0.02, 0.2, 0.6):
        pts = rng.uniform(0, 24, (70, 2))
        polys = [_outline(rng) for _ in range(25)]
        i, j = upper_pairs(len(pts))
        prep = prepare_polygons(polys)
        closed, bdist = points_polygons(pts, prep)
        A, B = pts[i], pts[j]
        hit = segment_contacts(A, B, prep, pts, i, j, closed, bdist, doubt, certify=True)
        ru = rng.choice([doubt / 2, doubt], len(i))
        near = np.flatnonzero(hit.crosses)
        us = ru[hit.seg[near]]
        block = rng.random(len(near)) < 0.9
        want = _deep_numpy(A, B, prep, hit, near, block, us, doubt)
        got = _deep(A, B, prep, hit, near, block, us)
        lines = np.unique(hit.seg[near])
        blocked_want = np.isin(lines, hit.seg[near[want]])
        blocked_got = np.isin(lines, hit.seg[near[got]])
        assert np.array_equal(blocked_got, blocked_want)
        assert 0.1 * len(lines) < blocked_want.sum() < len(lines)
        assert not (got & ~want).any()  # a crossing found deep is one numpy finds deep


def test_convex_max_depths_are_the_numpy_floats() -> None:
    """The compiled peak depths in convex outlines, bit for bit: rotated rectangles and
    other convex outlines, spans clipped short of the chord or past it, segments along an
    edge and through corners."""
    from referee.maps.contacts import convex_max_depths
    from referee.maps.segments import _convex_max_depths

    n, m = 400, 30
    angle = RNG.uniform(0, 2 * np.pi, (m, 1)) + np.array([0, 1.9, 3.1, 4.4])
    ring = np.stack([np.cos(angle), np.sin(angle)], -1)
    polys = [RNG.uniform(5, 25, 2) + RNG.uniform(0.3, 2, (1, 2)) * r for r in ring]
    polys[:3] = [
        [(0, 0), (2, 0), (2, 1), (0, 1)],
        [(5, 5), (6, 5), (7, 6), (6, 8)],
        [(9, 9), (11, 9), (10, 10)],
    ]
    prep = prepare_polygons(polys)
    assert prep.convex.all()
    seg = np.arange(n)  # lines across an outline's centre, off by up to 1.5
    poly = RNG.integers(0, m, n)
    turn = RNG.uniform(0, 2 * np.pi, n)
    way = np.stack([np.cos(turn), np.sin(turn)], -1)
    mid = prep.centre[poly] + RNG.uniform(-1.5, 1.5, (n, 1)) * way[:, ::-1] * [1, -1]
    A, B = mid - 4 * way, mid + 4 * way
    A[:20], B[:20] = [-1, 0], [3, 0]  # along an edge
    A[20:40], B[20:40] = [-1, -1], [3, 3]  # through a corner
    poly[seg < 40] = 0
    lo = RNG.uniform(-0.1, 0.55, n)  # spans short of the chord, or past it
    hi = lo + RNG.uniform(0, 0.6, n)
    want = _convex_max_depths(A[seg], B[seg], prep, poly, lo, hi)
    got = convex_max_depths(A, B, seg, poly, lo, hi, prep.halfplanes)
    assert np.array_equal(got, want) and (want > 0).sum() > 100
