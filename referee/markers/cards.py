"""QR unit cards: one card per piece, its roster entry in a QR code.

A card shows the piece id, side and kind, a QR code holding the piece's
roster entry as compact JSON with the tag dictionary added (see
:func:`card_payload`), and the piece's tag with its facing arrow. Hold the
cards up to the camera and ``referee roster scan`` rebuilds the roster.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from referee.errors import RefereeError, RosterError, parse_json
from referee.markers.pdf import (
    CUT_GRAY,
    MARGIN,
    PT_PER_IN,
    Fill,
    Page,
    Shape,
    Shelf,
    Text,
    cell_rects,
    fit_text,
    page_size,
    rect_outline,
    up_arrow,
)
from referee.markers.qr import QUIET_ZONE_MODULES, encode_qr
from referee.markers.roster import Roster, RosterEntry
from referee.markers.sheets import DEFAULT_TAG_SIZE_IN, tag_shapes
from referee.tags.layout import TagLayout, marker_bits

#: Card size, points: 3.5 x 2.25 in, eight to a Letter or A4 page.
CARD_W = 3.5 * PT_PER_IN
CARD_H = 2.25 * PT_PER_IN
_PAD = 6.0
_TOP = 30.0
_GAP = 0.1 * PT_PER_IN


@dataclass(frozen=True)
class PlacedCard:
    """Where a card's QR code and tag landed (points, page index)."""

    page: int
    piece: str
    qr_origin: tuple[float, float]
    qr_module: float
    tag_center: tuple[float, float]
    tag_size: float
    true_size: bool
    """False when the tag was shrunk to fit the card (a preview, not for cutting)."""


@dataclass(frozen=True)
class CardSheet:
    pages: tuple[Page, ...]
    placed: tuple[PlacedCard, ...]
    title: str


def card_payload(entry: RosterEntry, dictionary: str) -> str:
    """The QR text of a card: the roster entry as compact JSON plus its dictionary.

    >>> card_payload(RosterEntry(12, "t34", "soviet", "tank", (1.5, 3.0)), "DICT_4X4_100")
    '{"dictionary":"DICT_4X4_100","tag":12,"id":"t34","side":"soviet","kind":"tank","base":[1.5,3.0],"tag_offset":[0.0,0.0],"tag_height":0.0}'
    """
    return json.dumps({"dictionary": dictionary, **entry.to_json()}, separators=(",", ":"))


def parse_card(text: str, source: str = "<card>") -> tuple[str, RosterEntry]:
    """(dictionary, entry) from a card's QR text; :class:`RosterError` for anything else.

    >>> parse_card(card_payload(RosterEntry(3, "sq1", "ussr", "inf", (2, 1)), "DICT_4X4_50"))[1].id
    'sq1'
    >>> parse_card("https://example.com")
    Traceback (most recent call last):
    ...
    referee.errors.RosterError: <card>: QR code is not a referee unit card: 'https://example.com'
    """
    try:  # parse_json: a payload nested 2,000 deep is no card either, never a RecursionError
        data = parse_json(text, source, RosterError)
    except RosterError:
        data = None
    if not isinstance(data, dict) or "dictionary" not in data or "tag" not in data:
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise RosterError(f"{source}: QR code is not a referee unit card: {shown!r}")
    dictionary = data.pop("dictionary")
    roster = Roster.from_json({"dictionary": dictionary, "pieces": [data]}, f"{source} (card)")
    return roster.dictionary, roster.pieces[0]


