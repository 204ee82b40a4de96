"""Battle reports from the game log: ``referee log report GAME --out report.html|.mp4``.

- :mod:`~referee.report.model`: :func:`build_report`, what the report says (turns, moves,
  disputes, corrections, casualties, the result), read from the log alone.
- :mod:`~referee.report.draw`: the table after a turn with its moves as arrows.
- :mod:`~referee.report.html`: one self-contained HTML file (inline CSS and SVG).
- :mod:`~referee.report.video`: an animated top-down replay (MP4).

Reads the store and the game's replay; nothing below it imports it.
"""

from __future__ import annotations

from referee.report.model import PAUSE, BattleReport, build_report, split_turns

__all__ = ["PAUSE", "BattleReport", "build_report", "split_turns"]
