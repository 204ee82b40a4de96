"""Pictures of a table and the verdicts on it: one drawing model, rendered to SVG or PNG.

:func:`draw` turns a scene and its verdicts into a :class:`Picture`: a list
of primitive shapes in table inches (terrain, bases with their facing and
label, range and sight lines coloured by verdict, Follow Me chains, range
rings) plus caption lines. :func:`to_svg` and :func:`to_png` render the
same picture, so ``referee check SCENE --picture OUT.png`` and the
dashboard's "Save picture" show the same thing; the dashboard's live map
draws with the same :data:`PALETTE`.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np

from referee.errors import RefereeError
from referee.scene import Scene

PALETTE: dict[str, Any] = {
    "cloth": "#5f7f52",
    "edge": "#f2f2f2",
    "text": "#ffffff",
    "terrain": {
        "woods": "#2f6b2f",
        "building": "#7a6a5a",
        "hill": "#9a8a50",
        "river": "#2f6fa8",
        "water": "#2f6fa8",
        "road": "#9c9c94",
        "bridge": "#8a6a48",
        "difficult": "#6f7a3a",
        "rough": "#6f7a3a",
        "wall": "#b0a090",
        "objective": "#d8b020",
        "open": "#7f9f70",
    },
    "sides": ["#d23c3c", "#3c78d2", "#e0a020", "#a040c0"],
    "verdict": {"clear": "#3ad15a", "blocked": "#ff4040", "doubtful": "#ffb020"},
    "ring": "#ffffff",
    "halo": "#000000",
}
"""Colours of the drawing (CSS hex), shared with the dashboard's map."""

RINGS = (3.0, 6.0, 12.0)
"""Range rings (inches) drawn around a selected piece, besides the ruleset's own ranges."""

HALO = 0.16
"""The dark outline round every word on the table, as a share of its height: white text
reads on the green cloth, on light terrain and across a coloured line alike."""


@dataclass(frozen=True)
class Shape:
    """One primitive in table inches: ``polygon``, ``line``, ``circle`` or ``text``."""

    kind: str
    points: tuple[tuple[float, float], ...]
    stroke: str | None = None
    fill: str | None = None
    width: float = 0.05
    """Stroke width, inches."""
    dash: bool = False
    radius: float = 0.0
    text: str = ""
    size: float = 0.6
    """Text height, inches."""
    opacity: float = 1.0


@dataclass(frozen=True)
class Picture:
    """A drawing of a ``width`` x ``depth`` inch table plus caption lines under it."""

    width: float
    depth: float
    shapes: tuple[Shape, ...]
    caption: tuple[str, ...] = ()


def side_colours(sides: Iterable[str]) -> dict[str, str]:
    """Each side's colour, in the order the sides first appear."""
    colours = PALETTE["sides"]
    return {s: colours[i % len(colours)] for i, s in enumerate(dict.fromkeys(sides))}


def verdict_colour(verdict: Mapping[str, Any]) -> str:
    """Clear/blocked/doubtful colour of a verdict (its LOS, or its ok for other questions)."""
    los = verdict.get("los")
    if los in PALETTE["verdict"]:
        return str(PALETTE["verdict"][los])
    word = {True: "clear", False: "blocked", None: "doubtful"}[verdict.get("ok")]
    return str(PALETTE["verdict"][word])


