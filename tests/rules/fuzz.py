"""Random malformed questions, the one fuzz loop every system's tests share.

Each system's test module names the keys its questions take and the odd values worth
trying; :func:`ask_random_questions` puts them together at random and asks. Whatever a
question holds, the rules answer it or refuse it with a one-line
:class:`~referee.errors.RefereeError`: never another exception, never a traceback.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from referee.errors import RefereeError
from referee.rules import Ruleset
from referee.scene import Scene

WEIRD: tuple[Any, ...] = (
    None,
    0,
    -1,
    1.5,
    1e308,
    "t34",
    "zz",
    "QS",
    "move",
    "fire",
    "top",
    True,
    float("nan"),
    [],
    [1],
    ["t34"],
    ["zz"],
    [1, 2, 3],
    [[0, 0], [1, 1]],
    {},
    {"x": 1},
    {"x": 1, "y": 2},
    {"x": "a", "y": 2},
    {"t34": "QS"},
    {"soviet": [1, 2]},
    {"soviet": [9, 9]},
)
"""Odd values for any key: wrong types, ids that exist on some tables, poses half made."""

KEYS: tuple[str, ...] = (
    "from",
    "to",
    "piece",
    "leader",
    "action",
    "allowance",
    "cards",
    "card",
    "dice",
    "side",
    "pieces",
    "edge",
    "objective",
    "follower",
    "follows",
    "chain",
    "units",
    "uncertainty",
)
"""The keys the questions of most systems take."""


def ask_random_questions(
    rules: Ruleset,
    scene: Scene,
    rnd: random.Random,
    count: int,
    keys: Sequence[str] = KEYS,
    values: Sequence[Any] = WEIRD,
    *,
    most: int = 5,
    pieces: Sequence[str] = (),
) -> set[str]:
    """Ask ``count`` random questions of ``rules`` on ``scene``: each a random question of
    the system, with each of ``pieces`` (keys such as ``from``) set to one of the table's
    ids, and up to ``most`` of ``keys`` set to one of ``values``. A refusal must be one
    line. Returns the questions answered (a test that needs some answered says so)."""
    ids = [p.id for p in scene.pieces]
    answered: set[str] = set()
    for _ in range(count):
        query: dict[str, Any] = {"ask": rnd.choice(rules.questions())}
        for key in pieces:
            query[key] = rnd.choice(ids)
        for key in rnd.sample(list(keys), rnd.randint(0, most)):
            query[key] = rnd.choice(values)
        try:
            verdict = rules.answer(scene, query)
        except RefereeError as error:
            assert "\n" not in str(error), (query, str(error))  # one line, naming the field
            continue
        assert verdict.ask == query["ask"], query
        answered.add(verdict.ask)
    return answered
