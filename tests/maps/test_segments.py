"""The sparse contact core and the prepared outlines agree with the dense and scalar tests."""

from __future__ import annotations

import numpy as np
import pytest

from referee.geometry import segment_polygon, signed_boundary_distance
from referee.maps.bearings import Bearings
from referee.maps.prepared import (
    PreparedPolygons,
    inner_room,
    points_near_polygons,
    points_polygons,
    prepare_polygons,
)
from referee.maps.segments import (
    SegmentContacts,
    golden_depths,
    segment_contacts,
    segments_polygons,
    stretch_depth_floors,
    stretch_depths,
)

from .sweep import sweep

RNG = np.random.default_rng(7)


def _star(rng: np.random.Generator) -> np.ndarray:
    n = int(rng.integers(3, 9))
    r = rng.uniform(1.0, 4.0, n)
    ang = 2 * np.pi * np.arange(n) / n
    c = rng.uniform(4, 32, 2)
    return np.stack([c[0] + r * np.cos(ang), c[1] + r * np.sin(ang)], axis=1)


def _contacts(
    pts: np.ndarray, polys: list[np.ndarray], margin: float
) -> tuple[np.ndarray, np.ndarray, PreparedPolygons, SegmentContacts]:
    """Every line between two of ``pts`` against ``polys``: ``(i, j, prep, contacts)``."""
    i, j = np.triu_indices(len(pts), k=1)
    prep = prepare_polygons(polys)
    closed, bdist = points_polygons(pts, prep)
    return i, j, prep, segment_contacts(pts[i], pts[j], prep, pts, i, j, closed, bdist, margin)


def test_sparse_contacts_are_the_dense_answers_and_nothing_else_is_near() -> None:
    polys = [_star(RNG) for _ in range(10)]
    pts = RNG.uniform(0, 36, (30, 2))
    pts[0] = polys[0][0]  # an endpoint on a vertex: a knife edge
    margin = 0.3
    i, j, _, con = _contacts(pts, polys, margin)
    dense = segments_polygons(pts[i], pts[j], polys, margin=margin, depth=True)
    assert np.array_equal(dense.crosses[con.seg, con.poly], con.crosses)
    assert np.array_equal(dense.touches[con.seg, con.poly], con.touches)
    assert np.array_equal(dense.clearance[con.seg, con.poly], con.clearance)
    elsewhere = np.ones(dense.crosses.shape, bool)
    elsewhere[con.seg, con.poly] = False
    assert not (dense.crosses | dense.touches)[elsewhere].any()
    assert np.all(dense.clearance[elsewhere] == np.inf)
    for s, k in zip(*np.nonzero(elsewhere), strict=True):
        if (s + k) % 7 == 0:  # a sample of the pairs the prefilters dropped
            assert segment_polygon(pts[i[s]], pts[j[s]], polys[k]).clearance > margin


def test_points_polygons_on_prepared_outlines_matches_the_scalar_distance() -> None:
    polys = [_star(RNG) for _ in range(5)]
    pts = RNG.uniform(0, 36, (40, 2))
    inside, dist = points_polygons(pts, prepare_polygons(polys))
    for k, poly in enumerate(polys):
        signed = signed_boundary_distance(pts, poly)
        assert np.allclose(np.where(inside[:, k], dist[:, k], -dist[:, k]), signed, atol=1e-12)


def _convex(rng: np.random.Generator, n: int) -> np.ndarray:
    ang = np.sort(rng.uniform(0, 2 * np.pi, n))
    r = rng.uniform(2.0, 5.0)
    c = rng.uniform(6, 30, 2)
    return np.stack([c[0] + r * np.cos(ang), c[1] + r * np.sin(ang)], axis=1)


