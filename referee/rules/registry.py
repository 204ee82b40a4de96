"""The registry: every game system in one explicit list, found by name or by a scene."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from referee.errors import SceneError, at
from referee.rules.base import Ruleset
from referee.rules.paper_tigers import PaperTigers
from referee.rules.papercraft import Papercraft
from referee.rules.plastic_skirmish import PlasticSkirmish
from referee.rules.pz8 import Pz8SciFi, Pz8WW2, Pz8Y1950, Pz8Y1975
from referee.rules.pz8_coastal import Pz8Coastal
from referee.rules.pz8_colonial import Pz8Colonial
from referee.rules.pz8_divisional import Pz8Divisional, Pz8WW1
from referee.rules.pz8_grid_games import Pz8Aerial, Pz8Aerial1965, Pz8Naval, Pz8Space
from referee.rules.values import name_key

if TYPE_CHECKING:
    from referee.scene import Scene


RULESETS: tuple[type[Ruleset], ...] = (
    PaperTigers,
    Papercraft,
    PlasticSkirmish,
    Pz8WW2,
    Pz8Y1950,
    Pz8Y1975,
    Pz8SciFi,
    Pz8Coastal,
    Pz8Colonial,
    Pz8Divisional,
    Pz8WW1,
    Pz8Space,
    Pz8Aerial,
    Pz8Aerial1965,
    Pz8Naval,
)
"""The game systems the referee plays, in the order users see them (``referee rulesets``,
the dashboard's picker, the docs)."""

_ADDED: list[type[Ruleset]] = []


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Add a system of one's own after :data:`RULESETS` (a class decorator): it is then
    found by name and scene like the bundled ones. Registering a class twice is once."""
    if cls not in RULESETS and cls not in _ADDED:
        _ADDED.append(cls)
    return cls


def unregister(cls: type[Ruleset]) -> None:
    """Take back a system :func:`register` added (a bundled one stays)."""
    if cls in _ADDED:
        _ADDED.remove(cls)


def rulesets() -> tuple[type[Ruleset], ...]:
    """Every system: :data:`RULESETS`, then the ones :func:`register` added."""
    return (*RULESETS, *_ADDED)


def ruleset_names() -> tuple[str, ...]:
    return tuple(cls.name for cls in rulesets())


def find_ruleset_class(name: str) -> type[Ruleset]:
    """The ruleset class for a name or alias (case, spaces and dashes ignored).

    >>> find_ruleset_class("Paper Tigers").name
    'paper-tigers'
    """
    key = name_key(name)
    for cls in rulesets():
        if key in {name_key(cls.name), *(name_key(a) for a in cls.aliases)}:
            return cls
    raise ValueError(f"unknown ruleset {name!r} (known: {', '.join(ruleset_names())})")


def find_ruleset(name: str, settings: Mapping[str, Any] | None = None, **overrides: Any) -> Ruleset:
    """A configured ruleset: ``find_ruleset("pt", follow_distance="centre")``.

    Unknown names and settings raise ``ValueError`` listing what is known.

    >>> find_ruleset("PT").name
    'paper-tigers'
    """
    cls = find_ruleset_class(name)
    return cls(**{**dict(settings or {}), **overrides})


def ruleset_for(scene: Scene, **overrides: Any) -> Ruleset:
    """The scene's ruleset configured with the scene's ``settings`` (then ``overrides``),
    after checking the scene against it (:meth:`Ruleset.validate`). Problems of the
    scene file are :class:`SceneError` naming ``$.ruleset``, ``$.settings`` or the piece;
    a bad override is a ``ValueError``."""
    try:
        cls = find_ruleset_class(scene.ruleset)
    except ValueError as error:
        raise SceneError(at(scene.source, "$.ruleset", str(error))) from None
    try:
        cls(**dict(scene.settings))
    except (TypeError, ValueError) as error:
        raise SceneError(at(scene.source, "$.settings", str(error))) from None
    cls.validate(scene)
    return cls(**{**dict(scene.settings), **overrides})
