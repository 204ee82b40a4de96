"""Pz8 WW2 Coastal (panzer8.weebly.com): motor torpedo boats, gunboats and corvettes.

From the text ("Pz8 - WW2 Coastal Wargame Rules", ``rule-sources/004_...txt``)
and RULES.md section 5. 1/1250 models; every distance doubles with 1/600 or
1/700 models (1, the ``scale`` setting). A vessel's speed this turn is a D6
face, 0-6in (3), at most its class's speed (5), less 2in when damaged (1in
for very slow vessels) and a further 2in when wrecked (7); it must use its
whole move and may pivot up to 45 degrees for every 1in of straight movement
(MTB, S-boot, PT, MAS) or 2in (others) (4), checked along the tracked path.
Guns of 37mm or more fire in +/-45 degree arcs forward, aft, port or starboard
by their position (6; ``FPS`` in the sample vessels: forward, port and
starboard), 30mm and smaller all round at half effect forward and aft and +1
within 2in; ranges 4/4/8/10/12/12/15in, hit on 4-6 within half range and 5-6
beyond (8, 6); torpedoes run straight from a counter 3in ahead inside the
forward arc to 18in or 21in (10); other vessels block line of sight (6);
night visibility is D3 x 10in with +/-5in for large or small targets and
fast movers (2), submarines -5in and a die (11).

A piece's ``kind`` is a vessel class or sample vessel (``vosper mtb``,
``s-boot``, ``flower corvette``, ``trawler``, ``u-boat``...); its own fields
are ``guns`` (armament as the sample list writes it: ``"6pdr (FPS), 6pdr
(APS), 2 x 20mm, 2 x 18in"``; sample vessels have theirs), ``speed`` (this
turn's speed die, 0-6) and ``wrecked``. Positions are base centres, headings
the bow.

Questions: ``range``, ``los``, ``move`` (shared; ``move`` takes the tracked
path as ``via`` and this turn's ``speed``), ``arc`` (``from``, ``to``: which
gun arc the target is in), ``torpedo`` (``from``, ``to``, optional
``course`` and ``weapon``: does the run hit the target's base, how long is
the run), ``spot`` (``from``, ``to``, ``roll``: the visibility D3) and
``speed`` (``piece``, ``speed``, optional ``last``: a speed change).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from referee.errors import SceneError, at, counted
from referee.geometry import (
    Pose,
    boundary_distance,
    centre_distance,
    segment_polygon,
    segment_spans,
)
from referee.rules.core import (
    Finding,
    Fire,
    Measured,
    MoveLimit,
    Reach,
    Spotting,
    TableRuleset,
    fmt,
    inches,
    judge_at_least,
    number_arg,
    piece_arg,
    pm,
    worst,
)
from referee.rules.flow import Declared, GameFlow, Judgement, SettledMove
from referee.rules.queries import MoveQuery, PairQuery, RangeQuery
from referee.rules.settings import setting
from referee.rules.values import PieceField, QueryError, Verdict, judge, name_key
from referee.rules.wording import HALF_RANGE, WITHIN, Words
from referee.scene import Piece, Scene

LAND = ("hill", "woods", "building", "rough", "difficult", "wall", "fortification", "road")
"""Terrain kinds that are land on a sea table: no vessel enters them and they block sight."""

MAX_DIE = 6
"""Speeds are the face of a D6 turned up beside the model: 0-6in (3)."""


@dataclass(frozen=True)
class Vessel:
    """One vessel class or sample vessel (5, 9, 11, 12)."""

    speed: float
    """Maximum speed, inches at 1/1250."""
    defence: int
    nimble: bool = False
    """MTB, S-boot, PT and MAS: pivot 45 degrees per 1in (others 2in) and change speed by
    up to 2 levels a turn (others 1)."""
    size: str = "medium"
    """Spotting (2): ``small`` (Vosper, MAS, Elco, Higgins: -5in), ``large`` (corvettes,
    minesweepers, escorts, large transports: +5in) or ``medium``."""
    guns: str = ""
    """The sample vessel's armament (12)."""
    submarine: bool = False

    @property
    def very_slow(self) -> bool:
        return self.speed <= 2


V = Vessel

VESSELS = {
    # Sample vessels (12), with the speed list (5) and defence list (9) classes.
    "vosper mtb": V(6, 2, True, "small", "2 x 20mm, 2 x 21in"),
    "s-boot": V(6, 3, True, "medium", "40mm (APS), 2 x 20mm, 2 x 21in"),
    "elco pt": V(6, 2, True, "small", "37mm (FPS), 40mm (APS), 1 x 20mm, 4 x 21in"),
    "higgins pt": V(6, 2, True, "small", "1 x 20mm, 4 x 21in"),
    "fairmile d mtb": V(5, 3, True, "medium", "6pdr (FPS), 6pdr (APS), 2 x 20mm, 2 x 18in"),
    "mas": V(5, 2, True, "small", "1 x 20mm, 2 x 18in"),
    "t class escort": V(5, 5, False, "large"),
    "fairmile c mgb": V(4, 3, False, "medium", "2pdr (FPS), 2pdr (APS), 2 x 20mm"),
    "flower corvette": V(3, 5, False, "large", "4in (FPS), 2pdr (APS), 2 x 20mm"),
    "gabbiano corvette": V(3, 5, False, "large", "4in (FPS), 6 x 20mm, 2 x 21in"),
    "minesweeper": V(3, 5, False, "large"),
    "raumboote": V(3, 3, False, "medium", "37mm (APS), 3 x 20mm"),
    "u-boat": V(3, 4, False, "medium", "88mm (FPS), 4 x 21in (F), 1 x 21in (A)", True),
    "small transport": V(2, 3),
    "medium transport": V(2, 4),
    "large transport": V(2, 5, False, "large"),
    "f-lighter": V(2, 4),
    "trawler": V(2, 4),
    # "88mm (FPS), 88mm (FPS) or (APS)": the second gun aft, as most MFPs carried it.
    "mfp": V(2, 5, False, "medium", "88mm (FPS), 88mm (APS), 8 x 20mm"),
}
ALIASES = {
    "vosper": "vosper mtb",
    "mtb": "vosper mtb",
    "s-100": "s-boot",
    "s-boat": "s-boot",
    "schnellboot": "s-boot",
    "e-boat": "s-boot",
    "elco": "elco pt",
    "pt": "elco pt",
    "pt boat": "elco pt",
    "higgins": "higgins pt",
    "fairmile d": "fairmile d mtb",
    "fairmile c": "fairmile c mgb",
    "mgb": "fairmile c mgb",
    "t-boot": "t class escort",
    "escort": "t class escort",
    "flower": "flower corvette",
    "corvette": "flower corvette",
    "gabbiano": "gabbiano corvette",
    "r-boot": "raumboote",
    "type vii": "u-boat",
    "submarine": "u-boat",
    "transport": "medium transport",
    "marinefahrprahm": "mfp",
}