def test_many_vertex_outlines_give_the_scalar_depths() -> None:
    # 9-20 vertices: the padded edge tables span more than one block of 8 columns.
    polys = [_convex(RNG, int(RNG.integers(9, 21))) for _ in range(6)]
    a = RNG.uniform(0, 36, (80, 2))
    b = RNG.uniform(0, 36, (80, 2))
    margin = 0.4
    res = segments_polygons(a, b, polys, margin=margin, depth=True)
    crossings = 0
    for s in range(len(a)):
        for k, poly in enumerate(polys):
            one = segment_polygon(a[s], b[s], poly)
            assert res.crosses[s, k] == (one.contact == "crosses")
            if one.contact == "crosses":
                crossings += 1
                if one.depth <= margin:
                    assert abs(res.depth[s, k] - one.depth) <= 1e-4
                else:
                    assert margin < res.depth[s, k] <= one.depth + 1e-9
    assert crossings > 20


def test_points_near_polygons_is_exact_within_reach() -> None:
    polys = [_convex(RNG, int(RNG.integers(3, 21))) for _ in range(8)]
    pts = RNG.uniform(0, 36, (200, 2))
    prep = prepare_polygons(polys)
    inside, dist = points_polygons(pts, prep)
    near_in, near_d = points_near_polygons(pts, prep, 0.5)
    assert np.array_equal(inside, near_in)
    close = dist <= 0.5
    assert np.array_equal(near_d[close], dist[close])
    assert np.all(dist[near_d == np.inf] > 0.5)


def test_golden_depths_with_a_limit_answer_the_comparison_like_the_full_search() -> None:
    polys = [_star(RNG) for _ in range(8)]
    pts = RNG.uniform(0, 36, (40, 2))
    i, j, prep, con = _contacts(pts, polys, 1.0)
    sel = np.flatnonzero(con.crosses & ~con.awkward)
    full = golden_depths(pts[i], pts[j], prep, con, sel)
    for limit in (0.0, 0.05, 0.3, 1.0):
        lim = np.full(len(sel), limit)
        fast = golden_depths(pts[i], pts[j], prep, con, sel, limit=lim)
        assert np.array_equal(fast > limit, full > limit)
    assert len(sel) > 20


def test_stretch_depth_floors_never_exceed_the_measured_depths() -> None:
    polys = [_star(RNG) for _ in range(8)] + [_convex(RNG, 12) for _ in range(3)]
    pts = RNG.uniform(0, 36, (40, 2))
    i, j, prep, con = _contacts(pts, polys, 0.2)
    sel = np.flatnonzero(con.crosses & ~con.awkward)
    floors = stretch_depth_floors(pts[i], pts[j], prep, con, sel)
    depths = stretch_depths(pts[i], pts[j], prep, con, sel)
    assert np.all(floors <= depths + 1e-12)
    assert np.mean(floors > 0) > 0.2  # the certificate decides a fair share


def test_certified_pairs_cross_and_are_deeper_than_the_margin() -> None:
    polys = [_star(RNG) for _ in range(6)] + [
        _convex(RNG, int(RNG.integers(3, 12))) for _ in range(6)
    ]
    pts = RNG.uniform(0, 36, (50, 2))
    i, j = np.triu_indices(len(pts), k=1)
    prep = prepare_polygons(polys)
    closed, bdist = points_polygons(pts, prep)
    for margin, spans in ((0.0, False), (0.05, True), (0.3, True)):
        plain = segment_contacts(pts[i], pts[j], prep, pts, i, j, closed, bdist, margin, spans)
        fast = segment_contacts(
            pts[i], pts[j], prep, pts, i, j, closed, bdist, margin, spans, certify=True
        )
        assert np.array_equal(plain.seg, fast.seg) and np.array_equal(plain.poly, fast.poly)
        assert np.array_equal(plain.crosses, fast.crosses)
        assert np.array_equal(plain.touches, fast.touches)
        assert np.array_equal(plain.clearance, fast.clearance)
        assert fast.sure.sum() > 10
        if spans:
            sure = np.flatnonzero(fast.sure)
            depth = stretch_depths(pts[i], pts[j], prep, plain, sure)
            assert np.all(depth > margin)


