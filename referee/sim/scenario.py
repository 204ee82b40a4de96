"""Scenario scripts: a table, its pieces, a camera and a timeline of moves, as JSON.

A scenario says what happens on the table; :mod:`referee.sim.cli` turns it
into footage and ground truth. Format (``*.scenario.json``)::

    {"ruleset": "paper-tigers",
     "table": {"width": 36, "depth": 24},
     "terrain": [{"id": "wood1", "kind": "woods", "polygon": [[20, 4], [27, 4], [27, 9]]}],
     "dictionary": "DICT_4X4_100", "tag_size": 0.8,
     "pieces": [{"id": "t34", "side": "soviet", "kind": "tank", "x": 8, "y": 18,
                 "heading": 270, "base": [1.5, 3.0], "tag": 0,
                 "tag_offset": [0, 0], "tag_height": 0.9, "cards": 0}],
     "camera": {"resolution": [1920, 1080], "fov": 62,
                "distortion": [-0.2, 0.05, 0.001, -0.0005, 0],
                "height": 30, "tilt": 6, "yaw": 0, "target": [18, 12]},
     "fps": 12, "duration": 24, "seed": 1,
     "imaging": {"blur": 0.5, "noise": 2.0, "vignetting": 0.25, "light": 0.12,
                 "motion_blur": true},
     "calibration": {"board": "charuco:5x7:0.03m:0.021m:DICT_6X6_250",
                     "views": 12, "flat_at": [18, 12]},
     "timeline": [
       {"t": 2.0, "move": "t34", "to": {"x": 8, "y": 12, "heading": 270},
        "duration": 1.5, "hand": true},
       {"t": 6.0, "hand": {"enter": "south", "over": [20, 14], "duration": 2.0}},
       {"t": 9.0, "bump": {"yaw_deg": 0.5}}],
     "queries": [{"ask": "range", "from": "t34", "to": "pz4"}]}

Pieces carry the scene fields (``id side kind x y heading base cards state``),
the roster fields (``tag tag_offset tag_height tag_size name``) and, in
``fields``, the game system's own (``{"weapon": "88mm"}``); ``x, y, heading``
are the START pose. ``camera`` takes ``fov`` (horizontal degrees)
or ``matrix``; ``target`` defaults to the table centre; ``tilt`` leans the
camera back to look from the near (+y, "south") edge; ``yaw`` turns it.
Timeline ``t`` and ``duration`` are seconds. A ``move`` is carried by a
hand unless ``"hand": false`` (then the piece slides, as if pushed): the hand
reaches in for 0.6 s, lifts the piece 1.2 in over the first quarter of the
move's ``duration``, carries it, sets it down over the last quarter, and
withdraws for 0.6 s; moves of one piece may not overlap. ``enter``
(``north``/``south``/``east``/``west`` or ``top``/``bottom``/``left``/
``right``) picks the edge a hand comes from; default the nearest. A ``hand``
event hovers a hand over a point. A ``bump`` nudges the camera from then on
(``yaw_deg``, ``tilt_deg``, ``dx``, ``dy``, ``dz`` inches; bumps add up).
``anchors`` defaults to the four corner anchors of
``referee.calibration.table.default_anchors`` (2 in tags, centres 1.5 in from
both edges, printed top towards -y); give a list to place them, or ``false``
for none. ``imaging`` all zero (and ``motion_blur`` false) gives clean frames; its
webcam keys (all off by default) are ``jpeg`` (MJPEG quality 1-100: each
frame JPEG-encoded and decoded), ``hunting`` (exposure and white-balance
drift, 0..1, jumping when a hand comes in), ``flicker`` (mains-light banding
depth 0..1, ``mains_hz`` 100 or 120), ``rolling_shutter`` (sensor readout
seconds, top row to bottom: moving things skew), ``shadows`` (darkening of a
soft hand shadow, 0..1) and ``gain_noise`` (true: noise grows with the gain).

Casualties and reinforcements: ``{"t": 5.0, "remove": "pid", "edge":
"south", "duration": 2.0}`` has a hand reach in (from that edge; default the
nearest), lift the piece and carry it 8 in past the edge, where it is gone
for the rest of the game. A piece with ``"enters": 7.5`` is off the table
until then (not in ``scene.json``); at that time a hand brings it from past
the nearest edge and sets it down at its ``x, y, heading`` over 1.5 s. Both
are written to ``truth-events.json`` (``removed``/``entered``, sorted by
``t``); ``truth-moves.json`` keeps only the moves.

Every problem raises :class:`ScenarioError` naming the file, the JSON path
(and the line, for invalid JSON).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from referee import validate as v
from referee.calibration.camera import Intrinsics, TablePose
from referee.calibration.profile import CalibrationProfile, TableSize
from referee.errors import RosterError, SceneError, at, read_json_file
from referee.markers.roster import Roster
from referee.scene import Scene, normalise_edge
from referee.sim.render import (
    DEFAULT_TAG_SIZE,
    Hand,
    PaperTemplate,
    PiecePose,
    TemplateTag,
)
from referee.tags.anchors import AnchorTag
from referee.tags.layout import (
    ANCHOR_INSET_IN,
    ANCHOR_SIZE_IN,
    DEFAULT_DICTIONARY,
    check_tag_id,
    get_dictionary,
)

#: Largest magnitude of any position or length in a scenario, inches (as a scene's).
LIMIT = 1e5
#: Bounds on the work a scenario asks for: a frame rate, a game's length, its frames.
MAX_FPS = 120.0
MAX_DURATION_S = 4 * 3600.0
MAX_FRAMES = 200_000
#: A table with a side longer than this (inches) gets two more anchors, mid long edge.
BIG_TABLE_IN = 48.0
#: Cameras one scenario may film with.
MAX_CAMERAS = 8
CAMERA_KEYS = (
    "resolution",
    "fov",
    "matrix",
    "distortion",
    "height",
    "tilt",
    "yaw",
    "target",
    "imaging",
    "flat_at",
)

#: Seconds a hand takes to reach a piece, and to withdraw after setting it down.
REACH_S = 0.6
#: How high a hand lifts a piece while carrying it, inches.
CARRY_LIFT = 1.2
#: How far outside the table edge an arm enters, inches.
ARM_OUTSIDE = 6.0
#: How far past the table edge a casualty is carried, or a reinforcement comes from, inches.
OFF_TABLE_IN = 8.0
#: Seconds a hand takes to set a reinforcement down from past the edge.
ENTER_S = 1.5
#: The table edges in the game log's words (the contract's ``edge``).
COMPASS = {"top": "north", "bottom": "south", "left": "west", "right": "east"}

PIECE_SCENE_KEYS = ("id", "side", "kind", "x", "y", "heading", "base", "cards", "state", "name")
PIECE_ROSTER_KEYS = ("tag", "tag_offset", "tag_height", "tag_size")
PIECE_SIM_KEYS = ("enters",)
TOP_KEYS = (
    "ruleset",
    "table",
    "terrain",
    "dictionary",
    "tag_size",
    "pieces",
    "camera",
    "fps",
    "duration",
    "seed",
    "imaging",
    "calibration",
    "timeline",
    "queries",
    "settings",
    "deployment",
    "anchors",
    "description",
    "cameras",
    "templates",
)
TEMPLATE_KEYS = ("id", "terrain", "outline", "tag", "tags", "tag_size", "x", "y", "heading", "name")


class ScenarioError(SceneError):
    """A scenario script that cannot be read or makes no sense."""


@dataclass(frozen=True)
class CameraSpec:
    intrinsics: Intrinsics
    height: float
    tilt: float
    yaw: float
    target: tuple[float, float]
    imaging: Imaging | None = None
    """This camera's optics and sensor; None takes the scenario's ``imaging``."""
    flat_at: tuple[float, float] | None = None
    """Where its calibration board lies flat last; None: the middle of what it sees."""

    def pose(self, bump: Mapping[str, float] | None = None) -> TablePose:
        b = bump or {}
        target = (self.target[0] + b.get("dx", 0.0), self.target[1] + b.get("dy", 0.0))
        return TablePose.looking_down(
            target,
            self.height + b.get("dz", 0.0),
            self.tilt + b.get("tilt_deg", 0.0),
            self.yaw + b.get("yaw_deg", 0.0),
        )


@dataclass(frozen=True)
class Imaging:
    """Optics and sensor: all zero gives clean frames with exact truth."""

    blur: float = 0.5
    """Defocus, Gaussian sigma in pixels."""
    noise: float = 2.0
    """Sensor noise, standard deviation in grey levels."""
    vignetting: float = 0.25
    """Brightness lost at the image corners (0..1)."""
    light: float = 0.12
    """Uneven light across the table (0..1)."""
    motion_blur: bool = True
    """Average sub-frames over the exposure while something moves."""
    jpeg: int = 0
    """Webcam MJPEG quality (1-100) each frame is compressed at; 0: none."""
    hunting: float = 0.0
    """Webcam exposure and white-balance hunting, 0..1."""
    flicker: float = 0.0
    """Mains-flicker banding depth, 0..1."""
    mains_hz: float = 100.0
    """The lamp's flicker: 100 (50 Hz mains) or 120 (60 Hz)."""
    rolling_shutter: float = 0.0
    """Sensor readout, seconds top row to bottom: moving things skew; 0: a global shutter."""
    shadows: float = 0.0
    """Hand shadows' darkening, 0..1."""
    gain_noise: bool = False
    """Noise grows with the exposure gain."""

    @property
    def webcam(self) -> bool:
        """Any webcam effect on."""
        return bool(
            self.jpeg
            or self.hunting
            or self.flicker
            or self.rolling_shutter
            or self.shadows
            or self.gain_noise
        )


