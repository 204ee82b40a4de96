"""The all-pairs line-of-sight map: every line between two pieces against every
obstacle at once, each line's verdict as a code (0 clear, 1 doubtful, 2 blocked), the
same as the single ``los`` question's for that pair.

The ruleset decides what blocks (:class:`~referee.maps.table.Obstacle`: terrain seen
into and out of, bases never blocking their own piece's lines, forests of touching
woods) and how a line meets a forest (``forest_levels``, its forest rule line by line);
the map only measures. A line that certainly crosses deep into an obstacle is settled
first by bearings (:class:`~referee.maps.bearings.Bearings`), the others by their
contacts (:func:`~referee.maps.segments.segment_contacts`) and, where the doubt is
not zero, the depth of each crossing (:func:`_deep`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from referee.maps.bearings import Bearings
from referee.maps.kernels import loop, loops
from referee.maps.pairwise import upper_pairs
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
    stretch_depths,
)
from referee.maps.table import MapTable, Obstacle, Visibility

ForestLevels = Callable[
    [np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]], NDArray[np.int8]
]
"""The ruleset's forest rule for many lines: ``(xy, i, j, u, polys)`` -> each line
``xy[i[k]]``-``xy[j[k]]``'s code (0 clear, 1 doubtful, 2 blocked) against the forest of
woods ``polys`` with the pair's doubt ``u[k]``."""


class OpenLines(NamedTuple):
    """The lines of sight still open, ``xy[i[k]]``-``xy[j[k]]`` with doubt ``u[k]``: one
    value for the compiled loops that sift their contacts."""

    xy: np.ndarray
    i: NDArray[np.intp]
    j: NDArray[np.intp]
    u: np.ndarray


@dataclass(frozen=True)
class LineReuse:
    """What a map made again after some pieces changed may take from the last one
    (:class:`~referee.maps.MapCache`): its line maps (before a system's own rules on top),
    keyed by the pieces and obstacles they were made of, and the lines that may differ
    now (``dirty``, ``(n, n)``); :func:`line_map` keeps what it makes in ``made``."""

    before: Mapping[tuple[object, ...], NDArray[np.int8]]
    changed: Callable[[], NDArray[np.bool_] | None]
    """The dirty lines, worked out when first needed (a map with no line map of the
    last one to reuse never pays for them); None: none may be reused."""
    made: dict[tuple[object, ...], NDArray[np.int8]] = field(default_factory=dict)
    _dirty: list[NDArray[np.bool_] | None] = field(default_factory=list)

    _lock: threading.Lock = field(default_factory=threading.Lock)
    """Divisional's side passes make their line maps side by side from one reuse."""

    def dirty(self) -> NDArray[np.bool_] | None:
        with self._lock:  # a leaf lock: changed() reads only the two scenes
            if not self._dirty:
                self._dirty.append(self.changed())
            return self._dirty[0]

    @property
    def used(self) -> bool:
        """Whether a line map was made from the last one's clean lines."""
        return bool(self._dirty) and self._dirty[0] is not None

    @staticmethod
    def line_map(
        table: MapTable,
        obstacles: Sequence[Obstacle],
        forest_levels: ForestLevels,
        rows: NDArray[np.bool_] | None = None,
        prep: PreparedPolygons | None = None,
        reuse: LineReuse | None = None,
    ) -> Visibility:
        """:func:`line_map`: the public face of the LOS map (a ruleset's ``visibility``
        calls it, handing its reuse in)."""
        return line_map(table, obstacles, forest_levels, rows, prep, reuse)


def _reuse_key(
    table: MapTable, obstacles: Sequence[Obstacle], rows: NDArray[np.bool_] | None
) -> tuple[object, ...]:
    """What a line map was made of, but where the changed pieces are (their bases'
    outlines): the same key and clean lines give the same codes."""
    return (
        tuple(p.id for p in table.pieces),
        tuple((o.id, o.kind, o.see_into, o.piece, o.forest) for o in obstacles),
        None if rows is None else rows.tobytes(),
    )


