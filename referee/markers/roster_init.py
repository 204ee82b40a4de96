"""Starting a roster (``referee roster init``) from a list of pieces.

One piece per line of a plain text file (or per ``--piece`` option)::

    # id    side     kind      base (width x depth, inches)   options
    t34a    soviet   tank      1.5x3    height=0.9
    sq1     soviet   infantry  2x1      tag=20 name="1st Squad"

``base`` is width across the front by depth from front to back. Options:
``tag=N`` (else the next free id), ``height=H`` (tag height above the table,
inches), ``offset=F,R`` (tag centre from the base centre, forward and right,
inches), ``size=S`` (tag side, inches), ``name=...`` (quoted if it has
spaces). Blank lines and ``#`` comments are skipped.

Terrain templates (``--terrain KIND:LENGTHxWIDTH[:ID]``, e.g. ``woods:8x6``)
get the kind's outline at that size and tag ids after the pieces'.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.errors import RosterError
from referee.geometry import unknown_terrain_kind
from referee.markers.roster import Roster, RosterEntry
from referee.markers.sheets import DEFAULT_TAG_SIZE_IN
from referee.markers.terrain_sheet import MAX_TEMPLATE_IN
from referee.tags.layout import TagLayout, dictionary_size, marker_bits, reserved_anchor_ids
from referee.validate import shown

EXAMPLE_LINE = "t34a soviet tank 1.5x3 height=0.9"
OPTIONS = ("tag", "height", "offset", "size", "name")


@dataclass(frozen=True)
class PieceLine:
    """One piece as typed: everything but a tag id is required to be known."""

    id: str
    side: str
    kind: str
    base: tuple[float, float]
    tag: int | None = None
    tag_height: float = 0.0
    tag_offset: tuple[float, float] = (0.0, 0.0)
    tag_size: float | None = None
    name: str | None = None


def _number(text: str, where: str, what: str, positive: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        raise RosterError(f"{where}: {what} {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")) or (positive and value <= 0):
        raise RosterError(
            f"{where}: {what} must be a {'positive' if positive else 'finite'} number"
        )
    return value


def parse_base(text: str, where: str) -> tuple[float, float]:
    """``1.5x3`` -> (1.5, 3.0): width across the front, depth front to back, inches.

    >>> parse_base("1.5x3", "line 1")
    (1.5, 3.0)
    """
    parts = text.lower().removesuffix("in").split("x")
    if len(parts) != 2:
        raise RosterError(f"{where}: base {text!r} must be WIDTHxDEPTH in inches, e.g. 1.5x3")
    width = _number(parts[0], where, "base width", positive=True)
    depth = _number(parts[1], where, "base depth", positive=True)
    return width, depth


def parse_piece_line(line: str, where: str) -> PieceLine | None:
    """One line of a piece list; None for a blank or comment line.

    >>> parse_piece_line('sq1 soviet infantry 2x1 tag=20 name="1st Squad"', "line 2")
    ... # doctest: +NORMALIZE_WHITESPACE
    PieceLine(id='sq1', side='soviet', kind='infantry', base=(2.0, 1.0), tag=20,
              tag_height=0.0, tag_offset=(0.0, 0.0), tag_size=None, name='1st Squad')
    """
    if len(line) > MAX_PIECE_LINE:
        raise RosterError(
            f"{where}: is {len(line):,} characters long; a piece's line holds at most "
            f"{MAX_PIECE_LINE}; e.g. {EXAMPLE_LINE}"
        )
    try:
        words = shlex.split(line, comments=True)
    except ValueError as error:
        raise RosterError(f"{where}: {error} (unbalanced quotes?)") from None
    if not words:
        return None
    fields = [w for w in words if "=" not in w]
    options = [w for w in words if "=" in w]
    if len(fields) != 4:
        raise RosterError(
            f"{where}: expected ID SIDE KIND WIDTHxDEPTH [options], got {line.strip()!r}; "
            f"e.g. {EXAMPLE_LINE}"
        )
    piece_id, side, kind, base = fields
    values: dict[str, str] = {}
    for option in options:
        key, _, value = option.partition("=")
        if key not in OPTIONS:
            raise RosterError(f"{where}: unknown option {key!r}; use {', '.join(OPTIONS)}")
        values[key] = value
    tag = None
    if "tag" in values:
        if not values["tag"].isdigit():
            raise RosterError(f"{where}: tag={values['tag']} must be a whole tag id")
        tag = int(values["tag"])
    offset = (0.0, 0.0)
    if "offset" in values:
        parts = values["offset"].split(",")
        if len(parts) != 2:
            raise RosterError(f"{where}: offset must be FORWARD,RIGHT inches, e.g. offset=0.5,0")
        offset = (_number(parts[0], where, "offset"), _number(parts[1], where, "offset"))
    height = _number(values.get("height", "0"), where, "height")
    if height < 0:
        raise RosterError(f"{where}: height must not be negative")
    size = values.get("size")
    return PieceLine(
        id=piece_id,
        side=side,
        kind=kind,
        base=parse_base(base, where),
        tag=tag,
        tag_height=height,
        tag_offset=offset,
        tag_size=None if size is None else _number(size, where, "size", positive=True),
        name=values.get("name"),
    )


#: Largest piece list read, bytes: 10,000 pieces of a hundred characters each.
MAX_PIECE_LIST_BYTES = 1_000_000

#: Longest line of a piece list (or ``--piece``), characters: a piece, its options and a
#: 64-character name fit in a tenth of it.
MAX_PIECE_LINE = 1000


def read_piece_list(path: str) -> str:
    """The text of a ``--pieces`` file: UTF-8, at most :data:`MAX_PIECE_LIST_BYTES`."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_PIECE_LIST_BYTES + 1)
    except OSError as error:
        reason = error.strerror or str(error)
        raise RosterError(f"--pieces {path}: cannot read ({reason})") from None
    return piece_list_text(data, path)