def draw(
    scene: Scene,
    verdicts: Sequence[Mapping[str, Any]] = (),
    *,
    selected: str | None = None,
    ranges: Sequence[float] = (),
    reasons: bool = True,
) -> Picture:
    """The table with its terrain and pieces, each verdict drawn on it, and a caption.

    ``verdicts`` are verdict JSON objects (as ``referee check --json`` prints
    them); range and LOS verdicts become lines between the two pieces' centres,
    Follow Me verdicts their chains. ``selected`` gets range rings at
    :data:`RINGS` and ``ranges`` (the ruleset's own, dashed).
    """
    shapes: list[Shape] = [
        Shape(
            "polygon",
            (
                (0, 0),
                (scene.table.width, 0),
                (scene.table.width, scene.table.depth),
                (0, scene.table.depth),
            ),
            stroke=PALETTE["edge"],
            fill=PALETTE["cloth"],
            width=0.08,
        )
    ]
    labels: list[Label] = []
    for terrain in scene.terrain:
        colour = PALETTE["terrain"].get(terrain.kind, "#808080")
        points = tuple((float(x), float(y)) for x, y in terrain.polygon)
        shapes.append(Shape("polygon", points, stroke=colour, fill=colour, width=0.06, opacity=0.8))
        cx, cy = np.mean(np.asarray(points), axis=0)
        label = terrain.id + (f" ({terrain.objective} VP)" if terrain.objective else "")
        labels.append(
            Label(Shape("text", ((float(cx), float(cy)),), fill="#ffffff", text=label, size=0.5))
        )
    colours = side_colours(p.side for p in scene)
    pieces = {p.id: p for p in scene}
    if selected in pieces:
        centre = pieces[selected].xy
        for radius in RINGS:
            shapes.append(_ring(centre, radius, dash=False))
        for radius in ranges:
            if radius not in RINGS:
                shapes.append(_ring(centre, radius, dash=True))
    written: set[tuple[frozenset[str], str]] = set()
    for verdict in verdicts:
        drawn = _verdict_shapes(verdict, pieces)
        shapes.extend(s for s in drawn if s.kind != "text")
        # a pair's range and sight line carry the same distance: it is written once
        pair = frozenset((str(verdict.get("from")), str(verdict.get("to"))))
        for s in drawn:
            if s.kind == "text" and (pair, s.text) not in written:
                written.add((pair, s.text))
                labels.append(_line_label(s, drawn[0]))
    for piece in scene:
        colour = colours[piece.side]
        corners = tuple((float(x), float(y)) for x, y in piece.corners())
        dead = piece.state == "destroyed"
        shapes.append(
            Shape(
                "polygon",
                corners,
                stroke="#ffff00" if piece.id == selected else "#111111",
                fill="#333333" if dead else colour,
                width=0.1 if piece.id == selected else 0.05,
            )
        )
        shapes.append(Shape("line", (piece.xy, piece.front), stroke="#ffffff", width=0.12))
        x, y = piece.xy
        reach = max(piece.base) / 2
        text = Shape("text", ((x, y + reach + 0.45),), fill="#ffffff", text=piece.id)
        labels.insert(0, Label(text, around=(x, y), reach=reach))  # pieces' names first
    shapes.extend(place_labels(labels, shapes, scene.table.width, scene.table.depth))
    caption: list[str] = []
    for verdict in verdicts:
        mark = {True: "[ok]", False: "[NO]", None: "[??]"}[verdict.get("ok")]
        caption.append(f"{mark} {verdict.get('summary') or verdict.get('ask')}")
        if reasons:
            caption.extend(f"     - {r}" for r in verdict.get("reasons", []))
    wrapped = _wrap(caption, scene.table.width + 2 * MARGIN - 0.2, CAPTION_LINE * 0.6)
    return Picture(scene.table.width, scene.table.depth, tuple(shapes), tuple(wrapped))


def _ring(centre: tuple[float, float], radius: float, dash: bool) -> Shape:
    return Shape(
        "circle",
        (centre,),
        stroke=PALETTE["ring"],
        width=0.05,
        radius=radius,
        dash=dash,
        opacity=0.8,
    )


def sight_line(verdict: Mapping[str, Any]) -> tuple[tuple[float, float], ...] | None:
    """The ends of the line a ``los`` verdict names (``line``: Papercraft's shortest clear
    line, base edge to base edge), or None where it names none (centre to centre)."""
    line = verdict.get("line") if verdict.get("ask") == "los" else None
    if not isinstance(line, Sequence) or len(line) != 2:
        return None
    if not all(isinstance(p, Sequence) and len(p) == 2 for p in line):
        return None
    return tuple((float(p[0]), float(p[1])) for p in line)