def line_map(
    table: MapTable,
    obstacles: Sequence[Obstacle],
    forest_levels: ForestLevels,
    rows: NDArray[np.bool_] | None = None,
    prep: PreparedPolygons | None = None,
    reuse: LineReuse | None = None,
) -> Visibility:
    """Range (``table.distance``) and LOS for every pair of ``table``'s pieces against
    ``obstacles``, with LOS worked out only for the lines of the pieces ``rows`` marks
    (all if None); the other lines are left clear. ``prep``: the outlines of the
    obstacles outside forests prepared (:func:`prepare_polygons`, terrain first), when
    several views of one table share them. Destroyed pieces are rows like the others;
    a base never blocks its own piece's lines. Lines that meet a forest of several
    woods are settled by ``forest_levels``, one line at a time. ``reuse``: what the last
    map of this table may lend (:class:`LineReuse`); the codes are the same without it."""
    pieces, xy, unc, dist = table.pieces, table.xy, table.unc, table.distance
    n = len(pieces)
    los = np.zeros((n, n), np.int8)
    single = [o for o in obstacles if o.forest < 0]
    multi = [o for o in obstacles if o.forest >= 0]
    row = {p.id: k for k, p in enumerate(pieces)}
    if n < 2 or not obstacles:
        return Visibility(tuple(p.id for p in pieces), dist, los)
    i, j = upper_pairs(n)
    if rows is not None:
        keep = rows[i] | rows[j]
        i, j = i[keep], j[keep]
    key = _reuse_key(table, obstacles, rows) if reuse is not None else None
    old = None if reuse is None or key is None else reuse.before.get(key)
    dirty = None if old is None or reuse is None else reuse.dirty()
    if old is not None and dirty is not None:
        los = old.copy()  # every clean line as the last map had it
        keep = dirty[i, j]
        i, j = i[keep], j[keep]
    u = unc[i] + unc[j]
    code = np.zeros(len(i), np.int8)
    if single and len(i):
        code = _single_codes(table.bearings, i, j, u, single, row, prep)
    if multi and len(i):
        _forest_codes(xy, i, j, u, multi, code, forest_levels)
    flat = los.ravel()  # a view: flat writes are cheaper than 2-d ones
    flat[i * n + j] = code
    flat[j * n + i] = code
    if reuse is not None and key is not None:
        los.flags.writeable = False  # shared with the next map made from it
        reuse.made[key] = los
        los = los.copy()
    return Visibility(tuple(p.id for p in pieces), dist, los)