def test_lines_through_inner_room_are_sure_crossings() -> None:
    """The first pass's certificate: every segment `Bearings.through` finds within an
    outline's `inner_room` is one `segment_contacts` certifies (crossing deeper than the
    margin), and it finds most segments that have one."""
    polys = [_convex(RNG, int(RNG.integers(3, 12))) for _ in range(12)] + [
        _star(RNG) for _ in range(4)
    ]
    pts = RNG.uniform(0, 36, (60, 2))
    i, j = np.triu_indices(len(pts), k=1)
    prep = prepare_polygons(polys)
    closed, bdist = points_polygons(pts, prep)
    bearings = Bearings.of(pts)
    toward = bearings.toward(prep.centre)
    for margin in (0.0, 0.05, 0.3):
        full = segment_contacts(
            pts[i], pts[j], prep, pts, i, j, closed, bdist, margin, margin > 0, certify=True
        )
        sure = np.zeros(len(i), bool)
        sure[full.seg[full.sure]] = True
        barred = closed  # an end inside: the stretch starts there (the callers bar it)
        found = bearings.through(toward, inner_room(prep, margin), barred)[i, j]
        assert not (found & ~sure).any()
        assert found.sum() > 0.7 * sure.sum() > 100


def test_inner_room_of_nothing_roomy() -> None:
    tiny = prepare_polygons([[(1, 1), (1.1, 1), (1.1, 1.1)]])  # no disc roomy enough
    assert not inner_room(tiny, 0.05).any()


def _near(pts: np.ndarray, centres: np.ndarray, radii: np.ndarray) -> tuple[np.ndarray, ...]:
    bearings = Bearings.of(pts)
    return bearings.index().near(bearings.toward(centres), radii)


def test_segments_near_discs_finds_every_segment_near_a_disc() -> None:
    """Against the distance of every segment to every disc's centre; points on and
    inside discs, a disc around a point, points in a row (equal bearings)."""
    pts = RNG.uniform(0, 48, (70, 2))
    pts[60:] = np.stack([np.linspace(2, 40, 10), np.full(10, 7.0)], axis=1)
    centres = RNG.uniform(0, 48, (25, 2))
    radii = RNG.uniform(0.3, 4.0, 25)
    pts[:4] = centres[:4]  # at a centre
    pts[4] = centres[5] + [radii[5], 0.0]  # on a circle
    centres[6] = (21.0, 7.0)  # on the row
    i, j = np.triu_indices(len(pts), k=1)
    a, b = pts[i][:, None, :], pts[j][:, None, :]
    ab = b - a
    t = np.clip(((centres[None] - a) * ab).sum(-1) / (ab * ab).sum(-1), 0, 1)
    dist = np.linalg.norm(a + t[..., None] * ab - centres[None], axis=-1)
    s, k = np.nonzero(dist <= radii[None])
    want = set(zip(i[s].tolist(), j[s].tolist(), k.tolist(), strict=True))
    gi, gj, gk = _near(pts, centres, radii)
    got = list(zip(gi.tolist(), gj.tolist(), gk.tolist(), strict=True))
    assert len(got) == len(set(got)) and np.all(gi < gj)
    assert want <= set(got)
    assert len(got) < 1.5 * len(want)  # looked up, not every pair
    nothing = _near(pts[:1], centres, radii)
    assert all(len(x) == 0 for x in nothing)
    # Skipped (point, disc) pairs lose exactly the segments looked up from that point.
    skip = RNG.random((len(pts), len(centres))) < 0.3
    skip[:4, :4] = True  # the points at a centre: every segment of theirs is near it
    bearings = Bearings.of(pts)
    si, sj, sk = bearings.index().near(bearings.toward(centres), radii, skip=np.nonzero(skip))
    kept = {g for g in got if not skip[g[0], g[2]]}
    assert set(zip(si.tolist(), sj.tolist(), sk.tolist(), strict=True)) == kept