@dataclass(frozen=True)
class Move:
    t: float
    piece: str
    to: PiecePose
    duration: float
    hand: bool
    enter: str | None
    kind: str = "move"
    """``move``; ``remove`` (carried off past an edge, gone after); ``enter`` (placed)."""
    origin: PiecePose | None = None
    """Where an entering piece starts, off the table; None: where the piece is."""


@dataclass(frozen=True)
class HandVisit:
    t: float
    enter: str | None
    over: tuple[float, float]
    duration: float
    height: float


@dataclass(frozen=True)
class Bump:
    t: float
    offsets: Mapping[str, float]
    camera: int | None = None
    """Index of the camera knocked (0 = the first); None knocks every camera."""


@dataclass(frozen=True)
class TemplateSpec:
    """A tagged paper terrain template and where it lies when the game starts."""

    paper: PaperTemplate
    start: PiecePose
    name: str | None = None

    def roster_json(self) -> dict[str, Any]:
        """Its roster entry, as the club contract writes a terrain template."""
        paper = self.paper
        entry: dict[str, Any] = {}
        only = paper.tags[0]
        if len(paper.tags) == 1 and only.at == (0.0, 0.0) and only.heading == 0.0:
            entry["tag"] = only.tag
        else:
            entry["tags"] = [
                {"tag": t.tag, "at": [t.at[0], t.at[1]], "heading": t.heading} for t in paper.tags
            ]
        entry.update(
            {
                "id": paper.id,
                "terrain": paper.kind,
                "outline": [[x, y] for x, y in paper.outline],
                "tag_size": paper.tag_size,
                "tag_height": 0.0,
            }
        )
        if self.name:
            entry["name"] = self.name
        return entry


@dataclass(frozen=True)
class CalibrationPlan:
    board: str
    views: int = 12
    flat_at: tuple[float, float] | None = None
    hold: float = 0.8
    """Seconds each held view stays still."""
    travel: float = 0.4
    flat: float = 1.5


@dataclass(frozen=True)
class FrameState:
    """Everything on the table at one instant."""

    t: float
    poses: dict[str, PiecePose]
    hands: tuple[Hand, ...]
    moving: frozenset[str]
    """Ids of the pieces (and templates) in motion."""
    bump: Mapping[str, float]
    """The first camera's accumulated bump."""
    templates: Mapping[str, PiecePose] = field(default_factory=dict)
    """Where each paper terrain template lies."""
    camera_bumps: tuple[Mapping[str, float], ...] = ()
    """Each camera's accumulated bump, in camera order."""


