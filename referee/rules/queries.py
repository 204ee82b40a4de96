"""The shared questions' arguments, read once into typed, frozen queries.

A scene file or the web asks with a JSON object (``{"ask": "move", "piece": "t34",
"to": {...}}``); the session asks with a settled move it tracked. Both become a
:class:`MoveQuery` (or :class:`RangeQuery`, :class:`PairQuery`) here, checked field by
field with a one-line :class:`~referee.rules.QueryError` naming the field, so the
rules core and the systems' hooks read typed values and never a dict.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple, Self

from referee.geometry import Pose
from referee.rules.values import QueryError
from referee.scene import LIMIT, Piece, Scene

MAX_VIA = 10_000
"""Most intermediate poses a move's ``via`` may list."""


def piece_arg(scene: Scene, query: Mapping[str, Any], key: str) -> Piece:
    """The piece a query field names; :class:`QueryError` when missing or unknown."""
    if key not in query:
        raise QueryError(f".{key}", "missing field (a piece id)")
    pid = query[key]
    if not isinstance(pid, str) or pid not in scene:
        raise QueryError(f".{key}", f"unknown piece id {pid!r}")
    return scene.piece(pid)


def allowance_arg(query: Mapping[str, Any]) -> float | None:
    """The query's ``allowance`` (inches moved at most), or None when it gives none."""
    allowance = query.get("allowance")
    if allowance is not None and (
        isinstance(allowance, bool)
        or not isinstance(allowance, (int, float))
        or not math.isfinite(allowance)
        or not 0 <= allowance <= LIMIT
    ):
        raise QueryError(".allowance", f"must be a number of inches >= 0, got {allowance!r}")
    return allowance