def card_sheet(
    roster: Roster, page: str = "letter", default_tag_size: float = DEFAULT_TAG_SIZE_IN
) -> CardSheet:
    """One card per roster piece, in roster order, eight to a page."""
    if not roster.pieces:
        raise RefereeError("the roster has no pieces to make cards for")
    width, height = page_size(page)
    header_h = 16.0
    shelf = Shelf(
        (MARGIN, MARGIN + header_h, width - 2 * MARGIN, height - 2 * MARGIN - header_h), _GAP
    )
    spots = shelf.place([(CARD_W, CARD_H)] * len(roster.pieces))
    count = spots[-1][0] + 1
    title = f"referee unit cards, {roster.dictionary}"
    per_page: list[list[Shape]] = [
        [
            Text(MARGIN, MARGIN + 10, title, 10, bold=True),
            Text(width - MARGIN, MARGIN + 10, f"page {i + 1}/{count}", 8, "right"),
        ]
        for i in range(count)
    ]
    placed = []
    for entry, (index, x, y) in zip(roster.pieces, spots, strict=True):
        shapes, where = _card(entry, roster.dictionary, x, y, default_tag_size)
        per_page[index].extend(shapes)
        placed.append(PlacedCard(index, entry.id, *where))
    pages = tuple(Page((width, height), tuple(shapes)) for shapes in per_page)
    return CardSheet(pages, tuple(placed), title)


def _card(
    entry: RosterEntry, dictionary: str, x: float, y: float, default_tag_size: float
) -> tuple[list[Shape], tuple[tuple[float, float], float, tuple[float, float], float, bool]]:
    shapes: list[Shape] = [rect_outline(x, y, CARD_W, CARD_H, width=0.4, gray=CUT_GRAY)]
    inner_w = CARD_W - 2 * _PAD
    left, top = x + _PAD, y + _PAD
    shapes.append(Text(left, top + 11, fit_text(entry.id, inner_w * 0.5, 12, True), 12, bold=True))
    kind = " / ".join(part for part in (entry.side, entry.kind) if part)
    if entry.name:
        kind = f"{entry.name}, {kind}" if kind else entry.name
    shapes.append(Text(left, top + 22, fit_text(kind, inner_w * 0.55, 8), 8))
    facts = [
        f"tag {entry.tag}",
        f"base {entry.base[0]:g} x {entry.base[1]:g} in",
        f"tag {entry.tag_height:g} in high" if entry.tag_height else "tag flat on base",
    ]
    if entry.tag_offset != (0.0, 0.0):
        facts.append(f"offset {entry.tag_offset[0]:g}, {entry.tag_offset[1]:g} in")
    right = x + CARD_W - _PAD
    shapes.append(Text(right, top + 9, facts[0], 8, "right", bold=True))
    shapes.append(Text(right, top + 18, ", ".join(facts[1:3]), 6, "right"))
    if len(facts) > 3:
        shapes.append(Text(right, top + 26, facts[3], 6, "right"))

    # QR code, left, as large as the space below the text allows.
    grid = encode_qr(card_payload(entry, dictionary))
    body_top = top + _TOP
    body_h = CARD_H - 2 * _PAD - _TOP
    module = body_h / (grid.shape[0] + 2 * QUIET_ZONE_MODULES)
    qr_origin = (left + QUIET_ZONE_MODULES * module, body_top + QUIET_ZONE_MODULES * module)
    shapes.append(Fill(cell_rects(grid, *qr_origin, module)))

    # The tag, right, at true size when it fits under its arrow.
    bits = marker_bits(dictionary)
    true_in = entry.tag_size or default_tag_size
    room_w = inner_w - body_h - 4
    room_h = body_h - 12
    outer = TagLayout(true_in * PT_PER_IN, bits).outer
    fits = outer <= min(room_w, room_h) + 1e-9
    if not fits:
        outer = min(room_w, room_h)
    size = outer * TagLayout(1.0, bits).size / TagLayout(1.0, bits).outer
    tx = right - outer
    ty = body_top + 12
    center = (tx + outer / 2, ty + outer / 2)
    shapes.append(rect_outline(tx, ty, outer, outer, width=0.4, gray=CUT_GRAY))
    shapes.extend(tag_shapes(dictionary, entry.tag, size, *center))
    shapes.append(up_arrow(center[0], body_top + 1, 9))
    if not fits:
        shapes.append(Text(tx, ty - 3, "preview", 6, gray=0.4))
    return shapes, (qr_origin, module, center, size, fits)