def test_segment_contacts_on_given_pairs_are_the_full_answers() -> None:
    polys = [_star(RNG) for _ in range(8)] + [_convex(RNG, 5) for _ in range(4)]
    pts = RNG.uniform(0, 36, (40, 2))
    i, j = np.triu_indices(len(pts), k=1)
    prep = prepare_polygons(polys)
    closed, bdist = points_polygons(pts, prep)
    for margin in (0.0, 0.05):
        full = segment_contacts(
            pts[i], pts[j], prep, pts, i, j, closed, bdist, margin, margin > 0, certify=True
        )
        gi, gj, gp = _near(pts, prep.centre, prep.radius + margin + 1e-6)
        line = np.full((len(pts), len(pts)), -1)
        line[i, j] = np.arange(len(i))
        gs = line[gi, gj]
        order = np.argsort(gs * len(polys) + gp)
        some = segment_contacts(
            pts[i], pts[j], prep, pts, i, j, closed, bdist, margin, margin > 0, True,
            pairs=(gs[order], gp[order]),
        )  # fmt: skip
        # Every pair in contact is there, with the same answers, in the same order.
        for con in (full, some):
            near = con.crosses | con.touches | (con.clearance <= margin)
            assert near.sum() > 20
        keep_f = full.crosses | full.touches | (full.clearance <= margin)
        keep_s = some.crosses | some.touches | (some.clearance <= margin)
        for name in ("seg", "poly", "crosses", "touches", "clearance", "sure"):
            assert np.array_equal(getattr(full, name)[keep_f], getattr(some, name)[keep_s]), name


def test_through_discs_claims_only_segments_through_a_disc_barred_from_neither_end() -> None:
    """The certificate: every segment it claims passes strictly within the radius of a
    disc barred from neither end; on a crowded table it finds most of them."""
    pts = RNG.uniform(0, 48, (120, 2))
    owners = np.arange(0, 120, 2)  # every other point carries a disc
    centres, radii = pts[owners], RNG.uniform(0.4, 1.2, len(owners))
    barred = np.zeros((len(pts), len(owners)), bool)
    barred[owners, np.arange(len(owners))] = True  # a base never blocks its own unit
    barred[RNG.random(barred.shape) < 0.02] = True  # nor a wood the point stands in
    bearings = Bearings.of(pts)
    got = bearings.through(bearings.toward(centres), radii, barred)
    assert np.array_equal(got, got.T) and not got.diagonal().any()
    i, j = np.triu_indices(len(pts), k=1)
    a, b = pts[i][:, None, :], pts[j][:, None, :]
    ab = b - a
    t = np.clip(((centres[None] - a) * ab).sum(-1) / (ab * ab).sum(-1), 0, 1)
    dist = np.linalg.norm(a + t[..., None] * ab - centres[None], axis=-1)
    want = ((dist < radii[None]) & ~barred[i] & ~barred[j]).any(axis=1)
    claimed = got[i, j]
    assert not (claimed & ~want).any()  # never a segment that does not pass through one
    assert claimed.sum() > 0.8 * want.sum() > 1000


def test_bearing_index_lists_only_open_segments() -> None:
    pts = RNG.uniform(0, 30, (40, 2))
    centres, radii = RNG.uniform(0, 30, (8, 2)), RNG.uniform(0.5, 2.0, 8)
    bearings = Bearings.of(pts)
    toward = bearings.toward(centres)
    every = set(zip(*(x.tolist() for x in bearings.index().near(toward, radii)), strict=True))
    open_ = RNG.random((40, 40)) < 0.5
    some = set(zip(*(x.tolist() for x in bearings.index(open_).near(toward, radii)), strict=True))
    assert some == {(a, b, k) for a, b, k in every if open_[a, b]} and len(some) > 20