@dataclass(frozen=True)
class Scenario:
    source: str
    scene: Scene
    roster: Roster
    camera: CameraSpec
    fps: float
    duration: float
    seed: int
    imaging: Imaging
    calibration: CalibrationPlan
    moves: tuple[Move, ...]
    hands: tuple[HandVisit, ...]
    bumps: tuple[Bump, ...]
    tag_size: float = DEFAULT_TAG_SIZE
    cameras: tuple[CameraSpec, ...] = ()
    """Every camera, in order; ``camera`` is the first. Empty means just ``camera``."""
    templates: tuple[TemplateSpec, ...] = ()
    removals: tuple[Move, ...] = ()
    """Casualties carried off (``kind`` ``remove``), by time."""
    entries: tuple[Move, ...] = ()
    """Reinforcements set down (``kind`` ``enter``), by time."""

    @property
    def all_cameras(self) -> tuple[CameraSpec, ...]:
        return self.cameras or (self.camera,)

    @property
    def table(self) -> TableSize:
        t = self.scene.table
        return TableSize(t.width, t.depth, t.inch_mm)

    @property
    def frame_count(self) -> int:
        return math.floor(self.duration * self.fps + 1e-9)

    @property
    def terrain_shapes(self) -> list[tuple[str, Sequence[tuple[float, float]]]]:
        return [(t.kind, t.polygon) for t in self.scene.terrain]

    def profile(self, index: int = 0) -> CalibrationProfile:
        """The true camera (``index`` of :attr:`all_cameras`) as a calibration profile."""
        camera = self.all_cameras[index]
        return CalibrationProfile(
            camera.intrinsics,
            camera.pose(),
            self.table,
            frame_source="simulated",
            board=self.calibration.board,
            rms_px=0.0,
            anchors=self.roster.anchors,
            created="1970-01-01T00:00:00+00:00",  # fixed: generated files are reproducible
        )

    def start_poses(self) -> dict[str, PiecePose]:
        """Every piece's first pose on the table (a reinforcement's: where it is set down)."""
        return {p.id: PiecePose(p.x, p.y, p.heading) for p in self.scene.pieces}

    @property
    def start_scene(self) -> Scene:
        """The scene when the game starts: reinforcements are not on the table yet."""
        late = {e.piece for e in self.entries}
        if not late:
            return self.scene
        return dataclasses.replace(
            self.scene, pieces=tuple(p for p in self.scene.pieces if p.id not in late)
        )

    def true_events(self) -> list[dict[str, Any]]:
        """``truth-events.json``: each removal and entry, as the issue 41 contract writes them.

        ``t`` is when the hand takes hold (a removal) or starts to set the piece down
        (an entry); ``start_frame``/``end_frame`` are the first frame the piece moves
        and the first frame it is gone (a removal) or at rest (an entry).
        """
        out: list[dict[str, Any]] = []
        for r in self.removals:
            first, last = _frames_of(self.fps, r.t, r.duration)
            out.append(
                {
                    "type": "removed",
                    "piece": r.piece,
                    "t": r.t,
                    "edge": COMPASS[r.enter or "bottom"],
                    "start_frame": first,
                    "end_frame": last,
                }
            )
        for e in self.entries:
            first, last = _frames_of(self.fps, e.t, e.duration)
            out.append(
                {
                    "type": "entered",
                    "piece": e.piece,
                    "t": e.t,
                    "x": e.to.x,
                    "y": e.to.y,
                    "heading": e.to.heading,
                    "start_frame": first,
                    "end_frame": last,
                }
            )
        return sorted(out, key=lambda event: (event["t"], event["piece"]))

    def motions(self) -> tuple[Move, ...]:
        """Moves, removals and entries together, by time (moves keep their order)."""
        if not self.removals and not self.entries:
            return self.moves
        return tuple(sorted((*self.moves, *self.removals, *self.entries), key=lambda m: m.t))

    def template_starts(self) -> dict[str, PiecePose]:
        return {t.paper.id: t.start for t in self.templates}

    def roster_json(self) -> dict[str, Any]:
        """``roster.json``: the pieces and anchors, then the terrain templates as entries."""
        data = self.roster.to_json()
        if self.templates:
            data["pieces"] = [*data["pieces"], *(t.roster_json() for t in self.templates)]
        return data

    def state_at(self, t: float) -> FrameState:
        """Piece and template poses, hands and camera bumps at time ``t`` seconds."""
        poses = {**self.start_poses(), **self.template_starts()}
        hands: list[Hand] = []
        moving: set[str] = set()
        gone: set[str] = set()
        for move in self.motions():  # sorted by time; each piece's moves never overlap
            start = move.origin or poses[move.piece]
            if move.kind == "enter" and t < move.t:
                gone.add(move.piece)  # still in the box beside the table
            if move.kind == "remove" and t >= move.t + move.duration:
                gone.add(move.piece)
            if t >= move.t + move.duration:
                poses[move.piece] = move.to
                if move.hand and t < move.t + move.duration + REACH_S:
                    s = (t - move.t - move.duration) / REACH_S
                    hands.append(self._carry_hand(move, move.to, 0.0, withdraw=s))
                continue
            if t < move.t:
                if move.hand and t >= move.t - REACH_S:
                    s = (t - (move.t - REACH_S)) / REACH_S
                    hands.append(self._carry_hand(move, start, 0.0, withdraw=1 - s))
                continue
            s = (t - move.t) / move.duration
            e = _ease(s)
            heading = start.heading + _angle_diff(move.to.heading, start.heading) * e
            # Paper templates are slid flat under the hand; pieces are lifted.
            carried = move.hand and move.piece not in self._template_ids
            lift = CARRY_LIFT * min(1.0, 4 * s, 4 * (1 - s)) if carried else 0.0
            pose = PiecePose(
                start.x + (move.to.x - start.x) * e,
                start.y + (move.to.y - start.y) * e,
                heading % 360.0,
                lift,
            )
            poses[move.piece] = pose
            moving.add(move.piece)
            if move.hand:
                hands.append(self._carry_hand(move, pose, lift))
        for visit in self.hands:
            if visit.t <= t < visit.t + visit.duration:
                s = (t - visit.t) / visit.duration
                reach = min(1.0, s * visit.duration / REACH_S, (1 - s) * visit.duration / REACH_S)
                entry = self._entry(visit.over, visit.enter)
                wobble = 0.3 * math.sin(2 * math.pi * s * 1.5)
                palm = (
                    entry[0] + (visit.over[0] + wobble - entry[0]) * _ease(reach),
                    entry[1] + (visit.over[1] - entry[1]) * _ease(reach),
                )
                hands.append(Hand(entry, palm, visit.height))
        bumps: list[dict[str, float]] = [{} for _ in self.all_cameras]
        for b in self.bumps:
            if t >= b.t:
                for index, bump in enumerate(bumps):
                    if b.camera is not None and b.camera != index:
                        continue
                    for key, value in b.offsets.items():
                        bump[key] = bump.get(key, 0.0) + value
        papers = self._template_ids
        return FrameState(
            t,
            {k: p for k, p in poses.items() if k not in papers and k not in gone},
            tuple(hands),
            frozenset(moving),
            bumps[0],
            {k: p for k, p in poses.items() if k in papers},
            tuple(bumps),
        )

    @property
    def _template_ids(self) -> frozenset[str]:
        return frozenset(t.paper.id for t in self.templates)

    def _entry(self, over: tuple[float, float], enter: str | None) -> tuple[float, float]:
        w, d = self.table.width, self.table.depth
        edge = enter
        if edge is None:
            distances = {
                "top": over[1],
                "bottom": d - over[1],
                "left": over[0],
                "right": w - over[0],
            }
            edge = min(distances, key=lambda k: distances[k])
        x, y = over
        if edge == "top":
            return (x, -ARM_OUTSIDE)
        if edge == "bottom":
            return (x, d + ARM_OUTSIDE)
        if edge == "left":
            return (-ARM_OUTSIDE, y)
        return (w + ARM_OUTSIDE, y)

    def _carry_hand(self, move: Move, pose: PiecePose, lift: float, withdraw: float = 0.0) -> Hand:
        """A hand gripping the piece from the entry side (``withdraw`` 1 = back at the edge)."""
        entry = self._entry((pose.x, pose.y), move.enter)
        dx, dy = pose.x - entry[0], pose.y - entry[1]
        norm = math.hypot(dx, dy) or 1.0
        # The palm sits behind the piece (seen from the arm), fingers reaching over its back.
        grip = (pose.x - dx / norm * 1.4, pose.y - dy / norm * 1.4)
        e = _ease(min(max(withdraw, 0.0), 1.0))
        palm = (grip[0] + (entry[0] - grip[0]) * e, grip[1] + (entry[1] - grip[1]) * e)
        entry_roster = self.roster.by_id(move.piece)
        top = (entry_roster.tag_height if entry_roster else 0.0) + lift
        return Hand(entry, palm, top + 1.0)


