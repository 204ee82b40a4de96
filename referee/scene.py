"""The scene: pieces, terrain and table as immutable values, and the scene file.

The scene file is a public contract (DESIGN.md)::

    {"ruleset": "paper-tigers",
     "table": {"width": 48, "depth": 36},
     "settings": {"follow_distance": "centre"},          # optional ruleset switches
     "deployment": {"soviet": "bottom", "german": "top"}, # optional: each side's edge
     "pieces": [{"id": "t34", "side": "soviet", "kind": "tank", "x": 20, "y": 18,
                 "heading": 0, "base": [1.5, 3.0], "cards": 2}],
     "terrain": [{"id": "wood1", "kind": "woods",
                  "polygon": [[30, 10], [36, 10], [36, 16], [30, 16]]},
                 {"id": "hill", "kind": "hill", "polygon": [...], "objective": 8}],
     "queries": [{"ask": "range", "from": "t34", "to": "sq1"}]}

Optional piece fields: ``heading`` (0), ``state`` (``ok``/``damaged``/``destroyed``;
a destroyed vehicle left on the table is a burning wreck), ``uncertainty``
(inches of measurement doubt in its position, 0) and ``name``. Any other key
is a field of the game system (Paper Tigers' ``cards``, ``followed``,
``actions``, ``towed_by``...): the scene keeps it in :attr:`Piece.fields` and
writes it back unchanged; the ruleset declares, validates and reads it
(``referee.rules.Ruleset.validate``), so this module knows no game system.
Terrain may carry ``objective`` (victory points, e.g. 2/4/8) and
``name``. Table edges for ``deployment`` are named as seen on the map, where y
grows downwards: ``top`` (y = 0), ``bottom`` (y = depth), ``left`` (x = 0),
``right`` (x = width); ``north``/``south``/``west``/``east`` are aliases.

Every problem raises :class:`~referee.errors.SceneError` as one line naming the
file, the JSON path and what is wrong.
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from referee import validate
from referee.errors import SceneError, at, read_json_file
from referee.geometry import (
    TERRAIN_KINDS,  # noqa: F401  (the scene file's kinds, still read from here)
    Pose,
    as_polygon,
    base_corners,
    front_point,
    polygon_is_simple,
    unknown_terrain_kind,
)

PIECE_STATES = ("ok", "damaged", "destroyed")

EDGES = ("top", "bottom", "left", "right")
EDGE_ALIASES = {"north": "top", "south": "bottom", "west": "left", "east": "right"}

#: Query keys whose string values name pieces (checked when the scene is read).
PIECE_KEYS = ("from", "to", "piece", "leader", "firer", "target", "follower", "follows")


@dataclass(frozen=True)
class Table:
    """The playing surface in game inches; ``inch_mm`` is the length of the game inch."""

    width: float
    depth: float
    inch_mm: float = 25.4

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"width": self.width, "depth": self.depth}
        if self.inch_mm != 25.4:
            data["inch_mm"] = self.inch_mm
        return data


#: Piece keys every system shares; any other key of a scene file's piece is a system field.
PIECE_KEYS_GENERIC = (
    "id",
    "side",
    "kind",
    "x",
    "y",
    "heading",
    "base",
    "state",
    "uncertainty",
    "name",
)


@dataclass(frozen=True)
class Piece:
    """One model on the table: a vehicle, a gun with crew, an infantry squad, a paper unit."""

    id: str
    side: str
    kind: str
    x: float
    y: float
    heading: float = 0.0
    """Direction the front faces, degrees: 0 along +x, 90 along +y."""
    base: tuple[float, float] = (1.0, 1.0)
    """(width across the front, depth front to back), inches."""
    state: str = "ok"
    """``ok``, ``damaged`` (shell-shocked) or ``destroyed`` (a burning wreck if a vehicle)."""
    uncertainty: float = 0.0
    """Inches of doubt in the measured position (vision fills this in)."""
    name: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """The game system's own fields from the scene file (JSON values, e.g. ``{"cards": 2}``),
    declared and checked by the ruleset; kept and written back unchanged."""

    def __getattr__(self, name: str) -> Any:
        # System fields read like attributes (piece.followed), None when the file did not
        # give one; a ruleset reads them with their defaults (Ruleset.field).
        if name.startswith("_") or "fields" not in self.__dict__:
            raise AttributeError(name)
        return self.__dict__["fields"].get(name)

    def get(self, name: str, default: Any = None) -> Any:
        """A system field, or ``default`` when the scene file did not give it."""
        return self.fields.get(name, default)

    @property
    def pose(self) -> Pose:
        return Pose(self.x, self.y, self.heading)

    @property
    def xy(self) -> tuple[float, float]:
        return (self.x, self.y)

    @property
    def front(self) -> tuple[float, float]:
        """Centre of the base's front edge: where Paper Tigers measures moves from."""
        return front_point(self.x, self.y, self.heading, self.base[1])

    def corners(self) -> np.ndarray:
        """Base corners ``(4, 2)``: front-left, front-right, back-right, back-left."""
        return base_corners(self.x, self.y, self.heading, self.base)

    def moved(self, x: float, y: float, heading: float | None = None) -> Piece:
        """The same piece at a new pose (heading kept when not given)."""
        return replace(self, x=x, y=y, heading=self.heading if heading is None else heading)

    def with_fields(self, **fields: Any) -> Piece:
        """The same piece with these system fields set (None removes one)."""
        merged = {**self.fields, **fields}
        return replace(self, fields={k: v for k, v in merged.items() if v is not None})

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "side": self.side,
            "kind": self.kind,
            "x": self.x,
            "y": self.y,
            "heading": self.heading,
            "base": list(self.base),
        }
        for key, value in self.fields.items():
            data[key] = copy.deepcopy(value)
        if self.state != "ok":
            data["state"] = self.state
        if self.uncertainty:
            data["uncertainty"] = self.uncertainty
        if self.name is not None:
            data["name"] = self.name
        return data