@dataclass(frozen=True)
class Weapon:
    """One row of the attack factor and range table (8), or a torpedo (10)."""

    range: float
    attack: int
    kind: str
    """``small`` (30mm or smaller: one attack factor, all round), ``gun`` (37mm or larger,
    in arcs) or ``torpedo``."""


WEAPONS = {
    "30mm or smaller": Weapon(4, 1, "small"),
    "2pdr": Weapon(4, 2, "gun"),
    "37-40mm": Weapon(8, 2, "gun"),
    "57mm-6pdr": Weapon(10, 3, "gun"),
    "3in gun": Weapon(12, 4, "gun"),
    "88mm": Weapon(12, 5, "gun"),
    "4in gun": Weapon(15, 6, "gun"),
    "18in torpedo": Weapon(18, 0, "torpedo"),
    "21in torpedo": Weapon(21, 0, "torpedo"),
}
WEAPON_ALIASES = {
    **{k: "30mm or smaller" for k in ("small", "20mm", "30mm", "mg", "hmg", "25mm", "15mm")},
    **{k: "37-40mm" for k in ("37mm", "40mm", "37mm-40mm")},
    **{k: "57mm-6pdr" for k in ("57mm", "6pdr", "6 pounder")},
    **{k: "3in gun" for k in ("3in", '3"', "3 inch")},
    **{k: "4in gun" for k in ("4in", '4"', "4 inch")},
    **{k: "18in torpedo" for k in ("18in", '18"', "18 inch")},
    **{k: "21in torpedo" for k in ("21in", '21"', "21 inch")},
    "2 pounder": "2pdr",
}
_WEAPON_KEYS = {name_key(k): k for k in WEAPONS} | {
    name_key(k): v for k, v in WEAPON_ALIASES.items()
}
ARCS = {"F": ("forward", 0.0), "S": ("starboard", 90.0), "A": ("aft", 180.0), "P": ("port", -90.0)}
"""Arc letter -> (name, centre off the bow in degrees; +90 is starboard, the right side
seen from above with the bow ahead, as ``TableRuleset.facing_side`` has it)."""
_MOUNT = re.compile(r"^\s*(?:(\d+)\s*x\s*)?(.+?)\s*(?:\(\s*([FAPSfaps]+)\s*\))?\s*$")


@dataclass(frozen=True)
class Mount:
    """Guns of one kind at one position (``6pdr (FPS)``), or all 30mm-and-smaller guns."""

    weapon: str
    count: int
    arcs: str
    """Arc letters (F, A, P, S); empty: all round."""

    @property
    def label(self) -> str:
        n = f"{self.count} x " if self.count > 1 else ""
        return f"{n}{self.weapon}" + (f" ({self.arcs})" if self.arcs else "")


def parse_guns(text: str) -> tuple[Mount, ...]:
    """A vessel's armament as the sample list writes it; ValueError says what is wrong.

    >>> [m.label for m in parse_guns("6pdr (FPS), 2 x 20mm, 1 x 20mm, 2 x 18in")]
    ['3 x 30mm or smaller', '57mm-6pdr (FPS)', '2 x 18in torpedo (F)']
    """
    mounts: list[Mount] = []
    small = 0
    for item in filter(None, (part.strip() for part in text.split(","))):
        m = _MOUNT.match(item)
        if m is None:  # pragma: no cover - the pattern matches any non-empty text
            raise ValueError(f"cannot read {item!r}")
        count = int(m.group(1) or 1)
        weapon = _WEAPON_KEYS.get(name_key(m.group(2)))
        if weapon is None:
            known = ", ".join(WEAPONS)
            raise ValueError(f"unknown weapon {m.group(2)!r} in {item!r} (known: {known})")
        arcs = "".join(dict.fromkeys((m.group(3) or "").upper()))
        kind = WEAPONS[weapon].kind
        if kind == "small":
            small += count  # one attack factor for all of them, fired all round (6)
            continue
        if kind == "torpedo":
            arcs = arcs or "F"
            if set(arcs) - {"F", "A"}:
                raise ValueError(f"torpedo tubes fire forward (F) or aft (A): {item!r}")
        elif not arcs:
            raise ValueError(
                f"give the arcs of {item!r} by its position, e.g. '{m.group(2)} (FPS)' "
                "(F forward, A aft, P port, S starboard)"
            )
        mounts.append(Mount(weapon, count, arcs))
    if small:
        mounts.insert(0, Mount("30mm or smaller", small, ""))
    return tuple(mounts)


@dataclass(frozen=True)
class Turn:
    """One turn along a move: the heading change since the previous turn ended, and the
    movement since then (the straight run before it and the way it turned)."""

    at: float
    """Inches along the path where the turn ends."""
    turn: float
    """Signed degrees (+ to starboard)."""
    run: float
    """Inches moved since the previous turn ended (or the start)."""