def _verdict_shapes(verdict: Mapping[str, Any], pieces: Mapping[str, Any]) -> list[Shape]:
    out: list[Shape] = []
    colour = verdict_colour(verdict)
    a, b = pieces.get(str(verdict.get("from"))), pieces.get(str(verdict.get("to")))
    if verdict.get("ask") in ("range", "los") and a is not None and b is not None:
        ends = sight_line(verdict) or (a.xy, b.xy)
        out.append(
            Shape("line", ends, stroke=colour, width=0.14, dash=verdict.get("ask") == "range")
        )
        if verdict.get("distance") is not None:
            mid = ((ends[0][0] + ends[1][0]) / 2, (ends[0][1] + ends[1][1]) / 2 - 0.4)
            # Grid games count squares (``unit``); everything else is inches.
            unit = verdict.get("unit")
            text = f"{verdict['distance']:g} {unit}" if unit else f"{verdict['distance']:.2f}in"
            if verdict.get("uncertainty") and not unit:
                text += f" +/-{verdict['uncertainty']:.2f}"
            # white with a halo, not the verdict's colour: green on the green cloth is unread
            # (the line beside it carries the colour)
            out.append(Shape("text", (mid,), fill=PALETTE["text"], text=text, size=0.55))
    for chain in verdict.get("chains") or ():
        points = tuple(pieces[p].xy for p in chain if p in pieces)
        for start, end in itertools.pairwise(points):
            out.append(Shape("line", (start, end), stroke=PALETTE["verdict"]["clear"], width=0.12))
    return out


# -- where the words go -------------------------------------------------------------------------
# Text is placed after everything else is drawn: each label tries spots near where it
# belongs, nearest first, and takes the first that stays inside the picture and crosses no
# drawn line, base, ring or other label (the least crowded one when every spot is taken).

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Label:
    """A text shape and where it may go: around a piece (``around``, ``reach``: half its
    base) or beside a line (``along``: the line's ends), else near its own point."""

    shape: Shape
    around: tuple[float, float] | None = None
    reach: float = 0.0
    along: tuple[tuple[float, float], tuple[float, float]] | None = None


def _line_label(text: Shape, line: Shape) -> Label:
    ends = (line.points[0], line.points[-1]) if line.kind == "line" else None
    return Label(text, along=ends)


@functools.lru_cache(maxsize=4096)
def text_width(text: str, size: float) -> float:
    """Inches ``text`` takes at ``size`` inches tall, as the PNG draws it (OpenCV's Hershey
    font, wider than the SVG's sans-serif, so the SVG's text fits the same box)."""
    import cv2

    (w, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 2)
    return float(w) / 22.0 * size


def text_box(shape: Shape) -> Box:
    """The box a text shape covers (x0, y0, x1, y1), inches: centred on its point, the
    baseline 0.35 of its height below it, descenders and the halo included."""
    x, y = shape.points[0]
    half = text_width(shape.text, shape.size) / 2 + HALO * shape.size / 2
    return (x - half, y - 0.7 * shape.size, x + half, y + 0.7 * shape.size)


def _segments(shape: Shape) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    points = list(shape.points)
    if shape.kind == "polygon":
        points.append(points[0])
    return list(itertools.pairwise(points))


def _crosses_segment(box: Box, a: tuple[float, float], b: tuple[float, float], pad: float) -> bool:
    """Whether segment a-b comes within ``pad`` of the box (Liang-Barsky clipping)."""
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    dx, dy = b[0] - a[0], b[1] - a[1]
    lo, hi = 0.0, 1.0
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
        if lo > hi:
            return False
    return True


def _crosses_circle(box: Box, shape: Shape) -> bool:
    (cx, cy), r, pad = shape.points[0], shape.radius, shape.width / 2 + 0.03
    near = math.hypot(max(box[0] - cx, 0, cx - box[2]), max(box[1] - cy, 0, cy - box[3]))
    far = max(math.hypot(x - cx, y - cy) for x in (box[0], box[2]) for y in (box[1], box[3]))
    return near <= r + pad and far >= r - pad


def _bounds(points: Sequence[tuple[float, float]]) -> Box:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _candidates(label: Label) -> Iterable[tuple[float, float]]:
    x, y = label.shape.points[0]
    yield (x, y)
    size = label.shape.size
    if label.around is not None:  # below, above, beside the base, then further out
        px, py = label.around
        for step in range(8):
            r = label.reach + 0.45 + 0.35 * step
            for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)):
                half = text_width(label.shape.text, size) / 2 + 0.1
                yield (px + dx * (r + (half if dx else 0) - (0.45 if dx else 0)), py + dy * r)
    elif label.along is not None:  # either side of the line, sliding away from its middle
        (ax, ay), (bx, by) = label.along
        length = math.hypot(bx - ax, by - ay) or 1.0
        nx, ny = -(by - ay) / length, (bx - ax) / length
        for t in (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8):
            mx, my = ax + (bx - ax) * t, ay + (by - ay) * t
            for off in (0.5, 0.8, 1.2):
                gap = off * size + 0.2 + abs(nx) * text_width(label.shape.text, size) / 2
                yield (mx - nx * gap, my - ny * gap)
                yield (mx + nx * gap, my + ny * gap)
    for step in range(1, 17):  # anywhere near its point
        r = 0.5 * step
        for k in range(16):
            angle = math.tau * k / 16
            yield (x + r * math.cos(angle), y + r * math.sin(angle))