@pytest.mark.slow  # a sweep of random outlines
@pytest.mark.parametrize("part", sweep(range(4), 1))
def test_inner_room_certifies_any_outline_by_the_middle_of_the_stretch(part: int) -> None:
    """A segment within an outline's `inner_room` of its centre crosses deeper than the
    margin where the referee measures it: at the middle of the crossed stretch (first
    entry to last exit) and by `segment_polygon`'s scan (knife-edge crossings), for
    star-shaped outlines too; with an end inside only by the convex rule. 60 outlines in
    four parts of 15 (the first in the default run)."""
    from referee.geometry import segment_spans

    rng = np.random.default_rng([11, part])
    checked = {False: 0, True: 0}
    for _ in range(15):
        poly = _star(rng) if rng.random() < 0.7 else _convex(rng, int(rng.integers(3, 9)))
        prep = prepare_polygons([poly])
        centre, radius = prep.centre[0], float(prep.radius[0])
        for margin in (0.02, 0.2):
            for ends_inside in (False, True):
                room = float(inner_room(prep, margin, ends_inside=ends_inside)[0])
                if room <= 0:
                    continue
                for _ in range(40):
                    ang = rng.uniform(0, 2 * np.pi)
                    along = np.array([np.cos(ang), np.sin(ang)])
                    foot = centre + rng.uniform(-1, 1) * room * np.array([-along[1], along[0]])
                    reach = radius * 1.5 if not ends_inside else rng.uniform(0.0, radius * 1.5)
                    a = foot - along * rng.uniform(reach, radius * 2)
                    b = foot + along * rng.uniform(0.0 if ends_inside else reach, radius * 2)
                    if float(np.dot(centre - a, b - a)) < 0:
                        continue  # the centre must project onto the segment
                    inside = signed_boundary_distance(np.array([a, b]), poly) > 1e-9
                    if inside.any() and not ends_inside:
                        continue
                    spans = segment_spans(a, b, poly)
                    mid = (spans[0][0] + spans[-1][1]) / 2
                    depth = float(signed_boundary_distance(a + mid * (b - a), poly)[0])
                    assert depth > margin, (poly.tolist(), a, b, margin, ends_inside)
                    assert segment_polygon(a, b, poly).depth > margin
                    checked[ends_inside] += 1
    assert checked[False] > 500 and checked[True] > 200


def test_listed_pairs_give_the_dense_layouts_very_contacts() -> None:
    """The compiled loop over listed (segment, polygon) pairs (the LOS map's path) finds
    the same candidates, in the same order, with the very floats of the dense layout:
    on star outlines and on grid-aligned squares where ends sit on corners and edges."""
    rng = np.random.default_rng(3)
    squares = [
        np.array([(x, y), (x + w, y), (x + w, y + w), (x, y + w)], float)
        for x, y, w in rng.integers(0, 30, (12, 3)) % [30, 30, 4] + [0, 0, 1]
    ]
    for polys, pts in (
        ([_star(rng) for _ in range(10)], rng.uniform(0, 36, (40, 2))),
        (squares, rng.integers(0, 34, (40, 2)).astype(float)),
    ):
        pts[0] = polys[0][0]  # an end on a corner: a knife edge
        i, j = np.triu_indices(len(pts), k=1)
        prep = prepare_polygons(polys)
        closed, bdist = points_polygons(pts, prep)
        every = np.divmod(np.arange(len(i) * len(polys)), len(polys))
        for margin, spans, certify in ((0.0, False, False), (0.3, True, True), (0.3, True, False)):
            args = (pts[i], pts[j], prep, pts, i, j, closed, bdist, margin, spans, certify)
            dense = segment_contacts(*args)
            listed = segment_contacts(*args, pairs=every)
            assert dense.crosses.any() and dense.awkward.any()
            for name in SegmentContacts.__dataclass_fields__:
                assert np.array_equal(getattr(dense, name), getattr(listed, name)), name


def test_bearing_index_is_a_stable_sort_of_each_row_by_bin() -> None:
    """The compiled counting sort lists each point's later open points exactly as numpy's
    stable argsort of the rows' bins does (ties included), closed segments left out."""
    from referee.maps.bearings import _BINS

    rng = np.random.default_rng(5)
    for trial in range(8):
        n = int(rng.integers(2, 120))
        pts = rng.integers(0, 12, (n, 2)).astype(float) if trial % 2 else rng.uniform(0, 72, (n, 2))
        bearings = Bearings.of(pts)
        open_ = None if trial % 3 == 0 else rng.random((n, n)) > 0.4
        got = bearings.index(open_)
        rows = np.arange(n)
        bins = bearings.bins.copy()
        np.putmask(bins, rows[:, None] >= rows[None, :], _BINS)
        if open_ is not None:
            np.putmask(bins, ~open_, _BINS)
        li, lj = np.nonzero(bins < _BINS)
        assert np.array_equal(got.lines[0], li) and np.array_equal(got.lines[1], lj)
        key = bins[li, lj].astype(np.intp) + li * (_BINS + 1)
        order = np.argsort(key, kind="stable")
        table = np.r_[0, np.cumsum(np.bincount(key, minlength=n * (_BINS + 1)))]
        assert np.array_equal(got.order, order)
        assert np.array_equal(got.table, table)
        assert np.array_equal(got.length2, bearings.length2[li, lj][order])
        want = np.max(bearings.length2, axis=1, where=bins < _BINS, initial=0.0)
        assert np.array_equal(got.longest2, want)


