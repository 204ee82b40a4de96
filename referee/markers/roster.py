"""Roster: which printed tag is on which piece.

The roster file is a public contract (DESIGN.md)::

    {"dictionary": "DICT_4X4_100",
     "pieces": [{"tag": 12, "id": "t34", "side": "soviet", "kind": "tank",
                 "base": [1.5, 3.0], "tag_offset": [0, 0], "tag_height": 0.9}],
     "anchors": [{"tag": 96, "x": 1.5, "y": 1.5, "size": 2.0}]}

``tag_offset`` is the tag centre relative to the base centre in the piece's
own frame (inches, +x forward, +y to the piece's right); ``tag_height`` is
how high above the table the tag sits. ``anchors`` (optional) are corner tags
glued to the table at known table coordinates. Optional per-piece fields:
``name`` (label printed on the tag), ``tag_size`` (inches).

An entry with a ``terrain`` key is a terrain template (a paper wood, hill or
road section with its tag(s) printed on it), in ``pieces`` or in a top-level
``terrain`` list (where :meth:`Roster.to_json` writes it)::

    {"tag": 60, "id": "wood2", "terrain": "woods",
     "outline": [[-4, -3], [4, -3], [4, 3], [-4, 3]]}
    {"tags": [{"tag": 61, "at": [-4, 0], "heading": 0},
              {"tag": 62, "at": [4, 0], "heading": 0}],
     "id": "hill1", "terrain": "hill", "outline": [...]}

``outline`` is in inches in the template's own frame (one tag: origin at the
tag's centre, axes as a piece's heading; several: each tag's centre ``at`` and
``heading`` in that frame). ``terrain`` is a scene terrain kind. Optional:
``tag_size``, ``tag_height`` (0: paper lies flat), ``name``. Placed at a pose,
the template is the scene's terrain feature ``id`` of that kind.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import validate as v
from referee.errors import RosterError, at, read_json_file, write_json_atomic
from referee.geometry import as_polygon, polygon_is_simple, unknown_terrain_kind
from referee.tags.anchors import AnchorTag
from referee.tags.layout import (
    DEFAULT_DICTIONARY,
    canonical_dictionary,
    check_tag_id,
    is_dictionary_file,
)


@dataclass(frozen=True)
class RosterEntry:
    """One tagged piece."""

    tag: int
    id: str
    side: str
    kind: str
    base: tuple[float, float]
    """(width across the front, depth front to back), inches."""
    tag_offset: tuple[float, float] = (0.0, 0.0)
    """Tag centre from base centre in the piece frame: (+forward, +right), inches."""
    tag_height: float = 0.0
    """Height of the tag above the table, inches (a tank roof: about 0.9)."""
    name: str | None = None
    tag_size: float | None = None
    """Side of the tag's black square, inches, when known."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "tag": self.tag,
            "id": self.id,
            "side": self.side,
            "kind": self.kind,
            "base": list(self.base),
            "tag_offset": list(self.tag_offset),
            "tag_height": self.tag_height,
        }
        if self.name is not None:
            data["name"] = self.name
        if self.tag_size is not None:
            data["tag_size"] = self.tag_size
        return data


def place(
    points: Sequence[tuple[float, float]], x: float, y: float, heading: float
) -> tuple[tuple[float, float], ...]:
    """Points of an object's own frame (forward, right) put on the table at a pose.

    >>> place([(1.0, 0.0), (0.0, 1.0)], 10.0, 5.0, 90.0)
    ((10.0, 6.0), (9.0, 5.0))
    """
    h = math.radians(heading)
    c, s = math.cos(h), math.sin(h)
    return tuple(
        (round(x + f * c - r * s, 12) + 0.0, round(y + f * s + r * c, 12) + 0.0) for f, r in points
    )


@dataclass(frozen=True)
class TemplateTag:
    """One tag printed on a terrain template, placed in the template's own frame."""

    tag: int
    at: tuple[float, float] = (0.0, 0.0)
    """The tag's centre in the template frame, inches (forward, right)."""
    heading: float = 0.0
    """The tag's up arrow in the template frame, degrees (0: the frame's forward)."""

    def to_json(self) -> dict[str, Any]:
        return {"tag": self.tag, "at": list(self.at), "heading": self.heading}