def place_labels(
    labels: Sequence[Label], drawn: Sequence[Shape], width: float, depth: float
) -> list[Shape]:
    """The labels as text shapes moved to free spots: inside the picture (table and margin),
    clear of every drawn line, base and ring and of each other, where such a spot exists."""
    edges = [
        (a, b, s.width / 2 + 0.03)
        for s in drawn[1:]  # not the table's own edge: a label may sit on the cloth's margin
        if s.kind == "line" or (s.kind == "polygon" and s.opacity == 1.0)  # bases, not terrain
        for a, b in _segments(s)
    ]
    rings = [s for s in drawn if s.kind == "circle"]
    # a base is drawn under the words, but a word over a base hides the piece: kept off
    bases = [_bounds(s.points) for s in drawn[1:] if s.kind == "polygon" and s.opacity == 1.0]
    inside = (-MARGIN + 0.05, -MARGIN + 0.05, width + MARGIN - 0.05, depth + MARGIN - 0.05)
    placed: list[Box] = []
    out: list[Shape] = []
    for label in labels:
        shape = label.shape
        fits = text_width(shape.text, shape.size)
        if fits > inside[2] - inside[0]:  # wider than the picture: smaller, never cut
            shape = Shape(**{**shape.__dict__, "size": shape.size * (inside[2] - inside[0]) / fits})
        best: tuple[int, Shape, Box] | None = None
        for point in _candidates(Label(shape, label.around, label.reach, label.along)):
            moved = Shape(**{**shape.__dict__, "points": (point,)})
            box = text_box(moved)
            if not (inside[0] <= box[0] and inside[1] <= box[1]):
                continue
            if not (box[2] <= inside[2] and box[3] <= inside[3]):
                continue
            # a ring crossed is the least harm, text over text worse, text over a line worst
            clash = 100 * sum(_crosses_segment(box, a, b, pad) for a, b, pad in edges)
            clash += 100 * sum(_overlaps(box, base) for base in bases)
            clash += 10 * sum(_overlaps(box, other) for other in placed)
            clash += sum(_crosses_circle(box, ring) for ring in rings)
            if best is None or clash < best[0]:
                best = (clash, moved, box)
            if clash == 0:
                break
        if best is None:  # no spot inside at all (a picture smaller than the text)
            continue
        out.append(best[1])
        placed.append(best[2])
    return out


def _wrap(lines: Sequence[str], width: float, size: float) -> list[str]:
    """Caption lines broken at spaces to fit the picture's width (continuations indented)."""
    out: list[str] = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip()) + 4)
        words = line.split(" ")
        current = ""
        for word in words:
            trial = f"{current} {word}" if current else word
            if current.strip() and text_width(trial, size) > width:
                out.append(current)
                current = indent + word
            else:
                current = trial
        out.append(current)
    return out


# -- rendering ---------------------------------------------------------------------------------

CAPTION_LINE = 0.8
"""Inches of picture per caption line."""
MARGIN = 0.5


def _layout(picture: Picture) -> tuple[float, float]:
    """Total width and height in inches, caption included."""
    height = picture.depth + 2 * MARGIN + CAPTION_LINE * len(picture.caption)
    return picture.width + 2 * MARGIN, height


