"""Opening a game: the scene, ruleset and game log entry a session starts on.

A new game is opened on a scene file (or the profile's bare table) and the
ruleset named for it, its scene checked as ``referee check`` checks one; a
game already in the log keeps the scene and ruleset it was started with, and
is held so that no other referee writes it at once.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from referee.calibration.profile import CalibrationProfile
from referee.errors import RefereeError, SceneError, at
from referee.rules import QueryError, Ruleset, find_ruleset
from referee.scene import Scene, Table
from referee.store import GameInfo, GameLog
from referee.vision.pipeline import Pipeline

DEFAULT_RULESET = "paper-tigers"


def bare_scene(profile: CalibrationProfile, ruleset: str) -> Scene:
    """Just the profile's table: no terrain, no pieces until the camera sees them settle."""
    table = Table(profile.table.width, profile.table.depth, profile.table.inch_mm)
    return Scene(ruleset, table, ())


def game_name(prefix: str = "game") -> str:
    """A new game's default name: ``game-2026-11-23-1504`` (local time, to the second)."""
    return f"{prefix}-{datetime.now().strftime('%Y-%m-%d-%H%M%S')}"


def open_game(
    pipeline: Pipeline,
    scene: Scene | None,
    ruleset: str | None,
    *,
    log: GameLog | None,
    game: str | None,
    source: str | None,
) -> tuple[Scene, Ruleset, GameInfo | None]:
    """The scene, ruleset and logged game (None without a log) a session on ``pipeline``
    starts on: the logged game ``game`` (held for this referee), or a new one, created in
    ``log``. ``scene`` gives terrain, sides, settings and questions (a bare table without
    it); ``ruleset`` overrides the scene's."""
    profile = pipeline.initial_profile
    existing = log.find(game) if log is not None and game is not None else None
    if log is not None and existing is not None:
        # Only one referee writes a game: another resuming it now is refused up front.
        log.hold(existing, "stop it first, or give --game another name")
    if existing is not None:
        scene = Scene.from_json(existing.scene, f"{log.path if log else ''}:{existing.name}")
        ruleset = existing.ruleset
    elif scene is None:
        scene = bare_scene(profile, ruleset or DEFAULT_RULESET)
    name = ruleset or scene.ruleset or DEFAULT_RULESET
    try:
        rules = find_ruleset(name, scene.settings if name == scene.ruleset else None)
    except ValueError as error:
        raise RefereeError(f"--ruleset: {error}") from None
    if rules.name != scene.ruleset:
        scene = replace(scene, ruleset=rules.name, settings={})
    type(rules).validate(scene)  # kinds and system fields, as 'referee check' checks them
    if existing is None:
        _check_questions(rules, scene)
    if log is not None and existing is None:
        existing = log.create_game(
            game or game_name(),
            rules.name,
            scene.to_json(),
            source=source,
            roster=pipeline.roster.to_json(),
            profile=profile.to_json(),
        )
    return scene, rules, existing


def _check_questions(rules: Ruleset, scene: Scene) -> None:
    """Refuse, as ``referee check`` would, a scene question that cannot be asked as written
    (asked once on the file's own positions; declarations are the flow's to take)."""
    flow = rules.game_flow()
    for i, query in enumerate(scene.queries):
        if flow.declare(scene, query).taken:
            continue
        try:
            rules.answer(scene, query)
        except QueryError as error:
            where = f"$.queries[{i}]{error.path}"
            raise SceneError(at(scene.source, where, error.problem)) from None


__all__ = ["DEFAULT_RULESET", "bare_scene", "game_name", "open_game"]
