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
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import validate as v
from referee.errors import RosterError, at, read_json_file, write_json_atomic
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


@dataclass(frozen=True)
class Roster:
    """All tagged pieces of a game, plus the table's anchor tags."""

    dictionary: str = DEFAULT_DICTIONARY
    pieces: tuple[RosterEntry, ...] = ()
    anchors: tuple[AnchorTag, ...] = ()
    _by_tag: Mapping[int, RosterEntry] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_tag", {p.tag: p for p in self.pieces})

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
        return Roster(self.dictionary, pieces, self.anchors)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "dictionary": self.dictionary,
            "pieces": [p.to_json() for p in self.pieces],
        }
        if self.anchors:
            data["anchors"] = [
                {"tag": a.tag, "x": a.x, "y": a.y, "size": a.size} for a in self.anchors
            ]
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
        pieces = tuple(
            _entry(raw, str(dictionary), source, f"$.pieces[{i}]")
            for i, raw in enumerate(raw_pieces)
        )
        _check_unique(pieces, source)
        raw_anchors = data.get("anchors", [])
        if not isinstance(raw_anchors, list):
            raise RosterError(at(source, "$.anchors", "must be a list of anchor tags"))
        anchors = tuple(
            _anchor(raw, str(dictionary), source, f"$.anchors[{i}]")
            for i, raw in enumerate(raw_anchors)
        )
        _check_anchor_tags(anchors, pieces, source)
        return cls(str(dictionary), pieces, anchors)


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


def _check_unique(pieces: tuple[RosterEntry, ...], source: str) -> None:
    seen_tags: dict[int, int] = {}
    seen_ids: dict[str, int] = {}
    for i, piece in enumerate(pieces):
        if piece.tag in seen_tags:
            raise RosterError(
                at(
                    source,
                    f"$.pieces[{i}].tag",
                    f"tag {piece.tag} is already on pieces[{seen_tags[piece.tag]}]",
                )
            )
        if piece.id in seen_ids:
            raise RosterError(
                at(
                    source,
                    f"$.pieces[{i}].id",
                    f"piece id {piece.id!r} is already pieces[{seen_ids[piece.id]}]",
                )
            )
        seen_tags[piece.tag] = i
        seen_ids[piece.id] = i


def _check_anchor_tags(
    anchors: tuple[AnchorTag, ...], pieces: tuple[RosterEntry, ...], source: str
) -> None:
    """An anchor's tag must be its own: not another anchor's, not on a piece."""
    piece_index = {p.tag: i for i, p in enumerate(pieces)}
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
                    f"tag {anchor.tag} is also on a piece (pieces[{piece_index[anchor.tag]}])",
                )
            )
        seen[anchor.tag] = i