def to_svg(picture: Picture) -> str:
    """The picture as a standalone SVG document (units: inches, 1 user unit = 1 inch)."""
    width, height = _layout(picture)
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" '
        f'width="{width * 40:.0f}" height="{height * 40:.0f}" '
        f'viewBox="{-MARGIN} {-MARGIN} {width:g} {height:g}" font-family="sans-serif">',
        f'<rect x="{-MARGIN}" y="{-MARGIN}" width="{width:g}" height="{height:g}" fill="#202020"/>',
        # the drawing stops at the table's margin: a range ring never runs into the caption
        f'<clipPath id="table"><rect x="{-MARGIN}" y="{-MARGIN}" width="{width:g}" '
        f'height="{picture.depth + 2 * MARGIN:g}"/></clipPath><g clip-path="url(#table)">',
        # rings stop at the cloth's edge: nothing is drawn outside the table
        f'<clipPath id="cloth"><rect x="0" y="0" width="{picture.width:g}" '
        f'height="{picture.depth:g}"/></clipPath>',
    ]
    for shape in picture.shapes:
        style = _svg_style(shape)
        if shape.kind == "polygon":
            pts = " ".join(f"{x:.3f},{y:.3f}" for x, y in shape.points)
            out.append(f'<polygon points="{pts}" {style}/>')
        elif shape.kind == "line":
            pts = " ".join(f"{x:.3f},{y:.3f}" for x, y in shape.points)
            out.append(f'<polyline points="{pts}" {style}/>')
        elif shape.kind == "circle":
            (x, y), r = shape.points[0], shape.radius
            out.append(
                f'<circle cx="{x:.3f}" cy="{y:.3f}" r="{r:g}" {style} clip-path="url(#cloth)"/>'
            )
        elif shape.kind == "text":
            x, y = shape.points[0]
            out.append(
                f'<text x="{x:.3f}" y="{y + 0.35 * shape.size:.3f}" font-size="{shape.size:g}" '
                f'text-anchor="middle" fill="{shape.fill}" stroke="{PALETTE["halo"]}" '
                f'stroke-width="{HALO * shape.size:.3f}" stroke-linejoin="round" '
                f'paint-order="stroke">{escape(shape.text)}</text>'
            )
    out.append("</g>")
    for i, line in enumerate(picture.caption):
        y = picture.depth + MARGIN + CAPTION_LINE * (i + 0.8)
        out.append(
            f'<text x="0" y="{y:.3f}" font-size="{CAPTION_LINE * 0.6:g}" '
            f'fill="{PALETTE["text"]}" xml:space="preserve">{escape(line)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _svg_style(shape: Shape) -> str:
    fill = shape.fill if shape.fill and shape.kind != "line" else "none"
    parts = [f'fill="{fill}"']
    if shape.stroke:
        parts.append(f'stroke="{shape.stroke}" stroke-width="{shape.width:g}"')
        parts.append('stroke-linejoin="round" stroke-linecap="round"')
    if shape.dash:
        parts.append(f'stroke-dasharray="{shape.width * 4:g} {shape.width * 3:g}"')
    if shape.opacity < 1:
        parts.append(f'opacity="{shape.opacity:g}"')
    return " ".join(parts)


def _bgr(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return (b, g, r)


def to_png(picture: Picture, ppi: float = 30.0) -> bytes:
    """The picture as PNG bytes, ``ppi`` pixels per inch (OpenCV, anti-aliased)."""
    import cv2

    width, height = _layout(picture)
    whole = np.full((round(height * ppi), round(width * ppi), 3), 32, np.uint8)
    # the drawing stops at the table's margin: a range ring never runs into the caption
    image = whole[: round((picture.depth + 2 * MARGIN) * ppi)]
    shift = 4

    def px(points: Sequence[tuple[float, float]]) -> np.ndarray:
        arr = (np.asarray(points, float).reshape(-1, 2) + MARGIN) * ppi * (1 << shift)
        return np.round(arr).astype(np.int32).reshape(-1, 1, 2)

    cloth = (  # the table's pixels: rings are drawn inside them only
        slice(round(MARGIN * ppi), round((MARGIN + picture.depth) * ppi)),
        slice(round(MARGIN * ppi), round((MARGIN + picture.width) * ppi)),
    )
    for shape in picture.shapes:
        clipped = shape.kind == "circle"
        target = image.copy() if shape.opacity < 1 or clipped else image
        thick = max(1, round(shape.width * ppi))
        if shape.kind == "polygon":
            if shape.fill:
                cv2.fillPoly(target, [px(shape.points)], _bgr(shape.fill), cv2.LINE_AA, shift)
            if shape.stroke:
                cv2.polylines(
                    target, [px(shape.points)], True, _bgr(shape.stroke), thick, cv2.LINE_AA, shift
                )
        elif shape.kind == "line" and shape.stroke:
            for start, end in zip(shape.points, shape.points[1:], strict=False):
                for a, b in _dashes(start, end, shape) if shape.dash else [(start, end)]:
                    p, q = px([a, b])
                    cv2.line(target, p[0], q[0], _bgr(shape.stroke), thick, cv2.LINE_AA, shift)
        elif shape.kind == "circle" and shape.stroke:
            centre = px(shape.points)[0, 0]
            radius = round(shape.radius * ppi * (1 << shift))
            if shape.dash:
                steps = max(24, int(shape.radius * 6))
                for k in range(0, steps, 2):
                    a0, a1 = 360 * k / steps, 360 * (k + 1) / steps
                    cv2.ellipse(
                        target,
                        centre,
                        (radius, radius),
                        0,
                        a0,
                        a1,
                        _bgr(shape.stroke),
                        thick,
                        cv2.LINE_AA,
                        shift,
                    )
            else:
                cv2.circle(target, centre, radius, _bgr(shape.stroke), thick, cv2.LINE_AA, shift)
        elif shape.kind == "text" and shape.fill:
            _text(target, shape.text, shape.points[0], shape.size, shape.fill, ppi, True, halo=True)
        if clipped:
            inside = target[cloth].copy()
            target[:] = image
            target[cloth] = inside
        if target is not image:
            cv2.addWeighted(target, shape.opacity, image, 1 - shape.opacity, 0, dst=image)
    for i, line in enumerate(picture.caption):
        y = picture.depth + MARGIN + CAPTION_LINE * (i + 0.8)  # below the margin, as in SVG
        _text(whole, line, (0.0, y), CAPTION_LINE * 0.6, PALETTE["text"], ppi, centred=False)
    ok, data = cv2.imencode(".png", whole)
    if not ok:
        raise RefereeError("could not encode the picture as PNG")
    return bytes(data)


def _dashes(
    start: tuple[float, float], end: tuple[float, float], shape: Shape
) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    length = math.dist(start, end)
    on, off = shape.width * 4, shape.width * 3
    out = []
    s = 0.0
    while s < length:
        e = min(s + on, length)
        a = (
            start[0] + (end[0] - start[0]) * s / length,
            start[1] + (end[1] - start[1]) * s / length,
        )
        b = (
            start[0] + (end[0] - start[0]) * e / length,
            start[1] + (end[1] - start[1]) * e / length,
        )
        out.append((a, b))
        s = e + off
    return out


def _text(
    image: np.ndarray,
    text: str,
    at: tuple[float, float],
    size: float,
    colour: str,
    ppi: float,
    centred: bool,
    halo: bool = False,
) -> None:
    import cv2

    font = cv2.FONT_HERSHEY_SIMPLEX
    height_px = size * ppi
    scale = height_px / 22.0
    thick = max(1, round(scale * 1.6))
    (w, _), _ = cv2.getTextSize(text, font, scale, thick)
    x = (at[0] + MARGIN) * ppi - (w / 2 if centred else 0)
    y = (at[1] + MARGIN) * ppi + (height_px * 0.35 if centred else 0)
    if halo:  # the word's own strokes widened, in the dark, under it
        grow = max(1, round(HALO * height_px / 2))
        (_, h), base = cv2.getTextSize(text, font, scale, thick)
        pad = grow + thick + 2
        x0, y0 = max(0, int(x) - pad), max(0, int(y) - h - pad)
        x1 = min(image.shape[1], int(x + w) + pad)
        y1 = min(image.shape[0], int(y) + base + pad)
        if x1 > x0 and y1 > y0:
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.putText(
                mask, text, (round(x) - x0, round(y) - y0), font, scale, 255, thick, cv2.LINE_AA
            )
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
            image[y0:y1, x0:x1][cv2.dilate(mask, kernel) > 0] = _bgr(PALETTE["halo"])
    cv2.putText(image, text, (round(x), round(y)), font, scale, _bgr(colour), thick, cv2.LINE_AA)


def save(picture: Picture, path: str | os.PathLike[str]) -> None:
    """Write the picture as ``.png`` or ``.svg`` (by the file's suffix)."""
    from referee.calibration.profile import write_text_atomic
    from referee.outputs import output_file

    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".png", ".svg"):
        raise RefereeError(f"--picture {path}: write a .png or an .svg file")
    target = output_file(path, "--picture")
    if suffix == ".svg":
        write_text_atomic(target, to_svg(picture))
        return
    data = to_png(picture)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        partial.write_bytes(data)
        os.replace(partial, target)
    except OSError as error:
        raise RefereeError(f"--picture {path}: cannot write ({error.strerror})") from None