def number_arg(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QueryError(path, f"must be a finite number, got {value!r}")
    if abs(value) > LIMIT:
        raise QueryError(path, f"must be within +/-{LIMIT:g}, got {value!r}")
    return float(value)


def pose_arg(raw: Any, path: str, default: Pose) -> Pose:
    if not isinstance(raw, dict):
        raise QueryError(
            path, f'must be a pose like {{"x": 10, "y": 4, "heading": 90}}, got {raw!r}'
        )
    for key in ("x", "y"):
        if key not in raw:
            raise QueryError(f"{path}.{key}", "missing field")
    heading = raw.get("heading", default.heading)
    return Pose(
        number_arg(raw["x"], f"{path}.x"),
        number_arg(raw["y"], f"{path}.y"),
        number_arg(heading, f"{path}.heading") % 360.0,
    )


def _turned(pose: Pose) -> Pose:
    """``pose`` with its heading in [0, 360), as a question's poses are read."""
    return Pose(pose.x, pose.y, pose.heading % 360.0)


def path_arg(query: Mapping[str, Any], start: Pose) -> tuple[Pose, ...]:
    """The move's ``via``: intermediate poses between ``from`` and ``to``, in order (the
    tracked path). Absent: no path. Each pose's heading defaults to the one before it."""
    raw = query.get("via")
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > MAX_VIA:
        raise QueryError(
            ".via",
            f"must be a list of at most {MAX_VIA} poses like "
            f'[{{"x": 10, "y": 4, "heading": 90}}], got {str(raw)[:60]}',
        )
    out: list[Pose] = []
    for k, item in enumerate(raw):
        out.append(pose_arg(item, f".via[{k}]", out[-1] if out else start))
    return tuple(out)


@dataclass(frozen=True)
class MoveQuery:
    """A move: ``piece`` from ``start`` (its pose unless ``from`` is given) through the
    tracked ``via`` poses to ``end``, with the allowance and position doubt the asker
    gave (None: the system's own). ``extra`` holds the system's own fields of the
    question (a Coastal ``speed``, a Colonial ``roll``), read by its hooks."""

    piece: Piece
    start: Pose
    end: Pose
    via: tuple[Pose, ...] = ()
    allowance: float | None = None
    uncertainty: float | None = None
    """Inches of doubt in the move's length, as asked (None: twice the piece's)."""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def doubt(self) -> float:
        """The doubt in the move's length: the asker's, else twice the piece's position doubt."""
        return self.uncertainty if self.uncertainty is not None else 2 * self.piece.uncertainty

    @classmethod
    def of(
        cls,
        piece: Piece,
        start: Pose,
        end: Pose,
        via: tuple[Pose, ...] = (),
        allowance: float | None = None,
        **extra: Any,
    ) -> Self:
        """A settled move as the session tracked it (no JSON on the way): headings are
        taken modulo 360 as :meth:`parse` takes them; a path longer than a question may
        give is a :class:`QueryError` as it is there."""
        if len(via) > MAX_VIA:
            raise QueryError(".via", f"must be a list of at most {MAX_VIA} poses")
        start, end = _turned(start), _turned(end)
        return cls(piece, start, end, tuple(_turned(p) for p in via), allowance, None, extra)

    @classmethod
    def parse(
        cls,
        scene: Scene,
        query: Mapping[str, Any],
        check: Callable[[Piece], None] | None = None,
        needs_end: bool = True,
    ) -> Self:
        """Read a ``move`` question; ``check`` may refuse the piece (before the poses are
        read), and without ``needs_end`` a missing ``to`` means staying put."""
        piece = piece_arg(scene, query, "piece")
        if check is not None:
            check(piece)
        start = pose_arg(query["from"], ".from", piece.pose) if "from" in query else piece.pose
        if "to" in query:
            end = pose_arg(query["to"], ".to", start)
        elif needs_end:
            raise QueryError(".to", "missing field (the pose moved to)")
        else:
            end = start
        via = path_arg(query, start)
        allowance = allowance_arg(query)
        uncertainty = None
        if "uncertainty" in query:
            uncertainty = number_arg(query["uncertainty"], ".uncertainty")
            if uncertainty < 0:
                raise QueryError(".uncertainty", f"must be >= 0, got {uncertainty!r}")
        shared = ("ask", "piece", "from", "to", "via", "allowance", "uncertainty")
        extra = {k: v for k, v in query.items() if k not in shared}
        return cls(piece, start, end, via, allowance, uncertainty, extra)

    def as_dict(self) -> dict[str, Any]:
        """The question as JSON (what a verdict keeps as ``query``)."""
        out: dict[str, Any] = {"ask": "move", "piece": self.piece.id}
        out["from"] = {"x": self.start.x, "y": self.start.y, "heading": self.start.heading}
        out["to"] = {"x": self.end.x, "y": self.end.y, "heading": self.end.heading}
        if self.via:
            out["via"] = [{"x": p.x, "y": p.y, "heading": p.heading} for p in self.via]
        if self.allowance is not None:
            out["allowance"] = self.allowance
        if self.uncertainty is not None:
            out["uncertainty"] = self.uncertainty
        return {**out, **self.extra}


_NONE: Mapping[str, Any] = MappingProxyType({})


class PairQuery(NamedTuple):
    """A question about two pieces, ``from`` and ``to`` (range, los, spot, arc, contact).

    A named tuple, not a dataclass: a range question takes microseconds, and building a
    frozen dataclass would be a fifth of that."""

    firer: Piece
    target: Piece
    extra: Mapping[str, Any] = _NONE
    """The question as asked, for the system's own fields (a ``weapon``, a ``roll``)."""

    @property
    def doubt(self) -> float:
        """The two pieces' position doubts added: the doubt in any distance between them."""
        return self.firer.uncertainty + self.target.uncertainty

    @classmethod
    def parse(
        cls, scene: Scene, query: Mapping[str, Any], check: Callable[[Piece], None] | None = None
    ) -> Self:
        """Read ``from`` and ``to``; ``check`` may refuse the firer before ``to`` is read."""
        firer = piece_arg(scene, query, "from")
        if check is not None:
            check(firer)
        return cls(firer, piece_arg(scene, query, "to"), query)


class RangeQuery(PairQuery):
    """``range``: may ``from`` fire at ``to`` (``weapon`` in :attr:`extra` where a system
    names its weapons)."""


class LosQuery(PairQuery):
    """``los``: the line of sight from ``from`` to ``to``."""


PieceCheck = Callable[[Piece], None]
"""A hook that refuses a piece for a question with :class:`QueryError` (a torpedo asked
to move by MPs)."""