def split_turns(poses: Sequence[Pose], noise: float) -> list[Turn]:
    """Split a path into straight stretches and turns: a step between two poses whose
    heading changes by more than ``noise`` degrees is turning; consecutive turning steps
    the same way are one turn. Each turn is checked against the movement since the
    previous turn ended (so an arc counts the way it curved, and heading drift along a
    straight stretch adds to the next turn); drift after the last turn larger than
    ``noise`` is a turn too.

    >>> [(t.turn, t.run) for t in split_turns([Pose(0, 0, 0), Pose(2, 0, 0), Pose(3, 0, 90)], 3)]
    [(90.0, 3.0)]
    """
    steps = []
    for a, b in itertools.pairwise(poses):
        d = centre_distance(a.xy, b.xy)
        t = (b.heading - a.heading + 180.0) % 360.0 - 180.0
        steps.append((d, t))
    turns: list[Turn] = []
    along = run = change = 0.0
    sign = 0
    for k, (d, t) in enumerate(steps):
        along += d
        run += d
        change += t
        turning = abs(t) > noise
        nxt = steps[k + 1][1] if k + 1 < len(steps) else 0.0
        this_sign = (t > 0) - (t < 0)
        if turning:
            sign = this_sign
        # A turn ends where its steps stop turning the same way.
        if turning and not (abs(nxt) > noise and ((nxt > 0) - (nxt < 0)) == sign):
            turns.append(Turn(along, change, run))
            run = change = 0.0
            sign = 0
    if abs(change) > noise:
        turns.append(Turn(along, change, run))
    return turns