def _single_codes(
    bearings: Bearings,
    i: np.ndarray,
    j: np.ndarray,
    u: np.ndarray,
    obstacles: list[Obstacle],
    row: Mapping[str, int],
    prep: PreparedPolygons | None = None,
) -> NDArray[np.int8]:
    """Each line's code against obstacles that stand alone (not in a forest): blocked
    where it crosses one that may block it deeper than the pair's doubt, doubtful where
    it clips, touches or passes within the doubt of one."""
    terrain = [o for o in obstacles if o.see_into]
    bases = [o for o in obstacles if not o.see_into]
    xy = bearings.points
    owners = np.asarray([row[o.piece] for o in bases if o.piece is not None], np.intp)
    polys = [o.polygon for o in terrain] + [o.polygon for o in bases]
    u_max = float(u.max(initial=0.0))
    prep = prepare_polygons(polys) if prep is None else prep
    nt = len(terrain)
    # Centres farther than the doubt from an outline only matter as 'outside'.
    inside, edge = points_near_polygons(xy, prep, u_max + 1e-6)

    code = np.zeros(len(i), np.int8)
    # First pass, no edge tests: a line that certainly crosses deep into an obstacle
    # that may block it is blocked whatever else it meets (most lines on a crowded
    # table); the full test below runs on the others only, with the same margin. Such
    # a line passes through a disc inside the outline (``inner_room``), found by the
    # bins of bearings the disc wholly covers. An obstacle may block a line unless an
    # end is in or near that terrain (seen into or out of) or it is the end's own base.
    dist, centre = bearings.toward(prep.centre)
    barred = inside.copy()  # an end inside an outline starts the crossed stretch there
    barred[:, :nt] |= edge[:, :nt] <= u_max + 1e-6
    barred[owners, nt + np.arange(len(owners))] = True
    room = inner_room(prep, u_max)
    code[bearings.through_lines((dist, centre), room, barred, i, j)] = 2
    # The only (line, outline) pairs that can be in contact: lines passing within the
    # doubt of an outline's bounding circle, among the lines still open.
    rest = np.flatnonzero(code == 0)
    ri, rj, ru = i[rest], j[rest], u[rest]
    own = (owners, nt + np.arange(len(owners)))  # never blocks its own piece's lines
    reach = prep.radius + (u_max + 1e-6)
    cs, cp = bearings.index_lines(ri, rj).near_lines((dist, centre), reach, skip=own)
    # The same certificate line by line for these candidates (the bins miss a disc
    # that covers no whole bin, or one behind a nearer disc the line may not meet),
    # then the pairs of the lines still open grouped by line, compiled.
    in_contact, open_candidates = loops("contacts", "in_contact", "open_candidates")

    lines = OpenLines(xy, ri, rj, ru)
    done, cs, cp = open_candidates(lines, cs, cp, prep.layout, room, barred, owners, nt)
    code[rest[done]] = 2
    A, B = xy[ri], xy[rj]
    hit = segment_contacts(
        A,
        B,
        prep,
        xy,
        ri,
        rj,
        inside,
        edge,
        u_max,
        spans=u_max > 0,
        certify=True,
        pairs=(cs, cp),
    )
    # Only segment/obstacle pairs in contact (crossing, touching or within the
    # pair's doubt) can block or cast doubt: classify those sparsely.
    # An end inside terrain by more than the doubt sees out of it; one within the
    # doubt of its edge makes a crossing doubtful; a base never blocks its own
    # piece's line (compiled: a dozen numpy passes over the contacts before).
    contact = (hit.seg, hit.poly, hit.crosses, hit.touches, hit.clearance)
    near, excluded, block = in_contact(contact, lines, inside, edge, owners, nt)
    ss = hit.seg[near]
    us = ru[ss]
    if u_max > 0:
        block = _deep(A, B, prep, hit, near, block, us)
    maybe = ~excluded & ~block
    code[rest[ss[maybe]]] = 1
    code[rest[ss[block]]] = 2  # after the doubtful ones: blocked wins
    return code


def _forest_codes(
    xy: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    u: np.ndarray,
    obstacles: list[Obstacle],
    code: NDArray[np.int8],
    forest_levels: ForestLevels,
) -> None:
    """Raise ``code`` where a forest of several woods blocks or casts doubt: the lines
    that may meet it, less those it surely blocks, are read by ``forest_levels``."""
    groups: dict[int, list[np.ndarray]] = {}
    for o in obstacles:
        groups.setdefault(o.forest, []).append(o.polygon)
    for polys in groups.values():
        cand = forest_lines(xy[i], xy[j], u, polys, code)
        if not len(cand):
            continue
        sure = forest_surely_blocked(xy, i[cand], j[cand], u[cand], polys)
        code[cand[sure]] = 2
        cand = cand[~sure]
        levels = forest_levels(xy, i[cand], j[cand], u[cand], polys)
        code[cand] = np.maximum(code[cand], levels)


