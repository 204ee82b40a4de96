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

import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
        raw_dictionary = data.get("dictionary", DEFAULT_DICTIONARY)
        if not isinstance(raw_dictionary, str):
            raise RosterError(at(source, "$.dictionary", "must be a dictionary name or .yml file"))
        try:
            dictionary = canonical_dictionary(_beside(raw_dictionary, source))
        except ValueError as error:
            raise RosterError(at(source, "$.dictionary", str(error))) from None
        raw_pieces = data.get("pieces")
        if not isinstance(raw_pieces, list):
            raise RosterError(at(source, "$.pieces", "missing list of pieces"))
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


def _number(value: Any, source: str, path: str, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RosterError(at(source, path, f"must be a finite number, got {value!r}"))
    if positive and value <= 0:
        raise RosterError(at(source, path, f"must be positive, got {value!r}"))
    return float(value)


def _pair(value: Any, source: str, path: str, *, positive: bool = False) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise RosterError(at(source, path, f"must be two numbers, got {value!r}"))
    return (
        _number(value[0], source, f"{path}[0]", positive=positive),
        _number(value[1], source, f"{path}[1]", positive=positive),
    )


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
    if not isinstance(raw["id"], str) or not raw["id"]:
        raise RosterError(at(source, f"{path}.id", "must be a non-empty string"))
    height = _number(raw.get("tag_height", 0.0), source, f"{path}.tag_height")
    if height < 0:
        raise RosterError(at(source, f"{path}.tag_height", "must not be negative"))
    size = raw.get("tag_size")
    return RosterEntry(
        tag=_tag(raw["tag"], dictionary, source, f"{path}.tag"),
        id=raw["id"],
        side=str(raw.get("side", "")),
        kind=str(raw.get("kind", "")),
        base=_pair(raw["base"], source, f"{path}.base", positive=True),
        tag_offset=_pair(raw.get("tag_offset", [0, 0]), source, f"{path}.tag_offset"),
        tag_height=height,
        name=None if raw.get("name") is None else str(raw["name"]),
        tag_size=None if size is None else _number(size, source, f"{path}.tag_size", positive=True),
    )


def _anchor(raw: Any, dictionary: str, source: str, path: str) -> AnchorTag:
    if not isinstance(raw, dict):
        raise RosterError(at(source, path, "each anchor must be a JSON object"))
    for key in ("tag", "x", "y", "size"):
        if key not in raw:
            raise RosterError(at(source, f"{path}.{key}", "missing field"))
    return AnchorTag(
        tag=_tag(raw["tag"], dictionary, source, f"{path}.tag"),
        x=_number(raw["x"], source, f"{path}.x"),
        y=_number(raw["y"], source, f"{path}.y"),
        size=_number(raw["size"], source, f"{path}.size", positive=True),
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