class Pz8Coastal(Spotting):
    """Pz8 WW2 Coastal: vessels on a sea table, one model each."""

    name = "pz8-coastal"
    aliases = ("pz8 coastal", "pz8 ww2 coastal", "coastal")
    title = "Pz8 WW2 Coastal"
    source = "004_6d86763d460ce231.txt"
    vessels: ClassVar[Mapping[str, Vessel]] = VESSELS
    kinds = {name_key(k): k for k in VESSELS} | {name_key(k): v for k, v in ALIASES.items()}
    half_range = True
    piece_fields = (
        PieceField(
            "guns",
            "text",
            None,
            'armament, e.g. "6pdr (FPS), 6pdr (APS), 2 x 20mm, 2 x 18in" (arcs F/A/P/S by '
            "position; sample vessels have theirs)",
        ),
        PieceField("speed", "count", None, "this turn's speed die, 0-6 (the move must use it)"),
        PieceField("wrecked", "flag", False, "wrecked: a further -2in speed, -2 small-gun attack"),
    )

    @dataclass(frozen=True)
    class Settings(TableRuleset.Settings):
        """Conventions where the Coastal text is silent. Distances are inches at 1/1250
        (``scale`` doubles them)."""

        scale: str = setting(
            "1/1250",
            (
                "Model scale: ``1/1250``, or ``1/600`` / ``1/700``, which double every distance "
                "of the rules (speeds, pivots, ranges, torpedo runs, visibility) (1)."
            ),
        )
        range_measure: str = setting(
            "centre",
            (
                "The text does not say where range is measured: base centre to base centre like "
                "the other Pz8 sets (``edge``: nearest base edges)."
            ),
        )
        move_measure: str = setting(
            "centre", "A move is the path of the base centre (the tracked path when given)."
        )
        blocking: tuple[str, ...] = setting(
            (*LAND, "smoke"), "Land and smoke block sight; vessels always do (6)."
        )
        difficult: tuple[str, ...] = setting((), "Nothing at sea ends a move on entry.")
        impassable: tuple[str, ...] = setting(
            LAND, "No vessel enters land (the centre line of each step of the path)."
        )
        crossings: tuple[str, ...] = setting((), "Nothing carries a vessel over land.")
        wrecks_block: bool = setting(
            False,
            "A sunk vessel (``state: destroyed``) is gone; a wrecked one still blocks sight.",
        )
        arc: float = setting(
            90.0, "Width of each gun arc, degrees: +/-45 forward, aft, port or starboard (6)."
        )
        pivot: float = setting(
            45.0,
            (
                "Degrees a vessel may pivot for every ``pivot_run_fast`` or ``pivot_run`` "
                "inches of straight movement (4)."
            ),
        )
        pivot_run_fast: float = setting(
            1.0, "Inches of straight movement per pivot for MTB, S-boot, PT and MAS (4)."
        )
        pivot_run: float = setting(
            2.0, "Inches of straight movement per pivot for every other vessel (4)."
        )
        turn_noise: float = setting(
            3.0,
            (
                "Heading changes up to this many degrees between two poses of a path are "
                "steering noise, not a pivot (the text has no small print for hand-moved "
                "models)."
            ),
        )
        close_range: float = setting(
            2.0, "30mm and smaller guns add +1 to their attack factor within this (6)."
        )
        torpedo_min: float = setting(
            3.0, "A torpedo counter starts this far ahead of the model: the minimum range (10)."
        )
        torpedo_origin: str = setting(
            "front",
            (
                "Where the 3in and the run are measured from: ``front`` (the bow, or the stern "
                'for aft tubes: "away from the model") or ``centre`` (the base centre, like '
                "range)."
            ),
        )
        visibility_step: float = setting(10.0, "Night visibility is the D3 roll times this (2).")
        visibility_modifier: float = setting(
            5.0,
            (
                "Large targets and targets moving at 5-6in are seen this much farther, small "
                "vessels and submarines this much nearer (2, 11)."
            ),
        )
        visibility_roll: int = setting(
            0,
            (
                "The game's visibility D3 (1-3), rolled before play (2); 0: each ``spot`` "
                "question gives its ``roll``."
            ),
        )

        def check(self) -> None:
            super().check()
            if self.scale not in SCALES:
                raise ValueError(f"setting scale must be one of {', '.join(SCALES)}")
            if self.torpedo_origin not in ("front", "centre"):
                raise ValueError('setting torpedo_origin must be "front" or "centre"')
            if isinstance(self.visibility_roll, bool) or self.visibility_roll not in range(4):
                raise ValueError("setting visibility_roll must be 0 (not rolled) or 1-3")
            for key in ("arc", "pivot", "pivot_run_fast", "pivot_run", "visibility_step"):
                if not getattr(self, key) > 0:
                    raise ValueError(f"setting {key} must be > 0")
            for key in ("turn_noise", "close_range", "torpedo_min", "visibility_modifier"):
                if not getattr(self, key) >= 0:
                    raise ValueError(f"setting {key} must be >= 0")

    settings: Pz8Coastal.Settings

    # -- tables ---------------------------------------------------------------------------

    @property
    def k(self) -> float:
        """Distance factor: 2 at 1/600 and 1/700 (1)."""
        return SCALES[self.settings.scale]

    @classmethod
    def vessel(cls, piece: Piece) -> Vessel:
        return cls.vessels[cls.kinds[name_key(piece.kind)]]

    @classmethod
    def mounts(cls, piece: Piece) -> tuple[Mount, ...]:
        raw = cls.field(piece, "guns")
        try:
            return parse_guns(cls.vessel(piece).guns if raw is None else str(raw))
        except ValueError as error:  # a piece that never went through validate (a roster)
            raise QueryError(".from", f"{piece.id}'s guns: {error}") from None

    @classmethod
    def validate(cls, scene: Scene) -> None:
        super().validate(scene)
        for i, p in enumerate(scene.pieces):
            raw = p.get("guns")
            if raw is not None:
                try:
                    parse_guns(str(raw))
                except ValueError as error:
                    raise SceneError(at(scene.source, f"$.pieces[{i}].guns", str(error))) from None
            speed = p.get("speed")
            if isinstance(speed, int) and speed > MAX_DIE:
                raise SceneError(
                    at(scene.source, f"$.pieces[{i}].speed", f"must be 0-6 (a D6), got {speed}")
                )

    def max_speed(self, piece: Piece) -> float:
        """The vessel's top speed now, in speed-die inches (5, 7): less 2in when damaged
        (1in for very slow vessels), a further 2in when wrecked, never below 0."""
        v = self.vessel(piece)
        speed = v.speed
        if piece.state == "damaged" or self.field(piece, "wrecked"):
            speed -= 1 if v.very_slow else 2
        if self.field(piece, "wrecked"):
            speed -= 2
        return max(speed, 0.0)

    def heading_doubt(self, piece: Piece) -> float:
        """Degrees of doubt in a heading: the position doubt at either end of the base."""
        if not piece.uncertainty:
            return 0.0
        return math.degrees(math.atan2(piece.uncertainty, max(piece.base[1] / 2, 1e-6)))

    # -- hooks ----------------------------------------------------------------------------

    def fire_range(self, piece: Piece) -> float | None:
        """The longest gun's range (what the dashboard draws); torpedoes run from 3in ahead."""
        guns = [
            WEAPONS[m.weapon].range
            for m in self.mounts(piece)
            if WEAPONS[m.weapon].kind != "torpedo"
        ]
        return max(guns) * self.k if guns else 0.0

    def move_allowance(self, piece: Piece) -> float | None:
        return self.max_speed(piece) * self.k

    def unit_blocks(self, piece: Piece) -> bool:
        return True  # other vessels block line of sight (6)

    def game_flow(self) -> GameFlow:
        return CoastalFlow(self)

    # -- arcs -----------------------------------------------------------------------------

    def arcs_of(self, firer: Piece, target: Piece) -> tuple[float, float, dict[str, bool | None]]:
        """(degrees off the bow, + to starboard; the doubt in it; arc letter -> whether the
        target's centre is inside that +/-45 degree arc, None too close to call). Exactly on
        an arc's edge is inside both arcs."""
        dx, dy = target.x - firer.x, target.y - firer.y
        off = (math.degrees(math.atan2(dy, dx)) - firer.heading + 180.0) % 360.0 - 180.0
        d = centre_distance(firer.xy, target.xy)
        doubt = firer.uncertainty + target.uncertainty
        spread = math.degrees(math.atan2(doubt, max(d, 1e-9))) + self.heading_doubt(firer)
        half = self.settings.arc / 2
        inside = {
            letter: judge(abs((off - centre + 180.0) % 360.0 - 180.0), half, spread)
            for letter, (_, centre) in ARCS.items()
        }
        return off, spread, inside

    # -- questions ------------------------------------------------------------------------

    def ask_arc(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """Which of the four gun arcs of ``from`` the centre of ``to`` is in."""
        firer = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        off, spread, inside = self.arcs_of(firer, target)
        sure = [ARCS[k][0] for k, v in inside.items() if v]
        maybe = [ARCS[k][0] for k, v in inside.items() if v is None]
        side = "starboard" if 0 < off < 180 else "port" if -180 < off < 0 else "dead ahead"
        if abs(off) == 180:
            side = "dead astern"
        plus = f" (+/-{spread:.2f} deg)" if spread else ""
        reasons = [f"{target.id} is {abs(off):.1f} deg off {firer.id}'s bow{plus}, {side}"]
        if maybe:
            word = " or ".join(sorted({*sure, *maybe}))
            reasons.append(f"too close to call at the arc edge: {word}")
        elif len(sure) > 1:
            reasons.append(f"exactly on the edge: in both the {' and '.join(sure)} arcs")
        else:
            reasons.append(f"in the {sure[0]} arc (+/-{self.settings.arc / 2:g} deg)")
        ok = None if maybe else True
        return Verdict(
            "arc",
            ok,
            tuple(reasons),
            distance=centre_distance(firer.xy, target.xy),
            uncertainty=firer.uncertainty + target.uncertainty,
            details={"arcs": sure, "doubtful": maybe, "off_bow": round(off, 3)},
            summary=f"arc {firer.id} -> {target.id}: "
            + (
                " or ".join(sorted({*sure, *maybe})) + " (too close to call)"
                if maybe
                else " and ".join(sure)
            ),
        )

    def judge_fire(
        self, scene: Scene, query: RangeQuery, distance: float, reasons: list[str]
    ) -> Fire:
        """Which guns of ``from`` reach ``to`` and bear on it (its arc), with the hit number
        (4-6 within half range, 5-6 beyond) and the small guns' attack factor; ``weapon``
        names one weapon. Torpedoes: ask ``torpedo``."""
        firer, target, doubt = query.firer, query.target, query.doubt
        mounts = self.mounts(firer)
        weapon = query.extra.get("weapon")
        if weapon is not None:
            row = _WEAPON_KEYS.get(name_key(weapon)) if isinstance(weapon, str) else None
            if row is None:
                raise QueryError(
                    ".weapon", f"unknown weapon {weapon!r} (known: {', '.join(WEAPONS)})"
                )
            mounts = tuple(m for m in mounts if m.weapon == row)
            if not mounts:
                aboard = ", ".join(m.label for m in self.mounts(firer)) or "none"
                raise QueryError(".weapon", f"{firer.id} carries no {row} (aboard: {aboard})")
        else:
            mounts = tuple(m for m in mounts if WEAPONS[m.weapon].kind != "torpedo")
        _, _, inside = self.arcs_of(firer, target)
        if not mounts:
            reasons.append(f"{firer.id} has no guns (torpedoes: ask torpedo)")
            return Fire(False, None, reasons, {}, lambda ok: "no guns", settled=True)
        rows = [self._mount_row(m, firer, target, distance, doubt, inside, reasons) for m in mounts]
        best = _best_mount(rows)
        details: dict[str, Any] = {"weapons": [{k: v for k, v in r.items()} for r in rows]}
        if best["ok"] is not False:
            details["half_range"] = best["half_range"]
            details["to_hit"] = best["to_hit"]

        def summary(ok: bool | None) -> str:
            word = Words("can fire", "cannot fire")(ok)
            return f"{fmt(distance)}{pm(doubt)}, {word}" + (
                f" ({best['weapon']}, limit {inches(best['range'])})" if ok is not False else ""
            )

        return Fire(best["ok"], best["range"], reasons, details, summary)

    def range_findings(self, scene: Scene, query: RangeQuery, verdict: Verdict) -> list[Finding]:
        """The to-hit modifiers of the mount that decides (said after the verdict)."""
        rows = verdict.details.get("weapons")
        if not rows:
            return []
        mod, why = self.hit_modifier(query.firer, query.target, _best_mount(rows)["kind"])
        if not why:
            return []
        return [Finding(reasons=("to hit " + ", ".join(why),), details={"to_hit_modifier": mod})]

    def _mount_row(
        self,
        m: Mount,
        firer: Piece,
        target: Piece,
        distance: float,
        doubt: float,
        inside: Mapping[str, bool | None],
        reasons: list[str],
    ) -> dict[str, Any]:
        w = WEAPONS[m.weapon]
        limit = w.range * self.k
        in_range = judge(distance, limit, doubt)
        oks = [in_range]
        if w.kind == "torpedo":
            oks.append(judge_at_least(distance, self.settings.torpedo_min * self.k, doubt))
        if m.arcs:
            bears = [inside[a] for a in m.arcs]
            in_arc: bool | None = True if True in bears else (None if None in bears else False)
        else:
            in_arc = True
        oks.append(in_arc)
        ok = worst(oks)
        half = judge(distance, limit / 2, doubt)
        to_hit = Words("4-6", "5-6", "4-6 or 5-6")(half)
        row: dict[str, Any] = {
            "weapon": m.weapon,
            "arcs": m.arcs or "all round",
            "range": limit,
            "in_range": in_range,
            "in_arc": in_arc,
            "half_range": HALF_RANGE(half),
            "to_hit": to_hit,
            "ok": ok,
            "kind": w.kind,
        }
        word = WITHIN(in_range)
        text = f"{m.label}: {word} {inches(limit)}"
        if m.arcs:
            arc_word = {
                True: "bears",
                False: "does not bear",
                None: "too close to call whether it bears",
            }
            text += f", {arc_word[in_arc]} (arcs {m.arcs})"
        if ok is not False:
            text += f", hits on {to_hit}"
        if w.kind == "small":
            attack, why = self.small_attack(m, firer, distance, doubt, inside)
            row["attack"] = attack
            if why:
                text += f" (attack {attack}: {', '.join(why)})"
        reasons.append(text)
        return row

    def small_attack(
        self,
        m: Mount,
        firer: Piece,
        distance: float,
        doubt: float,
        inside: Mapping[str, bool | None],
    ) -> tuple[int | str, list[str]]:
        """The 30mm-and-smaller attack factor (6, 7): +1 per gun, -1 damaged, a further -2
        wrecked, halved (rounded up) at a target in the forward or aft arc, then +1 within
        2in. Doubt at an arc edge or at 2in gives both values (``"2 or 3"``)."""
        why: list[str] = []
        base = m.count
        if firer.state == "damaged" or self.field(firer, "wrecked"):
            base -= 1
            why.append("-1 damaged")
        if self.field(firer, "wrecked"):
            base -= 2
            why.append("-2 wrecked")
        base = max(base, 0)
        ends = [inside["F"], inside["A"]]
        halves = True if True in ends else (None if None in ends else False)
        close = judge(distance, self.settings.close_range * self.k, doubt)
        values = set()
        for h in [True, False] if halves is None else [halves]:
            for c in [True, False] if close is None else [close]:
                values.add((math.ceil(base / 2) if h else base) + (1 if c else 0))
        if halves is not False:
            why.append("halved forward/aft" + ("?" if halves is None else ""))
        if close is not False:
            why.append(
                f"+1 within {inches(self.settings.close_range * self.k)}"
                + ("?" if close is None else "")
            )
        out = sorted(values)
        return (out[0] if len(out) == 1 else " or ".join(map(str, out))), why

    def hit_modifier(self, firer: Piece, target: Piece, kind: str) -> tuple[int, list[str]]:
        """To-hit modifiers the table shows (6, 11): target speed 6 -1, 2 or less +1,
        firer at 6 -1, a submarine's deck gun -1 (speeds from the ``speed`` fields)."""
        mod = 0
        why: list[str] = []
        ts, fs = self.field(target, "speed"), self.field(firer, "speed")
        if ts == MAX_DIE:
            mod -= 1
            why.append(f"-1 ({target.id} at speed 6)")
        elif isinstance(ts, int) and ts <= 2:
            mod += 1
            why.append(f"+1 ({target.id} at speed {ts})")
        if fs == MAX_DIE:
            mod -= 1
            why.append(f"-1 ({firer.id} at speed 6)")
        if self.vessel(firer).submarine and kind != "torpedo":
            mod -= 1
            why.append("-1 (a submarine's deck gun)")
        return mod, why

    def ask_torpedo(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A torpedo from ``from``: its counter starts 3in ahead (the bow, or the stern for
        aft tubes), inside the tube's +/-45 degree arc, and runs straight on ``course``
        (degrees; default: at the centre of ``to``) to its maximum range (18in or 21in, or
        ``weapon``). Does the run cross the target's base, and how far along (4-6 to hit
        within half the maximum, 5-6 beyond)? A vessel crossed first takes it instead."""
        firer = piece_arg(scene, query, "from")
        target = piece_arg(scene, query, "to")
        tubes = [m for m in self.mounts(firer) if WEAPONS[m.weapon].kind == "torpedo"]
        if "weapon" in query:
            row = _WEAPON_KEYS.get(name_key(str(query["weapon"])))
            tubes = [m for m in tubes if m.weapon == row]
        if not tubes:
            aboard = ", ".join(m.label for m in self.mounts(firer)) or "none"
            raise QueryError(
                ".weapon" if "weapon" in query else ".from",
                f"{firer.id} has no such torpedoes (aboard: {aboard})",
            )
        s = self.settings
        depth = firer.base[1]
        course_given = "course" in query
        if course_given:
            course = number_arg(query["course"], ".course") % 360.0
        reasons: list[str] = []

        def origin(end: str) -> tuple[float, float]:
            if s.torpedo_origin == "centre":
                return firer.xy
            h = firer.heading + (180.0 if end == "A" else 0.0)
            return (
                firer.x + depth / 2 * math.cos(math.radians(h)),
                firer.y + depth / 2 * math.sin(math.radians(h)),
            )

        # The tubes that bear on the course (or on the target), longest first.
        choice: list[tuple[int, float, Mount, str, float]] = []
        for m in tubes:
            for end in m.arcs:
                start = origin(end)
                c = (
                    course
                    if course_given
                    else math.degrees(math.atan2(target.y - start[1], target.x - start[0]))
                )
                bow = firer.heading + (180.0 if end == "A" else 0.0)
                dev = abs((c - bow + 180.0) % 360.0 - 180.0)
                ok_arc = judge(dev, s.arc / 2, self.heading_doubt(firer))
                rank = {True: 0, None: 1, False: 2}[ok_arc]
                choice.append((rank, -WEAPONS[m.weapon].range, m, end, c % 360.0))
        choice.sort(key=lambda c: (c[0], c[1]))
        rank, _, mount, end, course = choice[0]
        in_arc: bool | None = {0: True, 1: None, 2: False}[rank]
        o = np.array(origin(end))
        u = np.array([math.cos(math.radians(course)), math.sin(math.radians(course))])
        far = WEAPONS[mount.weapon].range * self.k
        near = s.torpedo_min * self.k
        a, b = o + near * u, o + far * u
        doubt = firer.uncertainty + target.uncertainty
        where = "bow" if end == "F" else "stern"
        if s.torpedo_origin == "centre":
            where = "centre"
        reasons.append(
            f"{mount.label} from the {where} on course {course:.1f} deg: runs from "
            f"{inches(near)} to {inches(far)}"
        )
        arc_name = ARCS[end][0]
        if in_arc is not True:
            reasons.append(
                "the course is "
                + ("outside" if in_arc is False else "too close to call at the edge of")
                + f" the {arc_name} arc (+/-{s.arc / 2:g} deg)"
            )
        hit, entry = self._run_meets(a, b, target, doubt)
        distance = None if entry is None else near + entry * (far - near)
        details: dict[str, Any] = {"weapon": mount.weapon, "course": round(course, 3), "tubes": end}
        if distance is not None:
            details["run"] = distance
        oks: list[bool | None] = [in_arc, hit]
        if hit is False:
            inside_min = self._run_meets(o, a, target, doubt)[0]
            reasons.append(
                f"the run misses {target.id}'s base"
                + (f" (it lies inside the {inches(near)} minimum)" if inside_min else "")
            )
        else:
            word = "crosses" if hit else "too close to call whether it crosses"
            reasons.append(
                f"the run {word} {target.id}'s base {fmt(distance or 0.0)} from the {where}"
            )
            half = judge(distance or 0.0, far / 2, doubt)
            details["half_range"] = HALF_RANGE(half)
            details["to_hit"] = Words("4-6", "5-6", "4-6 or 5-6")(half)
            reasons.append(f"hits on {details['to_hit']}")
            # Vessels and land crossed before the target take the run first.
            stop = o + (near + (entry or 0.0) * (far - near)) * u
            first: list[str] = []
            for p in scene.pieces:
                if p.id in (firer.id, target.id) or p.state == "destroyed":
                    continue
                got, _ = self._run_meets(a, stop, p, p.uncertainty + firer.uncertainty)
                if got is not False:
                    first.append(p.id)
                    oks.append(False if got else None)
                    reasons.append(f"the run {'crosses' if got else 'may cross'} {p.id} first")
            for t in scene.terrain:
                if t.kind in s.impassable:
                    meet = segment_polygon(list(a), list(stop), t.outline())
                    if meet.contact == "crosses" and meet.depth > doubt:
                        oks.append(False)
                        reasons.append(f"the run hits {t.kind} {t.id} first")
                    elif meet.contact != "clear" or meet.clearance <= doubt:
                        oks.append(None)
                        reasons.append(f"the run may graze {t.kind} {t.id}")
            if first:
                details["crosses_first"] = first
            small = self.vessel(target).defence <= 3
            details["effect"] = "none (MTB)" if small else "sunk"
            reasons.append(
                f"torpedoes are ineffective against {target.id} (a small or larger MTB)"
                if small
                else f"a hit sinks {target.id}"
            )
        ok = self.can_act(firer, worst(oks), reasons)
        word = Words("hits its base", "misses")(ok)
        if in_arc is False:
            word = f"cannot fire: the course is outside the {arc_name} arc"
        return Verdict(
            "torpedo",
            ok,
            tuple(reasons),
            distance=distance,
            uncertainty=doubt,
            limit=far,
            details=details,
            summary=f"torpedo {firer.id} -> {target.id}: {word}"
            + (
                f" after {fmt(distance)}{pm(doubt)}"
                if distance is not None and ok is not False
                else ""
            ),
        )

    def _run_meets(
        self, a: np.ndarray, b: np.ndarray, target: Piece, doubt: float
    ) -> tuple[bool | None, float | None]:
        """Whether the segment ``a``-``b`` crosses the piece's base (None within the doubt;
        exactly touching with no doubt counts, like a limit met), and the fraction along
        it where it first meets the base (or comes nearest)."""
        if float(np.hypot(*(b - a))) <= 1e-12:
            return False, None
        poly = target.corners()
        c = segment_polygon(list(a), list(b), poly)
        spans = segment_spans(a, b, poly, strict=False)
        entry = spans[0][0] if spans else _nearest_along(a, b, poly)
        if c.contact == "crosses":
            return (True if c.depth > doubt or doubt == 0 else None), entry
        if c.contact == "touches":
            return (True if doubt == 0 else None), entry
        if c.clearance <= doubt:
            return None, entry
        return False, None

    spot_limit_word = "visibility"
    spot_doubtful_word = "doubtful"

    def spot_reach(self, scene: Scene, query: PairQuery) -> Reach:
        """Spotting at night: the visibility (the D3 ``roll`` x 10in, +5in for a large
        target or one moving at 5-6in, -5in for a small one; a submarine -5in), centre to
        centre."""
        spotter, target = query.firer, query.target
        s = self.settings
        roll = query.extra.get("roll", s.visibility_roll or None)
        if roll is None:
            raise QueryError(".roll", "missing field: the visibility D3 rolled before play (1-3)")
        if isinstance(roll, bool) or roll not in (1, 2, 3):
            raise QueryError(".roll", f"must be the D3 rolled for visibility, 1-3, got {roll!r}")
        speed = query.extra.get("target_speed", self.field(target, "speed"))
        if speed is not None and (isinstance(speed, bool) or speed not in range(MAX_DIE + 1)):
            raise QueryError(".target_speed", f"must be a speed die face 0-6, got {speed!r}")
        v = self.vessel(target)
        base = roll * s.visibility_step
        reasons = [f"visibility {roll} x {inches(s.visibility_step)} = {inches(base * self.k)}"]
        mods = 0.0
        step = s.visibility_modifier
        if v.size == "large":
            mods += step
            reasons.append(f"+{step:g}in: {target.id} is a larger vessel")
        elif v.size == "small":
            mods -= step
            reasons.append(f"-{step:g}in: {target.id} is a small vessel")
        if isinstance(speed, int) and speed >= 5:
            mods += step
            reasons.append(f"+{step:g}in: {target.id} moves at {speed}in")
        if v.submarine:
            mods -= step
            reasons.append(f"-{step:g}in: {target.id} is a submarine (low profile)")
        limit = max(base + mods, 0.0) * self.k
        distance = centre_distance(spotter.xy, target.xy)
        within = judge(distance, limit, query.doubt)
        word = WITHIN(within)
        reasons.append(f"{fmt(distance)} centre to centre: {word} {inches(limit)}")
        return Reach(within, distance, limit, reasons, {"visibility": limit})

    def spot_after_line(
        self,
        query: PairQuery,
        reach: Reach,
        los: str,
        seen: bool | None,
        reasons: list[str],
        details: dict[str, Any],
    ) -> tuple[list[bool | None], str | None]:
        """A submarine within the visibility is then spotted on a die: 5-6 over half the
        distance, 4-6 within."""
        details["los"] = los
        if not self.vessel(query.target).submarine or reach.within is False:
            return [], None
        half = judge(reach.distance, reach.limit / 2, query.doubt)
        need = Words("4-6", "5-6", "4-6 or 5-6")(half)
        details["roll_needed"] = need
        reasons.append(f"a submarine is spotted on a die roll of {need}")
        sure = reach.within is True and seen is True
        return [None], f"roll {need}" if sure else None  # the die decides

    def ask_speed(self, scene: Scene, query: Mapping[str, Any]) -> Verdict:
        """A speed declared for this turn (3, 5, 7): 0-6 and at most the vessel's top speed
        now; from the ``last`` turn's (default: the piece's ``speed``) by at most 2 levels
        (MTB, S-boot, PT, MAS) or 1 (others)."""
        piece = piece_arg(scene, query, "piece")
        speed = _die(query.get("speed"), ".speed", required=True)
        assert speed is not None
        last = _die(query.get("last", self.field(piece, "speed")), ".last")
        top = self.max_speed(piece)
        reasons = [f"{piece.id} ({self.category(piece)}) top speed now {inches(top)}"]
        oks: list[bool | None] = [speed <= top]
        if speed > top:
            reasons.append(f"speed {speed} exceeds it")
        step = 2 if self.vessel(piece).nimble else 1
        if last is not None:
            change = abs(speed - last)
            oks.append(change <= step)
            reasons.append(
                f"from {last} to {speed}: {change} level{'s' if change != 1 else ''}, "
                f"{'within' if change <= step else 'more than'} the {step} allowed"
            )
        ok = self.can_act(piece, worst(oks), reasons)
        return Verdict(
            "speed",
            ok,
            tuple(reasons),
            details={"speed": speed, "top_speed": top, "change_limit": step},
            summary=f"speed {piece.id}: {speed}, {'ok' if ok else 'not allowed'}",
        )

    tracks_path = True  # a vessel's move is judged along the path the camera tracked

    def measure_move(self, move: MoveQuery) -> Measured:
        """The base centre's path: start, the tracked ``via`` poses, end."""
        poses = [move.start, *move.via, move.end]
        length = sum(centre_distance(a.xy, b.xy) for a, b in itertools.pairwise(poses))
        via = counted(len(move.via), "pose")
        how = f"along the tracked path ({via})" if move.via else "start to end"
        reason = f"moved {fmt(length)} {how}, at the base centre"
        return Measured(length, move.start.xy, move.end.xy, reason)

    def move_limit(
        self, scene: Scene, move: MoveQuery, mover: Piece, measured: Measured
    ) -> MoveLimit:
        """The whole length against this turn's speed (``speed`` in the query, else the
        piece's): a move shorter or longer than the speed is illegal (4), within the doubt
        too close to call; no speed declared: at most the top speed."""
        piece, doubt, length = move.piece, move.doubt, measured.distance
        if move.allowance is not None:
            raise QueryError(".allowance", 'a vessel moves its speed die: give "speed" (0-6)')
        speed = _die(move.extra.get("speed", self.field(piece, "speed")), ".speed")
        k = self.k
        top = self.max_speed(piece)
        reasons: list[str] = []
        oks: list[bool | None] = []
        details: dict[str, Any] = {
            "max_speed": top * k,
            "path": "tracked" if move.via else "start and end",
        }
        if speed is None:
            limit = top * k
            ok_len = judge(length, limit, doubt)
            oks.append(ok_len)
            word = Words("within", "exceeds", "too close to call against")(ok_len)
            reasons.append(
                f"{word} {piece.id}'s top speed {inches(limit)}; no speed declared, so the "
                'whole-move rule is not checked (give "speed")'
            )
        else:
            limit = speed * k
            details["speed"] = speed
            if speed > top:
                oks.append(False)
                reasons.append(f"speed {speed} is over {piece.id}'s top speed {inches(top)}")
            short = judge_at_least(length, limit, doubt)
            long = judge(length, limit, doubt)
            oks += [short, long]
            if short is False:
                reasons.append(
                    f"shorter than the speed {inches(limit)}: the whole move must be used"
                )
            elif long is False:
                reasons.append(f"longer than the speed {inches(limit)}")
            elif short is None or long is None:
                reasons.append(
                    f"too close to call against the speed {inches(limit)} (the whole move)"
                )
            else:
                reasons.append(f"the whole move of {inches(limit)} used")
        return MoveLimit(worst(oks), limit, reasons, details, label="speed", explain=False)

    def path_checks(self, move: MoveQuery) -> tuple[bool | None, list[str], dict[str, Any]]:
        poses = [move.start, *move.via, move.end]
        ok, reasons, rows = self.judge_turns(move.piece, poses, move.doubt, bool(move.via))
        return ok, reasons, {"turns": rows}

    def judge_turns(
        self, piece: Piece, poses: Sequence[Pose], doubt: float, tracked: bool
    ) -> tuple[bool | None, list[str], list[dict[str, Any]]]:
        """Every turn of the path against the movement before it: up to ``pivot`` degrees
        per ``pivot_run_fast`` (MTB, S-boot, PT, MAS) or ``pivot_run`` inches. The doubt in a
        turn is the heading doubt at both ends plus what the run's doubt allows."""
        s = self.settings
        per = (s.pivot_run_fast if self.vessel(piece).nimble else s.pivot_run) * self.k
        turns = split_turns(poses, s.turn_noise)
        reasons = []
        if not tracked:
            reasons.append("no tracked path: judged as one straight run followed by one turn")
        rows: list[dict[str, Any]] = []
        oks: list[bool | None] = []
        spread = 2 * self.heading_doubt(piece)
        for t in turns:
            allowed = s.pivot * t.run / per
            ok = judge(abs(t.turn), allowed, spread + s.pivot * doubt / per)
            oks.append(ok)
            word = Words("within", "over", "too close to call at")(ok)
            reasons.append(
                f"turned {abs(t.turn):.1f} deg after {fmt(t.run)}: {word} the "
                f"{allowed:.1f} deg allowed ({s.pivot:g} deg per {inches(per)})"
            )
            rows.append(
                {"at": t.at, "turn": round(t.turn, 3), "run": t.run, "allowed": allowed, "ok": ok}
            )
        if not turns:
            reasons.append("no turn")
        return worst(oks), reasons, rows