def forest_lines(
    a: np.ndarray, b: np.ndarray, u: np.ndarray, polys: Sequence[np.ndarray], code: np.ndarray
) -> NDArray[np.intp]:
    """The lines ``a[k]``-``b[k]`` not yet blocked (``code < 2``) that meet a forest's
    woods ``polys`` or pass within their doubt ``u[k]`` of one (an end inside one
    counts): the only ones the forest rule can make doubtful or blocked, found at once
    before the rule reads them one by one."""
    pts = np.concatenate(polys)
    pad = float(u.max(initial=0.0)) + 1e-6
    lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
    # Segments whose bounding box meets the forest's; already-blocked lines stay.
    cand = np.flatnonzero(
        (code < 2) & np.all(np.maximum(a, b) >= lo, axis=1) & np.all(np.minimum(a, b) <= hi, axis=1)
    )
    if not len(cand):
        return cand
    met = segments_polygons(a[cand], b[cand], polys, margin=pad)
    near = met.crosses | met.touches | (met.clearance <= u[cand, None])
    return cand[near.any(axis=1)]


def forest_surely_blocked(
    xy: np.ndarray, i: np.ndarray, j: np.ndarray, u: np.ndarray, polys: Sequence[np.ndarray]
) -> NDArray[np.bool_]:
    """Which lines ``xy[i[k]]``-``xy[j[k]]`` :func:`forest_contact` certainly finds
    ``blocked`` by the forest of woods ``polys``, with neither end in it or within the
    doubt ``u[k]`` of it (so no woods area is seen out of): found for all lines at once,
    so the rule need not read them one by one. Such a line crosses a convex woods deeper
    than the doubt at the middle of its crossed stretch, a point the rule samples, and
    a point that deep in one woods is at least as deep in the forest (whose outline lies
    outside every woods' interior); a hair of margin covers the rounding between the
    two ways of finding the stretch."""
    prep = prepare_polygons(polys)
    inside, dist = points_polygons(xy, prep)
    away = np.all(~inside & (dist > u.max(initial=0.0)), axis=1)  # every end's woods
    ok = away[i] & away[j]
    lines = np.flatnonzero(ok)
    out = np.zeros(len(i), bool)
    if not len(lines):
        return out
    ends = i[lines], j[lines]
    con = segment_contacts(
        xy[ends[0]], xy[ends[1]], prep, xy, *ends, inside, dist, float(u.max(initial=0.0))
    )
    sel = np.flatnonzero(con.crosses & ~con.awkward & prep.convex[con.poly])
    deep = stretch_depths(xy[ends[0]], xy[ends[1]], prep, con, sel) > u[lines[con.seg[sel]]] + 1e-6
    out[lines[con.seg[sel[deep]]]] = True
    return out


def _deep(
    a: np.ndarray,
    b: np.ndarray,
    prep: PreparedPolygons,
    hit: SegmentContacts,
    near: np.ndarray,
    block: np.ndarray,
    us: np.ndarray,
) -> np.ndarray:
    """Which of the crossings that would block (``block``, over candidates ``near``)
    reach deeper than the pair's doubt ``us``, as far as each line's verdict needs: one
    crossing deeper than the doubt blocks the line, so the others on that line are
    never measured. Knife edges by their depth, certified crossings at once, cheap
    floors of the middle depth, then the middle of each crossed stretch (on each line
    the longest stretch first), in one compiled pass line by line
    (:func:`referee.maps.contacts.deep_crossings`); the search for the deepest point only
    on lines still open after that."""
    deep_crossings = loop("contacts", "deep_crossings")

    fields = (hit.seg, hit.poly, hit.awkward, hit.sure, hit.depth, hit.lo, hit.hi)
    outlines = (prep.convex, prep.inner, prep.centre, prep.radius)
    deep, got, rest = deep_crossings(
        a, b, fields, near, block, us, outlines, prep.halfplanes, prep.rows
    )
    # depth = got where got > margin, else max(got, golden): golden can only help
    # where got <= the doubt, and only on lines not already blocked.
    if len(rest):
        gold = golden_depths(a, b, prep, hit, near[rest], limit=us[rest])
        deep[rest] = np.maximum(got[rest], gold) > us[rest]
    return np.asarray(deep)
