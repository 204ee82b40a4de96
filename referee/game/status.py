"""What a dashboard asks of the live table, as values: its health, the map's doubt, the pieces.

The web layer parses a request, calls one of these and writes the value's JSON; it never
walks the session's tracks or the pipeline itself (issue 38). Each function reads the live
table's newest state once, so one answer describes one moment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from referee.calibration.profile import CalibrationProfile
from referee.events import GameEvent
from referee.game.live import LiveTable
from referee.game.views import CameraHealth, map_doubt
from referee.markers.roster import Roster
from referee.rules import Ruleset
from referee.scene import Piece, Scene

DOUBT_STEP = 6.0
"""Inches between the points of the doubt grid (the doubt varies slowly over a table)."""

CAMERA_EVENTS_SHOWN = 20
"""The newest camera events the health panel lists (older ones are in the log)."""


def piece_ranges(ruleset: Ruleset, piece: Piece) -> dict[str, float]:
    """The distances the ruleset itself uses for this piece, by label, as the page reads them."""
    return {r.label: r.inches for r in ruleset.piece_ranges(piece)}


def roster_pieces(roster: Roster, scene: Scene) -> list[Piece]:
    """Every piece the game knows: the scene's, then the roster's not on the table (at 0, 0),
    so a page can name and colour a piece before it is first seen."""
    pieces = {p.id: p for p in scene}
    for entry in roster:
        if entry.id not in pieces:
            pieces[entry.id] = Piece(
                entry.id, entry.side, entry.kind, 0, 0, 0, entry.base, name=entry.name
            )
    return list(pieces.values())


@dataclass(frozen=True)
class PieceCount:
    """The roster's pieces by what the tracker makes of them now."""

    seen: tuple[str, ...]
    hidden: tuple[str, ...]
    """Tracked but not seen this frame (a hand over it, say)."""
    missing: tuple[str, ...]
    """On the roster, never tracked."""
    removed: tuple[str, ...]
    """Casualties: gone from the table, not hidden."""


@dataclass(frozen=True)
class TableHealth:
    """The health panel: calibration, frame rate, pieces, unknown tags, camera events."""

    profile: CalibrationProfile
    re_registered: bool
    """The profile in use is a re-registration, not the one the game started with."""
    fps: float
    frames: int
    frame: int | None
    t: float
    pieces: PieceCount
    unknown_tags: tuple[int, ...]
    flags: Mapping[str, int]
    camera_events: tuple[GameEvent, ...]
    cameras: tuple[CameraHealth, ...]
    error: str | None
    running: bool
    game: str | None
    """The game's name in the log (None: not logged)."""

    def to_json(self) -> dict[str, Any]:
        profile = self.profile
        return {
            "calibration": {
                "frame_source": profile.frame_source,
                "rms_px": profile.rms_px,
                "views_used": profile.views_used,
                "created": profile.created,
                "image_size": list(profile.intrinsics.image_size),
                "re_registered": self.re_registered,
            },
            "fps": round(self.fps, 1),
            "frames": self.frames,
            "frame": self.frame,
            "t": round(self.t, 3),
            "pieces": {
                "seen": list(self.pieces.seen),
                "hidden": list(self.pieces.hidden),
                "missing": list(self.pieces.missing),
                "removed": list(self.pieces.removed),
            },
            "unknown_tags": list(self.unknown_tags),
            "flags": dict(self.flags),
            "camera": [e.to_json() for e in self.camera_events],
            # Each camera on its own: a dropped or ended one is shown while the others go on.
            "cameras": [c.to_json() for c in self.cameras],
            "error": self.error,
            "running": self.running,
            "game": self.game,
        }