def _nearest_along(a: np.ndarray, b: np.ndarray, poly: np.ndarray) -> float:
    """The first fraction along ``a``-``b`` where it comes nearest ``poly`` (a run that only
    touches or grazes a base: where it touches)."""
    ab = b - a
    ts = np.clip((poly - a) @ ab / float(ab @ ab), 0.0, 1.0)
    cands = sorted({0.0, 1.0, *map(float, ts)})
    gaps = [boundary_distance(a + t * ab, poly) for t in cands]
    best = min(gaps)
    return next(t for t, g in zip(cands, gaps, strict=True) if g <= best + 1e-9)


SCALES = {"1/1250": 1.0, "1/600": 2.0, "1/700": 2.0}
"""Model scale -> distance factor (1)."""


def _best_mount(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The mount whose verdict is the range's: any that surely fires makes it a yes."""
    order = {True: 0, None: 1, False: 2}
    return min(rows, key=lambda r: (order[r["ok"]], -r["range"]))


def _die(value: Any, path: str, required: bool = False) -> int | None:
    """A speed die face 0-6 from a query, or None when absent."""
    if value is None:
        if required:
            raise QueryError(path, "missing field (a speed die face 0-6)")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value not in range(7):
        raise QueryError(path, f"must be a speed die face 0-6, got {value!r}")
    return int(value)


class CoastalFlow(GameFlow):
    """Coastal speeds: a ``speed`` declaration (``piece``, ``speed``) is checked against the
    last one declared for that vessel and holds for its moves until the next; a ``move``
    declaration with a ``speed`` does the same without the check."""

    def __init__(self, ruleset: Pz8Coastal) -> None:
        super().__init__(ruleset)
        self._speeds: dict[str, int] = {}

    def declare(self, scene: Scene, query: Mapping[str, Any]) -> Declared:
        ask = query.get("ask")
        piece = query.get("piece")
        if ask not in ("speed", "move") or not isinstance(piece, str):
            return Declared(False)
        speed = query.get("speed")
        if ask == "move":
            if isinstance(speed, int) and not isinstance(speed, bool) and 0 <= speed <= MAX_DIE:
                self._speeds[piece] = speed
                return Declared(True, notes=(f"{piece} moves {speed}in this turn",))
            return Declared(False)
        last = self._speeds.get(piece)
        asked = {**query, "last": last} if last is not None and "last" not in query else query
        verdict = self.answer(scene, asked)
        if verdict.ok is True and isinstance(speed, int):
            self._speeds[piece] = speed
            return Declared(True, verdict, (f"{piece} moves {speed}in this turn",))
        return Declared(False, verdict)

    def judge(self, scene: Scene, move: SettledMove) -> Judgement:
        declared = {"speed": self._speeds[move.piece]} if move.piece in self._speeds else {}
        return Judgement((self.answer_move(scene, move, **declared),))
