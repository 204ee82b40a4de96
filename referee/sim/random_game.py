"""Random games: a seeded scenario of the kind a real table plays (``simulate --random``).

:func:`random_scenario` draws a whole scenario value (the ``*.scenario.json``
format of :mod:`referee.sim.scenario`) from a seed: a table 36x24 to 72x48 in,
its pieces and tagged paper terrain templates, a camera set-up, and a timeline
of what happens at a table. The same seed gives the same game on any machine
(Python's own :class:`random.Random`, floats rounded to 3 decimals).

Set-ups (:data:`SETUPS`):

- ``overhead``: one 1080p camera straight down over the whole table.
- ``oblique``: one 1080p webcam on a tripod at a 48x36 table's south (long)
  edge, about 40 in up, tilted 20-35 degrees; webcam effects on by default.
- ``two-cameras``: a big table (60-72 x 40-48 in) under two 1080p cameras
  turned 90 degrees, each over one half with 6-8 in of overlap, as the club
  sample.
- ``4k``: one 3840x2160 camera straight down.

The timeline draws from: a move in the first second (before the piece could
settle), moves carried by a hand, slides with no hand, two pieces moved at
once, moves across the cameras' seam (two cameras), a template slid aside, a
hand hovering over a piece without moving it, a casualty carried off past an
edge, a reinforcement set down, and sometimes a small camera bump.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from referee.calibration.camera import Intrinsics, TablePose, project
from referee.markers.sheets import AUTO_STEP_IN, auto_tag_size

SETUPS = ("overhead", "oblique", "two-cameras", "4k")
#: A random game's length when none is asked for, seconds: short enough to render quickly.
DEFAULT_DURATION_S = 20.0
#: The shortest random game: room for a first-second move, a removal and an entry.
MIN_DURATION_S = 8.0
#: Seconds at the end of a game with nothing moving, so the last move settles in view.
SETTLE_TAIL_S = 2.0
#: Pieces and anything a hand sets down keep this far (inches) from the table's edges,
#: clear of the anchors 1.5 in in.
EDGE_CLEAR_IN = 4.5
#: Base centres at least this far apart (inches), at rest.
APART_IN = 3.6

#: The webcam's effects, as scenario ``imaging`` keys, when they are on.
WEBCAM_IMAGING: dict[str, Any] = {
    "jpeg": 75,
    "hunting": 0.3,
    "flicker": 0.08,
    "rolling_shutter": 0.03,
    "shadows": 0.35,
    "gain_noise": True,
}


def random_scenario(
    seed: int,
    setup: str,
    *,
    duration: float = DEFAULT_DURATION_S,
    webcam: bool | None = None,
) -> dict[str, Any]:
    """A scenario (JSON value) for a random game; ``webcam`` None: on for ``oblique`` only."""
    if setup not in SETUPS:
        raise ValueError(f"unknown set-up {setup!r} (use one of {', '.join(SETUPS)})")
    # An integer seed and only random() underneath (via _pick and uniform): the stream
    # Python promises to keep across versions and machines.
    rng = random.Random(seed * len(SETUPS) + SETUPS.index(setup))
    return _Game(rng, seed, setup, duration, setup == "oblique" if webcam is None else webcam).data


def _r(value: float) -> float:
    return round(float(value), 3)


class _Game:
    """One drawn game: table, cameras, pieces, templates, then the timeline."""

    def __init__(
        self, rng: random.Random, seed: int, setup: str, duration: float, webcam: bool
    ) -> None:
        self.rng, self.setup, self.duration = rng, setup, duration
        self.width, self.depth = self._table()
        self.cameras = self._cameras()
        resolution = tuple(self.cameras[0]["resolution"])
        if setup == "two-cameras":
            tag = 0.8  # the club sample's: ~21 px at the cameras' ~26 px/in
        else:
            tag, _ = auto_tag_size((self.width, self.depth), resolution)
            if setup == "oblique":
                tag += 2 * AUTO_STEP_IN  # the far edge is seen smaller: print a step bigger
        self.tag = _r(tag)
        imaging: dict[str, Any] = {
            "blur": _r(rng.uniform(0.4, 0.6)),
            "noise": _r(rng.uniform(1.6, 2.4)),
            "vignetting": _r(rng.uniform(0.15, 0.25)),
            "light": _r(rng.uniform(0.06, 0.12)),
            "motion_blur": True,
        }
        if webcam:
            imaging.update(WEBCAM_IMAGING)
            imaging["mains_hz"] = _pick(rng, [100, 120])
        self.templates = self._templates()
        self.pieces = self._pieces()
        self.timeline: list[dict[str, Any]] = []
        self._plan()
        self.data: dict[str, Any] = {
            "description": f"random game: set-up {setup}, seed {seed}",
            "ruleset": "pz8-ww2",
            "table": {"width": self.width, "depth": self.depth},
            "terrain": self._drawn_terrain(),
            "dictionary": "DICT_4X4_100",
            "tag_size": self.tag,
            "pieces": self.pieces,
            "templates": self.templates,
            "fps": 12,
            "duration": _r(duration),
            "seed": seed,
            "imaging": imaging,
            "calibration": {
                "board": "charuco:5x7:0.03m:0.021m:DICT_6X6_250",
                "views": 14 if setup == "two-cameras" else 12,
            },
            "timeline": sorted(self.timeline, key=lambda e: e["t"]),
        }
        if len(self.cameras) == 1:
            self.data["camera"] = self.cameras[0]
        else:
            self.data["cameras"] = self.cameras

    # -- the table and its cameras --------------------------------------------------------

    def _table(self) -> tuple[float, float]:
        rng = self.rng
        if self.setup == "oblique":
            return 48.0, 36.0
        if self.setup == "two-cameras":
            return float(_pick(rng, [60, 66, 72])), float(_pick(rng, [40, 44, 48]))
        width = float(_pick(rng, [36, 42, 48, 54, 60, 66, 72]))
        depth = float(_pick(rng, [d for d in (24, 30, 36, 42, 48) if d <= width * 0.75 + 1e-9]))
        return width, depth

    def _lens(self) -> list[float]:
        rng = self.rng
        return [
            _r(rng.uniform(-0.22, -0.12)),
            _r(rng.uniform(0.02, 0.06)),
            round(rng.uniform(-0.0008, 0.0008), 5),
            round(rng.uniform(-0.0008, 0.0008), 5),
            0.0,
        ]

    def _cameras(self) -> list[dict[str, Any]]:
        rng, w, d = self.rng, self.width, self.depth
        if self.setup == "two-cameras":
            fov = rng.uniform(61, 64)
            seen = w / 2 + 4.0  # across the table, each camera's short side
            height = seen * 16 / 9 / (2 * math.tan(math.radians(fov / 2)))
            out = []
            for k, (x, yaw) in enumerate(((seen / 2 - 0.4, 90.0), (w - seen / 2 + 0.4, 270.0))):
                out.append(
                    {
                        "resolution": [1920, 1080],
                        "fov": _r(fov + (0.8 if k else 0.0)),
                        "distortion": self._lens(),
                        "height": _r(height + rng.uniform(-0.5, 0.5)),
                        "tilt": _r(rng.uniform(-3, 3)),
                        "yaw": _r(yaw + rng.uniform(-0.8, 0.8)),
                        "target": [_r(x), _r(d / 2)],
                    }
                )
            return out
        if self.setup == "oblique":
            tilt = -rng.uniform(20, 35)  # negative: the camera stands at the south edge
            height = rng.uniform(38, 42)
            camera = {
                "resolution": [1920, 1080],
                "distortion": self._lens(),
                "height": _r(height),
                "tilt": _r(tilt),
                "yaw": _r(rng.uniform(-1.5, 1.5)),
                # Aimed where a tripod standing 0-3 in past the south edge looks.
                "target": [
                    _r(w / 2 + rng.uniform(-1, 1)),
                    _r(d + rng.uniform(0.0, 3.0) - height * math.tan(math.radians(-tilt))),
                ],
            }
            camera["fov"] = _fitting_fov(camera, w, d)
            return [camera]
        resolution = [3840, 2160] if self.setup == "4k" else [1920, 1080]
        fov = rng.uniform(60, 66)
        need = max(w * 1.12, d * 1.12 * 16 / 9)
        height = need / (2 * math.tan(math.radians(fov / 2)))
        return [
            {
                "resolution": resolution,
                "fov": _r(fov),
                "distortion": self._lens(),
                "height": _r(height),
                "tilt": _r(rng.uniform(-3, 3)),
                "yaw": _r(rng.uniform(-1, 1)),
                "target": [_r(w / 2 + rng.uniform(-0.5, 0.5)), _r(d / 2 + rng.uniform(-0.5, 0.5))],
            }
        ]

    @property
    def seam(self) -> float | None:
        return self.width / 2 if self.setup == "two-cameras" else None

    # -- what stands on it ----------------------------------------------------------------

    def _drawn_terrain(self) -> list[dict[str, Any]]:
        """A road across the table: hand-drawn terrain in scene.json (no tags)."""
        y = _r(self.depth * self.rng.uniform(0.4, 0.6))
        return [
            {
                "id": "road1",
                "kind": "road",
                "polygon": [
                    [0, y - 1.5],
                    [self.width, y - 1.0],
                    [self.width, y + 2.0],
                    [0, y + 1.5],
                ],
            }
        ]

    def _templates(self) -> list[dict[str, Any]]:
        rng = self.rng
        count = _count(rng, 1, 3 if self.width >= 48 else 2)
        kinds = [("woods", 60), ("hill", 61), ("rough", 63)]
        out: list[dict[str, Any]] = []
        for k in range(count):
            kind, tag = kinds[k]
            half_x, half_y = rng.uniform(3.0, 4.5), rng.uniform(2.4, 3.4)
            spot = self._free_spot(half_x + 5.0, [(t["x"], t["y"], 11.0) for t in out])
            if spot is None:
                break
            entry: dict[str, Any] = {
                "id": f"{kind}{k + 1}",
                "terrain": kind,
                "outline": _blob(rng, half_x, half_y),
                "x": spot[0],
                "y": spot[1],
                "heading": _r(rng.uniform(0, 360)),
            }
            if kind == "hill":
                # Two tags, as the club's hill: one stays seen when a piece covers the other.
                entry["tags"] = [
                    {"tag": 61, "at": [_r(-half_x / 2), 0.0], "heading": 0},
                    {"tag": 62, "at": [_r(half_x / 2), 0.0], "heading": 0},
                ]
            else:
                entry["tag"] = tag + (1 if kind == "rough" else 0)
            out.append(entry)
        return out

    def _pieces(self) -> list[dict[str, Any]]:
        rng, tag = self.rng, self.tag
        area = self.width * self.depth
        count = max(6, min(22, round(area / 150 * rng.uniform(0.9, 1.2))))
        pieces: list[dict[str, Any]] = []
        # Templates are kept clear: a piece on a template's tag is the club sample's case.
        blocked = [(t["x"], t["y"], 6.5) for t in self.templates]
        for n in range(count):
            side = "german" if n % 2 == 0 else "soviet"
            tank = rng.random() < 0.45
            # German in the north half (y small), Soviet in the south.
            band = (
                (EDGE_CLEAR_IN, self.depth / 2 - 1)
                if side == "german"
                else (
                    self.depth / 2 + 1,
                    self.depth - EDGE_CLEAR_IN,
                )
            )
            spot = self._free_spot(
                EDGE_CLEAR_IN,
                blocked + [(p["x"], p["y"], APART_IN) for p in pieces],
                band,
            )
            if spot is None:
                continue
            heading = 90.0 if side == "german" else 270.0
            piece: dict[str, Any] = {
                "id": f"{'g' if side == 'german' else 's'}{'t' if tank else 'i'}{n + 1}",
                "side": side,
                "x": spot[0],
                "y": spot[1],
                "heading": _r(heading + rng.uniform(-25, 25)),
                "tag": n + 1,
            }
            if tank:
                piece.update(
                    {
                        "kind": "medium tank",
                        "base": [_r(max(1.25, tag + 0.3)), _r(max(2.0, tag + 1.0))],
                        "tag_height": _r(rng.uniform(0.5, 0.8)),
                        "fields": {"weapon": "85mm" if side == "soviet" else "later 75mm"},
                    }
                )
            else:
                piece.update(
                    {"kind": "infantry", "base": [_r(max(1.6, tag + 0.5)), _r(max(1.0, tag + 0.2))]}
                )
            pieces.append(piece)
        return pieces

    def _free_spot(
        self,
        clear: float,
        others: list[tuple[float, float, float]],
        band: tuple[float, float] | None = None,
        near: tuple[float, float, float, float] | None = None,
    ) -> tuple[float, float] | None:
        """A point ``clear`` in from the edges, apart from each ``(x, y, distance)``.

        ``band`` limits y; ``near`` ``(x, y, low, high)`` asks for a point
        ``low``-``high`` inches from ``(x, y)``. None after 200 tries.
        """
        rng = self.rng
        y0, y1 = band or (clear, self.depth - clear)
        for _ in range(200):
            if near is None:
                x = rng.uniform(clear, self.width - clear)
                y = rng.uniform(y0, y1)
            else:
                angle = rng.uniform(0, 2 * math.pi)
                reach = rng.uniform(near[2], near[3])
                x, y = near[0] + reach * math.cos(angle), near[1] + reach * math.sin(angle)
                if not (clear <= x <= self.width - clear and y0 <= y <= y1):
                    continue
            if all(math.hypot(x - ox, y - oy) >= gap for ox, oy, gap in others):
                return _r(x), _r(y)
        return None

    # -- what happens ---------------------------------------------------------------------

    def _plan(self) -> None:
        """The timeline: events drawn one after another, none running past the game's end."""
        rng = self.rng
        #: Every piece's pose as planned so far, and when it is free to be handled again.
        self.at = {p["id"]: (p["x"], p["y"], p["heading"]) for p in self.pieces}
        self.free_from = {p["id"]: -math.inf for p in self.pieces}
        self.gone: set[str] = set()
        self.template_spots = [(t["x"], t["y"]) for t in self.templates]
        end = self.duration - SETTLE_TAIL_S
        # A move in the first second, before the piece has been still long enough to settle.
        t = _r(rng.uniform(0.25, 0.9))
        self._move(t)
        # A reinforcement somewhere in the middle, a casualty, then whatever the table brings.
        self._reinforcement(_r(rng.uniform(0.3, 0.55) * self.duration))
        self._casualty(_r(rng.uniform(0.35, 0.65) * self.duration))
        t += rng.uniform(1.2, 2.0)
        kinds = ["move", "move", "slide", "pair", "hover", "template", "seam", "bump"]
        bumped = False
        while t < end - 2.4:
            kind = _pick(rng, kinds)
            if kind == "seam" and self.seam is None:
                kind = "move"
            if kind == "template" and not self.templates:
                kind = "slide"
            if kind == "bump":
                if bumped or rng.random() < 0.6:
                    t += 0.3
                    continue
                bumped = True
                camera: dict[str, Any] = {"yaw_deg": _r(rng.uniform(0.2, 0.5))}
                if len(self.cameras) > 1:
                    camera["camera"] = _count(rng, 1, len(self.cameras))
                self.timeline.append({"t": _r(t), "bump": camera})
                t += 1.0
                continue
            if kind == "pair":
                self._move(_r(t))
                self._move(_r(t + rng.uniform(0.0, 0.4)))
            elif kind == "slide":
                self._move(_r(t), hand=False)
            elif kind == "hover":
                self._hover(_r(t))
            elif kind == "template":
                self._template_move(_r(t))
            elif kind == "seam":
                self._move(_r(t), seam=True)
            else:
                self._move(_r(t))
            t += rng.uniform(1.0, 2.2)

    def _idle(self, t: float, busy_for: float) -> list[str]:
        """Pieces on the table that are free from ``t`` (a hand may reach in 0.6 s before)."""
        return sorted(
            pid for pid, free in self.free_from.items() if free <= t - 0.7 and pid not in self.gone
        )

    def _others(self, pid: str) -> list[tuple[float, float, float]]:
        spots = [(x, y, APART_IN) for q, (x, y, _) in self.at.items() if q != pid]
        return spots + [(x, y, 6.5) for x, y in self.template_spots]

    def _move(self, t: float, *, hand: bool = True, seam: bool = False) -> None:
        """A piece moved at ``t`` (carried, or slid with ``hand`` False; across the seam)."""
        rng = self.rng
        duration = _r(rng.uniform(1.2, 1.7)) if hand else _r(rng.uniform(0.35, 0.9))
        if t + duration + 0.7 > self.duration - SETTLE_TAIL_S:
            return
        choices = self._idle(t, duration)
        if seam and self.seam is not None:
            choices = [p for p in choices if abs(self.at[p][0] - self.seam) < 9.0]
        if not choices:
            return
        pid = _pick(rng, choices)
        x, y, heading = self.at[pid]
        if seam and self.seam is not None:
            # Across the seam: to the far side of it, 3-6 in past.
            side = -1.0 if x > self.seam else 1.0
            target = (self.seam + side * rng.uniform(3.0, 6.0), y + rng.uniform(-2, 2))
            near = (target[0], target[1], 0.0, 1.5)
        elif hand:
            near = (x, y, 2.5, 7.0)
        else:
            near = (x, y, 0.6, 2.5)
        spot = self._free_spot(EDGE_CLEAR_IN, self._others(pid), near=near)
        if spot is None:
            return
        turn = rng.uniform(-40, 40) if hand else rng.uniform(-10, 10)
        event: dict[str, Any] = {
            "t": t,
            "move": pid,
            "to": {"x": spot[0], "y": spot[1], "heading": _r((heading + turn) % 360)},
            "duration": duration,
            "hand": hand,
        }
        self.timeline.append(event)
        self.at[pid] = (spot[0], spot[1], event["to"]["heading"])
        self.free_from[pid] = t + duration + (0.6 if hand else 0.0)

    def _hover(self, t: float) -> None:
        rng = self.rng
        duration = _r(rng.uniform(1.6, 2.6))
        choices = self._idle(t, duration)
        if not choices or t + duration > self.duration - SETTLE_TAIL_S:
            return
        pid = _pick(rng, choices)
        x, y, _ = self.at[pid]
        self.timeline.append(
            {
                "t": t,
                "hand": {
                    "over": [_r(x + rng.uniform(-0.6, 0.6)), _r(y + rng.uniform(-0.6, 0.6))],
                    "duration": duration,
                    "height": _r(rng.uniform(2.2, 3.2)),
                },
            }
        )
        # Nobody moves the piece while a hand hovers over it: that is the point of a hover.
        self.free_from[pid] = max(self.free_from[pid], t + duration + 0.7)

    def _template_move(self, t: float) -> None:
        rng = self.rng
        template = _pick(rng, self.templates)
        moved = [e for e in self.timeline if e.get("move") == template["id"]]
        if moved or t + 1.6 + 0.7 > self.duration - SETTLE_TAIL_S:
            return
        others = [(x, y, 7.0) for x, y, _ in self.at.values()] + [
            (o["x"], o["y"], 11.0) for o in self.templates if o is not template
        ]
        spot = self._free_spot(8.0, others, near=(template["x"], template["y"], 2.0, 4.0))
        if spot is None:
            return
        self.timeline.append(
            {
                "t": t,
                "move": template["id"],
                "to": {
                    "x": spot[0],
                    "y": spot[1],
                    "heading": _r((template["heading"] + rng.uniform(-25, 25)) % 360),
                },
                "duration": 1.6,
                "hand": True,
            }
        )
        # Pieces keep clear of where it now lies (and of where it lay: it slides across).
        self.template_spots.append((spot[0], spot[1]))

    def _casualty(self, t: float) -> None:
        rng = self.rng
        duration = _r(rng.uniform(1.6, 2.2))
        choices = self._idle(t, duration)
        if not choices or t + duration + 0.7 > self.duration - SETTLE_TAIL_S:
            return
        pid = _pick(rng, choices)
        self.timeline.append({"t": t, "remove": pid, "duration": duration})
        self.gone.add(pid)
        self.free_from[pid] = math.inf

    def _reinforcement(self, t: float) -> None:
        """A new piece set down near its side's edge at ``t``."""
        rng = self.rng
        if t + 1.5 + 0.7 > self.duration - SETTLE_TAIL_S:
            return
        side = _pick(rng, ["german", "soviet"])
        band = (
            (EDGE_CLEAR_IN, EDGE_CLEAR_IN + 5.0)
            if side == "german"
            else (self.depth - EDGE_CLEAR_IN - 5.0, self.depth - EDGE_CLEAR_IN)
        )
        spot = self._free_spot(EDGE_CLEAR_IN, self._others(""), band)
        if spot is None:
            return
        tag = max(p["tag"] for p in self.pieces) + 1
        pid = f"{'g' if side == 'german' else 's'}r{tag}"
        piece = {
            "id": pid,
            "side": side,
            "kind": "infantry",
            "x": spot[0],
            "y": spot[1],
            "heading": _r((90.0 if side == "german" else 270.0) + rng.uniform(-20, 20)),
            "base": [_r(max(1.6, self.tag + 0.5)), _r(max(1.0, self.tag + 0.2))],
            "tag": tag,
            "enters": t,
        }
        self.pieces.append(piece)
        self.at[pid] = (spot[0], spot[1], piece["heading"])
        self.free_from[pid] = t + 1.5 + 0.6