def table_health(live: LiveTable) -> TableHealth:
    """The live table's health now."""
    session = live.session
    latest = session.latest
    profile = latest.profile if latest is not None else live.calibration
    seen: list[str] = []
    hidden: list[str] = []
    removed: list[str] = []
    if latest is not None:
        for tracked in latest.tracks.pieces:
            if tracked.state == "removed":
                removed.append(tracked.pose.id)  # a casualty: not hidden, gone
                continue
            (seen if tracked.pose.seen else hidden).append(tracked.pose.id)
    known = {*seen, *hidden, *removed}
    missing = [e.id for e in session.roster if e.id not in known]
    events, _ = live.events_since(0)
    flags: dict[str, int] = {}
    unknown: set[int] = set(latest.unknown_tags) if latest is not None else set()
    for event in events:
        if event.type == "flag":
            kind = str(event.data.get("kind"))
            flags[kind] = flags.get(kind, 0) + 1
            tag = event.data.get("tag")
            if kind == "unknown_tag" and isinstance(tag, int):
                unknown.add(tag)
    camera = [e for e in events if e.type == "camera"]
    return TableHealth(
        profile=profile,
        re_registered=profile is not live.calibration,
        fps=live.fps,
        frames=live.frames,
        frame=latest.frame if latest is not None else None,
        t=session.t,
        pieces=PieceCount(tuple(seen), tuple(hidden), tuple(missing), tuple(removed)),
        unknown_tags=tuple(sorted(unknown)),
        flags=flags,
        camera_events=tuple(camera[-CAMERA_EVENTS_SHOWN:]),
        cameras=tuple(live.cameras()),
        error=live.error,
        running=live.running,
        game=live.game_name,
    )


@dataclass(frozen=True)
class MapDoubt:
    """How far a point the map shows may be from that point on the cloth, inches (two sigma,
    as a piece's position), over a grid of the table; None where the camera does not see."""

    step: float
    values: tuple[tuple[float | None, ...], ...]
    """Rows by y from the near edge, columns by x, every ``step`` inches (the last row or
    column may lie past the far edges, so the grid reaches them)."""
    largest: float | None
    """The largest doubt anywhere the camera sees (None: it sees nothing of the table)."""
    at: float | None = None
    """At the point asked about, when one was."""
    asked: bool = False
    """A point was asked about (its ``at`` may still be None: a point the camera misses)."""

    def to_json(self) -> dict[str, Any]:
        answer: dict[str, Any] = {
            "table": self.largest,
            "grid": {"step": self.step, "values": [list(row) for row in self.values]},
        }
        if self.asked:
            answer["at"] = self.at
        return answer


def map_doubt_now(
    live: LiveTable, point: tuple[float, float] | None = None, step: float = DOUBT_STEP
) -> MapDoubt:
    """The map's doubt over the live table with the profile in use now (re-registrations
    included) and the pipeline's corner noise; and at ``point`` (table inches) if given."""
    session = live.session
    latest = session.latest
    profile = latest.profile if latest is not None else live.calibration
    noise = live.pipeline.poses.corner_noise_px
    table = session.initial_scene.table
    xs = np.arange(0.0, table.width + step, step)
    ys = np.arange(0.0, table.depth + step, step)
    grid = map_doubt(profile, np.array([(x, y) for y in ys for x in xs]), noise)
    values = tuple(tuple(_finite(v) for v in row) for row in grid.reshape(len(ys), len(xs)))
    seen: NDArray[np.float64] = grid[np.isfinite(grid)]
    at = _finite(map_doubt(profile, np.array([point]), noise)[0]) if point is not None else None
    return MapDoubt(
        step=step,
        values=values,
        largest=_finite(float(seen.max())) if len(seen) else None,
        at=at,
        asked=point is not None,
    )


def _finite(value: float) -> float | None:
    return round(float(value), 5) if np.isfinite(value) else None


__all__ = [
    "DOUBT_STEP",
    "MapDoubt",
    "PieceCount",
    "TableHealth",
    "map_doubt_now",
    "piece_ranges",
    "roster_pieces",
    "table_health",
]