@dataclass(frozen=True)
class TerrainTemplate:
    """A paper terrain piece with its tag(s) printed on it: placed terrain, not a piece."""

    id: str
    terrain: str
    """The scene terrain kind it is once placed (``woods``, ``hill``...)."""
    outline: tuple[tuple[float, float], ...]
    """A simple polygon in the template frame, inches."""
    tags: tuple[TemplateTag, ...]
    tag_size: float | None = None
    """Side of each tag's black square, inches, when known."""
    tag_height: float = 0.0
    """Height of the tags above the table (paper lies flat: 0)."""
    name: str | None = None

    def placed(self, x: float, y: float, heading: float) -> tuple[tuple[float, float], ...]:
        """The outline on the table with the template frame's origin at ``(x, y, heading)``."""
        return place(self.outline, x, y, heading)

    def tag(self, tag: int) -> TemplateTag | None:
        return next((t for t in self.tags if t.tag == tag), None)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "terrain": self.terrain}
        only = self.tags[0]
        if len(self.tags) == 1 and only.at == (0.0, 0.0) and only.heading == 0.0:
            data["tag"] = only.tag  # the short form: the frame is the tag's own
        else:
            data["tags"] = [t.to_json() for t in self.tags]
        data["outline"] = [list(p) for p in self.outline]
        if self.tag_height:
            data["tag_height"] = self.tag_height
        if self.tag_size is not None:
            data["tag_size"] = self.tag_size
        if self.name is not None:
            data["name"] = self.name
        return data


@dataclass(frozen=True)
class Roster:
    """All tagged pieces of a game, the table's anchor tags and the terrain templates."""

    dictionary: str = DEFAULT_DICTIONARY
    pieces: tuple[RosterEntry, ...] = ()
    anchors: tuple[AnchorTag, ...] = ()
    templates: tuple[TerrainTemplate, ...] = ()
    _by_tag: Mapping[int, RosterEntry] = field(init=False, repr=False, compare=False)
    _template_tags: Mapping[int, tuple[TerrainTemplate, TemplateTag]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_tag", {p.tag: p for p in self.pieces})
        object.__setattr__(
            self, "_template_tags", {t.tag: (tp, t) for tp in self.templates for t in tp.tags}
        )

    def template_by_tag(self, tag: int) -> tuple[TerrainTemplate, TemplateTag] | None:
        """The terrain template carrying ``tag`` and that tag's place on it, or None."""
        return self._template_tags.get(tag)

    def template(self, template_id: str) -> TerrainTemplate | None:
        return next((t for t in self.templates if t.id == template_id), None)

    def __len__(self) -> int:
        return len(self.pieces)

    def __iter__(self) -> Iterator[RosterEntry]:
        return iter(self.pieces)

    def by_tag(self, tag: int) -> RosterEntry | None:
        """The piece carrying ``tag``, or None for a tag not in the roster."""
        return self._by_tag.get(tag)

    def by_id(self, piece_id: str) -> RosterEntry | None:
        return next((p for p in self.pieces if p.id == piece_id), None)

    def with_entry(self, entry: RosterEntry) -> Roster:
        """A roster with ``entry`` added, replacing any entry with the same tag or piece id."""
        kept = tuple(p for p in self.pieces if p.tag != entry.tag and p.id != entry.id)
        pieces = tuple(sorted((*kept, entry), key=lambda p: p.tag))
        return Roster(self.dictionary, pieces, self.anchors, self.templates)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "dictionary": self.dictionary,
            "pieces": [p.to_json() for p in self.pieces],
        }
        if self.anchors:
            data["anchors"] = [
                {"tag": a.tag, "x": a.x, "y": a.y, "size": a.size} for a in self.anchors
            ]
        if self.templates:
            data["terrain"] = [t.to_json() for t in self.templates]
        return data

    def save(self, path: str | os.PathLike[str]) -> None:
        write_json_atomic(Path(path), self.to_json())

    @classmethod
    def from_json(cls, data: Any, source: str = "<roster>") -> Roster:
        """Parse and validate; each problem is a one-line :class:`RosterError`."""
        if not isinstance(data, dict):
            raise RosterError(at(source, "$", "a roster must be a JSON object"))
        raw_dictionary = v.text(
            data.get("dictionary", DEFAULT_DICTIONARY),
            source,
            "$.dictionary",
            error=RosterError,
            max_length=v.MAX_TEXT,
            hint="give a dictionary name or .yml file",
        )
        try:
            dictionary = canonical_dictionary(_beside(raw_dictionary, source))
        except ValueError as error:
            raise RosterError(at(source, "$.dictionary", str(error))) from None
        raw_pieces = v.items(
            data.get("pieces"), source, "$.pieces", error=RosterError, what="a list of pieces"
        )
        raw_terrain = v.items(
            data.get("terrain", []),
            source,
            "$.terrain",
            error=RosterError,
            what="a list of terrain templates",
        )
        # A template may sit in the pieces list (marked by its "terrain" key) or in "terrain".
        places = [
            *((f"$.pieces[{i}]", raw) for i, raw in enumerate(raw_pieces)),
            *((f"$.terrain[{i}]", raw) for i, raw in enumerate(raw_terrain)),
        ]
        piece_places = [(p, raw) for p, raw in places if not _is_template(raw)]
        template_places = [(p, raw) for p, raw in places if _is_template(raw)]
        pieces = tuple(_entry(raw, str(dictionary), source, p) for p, raw in piece_places)
        _check_unique(pieces, source, [p for p, _ in piece_places])
        templates = tuple(_template(raw, str(dictionary), source, p) for p, raw in template_places)
        raw_anchors = data.get("anchors", [])
        if not isinstance(raw_anchors, list):
            raise RosterError(at(source, "$.anchors", "must be a list of anchor tags"))
        anchors = tuple(
            _anchor(raw, str(dictionary), source, f"$.anchors[{i}]")
            for i, raw in enumerate(raw_anchors)
        )
        _check_anchor_tags(anchors, pieces, source, [p for p, _ in piece_places])
        _check_template_tags(
            templates, pieces, anchors, source, [p for p, _ in template_places],
            [p for p, _ in piece_places],
        )  # fmt: skip
        return cls(str(dictionary), pieces, anchors, templates)


