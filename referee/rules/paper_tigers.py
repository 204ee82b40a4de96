"""Paper Tigers (Don Bailey): WWII skirmish with paper miniatures and playing cards.

Everything positions and cards decide, per RULES.md section 1. Questions
(``"ask"`` values) and their fields:

- ``range``: ``from``, ``to``. Infantry fire at most 12", others at any range.
- ``los``: ``from``, ``to``. Centre to centre; woods, buildings and hills block
  through but not into or out of; burning wrecks block with their base.
- ``move``: ``piece``, ``to`` (pose), optional ``from`` (pose; default the
  piece's pose in the scene) and ``allowance`` (the dice total).
- ``follow_me``: ``leader``, optional ``action``; every legal chain.
- ``follow_check``: ``follower`` and ``follows`` (or ``chain``: ids leader
  first): after a follow-move, is each follower within 3" of the unit it follows.
- ``objective``: ``objective`` (terrain id; default every objective): controller.
- ``initiative``: ``cards`` (a list, or piece id -> card): acting order.
- ``action``: ``card``, ``action`` (``move``/``fire``/``recover``), optional
  ``dice`` and ``piece``: dice count, difficulty, total, success, allowance.
- ``cards``: ``dice`` (side -> the two dice rolled): cards dealt this turn;
  also checks that no model holds more than two cards.
- ``deployment``: optional ``side``/``pieces``/``edge``: inside the own third.
- ``victory``: victory points for destroyed units and controlled objectives.

A pose is ``{"x": .., "y": .., "heading": ..}`` (heading optional). Distances
within their combined measurement uncertainty of a limit give ``ok: null``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from referee.geometry import (
    Pose,
    PreparedPolygons,
    SegmentContacts,
    base_corners,
    boundary_distance,
    centre_distance,
    front_point,
    golden_depths,
    pairwise_base_distances,
    pairwise_centre_distances,
    point_in_polygon,
    points_near_polygons,
    polygon_distance,
    polygons_overlap,
    prepare_polygons,
    segment_contacts,
    segment_polygon,
    segment_spans,
    stretch_depth_floors,
    stretch_depths,
)
from referee.rules import QueryError, Ruleset, Verdict, as_ids, judge, name_key, register
from referee.rules.cards import Card
from referee.rules.flow import GameFlow, PaperTigersFlow
from referee.scene import LIMIT, Piece, Scene, Terrain, normalise_edge
from referee.validate import is_number

#: Piece kind (lowercase, letters and digits only) -> category.
KINDS: dict[str, str] = {
    "infantry": "infantry",
    "squad": "infantry",
    "gun": "gun",
    "atgun": "gun",
    "antitankgun": "gun",
    "fieldgun": "gun",
    "artillery": "gun",
    "tank": "tank",
    "assaultgun": "tank",
    "tankdestroyer": "tank",
    "armouredcar": "armoured car",
    "armoredcar": "armoured car",
    "halftrack": "halftrack",
    "truck": "truck",
    "jeep": "jeep",
    "weaponscarrier": "weapons carrier",
    "vehicle": "vehicle",
}
VEHICLES = ("tank", "armoured car", "halftrack", "truck", "jeep", "weapons carrier", "vehicle")

DIE_ROLL = "if in doubt roll one die: 1-3 blocked, 4-6 clear"


def _fmt(x: float) -> str:
    """``4.5`` -> ``'4.50in'``."""
    return f"{x:.2f}in"


def _limit(x: float) -> str:
    return f"{x:g}in"


@register
class PaperTigers(Ruleset):
    name = "paper-tigers"
    aliases = ("papertigers", "pt", "paper tigers")
    title = "Paper Tigers"
    kinds = KINDS

    @dataclass(frozen=True)
    class Settings:
        """Conventions where the rule book is silent or leaves numbers to the table.

        Distances are inches. Measure switches take ``"centre"`` (base centre to
        base centre) or ``"edge"`` (nearest points of the two bases).
        """

        range_measure: str = "centre"
        """How the 12" infantry range is measured (the rules use centres for LOS)."""
        infantry_range: float = 12.0
        follow_distance: str = "edge"
        """How "within 3 inches" is measured for Follow Me."""
        follow_radius: float = 3.0
        chain_length: int = 3
        """Most models acting on one card by Follow Me, leader included."""
        max_actions: int = 2
        """Most actions per model per turn, own cards and following together."""
        max_cards: int = 2
        """Most cards assigned to one model."""
        move_measure: str = "front"
        """``"front"``: displacement of the front-centre point of the base; ``"centre"``."""
        move_cap: float = 6.0
        """Most inches infantry and unlimbered guns move on one card."""
        objective_radius: float = 3.0
        """No enemy within this of an objective for a side to control it."""
        objective_measure: str = "edge"
        """Enemy distance to an objective: from the nearest point of its base (``"edge"``)
        or its centre (``"centre"``) to the feature's outline (0 inside)."""
        deployment_fraction: float = 1 / 3
        """Set-up depth as a fraction of the table from the own edge."""
        deployment_measure: str = "base"
        """``"base"``: the whole base must be inside the zone; ``"centre"``: its centre."""
        blocking: tuple[str, ...] = ("woods", "building", "hill")
        """Terrain kinds that block LOS through (not into or out of) them."""
        difficult: tuple[str, ...] = ("woods", "building", "hill", "difficult", "rough")
        """Terrain kinds that end a move when entered."""
        impassable: tuple[str, ...] = ("river", "water")
        """Terrain kinds no unit may cross, except where a crossing lies over them."""
        crossings: tuple[str, ...] = ("bridge",)
        wrecks_block: bool = True
        """Destroyed vehicles left on the table are burning wrecks that block LOS."""
        halftrack_points: int = 3
        """Victory points for a halftrack: the book names squads and unarmoured vehicles (1),
        guns and armoured cars (3) and tanks (5); a halftrack gets an armour roll like an
        armoured car, so it counts as one by default."""
        marginal_margin: float = 3.0
        """A win by fewer victory points than this is only marginal."""

        def __post_init__(self) -> None:
            for key in ("blocking", "difficult", "impassable", "crossings"):
                value = getattr(self, key)
                if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                    raise ValueError(f"setting {key} must be a list of terrain kinds")
                object.__setattr__(self, key, tuple(v.lower() for v in value))

        def check(self) -> None:
            for key in ("range_measure", "follow_distance", "objective_measure"):
                if getattr(self, key) not in ("centre", "edge"):
                    raise ValueError(f'setting {key} must be "centre" or "edge"')
            if self.move_measure not in ("front", "centre"):
                raise ValueError('setting move_measure must be "front" or "centre"')
            if self.deployment_measure not in ("base", "centre"):
                raise ValueError('setting deployment_measure must be "base" or "centre"')
            for key in ("infantry_range", "follow_radius", "move_cap", "objective_radius"):
                value = getattr(self, key)
                if not is_number(value) or not 0 < value <= 1e5:
                    raise ValueError(f"setting {key} must be a positive number of inches")
            if not is_number(self.marginal_margin) or self.marginal_margin < 0:
                raise ValueError("setting marginal_margin must be a number of points >= 0")
            if not isinstance(self.wrecks_block, bool):
                raise ValueError("setting wrecks_block must be true or false")
            points = self.halftrack_points
            if not isinstance(points, int) or isinstance(points, bool) or points < 0:
                raise ValueError("setting halftrack_points must be a whole number >= 0")
            if not is_number(self.deployment_fraction) or not 0 < self.deployment_fraction <= 1:
                raise ValueError("setting deployment_fraction must be between 0 and 1")
            for key in ("chain_length", "max_actions", "max_cards"):
                value = getattr(self, key)
                if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 1000:
                    raise ValueError(f"setting {key} must be a whole number from 1 to 1000")

    settings: PaperTigers.Settings

    # -- hooks: what kind of piece is it ---------------------------------------------

    @classmethod
    def category(cls, piece: Piece) -> str:
        """``infantry``, ``gun``, ``tank``, ``armoured car``... from the piece's kind."""
        return cls.kinds.get(name_key(piece.kind), "vehicle")

    def is_vehicle(self, piece: Piece) -> bool:
        return self.category(piece) in VEHICLES

    def is_wreck(self, piece: Piece) -> bool:
        return piece.state == "destroyed" and self.is_vehicle(piece)

    def move_cap(self, piece: Piece) -> float | None:
        """The per-card move cap: infantry and (unlimbered) guns only."""
        return self.settings.move_cap if self.category(piece) in ("infantry", "gun") else None

    def fire_range(self, piece: Piece) -> float | None:
        return self.settings.infantry_range if self.category(piece) == "infantry" else None

    # -- measuring ------------------------------------------------------------------

    def piece_distance(self, a: Piece, b: Piece, measure: str) -> float:
        if measure == "centre":
            return centre_distance(a.xy, b.xy)
        return polygon_distance(a.corners(), b.corners())

    # -- questions --------------------------------------------------------------------

    def game_flow(self) -> GameFlow:
        """Allowances from the dice and Follow Me obligations on top of the move question."""
        return PaperTigersFlow(self)

    def ask_range(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        firer = _piece(scene, query, "from")
        target = _piece(scene, query, "to")
        measure = self.settings.range_measure
        distance = self.piece_distance(firer, target, measure)
        doubt = firer.uncertainty + target.uncertainty
        limit = self.fire_range(firer)
        how = "centre to centre" if measure == "centre" else "between nearest base edges"
        reasons = [f"{_fmt(distance)} {how}"]
        ok: bool | None
        if limit is None:
            ok = True
            reasons.append(f"{firer.id} is a {self.category(firer)}: may fire at any distance")
            summary = f"{_fmt(distance)}{_pm(doubt)}, in range (no limit)"
        else:
            ok = judge(distance, limit, doubt)
            word = {True: "in range", False: "out of range", None: "too close to call"}[ok]
            reasons.append(
                f"{firer.id} is infantry: may fire only at targets within {_limit(limit)}"
            )
            summary = f"{_fmt(distance)}{_pm(doubt)}, {word} (limit {_limit(limit)})"
        ok = self._can_act(firer, ok, reasons)
        return Verdict(
            "range",
            ok,
            tuple(reasons),
            distance=distance,
            uncertainty=doubt,
            limit=limit,
            summary=f"range {firer.id} -> {target.id}: {summary}",
        )

    def ask_los(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        firer = _piece(scene, query, "from")
        target = _piece(scene, query, "to")
        los, reasons, blockers = self.line_of_sight(scene, firer, target)
        ok = {"clear": True, "blocked": False, "doubtful": None}[los]
        doubt = firer.uncertainty + target.uncertainty
        distance = centre_distance(firer.xy, target.xy)
        details: dict[str, Any] = {"blocking": blockers["blocked"]}
        if blockers["doubtful"]:
            details["doubtful_by"] = blockers["doubtful"]
        ok = self._can_act(firer, ok, reasons)
        summary = f"los {firer.id} -> {target.id}: {los}"
        if blockers["blocked"]:
            summary += f" by {', '.join(blockers['blocked'])}"
        elif los == "doubtful":
            summary += f" ({', '.join(blockers['doubtful'])}): roll one die, 1-3 blocked"
        return Verdict(
            "los",
            ok,
            tuple(reasons),
            distance=distance,
            uncertainty=doubt,
            los=los,
            details=details,
            summary=summary,
        )

    def line_of_sight(
        self, scene: Scene, firer: Piece, target: Piece
    ) -> tuple[str, list[str], dict[str, list[str]]]:
        """(``clear``/``blocked``/``doubtful``, reasons, ids that block or may block).

        The centre-to-centre segment is blocked by a blocking feature whose interior
        it crosses deeper than the measurement doubt (the two pieces' uncertainties
        added), unless the firer's or target's centre lies inside that feature by more
        than the doubt (seen into or out of it). It is doubtful when it only touches,
        clips or passes within the doubt of one, or when a centre is within the doubt
        of the outline of a feature it crosses.
        """
        a, b = firer.xy, target.xy
        doubt = firer.uncertainty + target.uncertainty
        reasons: list[str] = []
        blocked: list[str] = []
        doubtful: list[str] = []
        terrain, wrecks = self.los_obstacles(scene)
        obstacles: list[tuple[str, str, np.ndarray, bool]] = [
            (t.id, t.kind, t.outline(), True) for t in terrain
        ] + [
            (p.id, "burning wreck", p.corners(), False)
            for p in wrecks
            if p.id not in (firer.id, target.id)
        ]
        lo = np.minimum(a, b) - doubt - 1e-6
        hi = np.maximum(a, b) + doubt + 1e-6
        for oid, kind, poly, see_into in obstacles:
            if np.any(poly.min(axis=0) > hi) or np.any(poly.max(axis=0) < lo):
                continue  # nowhere near the line (nor, then, around either centre)
            contact = segment_polygon(a, b, poly)
            edge_doubt = False
            if see_into:
                inside = [
                    (p, boundary_distance(p.xy, poly))
                    for p in (firer, target)
                    if point_in_polygon(p.xy, poly)
                ]
                if any(d > doubt for _, d in inside):
                    who = " and ".join(p.id for p, _ in inside)
                    verb = "is" if len(inside) == 1 else "are"
                    reasons.append(f"{who} {verb} in {kind} {oid}: seen into/out of, not through")
                    continue
                if contact.contact == "crosses" and contact.depth > doubt:
                    near = [p.id for p in (firer, target) if boundary_distance(p.xy, poly) <= doubt]
                    if near:
                        edge_doubt = True
                        reasons.append(
                            f"{near[0]} is within {_fmt(doubt)} of the edge of {kind} {oid}: "
                            "in it (seen into/out of) or behind it is too close to call"
                        )
            if contact.contact == "crosses" and contact.depth > doubt and not edge_doubt:
                blocked.append(oid)
                reasons.append(f"the line crosses {kind} {oid}: LOS through it is blocked")
            elif contact.contact == "crosses":
                doubtful.append(oid)
                if not edge_doubt:
                    reasons.append(
                        f"the line clips {kind} {oid} by only {_fmt(contact.depth)}, "
                        f"within the measurement doubt of {_fmt(doubt)}"
                    )
            elif contact.contact == "touches":
                doubtful.append(oid)
                reasons.append(f"the line touches the edge of {kind} {oid}")
            elif contact.clearance <= doubt:
                doubtful.append(oid)
                reasons.append(
                    f"the line passes {_fmt(contact.clearance)} from {kind} {oid}, "
                    f"within the measurement doubt of {_fmt(doubt)}"
                )
        if blocked:
            return "blocked", reasons, {"blocked": blocked, "doubtful": doubtful}
        if doubtful:
            reasons.append(f"LOS is doubtful: {DIE_ROLL}")
            return "doubtful", reasons, {"blocked": blocked, "doubtful": doubtful}
        reasons.append("nothing blocks the line from centre to centre")
        return "clear", reasons, {"blocked": blocked, "doubtful": doubtful}

    def los_obstacles(self, scene: Scene) -> tuple[list[Terrain], list[Piece]]:
        """What may block a line of sight, for the single question and the all-pairs map
        alike: terrain of the ``blocking`` kinds (seen into and out of, not through) and,
        with ``wrecks_block``, burning wrecks (with their base; never their own line)."""
        terrain = [t for t in scene.terrain if t.kind in self.settings.blocking]
        wrecks = [p for p in scene.pieces if self.is_wreck(p)] if self.settings.wrecks_block else []
        return terrain, wrecks

    def visibility(self, scene: Scene) -> Visibility:
        """All-pairs range and LOS for every piece on the table, vectorised.

        Same answers as ``ask_range``/``ask_los`` for each pair (the dashboard's
        who-sees-whom map); destroyed pieces are included as rows but a wreck never
        blocks its own line.
        """
        pieces = list(scene.pieces)
        n = len(pieces)
        xy = np.array([p.xy for p in pieces], float).reshape(-1, 2)
        unc = np.array([p.uncertainty for p in pieces], float)
        doubt = unc[:, None] + unc[None, :]
        if self.settings.range_measure == "centre":
            dist = pairwise_centre_distances(xy)
        else:
            dist = pairwise_base_distances(
                xy, [p.heading for p in pieces], [p.base for p in pieces]
            )
        los = np.zeros((n, n), np.int8)
        terrain, wreck_pieces = self.los_obstacles(scene)
        row = {p.id: k for k, p in enumerate(pieces)}
        wrecks = [row[p.id] for p in wreck_pieces]
        polys = [t.outline() for t in terrain] + [p.corners() for p in wreck_pieces]
        if n < 2 or not polys:
            return Visibility(tuple(p.id for p in pieces), dist, los)
        i, j = np.triu_indices(n, k=1)
        u = doubt[i, j]
        u_max = float(u.max(initial=0.0))
        prep = prepare_polygons(polys)
        # Centres farther than the doubt from an outline only matter as 'outside'.
        inside, edge = points_near_polygons(xy, prep, u_max + 1e-6)
        hit = segment_contacts(
            xy[i], xy[j], prep, xy, i, j, inside, edge, u_max, spans=u_max > 0, certify=True
        )
        nt = len(terrain)
        # Only segment/obstacle pairs in contact (crossing, touching or within the
        # pair's doubt) can block or cast doubt: classify those sparsely.
        near = np.flatnonzero(hit.crosses | hit.touches | (hit.clearance <= u[hit.seg] + 1e-12))
        ss, pp = hit.seg[near], hit.poly[near]
        us, si, sj = u[ss], i[ss], j[ss]
        terrain_col = pp < nt
        col = np.minimum(pp, len(polys) - 1)
        in_i = terrain_col & inside[si, col] & (edge[si, col] > us)
        in_j = terrain_col & inside[sj, col] & (edge[sj, col] > us)
        excluded = in_i | in_j  # seen into/out of: a centre inside by more than the doubt
        near_end = terrain_col & ~excluded & ((edge[si, col] <= us) | (edge[sj, col] <= us))
        if wrecks:  # a wreck never blocks a line from or to itself
            owner = np.asarray(wrecks)[np.clip(pp - nt, 0, len(wrecks) - 1)]
            excluded |= ~terrain_col & ((si == owner) | (sj == owner))
        block = hit.crosses[near] & ~near_end & ~excluded
        if u_max > 0:
            block = self._deep(xy[i], xy[j], prep, hit, near, block, us, u_max)
        maybe = ~excluded & ~block
        code = np.zeros(len(i), np.int8)
        code[ss[maybe]] = 1
        code[ss[block]] = 2  # after the doubtful ones: blocked wins
        los[i, j] = code
        los[j, i] = code
        return Visibility(tuple(p.id for p in pieces), dist, los)

    @staticmethod
    def _deep(
        a: np.ndarray,
        b: np.ndarray,
        prep: PreparedPolygons,
        hit: SegmentContacts,
        near: np.ndarray,
        block: np.ndarray,
        us: np.ndarray,
        margin: float,
    ) -> np.ndarray:
        """Which of the crossings that would block (``block``, over candidates ``near``)
        reach deeper than the pair's doubt ``us``. Depths are bounded only as far as the
        verdict needs: one crossing deeper than the doubt blocks the line, so the
        others on that line are never measured. The middle of each crossed stretch
        comes first (on each line the longest stretch, then the rest of the lines still
        open); the search for the deepest point only on lines still open after that."""
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

    def ask_move(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        piece = _piece(scene, query, "piece")
        start = _pose(query.get("from"), ".from", piece.pose) if "from" in query else piece.pose
        if "to" not in query:
            raise QueryError(".to", "missing field (the pose moved to)")
        end = _pose(query["to"], ".to", start)
        allowance = query.get("allowance")
        if allowance is not None and (
            isinstance(allowance, bool)
            or not isinstance(allowance, (int, float))
            or not math.isfinite(allowance)
            or not 0 <= allowance <= LIMIT
        ):
            raise QueryError(".allowance", f"must be a number of inches >= 0, got {allowance!r}")
        doubt = _number(query.get("uncertainty", 2 * piece.uncertainty), ".uncertainty")
        depth = piece.base[1]
        if self.settings.move_measure == "front":
            p0 = front_point(start.x, start.y, start.heading, depth)
            p1 = front_point(end.x, end.y, end.heading, depth)
            how = "front of the base"
        else:
            p0, p1, how = start.xy, end.xy, "base centre"
        distance = centre_distance(p0, p1)
        reasons = [f"moved {_fmt(distance)} measured at the {how}"]
        cap = self.move_cap(piece)
        limits = [x for x in (allowance, cap) if x is not None]
        limit = min(limits) if limits else None
        oks: list[bool | None] = []
        if limit is not None:
            verdict = judge(distance, limit, doubt)
            oks.append(verdict)
            if cap is not None and (allowance is None or cap < allowance):
                source = f"{piece.id} is {self.category(piece)}: at most {_limit(cap)} per card"
            else:
                source = f"allowance {_limit(float(limit))}"
            word = {True: "within", False: "exceeds", None: "too close to call against"}[verdict]
            reasons.append(f"{_fmt(distance)} {word} the limit: {source}")
        terrain_ok, terrain_reasons, stopped = self.move_terrain(scene, piece, start, end)
        oks.append(terrain_ok)
        reasons += terrain_reasons
        can_act = self._can_act(piece, True, reasons)
        oks.append(can_act)
        ok = False if False in oks else (None if None in oks else True)
        causes = []
        if limit is not None and oks[0] is False:
            causes.append("over the limit")
        if not terrain_ok:
            causes.append(
                next(
                    r
                    for r in terrain_reasons
                    if "may not" in r or "impassable" in r or "went on" in r
                ).split(":")[0]
            )
        if can_act is False:
            causes.append(f"{piece.id} may not act")
        details: dict[str, Any] = {
            "from": {"x": start.x, "y": start.y, "heading": start.heading},
            "to": {"x": end.x, "y": end.y, "heading": end.heading},
        }
        if allowance is not None:
            details["allowance"] = float(allowance)
        if stopped:
            details["stopped_in"] = stopped
        word = {True: "legal", False: "illegal", None: "too close to call"}[ok]
        limit_text = f" (limit {_limit(limit)})" if limit is not None else ""
        if causes:
            limit_text += ": " + "; ".join(causes)
        return Verdict(
            "move",
            ok,
            tuple(reasons),
            distance=distance,
            uncertainty=doubt,
            limit=limit,
            details=details,
            summary=f"move {piece.id}: {_fmt(distance)}{_pm(doubt)}, {word}{limit_text}",
        )

    def move_terrain(
        self, scene: Scene, piece: Piece, start: Pose, end: Pose
    ) -> tuple[bool, list[str], str | None]:
        """Terrain checks of a move along the straight path between base centres:
        difficult terrain ends the move (the base must end overlapping the first such
        feature entered; leaving the one it started on is free), vehicles never enter
        buildings, impassable terrain is crossed only on a crossing (a bridge)."""
        ok = True
        reasons: list[str] = []
        a, b = np.array(start.xy), np.array(end.xy)
        start_base = base_corners(start.x, start.y, start.heading, piece.base)
        end_base = base_corners(end.x, end.y, end.heading, piece.base)
        entered: list[tuple[float, Terrain]] = []
        reach = np.concatenate([start_base, end_base])
        lo, hi = reach.min(axis=0) - 1e-6, reach.max(axis=0) + 1e-6
        for t in scene.terrain:
            poly = t.outline()
            if np.any(poly.min(axis=0) > hi) or np.any(poly.max(axis=0) < lo):
                continue  # the move's footprint never comes near it
            spans = segment_spans(a, b, poly) if a.tolist() != b.tolist() else []
            ends_in = polygons_overlap(end_base, poly)
            if t.kind == "building" and self.is_vehicle(piece) and (spans or ends_in):
                ok = False
                reasons.append(f"vehicles may not enter buildings: {piece.id} enters {t.id}")
            started_in = polygons_overlap(start_base, poly)
            if t.kind in self.settings.difficult and not started_in and (spans or ends_in):
                entered.append((spans[0][0] if spans else 1.0, t))
            if t.kind in self.settings.impassable:
                wet = _subtract(
                    spans,
                    [
                        s
                        for c in scene.terrain
                        if c.kind in self.settings.crossings
                        for s in segment_spans(a, b, c.outline(), strict=False)
                    ],
                )
                on_crossing = any(
                    point_in_polygon(end.xy, c.outline())
                    for c in scene.terrain
                    if c.kind in self.settings.crossings
                )
                if wet or (point_in_polygon(end.xy, poly, strict=True) and not on_crossing):
                    ok = False
                    reasons.append(
                        f"{t.kind} {t.id} is impassable except at a "
                        f"{' or '.join(self.settings.crossings) or 'crossing'}"
                    )
        stopped = None
        if entered:
            entered.sort(key=lambda e: e[0])
            first = entered[0][1]
            stopped = first.id
            if polygons_overlap(end_base, first.outline()):
                reasons.append(f"entered {first.kind} {first.id}: the move ends there")
            else:
                ok = False
                reasons.append(
                    f"entered {first.kind} {first.id} and went on: entering difficult "
                    "terrain ends the move (continue with a later action)"
                )
        return ok, reasons, stopped

    def ask_follow_me(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        leader = _piece(scene, query, "leader")
        action = query.get("action")
        if action is not None and action not in ("move", "fire"):
            raise QueryError(".action", f'must be "move" or "fire", got {action!r}')
        s = self.settings
        reasons: list[str] = []
        illegal: dict[str, str] = {}
        ok: bool | None = self._can_act(leader, True, reasons)
        if leader.cards == 0:
            reasons.append(f"note: {leader.id} has no card assigned to lead with")
        eligible: list[Piece] = []
        for p in scene.pieces:
            if p.id == leader.id or p.side != leader.side:
                continue
            why = self._follow_problem(p, leader)
            if why:
                illegal[p.id] = why
            else:
                eligible.append(p)

        def link(a: Piece, b: Piece) -> bool | None:
            d = self.piece_distance(a, b, s.follow_distance)
            return judge(d, s.follow_radius, a.uncertainty + b.uncertainty)

        links = {
            (a.id, b.id): link(a, b)
            for a, b in itertools.permutations([leader, *eligible], 2)
            if b.id != leader.id
        }
        chains: list[tuple[str, ...]] = []
        doubtful: set[str] = set()

        def extend(chain: tuple[str, ...]) -> None:
            grown = False
            if len(chain) < s.chain_length:
                for p in eligible:
                    if p.id not in chain and links[(chain[-1], p.id)] is not False:
                        if links[(chain[-1], p.id)] is None:
                            doubtful.add(p.id)
                        grown = True
                        extend((*chain, p.id))
            if not grown and len(chain) > 1:
                chains.append(chain)

        extend((leader.id,))
        followers = tuple(dict.fromkeys(pid for c in chains for pid in c[1:]))
        how = "base edge to base edge" if s.follow_distance == "edge" else "centre to centre"
        hops = _hops(leader.id, [p.id for p in eligible], links)
        for p in eligible:
            if p.id in followers:
                continue
            if p.id in hops:
                illegal[p.id] = (
                    f"it would be model {hops[p.id] + 1} of the chain: a chain holds at most "
                    f"{s.chain_length} models, leader included"
                )
                continue
            nearest = min(
                self.piece_distance(p, q, s.follow_distance)
                for q in [leader, *eligible]
                if q.id != p.id
            )
            illegal[p.id] = (
                f"more than {_limit(s.follow_radius)} from the leader and every model that "
                f"could follow it (nearest {_fmt(nearest)} {how})"
            )
        for pid in sorted(doubtful):
            reasons.append(
                f"{pid} is within measurement doubt of {_limit(s.follow_radius)}: too close to call"
            )
        for c in chains:
            reasons.append("chain: " + " -> ".join(c))
        for pid, why in illegal.items():
            reasons.append(f"{pid} may not follow: {why}")
        if ok is True and doubtful:
            ok = None
        details: dict[str, Any] = {"illegal": illegal}
        if action:
            details["action"] = action
        if doubtful:
            details["doubtful"] = sorted(doubtful)
        summary = f"follow_me {leader.id}: " + (
            "; ".join(" -> ".join(c) for c in chains) if chains else "no unit may follow"
        )
        return Verdict(
            "follow_me",
            ok,
            tuple(reasons),
            limit=s.follow_radius,
            chains=tuple(chains),
            followers=followers,
            details=details,
            summary=summary,
        )

    def _follow_problem(self, p: Piece, leader: Piece) -> str | None:
        s = self.settings
        if p.state == "destroyed":
            return "destroyed"
        if p.state == "damaged":
            return "damaged (shell-shocked): may take no actions"
        if p.cards > 0:
            return (
                f"had {p.cards} card{'s' if p.cards > 1 else ''} assigned at the start of the turn"
            )
        if p.followed is not None and p.followed != leader.id:
            return f"already followed {p.followed} this turn (one unit per turn)"
        if p.actions >= s.max_actions:
            return f"already took {p.actions} actions this turn (at most {s.max_actions})"
        return None

    def ask_follow_check(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        s = self.settings
        if "chain" in query:
            ids = as_ids(query["chain"], ".chain")
            if len(ids) < 2:
                raise QueryError(".chain", "needs the leader and at least one follower")
            for j, pid in enumerate(ids):
                if pid not in scene:
                    raise QueryError(f".chain[{j}]", f"unknown piece id {pid!r}")
            pairs = [(scene.piece(x), scene.piece(y)) for x, y in itertools.pairwise(ids)]
        else:
            pairs = [(_piece(scene, query, "follows"), _piece(scene, query, "follower"))]
        reasons: list[str] = []
        oks: list[bool | None] = []
        worst = (-1.0, 0.0)
        how = "base edge to base edge" if s.follow_distance == "edge" else "centre to centre"
        for lead, follower in pairs:
            d = self.piece_distance(lead, follower, s.follow_distance)
            doubt = lead.uncertainty + follower.uncertainty
            verdict = judge(d, s.follow_radius, doubt)
            oks.append(verdict)
            worst = max(worst, (d, doubt))
            word = {True: "within", False: "more than", None: "too close to call at"}[verdict]
            reasons.append(
                f"{follower.id} ended {_fmt(d)} from {lead.id} ({how}): {word} "
                f"{_limit(s.follow_radius)}"
            )
        ok = False if False in oks else (None if None in oks else True)
        word = {True: "kept within", False: "left", None: "too close to call for"}[ok]
        return Verdict(
            "follow_check",
            ok,
            tuple(reasons),
            distance=worst[0],
            uncertainty=worst[1],
            limit=s.follow_radius,
            summary=f"follow_check {' -> '.join([pairs[0][0].id, *(f.id for _, f in pairs)])}: "
            f"{word} the {_limit(s.follow_radius)} chain",
        )

    def ask_objective(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        if "objective" in query:
            oid = query["objective"]
            try:
                features = [scene.terrain_piece(str(oid))]
            except KeyError:
                raise QueryError(".objective", f"unknown terrain id {oid!r}") from None
        else:
            features = [t for t in scene.terrain if t.objective > 0]
            if not features:
                raise QueryError(".objective", "the scene has no objectives (give one by id)")
        reasons: list[str] = []
        controllers: dict[str, str | None] = {}
        oks: list[bool | None] = []
        for t in features:
            controller, ok, why = self._control(scene, t)
            controllers[t.id] = controller
            oks.append(ok)
            reasons += why
        ok = None if None in oks else (all(oks) if oks else False)
        details: dict[str, Any] = {}
        if len(features) == 1:
            details["controller"] = controllers[features[0].id]
            details["value"] = features[0].objective
            if "objective" not in query:
                details["objective"] = features[0].id
        else:
            details["controllers"] = controllers
            totals: dict[str, float] = {}
            for t in features:
                side = controllers[t.id]
                if side is not None:
                    totals[side] = totals.get(side, 0.0) + t.objective
            details["points"] = totals
        summary = "objective " + ", ".join(
            f"{tid}: {side or 'nobody'}" for tid, side in controllers.items()
        )
        return Verdict(
            "objective",
            ok,
            tuple(reasons),
            limit=self.settings.objective_radius,
            details=details,
            summary=summary,
        )

    def _control(self, scene: Scene, feature: Terrain) -> tuple[str | None, bool | None, list[str]]:
        """(controlling side or None, ok, reasons). ok is None when a measurement is too
        close to call, False when nobody controls it."""
        s = self.settings
        poly = feature.outline()
        units = [p for p in scene.pieces if p.state != "destroyed"]
        holders: dict[str, list[Piece]] = {}
        unsure = False
        reasons: list[str] = []
        for p in units:
            if point_in_polygon(p.xy, poly):
                holders.setdefault(p.side, []).append(p)
            if boundary_distance(p.xy, poly) <= p.uncertainty:  # in or out: too close
                unsure = True
                reasons.append(
                    f"{p.id} is within {_fmt(p.uncertainty)} of the edge of {feature.id}"
                )
        if not holders:
            reasons.append(f"no unit is on/in {feature.id}: nobody controls it")
            return None, (None if unsure else False), reasons
        candidates = []
        for side, pieces in holders.items():
            names = ", ".join(p.id for p in pieces)
            enemies = []
            for e in units:
                if e.side == side:
                    continue
                d = self._objective_distance(e, poly)
                verdict = judge(d, s.objective_radius, e.uncertainty)
                if verdict is not False:
                    enemies.append(e.id)
                    if verdict is None:
                        unsure = True
                    reasons.append(
                        f"{side} holds {feature.id} with {names} but enemy {e.id} is "
                        f"{_fmt(d)} from it" + (" (too close to call)" if verdict is None else "")
                    )
            if not enemies:
                candidates.append(side)
                reasons.append(
                    f"{side} holds {feature.id} with {names} and no enemy is within "
                    f"{_limit(s.objective_radius)}"
                )
        controller = candidates[0] if len(candidates) == 1 else None
        if controller is None:
            reasons.append(f"nobody controls {feature.id}")
        ok: bool | None = None if unsure else controller is not None
        return controller, ok, reasons

    def _objective_distance(self, piece: Piece, poly: np.ndarray) -> float:
        if self.settings.objective_measure == "centre":
            return 0.0 if point_in_polygon(piece.xy, poly) else boundary_distance(piece.xy, poly)
        return polygon_distance(piece.corners(), poly)

    def ask_initiative(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        raw = query.get("cards")
        if isinstance(raw, list):
            labelled = [(None, _card(c, f".cards[{i}]")) for i, c in enumerate(raw)]
        elif isinstance(raw, dict):
            labelled = []
            for pid, c in raw.items():
                if pid not in scene:
                    raise QueryError(f".cards.{pid}", f"unknown piece id {pid!r}")
                labelled.append((pid, _card(c, f".cards.{pid}")))
        else:
            raise QueryError(
                ".cards", 'must list cards like ["QS", "10H"] or map piece ids to cards'
            )
        if not labelled:
            raise QueryError(".cards", "needs at least one card")
        ordered = sorted(labelled, key=lambda lc: lc[1].initiative, reverse=True)
        reasons = []
        for (_, c1), (_, c2) in itertools.pairwise(ordered):
            if c1.initiative == c2.initiative:
                reasons.append(
                    f"{c1.code} ties {c2.code}: with several decks each side rolls two dice, "
                    "the higher acts first"
                )
            elif c1.value == c2.value and c1.red != c2.red:
                reasons.append(f"{c1.code} acts before {c2.code}: red before black")
            elif c1.value == c2.value:
                reasons.append(
                    f"{c1.code} acts before {c2.code}: "
                    + ("spade beats club" if not c1.red else "heart beats diamond")
                )
        order = [c.code for _, c in ordered]
        details: dict[str, Any] = {"order": order}
        if isinstance(raw, dict):
            details["pieces"] = [pid for pid, _ in ordered]
        details["difficulty"] = {c.code: c.difficulty for _, c in ordered}
        ties = any("ties" in r for r in reasons)
        names = [f"{pid} ({c.code})" if pid else c.code for pid, c in ordered]
        return Verdict(
            "initiative",
            None if ties else True,
            tuple(reasons) or ("highest initiative acts first",),
            details=details,
            summary="initiative: " + ", ".join(names),
        )

    def ask_action(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        card = _card(query.get("card"), ".card")
        action = query.get("action")
        if action not in ("move", "fire", "recover"):
            raise QueryError(".action", f'must be "move", "fire" or "recover", got {action!r}')
        piece = _piece(scene, query, "piece") if "piece" in query else None
        if action == "recover":
            need = 2
            rule = "recovery rolls 2 dice"
        elif (action == "fire") == card.red:
            need = 3
            colour, verb = ("red", "fires") if card.red else ("black", "moves")
            rule = f"a {colour} card {verb} with 3 dice"
        else:
            need = 2
            rule = f"a {'red' if card.red else 'black'} card {action}s with 2 dice"
        difficulty = card.difficulty
        details: dict[str, Any] = {
            "card": card.code,
            "action": action,
            "dice": need,
            "difficulty": difficulty,
        }
        reasons = [f"{card.name()}: {rule}, difficulty {difficulty}"]
        ok: bool | None = None
        if piece is not None:
            if action == "recover" and piece.state != "damaged":
                reasons.append(f"{piece.id} is not damaged: nothing to recover")
                ok = False
            elif action != "recover":
                ok = self._can_act(piece, None, reasons)
        rolled = query.get("dice")
        if rolled is not None:
            if not isinstance(rolled, list) or not all(
                isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in rolled
            ):
                raise QueryError(".dice", f"must be a list of die results 1-6, got {rolled!r}")
            total = sum(rolled)
            details["rolled"] = list(rolled)
            details["total"] = total
            if len(rolled) != need:
                reasons.append(f"rolled {len(rolled)} dice but {rule}")
                ok = False
            elif ok is not False:
                success = total >= difficulty
                ok = success
                reasons.append(
                    f"total {total} {'>=' if success else '<'} difficulty {difficulty}: "
                    + ("success" if success else "failure")
                )
                if action == "move" and success:
                    allowance = float(total)
                    cap = self.move_cap(piece) if piece is not None else None
                    if cap is not None and cap < allowance:
                        allowance = cap
                        reasons.append(
                            f"{piece.id if piece else ''} may move at most {_limit(cap)}"
                        )
                    details["allowance"] = allowance
                    reasons.append(f"may move up to {_limit(allowance)} measured from the front")
        else:
            reasons.append(f"roll {need} dice: {difficulty} or more succeeds")
        word = {True: "success", False: "failure", None: f"roll {need} dice, need {difficulty}"}[ok]
        if rolled is not None and len(rolled) != need:
            word = f"wrong number of dice ({need} needed)"
        return Verdict(
            "action",
            ok,
            tuple(reasons),
            details=details,
            summary=f"action {card.code} {action}: {word}",
        )

    def ask_cards(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        s = self.settings
        reasons: list[str] = []
        ok: bool | None = True
        details: dict[str, Any] = {}
        for p in scene.pieces:
            if p.cards > s.max_cards:
                ok = False
                reasons.append(f"{p.id} has {p.cards} cards: at most {s.max_cards} per model")
            if p.cards and p.state != "ok":
                ok = False
                reasons.append(f"{p.id} is {p.state}: may not have cards assigned")
        rolled = query.get("dice")
        summary = "cards: assignments legal" if ok else "cards: illegal assignments"
        if rolled is not None:
            if not isinstance(rolled, dict) or not rolled:
                raise QueryError(
                    ".dice", 'must map each side to its two dice, like {"soviet": [5, 2]}'
                )
            units_raw = query.get("units", {})
            if not isinstance(units_raw, dict):
                raise QueryError(".units", "must map each side to its number of units")
            units: dict[str, int] = {}
            for side in rolled:
                count = units_raw.get(side)
                if count is None:
                    count = sum(
                        1 for p in scene.pieces if p.side == side and p.state != "destroyed"
                    )
                if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                    raise QueryError(f".units.{side}", f"must be a whole number, got {count!r}")
                units[side] = count
            small = all(n < 5 for n in units.values())
            dealt: dict[str, int] = {}
            for side, dice in rolled.items():
                if (
                    not isinstance(dice, list)
                    or len(dice) != 2
                    or not all(
                        isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice
                    )
                ):
                    raise QueryError(f".dice.{side}", f"must be two die results 1-6, got {dice!r}")
                dealt[side] = max(dice) if small else sum(dice)
                reasons.append(
                    f"{side} rolled {dice[0]} and {dice[1]}: "
                    + (f"counts only the higher, {max(dice)}" if small else f"{sum(dice)} cards")
                )
            if small:
                reasons.insert(
                    0,
                    "both sides have fewer than 5 units ("
                    + ", ".join(f"{k} {v}" for k, v in units.items())
                    + "): each counts only the higher die",
                )
            best = max(dealt.values())
            first = [side for side, n in dealt.items() if n == best]
            details["cards"] = dealt
            details["units"] = units
            details["deal_first"] = first[0] if len(first) == 1 else None
            if len(first) > 1:
                reasons.append("tied roll: deal the first card to the attacker")
            summary = "cards: " + ", ".join(f"{k} {v}" for k, v in dealt.items())
        return Verdict("cards", ok, tuple(reasons), details=details, summary=summary)

    def ask_deployment(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        s = self.settings
        if "pieces" in query:
            ids = as_ids(query["pieces"], ".pieces")
            for k, pid in enumerate(ids):
                if pid not in scene:
                    raise QueryError(f".pieces[{k}]", f"unknown piece id {pid!r}")
            pieces = [scene.piece(pid) for pid in ids]
        elif "side" in query:
            pieces = [p for p in scene.pieces if p.side == query["side"]]
            if not pieces:
                raise QueryError(".side", f"no pieces of side {query['side']!r}")
        else:
            pieces = list(scene.pieces)
        edges = dict(scene.deployment)
        if "edge" in query:
            if "side" not in query and len({p.side for p in pieces}) > 1:
                raise QueryError(".edge", "give a side too: one edge cannot serve both sides")
            try:
                edge = normalise_edge(str(query["edge"]))
            except ValueError as error:
                raise QueryError(".edge", str(error)) from None
            edges.update({p.side: edge for p in pieces})
        reasons: list[str] = []
        oks: list[bool | None] = []
        per_piece: dict[str, Any] = {}
        outside: list[str] = []
        for p in pieces:
            if p.side not in edges:
                raise QueryError(
                    ".edge",
                    f'no deployment edge for side {p.side!r}: add "deployment": '
                    f'{{"{p.side}": "bottom"}} to the scene or "edge" to the query',
                )
            edge = edges[p.side]
            span = scene.table.depth if edge in ("top", "bottom") else scene.table.width
            zone = s.deployment_fraction * span
            pts = p.corners() if s.deployment_measure == "base" else np.array([p.xy])
            depth_in = float(np.max(_from_edge(pts, edge, scene)))
            near = float(np.min(_from_edge(pts, edge, scene)))
            verdict = judge(depth_in, zone, p.uncertainty)
            if near < -p.uncertainty - 1e-9:
                verdict = False
                reasons.append(f"{p.id} is off the table beyond the {edge} edge")
            oks.append(verdict)
            per_piece[p.id] = {
                "edge": edge,
                "depth": round(depth_in, 4),
                "limit": round(zone, 4),
                "ok": verdict,
            }
            if verdict is not True:
                outside.append(p.id)
                word = "too close to call" if verdict is None else "outside"
                reasons.append(
                    f"{p.id} reaches {_fmt(depth_in)} in from the {edge} edge: {word} its "
                    f"zone of {_fmt(zone)}"
                )
        ok = False if False in oks else (None if None in oks else True)
        if ok:
            reasons.append(f"all {len(pieces)} pieces are inside their side's set-up zone")
        return Verdict(
            "deployment",
            ok,
            tuple(reasons),
            details={"pieces": per_piece, "outside": outside},
            summary="deployment: " + ("all inside" if ok else f"outside: {', '.join(outside)}"),
        )

    def unit_points(self, piece: Piece) -> float:
        """Victory points the enemy scores for destroying ``piece``."""
        category = self.category(piece)
        if category == "tank":
            return 5
        if category in ("gun", "armoured car"):
            return 3
        if category == "halftrack":
            return self.settings.halftrack_points
        return 1

    def ask_victory(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Victory points at the end of a deck: destroyed enemy units (every piece with
        ``state: destroyed``) plus objectives controlled; ok is None when an objective's
        control is too close to call."""
        sides = list(scene.sides())
        extra = query.get("sides")
        if isinstance(extra, list):
            sides += [str(x) for x in extra if str(x) not in sides]
        if len(sides) < 2:
            raise QueryError(".sides", 'victory needs two sides (list them in "sides")')
        points = dict.fromkeys(sides, 0.0)
        reasons: list[str] = []
        for p in scene.pieces:
            if p.state != "destroyed":
                continue
            vp = self.unit_points(p)
            for side in sides:
                if side != p.side:
                    points[side] += vp
            reasons.append(f"{p.id} ({self.category(p)}, {p.side}) destroyed: {vp:g} VP")
        unsure = False
        for t in scene.terrain:
            if t.objective <= 0:
                continue
            holder, ok, _ = self._control(scene, t)
            if ok is None:
                unsure = True
                reasons.append(f"control of {t.id} is too close to call")
            elif holder is not None:
                points[holder] = points.get(holder, 0.0) + t.objective
                reasons.append(f"{holder} controls {t.id}: {t.objective:g} VP")
        ranked = sorted(points.items(), key=lambda kv: kv[1], reverse=True)
        (top, best), (_, second) = ranked[0], ranked[1]
        margin = best - second
        if margin == 0:
            result, winner = "tied", None
        elif margin < self.settings.marginal_margin:
            result, winner = "marginal victory", top
        else:
            result, winner = "victory", top
        reasons.append(
            f"{result}" + (f" for {winner}" if winner else "") + f" ({best:g} to {second:g} VP)"
        )
        return Verdict(
            "victory",
            None if unsure else True,
            tuple(reasons),
            details={"points": points, "winner": winner, "result": result},
            summary="victory: "
            + ", ".join(f"{k} {v:g}" for k, v in points.items())
            + f" -> {result}"
            + (f" for {winner}" if winner else ""),
        )

    # -- shared checks -----------------------------------------------------------------

    def _can_act(self, piece: Piece, ok: bool | None, reasons: list[str]) -> bool | None:
        if piece.state == "destroyed":
            reasons.append(f"{piece.id} is destroyed and may take no actions")
            return False
        if piece.state == "damaged":
            reasons.append(f"{piece.id} is damaged (shell-shocked) and may take no actions")
            return False
        return ok


LOS_NAMES = ("clear", "doubtful", "blocked")


@dataclass(frozen=True)
class Visibility:
    """All-pairs range and LOS (:meth:`PaperTigers.visibility`)."""

    ids: tuple[str, ...]
    distance: NDArray[np.float64]
    """``(n, n)`` inches, measured as the ruleset's ``range_measure`` says."""
    los: NDArray[np.int8]
    """``(n, n)``: 0 clear, 1 doubtful, 2 blocked (:data:`LOS_NAMES`); diagonal 0."""

    def los_of(self, a: str, b: str) -> str:
        return LOS_NAMES[int(self.los[self.ids.index(a), self.ids.index(b)])]


# ----------------------------------------------------------------------------------------


def _hops(
    start: str, ids: Sequence[str], links: Mapping[tuple[str, str], bool | None]
) -> dict[str, int]:
    """Fewest links from ``start`` to each id reachable through possible links."""
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for a in frontier:
            for b in ids:
                if b not in dist and links.get((a, b)) is not False:
                    dist[b] = dist[a] + 1
                    nxt.append(b)
        frontier = nxt
    del dist[start]
    return dist


def _pm(doubt: float) -> str:
    return f" (+/-{doubt:.2f})" if doubt else ""


def _piece(scene: Scene, query: Mapping[str, Any], key: str) -> Piece:
    if key not in query:
        raise QueryError(f".{key}", "missing field (a piece id)")
    pid = query[key]
    if not isinstance(pid, str) or pid not in scene:
        raise QueryError(f".{key}", f"unknown piece id {pid!r}")
    return scene.piece(pid)


def _number(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QueryError(path, f"must be a finite number, got {value!r}")
    if abs(value) > LIMIT:
        raise QueryError(path, f"must be within +/-{LIMIT:g}, got {value!r}")
    return float(value)


def _pose(raw: Any, path: str, default: Pose) -> Pose:
    if not isinstance(raw, dict):
        raise QueryError(
            path, f'must be a pose like {{"x": 10, "y": 4, "heading": 90}}, got {raw!r}'
        )
    for key in ("x", "y"):
        if key not in raw:
            raise QueryError(f"{path}.{key}", "missing field")
    heading = raw.get("heading", default.heading)
    return Pose(
        _number(raw["x"], f"{path}.x"),
        _number(raw["y"], f"{path}.y"),
        _number(heading, f"{path}.heading") % 360.0,
    )


def _card(raw: Any, path: str) -> Card:
    try:
        return Card.parse(raw)
    except ValueError as error:
        raise QueryError(path, str(error)) from None


def _subtract(
    spans: Sequence[tuple[float, float]], cover: Sequence[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Parts of ``spans`` not covered by ``cover`` (longer than a hair)."""
    out = list(spans)
    for c0, c1 in cover:
        nxt = []
        for s0, s1 in out:
            if c1 <= s0 or c0 >= s1:
                nxt.append((s0, s1))
                continue
            if c0 > s0:
                nxt.append((s0, c0))
            if c1 < s1:
                nxt.append((c1, s1))
        out = nxt
    return [(a, b) for a, b in out if b - a > 1e-9]


def _from_edge(points: np.ndarray, edge: str, scene: Scene) -> np.ndarray:
    """How far each point is in from a table edge (negative: off the table)."""
    if edge == "top":
        return points[:, 1]
    if edge == "bottom":
        return scene.table.depth - points[:, 1]
    if edge == "left":
        return points[:, 0]
    return scene.table.width - points[:, 0]