def _frames_of(fps: float, t: float, duration: float) -> tuple[int, int]:
    """First frame a motion from ``t`` has begun, first frame it is over (as truth-moves')."""
    return math.floor(t * fps + 1e-9) + 1, math.ceil((t + duration) * fps - 1e-9)


def nearest_edge(x: float, y: float, table: TableSize) -> str:
    """The table edge (``top``/``bottom``/``left``/``right``) nearest to ``(x, y)``.

    >>> nearest_edge(5, 20, TableSize(36, 24)), nearest_edge(2, 12, TableSize(36, 24))
    ('bottom', 'left')
    """
    distances = {"top": y, "bottom": table.depth - y, "left": x, "right": table.width - x}
    return min(distances, key=lambda k: distances[k])


def off_table(pose: PiecePose, edge: str, table: TableSize) -> PiecePose:
    """``pose`` carried straight out past ``edge``, :data:`OFF_TABLE_IN` beyond it."""
    x, y = pose.x, pose.y
    if edge == "top":
        y = -OFF_TABLE_IN
    elif edge == "bottom":
        y = table.depth + OFF_TABLE_IN
    elif edge == "left":
        x = -OFF_TABLE_IN
    else:
        x = table.width + OFF_TABLE_IN
    return PiecePose(x, y, pose.heading)


def _ease(s: float) -> float:
    """Smooth start and stop: 0 -> 0, 0.5 -> 0.5, 1 -> 1, clamped outside.

    >>> _ease(-1.0), _ease(0.5), _ease(2.0)
    (0.0, 0.5, 1.0)
    """
    s = min(max(s, 0.0), 1.0)
    return s * s * (3 - 2 * s)


def _angle_diff(a: float, b: float) -> float:
    """a - b wrapped to (-180, 180]: the short way round.

    >>> _angle_diff(10, 350), _angle_diff(350, 10), _angle_diff(180, 0)
    (20.0, -20.0, 180.0)
    """
    d = (a - b) % 360.0
    return d - 360.0 if d > 180.0 else d