def _beside(dictionary: str, source: str) -> str:
    """A relative dictionary file named in a roster is looked for next to the roster first."""
    if not is_dictionary_file(dictionary) or Path(dictionary).is_absolute():
        return dictionary
    candidate = Path(source).parent / dictionary
    return str(candidate) if candidate.is_file() else dictionary


def load_roster(path: str | os.PathLike[str]) -> Roster:
    """Read a roster file; errors name the file and JSON path."""
    return Roster.from_json(read_json_file(path, "roster file", RosterError), str(path))


#: Sensible ranges, inches: a base side, a tag's offset from its base centre, its height
#: above the table, a tag side, an anchor's position.
MAX_BASE_IN = 100.0
MAX_OFFSET_IN = 100.0
MAX_TAG_IN = 100.0
MAX_TABLE_IN = 10_000.0


def _number(
    value: Any,
    source: str,
    path: str,
    *,
    positive: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
) -> float:
    return v.number(
        value,
        source,
        path,
        error=RosterError,
        positive=positive,
        minimum=minimum,
        maximum=maximum,
    )


def _pair(
    value: Any, source: str, path: str, *, positive: bool = False, limit: float
) -> tuple[float, float]:
    first, second = v.numbers(
        value,
        source,
        path,
        error=RosterError,
        length=2,
        what="two numbers",
        positive=positive,
        minimum=-limit,
        maximum=limit,
    )
    return first, second