def piece_list_text(data: bytes, source: str) -> str:
    """``data`` as text, or one line saying why it is no piece list (too big, UTF-16, binary,
    not UTF-8), checked before any line is parsed."""
    hint = "save it as plain UTF-8 text, one piece per line"
    if len(data) > MAX_PIECE_LIST_BYTES:
        raise RosterError(
            f"{source}: is over {MAX_PIECE_LIST_BYTES:,} bytes; a piece list is one short line "
            "per piece"
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise RosterError(f"{source}: is UTF-16 text; {hint}")
    if b"\0" in data:
        raise RosterError(f"{source}: is not a text file (it holds NUL bytes); {hint}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise RosterError(f"{source}: line {line}: is not UTF-8 text; {hint}") from None


def parse_piece_list(text: str, source: str) -> list[PieceLine]:
    """Every piece of a text list; errors name ``source`` and the line number."""
    pieces = []
    for number, line in enumerate(text.splitlines(), start=1):
        piece = parse_piece_line(line, f"{source}: line {number}")
        if piece is not None:
            pieces.append(piece)
    return pieces


def build_roster(pieces: Iterable[PieceLine], dictionary: str, first_tag: int = 0) -> Roster:
    """A validated roster: pieces without a tag get the next free id from ``first_tag`` up.

    Anchor ids (the dictionary's last six: corners and a big table's edges) are never
    given to a piece.
    """
    pieces = list(pieces)
    reserved = set(reserved_anchor_ids(dictionary))
    taken = {p.tag for p in pieces if p.tag is not None}
    next_tag = first_tag
    entries = []
    for piece in pieces:
        tag = piece.tag
        if tag is None:
            while next_tag in taken or next_tag in reserved:
                next_tag += 1
            tag = next_tag
            taken.add(tag)
        elif tag in reserved:
            raise RosterError(
                f"piece {piece.id!r}: tag {tag} is reserved for the corner anchors of {dictionary}"
            )
        entries.append(
            RosterEntry(
                tag,
                piece.id,
                piece.side,
                piece.kind,
                piece.base,
                piece.tag_offset,
                piece.tag_height,
                piece.name,
                piece.tag_size,
            )
        )
    if not entries:
        raise RosterError("no pieces given; a roster needs at least one piece")
    by_id: dict[str, RosterEntry] = {}
    by_tag: dict[int, RosterEntry] = {}
    for entry in entries:
        if entry.id in by_id:
            raise RosterError(f"piece id {entry.id!r} is given twice; piece ids must be unique")
        if entry.tag in by_tag:
            raise RosterError(
                f"tag {entry.tag} is given to both {by_tag[entry.tag].id!r} and {entry.id!r}"
            )
        by_id[entry.id], by_tag[entry.tag] = entry, entry
    if any(e.tag >= dictionary_size(dictionary) for e in entries):
        raise RosterError(
            f"{len(entries)} pieces need more tags than {dictionary} has below its anchors "
            f"(ids 0-{dictionary_size(dictionary) - 1}); use a bigger dictionary"
        )
    roster = Roster(dictionary, tuple(entries))
    # The roster file's own reader is the judge of validity (unique tags and ids...).
    return Roster.from_json(roster.to_json(), "<new roster>")


TERRAIN_EXAMPLE = "woods:8x6"
MAX_TERRAIN_IN = MAX_TEMPLATE_IN
"""Longest side of a terrain template, inches: what ``markers terrain`` prints."""


@dataclass(frozen=True)
class TerrainLine:
    """One ``--terrain KIND:LENGTHxWIDTH[:ID]`` of ``roster init``."""

    kind: str
    length: float
    width: float
    id: str | None = None


def parse_terrain_option(text: str, where: str) -> TerrainLine:
    """``woods:8x6`` or ``hill:10x6:hill1``: a terrain template's kind, size and id.

    >>> parse_terrain_option("river:24x3:ford", "--terrain #1")
    TerrainLine(kind='river', length=24.0, width=3.0, id='ford')
    """
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0].strip():
        raise RosterError(
            f"{where}: cannot read {shown(text)}; write KIND:LENGTHxWIDTH[:ID], e.g. "
            f"{TERRAIN_EXAMPLE}"
        )
    kind = parts[0].strip().lower()
    problem = unknown_terrain_kind(kind[:40])
    if problem is not None:
        raise RosterError(f"{where}: {problem}")
    size = parts[1].lower().removesuffix("in").split("x")
    if len(size) != 2:
        raise RosterError(
            f"{where}: size {shown(parts[1])} must be LENGTHxWIDTH in inches, e.g. 8x6"
        )
    length = _number(size[0], where, "terrain length", positive=True)
    width = _number(size[1], where, "terrain width", positive=True)
    if max(length, width) > MAX_TERRAIN_IN:
        raise RosterError(f"{where}: {shown(parts[1])} is over {MAX_TERRAIN_IN:g}in; is it inches?")
    name = parts[2].strip() if len(parts) == 3 else None
    return TerrainLine(kind, length, width, name or None)


def add_terrain(
    roster: Roster, terrain: Sequence[TerrainLine], tag_size: float = DEFAULT_TAG_SIZE_IN
) -> Roster:
    """``roster`` with a terrain template for each line: the kind's outline at its size
    (as ``referee markers terrain --kind --size`` prints it), tags numbered after the
    pieces' (anchor ids skipped), ids ``KIND1``, ``KIND2``... unless given."""
    from referee.markers.terrain_sheet import shaped_outline, tag_places

    reserved = set(reserved_anchor_ids(roster.dictionary))
    taken = {p.tag for p in roster} | {t.tag for tp in roster.templates for t in tp.tags}
    next_tag = max((p.tag for p in roster), default=-1) + 1
    outer = TagLayout(tag_size, marker_bits(roster.dictionary)).outer
    counts: dict[str, int] = {}
    entries = []
    for k, line in enumerate(terrain, start=1):
        if min(line.length, line.width) < outer + 0.2:
            raise RosterError(
                f"--terrain #{k}: {line.length:g}x{line.width:g}in is too small for a "
                f"{tag_size:g}in tag; make it at least {outer + 0.2:.2f}in wide"
            )
        counts[line.kind] = counts.get(line.kind, 0) + 1
        tags = []
        for place in tag_places(line.length, line.width, outer):
            while next_tag in taken or next_tag in reserved:
                next_tag += 1
            taken.add(next_tag)
            tags.append({"tag": next_tag, "at": list(place), "heading": 0})
        entries.append(
            {
                "id": line.id or f"{line.kind}{counts[line.kind]}",
                "terrain": line.kind,
                "tags": tags,
                "outline": [list(p) for p in shaped_outline(line.kind, line.length, line.width)],
            }
        )
    if next_tag >= dictionary_size(roster.dictionary):
        raise RosterError(
            f"the pieces and terrain need more tags than {roster.dictionary} has; use a "
            "bigger dictionary"
        )
    data = roster.to_json()
    data["terrain"] = [*data.get("terrain", []), *entries]
    # The roster file's own reader is the judge of validity (ids and tags unique...).
    return Roster.from_json(data, "<new roster>")
