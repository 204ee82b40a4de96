"""Reading unit cards back into a roster (``referee roster scan``).

A source is an image file, a folder of images, a video file, or a camera
index. Every QR code found is decoded; referee unit cards become roster
entries, anything else is reported and skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.errors import RefereeError, RosterError, SourceError
from referee.markers.cards import parse_card
from referee.markers.qr import decode_qr
from referee.markers.roster import Roster, RosterEntry
from referee.markers.sheets import check_piece_tag
from referee.media import camera_index, quiet_libraries, read_image
from referee.outputs import usable_path

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v"})

#: Frames read from a camera or video before giving up on new cards.
DEFAULT_MAX_FRAMES = 300

#: Decode every n-th frame of a video or camera: cards are held still, decoding is slow.
FRAME_STEP = 5


@dataclass(frozen=True)
class Card:
    """One decoded unit card and where it was seen."""

    dictionary: str
    entry: RosterEntry
    seen_in: str


@dataclass(frozen=True)
class ScanResult:
    """Cards found (first sighting of each distinct card) and QR codes that were not cards."""

    cards: tuple[Card, ...]
    problems: tuple[str, ...]
    images: int
    """Images or frames examined."""


@dataclass(frozen=True)
class Change:
    """What merging one card did to the roster: ``added``, ``updated`` or ``unchanged``."""

    action: str
    entry: RosterEntry
    replaced: tuple[RosterEntry, ...] = ()


def iter_images(
    source: str, max_frames: int = DEFAULT_MAX_FRAMES
) -> Iterator[tuple[str, NDArray[np.uint8]]]:
    """(name, image) pairs from an image, a folder of images, a video or a camera index.

    Raises :class:`SourceError` for a missing path, an unreadable image or a
    camera that does not open; unreadable images inside a folder are skipped.
    """
    if source.isascii() and source.isdigit():
        index = camera_index(source, "camera")
        with quiet_libraries():
            capture = cv2.VideoCapture(index)
        yield from _frames(capture, f"camera {source}", max_frames)
        return
    path = usable_path(source, "SOURCE")
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise SourceError(
                f"{source}: folder has no images ({', '.join(sorted(IMAGE_SUFFIXES))})"
            )
        for file in files:
            try:
                image = read_image(file, grayscale=True)
            except SourceError:
                continue  # an unreadable image in a folder is skipped, as the docstring says
            yield str(file), np.asarray(image, dtype=np.uint8)
        return
    if not path.exists():
        raise SourceError(
            f"{source}: no such file or folder; give an image, a folder of images, "
            "a video or a camera index like 0"
        )
    if path.suffix.lower() in VIDEO_SUFFIXES:
        with quiet_libraries():
            capture = cv2.VideoCapture(str(path))
        yield from _frames(capture, str(path), max_frames)
        return
    yield str(path), np.asarray(read_image(path, grayscale=True), dtype=np.uint8)


def _frames(
    capture: cv2.VideoCapture, name: str, max_frames: int
) -> Iterator[tuple[str, NDArray[np.uint8]]]:
    if not capture.isOpened():
        raise SourceError(f"{name}: cannot open; check the device or file and try again")
    try:
        for index in range(max_frames):
            ok, frame = capture.read()
            if not ok:
                if index == 0:
                    raise SourceError(f"{name}: gives no frames")
                break
            if index % FRAME_STEP == 0:
                yield f"{name} frame {index}", np.asarray(frame, dtype=np.uint8)
    finally:
        capture.release()


def scan(images: Iterator[tuple[str, NDArray[np.uint8]]]) -> ScanResult:
    """Decode the cards in ``images``; the same card seen twice counts once."""
    cards: dict[str, Card] = {}
    problems: dict[str, str] = {}
    count = 0
    for name, image in images:
        count += 1
        for text in decode_qr(image):
            if text in cards or text in problems:
                continue
            try:
                dictionary, entry = parse_card(text, name)
            except RosterError as error:
                problems[text] = str(error)
                continue
            cards[text] = Card(dictionary, entry, name)
    return ScanResult(tuple(cards.values()), tuple(problems.values()), count)


def merge(roster: Roster, cards: tuple[Card, ...]) -> tuple[Roster, tuple[Change, ...]]:
    """``roster`` with every card's entry added or replaced, and what changed.

    A card replaces any entry with the same tag or the same piece id. A card
    from a different tag dictionary is refused with :class:`RosterError`, as
    are two cards that claim the same tag or piece id for different pieces.
    """
    changes: list[Change] = []
    claimed: dict[tuple[str, object], Card] = {}
    for card in cards:
        entry = card.entry
        if card.dictionary != roster.dictionary:
            raise RosterError(
                f"{card.seen_in}: card for {entry.id!r} uses {card.dictionary} but the roster "
                f"uses {roster.dictionary}; reprint the card or start a new roster"
            )
        _check_not_anchor(roster, card)
        for what, key in (("tag", entry.tag), ("piece id", entry.id)):
            other = claimed.setdefault((what, key), card)
            if other.entry != entry:
                raise RosterError(
                    f"{card.seen_in}: {what} {key!r} is on two different cards "
                    f"({other.entry.id!r} seen in {other.seen_in}); scan one of them only"
                )
        replaced = tuple(p for p in roster.pieces if p.tag == entry.tag or p.id == entry.id)
        if replaced == (entry,):
            changes.append(Change("unchanged", entry))
            continue
        roster = roster.with_entry(entry)
        changes.append(Change("updated" if replaced else "added", entry, replaced))
    return roster, tuple(changes)


def _check_not_anchor(roster: Roster, card: Card) -> None:
    """A piece may not carry an anchor's tag: the roster would be refused by every command."""
    tag = card.entry.tag
    anchors = {a.tag for a in roster.anchors}
    if tag in anchors:
        raise RosterError(
            f"{card.seen_in}: card for {card.entry.id!r} carries tag {tag}, one of the roster's "
            "corner anchors; reprint the card with another tag"
        )
    try:
        check_piece_tag(roster.dictionary, tag)
    except RefereeError as error:
        raise RosterError(
            f"{card.seen_in}: card for {card.entry.id!r}: {error}; reprint the card"
        ) from None


def describe(change: Change) -> str:
    """One line for the user about a change.

    >>> e = RosterEntry(12, "t34", "soviet", "tank", (1.5, 3.0))
    >>> describe(Change("added", e))
    'added t34 (tag 12, soviet tank)'
    """
    entry = change.entry
    what = " ".join(part for part in (entry.side, entry.kind) if part)
    line = f"{change.action} {entry.id} (tag {entry.tag}{', ' + what if what else ''})"
    if change.action == "updated":
        olds = ", ".join(f"{p.id} (tag {p.tag})" for p in change.replaced)
        line += f", replacing {olds}"
    return line


def output_path(roster_path: str | None, out: str | None) -> str:
    """Where the scanned roster goes: ``--out``, else the ``--roster`` file being updated."""
    target = out or roster_path
    if target is None:
        raise RosterError("say where to write the roster: --out FILE.json (or --roster FILE.json)")
    if os.path.isdir(target):
        raise RosterError(f"{target}: is a folder; give a roster file name like roster.json")
    return target