def _tag(value: Any, dictionary: str, source: str, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RosterError(at(source, path, f"must be a whole tag id, got {value!r}"))
    try:
        check_tag_id(dictionary, value)
    except ValueError as error:
        raise RosterError(at(source, path, str(error))) from None
    return value


def _entry(raw: Any, dictionary: str, source: str, path: str) -> RosterEntry:
    if not isinstance(raw, dict):
        raise RosterError(at(source, path, "each piece must be a JSON object"))
    for key in ("tag", "id", "base"):
        if key not in raw:
            raise RosterError(at(source, f"{path}.{key}", "missing field"))
    height = _number(
        raw.get("tag_height", 0.0), source, f"{path}.tag_height", minimum=0.0, maximum=MAX_TAG_IN
    )
    size = raw.get("tag_size")
    name = raw.get("name")
    return RosterEntry(
        tag=_tag(raw["tag"], dictionary, source, f"{path}.tag"),
        id=_name(raw["id"], source, f"{path}.id"),
        side=_name(raw.get("side", ""), source, f"{path}.side", allow_empty=True),
        kind=_name(raw.get("kind", ""), source, f"{path}.kind", allow_empty=True),
        base=_pair(raw["base"], source, f"{path}.base", positive=True, limit=MAX_BASE_IN),
        tag_offset=_pair(
            raw.get("tag_offset", [0, 0]), source, f"{path}.tag_offset", limit=MAX_OFFSET_IN
        ),
        tag_height=height,
        name=None if name is None else _name(name, source, f"{path}.name", allow_empty=True),
        tag_size=None
        if size is None
        else _number(size, source, f"{path}.tag_size", positive=True, maximum=MAX_TAG_IN),
    )


def _name(value: Any, source: str, path: str, *, allow_empty: bool = False) -> str:
    """A piece's id, side, kind or label: short enough for a printed label and a card's QR."""
    return v.text(
        value,
        source,
        path,
        error=RosterError,
        max_length=v.MAX_NAME,
        allow_empty=allow_empty,
        hint="use a shorter name (it is printed on the tag and the unit card)",
    )


def _anchor(raw: Any, dictionary: str, source: str, path: str) -> AnchorTag:
    if not isinstance(raw, dict):
        raise RosterError(at(source, path, "each anchor must be a JSON object"))
    for key in ("tag", "x", "y", "size"):
        if key not in raw:
            raise RosterError(at(source, f"{path}.{key}", "missing field"))
    return AnchorTag(
        tag=_tag(raw["tag"], dictionary, source, f"{path}.tag"),
        x=_number(raw["x"], source, f"{path}.x", minimum=-MAX_TABLE_IN, maximum=MAX_TABLE_IN),
        y=_number(raw["y"], source, f"{path}.y", minimum=-MAX_TABLE_IN, maximum=MAX_TABLE_IN),
        size=_number(raw["size"], source, f"{path}.size", positive=True, maximum=MAX_TAG_IN),
    )


def _check_unique(pieces: tuple[RosterEntry, ...], source: str, paths: Sequence[str]) -> None:
    seen_tags: dict[int, str] = {}
    seen_ids: dict[str, str] = {}
    for path, piece in zip(paths, pieces, strict=True):
        if piece.tag in seen_tags:
            raise RosterError(
                at(
                    source,
                    f"{path}.tag",
                    f"tag {piece.tag} is already on {_short(seen_tags[piece.tag])}",
                )
            )
        if piece.id in seen_ids:
            raise RosterError(
                at(
                    source,
                    f"{path}.id",
                    f"piece id {piece.id!r} is already {_short(seen_ids[piece.id])}",
                )
            )
        seen_tags[piece.tag] = path
        seen_ids[piece.id] = path


def _short(path: str) -> str:
    """``$.pieces[3]`` -> ``pieces[3]``, as messages name an entry."""
    return path.removeprefix("$.")


def _check_anchor_tags(
    anchors: tuple[AnchorTag, ...],
    pieces: tuple[RosterEntry, ...],
    source: str,
    paths: Sequence[str],
) -> None:
    """An anchor's tag must be its own: not another anchor's, not on a piece."""
    piece_index = {p.tag: _short(path) for path, p in zip(paths, pieces, strict=True)}
    seen: dict[int, int] = {}
    for i, anchor in enumerate(anchors):
        if anchor.tag in seen:
            raise RosterError(
                at(
                    source,
                    f"$.anchors[{i}].tag",
                    f"tag {anchor.tag} is already anchors[{seen[anchor.tag]}]",
                )
            )
        if anchor.tag in piece_index:
            raise RosterError(
                at(
                    source,
                    f"$.anchors[{i}].tag",
                    f"tag {anchor.tag} is also on a piece ({piece_index[anchor.tag]})",
                )
            )
        seen[anchor.tag] = i


#: Most vertices an outline may have (a traced river bank is a few hundred at most).
MAX_OUTLINE_POINTS = 1000


def _is_template(raw: Any) -> bool:
    return isinstance(raw, dict) and "terrain" in raw


def _template(raw: Any, dictionary: str, source: str, path: str) -> TerrainTemplate:
    if not isinstance(raw, dict):
        raise RosterError(at(source, path, "each terrain template must be a JSON object"))
    for key in ("id", "outline"):
        if key not in raw:
            hint = " (its shape: [[x, y], ...] inches around the tag)" if key == "outline" else ""
            raise RosterError(at(source, f"{path}.{key}", f"missing field{hint}"))
    kind = _name(raw["terrain"], source, f"{path}.terrain").lower()
    problem = unknown_terrain_kind(kind)
    if problem is not None:
        raise RosterError(at(source, f"{path}.terrain", problem))
    if ("tag" in raw) == ("tags" in raw):
        raise RosterError(
            at(source, path, 'give either "tag" (one tag) or "tags" (each with its place)')
        )
    if "tag" in raw:
        tags: tuple[TemplateTag, ...] = (
            TemplateTag(_tag(raw["tag"], dictionary, source, f"{path}.tag")),
        )
    else:
        raw_tags = v.items(
            raw["tags"], source, f"{path}.tags", error=RosterError, what="a list of tags",
            max_count=100,
        )  # fmt: skip
        if not raw_tags:
            raise RosterError(at(source, f"{path}.tags", "needs at least one tag"))
        tags = tuple(
            _template_tag(t, dictionary, source, f"{path}.tags[{j}]")
            for j, t in enumerate(raw_tags)
        )
    size = raw.get("tag_size")
    name = raw.get("name")
    return TerrainTemplate(
        id=_name(raw["id"], source, f"{path}.id"),
        terrain=kind,
        outline=_outline(raw["outline"], source, f"{path}.outline"),
        tags=tags,
        tag_size=None
        if size is None
        else _number(size, source, f"{path}.tag_size", positive=True, maximum=MAX_TAG_IN),
        tag_height=_number(
            raw.get("tag_height", 0.0),
            source,
            f"{path}.tag_height",
            minimum=0.0,
            maximum=MAX_TAG_IN,
        ),
        name=None if name is None else _name(name, source, f"{path}.name", allow_empty=True),
    )


def _template_tag(raw: Any, dictionary: str, source: str, path: str) -> TemplateTag:
    if not isinstance(raw, dict):
        raise RosterError(
            at(source, path, 'each tag must be {"tag": N, "at": [x, y], "heading": degrees}')
        )
    if "tag" not in raw:
        raise RosterError(at(source, f"{path}.tag", "missing field"))
    return TemplateTag(
        tag=_tag(raw["tag"], dictionary, source, f"{path}.tag"),
        at=_pair(raw.get("at", [0, 0]), source, f"{path}.at", limit=MAX_OFFSET_IN),
        heading=_number(
            raw.get("heading", 0.0), source, f"{path}.heading", minimum=-360.0, maximum=360.0
        ),
    )


def _outline(raw: Any, source: str, path: str) -> tuple[tuple[float, float], ...]:
    """A simple polygon of at least 3 points, inches; a repeated closing point is dropped."""
    points = v.items(
        raw, source, path, error=RosterError, what="a list of [x, y] points",
        max_count=MAX_OUTLINE_POINTS,
    )  # fmt: skip
    pairs = [_pair(p, source, f"{path}[{j}]", limit=MAX_TABLE_IN) for j, p in enumerate(points)]
    outline = tuple((float(x), float(y)) for x, y in as_polygon(pairs)) if pairs else ()
    if len(outline) < 3:
        raise RosterError(at(source, path, f"needs at least 3 distinct points, got {len(outline)}"))
    if not polygon_is_simple(outline):
        raise RosterError(
            at(
                source,
                path,
                "outline crosses itself or has no area (list the points in order around the edge)",
            )
        )
    return outline


def _check_template_tags(
    templates: tuple[TerrainTemplate, ...],
    pieces: tuple[RosterEntry, ...],
    anchors: tuple[AnchorTag, ...],
    source: str,
    paths: Sequence[str],
    piece_paths: Sequence[str],
) -> None:
    """A template's tags and id are its own: no other template's, piece's or anchor's."""
    owner: dict[int, str] = {
        p.tag: _short(path) for path, p in zip(piece_paths, pieces, strict=True)
    }
    owner.update({a.tag: f"anchors[{i}]" for i, a in enumerate(anchors)})
    ids = {p.id: _short(path) for path, p in zip(piece_paths, pieces, strict=True)}
    for path, template in zip(paths, templates, strict=True):
        if template.id in ids:
            raise RosterError(
                at(source, f"{path}.id", f"id {template.id!r} is already {ids[template.id]}")
            )
        ids[template.id] = _short(path)
        mine: set[int] = set()
        for j, tag in enumerate(template.tags):
            where = f"{path}.tags[{j}].tag" if "tags" in template.to_json() else f"{path}.tag"
            if tag.tag in owner or tag.tag in mine:
                other = _short(path) if tag.tag in mine else owner[tag.tag]
                raise RosterError(at(source, where, f"tag {tag.tag} is already on {other}"))
            mine.add(tag.tag)
        owner.update({t: _short(path) for t in mine})