@dataclass(frozen=True)
class Terrain:
    """A terrain feature with its outline on the table (a simple polygon, inches)."""

    id: str
    kind: str
    polygon: tuple[tuple[float, float], ...]
    objective: float = 0.0
    """Victory points for controlling it (0: not an objective)."""
    name: str | None = None
    _outline: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        outline = as_polygon(self.polygon)
        outline.setflags(write=False)
        object.__setattr__(self, "_outline", outline)

    def outline(self) -> np.ndarray:
        """The polygon as a read-only ``(n, 2)`` array."""
        return self._outline

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "polygon": [list(p) for p in self.polygon],
        }
        if self.objective:
            data["objective"] = self.objective
        if self.name is not None:
            data["name"] = self.name
        return data


@dataclass(frozen=True)
class Scene:
    """Everything the rules need at one moment: table, pieces, terrain, questions."""

    ruleset: str
    table: Table
    pieces: tuple[Piece, ...] = ()
    terrain: tuple[Terrain, ...] = ()
    queries: tuple[Mapping[str, Any], ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Ruleset switches from the file (see the ruleset's ``Settings``)."""
    deployment: Mapping[str, str] = field(default_factory=dict)
    """Side -> table edge it deploys from (``top``/``bottom``/``left``/``right``)."""
    source: str = field(default="<scene>", compare=False)
    """Where the scene was read from, for error messages (a file name)."""
    _index: Mapping[str, Piece] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {p.id: p for p in self.pieces})

    def __iter__(self) -> Iterator[Piece]:
        return iter(self.pieces)

    def __len__(self) -> int:
        return len(self.pieces)

    def __contains__(self, piece_id: object) -> bool:
        return piece_id in self._index

    def piece(self, piece_id: str) -> Piece:
        """The piece with this id; ``KeyError`` naming the id if there is none."""
        try:
            return self._index[piece_id]
        except KeyError:
            raise KeyError(f"no piece {piece_id!r} in the scene") from None

    def get(self, piece_id: str) -> Piece | None:
        return self._index.get(piece_id)

    def terrain_piece(self, terrain_id: str) -> Terrain:
        for t in self.terrain:
            if t.id == terrain_id:
                return t
        raise KeyError(f"no terrain {terrain_id!r} in the scene")

    def sides(self) -> tuple[str, ...]:
        """Sides in order of first appearance."""
        return tuple(dict.fromkeys(p.side for p in self.pieces))

    def with_pieces(self, *pieces: Piece) -> Scene:
        """A scene with these pieces replacing those of the same id (new ids are added)."""
        new = {p.id: p for p in pieces}
        kept = tuple(new.pop(p.id, p) for p in self.pieces)
        return replace(self, pieces=kept + tuple(new.values()))

    def with_poses(self, poses: Mapping[str, Pose]) -> Scene:
        """A scene with pieces moved to new poses, e.g. after each settled move."""
        for pid in poses:
            self.piece(pid)
        return self.with_pieces(
            *(self.piece(i).moved(p.x, p.y, p.heading) for i, p in poses.items())
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ruleset": self.ruleset, "table": self.table.to_json()}
        if self.settings:
            data["settings"] = dict(self.settings)
        if self.deployment:
            data["deployment"] = dict(self.deployment)
        data["pieces"] = [p.to_json() for p in self.pieces]
        data["terrain"] = [t.to_json() for t in self.terrain]
        data["queries"] = [copy.deepcopy(dict(q)) for q in self.queries]
        return data

    @classmethod
    def from_json(cls, data: Any, source: str = "<scene>") -> Scene:
        """Parse and validate a scene; each problem raises a one-line :class:`SceneError`."""
        if not isinstance(data, dict):
            raise SceneError(at(source, "$", "a scene must be a JSON object"))
        # The counts first: they read a few lengths, while the walks below visit every value
        # (7 s for a 300,000-point outline that the count refuses at once).
        _check_sizes(data, source)
        validate.nesting(data, source, "$", error=SceneError)
        _check_finite(data, source, "$")
        ruleset = _require(data, "ruleset", source, "$")
        if not isinstance(ruleset, str):
            raise SceneError(at(source, "$.ruleset", f"must be a ruleset name, got {ruleset!r}"))
        table = _table(_require(data, "table", source, "$"), source)
        pieces = tuple(
            _piece(raw, source, f"$.pieces[{i}]")
            for i, raw in enumerate(_list(data.get("pieces", []), source, "$.pieces"))
        )
        seen: dict[str, int] = {}
        for i, p in enumerate(pieces):
            if p.id in seen:
                raise SceneError(
                    at(
                        source,
                        f"$.pieces[{i}].id",
                        f"duplicate id {p.id!r} (see $.pieces[{seen[p.id]}])",
                    )
                )
            seen[p.id] = i
        terrain = tuple(
            _terrain(raw, source, f"$.terrain[{i}]")
            for i, raw in enumerate(_list(data.get("terrain", []), source, "$.terrain"))
        )
        tseen: set[str] = set()
        for i, t in enumerate(terrain):
            if t.id in tseen:
                raise SceneError(at(source, f"$.terrain[{i}].id", f"duplicate id {t.id!r}"))
            tseen.add(t.id)
        queries = tuple(
            _query(raw, seen, source, f"$.queries[{i}]")
            for i, raw in enumerate(_list(data.get("queries", []), source, "$.queries"))
        )
        settings = data.get("settings", {})
        if not isinstance(settings, dict):
            raise SceneError(at(source, "$.settings", "must be a JSON object of switches"))
        deployment = _deployment(data.get("deployment", {}), source)
        return cls(ruleset, table, pieces, terrain, queries, dict(settings), deployment, source)


def load_scene(path: str | os.PathLike[str]) -> Scene:
    """Read and validate a scene file; errors name the file and the JSON path."""
    return Scene.from_json(read_json_file(path, "scene file", SceneError), str(path))


def save_scene(scene: Scene, path: str | os.PathLike[str]) -> None:
    """Write a scene file atomically (readers never see half a file)."""
    from referee.calibration.profile import write_json_atomic

    write_json_atomic(Path(path), scene.to_json())


def normalise_edge(edge: str) -> str:
    """``"North"`` -> ``"top"``; ``ValueError`` for anything that is not an edge.

    >>> normalise_edge("South"), normalise_edge("left")
    ('bottom', 'left')
    """
    key = edge.strip().lower()
    key = EDGE_ALIASES.get(key, key)
    if key not in EDGES:
        names = ", ".join(EDGES + tuple(EDGE_ALIASES))
        raise ValueError(f"unknown table edge {edge!r} (use one of {names})")
    return key


# -- parsing helpers ---------------------------------------------------------------


def _check_finite(value: Any, source: str, path: str) -> None:
    # Python's json accepts NaN and Infinity literals; a position must be a real number.
    if isinstance(value, float) and not math.isfinite(value):
        raise SceneError(at(source, path, f"must be a finite number, got {value!r}"))
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, source, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_finite(item, source, f"{path}[{i}]")


def _require(data: dict[str, Any], key: str, source: str, path: str) -> Any:
    if key not in data:
        raise SceneError(at(source, f"{path}.{key}", "missing field"))
    return data[key]


def _list(value: Any, source: str, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise SceneError(at(source, path, f"must be a list, got {validate.shown(value)}"))
    return value


#: What one scene may hold (README, "Bad input"): the rules measure every piece against
#: every other and every terrain edge, so these keep the all-pairs work at table speed
#: (300,000 polygon points once meant an 84 GiB all-pairs map).
MAX_PIECES = 1000
MAX_TERRAIN = 500
MAX_POLYGON_POINTS = 1000
MAX_TERRAIN_POINTS = 20_000
"""Points of all terrain outlines together."""
MAX_QUERIES = 1000


def _check_sizes(data: dict[str, Any], source: str) -> None:
    """Refuse a scene bigger than the referee answers at table speed, before any geometry."""
    for key, what, limit in (
        ("pieces", "pieces", MAX_PIECES),
        ("terrain", "terrain features", MAX_TERRAIN),
        ("queries", "questions", MAX_QUERIES),
    ):
        items = data.get(key)
        if isinstance(items, list):
            validate.count(items, source, f"$.{key}", what, limit, error=SceneError)
    terrain = data.get("terrain")
    total = 0
    for i, feature in enumerate(terrain if isinstance(terrain, list) else ()):
        polygon = feature.get("polygon") if isinstance(feature, dict) else None
        if isinstance(polygon, list):
            path = f"$.terrain[{i}].polygon"
            validate.count(polygon, source, path, "points", MAX_POLYGON_POINTS, error=SceneError)
            total += len(polygon)
    if total > MAX_TERRAIN_POINTS:
        raise SceneError(
            at(
                source,
                "$.terrain",
                f"its outlines have {total} points together; at most {MAX_TERRAIN_POINTS:,} "
                "are supported",
            )
        )


#: Largest magnitude accepted for any number in a scene: 2.5 km of table
#: is already absurd, and it keeps squared lengths far from overflow.
LIMIT = 1e5


def _number(value: Any, source: str, path: str, *, positive: bool = False) -> float:
    return validate.number(
        value, source, path, error=SceneError, positive=positive, minimum=-LIMIT, maximum=LIMIT
    )


def _count(value: Any, source: str, path: str) -> int:
    return validate.whole(value, source, path, error=SceneError, minimum=0)


def _text(value: Any, source: str, path: str) -> str:
    return validate.text(value, source, path, error=SceneError)


def _table(raw: Any, source: str) -> Table:
    if not isinstance(raw, dict):
        raise SceneError(at(source, "$.table", "must be an object with width and depth"))
    return Table(
        width=_number(
            _require(raw, "width", source, "$.table"), source, "$.table.width", positive=True
        ),
        depth=_number(
            _require(raw, "depth", source, "$.table"), source, "$.table.depth", positive=True
        ),
        inch_mm=_number(raw.get("inch_mm", 25.4), source, "$.table.inch_mm", positive=True),
    )


def _piece(raw: Any, source: str, path: str) -> Piece:
    if not isinstance(raw, dict):
        raise SceneError(at(source, path, "each piece must be a JSON object"))
    for key in ("id", "side", "kind", "x", "y", "base"):
        _require(raw, key, source, path)
    base = raw["base"]
    if not isinstance(base, list) or len(base) != 2:
        raise SceneError(at(source, f"{path}.base", f"must be [width, depth], got {base!r}"))
    state = raw.get("state", "ok")
    if state not in PIECE_STATES:
        raise SceneError(
            at(source, f"{path}.state", f"must be one of {', '.join(PIECE_STATES)}, got {state!r}")
        )
    uncertainty = _number(raw.get("uncertainty", 0.0), source, f"{path}.uncertainty")
    if uncertainty < 0:
        raise SceneError(at(source, f"{path}.uncertainty", "must not be negative"))
    return Piece(
        id=_text(raw["id"], source, f"{path}.id"),
        side=_text(raw["side"], source, f"{path}.side"),
        kind=_text(raw["kind"], source, f"{path}.kind"),
        x=_number(raw["x"], source, f"{path}.x"),
        y=_number(raw["y"], source, f"{path}.y"),
        heading=_number(raw.get("heading", 0.0), source, f"{path}.heading") % 360.0,
        base=(
            _number(base[0], source, f"{path}.base[0]", positive=True),
            _number(base[1], source, f"{path}.base[1]", positive=True),
        ),
        state=state,
        uncertainty=uncertainty,
        name=None if raw.get("name") is None else str(raw["name"]),
        fields={k: copy.deepcopy(v) for k, v in raw.items() if k not in PIECE_KEYS_GENERIC},
    )


def _terrain(raw: Any, source: str, path: str) -> Terrain:
    if not isinstance(raw, dict):
        raise SceneError(at(source, path, "each terrain feature must be a JSON object"))
    for key in ("id", "kind", "polygon"):
        _require(raw, key, source, path)
    kind = _text(raw["kind"], source, f"{path}.kind").lower()
    problem = unknown_terrain_kind(kind)
    if problem is not None:
        raise SceneError(at(source, f"{path}.kind", problem))
    poly_raw = _list(raw["polygon"], source, f"{path}.polygon")
    points = []
    for j, pt in enumerate(poly_raw):
        if not isinstance(pt, list) or len(pt) != 2:
            raise SceneError(at(source, f"{path}.polygon[{j}]", f"must be [x, y], got {pt!r}"))
        points.append(
            (
                _number(pt[0], source, f"{path}.polygon[{j}][0]"),
                _number(pt[1], source, f"{path}.polygon[{j}][1]"),
            )
        )
    if len(points) > 1 and points[0] == points[-1]:
        points.pop()
    if len(points) < 3:
        raise SceneError(
            at(source, f"{path}.polygon", f"needs at least 3 distinct points, got {len(points)}")
        )
    if not polygon_is_simple(points):
        raise SceneError(
            at(
                source,
                f"{path}.polygon",
                "outline crosses itself or has no area (list the points in order around the edge)",
            )
        )
    objective = _number(raw.get("objective", 0), source, f"{path}.objective")
    if objective < 0:
        raise SceneError(at(source, f"{path}.objective", "must not be negative"))
    return Terrain(
        id=_text(raw["id"], source, f"{path}.id"),
        kind=kind,
        polygon=tuple(points),
        objective=objective,
        name=None if raw.get("name") is None else str(raw["name"]),
    )


def _query(raw: Any, ids: Mapping[str, int], source: str, path: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise SceneError(at(source, path, "each query must be a JSON object"))
    ask = _require(raw, "ask", source, path)
    if not isinstance(ask, str):
        raise SceneError(at(source, f"{path}.ask", f"must be a question name, got {ask!r}"))
    for key in PIECE_KEYS:
        value = raw.get(key)
        if isinstance(value, str) and value not in ids:
            raise SceneError(at(source, f"{path}.{key}", f"unknown piece id {value!r}"))
    pieces = raw.get("pieces")
    if isinstance(pieces, list):
        for j, value in enumerate(pieces):
            if isinstance(value, str) and value not in ids:
                raise SceneError(at(source, f"{path}.pieces[{j}]", f"unknown piece id {value!r}"))
    return copy.deepcopy(raw)


def _deployment(raw: Any, source: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise SceneError(at(source, "$.deployment", "must map each side to its table edge"))
    out = {}
    for side, edge in raw.items():
        if not isinstance(edge, str):
            raise SceneError(
                at(source, f"$.deployment.{side}", f"must be a table edge, got {edge!r}")
            )
        try:
            out[str(side)] = normalise_edge(edge)
        except ValueError as error:
            raise SceneError(at(source, f"$.deployment.{side}", str(error))) from None
    return out
