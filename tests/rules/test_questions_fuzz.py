"""Malformed questions and scene files never escape as anything but a RefereeError."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from referee.errors import RefereeError
from referee.rules import ruleset_for
from referee.rules.cli import EXAMPLE
from referee.scene import Scene, load_scene

from .fuzz import WEIRD, ask_random_questions


def test_random_questions_fail_cleanly() -> None:
    scene = load_scene(EXAMPLE)
    answered = ask_random_questions(ruleset_for(scene), scene, random.Random(5), 3000)
    # Weird values still make some questions that can be answered (a real piece id, a
    # pose): were every question refused, the loop would prove nothing.
    assert len(answered) >= 3, answered


def _valid_questions(scene: Scene, rnd: random.Random) -> list[dict[str, Any]]:
    """Well-formed questions on the example table: its own queries, and range, los and
    move questions about random pieces."""
    live = [p.id for p in scene.pieces if p.state != "destroyed"]
    a, b = rnd.sample(live, 2)
    pose = {"x": rnd.uniform(0, scene.table.width), "y": rnd.uniform(0, scene.table.depth)}
    return [
        *scene.queries,
        {"ask": "range", "from": a, "to": b},
        {"ask": "los", "from": a, "to": b},
        {"ask": "move", "piece": a, "to": {**pose, "heading": rnd.uniform(0, 360)}},
        {"ask": "move", "piece": b, "to": pose, "allowance": rnd.choice([3, 6, 12])},
    ]


def test_valid_questions_are_answered() -> None:
    """The other side of the fuzz test: well-formed questions are answered, never refused,
    each with a verdict a user can read."""
    scene = load_scene(EXAMPLE)
    rules = ruleset_for(scene)
    rnd = random.Random(7)
    asked: set[str] = set()
    for _ in range(60):
        for query in _valid_questions(scene, rnd):
            verdict = rules.answer(scene, query)  # a RefereeError here fails the test
            data = verdict.to_json()
            assert data["ask"] == query["ask"]
            assert data["ok"] in (True, False, None)
            assert data["reasons"] and all(isinstance(r, str) and r for r in data["reasons"])
            asked.add(verdict.ask)
    assert {"range", "los", "move"} <= asked
    assert {q["ask"] for q in scene.queries} <= asked


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
