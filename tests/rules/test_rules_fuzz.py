"""Malformed questions and scene files never escape as anything but a RefereeError."""

from __future__ import annotations

import contextlib
import copy
import json
import random
from typing import Any

from referee.errors import RefereeError
from referee.rules import ruleset_for
from referee.rules.cli import EXAMPLE
from referee.scene import Scene, load_scene

WEIRD: list[Any] = [
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
]
KEYS = [
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
]


def test_random_questions_fail_cleanly() -> None:
    scene = load_scene(EXAMPLE)
    rules = ruleset_for(scene)
    rnd = random.Random(5)
    for _ in range(3000):
        query: dict[str, Any] = {"ask": rnd.choice(rules.questions())}
        for key in rnd.sample(KEYS, rnd.randint(0, 5)):
            query[key] = rnd.choice(WEIRD)
        with contextlib.suppress(RefereeError):
            rules.answer(scene, query)


def _paths(obj: Any, pre: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [pre] if pre else []
    items = (
        obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    )
    for key, value in items:
        out += _paths(value, (*pre, key))
    return out


def test_mangled_scene_files_fail_cleanly() -> None:
    base = json.loads(EXAMPLE.read_text())
    paths = _paths(base)
    rnd = random.Random(6)
    for _ in range(400):
        data = copy.deepcopy(base)
        for _ in range(rnd.randint(1, 3)):
            *parents, last = rnd.choice(paths)
            node: Any = data
            try:
                for key in parents:
                    node = node[key]
                if isinstance(node, dict) and rnd.random() < 0.2:
                    node.pop(last, None)
                else:
                    node[last] = rnd.choice(WEIRD)
            except (KeyError, IndexError, TypeError):
                pass
        try:
            scene = Scene.from_json(data, "mangled.json")
            ruleset_for(scene).answer_all(scene, "mangled.json")
        except RefereeError as error:
            assert str(error).startswith("mangled.json: $"), str(error)