def _pick(rng: random.Random, options: list[Any]) -> Any:
    """One of ``options``, from ``rng.random()`` alone."""
    return options[min(int(rng.random() * len(options)), len(options) - 1)]


def _count(rng: random.Random, low: int, high: int) -> int:
    """A whole number ``low``-``high`` inclusive, from ``rng.random()`` alone."""
    return low + min(int(rng.random() * (high - low + 1)), high - low)


def _blob(rng: random.Random, half_x: float, half_y: float) -> list[list[float]]:
    """A template's outline: a rounded, slightly irregular shape round its origin."""
    points = []
    for k in range(10):
        angle = 2 * math.pi * k / 10
        wobble = rng.uniform(0.88, 1.0)
        points.append(
            [_r(half_x * wobble * math.cos(angle)), _r(half_y * wobble * math.sin(angle))]
        )
    return points


def _fitting_fov(camera: dict[str, Any], width: float, depth: float) -> float:
    """The narrowest whole-degree lens (60-100) that sees every table corner with a margin."""
    corners = np.array([[0, 0, 0], [width, 0, 0], [width, depth, 0], [0, depth, 0]], float)
    pose = TablePose.looking_down(
        tuple(camera["target"]), camera["height"], camera["tilt"], camera["yaw"]
    )
    w, h = camera["resolution"]
    for fov in range(60, 101):
        lens = Intrinsics.from_fov((w, h), float(fov), camera["distortion"])
        px = project(lens, pose, corners)
        if np.all(np.isfinite(px)) and (
            px[:, 0].min() > 0.03 * w
            and px[:, 0].max() < 0.97 * w
            and px[:, 1].min() > 0.03 * h
            and px[:, 1].max() < 0.97 * h
        ):
            return float(fov)
    return 100.0
