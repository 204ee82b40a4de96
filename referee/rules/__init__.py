"""Rulesets: answer the questions players argue about, from positions in inches.

A ruleset is a :class:`Ruleset` subclass with class-level data tables and a few
overridden hooks (the way ``chess.variant`` subclasses ``Board``), listed in
:data:`RULESETS`, one explicit tuple in the order users see. Every convention where a
rule book is silent is a field of the ruleset's frozen ``Settings`` dataclass,
switchable by keyword
(``find_ruleset("paper-tigers", follow_distance="centre")``) or by a scene
file's ``"settings"`` object; none is a hidden constant.

A question is a JSON object with an ``ask`` key; ``ruleset.answer(scene,
query)`` dispatches it to the method ``ask_<name>`` and returns a
:class:`Verdict`. The shared questions are read once into typed queries
(:mod:`referee.rules.queries`) and judged by the core's templates
(:meth:`Ruleset.judge_move`, :meth:`Ruleset.judge_range`), which the session also
calls directly with a typed :class:`~referee.rules.queries.MoveQuery`.

This module is only the public face: the values (:mod:`referee.rules.values`), the
conventions (:mod:`referee.rules.settings`), the base class (:mod:`referee.rules.base`)
and the registry (:mod:`referee.rules.registry`) each live in their own module, and no
module under ``rules/`` imports this one.
"""

from referee.rules.base import Ruleset
from referee.rules.paper_tigers import PaperTigers
from referee.rules.papercraft import Papercraft
from referee.rules.plastic_skirmish import PlasticSkirmish
from referee.rules.pz8 import Pz8SciFi, Pz8WW2, Pz8Y1950, Pz8Y1975
from referee.rules.pz8_coastal import Pz8Coastal
from referee.rules.pz8_colonial import Pz8Colonial
from referee.rules.pz8_divisional import Pz8Divisional, Pz8WW1
from referee.rules.pz8_grid_games import Pz8Aerial, Pz8Aerial1965, Pz8Naval, Pz8Space
from referee.rules.queries import LosQuery, MoveQuery, PairQuery, RangeQuery
from referee.rules.registry import (
    RULESETS,
    find_ruleset,
    find_ruleset_class,
    register,
    ruleset_for,
    ruleset_names,
    rulesets,
    unregister,
)
from referee.rules.settings import SETTING_LIMIT
from referee.rules.values import (
    PieceField,
    PieceRange,
    QueryError,
    Verdict,
    as_ids,
    judge,
    name_key,
)

__all__ = [
    "RULESETS",
    "SETTING_LIMIT",
    "LosQuery",
    "MoveQuery",
    "PairQuery",
    "PaperTigers",
    "Papercraft",
    "PieceField",
    "PieceRange",
    "PlasticSkirmish",
    "Pz8Aerial",
    "Pz8Aerial1965",
    "Pz8Coastal",
    "Pz8Colonial",
    "Pz8Divisional",
    "Pz8Naval",
    "Pz8SciFi",
    "Pz8Space",
    "Pz8WW1",
    "Pz8WW2",
    "Pz8Y1950",
    "Pz8Y1975",
    "QueryError",
    "RangeQuery",
    "Ruleset",
    "Verdict",
    "as_ids",
    "find_ruleset",
    "find_ruleset_class",
    "judge",
    "name_key",
    "register",
    "ruleset_for",
    "ruleset_names",
    "rulesets",
    "unregister",
]