# -- reading ----------------------------------------------------------------------------------


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and validate a scenario file."""
    return parse_scenario(read_json_file(path, "scenario file", ScenarioError), str(path))


def parse_scenario(data: Any, source: str = "<scenario>") -> Scenario:
    """Validate a scenario given as parsed JSON; one-line :class:`ScenarioError` on a problem."""
    if not isinstance(data, dict):
        raise ScenarioError(at(source, "$", "a scenario must be a JSON object"))
    for key in data:
        if key not in TOP_KEYS:
            raise ScenarioError(
                at(source, f"$.{key}", f"unknown field; expected one of {', '.join(TOP_KEYS)}")
            )
    v.text(
        data.get("description", ""),
        source,
        "$.description",
        error=ScenarioError,
        max_length=v.MAX_TEXT,
        allow_empty=True,
    )
    v.text(data.get("ruleset", "paper-tigers"), source, "$.ruleset", error=ScenarioError)
    dictionary = v.text(
        data.get("dictionary", DEFAULT_DICTIONARY), source, "$.dictionary", error=ScenarioError
    )
    try:
        get_dictionary(dictionary)
    except ValueError as error:
        raise ScenarioError(at(source, "$.dictionary", str(error))) from None
    tag_size = _number(
        data.get("tag_size", DEFAULT_TAG_SIZE), source, "$.tag_size", positive=True, maximum=20.0
    )
    raw_pieces = data.get("pieces")
    if not isinstance(raw_pieces, list) or not raw_pieces or len(raw_pieces) > v.MAX_ITEMS:
        raise ScenarioError(at(source, "$.pieces", "needs a non-empty list of pieces"))
    scene_pieces = []
    entries = []
    tags_seen: dict[int, int] = {}
    for i, raw in enumerate(raw_pieces):
        path = f"$.pieces[{i}]"
        if not isinstance(raw, dict):
            raise ScenarioError(at(source, path, "a piece must be a JSON object"))
        for key in raw:
            if key not in PIECE_SCENE_KEYS + PIECE_ROSTER_KEYS + PIECE_SIM_KEYS + ("fields",):
                raise ScenarioError(at(source, f"{path}.{key}", "unknown piece field"))
        for key in ("id", "side", "kind", "name"):
            # Printed on tags and cards: a name too long for them is refused before anything.
            if isinstance(raw.get(key), str):
                v.text(raw[key], source, f"{path}.{key}", error=ScenarioError, allow_empty=True)
        if "tag" not in raw:
            raise ScenarioError(at(source, f"{path}.tag", "missing: every piece needs a tag id"))
        tag = raw["tag"]
        if isinstance(tag, bool) or not isinstance(tag, int):
            raise ScenarioError(at(source, f"{path}.tag", f"must be a tag id, got {tag!r}"))
        try:
            check_tag_id(dictionary, tag)
        except ValueError as error:
            raise ScenarioError(at(source, f"{path}.tag", str(error))) from None
        if tag in tags_seen:
            raise ScenarioError(
                at(source, f"{path}.tag", f"tag {tag} already used by $.pieces[{tags_seen[tag]}]")
            )
        tags_seen[tag] = i
        fields = raw.get("fields", {})
        if not isinstance(fields, dict) or any(
            k in PIECE_SCENE_KEYS + PIECE_ROSTER_KEYS for k in fields
        ):
            raise ScenarioError(
                at(source, f"{path}.fields", "must be an object of the game system's own fields")
            )
        # The system's own fields (Pz8's weapon, hq...) go to the scene as they are.
        scene_pieces.append({**fields, **{k: v for k, v in raw.items() if k in PIECE_SCENE_KEYS}})
        entries.append((raw, path))
    scene_data: dict[str, Any] = {
        "ruleset": data.get("ruleset", "paper-tigers"),
        "table": data.get("table"),
        "pieces": scene_pieces,
        "terrain": data.get("terrain", []),
        "queries": data.get("queries", []),
    }
    for key in ("settings", "deployment"):
        if key in data:
            scene_data[key] = data[key]
    try:
        scene = Scene.from_json(scene_data, source)
    except SceneError as error:
        raise ScenarioError(str(error)) from None
    table = TableSize(scene.table.width, scene.table.depth, scene.table.inch_mm)
    for piece, (_, path) in zip(scene.pieces, entries, strict=True):
        _check_on_table(piece.x, piece.y, table, source, path)
    roster = _roster(data.get("anchors"), dictionary, tag_size, scene, entries, table, source)
    templates = _templates(data.get("templates", []), roster, scene, tag_size, table, source)
    cameras = _cameras(data, table, source)
    fps = _number(data.get("fps", 12), source, "$.fps", minimum=1.0, maximum=MAX_FPS)
    duration = _number(
        data.get("duration", 10), source, "$.duration", positive=True, maximum=MAX_DURATION_S
    )
    if duration * fps > MAX_FRAMES:
        raise ScenarioError(
            at(
                source,
                "$.duration",
                f"{duration:g} s at {fps:g} fps is {duration * fps:.0f} frames; at most "
                f"{MAX_FRAMES} are rendered: shorten the game or lower $.fps",
            )
        )
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ScenarioError(at(source, "$.seed", f"must be an integer, got {seed!r}"))
    imaging = _imaging(data.get("imaging", {}), source)
    calibration = _calibration(data.get("calibration", {}), table, source)
    starts = {t.paper.id: t.start for t in templates}
    arrivals = _entries([raw for raw, _ in entries], scene, table, duration, source)
    late = {e.piece for e in arrivals}
    for i, query in enumerate(data.get("queries", []) or []):
        named = [query.get(k) for k in ("from", "to", "piece")] if isinstance(query, dict) else []
        for pid in named:
            if isinstance(pid, str) and pid in late:
                raise ScenarioError(
                    at(
                        source,
                        f"$.queries[{i}]",
                        f"{pid!r} enters mid-game: scene.json holds the start, without it",
                    )
                )
    moves, hands, bumps, removals = _timeline(
        data.get("timeline", []), scene, table, source, starts, len(cameras), arrivals
    )
    return Scenario(
        source,
        scene,
        roster,
        cameras[0],
        fps,
        duration,
        seed,
        imaging,
        calibration,
        moves,
        hands,
        bumps,
        tag_size,
        cameras if "cameras" in data else (),
        templates,
        removals,
        arrivals,
    )


def _entries(
    raw_pieces: Sequence[Mapping[str, Any]],
    scene: Scene,
    table: TableSize,
    duration: float,
    source: str,
) -> tuple[Move, ...]:
    """Pieces with ``enters``: set down by a hand from past the nearest edge at that time."""
    out = []
    for i, (raw, piece) in enumerate(zip(raw_pieces, scene.pieces, strict=True)):
        if "enters" not in raw:
            continue
        path = f"$.pieces[{i}].enters"
        t = _number(raw["enters"], source, path, positive=True, maximum=MAX_DURATION_S)
        if t + ENTER_S > duration:
            raise ScenarioError(
                at(
                    source,
                    path,
                    f"a piece entering at t={t:g} is set down at t={t + ENTER_S:g}, after the "
                    f"game's end ($.duration {duration:g})",
                )
            )
        to = PiecePose(piece.x, piece.y, piece.heading % 360.0)
        edge = nearest_edge(piece.x, piece.y, table)
        origin = off_table(to, edge, table)
        out.append(Move(t, piece.id, to, ENTER_S, True, edge, "enter", origin))
    return tuple(sorted(out, key=lambda m: (m.t, m.piece)))


def _number(
    value: Any,
    source: str,
    path: str,
    *,
    positive: bool = False,
    minimum: float | None = None,
    maximum: float | None = LIMIT,
) -> float:
    low = -LIMIT if minimum is None and not positive else minimum
    return v.number(
        value, source, path, error=ScenarioError, positive=positive, minimum=low, maximum=maximum
    )


def _point(value: Any, source: str, path: str) -> tuple[float, float]:
    x, y = v.numbers(
        value,
        source,
        path,
        error=ScenarioError,
        length=2,
        what="[x, y] inches",
        minimum=-LIMIT,
        maximum=LIMIT,
    )
    return x, y


def _edge(value: Any, source: str, path: str) -> str | None:
    """A table edge name (``north``...) as ``top``/``bottom``/``left``/``right``; None if absent."""
    if value is None:
        return None
    try:
        return normalise_edge(str(value))
    except ValueError as error:
        raise ScenarioError(at(source, path, str(error))) from None


def _check_on_table(x: float, y: float, table: TableSize, source: str, path: str) -> None:
    if not (0 <= x <= table.width and 0 <= y <= table.depth):
        raise ScenarioError(
            at(
                source,
                path,
                f"({x:g}, {y:g}) is off the {table.width:g} x {table.depth:g} in table",
            )
        )


def table_anchors(dictionary: str, table: TableSize) -> tuple[AnchorTag, ...]:
    """The anchors where the anchor sheet says to glue them, as the club contract lays them.

    Four corner anchors (the dictionary's last four ids, 1.5 in in from both
    edges); a table whose longer side is over 48 in adds two at the middle of
    its long edges, 1.5 in in, with the two ids just before the corner ones
    (the first on the edge at y = 1.5, or x = 1.5 when depth is the long side).

    >>> [(a.tag, a.x, a.y) for a in table_anchors("DICT_4X4_100", TableSize(72, 48))][4:]
    [(94, 36.0, 1.5), (95, 36.0, 46.5)]
    """
    from referee.calibration.table import default_anchors

    anchors = default_anchors(dictionary, table)
    w, d = table.width, table.depth
    if max(w, d) <= BIG_TABLE_IN or len(anchors) > 4:
        return anchors
    first = min(a.tag for a in anchors) - 2
    m = ANCHOR_INSET_IN
    spots = [(w / 2, m), (w / 2, d - m)] if w >= d else [(m, d / 2), (w - m, d / 2)]
    middle = tuple(
        AnchorTag(first + i, float(x), float(y), ANCHOR_SIZE_IN) for i, (x, y) in enumerate(spots)
    )
    return (*anchors, *middle)


def _roster(
    raw_anchors: Any,
    dictionary: str,
    tag_size: float,
    scene: Scene,
    entries: Sequence[tuple[Mapping[str, Any], str]],
    table: TableSize,
    source: str,
) -> Roster:
    """The pieces' roster fields and the anchors, checked as a roster file is (same JSON paths)."""
    pieces = []
    for piece, (raw, _) in zip(scene.pieces, entries, strict=True):
        fields = {k: raw[k] for k in PIECE_ROSTER_KEYS if k in raw}
        if fields.get("tag_size") is None:
            fields["tag_size"] = tag_size
        pieces.append(
            {
                **fields,
                "id": piece.id,
                "side": piece.side,
                "kind": piece.kind,
                "base": list(piece.base),
                "name": piece.name,
            }
        )
    anchors: Any = []
    if raw_anchors is not None and raw_anchors is not False:
        if not isinstance(raw_anchors, list):
            raise ScenarioError(at(source, "$.anchors", "must be a list, [] or false"))
        anchors = [{"size": ANCHOR_SIZE_IN, **a} if isinstance(a, dict) else a for a in raw_anchors]
    try:
        roster = Roster.from_json(
            {"dictionary": dictionary, "pieces": pieces, "anchors": anchors}, source
        )
    except RosterError as error:
        raise ScenarioError(str(error)) from None
    placed = roster.anchors if raw_anchors is not None else table_anchors(dictionary, table)
    piece_tags = {entry.tag for entry in roster.pieces}
    for i, a in enumerate(placed):
        if a.tag in piece_tags:
            raise ScenarioError(
                at(source, f"$.anchors[{i}].tag", f"tag {a.tag} is also on a piece")
            )
    return Roster(dictionary, tuple(sorted(roster.pieces, key=lambda e: e.tag)), placed)


