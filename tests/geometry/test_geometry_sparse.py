"""The sparse contact core and the prepared outlines agree with the dense and scalar tests."""

from __future__ import annotations

import numpy as np

from referee.geometry import (
    points_polygons,
    prepare_polygons,
    segment_contacts,
    segment_polygon,
    segments_polygons,
    signed_boundary_distance,
)

RNG = np.random.default_rng(7)


def _star(rng: np.random.Generator) -> np.ndarray:
    n = int(rng.integers(3, 9))
    r = rng.uniform(1.0, 4.0, n)
    ang = 2 * np.pi * np.arange(n) / n
    c = rng.uniform(4, 32, 2)
    return np.stack([c[0] + r * np.cos(ang), c[1] + r * np.sin(ang)], axis=1)


def test_sparse_contacts_are_the_dense_answers_and_nothing_else_is_near() -> None:
    polys = [_star(RNG) for _ in range(10)]
    pts = RNG.uniform(0, 36, (30, 2))
    pts[0] = polys[0][0]  # an endpoint on a vertex: a knife edge
    i, j = np.triu_indices(len(pts), k=1)
    margin = 0.3
    dense = segments_polygons(pts[i], pts[j], polys, margin=margin, depth=True)
    prep = prepare_polygons(polys)
    closed, bdist = points_polygons(pts, prep)
    con = segment_contacts(pts[i], pts[j], prep, pts, i, j, closed, bdist, margin)
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