def test_a_subset_of_prepared_outlines_is_those_outlines_prepared() -> None:
    """Divisional's passes take their sides' outlines from one shared layout: every table
    must be the very one :func:`prepare_polygons` lays out for those outlines alone."""
    from dataclasses import fields

    polys = [_star(RNG) + RNG.uniform(0, 20, 2) for _ in range(30)]
    polys += [np.array([(0, 0), (1, 0), (1, 1), (0, 1)], float)] * 4
    full = prepare_polygons(polys)
    for keep in ([3, 1, 30, 31], range(30, 34), range(34), RNG.permutation(34)[:12], []):
        keep = np.array(keep, np.intp)
        got, want = full.subset(keep), prepare_polygons([polys[k] for k in keep])
        for f in fields(PreparedPolygons):
            a, b = getattr(got, f.name), getattr(want, f.name)
            if f.name == "rooms":
                continue
            for x, y in zip(*((a, b) if isinstance(a, tuple) else ((a,), (b,))), strict=True):
                assert x.dtype == y.dtype and np.array_equal(x, y), f.name


def _map_max_depth(A: np.ndarray, B: np.ndarray, poly: np.ndarray, spans: list) -> float:
    """The depth search :func:`segment_polygon` ran on the map's prepared outlines and
    compiled search, before geometry stood alone: the oracle for the one-outline form."""
    from referee.maps.segments import _convex_max_depths, _golden_many

    prep = prepare_polygons([poly])
    if prep.convex[0]:
        lo, hi = np.array(spans, float).reshape(-1, 2).T
        n = len(lo)
        ends = np.tile(A, (n, 1)), np.tile(B, (n, 1))
        return float(_convex_max_depths(*ends, prep, np.zeros(n, np.intp), lo, hi).max())
    best, brackets = 0.0, []
    for t0, t1 in spans:
        grid = np.linspace(t0, t1, 17)
        vals = signed_boundary_distance(A + grid[:, None] * (B - A), poly)
        k = int(np.argmax(vals))
        best = max(best, float(vals[k]))
        brackets.append((grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]))
    lo, hi = np.array(brackets).T
    n = len(brackets)
    ends = np.tile(A, (n, 1)), np.tile(B, (n, 1))
    return max(best, float(_golden_many(*ends, prep, np.zeros(n, np.intp), lo, hi, 40).max()))


@pytest.mark.slow  # a sweep of random outlines
def test_one_outlines_depth_is_the_maps_float_for_float() -> None:
    """:func:`segment_polygon`'s depth (geometry: numpy, one outline) is the map's own
    float: the exact peak in convex outlines, the golden-section search in others, over
    one or several spans, from inside, across and along the outline."""
    from referee.geometry import _max_depth, as_polygon

    rng = np.random.default_rng(11)
    seen = {True: 0, False: 0}
    for k in range(300):
        convex = k % 3 == 0
        poly = as_polygon(_convex(rng, int(rng.integers(3, 12))) if convex else _star(rng))
        centre = poly.mean(axis=0)
        a = centre + rng.uniform(-6, 6, 2)
        b = centre + rng.uniform(-6, 6, 2)
        cuts = np.sort(rng.uniform(0, 1, 2 * int(rng.integers(1, 4))))
        spans = list(zip(cuts[::2].tolist(), cuts[1::2].tolist(), strict=True))
        got = _max_depth(a, b, poly, spans)
        assert got == _map_max_depth(a, b, poly, spans)
        seen[convex] += got > 0
    assert min(seen.values()) > 50