def _templates(
    raw: Any,
    roster: Roster,
    scene: Scene,
    tag_size: float,
    table: TableSize,
    source: str,
) -> tuple[TemplateSpec, ...]:
    """Tagged paper terrain templates: id, kind, outline and tag(s) in its frame, start pose."""
    from referee.geometry import polygon_is_simple
    from referee.scene import TERRAIN_KINDS

    items = v.items(raw, source, "$.templates", error=ScenarioError, what="a list of templates")
    taken: dict[int, str] = {e.tag: f"piece {e.id!r}" for e in roster.pieces}
    taken.update({a.tag: "an anchor" for a in roster.anchors})
    ids = {p.id for p in scene.pieces}
    out = []
    for i, item in enumerate(items):
        path = f"$.templates[{i}]"
        if not isinstance(item, dict):
            raise ScenarioError(at(source, path, "a template must be a JSON object"))
        for key in item:
            if key not in TEMPLATE_KEYS:
                raise ScenarioError(at(source, f"{path}.{key}", "unknown template field"))
        tid = v.text(item.get("id"), source, f"{path}.id", error=ScenarioError)
        if tid in ids:
            raise ScenarioError(at(source, f"{path}.id", f"id {tid!r} is already used"))
        ids.add(tid)
        kind = item.get("terrain")
        if kind not in TERRAIN_KINDS:
            raise ScenarioError(
                at(
                    source,
                    f"{path}.terrain",
                    f"unknown terrain kind {kind!r} (known: {', '.join(TERRAIN_KINDS)})",
                )
            )
        if "outline" not in item:
            raise ScenarioError(at(source, f"{path}.outline", "missing: a template needs one"))
        points = v.items(
            item["outline"], source, f"{path}.outline", error=ScenarioError, what="a list of points"
        )
        outline = tuple(_point(p, source, f"{path}.outline[{k}]") for k, p in enumerate(points))
        if len(outline) < 3 or not polygon_is_simple(outline):
            raise ScenarioError(
                at(source, f"{path}.outline", "needs 3 or more points that do not cross")
            )
        size = _number(
            item.get("tag_size", tag_size), source, f"{path}.tag_size", positive=True, maximum=20.0
        )
        tags = _template_tags(item, roster.dictionary, source, path)
        for k, tag in enumerate(tags):
            if tag.tag in taken:
                raise ScenarioError(
                    at(source, f"{path}.tags[{k}]", f"tag {tag.tag} is already on {taken[tag.tag]}")
                )
            taken[tag.tag] = f"template {tid!r}"
        x = _number(item.get("x"), source, f"{path}.x")
        y = _number(item.get("y"), source, f"{path}.y")
        _check_on_table(x, y, table, source, path)
        heading = _number(item.get("heading", 0), source, f"{path}.heading") % 360.0
        name = item.get("name")
        if name is not None:
            name = v.text(name, source, f"{path}.name", error=ScenarioError)
        paper = PaperTemplate(tid, str(kind), outline, tags, size)
        out.append(TemplateSpec(paper, PiecePose(x, y, heading), name))
    return tuple(out)


def _template_tags(
    item: Mapping[str, Any], dictionary: str, source: str, path: str
) -> tuple[TemplateTag, ...]:
    """``"tag": 60`` (at the template's origin) or ``"tags": [{"tag", "at", "heading"}, ...]``."""
    if ("tag" in item) == ("tags" in item):
        raise ScenarioError(at(source, path, 'give "tag" (one) or "tags" (a list), not both'))
    if "tag" in item:
        raw: list[Any] = [{"tag": item["tag"]}]
        where = f"{path}.tag"
    else:
        raw = v.items(item["tags"], source, f"{path}.tags", error=ScenarioError, what="a list")
        if not raw:
            raise ScenarioError(at(source, f"{path}.tags", "needs at least one tag"))
        where = f"{path}.tags"
    tags: list[TemplateTag] = []
    for k, spec in enumerate(raw):
        here = where if "tag" in item else f"{where}[{k}]"
        if not isinstance(spec, dict):
            raise ScenarioError(at(source, here, "must be {tag, at, heading}"))
        tag = spec.get("tag")
        if isinstance(tag, bool) or not isinstance(tag, int):
            raise ScenarioError(at(source, here, f"must be a tag id, got {tag!r}"))
        try:
            check_tag_id(dictionary, tag)
        except ValueError as error:
            raise ScenarioError(at(source, here, str(error))) from None
        place = _point(spec.get("at", [0, 0]), source, f"{here}.at")
        turn = _number(spec.get("heading", 0), source, f"{here}.heading") % 360.0
        if any(t.tag == tag for t in tags):
            raise ScenarioError(at(source, here, f"tag {tag} is twice on this template"))
        tags.append(TemplateTag(tag, place, turn))
    return tuple(tags)


def _cameras(data: Mapping[str, Any], table: TableSize, source: str) -> tuple[CameraSpec, ...]:
    """``camera`` (one) or ``cameras`` (a list, each its own lens, pose and imaging)."""
    if "cameras" not in data:
        return (_camera(data.get("camera"), table, source),)
    if "camera" in data:
        raise ScenarioError(at(source, "$.camera", 'give "camera" or "cameras", not both'))
    raw = v.items(
        data["cameras"], source, "$.cameras", error=ScenarioError, what="a list of cameras"
    )
    if not raw:
        raise ScenarioError(at(source, "$.cameras", "needs at least one camera"))
    if len(raw) > MAX_CAMERAS:
        raise ScenarioError(at(source, "$.cameras", f"at most {MAX_CAMERAS} cameras"))
    return tuple(_camera(item, table, source, f"$.cameras[{i}]") for i, item in enumerate(raw))


