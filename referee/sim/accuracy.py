"""How close the referee came to the truth of simulated footage: its settled moves against
``truth-moves.json`` and its terrain placements against ``truth-terrain.json`` (what
``referee demo`` prints after a game, and the benchmarks score)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import RefereeError, counted, read_json_file
from referee.geometry import front_point
from referee.markers.roster import Roster


@dataclass(frozen=True)
class MoveMatch:
    """Measured moves against the true ones, matched in order per piece."""

    matched: int
    missed: int
    """True moves no measured move was matched to."""
    extra: int
    """Measured moves beyond the true ones (a phantom move, or one measured twice)."""
    errors: tuple[float, ...]
    """|measured - true| front-point distance of each matched move, inches."""


def match_moves(
    moves: Sequence[Any], true_moves: Sequence[Mapping[str, Any]], roster: Roster
) -> MoveMatch:
    """Match ``moves`` (each with ``piece`` and ``front_distance``) with ``true_moves``
    (``truth-moves.json``'s ``moves``), in order per piece."""
    true_by_piece: dict[str, list[Mapping[str, Any]]] = {}
    for move in true_moves:
        true_by_piece.setdefault(move["piece"], []).append(move)
    errors = []
    for move in moves:
        queue = true_by_piece.get(move.piece)
        if not queue:
            continue
        true = queue.pop(0)
        entry = roster.by_id(move.piece)
        depth = entry.base[1] if entry else 0.0
        start, end = true["from"], true["to"]
        distance = math.dist(
            front_point(start["x"], start["y"], start["heading"], depth),
            front_point(end["x"], end["y"], end["heading"], depth),
        )
        errors.append(abs(move.front_distance - distance))
    missed = sum(len(q) for q in true_by_piece.values())
    return MoveMatch(len(errors), missed, len(moves) - len(errors), tuple(errors))


def accuracy_summary(moves: list[Any], truth: dict[str, Any], roster: Roster) -> list[str]:
    """Lines comparing measured moves with the footage's true moves, matched in order per piece."""
    match = match_moves(moves, truth.get("moves", []), roster)
    errors = match.errors
    lines = [
        f"accuracy vs truth-moves.json: {match.matched} of {match.matched + match.missed} "
        f"true moves found, {match.extra} extra"
    ]
    if errors:
        lines.append(
            f"  move distance error: mean {sum(errors) / len(errors):.3f}in, "
            f"max {max(errors):.3f}in"
        )
    return lines


def terrain_accuracy(
    edits: Sequence[Mapping[str, Any]], truth: Mapping[str, Any], roster: Roster
) -> list[str]:
    """The ``terrain placement error`` line: over every template and every placement in
    ``truth`` (``truth-terrain.json``), the largest distance between a vertex of the true
    placed outline and the same vertex of the polygon the referee logged for that placement
    (``edits``: the logged ``edit`` events' data in order, matched in order per template).
    A placement never logged, or one logged beyond the truth, is said on a line of its own.
    """
    logged: dict[str, list[Any]] = {}
    for edit in edits:
        terrain = edit.get("terrain")
        if edit.get("action") in ("add", "replace") and isinstance(terrain, Mapping):
            logged.setdefault(str(terrain.get("id")), []).append(terrain.get("polygon"))
    worst, found, missed, extra = 0.0, 0, 0, 0
    for true in truth.get("templates", []):
        template = roster.template(true["id"])
        polygons = logged.get(true["id"], [])
        placements = true["placements"]
        extra += max(len(polygons) - len(placements), 0)
        for placement, polygon in zip(placements, polygons, strict=False):
            if template is None:
                break
            placed = template.placed(placement["x"], placement["y"], placement["heading"])
            if not isinstance(polygon, list) or len(polygon) != len(placed):
                missed += 1
                continue
            found += 1
            worst = max(worst, *(math.dist(a, b) for a, b in zip(placed, polygon, strict=True)))
        missed += max(len(placements) - len(polygons), 0) + (
            len(placements) if template is None else 0
        )
    lines = [f"terrain placement error: max {worst:.3f}in"]
    if missed or extra:
        lines.append(
            f"  terrain placements: {found} of {counted(found + missed, 'true placement')} logged, "
            f"{extra} extra"
        )
    return lines


def load_truth(path: Path) -> dict[str, Any]:
    """The footage's true moves; a file that is not that is a one-line error."""
    data = read_json_file(path, "truth file", RefereeError, "re-run 'referee simulate'")
    moves = data.get("moves") if isinstance(data, dict) else None
    if not isinstance(moves, list) or not all(
        isinstance(m, dict)
        and isinstance(m.get("piece"), str)
        and all(
            isinstance(m.get(k), dict)
            and all(isinstance(m[k].get(c), (int, float)) for c in ("x", "y", "heading"))
            for k in ("from", "to")
        )
        for m in moves
    ):
        raise RefereeError(
            f"{path}: $.moves: must be a list of moves with piece, from and to poses; "
            "re-run 'referee simulate'"
        )
    return data


def load_terrain_truth(path: Path) -> dict[str, Any]:
    """The footage's true template placements; a file that is not that is a one-line error."""
    data = read_json_file(path, "truth file", RefereeError, "re-run 'referee simulate'")
    templates = data.get("templates") if isinstance(data, dict) else None
    if not isinstance(templates, list) or not all(
        isinstance(t, dict)
        and isinstance(t.get("id"), str)
        and isinstance(t.get("placements"), list)
        and all(
            isinstance(p, dict)
            and all(
                isinstance(p.get(c), (int, float)) and not isinstance(p.get(c), bool)
                for c in ("x", "y", "heading")
            )
            for p in t["placements"]
        )
        for t in templates
    ):
        raise RefereeError(
            f"{path}: $.templates: must be a list of templates with id and placements "
            "(x, y, heading); re-run 'referee simulate'"
        )
    return data
