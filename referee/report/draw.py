"""A report's pictures: the table after a turn with each of its moves as an arrow.

The table is :func:`referee.picture.draw`'s (terrain, bases with their facing and ids,
the dashboard's colours); on it go the turn's moves, an arrow from where the piece rested
to where it came to rest (a correction's pose when corrected), coloured by the worst of
its verdicts as the dashboard colours it, with its distance beside it; a voided move is
a dashed grey line; a piece carried off is a red cross where it fell.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from referee.picture import PALETTE, Label, Picture, Shape, place_labels
from referee.picture import draw as draw_table
from referee.report.model import Casualty, MoveEntry
from referee.scene import Scene

MARK_COLOURS = {
    "ok": PALETTE["verdict"]["clear"],
    "no": PALETTE["verdict"]["blocked"],
    "maybe": PALETTE["verdict"]["doubtful"],
    "none": "#e8e8e8",
    "void": "#9a9a9a",
}
"""Arrow colour by move mark (the dashboard's ``moveColour``)."""

MARK_WORDS = {
    "ok": "legal",
    "no": "NOT legal",
    "maybe": "too close to call",
    "none": "not judged",
    "void": "voided: did not happen",
}


def verdict_mark(verdict: Mapping[str, Any]) -> str:
    """A verdict's mark (``ok``, ``no``, ``maybe``; ``none`` where its ``ok`` is not the
    verdict format's true, false or null: a damaged log is shown, never a crash).

    >>> verdict_mark({"ok": None, "los": "doubtful"}), verdict_mark({"ok": [1]})
    ('maybe', 'none')
    """
    ok = verdict.get("ok")
    if ok is True:
        return "ok"
    if ok is False:
        return "no"
    return "maybe" if ok is None else "none"


VERDICT_WORDS = {"ok": "ok", "no": "NOT OK", "maybe": "too close to call", "none": "?"}


def arrow_head(
    a: tuple[float, float], b: tuple[float, float], size: float = 0.9
) -> tuple[tuple[float, float], ...]:
    """The head of an arrow from ``a`` to ``b``: a triangle with its tip at ``b`` (at most
    ``size`` inches long, shorter on a short move)."""
    length = math.dist(a, b) or 1.0
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    head = min(size, length * 0.4)
    return (
        b,
        (b[0] - ux * head - uy * head * 0.5, b[1] - uy * head + ux * head * 0.5),
        (b[0] - ux * head + uy * head * 0.5, b[1] - uy * head - ux * head * 0.5),
    )


def distance_text(move: MoveEntry) -> str:
    """``6.00in +/-0.005`` (the logged distance; a corrected move's is the camera's)."""
    if move.distance is None:
        return "?in"
    text = f"{move.distance:.2f}in"
    if move.uncertainty:
        text += f" +/-{move.uncertainty:.3f}"
    return text


def turn_picture(scene: Scene, moves: Sequence[MoveEntry], off: Sequence[Casualty] = ()) -> Picture:
    """``scene`` with ``moves`` drawn as arrows and ``off`` as crosses; no caption."""
    base = draw_table(scene, reasons=False)
    shapes = list(base.shapes)
    labels: list[Label] = []
    for move in moves:
        a = (move.start["x"], move.start["y"])
        b = (move.end["x"], move.end["y"])
        colour = MARK_COLOURS.get(move.mark, MARK_COLOURS["none"])
        void = move.mark == "void"
        shapes.append(Shape("line", (a, b), stroke=colour, width=0.16, dash=void))
        if not void and math.dist(a, b) > 1e-6:
            shapes.append(Shape("polygon", arrow_head(a, b), stroke=colour, fill=colour))
        text = Shape("text", (((a[0] + b[0]) / 2, (a[1] + b[1]) / 2),), fill="#ffffff",
                     text=f"{move.piece} {distance_text(move)}", size=0.5)  # fmt: skip
        labels.append(Label(text, along=(a, b)))
    for casualty in off:
        if casualty.at is None:
            continue
        x, y, r = casualty.at["x"], casualty.at["y"], 0.7
        red = PALETTE["verdict"]["blocked"]
        shapes.append(Shape("line", ((x - r, y - r), (x + r, y + r)), stroke=red, width=0.18))
        shapes.append(Shape("line", ((x - r, y + r), (x + r, y - r)), stroke=red, width=0.18))
        labels.append(
            Label(
                Shape("text", ((x, y + r + 0.5),), fill="#ffffff", text=f"{casualty.piece} off"),
                around=(x, y),
                reach=r,
            )
        )
    shapes.extend(place_labels(labels, shapes, scene.table.width, scene.table.depth))
    return Picture(base.width, base.depth, tuple(shapes))