def _camera(raw: Any, table: TableSize, source: str, where: str = "$.camera") -> CameraSpec:
    if not isinstance(raw, dict):
        raise ScenarioError(at(source, where, "missing camera (resolution, fov, height)"))
    if where != "$.camera":
        for key in raw:
            if key not in CAMERA_KEYS:
                raise ScenarioError(at(source, f"{where}.{key}", "unknown camera field"))
    res = raw.get("resolution", [1920, 1080])
    if (
        not isinstance(res, list)
        or len(res) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and 16 <= v <= 8192 for v in res)
    ):
        raise ScenarioError(
            at(
                source,
                f"{where}.resolution",
                f"must be [width, height], 16-8192 pixels each, got {v.shown(res)}",
            )
        )
    distortion = list(
        v.numbers(
            raw.get("distortion", [0, 0, 0, 0, 0]),
            source,
            f"{where}.distortion",
            error=ScenarioError,
            length=(4, 5, 8, 12, 14),
            what="a list of distortion coefficients",
            minimum=-10.0,
            maximum=10.0,
        )
    )
    try:
        if "matrix" in raw:
            intrinsics = Intrinsics(
                (res[0], res[1]),
                _matrix(raw["matrix"], source, f"{where}.matrix"),
                np.asarray(distortion, float),
            )
        else:
            fov = _number(raw.get("fov", 60), source, f"{where}.fov", positive=True)
            if fov >= 170:
                raise ScenarioError(at(source, f"{where}.fov", "must be under 170 degrees"))
            intrinsics = Intrinsics.from_fov((res[0], res[1]), fov, distortion)
    except ValueError as error:
        if isinstance(error, ScenarioError):
            raise
        raise ScenarioError(at(source, where, str(error))) from None
    height = _number(raw.get("height", 36), source, f"{where}.height", positive=True)
    if height > 100 * max(table.width, table.depth):
        raise ScenarioError(
            at(source, f"{where}.height", f"{height:g} in is too far above the table to see it")
        )
    tilt = _number(raw.get("tilt", 0), source, f"{where}.tilt")
    if abs(tilt) >= 60:
        raise ScenarioError(at(source, f"{where}.tilt", "must be within +-60 degrees"))
    yaw = _number(raw.get("yaw", 0), source, f"{where}.yaw", minimum=-360.0, maximum=360.0)
    target = (
        _point(raw["target"], source, f"{where}.target")
        if "target" in raw
        else (table.width / 2, table.depth / 2)
    )
    imaging = _imaging(raw["imaging"], source, f"{where}.imaging") if "imaging" in raw else None
    flat_at = None
    if "flat_at" in raw:
        flat_at = _point(raw["flat_at"], source, f"{where}.flat_at")
        _check_on_table(*flat_at, table, source, f"{where}.flat_at")
    return CameraSpec(intrinsics, height, tilt, yaw, target, imaging, flat_at)


def _matrix(raw: Any, source: str, where: str = "$.camera.matrix") -> np.ndarray[Any, Any]:
    """A 3x3 pinhole matrix with positive focal lengths, as a calibration profile holds."""
    rows = v.items(raw, source, where, error=ScenarioError, length=3, what="a 3x3 matrix")
    matrix = [
        v.numbers(
            row,
            source,
            f"{where}[{i}]",
            error=ScenarioError,
            length=3,
            what="a row of 3 numbers",
            minimum=-1e6,
            maximum=1e6,
        )
        for i, row in enumerate(rows)
    ]
    if not (matrix[0][0] > 0 and matrix[1][1] > 0) or matrix[2] != (0.0, 0.0, 1.0):
        raise ScenarioError(
            at(
                source,
                where,
                "must be [[fx, 0, cx], [0, fy, cy], [0, 0, 1]], fx, fy > 0",
            )
        )
    return np.array(matrix, dtype=float)


def _imaging(raw: Any, source: str, where: str = "$.imaging") -> Imaging:
    if not isinstance(raw, dict):
        raise ScenarioError(at(source, where, "must be a JSON object"))
    known = ("blur", "noise", "vignetting", "light", "motion_blur")
    webcam = ("jpeg", "hunting", "flicker", "mains_hz", "rolling_shutter", "shadows", "gain_noise")
    for key in raw:
        if key not in known + webcam:
            raise ScenarioError(at(source, f"{where}.{key}", "unknown field"))
    values: dict[str, Any] = {}
    # Blur in pixels, noise in grey levels, vignetting and light as fractions.
    limits = {"blur": 50.0, "noise": 255.0, "vignetting": 1.0, "light": 1.0}
    for key in known[:4]:
        if key in raw:
            values[key] = _number(
                raw[key], source, f"{where}.{key}", minimum=0.0, maximum=limits[key]
            )
    motion = raw.get("motion_blur", True)
    if not isinstance(motion, bool):
        raise ScenarioError(at(source, f"{where}.motion_blur", "must be true or false"))
    extra: dict[str, Any] = {}
    if "jpeg" in raw:
        quality = raw["jpeg"]
        if isinstance(quality, bool) or not isinstance(quality, int) or not 0 <= quality <= 100:
            raise ScenarioError(
                at(source, f"{where}.jpeg", "must be a JPEG quality 1-100, or 0 for none")
            )
        extra["jpeg"] = quality
    for key in ("hunting", "flicker", "shadows"):
        if key in raw:
            extra[key] = _number(raw[key], source, f"{where}.{key}", minimum=0.0, maximum=1.0)
    if "mains_hz" in raw:
        hz = _number(raw["mains_hz"], source, f"{where}.mains_hz", positive=True)
        if hz not in (100.0, 120.0):
            raise ScenarioError(
                at(source, f"{where}.mains_hz", "must be 100 (50 Hz mains) or 120 (60 Hz)")
            )
        extra["mains_hz"] = hz
    if "rolling_shutter" in raw:
        # A readout longer than a frame at the slowest frame rate is no camera.
        extra["rolling_shutter"] = _number(
            raw["rolling_shutter"], source, f"{where}.rolling_shutter", minimum=0.0, maximum=1.0
        )
    if "gain_noise" in raw:
        if not isinstance(raw["gain_noise"], bool):
            raise ScenarioError(at(source, f"{where}.gain_noise", "must be true or false"))
        extra["gain_noise"] = raw["gain_noise"]
    return Imaging(motion_blur=motion, **values, **extra)


def _calibration(raw: Any, table: TableSize, source: str) -> CalibrationPlan:
    from referee.markers.board_sheet import default_board
    from referee.tags.board import BoardSpec

    if not isinstance(raw, dict):
        raise ScenarioError(at(source, "$.calibration", "must be a JSON object"))
    board = raw.get("board", default_board("letter").to_string())
    try:
        BoardSpec.parse(str(board))
    except ValueError as error:
        raise ScenarioError(at(source, "$.calibration.board", str(error))) from None
    views = raw.get("views", 12)
    if isinstance(views, bool) or not isinstance(views, int) or not 0 <= views <= 100:
        raise ScenarioError(at(source, "$.calibration.views", "must be a whole number 0-100"))
    flat_at = None
    if "flat_at" in raw:
        flat_at = _point(raw["flat_at"], source, "$.calibration.flat_at")
        _check_on_table(*flat_at, table, source, "$.calibration.flat_at")
    return CalibrationPlan(str(board), views, flat_at)


