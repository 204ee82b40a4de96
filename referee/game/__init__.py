"""One game: the session, the frame loop that drives it, its sources, the live table, replay.

The commands (``track``, ``run``, ``demo``, ``serve``) and the dashboard all
import this package; it drives vision, the rules and the game log, and
imports nothing above it (no web, no command module).

- :mod:`~referee.game.session`: :class:`Session`, one game's single stream of
  events (pipeline + ruleset + log), composed of parts: ``opening``, ``resume``,
  ``table``, ``numbering``, ``frames``, ``standing``, ``corrections``, ``record``
  and ``publication`` (its module docstring says what each holds).
- :mod:`~referee.game.edits`: terrain and roster edits, applied live, on
  resume and in replay alike.
- :mod:`~referee.game.loop`: :func:`drive`, the frame loop every command runs.
- :mod:`~referee.game.sources`: calibration, roster, frame sources, the sample.
- :mod:`~referee.game.live`: :class:`LiveTable`, a session fed by a frame
  thread for a dashboard to read and wait on; :mod:`~referee.game.views`,
  what it shows of a frame; :mod:`~referee.game.status`, what a dashboard asks of it
  (health, the map's doubt, the pieces to name) as values the web layer writes as JSON.
- :mod:`~referee.game.replay`: :func:`scene_at`, a logged game at any moment.
"""

from __future__ import annotations

from referee.game.edits import apply_edit, apply_roster_edit
from referee.game.live import Footage, LiveTable, sample_footage, sample_live, source_live
from referee.game.loop import drive, warn
from referee.game.replay import scene_at
from referee.game.session import (
    DEFAULT_RULESET,
    Ruling,
    Session,
    SessionUpdate,
    bare_scene,
    game_name,
    named_pieces,
)
from referee.game.sources import (
    check_log_path,
    check_source_fits,
    load_inputs,
    open_camera_source,
    open_log,
    probe_source,
    repo_footage,
    source_key,
)
from referee.vision.topdown import top_down

__all__ = [
    "DEFAULT_RULESET",
    "Footage",
    "LiveTable",
    "Ruling",
    "Session",
    "SessionUpdate",
    "apply_edit",
    "apply_roster_edit",
    "bare_scene",
    "check_log_path",
    "check_source_fits",
    "drive",
    "game_name",
    "load_inputs",
    "named_pieces",
    "open_camera_source",
    "open_log",
    "probe_source",
    "repo_footage",
    "sample_footage",
    "sample_live",
    "scene_at",
    "source_key",
    "source_live",
    "top_down",
    "warn",
]
