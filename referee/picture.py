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
}
"""Colours of the drawing (CSS hex), shared with the dashboard's map."""

RINGS = (3.0, 6.0, 12.0)
"""Range rings (inches) drawn around a selected piece, besides the ruleset's own ranges."""


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
    for terrain in scene.terrain:
        colour = PALETTE["terrain"].get(terrain.kind, "#808080")
        points = tuple((float(x), float(y)) for x, y in terrain.polygon)
        shapes.append(Shape("polygon", points, stroke=colour, fill=colour, width=0.06, opacity=0.8))
        cx, cy = np.mean(np.asarray(points), axis=0)
        label = terrain.id + (f" ({terrain.objective} VP)" if terrain.objective else "")
        shapes.append(
            Shape("text", ((float(cx), float(cy)),), fill="#ffffff", text=label, size=0.5)
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
    for verdict in verdicts:
        shapes.extend(_verdict_shapes(verdict, pieces))
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
        shapes.append(
            Shape("text", ((x, y + piece.base[1] / 2 + 0.7),), fill="#ffffff", text=piece.id)
        )
    caption: list[str] = []
    for verdict in verdicts:
        mark = {True: "[ok]", False: "[NO]", None: "[??]"}[verdict.get("ok")]
        caption.append(f"{mark} {verdict.get('summary') or verdict.get('ask')}")
        if reasons:
            caption.extend(f"     - {r}" for r in verdict.get("reasons", []))
    return Picture(scene.table.width, scene.table.depth, tuple(shapes), tuple(caption))


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
            out.append(Shape("text", (mid,), fill=colour, text=text, size=0.55))
    for chain in verdict.get("chains") or ():
        points = tuple(pieces[p].xy for p in chain if p in pieces)
        for start, end in itertools.pairwise(points):
            out.append(Shape("line", (start, end), stroke=PALETTE["verdict"]["clear"], width=0.12))
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
            out.append(f'<circle cx="{x:.3f}" cy="{y:.3f}" r="{r:g}" {style}/>')
        elif shape.kind == "text":
            x, y = shape.points[0]
            out.append(
                f'<text x="{x:.3f}" y="{y:.3f}" font-size="{shape.size:g}" '
                f'text-anchor="middle" fill="{shape.fill}">{escape(shape.text)}</text>'
            )
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
    image = np.full((round(height * ppi), round(width * ppi), 3), 32, np.uint8)
    shift = 4

    def px(points: Sequence[tuple[float, float]]) -> np.ndarray:
        arr = (np.asarray(points, float).reshape(-1, 2) + MARGIN) * ppi * (1 << shift)
        return np.round(arr).astype(np.int32).reshape(-1, 1, 2)

    for shape in picture.shapes:
        target = image.copy() if shape.opacity < 1 else image
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
            _text(target, shape.text, shape.points[0], shape.size, shape.fill, ppi, centred=True)
        if target is not image:
            cv2.addWeighted(target, shape.opacity, image, 1 - shape.opacity, 0, dst=image)
    for i, line in enumerate(picture.caption):
        y = picture.depth + CAPTION_LINE * (i + 0.8)
        _text(image, line, (0.0, y), CAPTION_LINE * 0.6, PALETTE["text"], ppi, centred=False)
    ok, data = cv2.imencode(".png", image)
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
) -> None:
    import cv2

    font = cv2.FONT_HERSHEY_SIMPLEX
    height_px = size * ppi
    scale = height_px / 22.0
    thick = max(1, round(scale * 1.6))
    (w, _), _ = cv2.getTextSize(text, font, scale, thick)
    x = (at[0] + MARGIN) * ppi - (w / 2 if centred else 0)
    y = (at[1] + MARGIN) * ppi + (height_px * 0.35 if centred else 0)
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