def _timeline(
    raw: Any,
    scene: Scene,
    table: TableSize,
    source: str,
    templates: Mapping[str, PiecePose] | None = None,
    cameras: int = 1,
    entries: Sequence[Move] = (),
) -> tuple[tuple[Move, ...], tuple[HandVisit, ...], tuple[Bump, ...], tuple[Move, ...]]:
    v.items(raw, source, "$.timeline", error=ScenarioError, what="a list of events")
    moves: list[Move] = []
    removals: list[Move] = []
    #: When each reinforcement is on the table, and when each casualty left it.
    arrives = {e.piece: e.t for e in entries}
    removed: dict[str, tuple[float, str]] = {}
    hands: list[HandVisit] = []
    bumps: list[Bump] = []
    poses = {p.id: PiecePose(p.x, p.y, p.heading) for p in scene.pieces}
    poses.update(templates or {})
    busy_until: dict[str, tuple[float, str]] = {
        e.piece: (e.t + e.duration + REACH_S, "its entry") for e in entries
    }
    events = []
    for i, event in enumerate(raw):
        path = f"$.timeline[{i}]"
        if not isinstance(event, dict):
            raise ScenarioError(at(source, path, "an event must be a JSON object"))
        t = _number(event.get("t"), source, f"{path}.t", maximum=MAX_DURATION_S)
        if t < 0:
            raise ScenarioError(at(source, f"{path}.t", "must not be negative"))
        events.append((t, i, event, path))
    for t, _, event, path in sorted(events, key=lambda e: (e[0], e[1])):
        enter = _edge(event.get("enter"), source, f"{path}.enter")
        for key in ("move", "remove"):
            pid = event.get(key)
            if isinstance(pid, str) and pid in removed:
                raise ScenarioError(
                    at(
                        source,
                        f"{path}.{key}",
                        f"{pid!r} was carried off at t={removed[pid][0]:g} ({removed[pid][1]})",
                    )
                )
            if isinstance(pid, str) and pid in arrives and t < arrives[pid]:
                raise ScenarioError(
                    at(
                        source,
                        f"{path}.t",
                        f"{pid!r} is not on the table until it enters at t={arrives[pid]:g}",
                    )
                )
        if "remove" in event:
            piece = event["remove"]
            if not isinstance(piece, str) or piece not in poses or piece in (templates or {}):
                raise ScenarioError(at(source, f"{path}.remove", f"unknown piece {piece!r}"))
            for key in event:
                if key not in ("t", "remove", "edge", "duration"):
                    raise ScenarioError(at(source, f"{path}.{key}", "unknown field of a removal"))
            duration = _number(
                event.get("duration", 2.0),
                source,
                f"{path}.duration",
                positive=True,
                maximum=MAX_DURATION_S,
            )
            if piece in busy_until and t - REACH_S < busy_until[piece][0]:
                raise ScenarioError(
                    at(
                        source,
                        f"{path}.t",
                        f"{piece!r} is still moving ({busy_until[piece][1]}) until "
                        f"t={busy_until[piece][0]:g}",
                    )
                )
            here = poses[piece]
            edge = _edge(event.get("edge"), source, f"{path}.edge") or nearest_edge(
                here.x, here.y, table
            )
            removals.append(
                Move(t, piece, off_table(here, edge, table), duration, True, edge, "remove")
            )
            removed[piece] = (t, path)
        elif "move" in event:
            piece = event["move"]
            if not isinstance(piece, str) or piece not in poses:
                raise ScenarioError(at(source, f"{path}.move", f"unknown piece {piece!r}"))
            to = event.get("to")
            if not isinstance(to, dict):
                raise ScenarioError(at(source, f"{path}.to", "must be {x, y, heading}"))
            x = _number(to.get("x"), source, f"{path}.to.x")
            y = _number(to.get("y"), source, f"{path}.to.y")
            heading = _number(to.get("heading", poses[piece].heading), source, f"{path}.to.heading")
            _check_on_table(x, y, table, source, f"{path}.to")
            duration = _number(
                event.get("duration", 1.5),
                source,
                f"{path}.duration",
                positive=True,
                maximum=MAX_DURATION_S,
            )
            hand = event.get("hand", True)
            if not isinstance(hand, bool):
                raise ScenarioError(at(source, f"{path}.hand", "must be true or false"))
            margin = REACH_S if hand else 0.0
            if piece in busy_until and t - margin < busy_until[piece][0]:
                raise ScenarioError(
                    at(
                        source,
                        f"{path}.t",
                        f"{piece!r} is still moving ({busy_until[piece][1]}) until "
                        f"t={busy_until[piece][0]:g}",
                    )
                )
            busy_until[piece] = (t + duration + margin, path)
            target = PiecePose(x, y, heading % 360.0)
            moves.append(Move(t, piece, target, duration, hand, enter))
            poses[piece] = target
        elif "hand" in event:
            spec = event["hand"]
            if not isinstance(spec, dict):
                raise ScenarioError(at(source, f"{path}.hand", "must be {enter, over, duration}"))
            over = _point(spec.get("over"), source, f"{path}.hand.over")
            hand_enter = _edge(spec.get("enter"), source, f"{path}.hand.enter")
            duration = _number(
                spec.get("duration", 2.0),
                source,
                f"{path}.hand.duration",
                positive=True,
                maximum=MAX_DURATION_S,
            )
            height = _number(
                spec.get("height", 2.5), source, f"{path}.hand.height", positive=True, maximum=100
            )
            hands.append(HandVisit(t, hand_enter, over, duration, height))
        elif "bump" in event:
            spec = event["bump"]
            if not isinstance(spec, dict):
                raise ScenarioError(
                    at(source, f"{path}.bump", "must be {yaw_deg, tilt_deg, dx, dy, dz}")
                )
            offsets = {}
            camera = None
            if "camera" in spec:
                # Cameras are counted from 1, as the footage files are (video-1.mp4...).
                number = spec["camera"]
                if (
                    isinstance(number, bool)
                    or not isinstance(number, int)
                    or not 1 <= number <= cameras
                ):
                    raise ScenarioError(
                        at(source, f"{path}.bump.camera", f"must be a camera number 1-{cameras}")
                    )
                camera = number - 1
            for key, value in spec.items():
                if key == "camera":
                    continue
                if key not in ("yaw_deg", "tilt_deg", "dx", "dy", "dz"):
                    raise ScenarioError(at(source, f"{path}.bump.{key}", "unknown field"))
                # A bump nudges the camera: a few degrees or inches, never a new camera.
                offsets[key] = _number(
                    value, source, f"{path}.bump.{key}", minimum=-45.0, maximum=45.0
                )
            bumps.append(Bump(t, offsets, camera))
        else:
            raise ScenarioError(
                at(source, path, 'an event needs "move", "remove", "hand" or "bump"')
            )
    return tuple(moves), tuple(hands), tuple(bumps), tuple(removals)
